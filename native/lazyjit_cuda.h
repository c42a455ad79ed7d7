/* lazyjit CUDA runtime: the first line of every generated CUDA module.
 *
 * Compiled by NVRTC, which has no C headers: the integer types, INFINITY and NAN, the
 * float16 storage type (lj_half, converted by PTX cvt instructions) and warp shuffles
 * are defined here, then lazyjit_rt.h gives the same helpers as the C modules
 * (NumPy's integer and float division, sigmoid, Philox) as __device__ functions.
 *
 * With LJ_EMULATE defined (LAZYJIT_FLAGS=backend=cuda,cuda_emulate=true), the same
 * source is compiled by the C compiler instead: lazyjit_cuda_emu.h maps the CUDA names
 * onto OpenMP, so that kernels run on the CPU with their barriers and shuffles.
 *
 * A kernel is LJ_KERNEL kN(B, P, E): B the buffer pointers, P the int64 parameter table
 * (sizes, strides, offsets, scalar constants), E the call's error word (0: no error).
 */
#ifndef LAZYJIT_CUDA_H
#define LAZYJIT_CUDA_H

#ifdef LJ_EMULATE
#include "lazyjit_cuda_emu.h"
#else
#ifdef LJ_COMPLEX  /* (first: its <cmath> defines INFINITY and NAN as its own) */
#include <cuda/std/complex>
#endif
typedef signed char int8_t;
typedef unsigned char uint8_t;
typedef short int16_t;
typedef unsigned short uint16_t;
typedef int int32_t;
typedef unsigned int uint32_t;
typedef long long int64_t;
typedef unsigned long long uint64_t;

#ifndef INFINITY
#define INFINITY __int_as_float(0x7f800000)
#define NAN __int_as_float(0x7fc00000)  /* (the quiet NaN C and NumPy make) */
#endif
#define LJ_KERNEL extern "C" __global__ void __launch_bounds__(LJ_THREADS)
#define LJ_THREADS 256  /* threads per block of every launch (lazyjit/backends/cuda/device.py) */

/* IEEE binary16 storage; arithmetic is done in float (round to nearest even on store) */
typedef struct __align__(2) { unsigned short x; } lj_half;
static __device__ __forceinline__ float lj_h2f(lj_half h) {
    float f;
    asm("cvt.f32.f16 %0, %1;" : "=f"(f) : "h"(h.x));
    return f;
}
static __device__ __forceinline__ lj_half lj_f2h(float f) {
    lj_half h;
    asm("cvt.rn.f16.f32 %0, %1;" : "=h"(h.x) : "f"(f));
    return h;
}
/* from double in one rounding (through float it could round twice) */
static __device__ __forceinline__ lj_half lj_d2h(double d) {
    lj_half h;
    asm("cvt.rn.f16.f64 %0, %1;" : "=h"(h.x) : "d"(d));
    return h;
}

/* value of lane (lane + d) of the warp, or the lane's own value past the warp's end */
#define LJ_SHFL(T) \
static __device__ __forceinline__ T lj_shfl_down_##T(T v, int d) { \
    return __shfl_down_sync(0xffffffffu, v, d); \
}
/* store error code c in the call's error word unless an earlier failure stored one (the
 * first failing step wins, as the C modules stop at the first) */
static __device__ __forceinline__ void lj_fail(int32_t* E, int32_t c) { atomicCAS(E, 0, c); }

#ifdef LJ_COMPLEX
/* complex64 and complex128 (a module with complex values defines LJ_COMPLEX: libcu++'s
 * header takes NVRTC 1.5-2 s): libcu++'s cuda::std::complex under C99's names, as
 * lazyjit_rt.h's C modules have them (crealf, cexpf, casinhf, ...; lazyjit_rt.h's own
 * csqrt, clog, ctan, ctanh and cpow, where libcu++'s are not accurate), compared with an int
 * as C compares (z == 0, z != 0, !z), and shuffled a part at a time */
typedef cuda::std::complex<float> lj_cfloat;
typedef cuda::std::complex<double> lj_cdouble;
#define LJ_CFN(C, R, S, f) \
static __device__ __forceinline__ C c##f##S(C z) { return cuda::std::f(z); }
#define LJ_CTYPE(C, R, S) \
static __device__ __forceinline__ C lj_complex##S(R re, R im) { return C(re, im); } \
static __device__ __forceinline__ R creal##S(C z) { return z.real(); } \
static __device__ __forceinline__ R cimag##S(C z) { return z.imag(); } \
static __device__ __forceinline__ R cabs##S(C z) { return cuda::std::abs(z); } \
static __device__ __forceinline__ C conj##S(C z) { return cuda::std::conj(z); } \
LJ_CFN(C, R, S, exp) LJ_CFN(C, R, S, sin) LJ_CFN(C, R, S, cos) \
LJ_CFN(C, R, S, sinh) LJ_CFN(C, R, S, cosh) \
static __device__ __forceinline__ bool operator==(C a, int b) { \
    return a.real() == (R)b && a.imag() == 0; } \
static __device__ __forceinline__ bool operator!=(C a, int b) { return !(a == b); } \
static __device__ __forceinline__ bool operator!(C a) { return a == 0; } \
static __device__ __forceinline__ C lj_shfl_down_##C(C v, int d) { \
    return C(__shfl_down_sync(0xffffffffu, v.real(), d), \
             __shfl_down_sync(0xffffffffu, v.imag(), d)); }
LJ_CTYPE(lj_cfloat, float, f)
LJ_CTYPE(lj_cdouble, double, )
#define LJ_HAS_COMPLEX 1
#endif
#endif

/* the accumulator types of reductions (lazyjit/backends/cuda/render.py: acc_ctype) */
LJ_SHFL(float)
LJ_SHFL(double)
LJ_SHFL(int32_t)
LJ_SHFL(uint32_t)
LJ_SHFL(int64_t)
LJ_SHFL(uint64_t)

#include "lazyjit_rt.h"

#ifdef LJ_EMULATE  /* (complex: C99's, from lazyjit_rt.h) */
LJ_SHFL(lj_cfloat)
LJ_SHFL(lj_cdouble)
#endif

#endif
