#include "lazyjit_conv.h"
#ifndef LJ_HAVE_CONV_DIRECT_float32
#define LJ_HAVE_CONV_DIRECT_float32
#define LJ_T float
#define LJ_S float32
#define LJ_A double
#include "lazyjit_conv_direct.h"
#endif
LJ_KERNEL int k0(void** restrict B, const int64_t* restrict P, const int64_t* restrict Q) {
  lj_conv_direct_float32(0, (const lj_win_t*)(P + 1), (const float*)B[Q[20]] + Q[16], (const float*)B[Q[21]] + Q[17], (float*)B[Q[22]] + Q[18], !P[0] && Q[19] > 262144);
  return 0;
}

int lj_run(void** B, const int64_t* P) {
  int e = 0;
  if ((e = k0(B, P, P + 1))) return e;
  return e;
}
/* params:
   0, 2, 4, 9, 9, 4, 3, 3, 4, 4, 2, 2, 1, 1, 2, 2, 2, 0, 0, 0, 2304, 0, 1, 2
*/
/* memory plan:
   blocks [0]; bytes [512]; donors {}; may fail False; messages 0
*/
