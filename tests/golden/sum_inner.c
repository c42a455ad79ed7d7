static __attribute__((noinline)) void k0_loop(void** restrict B, const int64_t* restrict P, int64_t w0, int64_t w1) {
  float* p0 = (float*)B[1] + P[5];
  const float* p1 = (const float*)B[0] + P[8];
  const int64_t nK = P[1], nR = P[2], nL = P[2];
  for (int64_t w = w0; w < w1; w++) {
    int64_t r_ = w;
    const int64_t i0 = r_;
    float acc = 0.0f;
    float* q0 = p0 + i0 * P[3];
    const float* q1 = p1 + i0 * P[6];
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
    p0[0 + i0 * P[3]] = acc;
  }
}
static int k0(void** restrict B, const int64_t* restrict P) {
  float* p0 = (float*)B[1] + P[5];
  const float* p1 = (const float*)B[0] + P[8];
  const int64_t nK = P[1], nR = P[2], nL = P[2];
  const int64_t count_ = nK;
  if (!P[0] && nK > 1 && nK * nR > 262144) {
    lj_parallel(k0_loop, B, P, count_);
  } else {
    k0_loop(B, P, 0, count_);
  }
  return 0;
}

int lj_run(void** B, const int64_t* P) {
  int e = 0;
  if ((e = k0(B, P))) return e;
  return e;
}
/* params:
   0, 6, 7, 1, 0, 0, 7, 1, 0
*/
/* memory plan:
   blocks [0]; bytes [24]; donors {}; may fail False; messages 0
*/
