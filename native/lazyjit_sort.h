/* argsort (lazyjit/backends/cpu/sort.py): a stable bottom-up merge sort of a row's
 * indices by its keys, read through the indices.  Ties keep their order (the merge
 * takes from the right run only when strictly before).  Included after lazyjit_rt.h.
 *
 * Type-generic: lazyjit/backends/cpu/sort.py instantiates it once per dtype and
 * direction in a module: it defines the parameters below, then includes this file,
 * which undefines them again (the instantiation's include guard, LJ_HAVE_ARGSORT_<S>,
 * keeps it to one per module).
 *   LJ_T            the key type (float)
 *   LJ_S            the suffix (float32_a, float32_d: ascending, descending)
 *   LJ_BEFORE(u, v) whether key u goes strictly before key v (NaN last both ways)
 */
#include <stdlib.h>
#ifdef _OPENMP
#include <omp.h>
#endif
#define LJ_ARGSORT LJ_CAT(lj_argsort, LJ_S)
static void LJ_ARGSORT(const LJ_T* restrict key, int64_t n, int64_t* restrict out,
                       int64_t* restrict tmp) {
  int64_t* src = out;
  int64_t* dst = tmp;
  for (int64_t i = 0; i < n; i++) out[i] = i;
  for (int64_t width = 1; width < n; width *= 2) {
    for (int64_t lo = 0; lo < n; lo += 2 * width) {
      const int64_t mid = lo + width < n ? lo + width : n;
      const int64_t hi = lo + 2 * width < n ? lo + 2 * width : n;
      int64_t a = lo, b = mid, k = lo;
      while (a < mid && b < hi) {
        const LJ_T u = key[src[b]], v = key[src[a]];
        dst[k++] = LJ_BEFORE(u, v) ? src[b++] : src[a++];
      }
      while (a < mid) dst[k++] = src[a++];
      while (b < hi) dst[k++] = src[b++];
    }
    int64_t* t = src; src = dst; dst = t;
  }
  if (src != out) for (int64_t i = 0; i < n; i++) out[i] = src[i];
}
#undef LJ_ARGSORT
#undef LJ_T
#undef LJ_S
#undef LJ_BEFORE
