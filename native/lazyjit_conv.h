/* lazyjit window ops on the cpu backend (convolutions, max pooling): what the
 * type-generic lazyjit_conv_gemm.h, lazyjit_conv_direct.h, lazyjit_conv_grid.h and
 * lazyjit_pool.h share.  Geometry travels in the parameter table as 16 consecutive
 * int64 read through lj_win_t, so no source depends on a size.  Included after
 * lazyjit_rt.h (LJ_CAT names each instantiation's functions).
 */
#ifndef LAZYJIT_CONV_H
#define LAZYJIT_CONV_H
#ifdef _OPENMP
#include <omp.h>
#endif
typedef struct { int64_t N, C, H, W, O, KH, KW, OH, OW, sh, sw, pt, pl, dh, dw, G; } lj_win_t;
/* [*lo, *hi): the positions j in [0, m) whose input j * s + off lies in [0, n) */
static inline void lj_span(int64_t off, int64_t s, int64_t n, int64_t m, int64_t* lo,
                           int64_t* hi) {
  int64_t a = off >= 0 ? 0 : (s - 1 - off) / s;
  int64_t b = n - off <= 0 ? 0 : (n - off + s - 1) / s;
  if (b > m) b = m;
  if (a > b) a = b;
  *lo = a; *hi = b;
}
static inline int lj_max_threads(void) {
#ifdef _OPENMP
  return omp_get_max_threads();
#else
  return 1;
#endif
}
static inline int lj_thread(void) {
#ifdef _OPENMP
  return omp_get_thread_num();
#else
  return 0;
#endif
}
#endif
