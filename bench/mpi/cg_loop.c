/*
 * cg_loop: an HPCG-like compute-plus-collective loop, to compare what an
 * application of that shape gets from each MPI (issue 13's "HPCG-like loops
 * not slower than Open MPI", oversubscribed). MPI API only: builds with any
 * mpicc.
 *
 * The problem is HPCG's: the 27-point operator on a 3D grid (26 on the
 * diagonal, -1 to each of the 26 neighbours, zero outside the global box),
 * b = A * ones (from the global coordinates), solved from x = 0 by
 * preconditioned conjugate gradients.
 * The ranks split the global grid by MPI_Dims_create into boxes of NX^3
 * points each. Per iteration, as HPCG's CG does on its finest level:
 *
 *   z = M^-1 r   one symmetric Gauss-Seidel sweep on the rank's box
 *                (forward, halo exchange of z, backward; values across a
 *                rank boundary are the neighbour's, so between ranks it is
 *                block Jacobi, as in HPCG)
 *   rz = r.z     MPI_Allreduce of one double
 *   p = z + beta p, halo exchange of p, Ap = A p
 *   pAp = p.Ap   MPI_Allreduce
 *   x += alpha p, r -= alpha Ap
 *   |r|^2        MPI_Allreduce
 *
 * A halo exchange fills all 26 neighbours' planes, edges and corners in
 * three phases (x, then y with the x halo, then z with both), each an
 * MPI_Irecv + MPI_Isend pair per side and one MPI_Waitall: 2 messages per
 * dimension and side, faces of NX^2 doubles up to (NX+2)^2.
 *
 * Usage: mpirun -n N cg_loop [-n NX] [-i ITERS] [-r REPS]
 * Each repetition restarts from x = 0 and times ITERS iterations between two
 * barriers; value = the median time per iteration in microseconds
 * (bench=cg size=NX^3 ...). Rank 0 prints the relative residual and the
 * largest error against the exact solution (ones) of the last repetition on
 * a "# cg:" line, which must agree between MPIs (the reductions may sum in
 * another order: the digits after the tenth may differ).
 */
#define _POSIX_C_SOURCE 200809L   /* posix_memalign under -std=c11 */
#include "bench_common.h"

#include <math.h>
#include <stddef.h>

typedef struct grid {
    int n;                  /* points per edge of the rank's box */
    int s1, s2;             /* strides of y and z in the haloed array */
    size_t len;             /* (n+2)^3 */
    int nbr[3][2];          /* neighbour rank per dimension and side, or MPI_PROC_NULL */
    double *sbuf[2], *rbuf[2];
    MPI_Comm comm;
} grid_t;

#define IDX(g, i, j, k) ((size_t)(i) + (size_t)(j) * (size_t)(g)->s1 + (size_t)(k) * (size_t)(g)->s2)

/* The plane of dimension d at index `at` (0..n+1), over the ranges of the
 * other two dimensions given by lo/hi: packed into or unpacked from buf. */
static size_t plane(const grid_t *g, double *v, int d, int at, const int lo[3], const int hi[3],
                    double *buf, int pack)
{
    size_t m = 0;
    int r[3][2];

    for (int e = 0; e < 3; e++) {
        r[e][0] = lo[e];
        r[e][1] = hi[e];
    }
    r[d][0] = r[d][1] = at;
    for (int k = r[2][0]; k <= r[2][1]; k++)
        for (int j = r[1][0]; j <= r[1][1]; j++)
            for (int i = r[0][0]; i <= r[0][1]; i++) {
                size_t x = IDX(g, i, j, k);

                if (pack)
                    buf[m++] = v[x];
                else
                    v[x] = buf[m++];
            }
    return m;
}

/* Fills v's halo from the neighbours: x first, then y and z including the
 * halos already filled, so edges and corners arrive too. */
static void halo(grid_t *g, double *v)
{
    const int n = g->n;
    int lo[3] = { 1, 1, 1 }, hi[3] = { n, n, n };

    for (int d = 0; d < 3; d++) {
        MPI_Request rq[4];
        size_t m[2];

        for (int side = 0; side < 2; side++) {
            m[side] = plane(g, v, d, side ? n : 1, lo, hi, g->sbuf[side], 1);
            MPI_Irecv(g->rbuf[side], (int)m[side], MPI_DOUBLE, g->nbr[d][side], d, g->comm,
                      &rq[side]);
        }
        for (int side = 0; side < 2; side++)
            MPI_Isend(g->sbuf[side], (int)m[side], MPI_DOUBLE, g->nbr[d][side], d, g->comm,
                      &rq[2 + side]);
        MPI_Waitall(4, rq, MPI_STATUSES_IGNORE);
        for (int side = 0; side < 2; side++)
            if (g->nbr[d][side] != MPI_PROC_NULL)
                plane(g, v, d, side ? n + 1 : 0, lo, hi, g->rbuf[side], 0);
        /* the next dimensions carry this one's halo along */
        lo[d] = 0;
        hi[d] = n + 1;
    }
}

/* Sum of the 26 neighbours of point x. */
static inline double nbr_sum(const grid_t *g, const double *v, size_t x)
{
    double s = 0;

    for (int dk = -1; dk <= 1; dk++)
        for (int dj = -1; dj <= 1; dj++) {
            const double *row = v + x + (ptrdiff_t)dj * g->s1 + (ptrdiff_t)dk * g->s2;

            s += row[-1] + row[0] + row[1];
        }
    return s - v[x];
}

static void spmv(const grid_t *g, const double *v, double *out)
{
    for (int k = 1; k <= g->n; k++)
        for (int j = 1; j <= g->n; j++)
            for (int i = 1; i <= g->n; i++) {
                size_t x = IDX(g, i, j, k);

                out[x] = 26.0 * v[x] - nbr_sum(g, v, x);
            }
}

/* z = M^-1 r: one symmetric Gauss-Seidel sweep from z = 0. */
static void symgs(grid_t *g, const double *r, double *z)
{
    const int n = g->n;

    memset(z, 0, g->len * sizeof(*z));
    for (int k = 1; k <= n; k++)
        for (int j = 1; j <= n; j++)
            for (int i = 1; i <= n; i++) {
                size_t x = IDX(g, i, j, k);

                z[x] = (r[x] + nbr_sum(g, z, x)) / 26.0;
            }
    halo(g, z);
    for (int k = n; k >= 1; k--)
        for (int j = n; j >= 1; j--)
            for (int i = n; i >= 1; i--) {
                size_t x = IDX(g, i, j, k);

                z[x] = (r[x] + nbr_sum(g, z, x)) / 26.0;
            }
}

static double dot(const grid_t *g, const double *a, const double *b)
{
    double local = 0, all;

    for (int k = 1; k <= g->n; k++)
        for (int j = 1; j <= g->n; j++)
            for (int i = 1; i <= g->n; i++) {
                size_t x = IDX(g, i, j, k);

                local += a[x] * b[x];
            }
    MPI_Allreduce(&local, &all, 1, MPI_DOUBLE, MPI_SUM, g->comm);
    return all;
}

int main(int argc, char **argv)
{
    int n = 32, iters = 50, reps = 3, rank, size, dims[3] = { 0, 0, 0 }, periods[3] = { 0, 0, 0 };
    grid_t g;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    for (int a = 1; a < argc; a++) {
        if (!strcmp(argv[a], "-n") && a + 1 < argc) {
            n = bench_atoi_arg("cg_loop", "-n", argv[++a], 2, 512);
        } else if (!strcmp(argv[a], "-i") && a + 1 < argc) {
            iters = bench_atoi_arg("cg_loop", "-i", argv[++a], 1, 100000);
        } else if (!strcmp(argv[a], "-r") && a + 1 < argc) {
            reps = bench_atoi_arg("cg_loop", "-r", argv[++a], 1, BENCH_MAX_REPS);
        } else {
            if (rank == 0)
                fprintf(stderr, "usage: cg_loop [-n NX] [-i ITERS] [-r REPS]\n");
            MPI_Abort(MPI_COMM_WORLD, 2);
        }
    }
    MPI_Dims_create(size, 3, dims);
    MPI_Cart_create(MPI_COMM_WORLD, 3, dims, periods, 0, &g.comm);
    g.n = n;
    g.s1 = n + 2;
    g.s2 = (n + 2) * (n + 2);
    g.len = (size_t)(n + 2) * (size_t)g.s2;
    for (int d = 0; d < 3; d++)
        MPI_Cart_shift(g.comm, d, 1, &g.nbr[d][0], &g.nbr[d][1]);
    for (int side = 0; side < 2; side++) {
        g.sbuf[side] = bench_alloc((size_t)g.s2 * sizeof(double));
        g.rbuf[side] = bench_alloc((size_t)g.s2 * sizeof(double));
    }
    /* the six vectors in one block, a whole number of pages apart, so that
     * every MPI's run gets the same layout: allocated one by one, where the
     * allocator put them moved the time of one rank with no messages by ~3%
     * between two MPIs' runs */
    const size_t stride = (g.len * sizeof(double) + 4095) & ~(size_t)4095;
    char *blk = bench_alloc(6 * stride);
    double *x = (double *)(void *)blk, *b = (double *)(void *)(blk + stride),
           *r = (double *)(void *)(blk + 2 * stride), *z = (double *)(void *)(blk + 3 * stride),
           *p = (double *)(void *)(blk + 4 * stride), *ap = (double *)(void *)(blk + 5 * stride);
    double samples[BENCH_MAX_REPS], rel = 0, err = 0;

    /* b = A * ones: 26 less the neighbours inside the global box, from the
     * global coordinates and not by a halo exchange, so that an exchange
     * that delivered wrong values could not make a consistent wrong system
     * whose solution is still ones */
    int coords[3];
    MPI_Cart_coords(g.comm, rank, 3, coords);
    memset(b, 0, g.len * sizeof(double));
    for (int k = 1; k <= n; k++)
        for (int j = 1; j <= n; j++)
            for (int i = 1; i <= n; i++) {
                const int at[3] = { coords[0] * n + i - 1, coords[1] * n + j - 1,
                                    coords[2] * n + k - 1 };
                int inside = 1;

                for (int d = 0; d < 3; d++)
                    inside *= (at[d] > 0) + 1 + (at[d] < dims[d] * n - 1);
                b[IDX(&g, i, j, k)] = 26.0 - (inside - 1);
            }
    const double bnorm = sqrt(dot(&g, b, b));

    for (int rep = 0; rep < reps; rep++) {
        double rz = 0, rz_old = 0, rr = 0;

        memset(x, 0, g.len * sizeof(double));
        memset(p, 0, g.len * sizeof(double));
        memset(ap, 0, g.len * sizeof(double));
        memcpy(r, b, g.len * sizeof(double));
        MPI_Barrier(g.comm);
        double t0 = MPI_Wtime();

        for (int it = 0; it < iters; it++) {
            symgs(&g, r, z);
            rz = dot(&g, r, z);
            const double beta = it == 0 ? 0.0 : rz / rz_old;

            for (size_t q = 0; q < g.len; q++)
                p[q] = z[q] + beta * p[q];
            halo(&g, p);
            spmv(&g, p, ap);
            const double alpha = rz / dot(&g, p, ap);

            for (int k = 1; k <= n; k++)
                for (int j = 1; j <= n; j++)
                    for (int i = 1; i <= n; i++) {
                        size_t q = IDX(&g, i, j, k);

                        x[q] += alpha * p[q];
                        r[q] -= alpha * ap[q];
                    }
            rr = dot(&g, r, r);
            rz_old = rz;
        }
        MPI_Barrier(g.comm);
        samples[rep] = (MPI_Wtime() - t0) * 1e6 / iters;
        rel = sqrt(rr) / bnorm;
    }
    double local_err = 0;
    for (int k = 1; k <= n; k++)
        for (int j = 1; j <= n; j++)
            for (int i = 1; i <= n; i++) {
                double e = fabs(x[IDX(&g, i, j, k)] - 1.0);

                local_err = e > local_err ? e : local_err;
            }
    MPI_Reduce(&local_err, &err, 1, MPI_DOUBLE, MPI_MAX, 0, g.comm);
    if (rank == 0) {
        printf("# cg: %d ranks (%dx%dx%d), %d^3 points each, %d iterations: relative residual "
               "%.10e, largest error %.10e\n",
               size, dims[0], dims[1], dims[2], n, iters, rel, err);
        bench_report("cg", (long)n * n * n, samples, reps, iters, "us");
    }
    for (int side = 0; side < 2; side++) {
        free(g.sbuf[side]);
        free(g.rbuf[side]);
    }
    free(blk);
    MPI_Comm_free(&g.comm);
    MPI_Finalize();
    return 0;
}
