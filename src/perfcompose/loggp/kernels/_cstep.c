/* The LogGP step simulators of paper 002 compiled as a C extension: the standard algorithm
 * (Figure 2), the worst case (section 4.2) with its waiting graph's components, and LogGOPSim's
 * loop on a program's steps. They give the timelines of the plain-Python references
 * (simulate.py's reference_step, with the same Mersenne Twister stream for random ties as NumPy's
 * RandomState; worstcase.py's reference_worst_step; loggopsim_reference.py) exactly; the Python
 * wrappers allocate and check every array and pass them here as buffers (_buffers.h). */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "_buffers.h"

/* ------------------------------------------------------------------------------------------ */
/* the heap of _heap.py: (key, tie-break, id) entries from base; smallest key first, then
 * tie-break. The entries are kept together (one cache line for a comparison and a move, where
 * _heap.py's Numba code keeps three arrays): the same order of operations, the same results. */

typedef struct {
    double key, tb;
    int64_t id;
} Entry;

static inline int less(double k1, double t1, double k2, double t2) {
    return k1 < k2 || (k1 == k2 && t1 < t2);
}

#define HEAP_NAME entry
#define HEAP_ENTRY Entry
#define HEAP_LESS(a, b) less((a).key, (a).tb, (b).key, (b).tb)
#include "_heap_sift.h"

static inline int64_t heap_push(Entry *h, int64_t n, double key, double tb, int64_t ident) {
    Entry e = {key, tb, ident};
    entry_sift_up(h, n, e);
    return n + 1;
}

static inline int64_t heap_pop(Entry *h, int64_t n) {
    n -= 1;
    if (n <= 0) return n;
    entry_sift_down(h, n, h[n]);
    return n;
}

/* ------------------------------------------------------------------------------------------ */
/* MT19937 as NumPy's RandomState seeds and draws it (RandomState(s) with a 32-bit s; random_sample()) */

#define MT_N 624
#define MT_M 397

typedef struct {
    uint32_t mt[MT_N];
    int index;
} MT;

static void mt_seed(MT *s, uint32_t seed) {
    for (int pos = 0; pos < MT_N; pos++) {
        s->mt[pos] = seed;
        seed = 1812433253U * (seed ^ (seed >> 30)) + (uint32_t)pos + 1U;
    }
    s->index = MT_N;
}

static void mt_shuffle(MT *s) {
    uint32_t *mt = s->mt, y;
    int i;
    for (i = 0; i < MT_N - MT_M; i++) {
        y = (mt[i] & 0x80000000U) | (mt[i + 1] & 0x7fffffffU);
        mt[i] = mt[i + MT_M] ^ (y >> 1) ^ (-(int32_t)(y & 1) & 0x9908b0dfU);
    }
    for (; i < MT_N - 1; i++) {
        y = (mt[i] & 0x80000000U) | (mt[i + 1] & 0x7fffffffU);
        mt[i] = mt[i + (MT_M - MT_N)] ^ (y >> 1) ^ (-(int32_t)(y & 1) & 0x9908b0dfU);
    }
    y = (mt[MT_N - 1] & 0x80000000U) | (mt[0] & 0x7fffffffU);
    mt[MT_N - 1] = mt[MT_M - 1] ^ (y >> 1) ^ (-(int32_t)(y & 1) & 0x9908b0dfU);
    s->index = 0;
}

static inline uint32_t mt_next(MT *s) {
    if (s->index >= MT_N) mt_shuffle(s);
    uint32_t y = s->mt[s->index++];
    y ^= (y >> 11);
    y ^= (y << 7) & 0x9d2c5680U;
    y ^= (y << 15) & 0xefc60000U;
    y ^= (y >> 18);
    return y;
}

static inline double mt_double(MT *s) {
    uint32_t a = mt_next(s) >> 5, b = mt_next(s) >> 6;
    return (a * 67108864.0 + b) / 9007199254740992.0;
}

/* ------------------------------------------------------------------------------------------ */
/* the gaps of Figure 1 and the receives */

typedef struct {
    Entry *heap; /* the arrival heaps, processor p's from recv_ptr[p] */
    int64_t *rsize, *recv_ptr;
    double *next_send, *recv_ready, *finish, *recv_start;
    int64_t *recv_seq;
    double o, send_gap_after_recv, recv_gap_after_recv;
} Receiver;

static void gaps_after_receive(double o, double g, int end_origin, double *send, double *recv) {
    if (end_origin) {
        *send = o + fmax(2.0 * o, g) - 2.0 * o;
    } else {
        *send = fmax(o, fmax(2.0 * o, g) - 2.0 * o);
    }
    *recv = fmax(o, g);
}

static inline void gaps_after_send(double o, double g, double k1G, int end_origin, double *send, double *recv) {
    *send = fmax(o, g + k1G);
    *recv = end_origin ? (o + k1G + g) : *send;
}

/* processor p receives the first message of its arrival heap at tr; returns the next number */
static inline int64_t receive_first(Receiver *r, int64_t p, double tr, int64_t seq) {
    Entry *h = r->heap + r->recv_ptr[p];
    int64_t m = h[0].id;
    r->rsize[p] = heap_pop(h, r->rsize[p]);
    r->recv_start[m] = tr;
    r->recv_seq[m] = seq;
    r->next_send[p] = tr + r->send_gap_after_recv;
    r->recv_ready[p] = tr + r->recv_gap_after_recv;
    r->finish[p] = tr + r->o;
    return seq + 1;
}

/* processor p receives every message of its arrival heap in arrival order; the heap, filled long
 * before, is fetched first as a whole, and the messages that may come next (the root's children)
 * have their output lines fetched while the root's is written */
static int64_t drain(Receiver *r, int64_t p, int64_t seq) {
    Entry *h = r->heap + r->recv_ptr[p];
    const char *end = (const char *)(h + r->rsize[p]);
    for (const char *x = (const char *)h; x < end; x += 64) PREFETCH_R(x);
    while (r->rsize[p] > 0) {
        if (r->rsize[p] > 2) {
            PREFETCH_W(&r->recv_start[h[1].id]);
            PREFETCH_W(&r->recv_seq[h[1].id]);
            PREFETCH_W(&r->recv_start[h[2].id]);
            PREFETCH_W(&r->recv_seq[h[2].id]);
        }
        seq = receive_first(r, p, fmax(r->recv_ready[p], h[0].key), seq);
    }
    return seq;
}

/* ------------------------------------------------------------------------------------------ */
/* Figure 2 */

/* *p replaced by n bytes aligned to a cache line (a record never spans two), its first `keep`
 * bytes kept; 0, or -1 without memory (*p kept) */
static int lines(void *p, size_t n, size_t keep) {
    void *a = NULL;
    if (posix_memalign(&a, 64, n > 0 ? n : 64) != 0) return -1;
    if (keep) memcpy(a, *(void **)p, keep);
    free(*(void **)p);
    *(void **)p = a;
    return 0;
}

typedef struct {
    int64_t P, M;
    const int64_t *dst, *order, *send_ptr;
    const double *nbytes, *t0;
    double L, o, g, G;
    int end_origin, random_ties;
    uint32_t seed;
    double *send_start;
    int64_t *send_seq;
} Standard;

/* what the loop reads and writes of one processor, in one cache line (with 2^20 processors, seven
 * arrays indexed by processor cost up to seven cache misses an action) */
typedef struct {
    double next_send, recv_ready, finish;
    int64_t pos, end;    /* its next send and the end of its sends, in the send order */
    int64_t rptr, rsize; /* its arrival heap: first entry, entries */
    int64_t pad;
} Proc;

/* processor q receives the first message of its arrival heap at tr; returns the next number */
static inline int64_t proc_receive(Proc *q, Entry *heap, double *recv_start, int64_t *recv_seq, double tr,
                                   int64_t seq, double o, double send_gap, double recv_gap) {
    Entry *h = heap + q->rptr;
    int64_t m = h[0].id;
    q->rsize = heap_pop(h, q->rsize);
    recv_start[m] = tr;
    recv_seq[m] = seq;
    q->next_send = tr + send_gap;
    q->recv_ready = tr + recv_gap;
    q->finish = tr + o;
    return seq + 1;
}

static int64_t standard_run(Standard *a, Receiver *r, Entry *senders) {
    int64_t P = a->P, hn = 0, seq = 0, arrivals = 0;
    MT *rng = NULL;
    char *raw = (char *)malloc((size_t)(P > 0 ? P : 1) * sizeof(Proc) + 64);
    if (a->random_ties) rng = (MT *)malloc(sizeof(MT));
    if (!raw || (a->random_ties && !rng)) {
        free(raw);
        free(rng);
        return -1;
    }
    if (rng) mt_seed(rng, a->seed);
    Proc *proc = (Proc *)(raw + (64 - (uintptr_t)raw % 64) % 64);
    const double o = a->o, L = a->L, G = a->G;
    const double send_gap_r = r->send_gap_after_recv, recv_gap_r = r->recv_gap_after_recv;
    Entry *heap = r->heap;
    double *recv_start = r->recv_start;
    int64_t *recv_seq = r->recv_seq;
    for (int64_t p = 0; p < P; p++) {
        Proc *q = &proc[p];
        q->pos = a->send_ptr[p];
        q->end = a->send_ptr[p + 1];
        q->rptr = r->recv_ptr[p];
        q->rsize = 0;
        q->finish = a->t0[p];
        q->next_send = fmax(r->next_send[p], a->t0[p]);
        q->recv_ready = fmax(r->recv_ready[p], a->t0[p]);
        if (q->end > q->pos) {
            double tb = rng ? mt_double(rng) : (double)p;
            hn = heap_push(senders, hn, q->next_send, tb, p);
        }
    }
    while (hn > 0) {
        int64_t p = senders[0].id;
        double ts = senders[0].key;
        Proc *q = &proc[p];
        double tr = INFINITY;
        if (q->rsize > 0) tr = fmax(q->recv_ready, heap[q->rptr].key);
        if (ts < tr) { /* SEND (a receive that could start as early wins) */
            int64_t m = a->order[q->pos];
            q->pos += 1;
            double k1G = fmax(a->nbytes[m] - 1.0, 0.0) * G;
            a->send_start[m] = ts;
            a->send_seq[m] = seq++;
            Proc *d = &proc[a->dst[m]];
            d->rsize = heap_push(heap + d->rptr, d->rsize, ts + o + k1G + L, (double)arrivals, m);
            arrivals += 1;
            double send_gap, recv_gap;
            gaps_after_send(o, a->g, k1G, a->end_origin, &send_gap, &recv_gap);
            q->next_send = ts + send_gap;
            q->recv_ready = ts + recv_gap;
            q->finish = ts + o;
        } else { /* RECEIVE */
            seq = proc_receive(q, heap, recv_start, recv_seq, tr, seq, o, send_gap_r, recv_gap_r);
        }
        if (q->pos < q->end) {
            double tb = rng ? mt_double(rng) : (double)p;
            hn = heap_pop(senders, hn);
            hn = heap_push(senders, hn, q->next_send, tb, p);
        } else {
            hn = heap_pop(senders, hn);
        }
        if (hn > 0) { /* the next to act: read its line ahead */
            __builtin_prefetch(&proc[senders[0].id]);
        }
    }
    for (int64_t p = 0; p < P; p++) { /* drain the remaining receives */
        Proc *q = &proc[p];
        while (q->rsize > 0) {
            seq = proc_receive(q, heap, recv_start, recv_seq, fmax(q->recv_ready, heap[q->rptr].key), seq, o,
                               send_gap_r, recv_gap_r);
        }
        r->next_send[p] = q->next_send;
        r->recv_ready[p] = q->recv_ready;
        r->finish[p] = q->finish;
    }
    free(rng);
    free(raw);
    return seq;
}

/* The 13 buffers of a step's arguments into b: the STEP_IN inputs named in_names, of in_kinds,
 * then the outputs that Figure 2's kernel and the worst case fill alike: per message (M) its send
 * and receive start and operation numbers, per processor (P) its finish and its next send and
 * receive. The first is of the messages, and its length is M (*M); lengths[i] tells how many
 * items the i-th input needs: 'M' M, 'P' P, 'p' P + 1. -1 with the error set and every one released. */
#define STEP_IN 6
#define STEP_OUT 7
static int get_step_io(PyObject *const *objs, Buf *b, const char *const *in_names, const char *in_kinds,
                       const char *in_lengths, Py_ssize_t P, Py_ssize_t *M) {
    const char *names[STEP_IN + STEP_OUT] = {0, 0, 0, 0, 0, 0, "send_start", "recv_start", "send_seq", "recv_seq",
                                             "finish", "next_send", "recv_ready"};
    char kinds[STEP_IN + STEP_OUT + 1], lengths[STEP_IN + STEP_OUT + 1];
    memcpy(names, in_names, STEP_IN * sizeof(char *));
    snprintf(kinds, sizeof(kinds), "%sddqqddd", in_kinds);
    snprintf(lengths, sizeof(lengths), "%sMMMMPPP", in_lengths);
    Py_ssize_t sizes[STEP_IN + STEP_OUT];
    memset(b, 0, (STEP_IN + STEP_OUT) * sizeof(Buf));
    if (get_bufs(objs, b, 0, 1, kinds, NULL, STEP_IN, names) < 0) return -1;
    *M = b[0].view.len / b[0].view.itemsize;
    for (int i = 0; i < STEP_IN + STEP_OUT; i++) sizes[i] = lengths[i] == 'M' ? *M : lengths[i] == 'P' ? P : P + 1;
    return get_bufs(objs, b, 1, STEP_IN + STEP_OUT, kinds, sizes, STEP_IN, names);
}

static PyObject *standard(PyObject *self, PyObject *args) {
    Py_ssize_t P;
    PyObject *objs[13];
    double L, o, g, G;
    int end_origin, random_ties;
    unsigned long long seed;
    if (!PyArg_ParseTuple(args, "nOOOOOOddddppKOOOOOOO:standard", &P, &objs[0], &objs[1], &objs[2], &objs[3],
                          &objs[4], &objs[5], &L, &o, &g, &G, &end_origin, &random_ties, &seed, &objs[6], &objs[7],
                          &objs[8], &objs[9], &objs[10], &objs[11], &objs[12])) {
        return NULL;
    }
    static const char *const names[STEP_IN] = {"dst", "nbytes", "order", "send_ptr", "recv_ptr", "t0"};
    Buf b[13];
    Py_ssize_t M;
    if (get_step_io(objs, b, names, "qdqqqd", "MMMppP", P, &M) < 0) return NULL;
    Standard a = {P, M, I64(b[0]), I64(b[2]), I64(b[3]), F64(b[1]), F64(b[5]), L, o, g, G, end_origin,
                  random_ties, (uint32_t)(seed & 0xffffffffULL), F64(b[6]), I64(b[8])};
    Receiver r = {NULL, NULL, I64(b[4]), F64(b[11]), F64(b[12]), F64(b[10]), F64(b[7]), I64(b[9]), o, 0.0, 0.0};
    gaps_after_receive(o, g, end_origin, &r.send_gap_after_recv, &r.recv_gap_after_recv);
    size_t m1 = (size_t)(M > 0 ? M : 1), p1 = (size_t)(P > 0 ? P : 1);
    r.heap = (Entry *)malloc(m1 * sizeof(Entry));
    Entry *senders = (Entry *)malloc(p1 * sizeof(Entry));
    int64_t seq = -1;
    if (r.heap && senders) {
        Py_BEGIN_ALLOW_THREADS
        seq = standard_run(&a, &r, senders);
        Py_END_ALLOW_THREADS
    }
    free(r.heap);
    free(senders);
    release(b, 13);
    if (seq < 0) return PyErr_NoMemory();
    return PyLong_FromLongLong(seq);
}

/* ------------------------------------------------------------------------------------------ */
/* section 4.2: receive everything, then send; returns how many processors have not sent yet */

typedef struct {
    int64_t P;
    const int64_t *dst, *order, *send_ptr;
    const double *nbytes;
    double L, o, g, G;
    int end_origin;
    int64_t forced;
    char *sent;
    int64_t *waiting, *counters, *stack, *send_seq;
    double *send_start;
    int64_t *newly; /* where not NULL: the processors that sent, appended as they do (n_newly) */
    int64_t n_newly, n_sent;
} Worst;

#define WORST_AHEAD 16

static int64_t worst_run(Worst *a, Receiver *r) {
    int64_t sp = 0, P = a->P;
    if (a->forced >= 0) {
        a->stack[sp++] = a->forced;
    } else {
        for (int64_t p = 0; p < P; p++) {
            if (!a->sent[p] && a->waiting[p] == 0) a->stack[sp++] = p;
        }
    }
    while (sp > 0) {
        int64_t p = a->stack[--sp];
        a->counters[0] = drain(r, p, a->counters[0]);
        if (a->sent[p]) { /* a forced processor whose last messages have now been sent to it */
            continue;
        }
        a->sent[p] = 1;
        a->n_sent += 1;
        if (a->newly) a->newly[a->n_newly++] = p;
        const int64_t end = a->send_ptr[p + 1];
        for (int64_t i = a->send_ptr[p]; i < end; i++) {
            /* the burst's messages lie far apart: what a send reads and writes is fetched
             * WORST_AHEAD sends ahead, and its receiver's heap slot half as far */
            if (i + WORST_AHEAD < end) {
                int64_t mf = a->order[i + WORST_AHEAD];
                PREFETCH_R(&a->dst[mf]);
                PREFETCH_R(&a->nbytes[mf]);
                PREFETCH_W(&a->send_start[mf]);
                PREFETCH_W(&a->send_seq[mf]);
            }
            if (i + WORST_AHEAD / 2 < end) {
                int64_t df = a->dst[a->order[i + WORST_AHEAD / 2]], nf = r->rsize[df];
                Entry *hf = r->heap + r->recv_ptr[df];
                PREFETCH_W(&hf[nf]);
                PREFETCH_R(&hf[(nf - 1) >> 1]);
            }
            int64_t m = a->order[i];
            double ts = r->next_send[p];
            double k1G = fmax(a->nbytes[m] - 1.0, 0.0) * a->G;
            a->send_start[m] = ts;
            a->send_seq[m] = a->counters[0]++;
            int64_t d = a->dst[m];
            r->rsize[d] = heap_push(r->heap + r->recv_ptr[d], r->rsize[d], ts + a->o + k1G + a->L, (double)m, m);
            a->counters[1] += 1;
            double send_gap, recv_gap;
            gaps_after_send(a->o, a->g, k1G, a->end_origin, &send_gap, &recv_gap);
            r->next_send[p] = ts + send_gap;
            r->recv_ready[p] = ts + recv_gap;
            r->finish[p] = ts + a->o;
            a->waiting[d] -= 1;
            if (a->waiting[d] == 0) a->stack[sp++] = d;
        }
    }
    return P - a->n_sent;
}

/* ------------------------------------------------------------------------------------------ */
/* the waiting graph's components (components.py; SciPy's strongly connected components are the reference) */

typedef struct {
    int64_t P;
    const char *sent;
    const int64_t *ptr, *rptr;
    const int32_t *adj, *radj;
    int64_t *label, *fed, *state, *mark, *queue, *members, *nxt, *index, *low, *stack, *cs_node, *cs_edge, *root;
    char *onstack, *inner, *affected, *broken;
    int64_t *alist, *head;
    int64_t *csize; /* each label's count of members, kept from one refresh to the next */
} Components;

/* whether a search from start along (ptr, adj) inside component c reaches all its n members;
 * marks in inner (with the bit ``dir``) the members through which the search found others */
static int reaches_all(Components *k, int64_t start, int64_t n, int64_t c, const int64_t *ptr, const int32_t *adj,
                       int64_t stamp, char dir) {
    k->mark[start] = stamp;
    k->queue[0] = start;
    int64_t head = 0, tail = 1, seen = 1;
    while (head < tail && seen < n) {
        int64_t v = k->queue[head++];
        for (int64_t e = ptr[v]; e < ptr[v + 1]; e++) {
            int64_t w = adj[e];
            if (k->label[w] == c && k->mark[w] != stamp) {
                k->inner[v] |= dir;
                k->mark[w] = stamp;
                k->queue[tail++] = w;
                seen += 1;
                if (seen == n) break;
            }
        }
    }
    return seen == n;
}

static inline int64_t tarjan_enter(Components *k, int64_t v, int64_t idx, int64_t sp) {
    k->index[v] = idx;
    k->low[v] = idx;
    k->stack[sp] = v;
    k->onstack[v] = 1;
    return sp + 1;
}

/* Tarjan's strongly connected components of component c's n members, labelled from next_id */
static int64_t split(Components *k, int64_t n, int64_t c, int64_t next_id) {
    int64_t *members = k->members, *label = k->label, *index = k->index, *low = k->low;
    const int64_t *ptr = k->ptr;
    for (int64_t i = 0; i < n; i++) index[members[i]] = -1;
    int64_t sp = 0, idx = 0;
    for (int64_t r = 0; r < n; r++) {
        int64_t root = members[r];
        if (index[root] >= 0) continue;
        int64_t top = 0;
        k->cs_node[0] = root;
        k->cs_edge[0] = ptr[root];
        sp = tarjan_enter(k, root, idx++, sp);
        while (top >= 0) {
            int64_t v = k->cs_node[top], e = k->cs_edge[top];
            if (e < ptr[v + 1]) {
                k->cs_edge[top] = e + 1;
                int64_t w = k->adj[e];
                if (label[w] != c) continue;
                if (index[w] < 0) {
                    sp = tarjan_enter(k, w, idx++, sp);
                    top += 1;
                    k->cs_node[top] = w;
                    k->cs_edge[top] = ptr[w];
                } else if (k->onstack[w] && index[w] < low[v]) {
                    low[v] = index[w];
                }
                continue;
            }
            if (low[v] == index[v]) {
                for (;;) {
                    int64_t x = k->stack[--sp];
                    k->onstack[x] = 0;
                    label[x] = -2 - next_id; /* relabelled below, once c's search is over */
                    if (x == v) break;
                }
                next_id += 1;
            }
            top -= 1;
            if (top >= 0 && low[v] < low[k->cs_node[top]]) low[k->cs_node[top]] = low[v];
        }
    }
    for (int64_t i = 0; i < n; i++) label[members[i]] = -2 - label[members[i]];
    return next_id;
}

/* v, of component c, leaves it: the components it fed, and c if others fed it, count one feed less */
static void unfeed(Components *k, int64_t v, int64_t c) {
    int64_t *label = k->label, *fed = k->fed;
    for (int64_t e = k->ptr[v]; e < k->ptr[v + 1]; e++) {
        int64_t w = k->adj[e];
        if (label[w] >= 0 && label[w] != c) fed[label[w]] -= 1;
    }
    for (int64_t e = k->rptr[v]; e < k->rptr[v + 1]; e++) {
        int64_t u = k->radj[e];
        if (!k->sent[u] && label[u] >= 0 && label[u] != c) fed[c] -= 1;
    }
}

/* take the processors listed in vs (those that sent since the last call) out of their components,
 * keeping csize */
static int64_t forget_listed(Components *k, const int64_t *vs, int64_t nv) {
    int64_t *label = k->label;
    for (int64_t i = 0; i < nv; i++) {
        int64_t v = vs[i];
        if (label[v] >= 0) unfeed(k, v, label[v]);
    }
    int64_t na = 0;
    for (int64_t i = 0; i < nv; i++) {
        int64_t v = vs[i], c = label[v];
        if (c < 0) continue;
        if (!k->affected[c]) {
            k->affected[c] = 1;
            k->alist[na++] = c;
        }
        if (k->root[c] == v || k->root[c] < 0) { /* both trees are gone */
            k->broken[c] = 3;
        } else { /* the trees (1 forward, 2 backward) in which v led to others */
            k->broken[c] |= k->inner[v];
        }
        k->csize[c] -= 1;
        label[v] = -1;
    }
    return na;
}

/* split the affected components that lost their search trees and no longer hold together */
static void resplit(Components *k, int64_t na) {
    int64_t *label = k->label;
    int any_broken = 0; /* the members are listed only where a component is to be searched */
    for (int64_t a = 0; a < na; a++) any_broken |= k->broken[k->alist[a]];
    for (int64_t v = 0; any_broken && v < k->P; v++) {
        int64_t c = label[v];
        if (c >= 0 && k->affected[c]) {
            k->nxt[v] = k->head[c];
            k->head[c] = v;
        }
    }
    for (int64_t a = 0; a < na; a++) {
        int64_t c = k->alist[a], n = 0;
        for (int64_t v = k->head[c]; v >= 0; v = k->nxt[v]) k->members[n++] = v;
        if (n <= 1 || !k->broken[c]) continue;
        /* the trees to search again: only the direction whose tree lost a member through which it
         * reached others (a tree that lost only leaves still reaches every member from the root) */
        char again = k->root[c] >= 0 && (k->broken[c] & 3) != 3 ? k->broken[c] : 3;
        for (int64_t i = 0; i < n; i++) k->inner[k->members[i]] &= (char)~again;
        if (again == 3) k->root[c] = k->members[0];
        int whole = 1;
        if (again & 1) {
            k->state[1] += 1;
            whole = reaches_all(k, k->root[c], n, c, k->ptr, k->adj, k->state[1], 1);
        }
        if (whole && (again & 2)) {
            k->state[1] += 1;
            whole = reaches_all(k, k->root[c], n, c, k->rptr, k->radj, k->state[1], 2);
        }
        if (whole) continue;
        int64_t lo = k->state[0];
        k->state[0] = split(k, n, c, lo);
        for (int64_t j = lo; j < k->state[0]; j++) {
            k->fed[j] = 0;
            k->root[j] = -1;
        }
        k->csize[c] = 0;
        for (int64_t i = 0; i < n; i++) k->csize[label[k->members[i]]] += 1;
        for (int64_t i = 0; i < n; i++) {
            int64_t x = k->members[i];
            for (int64_t e = k->rptr[x]; e < k->rptr[x + 1]; e++) {
                int64_t u = k->radj[e];
                if (label[u] >= 0 && label[u] != label[x]) k->fed[label[x]] += 1;
            }
        }
    }
}

/* the first refresh: every processor that has not sent in component 0 (counted in csize), the one
 * affected component, both of its search trees to build; returns 1, the affected count */
static int64_t first_component(Components *k) {
    k->csize[0] = 0;
    for (int64_t v = 0; v < k->P; v++) {
        k->label[v] = k->sent[v] ? -1 : 0;
        k->csize[0] += !k->sent[v];
    }
    k->fed[0] = 0;
    k->affected[0] = 1;
    k->alist[0] = 0;
    k->state[0] = 1;
    k->broken[0] = 3;
    return 1;
}

/* the na affected components split again, and their marks cleared */
static void settle(Components *k, int64_t na) {
    resplit(k, na);
    for (int64_t a = 0; a < na; a++) {
        int64_t c = k->alist[a];
        k->affected[c] = 0;
        k->broken[c] = 0;
        k->head[c] = -1;
    }
}

/* ------------------------------------------------------------------------------------------ */
/* section 4.2 as one call: the sends and receives, and each time all wait on each other the
 * components' refresh, the forced processor's choice and the next round (worstcase.py's loop,
 * whose kernel calls and refreshes these are) */

typedef struct { /* a growable array of n items of size sz */
    char *data;
    int64_t n, cap, sz;
} Vec;

/* room for ``more`` items after the n there are; 0, or -1 without memory */
static int vec_reserve(Vec *v, int64_t more) { return grow_to(&v->data, &v->cap, v->n + more, (size_t)v->sz); }

static int vec_add(Vec *v, const void *item) {
    if (vec_reserve(v, 1) < 0) return -1;
    memcpy(v->data + v->n * v->sz, item, (size_t)v->sz);
    v->n += 1;
    return 0;
}

/* the messages' ends ``b`` grouped by their other ends ``a`` (CSR: ptr of P + 1, ids in message
 * order within a group), as components.py's _csr gives them */
static void group_by(int64_t P, int64_t M, const int64_t *a, const int64_t *b, int64_t *ptr, int32_t *out,
                     int64_t *fill) {
    memset(ptr, 0, (size_t)(P + 1) * sizeof(int64_t));
    for (int64_t m = 0; m < M; m++) ptr[a[m] + 1] += 1;
    for (int64_t p = 0; p < P; p++) ptr[p + 1] += ptr[p];
    memcpy(fill, ptr, (size_t)P * sizeof(int64_t));
    for (int64_t m = 0; m < M; m++) out[fill[a[m]]++] = (int32_t)b[m];
}

/* every array of the components for P processors and M
 * messages, with its initial values; the edges from src to dst; 0, or -1 without memory */
static int components_new(Components *k, int64_t P, int64_t M, const char *sent, const int64_t *src,
                          const int64_t *dst) {
    size_t p1 = (size_t)(P + 1), nl = (size_t)(4 * P + 2), m1 = (size_t)(M > 0 ? M : 1);
    int64_t *ptr = calloc(p1, 8), *rptr = calloc(p1, 8), *fill = calloc(p1, 8);
    int32_t *adj = malloc(m1 * 4), *radj = malloc(m1 * 4);
    *k = (Components){.P = P, .sent = sent, .ptr = ptr, .rptr = rptr, .adj = adj, .radj = radj};
    int64_t **p_arrays[] = {&k->mark, &k->queue, &k->members, &k->nxt, &k->index, &k->low, &k->stack, &k->cs_node,
                            &k->cs_edge, &k->alist};
    for (size_t i = 0; i < sizeof(p_arrays) / sizeof(p_arrays[0]); i++) *p_arrays[i] = calloc(p1, 8);
    k->label = malloc(p1 * 8);
    k->fed = calloc(nl, 8);
    k->root = malloc(nl * 8);
    k->head = malloc(nl * 8);
    k->csize = calloc(nl, 8);
    k->state = calloc(2, 8);
    k->onstack = calloc(p1, 1);
    k->inner = calloc(p1, 1);
    k->affected = calloc(nl, 1);
    k->broken = calloc(nl, 1);
    int ok = ptr && rptr && fill && adj && radj && k->label && k->fed && k->root && k->head && k->csize && k->state &&
             k->onstack && k->inner && k->affected && k->broken;
    for (size_t i = 0; i < sizeof(p_arrays) / sizeof(p_arrays[0]); i++) ok = ok && *p_arrays[i];
    if (ok) {
        group_by(P, M, src, dst, ptr, adj, fill);
        group_by(P, M, dst, src, rptr, radj, fill);
        memset(k->root, 0xff, nl * 8); /* -1 */
        memset(k->head, 0xff, nl * 8);
        memset(k->label, 0xff, (size_t)P * 8);
    }
    free(fill);
    return ok ? 0 : -1;
}

static void components_free(Components *k) {
    void *all[] = {(void *)k->ptr, (void *)k->rptr, (void *)k->adj, (void *)k->radj, k->label, k->fed, k->state,
                   k->mark, k->queue, k->members, k->nxt, k->index, k->low, k->stack, k->cs_node, k->cs_edge, k->root,
                   k->onstack, k->inner, k->affected, k->broken, k->alist, k->head, k->csize};
    for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++) free(all[i]);
}

static PyObject *worst_step(PyObject *self, PyObject *args) {
    Py_ssize_t P;
    double L, o, g, G;
    int end_origin;
    PyObject *choose, *ob[13];
    if (!PyArg_ParseTuple(args, "nOOOOOOddddpOOOOOOOO:worst_step", &P, &ob[0], &ob[1], &ob[2], &ob[3], &ob[4],
                          &ob[5], &L, &o, &g, &G, &end_origin, &choose, &ob[6], &ob[7], &ob[8], &ob[9], &ob[10],
                          &ob[11], &ob[12])) {
        return NULL;
    }
    if (choose != Py_None && !PyCallable_Check(choose)) {
        PyErr_SetString(PyExc_TypeError, "choose: a callable or None");
        return NULL;
    }
    static const char *const names[STEP_IN] = {"src", "dst", "nbytes", "order", "send_ptr", "recv_ptr"};
    Buf b[13];
    Py_ssize_t M;
    if (get_step_io(ob, b, names, "qqdqqq", "MMMMpp", P, &M) < 0) return NULL;
    const int64_t *src = I64(b[0]), *dst = I64(b[1]);
    size_t p1 = (size_t)(P + 1), m1 = (size_t)(M > 0 ? M : 1);
    char *sent = calloc(p1, 1);
    int64_t *waiting = calloc(p1, 8), *stack = calloc(2 * p1 + 1, 8), *rsize = calloc(p1, 8), *newly = calloc(p1, 8);
    int32_t *alive = malloc(p1 * 4); /* the processors that have not sent, ascending */
    int64_t n_alive = P;
    int64_t counters[2] = {0, 0};
    Entry *heap = malloc(m1 * sizeof(Entry));
    Vec forced = {NULL, 0, 0, 8}, offsets = {NULL, 0, 0, 8}, cands = {NULL, 0, 0, 4};
    Components k;
    int have_components = 0, failed = 0; /* failed: 1 without memory, 2 a Python error */
    PyObject *result = NULL;
    int64_t zero = 0;
    if (!sent || !waiting || !stack || !rsize || !newly || !alive || !heap || vec_add(&offsets, &zero) < 0) {
        failed = 1;
        goto done;
    }
    for (Py_ssize_t p = 0; p < P; p++) alive[p] = (int32_t)p;
    for (Py_ssize_t m = 0; m < M; m++) waiting[dst[m]] += 1;
    Worst a = {P, dst, I64(b[3]), I64(b[4]), F64(b[2]), L, o, g, G, end_origin, -1, sent, waiting, counters,
               stack, I64(b[8]), F64(b[6]), newly, 0, 0};
    Receiver r = {heap, rsize, I64(b[5]), F64(b[11]), F64(b[12]), F64(b[10]), F64(b[7]), I64(b[9]), o, 0.0, 0.0};
    gaps_after_receive(o, g, end_origin, &r.send_gap_after_recv, &r.recv_gap_after_recv);
    PyThreadState *ts = PyEval_SaveThread();
    for (;;) {
        int64_t remaining = worst_run(&a, &r);
        if (remaining == 0) break;
        int first = !have_components;
        if (first) {
            if (components_new(&k, P, M, sent, src, dst) < 0) {
                components_free(&k);
                failed = 1;
                break;
            }
            have_components = 1;
        }
        /* the components brought up to date (the members counted in csize): those that sent since */
        settle(&k, first ? first_component(&k) : forget_listed(&k, newly, a.n_newly));
        a.n_newly = 0;
        /* the candidates: the members of the components that nothing else feeds, with an edge inside */
        int64_t lo = cands.n, kept = 0;
        if (vec_reserve(&cands, n_alive) < 0) {
            failed = 1;
            break;
        }
        int32_t *out = (int32_t *)cands.data + lo;
        int64_t count = 0;
        for (int64_t i = 0; i < n_alive; i++) {
            int32_t v = alive[i];
            int64_t c = k.label[v];
            if (sent[v]) continue;
            alive[kept++] = v;
            out[count] = v;
            count += c >= 0 && k.fed[c] == 0 && k.csize[c] >= 2;
        }
        n_alive = kept;
        cands.n += count;
        if (count == 0) { /* cannot happen: every waiting processor waits on another waiting one */
            PyEval_RestoreThread(ts);
            PyErr_SetString(PyExc_AssertionError, "deadlock without a cycle");
            ts = PyEval_SaveThread();
            failed = 2;
            break;
        }
        int64_t pick = 0;
        if (choose != Py_None) {
            PyEval_RestoreThread(ts);
            PyObject *got = PyObject_CallFunction(choose, "L", (long long)count);
            pick = got ? PyLong_AsLongLong(got) : -1;
            Py_XDECREF(got);
            if (!PyErr_Occurred() && (pick < 0 || pick >= count)) {
                PyErr_Format(PyExc_ValueError, "choose(%lld) gave %lld, not an index", (long long)count,
                             (long long)pick);
            }
            failed = PyErr_Occurred() ? 2 : 0;
            ts = PyEval_SaveThread();
            if (failed) break;
        }
        a.forced = ((int32_t *)cands.data)[lo + pick];
        if (vec_add(&forced, &a.forced) < 0 || vec_add(&offsets, &cands.n) < 0) {
            failed = 1;
            break;
        }
    }
    PyEval_RestoreThread(ts);
done:
    if (failed == 1) {
        PyErr_NoMemory();
    } else if (failed == 0) {
        result = Py_BuildValue("y#y#y#", forced.data ? forced.data : "", (Py_ssize_t)(forced.n * 8),
                               offsets.data, (Py_ssize_t)(offsets.n * 8), cands.data ? cands.data : "",
                               (Py_ssize_t)(cands.n * 4));
    }
    if (have_components) components_free(&k);
    void *blocks[] = {sent, waiting, stack, rsize, newly, alive, heap, forced.data, offsets.data, cands.data};
    for (size_t i = 0; i < sizeof(blocks) / sizeof(blocks[0]); i++) free(blocks[i]);
    release(b, 13);
    return result;
}

/* ------------------------------------------------------------------------------------------ */
/* LogGOPSim's main loop on a program's steps: the events of _cgoal.c's loop on program_to_goal's
 * schedule (that schedule's structure used instead of stored) in the same order, so the same
 * finish times, with the data laid out for the cache: a rank's state in one struct, a message's
 * in another, each rank's messages of its current step copied to a pool in the order they are
 * issued (and a group's next few into the group), what the next events read fetched ahead, and the heap's first entry replaced in place
 * where an event pushes another. Memory is the cost per event here: the random accesses to
 * messages and ranks, not the arithmetic. Finish times only. */

/* libstdc++'s std::sort of a[first, last) by key(x) = x >= ns, as sort_like_cxx reproduces it */
#define CXX_SORT_NAME lgs_sort
#define CXX_SORT_CTX int64_t
#define CXX_SORT_KEY(ns, x) ((x) >= (ns))
#define CXX_SORT_KEYS 2
#include "_cxx_sort.h"

enum { LGS_SEND, LGS_RECV, LGS_CALC, LGS_BARRIER };

enum { LGS_POSTED = 1, LGS_ARRIVED = 2 };

#define LGS_AHEAD 9

typedef struct {
    int64_t base;     /* position j's stamp: base + j */
    int32_t lo, hi;   /* positions lo..hi-1 of the rank's current step */
    int32_t rank, kind;
    int32_t win;      /* the messages of positions win.. (sends and receives), copied from the pool */
    int32_t ahead[LGS_AHEAD];
} LgsGroup;

/* a heap entry's id: a group or a message (negative), with the rank it happens at */
#define LGS_MASK (((int64_t)1 << 31) - 1)
#define LGS_GROUP_ID(h, gr) (((int64_t)(h) << 31) | (gr))
#define LGS_MSG_ID(h, m) (-1 - (((int64_t)(h) << 31) | (m)))

/* what the loop reads and writes of a message, together (one cache line where the arrays would
 * be five): its size, arrival, creation stamp (times 4, plus its state), receiver and the next
 * message queued for that receiver */
typedef struct {
    double nbytes, arrive;
    int64_t stamp_state;
    int32_t dst, w_next;
} LgsMsg;

/* a rank's state, together: its CPU's and NIC's clocks, its step, that step's operations not yet
 * done, where its part of the pool begins, the last message queued for it, and what an event
 * made executable (1: its step's closing calc, 2: its next step) */
typedef struct {
    double nexto, nextgs, nextgr;
    int64_t cur, left, pool_off;
    int32_t w_tail;
    int8_t pend;
    int8_t pad[11]; /* 64 bytes: one cache line */
} LgsRank;

/* a heap entry: time (as lgs_key_bits orders it), creation stamp, id, and for a group of sends or
 * receives its next member's message (so that it can be fetched before the group's own record is
 * read); (time, stamp) compares as one 128-bit number */
typedef struct {
    uint64_t kb, stamp;
    int64_t id, aux;
} LgsEntry;

/* a time's bits as an unsigned number in the order of the times (negative ones too; no NaN), and
 * back */
static inline uint64_t lgs_key_bits(double k) {
    uint64_t b;
    memcpy(&b, &k, sizeof(b));
    return (b >> 63) ? ~b : b | ((uint64_t)1 << 63);
}

static inline double lgs_key_value(uint64_t u) {
    uint64_t b = (u >> 63) ? u & ~((uint64_t)1 << 63) : ~u;
    double k;
    memcpy(&k, &b, sizeof(k));
    return k;
}

__extension__ typedef unsigned __int128 lgs_u128;

static inline lgs_u128 lgs_order(uint64_t kb, uint64_t stamp) { return ((lgs_u128)kb << 64) | stamp; }

/* the entry comes after the event at time t with stamp tb */
static inline int lgs_after(const LgsEntry *e, double t, double tb) {
    return lgs_order(e->kb, e->stamp) > lgs_order(lgs_key_bits(t), (uint64_t)tb);
}

typedef struct {
    int64_t P, nsteps, M;
    const int32_t *kinds, *src, *dst, *order;
    const int64_t *msg_ptr;
    const double *nbytes, *durations;
    double L, o, g, G, O, S;
    double *finish;
    /* built here */
    int64_t *step_of; /* a step's number among the communication (or computation) steps */
    int32_t *send_ptr, *recv_ptr, *recv_list, *pool, *perm, *sort_tmp;
    LgsMsg *msg;
    LgsRank *rk;
    LgsGroup *gt;
    int64_t *gfree, nfree, cap;
    LgsEntry *heap;
    int64_t hn, ts;
    int stale; /* the heap's root is the event being run: the next push replaces it */
} Lgs;

/* the heap of the entries above (as heap_push / heap_pop, with the fourth field). An entry later
 * than all others follows the last (h[hn], room for it is kept), so that a move down picks the
 * smaller child without a branch: that choice is a coin toss a branch predictor mostly loses */
static inline int64_t lgs_less_nb(const LgsEntry *a, const LgsEntry *b) {
    return lgs_order(a->kb, a->stamp) < lgs_order(b->kb, b->stamp);
}

static const LgsEntry LGS_LAST = {UINT64_MAX, UINT64_MAX, 0, -1};

#define HEAP_NAME lgs
#define HEAP_ENTRY LgsEntry
#define HEAP_LESS(a, b) lgs_less_nb(&(a), &(b))
#define HEAP_LESS_NB(pa, pb) lgs_less_nb(pa, pb)
#include "_heap_sift.h"

/* the heap's pushes and its first entry, with the event being run still at the root (stale):
 * (key, stamp) pairs are unique, so the order of events does not depend on the heap's shape */
ALWAYS_INLINE void lgs_push_aux(Lgs *s, double key, double tb, int64_t ident, int64_t aux) {
    LgsEntry e = {lgs_key_bits(key), (uint64_t)tb, ident, aux};
    if (s->stale) {
        lgs_sift_down(s->heap, s->hn, e);
        s->stale = 0;
    } else {
        lgs_sift_up(s->heap, s->hn, e);
        s->hn++;
        s->heap[s->hn] = LGS_LAST;
    }
}

static inline void lgs_pop(Lgs *s) {
    s->hn--;
    if (s->hn > 0) lgs_sift_down(s->heap, s->hn, s->heap[s->hn]);
    s->heap[s->hn] = LGS_LAST;
}

static inline const LgsEntry *lgs_first(const Lgs *s) {
    if (!s->stale) return s->hn > 0 ? &s->heap[0] : NULL;
    if (s->hn < 2) return NULL;
    const LgsEntry *a = &s->heap[1];
    if (s->hn > 2 && lgs_less_nb(&s->heap[2], a)) a = &s->heap[2];
    return a;
}

static int64_t lgs_next_step(const Lgs *s, int64_t h, int64_t k) {
    while (k < s->nsteps) {
        if (s->kinds[k] == 0) return k;
        int64_t b = s->step_of[k] * (s->P + 1) + h;
        if (s->send_ptr[b + 1] > s->send_ptr[b] || s->recv_ptr[b + 1] > s->recv_ptr[b]) return k;
        k++;
    }
    return k;
}

/* room for `need` more groups (and their heap entries): 0, or -1 without memory */
static int lgs_room(Lgs *s, int64_t need) {
    if (s->nfree >= need) return 0;
    int64_t old = s->cap, cap = 2 * old, gcap = old;
    if (lines(&s->gt, (size_t)cap * sizeof(LgsGroup), (size_t)old * sizeof(LgsGroup)) < 0 ||
        grow_to(&s->gfree, &gcap, cap, sizeof(int64_t)) < 0 ||
        lines(&s->heap, (size_t)(cap + s->P + 1) * sizeof(LgsEntry), (size_t)(s->hn + 1) * sizeof(LgsEntry)) < 0) {
        return -1;
    }
    for (int64_t j = 0; j < old; j++) s->gfree[s->nfree + j] = cap - 1 - j;
    s->nfree += old;
    s->cap = cap;
    return 0;
}

/* a new group's heap id */
static inline int64_t lgs_new_group(Lgs *s, int64_t h, int kind, int64_t lo, int64_t hi, int64_t base) {
    int64_t gr = s->gfree[--s->nfree];
    LgsGroup *q = &s->gt[gr];
    q->rank = (int32_t)h;
    q->kind = kind;
    q->lo = (int32_t)lo;
    q->hi = (int32_t)hi;
    q->base = base;
    q->win = (int32_t)(lo - LGS_AHEAD); /* none copied yet */
    return LGS_GROUP_ID(h, gr);
}

/* the message of the group's position lo: the pool is read LGS_AHEAD messages at a time */
static inline int64_t lgs_member(Lgs *s, LgsGroup *q) {
    int32_t d = q->lo - q->win;
    if (d >= LGS_AHEAD) {
        int32_t n = q->hi - q->lo < LGS_AHEAD ? q->hi - q->lo : LGS_AHEAD;
        const int32_t *from = s->pool + s->rk[q->rank].pool_off + q->lo;
        for (int32_t j = 0; j < n; j++) { /* a few: no call to memcpy */
            q->ahead[j] = from[j];
        }
        if (q->kind == LGS_RECV) { /* receives are posted one after the other: fetch the window's messages */
            for (int32_t j = 1; j < n; j++) PREFETCH_R(&s->msg[q->ahead[j]]);
        }
        q->win = q->lo;
        d = 0;
    }
    return q->ahead[d];
}

ALWAYS_INLINE void lgs_push(Lgs *s, double key, double tb, int64_t ident) { lgs_push_aux(s, key, tb, ident, -1); }

/* a group's entry: its next member's message goes with it */
ALWAYS_INLINE void lgs_push_group(Lgs *s, double key, double tb, int64_t ident) {
    LgsGroup *q = &s->gt[ident & LGS_MASK];
    lgs_push_aux(s, key, tb, ident, q->kind == LGS_SEND || q->kind == LGS_RECV ? lgs_member(s, q) : -1);
}

/* the group's next member: its message read now (and its message's line fetched), long before
 * its turn */
static inline void lgs_advance(Lgs *s, LgsGroup *q) {
    q->lo++;
    if (q->lo < q->hi && (q->kind == LGS_SEND || q->kind == LGS_RECV)) PREFETCH_R(&s->msg[lgs_member(s, q)]);
}

/* queue rank h's operations of step k (room for two groups made by the caller): its messages,
 * sends then receives, are written to its part of the pool in the order LogGOPSim's sort leaves
 * them */
static void lgs_issue_step(Lgs *s, int64_t h, int initial, int64_t k) {
    if (s->kinds[k] == 0) {
        s->rk[h].left = 1;
        int64_t gr = lgs_new_group(s, h, LGS_CALC, 0, 1, s->ts);
        lgs_push_group(s, initial ? 0.0 : s->rk[h].nexto, (double)s->ts, gr);
        s->ts++;
        return;
    }
    int64_t b = s->step_of[k] * (s->P + 1) + h, lo = s->msg_ptr[k];
    int64_t sp = s->send_ptr[b], rp = s->recv_ptr[b];
    int64_t ns = s->send_ptr[b + 1] - sp, nr = s->recv_ptr[b + 1] - rp, cnt = ns + nr;
    int32_t *pool = s->pool + s->rk[h].pool_off;
    s->rk[h].left = cnt;
    if (cnt > 16) {
        int32_t *a = s->perm;
        for (int64_t j = 0; j < cnt; j++) a[j] = (int32_t)j;
        lgs_sort(a, 0, cnt, ns, s->sort_tmp);
        for (int64_t j = 0; j < cnt; j++) {
            int64_t x = a[j];
            pool[j] = (int32_t)(lo + (x < ns ? s->order[lo + sp + x] : s->recv_list[lo + rp + x - ns]));
        }
    } else {
        for (int64_t j = 0; j < ns; j++) pool[j] = (int32_t)(lo + s->order[lo + sp + j]);
        for (int64_t j = 0; j < nr; j++) pool[ns + j] = (int32_t)(lo + s->recv_list[lo + rp + j]);
    }
    if (ns > 0) {
        int64_t gr = lgs_new_group(s, h, LGS_SEND, 0, ns, s->ts);
        double t = initial ? 0.0 : (s->rk[h].nexto > s->rk[h].nextgs ? s->rk[h].nexto : s->rk[h].nextgs);
        lgs_push_group(s, t, (double)s->ts, gr);
        s->ts += ns;
    }
    if (nr > 0) {
        int64_t gr = lgs_new_group(s, h, LGS_RECV, ns, cnt, s->ts - ns);
        lgs_push_group(s, initial ? 0.0 : s->rk[h].nexto, (double)s->ts, gr);
        s->ts += nr;
    }
}


/* the message m's receive and send are matched at t: a rendezvous send completes (its sender is
 * busy until then at least); the receive completes */
static inline void lgs_matched(Lgs *s, int64_t m, double nbytes, int64_t h, double t, int64_t *h2) {
    if (nbytes > s->S) {
        int64_t q = s->src[m];
        if (--s->rk[q].left == 0) s->rk[q].pend = 1;
        s->rk[q].nexto = dmax(s->rk[q].nexto, t);
        s->rk[q].nextgs = dmax(s->rk[q].nextgs, t);
        *h2 = q;
    }
    if (--s->rk[h].left == 0) s->rk[h].pend = 1;
}

/* the run: the number of ranks left unfinished (0), or -3 without memory */
static int64_t lgs_run(Lgs *s) {
    const int64_t P = s->P, nsteps = s->nsteps;
    const double L = s->L, o = s->o, g = s->g, G = s->G, O = s->O, S = s->S;
    int64_t unfinished = 0;
    for (int64_t h = 0; h < P; h++) {
        int64_t k = lgs_next_step(s, h, 0);
        s->rk[h].cur = k;
        if (k < nsteps) {
            unfinished++;
            if (lgs_room(s, 2) < 0) return -3;
            lgs_issue_step(s, h, 1, k);
        }
    }
    int carry = 0;
    double t = 0.0, its = 0.0;
    int64_t ident = 0, grp = 0, h = 0;
    while (s->hn > 0 || carry) {
        if (carry) {
            carry = 0;
            its = (double)(s->gt[grp].base + s->gt[grp].lo);
        } else {
            t = lgs_key_value(s->heap[0].kb);
            its = (double)s->heap[0].stamp;
            ident = s->heap[0].id;
            s->stale = 1;
            int64_t v = ident >= 0 ? ident : -1 - ident;
            grp = v & LGS_MASK; /* a group, or a message */
            h = v >> 31;
            for (int64_t c = 1; c < 3 && c < s->hn; c++) { /* one of them runs next: fetch what it reads */
                int64_t id = s->heap[c].id, w = id >= 0 ? id : -1 - id;
                PREFETCH_R(&s->rk[w >> 31]);
                if (id >= 0) {
                    PREFETCH_R(&s->gt[w & LGS_MASK]);
                    if (s->heap[c].aux >= 0) PREFETCH_R(&s->msg[s->heap[c].aux]);
                } else {
                    PREFETCH_R(&s->msg[w & LGS_MASK]);
                }
            }
        }
        int ok = 1;
        double t_wait = 0.0;
        int64_t h1 = -1, h2 = -1;
        if (ident >= 0) {
            LgsGroup *q = &s->gt[grp];
            int gk = q->kind;
            if (gk == LGS_CALC || gk == LGS_BARRIER) {
                if (s->rk[h].nexto <= t) {
                    int64_t k = s->rk[h].cur;
                    s->rk[h].nexto = t + (gk == LGS_CALC ? s->durations[s->step_of[k] * P + h] : 0.0);
                    h1 = h;
                    if (gk == LGS_CALC) {
                        s->rk[h].pend = 1;
                    } else {
                        int64_t nk = lgs_next_step(s, h, k + 1);
                        s->rk[h].cur = nk;
                        if (nk < nsteps) {
                            s->rk[h].pend = 2;
                        } else {
                            unfinished--;
                        }
                    }
                } else {
                    ok = 0;
                    t_wait = s->rk[h].nexto;
                }
            } else if (gk == LGS_SEND) {
                double busy = dmax(s->rk[h].nexto, s->rk[h].nextgs);
                if (busy <= t) {
                    int64_t m = lgs_member(s, q);
                    LgsMsg *x = &s->msg[m];
                    h1 = h;
                    double k1 = dmax(x->nbytes - 1.0, 0.0);
                    s->rk[h].nexto = t + o + k1 * O;
                    s->rk[h].nextgs = t + g + k1 * G;
                    int64_t r = x->dst;
                    x->stamp_state = s->ts * 4 + (x->stamp_state & 3); /* a receive may be posted */
                    x->arrive = t + o + L;
                    x->w_next = -1;
                    if (s->rk[r].w_tail >= 0) {
                        s->msg[s->rk[r].w_tail].w_next = (int32_t)m;
                    } else {
                        lgs_push(s, t + o + L, (double)s->ts, LGS_MSG_ID(r, m));
                    }
                    s->rk[r].w_tail = (int32_t)m;
                    s->ts++;
                    if (x->nbytes <= S && --s->rk[h].left == 0) s->rk[h].pend = 1;
                } else {
                    ok = 0;
                    t_wait = busy;
                }
            } else { /* a receive is posted */
                int64_t m = lgs_member(s, q);
                LgsMsg *x = &s->msg[m];
                h1 = h;
                if ((x->stamp_state & 3) == LGS_ARRIVED) {
                    lgs_matched(s, m, x->nbytes, h, t, &h2);
                } else {
                    x->stamp_state |= LGS_POSTED;
                }
            }
        } else { /* the message m arrives at rank h */
            int64_t m = grp;
            LgsMsg *x = &s->msg[m];
            if (x->w_next >= 0) { /* the next message queued for h: pushed at the end of this event */
                PREFETCH_R(&s->msg[x->w_next]);
            }
            double busy = dmax(s->rk[h].nexto, s->rk[h].nextgr);
            if (busy <= t) {
                double k1 = dmax(x->nbytes - 1.0, 0.0);
                s->rk[h].nexto = t + o + dmax(k1 * O, k1 * G);
                s->rk[h].nextgr = t + g + k1 * G;
                if ((x->stamp_state & 3) == LGS_POSTED) {
                    lgs_matched(s, m, x->nbytes, h, t, &h2);
                    h1 = h;
                } else {
                    x->stamp_state |= LGS_ARRIVED;
                }
                int64_t w = x->w_next;
                if (w < 0) {
                    s->rk[h].w_tail = -1;
                } else {
                    const LgsMsg *y = &s->msg[w];
                    lgs_push(s, dmax(y->arrive, dmax(s->rk[h].nexto, s->rk[h].nextgr)), (double)(y->stamp_state >> 2),
                             LGS_MSG_ID(h, w));
                }
            } else {
                lgs_push(s, busy, its, ident);
            }
        }
        if (ident >= 0) {
            LgsGroup *q = &s->gt[grp];
            if (ok) { /* the next member's turn, at the same time */
                lgs_advance(s, q);
                if (q->lo < q->hi) {
                    double tsn = (double)(q->base + q->lo);
                    const LgsEntry *e = lgs_first(s);
                    if (e == NULL || lgs_after(e, t, tsn)) {
                        double busy = dmax(s->rk[h].nexto, s->rk[h].nextgs);
                        if (q->kind == LGS_SEND && busy > t) { /* it runs next and waits: its turn, here */
                            ok = 0;
                            its = tsn;
                            t_wait = busy;
                        } else {
                            carry = 1;
                        }
                    } else {
                        lgs_push_group(s, t, tsn, ident);
                    }
                } else {
                    s->gfree[s->nfree++] = grp;
                }
            }
            if (!ok) {
                const LgsEntry *e = lgs_first(s);
                if (q->hi - q->lo == 1 || e == NULL || lgs_after(e, t, (double)(q->base + q->hi - 1))) {
                    lgs_push_group(s, t_wait, its, ident); /* the group moves as a whole */
                } else { /* another event comes between the members: the first one waits alone */
                    if (lgs_room(s, 1) < 0) return -3;
                    q = &s->gt[grp];
                    int64_t g1 = lgs_new_group(s, q->rank, q->kind, q->lo, q->lo + 1, q->base);
                    lgs_push_group(s, t_wait, its, g1);
                    q = &s->gt[grp];
                    lgs_advance(s, q);
                    lgs_push_group(s, t, (double)(q->base + q->lo), ident);
                }
            }
        }
        /* issue what became executable, rank by rank in ascending order */
        if ((h1 >= 0 && s->rk[h1].pend != 0) || (h2 >= 0 && s->rk[h2].pend != 0)) { /* rarely */
            if (h1 >= 0 && h2 >= 0 && h2 < h1) {
                int64_t x = h1;
                h1 = h2;
                h2 = x;
            }
            int64_t hs[2] = {h1, h2};
            for (int i = 0; i < 2; i++) {
                int64_t hh = hs[i];
                if (hh < 0 || s->rk[hh].pend == 0) continue;
                if (lgs_room(s, 2) < 0) return -3;
                if (s->rk[hh].pend == 1) { /* the step's closing calc */
                    int64_t gr = lgs_new_group(s, hh, LGS_BARRIER, 0, 1, s->ts);
                    lgs_push_group(s, s->rk[hh].nexto, (double)s->ts, gr);
                    s->ts++;
                } else {
                    lgs_issue_step(s, hh, 0, s->rk[hh].cur);
                }
                s->rk[hh].pend = 0;
            }
        }
        if (s->stale) { /* the event left nothing in its place */
            lgs_pop(s);
            s->stale = 0;
        }
    }
    for (int64_t h = 0; h < P; h++) s->finish[h] = s->rk[h].nexto;
    return unfinished;
}

/* each rank's sends and receives per communication step, checked (0, -1: order, -2: a rank);
 * need[h]: the most operations rank h has in one step; mark: M bytes of zeros */
static int64_t lgs_prepare(Lgs *s, int64_t *need, int32_t *fill, char *mark) {
    const int64_t P = s->P;
    for (int64_t k = 0; k < s->nsteps; k++) {
        if (s->kinds[k] != 1) continue;
        int64_t b = s->step_of[k] * (P + 1), lo = s->msg_ptr[k], hi = s->msg_ptr[k + 1];
        int32_t *sp = s->send_ptr + b, *rp = s->recv_ptr + b;
        for (int64_t m = lo; m < hi; m++) {
            if (s->src[m] < 0 || s->src[m] >= P || s->dst[m] < 0 || s->dst[m] >= P) return -2;
            sp[s->src[m] + 1]++;
            rp[s->dst[m] + 1]++;
        }
        for (int64_t h = 0; h < P; h++) {
            sp[h + 1] += sp[h];
            rp[h + 1] += rp[h];
            fill[h] = 0;
        }
        for (int64_t m = lo; m < hi; m++) {
            int32_t d = s->dst[m];
            s->recv_list[lo + rp[d] + fill[d]++] = (int32_t)(m - lo);
        }
        for (int64_t h = 0; h < P; h++) {
            for (int64_t j = sp[h]; j < sp[h + 1]; j++) {
                int64_t e = s->order[lo + j];
                if (e < 0 || e >= hi - lo || s->src[lo + e] != h || mark[lo + e] != 0) return -1;
                mark[lo + e] = 1;
            }
            int64_t cnt = sp[h + 1] - sp[h] + rp[h + 1] - rp[h];
            if (cnt > need[h]) need[h] = cnt;
        }
    }
    for (int64_t m = 0; m < s->M; m++) s->msg[m] = (LgsMsg){s->nbytes[m], 0.0, 0, s->dst[m], -1};
    return 0;
}

static PyObject *loggopsim_steps(PyObject *self, PyObject *args) {
    Py_ssize_t P;
    PyObject *objs[8];
    Lgs s;
    memset(&s, 0, sizeof(s));
    if (!PyArg_ParseTuple(args, "nOOOOOOOddddddO:loggopsim_steps", &P, &objs[0], &objs[1], &objs[2], &objs[3],
                          &objs[4], &objs[5], &objs[6], &s.L, &s.o, &s.g, &s.G, &s.O, &s.S, &objs[7])) {
        return NULL;
    }
    if (P < 0 || P >= INT32_MAX) {
        PyErr_SetString(PyExc_ValueError, "P: between 0 and 2^31 - 2");
        return NULL;
    }
    static const char *names[8] = {"kinds", "msg_ptr", "src", "dst", "nbytes", "order", "durations", "finish"};
    static const char kinds[8] = {'i', 'q', 'i', 'i', 'd', 'i', 'd', 'd'};
    Py_ssize_t sizes[8] = {0};
    Buf b[8];
    memset(b, 0, sizeof(b));
    if (get_bufs(objs, b, 0, 1, kinds, sizes, 7, names) < 0) return NULL;
    s.P = P;
    s.nsteps = b[0].view.len / 4;
    s.kinds = I32(b[0]);
    int64_t ncomm = 0, ncomp = 0;
    for (int64_t k = 0; k < s.nsteps; k++) {
        ncomm += s.kinds[k] == 1;
        ncomp += s.kinds[k] != 1;
    }
    sizes[1] = s.nsteps + 1;
    if (get_bufs(objs, b, 1, 2, kinds, sizes, 7, names) < 0) return NULL;
    s.msg_ptr = I64(b[1]);
    s.M = s.msg_ptr[s.nsteps];
    int bad = s.msg_ptr[0] != 0 || s.M >= INT32_MAX;
    for (int64_t k = 0; k < s.nsteps && !bad; k++) {
        bad = s.msg_ptr[k + 1] < s.msg_ptr[k] || (s.kinds[k] != 1 && s.msg_ptr[k + 1] != s.msg_ptr[k]);
    }
    if (bad) {
        release(b, 8);
        PyErr_SetString(PyExc_ValueError, "msg_ptr: from 0, not decreasing, no messages in a computation step, "
                                          "fewer than 2^31 in all");
        return NULL;
    }
    for (int i = 2; i < 6; i++) sizes[i] = s.M;
    sizes[6] = ncomp * P;
    sizes[7] = P;
    if (get_bufs(objs, b, 2, 8, kinds, sizes, 7, names) < 0) return NULL;
    s.src = I32(b[2]);
    s.dst = I32(b[3]);
    s.nbytes = F64(b[4]);
    s.order = I32(b[5]);
    s.durations = F64(b[6]);
    s.finish = F64(b[7]);
    size_t p1 = (size_t)P + 1, m1 = (size_t)(s.M > 0 ? s.M : 1), ptrs = (size_t)ncomm * p1;
    s.step_of = (int64_t *)malloc((size_t)(s.nsteps > 0 ? s.nsteps : 1) * sizeof(int64_t));
    s.send_ptr = (int32_t *)calloc(ptrs > 0 ? ptrs : 1, sizeof(int32_t));
    s.recv_ptr = (int32_t *)calloc(ptrs > 0 ? ptrs : 1, sizeof(int32_t));
    s.recv_list = (int32_t *)malloc(m1 * sizeof(int32_t));
    lines(&s.msg, m1 * sizeof(LgsMsg), 0); /* NULL without memory */
    lines(&s.rk, p1 * sizeof(LgsRank), 0);
    if (s.rk) memset(s.rk, 0, p1 * sizeof(LgsRank));
    char *mark = (char *)calloc(m1, 1);
    int64_t *need = (int64_t *)calloc(p1, sizeof(int64_t));
    int32_t *fill = (int32_t *)malloc(p1 * sizeof(int32_t));
    int64_t result = -3;
    if (s.step_of && s.send_ptr && s.recv_ptr && s.recv_list && s.msg && s.rk && mark && need && fill) {
        int64_t ic = 0, ip = 0;
        for (int64_t k = 0; k < s.nsteps; k++) s.step_of[k] = s.kinds[k] == 1 ? ic++ : ip++;
        Py_BEGIN_ALLOW_THREADS
        result = lgs_prepare(&s, need, fill, mark);
        Py_END_ALLOW_THREADS
    }
    free(mark);
    free(fill);
    if (result == 0) {
        int64_t most = 1, off = 0;
        for (int64_t h = 0; h < P; h++) {
            s.rk[h].pool_off = off;
            s.rk[h].w_tail = -1;
            off += need[h];
            most = need[h] > most ? need[h] : most;
        }
        s.cap = 2 * P + 64;
        s.nfree = s.cap;
        s.pool = (int32_t *)malloc((size_t)(off > 0 ? off : 1) * sizeof(int32_t));
        s.perm = (int32_t *)malloc((size_t)most * sizeof(int32_t));
        s.sort_tmp = (int32_t *)malloc((size_t)most * sizeof(int32_t));
        lines(&s.gt, (size_t)s.cap * sizeof(LgsGroup), 0);
        s.gfree = (int64_t *)malloc((size_t)s.cap * sizeof(int64_t));
        lines(&s.heap, (size_t)(s.cap + P + 1) * sizeof(LgsEntry), 0);
        result = -3;
        if (s.pool && s.perm && s.sort_tmp && s.gt && s.gfree && s.heap) {
            for (int64_t j = 0; j < s.cap; j++) s.gfree[j] = s.cap - 1 - j;
            s.heap[0] = LGS_LAST;
            Py_BEGIN_ALLOW_THREADS
            result = lgs_run(&s);
            Py_END_ALLOW_THREADS
        }
    }
    void *blocks[] = {s.step_of, s.send_ptr, s.recv_ptr, s.recv_list, s.msg, s.rk, need, s.pool, s.perm,
                      s.sort_tmp, s.gt, s.gfree, s.heap};
    for (size_t i = 0; i < sizeof(blocks) / sizeof(blocks[0]); i++) free(blocks[i]);
    release(b, 8);
    if (result == -3) return PyErr_NoMemory();
    return PyLong_FromLongLong(result);
}

static PyMethodDef methods[] = {
    {"standard", standard, METH_VARARGS,
     "standard(P, dst, nbytes, order, send_ptr, recv_ptr, t0, L, o, g, G, end_origin, random_ties, seed, "
     "send_start, recv_start, send_seq, recv_seq, finish, next_send, recv_ready) -> operations\n\n"
     "One communication step with Figure 2's algorithm; fills the output arrays."},
    {"worst_step", worst_step, METH_VARARGS,
     "worst_step(P, src, dst, nbytes, order, send_ptr, recv_ptr, L, o, g, G, end_origin, choose, send_start, "
     "recv_start, send_seq, recv_seq, finish, next_send, recv_ready) -> (forced, offsets, candidates)\n\n"
     "Section 4.2 on one step until every processor has sent: ``choose(n)`` picks the index of the "
     "processor to force among n candidates (None: the first). Returns the forced processors (int64 "
     "bytes), the offsets of each one's candidates (int64, one more) and the candidates (int32)."},
    {"loggopsim_steps", loggopsim_steps, METH_VARARGS,
     "loggopsim_steps(P, kinds, msg_ptr, src, dst, nbytes, order, durations, L, o, g, G, O, S, finish) -> "
     "ranks left unfinished (0), -1 (order does not list each message once under its sender), -2 (a rank "
     "out of range)\n\n"
     "LogGOPSim's rules on a program's steps, finish times written to ``finish`` (float64, P). Plain buffers: "
     "kinds (int32 per step: 0 computation, 1 communication), msg_ptr (int64, steps + 1: step k's messages), "
     "src, dst (int32), nbytes (float64), order (int32: each sender's messages by index within the step, in "
     "send order), durations (float64, P per computation step)."},
    {NULL, NULL, 0, NULL},
};

MODULE(_cstep, "LogGP step simulators (paper 002, Figure 2 and section 4.2), compiled.")
