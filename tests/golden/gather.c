LJ_KERNEL int k0(void** restrict B, const int64_t* restrict P, const int64_t* restrict Q) {
  const int64_t* ix = (const int64_t*)B[Q[7]] + Q[0];
  const int64_t A = Q[1], N = Q[2], C = Q[3], I = Q[4];
  const float* x = (const float*)B[Q[8]] + Q[5];
  float* out = (float*)B[Q[9]] + Q[6];
  int err = 0;
  #pragma omp parallel for if(!P[0] && A * I * C > 262144) reduction(|:err)
  for (int64_t w = 0; w < A * I; w++) {
    const int64_t a = w / I, i = w - a * I;
    int64_t j = ix[i]; if (j < 0) j += N;
    if (1 && (j < 0 || j >= N)) {
      err = 1;
      memset(out + w * C, 0, C * sizeof(*out));
      continue;
    }
    memcpy(out + w * C, x + (a * N + j) * C, C * sizeof(*out));
  }
  if (err) return 1;
  return 0;
}

static __attribute__((noinline)) void k1_loop(void** restrict B, const int64_t* restrict P, const int64_t* restrict Q, int64_t w0, int64_t w1) {
  float* p0 = (float*)B[Q[7]] + Q[2];
  const float* p1 = (const float*)B[Q[8]] + Q[4];
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
LJ_KERNEL int k1(void** restrict B, const int64_t* restrict P, const int64_t* restrict Q) {
  float* p0 = (float*)B[Q[7]] + Q[2];
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

int lj_run(void** B, const int64_t* P) {
  int e = 0;
  if ((e = k0(B, P, P + 1))) return e;
  if ((e = k1(B, P, P + 11))) return e;
  return e;
}
/* params:
   0, 0, 1, 10, 3, 4, 0, 0, 1, 0, 2, 12, 1, 0, 1, 0, 4611686018427387904, 12, 3, 2
*/
/* memory plan:
   blocks [0, 1]; bytes [48, 48]; donors {}; may fail True; messages 0
*/
