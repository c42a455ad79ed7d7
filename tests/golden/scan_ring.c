static int k0(void** restrict B, const int64_t* restrict P) {
  const float* pa = (const float*)B[0] + P[1];
  const float* pb = (const float*)B[1] + P[2];
  float* pc = (float*)B[4] + P[3];
  const int64_t M = P[4], N = P[5], K = P[6];
  const int64_t nB = 1;
  for (int64_t w = 0; w < nB; w++) {
    const int64_t oa = 0;
    const int64_t ob = 0;
    const int64_t oc = 0;
    if (K == 0) {
      for (int64_t i = 0; i < M * N; i++) pc[oc + i] = 0;
      continue;
    }
    if (lj_sgemm) {
      int prev = 0, small = lj_blas_threads && (P[0] || (double)M * N * K < 4194304.0);
      if (small) prev = lj_blas_threads(1);
      lj_sgemm(101, P[7], P[8], M, N, K, (float)lj_as_f64(P[9]), pa + oa, P[10], pb + ob, P[11], 0, pc + oc, N);
      if (small) lj_blas_threads(prev);
      continue;
    }
    #pragma omp parallel for if(!P[0] && M * N * K > 262144) schedule(static)
    for (int64_t i = 0; i < M; i++)
      for (int64_t j = 0; j < N; j++) {
        float acc = 0;
        for (int64_t l = 0; l < K; l++)
          acc += (float)pa[oa + i * P[12] + l * P[13]] * (float)pb[ob + l * P[14] + j * P[15]];
        pc[oc + i * N + j] = (float)(acc);
      }
  }
  return 0;
}

static __attribute__((noinline)) void k1_loop(void** restrict B, const int64_t* restrict P, int64_t w0, int64_t w1) {
  float* p0 = (float*)B[5] + P[18];
  const float* p1 = (const float*)B[2] + P[20];
  const int64_t nL = P[16], bs = P[21], nO = 1;
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
      q0[k] = v0;
    }
    kb_ += bs;
    if (kb_ >= nL) { kb_ = 0; o_++; }
  }
}
static int k1(void** restrict B, const int64_t* restrict P) {
  float* p0 = (float*)B[5] + P[18];
  const float* p1 = (const float*)B[2] + P[20];
  const int64_t nL = P[16], bs = P[21], nO = 1;
  const int64_t nb = nL <= bs ? 1 : (nL + bs - 1) / bs;
  const int64_t count_ = (p0 == p1 ? 0 : nO * nb);
  if (!P[0] && 1 && (p0 == p1 ? 0 : nO * nL) > 262144) {
    lj_parallel(k1_loop, B, P, count_);
  } else {
    k1_loop(B, P, 0, count_);
  }
  return 0;
}

static int k2(void** restrict B, const int64_t* restrict P) {
  const float* pa = (const float*)B[1] + P[22];
  const float* pb = (const float*)B[2] + P[23];
  float* pc = (float*)B[3] + P[24];
  const int64_t M = P[25], N = P[26], K = P[27];
  const int64_t nB = 1;
  for (int64_t w = 0; w < nB; w++) {
    const int64_t oa = 0;
    const int64_t ob = 0;
    const int64_t oc = 0;
    if (K == 0) {
      for (int64_t i = 0; i < M * N; i++) pc[oc + i] = 0;
      continue;
    }
    if (lj_sgemm) {
      int prev = 0, small = lj_blas_threads && (P[0] || (double)M * N * K < 4194304.0);
      if (small) prev = lj_blas_threads(1);
      lj_sgemm(101, P[28], P[29], M, N, K, (float)lj_as_f64(P[30]), pa + oa, P[31], pb + ob, P[32], 0, pc + oc, N);
      if (small) lj_blas_threads(prev);
      continue;
    }
    #pragma omp parallel for if(!P[0] && M * N * K > 1048576) schedule(static)
    for (int64_t i = 0; i < M; i++)
      for (int64_t j = 0; j < N; j++) {
        float acc = 0;
        for (int64_t l = 0; l < K; l++)
          acc += (float)pa[oa + i * P[33] + l * P[34]] * (float)pb[ob + l * P[35] + j * P[36]];
        pc[oc + i * N + j] = (float)(acc);
      }
  }
  return 0;
}

static __attribute__((noinline)) void k3_loop(void** restrict B, const int64_t* restrict P, int64_t w0, int64_t w1) {
  float* p0 = (float*)B[4] + P[39];
  const float* p1 = (const float*)B[0] + P[41];
  const float* p2 = (const float*)B[3] + P[43];
  const int64_t nL = P[37], bs = P[44], nO = 1;
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
      const float v0 = (float)(L1);
      const float v1 = (float)(L2);
      const float v2 = (float)((v0 + v1));
      const float v3 = (float)(tanhf(v2));
      q0[k] = v3;
    }
    kb_ += bs;
    if (kb_ >= nL) { kb_ = 0; o_++; }
  }
}
static int k3(void** restrict B, const int64_t* restrict P) {
  float* p0 = (float*)B[4] + P[39];
  const float* p1 = (const float*)B[0] + P[41];
  const float* p2 = (const float*)B[3] + P[43];
  const int64_t nL = P[37], bs = P[44], nO = 1;
  const int64_t nb = nL <= bs ? 1 : (nL + bs - 1) / bs;
  const int64_t count_ = nO * nb;
  if (!P[0] && 1 && nO * nL > 1048576) {
    lj_parallel(k3_loop, B, P, count_);
  } else {
    int64_t o_ = 0, kb_ = 0;
    for (int64_t w = 0; w < count_; w++) {
      const int64_t o = o_, kb = kb_;
      const int64_t ke = kb + bs < nL ? kb + bs : nL;
      float* q0 = p0;
      const float* q1 = p1;
      const float* q2 = p2;
      #pragma omp simd
      for (int64_t k = kb; k < ke; k++) {
        const float L1 = q1[k];
        const float L2 = q2[k];
        const float v0 = (float)(L1);
        const float v1 = (float)(L2);
        const float v2 = (float)((v0 + v1));
        const float v3 = (float)(tanhf(v2));
        q0[k] = v3;
      }
      kb_ += bs;
      if (kb_ >= nL) { kb_ = 0; o_++; }
    }
  }
  return 0;
}

static int k4(void** restrict B, const int64_t* restrict P) {
  void* Bi[5];
  Bi[3] = B[7];
  const int64_t T = P[45];
  int e = 0;
  Bi[2] = (char*)B[3] + P[46];
  char* S0 = (char*)B[5]; const int64_t R0 = P[47];
  for (int64_t t = 0; t < T; t++) {
    const int64_t row = t;
    Bi[0] = (char*)B[4] + P[48] + row * P[49];
    Bi[1] = S0 + ((1 + t + (-1)) % 2) * R0;
    Bi[4] = S0 + ((1 + t) % 2) * R0;
    if ((e = k2(Bi, P))) return e;
    if ((e = k3(Bi, P))) return e;
  }
  for (int64_t r = 0; r < 1; r++)
    memcpy((char*)B[6] + r * R0, S0 + ((T + r) % 2) * R0, R0);
  (void)e;
  return 0;
}

int lj_run(void** B, const int64_t* P) {
  int e = 0;
  if ((e = k0(B, P))) return e;
  if ((e = k1(B, P))) return e;
  if ((e = k4(B, P))) return e;
  return e;
}
/* params:
   0, 0, 0, 0, 7, 4, 3, 111, 111, 4607182418800017408, 3, 4, 3, 1, 4, 1, 4, 1, 0, 1, 0, 4, 0, 0,
   0, 1, 4, 4, 111, 111, 4607182418800017408, 4, 4, 4, 1, 4, 1, 4, 1, 0, 1, 0, 1, 0, 4, 7, 0,
   16, 0, 16
*/
/* memory plan:
   blocks [0, 1, 2, 3]; bytes [112, 32, 16, 16]; donors {}; may fail False; messages 0
*/
