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
        const float v1 = (float)((v0 * v0));
        part = (part + v1);
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

int lj_run(void** B, const int64_t* P) {
  int e = 0;
  if ((e = k0(B, P, P + 1))) return e;
  return e;
}
/* params:
   0, 6, 7, 1, 0, 0, 7, 1, 0, 1, 0
*/
/* memory plan:
   blocks [0]; bytes [24]; donors {}; may fail False; messages 0
*/
