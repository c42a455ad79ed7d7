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
  const int64_t* ix = (const int64_t*)B[Q[7]] + Q[0];
  const int64_t A = Q[1], N = Q[2], C = Q[3], I = Q[4];
  float* x = (float*)B[Q[8]] + Q[5];
  const float* v = (const float*)B[Q[9]] + Q[6];
  for (int64_t a = 0; a < A; a++)
    for (int64_t i = 0; i < I; i++) {
      int64_t j = ix[i]; if (j < 0) j += N;
      if (1 && (j < 0 || j >= N)) return 1;
      float* q = x + (a * N + j) * C; const float* r = v + (a * I + i) * C;
      for (int64_t c = 0; c < C; c++) q[c] = r[c];
    }
  return 0;
}

static __attribute__((noinline)) void k2_loop(void** restrict B, const int64_t* restrict P, const int64_t* restrict Q, int64_t w0, int64_t w1) {
  float* p0 = (float*)B[Q[10]] + Q[4];
  const float* p1 = (const float*)B[Q[11]] + Q[7];
  const int64_t nL = Q[1], bs = Q[9], nO = Q[0];
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
      const float L1 = q1[k];
      const float v0 = (float)(L1);
      const float v1 = (float)((float)lj_as_f64(Q[8]));
      const float v2 = (float)((v0 * v1));
      q0[k] = v2;
    }
    kb_ += bs;
    if (kb_ >= nL) { kb_ = 0; o_++; }
  }
}
LJ_KERNEL int k2(void** restrict B, const int64_t* restrict P, const int64_t* restrict Q) {
  float* p0 = (float*)B[Q[10]] + Q[4];
  const float* p1 = (const float*)B[Q[11]] + Q[7];
  const int64_t nL = Q[1], bs = Q[9], nO = Q[0];
  const int64_t nb = nL <= bs ? 1 : (nL + bs - 1) / bs;
  const int64_t count_ = nO * nb;
  if (!P[0] && 1 && nO * nL > 262144) {
    lj_parallel(k2_loop, B, P, Q, count_);
  } else {
    k2_loop(B, P, Q, 0, count_);
  }
  return 0;
}

static __attribute__((noinline)) void k3_loop(void** restrict B, const int64_t* restrict P, const int64_t* restrict Q, int64_t w0, int64_t w1) {
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
      const float L1 = q1[k];
      const float v0 = (float)(L1);
      q0[k] = v0;
    }
    kb_ += bs;
    if (kb_ >= nL) { kb_ = 0; o_++; }
  }
}
LJ_KERNEL int k3(void** restrict B, const int64_t* restrict P, const int64_t* restrict Q) {
  float* p0 = (float*)B[Q[9]] + Q[4];
  const float* p1 = (const float*)B[Q[10]] + Q[7];
  const int64_t nL = Q[1], bs = Q[8], nO = Q[0];
  const int64_t nb = nL <= bs ? 1 : (nL + bs - 1) / bs;
  const int64_t count_ = (p0 == p1 ? 0 : nO * nb);
  if (!P[0] && 1 && (p0 == p1 ? 0 : nO * nL) > 262144) {
    lj_parallel(k3_loop, B, P, Q, count_);
  } else {
    k3_loop(B, P, Q, 0, count_);
  }
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
      const float L1 = q1[k];
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

int lj_run(void** B, const int64_t* P) {
  int e = 0;
  if ((e = k0(B, P, P + 1))) return e;
  if ((e = k1(B, P, P + 9))) return e;
  if ((e = k2(B, P, P + 19))) return e;
  if ((e = k3(B, P, P + 31))) return e;
  if ((e = k4(B, P, P + 42))) return e;
  return e;
}
/* params:
   0, 24, 1, 0, 1, 0, 24, 3, 0, 0, 1, 8, 3, 2, 0, 0, 1, 3, 2, 4, 3, 3, 1, 0, 6, 1, 3,
   4611686018427387904, 3, 4, 0, 4, 3, 6, 1, 0, 6, 1, 0, 3, 5, 3, 4, 3, 6, 1, 3, 3, 1, 0, 3, 5,
   4
*/
/* memory plan:
   blocks [0, 1, 2]; bytes [96, 48, 96]; donors {}; may fail True; messages 0
*/
