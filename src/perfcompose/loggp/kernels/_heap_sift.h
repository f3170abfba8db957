/* The two moves of a binary heap whose smallest entry comes first: an entry placed at a free
 * position and moved up, or at the free root and moved down. A template, included once per kind
 * of entry; define before including it:
 *   HEAP_NAME        the prefix: static inline void NAME_sift_up(ENTRY *h, int64_t n, ENTRY e)
 *                    puts e in a heap of n entries (room for n + 1), the caller counting it;
 *                    NAME_sift_down(h, n, e) puts e in h[0..n) whose root is free
 *   HEAP_ENTRY       the type of an entry
 *   HEAP_LESS(a, b)  entry a comes before entry b
 *   HEAP_LESS_NB(pa, pb)  optional: 1 where *pa comes before *pb, without branches, for heaps that
 *                    keep an entry later than all others after their last (h[n]), so that the
 *                    smaller child is picked without a bound check
 * They are undefined at its end. Include after stdint.h. */

#define HEAP_CAT2(a, b) a##_##b
#define HEAP_CAT(a, b) HEAP_CAT2(a, b)

static inline void HEAP_CAT(HEAP_NAME, sift_up)(HEAP_ENTRY *h, int64_t n, HEAP_ENTRY e) {
    int64_t i = n;
    while (i > 0) {
        int64_t parent = (i - 1) >> 1;
        if (!HEAP_LESS(e, h[parent])) break;
        h[i] = h[parent];
        i = parent;
    }
    h[i] = e;
}

static inline void HEAP_CAT(HEAP_NAME, sift_down)(HEAP_ENTRY *h, int64_t n, HEAP_ENTRY e) {
    int64_t i = 0;
    for (;;) {
        int64_t c = 2 * i + 1;
        if (c >= n) break;
#ifdef HEAP_LESS_NB
        c += HEAP_LESS_NB(&h[c + 1], &h[c]);
#else
        if (c + 1 < n && HEAP_LESS(h[c + 1], h[c])) c += 1;
#endif
        if (!HEAP_LESS(h[c], e)) break;
        h[i] = h[c];
        i = c;
    }
    h[i] = e;
}

#undef HEAP_CAT
#undef HEAP_CAT2
#undef HEAP_NAME
#undef HEAP_ENTRY
#undef HEAP_LESS
#undef HEAP_LESS_NB
