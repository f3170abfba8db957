/* The tokens of a JSON array of numbers, compiled (see json_arrays.py, whose NumPy tokenizer it
 * replaces where it is built): from the '[' at an offset to its closing ']', the kind of every
 * token (number, '[', ']' or ',', with json_arrays' codes) and the value of every number, in one
 * pass. A number is what the NumPy tokenizer reads: a run of the bytes 0-9 - + . e E that
 * strtod reads whole to a finite value, not starting with '+' or '.'. Anything else in the array
 * (a string, null, an object) makes it answer None, and json reads that array. */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "_buffers.h"

enum { K_NUM = 1, K_OPEN = 2, K_CLOSE = 3, K_COMMA = 4 };

static int num_char(unsigned char c) {
    return (c >= '0' && c <= '9') || c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E';
}

/* the value of the token s[0..len), or 0 with *ok = 0 where it is no number read here */
static double value(const char *s, Py_ssize_t len, int *ok) {
    int digits = len <= 15;
    for (Py_ssize_t i = 0; i < len && digits; i++) digits = s[i] >= '0' && s[i] <= '9';
    if (digits) {  /* exact, as the NumPy tokenizer reads plain integers digit by digit */
        int64_t v = 0;
        for (Py_ssize_t i = 0; i < len; i++) v = v * 10 + (s[i] - '0');
        *ok = 1;
        return (double)v;
    }
    if (s[0] == '+' || s[0] == '.' || len > 400) {
        *ok = 0;
        return 0.0;
    }
    char tmp[401];
    memcpy(tmp, s, (size_t)len);
    tmp[len] = '\0';
    char *end;
    double v = strtod(tmp, &end);
    *ok = end == tmp + len && isfinite(v);
    return v;
}

typedef struct {
    char *kind;
    double *value;
    Py_ssize_t n_kind, n_value, cap_kind, cap_value;
} Tokens;

static int grow(void **p, Py_ssize_t *cap, size_t item) {
    Py_ssize_t cap2 = *cap ? 2 * *cap : 4096;
    void *q = realloc(*p, (size_t)cap2 * item);
    if (q == NULL) return -1;
    *p = q;
    *cap = cap2;
    return 0;
}

/* 1: read to the closing bracket (*stop just past it); 0: not of the form read here; -1: no memory */
static int scan(const char *buf, Py_ssize_t n, Py_ssize_t start, Tokens *t, Py_ssize_t *stop) {
    Py_ssize_t depth = 0, i = start;
    while (i < n) {
        unsigned char c = (unsigned char)buf[i];
        if (c == ' ' || c == '\t' || c == '\r' || c == '\n') {
            i++;
            continue;
        }
        if (t->n_kind == t->cap_kind && grow((void **)&t->kind, &t->cap_kind, 1) < 0) return -1;
        if (num_char(c)) {
            Py_ssize_t s = i;
            while (i < n && num_char((unsigned char)buf[i])) i++;
            int ok;
            double v = value(buf + s, i - s, &ok);
            if (!ok) return 0;
            if (t->n_value == t->cap_value && grow((void **)&t->value, &t->cap_value, sizeof(double)) < 0) return -1;
            t->value[t->n_value++] = v;
            t->kind[t->n_kind++] = K_NUM;
            continue;
        }
        if (c == '[') {
            depth++;
            t->kind[t->n_kind++] = K_OPEN;
        } else if (c == ']') {
            depth--;
            t->kind[t->n_kind++] = K_CLOSE;
            if (depth == 0) {
                *stop = i + 1;
                return 1;
            }
        } else if (c == ',') {
            t->kind[t->n_kind++] = K_COMMA;
        } else {
            return 0;
        }
        i++;
    }
    return 0;
}

static const char tokenize_doc[] =
    "tokenize(data, start) -> (kinds, values, stop) or None\n\n"
    "The tokens of the JSON array opening at data[start]: their kinds (bytes: 1 number, 2 '[', 3 ']', 4 ','), "
    "the numbers (bytes of float64) and the offset just past the closing bracket; None where the array holds "
    "anything but numbers, brackets, commas and whitespace.";

static PyObject *tokenize(PyObject *self, PyObject *args) {
    Py_buffer data;
    Py_ssize_t start;
    if (!PyArg_ParseTuple(args, "y*n:tokenize", &data, &start)) return NULL;
    Tokens t = {NULL, NULL, 0, 0, 0, 0};
    Py_ssize_t stop = 0;
    int got;
    Py_BEGIN_ALLOW_THREADS
    got = start >= 0 && start < data.len && ((const char *)data.buf)[start] == '['
              ? scan((const char *)data.buf, data.len, start, &t, &stop)
              : 0;
    Py_END_ALLOW_THREADS
    PyBuffer_Release(&data);
    PyObject *result = NULL;
    if (got < 0) {
        PyErr_NoMemory();
    } else if (got == 0) {
        Py_INCREF(Py_None);
        result = Py_None;
    } else {
        result = Py_BuildValue("y#y#n", t.kind, t.n_kind, t.value ? (const char *)t.value : "",
                               (Py_ssize_t)(t.n_value * (Py_ssize_t)sizeof(double)), stop);
    }
    free(t.kind);
    free(t.value);
    return result;
}

ONE_FUNCTION_MODULE(_cjson_tokens, tokenize, "The tokens of JSON number arrays, compiled (see json_arrays.py).")
