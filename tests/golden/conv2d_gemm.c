#include "lazyjit_conv.h"
#ifndef LJ_HAVE_CONV_GEMM_float32
#define LJ_HAVE_CONV_GEMM_float32
#define LJ_T float
#define LJ_S float32
#define LJ_BLAS lj_sgemm
#define LJ_MTMIN 1048576.0
#include "lazyjit_conv_gemm.h"
#endif
#ifndef LJ_HAVE_CONV_GEMM_float64
#define LJ_HAVE_CONV_GEMM_float64
#define LJ_T double
#define LJ_S float64
#define LJ_BLAS lj_dgemm
#define LJ_MTMIN 1048576.0
#include "lazyjit_conv_gemm.h"
#endif
LJ_KERNEL int k0(void** restrict B, const int64_t* restrict P, const int64_t* restrict Q) {
  lj_conv_gemm_float32(0, (const lj_win_t*)(P + 1), (const float*)B[Q[23]] + Q[16], (const float*)B[Q[24]] + Q[17], (float*)B[Q[25]] + Q[18], (float*)B[Q[26]] + Q[19], Q[20], Q[21], !P[0] && Q[22] > 262144, (int)P[0]);
  return 0;
}

LJ_KERNEL int k1(void** restrict B, const int64_t* restrict P, const int64_t* restrict Q) {
  lj_conv_gemm_float64(0, (const lj_win_t*)(P + 28), (const double*)B[Q[23]] + Q[16], (const double*)B[Q[24]] + Q[17], (double*)B[Q[25]] + Q[18], (double*)B[Q[26]] + Q[19], Q[20], Q[21], !P[0] && Q[22] > 262144, (int)P[0]);
  return 0;
}

int lj_run(void** B, const int64_t* P) {
  int e = 0;
  if ((e = k0(B, P, P + 1))) return e;
  if ((e = k1(B, P, P + 28))) return e;
  return e;
}
/* params:
   0, 2, 3, 8, 8, 4, 3, 3, 8, 8, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 2, 4, 13824, 0, 1, 4, 5, 1, 2,
   5, 5, 2, 3, 3, 2, 2, 2, 2, 0, 0, 1, 1, 1, 0, 0, 0, 0, 1, 4, 144, 2, 3, 6, 7
*/
/* memory plan:
   blocks [0, 1, 2, 3]; bytes [2048, 64784, 64, 3168]; donors {}; may fail False; messages 0
*/
