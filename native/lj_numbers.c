/* lazyjit._speedups: the numbers of structures (node.py's _number), looked up in a small
 * table of the recent ones before the dictionary of all (see lj_graph.c's structure). */
#include "lj_speedups.h"
#include <stdint.h>

static PyObject *G_numbers, *G_next_number;  /* node.py's _NUMBERS and _next_number */

/* The numbers of the structures looked up last, in a table indexed by the identities of
 * their keys' items: eager code makes the same structures at every step, from the same
 * objects (the op, argument, shape and dtype that an op's memo replays, the numbers of
 * the sources' structures), and a hit here compares pointers where the dictionary
 * would hash a new tuple and compare it item by item.  An entry holds its key, so its
 * items' identities stay theirs; a hit is a key equal to the entry's (see same()), whose
 * number is the one the dictionary holds for it.  (Key items are immutable values: an
 * item whose equality changed over its life would be found by its identity here.)
 * The table is emptied with the dictionary, and entries are stored only by a lookup
 * that began in the table's present generation: a number of another dictionary (one
 * replaced while a lookup ran Python code) never enters it. */
#define RECENT_BITS 10
#define RECENT (1 << RECENT_BITS)
static struct { PyObject *key, *number; } G_recent[RECENT];
static uint64_t G_generation;  /* bumped whenever the table is emptied */

/* the items' identities mixed, an int's value and a tuple's items standing for
   themselves (the positions of inputs, shapes: new tuples each time); the slot is the
   top bits of the last product (Fibonacci hashing) */
static uint64_t mix_items(PyObject *const *items, Py_ssize_t n);

static uint64_t mix(uint64_t h, PyObject *x) {
    uint64_t v = (uint64_t)(uintptr_t)x >> 4;
    if (PyTuple_CheckExact(x)) {
        v = mix_items(&PyTuple_GET_ITEM(x, 0), PyTuple_GET_SIZE(x));
    } else if (PyLong_CheckExact(x)) {  /* (no error: an int beyond long long overflows) */
        int overflow;
        long long n = PyLong_AsLongLongAndOverflow(x, &overflow);
        if (!overflow)
            v = (uint64_t)n;
    }
    return (h ^ v) * UINT64_C(0x9E3779B97F4A7C15);
}

static uint64_t mix_items(PyObject *const *items, Py_ssize_t n) {
    uint64_t h = (uint64_t)n;
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

/* empty the table: a new generation first, then each entry emptied before its
   references go (which may run Python code, that may number structures) */
static void forget_recent(void) {
    G_generation++;
    for (int i = 0; i < RECENT; i++) {
        PyObject *k = G_recent[i].key, *n = G_recent[i].number;
        G_recent[i].key = G_recent[i].number = NULL;
        Py_XDECREF(k);
        Py_XDECREF(n);
    }
}

PyObject *lj_number(PyObject *const *items, Py_ssize_t n, PyObject *packed) {
    size_t i = (size_t)(mix_items(items, n) >> (64 - RECENT_BITS));
    PyObject *k = G_recent[i].key;
    if (k != NULL && PyTuple_GET_SIZE(k) == n) {
        Py_ssize_t j = 0;
        while (j < n && same(PyTuple_GET_ITEM(k, j), items[j]))
            j++;
        if (j == n)
            return Py_NewRef(G_recent[i].number);
    }
    uint64_t generation = G_generation;
    PyObject *key = packed != NULL ? Py_NewRef(packed) : PyTuple_New(n);
    if (key == NULL)
        return NULL;
    if (packed == NULL)
        for (Py_ssize_t j = 0; j < n; j++)
            PyTuple_SET_ITEM(key, j, Py_NewRef(items[j]));
    PyObject *numbers = Py_NewRef(G_numbers), *num = PyDict_GetItemWithError(numbers, key);
    if (num != NULL) {
        Py_INCREF(num);
    } else if (!PyErr_Occurred()) {
        if (PyDict_GET_SIZE(numbers) > (1 << 20)) {
            PyDict_Clear(numbers);  /* (later nodes get new numbers: a miss, never a
                                       mix-up) */
            forget_recent();
        }
        num = PyObject_CallNoArgs(G_next_number);
        if (num != NULL && PyDict_SetItem(numbers, key, num) < 0)
            Py_CLEAR(num);
    }
    Py_DECREF(numbers);
    if (num == NULL || generation != G_generation) {  /* (an error; or the table was
                                                         emptied meanwhile) */
        Py_DECREF(key);
        return num;
    }
    PyObject *old_key = G_recent[i].key, *old_number = G_recent[i].number;
    G_recent[i].key = key;  /* (set before the old entry's references go) */
    G_recent[i].number = Py_NewRef(num);
    Py_XDECREF(old_key);
    Py_XDECREF(old_number);
    return num;
}

void lj_numbers_init(PyObject *numbers, PyObject *next_number) {
    PyObject *old_numbers = G_numbers, *old_next = G_next_number;
    G_numbers = Py_NewRef(numbers);  /* (switched before any reference goes) */
    G_next_number = Py_NewRef(next_number);
    forget_recent();
    Py_XDECREF(old_numbers);
    Py_XDECREF(old_next);
}
