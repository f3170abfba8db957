/* libstdc++'s std::sort of int32 ids by a small integer key, as sort_like_cxx reproduces it
 * (median-of-three introsort, insertion sort below 17 elements, and where the depth runs out a
 * stable sort by key standing in for libstdc++'s heap sort), so that ids of equal keys end in
 * std::sort's order. A template, included once per key; define before including it:
 *   CXX_SORT_NAME       the function, void NAME(int32_t *a, int64_t first, int64_t last,
 *                       CXX_SORT_CTX ctx, int32_t *tmp): sorts a[first, last), tmp holding
 *                       last - first items (NAME_linear_insert and NAME_insertion_sort beside it)
 *   CXX_SORT_CTX        the type of what the keys are read from
 *   CXX_SORT_KEY(c, x)  the key of id x, an int from 0 to CXX_SORT_KEYS - 1
 *   CXX_SORT_KEYS
 * They are undefined at its end. Include after string.h and stdint.h. */

#define CXX_SORT_CAT2(a, b) a##_##b
#define CXX_SORT_CAT(a, b) CXX_SORT_CAT2(a, b)
#define CXX_SORT_FN(suffix) CXX_SORT_CAT(CXX_SORT_NAME, suffix)

static void CXX_SORT_FN(linear_insert)(int32_t *a, int64_t last, CXX_SORT_CTX ctx) {
    int32_t val = a[last];
    int64_t nxt = last - 1;
    while (CXX_SORT_KEY(ctx, val) < CXX_SORT_KEY(ctx, a[nxt])) {
        a[last] = a[nxt];
        last = nxt;
        nxt--;
    }
    a[last] = val;
}

static void CXX_SORT_FN(insertion_sort)(int32_t *a, int64_t first, int64_t last, CXX_SORT_CTX ctx) {
    if (first == last) return;
    for (int64_t i = first + 1; i < last; i++) {
        if (CXX_SORT_KEY(ctx, a[i]) < CXX_SORT_KEY(ctx, a[first])) {
            int32_t val = a[i];
            memmove(a + first + 1, a + first, (size_t)(i - first) * sizeof(int32_t));
            a[first] = val;
        } else {
            CXX_SORT_FN(linear_insert)(a, i, ctx);
        }
    }
}

static void CXX_SORT_NAME(int32_t *a, int64_t first, int64_t last, CXX_SORT_CTX ctx, int32_t *tmp) {
    int64_t n = last - first;
    if (n < 2) return;
    if (n <= 16) {
        CXX_SORT_FN(insertion_sort)(a, first, last, ctx);
        return;
    }
    int64_t depth = 0;
    while (((int64_t)1 << (depth + 1)) <= n) depth++;
    int64_t stack[130][3];
    stack[0][0] = first;
    stack[0][1] = last;
    stack[0][2] = 2 * depth;
    int sp = 1;
    while (sp > 0) {
        sp--;
        int64_t lo = stack[sp][0], hi = stack[sp][1], lim = stack[sp][2];
        while (hi - lo > 16) {
            if (lim == 0) { /* libstdc++ heap-sorts here; a stable sort by key stands in for it */
                int64_t m = 0;
                for (int k = 0; k < CXX_SORT_KEYS; k++) {
                    for (int64_t j = lo; j < hi; j++) {
                        if (CXX_SORT_KEY(ctx, a[j]) == k) tmp[m++] = a[j];
                    }
                }
                memcpy(a + lo, tmp, (size_t)m * sizeof(int32_t));
                break;
            }
            lim--;
            int64_t mid = lo + (hi - lo) / 2, x = lo + 1, y = mid, z = hi - 1, m;
            int kx = CXX_SORT_KEY(ctx, a[x]), ky = CXX_SORT_KEY(ctx, a[y]), kz = CXX_SORT_KEY(ctx, a[z]);
            if (kx < ky) {
                m = ky < kz ? y : (kx < kz ? z : x);
            } else {
                m = kx < kz ? x : (ky < kz ? z : y);
            }
            int32_t sw = a[lo];
            a[lo] = a[m];
            a[m] = sw;
            int pivot = CXX_SORT_KEY(ctx, a[lo]);
            int64_t f = lo + 1, l = hi;
            for (;;) {
                while (CXX_SORT_KEY(ctx, a[f]) < pivot) f++;
                l--;
                while (pivot < CXX_SORT_KEY(ctx, a[l])) l--;
                if (!(f < l)) break;
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
    CXX_SORT_FN(insertion_sort)(a, first, first + 16, ctx);
    for (int64_t i = first + 16; i < last; i++) CXX_SORT_FN(linear_insert)(a, i, ctx);
}

#undef CXX_SORT_FN
#undef CXX_SORT_CAT
#undef CXX_SORT_CAT2
#undef CXX_SORT_NAME
#undef CXX_SORT_CTX
#undef CXX_SORT_KEY
#undef CXX_SORT_KEYS
