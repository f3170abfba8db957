/* A communication step's message rows (src, dst, bytes as float64 triples, as a program JSON
 * writes them) checked and split into the step kernels' columns, and each processor's operations
 * counted, in one pass each rather than a Python loop over every number (program_buffers.py). */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <math.h>
#include <stdlib.h>

#include "_buffers.h"

static int whole_in(double v, double hi) { return v >= 0.0 && v < hi && v == floor(v); }

PyDoc_STRVAR(split_rows_doc,
             "split_rows(rows, P, src, dst, nbytes, order) -> bool\n\n"
             "rows: float64, M triples (src, dst, bytes); src, dst, order: int32 of M items, nbytes:\n"
             "float64 of M items, written. False (nothing meaningful written) unless every src and dst\n"
             "is a whole number from 0 to P - 1, src != dst and bytes >= 0. order lists the message\n"
             "indices by sender, each sender's in message order (a stable sort by src).");

static PyObject *split_rows(PyObject *self, PyObject *args) {
    PyObject *objs[6];
    Py_ssize_t P;
    if (!PyArg_ParseTuple(args, "OnOOOO", &objs[0], &P, &objs[2], &objs[3], &objs[4], &objs[5])) return NULL;
    static const char *const names[] = {"rows", "", "src", "dst", "nbytes", "order"};
    Buf bufs[6] = {{0}};
    if (get_buf(objs[0], &bufs[0], 'd', 0, 0, names[0]) < 0) {
        release(bufs, 6);
        return NULL;
    }
    Py_ssize_t M = bufs[0].view.len / (Py_ssize_t)(3 * sizeof(double));
    if (bufs[0].view.len != M * (Py_ssize_t)(3 * sizeof(double)) || P < 1) {
        release(bufs, 6);
        Py_RETURN_FALSE;
    }
    const Py_ssize_t sizes[] = {0, 0, M, M, M, M};
    if (get_bufs(objs, bufs, 2, 6, "  iidi", sizes, 2, names) < 0) return NULL;
    const double *rows = F64(bufs[0]);
    int32_t *src = (int32_t *)bufs[2].view.buf, *dst = (int32_t *)bufs[3].view.buf;
    double *nbytes = F64(bufs[4]);
    int32_t *order = (int32_t *)bufs[5].view.buf;
    int ok = 1;
    Py_ssize_t *first = NULL;
    Py_BEGIN_ALLOW_THREADS
    for (Py_ssize_t k = 0; k < M && ok; k++) {
        double s = rows[3 * k], d = rows[3 * k + 1], b = rows[3 * k + 2];
        ok = whole_in(s, (double)P) && whole_in(d, (double)P) && s != d && b >= 0.0;
        src[k] = (int32_t)s;
        dst[k] = (int32_t)d;
        nbytes[k] = b;
    }
    if (ok) {
        first = calloc((size_t)P + 1, sizeof(Py_ssize_t));
        ok = first != NULL;
    }
    if (ok) {  /* counting sort by sender, stable */
        for (Py_ssize_t k = 0; k < M; k++) first[src[k] + 1]++;
        for (Py_ssize_t p = 0; p < P; p++) first[p + 1] += first[p];
        for (Py_ssize_t k = 0; k < M; k++) order[first[src[k]]++] = (int32_t)k;
    }
    free(first);
    Py_END_ALLOW_THREADS
    release(bufs, 6);
    return PyBool_FromLong(ok);
}

PyDoc_STRVAR(count_operations_doc,
             "count_operations(src, dst, durations, P, counts) -> None\n\n"
             "Add to counts (int64, P items) one for each message a processor sends (src, int32) or\n"
             "receives (dst, int32) and one for each computation of non-zero length (durations,\n"
             "float64, P per computation step).");

static PyObject *count_operations(PyObject *self, PyObject *args) {
    PyObject *objs[4];
    Py_ssize_t P;
    if (!PyArg_ParseTuple(args, "OOOnO", &objs[0], &objs[1], &objs[2], &P, &objs[3])) return NULL;
    static const char *const names[] = {"src", "dst", "durations", "counts"};
    Buf bufs[4] = {{0}};
    const Py_ssize_t sizes[] = {0, 0, 0, P};
    if (get_bufs(objs, bufs, 0, 4, "iidq", sizes, 3, names) < 0) return NULL;
    Py_ssize_t M = bufs[0].view.len / 4, Md = bufs[1].view.len / 4, D = bufs[2].view.len / 8;
    const int32_t *src = (const int32_t *)bufs[0].view.buf, *dst = (const int32_t *)bufs[1].view.buf;
    const double *dur = F64(bufs[2]);
    int64_t *counts = (int64_t *)bufs[3].view.buf;
    int ok = 1;
    for (Py_ssize_t k = 0; k < M && ok; k++) {
        ok = src[k] >= 0 && src[k] < P;
        if (ok) counts[src[k]]++;
    }
    for (Py_ssize_t k = 0; k < Md && ok; k++) {
        ok = dst[k] >= 0 && dst[k] < P;
        if (ok) counts[dst[k]]++;
    }
    for (Py_ssize_t k = 0; k < D && ok; k++) counts[k % P] += dur[k] > 0.0;
    release(bufs, 4);
    if (!ok) {
        PyErr_SetString(PyExc_ValueError, "count_operations: a processor out of range");
        return NULL;
    }
    Py_RETURN_NONE;
}

static PyMethodDef methods[] = {METHOD(split_rows), METHOD(count_operations), {NULL, NULL, 0, NULL}};

MODULE(_cmessage_rows, "Message rows checked and split into the step kernels' columns.")
