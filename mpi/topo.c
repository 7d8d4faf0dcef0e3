/*
 * Process topologies: Cartesian, graph and distributed-graph communicators
 * (MPI 3.1 chapter 7; the neighbourhood collectives are coll_neighbor.c).
 * Ranks are never reordered (reorder is a hint MPI lets us ignore), so a
 * topology communicator keeps the ranks of its parent; Cart_map and
 * Graph_map say so.
 *
 * Every constructor is collective. A rank that finds its own arguments
 * invalid still takes part in one allreduce (topo_agree) before any
 * communicator is made, so under MPI_ERRORS_RETURN every rank returns an
 * error instead of the others waiting for it inside the creation.
 */
#include "config.h"

#include "topo.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

/* The objects whose addresses are MPI_UNWEIGHTED and MPI_WEIGHTS_EMPTY
 * (see mpi.h); only their addresses matter. */
int rtm_mpi_unweighted[1];
int rtm_mpi_weights_empty[1];

void rtmpi_topo_free(rtmpi_topo_t *t)
{
    if (!t)
        return;
    free(t->dims);
    free(t->periods);
    free(t->coords);
    free(t->sources);
    free(t->sourceweights);
    free(t->dests);
    free(t->destweights);
    free(t->index);
    free(t->edges);
    free(t);
}

/* A copy of a[0..n) (n may be 0: a 1-int block, never NULL unless out of
 * memory); a == NULL gives n zeros. */
static int *dup_ints(const int *a, int n)
{
    int *b = calloc((size_t)(n > 0 ? n : 1), sizeof(int));

    if (b && n > 0 && a)
        memcpy(b, a, (size_t)n * sizeof(int));
    return b;
}

rtmpi_topo_t *rtmpi_topo_copy(const rtmpi_topo_t *t)
{
    rtmpi_topo_t *n;

    if (!t || !(n = calloc(1, sizeof(*n))))
        return NULL;
    *n = *t;
    n->dims = dup_ints(t->dims, t->ndims);
    n->periods = dup_ints(t->periods, t->ndims);
    n->coords = dup_ints(t->coords, t->ndims);
    n->sources = dup_ints(t->sources, t->indegree);
    n->sourceweights = dup_ints(t->sourceweights, t->indegree);
    n->dests = dup_ints(t->dests, t->outdegree);
    n->destweights = dup_ints(t->destweights, t->outdegree);
    n->index = dup_ints(t->index, t->nnodes);
    n->edges = dup_ints(t->edges, t->nedges);
    if (!n->dims || !n->periods || !n->coords || !n->sources || !n->sourceweights ||
        !n->dests || !n->destweights || !n->index || !n->edges) {
        rtmpi_topo_free(n);
        return NULL;
    }
    return n;
}

/* ---- What every constructor shares ---- */

/* err: this rank's error class (already raised), 0 if its arguments were
 * fine. Returns err, or the class another rank found, for every rank. */
static int topo_agree(MPI_Comm comm, const char *fn, int err)
{
    rtmpi_comm_t *c = rtmpi_comm_get(comm);
    int mine[2] = { err, err ? c->rank : -1 }, all[2];
    int rc = PMPI_Allreduce(mine, all, 2, MPI_INT, MPI_MAX, comm);

    if (rc)
        return rc;
    if (err)
        return err;
    if (all[0])
        return rtmpi_error(comm, fn, all[0],
                           "rank %d of the communicator gave invalid arguments to this "
                           "collective call (see its message)", all[1]);
    return MPI_SUCCESS;
}

/* The communicator a constructor starts from, in *cp: an intracommunicator
 * (every member sees an intercommunicator: all fail alike). */
static int topo_comm_old(MPI_Comm comm_old, const char *fn, rtmpi_comm_t **cp)
{
    rtmpi_comm_t *c = rtmpi_comm_get(comm_old);

    if (!c)
        return rtmpi_error(MPI_COMM_NULL, fn, MPI_ERR_COMM, "invalid communicator %d", comm_old);
    if (c->inter)
        return rtmpi_error(comm_old, fn, MPI_ERR_COMM,
                           "communicator %d is an intercommunicator: it cannot have a topology",
                           comm_old);
    *cp = c;
    return MPI_SUCCESS;
}

/* The new communicator of a constructor: the first `members` ranks of
 * comm_old, in their order, with topology t (taken: freed on failure, or
 * when this rank is not a member and gets MPI_COMM_NULL). A split, not a
 * dup: a topology constructor copies no attribute (MPI 3.1 6.7.2). */
static int topo_comm_new(MPI_Comm comm_old, int members, rtmpi_topo_t *t, MPI_Comm *newcomm)
{
    rtmpi_comm_t *c = rtmpi_comm_get(comm_old);
    MPI_Comm n = MPI_COMM_NULL;
    int rc = PMPI_Comm_split(comm_old, c->rank < members ? 0 : MPI_UNDEFINED, c->rank, &n);

    if (rc || n == MPI_COMM_NULL) {
        rtmpi_topo_free(t);
        if (!rc)
            *newcomm = MPI_COMM_NULL;
        return rc;
    }
    rtmpi_comm_get(n)->topo = t;
    *newcomm = n;
    return MPI_SUCCESS;
}

/* A constructor's end: every rank agrees on rc (topo_agree), then the new
 * communicator (topo_comm_new); t is taken either way. */
static int topo_agree_new(MPI_Comm comm_old, const char *fn, int rc, int members,
                          rtmpi_topo_t *t, MPI_Comm *newcomm)
{
    if ((rc = topo_agree(comm_old, fn, rc))) {
        rtmpi_topo_free(t);
        return rc;
    }
    return topo_comm_new(comm_old, members, t, newcomm);
}

/* The arguments every map shares: comm, in *cp, and newrank. */
static int map_args(MPI_Comm comm, const char *fn, int *newrank, rtmpi_comm_t **cp)
{
    if (!(*cp = rtmpi_comm_get(comm)))
        return rtmpi_error(MPI_COMM_NULL, fn, MPI_ERR_COMM, "invalid communicator %d", comm);
    if (!newrank)
        return rtmpi_error(comm, fn, MPI_ERR_ARG, "newrank is NULL");
    return MPI_SUCCESS;
}

/* _c: _comm's, with a topology of _kind (else MPI_ERR_TOPOLOGY saying _what). */
#define GET_TOPO(_comm, _c, _kind, _what) \
    rtmpi_comm_t *_c = rtmpi_comm_get(_comm); \
    if (!_c) \
        return rtmpi_error(MPI_COMM_NULL, __func__, MPI_ERR_COMM, "invalid communicator %d", _comm); \
    if (!_c->topo || _c->topo->kind != (_kind)) \
        return rtmpi_error(_comm, __func__, MPI_ERR_TOPOLOGY, _what)

/* ---- Cartesian ---- */

/* Row-major coordinates of `rank` in a grid of dims. */
static void coords_of(int ndims, const int *dims, int rank, int *coords)
{
    for (int d = ndims - 1; d >= 0; d--) {
        coords[d] = rank % dims[d];
        rank /= dims[d];
    }
}

static rtmpi_topo_t *cart_new(int ndims, const int *dims, const int *periods, int rank)
{
    rtmpi_topo_t *t = calloc(1, sizeof(*t));

    if (!t)
        return NULL;
    t->kind = MPI_CART;
    t->ndims = ndims;
    t->dims = dup_ints(dims, ndims);
    t->periods = dup_ints(NULL, ndims);
    t->coords = dup_ints(NULL, ndims);
    if (!t->dims || !t->periods || !t->coords) {
        rtmpi_topo_free(t);
        return NULL;
    }
    for (int d = 0; d < ndims; d++)
        t->periods[d] = periods[d] ? 1 : 0;
    coords_of(ndims, dims, rank, t->coords);
    return t;
}

/* The checks of a grid (Cart_create, Cart_map); *nnodes_p its points. */
static int cart_check(MPI_Comm comm, const char *fn, rtmpi_comm_t *c, int ndims,
                      const int dims[], const int periods[], int *nnodes_p)
{
    long long nnodes = 1;

    if (ndims < 0 || (ndims > 0 && (!dims || !periods)))
        return rtmpi_error(comm, fn, MPI_ERR_ARG, "invalid ndims %d or NULL array", ndims);
    for (int d = 0; d < ndims; d++) {
        if (dims[d] <= 0)
            return rtmpi_error(comm, fn, MPI_ERR_DIMS, "dims[%d] = %d", d, dims[d]);
        if (nnodes <= c->size)   /* both at most INT_MAX: no overflow */
            nnodes *= dims[d];
    }
    if (nnodes > c->size)
        return rtmpi_error(comm, fn, MPI_ERR_TOPOLOGY,
                           "the grid has more points than the communicator's %d ranks",
                           c->size);
    *nnodes_p = (int)nnodes;
    return MPI_SUCCESS;
}

int PMPI_Cart_create(MPI_Comm comm_old, int ndims, const int dims[], const int periods[],
                     int reorder, MPI_Comm *comm_cart)
{
    int nnodes = 0, rc;

    (void)reorder;
    RTMPI_ENTER();
    rtmpi_comm_t *c;
    if ((rc = topo_comm_old(comm_old, __func__, &c)))
        return rc;
    rtmpi_topo_t *t = NULL;
    rc = !comm_cart ? rtmpi_error(comm_old, __func__, MPI_ERR_ARG, "comm_cart is NULL")
                    : cart_check(comm_old, __func__, c, ndims, dims, periods, &nnodes);
    if (!rc && c->rank < nnodes && !(t = cart_new(ndims, dims, periods, c->rank)))
        rc = rtmpi_error(comm_old, __func__, MPI_ERR_NO_MEM, "out of memory");
    return topo_agree_new(comm_old, __func__, rc, nnodes, t, comm_cart);
}
RTMPI_WEAK(Cart_create)

int PMPI_Cart_map(MPI_Comm comm, int ndims, const int dims[], const int periods[], int *newrank)
{
    int nnodes, rc;

    rtmpi_comm_t *c;

    RTMPI_ENTER();
    if ((rc = map_args(comm, __func__, newrank, &c)) ||
        (rc = cart_check(comm, __func__, c, ndims, dims, periods, &nnodes)))
        return rc;
    *newrank = c->rank < nnodes ? c->rank : MPI_UNDEFINED;
    return MPI_SUCCESS;
}
RTMPI_WEAK(Cart_map)

#define GET_CART(_comm, _c) GET_TOPO(_comm, _c, MPI_CART, "not a Cartesian communicator")

int PMPI_Cart_coords(MPI_Comm comm, int rank, int maxdims, int coords[])
{
    RTMPI_ENTER();
    GET_CART(comm, c);
    if (rank < 0 || rank >= c->size)
        return rtmpi_error(comm, __func__, MPI_ERR_RANK, "rank %d not in 0..%d", rank, c->size - 1);
    if (maxdims < c->topo->ndims || (c->topo->ndims > 0 && !coords))
        return rtmpi_error(comm, __func__, MPI_ERR_ARG, "maxdims %d < ndims %d", maxdims,
                           c->topo->ndims);
    coords_of(c->topo->ndims, c->topo->dims, rank, coords);
    return MPI_SUCCESS;
}
RTMPI_WEAK(Cart_coords)

int PMPI_Cart_rank(MPI_Comm comm, const int coords[], int *rank)
{
    RTMPI_ENTER();
    GET_CART(comm, c);
    if (!rank || (c->topo->ndims > 0 && !coords))
        return rtmpi_error(comm, __func__, MPI_ERR_ARG, "coords or rank is NULL");
    int r = 0;
    for (int d = 0; d < c->topo->ndims; d++) {
        int x = coords[d], n = c->topo->dims[d];

        if (c->topo->periods[d])
            x = ((x % n) + n) % n;
        else if (x < 0 || x >= n)
            return rtmpi_error(comm, __func__, MPI_ERR_ARG,
                               "coordinate %d of dimension %d outside 0..%d (not periodic)", x, d,
                               n - 1);
        r = r * n + x;
    }
    *rank = r;
    return MPI_SUCCESS;
}
RTMPI_WEAK(Cart_rank)

/* The rank at displacement disp from this rank along dimension dir, or
 * MPI_PROC_NULL off the end of a non-periodic dimension. */
static int cart_step(const rtmpi_topo_t *t, int dir, long long disp)
{
    long long n = t->dims[dir], x = t->coords[dir] + disp;
    int r = 0;

    if (t->periods[dir])
        x = ((x % n) + n) % n;
    else if (x < 0 || x >= n)
        return MPI_PROC_NULL;
    for (int d = 0; d < t->ndims; d++)
        r = r * t->dims[d] + (d == dir ? (int)x : t->coords[d]);
    return r;
}

int PMPI_Cart_shift(MPI_Comm comm, int direction, int disp, int *rank_source, int *rank_dest)
{
    RTMPI_ENTER();
    GET_CART(comm, c);
    rtmpi_topo_t *t = c->topo;
    if (direction < 0 || direction >= t->ndims)
        return rtmpi_error(comm, __func__, MPI_ERR_ARG, "direction %d not in 0..%d", direction,
                           t->ndims - 1);
    if (!rank_source || !rank_dest)
        return rtmpi_error(comm, __func__, MPI_ERR_ARG, "rank_source or rank_dest is NULL");
    *rank_source = cart_step(t, direction, -(long long)disp);
    *rank_dest = cart_step(t, direction, disp);
    return MPI_SUCCESS;
}
RTMPI_WEAK(Cart_shift)

int PMPI_Cart_get(MPI_Comm comm, int maxdims, int dims[], int periods[], int coords[])
{
    RTMPI_ENTER();
    GET_CART(comm, c);
    rtmpi_topo_t *t = c->topo;
    int n = maxdims < t->ndims ? maxdims : t->ndims;
    if (n > 0 && (!dims || !periods || !coords))
        return rtmpi_error(comm, __func__, MPI_ERR_ARG, "NULL array");
    for (int d = 0; d < n; d++) {
        dims[d] = t->dims[d];
        periods[d] = t->periods[d];
        coords[d] = t->coords[d];
    }
    return MPI_SUCCESS;
}
RTMPI_WEAK(Cart_get)

int PMPI_Cartdim_get(MPI_Comm comm, int *ndims)
{
    RTMPI_ENTER();
    GET_CART(comm, c);
    if (!ndims)
        return rtmpi_error(comm, __func__, MPI_ERR_ARG, "ndims is NULL");
    *ndims = c->topo->ndims;
    return MPI_SUCCESS;
}
RTMPI_WEAK(Cartdim_get)

int PMPI_Cart_sub(MPI_Comm comm, const int remain_dims[], MPI_Comm *newcomm)
{
    RTMPI_ENTER();
    GET_CART(comm, c);
    rtmpi_topo_t *t = c->topo;
    int rc = MPI_SUCCESS;
    if ((t->ndims > 0 && !remain_dims) || !newcomm)
        rc = rtmpi_error(comm, __func__, MPI_ERR_ARG, "remain_dims or newcomm is NULL");
    /* Ranks sharing the dropped coordinates form one sub-grid; the kept
     * coordinates order them, row-major like the parent. With no
     * dimension kept, each rank is a zero-dimensional grid of its own. */
    int color = 0, key = 0, nd = 0;
    int *dims = dup_ints(NULL, t->ndims), *periods = dup_ints(NULL, t->ndims);
    if (!rc && (!dims || !periods))
        rc = rtmpi_error(comm, __func__, MPI_ERR_NO_MEM, "out of memory");
    if ((rc = topo_agree(comm, __func__, rc)))
        goto out_free;
    for (int d = 0; d < t->ndims; d++) {
        if (remain_dims[d]) {
            key = key * t->dims[d] + t->coords[d];
            dims[nd] = t->dims[d];
            periods[nd++] = t->periods[d];
        } else {
            color = color * t->dims[d] + t->coords[d];
        }
    }
    MPI_Comm n = MPI_COMM_NULL;
    rc = PMPI_Comm_split(comm, color, key, &n);
    if (rc == MPI_SUCCESS) {
        rtmpi_comm_t *nc = rtmpi_comm_get(n);

        nc->topo = cart_new(nd, dims, periods, nc->rank);
        if (!nc->topo) {
            PMPI_Comm_free(&n);
            rc = rtmpi_error(comm, __func__, MPI_ERR_NO_MEM, "out of memory");
        } else {
            *newcomm = n;
        }
    }
out_free:
    free(dims);
    free(periods);
    return rc;
}
RTMPI_WEAK(Cart_sub)

/* ---- Dims_create ---- */

/* The largest prime factor of m among primes[0..np) (ascending, together
 * dividing every m asked about). */
static int largest_prime(int m, const int *primes, int np)
{
    for (int i = np - 1; i >= 0; i--)
        if (m % primes[i] == 0)
            return primes[i];
    return 1;
}

/* d^k >= m, without overflow. */
static int pow_at_least(int d, int k, int m)
{
    long long v = 1;

    for (int i = 0; i < k && v < m; i++)
        v *= d;
    return v >= m;
}

/* out[0..k): the non-increasing factorization of m into k factors, none
 * above cap, that is smallest in lexicographic order (the largest factor
 * as small as it can be, then the next, ...): the grid as close to a cube
 * as divisibility allows. divs: the divisors of the original number,
 * ascending. 0 when there is none. */
static int dims_fill(int m, int k, int cap, const int *divs, int ndivs, const int *primes,
                     int np, int *out)
{
    if (m == 1) {
        for (int i = 0; i < k; i++)
            out[i] = 1;
        return 1;
    }
    if (k == 0 || largest_prime(m, primes, np) > cap)
        return 0;
    for (int i = 0; i < ndivs && divs[i] <= cap; i++) {
        int d = divs[i];

        /* the largest factor is at least the k-th root of m */
        if (m % d || !pow_at_least(d, k, m))
            continue;
        if (dims_fill(m / d, k - 1, d, divs, ndivs, primes, np, out + 1)) {
            out[0] = d;
            return 1;
        }
    }
    return 0;
}

/* An int below 2^31 has at most 1600 divisors and 9 distinct primes. */
#define DIMS_MAX_DIVISORS 1600
#define DIMS_MAX_PRIMES   16

int PMPI_Dims_create(int nnodes, int ndims, int dims[])
{
    int rest = nnodes, nfree = 0;

    RTMPI_ENTER();
    if (nnodes <= 0 || ndims < 0 || (ndims > 0 && !dims))
        return rtmpi_error(MPI_COMM_NULL, __func__, MPI_ERR_ARG, "invalid nnodes %d or ndims %d",
                           nnodes, ndims);
    for (int d = 0; d < ndims; d++) {
        if (dims[d] < 0)
            return rtmpi_error(MPI_COMM_NULL, __func__, MPI_ERR_DIMS, "dims[%d] = %d", d, dims[d]);
        if (dims[d] > 0) {
            if (rest % dims[d])
                return rtmpi_error(MPI_COMM_NULL, __func__, MPI_ERR_DIMS,
                                   "%d nodes cannot be divided by the fixed dims", nnodes);
            rest /= dims[d];
        } else {
            nfree++;
        }
    }
    if (nfree == 0) {
        if (rest != 1)
            return rtmpi_error(MPI_COMM_NULL, __func__, MPI_ERR_DIMS,
                               "the fixed dims do not multiply to %d", nnodes);
        return MPI_SUCCESS;
    }
    int *divs = malloc((DIMS_MAX_DIVISORS + (size_t)nfree) * sizeof(int));
    if (!divs)
        return rtmpi_error(MPI_COMM_NULL, __func__, MPI_ERR_NO_MEM, "out of memory");
    int *sizes = divs + DIMS_MAX_DIVISORS, ndivs = 0, nhigh = 0;
    int primes[DIMS_MAX_PRIMES], np = 0;
    /* divisors up to the square root ascending, then their cofactors */
    for (int d = 1; (long long)d * d <= rest; d++)
        if (rest % d == 0)
            divs[ndivs++] = d;
    nhigh = ndivs;
    for (int i = nhigh - 1; i >= 0; i--)
        if ((long long)divs[i] * divs[i] != rest)
            divs[ndivs++] = rest / divs[i];
    for (int m = rest, p = 2; m > 1; p++) {
        if ((long long)p * p > m)
            p = m;
        if (m % p == 0) {
            primes[np++] = p;
            while (m % p == 0)
                m /= p;
        }
    }
    /* never fails: rest and nfree - 1 ones is one such factorization */
    dims_fill(rest, nfree, rest, divs, ndivs, primes, np, sizes);
    for (int d = 0, i = 0; d < ndims; d++)
        if (dims[d] == 0)
            dims[d] = sizes[i++];
    free(divs);
    return MPI_SUCCESS;
}
RTMPI_WEAK(Dims_create)

/* ---- Graph ---- */

static int graph_check(MPI_Comm comm, const char *fn, rtmpi_comm_t *c, int nnodes,
                       const int index[], const int edges[])
{
    if (nnodes < 0 || nnodes > c->size)
        return rtmpi_error(comm, fn, MPI_ERR_ARG, "nnodes %d not in 0..%d (the communicator's size)",
                           nnodes, c->size);
    if (nnodes == 0)
        return MPI_SUCCESS;
    if (!index)
        return rtmpi_error(comm, fn, MPI_ERR_ARG, "index is NULL");
    for (int i = 0; i < nnodes; i++)
        if (index[i] < (i ? index[i - 1] : 0))
            return rtmpi_error(comm, fn, MPI_ERR_ARG,
                               "index[%d] = %d is below the one before it (or 0)", i, index[i]);
    if (index[nnodes - 1] > 0 && !edges)
        return rtmpi_error(comm, fn, MPI_ERR_ARG, "edges is NULL");
    for (int j = 0; j < index[nnodes - 1]; j++)
        if (edges[j] < 0 || edges[j] >= nnodes)
            return rtmpi_error(comm, fn, MPI_ERR_ARG, "edges[%d] = %d is not a node (0..%d)", j,
                               edges[j], nnodes - 1);
    return MPI_SUCCESS;
}

int PMPI_Graph_create(MPI_Comm comm_old, int nnodes, const int index[], const int edges[],
                      int reorder, MPI_Comm *comm_graph)
{
    int rc;

    (void)reorder;
    RTMPI_ENTER();
    rtmpi_comm_t *c;
    if ((rc = topo_comm_old(comm_old, __func__, &c)))
        return rc;
    rtmpi_topo_t *t = NULL;
    rc = !comm_graph ? rtmpi_error(comm_old, __func__, MPI_ERR_ARG, "comm_graph is NULL")
                     : graph_check(comm_old, __func__, c, nnodes, index, edges);
    if (!rc && c->rank < nnodes) {
        t = calloc(1, sizeof(*t));
        if (t) {
            t->kind = MPI_GRAPH;
            t->nnodes = nnodes;
            t->nedges = index[nnodes - 1];
            t->index = dup_ints(index, nnodes);
            t->edges = dup_ints(edges, t->nedges);
        }
        if (!t || !t->index || !t->edges) {
            rtmpi_topo_free(t);
            t = NULL;
            rc = rtmpi_error(comm_old, __func__, MPI_ERR_NO_MEM, "out of memory");
        }
    }
    return topo_agree_new(comm_old, __func__, rc, nnodes, t, comm_graph);
}
RTMPI_WEAK(Graph_create)

int PMPI_Graph_map(MPI_Comm comm, int nnodes, const int index[], const int edges[], int *newrank)
{
    int rc;

    rtmpi_comm_t *c;

    RTMPI_ENTER();
    if ((rc = map_args(comm, __func__, newrank, &c)) ||
        (rc = graph_check(comm, __func__, c, nnodes, index, edges)))
        return rc;
    *newrank = c->rank < nnodes ? c->rank : MPI_UNDEFINED;
    return MPI_SUCCESS;
}
RTMPI_WEAK(Graph_map)

#define GET_GRAPH(_comm, _c) GET_TOPO(_comm, _c, MPI_GRAPH, "not a graph communicator")

int PMPI_Graphdims_get(MPI_Comm comm, int *nnodes, int *nedges)
{
    RTMPI_ENTER();
    GET_GRAPH(comm, c);
    if (!nnodes || !nedges)
        return rtmpi_error(comm, __func__, MPI_ERR_ARG, "nnodes or nedges is NULL");
    *nnodes = c->topo->nnodes;
    *nedges = c->topo->nedges;
    return MPI_SUCCESS;
}
RTMPI_WEAK(Graphdims_get)

int PMPI_Graph_get(MPI_Comm comm, int maxindex, int maxedges, int index[], int edges[])
{
    RTMPI_ENTER();
    GET_GRAPH(comm, c);
    rtmpi_topo_t *t = c->topo;
    int ni = maxindex < t->nnodes ? maxindex : t->nnodes;
    int ne = maxedges < t->nedges ? maxedges : t->nedges;
    if (maxindex < 0 || maxedges < 0 || (ni > 0 && !index) || (ne > 0 && !edges))
        return rtmpi_error(comm, __func__, MPI_ERR_ARG, "negative size (%d, %d) or NULL array",
                           maxindex, maxedges);
    if (ni > 0)
        memcpy(index, t->index, (size_t)ni * sizeof(int));
    if (ne > 0)
        memcpy(edges, t->edges, (size_t)ne * sizeof(int));
    return MPI_SUCCESS;
}
RTMPI_WEAK(Graph_get)

/* The neighbours of node `rank`: edges[first .. first + n). */
static void graph_node(const rtmpi_topo_t *t, int rank, int *first_p, int *n_p)
{
    int first = rank > 0 ? t->index[rank - 1] : 0;

    *first_p = first;
    *n_p = t->index[rank] - first;
}

int PMPI_Graph_neighbors_count(MPI_Comm comm, int rank, int *nneighbors)
{
    int first, n;

    RTMPI_ENTER();
    GET_GRAPH(comm, c);
    if (rank < 0 || rank >= c->size)
        return rtmpi_error(comm, __func__, MPI_ERR_RANK, "rank %d not in 0..%d", rank, c->size - 1);
    if (!nneighbors)
        return rtmpi_error(comm, __func__, MPI_ERR_ARG, "nneighbors is NULL");
    graph_node(c->topo, rank, &first, &n);
    *nneighbors = n;
    return MPI_SUCCESS;
}
RTMPI_WEAK(Graph_neighbors_count)

int PMPI_Graph_neighbors(MPI_Comm comm, int rank, int maxneighbors, int neighbors[])
{
    int first, n;

    RTMPI_ENTER();
    GET_GRAPH(comm, c);
    if (rank < 0 || rank >= c->size)
        return rtmpi_error(comm, __func__, MPI_ERR_RANK, "rank %d not in 0..%d", rank, c->size - 1);
    graph_node(c->topo, rank, &first, &n);
    if (maxneighbors < n)
        n = maxneighbors;
    if (maxneighbors < 0 || (n > 0 && !neighbors))
        return rtmpi_error(comm, __func__, MPI_ERR_ARG, "maxneighbors %d or NULL array",
                           maxneighbors);
    if (n > 0)
        memcpy(neighbors, c->topo->edges + first, (size_t)n * sizeof(int));
    return MPI_SUCCESS;
}
RTMPI_WEAK(Graph_neighbors)

/* ---- Distributed graph ---- */

/* weights given for `n` edges: MPI_UNWEIGHTED (*weighted_p = 0), or an
 * array (MPI_WEIGHTS_EMPTY or NULL only when n is 0). */
static int weights_check(MPI_Comm comm, const char *fn, const int *w, int n, const char *what,
                         int *weighted_p)
{
    *weighted_p = w != MPI_UNWEIGHTED;
    if (n > 0 && (w == NULL || w == MPI_WEIGHTS_EMPTY))
        return rtmpi_error(comm, fn, MPI_ERR_ARG, "%s is %s for %d edges", what,
                           w ? "MPI_WEIGHTS_EMPTY" : "NULL", n);
    return MPI_SUCCESS;
}

static int ranks_check(MPI_Comm comm, const char *fn, rtmpi_comm_t *c, const int *r, int n,
                       const char *what)
{
    for (int i = 0; i < n; i++)
        if (r[i] < 0 || r[i] >= c->size)
            return rtmpi_error(comm, fn, MPI_ERR_RANK, "%s[%d] = %d not in 0..%d", what, i, r[i],
                               c->size - 1);
    return MPI_SUCCESS;
}

static rtmpi_topo_t *dist_new(int indegree, int outdegree, int weighted)
{
    rtmpi_topo_t *t = calloc(1, sizeof(*t));

    if (!t)
        return NULL;
    t->kind = MPI_DIST_GRAPH;
    t->indegree = indegree;
    t->outdegree = outdegree;
    t->weighted = weighted;
    t->sources = dup_ints(NULL, indegree);
    t->sourceweights = dup_ints(NULL, indegree);
    t->dests = dup_ints(NULL, outdegree);
    t->destweights = dup_ints(NULL, outdegree);
    if (!t->sources || !t->sourceweights || !t->dests || !t->destweights) {
        rtmpi_topo_free(t);
        return NULL;
    }
    return t;
}

int PMPI_Dist_graph_create_adjacent(MPI_Comm comm_old, int indegree, const int sources[],
                                    const int sourceweights[], int outdegree,
                                    const int destinations[], const int destweights[],
                                    MPI_Info info, int reorder, MPI_Comm *comm_dist_graph)
{
    int rc, wsrc = 0, wdst = 0;
    rtmpi_topo_t *t = NULL;

    (void)info;
    (void)reorder;
    RTMPI_ENTER();
    rtmpi_comm_t *c;
    if ((rc = topo_comm_old(comm_old, __func__, &c)))
        return rc;
    if (indegree < 0 || outdegree < 0 || !comm_dist_graph ||
        (indegree > 0 && !sources) || (outdegree > 0 && !destinations))
        rc = rtmpi_error(comm_old, __func__, MPI_ERR_ARG, "invalid degree or NULL array");
    else if (!(rc = ranks_check(comm_old, __func__, c, sources, indegree, "sources")) &&
             !(rc = ranks_check(comm_old, __func__, c, destinations, outdegree, "destinations")) &&
             !(rc = weights_check(comm_old, __func__, sourceweights, indegree, "sourceweights",
                                  &wsrc)) &&
             !(rc = weights_check(comm_old, __func__, destweights, outdegree, "destweights",
                                  &wdst)) &&
             wsrc != wdst)
        rc = rtmpi_error(comm_old, __func__, MPI_ERR_ARG,
                         "MPI_UNWEIGHTED for one of sourceweights and destweights only");
    if (!rc && !(t = dist_new(indegree, outdegree, wsrc)))
        rc = rtmpi_error(comm_old, __func__, MPI_ERR_NO_MEM, "out of memory");
    if ((rc = topo_agree(comm_old, __func__, rc))) {
        rtmpi_topo_free(t);
        return rc;
    }
    for (int i = 0; i < indegree; i++) {
        t->sources[i] = sources[i];
        t->sourceweights[i] = wsrc ? sourceweights[i] : 1;
    }
    for (int i = 0; i < outdegree; i++) {
        t->dests[i] = destinations[i];
        t->destweights[i] = wdst ? destweights[i] : 1;
    }
    return topo_comm_new(comm_old, c->size, t, comm_dist_graph);
}
RTMPI_WEAK(Dist_graph_create_adjacent)

/* MPI_Dist_graph_create: any rank may name any edge. Each edge s -> d goes
 * to s (an out-edge) and to d (an in-edge) as one record; one alltoall of
 * counts and one alltoallv of records redistribute them. A rank then lists
 * its edges in the order the records arrive: by the rank that named them,
 * then in the order that rank named them. Both ends of every edge see the
 * same order, so the k-th of several edges between s and d is the k-th at
 * each end, which is how the neighbourhood collectives pair their blocks.
 */
enum { EDGE_IN, EDGE_OUT };
typedef struct dist_edge {
    int kind, peer, weight;
} dist_edge_t;
_Static_assert(sizeof(dist_edge_t) == 3 * sizeof(int), "an edge record travels as 3 MPI_INT");

static int dist_edges_check(MPI_Comm comm, const char *fn, rtmpi_comm_t *c, int n,
                            const int sources[], const int degrees[], const int destinations[],
                            const int weights[], long long *nedges_p, int *weighted_p)
{
    long long nedges = 0;
    int rc;

    if (n < 0 || (n > 0 && (!sources || !degrees)))
        return rtmpi_error(comm, fn, MPI_ERR_ARG, "invalid n %d or NULL array", n);
    for (int i = 0; i < n; i++) {
        if (degrees[i] < 0)
            return rtmpi_error(comm, fn, MPI_ERR_ARG, "degrees[%d] = %d", i, degrees[i]);
        nedges += degrees[i];
    }
    if (nedges > INT_MAX / 6)
        return rtmpi_error(comm, fn, MPI_ERR_ARG, "%lld edges: too many", nedges);
    if (nedges > 0 && !destinations)
        return rtmpi_error(comm, fn, MPI_ERR_ARG, "destinations is NULL");
    if ((rc = ranks_check(comm, fn, c, sources, n, "sources")) ||
        (rc = ranks_check(comm, fn, c, destinations, (int)nedges, "destinations")) ||
        (rc = weights_check(comm, fn, weights, (int)nedges, "weights", weighted_p)))
        return rc;
    *nedges_p = nedges;
    return MPI_SUCCESS;
}

int PMPI_Dist_graph_create(MPI_Comm comm_old, int n, const int sources[], const int degrees[],
                           const int destinations[], const int weights[], MPI_Info info,
                           int reorder, MPI_Comm *comm_dist_graph)
{
    long long nedges = 0;
    int weighted = 0, rc;

    (void)info;
    (void)reorder;
    RTMPI_ENTER();
    rtmpi_comm_t *c;
    if ((rc = topo_comm_old(comm_old, __func__, &c)))
        return rc;
    int p = c->size;
    rc = !comm_dist_graph ? rtmpi_error(comm_old, __func__, MPI_ERR_ARG, "comm_dist_graph is NULL")
                          : dist_edges_check(comm_old, __func__, c, n, sources, degrees,
                                             destinations, weights, &nedges, &weighted);
    /* counts and displacements out and in (in records), then the records */
    int *cnt = NULL;
    dist_edge_t *out = NULL, *in = NULL;
    if (!rc && (!(cnt = calloc((size_t)p * 4, sizeof(int))) ||
                !(out = malloc((size_t)(2 * nedges + 1) * sizeof(*out)))))
        rc = rtmpi_error(comm_old, __func__, MPI_ERR_NO_MEM, "out of memory");
    if ((rc = topo_agree(comm_old, __func__, rc)))
        goto out_free;
    int *scnt = cnt, *rcnt = cnt + p, *sdsp = cnt + 2 * p, *rdsp = cnt + 3 * p;
    for (int i = 0, e = 0; i < n; i++)
        for (int j = 0; j < degrees[i]; j++, e++) {
            scnt[sources[i]]++;
            scnt[destinations[e]]++;
        }
    if ((rc = PMPI_Alltoall(scnt, 1, MPI_INT, rcnt, 1, MPI_INT, comm_old)))
        goto out_free;
    long long nin = 0;
    for (int i = 0; i < p; i++)
        nin += rcnt[i];
    if (nin > INT_MAX / 3)
        rc = rtmpi_error(comm_old, __func__, MPI_ERR_ARG, "%lld edges at this rank: too many", nin);
    else if (!(in = malloc((size_t)(nin + 1) * sizeof(*in))))
        rc = rtmpi_error(comm_old, __func__, MPI_ERR_NO_MEM, "out of memory");
    if ((rc = topo_agree(comm_old, __func__, rc)))
        goto out_free;
    for (int i = 0, off = 0; i < p; i++) {
        sdsp[i] = off;
        off += scnt[i];
    }
    for (int i = 0, off = 0; i < p; i++) {
        rdsp[i] = off;
        off += rcnt[i];
    }
    /* fill in rank order: sdsp[] advances while filling, then is reset */
    for (int i = 0, e = 0; i < n; i++)
        for (int j = 0; j < degrees[i]; j++, e++) {
            int s = sources[i], d = destinations[e], w = weighted ? weights[e] : 1;

            out[sdsp[s]++] = (dist_edge_t){ EDGE_OUT, d, w };
            out[sdsp[d]++] = (dist_edge_t){ EDGE_IN, s, w };
        }
    for (int i = 0; i < p; i++)
        sdsp[i] -= scnt[i];
    for (int i = 0; i < 4 * p; i++)
        cnt[i] *= 3;   /* records as ints */
    rc = PMPI_Alltoallv(out, scnt, sdsp, MPI_INT, in, rcnt, rdsp, MPI_INT, comm_old);
    if (rc)
        goto out_free;
    int indeg = 0, outdeg = 0;
    for (long long k = 0; k < nin; k++) {
        if (in[k].kind == EDGE_IN)
            indeg++;
        else
            outdeg++;
    }
    rtmpi_topo_t *t = dist_new(indeg, outdeg, weighted);
    if (!t)
        rc = rtmpi_error(comm_old, __func__, MPI_ERR_NO_MEM, "out of memory");
    if ((rc = topo_agree(comm_old, __func__, rc))) {
        rtmpi_topo_free(t);
        goto out_free;
    }
    for (long long k = 0, a = 0, b = 0; k < nin; k++) {
        if (in[k].kind == EDGE_IN) {
            t->sources[a] = in[k].peer;
            t->sourceweights[a++] = in[k].weight;
        } else {
            t->dests[b] = in[k].peer;
            t->destweights[b++] = in[k].weight;
        }
    }
    rc = topo_comm_new(comm_old, p, t, comm_dist_graph);
out_free:
    free(in);
    free(out);
    free(cnt);
    return rc;
}
RTMPI_WEAK(Dist_graph_create)

#define GET_DIST(_comm, _c) \
    rtmpi_comm_t *_c = rtmpi_comm_get(_comm); \
    if (!_c) \
        return rtmpi_error(MPI_COMM_NULL, __func__, MPI_ERR_COMM, "invalid communicator %d", _comm); \
    if (!_c->topo || _c->topo->kind != MPI_DIST_GRAPH) \
        return rtmpi_error(_comm, __func__, MPI_ERR_TOPOLOGY, "not a distributed graph communicator")

int PMPI_Dist_graph_neighbors_count(MPI_Comm comm, int *indegree, int *outdegree, int *weighted)
{
    RTMPI_ENTER();
    GET_DIST(comm, c);
    if (!indegree || !outdegree || !weighted)
        return rtmpi_error(comm, __func__, MPI_ERR_ARG, "NULL argument");
    *indegree = c->topo->indegree;
    *outdegree = c->topo->outdegree;
    *weighted = c->topo->weighted;
    return MPI_SUCCESS;
}
RTMPI_WEAK(Dist_graph_neighbors_count)

int PMPI_Dist_graph_neighbors(MPI_Comm comm, int maxindegree, int sources[], int sourceweights[],
                              int maxoutdegree, int destinations[], int destweights[])
{
    RTMPI_ENTER();
    GET_DIST(comm, c);
    rtmpi_topo_t *t = c->topo;
    int nin = maxindegree < t->indegree ? maxindegree : t->indegree;
    int nout = maxoutdegree < t->outdegree ? maxoutdegree : t->outdegree;
    if (maxindegree < 0 || maxoutdegree < 0 || (nin > 0 && !sources) ||
        (nout > 0 && !destinations))
        return rtmpi_error(comm, __func__, MPI_ERR_ARG, "negative size or NULL array");
    /* weights only into a real array, and only of a weighted graph */
    int win = t->weighted && sourceweights && sourceweights != MPI_UNWEIGHTED &&
              sourceweights != MPI_WEIGHTS_EMPTY;
    int wout = t->weighted && destweights && destweights != MPI_UNWEIGHTED &&
               destweights != MPI_WEIGHTS_EMPTY;
    for (int i = 0; i < nin; i++) {
        sources[i] = t->sources[i];
        if (win)
            sourceweights[i] = t->sourceweights[i];
    }
    for (int i = 0; i < nout; i++) {
        destinations[i] = t->dests[i];
        if (wout)
            destweights[i] = t->destweights[i];
    }
    return MPI_SUCCESS;
}
RTMPI_WEAK(Dist_graph_neighbors)

int PMPI_Topo_test(MPI_Comm comm, int *status)
{
    RTMPI_ENTER();
    rtmpi_comm_t *c = rtmpi_comm_get(comm);
    if (!c)
        return rtmpi_error(MPI_COMM_NULL, __func__, MPI_ERR_COMM, "invalid communicator %d", comm);
    if (!status)
        return rtmpi_error(comm, __func__, MPI_ERR_ARG, "status is NULL");
    *status = c->topo ? c->topo->kind : MPI_UNDEFINED;
    return MPI_SUCCESS;
}
RTMPI_WEAK(Topo_test)

/* ---- Neighbours (topo.h) ---- */

void rtmpi_topo_degrees(const rtmpi_topo_t *t, int rank, int *nin_p, int *nout_p)
{
    int first, n;

    switch (t->kind) {
    case MPI_CART:
        *nin_p = *nout_p = 2 * t->ndims;
        break;
    case MPI_GRAPH:
        graph_node(t, rank, &first, &n);
        *nin_p = *nout_p = n;
        break;
    default:
        *nin_p = t->indegree;
        *nout_p = t->outdegree;
        break;
    }
}

/* Cartesian and graph neighbours are the same both ways. */
static int topo_neighbor(const rtmpi_topo_t *t, int rank, int k)
{
    int first, n;

    if (t->kind == MPI_CART)
        return cart_step(t, k / 2, k % 2 ? 1 : -1);
    graph_node(t, rank, &first, &n);
    return t->edges[first + k];
}

int rtmpi_topo_source(const rtmpi_topo_t *t, int rank, int k)
{
    return t->kind == MPI_DIST_GRAPH ? t->sources[k] : topo_neighbor(t, rank, k);
}

int rtmpi_topo_dest(const rtmpi_topo_t *t, int rank, int k)
{
    return t->kind == MPI_DIST_GRAPH ? t->dests[k] : topo_neighbor(t, rank, k);
}
