/*
 * The shared-memory collectives (mpi/coll_shm.c): Barrier, Bcast, Reduce
 * and Allreduce with their data checked, for every root, with MPI_IN_PLACE,
 * a pair type (MAXLOC), a non-commutative user op on a contiguous derived
 * type (rank order), a non-contiguous type (Allreduce falls back; Bcast
 * with a different type at the root than elsewhere), counts that take one
 * step and many (the driver shrinks the chunk), collectives on several
 * communicators interleaved with a nonblocking one, and the segments: one
 * mapped per communicator that used it, none left once it is freed.
 *
 *   mpi_collshm data SHM   SHM: 1 if the world must have a segment, 0 not
 *   mpi_collshm idle       shm barriers and bcasts for a second (the driver
 *                          checks rank 0's idle counters: no back-off sleep)
 *   mpi_collshm pair       2 ranks: Bcast 256 KiB and Reduce 1 MiB from
 *                          each root, checked (the driver: which way they go)
 *   mpi_collshm leak       2 ranks: rank 1 exits 3 while rank 0 holds a
 *                          segment not yet unlinked; prints "segment PATH"
 */
#define _POSIX_C_SOURCE 200809L   /* nanosleep */
#include "mpitest.h"

#include <time.h>
#include <unistd.h>

#define PRIME 1009

/* segments of coll_shm.c this process has mapped */
/* The name of the first collective segment pid maps (into name, with its
 * "/dev/shm" prefix), and how many it maps; -1: maps unreadable. */
static int mapped_segments(const char *pid, char *name, size_t len)
{
    char path[64], line[768];
    FILE *f;
    int n = 0;

    snprintf(path, sizeof(path), "/proc/%s/maps", pid);
    if (!(f = fopen(path, "r")))
        return -1;
    while (fgets(line, sizeof(line), f)) {
        char *at = strstr(line, "/dev/shm/");

        if (!at || !strstr(at, "coll-"))
            continue;
        if (n++ == 0 && name)
            snprintf(name, len, "%.*s", (int)strcspn(at, " \n"), at);
    }
    fclose(f);
    return n;
}

static int segments(void)
{
    return mapped_segments("self", NULL, 0);
}

/* 2x2 matrices mod PRIME, inout = in x inout: not commutative */
static void matmul(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    int *a = in, *b = inout;

    (void)dt;
    for (int k = 0; k < *len; k++, a += 4, b += 4) {
        int c[4] = {
            (a[0] * b[0] + a[1] * b[2]) % PRIME, (a[0] * b[1] + a[1] * b[3]) % PRIME,
            (a[2] * b[0] + a[3] * b[2]) % PRIME, (a[2] * b[1] + a[3] * b[3]) % PRIME,
        };
        memcpy(b, c, sizeof(c));
    }
}

static void mat_of(int r, int k, int *m)
{
    m[0] = (r + k) % PRIME + 1;
    m[1] = 1;
    m[2] = (r * 3 + 1) % PRIME;
    m[3] = k % 7;
}

static int val(int r, int i)
{
    return (r * 7 + i) % 1000;
}

static void check_data(MPI_Comm comm, const char *what)
{
    int r, p;
    static const int counts[] = {1, 7, 1000, 70000};

    MPI_Comm_rank(comm, &r);
    MPI_Comm_size(comm, &p);
    for (size_t ci = 0; ci < sizeof(counts) / sizeof(counts[0]); ci++) {
        int n = counts[ci];
        /* 2n ints for a vector of n; at least 4 for one matrix */
        int *a = malloc(((size_t)n * 2 + 4) * sizeof(int));
        int *b = malloc(((size_t)n * 2 + 4) * sizeof(int));
        double *x = malloc((size_t)n * sizeof(double)), *y = malloc((size_t)n * sizeof(double));
        struct { double v; int loc; } *pa = malloc((size_t)n * sizeof(*pa)),
                                      *pb = malloc((size_t)n * sizeof(*pb));
        int bad = 0;

        if (!a || !b || !x || !y || !pa || !pb)
            TH_FAIL("out of memory");
        for (int root = 0; root < p; root++) {
            /* Bcast: the root's ints contiguous, the others' every second
             * int of a vector (the same signature) */
            MPI_Datatype vec;
            CHECK_RC(MPI_Type_vector(n, 1, 2, MPI_INT, &vec));
            CHECK_RC(MPI_Type_commit(&vec));
            for (int i = 0; i < 2 * n; i++)
                a[i] = r == root ? val(root, i) : -1;
            CHECK_RC(MPI_Bcast(a, r == root ? n : 1, r == root ? MPI_INT : vec, root, comm));
            for (int i = 0; i < n && !bad; i++)
                if ((r == root ? a[i] : a[2 * i]) != val(root, i) || (r != root && a[2 * i + 1] != -1))
                    bad = 1;
            EXPECT(!bad, "%s: Bcast of %d ints from %d", what, n, root);
            CHECK_RC(MPI_Type_free(&vec));

            /* Reduce SUM, normal and in place */
            for (int inplace = 0; inplace < 2; inplace++) {
                for (int i = 0; i < n; i++) {
                    a[i] = val(r, i);
                    b[i] = r == root && inplace ? val(r, i) : -5;
                }
                CHECK_RC(MPI_Reduce(inplace && r == root ? MPI_IN_PLACE : a, b, n, MPI_INT, MPI_SUM,
                                    root, comm));
                bad = 0;
                if (r == root) {
                    for (int i = 0; i < n && !bad; i++) {
                        int want = 0;
                        for (int j = 0; j < p; j++)
                            want += val(j, i);
                        bad = b[i] != want;
                    }
                } else {
                    for (int i = 0; i < n && !bad; i++)
                        bad = b[i] != -5 || a[i] != val(r, i);
                }
                EXPECT(!bad, "%s: Reduce SUM of %d ints to %d, in place %d", what, n, root,
                       inplace);
            }

            /* Reduce MAXLOC on a pair type */
            for (int i = 0; i < n; i++) {
                pa[i].v = (double)((i * 31 + r * 17) % 13);
                pa[i].loc = r;
            }
            CHECK_RC(MPI_Reduce(pa, pb, n, MPI_DOUBLE_INT, MPI_MAXLOC, root, comm));
            bad = 0;
            for (int i = 0; i < n && r == root && !bad; i++) {
                double best = -1;
                int loc = -1;
                for (int j = 0; j < p; j++)
                    if ((double)((i * 31 + j * 17) % 13) > best) {
                        best = (double)((i * 31 + j * 17) % 13);
                        loc = j;
                    }
                bad = pb[i].v != best || pb[i].loc != loc;
            }
            EXPECT(!bad, "%s: Reduce MAXLOC of %d to %d", what, n, root);
        }

        /* Allreduce MAX on doubles, normal and in place */
        for (int inplace = 0; inplace < 2; inplace++) {
            for (int i = 0; i < n; i++) {
                x[i] = (double)val(r, i) / 4;
                y[i] = inplace ? x[i] : -1;
            }
            CHECK_RC(MPI_Allreduce(inplace ? MPI_IN_PLACE : x, y, n, MPI_DOUBLE, MPI_MAX, comm));
            bad = 0;
            for (int i = 0; i < n && !bad; i++) {
                double want = 0;
                for (int j = 0; j < p; j++)
                    if ((double)val(j, i) / 4 > want)
                        want = (double)val(j, i) / 4;
                bad = y[i] != want;
            }
            EXPECT(!bad, "%s: Allreduce MAX of %d doubles, in place %d", what, n, inplace);
        }

        /* A non-commutative op on a contiguous type of 4 ints: rank order,
         * at every root and in Allreduce */
        {
            int m = n / 4 > 0 ? n / 4 : 1;
            MPI_Datatype mat;
            MPI_Op op;
            int *want = malloc((size_t)m * 4 * sizeof(int)), *t = malloc(4 * sizeof(int));

            if (!want || !t)
                TH_FAIL("out of memory");
            CHECK_RC(MPI_Type_contiguous(4, MPI_INT, &mat));
            CHECK_RC(MPI_Type_commit(&mat));
            CHECK_RC(MPI_Op_create(matmul, 0, &op));
            for (int k = 0; k < m; k++) {
                int one = 1;
                mat_of(p - 1, k, want + 4 * k);
                for (int j = p - 2; j >= 0; j--) {
                    mat_of(j, k, t);
                    matmul(t, want + 4 * k, &one, NULL);
                }
            }
            for (int root = 0; root <= p; root++) {   /* p: Allreduce */
                for (int k = 0; k < m; k++) {
                    mat_of(r, k, a + 4 * k);
                    mat_of(-7, k, b + 4 * k);
                }
                if (root < p)
                    CHECK_RC(MPI_Reduce(a, b, m, mat, op, root, comm));
                else
                    CHECK_RC(MPI_Allreduce(MPI_IN_PLACE, a, m, mat, op, comm));
                const int *got = root < p ? b : a;
                bad = 0;
                if (root == p || r == root)
                    for (int i = 0; i < 4 * m && !bad; i++)
                        bad = got[i] != want[i];
                EXPECT(!bad, "%s: non-commutative op on %d matrices, root %d (%d: Allreduce)",
                       what, m, root, p);
            }
            CHECK_RC(MPI_Op_free(&op));
            CHECK_RC(MPI_Type_free(&mat));
            free(want);
            free(t);
        }

        /* A non-contiguous type: every second int (the point-to-point path) */
        {
            MPI_Datatype vec;
            CHECK_RC(MPI_Type_vector(n, 1, 2, MPI_INT, &vec));
            CHECK_RC(MPI_Type_commit(&vec));
            for (int i = 0; i < 2 * n; i++)
                a[i] = i % 2 ? -3 : val(r, i / 2);
            CHECK_RC(MPI_Allreduce(MPI_IN_PLACE, a, 1, vec, MPI_SUM, comm));
            bad = 0;
            for (int i = 0; i < n && !bad; i++) {
                int want = 0;
                for (int j = 0; j < p; j++)
                    want += val(j, i);
                bad = a[2 * i] != want || a[2 * i + 1] != -3;
            }
            EXPECT(!bad, "%s: Allreduce SUM of a vector of %d ints", what, n);
            CHECK_RC(MPI_Type_free(&vec));
        }
        CHECK_RC(MPI_Barrier(comm));
        free(a);
        free(b);
        free(x);
        free(y);
        free(pa);
        free(pb);
    }
}

/* Alltoall: block j of rank r's send buffer holds a2a_val(r, j, i); rows
 * that fit a slot (1, 7, 300 ints) and one that does not (5000: the
 * point-to-point path), contiguous, in place, and a vector type (every
 * second int) on the send side or the receive side, the other contiguous. */
static int a2a_val(int from, int to, int i)
{
    return from * 100000 + to * 1000 + i % 1000;
}

/* n ints, every second one; consecutive ones 2n ints apart */
static MPI_Datatype every_second(int n)
{
    MPI_Datatype v, vec;

    CHECK_RC(MPI_Type_vector(n, 1, 2, MPI_INT, &v));
    CHECK_RC(MPI_Type_create_resized(v, 0, (MPI_Aint)(2 * (size_t)n * sizeof(int)), &vec));
    CHECK_RC(MPI_Type_commit(&vec));
    CHECK_RC(MPI_Type_free(&v));
    return vec;
}

static void check_alltoall(MPI_Comm comm, const char *what)
{
    static const int counts[] = {1, 7, 300, 5000};
    int r, p;

    MPI_Comm_rank(comm, &r);
    MPI_Comm_size(comm, &p);
    for (size_t ci = 0; ci < sizeof(counts) / sizeof(counts[0]); ci++) {
        int n = counts[ci];
        size_t all = (size_t)p * (size_t)n;
        int *s = malloc(2 * all * sizeof(int)), *d = malloc(2 * all * sizeof(int));
        MPI_Datatype vec = every_second(n);

        if (!s || !d)
            TH_FAIL("out of memory");
        /* mode 0 contiguous, 1 in place, 2 vector sends, 3 vector receives */
        for (int mode = 0; mode < 4; mode++) {
            int bad = 0;

            for (size_t k = 0; k < 2 * all; k++)
                s[k] = d[k] = -9;
            for (int j = 0; j < p; j++)
                for (int i = 0; i < n; i++) {
                    int v = a2a_val(r, j, i);
                    if (mode == 2)
                        s[2 * ((size_t)j * n + i)] = v;
                    else if (mode == 1)
                        d[(size_t)j * n + i] = v;
                    else
                        s[(size_t)j * n + i] = v;
                }
            if (mode == 0)
                CHECK_RC(MPI_Alltoall(s, n, MPI_INT, d, n, MPI_INT, comm));
            else if (mode == 1)
                CHECK_RC(MPI_Alltoall(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, d, n, MPI_INT, comm));
            else if (mode == 2)
                CHECK_RC(MPI_Alltoall(s, 1, vec, d, n, MPI_INT, comm));
            else
                CHECK_RC(MPI_Alltoall(s, n, MPI_INT, d, 1, vec, comm));
            for (int j = 0; j < p && !bad; j++)
                for (int i = 0; i < n && !bad; i++) {
                    size_t at = (size_t)j * n + i;
                    if (mode == 3)
                        bad = d[2 * at] != a2a_val(j, r, i) || d[2 * at + 1] != -9;
                    else
                        bad = d[at] != a2a_val(j, r, i);
                }
            for (size_t k = mode == 3 ? 2 * all : all; k < 2 * all && !bad; k++)
                bad = d[k] != -9;   /* nothing written past the blocks */
            EXPECT(!bad, "%s: Alltoall of %d ints, mode %d", what, n, mode);
        }
        CHECK_RC(MPI_Type_free(&vec));
        free(s);
        free(d);
    }
}

/* Allgather: rank r's block holds a2a_val(r, 0, i); blocks of 1 int (a
 * small step), 13 (52 B: the last small size), 300, 5000 (20000 B: several
 * steps of a 16 KiB chunk, more with the 4 KiB one) and 20000 ints (above
 * the default bounds: the point-to-point path unless the driver raises
 * them), contiguous, in place, a vector type (every second int) on the send
 * side or the receive side, and a vector at odd ranks only (the same
 * signature: one rank packs, the others copy). */
static void check_allgather(MPI_Comm comm, const char *what)
{
    static const int counts[] = {1, 13, 300, 5000, 20000};
    int r, p;

    MPI_Comm_rank(comm, &r);
    MPI_Comm_size(comm, &p);
    for (size_t ci = 0; ci < sizeof(counts) / sizeof(counts[0]); ci++) {
        int n = counts[ci];
        size_t all = (size_t)p * (size_t)n;
        int *s = malloc(2 * (size_t)n * sizeof(int)), *d = malloc(2 * all * sizeof(int));
        MPI_Datatype vec = every_second(n);

        if (!s || !d)
            TH_FAIL("out of memory");
        /* mode 0 contiguous, 1 in place, 2 vector sends, 3 vector receives,
         * 4 vector receives at odd ranks only */
        for (int mode = 0; mode < 5; mode++) {
            int bad = 0, vrecv = mode == 3 || (mode == 4 && r % 2);

            for (size_t k = 0; k < 2 * all; k++)
                d[k] = -9;
            for (size_t k = 0; k < 2 * (size_t)n; k++)
                s[k] = -9;
            for (int i = 0; i < n; i++) {
                if (mode == 2)
                    s[2 * (size_t)i] = a2a_val(r, 0, i);
                else if (mode == 1)
                    d[(size_t)r * n + i] = a2a_val(r, 0, i);
                else
                    s[i] = a2a_val(r, 0, i);
            }
            if (mode == 1)
                CHECK_RC(MPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, d, n, MPI_INT, comm));
            else if (mode == 2)
                CHECK_RC(MPI_Allgather(s, 1, vec, d, n, MPI_INT, comm));
            else if (vrecv)
                CHECK_RC(MPI_Allgather(s, n, MPI_INT, d, 1, vec, comm));
            else
                CHECK_RC(MPI_Allgather(s, n, MPI_INT, d, n, MPI_INT, comm));
            for (int j = 0; j < p && !bad; j++)
                for (int i = 0; i < n && !bad; i++) {
                    size_t at = (size_t)j * n + i;
                    if (vrecv)
                        bad = d[2 * at] != a2a_val(j, 0, i) || d[2 * at + 1] != -9;
                    else
                        bad = d[at] != a2a_val(j, 0, i);
                }
            for (size_t k = vrecv ? 2 * all : all; k < 2 * all && !bad; k++)
                bad = d[k] != -9;   /* nothing written past the blocks */
            EXPECT(!bad, "%s: Allgather of %d ints, mode %d", what, n, mode);
        }
        CHECK_RC(MPI_Type_free(&vec));
        free(s);
        free(d);
    }
}

/* Many small steps in a row (more than there are buffer sets of either
 * size: 4 small steps an iteration, 3200 against at most 2048 small sets),
 * their data checked: Reduce leaves and Bcast roots run ahead and reuse
 * sets; every 10th iteration a large Bcast (another kind of set) comes
 * between them. */
static void check_many_small(MPI_Comm comm)
{
    int r, p, big[4096];

    MPI_Comm_rank(comm, &r);
    MPI_Comm_size(comm, &p);
    for (int it = 0; it < 800; it++) {
        int root = it % p, v[2] = {r + it, r * it}, sum[2] = {-1, -1}, b = r == root ? it : -1;
        int want0 = 0, want1 = 0, a2a_in[64], a2a_out[64];
        int bad = 0;

        for (int j = 0; j < p; j++) {
            want0 += j + it;
            want1 += j * it;
        }
        CHECK_RC(MPI_Reduce(v, sum, 2, MPI_INT, MPI_SUM, root, comm));
        EXPECT(r != root || (sum[0] == want0 && sum[1] == want1),
               "iteration %d: Reduce to %d: %d %d, want %d %d", it, root, sum[0], sum[1], want0,
               want1);
        CHECK_RC(MPI_Bcast(&b, 1, MPI_INT, root, comm));
        EXPECT(b == it, "iteration %d: Bcast from %d: %d", it, root, b);
        CHECK_RC(MPI_Allreduce(v, sum, 2, MPI_INT, MPI_SUM, comm));
        EXPECT(sum[0] == want0 && sum[1] == want1, "iteration %d: Allreduce: %d %d", it, sum[0],
               sum[1]);
        for (int j = 0; j < p && j < 64; j++)
            a2a_in[j] = r * 1000 + j + it;
        if (p <= 64) {
            CHECK_RC(MPI_Alltoall(a2a_in, 1, MPI_INT, a2a_out, 1, MPI_INT, comm));
            for (int j = 0; j < p && !bad; j++)
                bad = a2a_out[j] != j * 1000 + r + it;
            EXPECT(!bad, "iteration %d: Alltoall of one int", it);
        }
        if (it % 10 == 0) {
            for (int i = 0; i < 4096; i++)
                big[i] = r == root ? i + it : -1;
            CHECK_RC(MPI_Bcast(big, 4096, MPI_INT, root, comm));
            for (int i = 0; i < 4096 && !bad; i++)
                bad = big[i] != i + it;
            EXPECT(!bad, "iteration %d: Bcast of 4096 ints from %d", it, root);
        }
    }
}

/* Collectives on the world, on halves of it and on a duplicate with a
 * nonblocking broadcast in flight, interleaved. */
static void check_interleaved(void)
{
    int r, p, v[64], w[64], sum;
    MPI_Comm half, dup;
    MPI_Request rq;

    MPI_Comm_rank(MPI_COMM_WORLD, &r);
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    CHECK_RC(MPI_Comm_split(MPI_COMM_WORLD, r % 2, r, &half));
    CHECK_RC(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
    for (int it = 0; it < 50; it++) {
        for (int i = 0; i < 64; i++)
            v[i] = r == 0 ? it * 64 + i : -1;
        CHECK_RC(MPI_Ibcast(v, 64, MPI_INT, 0, dup, &rq));
        CHECK_RC(MPI_Allreduce(&r, &sum, 1, MPI_INT, MPI_SUM, half));
        int want = 0;
        for (int j = r % 2; j < p; j += 2)
            want += j;
        EXPECT(sum == want, "Allreduce on half %d: %d, want %d", r % 2, sum, want);
        for (int i = 0; i < 64; i++)
            w[i] = r == p - 1 ? it + i : 0;
        CHECK_RC(MPI_Bcast(w, 64, MPI_INT, p - 1, MPI_COMM_WORLD));
        CHECK_RC(MPI_Barrier(dup));
        CHECK_RC(MPI_Wait(&rq, MPI_STATUS_IGNORE));
        int bad = 0;
        for (int i = 0; i < 64 && !bad; i++)
            bad = v[i] != it * 64 + i || w[i] != it + i;
        EXPECT(!bad, "iteration %d: a broadcast's data", it);
    }
    CHECK_RC(MPI_Comm_free(&half));
    CHECK_RC(MPI_Comm_free(&dup));
}

int main(int argc, char **argv)
{
    int p, shm;

    mt_init(&argc, &argv);
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    if (argc > 1 && !strcmp(argv[1], "idle")) {
        /* both ranks are up (the first collective goes by messages, the
         * second makes the segment); then rank 0 decides when a second has
         * passed; no transport traffic */
        CHECK_RC(MPI_Barrier(MPI_COMM_WORLD));
        CHECK_RC(MPI_Barrier(MPI_COMM_WORLD));
        double t0 = MPI_Wtime();
        int go = 1;
        while (go) {
            CHECK_RC(MPI_Barrier(MPI_COMM_WORLD));
            if (th_rank == 0)
                go = MPI_Wtime() - t0 < 1.0;
            CHECK_RC(MPI_Bcast(&go, 1, MPI_INT, 0, MPI_COMM_WORLD));
        }
        return mt_finish("mpi_collshm idle");
    }
    if (argc > 1 && !strcmp(argv[1], "pair")) {
        /* 2 ranks: Bcast of 256 KiB from each root and Reduce of 1 MiB,
         * checked; the driver reads from the shm counters which way the
         * Bcast went (RTM_MPI_BCAST_SHM_MAX_PAIR: one split message) */
        enum { BN = 65536, RN = 262144 };
        int *a = malloc(BN * sizeof(int)), *x = malloc(RN * sizeof(int));
        int *y = malloc(RN * sizeof(int)), bad = 0;

        if (a == NULL || x == NULL || y == NULL)
            TH_FAIL("no memory");
        CHECK_RC(MPI_Barrier(MPI_COMM_WORLD));
        CHECK_RC(MPI_Barrier(MPI_COMM_WORLD));   /* the segment exists */
        for (int it = 0; it < 4; it++) {
            int root = it % p;

            for (int i = 0; i < BN; i++)
                a[i] = th_rank == root ? i * 7 + it : -1;
            CHECK_RC(MPI_Bcast(a, BN, MPI_INT, root, MPI_COMM_WORLD));
            for (int i = 0; i < BN; i++)
                bad += a[i] != i * 7 + it;
            EXPECT(!bad, "Bcast %d of 256 KiB from %d: %d ints differ", it, root, bad);
            for (int i = 0; i < RN; i++)
                x[i] = i % PRIME + th_rank;
            memset(y, 0, RN * sizeof(int));
            CHECK_RC(MPI_Reduce(x, y, RN, MPI_INT, MPI_SUM, root, MPI_COMM_WORLD));
            if (th_rank == root)
                for (int i = 0; i < RN; i++)
                    bad += y[i] != p * (i % PRIME) + p * (p - 1) / 2;
            EXPECT(!bad, "Reduce %d of 1 MiB to %d: %d ints differ", it, root, bad);
        }
        free(a);
        free(x);
        free(y);
        return mt_finish("mpi_collshm pair");
    }
    if (argc > 1 && !strcmp(argv[1], "leak")) {
        /* 2 ranks. Rank 1 leaves the job while rank 0 is inside the
         * segment's setup: its file made and mapped, not yet unlinked, for
         * rank 0 waits for rank 1 in the setup's Allreduce. Rank 1 prints
         * the file's name; the script checks that it is gone after rtrun. */
        int pid0 = (int)getpid();
        char pid[16], name[512];

        CHECK_RC(MPI_Bcast(&pid0, 1, MPI_INT, 0, MPI_COMM_WORLD)); /* 1st: by messages */
        if (th_rank == 0) {
            MPI_Barrier(MPI_COMM_WORLD);    /* 2nd: makes the segment; rank 1 never comes */
            TH_FAIL("rank 0's Barrier returned without rank 1");
        }
        snprintf(pid, sizeof(pid), "%d", pid0);
        for (int i = 0; i < 60000 && mapped_segments(pid, name, sizeof(name)) <= 0; i++) {
            struct timespec ms = {0, 1000000};

            nanosleep(&ms, NULL);
        }
        if (mapped_segments(pid, name, sizeof(name)) <= 0)
            TH_FAIL("rank 0 (pid %s) mapped no collective segment in 60 s", pid);
        printf("segment %s\n", name);
        fflush(stdout);
        _exit(3);
    }
    if (argc < 3 || strcmp(argv[1], "data") != 0)
        TH_FAIL("usage: mpi_collshm data SHM | mpi_collshm idle | mpi_collshm leak");
    shm = atoi(argv[2]) && p > 1;
    EXPECT(segments() == 0, "no segment before a collective: %d", segments());
    CHECK_RC(MPI_Barrier(MPI_COMM_WORLD));
    EXPECT(segments() == 0, "no segment after one collective: %d", segments());
    CHECK_RC(MPI_Barrier(MPI_COMM_WORLD));
    EXPECT(segments() == shm, "the world's segment: %d mapped, want %d", segments(), shm);
    check_data(MPI_COMM_WORLD, "world");
    check_data(MPI_COMM_SELF, "self");
    check_alltoall(MPI_COMM_WORLD, "world");
    check_alltoall(MPI_COMM_SELF, "self");
    check_allgather(MPI_COMM_WORLD, "world");
    check_allgather(MPI_COMM_SELF, "self");
    check_many_small(MPI_COMM_WORLD);
    for (int i = 0; i < 20; i++) {
        MPI_Comm d;
        int one = 1, n = 0;

        CHECK_RC(MPI_Comm_dup(MPI_COMM_WORLD, &d));
        CHECK_RC(MPI_Allreduce(&one, &n, 1, MPI_INT, MPI_SUM, d));
        EXPECT(segments() == shm, "a duplicate used once: %d segments, want %d", segments(), shm);
        CHECK_RC(MPI_Allreduce(&one, &n, 1, MPI_INT, MPI_SUM, d));
        EXPECT(n == p, "Allreduce on a duplicate: %d", n);
        EXPECT(segments() == 2 * shm, "with a duplicate: %d segments, want %d", segments(),
               2 * shm);
        CHECK_RC(MPI_Comm_free(&d));
        EXPECT(segments() == shm, "duplicate freed: %d segments, want %d", segments(), shm);
    }
    {
        /* a communicator whose first collectives are Alltoalls gets a
         * segment at the second, as with the other shm collectives */
        MPI_Comm d;
        int one[64], got[64];

        for (int i = 0; i < 64; i++)
            one[i] = i;
        CHECK_RC(MPI_Comm_dup(MPI_COMM_WORLD, &d));
        CHECK_RC(MPI_Alltoall(one, 1, MPI_INT, got, 1, MPI_INT, d));
        CHECK_RC(MPI_Alltoall(one, 1, MPI_INT, got, 1, MPI_INT, d));
        EXPECT(segments() == 2 * shm, "a duplicate used by Alltoall: %d segments, want %d",
               segments(), 2 * shm);
        EXPECT(got[0] == th_rank && got[p - 1] == th_rank, "Alltoall on a duplicate: %d %d",
               got[0], got[p - 1]);
        CHECK_RC(MPI_Comm_free(&d));
    }
    if (p > 1)
        check_interleaved();
    EXPECT(segments() == shm, "at the end: %d segments, want %d", segments(), shm);
    return mt_finish("mpi_collshm");
}
