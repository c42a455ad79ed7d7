
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

#define LJ_POOL_BLOCK 256
static inline __attribute__((always_inline)) void lj_maxpool_float32_float32(
    const lj_win_t* g, const float* restrict x, const float* restrict v,
                              float* restrict y, int mode, float lowest, int64_t it) {
  const int64_t HW = g->H * g->W, OW = g->OW, L = g->OH * OW, sw = g->sw;
  const float* xp = x + it * HW;
  float m[LJ_POOL_BLOCK];
  int64_t b[LJ_POOL_BLOCK];
  if (mode == 2) memset(y + it * HW, 0, HW * sizeof(float));
  for (int64_t i = 0; i < g->OH; i++)
    for (int64_t jb = 0; jb < OW; jb += LJ_POOL_BLOCK) {
      const int64_t nb = OW - jb < LJ_POOL_BLOCK ? OW - jb : LJ_POOL_BLOCK;
      float* yr = y + it * L + i * OW + jb;
      float* mm = mode == 0 ? (float*)yr : m;
      for (int64_t j = 0; j < nb; j++) { mm[j] = lowest; b[j] = -1; }
      for (int64_t p = 0; p < g->KH; p++) {
        const int64_t h = i * g->sh + p * g->dh - g->pt;
        if (h < 0 || h >= g->H) continue;
        const float* xr = xp + h * g->W;
        for (int64_t q = 0; q < g->KW; q++) {
          const int64_t off = q * g->dw - g->pl + jb * sw;
          int64_t j0 = 0, j1 = nb;
          if (g->pl) lj_span(off, sw, g->W, nb, &j0, &j1);  /* unpadded: all inside */
          /* e wins unless m is NaN or e <= m (so a NaN e wins over a number) */
          if (mode == 0) {
            #pragma omp simd
            for (int64_t j = j0; j < j1; j++) {
              const float e = xr[j * sw + off];
              mm[j] = ((mm[j] == mm[j]) & !(e <= mm[j])) ? e : mm[j];
            }
          } else {
            #pragma omp simd
            for (int64_t j = j0; j < j1; j++) {
              const float e = xr[j * sw + off];
              const int c = (b[j] < 0) | ((mm[j] == mm[j]) & !(e <= mm[j]));
              mm[j] = c ? e : mm[j];
              b[j] = c ? h * g->W + j * sw + off : b[j];
            }
          }
        }
      }
      if (mode == 1) {
        const float* vp = v + it * HW;
        for (int64_t j = 0; j < nb; j++) yr[j] = vp[b[j]];
      } else if (mode == 2) {
        float* gx = y + it * HW;
        const float* gr = v + it * L + i * OW + jb;
        for (int64_t j = 0; j < nb; j++) gx[b[j]] += gr[j];
      }
    }
}
static __attribute__((noinline)) void k0_loop(void** restrict B, const int64_t* restrict P, int64_t w0, int64_t w1) {
  float* p0 = (float*)B[1] + P[3];
  const int64_t nL = P[1], bs = P[5], nO = 1;
  const int64_t nb = (nL + bs - 1) / bs;
  for (int64_t w = w0; w < w1; w++) {
    const int64_t o = w / nb, kb = (w - o * nb) * bs;
    const int64_t ke = kb + bs < nL ? kb + bs : nL;
    float* q0 = p0;
    #pragma omp simd
    for (int64_t k = kb; k < ke; k++) {
      const float v0 = (float)((float)lj_as_f64(P[4]));
      q0[k] = v0;
    }
  }
}
static int k0(void** restrict B, const int64_t* restrict P) {
  float* p0 = (float*)B[1] + P[3];
  const int64_t nL = P[1], bs = P[5], nO = 1;
  const int64_t nb = (nL + bs - 1) / bs;
  const int64_t count_ = nO * nb;
  if (!P[0] && 1 && nO * nL > 262144) {
    #pragma omp parallel
    {
      int nt = 1, t = 0;
#ifdef _OPENMP
      nt = omp_get_num_threads(); t = omp_get_thread_num();
#endif
      k0_loop(B, P, count_ * t / nt, count_ * (t + 1) / nt);
    }
  } else {
    k0_loop(B, P, 0, count_);
  }
  return 0;
}

static __attribute__((noinline)) void k1_loop(void** restrict B, const int64_t* restrict P, int64_t w0, int64_t w1) {

  for (int64_t w = w0; w < w1; w++) {
    lj_maxpool_float32_float32((const lj_win_t*)(P + 6), (const float*)B[0] + P[24], (const float*)B[1] + P[25], (float*)B[2] + P[26], 2, (-INFINITY), w);
  }
}
static int k1(void** restrict B, const int64_t* restrict P) {

  const int64_t count_ = P[23];
  if (!P[0] && 1 && P[22] > 262144) {
    #pragma omp parallel
    {
      int nt = 1, t = 0;
#ifdef _OPENMP
      nt = omp_get_num_threads(); t = omp_get_thread_num();
#endif
      k1_loop(B, P, count_ * t / nt, count_ * (t + 1) / nt);
    }
  } else {
    k1_loop(B, P, 0, count_);
  }
  return 0;
}

int lj_run(void** B, const int64_t* P) {
  int e = 0;
  if ((e = k0(B, P))) return e;
  if ((e = k1(B, P))) return e;
  return e;
}
/* params:
   0, 18, 1, 0, 4607182418800017408, 18, 1, 2, 6, 6, 0, 2, 2, 3, 3, 2, 2, 0, 0, 1, 1, 1, 72, 2,
   0, 0, 0
*/
