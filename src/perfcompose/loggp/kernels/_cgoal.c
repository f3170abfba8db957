/* LogGOPSim's main loop on a GOAL schedule, compiled as a C extension: the times of the plain
 * loop of loggopsim_reference.py exactly (events in time order, ties in creation order, and the
 * emulation of libstdc++'s std::sort of new operations); loggopsim.py passes the schedule's
 * arrays as buffers (no NumPy headers are needed to build this). Here the matching keys and the
 * dependency lists are built too, in linear time.
 *
 * A run of new operations of one kind is queued as one group, and a group blocked on its CPU or
 * NIC moves as a whole when no other event comes between its members. Messages that wait for a
 * busy receiver are queued per receiving (rank, NIC) in the order they were sent, and only the
 * first of each queue is in the heap. With one CPU per rank this keeps LogGOPSim's order: no
 * event is queued before the one being run, so a receiver's busy-until time F = max(nexto,
 * nextgr) only grows; a waiting message re-queued at F changes nothing else and is received at
 * its first turn T >= arrival with F <= T; messages for one receiver arrive in stamp order and a
 * later-stamped one is never received first. So when a message is received, the next of its
 * queue goes in the heap at max(its arrival, F). With several CPUs per rank each waiting message
 * is re-queued by itself, as LogGOPSim does. */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <malloc.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "_buffers.h"
#include "_goal_layout.h"

/* memory for a large table (4 MiB or more) in huge pages where the system gives them: the loop
 * reads its tables at places far apart, and a table in 4 KiB pages costs a page walk nearly
 * every read (about a quarter of the loop's time at 3 x 10^6 operations) */
static void huge_pages(void *p, int64_t bytes) {
#ifdef MADV_HUGEPAGE
    uintptr_t a = ((uintptr_t)p + ((2 << 20) - 1)) & ~(uintptr_t)((2 << 20) - 1), e = (uintptr_t)p + (uintptr_t)bytes;
    if (bytes >= (4 << 20) && e > a) madvise((void *)a, e - a, MADV_HUGEPAGE);
#endif
}

static void *big_alloc(size_t bytes) {
    if (bytes < ((size_t)4 << 20)) return malloc(bytes);
    void *p = NULL;
    if (posix_memalign(&p, (size_t)2 << 20, bytes) != 0) return NULL;
    huge_pages(p, (int64_t)bytes);
    return p;
}

/* ------------------------------------------------------------------------------------------ */
/* the event queue: smallest time first, equal times by creation stamp. The events of the current
 * slot of time are a sorted array, taken in order, and those queued into the slot while it runs
 * (and any queued before it): in a second array while each comes after the last one there (most
 * do), else in a binary heap; later ones wait unsorted in a ring of per-slot
 * lists (a calendar queue) and, beyond the ring, in a second heap. An event of a later slot is
 * later than every one of the current slot, so the events come out in the same order as from one
 * heap. Where many events share a time (ranks in lock-step) a slot holds thousands: sorting them
 * at once and reading them in order costs far less than a heap of thousands. */

typedef struct {
    double key;
    int32_t ts;
    int32_t id; /* a group of operations, or n + 1 + a send (its message) */
    int32_t op;  /* the operation it runs first (read ahead of time) */
    int32_t aux; /* a message's matching key (read ahead of time) */
} Ev;

static inline int ev_less(double k1, int32_t t1, double k2, int32_t t2) {
    return k1 < k2 || (k1 == k2 && t1 < t2);
}

/* the same without branches, to pick the smaller child */
static inline int64_t ev_less_nb(const Ev *a, const Ev *b) {
    return (a->key < b->key) | ((a->key == b->key) & (a->ts < b->ts));
}

/* the heap keeps an entry later than all others after its last one (h[n], room for it is kept),
 * so that every node's second child can be compared */
static const Ev EV_LAST = {HUGE_VAL, INT32_MAX, 0, 0, 0};

#define HEAP_NAME ev
#define HEAP_ENTRY Ev
#define HEAP_LESS(a, b) ev_less((a).key, (a).ts, (b).key, (b).ts)
#define HEAP_LESS_NB(pa, pb) ev_less_nb(pa, pb)
#include "_heap_sift.h"

static inline void push(Ev *h, int64_t *n, double key, int32_t ts, int32_t id, int32_t op, int32_t aux) {
    Ev e = {key, ts, id, op, aux};
    ev_sift_up(h, (*n)++, e);
    h[*n] = EV_LAST;
}

static inline void pop(Ev *h, int64_t *n) {
    int64_t m = --(*n);
    if (m > 0) ev_sift_down(h, m, h[m]);
    h[m] = EV_LAST;
}

/* a[0 .. n) sorted by time and stamp: runs of 16 by insertion, then merged pairwise (tmp: room
 * for n) */
static void ev_sort(Ev *a, Ev *tmp, int64_t n) {
    int64_t j = 1;
    while (j < n && !ev_less(a[j].key, a[j].ts, a[j - 1].key, a[j - 1].ts)) j++;
    if (j >= n) {
        return; /* in order already */
    }
    for (int64_t lo = 0; lo < n; lo += 16) {
        int64_t hi = lo + 16 < n ? lo + 16 : n;
        for (int64_t i = lo + 1; i < hi; i++) {
            Ev e = a[i];
            int64_t k = i;
            while (k > lo && ev_less(e.key, e.ts, a[k - 1].key, a[k - 1].ts)) {
                a[k] = a[k - 1];
                k--;
            }
            a[k] = e;
        }
    }
    Ev *src = a, *dst = tmp;
    for (int64_t w = 16; w < n; w *= 2) {
        for (int64_t lo = 0; lo < n; lo += 2 * w) {
            int64_t mid = lo + w < n ? lo + w : n, hi = lo + 2 * w < n ? lo + 2 * w : n;
            int64_t x = lo, y = mid, o = lo;
            while (x < mid && y < hi) {
                dst[o++] = ev_less(src[y].key, src[y].ts, src[x].key, src[x].ts) ? src[y++] : src[x++];
            }
            while (x < mid) dst[o++] = src[x++];
            while (y < hi) dst[o++] = src[y++];
        }
        Ev *t = src;
        src = dst;
        dst = t;
    }
    if (src != a) memcpy(a, src, (size_t)n * sizeof(Ev));
}

/* ------------------------------------------------------------------------------------------ */
/* libstdc++'s std::sort of operation ids by kind (sort_like_cxx) */
#define CXX_SORT_NAME sort_like_cxx
#define CXX_SORT_CTX const int8_t *
#define CXX_SORT_KEY(kind, x) ((kind)[x])
#define CXX_SORT_KEYS 3
#include "_cxx_sort.h"

/* ------------------------------------------------------------------------------------------ */
/* the state of one run */

enum { SEND = 0, RECV = 1, CALC = 2 };
enum { ISSUED = 1, STARTED = 2, DONE = 4 };

/* what an event reads and writes of an operation, in 12 bytes; its rank, peer and kind are read
 * from the schedule's columns (or found from op_first), its flags are kept in the caller's done
 * array, its matching key is found by key_of */
typedef struct {
    int32_t need; /* requires and irequires not yet satisfied */
    int32_t next; /* the next member of its group until it runs, then of the matching queue it is in */
    int32_t dep;  /* its one dependent (requires it) + 1, 0 for none, < 0 for a list (see Sim.extra) */
} Op;

/* a message waiting for its receiver's CPU and NIC, and the next one waiting for them (-1: none) */
typedef struct {
    double arrive;
    int32_t m, ts, next;
} Waiting;

#ifndef RING_BITS
#define RING_BITS 14
#endif
enum { RING = 1 << RING_BITS };
#ifndef SLOT_EVENTS
#define SLOT_EVENTS 24.0
#endif

/* an event in a slot's list */
typedef struct {
    Ev e;
    int32_t next;
} QNode;

typedef struct {
    int64_t P, n, n_cpu, n_nic;
    const int64_t *op_first; /* rank h's operations are op_first[h] .. op_first[h + 1] - 1 */
    const Layout *lay;       /* else the columns are in the order of the layout (_goal_layout.h) */
    const int8_t *kind;
    const double *size64; /* the sizes: float64, or float32 (size32, else NULL) */
    const float *size32;
    const int32_t *peer;
    const int32_t *cpu, *nic; /* NULL where every operation has CPU / NIC 0 */
    const char *tag;          /* int32 or int64 (tag_wide) */
    int tag_wide;
    double L, o, g, G, O, S;
    Op *op;
    uint8_t *flag; /* ISSUED, STARTED, DONE of every operation */
    uint8_t *own_flag; /* flag where it is not the caller's done array (with a layout) */
    int32_t *init;      /* with a layout: the operations (caller's order) that wait for nothing */
    int64_t n_init;
    int32_t *keys; /* every operation's matching key (key_of) */
    int32_t *tag_w; /* the tag column, writable, where the caller reads none of its inputs again (scratch) */
    int scratch;
    /* the operations that require (d) or irequire (-1 - d) another (op.dep: 0 none, d > 0 the one that
     * requires it d - 1, else a list): those of operation i are extra[k + 1 .. k + extra[k]],
     * k = -1 - op[i].dep, each kind in the order of its pairs */
    int32_t *extra;
    int cross; /* some dependency joins two ranks: a new operation's rank is looked up */
    double *nexto, *nextgs, *nextgr;
    int32_t *fresh, *fresh_h, *sort_tmp; /* new operations and their ranks */
    int64_t nf;
    Ev *heap;
    int64_t hn, hcap;
    Ev *run, *run_tmp; /* the current slot's events as it began, sorted: run[rh .. rn) are left */
    int64_t rh, rn, rcap;
    Ev *fq; /* events queued into the current slot in order: fq[fh .. ft) are left */
    int64_t fh, ft, fqcap;
    int32_t ts;
    /* groups of queued operations, ids below gmax: g_hi[g] operations from g_lo[g] on, linked
     * through op.next */
    int32_t *g_lo, *g_hi, *g_ts, *gfree; /* g_ts: the stamp of the first member (consecutive) */
    int64_t nfree, gmax, gcap;
    /* matching: per key [head, tail] of one queue, of unexpected messages (sends) or of posted
     * receives: a message is never left unexpected where a receive of its key is posted, nor a
     * receive posted where a message of its key is unexpected; with receives from any source or of
     * any tag (wild), also per rank in insertion order */
    int32_t *kq;
    int wild;
    int32_t *uq_head, *uq_tail, *rq_head, *rq_tail, *rq_wild, *h_next, *h_prev;
    double *u_t0, *u_t1, *start, *end;
    int64_t kp;
    /* messages waiting for their receiver's CPU and NIC, per (rank, nic) with one CPU per rank */
    int fifo;
    int32_t *w_head, *w_tail; /* the queue of (rank, nic) r: from wq[w_head[r]] to wq[w_tail[r]] (-1: empty) */
    Waiting *wq; /* the queues' entries, those free linked from w_free (room for the messages waiting at once) */
    int64_t w_used, w_cap;
    int32_t w_free;
    int nomem; /* a queue could not grow: the run stops */
    /* events of later slots than the current one (slot: floor(time / w)): in the ring of lists
     * of the next RING slots, and beyond it in the far heap; the heap holds those up to the
     * current slot */
    double inv_w;
    int64_t cur, ring_n, fn, fcap, node_used, node_cap;
    int32_t *ring, node_free;
    uint64_t *ring_bits;
    QNode *node;
    Ev *far;
} Sim;

#define CPU(s, i) ((s)->cpu ? (int64_t)(s)->cpu[i] : 0)
#define NIC(s, i) ((s)->nic ? (int64_t)(s)->nic[i] : 0)
#define SIZE(s, i) ((s)->size32 ? (double)(s)->size32[i] : (s)->size64[i])
#define SIZE_AT(s, i) ((s)->size32 ? (const void *)&(s)->size32[i] : (const void *)&(s)->size64[i])
#define TAG(s, i) ((s)->tag_wide ? ((const int64_t *)(s)->tag)[i] : (int64_t)((const int32_t *)(s)->tag)[i])
#define UK_HEAD(s, k) key_head(s, k, SEND)
#define RK_HEAD(s, k) key_head(s, k, RECV)

/* the first of key k's queue where it holds operations of kind kd (unexpected messages: SEND,
 * posted receives: RECV), else -1 */
static inline int32_t key_head(const Sim *s, int64_t k, int kd) {
    int32_t i = s->kq[2 * k];
    return i >= 0 && s->kind[i] == kd ? i : -1;
}

/* the matching key of a send or an exact receive (match_keys), -1 for the rest */
static inline int32_t key_of(const Sim *s, int64_t i) { return s->keys[i]; }

/* the rank of operation i: the last h with op_first[h] <= i */
static inline int64_t rank_of(const Sim *s, int64_t i) {
    return s->lay ? layout_rank(s->lay, i) : last_at_most(s->op_first, s->P, i);
}

/* the rank of operation i, found near *hint (a rank, or with a layout a place), which it updates: for
 * operations read in order */
static inline int64_t rank_at(const Sim *s, int64_t i, int64_t *hint) {
    const int64_t *first = s->lay ? s->lay->start : s->op_first;
    if (!(first[*hint] <= i && i < first[*hint + 1])) *hint = last_at_most(first, s->lay ? s->lay->most : s->P, i);
    return s->lay ? s->lay->order[i - first[*hint]] : *hint;
}

/* where the caller's operation i stands in the columns (moved by the layout, where there is one);
 * *hint: the rank to try first */
static inline int32_t at_of(const Sim *s, int32_t i, int64_t *hint) {
    return s->lay ? (int32_t)layout_of(s->lay, i, hint) : i;
}

/* the slot of time t: floor(t / w) within +-10^18, never in another order than the times */
static inline int64_t slot_of(const Sim *s, double t) {
    double x = t * s->inv_w;
    if (!(x < 1e18)) return (int64_t)1e18;
    if (x < -1e18) return -(int64_t)1e18;
    int64_t i = (int64_t)x;
    return i - (x < (double)i);
}

/* an event of a later slot than the current one: onto its slot's list in the ring, or, beyond
 * the ring, onto the far heap */
static void later_put(Sim *s, const Ev *e, int64_t sl) {
    if (sl - s->cur >= RING) {
        if (s->fn + 2 >= s->fcap && grow_to(&s->far, &s->fcap, s->fn + 3, sizeof(Ev)) < 0) { /* and h[n] */
            s->nomem = 1;
            return;
        }
        push(s->far, &s->fn, e->key, e->ts, e->id, e->op, e->aux);
        return;
    }
    if (s->node_free < 0) {
        if (s->node_used == s->node_cap && grow_to(&s->node, &s->node_cap, s->node_used + 1, sizeof(QNode)) < 0) {
            s->nomem = 1;
            return;
        }
        s->node_free = (int32_t)s->node_used++;
        s->node[s->node_free].next = -1;
    }
    int32_t k = s->node_free, r = (int32_t)(sl & (RING - 1));
    s->node_free = s->node[k].next;
    s->node[k].e = *e;
    s->node[k].next = s->ring[r];
    s->ring[r] = k;
    s->ring_bits[r >> 6] |= 1ULL << (r & 63);
    s->ring_n++;
}

/* push onto the event queue; without memory the run stops (nomem) */
static inline void qpush(Sim *s, double key, int32_t ts, int32_t id, int32_t op, int32_t aux) {
    int64_t sl = slot_of(s, key);
    if (sl > s->cur) {
        Ev e = {key, ts, id, op, aux};
        later_put(s, &e, sl);
        return;
    }
    if (s->fh == s->ft || !ev_less(key, ts, s->fq[s->ft - 1].key, s->fq[s->ft - 1].ts)) {
        if (s->ft == s->fqcap && grow_to(&s->fq, &s->fqcap, s->ft + 1, sizeof(Ev)) < 0) {
            s->nomem = 1;
            return;
        }
        Ev e = {key, ts, id, op, aux};
        s->fq[s->ft++] = e;
        return;
    }
    if (s->hn + 2 >= s->hcap && grow_to(&s->heap, &s->hcap, s->hn + 3, sizeof(Ev)) < 0) {
        s->nomem = 1;
        return;
    }
    push(s->heap, &s->hn, key, ts, id, op, aux);
}

/* the current slot is done (its array read, its heap empty): the next slot with events becomes
 * the current one, its events, sorted, the array (those of the far heap that the ring reaches
 * now move into it first) */
static void next_slot(Sim *s) {
    if (s->fn > 0) {
        if (s->ring_n == 0) s->cur = slot_of(s, s->far[0].key) - 1;
        while (s->fn > 0 && slot_of(s, s->far[0].key) - s->cur < RING && !s->nomem) {
            Ev e = s->far[0];
            pop(s->far, &s->fn);
            later_put(s, &e, slot_of(s, e.key));
        }
    }
    int64_t r = (s->cur + 1) & (RING - 1);
    uint64_t w = s->ring_bits[r >> 6] & (~0ULL << (r & 63));
    int64_t word = r >> 6;
    while (!w) {
        word = (word + 1) & (RING / 64 - 1);
        w = s->ring_bits[word];
    }
    int64_t r2 = word * 64 + __builtin_ctzll(w);
    s->cur += ((r2 - r) & (RING - 1)) + 1;
    s->ring_bits[word] &= ~(1ULL << (r2 & 63));
    int32_t k = s->ring[r2];
    s->ring[r2] = -1;
    int64_t count = 0;
    for (int32_t x = k; x >= 0; x = s->node[x].next) count++;
    int64_t tmp_cap = s->rcap; /* run_tmp: as many as run */
    if (count > s->rcap && (grow_to(&s->run, &s->rcap, count, sizeof(Ev)) < 0 ||
                            grow_to(&s->run_tmp, &tmp_cap, count, sizeof(Ev)) < 0)) {
        s->nomem = 1;
        return;
    }
    int64_t at = count; /* the list holds the slot's events last queued first: filled from the end */
    while (k >= 0) {
        s->run[--at] = s->node[k].e;
        s->ring_n--;
        int32_t nx = s->node[k].next;
        s->node[k].next = s->node_free;
        s->node_free = k;
        k = nx;
    }
    ev_sort(s->run, s->run_tmp, count);
    s->rh = 0;
    s->rn = count;
}

/* take the first event off the queue (one is queued) */
static inline Ev qpop(Sim *s) {
    if (s->hn == 0 && s->rh == s->rn && s->fh == s->ft) {
        next_slot(s);
        if (s->nomem) return EV_LAST;
    }
    const Ev *best = NULL;
    int from = 0; /* 0 the slot's array, 1 the array of events queued in order, 2 the heap */
    if (s->rh < s->rn) best = &s->run[s->rh];
    if (s->fh < s->ft && (!best || ev_less(s->fq[s->fh].key, s->fq[s->fh].ts, best->key, best->ts))) {
        best = &s->fq[s->fh];
        from = 1;
    }
    if (s->hn > 0 && (!best || ev_less(s->heap[0].key, s->heap[0].ts, best->key, best->ts))) from = 2;
    if (from == 0) return s->run[s->rh++];
    if (from == 1) {
        Ev e = s->fq[s->fh++];
        if (s->fh == s->ft) s->fh = s->ft = 0;
        return e;
    }
    Ev e = s->heap[0];
    pop(s->heap, &s->hn);
    return e;
}

/* whether every queued event comes after (t, ts), t being the time of the last event taken: the
 * events of later slots come after all in the heap, and after t */
static inline int queue_after(const Sim *s, double t, int32_t ts) {
    return (s->hn == 0 || ev_less(t, ts, s->heap[0].key, s->heap[0].ts)) &&
           (s->rh == s->rn || ev_less(t, ts, s->run[s->rh].key, s->run[s->rh].ts)) &&
           (s->fh == s->ft || ev_less(t, ts, s->fq[s->fh].key, s->fq[s->fh].ts));
}

static inline int32_t new_group(Sim *s) {
    if (s->nfree > 0) return s->gfree[--s->nfree];
    if (s->gmax == s->gcap) {
        int64_t c[4] = {s->gcap, s->gcap, s->gcap, s->gcap}, need = s->gmax + 1;
        if (grow_to(&s->g_lo, &c[0], need, 4) < 0 || grow_to(&s->g_hi, &c[1], need, 4) < 0 ||
            grow_to(&s->gfree, &c[2], need, 4) < 0 || grow_to(&s->g_ts, &c[3], need, 4) < 0) {
            s->nomem = 1;
            return 0;
        }
        s->gcap = c[0];
    }
    return (int32_t)s->gmax++;
}

static inline void ready(Sim *s, int32_t i, int64_t h) {
    if (s->op[i].need == 0 && !(s->flag[i] & ISSUED)) {
        s->flag[i] |= ISSUED;
        s->fresh_h[s->nf] = (int32_t)(s->cross ? rank_of(s, i) : h);
        s->fresh[s->nf++] = i;
    }
}

/* operation i of rank h starts: what irequires it may be issued */
/* the operations that irequire (irequires) or require operation i: need one less, and may be issued */
static inline void release_dependents(Sim *s, int32_t i, int64_t h, int irequires) {
    int32_t d = s->op[i].dep - 1;
    if (d >= 0 && !irequires) {
        s->op[d].need--;
        ready(s, d, h);
    } else if (d <= -2) {
        const int32_t *e = s->extra + (-2 - (int64_t)d);
        for (int32_t k = 1; k <= e[0]; k++) {
            int32_t x = irequires ? -1 - e[k] : e[k];
            if (x >= 0) {
                s->op[x].need--;
                ready(s, x, h);
            }
        }
    }
}

/* operation i of rank h starts: what irequires it may be issued */
static inline void mark_started(Sim *s, int32_t i, int64_t h) {
    if (!(s->flag[i] & STARTED)) {
        s->flag[i] |= STARTED;
        release_dependents(s, i, h, 1);
    }
}

static inline void mark_done(Sim *s, int32_t i, int64_t h) {
    mark_started(s, i, h);
    if (!(s->flag[i] & DONE)) {
        s->flag[i] |= DONE;
        release_dependents(s, i, h, 0);
    }
}

static void rendezvous_done(Sim *s, int32_t snd, int64_t c, int64_t q, double t, int64_t h) {
    mark_done(s, snd, h);
    s->nexto[c] = dmax(s->nexto[c], t);
    s->nextgs[q] = dmax(s->nextgs[q], t);
}

/* the matching queue of one key, singly linked through op.next */
static inline void key_append(Sim *s, int32_t i, int64_t k) {
    int32_t *head = &s->kq[2 * k], *tail = head + 1;
    s->op[i].next = -1;
    if (*tail >= 0) {
        s->op[*tail].next = i;
    } else {
        *head = i;
    }
    *tail = i;
}

static inline void key_remove(Sim *s, int32_t i, int64_t k) {
    int32_t *head = &s->kq[2 * k], *tail = head + 1;
    int32_t prev = -1;
    if (*head != i) { /* found by a wildcard search: look for its predecessor */
        for (prev = *head; s->op[prev].next != i; prev = s->op[prev].next) {
        }
        s->op[prev].next = s->op[i].next;
    } else {
        *head = s->op[i].next;
    }
    if (*tail == i) *tail = prev;
}

/* the per-rank lists (only with wildcard receives) */
static inline void rank_unlink(Sim *s, int32_t i, int32_t *head, int32_t *tail, int64_t h) {
    int32_t a = s->h_prev[i], b = s->h_next[i];
    if (a >= 0) {
        s->h_next[a] = b;
    } else {
        head[h] = b;
    }
    if (b >= 0) {
        s->h_prev[b] = a;
    } else {
        tail[h] = a;
    }
}

static inline void rank_append(Sim *s, int32_t i, int32_t *head, int32_t *tail, int64_t h) {
    s->h_prev[i] = tail[h];
    s->h_next[i] = -1;
    if (tail[h] >= 0) {
        s->h_next[tail[h]] = i;
    } else {
        head[h] = i;
    }
    tail[h] = i;
}

/* push the new operations fresh[lo:hi] of rank h, sorted as LogGOPSim sorts them; a run of one
 * kind, CPU and NIC is one group, its members linked through op.next */
static void issue(Sim *s, int64_t lo, int64_t hi, int initial, int64_t h) {
    int32_t *fresh = s->fresh;
    sort_like_cxx(fresh, lo, hi, s->kind, s->sort_tmp);
    int64_t j = lo;
    while (j < hi) {
        int32_t i = fresh[j];
        int8_t kind = s->kind[i];
        int64_t cpu = CPU(s, i), nic = NIC(s, i);
        double t;
        if (initial) {
            t = 0.0;
        } else if (kind == SEND) {
            t = dmax(s->nexto[h * s->n_cpu + cpu], s->nextgs[h * s->n_nic + nic]);
        } else {
            t = s->nexto[h * s->n_cpu + cpu];
        }
        int32_t grp = new_group(s);
        s->g_lo[grp] = i;
        s->g_ts[grp] = s->ts;
        int32_t count = 0, last = -1;
        while (j < hi && s->kind[fresh[j]] == kind && CPU(s, fresh[j]) == cpu && NIC(s, fresh[j]) == nic) {
            if (last >= 0) s->op[last].next = fresh[j];
            last = fresh[j];
            count++;
            s->ts++;
            j++;
        }
        s->op[last].next = -1;
        s->g_hi[grp] = count;
        qpush(s, t, s->g_ts[grp], grp, i, (int32_t)h);
    }
}

/* ------------------------------------------------------------------------------------------ */
/* the events */

static int run_calc(Sim *s, int32_t i, int64_t h, double t, double *t_wait) {
    int64_t c = h * s->n_cpu + CPU(s, i);
    if (s->nexto[c] > t) {
        *t_wait = s->nexto[c];
        return 0;
    }
    s->nexto[c] = t + SIZE(s, i);
    s->start[i * s->kp] = t;
    s->end[i * s->kp] = t + SIZE(s, i);
    mark_done(s, i, h);
    return 1;
}

static int run_send(Sim *s, int32_t i, int64_t h, double t, double *t_wait) {
    int64_t c = h * s->n_cpu + CPU(s, i), q = h * s->n_nic + NIC(s, i);
    if (dmax(s->nexto[c], s->nextgs[q]) > t) {
        *t_wait = dmax(s->nexto[c], s->nextgs[q]);
        return 0;
    }
    mark_started(s, i, h);
    double k1 = dmax(SIZE(s, i) - 1.0, 0.0);
    s->nexto[c] = t + s->o + k1 * s->O;
    s->nextgs[q] = t + s->g + k1 * s->G;
    s->start[i * s->kp] = t;
    s->end[i * s->kp] = t + s->o + k1 * s->O;
    int32_t id = (int32_t)(s->n + 1 + i);
    if (s->fifo) { /* the message joins its receiver's queue; only the queue's head is in the heap */
        int64_t r = (int64_t)s->peer[i] * s->n_nic + NIC(s, i);
        if (s->w_free < 0 && s->w_used == s->w_cap && grow_to(&s->wq, &s->w_cap, s->w_used + 1, sizeof(Waiting)) < 0) {
            s->nomem = 1;
            return 1;
        }
        int32_t k = s->w_free >= 0 ? s->w_free : (int32_t)s->w_used++;
        s->w_free = k == s->w_free ? s->wq[k].next : s->w_free;
        s->wq[k] = (Waiting){t + s->o + s->L, i, s->ts, -1};
        if (s->w_tail[r] >= 0) {
            s->wq[s->w_tail[r]].next = k;
        } else {
            s->w_head[r] = k;
            qpush(s, t + s->o + s->L, s->ts, id, i, key_of(s, i));
        }
        s->w_tail[r] = k;
    } else {
        qpush(s, t + s->o + s->L, s->ts, id, i, key_of(s, i));
    }
    s->ts++;
    if (SIZE(s, i) <= s->S) mark_done(s, i, h);
    return 1;
}

/* a receive of rank h is posted; returns the rank of a rendezvous sender it completed, else -1 */
static int64_t run_recv(Sim *s, int32_t i, int64_t h, double t) {
    int64_t tag = TAG(s, i), peer = s->peer[i];
    int32_t key = key_of(s, i);
    mark_started(s, i, h);
    int32_t found = -1;
    if (key >= 0) {
        found = UK_HEAD(s, key);
    } else {
        for (int32_t e = s->uq_head[h]; e >= 0; e = s->h_next[e]) {
            if ((peer == -1 || rank_of(s, e) == peer) && (tag == -1 || TAG(s, e) == tag)) {
                found = e;
                break;
            }
        }
    }
    if (found < 0) {
        if (s->wild) rank_append(s, i, s->rq_head, s->rq_tail, h);
        if (key >= 0) {
            key_append(s, i, key);
        } else {
            s->rq_wild[h]++;
        }
        return -1;
    }
    if (s->wild) rank_unlink(s, found, s->uq_head, s->uq_tail, h);
    key_remove(s, found, key_of(s, found));
    int64_t h2 = -1;
    if (SIZE(s, i) > s->S) { /* rendezvous: the sender's request completes now */
        int64_t src = rank_of(s, found);
        rendezvous_done(s, found, src * s->n_cpu + CPU(s, i), src * s->n_nic + NIC(s, i), t, src);
        h2 = src;
    }
    s->start[i * s->kp] = s->u_t0[found * s->kp];
    s->end[i * s->kp] = s->u_t1[found * s->kp];
    mark_done(s, i, h);
    return h2;
}

/* the message of send m arrives at its receiver; returns 0 if the CPU or NIC is busy (until
 * *t_wait), else 1, with the rank of a rendezvous sender it completed in *h2 */
static int run_message(Sim *s, int32_t m, double t, double *t_wait, int64_t *h2) {
    int32_t key = key_of(s, m);
    int64_t h = s->peer[m], nic = NIC(s, m);
    int64_t c = h * s->n_cpu + CPU(s, m), q = h * s->n_nic + nic;
    if (dmax(s->nexto[c], s->nextgr[q]) > t) {
        *t_wait = dmax(s->nexto[c], s->nextgr[q]);
        return 0;
    }
    double size = SIZE(s, m), k1 = dmax(size - 1.0, 0.0);
    s->nexto[c] = t + s->o + dmax(k1 * s->O, k1 * s->G);
    s->nextgr[q] = t + s->g + k1 * s->G;
    const Waiting *w = NULL;
    if (s->fifo) { /* the next message waiting for this CPU and NIC */
        int64_t r = h * s->n_nic + nic;
        int32_t k = s->w_head[r];
        s->w_head[r] = s->wq[k].next;
        s->wq[k].next = s->w_free;
        s->w_free = k;
        if (s->w_head[r] >= 0) {
            w = &s->wq[s->w_head[r]];
        } else {
            s->w_tail[r] = -1;
        }
    }
    int32_t found = -1;
    int64_t src = -1;
    if (s->rq_wild == NULL || s->rq_wild[h] == 0) {
        found = RK_HEAD(s, key);
    } else {
        int64_t tag = TAG(s, m);
        src = rank_of(s, m);
        for (int32_t e = s->rq_head[h]; e >= 0; e = s->h_next[e]) {
            int64_t te = TAG(s, e);
            if ((s->peer[e] == -1 || s->peer[e] == src) && (te == -1 || te == tag)) {
                found = e;
                break;
            }
        }
    }
    if (found >= 0) {
        if (s->wild) rank_unlink(s, found, s->rq_head, s->rq_tail, h);
        int32_t fk = key_of(s, found);
        if (fk >= 0) {
            key_remove(s, found, fk);
        } else {
            s->rq_wild[h]--;
        }
        if (size > s->S) {
            src = src < 0 ? rank_of(s, m) : src;
            rendezvous_done(s, m, src * s->n_cpu + CPU(s, m), src * s->n_nic + nic, t, src);
            *h2 = src;
        }
        s->start[found * s->kp] = t;
        s->end[found * s->kp] = s->nexto[c];
        mark_done(s, found, h);
    } else {
        if (s->wild) rank_append(s, m, s->uq_head, s->uq_tail, h);
        key_append(s, m, key);
        s->u_t0[m * s->kp] = t;
        s->u_t1[m * s->kp] = s->nexto[c];
    }
    if (w) { /* from when the CPU and NIC are free */
        qpush(s, dmax(w->arrive, dmax(s->nexto[c], s->nextgr[q])), w->ts, (int32_t)(s->n + 1 + w->m), w->m,
              key_of(s, w->m));
    }
    return 1;
}

/* after the group grp's first member ran (ok) or waits until t_wait: the next member's turn (nxt,
 * the first's link read before it ran), the whole group moved, or the first member split off;
 * returns whether the next member runs at once (no other event comes first) */
static int after_group(Sim *s, int32_t grp, int ok, double t, double t_wait, int32_t its, int32_t nxt, int64_t h) {
    int32_t first = s->g_lo[grp];
    if (ok) {
        s->g_lo[grp] = nxt;
        s->g_hi[grp]--;
        s->g_ts[grp]++;
        if (s->g_hi[grp] > 0) {
            int32_t tsn = s->g_ts[grp];
            if (queue_after(s, t, tsn)) return 1;
            qpush(s, t, tsn, grp, nxt, (int32_t)h);
        } else {
            s->gfree[s->nfree++] = grp;
        }
    } else if (s->g_hi[grp] == 1 || queue_after(s, t, s->g_ts[grp] + (s->g_hi[grp] - 1))) {
        /* the other members would be popped next, one after the other, and wait for the same CPU
         * or NIC until the same time: they move together */
        qpush(s, t_wait, its, grp, first, (int32_t)h);
    } else { /* another event comes between the members: the first one waits alone */
        int32_t g1 = new_group(s);
        s->g_lo[g1] = first;
        s->g_hi[g1] = 1;
        s->g_ts[g1] = its;
        qpush(s, t_wait, its, g1, first, (int32_t)h);
        s->g_lo[grp] = nxt;
        s->g_hi[grp]--;
        s->g_ts[grp]++;
        qpush(s, t, s->g_ts[grp], grp, nxt, (int32_t)h);
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
    if (h1 == h2) h2 = -1;
    int64_t nf = s->nf, hs[2] = {h1, h2};
    for (int k = 0; k < 2; k++) {
        if (hs[k] < 0) continue;
        int64_t m = nf;
        for (int64_t j = 0; j < nf; j++) { /* gather this rank's new operations after the used part */
            if (s->fresh_h[j] == hs[k]) s->fresh[m++] = s->fresh[j];
        }
        issue(s, nf, m, 0, hs[k]);
    }
}

#ifndef RUN_AHEAD
#define RUN_AHEAD 16
#endif

/* read ahead what the event e will read (its operation's columns, a message's matching queues) */
static inline void prefetch_event(const Sim *s, const Ev *e, int queues) {
    int32_t o = e->op;
    __builtin_prefetch(&s->op[o]);
    __builtin_prefetch(SIZE_AT(s, o));
    __builtin_prefetch(&s->flag[o]);
    __builtin_prefetch(&s->peer[o]);
    __builtin_prefetch(&s->kind[o]);
    __builtin_prefetch(s->tag + (s->tag_wide ? 8 : 4) * (int64_t)o);
    if (queues && e->id > s->n) __builtin_prefetch(&s->kq[2 * (int64_t)e->aux]);
}

static void run_loop(Sim *s, int64_t *pops, int64_t *waits) {
    int carry = 0;
    double t = 0.0;
    int32_t its = 0, grp = 0;
    int64_t h = 0; /* the rank of the group running */
    const int64_t n = s->n;
    while ((s->hn > 0 || s->rh < s->rn || s->fh < s->ft || s->ring_n > 0 || s->fn > 0 || carry) && !s->nomem) {
        int32_t i;
        if (carry) {
            carry = 0;
            its = s->g_ts[grp];
            i = s->g_lo[grp];
        } else {
            (*pops)++;
            Ev e = qpop(s);
            if (s->nomem) break;
            t = e.key;
            its = e.ts;
            grp = e.id;
            i = e.op;
            if (grp <= n) h = e.aux;
            /* read the operations of the next events ahead: of the slot's array, some further on */
            for (int64_t k = 0; k < 2 && k < s->hn; k++) prefetch_event(s, &s->heap[k], 0);
            if (s->fh + RUN_AHEAD < s->ft) {
                prefetch_event(s, &s->fq[s->fh + RUN_AHEAD], 1);
            } else {
                for (int64_t k = s->fh; k < s->fh + 2 && k < s->ft; k++) prefetch_event(s, &s->fq[k], 1);
            }
            if (s->rh + RUN_AHEAD < s->rn) {
                prefetch_event(s, &s->run[s->rh + RUN_AHEAD], 1);
            } else {
                for (int64_t k = s->rh; k < s->rh + 2 && k < s->rn; k++) prefetch_event(s, &s->run[k], 1);
            }
            if (s->rh + 1 < s->rn && s->run[s->rh + 1].id > n) { /* the receive a message soon matches */
                int32_t r = RK_HEAD(s, s->run[s->rh + 1].aux);
                if (r >= 0) {
                    __builtin_prefetch(&s->op[r]);
                    __builtin_prefetch(&s->flag[r]);
                }
            }
        }
        int ok = 1;
        double t_wait = 0.0;
        int64_t h1 = -1, h2 = -1;
        s->nf = 0;
        if (grp > n) { /* a message */
            int32_t m = i;
            if (run_message(s, m, t, &t_wait, &h2)) {
                h1 = s->peer[m];
            } else {
                (*waits)++;
                qpush(s, t_wait, its, grp, m, key_of(s, m));
            }
        } else {
            int32_t nxt = s->op[i].next;
            int8_t kind = s->kind[i];
            if (kind == CALC) {
                ok = run_calc(s, i, h, t, &t_wait);
            } else if (kind == SEND) {
                ok = run_send(s, i, h, t, &t_wait);
            } else {
                h2 = run_recv(s, i, h, t);
            }
            if (ok) h1 = h;
            carry = after_group(s, grp, ok, t, t_wait, its, nxt, h);
        }
        if (s->nf > 0) issue_fresh(s, h1, h2);
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

static inline uint64_t key_hash(int64_t d, int64_t src, int64_t tg) {
    return mix(mix((uint64_t)d * 0x9e3779b97f4a7c15ULL + (uint64_t)src) ^ (uint64_t)tg);
}

/* the (destination, source, tag) of a send or an exact receive of rank h, else 0 */
static inline int triple(const Sim *s, int64_t h, int64_t i, int64_t *d, int64_t *src, int64_t *tg) {
    int64_t tag = TAG(s, i);
    if (s->kind[i] == SEND) {
        *d = s->peer[i];
        *src = h;
    } else if (s->kind[i] == RECV && s->peer[i] != -1 && tag != -1) {
        *d = h;
        *src = s->peer[i];
    } else {
        return 0;
    }
    *tg = tag;
    return 1;
}

/* a compact key per send and exact receive (key_of): equal exactly when they match (the sends'
 * keys first, then the receives' found among them, or the one key of no message); -1 for the rest.
 * Returns the number of keys, or -1 without memory. */
static int64_t match_keys(Sim *s) {
    int64_t sends = 0, cap = 16, n_keys = 0, dead = -1;
    for (int64_t i = 0; i < s->n; i++) sends += s->kind[i] == SEND;
    while (cap < 2 * sends) cap <<= 1;
    int32_t *slot = malloc((size_t)cap * sizeof(int32_t)); /* the sends of the keys, by hash */
    s->keys = big_alloc((size_t)(s->n > 0 ? s->n : 1) * sizeof(int32_t));
    if (!slot || !s->keys) {
        free(slot);
        return -1;
    }
    memset(slot, 0xff, (size_t)cap * sizeof(int32_t));
    for (int pass = 0; pass < 2; pass++) {
        for (int64_t i = 0, h = 0, ahead = 0; i < s->n; i++) {
            int64_t d, src, tg, r = rank_at(s, i, &h);
            if (i + 16 < s->n && triple(s, rank_at(s, i + 16, &ahead), i + 16, &d, &src, &tg)) { /* read ahead */
                __builtin_prefetch(&slot[(int64_t)(key_hash(d, src, tg) & (uint64_t)(cap - 1))]);
            }
            if ((s->kind[i] == SEND) == pass) continue; /* the sends in the first pass, the rest in the second */
            if (!triple(s, r, i, &d, &src, &tg)) {
                s->keys[i] = -1;
                continue;
            }
            int64_t at = (int64_t)(key_hash(d, src, tg) & (uint64_t)(cap - 1));
            for (int32_t k; (k = slot[at]) >= 0; at = (at + 1) & (cap - 1)) {
                if (s->peer[k] == d && TAG(s, k) == tg && rank_of(s, k) == src) break;
            }
            if (slot[at] >= 0) {
                s->keys[i] = s->keys[slot[at]];
            } else if (pass == 0) {
                slot[at] = (int32_t)i;
                s->keys[i] = (int32_t)n_keys++;
            } else {
                dead = dead < 0 ? n_keys++ : dead;
                s->keys[i] = (int32_t)dead;
            }
        }
    }
    free(slot);
    return n_keys;
}


/* the whole pages of a buffer of `bytes` at p given back to the system (not read again: they read as zeros) */
static void give_back(const void *p, int64_t bytes) {
    uintptr_t a = ((uintptr_t)p + 4095) & ~(uintptr_t)4095, e = ((uintptr_t)p + (uintptr_t)bytes) & ~(uintptr_t)4095;
    if (e > a) madvise((void *)a, e - a, MADV_DONTNEED);
}

/* requirements() with both lists of pairs in ascending order of the operation required, in one pass
 * over them: each operation's count of what it waits for, and its dependents (the one that requires
 * it in op.dep, else a list in extra); with scratch the pairs' pages are given back behind it. With
 * a layout the operations that wait for nothing are listed in init (in the caller's order) */
static int requirements_sorted(Sim *s, const int32_t *a, const int32_t *b, int64_t m, const int32_t *ia,
                               const int32_t *ib, int64_t mi) {
    const int64_t n = s->n;
    int64_t ha = 0, hb = 0, at = 0, j = 0, q = 0, given = 0, igiven = 0;
    if (2 * (m + mi) >= INT32_MAX - 2 || !(s->extra = big_alloc((size_t)(2 * (m + mi) + 1) * sizeof(int32_t)))) {
        return -1; /* (room for a list of every pair, written only where an operation has one) */
    }
    while (j < m || q < mi) {
        int32_t r = j < m && (q >= mi || b[j] <= ib[q]) ? b[j] : ib[q];
        int64_t e = j, f = q;
        while (e < m && b[e] == r) e++;
        while (f < mi && ib[f] == r) f++;
        int32_t *dep = &s->op[at_of(s, r, &hb)].dep;
        *dep = e - j == 1 && f == q ? at_of(s, a[j], &ha) + 1 : (int32_t)(-1 - at);
        if (*dep < 0) s->extra[at++] = (int32_t)(e - j + f - q);
        for (int64_t i = j; i < e; i++) {
            int32_t x = at_of(s, a[i], &ha);
            s->op[x].need++;
            if (*dep < 0) s->extra[at++] = x;
        }
        for (int64_t i = q; i < f; i++) {
            int32_t x = at_of(s, ia[i], &ha);
            s->op[x].need++;
            if (*dep < 0) s->extra[at++] = -1 - x;
        }
        j = e;
        q = f;
        if (s->scratch && j + q - given - igiven >= (1 << 16)) { /* whole pages where the columns begin on one */
            const int32_t *cols[] = {a + given, b + given, ia + igiven, ib + igiven};
            for (int k = 0; k < 4; k++) give_back(cols[k], (k < 2 ? j - given : q - igiven) * 4);
            given = j & ~(int64_t)1023;
            igiven = q & ~(int64_t)1023;
        }
    }
    if (!s->lay) return 0;
    s->n_init = 0;
    for (int64_t k = 0; k < n; k++) s->n_init += s->op[k].need == 0;
    s->init = malloc((size_t)(s->n_init > 0 ? s->n_init : 1) * sizeof(int32_t));
    if (!s->init) return -1;
    for (int64_t i = 0, k = 0; i < n; i++) {
        if (s->op[at_of(s, (int32_t)i, &ha)].need == 0) s->init[k++] = (int32_t)i;
    }
    return 0;
}

/* the pairs (*a, *b) where *b is not in ascending order: a copy sorted by it, stably (by counts), in
 * *own (freed by the caller); 0, or -1 without memory */
static int by_required(int64_t n, const int32_t **a, const int32_t **b, int64_t m, int32_t **own) {
    int64_t j = 1;
    while (j < m && (*b)[j] >= (*b)[j - 1]) j++;
    if (j >= m) return 0;
    int32_t *at = calloc((size_t)n + 1, sizeof(int32_t)), *sa = *own = malloc((size_t)m * 2 * sizeof(int32_t));
    if (!at || !sa) {
        free(at);
        return -1;
    }
    int32_t *sb = sa + m;
    for (j = 0; j < m; j++) at[(*b)[j] + 1]++;
    for (int64_t i = 0; i < n; i++) at[i + 1] += at[i];
    for (j = 0; j < m; j++) {
        sa[at[(*b)[j]]] = (*a)[j];
        sb[at[(*b)[j]]++] = (*b)[j];
    }
    free(at);
    *a = sa;
    *b = sb;
    return 0;
}

/* what requires and irequires each operation (a[j] requires b[j], ia[j] irequires ib[j]), each in
 * the order of j (requirements_sorted); 0, or -1 without memory */
static int requirements(Sim *s, const int32_t *a, const int32_t *b, int64_t m, const int32_t *ia, const int32_t *ib,
                        int64_t mi) {
    int32_t *own[2] = {NULL, NULL};
    int rc = by_required(s->n, &a, &b, m, &own[0]) < 0 || by_required(s->n, &ia, &ib, mi, &own[1]) < 0
                 ? -1
                 : requirements_sorted(s, a, b, m, ia, ib, mi);
    free(own[0]);
    free(own[1]);
    return rc;
}

#define NEW(ptr, count, type)                                                        \
    do {                                                                             \
        (ptr) = (type *)big_alloc((size_t)((count) > 0 ? (count) : 1) * sizeof(type)); \
        if (!(ptr)) return -1;                                                       \
    } while (0)
#define NEW_FILL(ptr, count, type, byte)                                             \
    do {                                                                             \
        NEW(ptr, count, type);                                                       \
        memset((ptr), (byte), (size_t)((count) > 0 ? (count) : 1) * sizeof(type));  \
    } while (0)

static void free_sim(Sim *s) {
    void *all[] = {s->own_flag, s->init, s->op, s->keys == s->tag_w ? NULL : s->keys, s->extra, s->nexto, s->nextgs,
                   s->nextgr, s->fresh, s->fresh_h, s->sort_tmp, s->heap, s->g_lo, s->g_hi, s->g_ts, s->gfree, s->kq,
                   s->uq_head, s->uq_tail, s->rq_head, s->rq_tail, s->rq_wild, s->h_next, s->h_prev, s->u_t0, s->u_t1,
                   s->w_head, s->w_tail, s->wq, s->ring, s->ring_bits, s->node, s->far, s->run, s->run_tmp, s->fq};
    for (size_t k = 0; k < sizeof(all) / sizeof(all[0]); k++) free(all[k]);
}

/* the most operations of one rank, and whether any receive takes any source or tag (s->wild) */
static int64_t setup_ranks(Sim *s) {
    int64_t most = 0;
    s->wild = 0;
    for (int64_t h = 0; h < s->P; h++) {
        most = s->op_first[h + 1] - s->op_first[h] > most ? s->op_first[h + 1] - s->op_first[h] : most;
    }
    for (int64_t i = 0; i < s->n; i++) s->wild |= s->kind[i] == RECV && (s->peer[i] == -1 || TAG(s, i) == -1);
    return most;
}

/* whether a dependency joins operations of two ranks (the ranks found on the way) */
static int crosses(const Sim *s, const int32_t *a, const int32_t *b, int64_t m) {
    int64_t ha = 0, hb = 0;
    for (int64_t j = 0; j < m; j++) {
        if (s->lay) {
            at_of(s, a[j], &ha);
            at_of(s, b[j], &hb);
        } else {
            rank_at(s, a[j], &ha);
            rank_at(s, b[j], &hb);
        }
        if (ha != hb) return 1;
    }
    return 0;
}

/* everything but the inputs; 0, or -1 without memory */
static int setup(Sim *s, const int32_t *req_a, const int32_t *req_b, int64_t n_req, const int32_t *ireq_a,
                 const int32_t *ireq_b, int64_t n_ireq, int timelines) {
    const int64_t n = s->n, P = s->P;
    int64_t most = setup_ranks(s), n_keys = match_keys(s);
    if (n_keys < 0) return -1;
    s->cross = crosses(s, req_a, req_b, n_req) || crosses(s, ireq_a, ireq_b, n_ireq);
    if (s->tag_w && !s->wild) { /* the tags are not read again: the keys take their place */
        memcpy(s->tag_w, s->keys, (size_t)n * sizeof(int32_t));
        free(s->keys);
        s->keys = s->tag_w;
    }
    /* zero pages, taken as the operations are first written (while the dependency lists are given back) */
    if (!(s->op = calloc((size_t)n + 1, sizeof(Op)))) return -1;
    huge_pages(s->op, (int64_t)(n + 1) * (int64_t)sizeof(Op));
    if (requirements(s, req_a, req_b, n_req, ireq_a, ireq_b, n_ireq) < 0) return -1;
    const int32_t *cols[] = {req_a, req_b, ireq_a, ireq_b};
    for (int k = 0; k < 4 && s->scratch; k++) give_back(cols[k], (k < 2 ? n_req : n_ireq) * 4); /* in op and extra */
    NEW_FILL(s->nexto, P * s->n_cpu, double, 0);
    NEW_FILL(s->nextgs, P * s->n_nic, double, 0);
    NEW_FILL(s->nextgr, P * s->n_nic, double, 0);
    NEW(s->fresh, 4 * most + 2, int32_t);
    NEW(s->fresh_h, 4 * most + 2, int32_t);
    NEW(s->sort_tmp, 2 * most + 2, int32_t);
    s->hcap = s->rcap = s->fqcap = s->fcap = s->gcap = 1024;
    NEW(s->heap, 1024, Ev);
    NEW(s->run, 1024, Ev);
    NEW(s->fq, 1024, Ev);
    NEW(s->run_tmp, 1024, Ev);
    NEW(s->far, 1024, Ev);
    NEW_FILL(s->ring, RING, int32_t, 0xff);
    NEW_FILL(s->ring_bits, RING / 64, uint64_t, 0);
    s->node_free = -1;
    /* slots of about SLOT_EVENTS events where each rank has one every max(L, o, g): a heap of a
     * few dozen costs more instructions than one of a few events, but the events at its top are
     * read ahead earlier (about 10 % faster at 10^6 messages than with 4). The ring of slots
     * covers at least twice the time a rank is busy with a message of the mean size k,
     * max(L, o, g) + (k - 1) max(G, O): where many ranks make the slots short and large messages
     * under a large G keep a rank busy for milliseconds, a ring of a few microseconds sent nearly
     * every event through the far heap (2^20 ranks, 2 x 10^6 messages: 9.5 instead of 11.5 s). */
    double bytes = 0.0;
    int64_t sends = 0;
    for (int64_t i = 0; i < n; i++) {
        if (s->kind[i] == SEND) {
            bytes += dmax(SIZE(s, i) - 1.0, 0.0);
            sends++;
        }
    }
    double scale = dmax(s->L, dmax(s->o, s->g)), per_byte = dmax(s->G, s->O);
    scale = scale > 0 && isfinite(scale) ? scale : 1.0;
    double width = SLOT_EVENTS * scale / (double)P, busy = scale;
    if (sends > 0 && per_byte > 0 && isfinite(per_byte * bytes)) busy += per_byte * bytes / (double)sends;
    width = dmax(width, 2.0 * busy / RING);
    s->inv_w = 1.0 / width;
    s->cur = slot_of(s, 0.0) - 1;
    NEW(s->g_lo, s->gcap, int32_t);
    NEW(s->g_hi, s->gcap, int32_t);
    NEW(s->gfree, s->gcap, int32_t);
    NEW(s->g_ts, s->gcap, int32_t);
    NEW_FILL(s->kq, 2 * n_keys, int32_t, 0xff);
    NEW_FILL(s->rq_wild, P, int32_t, 0);
    if (s->wild) {
        NEW_FILL(s->uq_head, P, int32_t, 0xff);
        NEW_FILL(s->uq_tail, P, int32_t, 0xff);
        NEW_FILL(s->rq_head, P, int32_t, 0xff);
        NEW_FILL(s->rq_tail, P, int32_t, 0xff);
        NEW_FILL(s->h_next, n, int32_t, 0xff);
        NEW_FILL(s->h_prev, n, int32_t, 0xff);
    }
    s->kp = timelines ? 1 : 0;
    NEW_FILL(s->u_t0, timelines ? n : 1, double, 0);
    NEW_FILL(s->u_t1, timelines ? n : 1, double, 0);
    s->fifo = s->n_cpu == 1;
    int64_t n_res = s->fifo ? P * s->n_nic : 1;
    NEW_FILL(s->w_head, n_res, int32_t, 0xff);
    NEW_FILL(s->w_tail, n_res, int32_t, 0xff);
    s->w_free = -1;
    return 0;
}

/* ------------------------------------------------------------------------------------------ */
/* the module */

static const char simulate_doc[] =
    "simulate(P, op_ptr, kind, size, peer, tag, cpu, nic, req_a, req_b, ireq_a, ireq_b, n_cpu, n_nic, L, o, g, "
    "G, O, S, start, end, done, finish, layout=-1, scratch=0) -> (pops, message waits)\n\n"
    "Run a GOAL schedule with LogGOPSim's rules. op_ptr int64 (P + 1); kind int8; size float64 or float32; "
    "peer int32; "
    "tag int32 or int64; cpu and nic int32 (empty where n_cpu or n_nic is 1); the dependencies int32 (a "
    "requires / irequires b). start and end (float64, n items, or 1 to keep no times), done (bool, n) and "
    "finish (float64, P) are written. layout: 1 to order the operations by their place in their rank while "
    "the loop runs (the columns must be writable; they are put back afterwards unless scratch is 1), 0 not to, "
    "-1 to do so for large schedules of writable columns whose ranks start with few operations ready; the "
    "results are the same. scratch 1: the caller reads none of the inputs again; a writable int32 tag column "
    "may be overwritten, the pages of the dependency lists are given back once read (they read as zeros), and "
    "the process's large blocks are mapped on their own from then on (glibc's M_MMAP_THRESHOLD fixed).";


enum { B_PTR, B_KIND, B_SIZE, B_PEER, B_TAG, B_CPU, B_NIC, B_RA, B_RB, B_IA, B_IB, B_START, B_END, B_DONE, B_FIN };

static int get_inputs(PyObject **ob, Buf *b, int64_t P, int64_t *n) {
    static const char kinds[] = "qbDiQiiiiiiddbd"; /* size float64 or float32, tag int32 or int64 */
    static const char *names[] = {"op_ptr", "kind",  "size",   "peer",   "tag",   "cpu",  "nic",   "req_a",
                                  "req_b",  "ireq_a", "ireq_b", "start", "end",  "done", "finish"};
    Py_ssize_t sizes[15] = {P + 1};
    if (get_bufs(ob, b, 0, 1, kinds, sizes, 11, names) < 0) return -1;
    *n = I64(b[B_PTR])[P];
    Py_ssize_t one = *n > 0; /* start and end: n items, or one to keep no times */
    for (int k = B_KIND; k <= B_TAG; k++) sizes[k] = *n;
    sizes[B_START] = one;
    sizes[B_END] = one;
    sizes[B_DONE] = *n;
    sizes[B_FIN] = P;
    if (get_bufs(ob, b, 1, B_START, kinds, sizes, B_START, names) < 0) return -1;
    if (b[B_RA].view.len != b[B_RB].view.len || b[B_IA].view.len != b[B_IB].view.len) {
        PyErr_SetString(PyExc_ValueError, "the two sides of a dependency list differ in length");
        return -1;
    }
    return get_bufs(ob, b, B_START, 15, kinds, sizes, B_START, names);
}

/* schedules of at least so many operations and ranks are ordered by place (layout -1): below, the
 * columns stay in the caches anyway, and a few dozen ranks read a few dozen streams, which the caches
 * follow (the traced run of 16 ranks, 10^6 operations: the same time, 5 MB less) */
#ifndef LAYOUT_MIN_OPS
#define LAYOUT_MIN_OPS (1 << 20)
#endif
#ifndef LAYOUT_MIN_RANKS
#define LAYOUT_MIN_RANKS 64
#endif
/* ... where the ranks start with at most so many operations ready on average: ranks that wait
 * for one or two operations at a time advance place by place, together (the allreduce rounds: 2);
 * a rank with hundreds ready runs them one after the other, its own entries side by side as given
 * (one random step: 30 % more CPU time by place, a fan-out 60 %) */
#ifndef LAYOUT_READY
#define LAYOUT_READY 4
#endif

/* how many of n operations wait for nothing (a[j] requires or irequires b[j]); -1 without memory */
static int64_t count_ready(int64_t n, const int32_t *a, int64_t m, const int32_t *ia, int64_t mi) {
    uint8_t *waits = calloc((size_t)(n > 0 ? n : 1), 1);
    if (!waits) return -1;
    for (int64_t j = 0; j < m; j++) waits[a[j]] = 1;
    for (int64_t j = 0; j < mi; j++) waits[ia[j]] = 1;
    int64_t ready = 0;
    for (int64_t i = 0; i < n; i++) ready += !waits[i];
    free(waits);
    return ready;
}

/* writable views of the columns (kind .. nic) into wb, or 0 where one is read-only */
static int writable_columns(PyObject **ob, Buf *wb, const size_t *w) {
    for (int k = 0; k < 6; k++) {
        if (w[k] && PyObject_GetBuffer(ob[B_KIND + k], &wb[k].view, PyBUF_C_CONTIGUOUS | PyBUF_WRITABLE) < 0) {
            PyErr_Clear();
            release(wb, 6);
            return 0;
        }
        wb[k].held = w[k] != 0;
    }
    return 1;
}

/* the first `count` columns into the layout's order (back: into the caller's); how many moved */
static int move_columns(const Layout *lay, Buf *b, const size_t *w, int count, int back) {
    for (int k = 0; k < count; k++) {
        if (w[k] && layout_permute(lay, b[B_KIND + k].view.buf, w[k], back) < 0) return k;
    }
    return count;
}

/* run the loop and write done and finish; 0, or -1 without memory */
static int run_all(Sim *s, Buf *b, int64_t *pops, int64_t *waits) {
    const int64_t n = s->n, P = s->P;
    int timelines = b[B_START].view.len / 8 >= n && b[B_END].view.len / 8 >= n && n > 0;
    if (s->lay) { /* the flags in the columns' order, the done array in the caller's */
        s->own_flag = big_alloc((size_t)(n > 0 ? n : 1));
        if (!s->own_flag) return -1;
        s->flag = s->own_flag;
    } else {
        s->flag = (uint8_t *)b[B_DONE].view.buf;
    }
    memset(s->flag, 0, (size_t)n);
    if (setup(s, (const int32_t *)b[B_RA].view.buf, (const int32_t *)b[B_RB].view.buf, b[B_RA].view.len / 4,
              (const int32_t *)b[B_IA].view.buf, (const int32_t *)b[B_IB].view.buf, b[B_IA].view.len / 4,
              timelines) < 0) {
        return -1;
    }
    if (s->init) { /* the operations that wait for nothing, rank by rank, at time 0 */
        int64_t h = 0, at = -1;
        s->nf = 0;
        for (int64_t q = 0; q < s->n_init; q++) {
            int64_t k = layout_of(s->lay, s->init[q], &h);
            if (h != at && at >= 0) {
                issue(s, 0, s->nf, 1, at);
                s->nf = 0;
            }
            at = h;
            ready(s, (int32_t)k, h);
        }
        if (at >= 0) issue(s, 0, s->nf, 1, at);
    }
    for (int64_t h = 0; h < P && !s->init; h++) { /* every rank's first operations, at time 0 */
        s->nf = 0;
        for (int64_t i = s->op_first[h]; i < s->op_first[h + 1]; i++) {
            ready(s, (int32_t)(s->lay ? layout_index(s->lay, h, i - s->op_first[h]) : i), h);
        }
        issue(s, 0, s->nf, 1, h);
    }
    run_loop(s, pops, waits);
    if (s->nomem) return -1;
    char *dn = (char *)b[B_DONE].view.buf;
    double *fin = (double *)b[B_FIN].view.buf;
    if (s->lay) {
        LAYOUT_EACH(s->lay, h, f, k, dn[f] = (s->flag[k] & DONE) != 0;)
        if (timelines && (layout_permute(s->lay, s->start, 8, 1) < 0 || layout_permute(s->lay, s->end, 8, 1) < 0)) {
            return -1;
        }
    } else {
        for (int64_t i = 0; i < n; i++) dn[i] = (s->flag[i] & DONE) != 0;
    }
    for (int64_t h = 0; h < P; h++) {
        double f = 0.0;
        for (int64_t c = 0; c < s->n_cpu; c++) f = dmax(f, s->nexto[h * s->n_cpu + c]);
        fin[h] = f;
    }
    return 0;
}

static PyObject *simulate(PyObject *self, PyObject *args) {
    Py_ssize_t P, n_cpu, n_nic;
    PyObject *ob[15];
    int want_layout = -1, scratch = 0;
    Sim s;
    memset(&s, 0, sizeof(s));
    if (!PyArg_ParseTuple(args, "nOOOOOOOOOOOnnddddddOOOO|ii:simulate", &P, &ob[0], &ob[1], &ob[2], &ob[3],
                          &ob[4], &ob[5], &ob[6], &ob[7], &ob[8], &ob[9], &ob[10], &n_cpu, &n_nic, &s.L, &s.o, &s.g,
                          &s.G, &s.O, &s.S, &ob[11], &ob[12], &ob[13], &ob[14], &want_layout, &scratch)) {
        return NULL;
    }
    Buf b[15], wb[6], tw;
    memset(b, 0, sizeof(b));
    memset(wb, 0, sizeof(wb));
    memset(&tw, 0, sizeof(tw));
    Layout lay;
    memset(&lay, 0, sizeof(lay));
    PyObject *result = NULL;
    int64_t n = 0, pops = 0, waits = 0;
    if (get_inputs(ob, b, P, &n) < 0) goto done;
    if ((n_cpu > 1 && b[B_CPU].view.len / 4 < n) || (n_nic > 1 && b[B_NIC].view.len / 4 < n)) {
        PyErr_SetString(PyExc_ValueError, "cpu and nic need an entry per operation where there are several");
        goto done;
    }
    s.P = P;
    s.n = n;
    s.op_first = (const int64_t *)b[B_PTR].view.buf;
    s.kind = (const int8_t *)b[B_KIND].view.buf;
    s.size64 = b[B_SIZE].view.itemsize == 8 ? (const double *)b[B_SIZE].view.buf : NULL;
    s.size32 = b[B_SIZE].view.itemsize == 4 ? (const float *)b[B_SIZE].view.buf : NULL;
    s.peer = (const int32_t *)b[B_PEER].view.buf;
    s.tag = (const char *)b[B_TAG].view.buf;
    s.tag_wide = b[B_TAG].view.itemsize == 8;
    s.cpu = n_cpu > 1 ? (const int32_t *)b[B_CPU].view.buf : NULL;
    s.nic = n_nic > 1 ? (const int32_t *)b[B_NIC].view.buf : NULL;
    s.n_cpu = n_cpu;
    s.n_nic = n_nic;
    s.start = (double *)b[B_START].view.buf;
    s.end = (double *)b[B_END].view.buf;
    s.scratch = scratch;
#ifdef M_MMAP_THRESHOLD
    /* the process is the caller's: large blocks from their own pages (glibc's default), given back when
     * freed, rather than from a heap that keeps them once a large block was freed */
    if (scratch) mallopt(M_MMAP_THRESHOLD, 128 << 10);
#endif
    if (scratch && !s.tag_wide && n > 0 &&
        PyObject_GetBuffer(ob[B_TAG], &tw.view, PyBUF_C_CONTIGUOUS | PyBUF_WRITABLE) == 0) {
        tw.held = 1;
        s.tag_w = (int32_t *)tw.view.buf;
    }
    PyErr_Clear(); /* (a read-only tag column is only read) */
    /* the columns the layout moves (kind, size, peer, tag, cpu, nic), and the bytes of their items (0: not used) */
    size_t w[6] = {1, (size_t)b[B_SIZE].view.itemsize, 4, (size_t)b[B_TAG].view.itemsize, n_cpu > 1 ? 4 : 0,
                   n_nic > 1 ? 4 : 0};
    int use = want_layout == 1;
    if (want_layout == -1 && n >= LAYOUT_MIN_OPS && P >= LAYOUT_MIN_RANKS) {
        int64_t ready;
        Py_BEGIN_ALLOW_THREADS
        ready = count_ready(n, I32(b[B_RA]), b[B_RA].view.len / 4, I32(b[B_IA]), b[B_IA].view.len / 4);
        Py_END_ALLOW_THREADS
        use = ready >= 0 && ready <= LAYOUT_READY * P;
    }
    use = use && n > 0 && writable_columns(ob, wb, w);
    int failed = 0, moved = 0;
    Py_BEGIN_ALLOW_THREADS
    if (use) {
        failed = layout_make(&lay, s.op_first, P) < 0;
        moved = failed ? 0 : move_columns(&lay, b, w, 6, 0);
        failed = failed || moved < 6;
        s.lay = failed ? NULL : &lay;
    }
    failed = failed || run_all(&s, b, &pops, &waits);
    if (moved && (!scratch || failed)) {
        free_sim(&s); /* room for putting the columns back */
        memset(&s, 0, sizeof(s));
        failed = move_columns(&lay, b, w, moved, 1) < moved || failed;
    }
    Py_END_ALLOW_THREADS
    if (failed) {
        PyErr_NoMemory();
        goto done;
    }
    result = Py_BuildValue("LL", (long long)pops, (long long)waits);
done:
    free_sim(&s);
    layout_free(&lay);
    release(wb, 6);
    release(&tw, 1);
    release(b, 15);
    return result;
}

ONE_FUNCTION_MODULE(_cgoal, simulate, "LogGOPSim's main loop on GOAL schedules, compiled (see loggopsim.py).")
