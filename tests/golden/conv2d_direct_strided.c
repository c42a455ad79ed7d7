#include "lazyjit_conv.h"
#ifndef LJ_HAVE_CONV_DIRECT_float32
#define LJ_HAVE_CONV_DIRECT_float32
#define LJ_T float
#define LJ_S float32
#define LJ_A double
#include "lazyjit_conv_direct.h"
#endif
static int k0(void** restrict B, const int64_t* restrict P) {
  lj_conv_direct_float32(0, (const lj_win_t*)(P + 1), (const float*)B[0] + P[17], (const float*)B[1] + P[18], (float*)B[2] + P[19], !P[0] && P[20] > 262144);
  return 0;
}

int lj_run(void** B, const int64_t* P) {
  int e = 0;
  if ((e = k0(B, P))) return e;
  return e;
}
/* params:
   0, 2, 4, 9, 9, 4, 3, 3, 4, 4, 2, 2, 1, 1, 2, 2, 2, 0, 0, 0, 2304
*/
/* memory plan:
   blocks [0]; bytes [512]; donors {}; may fail False; messages 0
*/
