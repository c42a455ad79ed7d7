/* Max pooling (lazyjit/backends/cpu/conv.py), one plane per call, by rows: each output
 * row's windows are scanned one kernel position (p, q) at a time across a block of the
 * row (vectorized, strided loads), keeping per column the first maximum so far (NaN
 * first, as np.argmax) and, for the gradient and for values other than x, its position.
 * mode 0: y = pooled x (v is x; "lowest" starts each window, which always holds an
 * element); 1: y = v at the selected positions; 2: y = the input's cotangent, v the
 * output's, added at the selected positions.  (Measured: unrolling the window with
 * literal geometry made the strided loops slower.)
 *
 * Type-generic: lazyjit/backends/cpu/conv.py instantiates it once per pair of dtypes in
 * a module: it defines the parameters below, then includes this file, which undefines
 * them again (the instantiation's include guard, LJ_HAVE_MAXPOOL_<XS>_<S>, keeps it to
 * one per module).
 *   LJ_X      the type of x (float)
 *   LJ_XS     its name (float32)
 *   LJ_T      the type of the values or cotangents (float)
 *   LJ_S      its name (float32): the function is lj_maxpool_<XS>_<S>
 */
#include "lazyjit_conv.h"
#define LJ_MAXPOOL LJ_CAT(LJ_CAT(lj_maxpool, LJ_XS), LJ_S)
#ifndef LJ_POOL_BLOCK
#define LJ_POOL_BLOCK 256
#endif
static inline __attribute__((always_inline)) void LJ_MAXPOOL(
    const lj_win_t* g, const LJ_X* restrict x, const LJ_T* restrict v, LJ_T* restrict y,
    int mode, LJ_X lowest, int64_t it) {
  const int64_t HW = g->H * g->W, OW = g->OW, L = g->OH * OW, sw = g->sw;
  const LJ_X* xp = x + it * HW;
  LJ_X m[LJ_POOL_BLOCK];
  int64_t b[LJ_POOL_BLOCK];
  if (mode == 2) memset(y + it * HW, 0, HW * sizeof(LJ_T));
  for (int64_t i = 0; i < g->OH; i++)
    for (int64_t jb = 0; jb < OW; jb += LJ_POOL_BLOCK) {
      const int64_t nb = OW - jb < LJ_POOL_BLOCK ? OW - jb : LJ_POOL_BLOCK;
      LJ_T* yr = y + it * L + i * OW + jb;
      LJ_X* mm = mode == 0 ? (LJ_X*)yr : m;
      for (int64_t j = 0; j < nb; j++) { mm[j] = lowest; b[j] = -1; }
      for (int64_t p = 0; p < g->KH; p++) {
        const int64_t h = i * g->sh + p * g->dh - g->pt;
        if (h < 0 || h >= g->H) continue;
        const LJ_X* xr = xp + h * g->W;
        for (int64_t q = 0; q < g->KW; q++) {
          const int64_t off = q * g->dw - g->pl + jb * sw;
          int64_t j0 = 0, j1 = nb;
          if (g->pl) lj_span(off, sw, g->W, nb, &j0, &j1);  /* unpadded: all inside */
          /* e wins unless m is NaN or e <= m (so a NaN e wins over a number) */
          if (mode == 0) {
            #pragma omp simd
            for (int64_t j = j0; j < j1; j++) {
              const LJ_X e = xr[j * sw + off];
              mm[j] = ((mm[j] == mm[j]) & !(e <= mm[j])) ? e : mm[j];
            }
          } else {
            #pragma omp simd
            for (int64_t j = j0; j < j1; j++) {
              const LJ_X e = xr[j * sw + off];
              const int c = (b[j] < 0) | ((mm[j] == mm[j]) & !(e <= mm[j]));
              mm[j] = c ? e : mm[j];
              b[j] = c ? h * g->W + j * sw + off : b[j];
            }
          }
        }
      }
      if (mode == 1) {
        const LJ_T* vp = v + it * HW;
        for (int64_t j = 0; j < nb; j++) yr[j] = vp[b[j]];
      } else if (mode == 2) {
        LJ_T* gx = y + it * HW;
        const LJ_T* gr = v + it * L + i * OW + jb;
        for (int64_t j = 0; j < nb; j++) gx[b[j]] += gr[j];
      }
    }
}
#undef LJ_MAXPOOL
#undef LJ_X
#undef LJ_XS
#undef LJ_T
#undef LJ_S
