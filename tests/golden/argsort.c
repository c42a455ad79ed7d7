#ifndef LJ_HAVE_ARGSORT_float32_a
#define LJ_HAVE_ARGSORT_float32_a
#define LJ_T float
#define LJ_S float32_a
#define LJ_BEFORE(u, v) ((u < v) || (v != v && u == u))
#include "lazyjit_sort.h"
#endif
LJ_KERNEL int k0(void** restrict B, const int64_t* restrict P, const int64_t* restrict Q) {
  const float* keys = (const float*)B[Q[4]] + Q[0];
  int64_t* out = (int64_t*)B[Q[5]] + Q[1];
  const int64_t rows = Q[2], n = Q[3];
  int nt = 1;
#ifdef _OPENMP
  nt = omp_get_max_threads();
#endif
  int64_t* tmp = (int64_t*)malloc((size_t)nt * (size_t)n * sizeof(int64_t));
  if (!tmp) return 2;
  #pragma omp parallel if(!P[0] && rows > 1 && rows * n > 262144)
  {
    int t = 0;
#ifdef _OPENMP
    t = omp_get_thread_num();
#endif
    #pragma omp for schedule(static)
    for (int64_t r = 0; r < rows; r++)
      lj_argsort_float32_a(keys + r * n, n, out + r * n, tmp + (int64_t)t * n);
  }
  free(tmp);
  return 0;
}

int lj_run(void** B, const int64_t* P) {
  int e = 0;
  if ((e = k0(B, P, P + 1))) return e;
  return e;
}
/* params:
   0, 0, 0, 4, 9, 0, 1
*/
/* memory plan:
   blocks [0]; bytes [288]; donors {}; may fail True; messages 0
*/
