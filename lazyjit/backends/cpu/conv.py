"""Window ops on the ``cpu`` backend: the concrete implementations of convolutions and
max-pooling (:mod:`lazyjit.ops.conv`), one C kernel per node.

Each convolution op (forward, backward data, backward filter) has two implementations;
:func:`lazyjit.backends.algorithms.choose` picks one per shape (``conv_algo`` flag):

* ``gemm``: im2col + GEMM per (sample, group) through BLAS (the ``lj_sgemm`` /
  ``lj_dgemm`` pointers of every module, NumPy's OpenBLAS): forward ``y_n = W @
  cols(x_n)``; backward data ``x_n = col2im(W^T @ g_n)``; backward filter ``dW += g_n @
  cols(x_n)^T``.  Small images go in chunks of samples, one GEMM per chunk (through a
  staging copy of the chunk's output or cotangent rows).  Chunks are spread over
  OpenMP threads, each with its own column buffer (a workspace buffer of the plan,
  sized to stay in cache) and one BLAS thread; backward filter sums per-thread partial
  weights at the end.  1x1 convolutions with stride 1 and no padding use the input as
  its column matrix.
* ``direct``: plain loops over output planes (forward), input planes (backward data) or
  weights (backward filter; float32 sums in double across samples).  With stride 1
  each plane is laid out on a zero-padded grid, where every kernel position is one long
  vectorized loop over the plane; other strides loop along rows.  Any real dtype; the
  guess for integers and one output channel per group (depthwise, ``avg_pool2d``).

Max-pooling kernels recompute each window's first maximum (no index buffer): forward
reads the selected value, backward adds the cotangent there, one pass per plane.

Geometry travels in the parameter table as 16 consecutive int64 read through a struct
(``lj_win_t``), so the source does not depend on any size.
"""
from __future__ import annotations

import math
import os

import numpy as np

from lazyjit.backends import algorithms
from lazyjit.backends.cfamily import ctype, literal
from lazyjit.backends.cpu import kernels as K
from lazyjit.ops.conv import CONV_OPS
from lazyjit.schedule import WindowPlan, ir
from lazyjit.schedule.views import View
from lazyjit.schedule.window import shapes
from lazyjit.trace.node import Node

# threads a kernel may use: one column buffer each (OpenMP's team is at most this large),
# fewer when their buffers would pass WORKSPACE_BYTES (then BLAS may thread each GEMM)
MAX_THREADS = os.cpu_count() or 1
WORKSPACE_BYTES = 1 << 26
# the gemm implementation multiplies chunks of samples at once when images are small:
# up to this many columns per GEMM, the chunk's matrices within this many bytes
GEMM_COLUMNS = 1024
CHUNK_BYTES = 1 << 18

_BASE = r"""
#ifdef _OPENMP
#include <omp.h>
#endif
typedef struct { int64_t N, C, H, W, O, KH, KW, OH, OW, sh, sw, pt, pl, dh, dw, G; } lj_win_t;
/* [*lo, *hi): the positions j in [0, m) whose input j * s + off lies in [0, n) */
static inline void lj_span(int64_t off, int64_t s, int64_t n, int64_t m, int64_t* lo,
                           int64_t* hi) {
  int64_t a = off >= 0 ? 0 : (s - 1 - off) / s;
  int64_t b = n - off <= 0 ? 0 : (n - off + s - 1) / s;
  if (b > m) b = m;
  if (a > b) a = b;
  *lo = a; *hi = b;
}
static inline int lj_max_threads(void) {
#ifdef _OPENMP
  return omp_get_max_threads();
#else
  return 1;
#endif
}
static inline int lj_thread(void) {
#ifdef _OPENMP
  return omp_get_thread_num();
#else
  return 0;
#endif
}
"""

# im2col / col2im of Cg channels of one sample; GEMM through BLAS, or loops without it
_GEMM = r"""
/* im2col of nc channels of one sample into rows of length L = OH * OW, ld apart */
static void lj_im2col_$S(const lj_win_t* g, const $T* restrict x, $T* restrict col,
                         int64_t nc, int64_t ld) {
  const int64_t OH = g->OH, OW = g->OW;
  for (int64_t c = 0; c < nc; c++)
    for (int64_t p = 0; p < g->KH; p++)
      for (int64_t q = 0; q < g->KW; q++) {
        $T* r = col + ((c * g->KH + p) * g->KW + q) * ld;
        const int64_t off = q * g->dw - g->pl;
        int64_t j0, j1;
        lj_span(off, g->sw, g->W, OW, &j0, &j1);
        for (int64_t i = 0; i < OH; i++, r += OW) {
          const int64_t h = i * g->sh + p * g->dh - g->pt;
          if (h < 0 || h >= g->H) {
            #pragma omp simd
            for (int64_t j = 0; j < OW; j++) r[j] = 0;
            continue;
          }
          const $T* xr = x + (c * g->H + h) * g->W;
          for (int64_t j = 0; j < j0; j++) r[j] = 0;
          if (g->sw == 1) {  /* loops, not memcpy calls: rows of small images are short */
            #pragma omp simd
            for (int64_t j = j0; j < j1; j++) r[j] = xr[j + off];
          } else {
            for (int64_t j = j0; j < j1; j++) r[j] = xr[j * g->sw + off];
          }
          for (int64_t j = j1; j < OW; j++) r[j] = 0;
        }
      }
}
/* col2im: x (nc channels of one sample) = the sum of its columns' entries */
static void lj_col2im_$S(const lj_win_t* g, const $T* restrict col, $T* restrict x,
                         int64_t nc, int64_t ld) {
  const int64_t OH = g->OH, OW = g->OW;
  memset(x, 0, nc * g->H * g->W * sizeof($T));
  for (int64_t c = 0; c < nc; c++)
    for (int64_t p = 0; p < g->KH; p++)
      for (int64_t q = 0; q < g->KW; q++) {
        const $T* r = col + ((c * g->KH + p) * g->KW + q) * ld;
        const int64_t off = q * g->dw - g->pl;
        int64_t j0, j1;
        lj_span(off, g->sw, g->W, OW, &j0, &j1);
        for (int64_t i = 0; i < OH; i++, r += OW) {
          const int64_t h = i * g->sh + p * g->dh - g->pt;
          if (h < 0 || h >= g->H) continue;
          $T* xr = x + (c * g->H + h) * g->W;
          if (g->sw == 1) {
            #pragma omp simd
            for (int64_t j = j0; j < j1; j++) xr[j + off] += r[j];
          } else {
            for (int64_t j = j0; j < j1; j++) xr[j * g->sw + off] += r[j];
          }
        }
      }
}
/* C (M x N) = op(A) @ op(B) (+ C when beta), row-major; op transposes when ta / tb */
static void lj_gemm_$S(int ta, int tb, int64_t M, int64_t N, int64_t K, const $T* A,
                       int64_t lda, const $T* B, int64_t ldb, int beta, $T* C, int64_t ldc) {
  if ($BLAS) {
    $BLAS(101, ta ? 112 : 111, tb ? 112 : 111, M, N, K, 1, A, lda, B, ldb, beta, C, ldc);
    return;
  }
  for (int64_t i = 0; i < M; i++)
    for (int64_t j = 0; j < N; j++) {
      $T acc = beta ? C[i * ldc + j] : 0;
      for (int64_t l = 0; l < K; l++)
        acc += A[ta ? l * lda + i : i * lda + l] * B[tb ? j * ldb + l : l * ldb + j];
      C[i * ldc + j] = acc;
    }
}
/* copy Og rows of L between a chunk's staging matrix (Og x nb*L) and nb NCHW samples */
static void lj_stage_$S(const $T* restrict from, $T* restrict to, int64_t Og, int64_t L,
                        int64_t nb, int64_t sample, int to_samples) {
  for (int64_t b = 0; b < nb; b++)
    for (int64_t o = 0; o < Og; o++) {
      const int64_t s = b * sample + o * L, m = (o * nb + b) * L;
      $T* restrict d = to + (to_samples ? s : m);
      const $T* restrict f = from + (to_samples ? m : s);
      #pragma omp simd
      for (int64_t l = 0; l < L; l++) d[l] = f[l];
    }
}
/* mode 0 forward (a = x, b = w, out = y); 1 backward data (a = g, b = w, out = dx); 2
   backward filter (a = x, b = g, out = dw).  Work items: chunks of cs samples (one
   GEMM of cs * L columns: cs > 1 for small images) times groups.  ws holds, for each
   of up to nws threads, the chunk's column matrix (K x cs*L) and, when cs > 1, its
   staging matrix (Og x cs*L); then, for mode 2, a partial dw per thread but the first. */
static void lj_conv_gemm_$S(int mode, const lj_win_t* g, const $T* a, const $T* b,
                            $T* out, $T* ws, int64_t cs, int64_t nws, int par, int busy) {
  const int64_t G = g->G, Cg = g->C / G, Og = g->O / G, K = Cg * g->KH * g->KW;
  const int64_t HW = g->H * g->W, L = g->OH * g->OW, WN = g->O * K;
  const int64_t chunks = (g->N + cs - 1) / cs, items = chunks * G;
  const int64_t per = (K + (cs > 1 ? Og : 0)) * cs * L;
  const int one = cs == 1 && g->KH == 1 && g->KW == 1 && g->sh == 1 && g->sw == 1 &&
                  g->pt == 0 && g->pl == 0 && g->OH == g->H && g->OW == g->W;
  int nt = par ? lj_max_threads() : 1;
  if (nt > nws) nt = nws;
  if (nt > items) nt = items;
  if (nt < 1) nt = 1;
  $T* part = ws + nws * per;
  if (mode == 2) memset(out, 0, WN * sizeof($T));
  #pragma omp parallel num_threads(nt) if(nt > 1)
  {
    const int t = lj_thread();
    $T* col = ws + t * per;
    $T* stage = col + K * cs * L;
    $T* acc = t == 0 ? out : part + (t - 1) * WN;
    if (mode == 2 && t > 0) memset(acc, 0, WN * sizeof($T));
    const int local = lj_blas_threads && (nt > 1 || busy || (double)Og * K * cs * L < $MTMIN);
    const int prev = local ? lj_blas_threads(1) : 0;
    #pragma omp for schedule(static)
    for (int64_t it = 0; it < items; it++) {
      const int64_t n0 = (it / G) * cs, gi = it % G;
      const int64_t nb = g->N - n0 < cs ? g->N - n0 : cs, ld = nb * L;
      const $T* xs = mode == 1 ? NULL : a + (n0 * g->C + gi * Cg) * HW;  /* x, sample n0 */
      const int64_t oo = (n0 * g->O + gi * Og) * L;                     /* y or g, n0 */
      const int staged = nb > 1;
      for (int64_t s = 0; s < nb && mode != 1 && !one; s++)
        lj_im2col_$S(g, xs + s * g->C * HW, col + s * L, Cg, ld);
      const $T* cols = one ? xs : col;
      if (mode == 0) {
        $T* y = staged ? stage : out + oo;
        lj_gemm_$S(0, 0, Og, ld, K, b + gi * Og * K, K, cols, ld, 0, y, staged ? ld : L);
        if (staged) lj_stage_$S(stage, out + oo, Og, L, nb, g->O * L, 1);
      } else {
        const $T* gm = mode == 1 ? a + oo : b + oo;
        if (staged) { lj_stage_$S(gm, stage, Og, L, nb, g->O * L, 0); gm = stage; }
        if (mode == 1) {
          $T* xd = out + (n0 * g->C + gi * Cg) * HW;
          lj_gemm_$S(1, 0, K, ld, Og, b + gi * Og * K, K, gm, ld, 0, one ? xd : col, ld);
          for (int64_t s = 0; s < nb && !one; s++)
            lj_col2im_$S(g, col + s * L, xd + s * g->C * HW, Cg, ld);
        } else {
          lj_gemm_$S(0, 1, Og, K, ld, gm, ld, cols, ld, 1, acc + gi * Og * K, K);
        }
      }
    }
    if (local) lj_blas_threads(prev);
  }
  if (mode == 2)
    for (int t = 1; t < nt; t++) {
      const $T* q = part + (t - 1) * WN;
      #pragma omp simd
      for (int64_t e = 0; e < WN; e++) out[e] += q[e];
    }
}
"""

# direct loops; the innermost loop runs along an output (or input) row
_DIRECT = r"""
/* mode 0, forward: each output plane (n, o) adds w[o, c, p, q] times the input's rows;
   mode 1, backward data: each input plane (n, c) adds w[o, c, p, q] times the output
   cotangent's rows (a = x or g, the plane's sources; out = y or dx) */
static void lj_conv_direct_$S(int mode, const lj_win_t* g, const $T* restrict a,
                              const $T* restrict w, $T* restrict out, int par) {
  const int64_t G = g->G, Cg = g->C / G, Og = g->O / G, HW = g->H * g->W;
  const int64_t L = g->OH * g->OW, OW = g->OW, sw = g->sw, KH = g->KH, KW = g->KW;
  const int64_t planes = mode ? g->C : g->O, size = mode ? HW : L, sources = mode ? Og : Cg;
  #pragma omp parallel for if(par) schedule(static)
  for (int64_t it = 0; it < g->N * planes; it++) {
    const int64_t n = it / planes, r = it - n * planes, gi = r / (mode ? Cg : Og);
    $T* op = out + it * size;
    memset(op, 0, size * sizeof($T));
    for (int64_t k = 0; k < sources; k++) {
      const int64_t o = mode ? gi * Og + k : r, c = mode ? r - gi * Cg : k;
      const $T* ap = mode ? a + (n * g->O + o) * L : a + (n * g->C + gi * Cg + c) * HW;
      const $T* wp = w + (o * Cg + c) * KH * KW;
      for (int64_t p = 0; p < KH; p++)
        for (int64_t q = 0; q < KW; q++) {
          const $T wv = wp[p * KW + q];
          const int64_t off = q * g->dw - g->pl;
          int64_t j0, j1;
          lj_span(off, sw, g->W, OW, &j0, &j1);
          for (int64_t i = 0; i < g->OH; i++) {
            const int64_t h = i * g->sh + p * g->dh - g->pt;
            if (h < 0 || h >= g->H) continue;
            if (mode == 0) {
              const $T* xr = ap + h * g->W;
              $T* yr = op + i * OW;
              if (sw == 1) {
                #pragma omp simd
                for (int64_t j = j0; j < j1; j++) yr[j] += wv * xr[j + off];
              } else {
                for (int64_t j = j0; j < j1; j++) yr[j] += wv * xr[j * sw + off];
              }
            } else {
              $T* xr = op + h * g->W;
              const $T* gr = ap + i * OW;
              if (sw == 1) {
                #pragma omp simd
                for (int64_t j = j0; j < j1; j++) xr[j + off] += wv * gr[j];
              } else {
                for (int64_t j = j0; j < j1; j++) xr[j * sw + off] += wv * gr[j];
              }
            }
          }
        }
    }
  }
}
static void lj_conv_direct_gw_$S(const lj_win_t* g, const $T* restrict x,
                                 const $T* restrict gy, $T* restrict gw, int par) {
  const int64_t G = g->G, Cg = g->C / G, Og = g->O / G, HW = g->H * g->W;
  const int64_t L = g->OH * g->OW, OW = g->OW, sw = g->sw, KH = g->KH, KW = g->KW;
  #pragma omp parallel for if(par) schedule(static)
  for (int64_t it = 0; it < g->O * Cg; it++) {
    const int64_t o = it / Cg, cc = it - o * Cg, c = (o / Og) * Cg + cc;
    $A acc[KH * KW];
    for (int64_t e = 0; e < KH * KW; e++) acc[e] = 0;
    for (int64_t n = 0; n < g->N; n++) {
      const $T* gp = gy + (n * g->O + o) * L;
      const $T* xp = x + (n * g->C + c) * HW;
      for (int64_t p = 0; p < KH; p++)
        for (int64_t q = 0; q < KW; q++) {
          const int64_t off = q * g->dw - g->pl;
          int64_t j0, j1;
          lj_span(off, sw, g->W, OW, &j0, &j1);
          $T s = 0;
          for (int64_t i = 0; i < g->OH; i++) {
            const int64_t h = i * g->sh + p * g->dh - g->pt;
            if (h < 0 || h >= g->H) continue;
            const $T* xr = xp + h * g->W;
            const $T* gr = gp + i * OW;
            if (sw == 1) {
              #pragma omp simd reduction(+:s)
              for (int64_t j = j0; j < j1; j++) s += gr[j] * xr[j + off];
            } else {
              for (int64_t j = j0; j < j1; j++) s += gr[j] * xr[j * sw + off];
            }
          }
          acc[p * KW + q] += s;
        }
    }
    for (int64_t e = 0; e < KH * KW; e++) gw[it * KH * KW + e] = ($T)acc[e];
  }
}
"""

# direct loops for stride 1 on the padded grid: with planes laid out Wp = OW + dw (KW-1)
# wide (the input zero-padded, the output and its cotangent with Wp - OW spare columns),
# output position k = i * Wp + j reads padded input k + p dh Wp + q dw, so each kernel
# position is one long vectorized loop over the whole plane instead of OH short rows.
_GRID = r"""
/* the plane x (H x W) into xp, zero-padded to Hp x Wp (and one spare row of zeros) */
static inline void lj_grid_pad_$S(const lj_win_t* g, const $T* restrict x, $T* restrict xp,
                                  int64_t Hp, int64_t Wp) {
  memset(xp, 0, (Hp + 1) * Wp * sizeof($T));
  for (int64_t h = 0; h < g->H; h++) {
    $T* r = xp + (h + g->pt) * Wp + g->pl;
    for (int64_t j = 0; j < g->W; j++) r[j] = x[h * g->W + j];
  }
}
/* the OH x OW plane y to (to_grid) or from the OH x Wp grid yp (spare columns zero) */
static inline void lj_grid_rows_$S(const lj_win_t* g, $T* restrict y, $T* restrict yp,
                                   int64_t Wp, int to_grid) {
  for (int64_t i = 0; i < g->OH; i++)
    for (int64_t j = 0; j < Wp; j++) {
      if (to_grid) yp[i * Wp + j] = j < g->OW ? y[i * g->OW + j] : 0;
      else if (j < g->OW) y[i * g->OW + j] = yp[i * Wp + j];
    }
}
/* mode 0 forward (a = x, out = y), 1 backward data (a = g, out = dx), 2 backward filter
   (a = x, b = g, out = dw); ws: two grid planes for each of up to nws threads */
static void lj_conv_grid_$S(int mode, const lj_win_t* g, const $T* restrict a,
                            const $T* restrict b, $T* restrict out, $T* ws, int nws,
                            int par) {
  const int64_t G = g->G, Cg = g->C / G, Og = g->O / G, HW = g->H * g->W;
  const int64_t L = g->OH * g->OW, KH = g->KH, KW = g->KW, KK = KH * KW;
  const int64_t Wp = g->OW + g->dw * (KW - 1), Hp = g->OH + g->dh * (KH - 1);
  const int64_t GN = g->OH * Wp, XN = (Hp + 1) * Wp;
  const int64_t items = mode == 2 ? g->O * Cg : g->N * (mode ? g->C : g->O);
  const int nt = lj_max_threads() < nws ? lj_max_threads() : nws;
  #pragma omp parallel for if(par && nt > 1) num_threads(nt) schedule(static)
  for (int64_t it = 0; it < items; it++) {
    $T* xg = ws + lj_thread() * (XN + GN);      /* padded input plane, or its gradient */
    $T* yg = xg + XN;                           /* output plane (or cotangent) on the grid */
    if (mode == 2) {
      const int64_t o = it / Cg, c = (o / Og) * Cg + it % Cg;
      $A acc[KK];
      for (int64_t e = 0; e < KK; e++) acc[e] = 0;
      for (int64_t n = 0; n < g->N; n++) {
        lj_grid_pad_$S(g, a + (n * g->C + c) * HW, xg, Hp, Wp);
        lj_grid_rows_$S(g, ($T*)b + (n * g->O + o) * L, yg, Wp, 1);
        for (int64_t e = 0; e < KK; e++) {
          const $T* xs = xg + (e / KW) * g->dh * Wp + (e % KW) * g->dw;
          $T s = 0;
          #pragma omp simd reduction(+:s)
          for (int64_t k = 0; k < GN; k++) s += yg[k] * xs[k];
          acc[e] += s;
        }
      }
      for (int64_t e = 0; e < KK; e++) out[it * KK + e] = ($T)acc[e];
      continue;
    }
    const int64_t planes = mode ? g->C : g->O, n = it / planes, r = it % planes;
    const int64_t gi = r / (mode ? Cg : Og);
    memset(mode ? xg : yg, 0, (mode ? XN : GN) * sizeof($T));
    for (int64_t k = 0; k < (mode ? Og : Cg); k++) {
      const int64_t o = mode ? gi * Og + k : r, c = mode ? r - gi * Cg : k;
      if (mode) lj_grid_rows_$S(g, ($T*)a + (n * g->O + o) * L, yg, Wp, 1);
      else lj_grid_pad_$S(g, a + (n * g->C + gi * Cg + c) * HW, xg, Hp, Wp);
      for (int64_t e = 0; e < KK; e++) {
        const $T wv = b[(o * Cg + c) * KK + e];
        $T* xs = xg + (e / KW) * g->dh * Wp + (e % KW) * g->dw;
        if (mode) {
          #pragma omp simd
          for (int64_t k = 0; k < GN; k++) xs[k] += wv * yg[k];
        } else {
          #pragma omp simd
          for (int64_t k = 0; k < GN; k++) yg[k] += wv * xs[k];
        }
      }
    }
    if (mode == 0) {
      lj_grid_rows_$S(g, out + it * L, yg, Wp, 0);
    } else {
      for (int64_t h = 0; h < g->H; h++)
        for (int64_t j = 0; j < g->W; j++)
          out[it * HW + h * g->W + j] = xg[(h + g->pt) * Wp + g->pl + j];
    }
  }
}
"""


# max pooling, one plane per call, by rows: each output row's windows are scanned one
# kernel position (p, q) at a time across a block of the row (vectorized, strided
# loads), keeping per column the first maximum so far (NaN first, as np.argmax) and,
# for the gradient and for values other than x, its position.  $X is x's type, $T that
# of the values or cotangents.  mode 0: y = pooled x (v is x; "lowest" starts each
# window, which always holds an element); 1: y = v at the selected positions; 2: y =
# the input's cotangent, v the output's, added at the selected positions.  (Measured:
# unrolling the window with literal geometry made the strided loops slower.)
_POOL = r"""
#define LJ_POOL_BLOCK 256
static inline __attribute__((always_inline)) void lj_maxpool_$XS_$S(
    const lj_win_t* g, const $X* restrict x, const $T* restrict v,
                              $T* restrict y, int mode, $X lowest, int64_t it) {
  const int64_t HW = g->H * g->W, OW = g->OW, L = g->OH * OW, sw = g->sw;
  const $X* xp = x + it * HW;
  $X m[LJ_POOL_BLOCK];
  int64_t b[LJ_POOL_BLOCK];
  if (mode == 2) memset(y + it * HW, 0, HW * sizeof($T));
  for (int64_t i = 0; i < g->OH; i++)
    for (int64_t jb = 0; jb < OW; jb += LJ_POOL_BLOCK) {
      const int64_t nb = OW - jb < LJ_POOL_BLOCK ? OW - jb : LJ_POOL_BLOCK;
      $T* yr = y + it * L + i * OW + jb;
      $X* mm = mode == 0 ? ($X*)yr : m;
      for (int64_t j = 0; j < nb; j++) { mm[j] = lowest; b[j] = -1; }
      for (int64_t p = 0; p < g->KH; p++) {
        const int64_t h = i * g->sh + p * g->dh - g->pt;
        if (h < 0 || h >= g->H) continue;
        const $X* xr = xp + h * g->W;
        for (int64_t q = 0; q < g->KW; q++) {
          const int64_t off = q * g->dw - g->pl + jb * sw;
          int64_t j0 = 0, j1 = nb;
          if (g->pl) lj_span(off, sw, g->W, nb, &j0, &j1);  /* unpadded: all inside */
          /* e wins unless m is NaN or e <= m (so a NaN e wins over a number) */
          if (mode == 0) {
            #pragma omp simd
            for (int64_t j = j0; j < j1; j++) {
              const $X e = xr[j * sw + off];
              mm[j] = ((mm[j] == mm[j]) & !(e <= mm[j])) ? e : mm[j];
            }
          } else {
            #pragma omp simd
            for (int64_t j = j0; j < j1; j++) {
              const $X e = xr[j * sw + off];
              const int c = (b[j] < 0) | ((mm[j] == mm[j]) & !(e <= mm[j]));
              mm[j] = c ? e : mm[j];
              b[j] = c ? h * g->W + j * sw + off : b[j];
            }
          }
        }
      }
      if (mode == 1) {
        const $T* vp = v + it * HW;
        for (int64_t j = 0; j < nb; j++) yr[j] = vp[b[j]];
      } else if (mode == 2) {
        $T* gx = y + it * HW;
        const $T* gr = v + it * L + i * OW + jb;
        for (int64_t j = 0; j < nb; j++) gx[b[j]] += gr[j];
      }
    }
}
"""


def _helper(mod: K.Module, code: str, **subst: str) -> None:
    """Add a C helper to the module once (keyed by its text after substitution)."""
    for k, v in sorted(subst.items(), key=lambda kv: -len(kv[0])):
        code = code.replace("$" + k, v)
    mod.helpers.setdefault(code, None)


def _types(dtype: np.dtype) -> dict[str, str]:
    dtype = np.dtype(dtype)
    acc = "double" if dtype == np.float32 else ctype(dtype)
    blas = {"float32": "lj_sgemm", "float64": "lj_dgemm"}.get(dtype.name, "0")
    return {"T": ctype(dtype), "S": dtype.name, "A": acc, "BLAS": blas,
            "MTMIN": f"{K.BLAS_MT_MIN:.1f}"}


def _geometry(mod: K.Module, x_shape, w_shape, y_shape, arg) -> str:
    """The ``lj_win_t`` of a window op, as 16 consecutive parameters."""
    stride, pads, dilation, groups = arg[:4]
    first = len(mod.params)
    n, c, h, w = x_shape
    for v in (n, c, h, w, w_shape[0], w_shape[2], w_shape[3], y_shape[2], y_shape[3],
              stride[0], stride[1], pads[0], pads[2], dilation[0], dilation[1], groups):
        mod.p(v)
    return f"(const lj_win_t*)(P + {first})"


def _ptr(mod: K.Module, v: View, const: bool = True) -> str:
    T = ctype(v.dtype)
    q = "const " if const else ""
    return f"({q}{T}*)B[{v.slot}] + {mod.p(v.offset)}"


def _flops(n: Node) -> int:
    x, w, y = shapes(n)
    return math.prod(y) * math.prod(w[1:])


def _chunk(n: Node) -> int:
    """Samples per GEMM of the gemm implementation: enough for ``GEMM_COLUMNS`` columns
    when images are small, as long as the chunk's column matrix stays within
    ``CHUNK_BYTES`` (so it is still in cache for the GEMM)."""
    x, w, y = shapes(n)
    L, cg_k = y[2] * y[3], math.prod(w[1:])
    fit = CHUNK_BYTES // max(1, (cg_k + w[0]) * L * n.dtype.itemsize)
    return max(1, min(x[0], -(-GEMM_COLUMNS // max(L, 1)), fit))


def _threads(n: Node, per_thread: int) -> int:
    """Threads that may run with a scratch part of ``per_thread`` elements each: all
    cores, fewer when their parts would pass ``WORKSPACE_BYTES`` (large images)."""
    fit = WORKSPACE_BYTES // max(1, per_thread * n.dtype.itemsize)
    return max(1, min(MAX_THREADS, fit))


def candidates(n: Node) -> list[str]:
    """The implementations that apply to convolution node ``n`` (GEMM: floats only)."""
    return ["gemm", "direct"] if n.dtype.kind == "f" else ["direct"]


def guess(n: Node) -> str:
    """The heuristic (``guess_once``): direct loops for integers and for convolutions
    with one output channel per group (depthwise, ``avg_pool2d``: each GEMM would be a
    vector product; direct measured 1.3-2.7x faster); im2col + GEMM otherwise (measured
    2.5-10x faster, even for 3x3 kernels on one input channel)."""
    x, w, y = shapes(n)
    return "direct" if n.dtype.kind != "f" or w[0] == n.arg[3] else "gemm"


def plan(n: Node, timer, forced: str | None = None) -> WindowPlan:
    """This backend's implementation of window node ``n`` and the scratch it needs:
    ``forced``, or the one :func:`lazyjit.backends.algorithms.choose` picks (``timer``
    times a candidate for the ``time_once`` policy)."""
    if n.op not in CONV_OPS:
        return WindowPlan()
    name = forced or algorithms.choose("cpu", n, candidates(n), guess, timer)
    x, w, y = shapes(n)
    if name == "gemm":  # per thread: the chunk's column matrix and its staging matrix
        cg_k, L, cs = math.prod(w[1:]), y[2] * y[3], _chunk(n)
        og = w[0] // n.arg[3]
        per = (cg_k + (og if cs > 1 else 0)) * cs * L
        # and a partial weight gradient per thread but the first
        return WindowPlan(name, per, (MAX_THREADS - 1) * w[0] * cg_k, _threads(n, per), cs)
    if n.arg[0] == (1, 1):  # stride 1: long loops over whole planes on the padded grid
        dil = n.arg[2]
        wp, hp = y[3] + dil[1] * (w[3] - 1), y[2] + dil[0] * (w[2] - 1)
        per = (hp + 1) * wp + y[2] * wp
        return WindowPlan(name, per, 0, _threads(n, per))
    return WindowPlan(name)


def _render_gemm(mod: K.Module, k: ir.Window) -> None:
    n = k.node
    x, w, y = shapes(n)
    t = _types(n.dtype)
    _helper(mod, _BASE)
    _helper(mod, _GEMM, **t)
    mode = CONV_OPS.index(n.op)
    mod.add([f"  lj_conv_gemm_{t['S']}({mode}, {_geometry(mod, x, w, y, n.arg)}, "
             f"{_ptr(mod, k.a)}, {_ptr(mod, k.b)}, {_ptr(mod, k.dst, False)}, "
             f"{_ptr(mod, k.scratch, False)}, {mod.p(k.chunk)}, {mod.p(k.threads)}, "
             f"!P[0] && {mod.p(_flops(n))} > {mod.par_min}, (int)P[0]);"])


def _render_direct(mod: K.Module, k: ir.Window) -> None:
    n = k.node
    x, w, y = shapes(n)
    t = _types(n.dtype)
    _helper(mod, _BASE)
    if k.scratch is not None:  # stride 1: on the padded grid
        _helper(mod, _GRID, **t)
        mod.add([f"  lj_conv_grid_{t['S']}({CONV_OPS.index(n.op)}, "
                 f"{_geometry(mod, x, w, y, n.arg)}, {_ptr(mod, k.a)}, {_ptr(mod, k.b)}, "
                 f"{_ptr(mod, k.dst, False)}, {_ptr(mod, k.scratch, False)}, "
                 f"(int){mod.p(k.threads)}, !P[0] && {mod.p(_flops(n))} > {mod.par_min});"])
        return
    _helper(mod, _DIRECT, **t)
    call = {"conv2d": "lj_conv_direct_{}(0, ", "conv2d_grad_input": "lj_conv_direct_{}(1, ",
            "conv2d_grad_weight": "lj_conv_direct_gw_{}("}[n.op].format(t["S"])
    mod.add([f"  {call}{_geometry(mod, x, w, y, n.arg)}, {_ptr(mod, k.a)}, "
             f"{_ptr(mod, k.b)}, {_ptr(mod, k.dst, False)}, "
             f"!P[0] && {mod.p(_flops(n))} > {mod.par_min});"])


def _render_pool(mod: K.Module, k: ir.Window) -> None:
    n, x, v = k.node, k.a, k.b
    tx, tv = _types(x.dtype), _types(v.dtype)
    _helper(mod, _BASE)
    names = dict(X=tx["T"], XS=tx["S"], T=tv["T"], S=tv["S"])
    _helper(mod, _POOL, **names)
    kernel, stride, pads, dilation = n.arg
    geom = _geometry(mod, n.src[0].shape, (0, 0, *kernel), n.shape if n.op == "max_pool2d"
                     else n.src[1].shape, (stride, pads, dilation, 1))
    mode = 2 if n.op == "max_pool2d_grad" else 0 if n.src[0] is n.src[1] else 1
    dt = x.dtype
    lowest = -np.inf if dt.kind == "f" else 0 if dt.kind == "b" else np.iinfo(dt).min
    planes = math.prod(n.src[0].shape[:2])
    mod.add([], K.Parallel(mod.p(n.src[0].size), mod.p(planes), [
        f"lj_maxpool_{tx['S']}_{tv['S']}({geom}, {_ptr(mod, x)}, {_ptr(mod, v)}, "
        f"{_ptr(mod, k.dst, False)}, {mode}, {literal(lowest, dt)}, w);"]))


def render(mod: K.Module, k: ir.Window) -> None:
    """The kernel of a window record."""
    if k.algo is None:
        _render_pool(mod, k)
    elif k.algo == "gemm":
        _render_gemm(mod, k)
    else:
        _render_direct(mod, k)
