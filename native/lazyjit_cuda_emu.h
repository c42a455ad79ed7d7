/* Emulation of the CUDA execution model on the CPU, for testing generated CUDA kernels
 * on machines without a GPU (LAZYJIT_FLAGS=backend=cuda,cuda_emulate=true).
 *
 * The module is compiled as C.  A launch (lj_launch, at the end of an emulated module)
 * runs the grid's blocks one after the other; each block's threads are fibers (each its
 * own stack, made by POSIX makecontext, then switched by _setjmp/_longjmp, which save no
 * signal mask: no system call) run in turn on the calling thread, each until its next
 * barrier, so that:
 *   threadIdx, blockIdx  are set as each fiber runs,
 *   __shared__           is a static (one copy, seen by the block's fibers),
 *   __syncthreads()      returns once every thread of the block has reached it: a
 *                        round of the fibers (a barrier not reached by every thread of
 *                        the block, undefined on a GPU, fails the launch);
 *   lj_shfl_down_T       exchanges values through a block-wide slot array and a
 *                        barrier (lanes past the warp's end keep their own value, as
 *                        __shfl_down_sync does), so every lane of the block calls it.
 * (Threads as fibers, not an OpenMP team: a barrier costs a switch per thread, not an
 * OS context switch per thread; 32 OS threads on 2 cores took ~150 us a barrier.)
 * One launch runs at a time in a process (the caller holds a lock): statics are shared.
 */
#ifndef LAZYJIT_CUDA_EMU_H
#define LAZYJIT_CUDA_EMU_H
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <setjmp.h>
#include <ucontext.h>

typedef struct { uint32_t x, y, z; } lj_dim3;
static lj_dim3 threadIdx, blockIdx, blockDim, gridDim;

#define __global__
#define __device__
#define __shared__ static
#define __syncthreads() lj_barrier()
#define LJ_KERNEL static void
#define LJ_WARP 32
#define LJ_MAX_THREADS 1024
#define LJ_STACK (512 * 1024)  /* per thread (virtual: pages are touched as used) */

/* (float16: lj_half and its converters are lazyjit_rt.h's, as in the C modules) */

typedef void (*lj_kernel_t)(void* const*, const int64_t*, int32_t*);

static struct {
    ucontext_t start, fiber[LJ_MAX_THREADS];
    jmp_buf main, at[LJ_MAX_THREADS];  /* the scheduler; each fiber at its barrier */
    int done[LJ_MAX_THREADS];
    char* stacks;
    int n_stacks;
    lj_kernel_t fn;
    void* const* B;
    const int64_t* P;
    int32_t* E;
} lj_emu;

/* __syncthreads: back to the scheduler, until the next round */
static void lj_barrier(void) {
    if (!_setjmp(lj_emu.at[threadIdx.x])) _longjmp(lj_emu.main, 1);
}

static void lj_fiber_main(void) {
    lj_emu.fn(lj_emu.B, lj_emu.P, lj_emu.E);
    lj_emu.done[threadIdx.x] = 1;
    _longjmp(lj_emu.main, 1);  /* (never returns: its context is dropped) */
}

/* a shuffle's values: two slot arrays used in turn, so that one barrier per shuffle
 * suffices (a thread writes the array of shuffle k + 2 only after the barrier of k + 1,
 * which every thread reaches after its read of shuffle k); the turn is per thread */
static uint64_t lj_emu_slots[2][2 * LJ_MAX_THREADS];  /* (16 bytes a thread: complex128) */
static uint8_t lj_emu_turn[LJ_MAX_THREADS];

#define LJ_SHFL(T) \
static inline T lj_shfl_down_##T(T v, int d) { \
    const uint32_t t = threadIdx.x; \
    T* s = (T*)lj_emu_slots[lj_emu_turn[t]]; \
    lj_emu_turn[t] ^= 1; \
    s[t] = v; \
    lj_barrier(); \
    return ((t % LJ_WARP) + d < LJ_WARP && t + d < blockDim.x) ? s[t + d] : v; \
}

/* the error word: the first failure's code wins (atomicCAS on a GPU) */
static inline void lj_fail(int32_t* E, int32_t c) {
    if (*E == 0) *E = c;
}

/* Run kernel fn over grid x block threads; 0, -1 for a launch shape CUDA refuses or
 * no memory for the stacks, -2 when a barrier was not reached by every thread. */
static int lj_emulate(lj_kernel_t fn, int64_t grid, int block, void* const* B,
                      const int64_t* P, int32_t* E) {
    if (block < 1 || block > LJ_MAX_THREADS || block % LJ_WARP || grid < 1 ||
        grid > 0x7fffffff) return -1;
    if (lj_emu.n_stacks < block) {
        char* s = (char*)realloc(lj_emu.stacks, (size_t)block * LJ_STACK);
        if (!s) return -1;
        lj_emu.stacks = s;
        lj_emu.n_stacks = block;
    }
    lj_emu.fn = fn; lj_emu.B = B; lj_emu.P = P; lj_emu.E = E;
    gridDim.x = (uint32_t)grid; gridDim.y = gridDim.z = 1;
    blockDim.x = (uint32_t)block; blockDim.y = blockDim.z = 1;
    threadIdx.y = threadIdx.z = blockIdx.y = blockIdx.z = 0;
    for (int64_t b = 0; b < grid; b++) {
        blockIdx.x = (uint32_t)b;
        for (int t = 0; t < block; t++) {
            lj_emu.done[t] = 0;
            lj_emu_turn[t] = 0;
        }
        /* (volatile: the scheduler's frame is resumed by _longjmp) */
        for (volatile int round = 0;; round++) {  /* each fiber to its next barrier or end */
            volatile int finished = 0;
            for (volatile int t = 0; t < block; t++) {
                threadIdx.x = (uint32_t)t;
                if (_setjmp(lj_emu.main)) {  /* (back from fiber t) */
                    finished += lj_emu.done[t];
                    continue;
                }
                if (round) _longjmp(lj_emu.at[t], 1);
                ucontext_t* c = &lj_emu.fiber[t];  /* its first run: a new stack */
                getcontext(c);
                c->uc_stack.ss_sp = lj_emu.stacks + (size_t)t * LJ_STACK;
                c->uc_stack.ss_size = LJ_STACK;
                c->uc_link = NULL;
                makecontext(c, lj_fiber_main, 0);
                swapcontext(&lj_emu.start, c);
            }
            if (finished == block) break;
            if (finished) return -2;  /* some ended, others wait at a barrier */
        }
    }
    return 0;
}
#endif
