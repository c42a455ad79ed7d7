static __attribute__((noinline)) void k0_loop(void** restrict B, const int64_t* restrict P, int64_t w0, int64_t w1) {
  float* p0 = (float*)B[3] + P[3];
  const float* p1 = (const float*)B[1] + P[5];
  const int64_t nL = P[1], bs = P[6], nO = 1;
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
static int k0(void** restrict B, const int64_t* restrict P) {
  float* p0 = (float*)B[3] + P[3];
  const float* p1 = (const float*)B[1] + P[5];
  const int64_t nL = P[1], bs = P[6], nO = 1;
  const int64_t nb = nL <= bs ? 1 : (nL + bs - 1) / bs;
  const int64_t count_ = (p0 == p1 ? 0 : nO * nb);
  if (!P[0] && 1 && (p0 == p1 ? 0 : nO * nL) > 262144) {
    lj_parallel(k0_loop, B, P, count_);
  } else {
    k0_loop(B, P, 0, count_);
  }
  return 0;
}

static int k1(void** restrict B, const int64_t* restrict P) {
  const float* pa = (const float*)B[1] + P[7];
  const float* pb = (const float*)B[2] + P[8];
  float* pc = (float*)B[3] + P[9];
  const int64_t M = P[10], N = P[11], K = P[12];
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
      lj_sgemm(101, P[13], P[14], M, N, K, (float)lj_as_f64(P[15]), pa + oa, P[16], pb + ob, P[17], 0, pc + oc, N);
      if (small) lj_blas_threads(prev);
      continue;
    }
    #pragma omp parallel for if(!P[0] && M * N * K > 1048576) schedule(static)
    for (int64_t i = 0; i < M; i++)
      for (int64_t j = 0; j < N; j++) {
        float acc = 0;
        for (int64_t l = 0; l < K; l++)
          acc += (float)pa[oa + i * P[18] + l * P[19]] * (float)pb[ob + l * P[20] + j * P[21]];
        pc[oc + i * N + j] = (float)(acc);
      }
  }
  return 0;
}

static __attribute__((noinline)) void k2_loop(void** restrict B, const int64_t* restrict P, int64_t w0, int64_t w1) {
  float* p0 = (float*)B[4] + P[24];
  const float* p1 = (const float*)B[0] + P[26];
  const float* p2 = (const float*)B[3] + P[28];
  const int64_t nL = P[22], bs = P[29], nO = 1;
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
static int k2(void** restrict B, const int64_t* restrict P) {
  float* p0 = (float*)B[4] + P[24];
  const float* p1 = (const float*)B[0] + P[26];
  const float* p2 = (const float*)B[3] + P[28];
  const int64_t nL = P[22], bs = P[29], nO = 1;
  const int64_t nb = nL <= bs ? 1 : (nL + bs - 1) / bs;
  const int64_t count_ = nO * nb;
  if (!P[0] && 1 && nO * nL > 1048576) {
    lj_parallel(k2_loop, B, P, count_);
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

static int k3(void** restrict B, const int64_t* restrict P) {
  void* Bi[5];
  Bi[3] = B[4];
  const int64_t T = P[30];
  int e = 0;
  Bi[2] = (char*)B[2] + P[31];
  char* S0 = (char*)B[3]; const int64_t R0 = P[32];
  for (int64_t t = 0; t < T; t++) {
    const int64_t row = t;
    Bi[0] = (char*)B[0] + P[33] + row * P[34];
    Bi[1] = S0 + ((1 + t + (-1))) * R0;
    Bi[4] = S0 + ((1 + t)) * R0;
    if ((e = k1(Bi, P))) return e;
    if ((e = k2(Bi, P))) return e;
  }
  (void)e;
  return 0;
}

static __attribute__((noinline)) void k4_loop(void** restrict B, const int64_t* restrict P, int64_t w0, int64_t w1) {
  float* p0 = (float*)B[5] + P[37];
  const float* p1 = (const float*)B[2] + P[39];
  const int64_t nL = P[35], bs = P[40], nO = 1;
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
      const float v1 = (float)(v0);
      q0[k] = v1;
    }
    kb_ += bs;
    if (kb_ >= nL) { kb_ = 0; o_++; }
  }
}
static int k4(void** restrict B, const int64_t* restrict P) {
  float* p0 = (float*)B[5] + P[37];
  const float* p1 = (const float*)B[2] + P[39];
  const int64_t nL = P[35], bs = P[40], nO = 1;
  const int64_t nb = nL <= bs ? 1 : (nL + bs - 1) / bs;
  const int64_t count_ = nO * nb;
  if (!P[0] && 1 && nO * nL > 262144) {
    lj_parallel(k4_loop, B, P, count_);
  } else {
    k4_loop(B, P, 0, count_);
  }
  return 0;
}

static __attribute__((noinline)) void k5_loop(void** restrict B, const int64_t* restrict P, int64_t w0, int64_t w1) {
  float* p0 = (float*)B[6] + P[45];
  const float* p1 = (const float*)B[5] + P[48];
  const int64_t nL = P[42], bs = P[49], nO = P[41];
  const int64_t nb = nL <= bs ? 1 : (nL + bs - 1) / bs;
  int64_t o_ = 0, kb_ = 0;
  if (w0) { o_ = w0 / nb; kb_ = (w0 - o_ * nb) * bs; }
  for (int64_t w = w0; w < w1; w++) {
    const int64_t o = o_, kb = kb_;
    const int64_t ke = kb + bs < nL ? kb + bs : nL;
    int64_t r_ = o;
    const int64_t i0 = r_;
    float* q0 = p0 + i0 * P[43];
    const float* q1 = p1 + i0 * P[46];
    #pragma omp simd
    for (int64_t k = kb; k < ke; k++) {
      const float L1 = q1[k * P[47]];
      const float v0 = (float)(L1);
      q0[k] = v0;
    }
    kb_ += bs;
    if (kb_ >= nL) { kb_ = 0; o_++; }
  }
}
static int k5(void** restrict B, const int64_t* restrict P) {
  float* p0 = (float*)B[6] + P[45];
  const float* p1 = (const float*)B[5] + P[48];
  const int64_t nL = P[42], bs = P[49], nO = P[41];
  const int64_t nb = nL <= bs ? 1 : (nL + bs - 1) / bs;
  const int64_t count_ = nO * nb;
  if (!P[0] && 1 && nO * nL > 262144) {
    lj_parallel(k5_loop, B, P, count_);
  } else {
    k5_loop(B, P, 0, count_);
  }
  return 0;
}

static __attribute__((noinline)) void k6_loop(void** restrict B, const int64_t* restrict P, int64_t w0, int64_t w1) {
  float* p0 = (float*)B[7] + P[52];
  const int64_t nL = P[50], bs = P[54], nO = 1;
  const int64_t nb = nL <= bs ? 1 : (nL + bs - 1) / bs;
  int64_t o_ = 0, kb_ = 0;
  if (w0) { o_ = w0 / nb; kb_ = (w0 - o_ * nb) * bs; }
  for (int64_t w = w0; w < w1; w++) {
    const int64_t o = o_, kb = kb_;
    const int64_t ke = kb + bs < nL ? kb + bs : nL;
    float* q0 = p0;
    #pragma omp simd
    for (int64_t k = kb; k < ke; k++) {
      const float v0 = (float)((float)lj_as_f64(P[53]));
      q0[k] = v0;
    }
    kb_ += bs;
    if (kb_ >= nL) { kb_ = 0; o_++; }
  }
}
static int k6(void** restrict B, const int64_t* restrict P) {
  float* p0 = (float*)B[7] + P[52];
  const int64_t nL = P[50], bs = P[54], nO = 1;
  const int64_t nb = nL <= bs ? 1 : (nL + bs - 1) / bs;
  const int64_t count_ = nO * nb;
  if (!P[0] && 1 && nO * nL > 262144) {
    lj_parallel(k6_loop, B, P, count_);
  } else {
    k6_loop(B, P, 0, count_);
  }
  return 0;
}

static __attribute__((noinline)) void k7_loop(void** restrict B, const int64_t* restrict P, int64_t w0, int64_t w1) {
  float* p0 = (float*)B[4] + P[57];
  const float* p1 = (const float*)B[1] + P[59];
  const float* p2 = (const float*)B[2] + P[61];
  const int64_t nL = P[55], bs = P[63], nO = 1;
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
      const float v2 = (float)((v1 + v1));
      const float v3 = (float)((v0 + v2));
      const float v4 = (float)((float)lj_as_f64(P[62]));
      const float v5 = (float)((v1 * v1));
      const float v6 = (float)((v4 - v5));
      const float v7 = (float)((v3 * v6));
      q0[k] = v7;
    }
    kb_ += bs;
    if (kb_ >= nL) { kb_ = 0; o_++; }
  }
}
static int k7(void** restrict B, const int64_t* restrict P) {
  float* p0 = (float*)B[4] + P[57];
  const float* p1 = (const float*)B[1] + P[59];
  const float* p2 = (const float*)B[2] + P[61];
  const int64_t nL = P[55], bs = P[63], nO = 1;
  const int64_t nb = nL <= bs ? 1 : (nL + bs - 1) / bs;
  const int64_t count_ = nO * nb;
  if (!P[0] && 1 && nO * nL > 1048576) {
    lj_parallel(k7_loop, B, P, count_);
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
        const float v0 = (float)(L2);
        const float v1 = (float)(L1);
        const float v2 = (float)((v1 + v1));
        const float v3 = (float)((v0 + v2));
        const float v4 = (float)((float)lj_as_f64(P[62]));
        const float v5 = (float)((v1 * v1));
        const float v6 = (float)((v4 - v5));
        const float v7 = (float)((v3 * v6));
        q0[k] = v7;
      }
      kb_ += bs;
      if (kb_ >= nL) { kb_ = 0; o_++; }
    }
  }
  return 0;
}

static int k8(void** restrict B, const int64_t* restrict P) {
  const float* pa = (const float*)B[4] + P[64];
  const float* pb = (const float*)B[3] + P[65];
  float* pc = (float*)B[5] + P[66];
  const int64_t M = P[67], N = P[68], K = P[69];
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
      lj_sgemm(101, P[70], P[71], M, N, K, (float)lj_as_f64(P[72]), pa + oa, P[73], pb + ob, P[74], 0, pc + oc, N);
      if (small) lj_blas_threads(prev);
      continue;
    }
    #pragma omp parallel for if(!P[0] && M * N * K > 1048576) schedule(static)
    for (int64_t i = 0; i < M; i++)
      for (int64_t j = 0; j < N; j++) {
        float acc = 0;
        for (int64_t l = 0; l < K; l++)
          acc += (float)pa[oa + i * P[75] + l * P[76]] * (float)pb[ob + l * P[77] + j * P[78]];
        pc[oc + i * N + j] = (float)(acc);
      }
  }
  return 0;
}

static __attribute__((noinline)) void k9_loop(void** restrict B, const int64_t* restrict P, int64_t w0, int64_t w1) {
  float* p0 = (float*)B[6] + P[81];
  const float* p1 = (const float*)B[4] + P[83];
  const int64_t nL = P[79], bs = P[84], nO = 1;
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
static int k9(void** restrict B, const int64_t* restrict P) {
  float* p0 = (float*)B[6] + P[81];
  const float* p1 = (const float*)B[4] + P[83];
  const int64_t nL = P[79], bs = P[84], nO = 1;
  const int64_t nb = nL <= bs ? 1 : (nL + bs - 1) / bs;
  const int64_t count_ = (p0 == p1 ? 0 : nO * nb);
  if (!P[0] && 1 && (p0 == p1 ? 0 : nO * nL) > 1048576) {
    lj_parallel(k9_loop, B, P, count_);
  } else {
    int64_t o_ = 0, kb_ = 0;
    for (int64_t w = 0; w < count_; w++) {
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
  return 0;
}

static __attribute__((noinline)) void k10_loop(void** restrict B, const int64_t* restrict P, int64_t w0, int64_t w1) {
  float* p0 = (float*)B[7] + P[87];
  const float* p1 = (const float*)B[0] + P[89];
  const int64_t nL = P[85], bs = P[90], nO = 1;
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
static int k10(void** restrict B, const int64_t* restrict P) {
  float* p0 = (float*)B[7] + P[87];
  const float* p1 = (const float*)B[0] + P[89];
  const int64_t nL = P[85], bs = P[90], nO = 1;
  const int64_t nb = nL <= bs ? 1 : (nL + bs - 1) / bs;
  const int64_t count_ = (p0 == p1 ? 0 : nO * nb);
  if (!P[0] && 1 && (p0 == p1 ? 0 : nO * nL) > 1048576) {
    lj_parallel(k10_loop, B, P, count_);
  } else {
    int64_t o_ = 0, kb_ = 0;
    for (int64_t w = 0; w < count_; w++) {
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
  return 0;
}

static int k11(void** restrict B, const int64_t* restrict P) {
  void* Bi[8];
  const int64_t T = P[91];
  int e = 0;
  Bi[3] = (char*)B[6] + P[92];
  char* S0 = (char*)B[7]; const int64_t R0 = P[93];
  char* Q0 = (char*)B[9]; const int64_t RQ0 = P[94];
  char* Q1 = (char*)B[10]; const int64_t RQ1 = P[95];
  char* Q2 = (char*)B[11]; const int64_t RQ2 = P[96];
  for (int64_t t = 0; t < T; t++) {
    const int64_t row = T - 1 - t;
    Bi[0] = (char*)B[3] + P[97] + row * P[98];
    Bi[1] = (char*)B[3] + P[99] + row * P[100];
    Bi[2] = S0 + ((1 + t + (-1)) % 2) * R0;
    Bi[5] = S0 + ((1 + t) % 2) * R0;
    Bi[4] = Q0 + row * RQ0;
    Bi[6] = Q1 + row * RQ1;
    Bi[7] = Q2 + row * RQ2;
    if ((e = k7(Bi, P))) return e;
    if ((e = k8(Bi, P))) return e;
    if ((e = k9(Bi, P))) return e;
    if ((e = k10(Bi, P))) return e;
  }
  for (int64_t r = 0; r < 1; r++)
    memcpy((char*)B[8] + r * R0, S0 + ((T + r) % 2) * R0, R0);
  (void)e;
  return 0;
}

static int k12(void** restrict B, const int64_t* restrict P) {
  const float* pa = (const float*)B[11] + P[101];
  const float* pb = (const float*)B[10] + P[102];
  float* pc = (float*)B[12] + P[103];
  const int64_t M = P[104], N = P[105], K = P[106];
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
      lj_sgemm(101, P[107], P[108], M, N, K, (float)lj_as_f64(P[109]), pa + oa, P[110], pb + ob, P[111], 0, pc + oc, N);
      if (small) lj_blas_threads(prev);
      continue;
    }
    #pragma omp parallel for if(!P[0] && M * N * K > 262144) schedule(static)
    for (int64_t i = 0; i < M; i++)
      for (int64_t j = 0; j < N; j++) {
        float acc = 0;
        for (int64_t l = 0; l < K; l++)
          acc += (float)pa[oa + i * P[112] + l * P[113]] * (float)pb[ob + l * P[114] + j * P[115]];
        pc[oc + i * N + j] = (float)(acc);
      }
  }
  return 0;
}

int lj_run(void** B, const int64_t* P) {
  int e = 0;
  if ((e = k0(B, P))) return e;
  if ((e = k3(B, P))) return e;
  if ((e = k4(B, P))) return e;
  if ((e = k5(B, P))) return e;
  if ((e = k6(B, P))) return e;
  if ((e = k11(B, P))) return e;
  if ((e = k12(B, P))) return e;
  return e;
}
/* params:
   0, 3, 1, 0, 1, 0, 3, 0, 0, 0, 1, 3, 3, 111, 111, 4607182418800017408, 3, 3, 3, 1, 3, 1, 3, 1,
   0, 1, 0, 1, 0, 3, 5, 0, 12, 0, 12, 9, 1, 0, 1, 0, 9, 3, 3, 3, 1, 0, 1, 3, 0, 3, 3, 1, 0, 0,
   3, 3, 1, 0, 1, 0, 1, 0, 4607182418800017408, 3, 0, 0, 0, 1, 3, 3, 111, 111,
   4607182418800017408, 3, 3, 3, 1, 3, 1, 3, 1, 0, 1, 0, 3, 3, 1, 0, 1, 0, 3, 5, 0, 12, 12, 12,
   12, 0, 12, 12, 12, 0, 0, 0, 3, 3, 5, 112, 111, 4607182418800017408, 3, 3, 1, 3, 3, 1
*/
/* memory plan:
   blocks [0, 1, 2, 3, 2, 1, 4, 5, 6, 7]; bytes [72, 12, 36, 36, 60, 60, 60, 36]; donors {}; may
   fail False; messages 0
*/
