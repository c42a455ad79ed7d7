#include "lazyjit_conv.h"
#ifndef LJ_HAVE_CONV_GEMM_float32
#define LJ_HAVE_CONV_GEMM_float32
#define LJ_T float
#define LJ_S float32
#define LJ_BLAS lj_sgemm
#define LJ_MTMIN 4194304.0
#include "lazyjit_conv_gemm.h"
#endif
#ifndef LJ_HAVE_CONV_GEMM_float64
#define LJ_HAVE_CONV_GEMM_float64
#define LJ_T double
#define LJ_S float64
#define LJ_BLAS lj_dgemm
#define LJ_MTMIN 4194304.0
#include "lazyjit_conv_gemm.h"
#endif
static int k0(void** restrict B, const int64_t* restrict P) {
  lj_conv_gemm_float32(0, (const lj_win_t*)(P + 1), (const float*)B[0] + P[17], (const float*)B[1] + P[18], (float*)B[4] + P[19], (float*)B[5] + P[20], P[21], P[22], !P[0] && P[23] > 262144, (int)P[0]);
  return 0;
}

static int k1(void** restrict B, const int64_t* restrict P) {
  lj_conv_gemm_float64(0, (const lj_win_t*)(P + 24), (const double*)B[2] + P[40], (const double*)B[3] + P[41], (double*)B[6] + P[42], (double*)B[7] + P[43], P[44], P[45], !P[0] && P[46] > 262144, (int)P[0]);
  return 0;
}

int lj_run(void** B, const int64_t* P) {
  int e = 0;
  if ((e = k0(B, P))) return e;
  if ((e = k1(B, P))) return e;
  return e;
}
/* params:
   0, 2, 3, 8, 8, 4, 3, 3, 8, 8, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 2, 4, 13824, 1, 2, 5, 5, 2, 3,
   3, 2, 2, 2, 2, 0, 0, 1, 1, 1, 0, 0, 0, 0, 1, 4, 144
*/
/* memory plan:
   blocks [0, 1, 2, 3]; bytes [2048, 64784, 64, 3168]; donors {}; may fail False; messages 0
*/
