LJ_KERNEL int k0(void** restrict B, const int64_t* restrict P, const int64_t* restrict Q) {
  const float* p = (const float*)B[Q[6]] + Q[4];
  int64_t* out = (int64_t*)B[Q[7]] + Q[5];
  const int64_t nK = Q[0], n = Q[1], s = Q[3];
  #pragma omp parallel for if(!P[0] && nK * n > 262144) schedule(static)
  for (int64_t w = 0; w < nK; w++) {
    int64_t r_ = w;
    const int64_t i0 = r_;
    const float* q = p + i0 * Q[2];
    float best = q[0]; int64_t bi = 0;
    if (best == best) for (int64_t j = 1; j < n; j++) {
      const float v = q[j * s];
      if (v != v) { bi = j; break; }
      if (v > best) { best = v; bi = j; }
    }
    out[w] = bi;
  }
  return 0;
}

int lj_run(void** B, const int64_t* P) {
  int e = 0;
  if ((e = k0(B, P, P + 1))) return e;
  return e;
}
/* params:
   0, 5, 6, 6, 1, 0, 0, 0, 1
*/
/* memory plan:
   blocks [0]; bytes [40]; donors {}; may fail False; messages 0
*/
