/* GOAL text read line by line in C, a block of whole lines at a time (see goal_compiled.py).
 *
 * It reads the form perfcompose and Schedgen write: 'num_ranks N', 'rank R {' ... '}', one
 * operation or dependency a line, labels of one letter and a number. Each block's operations
 * and dependencies go to columns the caller gives, with the same values the NumPy reader of
 * goal_arrays.py finds; anything else (comments, other labels, an unknown word, a -1 where only
 * a receive takes one, a peer or rank out of range) makes it answer None, and the NumPy reader
 * and then the line reader (which names the line of an error) read the text instead. */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>

#include "_buffers.h"

enum { T_WORD, T_COLON, T_OPEN, T_CLOSE };
#define MAX_TOKENS 16

typedef struct {
    int type;
    const char *s;
    int len;
} Token;

typedef struct {
    int64_t depth, num_ranks, blocks, letter;
} State;

static int word_char(unsigned char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-';
}

static int is(const Token *t, const char *word) {
    size_t n = strlen(word);
    return t->type == T_WORD && (size_t)t->len == n && memcmp(t->s, word, n) == 0;
}

/* the leading decimal digits of the (up to) 8 bytes from p before end: their value, their count in *n; where 8 are
 * there, read at once (one digit a byte, shifted to the top, then paired, and the pairs paired twice) */
ALWAYS_INLINE uint64_t digits8(const char *p, const char *end, int *n) {
    uint64_t x, v = 0;
    if (end - p < 8) {
        for (*n = 0; p + *n < end && (unsigned char)(p[*n] - '0') < 10; ++*n) v = v * 10 + (uint64_t)(p[*n] - '0');
        return v;
    }
    memcpy(&x, p, 8);
    x = (__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__ ? x : __builtin_bswap64(x)) ^ 0x3030303030303030u;
    uint64_t other = ((x + 0x7676767676767676u) | x) & 0x8080808080808080u; /* the top bit of bytes 10 or more */
    *n = other ? __builtin_ctzll(other) >> 3 : 8;
    if (*n == 0) return 0;
    v = x << (64 - 8 * *n);
    v = (v * 10 + (v >> 8)) & 0x00FF00FF00FF00FFu;
    v = (v * 100 + (v >> 16)) & 0x0000FFFF0000FFFFu;
    return (v * 10000 + (v >> 32)) & 0xFFFFFFFFu;
}

/* 1 to max_digits decimal digits from *pp (without a leading zero unless alone where label): their
 * value, *pp moved past them; else -2 */
ALWAYS_INLINE int64_t fast_number(const char **pp, const char *end, int max_digits, int label) {
    const char *p = *pp;
    int n, k;
    uint64_t v = digits8(p, end, &k);
    for (n = k; n == 8 && k <= max_digits; k += n) { /* (until one digit too many is seen) */
        uint64_t d = digits8(p + k, end, &n);
        for (int i = 0; i < n; i++) v *= 10;
        v += d;
    }
    if (k == 0 || k > max_digits || (label && k > 1 && *p == '0')) return -2;
    *pp = p + k;
    return (int64_t)v;
}

/* digits only (1 to 16 of them): their value, else -2; "-1" where allowed: -1 */
static int64_t number(const Token *t, int minus_one) {
    if (t->type != T_WORD) return -2;
    if (minus_one && t->len == 2 && t->s[0] == '-' && t->s[1] == '1') return -1;
    const char *p = t->s;
    int64_t v = fast_number(&p, t->s + t->len, 16, 0);
    return p == t->s + t->len ? v : -2;
}

/* a size: 1 to 15 digits and a final 'b' */
static int64_t size_bytes(const Token *t) {
    if (t->type != T_WORD || t->len < 2 || t->s[t->len - 1] != 'b') return -2;
    return number(&(Token){T_WORD, t->s, t->len - 1}, 0);
}

/* a label: one letter (the same in every label) and a number without leading zeros below 2^31 */
static int64_t label(const Token *t, State *st) {
    if (t->type != T_WORD || t->len < 2) return -2;
    unsigned char c = (unsigned char)t->s[0];
    if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'))) return -2;
    const char *p = t->s + 1;
    int64_t v = fast_number(&p, t->s + t->len, 10, 1);
    if (p != t->s + t->len || v < 0 || v >= ((int64_t)1 << 31)) return -2;
    if (st->letter < 0) {
        st->letter = c;
    } else if (st->letter != c) {
        return -2;
    }
    return v;
}

typedef struct {
    int8_t *kind;
    double *size;
    int32_t *peer;
    int64_t *tag;
    int32_t *cpu, *nic, *line, *block, *label;
    int32_t *dep_a, *dep_b, *dep_block;
    int8_t *dep_how;
    int64_t *rank;
    Py_ssize_t cap_ops, cap_deps, cap_ranks, n_ops, n_deps, n_ranks;
} Out;

/* one line's tokens; -1 for a byte outside the grammar's or a word over 16 bytes */
static int tokens(const char *p, const char *end, Token *tok) {
    int n = 0;
    while (p < end) {
        unsigned char c = (unsigned char)*p;
        if (c == ' ' || c == '\t' || c == '\r') {
            p++;
            continue;
        }
        if (n == MAX_TOKENS) return -1;
        if (word_char(c)) {
            const char *s = p;
            while (p < end && word_char((unsigned char)*p)) p++;
            if (p - s > 16) return -1;
            tok[n++] = (Token){T_WORD, s, (int)(p - s)};
            continue;
        }
        int type = c == ':' ? T_COLON : c == '{' ? T_OPEN : c == '}' ? T_CLOSE : -1;
        if (type < 0) return -1;
        tok[n++] = (Token){type, p, 1};
        p++;
    }
    return n;
}

/* the fields of an operation line */
typedef struct {
    int kind;
    int64_t size, peer, tag, cpu, nic;
} Fields;

/* an operation line (its label, if any, read off) into f: 0, or -1 where it is not of the form
 * read here */
static int parse_operation(const Token *t, int n, const State *st, Fields *f) {
    int kind = is(&t[0], "send") ? 0 : is(&t[0], "recv") ? 1 : is(&t[0], "calc") ? 2 : -1;
    if (kind < 0 || n < 2) return -1;
    int64_t size, peer = 0, tag = 0, cpu = 0, nic = 0;
    int k;
    if (kind == 2) {
        size = number(&t[1], 0);
        k = 2;
    } else {
        if (n < 4 || !is(&t[2], kind == 0 ? "to" : "from")) return -1;
        size = size_bytes(&t[1]);
        peer = number(&t[3], kind == 1);
        if (peer < -1 || peer >= st->num_ranks) return -1;
        k = 4;
        if (k + 1 < n && is(&t[k], "tag")) {
            tag = number(&t[k + 1], kind == 1);
            if (tag < -1) return -1;
            k += 2;
        }
    }
    if (size < 0) return -1;
    if (k + 1 < n && is(&t[k], "cpu")) {
        cpu = number(&t[k + 1], 0);
        k += 2;
    }
    if (kind != 2 && k + 1 < n && is(&t[k], "nic")) {
        nic = number(&t[k + 1], 0);
        k += 2;
    }
    if (k != n || cpu < 0 || nic < 0 || cpu >= ((int64_t)1 << 31) || nic >= ((int64_t)1 << 31)) return -1;
    *f = (Fields){kind, size, peer, tag, cpu, nic};
    return 0;
}

/* an operation line (its label, if any, read): 0, or -1 where it is not of the form read here */
static int operation(const Token *t, int n, int64_t lab, int32_t line, State *st, Out *o) {
    Fields f;
    if (parse_operation(t, n, st, &f) < 0) return -1;
    Py_ssize_t i = o->n_ops++;
    o->kind[i] = (int8_t)f.kind;
    o->size[i] = (double)f.size;
    o->peer[i] = (int32_t)f.peer;
    o->tag[i] = f.tag;
    o->cpu[i] = (int32_t)f.cpu;
    o->nic[i] = (int32_t)f.nic;
    o->line[i] = line;
    o->block[i] = (int32_t)(st->blocks - 1);
    o->label[i] = (int32_t)lab;
    return 0;
}

/* a line outside a rank block (`blocks` of them begun before): 'num_ranks N' read into st (0), or
 * 'rank R {' (1, R in *r, st in the block), else -1 */
static int outer_line(const Token *t, int n, State *st, int64_t blocks, int64_t *r) {
    if (n == 2 && is(&t[0], "num_ranks")) {
        int64_t v = number(&t[1], 0);
        if (st->num_ranks >= 0 || blocks > 0 || v < 1 || v >= ((int64_t)1 << 31)) return -1;
        st->num_ranks = v;
        return 0;
    }
    if (n != 3 || !is(&t[0], "rank") || t[2].type != T_OPEN) return -1;
    *r = number(&t[1], 0);
    if (st->num_ranks < 0 || *r < 0 || *r >= st->num_ranks) return -1;
    st->depth = 1;
    return 1;
}

/* one non-blank line: 0, or -1 where it is not of the form read here */
static int read_line(const Token *t, int n, int32_t line, State *st, Out *o) {
    if (st->depth == 0) {
        int64_t r;
        int got = outer_line(t, n, st, st->blocks, &r);
        if (got < 0 || (got == 1 && o->n_ranks >= o->cap_ranks)) return -1;
        if (got == 1) o->rank[o->n_ranks++] = r, st->blocks++;
        return 0;
    }
    if (n == 1 && t[0].type == T_CLOSE) {
        st->depth = 0;
        return 0;
    }
    if (o->n_ops >= o->cap_ops || o->n_deps >= o->cap_deps) return -1;
    if (n == 3 && (is(&t[1], "requires") || is(&t[1], "irequires"))) {
        int64_t a = label(&t[0], st), b = label(&t[2], st);
        if (a < 0 || b < 0) return -1;
        Py_ssize_t j = o->n_deps++;
        o->dep_a[j] = (int32_t)a;
        o->dep_b[j] = (int32_t)b;
        o->dep_how[j] = t[1].len == 9;
        o->dep_block[j] = (int32_t)(st->blocks - 1);
        return 0;
    }
    if (n >= 3 && t[1].type == T_COLON) {
        int64_t lab = label(&t[0], st);
        return lab < 0 ? -1 : operation(t + 2, n - 2, lab, line, st, o);
    }
    return operation(t, n, -1, line, st, o);
}

/* the end of the line that begins at p (its '\n', or end), and in *next where the next one begins */
static inline const char *line_end(const char *p, const char *end, const char **next) {
    const char *nl = memchr(p, '\n', (size_t)(end - p));
    *next = nl ? nl + 1 : end;
    return nl ? nl : end;
}

/* the columns ob[0..n) as writable buffers b (get_bufs: of kinds, named names), and the room of
 * each group of columns, the items of its shortest column: group 0 the columns before end0, group
 * 1 those before end1, group 2 the rest. -1 with the error set and every buffer released. */
static int get_columns(PyObject *const *ob, Buf *b, int n, const char *kinds, const char *const *names, int end0,
                       int end1, int64_t room[3]) {
    memset(b, 0, (size_t)n * sizeof(Buf));
    if (get_bufs(ob, b, 0, n, kinds, NULL, 0, names) < 0) return -1;
    room[0] = room[1] = room[2] = INT64_MAX;
    for (int i = 0; i < n; i++) {
        int group = i < end0 ? 0 : i < end1 ? 1 : 2;
        int64_t items = b[i].view.len / b[i].view.itemsize;
        room[group] = items < room[group] ? items : room[group];
    }
    return 0;
}

static const char read_block_doc[] =
    "read_block(data, first_line, depth, num_ranks, blocks, letter, kind, size, peer, tag, cpu, nic, line, block, "
    "label, dep_a, dep_b, dep_how, dep_block, rank)\n\n"
    "Read a block of whole lines of GOAL text into the columns, from their first entry; the state (depth, "
    "num_ranks, blocks, letter) carries over from the block before. Returns (operations, dependencies, ranks, "
    "depth, num_ranks, blocks, letter), or None where the text is not of the form read here or the columns "
    "have no room for it.";

static PyObject *read_block(PyObject *self, PyObject *args) {
    Py_buffer data;
    Py_ssize_t first_line;
    long long depth, num_ranks, blocks, letter;
    PyObject *ob[14];
    if (!PyArg_ParseTuple(args, "y*nLLLLOOOOOOOOOOOOOO:read_block", &data, &first_line, &depth, &num_ranks, &blocks,
                          &letter, &ob[0], &ob[1], &ob[2], &ob[3], &ob[4], &ob[5], &ob[6], &ob[7], &ob[8], &ob[9],
                          &ob[10], &ob[11], &ob[12], &ob[13])) {
        return NULL;
    }
    const char *p = (const char *)data.buf, *end = p + data.len;
    static const char *names[14] = {"kind", "size", "peer", "tag", "cpu", "nic", "line", "block", "label",
                                    "dep_a", "dep_b", "dep_how", "dep_block", "rank"};
    Buf b[14];
    PyObject *result = NULL;
    int64_t room[3];
    if (get_columns(ob, b, 14, "bdiqiiiiiiibiq", names, 9, 13, room) < 0) goto done;
    Out o = {(int8_t *)b[0].view.buf, F64(b[1]), I32(b[2]), I64(b[3]), I32(b[4]), I32(b[5]), I32(b[6]),
             I32(b[7]), I32(b[8]), I32(b[9]), I32(b[10]), I32(b[12]), (int8_t *)b[11].view.buf, I64(b[13]),
             room[0], room[1], room[2], 0, 0, 0};
    State st = {depth, num_ranks, blocks, letter};
    int32_t line = (int32_t)first_line;
    int bad = 0;
    Token tok[MAX_TOKENS];
    Py_BEGIN_ALLOW_THREADS
    while (p < end) {
        const char *next, *stop = line_end(p, end, &next);
        int n = tokens(p, stop, tok);
        if (n < 0 || (n > 0 && read_line(tok, n, line, &st, &o) < 0)) {
            bad = 1;
            break;
        }
        line++;
        p = next;
    }
    Py_END_ALLOW_THREADS
    result = bad ? Py_NewRef(Py_None)
                 : Py_BuildValue("nnnLLLL", o.n_ops, o.n_deps, o.n_ranks, (long long)st.depth,
                                 (long long)st.num_ranks, (long long)st.blocks, (long long)st.letter);
done:
    release(b, 14);
    PyBuffer_Release(&data);
    return result;
}

/* ------------------------------------------------------------------------------------------ */
/* The schedule's own columns at once, for the form perfcompose writes: every rank's block once and
 * in rank order, every operation labelled with its place in its block (l0, l1, ...), tags below
 * 2^31. Dependencies become operation indices, ordered by the operation required (in the order of
 * the text where two require the same one); no line, block or label columns are written, and cpu
 * and nic only where they are not 0 (into zeroed columns). Anything else answers False: the
 * reader of all columns (read_block) reads the text then. */

typedef struct {
    int8_t *kind;
    double *size64; /* the sizes in float64, or in float32 (size32, else NULL) while they are exact there */
    float *size32;
    int32_t *peer, *tag, *cpu, *nic, *dep_a, *dep_b;
    int8_t *dep_how;
    int64_t *rank, *block_ops;
    int64_t cap_ops, cap_deps, cap_ranks;
    int64_t n_ops, n_deps, blocks, block_first, dep_first, last_rank, any_cpu, any_nic;
} Lean;

enum { NOT_LEAN = -3, WIDE = -4 };

/* the end of a rank block: its dependencies as operation indices, stably by the one required */
static int lean_close(Lean *o) {
    int64_t nops = o->n_ops - o->block_first, d0 = o->dep_first, nd = o->n_deps - d0;
    o->block_ops[o->blocks - 1] = nops;
    if (nd <= 0) return 0;
    int32_t *cnt = calloc((size_t)nops + 1, sizeof(int32_t));
    int32_t *ta = malloc((size_t)nd * sizeof(int32_t)), *tb = malloc((size_t)nd * sizeof(int32_t));
    int8_t *th = malloc((size_t)nd);
    int rc = cnt && ta && tb && th ? 0 : NOT_LEAN;
    int32_t *da = o->dep_a + d0, *db = o->dep_b + d0, first = (int32_t)o->block_first;
    int8_t *dh = o->dep_how + d0;
    for (int64_t j = 0; j < nd && rc == 0; j++) {
        if (da[j] >= nops || db[j] >= nops) {
            rc = NOT_LEAN;
        } else {
            cnt[db[j] + 1]++;
        }
    }
    if (rc == 0) { /* the block's pairs copied aside, then put back in place */
        memcpy(ta, da, (size_t)nd * sizeof(int32_t));
        memcpy(tb, db, (size_t)nd * sizeof(int32_t));
        memcpy(th, dh, (size_t)nd);
        for (int64_t i = 0; i < nops; i++) cnt[i + 1] += cnt[i];
        for (int64_t j = 0; j < nd; j++) {
            int32_t k = cnt[tb[j]]++;
            da[k] = first + ta[j];
            db[k] = first + tb[j];
            dh[k] = th[j];
        }
    }
    free(cnt), free(ta), free(tb), free(th);
    return rc;
}

/* an operation's fields into the columns: 0, or WIDE */
ALWAYS_INLINE int lean_write(Lean *o, Fields f) {
    if (o->size32 && f.size >= ((int64_t)1 << 24)) return WIDE;
    int64_t i = o->n_ops++;
    o->kind[i] = (int8_t)f.kind;
    if (o->size32) {
        o->size32[i] = (float)f.size;
    } else {
        o->size64[i] = (double)f.size;
    }
    o->peer[i] = (int32_t)f.peer;
    o->tag[i] = (int32_t)f.tag;
    if (f.cpu) {
        o->cpu[i] = (int32_t)f.cpu;
        o->any_cpu = 1;
    }
    if (f.nic) {
        o->nic[i] = (int32_t)f.nic;
        o->any_nic = 1;
    }
    return 0;
}

/* one non-blank line: 0, or NOT_LEAN (or WIDE) */
static int lean_line(const Token *t, int n, State *st, Lean *o) {
    if (st->depth == 0) {
        int64_t r;
        int got = outer_line(t, n, st, o->blocks, &r);
        if (got < 0 || (got == 1 && (r <= o->last_rank || o->blocks >= o->cap_ranks))) return NOT_LEAN;
        if (got == 1) {
            o->rank[o->blocks++] = r;
            o->last_rank = r;
            o->block_first = o->n_ops;
            o->dep_first = o->n_deps;
        }
        return 0;
    }
    if (n == 1 && t[0].type == T_CLOSE) {
        st->depth = 0;
        return lean_close(o);
    }
    if (o->n_ops >= o->cap_ops || o->n_deps >= o->cap_deps || o->n_ops >= INT32_MAX - 1) return NOT_LEAN;
    if (n == 3 && (is(&t[1], "requires") || is(&t[1], "irequires"))) {
        int64_t a = label(&t[0], st), b = label(&t[2], st);
        if (a < 0 || b < 0) return NOT_LEAN;
        int64_t j = o->n_deps++;
        o->dep_a[j] = (int32_t)a;
        o->dep_b[j] = (int32_t)b;
        o->dep_how[j] = t[1].len == 9;
        return 0;
    }
    Fields f;
    if (n < 3 || t[1].type != T_COLON || label(&t[0], st) != o->n_ops - o->block_first ||
        parse_operation(t + 2, n - 2, st, &f) < 0 || f.tag >= ((int64_t)1 << 31)) {
        return NOT_LEAN;
    }
    return lean_write(o, f);
}

/* ------------------------------------------------------------------------------------------ */
/* the lines perfcompose writes most, read without tokens: 'lN: send Sb to P tag T', 'lN: recv Sb
 * from P tag T', 'lN: calc S', 'lA requires lB' and 'lA irequires lB', spelt just so (one space
 * between words, the label's letter the one seen before). Where such a line is read here it is read
 * as lean_line reads it; any other line (or one that lean_line would refuse) is left to lean_line. */

ALWAYS_INLINE int fast_word(const char **pp, const char *end, const char *word, int n) {
    if (end - *pp >= n && memcmp(*pp, word, (size_t)n) == 0) {
        *pp += n;
        return 1;
    }
    return 0;
}

/* the line at p (in the block that ends at end) read here: where the next line begins, else NULL (nothing written) */
static const char *fast_line(const char *p, const char *end, State *st, Lean *o) {
    if (st->depth != 1 || st->letter < 0 || p >= end || (unsigned char)*p != st->letter ||
        o->n_ops >= o->cap_ops || o->n_deps >= o->cap_deps || o->n_ops >= INT32_MAX - 1) {
        return NULL;
    }
    p++;
    int64_t a = fast_number(&p, end, 10, 1);
    if (a < 0 || a >= ((int64_t)1 << 31)) return NULL;
    int irequires = fast_word(&p, end, " irequires ", 11);
    if (irequires || fast_word(&p, end, " requires ", 10)) {
        if (p >= end || (unsigned char)*p != st->letter) return NULL;
        p++;
        int64_t b = fast_number(&p, end, 10, 1);
        if (b < 0 || b >= ((int64_t)1 << 31) || (p < end && *p != '\n')) return NULL;
        int64_t j = o->n_deps++;
        o->dep_a[j] = (int32_t)a;
        o->dep_b[j] = (int32_t)b;
        o->dep_how[j] = (int8_t)irequires;
        return p + (p < end);
    }
    if (a != o->n_ops - o->block_first || !fast_word(&p, end, ": ", 2)) return NULL;
    Fields f = {2, 0, 0, 0, 0, 0};
    if (fast_word(&p, end, "calc ", 5)) {
        f.size = fast_number(&p, end, 16, 0);
    } else {
        if (fast_word(&p, end, "send ", 5)) {
            f.kind = 0;
        } else if (fast_word(&p, end, "recv ", 5)) {
            f.kind = 1;
        } else {
            return NULL;
        }
        f.size = fast_number(&p, end, 15, 0);
        if (f.size < 0 || !fast_word(&p, end, "b", 1) ||
            !(f.kind == 0 ? fast_word(&p, end, " to ", 4) : fast_word(&p, end, " from ", 6))) {
            return NULL;
        }
        f.peer = f.kind == 1 && fast_word(&p, end, "-1", 2) ? -1 : fast_number(&p, end, 16, 0); /* (-1: any) */
        if (f.peer < -1 || f.peer >= st->num_ranks || !fast_word(&p, end, " tag ", 5)) return NULL;
        f.tag = f.kind == 1 && fast_word(&p, end, "-1", 2) ? -1 : fast_number(&p, end, 16, 0);
        if (f.tag < -1 || f.tag >= ((int64_t)1 << 31)) return NULL;
    }
    if (f.size < 0 || (p < end && *p != '\n') || (o->size32 && f.size >= ((int64_t)1 << 24))) return NULL;
    lean_write(o, f);
    return p + (p < end);
}

static const char read_lean_doc[] =
    "read_lean(data, state, kind, size, peer, tag, cpu, nic, dep_a, dep_b, dep_how, rank, block_ops)\n\n"
    "Read a block of whole lines of GOAL text of the form perfcompose writes into a schedule's own columns "
    "(kind int8, size float64 or float32, peer, tag, cpu and nic int32 per operation, cpu and nic zeroed; dep_a, "
    "dep_b int32 and dep_how int8 per dependency; rank and block_ops int64 per rank block), after what the blocks "
    "before wrote. state: (depth, num_ranks, letter, operations, dependencies, blocks, first operation and first "
    "dependency of the open block, last rank, any cpu, any nic), (0, -1, -1, 0, 0, 0, 0, 0, -1, 0, 0) at the "
    "start. Returns the state after the block, False where the text is not of that form, or 1 where a size of "
    "2^24 or more needs float64 sizes (read the text again from its start).";

static PyObject *read_lean(PyObject *self, PyObject *args) {
    Py_buffer data;
    long long v[11];
    PyObject *ob[11];
    if (!PyArg_ParseTuple(args, "y*(LLLLLLLLLLL)OOOOOOOOOOO:read_lean", &data, &v[0], &v[1], &v[2], &v[3], &v[4],
                          &v[5], &v[6], &v[7], &v[8], &v[9], &v[10], &ob[0], &ob[1], &ob[2], &ob[3], &ob[4], &ob[5],
                          &ob[6], &ob[7], &ob[8], &ob[9], &ob[10])) {
        return NULL;
    }
    static const char *names[11] = {"kind", "size", "peer", "tag", "cpu", "nic", "dep_a", "dep_b", "dep_how", "rank",
                                    "block_ops"};
    Buf b[11];
    PyObject *result = NULL;
    int64_t room[3];
    if (get_columns(ob, b, 11, "bDiiiiiibqq", names, 6, 9, room) < 0) { /* sizes float64 or float32 */
        goto done;
    }
    int wide = b[1].view.itemsize == 8;
    Lean o = {(int8_t *)b[0].view.buf, wide ? F64(b[1]) : NULL, wide ? NULL : (float *)b[1].view.buf, I32(b[2]), I32(b[3]), I32(b[4]), I32(b[5]), I32(b[6]), I32(b[7]),
              (int8_t *)b[8].view.buf, I64(b[9]), I64(b[10]), room[0], room[1], room[2], v[3], v[4], v[5], v[6], v[7],
              v[8], v[9], v[10]};
    State st = {v[0], v[1], 0, v[2]};
    if (o.n_ops > o.cap_ops || o.n_deps > o.cap_deps || o.blocks > o.cap_ranks) {
        PyErr_SetString(PyExc_ValueError, "the state names more entries than the columns hold");
        goto done;
    }
    const char *p = (const char *)data.buf, *end = p + data.len;
    int bad = 0;
    Token tok[MAX_TOKENS];
    Py_BEGIN_ALLOW_THREADS
    while (p < end) {
        const char *next = fast_line(p, end, &st, &o), *stop;
        if (next) {
            p = next;
            continue;
        }
        stop = line_end(p, end, &next);
        int n = tokens(p, stop, tok);
        int rc = n < 0 ? NOT_LEAN : n > 0 ? lean_line(tok, n, &st, &o) : 0;
        if (rc < 0) {
            bad = rc;
            break;
        }
        p = next;
    }
    Py_END_ALLOW_THREADS
    if (bad == WIDE) {
        result = PyLong_FromLong(1);
    } else if (bad) {
        result = Py_NewRef(Py_False);
    } else {
        result = Py_BuildValue("(LLLLLLLLLLL)", (long long)st.depth, (long long)st.num_ranks, (long long)st.letter,
                               (long long)o.n_ops, (long long)o.n_deps, (long long)o.blocks, (long long)o.block_first,
                               (long long)o.dep_first, (long long)o.last_rank, (long long)o.any_cpu,
                               (long long)o.any_nic);
    }
done:
    release(b, 11);
    PyBuffer_Release(&data);
    return result;
}

static const char split_requires_doc[] =
    "split_requires(dep_a, dep_b, dep_how, m, ireq_a, ireq_b) -> requires\n\n"
    "The first m pairs (dep_a, dep_b; int32) told apart by dep_how (int8, 0 requires, 1 irequires), each in "
    "their order: the requires moved to the front of dep_a and dep_b, the irequires written to ireq_a and "
    "ireq_b (room for m). Returns the number of requires.";

static PyObject *split_requires(PyObject *self, PyObject *args) {
    PyObject *ob[5];
    Py_ssize_t m;
    if (!PyArg_ParseTuple(args, "OOOnOO:split_requires", &ob[0], &ob[1], &ob[2], &m, &ob[3], &ob[4])) return NULL;
    static const char *names[5] = {"dep_a", "dep_b", "dep_how", "ireq_a", "ireq_b"};
    Py_ssize_t sizes[5] = {m, m, m, m, m};
    Buf b[5];
    memset(b, 0, sizeof(b));
    if (m < 0 || get_bufs(ob, b, 0, 5, "iibii", sizes, 0, names) < 0) {
        if (!PyErr_Occurred()) PyErr_SetString(PyExc_ValueError, "m must not be negative");
        return NULL;
    }
    int32_t *a = I32(b[0]), *bb = I32(b[1]), *ia = I32(b[3]), *ib = I32(b[4]);
    const int8_t *how = (const int8_t *)b[2].view.buf;
    Py_ssize_t r = 0, k = 0;
    for (Py_ssize_t j = 0; j < m; j++) {
        int32_t *to_a = how[j] ? ia + k++ : a + r, *to_b = how[j] ? ib + k - 1 : bb + r++;
        *to_a = a[j];
        *to_b = bb[j];
    }
    release(b, 5);
    return PyLong_FromSsize_t(r);
}

static PyMethodDef methods[] = {METHOD(read_block), METHOD(read_lean), METHOD(split_requires), {NULL, NULL, 0, NULL}};

MODULE(_cgoal_text, "GOAL text read in C, a block of lines at a time (see goal_compiled.py).")
