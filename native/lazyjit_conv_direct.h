/* Convolution by direct loops along rows (the "direct" implementation of
 * lazyjit/backends/cpu/conv.py for strides other than 1): the innermost loop runs along
 * an output (or input) row.
 *
 * Type-generic: lazyjit/backends/cpu/conv.py instantiates it once per dtype in a
 * module: it defines the parameters below, then includes this file, which undefines
 * them again (the instantiation's include guard, LJ_HAVE_CONV_DIRECT_<S>, keeps it to
 * one per module).
 *   LJ_T      the element type (float)
 *   LJ_S      its name, the functions' suffix (float32: lj_conv_direct_float32, ...)
 *   LJ_A      the type the weight gradient sums in (double for float)
 */
#include "lazyjit_conv.h"
#define LJ_CONV_DIRECT LJ_CAT(lj_conv_direct, LJ_S)
#define LJ_CONV_DIRECT_GW LJ_CAT(lj_conv_direct_gw, LJ_S)
/* mode 0, forward: each output plane (n, o) adds w[o, c, p, q] times the input's rows;
   mode 1, backward data: each input plane (n, c) adds w[o, c, p, q] times the output
   cotangent's rows (a = x or g, the plane's sources; out = y or dx) */
static void LJ_CONV_DIRECT(int mode, const lj_win_t* g, const LJ_T* restrict a,
                           const LJ_T* restrict w, LJ_T* restrict out, int par) {
  const int64_t G = g->G, Cg = g->C / G, Og = g->O / G, HW = g->H * g->W;
  const int64_t L = g->OH * g->OW, OW = g->OW, sw = g->sw, KH = g->KH, KW = g->KW;
  const int64_t planes = mode ? g->C : g->O, size = mode ? HW : L, sources = mode ? Og : Cg;
  #pragma omp parallel for if(par) schedule(static)
  for (int64_t it = 0; it < g->N * planes; it++) {
    const int64_t n = it / planes, r = it - n * planes, gi = r / (mode ? Cg : Og);
    LJ_T* op = out + it * size;
    memset(op, 0, size * sizeof(LJ_T));
    for (int64_t k = 0; k < sources; k++) {
      const int64_t o = mode ? gi * Og + k : r, c = mode ? r - gi * Cg : k;
      const LJ_T* ap = mode ? a + (n * g->O + o) * L : a + (n * g->C + gi * Cg + c) * HW;
      const LJ_T* wp = w + (o * Cg + c) * KH * KW;
      for (int64_t p = 0; p < KH; p++)
        for (int64_t q = 0; q < KW; q++) {
          const LJ_T wv = wp[p * KW + q];
          const int64_t off = q * g->dw - g->pl;
          int64_t j0, j1;
          lj_span(off, sw, g->W, OW, &j0, &j1);
          for (int64_t i = 0; i < g->OH; i++) {
            const int64_t h = i * g->sh + p * g->dh - g->pt;
            if (h < 0 || h >= g->H) continue;
            if (mode == 0) {
              const LJ_T* xr = ap + h * g->W;
              LJ_T* yr = op + i * OW;
              if (sw == 1) {
                #pragma omp simd
                for (int64_t j = j0; j < j1; j++) yr[j] += wv * xr[j + off];
              } else {
                for (int64_t j = j0; j < j1; j++) yr[j] += wv * xr[j * sw + off];
              }
            } else {
              LJ_T* xr = op + h * g->W;
              const LJ_T* gr = ap + i * OW;
              if (sw == 1) {
                #pragma omp simd
                for (int64_t j = j0; j < j1; j++) xr[j + off] += wv * gr[j];
              } else {
                for (int64_t j = j0; j < j1; j++) xr[j * sw + off] += wv * gr[j];
              }
            }
          }
        }
    }
  }
}
static void LJ_CONV_DIRECT_GW(const lj_win_t* g, const LJ_T* restrict x,
                              const LJ_T* restrict gy, LJ_T* restrict gw, int par) {
  const int64_t G = g->G, Cg = g->C / G, Og = g->O / G, HW = g->H * g->W;
  const int64_t L = g->OH * g->OW, OW = g->OW, sw = g->sw, KH = g->KH, KW = g->KW;
  #pragma omp parallel for if(par) schedule(static)
  for (int64_t it = 0; it < g->O * Cg; it++) {
    const int64_t o = it / Cg, cc = it - o * Cg, c = (o / Og) * Cg + cc;
    LJ_A acc[KH * KW];
    for (int64_t e = 0; e < KH * KW; e++) acc[e] = 0;
    for (int64_t n = 0; n < g->N; n++) {
      const LJ_T* gp = gy + (n * g->O + o) * L;
      const LJ_T* xp = x + (n * g->C + c) * HW;
      for (int64_t p = 0; p < KH; p++)
        for (int64_t q = 0; q < KW; q++) {
          const int64_t off = q * g->dw - g->pl;
          int64_t j0, j1;
          lj_span(off, sw, g->W, OW, &j0, &j1);
          LJ_T s = 0;
          for (int64_t i = 0; i < g->OH; i++) {
            const int64_t h = i * g->sh + p * g->dh - g->pt;
            if (h < 0 || h >= g->H) continue;
            const LJ_T* xr = xp + h * g->W;
            const LJ_T* gr = gp + i * OW;
            if (sw == 1) {
              #pragma omp simd reduction(+:s)
              for (int64_t j = j0; j < j1; j++) s += gr[j] * xr[j + off];
            } else {
              for (int64_t j = j0; j < j1; j++) s += gr[j] * xr[j * sw + off];
            }
          }
          acc[p * KW + q] += s;
        }
    }
    for (int64_t e = 0; e < KH * KW; e++) gw[it * KH * KW + e] = (LJ_T)acc[e];
  }
}
#undef LJ_CONV_DIRECT
#undef LJ_CONV_DIRECT_GW
#undef LJ_T
#undef LJ_S
#undef LJ_A
