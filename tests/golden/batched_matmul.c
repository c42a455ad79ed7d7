static int k0(void** restrict B, const int64_t* restrict P) {
  const float* pa = (const float*)B[0] + P[2];
  const float* pb = (const float*)B[1] + P[3];
  float* pc = (float*)B[2] + P[4];
  const int64_t M = P[5], N = P[6], K = P[7];
  const int64_t nB = P[1];
  for (int64_t w = 0; w < nB; w++) {
    int64_t r_ = w;
    const int64_t i0 = r_;
    const int64_t oa = 0 + i0 * P[8];
    const int64_t ob = 0 + i0 * P[9];
    const int64_t oc = 0 + i0 * P[10];
    if (K == 0) {
      for (int64_t i = 0; i < M * N; i++) pc[oc + i] = 0;
      continue;
    }
    if (lj_sgemm) {
      int prev = 0, small = lj_blas_threads && (P[0] || (double)M * N * K < 4194304.0);
      if (small) prev = lj_blas_threads(1);
      lj_sgemm(101, P[11], P[12], M, N, K, (float)lj_as_f64(P[13]), pa + oa, P[14], pb + ob, P[15], 0, pc + oc, N);
      if (small) lj_blas_threads(prev);
      continue;
    }
    #pragma omp parallel for if(!P[0] && M * N * K > 262144) schedule(static)
    for (int64_t i = 0; i < M; i++)
      for (int64_t j = 0; j < N; j++) {
        float acc = 0;
        for (int64_t l = 0; l < K; l++)
          acc += (float)pa[oa + i * P[16] + l * P[17]] * (float)pb[ob + l * P[18] + j * P[19]];
        pc[oc + i * N + j] = (float)(acc);
      }
  }
  return 0;
}

int lj_run(void** B, const int64_t* P) {
  int e = 0;
  if ((e = k0(B, P))) return e;
  return e;
}
/* params:
   0, 3, 0, 0, 0, 4, 6, 5, 20, 30, 24, 111, 111, 4607182418800017408, 5, 6, 5, 1, 6, 1
*/
/* memory plan:
   blocks [0]; bytes [288]; donors {}; may fail False; messages 0
*/
