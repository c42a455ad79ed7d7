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
    PyObject *result = NULL;
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
        v[k] = make(NULL, margs, 5);
        Py_DECREF(src);
        if (v[k] == NULL)
            goto done;
    }
    result = lj_new_tensor(Py_NewRef(v[out]));
done:
    for (Py_ssize_t i = 0; i < k; i++)
        Py_DECREF(v[i]);
    PyMem_Free(v);
    return result;
}

/* reach(roots, floor, stop, look_into): the walk of lazyjit.trace.through.see_through,
 * step for step: the set of nodes seen from ``roots`` (not looking below nodes older
 * than ``floor``, in ``stop`` or stop_gradient ones), calling ``look_into(node)`` at a
 * realized value's leaf; None as soon as it says that leaf's computing graph must be
 * looked into (the Python function then rebuilds the graph). */
PyObject *reach(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    Py_ssize_t o_op, o_src, o_seq, o_derived;
    PyTypeObject *node_type = lj_node_slots(&o_op, &o_src, &o_seq, &o_derived);
    if (node_type == NULL || nargs != 4 || !PyList_CheckExact(args[0]) ||
        !PyAnySet_Check(args[2])) {
        PyErr_SetString(PyExc_TypeError, "lazyjit._speedups.reach(roots: list, floor: int, "
                        "stop: set, look_into) (after structure_init)");
        return NULL;
    }
    Py_ssize_t floor = PyLong_AsSsize_t(args[1]);
    if (floor == -1 && PyErr_Occurred())
        return NULL;
    PyObject *stop = args[2], *look_into = args[3];
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
            } else {
                PyObject *deep = PyObject_CallOneArg(look_into, n);
                int yes = deep == NULL ? -1 : PyObject_IsTrue(deep);
                Py_XDECREF(deep);
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
