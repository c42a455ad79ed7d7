
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

/* im2col of nc channels of one sample into rows of length L = OH * OW, ld apart */
static void lj_im2col_float32(const lj_win_t* g, const float* restrict x, float* restrict col,
                         int64_t nc, int64_t ld) {
  const int64_t OH = g->OH, OW = g->OW;
  for (int64_t c = 0; c < nc; c++)
    for (int64_t p = 0; p < g->KH; p++)
      for (int64_t q = 0; q < g->KW; q++) {
        float* r = col + ((c * g->KH + p) * g->KW + q) * ld;
        const int64_t off = q * g->dw - g->pl;
        int64_t j0, j1;
        lj_span(off, g->sw, g->W, OW, &j0, &j1);
        for (int64_t i = 0; i < OH; i++, r += OW) {
          const int64_t h = i * g->sh + p * g->dh - g->pt;
          if (h < 0 || h >= g->H) {
            #pragma omp simd
            for (int64_t j = 0; j < OW; j++) r[j] = 0;
            continue;
          }
          const float* xr = x + (c * g->H + h) * g->W;
          for (int64_t j = 0; j < j0; j++) r[j] = 0;
          if (g->sw == 1) {  /* loops, not memcpy calls: rows of small images are short */
            #pragma omp simd
            for (int64_t j = j0; j < j1; j++) r[j] = xr[j + off];
          } else {
            for (int64_t j = j0; j < j1; j++) r[j] = xr[j * g->sw + off];
          }
          for (int64_t j = j1; j < OW; j++) r[j] = 0;
        }
      }
}
/* col2im: x (nc channels of one sample) = the sum of its columns' entries */
static void lj_col2im_float32(const lj_win_t* g, const float* restrict col, float* restrict x,
                         int64_t nc, int64_t ld) {
  const int64_t OH = g->OH, OW = g->OW;
  memset(x, 0, nc * g->H * g->W * sizeof(float));
  for (int64_t c = 0; c < nc; c++)
    for (int64_t p = 0; p < g->KH; p++)
      for (int64_t q = 0; q < g->KW; q++) {
        const float* r = col + ((c * g->KH + p) * g->KW + q) * ld;
        const int64_t off = q * g->dw - g->pl;
        int64_t j0, j1;
        lj_span(off, g->sw, g->W, OW, &j0, &j1);
        for (int64_t i = 0; i < OH; i++, r += OW) {
          const int64_t h = i * g->sh + p * g->dh - g->pt;
          if (h < 0 || h >= g->H) continue;
          float* xr = x + (c * g->H + h) * g->W;
          if (g->sw == 1) {
            #pragma omp simd
            for (int64_t j = j0; j < j1; j++) xr[j + off] += r[j];
          } else {
            for (int64_t j = j0; j < j1; j++) xr[j * g->sw + off] += r[j];
          }
        }
      }
}
/* C (M x N) = op(A) @ op(B) (+ C when beta), row-major; op transposes when ta / tb */
static void lj_gemm_float32(int ta, int tb, int64_t M, int64_t N, int64_t K, const float* A,
                       int64_t lda, const float* B, int64_t ldb, int beta, float* C, int64_t ldc) {
  if (lj_sgemm) {
    lj_sgemm(101, ta ? 112 : 111, tb ? 112 : 111, M, N, K, 1, A, lda, B, ldb, beta, C, ldc);
    return;
  }
  for (int64_t i = 0; i < M; i++)
    for (int64_t j = 0; j < N; j++) {
      float acc = beta ? C[i * ldc + j] : 0;
      for (int64_t l = 0; l < K; l++)
        acc += A[ta ? l * lda + i : i * lda + l] * B[tb ? j * ldb + l : l * ldb + j];
      C[i * ldc + j] = acc;
    }
}
/* copy Og rows of L between a chunk's staging matrix (Og x nb*L) and nb NCHW samples */
static void lj_stage_float32(const float* restrict from, float* restrict to, int64_t Og, int64_t L,
                        int64_t nb, int64_t sample, int to_samples) {
  for (int64_t b = 0; b < nb; b++)
    for (int64_t o = 0; o < Og; o++) {
      const int64_t s = b * sample + o * L, m = (o * nb + b) * L;
      float* restrict d = to + (to_samples ? s : m);
      const float* restrict f = from + (to_samples ? m : s);
      #pragma omp simd
      for (int64_t l = 0; l < L; l++) d[l] = f[l];
    }
}
/* mode 0 forward (a = x, b = w, out = y); 1 backward data (a = g, b = w, out = dx); 2
   backward filter (a = x, b = g, out = dw).  Work items: chunks of cs samples (one
   GEMM of cs * L columns: cs > 1 for small images) times groups.  ws holds, for each
   of up to nws threads, the chunk's column matrix (K x cs*L) and, when cs > 1, its
   staging matrix (Og x cs*L); then, for mode 2, a partial dw per thread but the first. */
static void lj_conv_gemm_float32(int mode, const lj_win_t* g, const float* a, const float* b,
                            float* out, float* ws, int64_t cs, int64_t nws, int par, int busy) {
  const int64_t G = g->G, Cg = g->C / G, Og = g->O / G, K = Cg * g->KH * g->KW;
  const int64_t HW = g->H * g->W, L = g->OH * g->OW, WN = g->O * K;
  const int64_t chunks = (g->N + cs - 1) / cs, items = chunks * G;
  const int64_t per = (K + (cs > 1 ? Og : 0)) * cs * L;
  const int one = cs == 1 && g->KH == 1 && g->KW == 1 && g->sh == 1 && g->sw == 1 &&
                  g->pt == 0 && g->pl == 0 && g->OH == g->H && g->OW == g->W;
  int nt = par ? lj_max_threads() : 1;
  if (nt > nws) nt = nws;
  if (nt > items) nt = items;
  if (nt < 1) nt = 1;
  float* part = ws + nws * per;
  if (mode == 2) memset(out, 0, WN * sizeof(float));
  #pragma omp parallel num_threads(nt) if(nt > 1)
  {
    const int t = lj_thread();
    float* col = ws + t * per;
    float* stage = col + K * cs * L;
    float* acc = t == 0 ? out : part + (t - 1) * WN;
    if (mode == 2 && t > 0) memset(acc, 0, WN * sizeof(float));
    const int local = lj_blas_threads && (nt > 1 || busy || (double)Og * K * cs * L < 4194304.0);
    const int prev = local ? lj_blas_threads(1) : 0;
    #pragma omp for schedule(static)
    for (int64_t it = 0; it < items; it++) {
      const int64_t n0 = (it / G) * cs, gi = it % G;
      const int64_t nb = g->N - n0 < cs ? g->N - n0 : cs, ld = nb * L;
      const float* xs = mode == 1 ? NULL : a + (n0 * g->C + gi * Cg) * HW;  /* x, sample n0 */
      const int64_t oo = (n0 * g->O + gi * Og) * L;                     /* y or g, n0 */
      const int staged = nb > 1;
      for (int64_t s = 0; s < nb && mode != 1 && !one; s++)
        lj_im2col_float32(g, xs + s * g->C * HW, col + s * L, Cg, ld);
      const float* cols = one ? xs : col;
      if (mode == 0) {
        float* y = staged ? stage : out + oo;
        lj_gemm_float32(0, 0, Og, ld, K, b + gi * Og * K, K, cols, ld, 0, y, staged ? ld : L);
        if (staged) lj_stage_float32(stage, out + oo, Og, L, nb, g->O * L, 1);
      } else {
        const float* gm = mode == 1 ? a + oo : b + oo;
        if (staged) { lj_stage_float32(gm, stage, Og, L, nb, g->O * L, 0); gm = stage; }
        if (mode == 1) {
          float* xd = out + (n0 * g->C + gi * Cg) * HW;
          lj_gemm_float32(1, 0, K, ld, Og, b + gi * Og * K, K, gm, ld, 0, one ? xd : col, ld);
          for (int64_t s = 0; s < nb && !one; s++)
            lj_col2im_float32(g, col + s * L, xd + s * g->C * HW, Cg, ld);
        } else {
          lj_gemm_float32(0, 1, Og, K, ld, gm, ld, cols, ld, 1, acc + gi * Og * K, K);
        }
      }
    }
    if (local) lj_blas_threads(prev);
  }
  if (mode == 2)
    for (int t = 1; t < nt; t++) {
      const float* q = part + (t - 1) * WN;
      #pragma omp simd
      for (int64_t e = 0; e < WN; e++) out[e] += q[e];
    }
}

/* im2col of nc channels of one sample into rows of length L = OH * OW, ld apart */
static void lj_im2col_float64(const lj_win_t* g, const double* restrict x, double* restrict col,
                         int64_t nc, int64_t ld) {
  const int64_t OH = g->OH, OW = g->OW;
  for (int64_t c = 0; c < nc; c++)
    for (int64_t p = 0; p < g->KH; p++)
      for (int64_t q = 0; q < g->KW; q++) {
        double* r = col + ((c * g->KH + p) * g->KW + q) * ld;
        const int64_t off = q * g->dw - g->pl;
        int64_t j0, j1;
        lj_span(off, g->sw, g->W, OW, &j0, &j1);
        for (int64_t i = 0; i < OH; i++, r += OW) {
          const int64_t h = i * g->sh + p * g->dh - g->pt;
          if (h < 0 || h >= g->H) {
            #pragma omp simd
            for (int64_t j = 0; j < OW; j++) r[j] = 0;
            continue;
          }
          const double* xr = x + (c * g->H + h) * g->W;
          for (int64_t j = 0; j < j0; j++) r[j] = 0;
          if (g->sw == 1) {  /* loops, not memcpy calls: rows of small images are short */
            #pragma omp simd
            for (int64_t j = j0; j < j1; j++) r[j] = xr[j + off];
          } else {
            for (int64_t j = j0; j < j1; j++) r[j] = xr[j * g->sw + off];
          }
          for (int64_t j = j1; j < OW; j++) r[j] = 0;
        }
      }
}
/* col2im: x (nc channels of one sample) = the sum of its columns' entries */
static void lj_col2im_float64(const lj_win_t* g, const double* restrict col, double* restrict x,
                         int64_t nc, int64_t ld) {
  const int64_t OH = g->OH, OW = g->OW;
  memset(x, 0, nc * g->H * g->W * sizeof(double));
  for (int64_t c = 0; c < nc; c++)
    for (int64_t p = 0; p < g->KH; p++)
      for (int64_t q = 0; q < g->KW; q++) {
        const double* r = col + ((c * g->KH + p) * g->KW + q) * ld;
        const int64_t off = q * g->dw - g->pl;
        int64_t j0, j1;
        lj_span(off, g->sw, g->W, OW, &j0, &j1);
        for (int64_t i = 0; i < OH; i++, r += OW) {
          const int64_t h = i * g->sh + p * g->dh - g->pt;
          if (h < 0 || h >= g->H) continue;
          double* xr = x + (c * g->H + h) * g->W;
          if (g->sw == 1) {
            #pragma omp simd
            for (int64_t j = j0; j < j1; j++) xr[j + off] += r[j];
          } else {
            for (int64_t j = j0; j < j1; j++) xr[j * g->sw + off] += r[j];
          }
        }
      }
}
/* C (M x N) = op(A) @ op(B) (+ C when beta), row-major; op transposes when ta / tb */
static void lj_gemm_float64(int ta, int tb, int64_t M, int64_t N, int64_t K, const double* A,
                       int64_t lda, const double* B, int64_t ldb, int beta, double* C, int64_t ldc) {
  if (lj_dgemm) {
    lj_dgemm(101, ta ? 112 : 111, tb ? 112 : 111, M, N, K, 1, A, lda, B, ldb, beta, C, ldc);
    return;
  }
  for (int64_t i = 0; i < M; i++)
    for (int64_t j = 0; j < N; j++) {
      double acc = beta ? C[i * ldc + j] : 0;
      for (int64_t l = 0; l < K; l++)
        acc += A[ta ? l * lda + i : i * lda + l] * B[tb ? j * ldb + l : l * ldb + j];
      C[i * ldc + j] = acc;
    }
}
/* copy Og rows of L between a chunk's staging matrix (Og x nb*L) and nb NCHW samples */
static void lj_stage_float64(const double* restrict from, double* restrict to, int64_t Og, int64_t L,
                        int64_t nb, int64_t sample, int to_samples) {
  for (int64_t b = 0; b < nb; b++)
    for (int64_t o = 0; o < Og; o++) {
      const int64_t s = b * sample + o * L, m = (o * nb + b) * L;
      double* restrict d = to + (to_samples ? s : m);
      const double* restrict f = from + (to_samples ? m : s);
      #pragma omp simd
      for (int64_t l = 0; l < L; l++) d[l] = f[l];
    }
}
/* mode 0 forward (a = x, b = w, out = y); 1 backward data (a = g, b = w, out = dx); 2
   backward filter (a = x, b = g, out = dw).  Work items: chunks of cs samples (one
   GEMM of cs * L columns: cs > 1 for small images) times groups.  ws holds, for each
   of up to nws threads, the chunk's column matrix (K x cs*L) and, when cs > 1, its
   staging matrix (Og x cs*L); then, for mode 2, a partial dw per thread but the first. */
static void lj_conv_gemm_float64(int mode, const lj_win_t* g, const double* a, const double* b,
                            double* out, double* ws, int64_t cs, int64_t nws, int par, int busy) {
  const int64_t G = g->G, Cg = g->C / G, Og = g->O / G, K = Cg * g->KH * g->KW;
  const int64_t HW = g->H * g->W, L = g->OH * g->OW, WN = g->O * K;
  const int64_t chunks = (g->N + cs - 1) / cs, items = chunks * G;
  const int64_t per = (K + (cs > 1 ? Og : 0)) * cs * L;
  const int one = cs == 1 && g->KH == 1 && g->KW == 1 && g->sh == 1 && g->sw == 1 &&
                  g->pt == 0 && g->pl == 0 && g->OH == g->H && g->OW == g->W;
  int nt = par ? lj_max_threads() : 1;
  if (nt > nws) nt = nws;
  if (nt > items) nt = items;
  if (nt < 1) nt = 1;
  double* part = ws + nws * per;
  if (mode == 2) memset(out, 0, WN * sizeof(double));
  #pragma omp parallel num_threads(nt) if(nt > 1)
  {
    const int t = lj_thread();
    double* col = ws + t * per;
    double* stage = col + K * cs * L;
    double* acc = t == 0 ? out : part + (t - 1) * WN;
    if (mode == 2 && t > 0) memset(acc, 0, WN * sizeof(double));
    const int local = lj_blas_threads && (nt > 1 || busy || (double)Og * K * cs * L < 4194304.0);
    const int prev = local ? lj_blas_threads(1) : 0;
    #pragma omp for schedule(static)
    for (int64_t it = 0; it < items; it++) {
      const int64_t n0 = (it / G) * cs, gi = it % G;
      const int64_t nb = g->N - n0 < cs ? g->N - n0 : cs, ld = nb * L;
      const double* xs = mode == 1 ? NULL : a + (n0 * g->C + gi * Cg) * HW;  /* x, sample n0 */
      const int64_t oo = (n0 * g->O + gi * Og) * L;                     /* y or g, n0 */
      const int staged = nb > 1;
      for (int64_t s = 0; s < nb && mode != 1 && !one; s++)
        lj_im2col_float64(g, xs + s * g->C * HW, col + s * L, Cg, ld);
      const double* cols = one ? xs : col;
      if (mode == 0) {
        double* y = staged ? stage : out + oo;
        lj_gemm_float64(0, 0, Og, ld, K, b + gi * Og * K, K, cols, ld, 0, y, staged ? ld : L);
        if (staged) lj_stage_float64(stage, out + oo, Og, L, nb, g->O * L, 1);
      } else {
        const double* gm = mode == 1 ? a + oo : b + oo;
        if (staged) { lj_stage_float64(gm, stage, Og, L, nb, g->O * L, 0); gm = stage; }
        if (mode == 1) {
          double* xd = out + (n0 * g->C + gi * Cg) * HW;
          lj_gemm_float64(1, 0, K, ld, Og, b + gi * Og * K, K, gm, ld, 0, one ? xd : col, ld);
          for (int64_t s = 0; s < nb && !one; s++)
            lj_col2im_float64(g, col + s * L, xd + s * g->C * HW, Cg, ld);
        } else {
          lj_gemm_float64(0, 1, Og, K, ld, gm, ld, cols, ld, 1, acc + gi * Og * K, K);
        }
      }
    }
    if (local) lj_blas_threads(prev);
  }
  if (mode == 2)
    for (int t = 1; t < nt; t++) {
      const double* q = part + (t - 1) * WN;
      #pragma omp simd
      for (int64_t e = 0; e < WN; e++) out[e] += q[e];
    }
}
static int k0(void** restrict B, const int64_t* restrict P) {
  lj_conv_gemm_float32(0, (const lj_win_t*)(P + 1), (const float*)B[0] + P[17], (const float*)B[1] + P[18], (float*)B[4] + P[19], (float*)B[5] + P[20], P[21], P[22], !P[0] && P[23] > 262144, (int)P[0]);
  return 0;
}

static int k1(void** restrict B, const int64_t* restrict P) {
  lj_conv_gemm_float64(0, (const lj_win_t*)(P + 24), (const double*)B[2] + P[40], (const double*)B[3] + P[41], (double*)B[6] + P[42], (double*)B[7] + P[43], P[44], P[45], !P[0] && P[46] > 262144, (int)P[0]);
  return 0;
}

int lj_run(void** B, const int64_t* P) {
  int e = 0;
  if ((e = k0(B, P))) return e;
  if ((e = k1(B, P))) return e;
  return e;
}
/* params:
   0, 2, 3, 8, 8, 4, 3, 3, 8, 8, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 2, 4, 13824, 1, 2, 5, 5, 2, 3,
   3, 2, 2, 2, 2, 0, 0, 1, 1, 1, 0, 0, 0, 0, 1, 4, 144
*/
