/* Convolution by im2col + GEMM (the "gemm" implementation of
 * lazyjit/backends/cpu/conv.py): im2col / col2im of Cg channels of one sample; GEMM
 * through BLAS, or loops without it.
 *
 * Type-generic: lazyjit/backends/cpu/conv.py instantiates it once per dtype in a
 * module: it defines the parameters below, then includes this file, which undefines
 * them again (the instantiation's include guard, LJ_HAVE_CONV_GEMM_<S>, keeps it to one
 * per module).
 *   LJ_T      the element type (float)
 *   LJ_S      its name, the functions' suffix (float32: lj_conv_gemm_float32, ...)
 *   LJ_BLAS   its cblas gemm pointer (lj_sgemm), or 0 for loops
 *   LJ_MTMIN  multiply-adds below which a GEMM runs on one BLAS thread
 */
#include "lazyjit_conv.h"
#define LJ_IM2COL LJ_CAT(lj_im2col, LJ_S)
#define LJ_COL2IM LJ_CAT(lj_col2im, LJ_S)
#define LJ_GEMM LJ_CAT(lj_gemm, LJ_S)
#define LJ_STAGE LJ_CAT(lj_stage, LJ_S)
#define LJ_CONV_GEMM LJ_CAT(lj_conv_gemm, LJ_S)
/* im2col of nc channels of one sample into rows of length L = OH * OW, ld apart */
static void LJ_IM2COL(const lj_win_t* g, const LJ_T* restrict x, LJ_T* restrict col,
                      int64_t nc, int64_t ld) {
  const int64_t OH = g->OH, OW = g->OW;
  for (int64_t c = 0; c < nc; c++)
    for (int64_t p = 0; p < g->KH; p++)
      for (int64_t q = 0; q < g->KW; q++) {
        LJ_T* r = col + ((c * g->KH + p) * g->KW + q) * ld;
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
          const LJ_T* xr = x + (c * g->H + h) * g->W;
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
static void LJ_COL2IM(const lj_win_t* g, const LJ_T* restrict col, LJ_T* restrict x,
                      int64_t nc, int64_t ld) {
  const int64_t OH = g->OH, OW = g->OW;
  memset(x, 0, nc * g->H * g->W * sizeof(LJ_T));
  for (int64_t c = 0; c < nc; c++)
    for (int64_t p = 0; p < g->KH; p++)
      for (int64_t q = 0; q < g->KW; q++) {
        const LJ_T* r = col + ((c * g->KH + p) * g->KW + q) * ld;
        const int64_t off = q * g->dw - g->pl;
        int64_t j0, j1;
        lj_span(off, g->sw, g->W, OW, &j0, &j1);
        for (int64_t i = 0; i < OH; i++, r += OW) {
          const int64_t h = i * g->sh + p * g->dh - g->pt;
          if (h < 0 || h >= g->H) continue;
          LJ_T* xr = x + (c * g->H + h) * g->W;
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
static void LJ_GEMM(int ta, int tb, int64_t M, int64_t N, int64_t K, const LJ_T* A,
                    int64_t lda, const LJ_T* B, int64_t ldb, int beta, LJ_T* C, int64_t ldc) {
  if (LJ_BLAS) {
    LJ_BLAS(101, ta ? 112 : 111, tb ? 112 : 111, M, N, K, 1, A, lda, B, ldb, beta, C, ldc);
    return;
  }
  for (int64_t i = 0; i < M; i++)
    for (int64_t j = 0; j < N; j++) {
      LJ_T acc = beta ? C[i * ldc + j] : 0;
      for (int64_t l = 0; l < K; l++)
        acc += A[ta ? l * lda + i : i * lda + l] * B[tb ? j * ldb + l : l * ldb + j];
      C[i * ldc + j] = acc;
    }
}
/* copy Og rows of L between a chunk's staging matrix (Og x nb*L) and nb NCHW samples */
static void LJ_STAGE(const LJ_T* restrict from, LJ_T* restrict to, int64_t Og, int64_t L,
                     int64_t nb, int64_t sample, int to_samples) {
  for (int64_t b = 0; b < nb; b++)
    for (int64_t o = 0; o < Og; o++) {
      const int64_t s = b * sample + o * L, m = (o * nb + b) * L;
      LJ_T* restrict d = to + (to_samples ? s : m);
      const LJ_T* restrict f = from + (to_samples ? m : s);
      #pragma omp simd
      for (int64_t l = 0; l < L; l++) d[l] = f[l];
    }
}
/* mode 0 forward (a = x, b = w, out = y); 1 backward data (a = g, b = w, out = dx); 2
   backward filter (a = x, b = g, out = dw).  Work items: chunks of cs samples (one
   GEMM of cs * L columns: cs > 1 for small images) times groups.  ws holds, for each
   of up to nws threads, the chunk's column matrix (K x cs*L) and, when cs > 1, its
   staging matrix (Og x cs*L); then, for mode 2, a partial dw per thread but the first. */
static void LJ_CONV_GEMM(int mode, const lj_win_t* g, const LJ_T* a, const LJ_T* b,
                         LJ_T* out, LJ_T* ws, int64_t cs, int64_t nws, int par, int busy) {
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
  LJ_T* part = ws + nws * per;
  if (mode == 2) memset(out, 0, WN * sizeof(LJ_T));
  #pragma omp parallel num_threads(nt) if(nt > 1)
  {
    const int t = lj_thread();
    LJ_T* col = ws + t * per;
    LJ_T* stage = col + K * cs * L;
    LJ_T* acc = t == 0 ? out : part + (t - 1) * WN;
    if (mode == 2 && t > 0) memset(acc, 0, WN * sizeof(LJ_T));
    const int local = lj_blas_threads && (nt > 1 || busy || (double)Og * K * cs * L < LJ_MTMIN);
    const int prev = local ? lj_blas_threads(1) : 0;
    #pragma omp for schedule(static)
    for (int64_t it = 0; it < items; it++) {
      const int64_t n0 = (it / G) * cs, gi = it % G;
      const int64_t nb = g->N - n0 < cs ? g->N - n0 : cs, ld = nb * L;
      const LJ_T* xs = mode == 1 ? NULL : a + (n0 * g->C + gi * Cg) * HW;  /* x, sample n0 */
      const int64_t oo = (n0 * g->O + gi * Og) * L;                     /* y or g, n0 */
      const int staged = nb > 1;
      for (int64_t s = 0; s < nb && mode != 1 && !one; s++)
        LJ_IM2COL(g, xs + s * g->C * HW, col + s * L, Cg, ld);
      const LJ_T* cols = one ? xs : col;
      if (mode == 0) {
        LJ_T* y = staged ? stage : out + oo;
        LJ_GEMM(0, 0, Og, ld, K, b + gi * Og * K, K, cols, ld, 0, y, staged ? ld : L);
        if (staged) LJ_STAGE(stage, out + oo, Og, L, nb, g->O * L, 1);
      } else {
        const LJ_T* gm = mode == 1 ? a + oo : b + oo;
        if (staged) { LJ_STAGE(gm, stage, Og, L, nb, g->O * L, 0); gm = stage; }
        if (mode == 1) {
          LJ_T* xd = out + (n0 * g->C + gi * Cg) * HW;
          LJ_GEMM(1, 0, K, ld, Og, b + gi * Og * K, K, gm, ld, 0, one ? xd : col, ld);
          for (int64_t s = 0; s < nb && !one; s++)
            LJ_COL2IM(g, col + s * L, xd + s * g->C * HW, Cg, ld);
        } else {
          LJ_GEMM(0, 1, Og, K, ld, gm, ld, cols, ld, 1, acc + gi * Og * K, K);
        }
      }
    }
    if (local) lj_blas_threads(prev);
  }
  if (mode == 2)
    for (int t = 1; t < nt; t++) {
      const LJ_T* q = part + (t - 1) * WN;
      #pragma omp simd
      for (int64_t e = 0; e < WN; e++) out[e] += q[e];
    }
}
#undef LJ_IM2COL
#undef LJ_COL2IM
#undef LJ_GEMM
#undef LJ_STAGE
#undef LJ_CONV_GEMM
#undef LJ_T
#undef LJ_S
#undef LJ_BLAS
#undef LJ_MTMIN
