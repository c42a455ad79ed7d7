#include "lazyjit_conv.h"
#ifndef LJ_HAVE_CONV_GRID_float32
#define LJ_HAVE_CONV_GRID_float32
#define LJ_T float
#define LJ_S float32
#define LJ_A double
#include "lazyjit_conv_grid.h"
#endif
LJ_KERNEL int k0(void** restrict B, const int64_t* restrict P, const int64_t* restrict Q) {
  lj_conv_grid_float32(0, (const lj_win_t*)(P + 1), (const float*)B[Q[22]] + Q[16], (const float*)B[Q[23]] + Q[17], (float*)B[Q[24]] + Q[18], (float*)B[Q[25]] + Q[19], (int)Q[20], !P[0] && Q[21] > 262144);
  return 0;
}

int lj_run(void** B, const int64_t* P) {
  int e = 0;
  if ((e = k0(B, P, P + 1))) return e;
  return e;
}
/* params:
   0, 2, 3, 8, 8, 4, 3, 3, 8, 8, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 4, 13824, 0, 1, 2, 3
*/
/* memory plan:
   blocks [0, 1]; bytes [2048, 3040]; donors {}; may fail False; messages 0
*/
