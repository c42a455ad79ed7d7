/* Tensor's operators, and the tensors a realize computed.
 *
 * Operator: a Tensor operator method (``__add__``, ``__rmul__``, ``__matmul__``) as one C
 * callable, with no Python frame of its own: lazyjit.api.methods' _fast_binop and
 * _binop, step for step.  ``Operator(name, fn, reflected)`` called with ``(self, other)``
 * takes ``a, b = (other, self) if reflected else (self, other)``; where ``name`` is a
 * string (an elementwise op's) and neither shape holds a symbolic size, it tries
 * elementwise2's fast paths first; then ``fn(a, b)``.  It binds as a method (a method descriptor, as Memoized is), so Python's
 * operator slots call it with the tensor first and no bound method made. */
#include "lj_speedups.h"
#include <structmember.h>

typedef struct {
    PyObject_HEAD
    PyObject *name;  /* elementwise2's op name, or None */
    PyObject *fn;
    int reflected;
    vectorcallfunc vectorcall;
    PyObject *dict;  /* (__name__, __qualname__, __doc__, set by lazyjit.api.methods) */
} Operator;

static PyObject *operator_call(PyObject *self, PyObject *const *args, size_t nargsf,
                               PyObject *kwnames) {
    Operator *o = (Operator *)self;
    Py_ssize_t n = PyVectorcall_NARGS(nargsf);
    if (n != 2 || kwnames != NULL) {
        PyErr_SetString(PyExc_TypeError, "a Tensor operator takes (self, other)");
        return NULL;
    }
    PyObject *ab[3] = {o->name, o->reflected ? args[1] : args[0],
                       o->reflected ? args[0] : args[1]};
    /* (a symbolic size's hash must run in a frame of lazyjit's: fn's, in Python) */
    if (o->name != Py_None && !lj_symbolic_operand(ab[1]) && !lj_symbolic_operand(ab[2])) {
        PyObject *out = elementwise2(NULL, ab, 3);
        if (out != Py_None)
            return out;  /* (a result, or NULL: the error) */
        Py_DECREF(out);
    }
    return PyObject_Vectorcall(o->fn, ab + 1, 2, NULL);
}

static PyObject *operator_new(PyTypeObject *type, PyObject *args, PyObject *kwargs) {
    PyObject *name, *fn;
    int reflected;
    if (kwargs != NULL && PyDict_GET_SIZE(kwargs)) {
        PyErr_SetString(PyExc_TypeError, "Operator(name, fn, reflected)");
        return NULL;
    }
    if (!PyArg_ParseTuple(args, "OOp", &name, &fn, &reflected))
        return NULL;
    if (name != Py_None && !PyUnicode_Check(name)) {
        PyErr_SetString(PyExc_TypeError, "Operator: name is a str or None");
        return NULL;
    }
    Operator *o = (Operator *)type->tp_alloc(type, 0);
    if (o == NULL)
        return NULL;
    o->name = Py_NewRef(name);
    o->fn = Py_NewRef(fn);
    o->reflected = reflected;
    o->vectorcall = operator_call;
    return (PyObject *)o;
}

static int operator_traverse(Operator *o, visitproc visit, void *arg) {
    Py_VISIT(Py_TYPE(o));  /* (a heap type: its instances hold it) */
    Py_VISIT(o->name);
    Py_VISIT(o->fn);
    Py_VISIT(o->dict);
    return 0;
}

static int operator_clear(Operator *o) {
    Py_CLEAR(o->name);
    Py_CLEAR(o->fn);
    Py_CLEAR(o->dict);
    return 0;
}

static void operator_dealloc(Operator *o) {
    PyTypeObject *type = Py_TYPE(o);
    PyObject_GC_UnTrack(o);
    operator_clear(o);
    type->tp_free((PyObject *)o);
    Py_DECREF(type);
}

static PyObject *operator_get(PyObject *self, PyObject *obj, PyObject *type) {
    if (obj == NULL || obj == Py_None)
        return Py_NewRef(self);
    return PyMethod_New(self, obj);
}

static PyObject *operator_repr(Operator *o) {
    return PyUnicode_FromFormat("<operator %R of %R%s>", o->name, o->fn,
                                o->reflected ? ", reflected" : "");
}

static PyMemberDef operator_members[] = {
    {"fn", T_OBJECT_EX, offsetof(Operator, fn), READONLY, NULL},
    {"__dictoffset__", T_PYSSIZET, offsetof(Operator, dict), READONLY, NULL},
    {"__vectorcalloffset__", T_PYSSIZET, offsetof(Operator, vectorcall), READONLY, NULL},
    {NULL, 0, 0, 0, NULL},
};

static PyType_Slot operator_slots[] = {
    {Py_tp_new, operator_new},
    {Py_tp_dealloc, operator_dealloc},
    {Py_tp_traverse, operator_traverse},
    {Py_tp_clear, operator_clear},
    {Py_tp_call, PyVectorcall_Call},
    {Py_tp_descr_get, operator_get},
    {Py_tp_repr, operator_repr},
    {Py_tp_members, operator_members},
    {Py_tp_getset, (PyGetSetDef[]){{"__dict__", PyObject_GenericGetDict,
                                    PyObject_GenericSetDict, NULL, NULL},
                                   {NULL, NULL, NULL, NULL, NULL}}},
    {0, NULL},
};

static PyType_Spec operator_spec = {
    "lazyjit._speedups.Operator", sizeof(Operator), 0,
    Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC | Py_TPFLAGS_HAVE_VECTORCALL |
    Py_TPFLAGS_METHOD_DESCRIPTOR, operator_slots,
};

int lj_ops_add_type(PyObject *module) {
    PyObject *t = PyType_FromSpec(&operator_spec);
    if (t == NULL)
        return -1;
    int r = PyModule_AddObject(module, "Operator", t);
    if (r < 0)
        Py_DECREF(t);
    return r;
}

/* ---- realized(tensors, given, literals): lazyjit.engine.realize._leaves' loop --------
 * Each tensor whose node ``given[i]`` was computed by this realize (not a buffer, and
 * still the tensor's node) refers from now on to a fresh leaf holding the value (the
 * node's buffer, or ``literals[node]``), with ``_origin`` the node, and the leaf
 * ``derived`` from it (node.py's derived: a weak reference to the node, its seq, and
 * the leaf's low, the lowest of the sources' for a gradient).  Returns the number of
 * tensors given a leaf. */
static PyObject *R_bufop, *R_grad;

static int realize_one(PyObject *t, PyObject *n, PyObject *literals,
                       const lj_node_offsets *o, Py_ssize_t t_node, Py_ssize_t t_origin) {
    PyObject *buffer = get_slot(n, o->buffer), *site = get_slot(n, o->site);
    PyObject *op = get_slot(n, o->op), *src = get_slot(n, o->src);
    PyObject *low = get_slot(n, o->low), *seq = get_slot(n, o->seq);
    if (buffer == NULL || site == NULL || op == NULL || src == NULL || low == NULL ||
            seq == NULL)
        return -1;
    if (buffer == Py_None) {
        buffer = PyDict_GetItemWithError(literals, n);
        if (buffer == NULL) {
            if (!PyErr_Occurred())
                PyErr_SetObject(PyExc_KeyError, n);  /* (as literals[n] raises) */
            return -1;
        }
    }
    PyObject *args[2] = {buffer, site};
    PyObject *leaf_node = leaf(NULL, args, 2, NULL);
    if (leaf_node == NULL)
        return -1;
    int grad = op == R_grad ? 1 : PyUnicode_Compare(op, R_grad) == 0;
    if (PyErr_Occurred())
        return -1;
    if (grad && PyTuple_GET_SIZE(src) > 0) {  /* (the lowest of its sources') */
        Py_ssize_t best = 0;
        for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(src); i++) {
            PyObject *v = get_slot(PyTuple_GET_ITEM(src, i), o->low);
            Py_ssize_t x = v == NULL ? -1 : PyLong_AsSsize_t(v);
            if (x == -1 && PyErr_Occurred()) {
                Py_DECREF(leaf_node);
                return -1;
            }
            if (i == 0 || x < best) {
                best = x;
                low = v;
            }
        }
    }
    PyObject *ref = PyWeakref_NewRef(n, NULL);
    PyObject *d = ref == NULL ? NULL : PyTuple_Pack(3, ref, seq, low);
    Py_XDECREF(ref);
    if (d == NULL) {
        Py_DECREF(leaf_node);
        return -1;
    }
    set_slot(leaf_node, o->low, Py_NewRef(low));
    set_slot(leaf_node, o->derived, d);
    set_slot(t, t_origin, Py_NewRef(n));
    set_slot(t, t_node, leaf_node);
    return 0;
}

PyObject *realized(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    lj_node_offsets o;
    Py_ssize_t t_node, t_origin;
    PyTypeObject *node_type = lj_node_slots(&o);
    PyTypeObject *tensor_type = lj_tensor_slots(&t_node, &t_origin);
    if (node_type == NULL || tensor_type == NULL || nargs != 3 || !PyDict_Check(args[2])) {
        PyErr_SetString(PyExc_TypeError, "lazyjit._speedups.realized(tensors, given, "
                        "literals: dict) (after make_init and elementwise_init)");
        return NULL;
    }
    if (R_grad == NULL) {  /* (both, or neither) */
        PyObject *b = PyUnicode_InternFromString("buffer");
        PyObject *g = b == NULL ? NULL : PyUnicode_InternFromString("grad");
        if (g == NULL) {
            Py_XDECREF(b);
            return NULL;
        }
        R_bufop = b;
        R_grad = g;
    }
    PyObject *ts = PySequence_Fast(args[0], "realized: tensors"), *ns = NULL;
    if (ts == NULL || (ns = PySequence_Fast(args[1], "realized: given")) == NULL) {
        Py_XDECREF(ts);
        return NULL;
    }
    Py_ssize_t done = 0, k = PySequence_Fast_GET_SIZE(ts);
    if (PySequence_Fast_GET_SIZE(ns) < k)
        k = PySequence_Fast_GET_SIZE(ns);
    for (Py_ssize_t i = 0; i < k; i++) {
        PyObject *t = PySequence_Fast_GET_ITEM(ts, i), *n = PySequence_Fast_GET_ITEM(ns, i);
        if (!PyObject_TypeCheck(t, tensor_type) || Py_TYPE(n) != node_type) {
            PyErr_SetString(PyExc_TypeError, "lazyjit._speedups.realized: not a Tensor "
                            "and its Node");
            goto fail;
        }
        PyObject *op = get_slot(n, o.op);
        if (op == NULL)
            goto fail;
        int buffer = op == R_bufop ? 1 : PyUnicode_Compare(op, R_bufop) == 0;
        if (PyErr_Occurred())
            goto fail;
        if (buffer || *(PyObject **)((char *)t + t_node) != n)
            continue;  /* (a leaf already, or given another node meanwhile) */
        Py_INCREF(n);  /* (held: the tensor's reference to it goes) */
        int bad = realize_one(t, n, args[2], &o, t_node, t_origin);
        Py_DECREF(n);
        if (bad < 0)
            goto fail;
        done++;
    }
    Py_DECREF(ts);
    Py_DECREF(ns);
    return PyLong_FromSsize_t(done);
fail:
    Py_DECREF(ts);
    Py_DECREF(ns);
    return NULL;
}
