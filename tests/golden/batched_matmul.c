LJ_KERNEL int k0(void** restrict B, const int64_t* restrict P, const int64_t* restrict Q) {
  const float* pa = (const float*)B[Q[15]] + Q[1];
  const float* pb = (const float*)B[Q[16]] + Q[2];
  float* pc = (float*)B[Q[17]] + Q[3];
  const int64_t M = Q[4], N = Q[5], K = Q[6];
  const int64_t nB = Q[0];
  for (int64_t w = 0; w < nB; w++) {
    int64_t r_ = w;
    const int64_t i0 = r_;
    const int64_t oa = 0 + i0 * Q[7];
    const int64_t ob = 0 + i0 * Q[8];
    const int64_t oc = 0 + i0 * Q[9];
    if (K == 0) {
      for (int64_t i = 0; i < M * N; i++) pc[oc + i] = 0;
      continue;
    }
    int prev = 0, small = lj_blas_threads && (P[0] || (double)M * N * K < 1048576.0);
    if (small) prev = lj_blas_threads(1);
    lj_sgemm(101, Q[10], Q[11], M, N, K, (float)lj_as_f64(Q[12]), pa + oa, Q[13], pb + ob, Q[14], 0, pc + oc, N);
    if (small) lj_blas_threads(prev);
  }
  return 0;
}

int lj_run(void** B, const int64_t* P) {
  int e = 0;
  if ((e = k0(B, P, P + 1))) return e;
  return e;
}
/* params:
   0, 3, 0, 0, 0, 4, 6, 5, 20, 30, 24, 111, 111, 4607182418800017408, 5, 6, 0, 1, 2
*/
/* memory plan:
   blocks [0]; bytes [288]; donors {}; may fail False; messages 0
*/
