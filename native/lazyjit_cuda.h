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
typedef signed char int8_t;
typedef unsigned char uint8_t;
typedef short int16_t;
typedef unsigned short uint16_t;
typedef int int32_t;
typedef unsigned int uint32_t;
typedef long long int64_t;
typedef unsigned long long uint64_t;

#define INFINITY __int_as_float(0x7f800000)
#define NAN __int_as_float(0x7fc00000)  /* (the quiet NaN C and NumPy make) */
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
#endif

/* the accumulator types of reductions (lazyjit/backends/cuda/render.py: acc_ctype) */
LJ_SHFL(float)
LJ_SHFL(double)
LJ_SHFL(int32_t)
LJ_SHFL(uint32_t)
LJ_SHFL(int64_t)
LJ_SHFL(uint64_t)

#include "lazyjit_rt.h"

#endif
