
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

/* mode 0, forward: each output plane (n, o) adds w[o, c, p, q] times the input's rows;
   mode 1, backward data: each input plane (n, c) adds w[o, c, p, q] times the output
   cotangent's rows (a = x or g, the plane's sources; out = y or dx) */
static void lj_conv_direct_float32(int mode, const lj_win_t* g, const float* restrict a,
                              const float* restrict w, float* restrict out, int par) {
  const int64_t G = g->G, Cg = g->C / G, Og = g->O / G, HW = g->H * g->W;
  const int64_t L = g->OH * g->OW, OW = g->OW, sw = g->sw, KH = g->KH, KW = g->KW;
  const int64_t planes = mode ? g->C : g->O, size = mode ? HW : L, sources = mode ? Og : Cg;
  #pragma omp parallel for if(par) schedule(static)
  for (int64_t it = 0; it < g->N * planes; it++) {
    const int64_t n = it / planes, r = it - n * planes, gi = r / (mode ? Cg : Og);
    float* op = out + it * size;
    memset(op, 0, size * sizeof(float));
    for (int64_t k = 0; k < sources; k++) {
      const int64_t o = mode ? gi * Og + k : r, c = mode ? r - gi * Cg : k;
      const float* ap = mode ? a + (n * g->O + o) * L : a + (n * g->C + gi * Cg + c) * HW;
      const float* wp = w + (o * Cg + c) * KH * KW;
      for (int64_t p = 0; p < KH; p++)
        for (int64_t q = 0; q < KW; q++) {
          const float wv = wp[p * KW + q];
          const int64_t off = q * g->dw - g->pl;
          int64_t j0, j1;
          lj_span(off, sw, g->W, OW, &j0, &j1);
          for (int64_t i = 0; i < g->OH; i++) {
            const int64_t h = i * g->sh + p * g->dh - g->pt;
            if (h < 0 || h >= g->H) continue;
            if (mode == 0) {
              const float* xr = ap + h * g->W;
              float* yr = op + i * OW;
              if (sw == 1) {
                #pragma omp simd
                for (int64_t j = j0; j < j1; j++) yr[j] += wv * xr[j + off];
              } else {
                for (int64_t j = j0; j < j1; j++) yr[j] += wv * xr[j * sw + off];
              }
            } else {
              float* xr = op + h * g->W;
              const float* gr = ap + i * OW;
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
static void lj_conv_direct_gw_float32(const lj_win_t* g, const float* restrict x,
                                 const float* restrict gy, float* restrict gw, int par) {
  const int64_t G = g->G, Cg = g->C / G, Og = g->O / G, HW = g->H * g->W;
  const int64_t L = g->OH * g->OW, OW = g->OW, sw = g->sw, KH = g->KH, KW = g->KW;
  #pragma omp parallel for if(par) schedule(static)
  for (int64_t it = 0; it < g->O * Cg; it++) {
    const int64_t o = it / Cg, cc = it - o * Cg, c = (o / Og) * Cg + cc;
    double acc[KH * KW];
    for (int64_t e = 0; e < KH * KW; e++) acc[e] = 0;
    for (int64_t n = 0; n < g->N; n++) {
      const float* gp = gy + (n * g->O + o) * L;
      const float* xp = x + (n * g->C + c) * HW;
      for (int64_t p = 0; p < KH; p++)
        for (int64_t q = 0; q < KW; q++) {
          const int64_t off = q * g->dw - g->pl;
          int64_t j0, j1;
          lj_span(off, sw, g->W, OW, &j0, &j1);
          float s = 0;
          for (int64_t i = 0; i < g->OH; i++) {
            const int64_t h = i * g->sh + p * g->dh - g->pt;
            if (h < 0 || h >= g->H) continue;
            const float* xr = xp + h * g->W;
            const float* gr = gp + i * OW;
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
    for (int64_t e = 0; e < KH * KW; e++) gw[it * KH * KW + e] = (float)acc[e];
  }
}
static int k0(void** restrict B, const int64_t* restrict P) {
  lj_conv_direct_float32(0, (const lj_win_t*)(P + 1), (const float*)B[0] + P[17], (const float*)B[1] + P[18], (float*)B[2] + P[19], !P[0] && P[20] > 262144);
  return 0;
}

int lj_run(void** B, const int64_t* P) {
  int e = 0;
  if ((e = k0(B, P))) return e;
  return e;
}
/* params:
   0, 2, 4, 9, 9, 4, 3, 3, 4, 4, 2, 2, 1, 1, 2, 2, 2, 0, 0, 0, 2304
*/
