LJ_KERNEL int k0(void** restrict B, const int64_t* restrict P, const int64_t* restrict Q) {
  float* p0 = (float*)B[Q[5]] + Q[2];
  const float* p1 = (const float*)B[Q[6]] + Q[4];
  const int64_t nL = Q[0];
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

LJ_KERNEL int k1(void** restrict B, const int64_t* restrict P, const int64_t* restrict Q) {
  uint8_t* p0 = (uint8_t*)B[Q[6]] + Q[2];
  const float* p1 = (const float*)B[Q[7]] + Q[4];
  uint8_t* q0 = p0;
  const float* q1 = p1;
  {
    const float L1 = q1[0];
    const float v0 = (float)(L1);
    const float v1 = (float)((float)lj_as_f64(Q[5]));
    const uint8_t v2 = (uint8_t)((v0 > v1));
    q0[0] = v2;
  }
  return 0;
}

static __attribute__((noinline)) void k2_loop(void** restrict B, const int64_t* restrict P, const int64_t* restrict Q, int64_t w0, int64_t w1) {
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
LJ_KERNEL int k2(void** restrict B, const int64_t* restrict P, const int64_t* restrict Q) {
  float* p0 = (float*)B[Q[6]] + Q[2];
  const float* p1 = (const float*)B[Q[7]] + Q[4];
  const int64_t nL = Q[0], bs = Q[5], nO = 1;
  const int64_t nb = nL <= bs ? 1 : (nL + bs - 1) / bs;
  const int64_t count_ = (p0 == p1 ? 0 : nO * nb);
  if (!P[0] && 1 && (p0 == p1 ? 0 : nO * nL) > 262144) {
    lj_parallel(k2_loop, B, P, Q, count_);
  } else {
    k2_loop(B, P, Q, 0, count_);
  }
  return 0;
}

static __attribute__((noinline)) void k3_loop(void** restrict B, const int64_t* restrict P, const int64_t* restrict Q, int64_t w0, int64_t w1) {
  float* p0 = (float*)B[2] + Q[2];
  const float* p1 = (const float*)B[1] + Q[4];
  const float* p2 = (const float*)B[0] + Q[6];
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
      const float v0 = (float)(L1);
      const float v1 = (float)(L2);
      const float v2 = (float)((v0 * v1));
      const float v3 = (float)((float)lj_as_f64(Q[7]));
      const float v4 = (float)((v2 + v3));
      q0[k] = v4;
    }
    kb_ += bs;
    if (kb_ >= nL) { kb_ = 0; o_++; }
  }
}
LJ_KERNEL int k3(void** restrict B, const int64_t* restrict P, const int64_t* restrict Q) {
  float* p0 = (float*)B[2] + Q[2];
  const float* p1 = (const float*)B[1] + Q[4];
  const float* p2 = (const float*)B[0] + Q[6];
  const int64_t nL = Q[0], bs = Q[8], nO = 1;
  const int64_t nb = nL <= bs ? 1 : (nL + bs - 1) / bs;
  const int64_t count_ = nO * nb;
  if (!P[0] && 1 && nO * nL > 1048576) {
    lj_parallel(k3_loop, B, P, Q, count_);
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
        const float v3 = (float)((float)lj_as_f64(Q[7]));
        const float v4 = (float)((v2 + v3));
        q0[k] = v4;
      }
      kb_ += bs;
      if (kb_ >= nL) { kb_ = 0; o_++; }
    }
  }
  return 0;
}

LJ_KERNEL int k4(void** restrict B, const int64_t* restrict P, const int64_t* restrict Q) {
  void* Bi[3];
  const int64_t T = Q[0];
  int e = 0;
  char* S0 = (char*)B[Q[4]]; const int64_t R0 = Q[1];
  for (int64_t t = 0; t < T; t++) {
    const int64_t row = t;
    Bi[0] = (char*)B[Q[5]] + Q[2] + row * Q[3];
    Bi[1] = S0 + ((1 + t + (-1)) % 2) * R0;
    Bi[2] = S0 + ((1 + t) % 2) * R0;
    if ((e = k3(Bi, P, P + 24))) return e;
  }
  for (int64_t r = 0; r < 1; r++)
    memcpy((char*)B[Q[6]] + r * R0, S0 + ((T + r) % 2) * R0, R0);
  (void)e;
  return 0;
}

LJ_KERNEL int k5(void** restrict B, const int64_t* restrict P, const int64_t* restrict Q) {
  int e = 0;
  if (*((const uint8_t*)B[Q[1]] + Q[0])) {
    if ((e = k2(B, P, P + 16))) return e;
    if ((e = k4(B, P, P + 33))) return e;
    if ((e = k2(B, P, P + 40))) return e;
  } else {
    if ((e = k2(B, P, P + 48))) return e;
  }
  (void)e;
  return 0;
}

int lj_run(void** B, const int64_t* P) {
  int e = 0;
  if ((e = k0(B, P, P + 1))) return e;
  if ((e = k1(B, P, P + 8))) return e;
  if ((e = k5(B, P, P + 56))) return e;
  return e;
}
/* params:
   0, 3, 0, 0, 1, 0, 2, 0, 1, 0, 0, 0, 0, 0, 3, 2, 3, 1, 0, 1, 0, 3, 5, 0, 3, 1, 0, 1, 0, 1, 0,
   4607182418800017408, 3, 4, 12, 0, 12, 5, 1, 6, 3, 1, 0, 1, 0, 3, 4, 6, 3, 1, 0, 1, 0, 3, 4,
   0, 0, 3
*/
/* memory plan:
   blocks [0, 1, 2, 3, 4]; bytes [4, 1, 12, 24, 12]; donors {}; may fail False; messages 0
*/
