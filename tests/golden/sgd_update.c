static __attribute__((noinline)) void k0_loop(void** restrict B, const int64_t* restrict P, const int64_t* restrict Q, int64_t w0, int64_t w1) {
  float* p0 = (float*)B[Q[9]] + Q[2];
  const float* p1 = (const float*)B[Q[10]] + Q[4];
  const float* p2 = (const float*)B[Q[11]] + Q[6];
  const int64_t nL = Q[0], bs = Q[8], nO = 1;
  const int64_t nb = nL <= bs ? 1 : (nL + bs - 1) / bs;
  int64_t o_ = 0, kb_ = 0;
  if (w0) { o_ = w0 / nb; kb_ = (w0 - o_ * nb) * bs; }
  for (int64_t w = w0; w < w1; w++) {
    const int64_t o = o_, kb = kb_;
    const int64_t ke = kb + bs < nL ? kb + bs : nL;
    float* q0 = p0;
    const float* q1 = p1;
    const float* q2 = p2;
    #pragma omp simd
    for (int64_t k = kb; k < ke; k++) {
      const float L1 = q1[k];
      const float L2 = q2[k];
      const float v0 = (float)(L2);
      const float v1 = (float)(L1);
      const float v2 = (float)((v1 * v0));
      const float v3 = (float)((float)lj_as_f64(Q[7]));
      const float v4 = (float)((v2 * v3));
      const float v5 = (float)((v0 - v4));
      q0[k] = v5;
    }
    kb_ += bs;
    if (kb_ >= nL) { kb_ = 0; o_++; }
  }
}
LJ_KERNEL int k0(void** restrict B, const int64_t* restrict P, const int64_t* restrict Q) {
  float* p0 = (float*)B[Q[9]] + Q[2];
  const float* p1 = (const float*)B[Q[10]] + Q[4];
  const float* p2 = (const float*)B[Q[11]] + Q[6];
  const int64_t nL = Q[0], bs = Q[8], nO = 1;
  const int64_t nb = nL <= bs ? 1 : (nL + bs - 1) / bs;
  const int64_t count_ = nO * nb;
  if (!P[0] && 1 && nO * nL > 262144) {
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
   0, 24, 1, 0, 1, 0, 1, 0, 4591870180174331904, 24, 2, 1, 0
*/
/* memory plan:
   blocks [0]; bytes [96]; donors {0: 0}; may fail False; messages 0
*/
