/* lazyjit._speedups' translation units: lj_speedups.c (the call path and the module),
 * lj_graph.c (the graph's nodes), lj_numbers.c (their structures' numbers), lj_tensor.c
 * (the tensors of new nodes), lj_memo.c (replaying an API function's graph) and
 * lj_ops.c (Tensor's operators). */
#ifndef LJ_SPEEDUPS_H
#define LJ_SPEEDUPS_H
#define PY_SSIZE_T_CLEAN
#include <Python.h>

/* lj_speedups.c */
PyObject *walk(PyObject *internal, PyObject *is_internal, Py_ssize_t max_frames);
/* walk's cache of whose code objects are lazyjit's: for this predicate's answers only
 * (make_init's is_internal), emptied */
void lj_walk_cache_for(PyObject *is_internal);

/* lj_graph.c */
/* an object's slot at byte offset ``off``: set (stealing ``v``, dropping the old value),
 * or read (borrowed; NULL with AttributeError when unset) */
void set_slot(PyObject *o, Py_ssize_t off, PyObject *v);
PyObject *get_slot(PyObject *o, Py_ssize_t off);
/* the byte offset of the slot ``name`` of the class ``cls`` (-1: an error) */
int offset_of(PyObject *cls, const char *name, Py_ssize_t *out);
int lj_graph_init(void);
PyObject *structure_init(PyObject *self, PyObject *const *args, Py_ssize_t nargs);
PyObject *structure(PyObject *self, PyObject *node);
PyObject *trace_key(PyObject *self, PyObject *nodes);
PyObject *make_init(PyObject *self, PyObject *const *args, Py_ssize_t nargs);
PyObject *make(PyObject *self, PyObject *const *args, Py_ssize_t nargs);
PyObject *make_group(PyObject *self, PyObject *const *args, Py_ssize_t nargs);
PyObject *forget(PyObject *self, PyObject *ref);
PyObject *lj_make_sited(PyObject *const *args, Py_ssize_t nargs, PyObject **site);
PyObject *leaf(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames);
/* lj_numbers.c */
/* node.py's _number(tuple(items)), a new reference; ``packed``: that tuple if made
 * already (else NULL) */
PyObject *lj_number(PyObject *const *items, Py_ssize_t n, PyObject *packed);
/* use the dictionary of numbers ``numbers`` (node.py's _NUMBERS, checked by the caller)
 * and the counter of new ones, and empty the table of recent numbers */
void lj_numbers_init(PyObject *numbers, PyObject *next_number);
/* lj_tensor.c */
PyObject *elementwise_init(PyObject *self, PyObject *const *args, Py_ssize_t nargs);
PyObject *elementwise2(PyObject *self, PyObject *const *args, Py_ssize_t nargs);
/* whether x is a Tensor whose shape holds a symbolic size (hashed only in lazyjit's own
 * frames: see trace/dims.py) */
int lj_symbolic_operand(PyObject *x);
/* the Tensor class and its node and _origin slots' offsets (NULL before
 * elementwise_init) */
PyTypeObject *lj_tensor_slots(Py_ssize_t *node, Py_ssize_t *origin);
PyObject *tensor_leaf(PyObject *self, PyObject *const *args, Py_ssize_t nargs);
PyObject *lj_new_tensor(PyObject *node);  /* Tensor(node); steals node */
/* the offsets of a Node's slots */
typedef struct {
    Py_ssize_t op, src, seq, derived, shape, dtype, buffer, site, low;
} lj_node_offsets;
/* the Node class, its slots' offsets in ``*o`` (NULL before make_init) */
PyTypeObject *lj_node_slots(lj_node_offsets *o);

/* lj_memo.c */
int lj_record_made(PyObject *node);
PyObject *record(PyObject *self, PyObject *arg);
PyObject *replay(PyObject *self, PyObject *const *args, Py_ssize_t nargs);
PyObject *reach(PyObject *self, PyObject *const *args, Py_ssize_t nargs);
PyObject *memo_init(PyObject *self, PyObject *const *args, Py_ssize_t nargs);
int lj_memo_add_type(PyObject *module);  /* Memoized */

/* lj_ops.c */
int lj_ops_add_type(PyObject *module);  /* Operator */
PyObject *realized(PyObject *self, PyObject *const *args, Py_ssize_t nargs);
#endif
