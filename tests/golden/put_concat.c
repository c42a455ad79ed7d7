static __attribute__((noinline)) void k0_loop(void** restrict B, const int64_t* restrict P, int64_t w0, int64_t w1) {
  float* p0 = (float*)B[3] + P[3];
  const float* p1 = (const float*)B[0] + P[5];
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
  const float* p1 = (const float*)B[0] + P[5];
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
  const int64_t* ix = (const int64_t*)B[1] + P[7];
  const int64_t A = P[8], N = P[9], C = P[10], I = P[11];
  float* x = (float*)B[3] + P[12];
  const float* v = (const float*)B[2] + P[13];
  for (int64_t a = 0; a < A; a++)
    for (int64_t i = 0; i < I; i++) {
      int64_t j = ix[i]; if (j < 0) j += N;
      if (1 && (j < 0 || j >= N)) return 1;
      float* q = x + (a * N + j) * C; const float* r = v + (a * I + i) * C;
      for (int64_t c = 0; c < C; c++) q[c] = r[c];
    }
  return 0;
}

static __attribute__((noinline)) void k2_loop(void** restrict B, const int64_t* restrict P, int64_t w0, int64_t w1) {
  float* p0 = (float*)B[4] + P[18];
  const float* p1 = (const float*)B[0] + P[21];
  const int64_t nL = P[15], bs = P[23], nO = P[14];
  const int64_t nb = nL <= bs ? 1 : (nL + bs - 1) / bs;
  int64_t o_ = 0, kb_ = 0;
  if (w0) { o_ = w0 / nb; kb_ = (w0 - o_ * nb) * bs; }
  for (int64_t w = w0; w < w1; w++) {
    const int64_t o = o_, kb = kb_;
    const int64_t ke = kb + bs < nL ? kb + bs : nL;
    int64_t r_ = o;
    const int64_t i0 = r_;
    float* q0 = p0 + i0 * P[16];
    const float* q1 = p1 + i0 * P[19];
    #pragma omp simd
    for (int64_t k = kb; k < ke; k++) {
      const float L1 = q1[k];
      const float v0 = (float)(L1);
      const float v1 = (float)((float)lj_as_f64(P[22]));
      const float v2 = (float)((v0 * v1));
      q0[k] = v2;
    }
    kb_ += bs;
    if (kb_ >= nL) { kb_ = 0; o_++; }
  }
}
static int k2(void** restrict B, const int64_t* restrict P) {
  float* p0 = (float*)B[4] + P[18];
  const float* p1 = (const float*)B[0] + P[21];
  const int64_t nL = P[15], bs = P[23], nO = P[14];
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
  float* p0 = (float*)B[5] + P[28];
  const float* p1 = (const float*)B[3] + P[31];
  const int64_t nL = P[25], bs = P[32], nO = P[24];
  const int64_t nb = nL <= bs ? 1 : (nL + bs - 1) / bs;
  int64_t o_ = 0, kb_ = 0;
  if (w0) { o_ = w0 / nb; kb_ = (w0 - o_ * nb) * bs; }
  for (int64_t w = w0; w < w1; w++) {
    const int64_t o = o_, kb = kb_;
    const int64_t ke = kb + bs < nL ? kb + bs : nL;
    int64_t r_ = o;
    const int64_t i0 = r_;
    float* q0 = p0 + i0 * P[26];
    const float* q1 = p1 + i0 * P[29];
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
  float* p0 = (float*)B[5] + P[28];
  const float* p1 = (const float*)B[3] + P[31];
  const int64_t nL = P[25], bs = P[32], nO = P[24];
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
  float* p0 = (float*)B[5] + P[37];
  const float* p1 = (const float*)B[4] + P[40];
  const int64_t nL = P[34], bs = P[41], nO = P[33];
  const int64_t nb = nL <= bs ? 1 : (nL + bs - 1) / bs;
  int64_t o_ = 0, kb_ = 0;
  if (w0) { o_ = w0 / nb; kb_ = (w0 - o_ * nb) * bs; }
  for (int64_t w = w0; w < w1; w++) {
    const int64_t o = o_, kb = kb_;
    const int64_t ke = kb + bs < nL ? kb + bs : nL;
    int64_t r_ = o;
    const int64_t i0 = r_;
    float* q0 = p0 + i0 * P[35];
    const float* q1 = p1 + i0 * P[38];
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
static int k4(void** restrict B, const int64_t* restrict P) {
  float* p0 = (float*)B[5] + P[37];
  const float* p1 = (const float*)B[4] + P[40];
  const int64_t nL = P[34], bs = P[41], nO = P[33];
  const int64_t nb = nL <= bs ? 1 : (nL + bs - 1) / bs;
  const int64_t count_ = nO * nb;
  if (!P[0] && 1 && nO * nL > 262144) {
    lj_parallel(k4_loop, B, P, count_);
  } else {
    k4_loop(B, P, 0, count_);
  }
  return 0;
}

int lj_run(void** B, const int64_t* P) {
  int e = 0;
  if ((e = k0(B, P))) return e;
  if ((e = k1(B, P))) return e;
  if ((e = k2(B, P))) return e;
  if ((e = k3(B, P))) return e;
  if ((e = k4(B, P))) return e;
  return e;
}
/* params:
   0, 24, 1, 0, 1, 0, 24, 0, 1, 8, 3, 2, 0, 0, 4, 3, 3, 1, 0, 6, 1, 3, 4611686018427387904, 3,
   4, 3, 6, 1, 0, 6, 1, 0, 3, 4, 3, 6, 1, 3, 3, 1, 0, 3
*/
/* memory plan:
   blocks [0, 1, 2]; bytes [96, 48, 96]; donors {}; may fail True; messages 0
*/
