/* Dense linear algebra of lazyjit's linalg ops (lazyjit/ops/linalg.py) on the LAPACK that
   NumPy ships, called through its LAPACKE "_work" functions (ILP64: 64-bit integers; no
   NaN pre-check, so NaN inputs behave as in NumPy, which calls the same routines).

   Type-generic: included once per dtype with LJ_T (the C type), LJ_R (its real type),
   LJ_P (the LAPACK prefix, s, d, c or z) and LJ_BASE (the first of its entries in
   lj_lapack[], the table of LAPACKE pointers each module is given at load: potrf gesv
   getrf syevd gesdd geqrf orgqr geev; for c and z, which define LJ_COMPLEX_LA and LJ_ABS,
   potrf gesv getrf heevd gesdd geqrf ungqr geev; LJ_C is the complex type of LJ_R).
   Matrices are row-major and contiguous, batched over a leading count; every function
   returns 0, LJ_LA_FAIL (LAPACK reported a matrix it cannot factor, or an error),
   LJ_LA_NOMEM or LJ_LA_NOLAPACK (no LAPACKE pointer). */
#ifndef LJ_LINALG_COMMON
#define LJ_LINALG_COMMON
#define LJ_LA_FAIL 1
#define LJ_LA_NOMEM 2
#define LJ_LA_NOLAPACK 3
#define LJ_ROW_MAJOR 101
#define LJ_CAT_(a, b) a##_##b
#define LJ_CAT(a, b) LJ_CAT_(a, b)
static int64_t lj_la_max1(int64_t x) { return x > 1 ? x : 1; }
#endif

#define LJ_LA(name) LJ_CAT(lj_la_##name, LJ_P)

typedef int64_t (*LJ_LA(potrf_t))(int, char, int64_t, LJ_T*, int64_t);
typedef int64_t (*LJ_LA(gesv_t))(int, int64_t, int64_t, LJ_T*, int64_t, int64_t*, LJ_T*, int64_t);
typedef int64_t (*LJ_LA(getrf_t))(int, int64_t, int64_t, LJ_T*, int64_t, int64_t*);
typedef int64_t (*LJ_LA(syevd_t))(int, char, char, int64_t, LJ_T*, int64_t, LJ_T*, LJ_T*,
                                   int64_t, int64_t*, int64_t);
#ifdef LJ_COMPLEX_LA  /* (complex: real singular values, and a real workspace) */
typedef int64_t (*LJ_LA(gesdd_t))(int, char, int64_t, int64_t, LJ_T*, int64_t, LJ_R*, LJ_T*,
                                   int64_t, LJ_T*, int64_t, LJ_T*, int64_t, LJ_R*, int64_t*);
#else
typedef int64_t (*LJ_LA(gesdd_t))(int, char, int64_t, int64_t, LJ_T*, int64_t, LJ_T*, LJ_T*,
                                   int64_t, LJ_T*, int64_t, LJ_T*, int64_t, int64_t*);
#endif
typedef int64_t (*LJ_LA(geqrf_t))(int, int64_t, int64_t, LJ_T*, int64_t, LJ_T*, LJ_T*, int64_t);
typedef int64_t (*LJ_LA(orgqr_t))(int, int64_t, int64_t, int64_t, LJ_T*, int64_t, const LJ_T*,
                                   LJ_T*, int64_t);

/* o = the lower Cholesky factor of each n x n (symmetric or Hermitian) matrix of a (its
   lower triangle read) */
static int LJ_LA(cholesky)(const LJ_T* a, LJ_T* o, int64_t batch, int64_t n) {
  LJ_LA(potrf_t) potrf = (LJ_LA(potrf_t))lj_lapack[LJ_BASE + 0];
  if (!potrf) return LJ_LA_NOLAPACK;
  memcpy(o, a, (size_t)(batch * n * n) * sizeof(LJ_T));
  for (int64_t b = 0; b < batch; b++) {
    LJ_T* m = o + b * n * n;
    if (potrf(LJ_ROW_MAJOR, 'L', n, m, lj_la_max1(n))) return LJ_LA_FAIL;
    for (int64_t i = 0; i < n; i++)
      for (int64_t j = i + 1; j < n; j++) m[i * n + j] = 0;
  }
  return 0;
}

/* o = a^-1 rhs for each n x n matrix of a and n x k matrix of rhs */
static int LJ_LA(solve)(const LJ_T* a, const LJ_T* rhs, LJ_T* o, int64_t batch, int64_t n,
                        int64_t k) {
  LJ_LA(gesv_t) gesv = (LJ_LA(gesv_t))lj_lapack[LJ_BASE + 1];
  if (!gesv) return LJ_LA_NOLAPACK;
  LJ_T* lu = (LJ_T*)malloc((size_t)(n * n) * sizeof(LJ_T) + 1);
  int64_t* piv = (int64_t*)malloc((size_t)n * sizeof(int64_t) + 1);
  int rc = lu && piv ? 0 : LJ_LA_NOMEM;
  memcpy(o, rhs, (size_t)(batch * n * k) * sizeof(LJ_T));
  for (int64_t b = 0; b < batch && !rc; b++) {
    memcpy(lu, a + b * n * n, (size_t)(n * n) * sizeof(LJ_T));
    if (gesv(LJ_ROW_MAJOR, n, k, lu, lj_la_max1(n), piv, o + b * n * k, lj_la_max1(k)))
      rc = LJ_LA_FAIL;
  }
  free(lu); free(piv);
  return rc;
}

/* o[b] = (sign, log|det|) of each n x n matrix of a (NumPy's: a singular matrix gives
   (0, -inf); a NaN leaves the sign and makes the log NaN) */
static int LJ_LA(slogdet)(const LJ_T* a, LJ_T* o, int64_t batch, int64_t n) {
  LJ_LA(getrf_t) getrf = (LJ_LA(getrf_t))lj_lapack[LJ_BASE + 2];
  if (!getrf) return LJ_LA_NOLAPACK;
  LJ_T* lu = (LJ_T*)malloc((size_t)(n * n) * sizeof(LJ_T) + 1);
  int64_t* piv = (int64_t*)malloc((size_t)n * sizeof(int64_t) + 1);
  int rc = lu && piv ? 0 : LJ_LA_NOMEM;
  for (int64_t b = 0; b < batch && !rc; b++) {
    memcpy(lu, a + b * n * n, (size_t)(n * n) * sizeof(LJ_T));
    int64_t info = n ? getrf(LJ_ROW_MAJOR, n, n, lu, n, piv) : 0;
    LJ_T sign = 1;
    LJ_R logdet = 0;
    if (info < 0) { rc = LJ_LA_FAIL; break; }
    if (info > 0) { sign = 0; logdet = -INFINITY; }
    else
      for (int64_t i = 0; i < n; i++) {
        LJ_T d = lu[i * n + i];
        if (piv[i] != i + 1) sign = -sign;
#ifdef LJ_COMPLEX_LA  /* (NumPy's: the product of d / |d|, the sum of log |d|) */
        const LJ_R ad = LJ_ABS(d);
        sign = sign * (d / ad);
#else
        if (d < 0) { sign = -sign; d = -d; }
        const LJ_R ad = d;
#endif
        logdet += sizeof(LJ_R) == 4 ? logf((float)ad) : log((double)ad);
      }
    o[2 * b] = sign; o[2 * b + 1] = logdet;
  }
  free(lu); free(piv);
  return rc;
}

#ifndef LJ_COMPLEX_LA  /* (complex: eigh through heevd, below) */
/* o[b] = (n + 1) x n: the ascending eigenvalues, then the eigenvectors as columns, of each
   symmetric n x n matrix of a (its lower triangle read) */
static int LJ_LA(eigh)(const LJ_T* a, LJ_T* o, int64_t batch, int64_t n) {
  LJ_LA(syevd_t) syevd = (LJ_LA(syevd_t))lj_lapack[LJ_BASE + 3];
  if (!syevd) return LJ_LA_NOLAPACK;
  if (!n) return 0;
  LJ_T q; int64_t iq, lda = n;
  LJ_T* out = o + n;  /* (a query: the workspace sizes) */
  memcpy(out, a, (size_t)(n * n) * sizeof(LJ_T));
  if (syevd(LJ_ROW_MAJOR, 'V', 'L', n, out, lda, o, &q, -1, &iq, -1)) return LJ_LA_FAIL;
  int64_t lwork = (int64_t)q + 1, liwork = iq + 1;
  LJ_T* work = (LJ_T*)malloc((size_t)lwork * sizeof(LJ_T));
  int64_t* iwork = (int64_t*)malloc((size_t)liwork * sizeof(int64_t));
  int rc = work && iwork ? 0 : LJ_LA_NOMEM;
  for (int64_t b = 0; b < batch && !rc; b++) {
    LJ_T* w = o + b * (n + 1) * n;
    memcpy(w + n, a + b * n * n, (size_t)(n * n) * sizeof(LJ_T));
    if (syevd(LJ_ROW_MAJOR, 'V', 'L', n, w + n, lda, w, work, lwork, iwork, liwork))
      rc = LJ_LA_FAIL;
  }
  free(work); free(iwork);
  return rc;
}

#else
typedef int64_t (*LJ_LA(heevd_t))(int, char, char, int64_t, LJ_T*, int64_t, LJ_R*, LJ_T*,
                                   int64_t, LJ_R*, int64_t, int64_t*, int64_t);

/* eigh of Hermitian matrices (heevd, the lower triangle read): as the real one, the real
   eigenvalues stored as complex numbers in row 0 */
static int LJ_LA(eigh)(const LJ_T* a, LJ_T* o, int64_t batch, int64_t n) {
  LJ_LA(heevd_t) heevd = (LJ_LA(heevd_t))lj_lapack[LJ_BASE + 3];
  if (!heevd) return LJ_LA_NOLAPACK;
  if (!n) return 0;
  LJ_T q; LJ_R rq; int64_t iq;
  LJ_R* w = (LJ_R*)malloc((size_t)n * sizeof(LJ_R));
  if (!w) return LJ_LA_NOMEM;
  memcpy(o + n, a, (size_t)(n * n) * sizeof(LJ_T));  /* (a query: the workspace sizes) */
  if (heevd(LJ_ROW_MAJOR, 'V', 'L', n, o + n, n, w, &q, -1, &rq, -1, &iq, -1)) {
    free(w);
    return LJ_LA_FAIL;
  }
  int64_t lwork = (int64_t)__real__ q + 1, lrwork = (int64_t)rq + 1, liwork = iq + 1;
  LJ_T* work = (LJ_T*)malloc((size_t)lwork * sizeof(LJ_T));
  LJ_R* rwork = (LJ_R*)malloc((size_t)lrwork * sizeof(LJ_R));
  int64_t* iwork = (int64_t*)malloc((size_t)liwork * sizeof(int64_t));
  int rc = work && rwork && iwork ? 0 : LJ_LA_NOMEM;
  for (int64_t b = 0; b < batch && !rc; b++) {
    LJ_T* ob = o + b * (n + 1) * n;
    memcpy(ob + n, a + b * n * n, (size_t)(n * n) * sizeof(LJ_T));
    if (heevd(LJ_ROW_MAJOR, 'V', 'L', n, ob + n, n, w, work, lwork, rwork, lrwork, iwork,
              liwork))
      rc = LJ_LA_FAIL;
    for (int64_t i = 0; i < n; i++) ob[i] = w[i];
  }
  free(w); free(work); free(rwork); free(iwork);
  return rc;
}
#endif

/* the SVD of each m x n matrix of a: mode 0 (reduced) U m x k, s, Vh k x n; mode 1
   (complete) U m x m, s, Vh n x n; mode 2 s alone; packed one after the other in o */
static int LJ_LA(svd)(const LJ_T* a, LJ_T* o, int64_t batch, int64_t m, int64_t n, int mode) {
  LJ_LA(gesdd_t) gesdd = (LJ_LA(gesdd_t))lj_lapack[LJ_BASE + 4];
  if (!gesdd) return LJ_LA_NOLAPACK;
  int64_t k = m < n ? m : n;
  int64_t uc = mode == 0 ? k : mode == 1 ? m : 0, vr = mode == 0 ? k : mode == 1 ? n : 0;
  int64_t size = m * uc + k + vr * n;
  char jobz = mode == 0 ? 'S' : mode == 1 ? 'A' : 'N';
  if (!k) {  /* an empty matrix: NumPy's complete factors are identities */
    memset(o, 0, (size_t)(batch * size) * sizeof(LJ_T));
    for (int64_t b = 0; b < batch && mode == 1; b++) {
      for (int64_t i = 0; i < m; i++) o[b * size + i * m + i] = 1;
      for (int64_t i = 0; i < n; i++) o[b * size + m * m + i * n + i] = 1;
    }
    return 0;
  }
  LJ_T* x = (LJ_T*)malloc((size_t)(m * n) * sizeof(LJ_T));
  int64_t* iwork = (int64_t*)malloc((size_t)(8 * k) * sizeof(int64_t));
#ifdef LJ_COMPLEX_LA  /* (the singular values in a real array, then stored as complex;
                         zgesdd's real workspace: LAPACK's documented size) */
  int64_t mx = m > n ? m : n;
  int64_t lrwork = mode == 2 ? 7 * k : (5 * k * k + 5 * k > 2 * mx * k + 2 * k * k + k ?
                                        5 * k * k + 5 * k : 2 * mx * k + 2 * k * k + k);
  LJ_R* sv = (LJ_R*)malloc((size_t)k * sizeof(LJ_R));
  LJ_R* rwork = (LJ_R*)malloc((size_t)lrwork * sizeof(LJ_R));
#define LJ_GESDD(u, vt, work, lwork) \
  gesdd(LJ_ROW_MAJOR, jobz, m, n, x, n, sv, u, ldu, vt, ldvt, work, lwork, rwork, iwork)
  int rc = x && iwork && sv && rwork ? 0 : LJ_LA_NOMEM;
#else
#define LJ_GESDD(u, vt, work, lwork) \
  gesdd(LJ_ROW_MAJOR, jobz, m, n, x, n, s, u, ldu, vt, ldvt, work, lwork, iwork)
  int rc = x && iwork ? 0 : LJ_LA_NOMEM;
#endif
  LJ_T q, *work = 0;
  int64_t ldu = lj_la_max1(uc), ldvt = lj_la_max1(n), lwork = 0;
  if (!rc) {
    memcpy(x, a, (size_t)(m * n) * sizeof(LJ_T));
    LJ_T* u = o + 0; LJ_T* s = o + m * uc; LJ_T* vt = s + k;
    (void)s;
    if (LJ_GESDD(u, vt, &q, -1)) rc = LJ_LA_FAIL;
    lwork = (int64_t)q + 1;
  }
  if (!rc && !(work = (LJ_T*)malloc((size_t)lwork * sizeof(LJ_T)))) rc = LJ_LA_NOMEM;
  for (int64_t b = 0; b < batch && !rc; b++) {
    LJ_T* u = o + b * size; LJ_T* s = u + m * uc; LJ_T* vt = s + k;
    memcpy(x, a + b * m * n, (size_t)(m * n) * sizeof(LJ_T));
    if (LJ_GESDD(u, vt, work, lwork)) rc = LJ_LA_FAIL;
#ifdef LJ_COMPLEX_LA
    for (int64_t i = 0; i < k; i++) s[i] = sv[i];
#endif
  }
#undef LJ_GESDD
#ifdef LJ_COMPLEX_LA
  free(sv); free(rwork);
#endif
  free(x); free(iwork); free(work);
  return rc;
}

/* the QR factorization of each m x n matrix of a: mode 0 (reduced) Q m x k, R k x n;
   mode 1 (complete) Q m x m, R m x n; packed one after the other in o */
static int LJ_LA(qr)(const LJ_T* a, LJ_T* o, int64_t batch, int64_t m, int64_t n, int mode) {
  LJ_LA(geqrf_t) geqrf = (LJ_LA(geqrf_t))lj_lapack[LJ_BASE + 5];
  LJ_LA(orgqr_t) orgqr = (LJ_LA(orgqr_t))lj_lapack[LJ_BASE + 6];
  if (!geqrf || !orgqr) return LJ_LA_NOLAPACK;
  int64_t k = m < n ? m : n, qc = mode == 1 ? m : k, rr = mode == 1 ? m : k;
  int64_t size = m * qc + rr * n;
  memset(o, 0, (size_t)(batch * size) * sizeof(LJ_T));
  if (!m) return 0;
  LJ_T* x = (LJ_T*)malloc((size_t)(m * n) * sizeof(LJ_T) + 1);
  LJ_T* tau = (LJ_T*)malloc((size_t)k * sizeof(LJ_T) + 1);
  LJ_T q1 = 0, q2 = 0, *work = 0;
  int rc = x && tau ? 0 : LJ_LA_NOMEM;
  if (!rc && n && (geqrf(LJ_ROW_MAJOR, m, n, x, lj_la_max1(n), tau, &q1, -1) ||
                   orgqr(LJ_ROW_MAJOR, m, qc, k, o, lj_la_max1(qc), tau, &q2, -1)))
    rc = LJ_LA_FAIL;
  int64_t lq1 = (int64_t)q1, lq2 = (int64_t)q2;  /* (complex: the real parts) */
  int64_t lwork = (lq1 > lq2 ? lq1 : lq2) + 1;
  if (!rc && !(work = (LJ_T*)malloc((size_t)lwork * sizeof(LJ_T)))) rc = LJ_LA_NOMEM;
  for (int64_t b = 0; b < batch && !rc; b++) {
    LJ_T* qm = o + b * size; LJ_T* r = qm + m * qc;
    if (!n) {  /* Q of an m x 0 matrix: the identity's first qc columns */
      for (int64_t i = 0; i < m && i < qc; i++) qm[i * qc + i] = 1;
      continue;
    }
    memcpy(x, a + b * m * n, (size_t)(m * n) * sizeof(LJ_T));
    if (geqrf(LJ_ROW_MAJOR, m, n, x, n, tau, work, lwork)) { rc = LJ_LA_FAIL; break; }
    for (int64_t i = 0; i < k; i++)
      for (int64_t j = i; j < n; j++) r[i * n + j] = x[i * n + j];
    for (int64_t i = 0; i < m; i++)
      for (int64_t j = 0; j < k; j++) qm[i * qc + j] = x[i * n + j];
    if (orgqr(LJ_ROW_MAJOR, m, qc, k, qm, qc, tau, work, lwork)) rc = LJ_LA_FAIL;
  }
  free(x); free(tau); free(work);
  return rc;
}

/* the eigenvalues and right eigenvectors (columns, unit 2-norm, as LAPACK gives them) of
   each general n x n matrix of a (geev): mode 0 both, o[b] (n + 1) x n complex: row 0 the
   eigenvalues, rows 1.. the vectors; mode 2 the eigenvalues alone (jobvr 'N', as NumPy's
   eigvals), n complex.  Real matrices: a pair of conjugate eigenvalues' vectors are
   v_j = vr_j + i vr_j+1 and its conjugate (LAPACK's packing, unpacked as NumPy's) */
#ifdef LJ_COMPLEX_LA
typedef int64_t (*LJ_LA(geev_t))(int, char, char, int64_t, LJ_T*, int64_t, LJ_T*, LJ_T*,
                                  int64_t, LJ_T*, int64_t, LJ_T*, int64_t, LJ_R*);
#else
typedef int64_t (*LJ_LA(geev_t))(int, char, char, int64_t, LJ_T*, int64_t, LJ_T*, LJ_T*,
                                  LJ_T*, int64_t, LJ_T*, int64_t, LJ_T*, int64_t);
#endif
static int LJ_LA(eig)(const LJ_T* a, LJ_C* o, int64_t batch, int64_t n, int mode) {
  LJ_LA(geev_t) geev = (LJ_LA(geev_t))lj_lapack[LJ_BASE + 7];
  if (!geev) return LJ_LA_NOLAPACK;
  if (!n) return 0;
  const char jobvr = mode == 0 ? 'V' : 'N';
  const int64_t size = mode == 0 ? (n + 1) * n : n, ldvr = n;
  LJ_T* x = (LJ_T*)malloc((size_t)(n * n) * sizeof(LJ_T));
  LJ_T* vr = (LJ_T*)malloc((size_t)(n * n) * sizeof(LJ_T));
#ifdef LJ_COMPLEX_LA
  LJ_T* w = (LJ_T*)malloc((size_t)n * sizeof(LJ_T));
  LJ_R* rwork = (LJ_R*)malloc((size_t)(2 * n) * sizeof(LJ_R));
  int rc = x && vr && w && rwork ? 0 : LJ_LA_NOMEM;
#define LJ_GEEV(work, lwork) geev(LJ_ROW_MAJOR, 'N', jobvr, n, x, n, w, 0, 1, vr, ldvr, work, lwork, rwork)
#else
  LJ_T* wr = (LJ_T*)malloc((size_t)(2 * n) * sizeof(LJ_T));
  LJ_T* wi = wr ? wr + n : 0;
  int rc = x && vr && wr ? 0 : LJ_LA_NOMEM;
#define LJ_GEEV(work, lwork) geev(LJ_ROW_MAJOR, 'N', jobvr, n, x, n, wr, wi, 0, 1, vr, ldvr, work, lwork)
#endif
  LJ_T q, *work = 0;
  int64_t lwork = 0;
  if (!rc) {
    memcpy(x, a, (size_t)(n * n) * sizeof(LJ_T));
    if (LJ_GEEV(&q, -1)) rc = LJ_LA_FAIL;
    lwork = (int64_t)q + 1;
  }
  if (!rc && !(work = (LJ_T*)malloc((size_t)lwork * sizeof(LJ_T)))) rc = LJ_LA_NOMEM;
  for (int64_t b = 0; b < batch && !rc; b++) {
    LJ_C* ob = o + b * size;
    memcpy(x, a + b * n * n, (size_t)(n * n) * sizeof(LJ_T));
    if (LJ_GEEV(work, lwork)) { rc = LJ_LA_FAIL; break; }
#ifdef LJ_COMPLEX_LA
    for (int64_t j = 0; j < n; j++) ob[j] = w[j];
    if (mode == 0) memcpy(ob + n, vr, (size_t)(n * n) * sizeof(LJ_T));
#else
    for (int64_t j = 0; j < n; j++) ob[j] = lj_complex_la(wr[j], wi[j]);
    for (int64_t j = 0; j < n && mode == 0; j++) {
      if (wi[j] == 0) {
        for (int64_t i = 0; i < n; i++) ob[n + i * n + j] = lj_complex_la(vr[i * n + j], 0);
      } else if (j + 1 < n) {  /* (a pair: its real and imaginary parts in columns j, j+1) */
        for (int64_t i = 0; i < n; i++) {
          const LJ_T re = vr[i * n + j], im = vr[i * n + j + 1];
          ob[n + i * n + j] = lj_complex_la(re, im);
          ob[n + i * n + j + 1] = lj_complex_la(re, -im);
        }
        j++;
      }
    }
#endif
  }
#undef LJ_GEEV
  free(x); free(vr); free(work);
#ifdef LJ_COMPLEX_LA
  free(w); free(rwork);
#else
  free(wr);
#endif
  return rc;
}

#undef LJ_LA
