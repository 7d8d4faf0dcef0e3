/*
 * MPI collectives, blocking or (argument "nb") nonblocking, at small and
 * large sizes so both algorithms of each are exercised; MPI_IN_PLACE; a
 * non-commutative user op (2x2 integer matrix product, which shows any
 * reordering); every predefined op on a sample of types; MAXLOC/MINLOC;
 * a non-contiguous datatype. Data are checked element by element.
 */
#include "mpitest.h"

static int nb;   /* use the I* variants + MPI_Wait */

#define COLL(_blocking, _nonblocking) \
    do { \
        if (nb) { \
            MPI_Request rq_; \
            CHECK_RC(_nonblocking); \
            CHECK_RC(MPI_Wait(&rq_, MPI_STATUS_IGNORE)); \
        } else { \
            CHECK_RC(_blocking); \
        } \
    } while (0)

/* 2x2 matrices as 4 ints; inout = in x inout (MPI order) */
static void matmul(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    (void)dt;
    int *a = in, *b = inout;
    for (int k = 0; k < *len; k++, a += 4, b += 4) {
        int c[4] = { a[0] * b[0] + a[1] * b[2], a[0] * b[1] + a[1] * b[3],
                     a[2] * b[0] + a[3] * b[2], a[2] * b[1] + a[3] * b[3] };
        memcpy(b, c, sizeof(c));
    }
}

/* Rank r's matrix: [[1, r+1], [0, 1]] x ... products are order-sensitive
 * with a twist: use [[r+1, 1], [1, 0]] (Fibonacci-like, non-commuting). */
static void mat_of(int r, int *m)
{
    m[0] = r % 3 + 1; m[1] = 1; m[2] = 1; m[3] = 0;
}

static void mat_prod(int lo, int hi, int *out)   /* M_lo x ... x M_hi */
{
    int acc[4] = { 1, 0, 0, 1 }, m[4], n = 1;
    for (int r = lo; r <= hi; r++) {
        mat_of(r, m);
        /* acc = acc x m: matmul computes in x inout into inout */
        int t[4];
        memcpy(t, m, sizeof(t));
        matmul(acc, t, &n, NULL);
        memcpy(acc, t, sizeof(t));
    }
    memcpy(out, acc, sizeof(acc));
}

int main(int argc, char **argv)
{
    int p, r;

    mt_init(&argc, &argv);
    nb = argc > 1 && !strcmp(argv[1], "nb");
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    r = th_rank;
    MPI_Comm comm = MPI_COMM_WORLD;
    int sizes[] = { 1, 7, 40000 };

    COLL(MPI_Barrier(comm), MPI_Ibarrier(comm, &rq_));

    for (int si = 0; si < 3; si++) {
        int n = sizes[si];
        int *a = malloc((size_t)n * sizeof(int) * (size_t)p);
        int *b = malloc((size_t)n * sizeof(int) * (size_t)p);
        int ok;

        /* Bcast from every root */
        for (int root = 0; root < p; root++) {
            for (int i = 0; i < n; i++)
                a[i] = r == root ? i * 3 + root : -1;
            COLL(MPI_Bcast(a, n, MPI_INT, root, comm), MPI_Ibcast(a, n, MPI_INT, root, comm, &rq_));
            ok = 1;
            for (int i = 0; i < n; i++)
                ok &= a[i] == i * 3 + root;
            EXPECT(ok, "bcast n=%d root=%d", n, root);
        }

        /* Reduce (SUM) to every root, normal and IN_PLACE */
        for (int root = 0; root < p; root++) {
            for (int i = 0; i < n; i++) {
                a[i] = r + i;
                b[i] = -1;
            }
            COLL(MPI_Reduce(a, b, n, MPI_INT, MPI_SUM, root, comm),
                 MPI_Ireduce(a, b, n, MPI_INT, MPI_SUM, root, comm, &rq_));
            if (r == root) {
                ok = 1;
                for (int i = 0; i < n; i++)
                    ok &= b[i] == p * (p - 1) / 2 + p * i;
                EXPECT(ok, "reduce n=%d root=%d", n, root);
                for (int i = 0; i < n; i++)
                    b[i] = r + i;
            }
            COLL(MPI_Reduce(r == root ? MPI_IN_PLACE : a, b, n, MPI_INT, MPI_MAX, root, comm),
                 MPI_Ireduce(r == root ? MPI_IN_PLACE : a, b, n, MPI_INT, MPI_MAX, root, comm, &rq_));
            if (r == root) {
                ok = 1;
                for (int i = 0; i < n; i++)
                    ok &= b[i] == p - 1 + i;
                EXPECT(ok, "reduce in place n=%d root=%d", n, root);
            }
        }

        /* Allreduce, normal and IN_PLACE */
        for (int i = 0; i < n; i++)
            a[i] = r * 2 + i;
        COLL(MPI_Allreduce(a, b, n, MPI_INT, MPI_SUM, comm),
             MPI_Iallreduce(a, b, n, MPI_INT, MPI_SUM, comm, &rq_));
        ok = 1;
        for (int i = 0; i < n; i++)
            ok &= b[i] == p * (p - 1) + p * i;
        EXPECT(ok, "allreduce n=%d", n);
        COLL(MPI_Allreduce(MPI_IN_PLACE, a, n, MPI_INT, MPI_MIN, comm),
             MPI_Iallreduce(MPI_IN_PLACE, a, n, MPI_INT, MPI_MIN, comm, &rq_));
        ok = 1;
        for (int i = 0; i < n; i++)
            ok &= a[i] == i;
        EXPECT(ok, "allreduce in place n=%d", n);

        /* Gather / Scatter at root p-1 */
        int root = p - 1;
        for (int i = 0; i < n; i++)
            a[i] = r * 1000 + i;
        COLL(MPI_Gather(a, n, MPI_INT, b, n, MPI_INT, root, comm),
             MPI_Igather(a, n, MPI_INT, b, n, MPI_INT, root, comm, &rq_));
        if (r == root) {
            ok = 1;
            for (int k = 0; k < p; k++)
                for (int i = 0; i < n; i++)
                    ok &= b[k * n + i] == k * 1000 + i;
            EXPECT(ok, "gather n=%d", n);
            for (int k = 0; k < p; k++)
                for (int i = 0; i < n; i++)
                    b[k * n + i] = k * 7 + i;
        }
        COLL(MPI_Scatter(b, n, MPI_INT, a, n, MPI_INT, root, comm),
             MPI_Iscatter(b, n, MPI_INT, a, n, MPI_INT, root, comm, &rq_));
        ok = 1;
        for (int i = 0; i < n; i++)
            ok &= a[i] == r * 7 + i;
        EXPECT(ok, "scatter n=%d", n);

        /* Allgather, normal and IN_PLACE */
        for (int i = 0; i < n; i++)
            a[i] = r * 1000 + i;
        COLL(MPI_Allgather(a, n, MPI_INT, b, n, MPI_INT, comm),
             MPI_Iallgather(a, n, MPI_INT, b, n, MPI_INT, comm, &rq_));
        ok = 1;
        for (int k = 0; k < p; k++)
            for (int i = 0; i < n; i++)
                ok &= b[k * n + i] == k * 1000 + i;
        EXPECT(ok, "allgather n=%d", n);
        for (int k = 0; k < p; k++)
            for (int i = 0; i < n; i++)
                b[k * n + i] = k == r ? r * 5 + i : -1;
        COLL(MPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, b, n, MPI_INT, comm),
             MPI_Iallgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, b, n, MPI_INT, comm, &rq_));
        ok = 1;
        for (int k = 0; k < p; k++)
            for (int i = 0; i < n; i++)
                ok &= b[k * n + i] == k * 5 + i;
        EXPECT(ok, "allgather in place n=%d", n);

        /* Alltoall */
        for (int k = 0; k < p; k++)
            for (int i = 0; i < n; i++)
                a[k * n + i] = r * 100000 + k * 10 + i % 10;
        COLL(MPI_Alltoall(a, n, MPI_INT, b, n, MPI_INT, comm),
             MPI_Ialltoall(a, n, MPI_INT, b, n, MPI_INT, comm, &rq_));
        ok = 1;
        for (int k = 0; k < p; k++)
            for (int i = 0; i < n; i++)
                ok &= b[k * n + i] == k * 100000 + r * 10 + i % 10;
        EXPECT(ok, "alltoall n=%d", n);
        COLL(MPI_Alltoall(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, a, n, MPI_INT, comm),
             MPI_Ialltoall(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, a, n, MPI_INT, comm, &rq_));
        ok = 1;
        for (int k = 0; k < p; k++)
            for (int i = 0; i < n; i++)
                ok &= a[k * n + i] == k * 100000 + r * 10 + i % 10;
        EXPECT(ok, "alltoall in place n=%d", n);

        /* Reduce_scatter_block */
        for (int k = 0; k < p * n; k++)
            a[k] = r + k;
        COLL(MPI_Reduce_scatter_block(a, b, n, MPI_INT, MPI_SUM, comm),
             MPI_Ireduce_scatter_block(a, b, n, MPI_INT, MPI_SUM, comm, &rq_));
        ok = 1;
        for (int i = 0; i < n; i++)
            ok &= b[i] == p * (p - 1) / 2 + p * (r * n + i);
        EXPECT(ok, "reduce_scatter_block n=%d", n);

        /* Scan / Exscan */
        for (int i = 0; i < n; i++)
            a[i] = r + 1 + i;
        COLL(MPI_Scan(a, b, n, MPI_INT, MPI_SUM, comm), MPI_Iscan(a, b, n, MPI_INT, MPI_SUM, comm, &rq_));
        ok = 1;
        for (int i = 0; i < n; i++)
            ok &= b[i] == (r + 1) * (r + 2) / 2 + (r + 1) * i;
        EXPECT(ok, "scan n=%d", n);
        COLL(MPI_Exscan(a, b, n, MPI_INT, MPI_SUM, comm), MPI_Iexscan(a, b, n, MPI_INT, MPI_SUM, comm, &rq_));
        if (r > 0) {
            ok = 1;
            for (int i = 0; i < n; i++)
                ok &= b[i] == r * (r + 1) / 2 + r * i;
            EXPECT(ok, "exscan n=%d", n);
        }
        free(a);
        free(b);
    }

    /* v-variants with counts that differ per rank (rank k contributes k+1) */
    {
        int *counts = malloc((size_t)p * sizeof(int)), *displs = malloc((size_t)p * sizeof(int));
        int total = 0;
        for (int k = 0; k < p; k++) {
            counts[k] = k + 1;
            displs[k] = total + k;   /* a gap of k ints before each block */
            total += counts[k] + k;
        }
        int *mine = malloc((size_t)(r + 1) * sizeof(int)), *all = malloc((size_t)total * sizeof(int));
        for (int i = 0; i <= r; i++)
            mine[i] = r * 10 + i;
        for (int i = 0; i < total; i++)
            all[i] = -1;
        COLL(MPI_Allgatherv(mine, r + 1, MPI_INT, all, counts, displs, MPI_INT, comm),
             MPI_Iallgatherv(mine, r + 1, MPI_INT, all, counts, displs, MPI_INT, comm, &rq_));
        int ok = 1;
        for (int k = 0; k < p; k++)
            for (int i = 0; i < counts[k]; i++)
                ok &= all[displs[k] + i] == k * 10 + i;
        EXPECT(ok, "allgatherv");
        for (int i = 0; i < total; i++)
            all[i] = -1;
        COLL(MPI_Gatherv(mine, r + 1, MPI_INT, all, counts, displs, MPI_INT, 0, comm),
             MPI_Igatherv(mine, r + 1, MPI_INT, all, counts, displs, MPI_INT, 0, comm, &rq_));
        if (r == 0) {
            ok = 1;
            for (int k = 0; k < p; k++)
                for (int i = 0; i < counts[k]; i++)
                    ok &= all[displs[k] + i] == k * 10 + i;
            EXPECT(ok, "gatherv");
        }
        memset(mine, 0, (size_t)(r + 1) * sizeof(int));
        COLL(MPI_Scatterv(all, counts, displs, MPI_INT, mine, r + 1, MPI_INT, 0, comm),
             MPI_Iscatterv(all, counts, displs, MPI_INT, mine, r + 1, MPI_INT, 0, comm, &rq_));
        ok = 1;
        for (int i = 0; i <= r; i++)
            ok &= mine[i] == r * 10 + i;
        EXPECT(ok, "scatterv");

        /* Reduce_scatter with counts k+1 */
        int sum = 0;
        for (int k = 0; k < p; k++)
            sum += counts[k];
        int *in = malloc((size_t)sum * sizeof(int)), *out = malloc((size_t)(r + 1) * sizeof(int));
        for (int i = 0; i < sum; i++)
            in[i] = i + r;
        COLL(MPI_Reduce_scatter(in, out, counts, MPI_INT, MPI_SUM, comm),
             MPI_Ireduce_scatter(in, out, counts, MPI_INT, MPI_SUM, comm, &rq_));
        int off = r * (r + 1) / 2;
        ok = 1;
        for (int i = 0; i <= r; i++)
            ok &= out[i] == p * (off + i) + p * (p - 1) / 2;
        EXPECT(ok, "reduce_scatter");

        /* Alltoallv: rank r sends k+1 ints to rank k */
        int *sc = malloc((size_t)p * sizeof(int)), *sd = malloc((size_t)p * sizeof(int));
        int *rc = malloc((size_t)p * sizeof(int)), *rd = malloc((size_t)p * sizeof(int));
        int stot = 0, rtot = 0;
        for (int k = 0; k < p; k++) {
            sc[k] = k + 1; sd[k] = stot; stot += sc[k];
            rc[k] = r + 1; rd[k] = rtot; rtot += rc[k];
        }
        int *sb = malloc((size_t)stot * sizeof(int)), *rb = malloc((size_t)rtot * sizeof(int));
        for (int k = 0; k < p; k++)
            for (int i = 0; i < sc[k]; i++)
                sb[sd[k] + i] = r * 1000 + k * 10 + i;
        COLL(MPI_Alltoallv(sb, sc, sd, MPI_INT, rb, rc, rd, MPI_INT, comm),
             MPI_Ialltoallv(sb, sc, sd, MPI_INT, rb, rc, rd, MPI_INT, comm, &rq_));
        ok = 1;
        for (int k = 0; k < p; k++)
            for (int i = 0; i < rc[k]; i++)
                ok &= rb[rd[k] + i] == k * 1000 + r * 10 + i;
        EXPECT(ok, "alltoallv");
        /* Alltoallw with byte displacements and the same layout */
        MPI_Datatype *ty = malloc((size_t)p * sizeof(MPI_Datatype));
        for (int k = 0; k < p; k++) {
            ty[k] = MPI_INT;
            sd[k] *= (int)sizeof(int);
            rd[k] *= (int)sizeof(int);
        }
        memset(rb, 0, (size_t)rtot * sizeof(int));
        COLL(MPI_Alltoallw(sb, sc, sd, ty, rb, rc, rd, ty, comm),
             MPI_Ialltoallw(sb, sc, sd, ty, rb, rc, rd, ty, comm, &rq_));
        ok = 1;
        for (int k = 0; k < p; k++)
            for (int i = 0; i < rc[k]; i++)
                ok &= rb[rd[k] / (int)sizeof(int) + i] == k * 1000 + r * 10 + i;
        EXPECT(ok, "alltoallw");
        free(ty); free(sb); free(rb); free(sc); free(sd); free(rc); free(rd);
        free(in); free(out); free(counts); free(displs); free(mine); free(all);
    }

    /* Non-commutative user op: the product must come out in rank order */
    {
        MPI_Op op;
        MPI_Datatype mat;
        MPI_Type_contiguous(4, MPI_INT, &mat);
        MPI_Type_commit(&mat);
        CHECK_RC(MPI_Op_create(matmul, 0, &op));
        int m[4], res[4], want[4];
        mat_of(r, m);
        for (int root = 0; root < p; root++) {
            memset(res, 0, sizeof(res));
            COLL(MPI_Reduce(m, res, 1, mat, op, root, comm),
                 MPI_Ireduce(m, res, 1, mat, op, root, comm, &rq_));
            mat_prod(0, p - 1, want);
            if (r == root)
                EXPECT(!memcmp(res, want, sizeof(want)), "non-commutative reduce root %d: %d %d %d %d",
                       root, res[0], res[1], res[2], res[3]);
        }
        COLL(MPI_Allreduce(m, res, 1, mat, op, comm), MPI_Iallreduce(m, res, 1, mat, op, comm, &rq_));
        mat_prod(0, p - 1, want);
        EXPECT(!memcmp(res, want, sizeof(want)), "non-commutative allreduce");
        COLL(MPI_Scan(m, res, 1, mat, op, comm), MPI_Iscan(m, res, 1, mat, op, comm, &rq_));
        mat_prod(0, r, want);
        EXPECT(!memcmp(res, want, sizeof(want)), "non-commutative scan");
        COLL(MPI_Exscan(m, res, 1, mat, op, comm), MPI_Iexscan(m, res, 1, mat, op, comm, &rq_));
        if (r > 0) {
            mat_prod(0, r - 1, want);
            EXPECT(!memcmp(res, want, sizeof(want)), "non-commutative exscan");
        }
        int *mm = malloc(sizeof(int) * 4 * (size_t)p), one[4];
        for (int k = 0; k < p; k++)
            mat_of(r, &mm[4 * k]);
        COLL(MPI_Reduce_scatter_block(mm, one, 1, mat, op, comm),
             MPI_Ireduce_scatter_block(mm, one, 1, mat, op, comm, &rq_));
        mat_prod(0, p - 1, want);
        EXPECT(!memcmp(one, want, sizeof(want)), "non-commutative reduce_scatter_block");
        free(mm);
        MPI_Op_free(&op);
        MPI_Type_free(&mat);
    }

    /* Predefined ops on a sample of types */
    {
        long long ll = r + 1, llr;
        COLL(MPI_Allreduce(&ll, &llr, 1, MPI_LONG_LONG, MPI_PROD, comm),
             MPI_Iallreduce(&ll, &llr, 1, MPI_LONG_LONG, MPI_PROD, comm, &rq_));
        long long fact = 1;
        for (int k = 1; k <= p; k++)
            fact *= k;
        EXPECT(llr == fact, "PROD long long %lld", llr);
        double d = r + 0.5, dr;
        COLL(MPI_Allreduce(&d, &dr, 1, MPI_DOUBLE, MPI_MAX, comm),
             MPI_Iallreduce(&d, &dr, 1, MPI_DOUBLE, MPI_MAX, comm, &rq_));
        EXPECT(dr == p - 0.5, "MAX double %g", dr);
        unsigned u = 1u << (r % 31), ur;
        COLL(MPI_Allreduce(&u, &ur, 1, MPI_UNSIGNED, MPI_BOR, comm),
             MPI_Iallreduce(&u, &ur, 1, MPI_UNSIGNED, MPI_BOR, comm, &rq_));
        unsigned want = 0;
        for (int k = 0; k < p; k++)
            want |= 1u << (k % 31);
        EXPECT(ur == want, "BOR unsigned %x", ur);
        unsigned char by = 0xff, byr;
        COLL(MPI_Allreduce(&by, &byr, 1, MPI_BYTE, MPI_BAND, comm),
             MPI_Iallreduce(&by, &byr, 1, MPI_BYTE, MPI_BAND, comm, &rq_));
        EXPECT(byr == 0xff, "BAND byte");
        int x = r == 0, xr;
        COLL(MPI_Allreduce(&x, &xr, 1, MPI_INT, MPI_LXOR, comm),
             MPI_Iallreduce(&x, &xr, 1, MPI_INT, MPI_LXOR, comm, &rq_));
        EXPECT(xr == 1, "LXOR int");
        _Bool bl = r != 0 || p == 1, blr;
        COLL(MPI_Allreduce(&bl, &blr, 1, MPI_C_BOOL, MPI_LAND, comm),
             MPI_Iallreduce(&bl, &blr, 1, MPI_C_BOOL, MPI_LAND, comm, &rq_));
        EXPECT(blr == (p == 1), "LAND bool");
        float _Complex z = 1.0f + 1.0f * (float)r * 1.0if, zr;
        (void)z;
        double _Complex c = 1.0 + 0.0 * 1.0i, cr;
        COLL(MPI_Allreduce(&c, &cr, 1, MPI_C_DOUBLE_COMPLEX, MPI_SUM, comm),
             MPI_Iallreduce(&c, &cr, 1, MPI_C_DOUBLE_COMPLEX, MPI_SUM, comm, &rq_));
        EXPECT(__real__ cr == p, "SUM complex");
        (void)zr;
        struct { double v; int i; } dl = { (double)(r % 2), r }, dlr;
        COLL(MPI_Allreduce(&dl, &dlr, 1, MPI_DOUBLE_INT, MPI_MAXLOC, comm),
             MPI_Iallreduce(&dl, &dlr, 1, MPI_DOUBLE_INT, MPI_MAXLOC, comm, &rq_));
        EXPECT(dlr.v == (p > 1 ? 1.0 : 0.0) && dlr.i == (p > 1 ? 1 : 0), "MAXLOC %g/%d", dlr.v, dlr.i);
        struct { int v; int i; } il = { 5, r }, ilr;
        COLL(MPI_Allreduce(&il, &ilr, 1, MPI_2INT, MPI_MINLOC, comm),
             MPI_Iallreduce(&il, &ilr, 1, MPI_2INT, MPI_MINLOC, comm, &rq_));
        EXPECT(ilr.v == 5 && ilr.i == 0, "MINLOC tie -> lowest index %d", ilr.i);
    }

    /* Non-contiguous datatype through bcast and allreduce: every other double */
    {
        MPI_Datatype vec;
        MPI_Type_vector(50000, 1, 2, MPI_DOUBLE, &vec);
        MPI_Type_commit(&vec);
        double *v = malloc(100000 * sizeof(double));
        for (int i = 0; i < 100000; i++)
            v[i] = i % 2 ? -1.0 : (r == 0 ? i : 0.0);
        COLL(MPI_Bcast(v, 1, vec, 0, comm), MPI_Ibcast(v, 1, vec, 0, comm, &rq_));
        int ok = 1;
        for (int i = 0; i < 100000; i++)
            ok &= v[i] == (i % 2 ? -1.0 : (double)i);
        EXPECT(ok, "bcast of a vector type (gaps untouched)");
        COLL(MPI_Allreduce(MPI_IN_PLACE, v, 1, vec, MPI_SUM, comm),
             MPI_Iallreduce(MPI_IN_PLACE, v, 1, vec, MPI_SUM, comm, &rq_));
        ok = 1;
        for (int i = 0; i < 100000; i++)
            ok &= v[i] == (i % 2 ? -1.0 : (double)i * p);
        EXPECT(ok, "allreduce of a vector type");
        free(v);
        MPI_Type_free(&vec);
    }

    /* Several nonblocking collectives in flight at once, completed out of order */
    if (nb) {
        int x = r, s1, s2;
        int *g = malloc((size_t)p * sizeof(int));
        MPI_Request rq[3];
        CHECK_RC(MPI_Iallreduce(&x, &s1, 1, MPI_INT, MPI_SUM, comm, &rq[0]));
        CHECK_RC(MPI_Iallgather(&x, 1, MPI_INT, g, 1, MPI_INT, comm, &rq[1]));
        CHECK_RC(MPI_Iallreduce(&x, &s2, 1, MPI_INT, MPI_MAX, comm, &rq[2]));
        CHECK_RC(MPI_Wait(&rq[2], MPI_STATUS_IGNORE));
        CHECK_RC(MPI_Waitall(2, rq, MPI_STATUSES_IGNORE));
        EXPECT(s1 == p * (p - 1) / 2 && s2 == p - 1, "overlapping iallreduce %d %d", s1, s2);
        int ok = 1;
        for (int k = 0; k < p; k++)
            ok &= g[k] == k;
        EXPECT(ok, "overlapping iallgather");
        free(g);
    }
    return mt_finish(nb ? "mpi_coll nb" : "mpi_coll");
}
