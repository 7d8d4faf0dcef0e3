/*
 * jacobi: Jacobi iteration for the Laplace equation on an NR x NC grid of
 * interior points, with Dirichlet boundary values u = x^2 - y^2 (a harmonic
 * function, so it is also the exact steady state of the discrete problem).
 *
 * The grid is split in blocks over a 2-D Cartesian communicator
 * (MPI_Dims_create, MPI_Cart_create, MPI_Cart_shift, not periodic, so ranks on
 * the border have MPI_PROC_NULL neighbours). Each iteration exchanges one-cell
 * halos: rows with MPI_Sendrecv, columns with MPI_Irecv/MPI_Isend of a
 * MPI_Type_vector column. Every CHECK_EVERY iterations MPI_Allreduce finds the
 * largest change; the iteration stops below TOL or after ITERS iterations.
 *
 * Check: every rank also runs the same iteration serially on the whole grid
 * (it is small) and compares its block point by point; the iteration counts
 * must agree and all values must lie between the boundary's extremes. Rank 0
 * prints PASS or FAIL.
 *
 *   jacobi [NR NC [ITERS [TOL]]] [--corrupt]
 *
 * --corrupt changes one halo value on the last rank once, so the check must
 * fail.
 *
 * Plain MPI: builds with any MPI's mpicc. The exit code is 0 only on PASS.
 */
#include <mpi.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHECK_EVERY 10

static double boundary(int gi, int gj, int nr, int nc)
{
    const double x = (double)gj / (nc + 1), y = (double)gi / (nr + 1);
    return x * x - y * y;
}

/* The stencil, one function for the serial and the parallel sweep so both
 * round identically. */
static double sweep(const double *u, double *unew, int rows, int cols, int ld)
{
    double change = 0.0;
    for (int i = 1; i <= rows; i++)
        for (int j = 1; j <= cols; j++) {
            const double v = 0.25 * (u[(i - 1) * ld + j] + u[(i + 1) * ld + j] +
                                     u[i * ld + j - 1] + u[i * ld + j + 1]);
            const double d = fabs(v - u[i * ld + j]);
            if (d > change)
                change = d;
            unew[i * ld + j] = v;
        }
    return change;
}

/* First global interior index and count of block c of n points over p blocks. */
static void block(int n, int p, int c, int *first_p, int *count_p)
{
    const int base = n / p, rem = n % p;
    *first_p = 1 + c * base + (c < rem ? c : rem);
    *count_p = base + (c < rem ? 1 : 0);
}

/* Fills a (rows+2) x (cols+2) array whose [1][1] is global point (gi0, gj0):
 * boundary values on the global border, 0 inside. */
static void init(double *u, int rows, int cols, int gi0, int gj0, int nr, int nc)
{
    const int ld = cols + 2;
    for (int i = 0; i < rows + 2; i++)
        for (int j = 0; j < cols + 2; j++) {
            const int gi = gi0 + i - 1, gj = gj0 + j - 1;
            const int border = gi == 0 || gi == nr + 1 || gj == 0 || gj == nc + 1;
            u[i * ld + j] = border ? boundary(gi, gj, nr, nc) : 0.0;
        }
}

static void *xcalloc(size_t n, size_t sz)
{
    void *p = calloc(n, sz);
    if (!p) {
        fprintf(stderr, "jacobi: out of memory\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    return p;
}

int main(int argc, char **argv)
{
    int rank, size, corrupt = 0, nargs = 0;
    int nr = 48, nc = 36, max_iters = 400;
    double tol = 1e-4;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--corrupt") == 0)
            corrupt = 1;
        else if (nargs == 0 && ++nargs)
            nr = atoi(argv[i]);
        else if (nargs == 1 && ++nargs)
            nc = atoi(argv[i]);
        else if (nargs == 2 && ++nargs)
            max_iters = atoi(argv[i]);
        else if (nargs == 3 && ++nargs)
            tol = atof(argv[i]);
    }

    /* Cartesian grid of ranks: dims[0] splits the rows, dims[1] the columns. */
    int dims[2] = {0, 0}, periods[2] = {0, 0}, coords[2], crank;
    MPI_Comm cart;
    MPI_Dims_create(size, 2, dims);
    if (nr < dims[0] || nc < dims[1] || max_iters < 1) {
        if (rank == 0)
            fprintf(stderr, "jacobi: a %d x %d grid cannot be split %d x %d\n", nr, nc,
                    dims[0], dims[1]);
        MPI_Finalize();
        return 2;
    }
    MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 1, &cart);
    MPI_Comm_rank(cart, &crank);
    MPI_Cart_coords(cart, crank, 2, coords);
    int up, down, left, right;
    MPI_Cart_shift(cart, 0, 1, &up, &down);
    MPI_Cart_shift(cart, 1, 1, &left, &right);

    int gi0, gj0, rows, cols;
    block(nr, dims[0], coords[0], &gi0, &rows);
    block(nc, dims[1], coords[1], &gj0, &cols);
    const int ld = cols + 2;
    double *u = xcalloc((size_t)(rows + 2) * ld, sizeof *u);
    double *unew = xcalloc((size_t)(rows + 2) * ld, sizeof *u);
    init(u, rows, cols, gi0, gj0, nr, nc);
    init(unew, rows, cols, gi0, gj0, nr, nc);

    /* One interior column of the local array: rows elements, ld apart. */
    MPI_Datatype column;
    MPI_Type_vector(rows, 1, ld, MPI_DOUBLE, &column);
    MPI_Type_commit(&column);

    MPI_Barrier(cart);
    const double t0 = MPI_Wtime();
    int iters = 0;
    double change = 0.0;
    while (iters < max_iters) {
        /* Rows: my first row goes up while the row below me arrives, and the
         * other way round. MPI_PROC_NULL neighbours leave the border alone. */
        MPI_Sendrecv(&u[1 * ld + 1], cols, MPI_DOUBLE, up, 0, &u[(rows + 1) * ld + 1], cols,
                     MPI_DOUBLE, down, 0, cart, MPI_STATUS_IGNORE);
        MPI_Sendrecv(&u[rows * ld + 1], cols, MPI_DOUBLE, down, 1, &u[0 * ld + 1], cols,
                     MPI_DOUBLE, up, 1, cart, MPI_STATUS_IGNORE);
        /* Columns: strided, with the vector type, nonblocking. */
        MPI_Request req[4];
        MPI_Status st[4]; /* not MPI_STATUSES_IGNORE: GCC 12 warns on MPICH's */
        MPI_Irecv(&u[1 * ld + 0], 1, column, left, 2, cart, &req[0]);
        MPI_Irecv(&u[1 * ld + cols + 1], 1, column, right, 3, cart, &req[1]);
        MPI_Isend(&u[1 * ld + cols], 1, column, right, 2, cart, &req[2]);
        MPI_Isend(&u[1 * ld + 1], 1, column, left, 3, cart, &req[3]);
        MPI_Waitall(4, req, st);
        if (corrupt && iters == 1 && crank == size - 1)
            u[1 * ld + 0] += 1.0; /* left halo, or the border if size is 1 */

        const double local = sweep(u, unew, rows, cols, ld);
        double *tmp = u;
        u = unew;
        unew = tmp;
        iters++;
        if (iters % CHECK_EVERY == 0) {
            MPI_Allreduce(&local, &change, 1, MPI_DOUBLE, MPI_MAX, cart);
            if (change < tol)
                break;
        }
    }
    const double t = MPI_Wtime() - t0;

    /* The same iteration on the whole grid, serially, with the same rule. */
    const int gld = nc + 2;
    double *g = xcalloc((size_t)(nr + 2) * gld, sizeof *g);
    double *gnew = xcalloc((size_t)(nr + 2) * gld, sizeof *g);
    init(g, nr, nc, 1, 1, nr, nc);
    init(gnew, nr, nc, 1, 1, nr, nc);
    int g_iters = 0;
    while (g_iters < max_iters) {
        const double c = sweep(g, gnew, nr, nc, gld);
        double *tmp = g;
        g = gnew;
        gnew = tmp;
        g_iters++;
        if (g_iters % CHECK_EVERY == 0 && c < tol)
            break;
    }

    double lo = 0.0, hi = 0.0, err = 0.0;
    for (int j = 0; j <= nc + 1; j++)
        for (int i = 0; i <= nr + 1; i += nr + 1) {
            const double b = boundary(i, j, nr, nc);
            lo = fmin(lo, b);
            hi = fmax(hi, b);
        }
    for (int i = 0; i <= nr + 1; i++)
        for (int j = 0; j <= nc + 1; j += nc + 1) {
            const double b = boundary(i, j, nr, nc);
            lo = fmin(lo, b);
            hi = fmax(hi, b);
        }
    int bounded = 1;
    for (int i = 1; i <= rows; i++)
        for (int j = 1; j <= cols; j++) {
            const double v = u[i * ld + j];
            const double d = fabs(v - g[(gi0 + i - 1) * gld + gj0 + j - 1]);
            if (!(d <= err)) /* also catches NaN */
                err = d;
            if (!(v >= lo && v <= hi))
                bounded = 0;
        }
    double max_err;
    int all_bounded;
    MPI_Allreduce(&err, &max_err, 1, MPI_DOUBLE, MPI_MAX, cart);
    MPI_Allreduce(&bounded, &all_bounded, 1, MPI_INT, MPI_LAND, cart);
    /* The distance to the exact steady state, for the report only: it depends
     * on the iteration count, not on the decomposition. */
    double exact = 0.0, max_exact;
    for (int i = 1; i <= rows; i++)
        for (int j = 1; j <= cols; j++)
            exact = fmax(exact, fabs(u[i * ld + j] - boundary(gi0 + i - 1, gj0 + j - 1, nr, nc)));
    MPI_Reduce(&exact, &max_exact, 1, MPI_DOUBLE, MPI_MAX, 0, cart);

    /* Same operations in the same order: the results should be identical;
     * the tolerance only allows for a compiler contracting differently. */
    const int ok = max_err <= 1e-12 && g_iters == iters && all_bounded;
    if (rank == 0) {
        printf("jacobi: %d x %d grid on %d x %d ranks, %d iterations (serial %d), "
               "last change %.3e, max |parallel - serial| %.3e, max |u - exact| %.3e, "
               "%s, %.3f s\n", nr, nc, dims[0], dims[1], iters, g_iters, change, max_err,
               max_exact, all_bounded ? "within bounds" : "OUT OF BOUNDS", t);
        printf("%s\n", ok ? "PASS" : "FAIL");
    }
    free(gnew);
    free(g);
    MPI_Type_free(&column);
    free(unew);
    free(u);
    MPI_Comm_free(&cart);
    MPI_Finalize();
    return ok ? 0 : 1;
}
