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
 *       its sources', for one or two sources; others go to the Python function.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#define NPY_NO_DEPRECATED_API NPY_1_7_API_VERSION
#include <numpy/arrayobject.h>
#include <stdint.h>
#include <structmember.h>

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

static PyObject *run(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    if (nargs != 9) {
        PyErr_SetString(PyExc_TypeError, "lazyjit._speedups.run takes 9 arguments");
        return NULL;
    }
    lj_run_fn fn = (lj_run_fn)PyLong_AsVoidPtr(args[0]);
    void **B = (void **)PyLong_AsVoidPtr(args[1]);
    Py_ssize_t n_slots = PyLong_AsSsize_t(args[2]);
    const int64_t *P = (const int64_t *)PyLong_AsVoidPtr(args[3]);
    PyObject *inputs = args[4], *blocks = args[5], *order = args[6], *outs = args[7];
    int fresh = PyObject_IsTrue(args[8]);
    if (PyErr_Occurred())
        return NULL;
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
    PyObject *internal = args[0], *is_internal = args[1];
    Py_ssize_t max_frames = PyLong_AsSsize_t(args[2]);
    if (max_frames == -1 && PyErr_Occurred())
        return NULL;
    if (max_frames < 1 || max_frames > 8) {
        PyErr_SetString(PyExc_ValueError, "lazyjit._speedups.creation_site: max_frames "
                        "must be 1 to 8");
        return NULL;
    }
    PyObject *frames[8];
    Py_ssize_t n = 0;
    PyFrameObject *f = PyEval_GetFrame();  /* (borrowed) the caller's frame */
    Py_XINCREF(f);
    while (f != NULL && n < max_frames) {
        PyCodeObject *code = PyFrame_GetCode(f);  /* (new reference) */
        PyObject *id = PyLong_FromVoidPtr(code);
        if (id == NULL) {
            Py_DECREF(code);
            Py_DECREF(f);
            goto fail;
        }
        PyObject *known = PyDict_GetItemWithError(internal, id);  /* (borrowed) */
        Py_DECREF(id);
        int inside;
        if (known != NULL && PyTuple_GET_ITEM(known, 0) == (PyObject *)code) {
            inside = PyTuple_GET_ITEM(known, 1) == Py_True;
        } else if (PyErr_Occurred()) {
            inside = -1;
        } else {
            PyObject *r = PyObject_CallOneArg(is_internal, (PyObject *)code);
            inside = r == NULL ? -1 : PyObject_IsTrue(r);
            Py_XDECREF(r);
        }
        if (inside < 0) {
            Py_DECREF(code);
            Py_DECREF(f);
            goto fail;
        }
        if (!inside) {
            PyObject *pair = Py_BuildValue("(Ni)", (PyObject *)code, PyFrame_GetLasti(f));
            if (pair == NULL) {
                Py_DECREF(f);
                goto fail;
            }
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

/* ---- structure(node): lazyjit.trace.node._structure, step for step --------------------
 * Sets node.ins, node.sk and node.ep from its sources' (see node.py) for nodes of one or
 * two sources; any other node goes to the Python function (_structure_any).  The Node
 * slots are read and written at their offsets, found once by structure_init from the
 * class's member descriptors. */
static Py_ssize_t O_op, O_src, O_arg, O_shape, O_dtype, O_buffer, O_ins, O_sk, O_ep;
static PyTypeObject *G_node;
static PyObject *G_epoch, *G_numbers, *G_next_number, *G_no_key, *G_fallback, *G_merge;
static PyObject *S_u, *S_b, *S_in, *S_bufop, *G_zero;
static Py_ssize_t G_never, G_input, G_max_ins;

#define SLOT(o, off) (*(PyObject **)((char *)(o) + (off)))

static void set_slot(PyObject *o, Py_ssize_t off, PyObject *v) {  /* steals v */
    PyObject *old = SLOT(o, off);
    SLOT(o, off) = v;
    Py_XDECREF(old);
}

static PyObject *get_slot(PyObject *o, Py_ssize_t off) {  /* borrowed; NULL: unset */
    PyObject *v = SLOT(o, off);
    if (v == NULL)
        PyErr_SetString(PyExc_AttributeError, "lazyjit._speedups.structure: a node slot "
                        "is not set");
    return v;
}

static int offset_of(PyObject *cls, const char *name, Py_ssize_t *out) {
    PyObject *d = PyObject_GetAttrString(cls, name);
    if (d == NULL)
        return -1;
    if (!PyObject_TypeCheck(d, &PyMemberDescr_Type) ||
        ((PyMemberDescrObject *)d)->d_member->type != T_OBJECT_EX) {
        Py_DECREF(d);
        PyErr_Format(PyExc_TypeError, "lazyjit._speedups.structure_init: %s is not a slot",
                     name);
        return -1;
    }
    *out = ((PyMemberDescrObject *)d)->d_member->offset;
    Py_DECREF(d);
    return 0;
}

static PyObject *structure_init(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    /* (Node, EPOCH, _NUMBERS, _next_number, _NO_KEY, NEVER, _INPUT, MAX_INS,
        _structure_any, merge) */
    if (nargs != 10 || !PyType_Check(args[0]) || !PyList_Check(args[1]) ||
        PyList_GET_SIZE(args[1]) != 1 || !PyDict_Check(args[2]) ||
        !PyFrozenSet_Check(args[4])) {
        PyErr_SetString(PyExc_TypeError, "lazyjit._speedups.structure_init: bad arguments");
        return NULL;
    }
    const char *names[] = {"op", "src", "arg", "shape", "dtype", "buffer", "ins", "sk", "ep"};
    Py_ssize_t *offs[] = {&O_op, &O_src, &O_arg, &O_shape, &O_dtype, &O_buffer, &O_ins,
                          &O_sk, &O_ep};
    for (int i = 0; i < 9; i++)
        if (offset_of(args[0], names[i], offs[i]) < 0)
            return NULL;
    G_never = PyLong_AsSsize_t(args[5]);
    G_input = PyLong_AsSsize_t(args[6]);
    G_max_ins = PyLong_AsSsize_t(args[7]);
    if (PyErr_Occurred())
        return NULL;
    PyObject **keep[] = {(PyObject **)&G_node, &G_epoch, &G_numbers, &G_next_number,
                         &G_no_key};
    for (int i = 0; i < 5; i++) {
        Py_INCREF(args[i]);
        Py_XSETREF(*keep[i], args[i]);
    }
    Py_INCREF(args[8]);
    Py_XSETREF(G_fallback, args[8]);
    Py_INCREF(args[9]);
    Py_XSETREF(G_merge, args[9]);
    Py_RETURN_NONE;
}

static PyObject *number(PyObject *key) {  /* node.py's _number; new reference */
    if (key == NULL)
        return NULL;
    PyObject *n = PyDict_GetItemWithError(G_numbers, key);
    if (n != NULL) {
        Py_INCREF(n);
        return n;
    }
    if (PyErr_Occurred())
        return NULL;
    if (PyDict_GET_SIZE(G_numbers) > (1 << 20))
        PyDict_Clear(G_numbers);  /* (later nodes get new numbers: a miss, never a mix-up) */
    n = PyObject_CallNoArgs(G_next_number);
    if (n != NULL && PyDict_SetItem(G_numbers, key, n) < 0)
        Py_CLEAR(n);
    return n;
}

static PyObject *number_of(PyObject *key) {  /* number(key), key's reference dropped */
    PyObject *n = number(key);
    Py_XDECREF(key);
    return n;
}

static PyObject *input_number(PyObject *s) {  /* node.py's _input_number; new reference */
    PyObject *op = get_slot(s, O_op), *shape = get_slot(s, O_shape);
    PyObject *dtype = get_slot(s, O_dtype);
    if (op == NULL || shape == NULL || dtype == NULL)
        return NULL;
    int is_buffer = PyObject_RichCompareBool(op, S_bufop, Py_EQ);
    if (is_buffer < 0)
        return NULL;
    if (!is_buffer)
        return number_of(PyTuple_Pack(3, S_in, shape, dtype));
    PyObject *sk = get_slot(s, O_sk);
    if (sk == NULL)
        return NULL;
    Py_ssize_t v = PyLong_AsSsize_t(sk);
    if (v == -1 && PyErr_Occurred())
        return NULL;
    if (v == G_input) {
        PyObject *n = number_of(PyTuple_Pack(3, S_in, shape, dtype));
        if (n == NULL)
            return NULL;
        Py_INCREF(n);
        set_slot(s, O_sk, n);
        return n;
    }
    Py_INCREF(sk);
    return sk;
}

static PyObject *no_key(PyObject *node) {  /* node.ins, node.sk, node.ep = None, 0, 0 */
    Py_INCREF(Py_None);
    set_slot(node, O_ins, Py_None);
    Py_INCREF(G_zero);
    set_slot(node, O_sk, G_zero);
    Py_INCREF(G_zero);
    set_slot(node, O_ep, G_zero);
    Py_RETURN_NONE;
}

/* set node.ins = ins, node.sk = number(key), node.ep = ep; steals ins and key */
static PyObject *keyed(PyObject *node, PyObject *ins, PyObject *key, Py_ssize_t ep) {
    PyObject *sk = number_of(key), *e = PyLong_FromSsize_t(ep);
    if (sk == NULL || e == NULL) {
        Py_XDECREF(sk);
        Py_XDECREF(e);
        Py_DECREF(ins);
        return NULL;
    }
    set_slot(node, O_ins, ins);
    set_slot(node, O_sk, sk);
    set_slot(node, O_ep, e);
    Py_RETURN_NONE;
}

static int epoch_now(Py_ssize_t *out) {
    *out = PyLong_AsSsize_t(PyList_GET_ITEM(G_epoch, 0));
    return *out == -1 && PyErr_Occurred() ? -1 : 0;
}

/* a source's (ins, k, ep): an input of the trace (its buffer set) or its own key;
   *ins NULL with no error: the source has no key */
static int source_key(PyObject *s, PyObject **ins, PyObject **k, Py_ssize_t *ep,
                      Py_ssize_t input_ep) {
    PyObject *buffer = get_slot(s, O_buffer);
    if (buffer == NULL)
        return -1;
    if (buffer != Py_None) {
        *k = input_number(s);
        if (*k == NULL)
            return -1;
        *ins = PyTuple_Pack(1, s);
        if (*ins == NULL) {
            Py_DECREF(*k);
            return -1;
        }
        *ep = input_ep;
        return 0;
    }
    PyObject *si = get_slot(s, O_ins), *sk = get_slot(s, O_sk), *se = get_slot(s, O_ep);
    if (si == NULL || sk == NULL || se == NULL)
        return -1;
    if (si == Py_None) {
        *ins = NULL;
        return 0;
    }
    if (!PyTuple_Check(si)) {
        PyErr_SetString(PyExc_TypeError, "lazyjit._speedups.structure: ins is not a tuple");
        return -1;
    }
    *ep = PyLong_AsSsize_t(se);
    if (*ep == -1 && PyErr_Occurred())
        return -1;
    Py_INCREF(si);
    Py_INCREF(sk);
    *ins = si;
    *k = sk;
    return 0;
}

static Py_ssize_t find(PyObject *tuple, PyObject *x) {  /* tuple.index(x) by identity, or -1 */
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(tuple); i++)
        if (PyTuple_GET_ITEM(tuple, i) == x)
            return i;
    return -1;
}

/* node.py's merge(ins, si) for short tuples (Python's beyond); new references */
static int merge_c(PyObject *ins, PyObject *si, PyObject **out, PyObject **at) {
    Py_ssize_t ni = PyTuple_GET_SIZE(ins), ns = PyTuple_GET_SIZE(si);
    if (si == ins) {
        Py_INCREF(ins);
        Py_INCREF(Py_None);
        *out = ins;
        *at = Py_None;
        return 0;
    }
    if (ni + ns > 16) {
        PyObject *r = PyObject_CallFunctionObjArgs(G_merge, ins, si, NULL);
        if (r == NULL)
            return -1;
        if (!PyTuple_Check(r) || PyTuple_GET_SIZE(r) != 2) {
            Py_DECREF(r);
            PyErr_SetString(PyExc_TypeError, "lazyjit._speedups.structure: merge result");
            return -1;
        }
        *out = PyTuple_GET_ITEM(r, 0);
        *at = PyTuple_GET_ITEM(r, 1);
        Py_INCREF(*out);
        Py_INCREF(*at);
        Py_DECREF(r);
        return 0;
    }
    PyObject *items[32];
    Py_ssize_t n = 0;
    for (Py_ssize_t i = 0; i < ni; i++)
        items[n++] = PyTuple_GET_ITEM(ins, i);
    for (Py_ssize_t j = 0; j < ns; j++) {
        PyObject *x = PyTuple_GET_ITEM(si, j);
        if (find(ins, x) < 0)
            items[n++] = x;
    }
    PyObject *merged;
    if (n == ni) {
        Py_INCREF(ins);
        merged = ins;
    } else {
        merged = PyTuple_New(n);
        if (merged == NULL)
            return -1;
        for (Py_ssize_t i = 0; i < n; i++) {
            Py_INCREF(items[i]);
            PyTuple_SET_ITEM(merged, i, items[i]);
        }
    }
    PyObject *pos = PyTuple_New(ns);
    if (pos == NULL) {
        Py_DECREF(merged);
        return -1;
    }
    for (Py_ssize_t j = 0; j < ns; j++) {
        PyObject *v = PyLong_FromSsize_t(find(merged, PyTuple_GET_ITEM(si, j)));
        if (v == NULL) {
            Py_DECREF(merged);
            Py_DECREF(pos);
            return -1;
        }
        PyTuple_SET_ITEM(pos, j, v);
    }
    *out = merged;
    *at = pos;
    return 0;
}

static PyObject *structure_one(PyObject *node, PyObject *op, PyObject *s) {
    Py_ssize_t epoch, ep;
    PyObject *ins, *k;
    if (epoch_now(&epoch) < 0 || source_key(s, &ins, &k, &ep, epoch) < 0)
        return NULL;
    if (ins == NULL)
        return no_key(node);
    if (get_slot(s, O_buffer) == Py_None)  /* (a computed source: its epoch, or now's) */
        ep = ep < epoch ? ep : PyTuple_GET_SIZE(ins) ? epoch : G_never;
    PyObject *arg = SLOT(node, O_arg), *shape = SLOT(node, O_shape);
    PyObject *dtype = SLOT(node, O_dtype);
    if (arg == NULL || shape == NULL || dtype == NULL) {
        Py_DECREF(ins);
        Py_DECREF(k);
        return get_slot(node, arg == NULL ? O_arg : shape == NULL ? O_shape : O_dtype);
    }
    PyObject *key = PyTuple_Pack(6, op, arg, shape, dtype, S_u, k);
    Py_DECREF(k);
    if (key == NULL) {
        Py_DECREF(ins);
        return NULL;
    }
    return keyed(node, ins, key, ep);
}

static PyObject *structure_two(PyObject *node, PyObject *op, PyObject *a, PyObject *b) {
    Py_ssize_t epoch, ea, eb;
    PyObject *ia = NULL, *ka = NULL, *ib = NULL, *kb = NULL, *ins = NULL, *at = NULL;
    PyObject *result = NULL;
    if (epoch_now(&epoch) < 0 || source_key(a, &ia, &ka, &ea, G_never) < 0)
        return NULL;
    if (ia == NULL)
        return no_key(node);
    if (source_key(b, &ib, &kb, &eb, G_never) < 0)
        goto done;
    if (ib == NULL) {
        result = no_key(node);
        goto done;
    }
    Py_ssize_t na = PyTuple_GET_SIZE(ia), nb = PyTuple_GET_SIZE(ib);
    if (!na || ib == ia || b == a) {  /* b's inputs at 0, 1, ... (None) */
        ins = na ? ia : ib;
        Py_INCREF(ins);
        at = Py_None;
        Py_INCREF(at);
    } else if (!nb) {  /* (b a constant) */
        ins = ia;
        Py_INCREF(ins);
        at = PyTuple_New(0);
    } else if (nb == 1) {
        PyObject *x = PyTuple_GET_ITEM(ib, 0);
        Py_ssize_t i = find(ia, x);
        if (i >= 0) {
            ins = ia;
            Py_INCREF(ins);
            at = Py_BuildValue("(n)", i);
        } else if (na < G_max_ins) {
            ins = PySequence_Concat(ia, ib);
            at = Py_BuildValue("(n)", na);
        } else {
            result = no_key(node);
            goto done;
        }
    } else {
        if (merge_c(ia, ib, &ins, &at) < 0)
            goto done;
        if (PyTuple_GET_SIZE(ins) > G_max_ins) {
            result = no_key(node);
            goto done;
        }
    }
    if (ins == NULL || at == NULL)
        goto done;
    PyObject *arg = get_slot(node, O_arg), *shape = get_slot(node, O_shape);
    PyObject *dtype = get_slot(node, O_dtype);
    if (arg == NULL || shape == NULL || dtype == NULL)
        goto done;
    PyObject *key = PyTuple_Pack(8, op, arg, shape, dtype, S_b, ka, kb, at);
    if (key == NULL)
        goto done;
    Py_ssize_t ep = epoch;
    if (ea < ep)
        ep = ea;
    if (eb < ep)
        ep = eb;
    result = keyed(node, ins, key, PyTuple_GET_SIZE(ins) ? ep : G_never);
    ins = NULL;  /* (stolen) */
done:
    Py_XDECREF(ia);
    Py_XDECREF(ka);
    Py_XDECREF(ib);
    Py_XDECREF(kb);
    Py_XDECREF(ins);
    Py_XDECREF(at);
    return result;
}

static PyObject *structure(PyObject *self, PyObject *node) {
    if (G_node == NULL || Py_TYPE(node) != G_node) {
        PyErr_SetString(PyExc_TypeError, "lazyjit._speedups.structure: not a Node (or "
                        "structure_init not called)");
        return NULL;
    }
    PyObject *op = get_slot(node, O_op), *src = get_slot(node, O_src);
    if (op == NULL || src == NULL)
        return NULL;
    if (!PyTuple_Check(src)) {
        PyErr_SetString(PyExc_TypeError, "lazyjit._speedups.structure: src is not a tuple");
        return NULL;
    }
    int r = PySet_Contains(G_no_key, op);
    if (r < 0)
        return NULL;
    if (r)
        return no_key(node);
    if (PyTuple_GET_SIZE(src) == 1)
        return structure_one(node, op, PyTuple_GET_ITEM(src, 0));
    if (PyTuple_GET_SIZE(src) == 2)
        return structure_two(node, op, PyTuple_GET_ITEM(src, 0), PyTuple_GET_ITEM(src, 1));
    return PyObject_CallOneArg(G_fallback, node);
}

static PyMethodDef methods[] = {
    {"run", (PyCFunction)(void (*)(void))run, METH_FASTCALL, "Program.run's loops."},
    {"jit_args", (PyCFunction)(void (*)(void))jit_args, METH_FASTCALL,
     "Jitted._lookup's loop over positional arguments."},
    {"creation_site", (PyCFunction)(void (*)(void))creation_site, METH_FASTCALL,
     "The caller's stack outside lazyjit, as (code, f_lasti) pairs."},
    {"structure_init", (PyCFunction)(void (*)(void))structure_init, METH_FASTCALL,
     "structure's constants: the Node class and node.py's tables."},
    {"structure", (PyCFunction)structure, METH_O,
     "lazyjit.trace.node._structure: a new node's structural key."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_speedups", NULL, -1, methods};

PyMODINIT_FUNC PyInit__speedups(void) {
    import_array();
    S_node = PyUnicode_InternFromString("node");
    S_buffer = PyUnicode_InternFromString("buffer");
    S_low = PyUnicode_InternFromString("low");
    S_u = PyUnicode_InternFromString("u");
    S_b = PyUnicode_InternFromString("b");
    S_in = PyUnicode_InternFromString("in");
    S_bufop = PyUnicode_InternFromString("buffer");
    G_zero = PyLong_FromLong(0);
    if (S_node == NULL || S_buffer == NULL || S_low == NULL || S_u == NULL || S_b == NULL ||
        S_in == NULL || S_bufop == NULL || G_zero == NULL)
        return NULL;
    return PyModule_Create(&module);
}
