/* lazyjit._speedups: the numbers of structures (node.py's _number), looked up in a small
 * table of the recent ones before the dictionary of all (see lj_graph.c's structure). */
#include "lj_speedups.h"

static PyObject *G_numbers, *G_next_number;  /* node.py's _NUMBERS and _next_number */

/* The numbers of the structures looked up last, in a table indexed by the identities of
 * their keys' items: eager code makes the same structures at every step, from the same
 * objects (the op, argument, shape and dtype that an op's memo replays, the numbers of
 * the sources' structures), and a hit here compares pointers where the dictionary
 * would hash a new tuple and compare it item by item.  An entry holds its key, so its
 * items' identities stay theirs; a hit is a key equal to the entry's (see same()), whose
 * number is the dictionary's for it (or one it had before a clear: numbers are never
 * reused, so that is still that structure's alone). */
#define RECENT 1024
static struct { PyObject *key, *number; } G_recent[RECENT];

/* the items' identities mixed (Fibonacci hashing), an int's value and a tuple's items
   standing for themselves (the positions of inputs, shapes: new tuples each time) */
static size_t mix_items(PyObject *const *items, Py_ssize_t n);

static size_t mix(size_t h, PyObject *x) {
    size_t v = (size_t)x >> 4;
    if (PyTuple_CheckExact(x)) {
        v = mix_items(&PyTuple_GET_ITEM(x, 0), PyTuple_GET_SIZE(x));
    } else if (PyLong_CheckExact(x)) {  /* (no error: an int beyond long long overflows) */
        int overflow;
        long long n = PyLong_AsLongLongAndOverflow(x, &overflow);
        if (!overflow)
            v = (size_t)n;
    }
    return (h ^ v) * (size_t)0x9E3779B97F4A7C15ull;
}

static size_t mix_items(PyObject *const *items, Py_ssize_t n) {
    size_t h = (size_t)n;
    for (Py_ssize_t i = 0; i < n; i++)
        h = mix(h, items[i]);
    return h;
}

/* whether a == b is sure (one object, ints of one value, tuples of such items); 0 is
   "not sure", never an error */
static int same(PyObject *a, PyObject *b) {
    if (a == b)
        return 1;
    if (PyLong_CheckExact(a) && PyLong_CheckExact(b)) {
        int oa, ob;
        long long x = PyLong_AsLongLongAndOverflow(a, &oa);
        long long y = PyLong_AsLongLongAndOverflow(b, &ob);
        return !oa && !ob && x == y;  /* (beyond long long: the dictionary compares) */
    }
    if (!PyTuple_CheckExact(a) || !PyTuple_CheckExact(b) ||
        PyTuple_GET_SIZE(a) != PyTuple_GET_SIZE(b))
        return 0;
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(a); i++)
        if (!same(PyTuple_GET_ITEM(a, i), PyTuple_GET_ITEM(b, i)))
            return 0;
    return 1;
}

static void forget_recent(void) {
    for (int i = 0; i < RECENT; i++) {
        PyObject *k = G_recent[i].key, *n = G_recent[i].number;
        G_recent[i].key = G_recent[i].number = NULL;
        Py_XDECREF(k);
        Py_XDECREF(n);
    }
}

/* node.py's _number(tuple(items)); a new reference.  The tuple (``packed``, if not NULL)
   is made only when the table of recent structures does not hold it. */
PyObject *lj_number(PyObject *const *items, Py_ssize_t n, PyObject *packed) {
    size_t i = (mix_items(items, n) >> 32) & (RECENT - 1);
    PyObject *k = G_recent[i].key;
    if (k != NULL && PyTuple_GET_SIZE(k) == n) {
        Py_ssize_t j = 0;
        while (j < n && same(PyTuple_GET_ITEM(k, j), items[j]))
            j++;
        if (j == n)
            return Py_NewRef(G_recent[i].number);
    }
    PyObject *key = packed != NULL ? Py_NewRef(packed) : PyTuple_New(n);
    if (key == NULL)
        return NULL;
    if (packed == NULL)
        for (Py_ssize_t j = 0; j < n; j++)
            PyTuple_SET_ITEM(key, j, Py_NewRef(items[j]));
    PyObject *num = PyDict_GetItemWithError(G_numbers, key);
    if (num != NULL) {
        Py_INCREF(num);
    } else if (PyErr_Occurred()) {
        Py_DECREF(key);
        return NULL;
    } else {
        if (PyDict_GET_SIZE(G_numbers) > (1 << 20)) {
            PyDict_Clear(G_numbers);  /* (later nodes get new numbers: a miss, never a
                                         mix-up) */
            forget_recent();
        }
        num = PyObject_CallNoArgs(G_next_number);
        if (num == NULL || PyDict_SetItem(G_numbers, key, num) < 0) {
            Py_XDECREF(num);
            Py_DECREF(key);
            return NULL;
        }
    }
    PyObject *old_key = G_recent[i].key, *old_number = G_recent[i].number;
    G_recent[i].key = key;  /* (set before the old entry's references go) */
    G_recent[i].number = Py_NewRef(num);
    Py_XDECREF(old_key);
    Py_XDECREF(old_number);
    return num;
}

int lj_numbers_init(PyObject *numbers, PyObject *next_number) {
    if (!PyDict_Check(numbers)) {
        PyErr_SetString(PyExc_TypeError, "lazyjit._speedups: _NUMBERS is not a dict");
        return -1;
    }
    forget_recent();  /* (numbers of another table, if this one is new) */
    Py_XSETREF(G_numbers, Py_NewRef(numbers));
    Py_XSETREF(G_next_number, Py_NewRef(next_number));
    return 0;
}
