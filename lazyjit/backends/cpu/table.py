"""The table of native functions every cpu module is given when loaded (``lj_lapack``,
set by ``lj_set_blas``): NumPy's LAPACKE functions, its complex GEMMs, then the host
functions the generated code calls back in Python.  One layout, read by the compiler
(which fills the table: :func:`lazyjit.backends.cpu.compiler._blas_pointers`) and by the
kernels (which call its entries by slot).  A NULL entry fails the kernel that needs it,
with a message naming what is missing; nothing else is computed in its place."""

# the LAPACKE functions the linalg kernels call, per dtype prefix (s, d, then c and z:
# complex), in the order native/lazyjit_linalg.h reads them
LAPACK_NAMES = tuple(f"{p}{f}" for p in "sd"
                     for f in ("potrf", "gesv", "getrf", "syevd", "gesdd", "geqrf", "orgqr",
                               "geev")) \
    + tuple(f"{p}{f}" for p in "cz"
            for f in ("potrf", "gesv", "getrf", "heevd", "gesdd", "geqrf", "ungqr", "geev"))
# CBLAS's complex GEMMs (complex64, complex128): alpha and beta passed by address
COMPLEX_GEMMS = ("cgemm", "zgemm")
# the host functions: the fft kernel's callback (lazyjit.backends.cpu.fft)
HOST_NAMES = ("fft",)
NAMES = LAPACK_NAMES + COMPLEX_GEMMS + HOST_NAMES
SLOT = {name: i for i, name in enumerate(NAMES)}
