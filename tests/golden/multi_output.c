static __attribute__((noinline)) void k0_loop(void** restrict B, const int64_t* restrict P, const int64_t* restrict Q, int64_t w0, int64_t w1) {
  float* p0 = (float*)B[Q[12]] + Q[2];
  float* p1 = (float*)B[Q[13]] + Q[4];
  const float* p2 = (const float*)B[Q[14]] + Q[6];
  const float* p3 = (const float*)B[Q[15]] + Q[8];
  const int64_t nL = Q[0], bs = Q[11], nO = 1;
  const int64_t nb = nL <= bs ? 1 : (nL + bs - 1) / bs;
  int64_t o_ = 0, kb_ = 0;
  if (w0) { o_ = w0 / nb; kb_ = (w0 - o_ * nb) * bs; }
  for (int64_t w = w0; w < w1; w++) {
    const int64_t o = o_, kb = kb_;
    const int64_t ke = kb + bs < nL ? kb + bs : nL;
    float* q0 = p0;
    float* q1 = p1;
    const float* q2 = p2;
    const float* q3 = p3;
    #pragma omp simd
    for (int64_t k = kb; k < ke; k++) {
      const float L2 = q2[k];
      const float L3 = q3[k];
      const float v0 = (float)(L2);
      const float v1 = (float)(expf(v0));
      const float v2 = (float)(L3);
      const float v3 = (float)((v1 + v2));
      const float v4 = (float)((float)lj_as_f64(Q[9]));
      const float v5 = (float)((v3 * v4));
      const float v6 = (float)(fabsf(v3));
      const float v7 = (float)(sqrtf(v6));
      const float v8 = (float)((float)lj_as_f64(Q[10]));
      const float v9 = (float)((v7 - v8));
      q0[k] = v5;
      q1[k] = v9;
    }
    kb_ += bs;
    if (kb_ >= nL) { kb_ = 0; o_++; }
  }
}
LJ_KERNEL int k0(void** restrict B, const int64_t* restrict P, const int64_t* restrict Q) {
  float* p0 = (float*)B[Q[12]] + Q[2];
  float* p1 = (float*)B[Q[13]] + Q[4];
  const float* p2 = (const float*)B[Q[14]] + Q[6];
  const float* p3 = (const float*)B[Q[15]] + Q[8];
  const int64_t nL = Q[0], bs = Q[11], nO = 1;
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
   0, 24, 1, 0, 1, 0, 1, 0, 1, 0, 4611686018427387904, 4607182418800017408, 24, 2, 3, 0, 1
*/
/* memory plan:
   blocks [0, 1]; bytes [96, 96]; donors {}; may fail False; messages 0
*/
