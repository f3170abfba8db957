/* LogGOPSim's main loop on a GOAL schedule, compiled as a C extension: the kernel of
 * _goal_kernel.py line for line (the same event order, stamps, groups of new operations, queues
 * of waiting messages and emulation of libstdc++'s std::sort), so that both give identical
 * times; loggopsim.py passes the schedule's arrays as buffers (no NumPy headers are needed to
 * build this). Here the matching keys and the dependency lists are built too, in linear time. */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------------------------------ */
/* buffers: 'd' float64, 'q' int64, 'i' int32, 'b' int8 (also bool); at least n items */

typedef struct {
    Py_buffer view;
    int held;
} Buf;

static int get_buf(PyObject *obj, Buf *b, char kind, Py_ssize_t n, int writable, const char *name) {
    int flags = PyBUF_C_CONTIGUOUS | PyBUF_FORMAT | (writable ? PyBUF_WRITABLE : 0);
    Py_ssize_t itemsize = kind == 'd' || kind == 'q' ? 8 : kind == 'i' ? 4 : 1;
    if (PyObject_GetBuffer(obj, &b->view, flags) < 0) {
        return -1;
    }
    b->held = 1;
    const char *f = b->view.format ? b->view.format : "B";
    if (*f == '<' || *f == '=' || *f == '@') {
        f++;
    }
    int ok = b->view.itemsize == itemsize;
    if (kind == 'd') {
        ok = ok && f[0] == 'd';
    } else if (kind == 'q') {
        ok = ok && (f[0] == 'q' || f[0] == 'l');
    } else if (kind == 'i') {
        ok = ok && (f[0] == 'i' || f[0] == 'l');
    } else {
        ok = ok && (f[0] == '?' || f[0] == 'b' || f[0] == 'B');
    }
    if (!ok || b->view.len / itemsize < n) {
        PyErr_Format(PyExc_ValueError, "%s: expected at least %zd items of type '%c'", name, n, kind);
        return -1;
    }
    return 0;
}

/* ------------------------------------------------------------------------------------------ */
/* the event queue: smallest time first, equal times by creation stamp */

typedef struct {
    double key;
    int32_t ts;
    int32_t id;
} Ev;

static inline int ev_less(double k1, int32_t t1, double k2, int32_t t2) {
    return k1 < k2 || (k1 == k2 && t1 < t2);
}

static inline void push(Ev *h, int64_t *n, double key, int32_t ts, int32_t id) {
    int64_t i = (*n)++;
    while (i > 0) {
        int64_t parent = (i - 1) >> 1;
        if (!ev_less(key, ts, h[parent].key, h[parent].ts)) {
            break;
        }
        h[i] = h[parent];
        i = parent;
    }
    h[i].key = key;
    h[i].ts = ts;
    h[i].id = id;
}

static inline void pop(Ev *h, int64_t *n) {
    Ev last = h[--(*n)];
    int64_t m = *n, i = 0;
    while (1) {
        int64_t c = 2 * i + 1;
        if (c >= m) {
            break;
        }
        if (c + 1 < m && ev_less(h[c + 1].key, h[c + 1].ts, h[c].key, h[c].ts)) {
            c++;
        }
        if (!ev_less(h[c].key, h[c].ts, last.key, last.ts)) {
            break;
        }
        h[i] = h[c];
        i = c;
    }
    if (m > 0) {
        h[i] = last;
    }
}

/* ------------------------------------------------------------------------------------------ */
/* libstdc++'s std::sort of operation ids by kind (cxx_sort.py) */

static void linear_insert(int32_t *a, const int8_t *kind, int64_t last) {
    int32_t val = a[last];
    int64_t nxt = last - 1;
    while (kind[val] < kind[a[nxt]]) {
        a[last] = a[nxt];
        last = nxt;
        nxt--;
    }
    a[last] = val;
}

static void insertion_sort(int32_t *a, const int8_t *kind, int64_t first, int64_t last) {
    if (first == last) {
        return;
    }
    for (int64_t i = first + 1; i < last; i++) {
        if (kind[a[i]] < kind[a[first]]) {
            int32_t val = a[i];
            memmove(a + first + 1, a + first, (size_t)(i - first) * sizeof(int32_t));
            a[first] = val;
        } else {
            linear_insert(a, kind, i);
        }
    }
}

static void stable_by_kind(int32_t *a, const int8_t *kind, int64_t lo, int64_t hi, int32_t *tmp) {
    int64_t m = 0;
    for (int k = 0; k < 3; k++) {
        for (int64_t j = lo; j < hi; j++) {
            if (kind[a[j]] == k) {
                tmp[m++] = a[j];
            }
        }
    }
    memcpy(a + lo, tmp, (size_t)m * sizeof(int32_t));
}

static void sort_like_cxx(int32_t *a, const int8_t *kind, int64_t first, int64_t last, int32_t *tmp) {
    int64_t n = last - first;
    if (n < 2) {
        return;
    }
    if (n <= 16) {
        insertion_sort(a, kind, first, last);
        return;
    }
    int depth = 0;
    while (((int64_t)1 << (depth + 1)) <= n) {
        depth++;
    }
    int64_t stack[130][3];
    int sp = 0;
    stack[0][0] = first;
    stack[0][1] = last;
    stack[0][2] = 2 * depth;
    sp = 1;
    while (sp > 0) {
        sp--;
        int64_t lo = stack[sp][0], hi = stack[sp][1], lim = stack[sp][2];
        while (hi - lo > 16) {
            if (lim == 0) { /* libstdc++ switches to heap sort here; a stable sort stands in for it */
                stable_by_kind(a, kind, lo, hi, tmp);
                break;
            }
            lim--;
            int64_t mid = lo + (hi - lo) / 2, x = lo + 1, y = mid, z = hi - 1, m;
            int8_t kx = kind[a[x]], ky = kind[a[y]], kz = kind[a[z]];
            if (kx < ky) {
                m = ky < kz ? y : (kx < kz ? z : x);
            } else {
                m = kx < kz ? x : (ky < kz ? z : y);
            }
            int32_t sw = a[lo];
            a[lo] = a[m];
            a[m] = sw;
            int8_t pivot = kind[a[lo]];
            int64_t f = lo + 1, l = hi;
            while (1) {
                while (kind[a[f]] < pivot) {
                    f++;
                }
                l--;
                while (pivot < kind[a[l]]) {
                    l--;
                }
                if (!(f < l)) {
                    break;
                }
                sw = a[f];
                a[f] = a[l];
                a[l] = sw;
                f++;
            }
            stack[sp][0] = f;
            stack[sp][1] = hi;
            stack[sp][2] = lim;
            sp++;
            hi = f;
        }
    }
    insertion_sort(a, kind, first, first + 16);
    for (int64_t i = first + 16; i < last; i++) {
        linear_insert(a, kind, i);
    }
}

/* ------------------------------------------------------------------------------------------ */
/* the state of one run */

enum { SEND = 0, RECV = 1, CALC = 2 };
enum { ISSUED = 1, STARTED = 2, DONE = 4 };

typedef struct {
    int64_t P, n, n_cpu, n_nic;
    const int64_t *op_ptr;
    const int8_t *kind;
    const double *size;
    const int32_t *peer, *cpu, *nic;
    const int64_t *tag;
    double L, o, g, G, O, S;
    int32_t *rank, *key;
    int32_t *req_ptr, *req_dep, *ireq_ptr, *ireq_dep, *need_req, *need_ireq;
    uint8_t *flag;
    double *nexto, *nextgs, *nextgr;
    int32_t *fresh, *sort_tmp;
    int64_t nf;
    Ev *heap;
    int64_t hn;
    int32_t ts;
    /* groups of queued operations: members[g_lo[g]:g_hi[g]] */
    int32_t *mts, *members, *g_lo, *g_hi, *gfree;
    int64_t mpos, nfree, gmax;
    /* matching: unexpected messages and posted receives, per rank and per key */
    int32_t *uq_head, *uq_tail, *uk_head, *uk_tail, *rq_head, *rq_tail, *rk_head, *rk_tail, *rq_wild;
    int32_t *h_next, *h_prev, *k_next, *k_prev;
    double *u_t0, *u_t1, *start, *end;
    int64_t kp;
    /* messages waiting for their receiver's CPU and NIC, per (rank, cpu, nic) */
    int fifo;
    int32_t *w_head, *w_tail, *w_next;
    double *arrive;
} Sim;

static inline void ready(Sim *s, int32_t i) {
    if (s->need_req[i] == 0 && s->need_ireq[i] == 0 && !(s->flag[i] & ISSUED)) {
        s->flag[i] |= ISSUED;
        s->fresh[s->nf++] = i;
    }
}

static inline void release(Sim *s, int32_t i, uint8_t bit, const int32_t *ptr, const int32_t *dep,
                           int32_t *need) {
    if (!(s->flag[i] & bit)) {
        s->flag[i] |= bit;
        for (int32_t j = ptr[i]; j < ptr[i + 1]; j++) {
            need[dep[j]]--;
            ready(s, dep[j]);
        }
    }
}

static inline void mark_started(Sim *s, int32_t i) { release(s, i, STARTED, s->ireq_ptr, s->ireq_dep, s->need_ireq); }

static inline void mark_done(Sim *s, int32_t i) {
    mark_started(s, i);
    release(s, i, DONE, s->req_ptr, s->req_dep, s->need_req);
}

static inline double dmax(double a, double b) { return a > b ? a : b; }

static void rendezvous_done(Sim *s, int32_t snd, int64_t c, int64_t q, double t) {
    mark_done(s, snd);
    s->nexto[c] = dmax(s->nexto[c], t);
    s->nextgs[q] = dmax(s->nextgs[q], t);
}

static inline void unlink_(int32_t i, int32_t *head, int32_t *tail, int32_t *nxt, int32_t *prv, int64_t q) {
    int32_t a = prv[i], b = nxt[i];
    if (a >= 0) {
        nxt[a] = b;
    } else {
        head[q] = b;
    }
    if (b >= 0) {
        prv[b] = a;
    } else {
        tail[q] = a;
    }
}

static inline void append(int32_t i, int32_t *head, int32_t *tail, int32_t *nxt, int32_t *prv, int64_t q) {
    prv[i] = tail[q];
    nxt[i] = -1;
    if (tail[q] >= 0) {
        nxt[tail[q]] = i;
    } else {
        head[q] = i;
    }
    tail[q] = i;
}

/* push the new operations fresh[lo:hi] of one rank, sorted as LogGOPSim sorts them; a run of one
 * kind, CPU and NIC is one group, keyed by its first member */
static void issue(Sim *s, int64_t lo, int64_t hi, int initial) {
    int32_t *fresh = s->fresh;
    sort_like_cxx(fresh, s->kind, lo, hi, s->sort_tmp);
    int64_t j = lo;
    while (j < hi) {
        int32_t i = fresh[j];
        int64_t h = s->rank[i];
        double t;
        if (initial) {
            t = 0.0;
        } else if (s->kind[i] == SEND) {
            t = dmax(s->nexto[h * s->n_cpu + s->cpu[i]], s->nextgs[h * s->n_nic + s->nic[i]]);
        } else {
            t = s->nexto[h * s->n_cpu + s->cpu[i]];
        }
        int32_t grp = s->gfree[--s->nfree];
        s->g_lo[grp] = (int32_t)s->mpos;
        int32_t first_ts = s->ts;
        while (j < hi && s->kind[fresh[j]] == s->kind[i] && s->cpu[fresh[j]] == s->cpu[i] &&
               s->nic[fresh[j]] == s->nic[i]) {
            s->members[s->mpos++] = fresh[j];
            s->mts[fresh[j]] = s->ts++;
            j++;
        }
        s->g_hi[grp] = (int32_t)s->mpos;
        push(s->heap, &s->hn, t, first_ts, grp);
    }
}

/* ------------------------------------------------------------------------------------------ */
/* the events */

static int run_calc(Sim *s, int32_t i, double t, double *t_wait) {
    int64_t c = (int64_t)s->rank[i] * s->n_cpu + s->cpu[i];
    if (s->nexto[c] > t) {
        *t_wait = s->nexto[c];
        return 0;
    }
    s->nexto[c] = t + s->size[i];
    s->start[i * s->kp] = t;
    s->end[i * s->kp] = t + s->size[i];
    mark_done(s, i);
    return 1;
}

static int run_send(Sim *s, int32_t i, double t, double *t_wait) {
    int64_t h = s->rank[i], c = h * s->n_cpu + s->cpu[i], q = h * s->n_nic + s->nic[i];
    if (dmax(s->nexto[c], s->nextgs[q]) > t) {
        *t_wait = dmax(s->nexto[c], s->nextgs[q]);
        return 0;
    }
    mark_started(s, i);
    double k1 = dmax(s->size[i] - 1.0, 0.0);
    s->nexto[c] = t + s->o + k1 * s->O;
    s->nextgs[q] = t + s->g + k1 * s->G;
    s->start[i * s->kp] = t;
    s->end[i * s->kp] = t + s->o + k1 * s->O;
    int32_t id = (int32_t)(s->gmax + i);
    if (s->fifo) { /* the message joins its receiver's queue; only the queue's head is in the heap */
        int64_t r = ((int64_t)s->peer[i] * s->n_cpu + s->cpu[i]) * s->n_nic + s->nic[i];
        s->mts[i] = s->ts; /* from here on the send's stamp is its message's */
        s->arrive[i] = t + s->o + s->L;
        s->w_next[i] = -1;
        if (s->w_tail[r] >= 0) {
            s->w_next[s->w_tail[r]] = i;
        } else {
            s->w_head[r] = i;
            push(s->heap, &s->hn, t + s->o + s->L, s->ts, id);
        }
        s->w_tail[r] = i;
    } else {
        push(s->heap, &s->hn, t + s->o + s->L, s->ts, id);
    }
    s->ts++;
    if (s->size[i] <= s->S) {
        mark_done(s, i);
    }
    return 1;
}

/* a receive is posted; returns the rank of a rendezvous sender it completed, else -1 */
static int64_t run_recv(Sim *s, int32_t i, double t) {
    int64_t h = s->rank[i];
    mark_started(s, i);
    int32_t found = -1;
    if (s->peer[i] != -1 && s->tag[i] != -1) {
        found = s->key[i] >= 0 ? s->uk_head[s->key[i]] : -1;
    } else {
        for (int32_t e = s->uq_head[h]; e >= 0; e = s->h_next[e]) {
            if ((s->peer[i] == -1 || s->rank[e] == s->peer[i]) && (s->tag[i] == -1 || s->tag[e] == s->tag[i])) {
                found = e;
                break;
            }
        }
    }
    if (found < 0) {
        append(i, s->rq_head, s->rq_tail, s->h_next, s->h_prev, h);
        if (s->key[i] >= 0) {
            append(i, s->rk_head, s->rk_tail, s->k_next, s->k_prev, s->key[i]);
        } else {
            s->rq_wild[h]++;
        }
        return -1;
    }
    unlink_(found, s->uq_head, s->uq_tail, s->h_next, s->h_prev, h);
    unlink_(found, s->uk_head, s->uk_tail, s->k_next, s->k_prev, s->key[found]);
    int64_t src = s->rank[found], h2 = -1;
    if (s->size[i] > s->S) { /* rendezvous: the sender's request completes now */
        rendezvous_done(s, found, src * s->n_cpu + s->cpu[i], src * s->n_nic + s->nic[i], t);
        h2 = src;
    }
    s->start[i * s->kp] = s->u_t0[found * s->kp];
    s->end[i * s->kp] = s->u_t1[found * s->kp];
    mark_done(s, i);
    return h2;
}

/* the message of send m arrives at its receiver; returns 0 if the CPU or NIC is busy (until
 * *t_wait), else 1, with the rank of a rendezvous sender it completed in *h2 */
static int run_message(Sim *s, int32_t m, double t, double *t_wait, int64_t *h2) {
    int64_t h = s->peer[m], src = s->rank[m];
    int64_t c = h * s->n_cpu + s->cpu[m], q = h * s->n_nic + s->nic[m];
    if (dmax(s->nexto[c], s->nextgr[q]) > t) {
        *t_wait = dmax(s->nexto[c], s->nextgr[q]);
        return 0;
    }
    double k1 = dmax(s->size[m] - 1.0, 0.0);
    s->nexto[c] = t + s->o + dmax(k1 * s->O, k1 * s->G);
    s->nextgr[q] = t + s->g + k1 * s->G;
    int32_t found = -1;
    if (s->rq_wild[h] == 0) {
        found = s->rk_head[s->key[m]];
    } else {
        for (int32_t e = s->rq_head[h]; e >= 0; e = s->h_next[e]) {
            if ((s->peer[e] == -1 || s->peer[e] == src) && (s->tag[e] == -1 || s->tag[e] == s->tag[m])) {
                found = e;
                break;
            }
        }
    }
    if (found >= 0) {
        unlink_(found, s->rq_head, s->rq_tail, s->h_next, s->h_prev, h);
        if (s->key[found] >= 0) {
            unlink_(found, s->rk_head, s->rk_tail, s->k_next, s->k_prev, s->key[found]);
        } else {
            s->rq_wild[h]--;
        }
        if (s->size[m] > s->S) {
            rendezvous_done(s, m, src * s->n_cpu + s->cpu[m], src * s->n_nic + s->nic[m], t);
            *h2 = src;
        }
        s->start[found * s->kp] = t;
        s->end[found * s->kp] = s->nexto[c];
        mark_done(s, found);
    } else {
        append(m, s->uq_head, s->uq_tail, s->h_next, s->h_prev, h);
        append(m, s->uk_head, s->uk_tail, s->k_next, s->k_prev, s->key[m]);
        s->u_t0[m * s->kp] = t;
        s->u_t1[m * s->kp] = s->nexto[c];
    }
    if (s->fifo) { /* the next message waiting for this CPU and NIC, from when they are free */
        int64_t r = c * s->n_nic + s->nic[m];
        int32_t w = s->w_next[m];
        s->w_head[r] = w;
        if (w < 0) {
            s->w_tail[r] = -1;
        } else {
            push(s->heap, &s->hn, dmax(s->arrive[w], dmax(s->nexto[c], s->nextgr[q])), s->mts[w],
                 (int32_t)(s->gmax + w));
        }
    }
    return 1;
}

/* after the group grp's first member ran (ok) or waits until t_wait: the next member's turn, the
 * whole group moved, or the first member split off; returns whether the next member runs at
 * once (no other event comes first) */
static int after_group(Sim *s, int32_t grp, int ok, double t, double t_wait, int32_t its) {
    Ev *hp = s->heap;
    if (ok) {
        s->g_lo[grp]++;
        if (s->g_lo[grp] < s->g_hi[grp]) {
            int32_t tsn = s->mts[s->members[s->g_lo[grp]]];
            if (s->hn == 0 || hp[0].key > t || (hp[0].key == t && hp[0].ts > tsn)) {
                return 1;
            }
            push(hp, &s->hn, t, tsn, grp);
        } else {
            s->gfree[s->nfree++] = grp;
        }
    } else if (s->g_hi[grp] - s->g_lo[grp] == 1 || s->hn == 0 || hp[0].key > t ||
               (hp[0].key == t && hp[0].ts > s->mts[s->members[s->g_hi[grp] - 1]])) {
        /* the other members would be popped next, one after the other, and wait for the same CPU
         * or NIC until the same time: they move together */
        push(hp, &s->hn, t_wait, its, grp);
    } else { /* another event comes between the members: the first one waits alone */
        int32_t g1 = s->gfree[--s->nfree];
        s->g_lo[g1] = s->g_lo[grp];
        s->g_hi[g1] = s->g_lo[grp] + 1;
        push(hp, &s->hn, t_wait, its, g1);
        s->g_lo[grp]++;
        push(hp, &s->hn, t, s->mts[s->members[s->g_lo[grp]]], grp);
    }
    return 0;
}

/* issue the new operations, rank by rank in ascending order */
static void issue_fresh(Sim *s, int64_t h1, int64_t h2) {
    if (h1 >= 0 && h2 >= 0 && h2 < h1) {
        int64_t x = h1;
        h1 = h2;
        h2 = x;
    }
    if (h1 == h2) {
        h2 = -1;
    }
    int64_t nf = s->nf, hs[2] = {h1, h2};
    for (int k = 0; k < 2; k++) {
        if (hs[k] < 0) {
            continue;
        }
        int64_t m = nf;
        for (int64_t j = 0; j < nf; j++) { /* gather this rank's new operations after the used part */
            if (s->rank[s->fresh[j]] == hs[k]) {
                s->fresh[m++] = s->fresh[j];
            }
        }
        issue(s, nf, m, 0);
    }
}

static void run_loop(Sim *s, int64_t *pops, int64_t *waits) {
    int carry = 0;
    double t = 0.0;
    int32_t its = 0, grp = 0;
    const int64_t n = s->n;
    while (s->hn > 0 || carry) {
        if (carry) {
            carry = 0;
            its = s->mts[s->members[s->g_lo[grp]]];
        } else {
            (*pops)++;
            t = s->heap[0].key;
            its = s->heap[0].ts;
            grp = s->heap[0].id;
            pop(s->heap, &s->hn);
        }
        int64_t ev = grp < s->gmax ? s->members[s->g_lo[grp]] : n + grp - s->gmax;
        int ok = 1;
        double t_wait = 0.0;
        int64_t h1 = -1, h2 = -1;
        s->nf = 0;
        if (ev >= n) {
            int32_t m = (int32_t)(ev - n);
            if (run_message(s, m, t, &t_wait, &h2)) {
                h1 = s->peer[m];
            } else {
                (*waits)++;
                push(s->heap, &s->hn, t_wait, its, grp);
            }
        } else {
            int32_t i = (int32_t)ev;
            if (s->kind[i] == CALC) {
                ok = run_calc(s, i, t, &t_wait);
            } else if (s->kind[i] == SEND) {
                ok = run_send(s, i, t, &t_wait);
            } else {
                h2 = run_recv(s, i, t);
            }
            if (ok) {
                h1 = s->rank[i];
            }
            carry = after_group(s, grp, ok, t, t_wait, its);
        }
        if (s->nf > 0) {
            issue_fresh(s, h1, h2);
        }
    }
}

/* ------------------------------------------------------------------------------------------ */
/* setting up: matching keys, dependency lists, queues */

static inline uint64_t mix(uint64_t x) {
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdULL;
    x ^= x >> 33;
    x *= 0xc4ceb9fe1a85ec53ULL;
    x ^= x >> 33;
    return x;
}

/* the (destination, source, tag) of a send or an exact receive, else 0 */
static inline int triple(const Sim *s, int64_t i, int64_t *d, int64_t *src, int64_t *tg) {
    if (s->kind[i] == SEND) {
        *d = s->peer[i];
        *src = s->rank[i];
    } else if (s->kind[i] == RECV && s->peer[i] != -1 && s->tag[i] != -1) {
        *d = s->rank[i];
        *src = s->peer[i];
    } else {
        return 0;
    }
    *tg = s->tag[i];
    return 1;
}

/* a compact key per send and exact receive: equal exactly when they match; -1 for the rest.
 * Returns the number of keys, or -1 without memory. */
static int64_t match_keys(Sim *s) {
    int64_t cnt = 0;
    for (int64_t i = 0; i < s->n; i++) {
        cnt += s->kind[i] != CALC;
    }
    int64_t cap = 16;
    while (cap < 2 * cnt) {
        cap <<= 1;
    }
    int32_t *slot = malloc((size_t)cap * sizeof(int32_t));
    if (!slot) {
        return -1;
    }
    memset(slot, 0xff, (size_t)cap * sizeof(int32_t));
    int64_t n_keys = 0;
    for (int64_t i = 0; i < s->n; i++) {
        int64_t d, src, tg, d2 = 0, src2 = 0, tg2 = 0;
        if (!triple(s, i, &d, &src, &tg)) {
            s->key[i] = -1;
            continue;
        }
        uint64_t hsh = mix(mix((uint64_t)d * 0x9e3779b97f4a7c15ULL + (uint64_t)src) ^ (uint64_t)tg);
        int64_t at = (int64_t)(hsh & (uint64_t)(cap - 1));
        while (1) {
            int32_t r = slot[at];
            if (r < 0) {
                slot[at] = (int32_t)i;
                s->key[i] = (int32_t)n_keys++;
                break;
            }
            triple(s, r, &d2, &src2, &tg2);
            if (d == d2 && src == src2 && tg == tg2) {
                s->key[i] = s->key[r];
                break;
            }
            at = (at + 1) & (cap - 1);
        }
    }
    free(slot);
    return n_keys;
}

/* the dependents of every operation (a[j] depends on b[j]) in the order of j, and each one's
 * count of what it waits for */
static int dependents(int64_t n, const int32_t *a, const int32_t *b, int64_t m, int32_t **ptr, int32_t **dep,
                      int32_t *need) {
    *ptr = calloc((size_t)n + 1, sizeof(int32_t));
    *dep = malloc((size_t)(m > 0 ? m : 1) * sizeof(int32_t));
    if (!*ptr || !*dep) {
        return -1;
    }
    int32_t *p = *ptr;
    for (int64_t j = 0; j < m; j++) {
        p[b[j] + 1]++;
        need[a[j]]++;
    }
    for (int64_t i = 0; i < n; i++) {
        p[i + 1] += p[i];
    }
    for (int64_t j = 0; j < m; j++) { /* fill, then shift the pointers back */
        (*dep)[p[b[j]]++] = a[j];
    }
    for (int64_t i = n; i > 0; i--) {
        p[i] = p[i - 1];
    }
    p[0] = 0;
    return 0;
}

#define NEW(ptr, count, type)                                               \
    do {                                                                    \
        (ptr) = (type *)malloc((size_t)((count) > 0 ? (count) : 1) * sizeof(type)); \
        if (!(ptr)) goto nomem;                                             \
    } while (0)
#define NEW_FILL(ptr, count, type, byte)                                    \
    do {                                                                    \
        NEW(ptr, count, type);                                              \
        memset((ptr), (byte), (size_t)((count) > 0 ? (count) : 1) * sizeof(type)); \
    } while (0)

static void free_sim(Sim *s) {
    void *all[] = {s->rank, s->key, s->req_ptr, s->req_dep, s->ireq_ptr, s->ireq_dep, s->need_req, s->need_ireq,
                   s->flag, s->nexto, s->nextgs, s->nextgr, s->fresh, s->sort_tmp, s->heap, s->mts, s->members,
                   s->g_lo, s->g_hi, s->gfree, s->uq_head, s->uq_tail, s->uk_head, s->uk_tail, s->rq_head,
                   s->rq_tail, s->rk_head, s->rk_tail, s->rq_wild, s->h_next, s->h_prev, s->k_next, s->k_prev,
                   s->u_t0, s->u_t1, s->w_head, s->w_tail, s->w_next, s->arrive};
    for (size_t k = 0; k < sizeof(all) / sizeof(all[0]); k++) {
        free(all[k]);
    }
}

/* everything but the inputs; 0, or -1 without memory */
static int setup(Sim *s, const int32_t *req_a, const int32_t *req_b, int64_t n_req, const int32_t *ireq_a,
                 const int32_t *ireq_b, int64_t n_ireq, int timelines) {
    const int64_t n = s->n, P = s->P;
    int64_t most = 0, n_send = 0;
    NEW(s->rank, n, int32_t);
    for (int64_t h = 0; h < P; h++) {
        most = s->op_ptr[h + 1] - s->op_ptr[h] > most ? s->op_ptr[h + 1] - s->op_ptr[h] : most;
        for (int64_t i = s->op_ptr[h]; i < s->op_ptr[h + 1]; i++) {
            s->rank[i] = (int32_t)h;
        }
    }
    for (int64_t i = 0; i < n; i++) {
        n_send += s->kind[i] == SEND;
    }
    NEW(s->key, n, int32_t);
    int64_t n_keys = match_keys(s);
    if (n_keys < 0) {
        goto nomem;
    }
    NEW_FILL(s->need_req, n, int32_t, 0);
    NEW_FILL(s->need_ireq, n, int32_t, 0);
    if (dependents(n, req_a, req_b, n_req, &s->req_ptr, &s->req_dep, s->need_req) < 0 ||
        dependents(n, ireq_a, ireq_b, n_ireq, &s->ireq_ptr, &s->ireq_dep, s->need_ireq) < 0) {
        goto nomem;
    }
    NEW_FILL(s->flag, n, uint8_t, 0);
    NEW_FILL(s->nexto, P * s->n_cpu, double, 0);
    NEW_FILL(s->nextgs, P * s->n_nic, double, 0);
    NEW_FILL(s->nextgr, P * s->n_nic, double, 0);
    NEW(s->fresh, 4 * most + 2, int32_t);
    NEW(s->sort_tmp, 2 * most + 2, int32_t);
    s->gmax = n + 1;
    s->fifo = s->n_cpu == 1;
    int64_t n_res = s->fifo ? P * s->n_nic : 1;
    /* queued: each operation in at most one group, and each send's message (with the queues of
     * waiting messages, at most one message per receiving CPU and NIC) */
    NEW(s->heap, n + 1 + (s->fifo && n_res < n_send ? n_res : n_send), Ev);
    NEW(s->mts, n, int32_t);
    NEW(s->members, n, int32_t);
    NEW_FILL(s->g_lo, s->gmax, int32_t, 0);
    NEW_FILL(s->g_hi, s->gmax, int32_t, 0);
    NEW(s->gfree, s->gmax, int32_t);
    for (int64_t k = 0; k < s->gmax; k++) {
        s->gfree[k] = (int32_t)(s->gmax - 1 - k);
    }
    s->nfree = s->gmax;
    NEW_FILL(s->uq_head, P, int32_t, 0xff);
    NEW_FILL(s->uq_tail, P, int32_t, 0xff);
    NEW_FILL(s->rq_head, P, int32_t, 0xff);
    NEW_FILL(s->rq_tail, P, int32_t, 0xff);
    NEW_FILL(s->rq_wild, P, int32_t, 0);
    NEW_FILL(s->uk_head, n_keys, int32_t, 0xff);
    NEW_FILL(s->uk_tail, n_keys, int32_t, 0xff);
    NEW_FILL(s->rk_head, n_keys, int32_t, 0xff);
    NEW_FILL(s->rk_tail, n_keys, int32_t, 0xff);
    NEW_FILL(s->h_next, n, int32_t, 0xff);
    NEW_FILL(s->h_prev, n, int32_t, 0xff);
    NEW_FILL(s->k_next, n, int32_t, 0xff);
    NEW_FILL(s->k_prev, n, int32_t, 0xff);
    s->kp = timelines ? 1 : 0;
    NEW_FILL(s->u_t0, timelines ? n : 1, double, 0);
    NEW_FILL(s->u_t1, timelines ? n : 1, double, 0);
    NEW_FILL(s->w_head, n_res, int32_t, 0xff);
    NEW_FILL(s->w_tail, n_res, int32_t, 0xff);
    NEW_FILL(s->w_next, s->fifo ? n : 1, int32_t, 0xff);
    NEW(s->arrive, s->fifo ? n : 1, double);
    return 0;
nomem:
    return -1;
}

/* ------------------------------------------------------------------------------------------ */
/* the module */

static const char simulate_doc[] =
    "simulate(P, op_ptr, kind, size, peer, tag, cpu, nic, req_a, req_b, ireq_a, ireq_b, n_cpu, n_nic, L, o, g, "
    "G, O, S, start, end, done, finish) -> (pops, message waits)\n\n"
    "Run a GOAL schedule with LogGOPSim's rules. op_ptr int64 (P + 1); kind int8; size float64; peer, cpu, nic "
    "int32; tag int64; the dependencies int32 (a requires / irequires b). start and end (float64, n items, or 1 "
    "to keep no times), done (bool, n) and finish (float64, P) are written.";

static PyObject *simulate(PyObject *self, PyObject *args) {
    (void)self;
    Py_ssize_t P, n_cpu, n_nic;
    double L, o, g, G, O, S;
    PyObject *ob[18];
    if (!PyArg_ParseTuple(args, "nOOOOOOOOOOOnnddddddOOOO:simulate", &P, &ob[0], &ob[1], &ob[2], &ob[3], &ob[4],
                          &ob[5], &ob[6], &ob[7], &ob[8], &ob[9], &ob[10], &n_cpu, &n_nic, &L, &o, &g, &G, &O,
                          &S, &ob[11], &ob[12], &ob[13], &ob[14])) {
        return NULL;
    }
    Buf b[15];
    memset(b, 0, sizeof(b));
    Sim s;
    memset(&s, 0, sizeof(s));
    PyObject *result = NULL;
    if (get_buf(ob[0], &b[0], 'q', P + 1, 0, "op_ptr") < 0) {
        goto done;
    }
    s.P = P;
    s.n = ((int64_t *)b[0].view.buf)[P];
    const int64_t n = s.n;
    static const char kinds[] = "bdiqiiiiii";
    static const char *names[] = {"kind", "size", "peer", "tag", "cpu", "nic", "req_a", "req_b", "ireq_a", "ireq_b"};
    for (int k = 0; k < 10; k++) {
        if (get_buf(ob[k + 1], &b[k + 1], kinds[k], k < 6 ? n : 0, 0, names[k]) < 0) {
            goto done;
        }
    }
    int64_t n_req = b[7].view.len / 4, n_ireq = b[9].view.len / 4;
    if (b[8].view.len / 4 != n_req || b[10].view.len / 4 != n_ireq) {
        PyErr_SetString(PyExc_ValueError, "the two sides of a dependency list differ in length");
        goto done;
    }
    if (get_buf(ob[11], &b[11], 'd', 1, 1, "start") < 0 || get_buf(ob[12], &b[12], 'd', 1, 1, "end") < 0 ||
        get_buf(ob[13], &b[13], 'b', n, 1, "done") < 0 || get_buf(ob[14], &b[14], 'd', P, 1, "finish") < 0) {
        goto done;
    }
    int timelines = b[11].view.len / 8 >= n && b[12].view.len / 8 >= n && n > 0;
    s.op_ptr = (const int64_t *)b[0].view.buf;
    s.kind = (const int8_t *)b[1].view.buf;
    s.size = (const double *)b[2].view.buf;
    s.peer = (const int32_t *)b[3].view.buf;
    s.tag = (const int64_t *)b[4].view.buf;
    s.cpu = (const int32_t *)b[5].view.buf;
    s.nic = (const int32_t *)b[6].view.buf;
    s.n_cpu = n_cpu;
    s.n_nic = n_nic;
    s.L = L;
    s.o = o;
    s.g = g;
    s.G = G;
    s.O = O;
    s.S = S;
    s.start = (double *)b[11].view.buf;
    s.end = (double *)b[12].view.buf;
    int64_t pops = 0, waits = 0;
    int failed;
    Py_BEGIN_ALLOW_THREADS
    failed = setup(&s, (const int32_t *)b[7].view.buf, (const int32_t *)b[8].view.buf, n_req,
                   (const int32_t *)b[9].view.buf, (const int32_t *)b[10].view.buf, n_ireq, timelines);
    if (!failed) {
        for (int64_t h = 0; h < P; h++) { /* every rank's first operations, at time 0 */
            s.nf = 0;
            for (int64_t i = s.op_ptr[h]; i < s.op_ptr[h + 1]; i++) {
                ready(&s, (int32_t)i);
            }
            issue(&s, 0, s.nf, 1);
        }
        run_loop(&s, &pops, &waits);
        char *dn = (char *)b[13].view.buf;
        double *fin = (double *)b[14].view.buf;
        for (int64_t i = 0; i < n; i++) {
            dn[i] = (s.flag[i] & DONE) != 0;
        }
        for (int64_t h = 0; h < P; h++) {
            double f = 0.0;
            for (int64_t c = 0; c < n_cpu; c++) {
                f = dmax(f, s.nexto[h * n_cpu + c]);
            }
            fin[h] = f;
        }
    }
    Py_END_ALLOW_THREADS
    if (failed) {
        PyErr_NoMemory();
        goto done;
    }
    result = Py_BuildValue("LL", (long long)pops, (long long)waits);
done:
    free_sim(&s);
    for (int k = 0; k < 15; k++) {
        if (b[k].held) {
            PyBuffer_Release(&b[k].view);
        }
    }
    return result;
}

static PyMethodDef methods[] = {
    {"simulate", simulate, METH_VARARGS, simulate_doc},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_cgoal", "LogGOPSim's main loop on GOAL schedules, compiled (see loggopsim.py).", -1,
    methods,
};

PyMODINIT_FUNC PyInit__cgoal(void) { return PyModule_Create(&module); }
