static int k0(void** restrict B, const int64_t* restrict P) {
  const float* p = (const float*)B[0] + P[5];
  int64_t* out = (int64_t*)B[1] + P[6];
  const int64_t nK = P[1], n = P[2], s = P[4];
  #pragma omp parallel for if(!P[0] && nK * n > 262144) schedule(static)
  for (int64_t w = 0; w < nK; w++) {
    int64_t r_ = w;
    const int64_t i0 = r_;
    const float* q = p + i0 * P[3];
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
  if ((e = k0(B, P))) return e;
  return e;
}
/* params:
   0, 5, 6, 6, 1, 0, 0
*/
/* memory plan:
   blocks [0]; bytes [40]; donors {}; may fail False; messages 0
*/
