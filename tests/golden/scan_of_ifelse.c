static __attribute__((noinline)) void k0_loop(void** restrict B, const int64_t* restrict P, const int64_t* restrict Q, int64_t w0, int64_t w1) {
  float* p0 = (float*)B[Q[8]] + Q[4];
  const float* p1 = (const float*)B[Q[9]] + Q[7];
  const int64_t nK = Q[0], nR = Q[1], nL = Q[1];
  for (int64_t w = w0; w < w1; w++) {
    int64_t r_ = w;
    const int64_t i0 = r_;
    float acc = 0.0f;
    float* q0 = p0 + i0 * Q[2];
    const float* q1 = p1 + i0 * Q[5];
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
    p0[0 + i0 * Q[2]] = acc;
  }
}
LJ_KERNEL int k0(void** restrict B, const int64_t* restrict P, const int64_t* restrict Q) {
  float* p0 = (float*)B[Q[8]] + Q[4];
  const float* p1 = (const float*)B[Q[9]] + Q[7];
  const int64_t nK = Q[0], nR = Q[1], nL = Q[1];
  const int64_t count_ = nK;
  if (!P[0] && nK > 1 && nK * nR > 262144) {
    lj_parallel(k0_loop, B, P, Q, count_);
  } else {
    k0_loop(B, P, Q, 0, count_);
  }
  return 0;
}

static __attribute__((noinline)) void k1_loop(void** restrict B, const int64_t* restrict P, const int64_t* restrict Q, int64_t w0, int64_t w1) {
  uint8_t* p0 = (uint8_t*)B[Q[7]] + Q[2];
  const float* p1 = (const float*)B[Q[8]] + Q[4];
  const int64_t nL = Q[0], bs = Q[6], nO = 1;
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
      const float L1 = q1[k];
      const float v0 = (float)(L1);
      const float v1 = (float)((float)lj_as_f64(Q[5]));
      const uint8_t v2 = (uint8_t)((v0 > v1));
      q0[k] = v2;
    }
    kb_ += bs;
    if (kb_ >= nL) { kb_ = 0; o_++; }
  }
}
LJ_KERNEL int k1(void** restrict B, const int64_t* restrict P, const int64_t* restrict Q) {
  uint8_t* p0 = (uint8_t*)B[Q[7]] + Q[2];
  const float* p1 = (const float*)B[Q[8]] + Q[4];
  const int64_t nL = Q[0], bs = Q[6], nO = 1;
  const int64_t nb = nL <= bs ? 1 : (nL + bs - 1) / bs;
  const int64_t count_ = nO * nb;
  if (!P[0] && 1 && nO * nL > 262144) {
    lj_parallel(k1_loop, B, P, Q, count_);
  } else {
    k1_loop(B, P, Q, 0, count_);
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
  float* p0 = (float*)B[4] + Q[2];
  const float* p1 = (const float*)B[2] + Q[4];
  const float* p2 = (const float*)B[0] + Q[6];
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
      q0[k] = v2;
    }
    kb_ += bs;
    if (kb_ >= nL) { kb_ = 0; o_++; }
  }
}
LJ_KERNEL int k3(void** restrict B, const int64_t* restrict P, const int64_t* restrict Q) {
  float* p0 = (float*)B[4] + Q[2];
  const float* p1 = (const float*)B[2] + Q[4];
  const float* p2 = (const float*)B[0] + Q[6];
  const int64_t nL = Q[0], bs = Q[7], nO = 1;
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
        const float v2 = (float)((v0 + v1));
        q0[k] = v2;
      }
      kb_ += bs;
      if (kb_ >= nL) { kb_ = 0; o_++; }
    }
  }
  return 0;
}

static __attribute__((noinline)) void k4_loop(void** restrict B, const int64_t* restrict P, const int64_t* restrict Q, int64_t w0, int64_t w1) {
  float* p0 = (float*)B[3] + Q[2];
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
LJ_KERNEL int k4(void** restrict B, const int64_t* restrict P, const int64_t* restrict Q) {
  float* p0 = (float*)B[3] + Q[2];
  const float* p1 = (const float*)B[4] + Q[4];
  const int64_t nL = Q[0], bs = Q[5], nO = 1;
  const int64_t nb = nL <= bs ? 1 : (nL + bs - 1) / bs;
  const int64_t count_ = (p0 == p1 ? 0 : nO * nb);
  if (!P[0] && 1 && (p0 == p1 ? 0 : nO * nL) > 1048576) {
    lj_parallel(k4_loop, B, P, Q, count_);
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

static __attribute__((noinline)) void k5_loop(void** restrict B, const int64_t* restrict P, const int64_t* restrict Q, int64_t w0, int64_t w1) {
  float* p0 = (float*)B[5] + Q[2];
  const float* p1 = (const float*)B[2] + Q[4];
  const int64_t nL = Q[0], bs = Q[6], nO = 1;
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
      const float v1 = (float)((float)lj_as_f64(Q[5]));
      const float v2 = (float)((v0 * v1));
      q0[k] = v2;
    }
    kb_ += bs;
    if (kb_ >= nL) { kb_ = 0; o_++; }
  }
}
LJ_KERNEL int k5(void** restrict B, const int64_t* restrict P, const int64_t* restrict Q) {
  float* p0 = (float*)B[5] + Q[2];
  const float* p1 = (const float*)B[2] + Q[4];
  const int64_t nL = Q[0], bs = Q[6], nO = 1;
  const int64_t nb = nL <= bs ? 1 : (nL + bs - 1) / bs;
  const int64_t count_ = nO * nb;
  if (!P[0] && 1 && nO * nL > 1048576) {
    lj_parallel(k5_loop, B, P, Q, count_);
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
        const float v1 = (float)((float)lj_as_f64(Q[5]));
        const float v2 = (float)((v0 * v1));
        q0[k] = v2;
      }
      kb_ += bs;
      if (kb_ >= nL) { kb_ = 0; o_++; }
    }
  }
  return 0;
}

static __attribute__((noinline)) void k6_loop(void** restrict B, const int64_t* restrict P, const int64_t* restrict Q, int64_t w0, int64_t w1) {
  float* p0 = (float*)B[3] + Q[2];
  const float* p1 = (const float*)B[5] + Q[4];
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
LJ_KERNEL int k6(void** restrict B, const int64_t* restrict P, const int64_t* restrict Q) {
  float* p0 = (float*)B[3] + Q[2];
  const float* p1 = (const float*)B[5] + Q[4];
  const int64_t nL = Q[0], bs = Q[5], nO = 1;
  const int64_t nb = nL <= bs ? 1 : (nL + bs - 1) / bs;
  const int64_t count_ = (p0 == p1 ? 0 : nO * nb);
  if (!P[0] && 1 && (p0 == p1 ? 0 : nO * nL) > 1048576) {
    lj_parallel(k6_loop, B, P, Q, count_);
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

LJ_KERNEL int k7(void** restrict B, const int64_t* restrict P, const int64_t* restrict Q) {
  int e = 0;
  if (*((const uint8_t*)B[1] + Q[0])) {
    if ((e = k3(B, P, P + 28))) return e;
    if ((e = k4(B, P, P + 36))) return e;
  } else {
    if ((e = k5(B, P, P + 42))) return e;
    if ((e = k6(B, P, P + 49))) return e;
  }
  (void)e;
  return 0;
}

LJ_KERNEL int k8(void** restrict B, const int64_t* restrict P, const int64_t* restrict Q) {
  void* Bi[6];
  Bi[4] = B[Q[6]];
  Bi[5] = B[Q[7]];
  const int64_t T = Q[0];
  int e = 0;
  char* S0 = (char*)B[Q[8]]; const int64_t R0 = Q[1];
  for (int64_t t = 0; t < T; t++) {
    const int64_t row = t;
    Bi[0] = (char*)B[Q[9]] + Q[2] + row * Q[3];
    Bi[1] = (char*)B[Q[10]] + Q[4] + row * Q[5];
    Bi[2] = S0 + ((1 + t + (-1))) * R0;
    Bi[3] = S0 + ((1 + t)) * R0;
    if ((e = k7(Bi, P, P + 55))) return e;
  }
  (void)e;
  return 0;
}

static __attribute__((noinline)) void k9_loop(void** restrict B, const int64_t* restrict P, const int64_t* restrict Q, int64_t w0, int64_t w1) {
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
LJ_KERNEL int k9(void** restrict B, const int64_t* restrict P, const int64_t* restrict Q) {
  float* p0 = (float*)B[Q[6]] + Q[2];
  const float* p1 = (const float*)B[Q[7]] + Q[4];
  const int64_t nL = Q[0], bs = Q[5], nO = 1;
  const int64_t nb = nL <= bs ? 1 : (nL + bs - 1) / bs;
  const int64_t count_ = nO * nb;
  if (!P[0] && 1 && nO * nL > 262144) {
    lj_parallel(k9_loop, B, P, Q, count_);
  } else {
    k9_loop(B, P, Q, 0, count_);
  }
  return 0;
}

int lj_run(void** B, const int64_t* P) {
  int e = 0;
  if ((e = k0(B, P, P + 1))) return e;
  if ((e = k1(B, P, P + 11))) return e;
  if ((e = k2(B, P, P + 20))) return e;
  if ((e = k8(B, P, P + 56))) return e;
  if ((e = k9(B, P, P + 67))) return e;
  return e;
}
/* params:
   0, 6, 3, 1, 0, 0, 3, 1, 0, 2, 0, 6, 1, 0, 1, 0, 0, 6, 3, 2, 3, 1, 0, 1, 0, 3, 4, 1, 3, 1, 0,
   1, 0, 1, 0, 3, 3, 1, 0, 1, 0, 3, 3, 1, 0, 1, 0, 4602678819172646912, 3, 3, 1, 0, 1, 0, 3, 0,
   6, 12, 0, 12, 0, 1, 5, 6, 4, 0, 3, 18, 1, 0, 1, 3, 18, 7, 4
*/
/* memory plan:
   blocks [0, 1, 2, 0, 3, 4]; bytes [24, 6, 84, 12, 72]; donors {}; may fail False; messages 0
*/
