/* The MPI calls that take counts, written once for int counts (NAME(MPI_Send) is MPI_Send)
 * and, where the MPI has them, once for MPI_Count counts (MPI_Send_c): pctrace.c includes this
 * file twice. */

int NAME(MPI_Send)(const void *b, COUNT n, MPI_Datatype t, int dst, int tag, MPI_Comm c) {
    double t0 = now();
    int rc = NAME(PMPI_Send)(b, n, t, dst, tag, c);
    int id = out ? comm_id(c) : 0;
    if (out) put(CALL_SEND, world_of(id, dst), tag, id, type_bytes(n, t), 0, t0, now());
    return rc;
}

int NAME(MPI_Rsend)(const void *b, COUNT n, MPI_Datatype t, int dst, int tag, MPI_Comm c) {
    double t0 = now();
    int rc = NAME(PMPI_Rsend)(b, n, t, dst, tag, c);
    int id = out ? comm_id(c) : 0;
    if (out) put(CALL_SEND, world_of(id, dst), tag, id, type_bytes(n, t), 0, t0, now());
    return rc;
}

int NAME(MPI_Ssend)(const void *b, COUNT n, MPI_Datatype t, int dst, int tag, MPI_Comm c) {
    double t0 = now();
    int rc = NAME(PMPI_Ssend)(b, n, t, dst, tag, c);
    int id = out ? comm_id(c) : 0;
    if (out) put(CALL_SEND, world_of(id, dst), tag, id, type_bytes(n, t), 0, t0, now());
    return rc;
}

int NAME(MPI_Recv)(void *b, COUNT n, MPI_Datatype t, int src, int tag, MPI_Comm c, MPI_Status *st) {
    MPI_Status own;
    if (st == MPI_STATUS_IGNORE) st = &own;
    double t0 = now();
    int rc = NAME(PMPI_Recv)(b, n, t, src, tag, c, st);
    int id = out ? comm_id(c) : 0;
    if (out) put(CALL_RECV, src == MPI_PROC_NULL ? -2 : world_of(id, st->MPI_SOURCE), st->MPI_TAG, id,
                 received(st), 0, t0, now());
    return rc;
}

int NAME(MPI_Isend)(const void *b, COUNT n, MPI_Datatype t, int dst, int tag, MPI_Comm c, MPI_Request *r) {
    double t0 = now();
    int rc = NAME(PMPI_Isend)(b, n, t, dst, tag, c, r);
    int id = out ? comm_id(c) : 0;
    if (out) put(CALL_ISEND, world_of(id, dst), tag, id, type_bytes(n, t), handle(r), t0, now());
    return rc;
}

int NAME(MPI_Issend)(const void *b, COUNT n, MPI_Datatype t, int dst, int tag, MPI_Comm c, MPI_Request *r) {
    double t0 = now();
    int rc = NAME(PMPI_Issend)(b, n, t, dst, tag, c, r);
    int id = out ? comm_id(c) : 0;
    if (out) put(CALL_ISEND, world_of(id, dst), tag, id, type_bytes(n, t), handle(r), t0, now());
    return rc;
}

int NAME(MPI_Irecv)(void *b, COUNT n, MPI_Datatype t, int src, int tag, MPI_Comm c, MPI_Request *r) {
    double t0 = now();
    int rc = NAME(PMPI_Irecv)(b, n, t, src, tag, c, r);
    int id = out ? comm_id(c) : 0;
    if (out) put(CALL_IRECV, world_of(id, src), tag, id, type_bytes(n, t), handle(r), t0, now());
    return rc;
}

int NAME(MPI_Sendrecv)(const void *sb, COUNT sn, MPI_Datatype st_, int dst, int stag, void *rb, COUNT rn, MPI_Datatype rt,
                 int src, int rtag, MPI_Comm c, MPI_Status *st) {
    MPI_Status own;
    if (st == MPI_STATUS_IGNORE) st = &own;
    double t0 = now();
    int rc = NAME(PMPI_Sendrecv)(sb, sn, st_, dst, stag, rb, rn, rt, src, rtag, c, st);
    if (out) {
        double t1 = now();
        int id = comm_id(c);
        put(CALL_SENDRECV_SEND, world_of(id, dst), stag, id, type_bytes(sn, st_), 0, t0, t1);
        put(CALL_SENDRECV_RECV, src == MPI_PROC_NULL ? -2 : world_of(id, st->MPI_SOURCE), st->MPI_TAG, id,
            received(st), 0, t0, t1);
    }
    return rc;
}

/* a matched receive does not name its communicator: it is the last matched probe's */
int NAME(MPI_Mrecv)(void *b, COUNT n, MPI_Datatype t, MPI_Message *m, MPI_Status *st) {
    MPI_Status own;
    if (st == MPI_STATUS_IGNORE) st = &own;
    int none = *m == MPI_MESSAGE_NO_PROC;
    double t0 = now();
    int rc = NAME(PMPI_Mrecv)(b, n, t, m, st);
    put(CALL_MRECV, none ? -2 : world_of(probe_comm, st->MPI_SOURCE), st->MPI_TAG, probe_comm, received(st), 0, t0, now());
    return rc;
}

int NAME(MPI_Bcast)(void *b, COUNT n, MPI_Datatype t, int root, MPI_Comm c) {
    COLLECTIVE(CALL_BCAST, root, type_bytes(n, t), NAME(PMPI_Bcast)(b, n, t, root, c))
}

int NAME(MPI_Reduce)(const void *s, void *r, COUNT n, MPI_Datatype t, MPI_Op op, int root, MPI_Comm c) {
    COLLECTIVE(CALL_REDUCE, root, type_bytes(n, t), NAME(PMPI_Reduce)(s, r, n, t, op, root, c))
}

int NAME(MPI_Allreduce)(const void *s, void *r, COUNT n, MPI_Datatype t, MPI_Op op, MPI_Comm c) {
    COLLECTIVE(CALL_ALLREDUCE, 0, type_bytes(n, t), NAME(PMPI_Allreduce)(s, r, n, t, op, c))
}

/* the gathers and scatters record the bytes one rank contributes or receives (not the root's
 * total); the root is a rank of the communicator */
int NAME(MPI_Allgather)(const void *s, COUNT sn, MPI_Datatype st, void *r, COUNT rn, MPI_Datatype rt, MPI_Comm c) {
    COLLECTIVE(CALL_ALLGATHER, 0, type_bytes(rn, rt), NAME(PMPI_Allgather)(s, sn, st, r, rn, rt, c))
}

int NAME(MPI_Alltoall)(const void *s, COUNT sn, MPI_Datatype st, void *r, COUNT rn, MPI_Datatype rt, MPI_Comm c) {
    COLLECTIVE(CALL_ALLTOALL, 0, type_bytes(rn, rt), NAME(PMPI_Alltoall)(s, sn, st, r, rn, rt, c))
}

int NAME(MPI_Gather)(const void *s, COUNT sn, MPI_Datatype st, void *r, COUNT rn, MPI_Datatype rt, int root, MPI_Comm c) {
    COLLECTIVE(CALL_GATHER, root, s == MPI_IN_PLACE ? type_bytes(rn, rt) : type_bytes(sn, st),
               NAME(PMPI_Gather)(s, sn, st, r, rn, rt, root, c))
}

int NAME(MPI_Scatter)(const void *s, COUNT sn, MPI_Datatype st, void *r, COUNT rn, MPI_Datatype rt, int root, MPI_Comm c) {
    COLLECTIVE(CALL_SCATTER, root, r == MPI_IN_PLACE ? type_bytes(sn, st) : type_bytes(rn, rt),
               NAME(PMPI_Scatter)(s, sn, st, r, rn, rt, root, c))
}

/* the bytes of counts[0..n-1] elements of type t, n the size of the communicator */
static int64_t NAME(total)(const COUNT counts[], MPI_Datatype t, MPI_Comm c) {
    int n = 0;
    int64_t sum = 0;
    PMPI_Comm_size(c, &n);
    for (int i = 0; i < n; i++) sum += type_bytes(counts[i], t);
    return sum;
}

static int64_t NAME(mean)(const COUNT counts[], MPI_Datatype t, MPI_Comm c) {
    int n = 1;
    PMPI_Comm_size(c, &n);
    return NAME(total)(counts, t, c) / (n > 0 ? n : 1);
}

int NAME(MPI_Allgatherv)(const void *s, COUNT sn, MPI_Datatype st, void *r, const COUNT rc[], const DISPL d[],
                         MPI_Datatype rt, MPI_Comm c) {
    COLLECTIVE(CALL_ALLGATHER, 0, NAME(mean)(rc, rt, c), NAME(PMPI_Allgatherv)(s, sn, st, r, rc, d, rt, c))
}

int NAME(MPI_Alltoallv)(const void *s, const COUNT sc[], const DISPL sd[], MPI_Datatype st, void *r,
                        const COUNT rc[], const DISPL rd[], MPI_Datatype rt, MPI_Comm c) {
    COLLECTIVE(CALL_ALLTOALL, 0, NAME(mean)(sc, st, c), NAME(PMPI_Alltoallv)(s, sc, sd, st, r, rc, rd, rt, c))
}

int NAME(MPI_Gatherv)(const void *s, COUNT sn, MPI_Datatype st, void *r, const COUNT rc[], const DISPL d[],
                      MPI_Datatype rt, int root, MPI_Comm c) {
    int me = -1;
    PMPI_Comm_rank(c, &me);
    COLLECTIVE(CALL_GATHER, root, me == root ? NAME(mean)(rc, rt, c) : type_bytes(sn, st),
               NAME(PMPI_Gatherv)(s, sn, st, r, rc, d, rt, root, c))
}

int NAME(MPI_Scatterv)(const void *s, const COUNT sc[], const DISPL d[], MPI_Datatype st, void *r, COUNT rn,
                       MPI_Datatype rt, int root, MPI_Comm c) {
    int me = -1;
    PMPI_Comm_rank(c, &me);
    COLLECTIVE(CALL_SCATTER, root, me == root ? NAME(mean)(sc, st, c) : type_bytes(rn, rt),
               NAME(PMPI_Scatterv)(s, sc, d, st, r, rn, rt, root, c))
}

int NAME(MPI_Reduce_scatter)(const void *s, void *r, const COUNT rc[], MPI_Datatype t, MPI_Op op, MPI_Comm c) {
    COLLECTIVE(CALL_REDUCE_SCATTER, 0, NAME(total)(rc, t, c), NAME(PMPI_Reduce_scatter)(s, r, rc, t, op, c))
}

int NAME(MPI_Scan)(const void *s, void *r, COUNT n, MPI_Datatype t, MPI_Op op, MPI_Comm c) {
    COLLECTIVE(CALL_SCAN, 0, type_bytes(n, t), NAME(PMPI_Scan)(s, r, n, t, op, c))
}
