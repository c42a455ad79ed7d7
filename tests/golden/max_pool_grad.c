#include "lazyjit_conv.h"
#ifndef LJ_HAVE_MAXPOOL_float32_float32
#define LJ_HAVE_MAXPOOL_float32_float32
#define LJ_X float
#define LJ_XS float32
#define LJ_T float
#define LJ_S float32
#include "lazyjit_pool.h"
#endif
static __attribute__((noinline)) void k0_loop(void** restrict B, const int64_t* restrict P, const int64_t* restrict Q, int64_t w0, int64_t w1) {
  float* p0 = (float*)B[Q[5]] + Q[2];
  const int64_t nL = Q[0], bs = Q[4], nO = 1;
  const int64_t nb = nL <= bs ? 1 : (nL + bs - 1) / bs;
  int64_t o_ = 0, kb_ = 0;
  if (w0) { o_ = w0 / nb; kb_ = (w0 - o_ * nb) * bs; }
  for (int64_t w = w0; w < w1; w++) {
    const int64_t o = o_, kb = kb_;
    const int64_t ke = kb + bs < nL ? kb + bs : nL;
    float* q0 = p0;
    #pragma omp simd
    for (int64_t k = kb; k < ke; k++) {
      const float v0 = (float)((float)lj_as_f64(Q[3]));
      q0[k] = v0;
    }
    kb_ += bs;
    if (kb_ >= nL) { kb_ = 0; o_++; }
  }
}
LJ_KERNEL int k0(void** restrict B, const int64_t* restrict P, const int64_t* restrict Q) {
  float* p0 = (float*)B[Q[5]] + Q[2];
  const int64_t nL = Q[0], bs = Q[4], nO = 1;
  const int64_t nb = nL <= bs ? 1 : (nL + bs - 1) / bs;
  const int64_t count_ = nO * nb;
  if (!P[0] && 1 && nO * nL > 262144) {
    lj_parallel(k0_loop, B, P, Q, count_);
  } else {
    k0_loop(B, P, Q, 0, count_);
  }
  return 0;
}

static __attribute__((noinline)) void k1_loop(void** restrict B, const int64_t* restrict P, const int64_t* restrict Q, int64_t w0, int64_t w1) {

  for (int64_t w = w0; w < w1; w++) {
    lj_maxpool_float32_float32((const lj_win_t*)(P + 7), (const float*)B[Q[21]] + Q[18], (const float*)B[Q[22]] + Q[19], (float*)B[Q[23]] + Q[20], 2, (-INFINITY), w);
  }
}
LJ_KERNEL int k1(void** restrict B, const int64_t* restrict P, const int64_t* restrict Q) {

  const int64_t count_ = Q[17];
  if (!P[0] && 1 && Q[16] > 262144) {
    lj_parallel(k1_loop, B, P, Q, count_);
  } else {
    k1_loop(B, P, Q, 0, count_);
  }
  return 0;
}

int lj_run(void** B, const int64_t* P) {
  int e = 0;
  if ((e = k0(B, P, P + 1))) return e;
  if ((e = k1(B, P, P + 7))) return e;
  return e;
}
/* params:
   0, 18, 1, 0, 4607182418800017408, 18, 1, 1, 2, 6, 6, 0, 2, 2, 3, 3, 2, 2, 0, 0, 1, 1, 1, 72,
   2, 0, 0, 0, 0, 1, 2
*/
/* memory plan:
   blocks [0, 1]; bytes [72, 288]; donors {}; may fail False; messages 0
*/
