/* Operator: a Tensor operator method (``__add__``, ``__rmul__``, ``__matmul__``) as one C
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
    Py_VISIT(o->name);
    Py_VISIT(o->fn);
    return 0;
}

static int operator_clear(Operator *o) {
    Py_CLEAR(o->name);
    Py_CLEAR(o->fn);
    return 0;
}

static void operator_dealloc(Operator *o) {
    PyObject_GC_UnTrack(o);
    operator_clear(o);
    Py_TYPE(o)->tp_free((PyObject *)o);
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
