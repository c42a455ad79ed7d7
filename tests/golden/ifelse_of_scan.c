static int k0(void** restrict B, const int64_t* restrict P) {
  float* p0 = (float*)B[2] + P[3];
  const float* p1 = (const float*)B[0] + P[5];
  const int64_t nL = P[1];
  float acc = 0.0f;
  float* q0 = p0;
  const float* q1 = p1;
  #pragma omp parallel for if(!P[0] && nL > 262144) reduction(+:acc)
  for (int64_t kb = 0; kb < nL; kb += 4096) {
    const int64_t ke = kb + 4096 < nL ? kb + 4096 : nL;
    float part = 0.0f;
    #pragma omp simd reduction(+:part)
    for (int64_t k = kb; k < ke; k++) {
      const float L1 = q1[k];
      const float v0 = (float)(L1);
      part = (part + v0);
    }
    acc = (acc + part);
  }
  p0[0] = acc;
  return 0;
}

static __attribute__((noinline)) void k1_loop(void** restrict B, const int64_t* restrict P, int64_t w0, int64_t w1) {
  uint8_t* p0 = (uint8_t*)B[3] + P[8];
  const float* p1 = (const float*)B[2] + P[10];
  const int64_t nL = P[6], bs = P[12], nO = 1;
  const int64_t nb = nL <= bs ? 1 : (nL + bs - 1) / bs;
  int64_t o_ = 0, kb_ = 0;
  if (w0) { o_ = w0 / nb; kb_ = (w0 - o_ * nb) * bs; }
  for (int64_t w = w0; w < w1; w++) {
    const int64_t o = o_, kb = kb_;
    const int64_t ke = kb + bs < nL ? kb + bs : nL;
    uint8_t* q0 = p0;
    const float* q1 = p1;
    #pragma omp simd
    for (int64_t k = kb; k < ke; k++) {
      const float L1 = q1[0];
      const float v0 = (float)(L1);
      const float v1 = (float)((float)lj_as_f64(P[11]));
      const uint8_t v2 = (uint8_t)((v0 > v1));
      q0[0] = v2;
    }
    kb_ += bs;
    if (kb_ >= nL) { kb_ = 0; o_++; }
  }
}
static int k1(void** restrict B, const int64_t* restrict P) {
  uint8_t* p0 = (uint8_t*)B[3] + P[8];
  const float* p1 = (const float*)B[2] + P[10];
  const int64_t nL = P[6], bs = P[12], nO = 1;
  const int64_t nb = nL <= bs ? 1 : (nL + bs - 1) / bs;
  const int64_t count_ = nO * nb;
  if (!P[0] && 1 && nO * nL > 262144) {
    lj_parallel(k1_loop, B, P, count_);
  } else {
    k1_loop(B, P, 0, count_);
  }
  return 0;
}

static __attribute__((noinline)) void k2_loop(void** restrict B, const int64_t* restrict P, int64_t w0, int64_t w1) {
  float* p0 = (float*)B[5] + P[15];
  const float* p1 = (const float*)B[0] + P[17];
  const int64_t nL = P[13], bs = P[18], nO = 1;
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
static int k2(void** restrict B, const int64_t* restrict P) {
  float* p0 = (float*)B[5] + P[15];
  const float* p1 = (const float*)B[0] + P[17];
  const int64_t nL = P[13], bs = P[18], nO = 1;
  const int64_t nb = nL <= bs ? 1 : (nL + bs - 1) / bs;
  const int64_t count_ = (p0 == p1 ? 0 : nO * nb);
  if (!P[0] && 1 && (p0 == p1 ? 0 : nO * nL) > 262144) {
    lj_parallel(k2_loop, B, P, count_);
  } else {
    k2_loop(B, P, 0, count_);
  }
  return 0;
}

static __attribute__((noinline)) void k3_loop(void** restrict B, const int64_t* restrict P, int64_t w0, int64_t w1) {
  float* p0 = (float*)B[2] + P[21];
  const float* p1 = (const float*)B[1] + P[23];
  const float* p2 = (const float*)B[0] + P[25];
  const int64_t nL = P[19], bs = P[27], nO = 1;
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
      const float v2 = (float)((v0 * v1));
      const float v3 = (float)((float)lj_as_f64(P[26]));
      const float v4 = (float)((v2 + v3));
      q0[k] = v4;
    }
    kb_ += bs;
    if (kb_ >= nL) { kb_ = 0; o_++; }
  }
}
static int k3(void** restrict B, const int64_t* restrict P) {
  float* p0 = (float*)B[2] + P[21];
  const float* p1 = (const float*)B[1] + P[23];
  const float* p2 = (const float*)B[0] + P[25];
  const int64_t nL = P[19], bs = P[27], nO = 1;
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
        const float v2 = (float)((v0 * v1));
        const float v3 = (float)((float)lj_as_f64(P[26]));
        const float v4 = (float)((v2 + v3));
        q0[k] = v4;
      }
      kb_ += bs;
      if (kb_ >= nL) { kb_ = 0; o_++; }
    }
  }
  return 0;
}

static int k4(void** restrict B, const int64_t* restrict P) {
  void* Bi[3];
  const int64_t T = P[28];
  int e = 0;
  char* S0 = (char*)B[5]; const int64_t R0 = P[29];
  for (int64_t t = 0; t < T; t++) {
    const int64_t row = t;
    Bi[0] = (char*)B[1] + P[30] + row * P[31];
    Bi[1] = S0 + ((1 + t + (-1)) % 2) * R0;
    Bi[2] = S0 + ((1 + t) % 2) * R0;
    if ((e = k3(Bi, P))) return e;
  }
  for (int64_t r = 0; r < 1; r++)
    memcpy((char*)B[6] + r * R0, S0 + ((T + r) % 2) * R0, R0);
  (void)e;
  return 0;
}

static __attribute__((noinline)) void k5_loop(void** restrict B, const int64_t* restrict P, int64_t w0, int64_t w1) {
  float* p0 = (float*)B[4] + P[34];
  const float* p1 = (const float*)B[6] + P[36];
  const int64_t nL = P[32], bs = P[37], nO = 1;
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
static int k5(void** restrict B, const int64_t* restrict P) {
  float* p0 = (float*)B[4] + P[34];
  const float* p1 = (const float*)B[6] + P[36];
  const int64_t nL = P[32], bs = P[37], nO = 1;
  const int64_t nb = nL <= bs ? 1 : (nL + bs - 1) / bs;
  const int64_t count_ = (p0 == p1 ? 0 : nO * nb);
  if (!P[0] && 1 && (p0 == p1 ? 0 : nO * nL) > 262144) {
    lj_parallel(k5_loop, B, P, count_);
  } else {
    k5_loop(B, P, 0, count_);
  }
  return 0;
}

static __attribute__((noinline)) void k6_loop(void** restrict B, const int64_t* restrict P, int64_t w0, int64_t w1) {
  float* p0 = (float*)B[4] + P[40];
  const float* p1 = (const float*)B[0] + P[42];
  const int64_t nL = P[38], bs = P[43], nO = 1;
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
static int k6(void** restrict B, const int64_t* restrict P) {
  float* p0 = (float*)B[4] + P[40];
  const float* p1 = (const float*)B[0] + P[42];
  const int64_t nL = P[38], bs = P[43], nO = 1;
  const int64_t nb = nL <= bs ? 1 : (nL + bs - 1) / bs;
  const int64_t count_ = (p0 == p1 ? 0 : nO * nb);
  if (!P[0] && 1 && (p0 == p1 ? 0 : nO * nL) > 262144) {
    lj_parallel(k6_loop, B, P, count_);
  } else {
    k6_loop(B, P, 0, count_);
  }
  return 0;
}

static int k7(void** restrict B, const int64_t* restrict P) {
  int e = 0;
  if (*((const uint8_t*)B[3] + P[44])) {
    if ((e = k2(B, P))) return e;
    if ((e = k4(B, P))) return e;
    if ((e = k5(B, P))) return e;
  } else {
    if ((e = k6(B, P))) return e;
  }
  (void)e;
  return 0;
}

int lj_run(void** B, const int64_t* P) {
  int e = 0;
  if ((e = k0(B, P))) return e;
  if ((e = k1(B, P))) return e;
  if ((e = k7(B, P))) return e;
  return e;
}
/* params:
   0, 3, 0, 0, 1, 0, 1, 0, 0, 0, 0, 0, 1, 3, 1, 0, 1, 0, 3, 3, 1, 0, 1, 0, 1, 0,
   4607182418800017408, 3, 4, 12, 0, 12, 3, 1, 0, 1, 0, 3, 3, 1, 0, 1, 0, 3, 0
*/
/* memory plan:
   blocks [0, 1, 2, 3, 4]; bytes [4, 1, 12, 24, 12]; donors {}; may fail False; messages 0
*/
