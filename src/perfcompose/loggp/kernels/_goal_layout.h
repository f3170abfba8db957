/* The operations of a GOAL schedule ordered by their place in their rank: operation j of every
 * rank side by side, rather than each rank's operations together. Ranks that run in step (as
 * collectives and step programs do) then read neighbouring entries of every column, where the
 * ranks' own order puts each entry a whole rank's length from the last: at 10^7 operations the
 * columns are a gigabyte, and nearly every read of an event would leave the caches. Only the
 * order of the entries changes, never what the loop does with them, so the times are the same.
 *
 * Operation j of rank h (entry first[h] + j of the caller's columns) goes to start[j] + place[h],
 * place being the rank's position among the ranks by descending count of operations (stable), so
 * that the ranks with more than j operations are the first ones at every place j. Include after
 * the standard headers. */
#ifndef PERFCOMPOSE_LOGGP_GOAL_LAYOUT_H
#define PERFCOMPOSE_LOGGP_GOAL_LAYOUT_H

typedef struct {
    int64_t P, n, most;
    const int64_t *first; /* rank h's operations are first[h] .. first[h + 1] - 1 in the caller's order */
    int64_t *start;       /* most + 1 entries: where the operations of place j begin */
    int32_t *order;       /* the ranks by descending count of operations */
    int32_t *place;       /* each rank's position in order */
} Layout;

static void layout_free(Layout *l) {
    free(l->start);
    free(l->order);
    free(l->place);
    l->start = NULL;
    l->order = l->place = NULL;
}

/* the layout of P ranks' operations; 0, or -1 without memory */
static int layout_make(Layout *l, const int64_t *first, int64_t P) {
    l->P = P;
    l->first = first;
    l->n = first[P];
    l->most = 0;
    for (int64_t h = 0; h < P; h++) {
        int64_t c = first[h + 1] - first[h];
        l->most = c > l->most ? c : l->most;
    }
    const int64_t most = l->most;
    int64_t *count = calloc((size_t)most + 2, sizeof(int64_t)); /* ranks with exactly c operations */
    l->start = malloc(((size_t)most + 1) * sizeof(int64_t));
    l->order = malloc((size_t)(P > 0 ? P : 1) * sizeof(int32_t));
    l->place = malloc((size_t)(P > 0 ? P : 1) * sizeof(int32_t));
    if (!count || !l->start || !l->order || !l->place) {
        free(count);
        layout_free(l);
        return -1;
    }
    for (int64_t h = 0; h < P; h++) count[first[h + 1] - first[h]]++;
    /* the start of place j: the ranks with more than j' operations, summed over j' < j */
    int64_t more = P, at = 0;
    for (int64_t j = 0; j <= most; j++) {
        l->start[j] = at;
        more -= count[j]; /* those with more than j */
        at += more;
    }
    /* the ranks by descending count, stable: the first of count c after all with more */
    int64_t pos = 0;
    for (int64_t c = most; c >= 0; c--) {
        int64_t k = count[c];
        count[c] = pos;
        pos += k;
    }
    for (int64_t h = 0; h < P; h++) {
        int64_t p = count[first[h + 1] - first[h]]++;
        l->order[p] = (int32_t)h;
        l->place[h] = (int32_t)p;
    }
    free(count);
    return 0;
}

/* where operation j of rank h goes */
static inline int64_t layout_index(const Layout *l, int64_t h, int64_t j) { return l->start[j] + l->place[h]; }

/* the last index below n whose entry of the ascending a is at most k (a[0] <= k): the rank of an
 * operation from the ranks' first operations, the place from the places' starts */
static inline int64_t last_at_most(const int64_t *a, int64_t n, int64_t k) {
    int64_t lo = 0, hi = n;
    while (hi - lo > 1) {
        int64_t mid = (lo + hi) >> 1;
        if (a[mid] <= k) {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    return lo;
}

/* the rank of the operation at k of the new order */
static inline int64_t layout_rank(const Layout *l, int64_t k) {
    return l->order[k - l->start[last_at_most(l->start, l->most, k)]];
}

/* where the caller's operation i goes; *hint is a rank to try first (the last one found) */
static inline int64_t layout_of(const Layout *l, int64_t i, int64_t *hint) {
    int64_t h = *hint;
    if (!(l->first[h] <= i && i < l->first[h + 1])) h = *hint = last_at_most(l->first, l->P, i);
    return layout_index(l, h, i - l->first[h]);
}

#ifndef LAYOUT_TILE
#define LAYOUT_TILE 16
#endif

/* The statements given last for every operation, with h its rank, f its index in the caller's
 * order and k in the layout's: the ranks LAYOUT_TILE at a time, and within them place by place, so
 * that the caller's side is read as a few sequential streams and the layout's side a cache line
 * at a time; an operation at a time in the caller's order, every one would be a whole place (a
 * page or more) from the last */
#define LAYOUT_EACH(l, h, f, k, ...)                                                               \
    for (int64_t h0_ = 0; h0_ < (l)->P; h0_ += LAYOUT_TILE) {                                   \
        const int64_t h1_ = h0_ + LAYOUT_TILE < (l)->P ? h0_ + LAYOUT_TILE : (l)->P;             \
        int64_t most_ = 0;                                                                       \
        for (int64_t h_ = h0_; h_ < h1_; h_++) {                                                 \
            const int64_t c_ = (l)->first[h_ + 1] - (l)->first[h_];                              \
            most_ = c_ > most_ ? c_ : most_;                                                     \
        }                                                                                        \
        for (int64_t j_ = 0; j_ < most_; j_++) {                                                 \
            for (int64_t h = h0_; h < h1_; h++) {                                                \
                if (j_ < (l)->first[h + 1] - (l)->first[h]) {                                    \
                    const int64_t f = (l)->first[h] + j_, k = (l)->start[j_] + (l)->place[h];    \
                    __VA_ARGS__                                                                  \
                }                                                                                \
            }                                                                                    \
        }                                                                                        \
    }

/* a column of n items of w bytes (1, 4 or 8) into the new order, or back (back): through a
 * buffer of n items; 0, or -1 without memory */
static int layout_permute(const Layout *l, void *col, size_t w, int back) {
    const int64_t n = l->n;
    char *tmp = malloc((size_t)(n > 0 ? n : 1) * w);
    if (!tmp) return -1;
    char *c = col;
#define LAYOUT_MOVE(T)                                                                                 \
    if (back) {                                                                                        \
        LAYOUT_EACH(l, h_, f, k, ((T *)tmp)[f] = ((const T *)c)[k];)                                      \
    } else {                                                                                           \
        LAYOUT_EACH(l, h_, f, k, ((T *)tmp)[k] = ((const T *)c)[f];)                                      \
    }
    if (w == 1) {
        LAYOUT_MOVE(uint8_t)
    } else if (w == 4) {
        LAYOUT_MOVE(uint32_t)
    } else {
        LAYOUT_MOVE(uint64_t)
    }
#undef LAYOUT_MOVE
    memcpy(c, tmp, (size_t)n * w);
    free(tmp);
    return 0;
}

#endif
