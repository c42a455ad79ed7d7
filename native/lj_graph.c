/* lazyjit._speedups, the graph's side: a new node's structural key, Node.make and
 * Node.leaf (the functions are described in
 * lj_speedups.c's header comment; the module itself is made there).  Each does the
 * steps of its Python function, which stays the reference: tests/test_speedups.py
 * compares the two on random programs. */
#include "lj_speedups.h"
#include <structmember.h>

static PyObject *S_u, *S_b, *S_m, *S_in, *S_bufop, *S_grad, *S_const, *G_zero, *G_maxsize;

int lj_graph_init(void) {
    S_u = PyUnicode_InternFromString("u");
    S_b = PyUnicode_InternFromString("b");
    S_m = PyUnicode_InternFromString("m");
    S_in = PyUnicode_InternFromString("in");
    S_bufop = PyUnicode_InternFromString("buffer");
    S_grad = PyUnicode_InternFromString("grad");
    S_const = PyUnicode_InternFromString("const");
    G_zero = PyLong_FromLong(0);
    G_maxsize = PyLong_FromSsize_t(PY_SSIZE_T_MAX);  /* (sys.maxsize) */
    return S_u == NULL || S_b == NULL || S_m == NULL || S_in == NULL || S_bufop == NULL ||
           S_grad == NULL || S_const == NULL || G_zero == NULL || G_maxsize == NULL ? -1 : 0;
}

/* ---- structure(node): lazyjit.trace.node._structure, step for step --------------------
 * Sets node.ins, node.sk and node.ep from its sources' (see node.py): written out for
 * one and two sources, as there, and _structure_any's loop for the others.  The Node
 * slots are read and written at their offsets, found once by structure_init from the
 * class's member descriptors. */
static Py_ssize_t O_op, O_src, O_arg, O_shape, O_dtype, O_buffer, O_ins, O_sk, O_ep;
static PyTypeObject *G_node;
static PyObject *G_epoch, *G_no_key, *G_merge;
static Py_ssize_t G_never, G_input, G_max_ins;
static PyObject *G_never_obj, *G_input_obj, *G_no_src;

#define SLOT(o, off) (*(PyObject **)((char *)(o) + (off)))

/* the hash-consing table's dictionary operations with the key's hash computed once
 * (CPython's known-hash variants, private: from 3.13 on, where most of them are
 * internal, the plain calls, which hash again) */
#if PY_VERSION_HEX < 0x030D0000
#define KEY_HASH(k) PyObject_Hash(k)
#define DICT_GET_KH(d, k, h) _PyDict_GetItem_KnownHash((d), (k), (h))
#define DICT_SET_KH(d, k, v, h) _PyDict_SetItem_KnownHash((d), (k), (v), (h))
#define DICT_DEL_KH(d, k, h) _PyDict_DelItem_KnownHash((d), (k), (h))
#else
#define KEY_HASH(k) ((Py_hash_t)0)  /* (unused: each call hashes the key itself) */
#define DICT_GET_KH(d, k, h) PyDict_GetItemWithError((d), (k))
#define DICT_SET_KH(d, k, v, h) PyDict_SetItem((d), (k), (v))
#define DICT_DEL_KH(d, k, h) PyDict_DelItem((d), (k))
#endif

void set_slot(PyObject *o, Py_ssize_t off, PyObject *v) {  /* steals v */
    PyObject *old = SLOT(o, off);
    SLOT(o, off) = v;
    Py_XDECREF(old);
}

PyObject *get_slot(PyObject *o, Py_ssize_t off) {  /* borrowed; NULL: unset */
    PyObject *v = SLOT(o, off);
    if (v == NULL)
        PyErr_SetString(PyExc_AttributeError, "lazyjit._speedups: a slot is not set");
    return v;
}

int offset_of(PyObject *cls, const char *name, Py_ssize_t *out) {
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

PyObject *structure_init(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    /* (Node, EPOCH, _NUMBERS, _next_number, _NO_KEY, NEVER, _INPUT, MAX_INS, merge) */
    if (nargs != 9 || !PyType_Check(args[0]) || !PyList_Check(args[1]) ||
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
    lj_numbers_init(args[2], args[3]);  /* (_NUMBERS and _next_number: lj_numbers.c's) */
    Py_XSETREF(G_node, (PyTypeObject *)Py_NewRef(args[0]));
    Py_XSETREF(G_epoch, Py_NewRef(args[1]));
    Py_XSETREF(G_no_key, Py_NewRef(args[4]));
    Py_INCREF(args[5]);
    Py_XSETREF(G_never_obj, args[5]);
    Py_INCREF(args[6]);
    Py_XSETREF(G_input_obj, args[6]);
    if (G_no_src == NULL && (G_no_src = PyTuple_New(0)) == NULL)
        return NULL;
    Py_INCREF(args[8]);
    Py_XSETREF(G_merge, args[8]);
    Py_RETURN_NONE;
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
        return lj_number((PyObject *[]){S_in, shape, dtype}, 3, NULL);
    PyObject *sk = get_slot(s, O_sk);
    if (sk == NULL)
        return NULL;
    Py_ssize_t v = PyLong_AsSsize_t(sk);
    if (v == -1 && PyErr_Occurred())
        return NULL;
    if (v == G_input) {
        PyObject *n = lj_number((PyObject *[]){S_in, shape, dtype}, 3, NULL);
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

/* the int ep: NEVER's shared object, or the last other one's, kept (a step's nodes
   share the epoch now) */
static PyObject *epoch_int(Py_ssize_t ep) {
    static PyObject *last;
    if (ep == G_never)
        return Py_NewRef(G_never_obj);
    if (last == NULL || PyLong_AsSsize_t(last) != ep) {
        PyObject *e = PyLong_FromSsize_t(ep);
        if (e == NULL)
            return NULL;
        Py_XSETREF(last, e);
    }
    return Py_NewRef(last);
}

/* set node.ins = ins, node.sk = number(tuple(items)), node.ep = ep; steals ins */
static PyObject *keyed(PyObject *node, PyObject *ins, PyObject *const *items, Py_ssize_t n,
                       Py_ssize_t ep) {
    PyObject *sk = lj_number(items, n, NULL), *e = sk != NULL ? epoch_int(ep) : NULL;
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
            Py_CLEAR(*k);  /* (the caller's cleanup must not drop it again) */
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

/* trace_key(nodes): lazyjit.engine.realize._structural_key, step for step: ``(key,
 * inputs)`` of the trace of the list ``nodes`` from their structural keys, or None where
 * a node has none or its graph may have been computed since (its epoch is not now) */
PyObject *trace_key(PyObject *self, PyObject *nodes) {
    if (G_epoch == NULL || !PyList_CheckExact(nodes)) {
        PyErr_SetString(PyExc_TypeError, "lazyjit._speedups.trace_key(nodes: list) (after "
                        "structure_init)");
        return NULL;
    }
    Py_ssize_t epoch, n = PyList_GET_SIZE(nodes);
    if (epoch_now(&epoch) < 0)
        return NULL;
    PyObject *ins = PyTuple_New(0), *parts = PyTuple_New(n);
    if (ins == NULL || parts == NULL)
        goto fail;
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *node = PyList_GET_ITEM(nodes, i);
        if (Py_TYPE(node) != G_node) {
            PyErr_SetString(PyExc_TypeError, "lazyjit._speedups.trace_key: not a Node");
            goto fail;
        }
        PyObject *ni = get_slot(node, O_ins), *sk = get_slot(node, O_sk);
        PyObject *e = get_slot(node, O_ep);
        if (ni == NULL || sk == NULL || e == NULL)
            goto fail;
        Py_ssize_t ep = PyLong_AsSsize_t(e);
        if (ep == -1 && PyErr_Occurred())
            goto fail;
        if (ni == Py_None || (ep != epoch && ep != G_never)) {
            Py_DECREF(ins);
            Py_DECREF(parts);
            Py_RETURN_NONE;
        }
        if (!PyTuple_Check(ni)) {
            PyErr_SetString(PyExc_TypeError, "lazyjit._speedups.trace_key: ins is not a tuple");
            goto fail;
        }
        if (n == 1) {  /* (one node: its own key and inputs) */
            Py_DECREF(ins);
            Py_DECREF(parts);
            return PyTuple_Pack(2, sk, ni);
        }
        PyObject *merged, *at;
        if (merge_c(ins, ni, &merged, &at) < 0)
            goto fail;
        Py_SETREF(ins, merged);
        PyObject *part = PyTuple_Pack(2, sk, at);
        Py_DECREF(at);
        if (part == NULL)
            goto fail;
        PyTuple_SET_ITEM(parts, i, part);
    }
    PyObject *r = PyTuple_Pack(2, parts, ins);
    Py_DECREF(ins);
    Py_DECREF(parts);
    return r;
fail:
    Py_XDECREF(ins);
    Py_XDECREF(parts);
    return NULL;
}

/* h: the node's (op, arg, shape, dtype), read once by structure */
static PyObject *structure_one(PyObject *node, PyObject *const *h, PyObject *s) {
    Py_ssize_t epoch, ep;
    PyObject *ins, *k;
    if (epoch_now(&epoch) < 0 || source_key(s, &ins, &k, &ep, epoch) < 0)
        return NULL;
    if (ins == NULL)
        return no_key(node);
    if (get_slot(s, O_buffer) == Py_None)  /* (a computed source: its epoch, or now's) */
        ep = ep < epoch ? ep : PyTuple_GET_SIZE(ins) ? epoch : G_never;
    PyObject *r = keyed(node, ins, (PyObject *[]){h[0], h[1], h[2], h[3], S_u, k}, 6, ep);
    Py_DECREF(k);
    return r;
}

static PyObject *structure_two(PyObject *node, PyObject *const *h, PyObject *a,
                               PyObject *b) {
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
    Py_ssize_t ep = epoch;
    if (ea < ep)
        ep = ea;
    if (eb < ep)
        ep = eb;
    result = keyed(node, ins, (PyObject *[]){h[0], h[1], h[2], h[3], S_b, ka, kb, at}, 8,
                   PyTuple_GET_SIZE(ins) ? ep : G_never);
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

/* the sources' part of the structural key of a node of several sources (node.py's
 * _sources_key): the inputs its trace reads (*ins), the number of its sources' keys and
 * their inputs' positions (*tail) and the oldest epoch below (*ep); 1, or 0 where the
 * node gets no key, or -1 (an error) */
static int sources_key(PyObject *src, PyObject **ins, PyObject **tail, Py_ssize_t *ep) {
    Py_ssize_t n = PyTuple_GET_SIZE(src), epoch;
    if (epoch_now(&epoch) < 0)
        return -1;
    *ep = epoch;
    PyObject *parts = PyTuple_New(n), *in = Py_NewRef(G_no_src);
    int result = -1;
    if (parts == NULL) {
        Py_DECREF(in);
        return -1;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *si, *k, *part;
        Py_ssize_t sep;  /* (an input's: NEVER, which lowers nothing) */
        if (source_key(PyTuple_GET_ITEM(src, i), &si, &k, &sep, G_never) < 0)
            goto done;
        if (si == NULL) {
            result = 0;
            goto done;
        }
        if (sep < *ep)
            *ep = sep;
        if (PyTuple_GET_SIZE(si) == 0) {  /* (a constant: no inputs) */
            Py_DECREF(si);
            PyTuple_SET_ITEM(parts, i, k);
            continue;
        }
        if (PyTuple_GET_SIZE(in)) {
            PyObject *merged, *at;
            int bad = merge_c(in, si, &merged, &at);
            Py_DECREF(si);
            if (bad < 0) {
                Py_DECREF(k);
                goto done;
            }
            Py_SETREF(in, merged);
            part = PyTuple_Pack(2, k, at);
            Py_DECREF(at);
        } else {  /* (its inputs come first, in their order) */
            Py_SETREF(in, si);
            part = PyTuple_Pack(2, k, Py_None);
        }
        Py_DECREF(k);
        if (part == NULL)
            goto done;
        PyTuple_SET_ITEM(parts, i, part);
    }
    if (PyTuple_GET_SIZE(in) > G_max_ins) {
        result = 0;
        goto done;
    }
    *tail = lj_number(&PyTuple_GET_ITEM(parts, 0), PyTuple_GET_SIZE(parts), parts);
    Py_CLEAR(parts);
    if (*tail == NULL)
        goto done;
    *ins = in;
    return 1;
done:
    Py_DECREF(in);
    Py_XDECREF(parts);
    return result;
}

/* make_group's sources (held while it runs) and their sources_key, kept for the
 * group's next nodes: G_group_state 0 none yet, else sources_key's result */
static PyObject *G_group_src, *G_group_ins, *G_group_tail;
static Py_ssize_t G_group_ep;
static int G_group_state;

/* node.py's _structure_any: any number of sources (a const: none) */
static PyObject *structure_many(PyObject *node, PyObject *const *h, PyObject *src) {
    if (PyTuple_GET_SIZE(src) == 0) {
        int c = PyObject_RichCompareBool(h[0], S_const, Py_EQ);
        if (c <= 0)
            return c < 0 ? NULL : no_key(node);
        Py_INCREF(G_no_src);
        return keyed(node, G_no_src, (PyObject *[]){S_const, h[1], h[3]}, 3, G_never);
    }
    PyObject *ins, *tail;
    Py_ssize_t ep;
    int r;
    if (src == G_group_src && G_group_state) {  /* (a group's sources, keyed before) */
        r = G_group_state;
        if (r > 0) {
            ins = Py_NewRef(G_group_ins);
            tail = Py_NewRef(G_group_tail);
            ep = G_group_ep;
        }
    } else {
        r = sources_key(src, &ins, &tail, &ep);
        if (r < 0)
            return NULL;
        if (src == G_group_src && G_group_state == 0) {  /* (unless Python code it ran
                                                          stored them meanwhile) */
            G_group_state = r ? 1 : -1;
            if (r > 0) {
                G_group_ins = Py_NewRef(ins);
                G_group_tail = Py_NewRef(tail);
                G_group_ep = ep;
            }
        }
    }
    if (r <= 0)
        return no_key(node);
    PyObject *res = keyed(node, ins, (PyObject *[]){h[0], h[1], h[2], h[3], S_m, tail}, 6,
                          PyTuple_GET_SIZE(ins) ? ep : G_never);
    Py_DECREF(tail);
    return res;
}

PyObject *structure(PyObject *self, PyObject *node) {
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
    /* (borrowed from the node, which the caller holds; a node's slots never change) */
    PyObject *h[4] = {op, get_slot(node, O_arg), get_slot(node, O_shape),
                      get_slot(node, O_dtype)};
    if (h[1] == NULL || h[2] == NULL || h[3] == NULL)
        return NULL;
    if (PyTuple_GET_SIZE(src) == 1)
        return structure_one(node, h, PyTuple_GET_ITEM(src, 0));
    if (PyTuple_GET_SIZE(src) == 2)
        return structure_two(node, h, PyTuple_GET_ITEM(src, 0), PyTuple_GET_ITEM(src, 1));
    return structure_many(node, h, src);
}

/* ---- make(op, src, arg, shape, dtype): lazyjit.trace.node.Node.make, step for step -----
 * The hash-consing lookup, and on a miss the new node: its slots, creation site (the
 * walk of creation_site), creation number, low (node.py's _low_of), structural key
 * (structure above) and weak entry in the table; a node made while symbolic-size
 * requirements are pending gets them attached. */
static Py_ssize_t O_site, O_derived, O_seq, O_low, O_refkey, O_refhash;
static PyObject *M_cache, *M_ref, *M_forget, *M_ids, *M_pending, *M_attach;
static PyObject *M_internal, *M_is_internal, *M_callback, *M_dim;
static Py_ssize_t M_frames;

PyObject *make_init(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    /* (_CACHE, _Ref, _forget, _leaf_ids, PENDING, _attach, _INTERNAL, is_internal,
        _MAX_FRAMES, forget, Dim): forget, this module's, is the weak references'
        callback, _forget its fallback for keys holding a Dim */
    if (G_node == NULL || nargs != 11 || !PyDict_Check(args[0]) || !PyType_Check(args[1]) ||
        !PyList_Check(args[4]) || !PyDict_Check(args[6])) {
        PyErr_SetString(PyExc_TypeError, "lazyjit._speedups.make_init: bad arguments (or "
                        "structure_init not called)");
        return NULL;
    }
    const char *names[] = {"site", "derived", "seq", "low"};
    Py_ssize_t *offs[] = {&O_site, &O_derived, &O_seq, &O_low};
    for (int i = 0; i < 4; i++)
        if (offset_of((PyObject *)G_node, names[i], offs[i]) < 0)
            return NULL;
    if (offset_of(args[1], "key", &O_refkey) < 0 || offset_of(args[1], "hash", &O_refhash) < 0)
        return NULL;
    M_frames = PyLong_AsSsize_t(args[8]);
    if (M_frames == -1 && PyErr_Occurred())
        return NULL;
    if (M_frames < 1 || M_frames > 8) {
        PyErr_SetString(PyExc_ValueError, "lazyjit._speedups.make_init: max_frames 1 to 8");
        return NULL;
    }
    PyObject **keep[] = {&M_cache, &M_ref, &M_forget, &M_ids, &M_pending, &M_attach,
                         &M_internal, &M_is_internal};
    for (int i = 0; i < 8; i++) {
        Py_INCREF(args[i]);
        Py_XSETREF(*keep[i], args[i]);
    }
    Py_INCREF(args[9]);
    Py_XSETREF(M_callback, args[9]);
    lj_walk_cache_for(M_is_internal);
    Py_INCREF(args[10]);
    Py_XSETREF(M_dim, args[10]);
    Py_RETURN_NONE;
}

static int attach_pending(PyObject *node) {  /* if PENDING: _attach(node) */
    if (PyList_GET_SIZE(M_pending) == 0)
        return 0;
    PyObject *r = PyObject_CallOneArg(M_attach, node);
    Py_XDECREF(r);
    return r == NULL ? -1 : 0;
}

static PyObject *low_of(PyObject *node, PyObject *op, PyObject *src) {  /* new reference */
    Py_ssize_t n = PyTuple_GET_SIZE(src);
    int grad = PyObject_RichCompareBool(op, S_grad, Py_EQ);
    if (grad < 0)
        return NULL;
    if (grad || n == 0) {  /* (the node's seq, set by now; a constant's: sys.maxsize) */
        int c = n == 0 ? PyObject_RichCompareBool(op, S_const, Py_EQ) : 0;
        PyObject *seq = get_slot(node, O_seq);
        if (c < 0 || seq == NULL)
            return NULL;
        return Py_NewRef(c ? G_maxsize : seq);
    }
    PyObject *best = NULL;
    Py_ssize_t low = 0;
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *v = get_slot(PyTuple_GET_ITEM(src, i), O_low);
        if (v == NULL)
            return NULL;
        Py_ssize_t x = PyLong_AsSsize_t(v);
        if (x == -1 && PyErr_Occurred())
            return NULL;
        if (best == NULL || x < low) {
            best = v;
            low = x;
        }
    }
    Py_INCREF(best);
    return best;
}

PyTypeObject *lj_node_slots(lj_node_offsets *o) {
    o->op = O_op;
    o->src = O_src;
    o->seq = O_seq;
    o->derived = O_derived;
    o->shape = O_shape;
    o->dtype = O_dtype;
    o->buffer = O_buffer;
    o->site = O_site;
    o->low = O_low;
    return M_cache == NULL ? NULL : G_node;  /* (the offsets are set by then) */
}

/* whether x holds no symbolic size (a Dim, whose hash must run in a frame of lazyjit's
 * own: see trace/dims.py), in tuples at any depth */
static int plain(PyObject *x) {
    if (!PyTuple_Check(x))
        return (PyObject *)Py_TYPE(x) != M_dim;
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(x); i++)
        if (!plain(PyTuple_GET_ITEM(x, i)))
            return 0;
    return 1;
}

/* forget(ref): node.py's _forget, the weak reference's callback when its node dies: the
 * table's entry of the node's key goes, unless a newer node holds it already (a key
 * whose hash runs Python code goes through _forget itself) */
PyObject *forget(PyObject *self, PyObject *ref) {
    if (M_cache == NULL || (PyObject *)Py_TYPE(ref) != M_ref) {
        PyErr_SetString(PyExc_TypeError, "lazyjit._speedups.forget(ref: node._Ref) (after "
                        "make_init)");
        return NULL;
    }
    PyObject *key = *(PyObject **)((char *)ref + O_refkey);
    if (key == NULL)  /* (not keyed yet: nothing of it in the table) */
        Py_RETURN_NONE;
    if (!plain(key))
        return PyObject_CallOneArg(M_forget, ref);
    Py_INCREF(key);
    PyObject *stored = *(PyObject **)((char *)ref + O_refhash);  /* (make's hash of key) */
    Py_hash_t h = stored != NULL ? PyLong_AsSsize_t(stored) : KEY_HASH(key);
    PyObject *held = h == -1 ? NULL : DICT_GET_KH(M_cache, key, h);
    int bad = held == ref ? DICT_DEL_KH(M_cache, key, h) : held == NULL && PyErr_Occurred();
    Py_DECREF(key);
    if (bad)
        return NULL;
    Py_RETURN_NONE;
}

static PyObject *make_node(PyObject *const *args, Py_ssize_t nargs, PyObject **site);

PyObject *make(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    return lj_make_sited(args, nargs, NULL);
}

/* make, where ``site`` (unless NULL) holds the creation site to give a new node: NULL
 * there, the stack is walked for it, and it is kept there for the caller's next nodes
 * (a new reference): nodes made in one C call have one site */
PyObject *lj_make_sited(PyObject *const *args, Py_ssize_t nargs, PyObject **site) {
    PyObject *node = make_node(args, nargs, site);  /* (and the recording's, if one is
                                                       under way) */
    if (node != NULL && lj_record_made(node) < 0)
        Py_CLEAR(node);
    return node;
}

static PyObject *make_node(PyObject *const *args, Py_ssize_t nargs, PyObject **site) {
    if (M_cache == NULL || nargs != 5 || !PyTuple_Check(args[1])) {
        PyErr_SetString(PyExc_TypeError, "lazyjit._speedups.make(op, src: tuple, arg, "
                        "shape, dtype) (after make_init)");
        return NULL;
    }
    PyObject *op = args[0], *src = args[1];
    Py_ssize_t ns = PyTuple_GET_SIZE(src);
    for (Py_ssize_t i = 0; i < ns; i++)
        if (Py_TYPE(PyTuple_GET_ITEM(src, i)) != G_node) {
            PyErr_SetString(PyExc_TypeError, "lazyjit._speedups.make: a source is not a Node");
            return NULL;
        }
    /* (op, arg, shape, dtype, src): nodes hash and compare by identity */
    PyObject *key = PyTuple_Pack(5, op, args[2], args[3], args[4], src);
    if (key == NULL)
        return NULL;
    Py_hash_t hash = KEY_HASH(key);
    if (hash == -1) {
        Py_DECREF(key);
        return NULL;
    }
    PyObject *ref = DICT_GET_KH(M_cache, key, hash);  /* (borrowed) */
    if (ref != NULL) {
        PyObject *alive = PyWeakref_GetObject(ref);  /* (borrowed; None: dead) */
        if (alive == NULL) {
            Py_DECREF(key);
            return NULL;
        }
        if (alive != Py_None) {
            Py_INCREF(alive);
            Py_DECREF(key);
            if (attach_pending(alive) < 0) {
                Py_DECREF(alive);
                return NULL;
            }
            return alive;
        }
    } else if (PyErr_Occurred()) {
        Py_DECREF(key);
        return NULL;
    }
    PyObject *node = G_node->tp_alloc(G_node, 0);
    if (node == NULL) {
        Py_DECREF(key);
        return NULL;
    }
    Py_ssize_t slots[5] = {O_op, O_src, O_arg, O_shape, O_dtype};
    for (int i = 0; i < 5; i++) {
        Py_INCREF(args[i]);
        set_slot(node, slots[i], args[i]);
    }
    Py_INCREF(Py_None);
    set_slot(node, O_buffer, Py_None);
    Py_INCREF(Py_None);
    set_slot(node, O_derived, Py_None);
    PyObject *v = site != NULL && *site != NULL ? Py_NewRef(*site)
                                                : walk(M_internal, M_is_internal, M_frames);
    if (v == NULL)
        goto fail;
    if (site != NULL && *site == NULL)
        *site = Py_NewRef(v);
    set_slot(node, O_site, v);
    if ((v = PyIter_Next(M_ids)) == NULL) {
        if (!PyErr_Occurred())
            PyErr_SetString(PyExc_RuntimeError, "lazyjit._speedups.make: no creation number");
        goto fail;
    }
    set_slot(node, O_seq, v);
    if ((v = low_of(node, op, src)) == NULL)
        goto fail;
    set_slot(node, O_low, v);
    if ((v = structure(NULL, node)) == NULL)
        goto fail;
    Py_DECREF(v);
    /* _Ref(node, callback): its __new__ only (weakref's __init__ checks the arguments) */
    PyObject *pair = PyTuple_Pack(2, node, M_callback);
    ref = pair == NULL ? NULL : ((PyTypeObject *)M_ref)->tp_new((PyTypeObject *)M_ref, pair,
                                                                 NULL);
    Py_XDECREF(pair);
    if (ref == NULL)
        goto fail;
    Py_INCREF(key);
    set_slot(ref, O_refkey, key);
    if (PY_VERSION_HEX < 0x030D0000) {  /* (forget's lookup, with no hash of the key) */
        if ((v = PyLong_FromSsize_t(hash)) == NULL) {
            Py_DECREF(ref);
            goto fail;
        }
        set_slot(ref, O_refhash, v);
    }
    int bad = DICT_SET_KH(M_cache, key, ref, hash);
    Py_DECREF(ref);
    if (bad < 0 || attach_pending(node) < 0)
        goto fail;
    Py_DECREF(key);
    return node;
fail:
    Py_DECREF(key);
    Py_DECREF(node);
    return NULL;
}

/* make_group(op, src, specs): [make(op, src, *spec) for spec in specs], one creation
 * site for all and the sources' part of their structural keys computed once (a deferred
 * gradient's nodes, one per wrt, over one tuple of sources).  While one runs, a group
 * begun by Python code it runs (in this thread or another) computes its keys as make */
PyObject *make_group(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    if (M_cache == NULL || nargs != 3 || !PyTuple_Check(args[1]) ||
        !PyList_CheckExact(args[2])) {
        PyErr_SetString(PyExc_TypeError, "lazyjit._speedups.make_group(op, src: tuple, specs: "
                        "list of (arg, shape, dtype)) (after make_init)");
        return NULL;
    }
    PyObject *src = args[1], *specs = args[2], *site = NULL;
    Py_ssize_t n = PyList_GET_SIZE(specs);
    PyObject *out = PyList_New(n);
    if (out == NULL)
        return NULL;
    int mine = G_group_src == NULL;
    if (mine) {
        G_group_src = Py_NewRef(src);
        G_group_state = 0;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *spec = i < PyList_GET_SIZE(specs) ? PyList_GET_ITEM(specs, i) : NULL;
        if (spec == NULL || !PyTuple_Check(spec) || PyTuple_GET_SIZE(spec) != 3) {
            PyErr_SetString(PyExc_TypeError, "lazyjit._speedups.make_group: a spec is not "
                            "(arg, shape, dtype)");
            Py_CLEAR(out);
            break;
        }
        PyObject *margs[5] = {args[0], src, PyTuple_GET_ITEM(spec, 0),
                              PyTuple_GET_ITEM(spec, 1), PyTuple_GET_ITEM(spec, 2)};
        PyObject *node = lj_make_sited(margs, 5, &site);
        if (node == NULL) {
            Py_CLEAR(out);
            break;
        }
        PyList_SET_ITEM(out, i, node);
    }
    if (mine) {  /* (the cache emptied first: the references' release may run code) */
        PyObject *kept[3] = {G_group_src, NULL, NULL};
        if (G_group_state > 0) {
            kept[1] = G_group_ins;
            kept[2] = G_group_tail;
        }
        G_group_state = 0;
        G_group_src = G_group_ins = G_group_tail = NULL;
        for (int i = 0; i < 3; i++)
            Py_XDECREF(kept[i]);
    }
    Py_XDECREF(site);
    return out;
}

/* leaf(array, site=True): lazyjit.trace.node.Node.leaf, step for step (a realized leaf
 * holding ``array``; ``site`` a tuple to keep, else the caller's site walked when true) */
PyObject *leaf(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
    PyObject *site = Py_True;
    Py_ssize_t nk = kwnames == NULL ? 0 : PyTuple_GET_SIZE(kwnames);
    if (M_cache == NULL || nargs + nk < 1 || nargs + nk > 2 || nargs < 1 ||
        (nk == 1 && PyUnicode_CompareWithASCIIString(PyTuple_GET_ITEM(kwnames, 0), "site"))) {
        PyErr_SetString(PyExc_TypeError, "lazyjit._speedups.leaf(array, site=True) (after "
                        "make_init)");
        return NULL;
    }
    if (nargs + nk == 2)
        site = args[1];
    PyObject *array = args[0];
    PyObject *shape = PyObject_GetAttrString(array, "shape");
    PyObject *dtype = shape == NULL ? NULL : PyObject_GetAttrString(array, "dtype");
    if (dtype == NULL) {
        Py_XDECREF(shape);
        return NULL;
    }
    PyObject *where;
    if (PyTuple_CheckExact(site)) {
        Py_INCREF(site);
        where = site;
    } else {
        int walk_it = PyObject_IsTrue(site);
        where = walk_it < 0 ? NULL : walk_it ? walk(M_internal, M_is_internal, M_frames)
                                             : Py_NewRef(G_no_src);
    }
    PyObject *seq = where == NULL ? NULL : PyIter_Next(M_ids);
    PyObject *node = seq == NULL ? NULL : G_node->tp_alloc(G_node, 0);
    if (node == NULL) {
        if (where != NULL && seq == NULL && !PyErr_Occurred())
            PyErr_SetString(PyExc_RuntimeError, "lazyjit._speedups.leaf: no creation number");
        Py_DECREF(shape);
        Py_DECREF(dtype);
        Py_XDECREF(where);
        Py_XDECREF(seq);
        return NULL;
    }
    Py_ssize_t offs[] = {O_op, O_src, O_arg, O_seq, O_low, O_shape, O_dtype, O_site,
                         O_buffer, O_derived, O_ins, O_sk, O_ep};
    PyObject *vals[] = {S_bufop, G_no_src, seq, seq, seq, shape, dtype, where, array,
                        Py_None, Py_None, G_input_obj, G_never_obj};
    for (int i = 0; i < 13; i++) {
        Py_INCREF(vals[i]);
        set_slot(node, offs[i], vals[i]);
    }
    Py_DECREF(shape);
    Py_DECREF(dtype);
    Py_DECREF(where);
    Py_DECREF(seq);
    return node;
}
