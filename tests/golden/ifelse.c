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
  const int64_t nL = P[13], bs = P[19], nO = 1;
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
      const float v1 = (float)((float)lj_as_f64(P[18]));
      const float v2 = (float)((v0 * v1));
      q0[k] = v2;
    }
    kb_ += bs;
    if (kb_ >= nL) { kb_ = 0; o_++; }
  }
}
static int k2(void** restrict B, const int64_t* restrict P) {
  float* p0 = (float*)B[5] + P[15];
  const float* p1 = (const float*)B[0] + P[17];
  const int64_t nL = P[13], bs = P[19], nO = 1;
  const int64_t nb = nL <= bs ? 1 : (nL + bs - 1) / bs;
  const int64_t count_ = nO * nb;
  if (!P[0] && 1 && nO * nL > 262144) {
    lj_parallel(k2_loop, B, P, count_);
  } else {
    k2_loop(B, P, 0, count_);
  }
  return 0;
}

static __attribute__((noinline)) void k3_loop(void** restrict B, const int64_t* restrict P, int64_t w0, int64_t w1) {
  float* p0 = (float*)B[4] + P[22];
  const float* p1 = (const float*)B[5] + P[24];
  const int64_t nL = P[20], bs = P[25], nO = 1;
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
static int k3(void** restrict B, const int64_t* restrict P) {
  float* p0 = (float*)B[4] + P[22];
  const float* p1 = (const float*)B[5] + P[24];
  const int64_t nL = P[20], bs = P[25], nO = 1;
  const int64_t nb = nL <= bs ? 1 : (nL + bs - 1) / bs;
  const int64_t count_ = (p0 == p1 ? 0 : nO * nb);
  if (!P[0] && 1 && (p0 == p1 ? 0 : nO * nL) > 262144) {
    lj_parallel(k3_loop, B, P, count_);
  } else {
    k3_loop(B, P, 0, count_);
  }
  return 0;
}

static __attribute__((noinline)) void k4_loop(void** restrict B, const int64_t* restrict P, int64_t w0, int64_t w1) {
  float* p0 = (float*)B[6] + P[28];
  const float* p1 = (const float*)B[1] + P[30];
  const int64_t nL = P[26], bs = P[31], nO = 1;
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
      const float v1 = (float)(expf(v0));
      q0[k] = v1;
    }
    kb_ += bs;
    if (kb_ >= nL) { kb_ = 0; o_++; }
  }
}
static int k4(void** restrict B, const int64_t* restrict P) {
  float* p0 = (float*)B[6] + P[28];
  const float* p1 = (const float*)B[1] + P[30];
  const int64_t nL = P[26], bs = P[31], nO = 1;
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

static int k6(void** restrict B, const int64_t* restrict P) {
  int e = 0;
  if (*((const uint8_t*)B[3] + P[38])) {
    if ((e = k2(B, P))) return e;
    if ((e = k3(B, P))) return e;
  } else {
    if ((e = k4(B, P))) return e;
    if ((e = k5(B, P))) return e;
  }
  (void)e;
  return 0;
}

int lj_run(void** B, const int64_t* P) {
  int e = 0;
  if ((e = k0(B, P))) return e;
  if ((e = k1(B, P))) return e;
  if ((e = k6(B, P))) return e;
  return e;
}
/* params:
   0, 5, 0, 0, 1, 0, 1, 0, 0, 0, 0, 0, 1, 5, 1, 0, 1, 0, 4611686018427387904, 5, 5, 1, 0, 1, 0,
   5, 5, 1, 0, 1, 0, 5, 5, 1, 0, 1, 0, 5, 0
*/
/* memory plan:
   blocks [0, 1, 2, 3, 4]; bytes [4, 1, 20, 20, 20]; donors {}; may fail False; messages 0
*/
