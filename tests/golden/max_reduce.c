static __attribute__((noinline)) void k0_loop(void** restrict B, const int64_t* restrict P, int64_t w0, int64_t w1) {
  float* p0 = (float*)B[1] + P[7];
  const float* p1 = (const float*)B[0] + P[11];
  const int64_t nL = P[3], bs = P[12], nO = P[1];
  const int64_t nb = nL <= bs ? 1 : (nL + bs - 1) / bs;
  int64_t o_ = 0, kb_ = 0;
  if (w0) { o_ = w0 / nb; kb_ = (w0 - o_ * nb) * bs; }
  for (int64_t w = w0; w < w1; w++) {
    const int64_t o = o_, kb = kb_;
    const int64_t ke = kb + bs < nL ? kb + bs : nL;
    int64_t r_ = o;
    const int64_t i0 = r_;
    float* out = p0 + i0 * P[4];
    for (int64_t k = kb; k < ke; k++) out[k] = (-INFINITY);
    for (int64_t i1 = 0; i1 < P[2]; i1++) {
    float* q0 = p0 + i0 * P[4] + i1 * P[5];
    const float* q1 = p1 + i0 * P[8] + i1 * P[9];
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
static int k0(void** restrict B, const int64_t* restrict P) {
  float* p0 = (float*)B[1] + P[7];
  const float* p1 = (const float*)B[0] + P[11];
  const int64_t nL = P[3], bs = P[12], nO = P[1];
  const int64_t nb = nL <= bs ? 1 : (nL + bs - 1) / bs;
  const int64_t count_ = nO * nb;
  if (!P[0] && 1 && nO * nL * P[2] > 262144) {
    lj_parallel(k0_loop, B, P, count_);
  } else {
    k0_loop(B, P, 0, count_);
  }
  return 0;
}

int lj_run(void** B, const int64_t* P) {
  int e = 0;
  if ((e = k0(B, P))) return e;
  return e;
}
/* params:
   0, 3, 4, 5, 5, 0, 1, 0, 20, 5, 1, 0, 5
*/
/* memory plan:
   blocks [0]; bytes [60]; donors {}; may fail False; messages 0
*/
