/* Emulation of the CUDA execution model on the CPU, for testing generated CUDA kernels
 * on machines without a GPU (LAZYJIT_FLAGS=backend=cuda,cuda_emulate=true).
 *
 * The module is compiled as C with OpenMP.  A launch (lj_launch, at the end of an
 * emulated module) runs the grid's blocks one after the other; each block's threads are
 * an OpenMP team of exactly blockDim.x threads, so that:
 *   threadIdx, blockIdx  are thread-local,
 *   __shared__           is a static (one copy, seen by the team: the running block),
 *   __syncthreads()      is an OpenMP barrier of the team,
 *   lj_shfl_down_T       exchanges values through a block-wide slot array between two
 *                        barriers (lanes past the warp's end keep their own value, as
 *                        __shfl_down_sync does), so every lane of the block must call it.
 * One launch runs at a time in a process (the caller holds a lock): statics are shared.
 */
#ifndef LAZYJIT_CUDA_EMU_H
#define LAZYJIT_CUDA_EMU_H
#include <stdint.h>
#include <string.h>
#include <math.h>
#include <omp.h>

typedef struct { uint32_t x, y, z; } lj_dim3;
static _Thread_local lj_dim3 threadIdx, blockIdx;
static lj_dim3 blockDim, gridDim;

#define __global__
#define __device__
#define __shared__ static
#define __syncthreads() _Pragma("omp barrier")
#define LJ_KERNEL static void
#define LJ_WARP 32
#define LJ_MAX_THREADS 1024

typedef _Float16 lj_half;
static inline float lj_h2f(lj_half h) { return (float)h; }
static inline lj_half lj_f2h(float f) { return (lj_half)f; }

static uint64_t lj_emu_slots[LJ_MAX_THREADS];

#define LJ_SHFL(T) \
static inline T lj_shfl_down_##T(T v, int d) { \
    const uint32_t t = threadIdx.x; \
    T* s = (T*)lj_emu_slots; \
    s[t] = v; \
    _Pragma("omp barrier") \
    T r = ((t % LJ_WARP) + d < LJ_WARP && t + d < blockDim.x) ? s[t + d] : v; \
    _Pragma("omp barrier") \
    return r; \
}
LJ_SHFL(float)
LJ_SHFL(double)
LJ_SHFL(int32_t)
LJ_SHFL(uint32_t)
LJ_SHFL(int64_t)
LJ_SHFL(uint64_t)

typedef void (*lj_kernel_t)(void* const*, const int64_t*, int32_t*);

/* Run kernel fn over grid x block threads; 0, or -1 when OpenMP gave a team of another
 * size (the barriers would not be the block's). */
static int lj_emulate(lj_kernel_t fn, int64_t grid, int block, void* const* B,
                      const int64_t* P, int32_t* E) {
    int bad = 0;
    if (block < 1 || block > LJ_MAX_THREADS || block % LJ_WARP) return -1;
    gridDim.x = (uint32_t)grid; gridDim.y = gridDim.z = 1;
    blockDim.x = (uint32_t)block; blockDim.y = blockDim.z = 1;
    #pragma omp parallel num_threads(block) reduction(|:bad)
    {
        if (omp_get_num_threads() != block) {
            bad = 1;
        } else {
            threadIdx.x = (uint32_t)omp_get_thread_num(); threadIdx.y = threadIdx.z = 0;
            for (int64_t b = 0; b < grid; b++) {
                blockIdx.x = (uint32_t)b; blockIdx.y = blockIdx.z = 0;
                fn(B, P, E);
                _Pragma("omp barrier")
            }
        }
    }
    return bad ? -1 : 0;
}
#endif
