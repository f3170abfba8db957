/* What the C extensions of perfcompose.loggp share: NumPy arrays (or any C-contiguous buffer)
 * taken as typed pointers through the buffer protocol, checked for their item type and length,
 * so that no NumPy headers are needed to build them (one at a time, or a table of them); and the
 * module of an extension with one function. Include after Python.h. */
#ifndef PERFCOMPOSE_LOGGP_BUFFERS_H
#define PERFCOMPOSE_LOGGP_BUFFERS_H

#include <stdint.h>

typedef struct {
    Py_buffer view;
    int held;
} Buf;

/* whether a buffer of item format f and itemsize is of kind (see get_buf) */
static inline int buf_kind_ok(char kind, char f, Py_ssize_t itemsize) {
    switch (kind) {
    case 'd':
        return itemsize == 8 && f == 'd';
    case 'f':
        return itemsize == 4 && f == 'f';
    case 'q':
        return itemsize == 8 && (f == 'q' || f == 'l');
    case 'i':
        return itemsize == 4 && (f == 'i' || f == 'l');
    case 'D':
        return buf_kind_ok('d', f, itemsize) || buf_kind_ok('f', f, itemsize);
    case 'Q':
        return buf_kind_ok('q', f, itemsize) || buf_kind_ok('i', f, itemsize);
    default:
        return itemsize == 1 && (f == '?' || f == 'b' || f == 'B');
    }
}

/* kind: 'd' float64, 'f' float32, 'q' int64, 'i' int32, '?' or 'b' bool or int8, 'D' float64 or
 * float32, 'Q' int64 or int32 (the caller tells them apart by view.itemsize); at least n items */
static inline int get_buf(PyObject *obj, Buf *b, char kind, Py_ssize_t n, int writable, const char *name) {
    int flags = PyBUF_C_CONTIGUOUS | PyBUF_FORMAT | (writable ? PyBUF_WRITABLE : 0);
    if (PyObject_GetBuffer(obj, &b->view, flags) < 0) return -1;
    b->held = 1;
    const char *f = b->view.format ? b->view.format : "B";
    if (*f == '<' || *f == '=' || *f == '@') f++;
    if (!buf_kind_ok(kind, f[0], b->view.itemsize) || b->view.len / b->view.itemsize < n) {
        PyErr_Format(PyExc_ValueError, "%s: expected at least %zd items of %s", name, n,
                     kind == 'd'   ? "float64"
                     : kind == 'f' ? "float32"
                     : kind == 'q' ? "int64"
                     : kind == 'i' ? "int32"
                     : kind == 'D' ? "float64 or float32"
                     : kind == 'Q' ? "int64 or int32"
                                   : "bool or int8");
        return -1;
    }
    return 0;
}

/* release the buffers of bufs[0..n) that are held */
static inline void release(Buf *bufs, int n) {
    for (int i = 0; i < n; i++) {
        if (bufs[i].held) {
            PyBuffer_Release(&bufs[i].view);
            bufs[i].held = 0;
        }
    }
}

/* bufs[from..n) from objs[from..n): of kinds[i], with at least sizes[i] items (any number where
 * sizes is NULL), writable from index `writable` on, named names[i] in an error. On an error every
 * held buffer of bufs[0..n) is released and -1 returned, the Python error set. */
static inline int get_bufs(PyObject *const *objs, Buf *bufs, int from, int n, const char *kinds,
                           const Py_ssize_t *sizes, int writable, const char *const *names) {
    for (int i = from; i < n; i++) {
        if (get_buf(objs[i], &bufs[i], kinds[i], sizes ? sizes[i] : 0, i >= writable, names[i]) < 0) {
            release(bufs, n);
            return -1;
        }
    }
    return 0;
}

/* {"f", f, METH_VARARGS, f_doc}: a function of a module, documented by the string f_doc */
#define METHOD(f) {#f, f, METH_VARARGS, f##_doc}

/* The module `mod` (PyInit_<mod>) of the functions in the array `methods`, with the docstring `doc` */
#define MODULE(mod, doc)                                                                                       \
    static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, #mod, doc, -1, methods, NULL, NULL, NULL, NULL}; \
    PyMODINIT_FUNC PyInit_##mod(void) { return PyModule_Create(&module); }

/* The module `mod` whose one function is the C function `func` (taking a tuple of arguments) */
#define ONE_FUNCTION_MODULE(mod, func, doc)                     \
    static PyMethodDef methods[] = {METHOD(func), {NULL, NULL, 0, NULL}}; \
    MODULE(mod, doc)

/* what the loops share: the larger of two numbers, a cache line fetched ahead for reading (R) or
 * writing (W), and a function inlined wherever it is called (gcc -O2 keeps some as calls) */
static inline double dmax(double a, double b) { return a > b ? a : b; }
#define PREFETCH_R(p) __builtin_prefetch((p), 0)
#define PREFETCH_W(p) __builtin_prefetch((p), 1)
#define ALWAYS_INLINE static inline __attribute__((always_inline))

/* room for `need` items of `size` bytes at *p (p: the address of the pointer), its capacity *cap
 * doubled (from 4096 items) until they fit; 0, or -1 without memory (*p kept). Not inlined: the
 * loops call it rarely, and inlined it costs them registers */
static __attribute__((noinline, unused)) int grow_to(void *p, int64_t *cap, int64_t need, size_t size) {
    if (need <= *cap) return 0;
    int64_t c = *cap ? *cap : 4096;
    while (c < need) c *= 2;
    void *q = realloc(*(void **)p, (size_t)c * size);
    if (!q) return -1;
    *(void **)p = q;
    *cap = c;
    return 0;
}

#define F64(b) ((double *)(b).view.buf)
#define I64(b) ((int64_t *)(b).view.buf)
#define I32(b) ((int32_t *)(b).view.buf)
#define BOOL(b) ((char *)(b).view.buf)

#endif
