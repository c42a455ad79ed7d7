static __attribute__((noinline)) void k0_loop(void** restrict B, const int64_t* restrict P, const int64_t* restrict Q, int64_t w0, int64_t w1) {
  float* p0 = (float*)B[Q[6]] + Q[2];
  const float* p1 = (const float*)B[Q[7]] + Q[4];
  const int64_t nL = Q[0], bs = Q[5], nO = 1;
  const int64_t nb = nL <= bs ? 1 : (nL + bs - 1) / bs;
  int64_t o_ = 0, kb_ = 0;
  if (w0) { o_ = w0 / nb; kb_ = (w0 - o_ * nb) * bs; }
  for (int64_t w = w0; w < w1; w++) {
    const int64_t o = o_, kb = kb_;
    const int64_t ke = kb + bs < nL ? kb + bs : nL;
    float* q0 = p0;
    const float* q1 = p1;
    #pragma omp simd
    for (int64_t k = kb; k < ke; k++) {
      const float L1 = q1[k];
      const float v0 = (float)(L1);
      const float v1 = (float)(sinf(v0));
      q0[k] = v1;
    }
    kb_ += bs;
    if (kb_ >= nL) { kb_ = 0; o_++; }
  }
}
LJ_KERNEL int k0(void** restrict B, const int64_t* restrict P, const int64_t* restrict Q) {
  float* p0 = (float*)B[Q[6]] + Q[2];
  const float* p1 = (const float*)B[Q[7]] + Q[4];
  const int64_t nL = Q[0], bs = Q[5], nO = 1;
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
  float* p0 = (float*)B[Q[16]] + Q[4];
  const float* p1 = (const float*)B[Q[17]] + Q[7];
  const float* p2 = (const float*)B[Q[18]] + Q[10];
  const float* p3 = (const float*)B[Q[19]] + Q[13];
  const int64_t nL = Q[1], bs = Q[15], nO = Q[0];
  const int64_t nb = nL <= bs ? 1 : (nL + bs - 1) / bs;
  int64_t o_ = 0, kb_ = 0;
  if (w0) { o_ = w0 / nb; kb_ = (w0 - o_ * nb) * bs; }
  for (int64_t w = w0; w < w1; w++) {
    const int64_t o = o_, kb = kb_;
    const int64_t ke = kb + bs < nL ? kb + bs : nL;
    int64_t r_ = o;
    const int64_t i0 = r_;
    float* q0 = p0 + i0 * Q[2];
    const float* q1 = p1 + i0 * Q[5];
    const float* q2 = p2 + i0 * Q[8];
    const float* q3 = p3 + i0 * Q[11];
    #pragma omp simd
    for (int64_t k = kb; k < ke; k++) {
      const float L1 = q1[k];
      const float L2 = q2[k];
      const float L3 = q3[k];
      const float v0 = (float)(L1);
      const float v1 = (float)((float)lj_as_f64(Q[14]));
      const float v2 = (float)((v0 * v1));
      const float v3 = (float)(L2);
      const float v4 = (float)((v2 + v3));
      const float v5 = (float)(tanhf(v4));
      const float v6 = (float)(expf(v5));
      const float v7 = (float)(fabsf(v0));
      const float v8 = (float)(log1pf(v7));
      const float v9 = (float)(L3);
      const float v10 = (float)((v8 * v9));
      const float v11 = (float)((v6 + v10));
      q0[k] = v11;
    }
    kb_ += bs;
    if (kb_ >= nL) { kb_ = 0; o_++; }
  }
}
LJ_KERNEL int k1(void** restrict B, const int64_t* restrict P, const int64_t* restrict Q) {
  float* p0 = (float*)B[Q[16]] + Q[4];
  const float* p1 = (const float*)B[Q[17]] + Q[7];
  const float* p2 = (const float*)B[Q[18]] + Q[10];
  const float* p3 = (const float*)B[Q[19]] + Q[13];
  const int64_t nL = Q[1], bs = Q[15], nO = Q[0];
  const int64_t nb = nL <= bs ? 1 : (nL + bs - 1) / bs;
  const int64_t count_ = nO * nb;
  if (!P[0] && 1 && nO * nL > 262144) {
    lj_parallel(k1_loop, B, P, Q, count_);
  } else {
    k1_loop(B, P, Q, 0, count_);
  }
  return 0;
}

int lj_run(void** B, const int64_t* P) {
  int e = 0;
  if ((e = k0(B, P, P + 1))) return e;
  if ((e = k1(B, P, P + 9))) return e;
  return e;
}
/* params:
   0, 5, 1, 0, 1, 0, 5, 2, 1, 4, 5, 5, 1, 0, 5, 1, 0, 0, 1, 0, 0, 1, 0, 4611686018427387904, 5,
   3, 0, 1, 2
*/
/* memory plan:
   blocks [0, 1]; bytes [20, 80]; donors {0: 0}; may fail False; messages 0
*/
