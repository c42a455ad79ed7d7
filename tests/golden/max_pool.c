#include "lazyjit_conv.h"
#ifndef LJ_HAVE_MAXPOOL_float32_float32
#define LJ_HAVE_MAXPOOL_float32_float32
#define LJ_X float
#define LJ_XS float32
#define LJ_T float
#define LJ_S float32
#include "lazyjit_pool.h"
#endif
static __attribute__((noinline)) void k0_loop(void** restrict B, const int64_t* restrict P, const int64_t* restrict Q, int64_t w0, int64_t w1) {

  for (int64_t w = w0; w < w1; w++) {
    lj_maxpool_float32_float32((const lj_win_t*)(P + 1), (const float*)B[Q[21]] + Q[18], (const float*)B[Q[21]] + Q[19], (float*)B[Q[22]] + Q[20], 0, (-INFINITY), w);
  }
}
LJ_KERNEL int k0(void** restrict B, const int64_t* restrict P, const int64_t* restrict Q) {

  const int64_t count_ = Q[17];
  if (!P[0] && 1 && Q[16] > 262144) {
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
   0, 2, 3, 7, 7, 0, 3, 3, 4, 4, 2, 2, 1, 1, 1, 1, 1, 294, 6, 0, 0, 0, 0, 1
*/
/* memory plan:
   blocks [0]; bytes [384]; donors {}; may fail False; messages 0
*/
