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
      q0[k] = v0;
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
  const int64_t count_ = (p0 == p1 ? 0 : nO * nb);
  if (!P[0] && 1 && (p0 == p1 ? 0 : nO * nL) > 262144) {
    lj_parallel(k0_loop, B, P, Q, count_);
  } else {
    k0_loop(B, P, Q, 0, count_);
  }
  return 0;
}

LJ_KERNEL int k1(void** restrict B, const int64_t* restrict P, const int64_t* restrict Q) {
  const float* pa = (const float*)B[1] + Q[0];
  const float* pb = (const float*)B[2] + Q[1];
  float* pc = (float*)B[3] + Q[2];
  const int64_t M = Q[3], N = Q[4], K = Q[5];
  const int64_t nB = 1;
  for (int64_t w = 0; w < nB; w++) {
    const int64_t oa = 0;
    const int64_t ob = 0;
    const int64_t oc = 0;
    if (K == 0) {
      for (int64_t i = 0; i < M * N; i++) pc[oc + i] = 0;
      continue;
    }
    int prev = 0, small = lj_blas_threads && (P[0] || (double)M * N * K < 1048576.0);
    if (small) prev = lj_blas_threads(1);
    lj_sgemm(101, Q[6], Q[7], M, N, K, (float)lj_as_f64(Q[8]), pa + oa, Q[9], pb + ob, Q[10], 0, pc + oc, N);
    if (small) lj_blas_threads(prev);
  }
  return 0;
}

static __attribute__((noinline)) void k2_loop(void** restrict B, const int64_t* restrict P, const int64_t* restrict Q, int64_t w0, int64_t w1) {
  float* p0 = (float*)B[4] + Q[2];
  const float* p1 = (const float*)B[0] + Q[4];
  const float* p2 = (const float*)B[3] + Q[6];
  const int64_t nL = Q[0], bs = Q[7], nO = 1;
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
LJ_KERNEL int k2(void** restrict B, const int64_t* restrict P, const int64_t* restrict Q) {
  float* p0 = (float*)B[4] + Q[2];
  const float* p1 = (const float*)B[0] + Q[4];
  const float* p2 = (const float*)B[3] + Q[6];
  const int64_t nL = Q[0], bs = Q[7], nO = 1;
  const int64_t nb = nL <= bs ? 1 : (nL + bs - 1) / bs;
  const int64_t count_ = nO * nb;
  if (!P[0] && 1 && nO * nL > 1048576) {
    lj_parallel(k2_loop, B, P, Q, count_);
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

LJ_KERNEL int k3(void** restrict B, const int64_t* restrict P, const int64_t* restrict Q) {
  void* Bi[5];
  Bi[3] = B[Q[5]];
  const int64_t T = Q[0];
  int e = 0;
  Bi[2] = (char*)B[Q[6]] + Q[1];
  char* S0 = (char*)B[Q[7]]; const int64_t R0 = Q[2];
  for (int64_t t = 0; t < T; t++) {
    const int64_t row = t;
    Bi[0] = (char*)B[Q[8]] + Q[3] + row * Q[4];
    Bi[1] = S0 + ((1 + t + (-1))) * R0;
    Bi[4] = S0 + ((1 + t)) * R0;
    if ((e = k1(Bi, P, P + 9))) return e;
    if ((e = k2(Bi, P, P + 20))) return e;
  }
  (void)e;
  return 0;
}

static __attribute__((noinline)) void k4_loop(void** restrict B, const int64_t* restrict P, const int64_t* restrict Q, int64_t w0, int64_t w1) {
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
      const float L1 = q1[k * Q[6]];
      const float v0 = (float)(L1);
      q0[k] = v0;
    }
    kb_ += bs;
    if (kb_ >= nL) { kb_ = 0; o_++; }
  }
}
LJ_KERNEL int k4(void** restrict B, const int64_t* restrict P, const int64_t* restrict Q) {
  float* p0 = (float*)B[Q[9]] + Q[4];
  const float* p1 = (const float*)B[Q[10]] + Q[7];
  const int64_t nL = Q[1], bs = Q[8], nO = Q[0];
  const int64_t nb = nL <= bs ? 1 : (nL + bs - 1) / bs;
  const int64_t count_ = nO * nb;
  if (!P[0] && 1 && nO * nL > 262144) {
    lj_parallel(k4_loop, B, P, Q, count_);
  } else {
    k4_loop(B, P, Q, 0, count_);
  }
  return 0;
}

static __attribute__((noinline)) void k5_loop(void** restrict B, const int64_t* restrict P, const int64_t* restrict Q, int64_t w0, int64_t w1) {
  float* p0 = (float*)B[Q[5]] + Q[2];
  const int64_t nL = Q[0], bs = Q[4], nO = 1;
  const int64_t nb = nL <= bs ? 1 : (nL + bs - 1) / bs;
  int64_t o_ = 0, kb_ = 0;
  if (w0) { o_ = w0 / nb; kb_ = (w0 - o_ * nb) * bs; }
  for (int64_t w = w0; w < w1; w++) {
    const int64_t o = o_, kb = kb_;
    const int64_t ke = kb + bs < nL ? kb + bs : nL;
    float* q0 = p0;
    #pragma omp simd
    for (int64_t k = kb; k < ke; k++) {
      const float v0 = (float)((float)lj_as_f64(Q[3]));
      q0[k] = v0;
    }
    kb_ += bs;
    if (kb_ >= nL) { kb_ = 0; o_++; }
  }
}
LJ_KERNEL int k5(void** restrict B, const int64_t* restrict P, const int64_t* restrict Q) {
  float* p0 = (float*)B[Q[5]] + Q[2];
  const int64_t nL = Q[0], bs = Q[4], nO = 1;
  const int64_t nb = nL <= bs ? 1 : (nL + bs - 1) / bs;
  const int64_t count_ = nO * nb;
  if (!P[0] && 1 && nO * nL > 262144) {
    lj_parallel(k5_loop, B, P, Q, count_);
  } else {
    k5_loop(B, P, Q, 0, count_);
  }
  return 0;
}

static __attribute__((noinline)) void k6_loop(void** restrict B, const int64_t* restrict P, const int64_t* restrict Q, int64_t w0, int64_t w1) {
  float* p0 = (float*)B[4] + Q[2];
  const float* p1 = (const float*)B[1] + Q[4];
  const float* p2 = (const float*)B[2] + Q[6];
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
      const float v2 = (float)((v1 + v1));
      const float v3 = (float)((v0 + v2));
      const float v4 = (float)((float)lj_as_f64(Q[7]));
      const float v5 = (float)((v1 * v1));
      const float v6 = (float)((v4 - v5));
      const float v7 = (float)((v3 * v6));
      q0[k] = v7;
    }
    kb_ += bs;
    if (kb_ >= nL) { kb_ = 0; o_++; }
  }
}
LJ_KERNEL int k6(void** restrict B, const int64_t* restrict P, const int64_t* restrict Q) {
  float* p0 = (float*)B[4] + Q[2];
  const float* p1 = (const float*)B[1] + Q[4];
  const float* p2 = (const float*)B[2] + Q[6];
  const int64_t nL = Q[0], bs = Q[8], nO = 1;
  const int64_t nb = nL <= bs ? 1 : (nL + bs - 1) / bs;
  const int64_t count_ = nO * nb;
  if (!P[0] && 1 && nO * nL > 1048576) {
    lj_parallel(k6_loop, B, P, Q, count_);
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
        const float v4 = (float)((float)lj_as_f64(Q[7]));
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

LJ_KERNEL int k7(void** restrict B, const int64_t* restrict P, const int64_t* restrict Q) {
  const float* pa = (const float*)B[4] + Q[0];
  const float* pb = (const float*)B[3] + Q[1];
  float* pc = (float*)B[5] + Q[2];
  const int64_t M = Q[3], N = Q[4], K = Q[5];
  const int64_t nB = 1;
  for (int64_t w = 0; w < nB; w++) {
    const int64_t oa = 0;
    const int64_t ob = 0;
    const int64_t oc = 0;
    if (K == 0) {
      for (int64_t i = 0; i < M * N; i++) pc[oc + i] = 0;
      continue;
    }
    int prev = 0, small = lj_blas_threads && (P[0] || (double)M * N * K < 1048576.0);
    if (small) prev = lj_blas_threads(1);
    lj_sgemm(101, Q[6], Q[7], M, N, K, (float)lj_as_f64(Q[8]), pa + oa, Q[9], pb + ob, Q[10], 0, pc + oc, N);
    if (small) lj_blas_threads(prev);
  }
  return 0;
}

static __attribute__((noinline)) void k8_loop(void** restrict B, const int64_t* restrict P, const int64_t* restrict Q, int64_t w0, int64_t w1) {
  float* p0 = (float*)B[6] + Q[2];
  const float* p1 = (const float*)B[4] + Q[4];
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
      q0[k] = v0;
    }
    kb_ += bs;
    if (kb_ >= nL) { kb_ = 0; o_++; }
  }
}
LJ_KERNEL int k8(void** restrict B, const int64_t* restrict P, const int64_t* restrict Q) {
  float* p0 = (float*)B[6] + Q[2];
  const float* p1 = (const float*)B[4] + Q[4];
  const int64_t nL = Q[0], bs = Q[5], nO = 1;
  const int64_t nb = nL <= bs ? 1 : (nL + bs - 1) / bs;
  const int64_t count_ = (p0 == p1 ? 0 : nO * nb);
  if (!P[0] && 1 && (p0 == p1 ? 0 : nO * nL) > 1048576) {
    lj_parallel(k8_loop, B, P, Q, count_);
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

static __attribute__((noinline)) void k9_loop(void** restrict B, const int64_t* restrict P, const int64_t* restrict Q, int64_t w0, int64_t w1) {
  float* p0 = (float*)B[7] + Q[2];
  const float* p1 = (const float*)B[0] + Q[4];
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
      q0[k] = v0;
    }
    kb_ += bs;
    if (kb_ >= nL) { kb_ = 0; o_++; }
  }
}
LJ_KERNEL int k9(void** restrict B, const int64_t* restrict P, const int64_t* restrict Q) {
  float* p0 = (float*)B[7] + Q[2];
  const float* p1 = (const float*)B[0] + Q[4];
  const int64_t nL = Q[0], bs = Q[5], nO = 1;
  const int64_t nb = nL <= bs ? 1 : (nL + bs - 1) / bs;
  const int64_t count_ = (p0 == p1 ? 0 : nO * nb);
  if (!P[0] && 1 && (p0 == p1 ? 0 : nO * nL) > 1048576) {
    lj_parallel(k9_loop, B, P, Q, count_);
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

LJ_KERNEL int k10(void** restrict B, const int64_t* restrict P, const int64_t* restrict Q) {
  void* Bi[8];
  const int64_t T = Q[0];
  int e = 0;
  Bi[3] = (char*)B[Q[10]] + Q[1];
  char* S0 = (char*)B[Q[11]]; const int64_t R0 = Q[2];
  char* Q0 = (char*)B[Q[12]]; const int64_t RQ0 = Q[3];
  char* Q1 = (char*)B[Q[13]]; const int64_t RQ1 = Q[4];
  char* Q2 = (char*)B[Q[14]]; const int64_t RQ2 = Q[5];
  for (int64_t t = 0; t < T; t++) {
    const int64_t row = T - 1 - t;
    Bi[0] = (char*)B[Q[15]] + Q[6] + row * Q[7];
    Bi[1] = (char*)B[Q[15]] + Q[8] + row * Q[9];
    Bi[2] = S0 + ((1 + t + (-1)) % 2) * R0;
    Bi[5] = S0 + ((1 + t) % 2) * R0;
    Bi[4] = Q0 + row * RQ0;
    Bi[6] = Q1 + row * RQ1;
    Bi[7] = Q2 + row * RQ2;
    if ((e = k6(Bi, P, P + 54))) return e;
    if ((e = k7(Bi, P, P + 63))) return e;
    if ((e = k8(Bi, P, P + 74))) return e;
    if ((e = k9(Bi, P, P + 80))) return e;
  }
  for (int64_t r = 0; r < 1; r++)
    memcpy((char*)B[Q[16]] + r * R0, S0 + ((T + r) % 2) * R0, R0);
  (void)e;
  return 0;
}

LJ_KERNEL int k11(void** restrict B, const int64_t* restrict P, const int64_t* restrict Q) {
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
      for (int64_t i = 0; i < M * N; i++) pc[oc + i] = 0;
      continue;
    }
    int prev = 0, small = lj_blas_threads && (P[0] || (double)M * N * K < 1048576.0);
    if (small) prev = lj_blas_threads(1);
    lj_sgemm(101, Q[6], Q[7], M, N, K, (float)lj_as_f64(Q[8]), pa + oa, Q[9], pb + ob, Q[10], 0, pc + oc, N);
    if (small) lj_blas_threads(prev);
  }
  return 0;
}

int lj_run(void** B, const int64_t* P) {
  int e = 0;
  if ((e = k0(B, P, P + 1))) return e;
  if ((e = k3(B, P, P + 28))) return e;
  if ((e = k4(B, P, P + 37))) return e;
  if ((e = k5(B, P, P + 48))) return e;
  if ((e = k10(B, P, P + 86))) return e;
  if ((e = k11(B, P, P + 103))) return e;
  return e;
}
/* params:
   0, 3, 1, 0, 1, 0, 3, 3, 1, 0, 0, 0, 1, 3, 3, 111, 111, 4607182418800017408, 3, 3, 3, 1, 0, 1,
   0, 1, 0, 3, 5, 0, 12, 0, 12, 4, 2, 3, 0, 3, 3, 3, 1, 0, 1, 3, 0, 3, 5, 2, 3, 1, 0, 0, 3, 6,
   3, 1, 0, 1, 0, 1, 0, 4607182418800017408, 3, 0, 0, 0, 1, 3, 3, 111, 111, 4607182418800017408,
   3, 3, 3, 1, 0, 1, 0, 3, 3, 1, 0, 1, 0, 3, 5, 0, 12, 12, 12, 12, 0, 12, 12, 12, 5, 6, 8, 9,
   10, 3, 7, 0, 0, 0, 3, 3, 5, 112, 111, 4607182418800017408, 3, 3, 10, 9, 11
*/
/* memory plan:
   blocks [0, 1, 2, 3, 1, 4, 5, 6, 7]; bytes [72, 12, 36, 24, 60, 60, 60, 36]; donors {}; may
   fail False; messages 0
*/
