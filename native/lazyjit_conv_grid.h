/* Convolution by direct loops for stride 1 on the padded grid (the "direct"
 * implementation of lazyjit/backends/cpu/conv.py): with planes laid out Wp = OW + dw
 * (KW-1) wide (the input zero-padded, the output and its cotangent with Wp - OW spare
 * columns), output position k = i * Wp + j reads padded input k + p dh Wp + q dw, so
 * each kernel position is one long vectorized loop over the whole plane instead of OH
 * short rows.
 *
 * Type-generic: lazyjit/backends/cpu/conv.py instantiates it once per dtype in a
 * module: it defines the parameters below, then includes this file, which undefines
 * them again (the instantiation's include guard, LJ_HAVE_CONV_GRID_<S>, keeps it to one
 * per module).
 *   LJ_T      the element type (float)
 *   LJ_S      its name, the functions' suffix (float32: lj_conv_grid_float32, ...)
 *   LJ_A      the type the weight gradient sums in (double for float)
 */
#include "lazyjit_conv.h"
#define LJ_GRID_PAD LJ_CAT(lj_grid_pad, LJ_S)
#define LJ_GRID_ROWS LJ_CAT(lj_grid_rows, LJ_S)
#define LJ_CONV_GRID LJ_CAT(lj_conv_grid, LJ_S)
/* the plane x (H x W) into xp, zero-padded to Hp x Wp (and one spare row of zeros) */
static inline void LJ_GRID_PAD(const lj_win_t* g, const LJ_T* restrict x, LJ_T* restrict xp,
                               int64_t Hp, int64_t Wp) {
  memset(xp, 0, (Hp + 1) * Wp * sizeof(LJ_T));
  for (int64_t h = 0; h < g->H; h++) {
    LJ_T* r = xp + (h + g->pt) * Wp + g->pl;
    for (int64_t j = 0; j < g->W; j++) r[j] = x[h * g->W + j];
  }
}
/* the OH x OW plane y to (to_grid) or from the OH x Wp grid yp (spare columns zero) */
static inline void LJ_GRID_ROWS(const lj_win_t* g, LJ_T* restrict y, LJ_T* restrict yp,
                                int64_t Wp, int to_grid) {
  for (int64_t i = 0; i < g->OH; i++)
    for (int64_t j = 0; j < Wp; j++) {
      if (to_grid) yp[i * Wp + j] = j < g->OW ? y[i * g->OW + j] : 0;
      else if (j < g->OW) y[i * g->OW + j] = yp[i * Wp + j];
    }
}
/* mode 0 forward (a = x, out = y), 1 backward data (a = g, out = dx), 2 backward filter
   (a = x, b = g, out = dw); ws: two grid planes for each of up to nws threads */
static void LJ_CONV_GRID(int mode, const lj_win_t* g, const LJ_T* restrict a,
                         const LJ_T* restrict b, LJ_T* restrict out, LJ_T* ws, int nws,
                         int par) {
  const int64_t G = g->G, Cg = g->C / G, Og = g->O / G, HW = g->H * g->W;
  const int64_t L = g->OH * g->OW, KH = g->KH, KW = g->KW, KK = KH * KW;
  const int64_t Wp = g->OW + g->dw * (KW - 1), Hp = g->OH + g->dh * (KH - 1);
  const int64_t GN = g->OH * Wp, XN = (Hp + 1) * Wp;
  const int64_t items = mode == 2 ? g->O * Cg : g->N * (mode ? g->C : g->O);
  const int nt = lj_max_threads() < nws ? lj_max_threads() : nws;
  #pragma omp parallel for if(par && nt > 1) num_threads(nt) schedule(static)
  for (int64_t it = 0; it < items; it++) {
    LJ_T* xg = ws + lj_thread() * (XN + GN);      /* padded input plane, or its gradient */
    LJ_T* yg = xg + XN;                           /* output plane (or cotangent) on the grid */
    if (mode == 2) {
      const int64_t o = it / Cg, c = (o / Og) * Cg + it % Cg;
      LJ_A acc[KK];
      for (int64_t e = 0; e < KK; e++) acc[e] = 0;
      for (int64_t n = 0; n < g->N; n++) {
        LJ_GRID_PAD(g, a + (n * g->C + c) * HW, xg, Hp, Wp);
        LJ_GRID_ROWS(g, (LJ_T*)b + (n * g->O + o) * L, yg, Wp, 1);
        for (int64_t e = 0; e < KK; e++) {
          const LJ_T* xs = xg + (e / KW) * g->dh * Wp + (e % KW) * g->dw;
          LJ_T s = 0;
          #pragma omp simd reduction(+:s)
          for (int64_t k = 0; k < GN; k++) s += yg[k] * xs[k];
          acc[e] += s;
        }
      }
      for (int64_t e = 0; e < KK; e++) out[it * KK + e] = (LJ_T)acc[e];
      continue;
    }
    const int64_t planes = mode ? g->C : g->O, n = it / planes, r = it % planes;
    const int64_t gi = r / (mode ? Cg : Og);
    memset(mode ? xg : yg, 0, (mode ? XN : GN) * sizeof(LJ_T));
    for (int64_t k = 0; k < (mode ? Og : Cg); k++) {
      const int64_t o = mode ? gi * Og + k : r, c = mode ? r - gi * Cg : k;
      if (mode) LJ_GRID_ROWS(g, (LJ_T*)a + (n * g->O + o) * L, yg, Wp, 1);
      else LJ_GRID_PAD(g, a + (n * g->C + gi * Cg + c) * HW, xg, Hp, Wp);
      for (int64_t e = 0; e < KK; e++) {
        const LJ_T wv = b[(o * Cg + c) * KK + e];
        LJ_T* xs = xg + (e / KW) * g->dh * Wp + (e % KW) * g->dw;
        if (mode) {
          #pragma omp simd
          for (int64_t k = 0; k < GN; k++) xs[k] += wv * yg[k];
        } else {
          #pragma omp simd
          for (int64_t k = 0; k < GN; k++) yg[k] += wv * xs[k];
        }
      }
    }
    if (mode == 0) {
      LJ_GRID_ROWS(g, out + it * L, yg, Wp, 0);
    } else {
      for (int64_t h = 0; h < g->H; h++)
        for (int64_t j = 0; j < g->W; j++)
          out[it * HW + h * g->W + j] = xg[(h + g->pt) * Wp + g->pl + j];
    }
  }
}
#undef LJ_GRID_PAD
#undef LJ_GRID_ROWS
#undef LJ_CONV_GRID
#undef LJ_T
#undef LJ_S
#undef LJ_A
