LJ_KERNEL int k0(void** restrict B, const int64_t* restrict P, const int64_t* restrict Q) {
  float* p0 = (float*)B[Q[4]] + Q[2];
  float* q0 = p0;
  {
    const float v0 = (float)((float)lj_as_f64(Q[3]));
    q0[0] = v0;
  }
  return 0;
}

LJ_KERNEL int k1(void** restrict B, const int64_t* restrict P, const int64_t* restrict Q) {
  float* p0 = (float*)B[2];
  const float* p1 = (const float*)B[1];
  const float* p2 = (const float*)B[0];
  float* q0 = p0;
  const float* q1 = p1;
  const float* q2 = p2;
  {
    const float L1 = q1[0];
    const float L2 = q2[0];
    const float v0 = (float)(L1);
    const float v1 = (float)((float)lj_as_f64(Q[4]));
    const float v2 = (float)((v0 * v1));
    const float v3 = (float)(L2);
    const float v4 = (float)((v2 + v3));
    q0[0] = v4;
  }
  return 0;
}

LJ_KERNEL int k2(void** restrict B, const int64_t* restrict P, const int64_t* restrict Q) {
  void* Bi[3];
  const int64_t T = Q[0];
  int e = 0;
  char* S0 = (char*)B[Q[4]]; const int64_t R0 = Q[1];
  float C0; memcpy(&C0, S0 + ((1 - 1)) * R0, sizeof C0);
  for (int64_t t = 0; t < T; t++) {
    const int64_t row = t;
    Bi[0] = (char*)B[Q[5]] + Q[2] + row * Q[3];
    Bi[1] = &C0;
    Bi[2] = S0 + ((1 + t)) * R0;
    if ((e = k1(Bi, P, P + 6))) return e;
    memcpy(&C0, S0 + ((1 + t)) * R0, sizeof C0);
  }
  (void)e;
  return 0;
}

static __attribute__((noinline)) void k3_loop(void** restrict B, const int64_t* restrict P, const int64_t* restrict Q, int64_t w0, int64_t w1) {
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
LJ_KERNEL int k3(void** restrict B, const int64_t* restrict P, const int64_t* restrict Q) {
  float* p0 = (float*)B[Q[6]] + Q[2];
  const float* p1 = (const float*)B[Q[7]] + Q[4];
  const int64_t nL = Q[0], bs = Q[5], nO = 1;
  const int64_t nb = nL <= bs ? 1 : (nL + bs - 1) / bs;
  const int64_t count_ = nO * nb;
  if (!P[0] && 1 && nO * nL > 262144) {
    lj_parallel(k3_loop, B, P, Q, count_);
  } else {
    k3_loop(B, P, Q, 0, count_);
  }
  return 0;
}

int lj_run(void** B, const int64_t* P) {
  int e = 0;
  if ((e = k0(B, P, P + 1))) return e;
  if ((e = k2(B, P, P + 11))) return e;
  if ((e = k3(B, P, P + 17))) return e;
  return e;
}
/* params:
   0, 1, 0, 0, 0, 1, 1, 0, 0, 0, 4602678819172646912, 8, 4, 0, 4, 1, 0, 8, 1, 0, 1, 1, 8, 2, 1
*/
/* memory plan:
   blocks [0, 1]; bytes [36, 32]; donors {}; may fail False; messages 0
*/
