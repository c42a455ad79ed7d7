/* lazyjit._speedups' two translation units: lj_speedups.c (the call path and the
 * module) and lj_graph.c (the graph's nodes). */
#ifndef LJ_SPEEDUPS_H
#define LJ_SPEEDUPS_H
#define PY_SSIZE_T_CLEAN
#include <Python.h>

/* lj_speedups.c */
PyObject *walk(PyObject *internal, PyObject *is_internal, Py_ssize_t max_frames);

/* lj_graph.c */
int lj_graph_init(void);
PyObject *structure_init(PyObject *self, PyObject *const *args, Py_ssize_t nargs);
PyObject *structure(PyObject *self, PyObject *node);
PyObject *make_init(PyObject *self, PyObject *const *args, Py_ssize_t nargs);
PyObject *make(PyObject *self, PyObject *const *args, Py_ssize_t nargs);
PyObject *leaf(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames);
PyObject *elementwise_init(PyObject *self, PyObject *const *args, Py_ssize_t nargs);
PyObject *elementwise2(PyObject *self, PyObject *const *args, Py_ssize_t nargs);
PyObject *tensor_leaf(PyObject *self, PyObject *array);
#endif
