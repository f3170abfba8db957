/* The measurements of perfcompose.loggp.calibrate.mpi_probe in C, for an MPI program's own MPI:
 * built with that MPI's compiler wrapper and run on two ranks by its mpiexec,
 *
 *     mpiexec -n 2 ./probe --out RAW.json [--reps 15] [--sizes 1,64,...] [--train 16]
 *                          [--samples 200] [--delay 1e-5]
 *
 * it writes the same raw figures (seconds) in the same JSON layout, so that one derivation
 * (perfcompose.loggp.calibrate.parameters) serves both. Every figure is a median over iterations
 * timed one by one. Rank 0 prints {"progress": k, "of": n} after each repetition and
 * {"error": "..."} when it cannot run. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MAX_SIZES 64

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void spin(double seconds) {
    double end = now() + seconds;
    while (now() < end) {
    }
}

static int cmp(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* the median of t[skip .. n) (sorts that part) */
static double median(double *t, int n, int skip) {
    int m = n - skip;
    qsort(t + skip, (size_t)m, sizeof(double), cmp);
    return m % 2 ? t[skip + m / 2] : 0.5 * (t[skip + m / 2 - 1] + t[skip + m / 2]);
}

static int iterations(long size) {
    double k = 2e-3 / (2e-6 + (double)size * 3e-10);
    return (int)(k > 400 ? 400 : (k < 8 ? 8 : k));
}

static int rank, peer;
static char *buf, ack[1];
static double *times;

static double round_trip(long s) {
    int iters = iterations(s) + 3;
    MPI_Barrier(MPI_COMM_WORLD);
    for (int k = 0; k < iters; k++) {
        double t0 = now();
        if (rank == 0) {
            MPI_Send(buf, (int)s, MPI_BYTE, peer, 1, MPI_COMM_WORLD);
            MPI_Recv(buf, (int)s, MPI_BYTE, peer, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else {
            MPI_Recv(buf, (int)s, MPI_BYTE, peer, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Send(buf, (int)s, MPI_BYTE, peer, 1, MPI_COMM_WORLD);
        }
        times[k] = now() - t0;
    }
    return median(times, iters, 3);
}

/* n messages of s bytes (spaced by delay) closed by a 1-byte ack; with dry, rank 0's loop alone */
static double train(long s, int n, int tag, double delay, int iters, int skip, int dry) {
    MPI_Barrier(MPI_COMM_WORLD);
    for (int k = 0; k < iters; k++) {
        double t0 = now();
        if (rank == 0) {
            for (int i = 0; i < n; i++) {
                if (delay > 0 && i)
                    spin(delay);
                if (!dry)
                    MPI_Send(buf, (int)s, MPI_BYTE, peer, tag, MPI_COMM_WORLD);
            }
            if (!dry)
                MPI_Recv(ack, 1, MPI_BYTE, peer, tag + 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else if (!dry) {
            for (int i = 0; i < n; i++)
                MPI_Recv(buf, (int)s, MPI_BYTE, peer, tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Send(ack, 1, MPI_BYTE, peer, tag + 1, MPI_COMM_WORLD);
        }
        times[k] = now() - t0;
    }
    return median(times, iters, skip);
}

static void write_list(FILE *f, const double *v, int n) {
    fputc('[', f);
    for (int k = 0; k < n; k++)
        fprintf(f, "%s%.9e", k ? ", " : "", v[k]);
    fputc(']', f);
}

int main(int argc, char **argv) {
    const char *out = NULL, *sizes_text = "";
    int reps = 15, n = 16, samples = 200, size, nsizes = 0;
    double delay = 10e-6;
    long sizes[MAX_SIZES], largest = 1;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--out")) out = argv[i + 1];
        else if (!strcmp(argv[i], "--reps")) reps = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--sizes")) sizes_text = argv[i + 1];
        else if (!strcmp(argv[i], "--train")) n = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--samples")) samples = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--delay")) delay = atof(argv[i + 1]);
    }
    for (const char *p = sizes_text; *p && nsizes < MAX_SIZES;) {
        char *end;
        sizes[nsizes] = strtol(p, &end, 10);
        if (end == p || sizes[nsizes] < 1) break;
        if (sizes[nsizes] > largest) largest = sizes[nsizes];
        nsizes++;
        p = *end == ',' ? end + 1 : end;
    }
    if (size != 2 || !out || nsizes < 1 || reps < 1 || n < 2 || samples < 1) {
        if (rank == 0)
            printf("{\"error\": \"needs exactly 2 ranks (got %d), --out, --sizes of at least 1 byte, "
                   "--reps >= 1, --train >= 2 and --samples >= 1\"}\n", size);
        MPI_Finalize();
        return 2;
    }
    peer = 1 - rank;
    buf = calloc((size_t)largest, 1);
    int most = 420 + 2 * samples;
    times = malloc(sizeof(double) * (size_t)most);
    double *rtt = malloc(sizeof(double) * (size_t)(reps * nsizes)), *t1 = malloc(sizeof(double) * (size_t)(reps * nsizes)),
           *tn = malloc(sizeof(double) * (size_t)(reps * nsizes)), *delayed = malloc(sizeof(double) * (size_t)reps),
           *dry = malloc(sizeof(double) * (size_t)reps), *send_o = malloc(sizeof(double) * (size_t)(reps * samples)),
           *recv_o = malloc(sizeof(double) * (size_t)(reps * samples));
    for (int r = 0; r < reps; r++) {
        for (int j = 0; j < nsizes; j++)
            rtt[r * nsizes + j] = round_trip(sizes[j]);
        for (int j = 0; j < nsizes; j++) {
            int iters = iterations(sizes[j]);
            t1[r * nsizes + j] = train(sizes[j], 1, 2, 0, (iters < 9 ? 9 : iters) + 2, 2, 0);
            tn[r * nsizes + j] = train(sizes[j], n, 2, 0, (iters / n < 9 ? 9 : iters / n) + 2, 2, 0);
        }
        delayed[r] = train(1, n, 7, delay, 33, 2, 0);
        dry[r] = train(1, n, 7, delay, 33, 2, 1);
        /* cross-checks: a 1-byte send the receiver keeps up with; a receive of an arrived message */
        MPI_Barrier(MPI_COMM_WORLD);
        for (int k = 0; k < samples; k++) {
            if (rank == 0) {
                spin(20e-6);
                double t0 = now();
                MPI_Send(ack, 1, MPI_BYTE, peer, 4, MPI_COMM_WORLD);
                send_o[r * samples + k] = now() - t0;
            } else {
                MPI_Recv(ack, 1, MPI_BYTE, peer, 4, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            }
        }
        MPI_Barrier(MPI_COMM_WORLD);
        for (int k = 0; k < samples; k++) {
            if (rank == 0) {
                MPI_Send(ack, 1, MPI_BYTE, peer, 5, MPI_COMM_WORLD);
                MPI_Recv(ack, 1, MPI_BYTE, peer, 6, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            } else {
                spin(30e-6);
                double t0 = now();
                MPI_Recv(ack, 1, MPI_BYTE, peer, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                recv_o[r * samples + k] = now() - t0;
                MPI_Send(ack, 1, MPI_BYTE, peer, 6, MPI_COMM_WORLD);
            }
        }
        if (rank == 1)
            MPI_Send(recv_o + r * samples, samples, MPI_DOUBLE, 0, 8, MPI_COMM_WORLD);
        else
            MPI_Recv(recv_o + r * samples, samples, MPI_DOUBLE, 1, 8, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        if (rank == 0) {
            printf("{\"progress\": %d, \"of\": %d}\n", r + 1, reps);
            fflush(stdout);
        }
    }
    int status = 0;
    if (rank == 0) {
        char library[MPI_MAX_LIBRARY_VERSION_STRING];
        int len;
        MPI_Get_library_version(library, &len);
        for (int k = 0; k < len; k++)
            if (library[k] == '\n' || library[k] == '\r' || library[k] == '"' || library[k] == '\\') {
                library[k] = '\0';
                break;
            }
        struct timespec res;
        clock_getres(CLOCK_MONOTONIC, &res);
        FILE *f = fopen(out, "w");
        if (!f) {
            printf("{\"error\": \"cannot write the output file\"}\n");
            status = 2;
        } else {
            fprintf(f, "{\"format\": \"perfcompose-mpi-probe/1\", \"probe\": \"C\", \"sizes\": [");
            for (int j = 0; j < nsizes; j++)
                fprintf(f, "%s%ld", j ? ", " : "", sizes[j]);
            fprintf(f, "], \"train\": %d, \"delay\": %.9e, \"library\": \"%s\", \"clock_resolution\": %.3e, "
                       "\"reps\": [", n, delay, library, (double)res.tv_sec + 1e-9 * (double)res.tv_nsec);
            for (int r = 0; r < reps; r++) {
                const char *names[3] = {"rtt", "train1", "trainN"};
                double *tables[3] = {rtt, t1, tn};
                fprintf(f, "%s{", r ? ", " : "");
                for (int t = 0; t < 3; t++) {
                    fprintf(f, "\"%s\": {", names[t]);
                    for (int j = 0; j < nsizes; j++)
                        fprintf(f, "%s\"%ld\": %.9e", j ? ", " : "", sizes[j], tables[t][r * nsizes + j]);
                    fprintf(f, "}, ");
                }
                fprintf(f, "\"delayed\": %.9e, \"delayed_dry\": %.9e, \"send_overhead\": ", delayed[r], dry[r]);
                write_list(f, send_o + r * samples, samples);
                fprintf(f, ", \"recv_overhead\": ");
                write_list(f, recv_o + r * samples, samples);
                fputc('}', f);
            }
            fprintf(f, "]}\n");
            fclose(f);
        }
    }
    MPI_Finalize();
    return status;
}
