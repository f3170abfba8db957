/* perfcompose's MPI tracer: PMPI wrappers that record, per rank, every traced MPI call with its
 * start and end time (CLOCK_MONOTONIC, seconds), peer, tag, bytes, communicator and request.
 *
 * Loaded with LD_PRELOAD into the ranks of an MPI program; it records only where the environment
 * names an output folder (PERFCOMPOSE_TRACE_DIR). Records are kept in a bounded buffer
 * (PERFCOMPOSE_TRACE_BUFFER records, default 65536) that is appended to the rank's file
 * DIR/trace.RANK.bin whenever it fills and at MPI_Finalize. The file: an 8-byte magic
 * "PCTRACE2", then int32 rank, size, record size, reserved; then the records (struct rec below).
 * The communicators a rank made (MPI_Comm_dup, split, create, Cart_create, ...) or used are written
 * at MPI_Finalize to DIR/comms.RANK.txt, one per line, numbered as they were made or first used:
 * "ID WORLD-RANK-OF-MEMBER-0 WORLD-RANK-OF-MEMBER-1 ...".
 *
 * Peers and roots are world ranks (-1: any source, -2: MPI_PROC_NULL). A completed request
 * (MPI_Wait, Waitall, Waitany, Waitsome, Test, Testall, Testany, Testsome) gives one CALL_DONE
 * record carrying the request, and for a receive the source, tag and bytes received, its comm
 * field 1 where the request was cancelled; MPI_Cancel gives CALL_CANCEL with the request.
 * Consecutive calls of one kind that only poll or probe (MPI_Test, Iprobe, Probe, Mprobe, ... that
 * complete nothing) make one record (see polled()). MPI_Ssend and Rsend are recorded as MPI_Send,
 * MPI_Issend as Isend; MPI_Allgatherv, Alltoallv, Gatherv and Scatterv as their regular forms with
 * the mean block of a rank. Build: mpicc -shared -fPIC -O2.
 */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* the call numbers (the reader takes the names from this list) */
enum call {
    CALL_INIT, CALL_FINALIZE, CALL_SEND, CALL_RECV, CALL_ISEND, CALL_IRECV, CALL_DONE, CALL_SENDRECV_SEND,
    CALL_SENDRECV_RECV, CALL_BCAST, CALL_REDUCE, CALL_ALLREDUCE, CALL_BARRIER, CALL_ALLGATHER, CALL_ALLTOALL,
    CALL_GATHER, CALL_SCATTER, CALL_PROBE, CALL_MRECV, CALL_TEST, CALL_WAIT_NONE, CALL_CANCEL, CALL_REDUCE_SCATTER, CALL_SCAN
};

typedef struct {
    int32_t call, peer, tag, comm;
    int64_t bytes, request;
    double t0, t1;
} rec;

typedef struct { MPI_Comm handle; int size; int *world; } comm_entry;

static rec *buf;
static size_t used, cap;
static FILE *out;
static int world_rank = -1;
static comm_entry *comms;
static int n_comms, cap_comms;
static int probe_comm;  /* the communicator of the last matched probe, for MPI_Mrecv */

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void flush(void) {
    if (out && used) fwrite(buf, sizeof(rec), used, out);
    used = 0;
}

static void put(int call, int peer, int tag, int comm, int64_t bytes, int64_t request, double t0, double t1) {
    if (!out) return;
    if (used == cap) flush();
    rec *r = &buf[used++];
    r->call = call; r->peer = peer; r->tag = tag; r->comm = comm;
    r->bytes = bytes; r->request = request; r->t0 = t0; r->t1 = t1;
}

/* a call that only polls or probes: consecutive ones of one kind make one record from the first's
 * start to the last's end, its bytes the nanoseconds spent in them and its request their number */
static void polled(int call, double t0) {
    double t1 = now();
    if (!out) return;
    if (used && buf[used - 1].call == call) {
        rec *r = &buf[used - 1];
        r->bytes += (int64_t)((t1 - t0) * 1e9);
        r->request += 1;
        r->t1 = t1;
        return;
    }
    put(call, -2, 0, 0, (int64_t)((t1 - t0) * 1e9), 1, t0, t1);
}

static int64_t handle(const MPI_Request *req) {
    int64_t h = 0;
    memcpy(&h, req, sizeof(MPI_Request) < sizeof h ? sizeof(MPI_Request) : sizeof h);
    return h;
}

/* the id of a communicator (assigned when first seen), with its members' world ranks */
static int comm_id(MPI_Comm c) {
    for (int i = n_comms - 1; i >= 0; i--)
        if (comms[i].handle == c) return i;
    if (n_comms == cap_comms) {
        cap_comms = cap_comms ? 2 * cap_comms : 16;
        comms = realloc(comms, (size_t)cap_comms * sizeof *comms);
    }
    comm_entry *e = &comms[n_comms];
    MPI_Group g, wg;
    PMPI_Comm_size(c, &e->size);
    e->handle = c;
    e->world = malloc((size_t)e->size * sizeof(int));
    int *local = malloc((size_t)e->size * sizeof(int));
    for (int i = 0; i < e->size; i++) local[i] = i;
    PMPI_Comm_group(c, &g);
    PMPI_Comm_group(MPI_COMM_WORLD, &wg);
    PMPI_Group_translate_ranks(g, e->size, local, wg, e->world);
    PMPI_Group_free(&g);
    PMPI_Group_free(&wg);
    free(local);
    return n_comms++;
}

static int world_of(int id, int peer) {
    if (peer == MPI_ANY_SOURCE) return -1;
    if (peer == MPI_PROC_NULL || peer < 0 || peer >= comms[id].size) return -2;
    return comms[id].world[peer];
}

static int64_t type_bytes(int64_t count, MPI_Datatype t) {
    int s = 0;
    if (t != MPI_DATATYPE_NULL) PMPI_Type_size(t, &s);
    return (int64_t)count * s;
}

static int64_t received(MPI_Status *st) {
    int n = 0;
    PMPI_Get_count(st, MPI_BYTE, &n);
    return n == MPI_UNDEFINED ? 0 : n;
}

static void start(void) {
    const char *dir = getenv("PERFCOMPOSE_TRACE_DIR");
    if (!dir) return;
    const char *b = getenv("PERFCOMPOSE_TRACE_BUFFER");
    cap = b ? (size_t)strtoull(b, NULL, 10) : 65536;
    if (cap < 16) cap = 16;
    buf = malloc(cap * sizeof(rec));
    int size;
    PMPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
    PMPI_Comm_size(MPI_COMM_WORLD, &size);
    char path[4096];
    snprintf(path, sizeof path, "%s/trace.%d.bin", dir, world_rank);
    out = buf ? fopen(path, "wb") : NULL;
    if (!out) { fprintf(stderr, "perfcompose tracer: cannot write %s\n", path); return; }
    int32_t head[4] = {world_rank, size, (int32_t)sizeof(rec), 0};
    fwrite("PCTRACE2", 1, 8, out);
    fwrite(head, sizeof head, 1, out);
    comm_id(MPI_COMM_WORLD);
}

static void finish(double t0, double t1) {
    if (!out) return;
    put(CALL_FINALIZE, -2, 0, 0, 0, 0, t0, t1);
    flush();
    fclose(out);
    out = NULL;
    const char *dir = getenv("PERFCOMPOSE_TRACE_DIR");
    char path[4096];
    snprintf(path, sizeof path, "%s/comms.%d.txt", dir, world_rank);
    FILE *f = fopen(path, "w");
    for (int i = 0; f && i < n_comms; i++) {
        fprintf(f, "%d", i);
        for (int j = 0; j < comms[i].size; j++) fprintf(f, " %d", comms[i].world[j]);
        fputc('\n', f);
    }
    if (f) fclose(f);
}

int MPI_Init(int *argc, char ***argv) {
    double t0 = now();
    int rc = PMPI_Init(argc, argv);
    start();
    put(CALL_INIT, -2, 0, 0, 0, 0, t0, now());
    return rc;
}

int MPI_Init_thread(int *argc, char ***argv, int required, int *provided) {
    double t0 = now();
    int rc = PMPI_Init_thread(argc, argv, required, provided);
    start();
    put(CALL_INIT, -2, 0, 0, 0, 0, t0, now());
    return rc;
}

int MPI_Finalize(void) {
    double t0 = now();
    int rc = PMPI_Finalize();
    finish(t0, now());
    return rc;
}

/* a communicator gets its id when it is made: making one is collective over its members, so they
 * all number the communicators with the same members in the same order */
static int made(int rc, MPI_Comm *c) {
    if (out && rc == MPI_SUCCESS && *c != MPI_COMM_NULL) comm_id(*c);
    return rc;
}

int MPI_Comm_dup(MPI_Comm c, MPI_Comm *n) { return made(PMPI_Comm_dup(c, n), n); }
int MPI_Comm_dup_with_info(MPI_Comm c, MPI_Info i, MPI_Comm *n) { return made(PMPI_Comm_dup_with_info(c, i, n), n); }
int MPI_Comm_split(MPI_Comm c, int color, int key, MPI_Comm *n) { return made(PMPI_Comm_split(c, color, key, n), n); }
int MPI_Comm_split_type(MPI_Comm c, int type, int key, MPI_Info i, MPI_Comm *n) {
    return made(PMPI_Comm_split_type(c, type, key, i, n), n);
}
int MPI_Comm_create(MPI_Comm c, MPI_Group g, MPI_Comm *n) { return made(PMPI_Comm_create(c, g, n), n); }
int MPI_Comm_create_group(MPI_Comm c, MPI_Group g, int tag, MPI_Comm *n) {
    return made(PMPI_Comm_create_group(c, g, tag, n), n);
}
int MPI_Cart_create(MPI_Comm c, int nd, const int dims[], const int periods[], int reorder, MPI_Comm *n) {
    return made(PMPI_Cart_create(c, nd, dims, periods, reorder, n), n);
}
int MPI_Cart_sub(MPI_Comm c, const int remain[], MPI_Comm *n) { return made(PMPI_Cart_sub(c, remain, n), n); }

int MPI_Comm_free(MPI_Comm *c) {
    for (int i = 0; out && i < n_comms; i++)
        if (comms[i].handle == *c) comms[i].handle = MPI_COMM_NULL;
    return PMPI_Comm_free(c);
}

/* the completion of requests[i] (handles taken before the call), one record each */
static void done(int count, const int64_t *handles, MPI_Status *st, const int *which, int n_which, double t0,
                 double t1) {
    for (int k = 0; k < n_which; k++) {
        int i = which ? which[k] : k;
        if (i < 0 || i >= count) continue;
        int cancelled = 0;
        PMPI_Test_cancelled(&st[k], &cancelled);
        put(CALL_DONE, st[k].MPI_SOURCE >= 0 ? st[k].MPI_SOURCE : -2, st[k].MPI_TAG, cancelled != 0,
            received(&st[k]), handles[i], t0, t1);
    }
}

/* MPI_SOURCE of a receive's status is a rank of its communicator: the reader maps it through
 * the receive's own record, so CALL_DONE carries it as given */

int MPI_Wait(MPI_Request *r, MPI_Status *st) {
    MPI_Status own;
    if (st == MPI_STATUS_IGNORE) st = &own;
    int64_t h = handle(r);
    double t0 = now();
    int rc = PMPI_Wait(r, st);
    if (out) done(1, &h, st, NULL, 1, t0, now());
    return rc;
}

static MPI_Status *statuses(int n, MPI_Status *given, MPI_Status **own) {
    *own = NULL;
    if (given != MPI_STATUSES_IGNORE) return given;
    *own = malloc((size_t)(n > 0 ? n : 1) * sizeof(MPI_Status));
    return *own;
}

static int64_t *handles_of(int n, const MPI_Request *r) {
    int64_t *h = malloc((size_t)(n > 0 ? n : 1) * sizeof(int64_t));
    for (int i = 0; i < n; i++) h[i] = handle(&r[i]);
    return h;
}

int MPI_Waitall(int n, MPI_Request r[], MPI_Status st[]) {
    MPI_Status *own, *s = statuses(n, st, &own);
    int64_t *h = out ? handles_of(n, r) : NULL;
    double t0 = now();
    int rc = PMPI_Waitall(n, r, s);
    if (out) done(n, h, s, NULL, n, t0, now());
    free(h);
    free(own);
    return rc;
}

int MPI_Waitany(int n, MPI_Request r[], int *index, MPI_Status *st) {
    MPI_Status one;
    if (st == MPI_STATUS_IGNORE) st = &one;
    int64_t *h = out ? handles_of(n, r) : NULL;
    double t0 = now();
    int rc = PMPI_Waitany(n, r, index, st);
    if (out) {
        if (*index == MPI_UNDEFINED) polled(CALL_WAIT_NONE, t0);
        else done(n, h, st, index, 1, t0, now());
    }
    free(h);
    return rc;
}

int MPI_Test(MPI_Request *r, int *flag, MPI_Status *st) {
    MPI_Status own;
    if (st == MPI_STATUS_IGNORE) st = &own;
    int64_t h = handle(r);
    double t0 = now();
    int rc = PMPI_Test(r, flag, st);
    if (out) {
        if (*flag) done(1, &h, st, NULL, 1, t0, now());
        else polled(CALL_TEST, t0);
    }
    return rc;
}

int MPI_Testall(int n, MPI_Request r[], int *flag, MPI_Status st[]) {
    MPI_Status *own, *s = statuses(n, st, &own);
    int64_t *h = out ? handles_of(n, r) : NULL;
    double t0 = now();
    int rc = PMPI_Testall(n, r, flag, s);
    if (out) {
        if (*flag) done(n, h, s, NULL, n, t0, now());
        else polled(CALL_TEST, t0);
    }
    free(h);
    free(own);
    return rc;
}

int MPI_Testany(int n, MPI_Request r[], int *index, int *flag, MPI_Status *st) {
    MPI_Status one;
    if (st == MPI_STATUS_IGNORE) st = &one;
    int64_t *h = out ? handles_of(n, r) : NULL;
    double t0 = now();
    int rc = PMPI_Testany(n, r, index, flag, st);
    if (out) {
        if (*flag && *index != MPI_UNDEFINED) done(n, h, st, index, 1, t0, now());
        else polled(CALL_TEST, t0);
    }
    free(h);
    return rc;
}

/* MPI_Waitsome and MPI_Testsome: the requests that completed, one record each */
static int some(int n, MPI_Request r[], int *n_out, int idx[], MPI_Status st[], int wait) {
    MPI_Status *own, *s = statuses(n, st, &own);
    int64_t *h = out ? handles_of(n, r) : NULL;
    double t0 = now();
    int rc = wait ? PMPI_Waitsome(n, r, n_out, idx, s) : PMPI_Testsome(n, r, n_out, idx, s);
    if (out) {
        if (*n_out > 0 && *n_out != MPI_UNDEFINED) done(n, h, s, idx, *n_out, t0, now());
        else polled(wait ? CALL_WAIT_NONE : CALL_TEST, t0);
    }
    free(h);
    free(own);
    return rc;
}

int MPI_Waitsome(int n, MPI_Request r[], int *n_out, int idx[], MPI_Status st[]) {
    return some(n, r, n_out, idx, st, 1);
}

int MPI_Testsome(int n, MPI_Request r[], int *n_out, int idx[], MPI_Status st[]) {
    return some(n, r, n_out, idx, st, 0);
}

int MPI_Cancel(MPI_Request *r) {
    int64_t h = handle(r);
    double t0 = now();
    int rc = PMPI_Cancel(r);
    put(CALL_CANCEL, -2, 0, 0, 0, h, t0, now());
    return rc;
}

int MPI_Probe(int src, int tag, MPI_Comm c, MPI_Status *st) {
    double t0 = now();
    int rc = PMPI_Probe(src, tag, c, st);
    polled(CALL_PROBE, t0);
    return rc;
}

int MPI_Iprobe(int src, int tag, MPI_Comm c, int *flag, MPI_Status *st) {
    double t0 = now();
    int rc = PMPI_Iprobe(src, tag, c, flag, st);
    polled(CALL_PROBE, t0);
    return rc;
}

int MPI_Mprobe(int src, int tag, MPI_Comm c, MPI_Message *m, MPI_Status *st) {
    double t0 = now();
    int rc = PMPI_Mprobe(src, tag, c, m, st);
    if (out) probe_comm = comm_id(c);
    polled(CALL_PROBE, t0);
    return rc;
}

int MPI_Improbe(int src, int tag, MPI_Comm c, int *flag, MPI_Message *m, MPI_Status *st) {
    double t0 = now();
    int rc = PMPI_Improbe(src, tag, c, flag, m, st);
    if (out) probe_comm = comm_id(c);
    polled(CALL_PROBE, t0);
    return rc;
}


#define COLLECTIVE(CALL, ROOT, BYTES, INVOKE)                                       \
    double t0 = now();                                                              \
    int rc_ = INVOKE;                                                               \
    if (out) {                                                                      \
        int id = comm_id(c);                                                        \
        put(CALL, ROOT, 0, id, BYTES, 0, t0, now());                                \
    }                                                                               \
    return rc_;

int MPI_Barrier(MPI_Comm c) {
    COLLECTIVE(CALL_BARRIER, 0, 0, PMPI_Barrier(c))
}

#define CAT_(a, b) a##b
#define CAT(a, b) CAT_(a, b)
#define NAME(f) CAT(f, SUFFIX)
#define SUFFIX
#define COUNT int
#define DISPL int
#include "pctrace_calls.h"
#undef SUFFIX
#undef COUNT
#undef DISPL
#if MPI_VERSION >= 4
#define SUFFIX _c
#define COUNT MPI_Count
#define DISPL MPI_Aint
#include "pctrace_calls.h"
#endif
