/* lazyjit._speedups: the hot paths of a call, in C (an optional CPython extension).
 *
 * Built by setup.py when a compiler and Python's headers are there; lazyjit runs the
 * same steps in Python without it (lazyjit.speedups.NATIVE says which).  Nothing
 * here decides anything: the Python callers keep every rule, these functions only do
 * the per-call loops they would otherwise run in the interpreter.
 *
 *   run(fn, B, n_slots, P, inputs, blocks, order, outs, fresh)
 *       Program.run's middle (lazyjit/backends/cpu/backend.py): store the data pointers
 *       of ``inputs`` then, when ``fresh``, of ``blocks`` (in ``order``, or in their own
 *       order where it is None; a kept call's B points to them already) in the buffer
 *       table at address B (of n_slots entries: more pointers, or an array that is not
 *       C-contiguous and aligned, raise as the Python loop does), call the module's
 *       lj_run at address fn with the GIL released
 *       (its host steps call back into Python), and return its nonzero error code, or
 *       the outputs: per (passed, k, shape) of ``outs``, a read-only view of inputs[k]
 *       or blocks[k] itself (made read-only when ``fresh``), reshaped to ``shape``.
 *
 *   program_run(fast, inputs, program)  (after program_init(backend's globals(), COUNTS))
 *       Program.run whole, for a program that keeps its blocks between calls (a small
 *       one) and a call that donates nothing: P[0] set from the machine's busy sample, a
 *       free buffer table taken from program._B (None returned when there is none), its
 *       blocks reused unless an output of theirs is still in use (else
 *       program._blocks(inputs, None)), run's steps, kernels_run counted, the table given
 *       back (without its blocks after an error code, which is returned).
 *
 *   jit_args(args, tensor_type, scalar)
 *       lazyjit.engine.jit.Jitted._lookup's loop: for positional ``args`` that are
 *       realized tensors (exactly ``tensor_type``), C-contiguous aligned ndarrays, or
 *       Python floats and ints within int64 (passed through ``scalar``), the tuple of
 *       their signatures ((shape, dtype), or the scalar's type), the list of their arrays
 *       and the oldest ``node.low`` of the tensors (None without one); None for anything
 *       else.
 *
 *   creation_site(internal, is_internal, max_frames)
 *       lazyjit.errors.creation_site: the caller's stack as (code, f_lasti) pairs, skipping
 *       the frames whose code ``internal`` (id -> (code, flag)) or ``is_internal(code)``
 *       says is lazyjit's own.
 *
 *   structure(node)  (after structure_init(Node, EPOCH, _NUMBERS, ...) from node.py)
 *       lazyjit.trace.node._structure: a new node's structural key (ins, sk, ep) from
 *       its sources'.
 *
 *   trace_key(nodes)
 *       lazyjit.engine.realize._structural_key: (key, inputs) of the trace of ``nodes``
 *       from their structural keys, or None.
 *
 *   make(op, src, arg, shape, dtype)  (after make_init(_CACHE, _Ref, ...) from node.py)
 *       lazyjit.trace.node.Node.make: the live node of that key, or a new one.
 *   make_group(op, src, specs)
 *       lazyjit.trace.node.make_group: make(op, src, *spec) for each spec, the sources'
 *       part of the structural keys computed once.
 *   leaf(array, site=True)
 *       lazyjit.trace.node.Node.leaf: a realized leaf holding ``array``.
 *   forget(ref)
 *       lazyjit.trace.node._forget: a dead node's entry leaves the table.
 *
 *   realized(tensors, given, literals)
 *       lazyjit.engine.realize._leaves: each computed tensor refers to a leaf of its
 *       value (lj_ops.c).
 *
 *   elementwise2(name, a, b)  (after elementwise_init(Tensor, ...) from lazyjit.api)
 *       lazyjit.api.core.elementwise's fast paths for two operands; None where they
 *       do not apply (the Python function then does everything).
 *   tensor_leaf(array[, tag, low])
 *       Tensor(Node.leaf(array, site=False)), a jitted call's output; with ``low`` not
 *       None, the leaf's derived set to (tag, its seq, low) and its low to low
 *       (lazyjit.engine.jit._wrap).
 *
 *   record(list), replay(program, nodes, out), Memoized(fn, table, record, part, on)
 *       lazyjit.api.memo's recording of the nodes an API function makes, its replay
 *       over other inputs, and the callable that does one or the other (lj_memo.c).
 *   reach(roots, floor, stop, look_into)
 *       lazyjit.trace.through.see_through's walk (lj_memo.c).
 */
#include "lj_speedups.h"
#define NPY_NO_DEPRECATED_API NPY_1_7_API_VERSION
#include <numpy/arrayobject.h>
#include <stdint.h>
#include <time.h>

typedef int (*lj_run_fn)(void **B, const int64_t *P);

static int data_of(PyObject *a, void **out) {
    if (!PyArray_Check(a)) {
        PyErr_SetString(PyExc_TypeError, "lazyjit._speedups.run: not an ndarray");
        return -1;
    }
    if (!PyArray_IS_C_CONTIGUOUS((PyArrayObject *)a) || !PyArray_ISALIGNED((PyArrayObject *)a)) {
        PyErr_SetString(PyExc_ValueError, "lazyjit._speedups.run: an array that is not "
                        "C-contiguous and aligned");
        return -1;
    }
    *out = PyArray_DATA((PyArrayObject *)a);
    return 0;
}

static PyObject *output(PyObject *spec, PyObject *inputs, PyObject *blocks, int fresh) {
    /* spec: (passed, k, shape) */
    if (!PyTuple_Check(spec) || PyTuple_GET_SIZE(spec) != 3 ||
        !PyTuple_Check(PyTuple_GET_ITEM(spec, 2))) {
        PyErr_SetString(PyExc_TypeError, "lazyjit._speedups.run: an output is not "
                        "(passed, k, shape)");
        return NULL;
    }
    PyObject *a, *shape = PyTuple_GET_ITEM(spec, 2);
    Py_ssize_t k = PyLong_AsSsize_t(PyTuple_GET_ITEM(spec, 1));
    int passed = PyTuple_GET_ITEM(spec, 0) == Py_True;
    if (k == -1 && PyErr_Occurred())
        return NULL;
    if (k < 0 || k >= PyList_GET_SIZE(passed ? inputs : blocks)) {
        PyErr_SetString(PyExc_IndexError, "lazyjit._speedups.run: output index");
        return NULL;
    }
    if (passed) {
        PyArrayObject *src = (PyArrayObject *)PyList_GET_ITEM(inputs, k);
        a = PyArray_View(src, NULL, NULL);
        if (a == NULL)
            return NULL;
        PyArray_CLEARFLAGS((PyArrayObject *)a, NPY_ARRAY_WRITEABLE);
    } else {
        a = PyList_GET_ITEM(blocks, k);
        Py_INCREF(a);
        if (fresh)
            PyArray_CLEARFLAGS((PyArrayObject *)a, NPY_ARRAY_WRITEABLE);
    }
    PyArrayObject *arr = (PyArrayObject *)a;
    Py_ssize_t nd = PyTuple_GET_SIZE(shape);
    int same = nd == PyArray_NDIM(arr);
    for (Py_ssize_t i = 0; same && i < nd; i++) {
        Py_ssize_t d = PyLong_AsSsize_t(PyTuple_GET_ITEM(shape, i));
        if (d == -1 && PyErr_Occurred()) {
            Py_DECREF(a);
            return NULL;
        }
        same = d == PyArray_DIM(arr, i);
    }
    if (!same) {
        PyObject *r = PyArray_Reshape(arr, shape);
        Py_DECREF(a);
        return r;
    }
    return a;
}

/* run's steps after its argument checks: the pointers stored, lj_run called, the outputs
   made (or its error code, as an int) */
static PyObject *run_core(lj_run_fn fn, void **B, Py_ssize_t n_slots, const int64_t *P,
                          PyObject *inputs, PyObject *blocks, PyObject *order,
                          PyObject *outs, int fresh) {
    if (fn == NULL || B == NULL || P == NULL) {
        PyErr_SetString(PyExc_ValueError, "lazyjit._speedups.run: a NULL address");
        return NULL;
    }
    if (!PyList_Check(inputs) || !PyTuple_Check(outs) ||
        !PyList_Check(blocks) ||
        (order != Py_None && !PyTuple_Check(order))) {
        PyErr_SetString(PyExc_TypeError, "lazyjit._speedups.run: bad argument types");
        return NULL;
    }
    Py_ssize_t n_in = PyList_GET_SIZE(inputs), i;
    Py_ssize_t n_more = !fresh ? 0 : order == Py_None ? PyList_GET_SIZE(blocks)
                                                     : PyTuple_GET_SIZE(order);
    if (n_in + n_more > n_slots) {
        PyErr_SetString(PyExc_IndexError, "lazyjit._speedups.run: more buffers than the "
                        "table holds");
        return NULL;
    }
    for (i = 0; i < n_in; i++)
        if (data_of(PyList_GET_ITEM(inputs, i), &B[i]) < 0)
            return NULL;
    if (fresh) {
        Py_ssize_t nb = PyList_GET_SIZE(blocks);
        if (order == Py_None) {
            for (i = 0; i < nb; i++)
                if (data_of(PyList_GET_ITEM(blocks, i), &B[n_in + i]) < 0)
                    return NULL;
        } else {
            Py_ssize_t n = PyTuple_GET_SIZE(order);
            for (i = 0; i < n; i++) {
                Py_ssize_t b = PyLong_AsSsize_t(PyTuple_GET_ITEM(order, i));
                if (b < 0 || b >= nb) {
                    if (!PyErr_Occurred())
                        PyErr_SetString(PyExc_IndexError, "lazyjit._speedups.run: block");
                    return NULL;
                }
                if (data_of(PyList_GET_ITEM(blocks, b), &B[n_in + i]) < 0)
                    return NULL;
            }
        }
    }
    int err;
    Py_BEGIN_ALLOW_THREADS
    err = fn(B, P);
    Py_END_ALLOW_THREADS
    if (err)
        return PyLong_FromLong(err);
    Py_ssize_t n_out = PyTuple_GET_SIZE(outs);
    PyObject *res = PyList_New(n_out);
    if (res == NULL)
        return NULL;
    for (i = 0; i < n_out; i++) {
        PyObject *a = output(PyTuple_GET_ITEM(outs, i), inputs, blocks, fresh);
        if (a == NULL) {
            Py_DECREF(res);
            return NULL;
        }
        PyList_SET_ITEM(res, i, a);
    }
    return res;
}

static PyObject *run(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    if (nargs != 9) {
        PyErr_SetString(PyExc_TypeError, "lazyjit._speedups.run takes 9 arguments");
        return NULL;
    }
    lj_run_fn fn = (lj_run_fn)PyLong_AsVoidPtr(args[0]);
    void **B = (void **)PyLong_AsVoidPtr(args[1]);
    Py_ssize_t n_slots = PyLong_AsSsize_t(args[2]);
    const int64_t *P = (const int64_t *)PyLong_AsVoidPtr(args[3]);
    int fresh = PyObject_IsTrue(args[8]);
    if (PyErr_Occurred())
        return NULL;
    return run_core(fn, B, n_slots, P, args[4], args[5], args[6], args[7], fresh);
}

/* ---- program_run: Program.run of a small program (its blocks kept), whole --------------- */
static PyObject *PR_backend, *PR_counts;  /* (program_init's) */
static PyObject *S_sampled, *S_busy, *S__busy, *S_of, *S_kernels_run, *S__blocks;
static PyObject *S__MACHINE;

static PyObject *program_init(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    /* (the namespace of lazyjit.backends.cpu.backend, lazyjit.stats.COUNTS): its _MACHINE
       and busy are read from it at each call (a test may replace them) */
    if (nargs != 2 || !PyDict_Check(args[0])) {
        PyErr_SetString(PyExc_TypeError, "lazyjit._speedups.program_init(namespace: dict, "
                        "counts)");
        return NULL;
    }
    PyObject **keep[] = {&PR_backend, &PR_counts};
    for (int i = 0; i < 2; i++) {
        Py_INCREF(args[i]);
        Py_XSETREF(*keep[i], args[i]);
    }
    Py_RETURN_NONE;
}

/* whether the machine is busy: backend.busy()'s cheap part (its sample, unless older than
   50 ms on the clock of time.monotonic; else busy() itself); -1: an error */
static int machine_busy(void) {
    PyObject *m = PyDict_GetItemWithError(PR_backend, S__MACHINE);  /* (borrowed) */
    PyObject *fn = m == NULL ? NULL : PyDict_GetItemWithError(PR_backend, S_busy);
    if (fn == NULL) {
        if (!PyErr_Occurred())
            PyErr_SetString(PyExc_RuntimeError, "lazyjit._speedups.program_run: the backend "
                            "has no _MACHINE or busy");
        return -1;
    }
    PyObject *v = PyObject_GetAttr(m, S_sampled);
    double sampled = v == NULL ? -1.0 : PyFloat_AsDouble(v);
    Py_XDECREF(v);
    if (PyErr_Occurred())
        return -1;
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    double now = (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
    v = now - sampled <= 0.05 ? PyObject_GetAttr(m, S_busy) : PyObject_CallNoArgs(fn);
    if (v == NULL)
        return -1;
    int r = PyObject_IsTrue(v);
    Py_DECREF(v);
    return r;
}

static PyObject *program_run(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    /* (fast, inputs, program): fast = Program._fast, (_B, lj_run's address, P's address,
       n_slots, _order, _outs, n_kernels); inputs a list.  The outputs, an error code (the
       table given back), or None when no buffer table is free (Program.run then makes
       one). */
    if (PR_backend == NULL || nargs != 3 || !PyTuple_Check(args[0]) ||
        PyTuple_GET_SIZE(args[0]) != 7 || !PyList_Check(PyTuple_GET_ITEM(args[0], 0)) ||
        !PyList_Check(args[1])) {
        PyErr_SetString(PyExc_TypeError, "lazyjit._speedups.program_run(fast, inputs: list, "
                        "program) (after program_init)");
        return NULL;
    }
    PyObject *fast = args[0], *inputs = args[1], *program = args[2];
    PyObject *tables = PyTuple_GET_ITEM(fast, 0);
    lj_run_fn fn = (lj_run_fn)PyLong_AsVoidPtr(PyTuple_GET_ITEM(fast, 1));
    int64_t *P = (int64_t *)PyLong_AsVoidPtr(PyTuple_GET_ITEM(fast, 2));
    Py_ssize_t n_slots = PyLong_AsSsize_t(PyTuple_GET_ITEM(fast, 3));
    Py_ssize_t n_kernels = PyLong_AsSsize_t(PyTuple_GET_ITEM(fast, 6));
    if (PyErr_Occurred())
        return NULL;
    if (fn == NULL || P == NULL) {
        PyErr_SetString(PyExc_ValueError, "lazyjit._speedups.program_run: a NULL address");
        return NULL;
    }
    int busy = machine_busy();
    if (busy < 0)
        return NULL;
    if (P[0] != busy) {  /* (Program._busy says what P[0] holds, for Program.run) */
        P[0] = busy;
        if (PyObject_SetAttr(program, S__busy, busy ? Py_True : Py_False) < 0)
            return NULL;
    }
    Py_ssize_t n = PyList_GET_SIZE(tables);
    if (n == 0)  /* (every table is in use: a call in another thread) */
        Py_RETURN_NONE;
    PyObject *table = PyList_GET_ITEM(tables, n - 1);  /* (B, address, blocks or None) */
    Py_INCREF(table);
    if (PyList_SetSlice(tables, n - 1, n, NULL) < 0 || !PyTuple_Check(table) ||
        PyTuple_GET_SIZE(table) != 3) {
        if (!PyErr_Occurred())
            PyErr_SetString(PyExc_TypeError, "lazyjit._speedups.program_run: a table is not "
                            "(B, address, blocks)");
        Py_DECREF(table);
        return NULL;
    }
    void **B = (void **)PyLong_AsVoidPtr(PyTuple_GET_ITEM(table, 1));
    PyObject *blocks = PyTuple_GET_ITEM(table, 2);
    int fresh = blocks == Py_None;
    if (!fresh) {  /* an earlier call's blocks, B pointing to them: free again? */
        if (!PyList_Check(blocks)) {
            PyErr_SetString(PyExc_TypeError, "lazyjit._speedups.program_run: blocks");
            Py_DECREF(table);
            return NULL;
        }
        for (Py_ssize_t i = 0; i < PyList_GET_SIZE(blocks) && !fresh; i++)
            fresh = Py_REFCNT(PyList_GET_ITEM(blocks, i)) > 1;  /* (an output in use) */
    }
    if (fresh)
        blocks = PyObject_CallMethodObjArgs(program, S__blocks, inputs, Py_None, NULL);
    else
        Py_INCREF(blocks);
    if (blocks == NULL || PyErr_Occurred()) {
        Py_XDECREF(blocks);
        Py_DECREF(table);
        return NULL;
    }
    PyObject *outs = run_core(fn, B, n_slots, P, inputs, blocks, PyTuple_GET_ITEM(fast, 4),
                              PyTuple_GET_ITEM(fast, 5), fresh);
    if (outs == NULL) {
        Py_DECREF(blocks);
        Py_DECREF(table);
        return NULL;
    }
    /* COUNTS.of["kernels_run"] += n_kernels (this thread's counters) */
    PyObject *of = PyObject_GetAttr(PR_counts, S_of);
    PyObject *c = of == NULL ? NULL : PyDict_GetItemWithError(of, S_kernels_run);
    PyObject *sum = NULL;
    if (c != NULL) {
        PyObject *k = PyLong_FromSsize_t(n_kernels);
        sum = k == NULL ? NULL : PyNumber_Add(c, k);
        Py_XDECREF(k);
    } else if (of != NULL && !PyErr_Occurred()) {
        PyErr_SetString(PyExc_KeyError, "kernels_run");
    }
    int bad = sum == NULL || PyDict_SetItem(of, S_kernels_run, sum) < 0;
    Py_XDECREF(sum);
    Py_XDECREF(of);
    /* the table goes back: with its blocks once the outputs hold them, without after an
       error code (the blocks may be half written) */
    PyObject *back = PyTuple_Pack(3, PyTuple_GET_ITEM(table, 0), PyTuple_GET_ITEM(table, 1),
                                  PyLong_Check(outs) ? Py_None : blocks);
    Py_DECREF(blocks);
    Py_DECREF(table);
    if (back == NULL || bad || PyList_Append(tables, back) < 0) {
        Py_XDECREF(back);
        Py_DECREF(outs);
        return NULL;
    }
    Py_DECREF(back);
    return outs;
}

static PyObject *S_node, *S_buffer, *S_low;  /* interned attribute names */

static PyObject *jit_args(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    if (nargs != 3 || !PyTuple_Check(args[0]) || !PyType_Check(args[1])) {
        PyErr_SetString(PyExc_TypeError, "lazyjit._speedups.jit_args(tuple, type, fn)");
        return NULL;
    }
    PyObject *call = args[0], *tensor_type = args[1], *scalar = args[2];
    Py_ssize_t n = PyTuple_GET_SIZE(call);
    PyObject *sig = PyTuple_New(n), *arrays = PyList_New(n), *low = Py_None;
    Py_INCREF(low);
    if (sig == NULL || arrays == NULL)
        goto fail;
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *a = PyTuple_GET_ITEM(call, i), *arr;
        if ((PyObject *)Py_TYPE(a) == tensor_type) {
            PyObject *node = PyObject_GetAttr(a, S_node);
            if (node == NULL)
                goto fail;
            arr = PyObject_GetAttr(node, S_buffer);
            PyObject *nl = arr == NULL ? NULL : PyObject_GetAttr(node, S_low);
            Py_DECREF(node);
            if (nl == NULL) {
                Py_XDECREF(arr);
                goto fail;
            }
            int older = low == Py_None ? 1 : PyObject_RichCompareBool(nl, low, Py_LT);
            if (older < 0) {
                Py_DECREF(nl);
                Py_DECREF(arr);
                goto fail;
            }
            if (older) {
                Py_SETREF(low, nl);
            } else {
                Py_DECREF(nl);
            }
            if (arr == Py_None || !PyArray_CheckExact(arr)) {  /* (not computed yet) */
                Py_DECREF(arr);
                goto none;
            }
        } else if (PyArray_CheckExact(a)) {
            int flags = PyArray_FLAGS((PyArrayObject *)a);
            if (!(flags & NPY_ARRAY_C_CONTIGUOUS) || !(flags & NPY_ARRAY_ALIGNED))
                goto none;
            arr = a;
            Py_INCREF(arr);
        } else if (PyFloat_CheckExact(a) || PyLong_CheckExact(a)) {
            if (PyLong_CheckExact(a)) {
                int overflow;
                PyLong_AsLongLongAndOverflow(a, &overflow);
                if (overflow)
                    goto none;
            }
            arr = PyObject_CallOneArg(scalar, a);
            if (arr == NULL)
                goto fail;
            PyList_SET_ITEM(arrays, i, arr);
            Py_INCREF(Py_TYPE(a));
            PyTuple_SET_ITEM(sig, i, (PyObject *)Py_TYPE(a));
            continue;
        } else {
            goto none;
        }
        PyList_SET_ITEM(arrays, i, arr);
        PyArrayObject *x = (PyArrayObject *)arr;
        int nd = PyArray_NDIM(x);
        PyObject *shape = PyTuple_New(nd);
        if (shape == NULL)
            goto fail;
        for (int d = 0; d < nd; d++) {
            PyObject *v = PyLong_FromSsize_t(PyArray_DIM(x, d));
            if (v == NULL) {
                Py_DECREF(shape);
                goto fail;
            }
            PyTuple_SET_ITEM(shape, d, v);
        }
        PyObject *pair = PyTuple_Pack(2, shape, (PyObject *)PyArray_DESCR(x));
        Py_DECREF(shape);
        if (pair == NULL)
            goto fail;
        PyTuple_SET_ITEM(sig, i, pair);
    }
    PyObject *res = PyTuple_Pack(3, sig, arrays, low);
    Py_DECREF(sig);
    Py_DECREF(arrays);
    Py_DECREF(low);
    return res;
none:
    Py_XDECREF(sig);
    Py_XDECREF(arrays);
    Py_DECREF(low);
    Py_RETURN_NONE;
fail:
    Py_XDECREF(sig);
    Py_XDECREF(arrays);
    Py_DECREF(low);
    return NULL;
}

static PyObject *creation_site(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    if (nargs != 3 || !PyDict_Check(args[0])) {
        PyErr_SetString(PyExc_TypeError, "lazyjit._speedups.creation_site(dict, fn, int)");
        return NULL;
    }
    Py_ssize_t max_frames = PyLong_AsSsize_t(args[2]);
    if (max_frames == -1 && PyErr_Occurred())
        return NULL;
    if (max_frames < 1 || max_frames > 8) {
        PyErr_SetString(PyExc_ValueError, "lazyjit._speedups.creation_site: max_frames "
                        "must be 1 to 8");
        return NULL;
    }
    return walk(args[0], args[1], max_frames);
}

/* whether ``code`` is lazyjit's own (is_internal's answer, through the ``internal``
 * table), remembered by code object in a small direct-mapped cache holding a reference
 * to each code object it knows (so its address is never another's); -1: an error */
#define WALK_CACHE 512
static struct { PyObject *code; int inside; } walk_cache[WALK_CACHE];
static PyObject *walk_predicate;  /* the is_internal whose answers the cache holds */

void lj_walk_cache_for(PyObject *is_internal) {
    Py_XINCREF(is_internal);
    Py_XSETREF(walk_predicate, is_internal);
    for (int i = 0; i < WALK_CACHE; i++) {
        walk_cache[i].inside = 0;
        Py_CLEAR(walk_cache[i].code);
    }
}

static int is_lazyjits(PyObject *internal, PyObject *is_internal, PyObject *code) {
    size_t slot = ((uintptr_t)code >> 4) % WALK_CACHE;
    int cached = is_internal == walk_predicate;  /* (another predicate: no cache) */
    if (cached && walk_cache[slot].code == code)
        return walk_cache[slot].inside;
    PyObject *id = PyLong_FromVoidPtr(code);
    if (id == NULL)
        return -1;
    PyObject *known = PyDict_GetItemWithError(internal, id);  /* (borrowed) */
    Py_DECREF(id);
    int inside;
    if (known != NULL && PyTuple_GET_ITEM(known, 0) == code) {
        inside = PyTuple_GET_ITEM(known, 1) == Py_True;
    } else if (PyErr_Occurred()) {
        return -1;
    } else {
        PyObject *r = PyObject_CallOneArg(is_internal, code);
        inside = r == NULL ? -1 : PyObject_IsTrue(r);
        Py_XDECREF(r);
        if (inside < 0)
            return -1;
    }
    if (!cached || is_internal != walk_predicate)  /* (the predicate changed meanwhile) */
        return inside;
    walk_cache[slot].inside = inside;  /* (both fields written before the old code object
                                          is dropped, which may run other threads) */
    Py_INCREF(code);
    Py_XSETREF(walk_cache[slot].code, code);
    return inside;
}

PyObject *walk(PyObject *internal, PyObject *is_internal, Py_ssize_t max_frames) {
    PyObject *frames[8];
    Py_ssize_t n = 0;
    PyFrameObject *f = PyEval_GetFrame();  /* (borrowed) the caller's frame */
    Py_XINCREF(f);
    while (f != NULL && n < max_frames) {
        PyCodeObject *code = PyFrame_GetCode(f);  /* (new reference) */
        int inside = is_lazyjits(internal, is_internal, (PyObject *)code);
        if (inside < 0) {
            Py_DECREF(code);
            Py_DECREF(f);
            goto fail;
        }
        if (!inside) {
            PyObject *pair = PyTuple_New(2), *lasti = PyLong_FromLong(PyFrame_GetLasti(f));
            if (pair == NULL || lasti == NULL) {
                Py_XDECREF(pair);
                Py_XDECREF(lasti);
                Py_DECREF(code);
                Py_DECREF(f);
                goto fail;
            }
            PyTuple_SET_ITEM(pair, 0, (PyObject *)code);
            PyTuple_SET_ITEM(pair, 1, lasti);
            frames[n++] = pair;
        } else {
            Py_DECREF(code);
        }
        PyFrameObject *back = PyFrame_GetBack(f);  /* (new reference) */
        Py_DECREF(f);
        f = back;
    }
    Py_XDECREF(f);
    PyObject *t = PyTuple_New(n);
    if (t == NULL)
        goto fail;
    for (Py_ssize_t i = 0; i < n; i++)
        PyTuple_SET_ITEM(t, i, frames[i]);
    return t;
fail:
    for (Py_ssize_t i = 0; i < n; i++)
        Py_DECREF(frames[i]);
    return NULL;
}

static PyMethodDef methods[] = {
    {"run", (PyCFunction)(void (*)(void))run, METH_FASTCALL, "Program.run's loops."},
    {"program_init", (PyCFunction)(void (*)(void))program_init, METH_FASTCALL,
     "program_run's objects: the cpu backend's namespace (its _MACHINE and busy) and "
     "lazyjit.stats' COUNTS."},
    {"program_run", (PyCFunction)(void (*)(void))program_run, METH_FASTCALL,
     "Program.run of a program that keeps its blocks, whole."},
    {"jit_args", (PyCFunction)(void (*)(void))jit_args, METH_FASTCALL,
     "Jitted._lookup's loop over positional arguments."},
    {"creation_site", (PyCFunction)(void (*)(void))creation_site, METH_FASTCALL,
     "The caller's stack outside lazyjit, as (code, f_lasti) pairs."},
    {"structure_init", (PyCFunction)(void (*)(void))structure_init, METH_FASTCALL,
     "structure's constants: the Node class and node.py's tables."},
    {"structure", (PyCFunction)structure, METH_O,
     "lazyjit.trace.node._structure: a new node's structural key."},
    {"trace_key", (PyCFunction)trace_key, METH_O,
     "lazyjit.engine.realize._structural_key: a trace's key from its nodes' keys."},
    {"make_init", (PyCFunction)(void (*)(void))make_init, METH_FASTCALL,
     "make's tables: node.py's and lazyjit.errors'."},
    {"make", (PyCFunction)(void (*)(void))make, METH_FASTCALL,
     "lazyjit.trace.node.Node.make: the hash-consed node."},
    {"make_group", (PyCFunction)(void (*)(void))make_group, METH_FASTCALL,
     "lazyjit.trace.node.make_group: nodes over one tuple of sources."},
    {"forget", (PyCFunction)forget, METH_O,
     "lazyjit.trace.node._forget: a dead node's table entry goes."},
    {"leaf", (PyCFunction)(void (*)(void))leaf, METH_FASTCALL | METH_KEYWORDS,
     "lazyjit.trace.node.Node.leaf: a realized leaf."},
    {"realized", (PyCFunction)(void (*)(void))realized, METH_FASTCALL,
     "lazyjit.engine.realize._leaves: realized tensors refer to leaves of their values."},
    {"elementwise_init", (PyCFunction)(void (*)(void))elementwise_init, METH_FASTCALL,
     "elementwise2's tables: lazyjit.api.core's."},
    {"elementwise2", (PyCFunction)(void (*)(void))elementwise2, METH_FASTCALL,
     "lazyjit.api.core.elementwise's fast paths for two operands, or None."},
    {"tensor_leaf", (PyCFunction)(void (*)(void))tensor_leaf, METH_FASTCALL,
     "Tensor(Node.leaf(array, site=False)): a jitted call's output; with (tag, low), "
     "low not None, its derived is (tag, seq, low)."},
    {"record", (PyCFunction)record, METH_O,
     "Record the nodes make returns in this thread into a list (None: stop)."},
    {"replay", (PyCFunction)(void (*)(void))replay, METH_FASTCALL,
     "Replay a recorded API function's graph over new input nodes."},
    {"memo_init", (PyCFunction)(void (*)(void))memo_init, METH_FASTCALL,
     "Memoized's table: the Tensor class."},
    {"reach", (PyCFunction)(void (*)(void))reach, METH_FASTCALL,
     "lazyjit.trace.through.see_through's walk: the nodes seen, or None."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_speedups", NULL, -1, methods};

PyMODINIT_FUNC PyInit__speedups(void) {
    import_array();
    S_node = PyUnicode_InternFromString("node");
    S_buffer = PyUnicode_InternFromString("buffer");
    S_low = PyUnicode_InternFromString("low");
    PyObject **names[] = {&S_sampled, &S_busy, &S__busy, &S_of, &S_kernels_run, &S__blocks,
                          &S__MACHINE};
    const char *texts[] = {"sampled", "busy", "_busy", "of", "kernels_run", "_blocks",
                           "_MACHINE"};
    for (int i = 0; i < 7; i++)
        if ((*names[i] = PyUnicode_InternFromString(texts[i])) == NULL)
            return NULL;
    if (S_node == NULL || S_buffer == NULL || S_low == NULL || lj_graph_init() < 0)
        return NULL;
    PyObject *m = PyModule_Create(&module);
    /* ABI: the version of these functions' contract (lazyjit.speedups.ABI; an extension
       built from older sources is not used) */
    if (m != NULL && (lj_memo_add_type(m) < 0 || lj_ops_add_type(m) < 0 ||
                      PyModule_AddIntConstant(m, "ABI", 4) < 0))
        Py_CLEAR(m);
    return m;
}
