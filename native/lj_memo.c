/* lazyjit._speedups, eager graph building: the replay of an API function's graph (lazyjit/api/memo.py):
 *
 *   record(list)  /  record(None)
 *       Start appending every node ``make`` returns in this thread to ``list`` (True), or
 *       say that a recording is under way already, in this thread or another (False);
 *       record(None) ends the recording.
 *
 *   replay(program, nodes, out)
 *       Tensor(v[out]) where v starts as the input ``nodes`` and each entry of
 *       ``program`` appends one value: a Node (a node the function read from elsewhere,
 *       kept as it was), or ``(op, sources, arg, shape, dtype)``, the node
 *       ``make(op, tuple(v[i] for i in sources), arg, shape, dtype)`` gives.
 *
 * The recording and the program are memo.py's; this file only runs their loops.  And
 * the walk of lazyjit.trace.through.see_through, which every lj.grad of eager code runs
 * (reach, below). */
#include "lj_speedups.h"
#include <pythread.h>
#include <structmember.h>

static PyObject *R_list;          /* the recording's list, or NULL */
static unsigned long R_thread;    /* the thread recording */

int lj_record_made(PyObject *node) {
    if (R_list != NULL && PyThread_get_thread_ident() == R_thread)
        return PyList_Append(R_list, node);
    return 0;
}

PyObject *record(PyObject *self, PyObject *arg) {
    if (arg == Py_None) {
        if (R_list != NULL && PyThread_get_thread_ident() == R_thread)
            Py_CLEAR(R_list);
        Py_RETURN_NONE;
    }
    if (!PyList_CheckExact(arg)) {
        PyErr_SetString(PyExc_TypeError, "lazyjit._speedups.record(list or None)");
        return NULL;
    }
    if (R_list != NULL)
        Py_RETURN_FALSE;
    Py_INCREF(arg);
    R_list = arg;
    R_thread = PyThread_get_thread_ident();
    Py_RETURN_TRUE;
}

PyObject *replay(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    if (nargs != 3 || !PyTuple_CheckExact(args[0]) || !PyTuple_CheckExact(args[1])) {
        PyErr_SetString(PyExc_TypeError, "lazyjit._speedups.replay(program: tuple, nodes: "
                        "tuple, out: int)");
        return NULL;
    }
    PyObject *program = args[0], *nodes = args[1];
    Py_ssize_t out = PyLong_AsSsize_t(args[2]);
    if (out == -1 && PyErr_Occurred())
        return NULL;
    Py_ssize_t n_in = PyTuple_GET_SIZE(nodes), n = n_in + PyTuple_GET_SIZE(program);
    if (out < 0 || out >= n) {
        PyErr_SetString(PyExc_IndexError, "lazyjit._speedups.replay: out of range");
        return NULL;
    }
    PyObject **v = PyMem_New(PyObject *, n);
    if (v == NULL)
        return PyErr_NoMemory();
    Py_ssize_t k = 0;
    PyObject *result = NULL, *site = NULL;  /* (one creation site: one user's line) */
    for (; k < n_in; k++)
        v[k] = Py_NewRef(PyTuple_GET_ITEM(nodes, k));
    for (Py_ssize_t e = 0; e < PyTuple_GET_SIZE(program); e++, k++) {
        PyObject *step = PyTuple_GET_ITEM(program, e);
        if (!PyTuple_CheckExact(step)) {  /* a node read from elsewhere */
            v[k] = Py_NewRef(step);
            continue;
        }
        PyObject *idx = PyTuple_GET_SIZE(step) == 5 ? PyTuple_GET_ITEM(step, 1) : NULL;
        if (idx == NULL || !PyTuple_CheckExact(idx)) {
            PyErr_SetString(PyExc_TypeError, "lazyjit._speedups.replay: a step is not (op, "
                            "sources, arg, shape, dtype)");
            goto done;
        }
        Py_ssize_t ns = PyTuple_GET_SIZE(idx);
        PyObject *src = PyTuple_New(ns);
        if (src == NULL)
            goto done;
        for (Py_ssize_t i = 0; i < ns; i++) {
            Py_ssize_t j = PyLong_AsSsize_t(PyTuple_GET_ITEM(idx, i));
            if (j < 0 || j >= k) {
                Py_DECREF(src);
                if (!PyErr_Occurred())
                    PyErr_SetString(PyExc_IndexError, "lazyjit._speedups.replay: a source "
                                    "is not an earlier value");
                goto done;
            }
            PyTuple_SET_ITEM(src, i, Py_NewRef(v[j]));
        }
        PyObject *margs[5] = {PyTuple_GET_ITEM(step, 0), src, PyTuple_GET_ITEM(step, 2),
                              PyTuple_GET_ITEM(step, 3), PyTuple_GET_ITEM(step, 4)};
        v[k] = lj_make_sited(margs, 5, &site);
        Py_DECREF(src);
        if (v[k] == NULL)
            goto done;
    }
    result = lj_new_tensor(Py_NewRef(v[out]));
done:
    Py_XDECREF(site);
    for (Py_ssize_t i = 0; i < k; i++)
        Py_DECREF(v[i]);
    PyMem_Free(v);
    return result;
}

static Py_ssize_t R_op, R_src, R_seq, R_derived;  /* (Node's slots: reach sets them) */

#define NODE_SLOT(n, off) (*(PyObject **)((char *)(n) + (off)))

/* a node's seq, or -1 with an error */
static Py_ssize_t seq_of(PyObject *n) {
    PyObject *seq = NODE_SLOT(n, R_seq);
    if (seq == NULL) {
        PyErr_SetString(PyExc_AttributeError, "lazyjit._speedups.reach: a node without seq");
        return -1;
    }
    return PyLong_AsSsize_t(seq);
}

/* the node computing a realized value (derived[0]() : new reference, Py_None if gone) */
static PyObject *origin_of(PyObject *derived) {
    if (!PyTuple_CheckExact(derived) || PyTuple_GET_SIZE(derived) != 3) {
        PyErr_SetString(PyExc_TypeError, "lazyjit._speedups.reach: derived is not (ref, "
                        "seq, low)");
        return NULL;
    }
    return PyObject_CallNoArgs(PyTuple_GET_ITEM(derived, 0));
}

/* through.py's _reaches, step for step; ``dead(leaf)`` is called where a value's graph
 * is gone (_look_into: an error if it may matter) */
static int reaches(PyObject *src, PyObject *targets, Py_ssize_t floor, PyObject *dead) {
    PyObject *seen = PySet_New(NULL), *stack = PySequence_List(src);
    int found = -1;
    if (seen == NULL || stack == NULL)
        goto done;
    found = 0;
    while (found == 0 && PyList_GET_SIZE(stack) > 0) {
        Py_ssize_t last = PyList_GET_SIZE(stack) - 1;
        PyObject *n = Py_NewRef(PyList_GET_ITEM(stack, last));
        if (PyList_SetSlice(stack, last, last + 1, NULL) < 0) {
            Py_DECREF(n);
            found = -1;
            break;
        }
        int skip = PySet_Contains(seen, n);
        Py_ssize_t s = skip == 0 ? seq_of(n) : 0;
        if (skip == 0 && s == -1 && PyErr_Occurred())
            skip = -1;
        else if (skip == 0 && s < floor)
            skip = 1;
        if (skip == 0)
            skip = PySet_Add(seen, n);
        if (skip == 0) {
            int in = PySet_Contains(targets, n);
            if (in != 0) {
                found = in;  /* (1: a target; -1: an error) */
                skip = 1;
            }
        }
        if (skip == 0) {
            PyObject *op = NODE_SLOT(n, R_op);
            if (op == NULL)
                skip = -1;
            else if (PyUnicode_CompareWithASCIIString(op, "grad") == 0 ||
                     PyUnicode_CompareWithASCIIString(op, "stop_gradient") == 0)
                skip = 1;
        }
        if (skip == 0) {
            PyObject *derived = NODE_SLOT(n, R_derived), *sub = NODE_SLOT(n, R_src);
            if (derived == NULL || sub == NULL || !PyTuple_CheckExact(sub)) {
                PyErr_SetString(PyExc_AttributeError, "lazyjit._speedups.reach: a node "
                                "without derived or src");
                skip = -1;
            } else if (derived != Py_None) {
                PyObject *origin = origin_of(derived);
                if (origin == NULL) {
                    skip = -1;
                } else if (origin == Py_None) {
                    PyObject *r = PyObject_CallOneArg(dead, n);
                    skip = r == NULL ? -1 : 0;
                    Py_XDECREF(r);
                } else {
                    skip = PyList_Append(stack, origin);
                }
                Py_XDECREF(origin);
            } else {
                for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(sub) && skip == 0; i++)
                    skip = PyList_Append(stack, PyTuple_GET_ITEM(sub, i));
            }
        }
        Py_DECREF(n);
        if (skip < 0)
            found = -1;
    }
done:
    Py_XDECREF(seen);
    Py_XDECREF(stack);
    return found;
}

/* through.py's _look_into, step for step (``dead(leaf)`` where the graph is gone):
 * 1 when the graph that computed the value ``leaf`` may lead to a target, else 0;
 * -1 with an error */
static int look_into(PyObject *leaf, PyObject *derived, PyObject *targets,
                     Py_ssize_t floor, PyObject *dead) {
    PyObject *origin = origin_of(derived);
    if (origin == NULL)
        return -1;
    if (origin == Py_None) {
        Py_DECREF(origin);
        PyObject *r = PyObject_CallOneArg(dead, leaf);
        int yes = r == NULL ? -1 : PyObject_IsTrue(r);
        Py_XDECREF(r);
        return yes;
    }
    int in = PySet_Contains(targets, leaf), r = 0;
    if (in == 0)
        in = PySet_Contains(targets, origin) == 1 ? 2 : 0;  /* (2: a target computes it) */
    if (in < 0)
        r = -1;
    else if (in == 2)
        r = 1;
    else {
        PyObject *src = NODE_SLOT(origin, R_src);
        r = src == NULL ? -1 : reaches(src, targets, floor, dead);
    }
    Py_DECREF(origin);
    return r;
}

/* reach(roots, floor, stop, targets, dead): lazyjit.trace.through.reach_py, step for
 * step: the set of nodes seen from ``roots`` (not looking below nodes older than
 * ``floor``, in ``stop`` or stop_gradient ones), looking into the graph that computed
 * a realized value's leaf whose computing node is not older than ``floor`` (look_into
 * above; ``dead(leaf)`` where that graph is gone); None as soon as one may lead to a
 * target (the Python function then rebuilds the graph). */
PyObject *reach(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    lj_node_offsets o;
    PyTypeObject *node_type = lj_node_slots(&o);
    Py_ssize_t o_op = o.op, o_src = o.src, o_seq = o.seq, o_derived = o.derived;
    if (node_type == NULL || nargs != 5 || !PyList_CheckExact(args[0]) ||
        !PyAnySet_Check(args[2]) || !PyAnySet_Check(args[3])) {
        PyErr_SetString(PyExc_TypeError, "lazyjit._speedups.reach(roots: list, floor: int, "
                        "stop: set, targets: set, dead) (after make_init)");
        return NULL;
    }
    R_op = o_op;
    R_src = o_src;
    R_seq = o_seq;
    R_derived = o_derived;
    PyObject *targets = args[3];
    Py_ssize_t floor = PyLong_AsSsize_t(args[1]);
    if (floor == -1 && PyErr_Occurred())
        return NULL;
    PyObject *stop = args[2], *dead = args[4];
    PyObject *seen = PySet_New(NULL);
    PyObject *stack = PyList_GetSlice(args[0], 0, PyList_GET_SIZE(args[0]));
    if (seen == NULL || stack == NULL)
        goto fail;
    while (PyList_GET_SIZE(stack) > 0) {
        Py_ssize_t last = PyList_GET_SIZE(stack) - 1;
        PyObject *n = Py_NewRef(PyList_GET_ITEM(stack, last));
        if (PyList_SetSlice(stack, last, last + 1, NULL) < 0) {
            Py_DECREF(n);
            goto fail;
        }
        int skip = PySet_Contains(seen, n);
        if (skip == 0)
            skip = PySet_Add(seen, n) < 0 ? -1 : 0;
        if (skip == 0 && Py_TYPE(n) != node_type) {
            PyErr_SetString(PyExc_TypeError, "lazyjit._speedups.reach: not a Node");
            skip = -1;
        }
        if (skip == 0) {
            PyObject *seq = *(PyObject **)((char *)n + o_seq);
            Py_ssize_t s = seq == NULL ? -1 : PyLong_AsSsize_t(seq);
            if (seq == NULL || (s == -1 && PyErr_Occurred())) {
                if (!PyErr_Occurred())
                    PyErr_SetString(PyExc_AttributeError, "lazyjit._speedups.reach: seq");
                skip = -1;
            } else if (s < floor) {
                skip = 1;
            }
        }
        if (skip == 0)
            skip = PySet_Contains(stop, n);
        if (skip == 0) {
            PyObject *op = *(PyObject **)((char *)n + o_op);
            skip = op == NULL ? -1 : PyUnicode_CompareWithASCIIString(op, "stop_gradient") == 0;
        }
        if (skip == 0) {
            PyObject *derived = *(PyObject **)((char *)n + o_derived);
            PyObject *src = *(PyObject **)((char *)n + o_src);
            if (derived == NULL || src == NULL || !PyTuple_CheckExact(src)) {
                PyErr_SetString(PyExc_AttributeError, "lazyjit._speedups.reach: a node "
                                "without derived or src");
                skip = -1;
            } else if (derived == Py_None) {
                for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(src) && skip == 0; i++)
                    skip = PyList_Append(stack, PyTuple_GET_ITEM(src, i));
            } else if (!PyTuple_CheckExact(derived) || PyTuple_GET_SIZE(derived) != 3) {
                PyErr_SetString(PyExc_TypeError, "lazyjit._speedups.reach: derived is not "
                                "(ref, seq, low)");
                skip = -1;
            } else {
                Py_ssize_t born = PyLong_AsSsize_t(PyTuple_GET_ITEM(derived, 1));
                if (born == -1 && PyErr_Occurred())
                    skip = -1;
                else if (born < floor)  /* (computed from nodes older than every target) */
                    skip = 1;
            }
            if (skip == 0 && derived != Py_None) {
                int yes = look_into(n, derived, targets, floor, dead);
                if (yes != 0) {
                    Py_DECREF(n);
                    if (yes < 0)
                        goto fail;
                    Py_DECREF(seen);
                    Py_DECREF(stack);
                    Py_RETURN_NONE;
                }
            }
        }
        Py_DECREF(n);
        if (skip < 0)
            goto fail;
    }
    Py_DECREF(stack);
    return seen;
fail:
    Py_XDECREF(seen);
    Py_XDECREF(stack);
    return NULL;
}

/* ---- Memoized(fn, table, record, part, on): lazyjit.api.memo.memoize's callable -------
 * Calling it builds the signature key of its arguments as memo.key_of does (a Tensor's
 * node's shape, of ints, and dtype, or the position of an earlier argument of that node; float,
 * int, bool, str and None as (type, repr or value); anything else through ``part``, None
 * meaning no signature), then: no signature, or on[0] false: fn(*args, **kwargs); a key
 * not in ``table``: record(fn, table, key, args, kwargs, nodes); an int: that argument;
 * else replay(program, nodes, out).  It binds as a method, as a function does, and has a
 * __dict__ (functools.update_wrapper's attributes). */
typedef struct {
    PyObject_HEAD
    PyObject *fn, *table, *record, *part, *on, *dict;
    vectorcallfunc vectorcall;
} Memoized;

static PyTypeObject *T_tensor;  /* (memo_init) */
static Py_ssize_t T_node_off;

PyObject *memo_init(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    /* (Tensor) */
    if (nargs != 1 || !PyType_Check(args[0])) {
        PyErr_SetString(PyExc_TypeError, "lazyjit._speedups.memo_init(Tensor)");
        return NULL;
    }
    PyObject *d = PyObject_GetAttrString(args[0], "node");
    if (d == NULL)
        return NULL;
    if (!PyObject_TypeCheck(d, &PyMemberDescr_Type)) {
        Py_DECREF(d);
        PyErr_SetString(PyExc_TypeError, "lazyjit._speedups.memo_init: Tensor.node is not a slot");
        return NULL;
    }
    T_node_off = ((PyMemberDescrObject *)d)->d_member->offset;
    Py_DECREF(d);
    Py_INCREF(args[0]);
    Py_XSETREF(T_tensor, (PyTypeObject *)args[0]);
    Py_RETURN_NONE;
}

/* the signature part of a non-tensor argument (new reference; Py_None: none) */
static PyObject *part_of(Memoized *m, PyObject *v) {
    PyTypeObject *t = Py_TYPE(v);
    if (t == &PyFloat_Type) {  /* equal floats are the same value, but for 0.0 and -0.0
                                  (equal, different) and NaN (never equal): their repr */
        double x = PyFloat_AS_DOUBLE(v);
        if (x != 0.0 && x == x)
            return PyTuple_Pack(2, (PyObject *)t, v);
        PyObject *r = PyObject_Repr(v);
        if (r == NULL)
            return NULL;
        PyObject *p = PyTuple_Pack(2, (PyObject *)t, r);
        Py_DECREF(r);
        return p;
    }
    if (t == &PyLong_Type || t == &PyBool_Type || t == &PyUnicode_Type || v == Py_None)
        return PyTuple_Pack(2, (PyObject *)t, v);
    return PyObject_CallOneArg(m->part, v);
}

/* (key, nodes) of a call, or Py_None when it has no signature (new reference) */
static PyObject *key_of(Memoized *m, PyObject *const *args, Py_ssize_t n, PyObject *kwnames) {
    Py_ssize_t nk = kwnames == NULL ? 0 : PyTuple_GET_SIZE(kwnames);
    PyObject *key = PyList_New(0), *nodes = PyList_New(0), *p = NULL, *r = NULL;
    if (key == NULL || nodes == NULL)
        goto done;
    for (Py_ssize_t i = 0; i < n + nk; i++) {  /* (positional, then keyword arguments) */
        PyObject *a = args[i];
        if (i < n && T_tensor != NULL && Py_TYPE(a) == T_tensor) {
            PyObject *node = *(PyObject **)((char *)a + T_node_off);
            lj_node_offsets o;
            PyTypeObject *node_type = lj_node_slots(&o);
            if (node == NULL || Py_TYPE(node) != node_type) {
                r = Py_NewRef(Py_None);
                goto done;
            }
            Py_ssize_t at = -1;
            for (Py_ssize_t j = 0; j < PyList_GET_SIZE(nodes) && at < 0; j++)
                if (PyList_GET_ITEM(nodes, j) == node)
                    at = j;
            if (at >= 0) {
                p = PyLong_FromSsize_t(at);
                if (p == NULL || PyList_Append(key, p) < 0)
                    goto done;
                Py_CLEAR(p);
                continue;
            }
            PyObject *shape = *(PyObject **)((char *)node + o.shape);  /* (borrowed) */
            PyObject *dtype = *(PyObject **)((char *)node + o.dtype);
            if (shape == NULL || dtype == NULL) {
                PyErr_SetString(PyExc_AttributeError, "lazyjit._speedups: a node without "
                                "its shape or dtype");
                goto done;
            }
            int sized = PyTuple_CheckExact(shape);  /* (symbolic sizes: no signature) */
            for (Py_ssize_t d = 0; sized && d < PyTuple_GET_SIZE(shape); d++)
                sized = PyLong_CheckExact(PyTuple_GET_ITEM(shape, d));
            if (!sized) {
                r = Py_NewRef(Py_None);
                goto done;
            }
            if (PyList_Append(nodes, node) < 0 || PyList_Append(key, shape) < 0 ||
                    PyList_Append(key, dtype) < 0)
                goto done;
            continue;
        }
        if ((p = part_of(m, a)) == NULL)
            goto done;
        if (p == Py_None) {
            r = p;
            p = NULL;
            goto done;
        }
        if ((i >= n && PyList_Append(key, PyTuple_GET_ITEM(kwnames, i - n)) < 0) ||
            PyList_Append(key, p) < 0)
            goto done;
        Py_CLEAR(p);
    }
    PyObject *k = PyList_AsTuple(key);
    if (k != NULL) {
        r = PyTuple_Pack(2, k, nodes);
        Py_DECREF(k);
    }
done:
    Py_XDECREF(p);
    Py_XDECREF(key);
    Py_XDECREF(nodes);
    return r;
}

static PyObject *plain_call(Memoized *m, PyObject *const *args, size_t nargsf,
                            PyObject *kwnames) {
    return PyObject_Vectorcall(m->fn, args, nargsf, kwnames);
}

static PyObject *memoized_call(PyObject *self, PyObject *const *args, size_t nargsf,
                               PyObject *kwnames) {
    Memoized *m = (Memoized *)self;
    Py_ssize_t n = PyVectorcall_NARGS(nargsf);
    int on = PyList_CheckExact(m->on) && PyList_GET_SIZE(m->on) == 1 ?
             PyObject_IsTrue(PyList_GET_ITEM(m->on, 0)) : 0;
    if (on < 0)
        return NULL;
    if (!on)
        return plain_call(m, args, nargsf, kwnames);
    PyObject *kn = key_of(m, args, n, kwnames);
    if (kn == NULL)
        return NULL;
    if (kn == Py_None) {
        Py_DECREF(kn);
        return plain_call(m, args, nargsf, kwnames);
    }
    PyObject *key = PyTuple_GET_ITEM(kn, 0), *nodes = PyTuple_GET_ITEM(kn, 1);
    PyObject *program = PyDict_GetItemWithError(m->table, key), *r = NULL;
    if (program == NULL) {
        if (PyErr_Occurred())
            goto done;
        PyObject *a = PyTuple_New(n), *kw = PyDict_New();
        if (a == NULL || kw == NULL) {
            Py_XDECREF(a);
            Py_XDECREF(kw);
            goto done;
        }
        for (Py_ssize_t i = 0; i < n; i++)
            PyTuple_SET_ITEM(a, i, Py_NewRef(args[i]));
        int bad = 0;
        for (Py_ssize_t i = 0; kwnames != NULL && i < PyTuple_GET_SIZE(kwnames) && !bad; i++)
            bad = PyDict_SetItem(kw, PyTuple_GET_ITEM(kwnames, i), args[n + i]) < 0;
        if (!bad)
            r = PyObject_CallFunctionObjArgs(m->record, m->fn, m->table, key, a, kw, nodes,
                                             NULL);
        Py_DECREF(a);
        Py_DECREF(kw);
        goto done;
    }
    if (PyLong_CheckExact(program)) {  /* an argument itself */
        Py_ssize_t i = PyLong_AsSsize_t(program);
        if (i >= 0 && i < n)
            r = Py_NewRef(args[i]);
        else if (!PyErr_Occurred())
            PyErr_SetString(PyExc_IndexError, "lazyjit._speedups.Memoized: an argument "
                            "out of range");
        goto done;
    }
    if (!PyTuple_CheckExact(program) || PyTuple_GET_SIZE(program) != 2) {
        PyErr_SetString(PyExc_TypeError, "lazyjit._speedups.Memoized: a program is not "
                        "(steps, out)");
        goto done;
    }
    Py_INCREF(program);  /* (the table may be cleared while it runs) */
    PyObject *nt = PyList_AsTuple(nodes);
    if (nt != NULL) {
        PyObject *rargs[3] = {PyTuple_GET_ITEM(program, 0), nt, PyTuple_GET_ITEM(program, 1)};
        r = replay(NULL, rargs, 3);
        Py_DECREF(nt);
    }
    Py_DECREF(program);
done:
    Py_DECREF(kn);
    return r;
}

static PyObject *memoized_key(PyObject *self, PyObject *const *args, Py_ssize_t nargs,
                              PyObject *kwnames) {  /* key_of, for the tests */
    return key_of((Memoized *)self, args, nargs, kwnames);
}

static PyObject *memoized_new(PyTypeObject *type, PyObject *args, PyObject *kwds) {
    PyObject *fn, *table, *record, *part, *on;
    if (!PyArg_ParseTuple(args, "OO!OOO!:Memoized", &fn, &PyDict_Type, &table, &record, &part,
                          &PyList_Type, &on))
        return NULL;
    Memoized *m = (Memoized *)type->tp_alloc(type, 0);
    if (m == NULL)
        return NULL;
    m->fn = Py_NewRef(fn);
    m->table = Py_NewRef(table);
    m->record = Py_NewRef(record);
    m->part = Py_NewRef(part);
    m->on = Py_NewRef(on);
    m->vectorcall = memoized_call;
    return (PyObject *)m;
}

static int memoized_traverse(Memoized *m, visitproc visit, void *arg) {
    Py_VISIT(Py_TYPE(m));
    Py_VISIT(m->fn);
    Py_VISIT(m->table);
    Py_VISIT(m->record);
    Py_VISIT(m->part);
    Py_VISIT(m->on);
    Py_VISIT(m->dict);
    return 0;
}

static int memoized_clear(Memoized *m) {
    Py_CLEAR(m->fn);
    Py_CLEAR(m->table);
    Py_CLEAR(m->record);
    Py_CLEAR(m->part);
    Py_CLEAR(m->on);
    Py_CLEAR(m->dict);
    return 0;
}

static void memoized_dealloc(Memoized *m) {
    PyTypeObject *type = Py_TYPE(m);
    PyObject_GC_UnTrack(m);
    memoized_clear(m);
    type->tp_free((PyObject *)m);
    Py_DECREF(type);  /* (a heap type: its instances hold it) */
}

static PyObject *memoized_get(PyObject *self, PyObject *obj, PyObject *type) {
    if (obj == NULL || obj == Py_None)
        return Py_NewRef(self);
    return PyMethod_New(self, obj);
}

static PyObject *memoized_repr(Memoized *m) {  /* <function relu> (as update_wrapper named it) */
    PyObject *name = PyObject_GetAttrString((PyObject *)m, "__name__");
    if (name == NULL) {
        PyErr_Clear();
        return PyUnicode_FromFormat("<function %R>", m->fn);
    }
    PyObject *r = PyUnicode_FromFormat("<function %S>", name);
    Py_DECREF(name);
    return r;
}

static PyMethodDef memoized_methods[] = {
    {"key", (PyCFunction)(void (*)(void))memoized_key, METH_FASTCALL | METH_KEYWORDS,
     "(signature key, nodes) of a call's arguments, or None."},
    {NULL, NULL, 0, NULL},
};

static PyMemberDef memoized_members[] = {
    {"__dictoffset__", T_PYSSIZET, offsetof(Memoized, dict), READONLY, NULL},
    {"__vectorcalloffset__", T_PYSSIZET, offsetof(Memoized, vectorcall), READONLY, NULL},
    {NULL, 0, 0, 0, NULL},
};

static PyType_Slot memoized_slots[] = {
    {Py_tp_new, memoized_new},
    {Py_tp_dealloc, memoized_dealloc},
    {Py_tp_traverse, memoized_traverse},
    {Py_tp_clear, memoized_clear},
    {Py_tp_call, PyVectorcall_Call},
    {Py_tp_descr_get, memoized_get},
    {Py_tp_repr, memoized_repr},
    {Py_tp_methods, memoized_methods},
    {Py_tp_members, memoized_members},
    {Py_tp_getset, (PyGetSetDef[]){{"__dict__", PyObject_GenericGetDict,
                                    PyObject_GenericSetDict, NULL, NULL},
                                   {NULL, NULL, NULL, NULL, NULL}}},
    {0, NULL},
};

static PyType_Spec memoized_spec = {
    "lazyjit._speedups.Memoized", sizeof(Memoized), 0,
    Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC | Py_TPFLAGS_HAVE_VECTORCALL |
    Py_TPFLAGS_METHOD_DESCRIPTOR, memoized_slots,
};

int lj_memo_add_type(PyObject *module) {
    PyObject *t = PyType_FromSpec(&memoized_spec);
    if (t == NULL)
        return -1;
    int r = PyModule_AddObject(module, "Memoized", t);
    if (r < 0)
        Py_DECREF(t);
    return r;
}
