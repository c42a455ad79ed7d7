/* lazyjit._speedups, the tensor's side: the fast paths of lazyjit.api.core.elementwise
 * for eager code's operators, and the Tensors of new nodes and of a jitted call's
 * outputs (the functions are described in lj_speedups.c's header comment).  Each does
 * the steps of its Python function, which stays the reference: tests/test_speedups.py
 * compares the two. */
#include "lj_speedups.h"

static PyTypeObject *N_type;  /* the Node class and its slots' offsets (make_init's) */
static lj_node_offsets NO;

/* ---- elementwise2(name, a, b): lazyjit.api.core.elementwise's fast paths -------------
 * Two tensors of one shape and dtype whose result dtype is known (_SAME_TYPE_OUT), or a
 * tensor and a Python float or int whose recipe is known (_SCALAR_OUT) without a cast,
 * with the scalar's constant made before (_CONSTS): the new Tensor, as those paths make
 * it.  None for anything else (the Python function then does all). */
static PyTypeObject *E_tensor;
static PyObject *E_same, *E_scalar, *E_consts;
static Py_ssize_t OT_node, OT_origin, OT_index;

PyObject *elementwise_init(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    /* (Tensor, _SAME_TYPE_OUT, _SCALAR_OUT, _CONSTS) */
    if (nargs != 4 || !PyType_Check(args[0]) || !PyDict_Check(args[1]) ||
        !PyDict_Check(args[2]) || !PyDict_Check(args[3])) {
        PyErr_SetString(PyExc_TypeError, "lazyjit._speedups.elementwise_init: bad arguments");
        return NULL;
    }
    if ((N_type = lj_node_slots(&NO)) == NULL) {
        PyErr_SetString(PyExc_TypeError, "lazyjit._speedups.elementwise_init: after make_init");
        return NULL;
    }
    if (offset_of(args[0], "node", &OT_node) < 0 || offset_of(args[0], "_origin", &OT_origin)
        < 0 || offset_of(args[0], "_index", &OT_index) < 0)
        return NULL;
    PyObject **keep[] = {(PyObject **)&E_tensor, &E_same, &E_scalar, &E_consts};
    for (int i = 0; i < 4; i++) {
        Py_INCREF(args[i]);
        Py_XSETREF(*keep[i], args[i]);
    }
    Py_RETURN_NONE;
}


/* Tensor(Node.make(name, (x, y), None, shape, dtype)) */
static PyObject *tensor_of(PyObject *name, PyObject *x, PyObject *y, PyObject *shape,
                           PyObject *dtype) {
    PyObject *src = PyTuple_Pack(2, x, y);
    if (src == NULL)
        return NULL;
    PyObject *margs[5] = {name, src, Py_None, shape, dtype};
    PyObject *node = make(NULL, margs, 5);
    Py_DECREF(src);
    return node == NULL ? NULL : lj_new_tensor(node);
}

/* tensor_leaf(array[, tag, low]): Tensor(Node.leaf(array, site=False)), a jitted
 * call's output; unless low is None, the leaf's derived is (tag, its seq, low) and its
 * low is low */
PyObject *tensor_leaf(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    if (E_tensor == NULL || (nargs != 1 && nargs != 3)) {
        PyErr_SetString(PyExc_TypeError, "lazyjit._speedups.tensor_leaf(array[, tag, low]) "
                        "(after elementwise_init)");
        return NULL;
    }
    PyObject *largs[2] = {args[0], Py_False};
    PyObject *node = leaf(NULL, largs, 2, NULL);
    if (node != NULL && nargs == 3 && args[2] != Py_None) {
        PyObject *seq = get_slot(node, NO.seq);
        PyObject *derived = seq == NULL ? NULL : PyTuple_Pack(3, args[1], seq, args[2]);
        if (derived == NULL) {
            Py_DECREF(node);
            return NULL;
        }
        set_slot(node, NO.derived, derived);
        Py_INCREF(args[2]);
        set_slot(node, NO.low, args[2]);
    }
    return node == NULL ? NULL : lj_new_tensor(node);
}

/* Tensor(node), its other slots None, as Tensor.__init__ leaves them; steals node */
PyObject *lj_new_tensor(PyObject *node) {
    PyObject *t = E_tensor->tp_alloc(E_tensor, 0);
    if (t == NULL) {
        Py_DECREF(node);
        return NULL;
    }
    set_slot(t, OT_node, node);
    Py_INCREF(Py_None);
    set_slot(t, OT_origin, Py_None);
    Py_INCREF(Py_None);
    set_slot(t, OT_index, Py_None);
    return t;
}

static PyObject *lookup(PyObject *dict, PyObject *key) {  /* borrowed; NULL: none/error */
    if (key == NULL)
        return NULL;
    PyObject *v = PyDict_GetItemWithError(dict, key);
    Py_DECREF(key);
    return v;
}

static PyObject *scalar_operand(PyObject *name, PyObject *a, PyObject *t, PyObject *v,
                                PyObject *node, PyObject *shape, PyObject *dtype);

/* elementwise2 for two tensors (their nodes na and nb, held by the caller) */
static PyObject *same_type(PyObject *name, PyObject *na, PyObject *nb) {
    PyObject *shape = get_slot(na, NO.shape), *dtype = get_slot(na, NO.dtype);
    PyObject *shape_b = get_slot(nb, NO.shape), *dtype_b = get_slot(nb, NO.dtype);
    if (shape == NULL || dtype == NULL || shape_b == NULL || dtype_b == NULL)
        return NULL;
    int same = PyObject_RichCompareBool(shape, shape_b, Py_EQ);
    if (same > 0)
        same = PyObject_RichCompareBool(dtype, dtype_b, Py_EQ);
    if (same <= 0)
        return same < 0 ? NULL : Py_NewRef(Py_None);
    PyObject *out = lookup(E_same, PyTuple_Pack(2, name, dtype));
    if (out == NULL)
        return PyErr_Occurred() ? NULL : Py_NewRef(Py_None);
    Py_INCREF(out);  /* (held: make runs Python code) */
    PyObject *r = tensor_of(name, na, nb, shape, out);
    Py_DECREF(out);
    return r;
}


PyTypeObject *lj_tensor_slots(Py_ssize_t *node, Py_ssize_t *origin) {
    *node = OT_node;
    *origin = OT_origin;
    return E_tensor;
}

int lj_symbolic_operand(PyObject *x) {
    if (E_tensor == NULL || Py_TYPE(x) != E_tensor)
        return 0;
    PyObject *node = get_slot(x, OT_node);
    if (node == NULL) {
        PyErr_Clear();
        return 0;  /* (the function says what is wrong) */
    }
    if (Py_TYPE(node) != N_type)
        return 0;
    PyObject *shape = get_slot(node, NO.shape);
    if (shape == NULL || !PyTuple_Check(shape)) {
        PyErr_Clear();
        return 0;
    }
    for (Py_ssize_t d = 0; d < PyTuple_GET_SIZE(shape); d++)
        if (!PyLong_CheckExact(PyTuple_GET_ITEM(shape, d)))
            return 1;
    return 0;
}

PyObject *elementwise2(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    if (E_tensor == NULL || N_type == NULL || nargs != 3) {
        PyErr_SetString(PyExc_TypeError, "lazyjit._speedups.elementwise2(name, a, b) (after "
                        "elementwise_init and make_init)");
        return NULL;
    }
    PyObject *name = args[0], *a = args[1], *b = args[2];
    int ta = Py_TYPE(a) == E_tensor, tb = Py_TYPE(b) == E_tensor;
    if (ta && tb) {  /* tensors of one shape and dtype */
        PyObject *na = get_slot(a, OT_node), *nb = get_slot(b, OT_node);
        if (na == NULL || nb == NULL)
            return NULL;
        if (Py_TYPE(na) != N_type || Py_TYPE(nb) != N_type)
            Py_RETURN_NONE;  /* (not a node: the Python function says what is wrong) */
        Py_INCREF(na);  /* (held, with what is read from them: comparing symbolic sizes
                           and make run Python code, which may give a or b a new node) */
        Py_INCREF(nb);
        PyObject *r = same_type(name, na, nb);
        Py_DECREF(na);
        Py_DECREF(nb);
        return r;
    }
    /* a tensor and a Python float or int (exactly: not bool) */
    PyObject *t, *v;
    if (ta && (PyFloat_CheckExact(b) || PyLong_CheckExact(b))) {
        t = a;
        v = b;
    } else if (tb && (PyFloat_CheckExact(a) || PyLong_CheckExact(a))) {
        t = b;
        v = a;
    } else {
        Py_RETURN_NONE;
    }
    PyObject *node = get_slot(t, OT_node);
    if (node == NULL)
        return NULL;
    if (Py_TYPE(node) != N_type)
        Py_RETURN_NONE;  /* (not a node: the Python function says what is wrong) */
    PyObject *shape = get_slot(node, NO.shape), *dtype = get_slot(node, NO.dtype);
    if (shape == NULL || dtype == NULL)
        return NULL;
    Py_INCREF(node);  /* (held: Python code runs below, and may give t a new node) */
    PyObject *r = scalar_operand(name, a, t, v, node, shape, dtype);
    Py_DECREF(node);
    return r;
}

/* repr(v) of a Python float or int, the last one's kept with it (a step's scalars, a
 * learning rate, are the same objects at every call; held, so never another's) */
static PyObject *last_scalar, *last_repr;

static PyObject *repr_of(PyObject *v) {  /* new reference */
    if (v == last_scalar)
        return Py_NewRef(last_repr);
    PyObject *text = PyObject_Repr(v);
    if (text != NULL) {
        Py_INCREF(v);
        Py_XSETREF(last_scalar, v);
        Py_INCREF(text);
        Py_XSETREF(last_repr, text);
    }
    return text;
}

static PyObject *scalar_operand(PyObject *name, PyObject *a, PyObject *t, PyObject *v,
                                PyObject *node, PyObject *shape, PyObject *dtype) {
    PyObject *known = lookup(E_scalar, PyTuple_Pack(5, name, shape, dtype,
                                                    (PyObject *)Py_TYPE(v),
                                                    t == a ? Py_True : Py_False));
    if (known == NULL)
        return PyErr_Occurred() ? NULL : Py_NewRef(Py_None);
    if (!PyTuple_Check(known) || PyTuple_GET_SIZE(known) != 2) {
        PyErr_SetString(PyExc_TypeError, "lazyjit._speedups.elementwise2: a recipe is not "
                        "(common, out)");
        return NULL;
    }
    PyObject *common = PyTuple_GET_ITEM(known, 0), *out = PyTuple_GET_ITEM(known, 1);
    Py_INCREF(common);
    Py_INCREF(out);  /* (held: the lookups below run Python code) */
    PyObject *result = NULL;
    int same = PyObject_RichCompareBool(dtype, common, Py_EQ);
    if (same <= 0) {  /* (a cast first: the Python function) */
        result = same < 0 ? NULL : Py_NewRef(Py_None);
        goto done;
    }
    PyObject *text = repr_of(v);
    if (text == NULL)
        goto done;
    PyObject *c = lookup(E_consts, PyTuple_Pack(4, (PyObject *)Py_TYPE(v), text, common,
                                                shape));
    Py_DECREF(text);
    if (c == NULL) {
        result = PyErr_Occurred() ? NULL : Py_NewRef(Py_None);
        goto done;
    }
    Py_INCREF(c);
    result = t == a ? tensor_of(name, node, c, shape, out) : tensor_of(name, c, node, shape, out);
    Py_DECREF(c);
done:
    Py_DECREF(common);
    Py_DECREF(out);
    return result;
}
