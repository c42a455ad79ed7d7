/* lazyjit C runtime: included by every generated CPU module, and by every CUDA module
 * (through lazyjit_cuda.h: there the functions are __device__ and no C header exists).
 *
 * float16 storage (lj_half) and its conversions; integer floor division, remainder and
 * power with NumPy semantics (never trapping: division by zero gives 0, INT_MIN / -1
 * wraps), float floor division and remainder as NumPy's npy_divmod, and overflow-free
 * sigmoid / softplus / logaddexp.  The generated code declares glibc's vector math (libmvec)
 * variants separately, so loops calling expf, sinf, tanhf, ... vectorize.
 */
#ifndef LAZYJIT_RT_H
#define LAZYJIT_RT_H
#ifdef __CUDACC__
#define LJ_INLINE static __device__ __forceinline__
#define LJ_UNROLL10 _Pragma("unroll 10")
#else
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#define LJ_INLINE static inline __attribute__((always_inline))
#define LJ_UNROLL10 _Pragma("GCC unroll 10")
#endif
/* a##_##b after expanding both: the names of a type-generic header's functions in one
 * instantiation (lazyjit_conv_gemm.h: LJ_CAT(lj_im2col, LJ_S) is lj_im2col_float32) */
#define LJ_CAT_(a, b) a##_##b
#define LJ_CAT(a, b) LJ_CAT_(a, b)

/* A double whose bits travel in an int64 parameter slot (constants are parameters). */
#ifdef __CUDACC__
LJ_INLINE double lj_as_f64(int64_t bits) { return __longlong_as_double(bits); }
#else
LJ_INLINE double lj_as_f64(int64_t bits) { double d; memcpy(&d, &bits, sizeof d); return d; }
#endif

/* float16 (NumPy's float16, IEEE 754 binary16) is stored as lj_half and computed in float
 * (lazyjit/backends/cfamily.py): loads convert with lj_h2f, stores with lj_f2h (round to
 * nearest even); lj_d2h rounds a double directly (through float it could round twice).
 * _Float16 needs gcc >= 12 or clang >= 15 on x86-64; with an older compiler only the
 * modules that use float16 fail to compile. */
#if defined(__FLT16_MAX__) && !defined(__CUDACC__)  /* (CUDA: lazyjit_cuda.h) */
typedef _Float16 lj_half;
LJ_INLINE float lj_h2f(lj_half x) { return (float)x; }
LJ_INLINE lj_half lj_f2h(float x) { return (lj_half)x; }
LJ_INLINE lj_half lj_d2h(double x) { return (lj_half)x; }
#endif

#define LJ_INT_OPS(T, NAME)                                                      \
LJ_INLINE T lj_floordiv_##NAME(T a, T b) {                                      \
    if (b == 0) return 0;                                                        \
    if (b == -1) return (T)(0 - (uint64_t)a);                                    \
    T q = a / b;                                                                 \
    if ((a % b != 0) && ((a < 0) != (b < 0))) q -= 1;                            \
    return q;                                                                    \
}                                                                                \
LJ_INLINE T lj_mod_##NAME(T a, T b) {                                           \
    if (b == 0 || b == -1) return 0;                                             \
    T r = a % b;                                                                 \
    if (r != 0 && ((r < 0) != (b < 0))) r += b;                                  \
    return r;                                                                    \
}                                                                                \
LJ_INLINE T lj_ipow_##NAME(T a, T b) {                                          \
    if (b < 0) return 0;                                                         \
    uint64_t r = 1, x = (uint64_t)a;  /* (wrapping: no signed overflow in CUDA) */ \
    while (b) { if (b & 1) r = (uint64_t)(T)(r * x); x = (uint64_t)(T)(x * x); b >>= 1; } \
    return (T)r;                                                                 \
}

#define LJ_UINT_OPS(T, NAME)                                                     \
LJ_INLINE T lj_floordiv_##NAME(T a, T b) { return b == 0 ? 0 : (T)(a / b); }    \
LJ_INLINE T lj_mod_##NAME(T a, T b) { return b == 0 ? 0 : (T)(a % b); }         \
LJ_INLINE T lj_ipow_##NAME(T a, T b) {                                          \
    uint64_t r = 1, x = a;  /* (uint16_t * uint16_t would overflow the int of C) */ \
    while (b) { if (b & 1) r = (T)(r * x); x = (T)(x * x); b >>= 1; }            \
    return (T)r;                                                                 \
}

LJ_INT_OPS(int8_t, int8)
LJ_INT_OPS(int16_t, int16)
LJ_INT_OPS(int32_t, int32)
LJ_INT_OPS(int64_t, int64)
LJ_UINT_OPS(uint8_t, uint8)
LJ_UINT_OPS(uint16_t, uint16)
LJ_UINT_OPS(uint32_t, uint32)
LJ_UINT_OPS(uint64_t, uint64)
LJ_UINT_OPS(uint8_t, bool)

/* NumPy's npy_divmod for floats: floor division and a remainder with the sign of b. */
#define LJ_FLOAT_OPS(T, NAME, S)                                                 \
LJ_INLINE T lj_mod_##NAME(T a, T b) {                                           \
    if (b == 0) return fmod##S(a, b);                                            \
    T m = fmod##S(a, b);                                                         \
    if (m != 0) { if ((b < 0) != (m < 0)) m += b; }                              \
    else m = copysign##S((T)0, b);                                               \
    return m;                                                                    \
}                                                                                \
LJ_INLINE T lj_floordiv_##NAME(T a, T b) {                                      \
    if (b == 0) return a / b;                                                    \
    T m = fmod##S(a, b);                                                         \
    T div = (a - m) / b;                                                         \
    if (m != 0 && ((b < 0) != (m < 0))) div -= 1;                                \
    T f;                                                                         \
    if (div != 0) { f = floor##S(div); if (div - f > (T)0.5) f += 1; }           \
    else f = copysign##S((T)0, a / b);                                           \
    return f;                                                                    \
}                                                                                \
LJ_INLINE T lj_sigmoid##S(T x) {                                                 \
    T e = exp##S(-fabs##S(x));                                                   \
    T r = (T)1 / ((T)1 + e);                                                     \
    return x >= 0 ? r : e * r;                                                   \
}                                                                                \
LJ_INLINE T lj_softplus##S(T x) {                                                \
    return (x > 0 ? x : (T)0) + log1p##S(exp##S(-fabs##S(x)));                  \
}                                                                                \
/* log(exp(a) + exp(b)) without overflow, as np.logaddexp: equal arguments (infinities \
 * of one sign included) give a + log(2); NaN propagates (d is NaN) */         \
LJ_INLINE T lj_logaddexp##S(T a, T b) {                                          \
    if (a == b) return a + (T)0.693147180559945309417232121458176568;           \
    T d = a - b;                                                                 \
    if (d > 0) return a + log1p##S(exp##S(-d));                                  \
    if (d <= 0) return b + log1p##S(exp##S(d));                                  \
    return d;                                                                    \
}

LJ_FLOAT_OPS(float, float32, f)
LJ_FLOAT_OPS(double, float64, )

/* complex64 and complex128 are lj_cfloat and lj_cdouble, made of their two parts by
 * lj_complexf(re, im) and lj_complex(re, im), with C99's function names (crealf, cexpf,
 * ...): in C, C99's float _Complex and double _Complex (<complex.h>, whose macros I and
 * complex are undefined at once: generated code may name a variable I); in CUDA C++,
 * libcu++'s cuda::std::complex (lazyjit_cuda.h, in a module defining LJ_COMPLEX).
 * lj_cpow is NumPy's complex power: 1 for b == 0, 0 for
 * a == 0 and Re(b) > 0 (else NaN), a, a*a and a*a*a for b = 1, 2, 3, repeated squaring
 * for other integer b with |b| < 100, else
 * C's cpow.  Products and quotients are NumPy's too (C's Annex G ones differ at infinities
 * and NaN): the textbook product, and Smith's quotient (R. L. Smith, "Algorithm 116:
 * Complex division", CACM 5(8), 1962), a zero divisor dividing each part by |0|.  C99
 * has no complex log1p, expm1, log2, log10, exp2 or sign: lj_clog1p ... lj_csign are
 * NumPy's definitions (log(hypot(x + 1, y)) + i atan2(y, x + 1); expm1(x) cos(y) -
 * 2 sin(y/2)^2 + i exp(x) sin(y); each part of log(z) times log_b(e); exp of each part
 * times ln 2; z / |z|, 0 at 0 and NaN for NaN, where |z| overflows (sign(x), 0) for an
 * infinite x, else (0, sign(y)), as NumPy 2.4). */
#ifndef __CUDACC__
#include <complex.h>
#undef I
#undef complex
typedef float _Complex lj_cfloat;
typedef double _Complex lj_cdouble;
#define lj_complexf(re, im) __builtin_complex((float)(re), (float)(im))
#define lj_complex(re, im) __builtin_complex((double)(re), (double)(im))
#define LJ_HAS_COMPLEX 1
#endif
#ifdef LJ_HAS_COMPLEX
/* lj_cmul: NumPy's elementwise complex product (multiply, square, x**2), its SIMD loop:
 * where the machine has FMA (x86-64-v3 and up, every GPU and its emulation) Re is
 * fma(ar, br, -(ai*bi))
 * and Im fma(ar, bi, ai*br), each inner product rounded (bit for bit with NumPy 2.4 on
 * 100,000 random products of each dtype); the textbook product elsewhere.  lj_cmul_t:
 * the textbook product of NumPy's scalar loops (integer powers, prod, which reduce and
 * accumulate without the SIMD loop). */
#if defined(__FMA__) || defined(__CUDACC__) || defined(LJ_EMULATE)  /* (emulated: as a GPU) */
#define LJ_CMUL_RE(S, ar, br, aibi) fma##S(ar, br, -(aibi))
#define LJ_CMUL_IM(S, ar, bi, aibr) fma##S(ar, bi, aibr)
#else
#define LJ_CMUL_RE(S, ar, br, aibi) ((ar) * (br) - (aibi))
#define LJ_CMUL_IM(S, ar, bi, aibr) ((ar) * (bi) + (aibr))
#endif
#if defined(__CUDACC__) || defined(LJ_EMULATE)
/* On the GPU (and in its emulation, which runs the same functions), lazyjit's own complex
 * sqrt, log, tanh, tan, inverse functions and non-integer pow: libcu++'s are hundreds of
 * ulp off or worse.  C99 Annex G's special values as glibc gives them (NumPy's); within
 * a few ulp of glibc's elsewhere (tests/test_complex.py):
 *  - sqrt: Kahan's ("Branch cuts for complex elementary functions", 1987): t = sqrt((|x| +
 *    |z|) / 2), then y / 2t, the operands scaled by 1/4 near overflow and up near the
 *    subnormals;
 *  - log: log|z| + i atan2(y, x), with log|z| = log1p(a^2 + b^2 - 1) / 2 near |z| = 1
 *    (a^2 + b^2 - 1 in double length: fma's exact products, Knuth's two-sum), scaled near
 *    overflow and underflow;
 *  - tanh: Kahan's: t = tan(y), b = 1 + t^2, s = sinh(x), (b s sqrt(1 + s^2) + i t) /
 *    (1 + b s^2), and (sign(x), 4 sin(y) cos(y) e^-2|x|) once e^2|x| passes 1/eps^2;
 *    tan(z) = -i tanh(iz);
 *  - asin, acos, asinh (-i asin iz), acosh: Kahan's, from s = sqrt(1 - z), t = sqrt(1 + z)
 *    (asin: atan(x / Re(s t)) + i asinh(Im(conj(s) t)), and alike);
 *  - atanh: log1p(4x / ((1 - x)^2 + y^2)) / 4 + i atan2(2y, 1 - x^2 - y^2) / 2, the
 *    latter's 1 - x^2 - y^2 in double length; near x = 1 (hypot(1 - x, y) < 2^-27,
 *    2^-12), (log 4x - 2 log hypot(1 - x, y)) / 4; 1/z + i pi/2 past 2^500 (2^60);
 *    atan(z) = -i atanh(iz);
 *  - pow: exp(b log(a)), as glibc's cpow. */
#define LJ_COMPLEX_OWN(C, R, S, BIG, TINY, UP, DOWN, TANH_CUT, BIG_ATANH, ATANH_NEAR) \
LJ_INLINE C lj_gsqrt##S(C z) {                                                  \
    R x = creal##S(z), y = cimag##S(z);                                          \
    if (x == 0 && y == 0) return lj_complex##S(0, y);                            \
    if (isinf(y)) return lj_complex##S(INFINITY, y);                             \
    if (x != x) return lj_complex##S(x, (y - y) / (y - y));                      \
    if (isinf(x)) return signbit(x) ? lj_complex##S(fabs##S(y - y), copysign##S(x, y)) \
                                    : lj_complex##S(x, copysign##S(y - y, y));   \
    R scale = 1;                                                                 \
    if (fabs##S(x) >= (R)BIG || fabs##S(y) >= (R)BIG) { x *= (R)0.25; y *= (R)0.25; scale = 2; } \
    else if (fabs##S(x) < (R)TINY && fabs##S(y) < (R)TINY) { x *= (R)UP; y *= (R)UP; scale = (R)DOWN; } \
    const R t = sqrt##S((fabs##S(x) + hypot##S(x, y)) * (R)0.5);                 \
    if (x >= 0) return lj_complex##S(t * scale, y / (2 * t) * scale);            \
    return lj_complex##S(fabs##S(y) / (2 * t) * scale, copysign##S(t, y) * scale); \
}                                                                                \
LJ_INLINE C lj_glog##S(C z) {                                                   \
    const R x = creal##S(z), y = cimag##S(z);                                    \
    R a = fabs##S(x), b = fabs##S(y);                                            \
    if (isinf(a) || isinf(b)) return lj_complex##S(INFINITY, atan2##S(y, x));    \
    if (a != a || b != b) return lj_complex##S(NAN, NAN);                        \
    if (b > a) { const R t = a; a = b; b = t; }                                  \
    R re;                                                                        \
    if (a == 0) re = -INFINITY;                                                  \
    else if (a >= (R)BIG) re = log##S(hypot##S(a * (R)0.25, b * (R)0.25)) + (R)1.38629436111989061883446424291635313; \
    else if (a < (R)TINY) re = log##S(hypot##S(a * (R)UP, b * (R)UP)) + log##S((R)DOWN) * 2; \
    else {                                                                       \
        const R h = hypot##S(a, b);                                              \
        if (h > (R)0.7 && h < (R)1.4) {  /* a^2 + b^2 - 1 in double length */     \
            const R p = a * a, pe = fma##S(a, a, -p), q = b * b, qe = fma##S(b, b, -q); \
            const R u = p - 1, s1 = u + q, bv = s1 - u;                          \
            const R err = (u - (s1 - bv)) + (q - bv);                            \
            re = log1p##S(s1 + (err + pe + qe)) * (R)0.5;                        \
        } else re = log##S(h);                                                   \
    }                                                                            \
    return lj_complex##S(re, atan2##S(y, x));                                    \
}                                                                                \
LJ_INLINE C lj_gtanh##S(C z) {                                                  \
    const R x = creal##S(z), y = cimag##S(z);                                    \
    if (x != x) return lj_complex##S(x, y == 0 ? y : x);                         \
    if (isinf(x)) return lj_complex##S(copysign##S((R)1, x),                        \
        isinf(y) || y != y ? copysign##S((R)0, y) : copysign##S((R)0, sin##S(y) * cos##S(y))); \
    if (isinf(y) || y != y) return lj_complex##S(x == 0 ? x : y - y, y - y);     \
    if (fabs##S(x) >= (R)TANH_CUT) {                                             \
        const R e = exp##S(-fabs##S(x));                                         \
        return lj_complex##S(copysign##S((R)1, x), 4 * sin##S(y) * cos##S(y) * e * e); \
    }                                                                            \
    const R t = tan##S(y), beta = 1 + t * t, s = sinh##S(x), rho = sqrt##S(1 + s * s); \
    const R d = 1 + beta * s * s;                                                \
    return lj_complex##S(beta * rho * s / d, t / d);                             \
}                                                                                \
LJ_INLINE C lj_gtan##S(C z) {                                                   \
    const C w = lj_gtanh##S(lj_complex##S(-cimag##S(z), creal##S(z)));          \
    return lj_complex##S(cimag##S(w), -creal##S(w));                             \
}                                                                                \
LJ_INLINE C lj_gpow##S(C a, C b) {                                              \
    const C l = lj_glog##S(a);                                                   \
    const R lr = creal##S(l), li = cimag##S(l), br = creal##S(b), bi = cimag##S(b); \
    return cexp##S(lj_complex##S(br * lr - bi * li, br * li + bi * lr));         \
}                                                                                \
LJ_INLINE C lj_grot##S(C w, R sign) {  /* -i w (sign 1) or i w (sign -1) */      \
    return lj_complex##S(sign * cimag##S(w), -sign * creal##S(w));               \
}                                                                                \
LJ_INLINE C lj_gasin_finite##S(C z) {  /* Kahan: asin z = atan(x / Re(s t)) +    \
    i asinh(Im(conj(s) t)), s = sqrt(1 - z), t = sqrt(1 + z) */                   \
    const R x = creal##S(z), y = cimag##S(z);                                    \
    const C s = lj_gsqrt##S(lj_complex##S(1 - x, -y)), t = lj_gsqrt##S(lj_complex##S(1 + x, y)); \
    const R sr = creal##S(s), si = cimag##S(s), tr = creal##S(t), ti = cimag##S(t); \
    return lj_complex##S(atan##S(x / (sr * tr - si * ti)), asinh##S(sr * ti - si * tr)); \
}                                                                                \
LJ_INLINE C lj_gasinh##S(C z) {  /* -i asin(iz); C99's special values */        \
    const R x = creal##S(z), y = cimag##S(z), h = (R)1.57079632679489661923132169163975144; \
    if (isinf(x) || isinf(y)) {                                                  \
        if (x != x || y != y) return lj_complex##S(x != x ? fabs##S(y) : x, x != x ? x : y); \
        return lj_complex##S(copysign##S((R)INFINITY, x),                        \
                             isinf(y) ? copysign##S(isinf(x) ? h / 2 : h, y) : copysign##S((R)0, y)); \
    }                                                                            \
    if (x != x || y != y) return lj_complex##S(x != x ? x : y, y == 0 ? y : x + y); \
    return lj_grot##S(lj_gasin_finite##S(lj_complex##S(-y, x)), 1);              \
}                                                                                \
LJ_INLINE C lj_gasin##S(C z) {  /* -i asinh(iz) */                               \
    if (isfinite(creal##S(z)) && isfinite(cimag##S(z))) return lj_gasin_finite##S(z); \
    if (isinf(creal##S(z)) && cimag##S(z) != cimag##S(z))  /* (glibc's: NaN + i inf) */ \
        return lj_complex##S(cimag##S(z), INFINITY);                             \
    return lj_grot##S(lj_gasinh##S(lj_complex##S(-cimag##S(z), creal##S(z))), 1); \
}                                                                                \
LJ_INLINE C lj_gacos##S(C z) {  /* Kahan: 2 atan(Re s / Re t) + i asinh(Im(conj(t) s)) */ \
    const R x = creal##S(z), y = cimag##S(z);                                    \
    if (!isfinite(x) || !isfinite(y)) {  /* (pi/2 - asin z, Annex G's values) */ \
        const C w = lj_gasin##S(z);                                              \
        return lj_complex##S((R)1.57079632679489661923132169163975144 - creal##S(w), -cimag##S(w)); \
    }                                                                            \
    const C s = lj_gsqrt##S(lj_complex##S(1 - x, -y)), t = lj_gsqrt##S(lj_complex##S(1 + x, y)); \
    const R sr = creal##S(s), si = cimag##S(s), tr = creal##S(t), ti = cimag##S(t); \
    return lj_complex##S(2 * atan##S(sr / tr), asinh##S(tr * si - ti * sr));     \
}                                                                                \
LJ_INLINE C lj_gacosh##S(C z) {  /* Kahan: asinh(Re(conj(s) t)) + 2i atan(Im s / Re t), \
    s = sqrt(z - 1), t = sqrt(z + 1) */                                          \
    const R x = creal##S(z), y = cimag##S(z), h = (R)1.57079632679489661923132169163975144; \
    if (isinf(y)) return lj_complex##S(INFINITY, x != x ? x : copysign##S(isinf(x) ? (x > 0 ? h / 2 : 3 * h / 2) : h, y)); \
    if (isinf(x)) return lj_complex##S(INFINITY, y != y ? y : copysign##S(x > 0 ? 0 : 2 * h, y)); \
    if (x != x || y != y) return lj_complex##S(NAN, x == 0 ? h : NAN);           \
    const C s = lj_gsqrt##S(lj_complex##S(x - 1, y)), t = lj_gsqrt##S(lj_complex##S(x + 1, y)); \
    const R sr = creal##S(s), si = cimag##S(s), tr = creal##S(t), ti = cimag##S(t); \
    return lj_complex##S(asinh##S(sr * tr + si * ti), 2 * atan##S(si / tr));     \
}                                                                                \
LJ_INLINE C lj_gatanh##S(C z) {  /* log1p(4x / ((1-x)^2 + y^2)) / 4 +             \
    i atan2(2y, 1 - x^2 - y^2) / 2, the latter's 1 - x^2 - y^2 in double length */ \
    const R x = creal##S(z), y = cimag##S(z), h = (R)1.57079632679489661923132169163975144; \
    if (isinf(y)) return lj_complex##S(copysign##S((R)0, x), copysign##S(h, y));  \
    if (isinf(x)) return lj_complex##S(copysign##S((R)0, x), y != y ? y : copysign##S(h, y)); \
    if (x != x || y != y) return lj_complex##S(x == 0 ? x : NAN, NAN);           \
    const R a = fabs##S(x), b = fabs##S(y);                                      \
    if (a > (R)BIG_ATANH || b > (R)BIG_ATANH) {  /* 1/z + i pi/2 sign(y) */       \
        const R m = hypot##S(x * (R)0.25, y * (R)0.25);                          \
        return lj_complex##S(x * (R)0.0625 / m / m, copysign##S(h, y));          \
    }                                                                            \
    const R p = a * a, pe = fma##S(a, a, -p), q = b * b, qe = fma##S(b, b, -q);  \
    const R u = 1 - p, s1 = u - q, bv = s1 - u;                                  \
    const R m = s1 + (((u - (s1 - bv)) + (-q - bv)) - pe - qe);  /* 1 - x^2 - y^2 */ \
    const R r = hypot##S(1 - a, b);  /* ((1-a)^2 + y^2 would underflow near x = 1) */ \
    const R re = r < (R)ATANH_NEAR ? (log##S(4 * a) - 2 * log##S(r)) / 4           \
                                   : log1p##S(4 * a / (r * r)) / 4;               \
    return lj_complex##S(copysign##S(re, x), atan2##S(2 * y, m) / 2);             \
}                                                                                \
LJ_INLINE C lj_gatan##S(C z) {  /* -i atanh(iz) */                               \
    return lj_grot##S(lj_gatanh##S(lj_complex##S(-cimag##S(z), creal##S(z))), 1); \
}
LJ_COMPLEX_OWN(lj_cfloat, float, f, 0x1.a82798p+126, 0x1p-125, 0x1p24, 0x1p-12, 9, 0x1p60,
               0x1p-12)
LJ_COMPLEX_OWN(lj_cdouble, double, , 0x1.a827999fcef32p+1022, 0x1p-1021, 0x1p54, 0x1p-27, 22,
               0x1p500, 0x1p-27)
#define csqrtf lj_gsqrtf
#define csqrt lj_gsqrt
#define clogf lj_glogf
#define clog lj_glog
#define ctanhf lj_gtanhf
#define ctanh lj_gtanh
#define ctanf lj_gtanf
#define ctan lj_gtan
#define cpowf lj_gpowf
#define cpow lj_gpow
#define casinf lj_gasinf
#define casin lj_gasin
#define cacosf lj_gacosf
#define cacos lj_gacos
#define catanf lj_gatanf
#define catan lj_gatan
#define casinhf lj_gasinhf
#define casinh lj_gasinh
#define cacoshf lj_gacoshf
#define cacosh lj_gacosh
#define catanhf lj_gatanhf
#define catanh lj_gatanh
#endif
#define LJ_COMPLEX_OPS(C, R, S)                                                  \
LJ_INLINE C lj_cmul##S(C a, C b) {                                              \
    const R ar = creal##S(a), ai = cimag##S(a), br = creal##S(b), bi = cimag##S(b); \
    return lj_complex##S(LJ_CMUL_RE(S, ar, br, ai * bi), LJ_CMUL_IM(S, ar, bi, ai * br)); \
}                                                                                \
LJ_INLINE C lj_cmul_t##S(C a, C b) {                                            \
    const R ar = creal##S(a), ai = cimag##S(a), br = creal##S(b), bi = cimag##S(b); \
    return lj_complex##S(ar * br - ai * bi, ar * bi + ai * br);                  \
}                                                                                \
LJ_INLINE C lj_cdiv##S(C a, C b) {                                              \
    const R ar = creal##S(a), ai = cimag##S(a), br = creal##S(b), bi = cimag##S(b); \
    const R abr = fabs##S(br), abi = fabs##S(bi);                                \
    if (abr >= abi) {                                                            \
        if (abr == 0 && abi == 0) return lj_complex##S(ar / abr, ai / abi);      \
        const R rat = bi / br, scl = (R)1 / (br + bi * rat);                     \
        return lj_complex##S((ar + ai * rat) * scl, (ai - ar * rat) * scl);      \
    }                                                                            \
    const R rat = br / bi, scl = (R)1 / (bi + br * rat);                         \
    return lj_complex##S((ar * rat + ai) * scl, (ai * rat - ar) * scl);          \
}                                                                                \
LJ_INLINE C lj_cpow##S(C a, C b) {                                              \
    const R br = creal##S(b), bi = cimag##S(b);                                  \
    if (br == 0 && bi == 0) return lj_complex##S(1, 0);                          \
    if (creal##S(a) == 0 && cimag##S(a) == 0)                                    \
        return br > 0 ? lj_complex##S(0, 0) : lj_complex##S(NAN, NAN);           \
    if (bi == 0 && br > -100 && br < 100 && br == (R)(int)br) {                 \
        int n = (int)br, m = n < 0 ? -n : n;                                     \
        if (n == 1) return a;                                                    \
        if (n == 2) return lj_cmul_t##S(a, a);                                   \
        if (n == 3) return lj_cmul_t##S(lj_cmul_t##S(a, a), a);                  \
        C r = lj_complex##S(1, 0), x = a;                                        \
        while (m) { if (m & 1) r = lj_cmul_t##S(r, x); m >>= 1; if (m) x = lj_cmul_t##S(x, x); } \
        return n < 0 ? lj_cdiv##S(lj_complex##S(1, 0), r) : r;                   \
    }                                                                            \
    return cpow##S(a, b);                                                        \
}                                                                                \
LJ_INLINE C lj_clog1p##S(C z) {                                                 \
    const R x = creal##S(z) + 1, y = cimag##S(z);                                \
    return lj_complex##S(log##S(hypot##S(x, y)), atan2##S(y, x));                \
}                                                                                \
LJ_INLINE C lj_cexpm1##S(C z) {                                                 \
    const R x = creal##S(z), y = cimag##S(z), h = sin##S(y / 2);                 \
    return lj_complex##S(expm1##S(x) * cos##S(y) - 2 * h * h, exp##S(x) * sin##S(y)); \
}                                                                                \
LJ_INLINE C lj_clogk##S(C z, R k) {  /* log2, log10: each part of log times 1/ln b */ \
    const C l = clog##S(z);                                                      \
    return lj_complex##S(creal##S(l) * k, cimag##S(l) * k);                      \
}                                                                                \
LJ_INLINE C lj_cexp2##S(C z) {                                                  \
    const R k = (R)0.693147180559945309417232121458176568;                       \
    return cexp##S(lj_complex##S(creal##S(z) * k, cimag##S(z) * k));             \
}                                                                                \
LJ_INLINE R lj_cabs##S(C z) {  /* NumPy's: l sqrt(1 + (s/l)^2), s <= l the parts' moduli */ \
    const R x = fabs##S(creal##S(z)), y = fabs##S(cimag##S(z));                   \
    if (isinf(x) || isinf(y)) return INFINITY;                                   \
    if (x != x || y != y) return NAN;                                            \
    const R l = x > y ? x : y, s = x > y ? y : x;                                \
    if (l == 0) return 0;                                                        \
    const R r = s / l;                                                           \
    return l * sqrt##S(LJ_CMUL_IM(S, r, r, 1));  /* (fma(r, r, 1) as NumPy's) */ \
}                                                                                \
LJ_INLINE C lj_crecip##S(C z) {  /* NumPy's reciprocal (Smith's, no zero case) */ \
    const R x = creal##S(z), y = cimag##S(z);                                    \
    if (fabs##S(y) <= fabs##S(x)) {                                              \
        const R r = y / x, d = x + y * r;                                        \
        return lj_complex##S(1 / d, -r / d);                                     \
    }                                                                            \
    const R r = x / y, d = x * r + y;                                            \
    return lj_complex##S(r / d, -1 / d);                                         \
}                                                                                \
LJ_INLINE C lj_csign##S(C z) {  /* z / |z|, 0 at 0, by parts at infinities */   \
    const R x = creal##S(z), y = cimag##S(z), a = hypot##S(x, y);                \
    if (a != a || (isinf(x) && isinf(y))) return lj_complex##S(NAN, NAN);        \
    if (isinf(a))  /* (an infinite part, or |z| past the largest finite value) */  \
        return isinf(x) ? lj_complex##S(x > 0 ? 1 : -1, 0) : lj_complex##S(0, y > 0 ? 1 : -1); \
    if (a == 0) return lj_complex##S(0, 0);                                      \
    return lj_complex##S(x / a, y / a);                                          \
}
LJ_COMPLEX_OPS(lj_cfloat, float, f)
LJ_COMPLEX_OPS(lj_cdouble, double, )
#endif

/* Philox4x32-10 (Salmon et al., "Parallel random numbers: as easy as 1, 2, 3", SC 2011;
 * Random123's philox4x32_R with R = 10): output word (word & 3) of the block for counter
 * words c0, c1 = low, high half of c01 and c2, c3 of c23, and key words k0, k1 = low,
 * high half of key.  Known answer: counter 0, key 0 -> 6627e8d5 e169c58d bc57ac4c 9b00dbd8. */
LJ_INLINE uint32_t lj_philox4x32_10(uint64_t c01, uint64_t c23, uint64_t key, uint64_t word) {
    uint32_t c0 = (uint32_t)c01, c1 = (uint32_t)(c01 >> 32);
    uint32_t c2 = (uint32_t)c23, c3 = (uint32_t)(c23 >> 32);
    uint32_t k0 = (uint32_t)key, k1 = (uint32_t)(key >> 32);
    LJ_UNROLL10  /* unrolled: the 4 words of a block merge into one computation */
    for (int r = 0; r < 10; r++) {
        if (r) { k0 += 0x9E3779B9u; k1 += 0xBB67AE85u; }
        uint64_t p0 = (uint64_t)0xD2511F53u * c0, p1 = (uint64_t)0xCD9E8D57u * c2;
        uint32_t n0 = (uint32_t)(p1 >> 32) ^ c1 ^ k0, n2 = (uint32_t)(p0 >> 32) ^ c3 ^ k1;
        c1 = (uint32_t)p1; c3 = (uint32_t)p0; c0 = n0; c2 = n2;
    }
    word &= 3;
    return word == 0 ? c0 : word == 1 ? c1 : word == 2 ? c2 : c3;
}

#endif
