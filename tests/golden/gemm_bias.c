static __attribute__((noinline)) void k0_loop(void** restrict B, const int64_t* restrict P, const int64_t* restrict Q, int64_t w0, int64_t w1) {
  float* p0 = (float*)B[Q[9]] + Q[4];
  const float* p1 = (const float*)B[Q[10]] + Q[7];
  const int64_t nL = Q[1], bs = Q[8], nO = Q[0];
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
    #pragma omp simd
    for (int64_t k = kb; k < ke; k++) {
      const float L1 = q1[k];
      const float v0 = (float)(L1);
      q0[k] = v0;
    }
    kb_ += bs;
    if (kb_ >= nL) { kb_ = 0; o_++; }
  }
}
LJ_KERNEL int k0(void** restrict B, const int64_t* restrict P, const int64_t* restrict Q) {
  float* p0 = (float*)B[Q[9]] + Q[4];
  const float* p1 = (const float*)B[Q[10]] + Q[7];
  const int64_t nL = Q[1], bs = Q[8], nO = Q[0];
  const int64_t nb = nL <= bs ? 1 : (nL + bs - 1) / bs;
  const int64_t count_ = nO * nb;
  if (!P[0] && 1 && nO * nL > 262144) {
    lj_parallel(k0_loop, B, P, Q, count_);
  } else {
    k0_loop(B, P, Q, 0, count_);
  }
  return 0;
}

LJ_KERNEL int k1(void** restrict B, const int64_t* restrict P, const int64_t* restrict Q) {
  const float* pa = (const float*)B[Q[11]] + Q[0];
  const float* pb = (const float*)B[Q[12]] + Q[1];
  float* pc = (float*)B[Q[13]] + Q[2];
  const int64_t M = Q[3], N = Q[4], K = Q[5];
  const int64_t nB = 1;
  for (int64_t w = 0; w < nB; w++) {
    const int64_t oa = 0;
    const int64_t ob = 0;
    const int64_t oc = 0;
    if (K == 0) {
      continue;
    }
    int prev = 0, small = lj_blas_threads && (P[0] || (double)M * N * K < 1048576.0);
    if (small) prev = lj_blas_threads(1);
    lj_sgemm(101, Q[6], Q[7], M, N, K, (float)lj_as_f64(Q[8]), pa + oa, Q[9], pb + ob, Q[10], 1, pc + oc, N);
    if (small) lj_blas_threads(prev);
  }
  return 0;
}

int lj_run(void** B, const int64_t* P) {
  int e = 0;
  if ((e = k0(B, P, P + 1))) return e;
  if ((e = k1(B, P, P + 12))) return e;
  return e;
}
/* params:
   0, 8, 4, 4, 1, 0, 0, 1, 0, 4, 3, 2, 0, 0, 0, 8, 4, 16, 111, 111, 4607182418800017408, 16, 4,
   0, 1, 3
*/
/* memory plan:
   blocks [0]; bytes [128]; donors {}; may fail False; messages 0
*/
