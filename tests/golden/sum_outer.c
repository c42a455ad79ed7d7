static __attribute__((noinline)) void k0_loop(void** restrict B, const int64_t* restrict P, const int64_t* restrict Q, int64_t w0, int64_t w1) {
  double* p0 = (double*)B[Q[9]] + Q[4];
  const double* p1 = (const double*)B[Q[10]] + Q[7];
  const int64_t nL = Q[1], bs = Q[8], nO = 1;
  const int64_t nb = nL <= bs ? 1 : (nL + bs - 1) / bs;
  int64_t o_ = 0, kb_ = 0;
  if (w0) { o_ = w0 / nb; kb_ = (w0 - o_ * nb) * bs; }
  for (int64_t w = w0; w < w1; w++) {
    const int64_t o = o_, kb = kb_;
    const int64_t ke = kb + bs < nL ? kb + bs : nL;
    double* out = p0;
    for (int64_t k = kb; k < ke; k++) out[k] = 0.0;
    int64_t i0 = 0;
    for (; i0 + 4 <= Q[0]; i0 += 4) {
      double* q0 = p0 + i0 * Q[2];
      const double* q1 = p1 + i0 * Q[5];
      const double* q1_0 = q1 + 0 * Q[5];
      const double* q1_1 = q1 + 1 * Q[5];
      const double* q1_2 = q1 + 2 * Q[5];
      const double* q1_3 = q1 + 3 * Q[5];
      #pragma omp simd
      for (int64_t k = kb; k < ke; k++) {
        const double L1_0 = q1_0[k];
        const double v0_0 = (double)(L1_0);
        const double L1_1 = q1_1[k];
        const double v0_1 = (double)(L1_1);
        const double L1_2 = q1_2[k];
        const double v0_2 = (double)(L1_2);
        const double L1_3 = q1_3[k];
        const double v0_3 = (double)(L1_3);
        out[k] = (out[k] + ((v0_0 + v0_1) + (v0_2 + v0_3)));
      }
    }
    for (; i0 < Q[0]; i0++) {
    double* q0 = p0 + i0 * Q[2];
    const double* q1 = p1 + i0 * Q[5];
    #pragma omp simd
    for (int64_t k = kb; k < ke; k++) {
      const double L1 = q1[k];
      const double v0 = (double)(L1);
      out[k] = (out[k] + v0);
    }
    }
    kb_ += bs;
    if (kb_ >= nL) { kb_ = 0; o_++; }
  }
}
LJ_KERNEL int k0(void** restrict B, const int64_t* restrict P, const int64_t* restrict Q) {
  double* p0 = (double*)B[Q[9]] + Q[4];
  const double* p1 = (const double*)B[Q[10]] + Q[7];
  const int64_t nL = Q[1], bs = Q[8], nO = 1;
  const int64_t nb = nL <= bs ? 1 : (nL + bs - 1) / bs;
  const int64_t count_ = nO * nb;
  if (!P[0] && 1 && nO * nL * Q[0] > 262144) {
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
   0, 6, 7, 0, 1, 0, 7, 1, 0, 7, 1, 0
*/
/* memory plan:
   blocks [0]; bytes [56]; donors {}; may fail False; messages 0
*/
