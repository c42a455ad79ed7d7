static __attribute__((noinline)) void k0_loop(void** restrict B, const int64_t* restrict P, const int64_t* restrict Q, int64_t w0, int64_t w1) {
  float* p0 = (float*)B[Q[12]] + Q[6];
  const float* p1 = (const float*)B[Q[13]] + Q[10];
  const int64_t nL = Q[2], bs = Q[11], nO = Q[0];
  const int64_t nb = nL <= bs ? 1 : (nL + bs - 1) / bs;
  int64_t o_ = 0, kb_ = 0;
  if (w0) { o_ = w0 / nb; kb_ = (w0 - o_ * nb) * bs; }
  for (int64_t w = w0; w < w1; w++) {
    const int64_t o = o_, kb = kb_;
    const int64_t ke = kb + bs < nL ? kb + bs : nL;
    int64_t r_ = o;
    const int64_t i0 = r_;
    float* out = p0 + i0 * Q[3];
    for (int64_t k = kb; k < ke; k++) out[k] = (-INFINITY);
    for (int64_t i1 = 0; i1 < Q[1]; i1++) {
    float* q0 = p0 + i0 * Q[3] + i1 * Q[4];
    const float* q1 = p1 + i0 * Q[7] + i1 * Q[8];
    #pragma omp simd
    for (int64_t k = kb; k < ke; k++) {
      const float L1 = q1[k];
      const float v0 = (float)(L1);
      out[k] = ((v0 > out[k] || v0 != v0) ? v0 : out[k]);
    }
    }
    kb_ += bs;
    if (kb_ >= nL) { kb_ = 0; o_++; }
  }
}
LJ_KERNEL int k0(void** restrict B, const int64_t* restrict P, const int64_t* restrict Q) {
  float* p0 = (float*)B[Q[12]] + Q[6];
  const float* p1 = (const float*)B[Q[13]] + Q[10];
  const int64_t nL = Q[2], bs = Q[11], nO = Q[0];
  const int64_t nb = nL <= bs ? 1 : (nL + bs - 1) / bs;
  const int64_t count_ = nO * nb;
  if (!P[0] && 1 && nO * nL * Q[1] > 262144) {
    lj_parallel(k0_loop, B, P, Q, count_);
  } else {
    k0_loop(B, P, Q, 0, count_);
  }
  return 0;
}

int lj_run(void** B, const int64_t* P) {
  int e = 0;
  if ((e = k0(B, P, P + 1))) return e;
  return e;
}
/* params:
   0, 3, 4, 5, 5, 0, 1, 0, 20, 5, 1, 0, 5, 1, 0
*/
/* memory plan:
   blocks [0]; bytes [60]; donors {}; may fail False; messages 0
*/
