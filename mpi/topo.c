/*
 * Process topologies: Cartesian and distributed-graph communicators. Ranks
 * are never reordered (reorder is a hint MPI lets us ignore), so a
 * topology communicator keeps the ranks of its parent.
 */
#include "config.h"

#include "mpi_impl.h"

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
    free(t);
}

static int *dup_ints(const int *a, int n)
{
    int *b = malloc((size_t)(n > 0 ? n : 1) * sizeof(int));

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
    return n;
}

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
    t->periods = malloc((size_t)(ndims > 0 ? ndims : 1) * sizeof(int));
    t->coords = malloc((size_t)(ndims > 0 ? ndims : 1) * sizeof(int));
    if (!t->dims || !t->periods || !t->coords) {
        rtmpi_topo_free(t);
        return NULL;
    }
    for (int d = 0; d < ndims; d++)
        t->periods[d] = periods[d] ? 1 : 0;
    coords_of(ndims, dims, rank, t->coords);
    return t;
}

int PMPI_Cart_create(MPI_Comm comm_old, int ndims, const int dims[], const int periods[],
                     int reorder, MPI_Comm *comm_cart)
{
    long nnodes = 1;
    int rc;

    (void)reorder;
    RTMPI_ENTER();
    rtmpi_comm_t *c = rtmpi_comm_get(comm_old);
    if (!c)
        return rtmpi_error(MPI_COMM_NULL, __func__, MPI_ERR_COMM, "invalid communicator %d", comm_old);
    if (ndims < 0 || (ndims > 0 && (!dims || !periods)) || !comm_cart)
        return rtmpi_error(comm_old, __func__, MPI_ERR_ARG, "invalid ndims %d or NULL array", ndims);
    for (int d = 0; d < ndims; d++) {
        if (dims[d] <= 0)
            return rtmpi_error(comm_old, __func__, MPI_ERR_DIMS, "dims[%d] = %d", d, dims[d]);
        nnodes *= dims[d];
    }
    if (nnodes > c->size)
        return rtmpi_error(comm_old, __func__, MPI_ERR_TOPOLOGY,
                           "the grid has %ld points but the communicator only %d ranks", nnodes,
                           c->size);
    int rank = c->rank;
    rc = PMPI_Comm_split(comm_old, rank < nnodes ? 0 : MPI_UNDEFINED, rank, comm_cart);
    if (rc || *comm_cart == MPI_COMM_NULL)
        return rc;
    rtmpi_comm_t *n = rtmpi_comm_get(*comm_cart);
    n->topo = cart_new(ndims, dims, periods, n->rank);
    if (!n->topo) {
        PMPI_Comm_free(comm_cart);
        return rtmpi_error(comm_old, __func__, MPI_ERR_NO_MEM, "out of memory");
    }
    return MPI_SUCCESS;
}
RTMPI_WEAK(Cart_create)

#define GET_CART(_comm, _c) \
    rtmpi_comm_t *_c = rtmpi_comm_get(_comm); \
    if (!_c) \
        return rtmpi_error(MPI_COMM_NULL, __func__, MPI_ERR_COMM, "invalid communicator %d", _comm); \
    if (!_c->topo || _c->topo->kind != MPI_CART) \
        return rtmpi_error(_comm, __func__, MPI_ERR_TOPOLOGY, "not a Cartesian communicator")

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
    int coords[64], *cc = t->ndims <= 64 ? coords : malloc((size_t)t->ndims * sizeof(int));
    if (!cc)
        return rtmpi_error(comm, __func__, MPI_ERR_NO_MEM, "out of memory");
    int results[2], n = t->dims[direction];
    for (int k = 0; k < 2; k++) {
        int x = t->coords[direction] + (k == 0 ? -disp : disp);

        memcpy(cc, t->coords, (size_t)t->ndims * sizeof(int));
        if (t->periods[direction])
            x = ((x % n) + n) % n;
        if (x < 0 || x >= n) {
            results[k] = MPI_PROC_NULL;
            continue;
        }
        cc[direction] = x;
        int r = 0;
        for (int d = 0; d < t->ndims; d++)
            r = r * t->dims[d] + cc[d];
        results[k] = r;
    }
    if (cc != coords)
        free(cc);
    *rank_source = results[0];
    *rank_dest = results[1];
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
    if ((t->ndims > 0 && !remain_dims) || !newcomm)
        return rtmpi_error(comm, __func__, MPI_ERR_ARG, "remain_dims or newcomm is NULL");
    /* Ranks sharing the dropped coordinates form one sub-grid; the kept
     * coordinates order them, row-major like the parent. */
    int color = 0, key = 0, nd = 0;
    int *dims = malloc((size_t)(t->ndims + 1) * sizeof(int));
    int *periods = malloc((size_t)(t->ndims + 1) * sizeof(int));
    if (!dims || !periods) {
        free(dims);
        free(periods);
        return rtmpi_error(comm, __func__, MPI_ERR_NO_MEM, "out of memory");
    }
    for (int d = 0; d < t->ndims; d++) {
        if (remain_dims[d]) {
            key = key * t->dims[d] + t->coords[d];
            dims[nd] = t->dims[d];
            periods[nd++] = t->periods[d];
        } else {
            color = color * t->dims[d] + t->coords[d];
        }
    }
    int rc = PMPI_Comm_split(comm, color, key, newcomm);
    if (rc == MPI_SUCCESS && *newcomm != MPI_COMM_NULL) {
        rtmpi_comm_t *n = rtmpi_comm_get(*newcomm);

        n->topo = cart_new(nd, dims, periods, n->rank);
        if (!n->topo) {
            PMPI_Comm_free(newcomm);
            rc = rtmpi_error(comm, __func__, MPI_ERR_NO_MEM, "out of memory");
        }
    }
    free(dims);
    free(periods);
    return rc;
}
RTMPI_WEAK(Cart_sub)

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
    /* Prime factors, largest first, each onto the currently smallest free
     * dimension: the result is as balanced as the factors allow. */
    int f[64], nf = 0, *sizes = calloc((size_t)nfree, sizeof(int));
    if (!sizes)
        return rtmpi_error(MPI_COMM_NULL, __func__, MPI_ERR_NO_MEM, "out of memory");
    for (int p = 2; rest > 1 && nf < 64;) {
        if ((long)p * p > rest) {
            f[nf++] = rest;
            break;
        }
        if (rest % p == 0) {
            f[nf++] = p;
            rest /= p;
        } else {
            p++;
        }
    }
    for (int i = 0; i < nfree; i++)
        sizes[i] = 1;
    for (int k = nf - 1; k >= 0; k--) {
        int m = 0;

        for (int i = 1; i < nfree; i++)
            if (sizes[i] < sizes[m])
                m = i;
        sizes[m] *= f[k];
    }
    /* Free dimensions get non-increasing sizes. */
    for (int i = 0; i < nfree; i++)
        for (int j = i + 1; j < nfree; j++)
            if (sizes[j] > sizes[i]) {
                int t = sizes[i];
                sizes[i] = sizes[j];
                sizes[j] = t;
            }
    for (int d = 0, i = 0; d < ndims; d++)
        if (dims[d] == 0)
            dims[d] = sizes[i++];
    free(sizes);
    return MPI_SUCCESS;
}
RTMPI_WEAK(Dims_create)

int PMPI_Dist_graph_create_adjacent(MPI_Comm comm_old, int indegree, const int sources[],
                                    const int sourceweights[], int outdegree,
                                    const int destinations[], const int destweights[],
                                    MPI_Info info, int reorder, MPI_Comm *comm_dist_graph)
{
    (void)info;
    (void)reorder;
    RTMPI_ENTER();
    rtmpi_comm_t *c = rtmpi_comm_get(comm_old);
    if (!c)
        return rtmpi_error(MPI_COMM_NULL, __func__, MPI_ERR_COMM, "invalid communicator %d", comm_old);
    if (indegree < 0 || outdegree < 0 || !comm_dist_graph ||
        (indegree > 0 && !sources) || (outdegree > 0 && !destinations))
        return rtmpi_error(comm_old, __func__, MPI_ERR_ARG, "invalid degree or NULL array");
    for (int i = 0; i < indegree; i++)
        if (sources[i] < 0 || sources[i] >= c->size)
            return rtmpi_error(comm_old, __func__, MPI_ERR_RANK, "source %d out of range", sources[i]);
    for (int i = 0; i < outdegree; i++)
        if (destinations[i] < 0 || destinations[i] >= c->size)
            return rtmpi_error(comm_old, __func__, MPI_ERR_RANK, "destination %d out of range",
                               destinations[i]);
    int weighted = sourceweights != MPI_UNWEIGHTED && destweights != MPI_UNWEIGHTED;
    rtmpi_topo_t *t = calloc(1, sizeof(*t));
    if (!t)
        return rtmpi_error(comm_old, __func__, MPI_ERR_NO_MEM, "out of memory");
    t->kind = MPI_DIST_GRAPH;
    t->indegree = indegree;
    t->outdegree = outdegree;
    t->weighted = weighted;
    t->sources = dup_ints(sources, indegree);
    t->dests = dup_ints(destinations, outdegree);
    int ws_ok = weighted && sourceweights != MPI_WEIGHTS_EMPTY;
    int wd_ok = weighted && destweights != MPI_WEIGHTS_EMPTY;
    t->sourceweights = dup_ints(ws_ok ? sourceweights : NULL, ws_ok ? indegree : 0);
    t->destweights = dup_ints(wd_ok ? destweights : NULL, wd_ok ? outdegree : 0);
    int rc = PMPI_Comm_dup(comm_old, comm_dist_graph);
    if (rc) {
        rtmpi_topo_free(t);
        return rc;
    }
    rtmpi_comm_t *n = rtmpi_comm_get(*comm_dist_graph);
    rtmpi_topo_free(n->topo);
    n->topo = t;
    return MPI_SUCCESS;
}
RTMPI_WEAK(Dist_graph_create_adjacent)

#define GET_GRAPH(_comm, _c) \
    rtmpi_comm_t *_c = rtmpi_comm_get(_comm); \
    if (!_c) \
        return rtmpi_error(MPI_COMM_NULL, __func__, MPI_ERR_COMM, "invalid communicator %d", _comm); \
    if (!_c->topo || _c->topo->kind != MPI_DIST_GRAPH) \
        return rtmpi_error(_comm, __func__, MPI_ERR_TOPOLOGY, "not a distributed graph communicator")

int PMPI_Dist_graph_neighbors_count(MPI_Comm comm, int *indegree, int *outdegree, int *weighted)
{
    RTMPI_ENTER();
    GET_GRAPH(comm, c);
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
    GET_GRAPH(comm, c);
    rtmpi_topo_t *t = c->topo;
    int nin = maxindegree < t->indegree ? maxindegree : t->indegree;
    int nout = maxoutdegree < t->outdegree ? maxoutdegree : t->outdegree;
    if ((nin > 0 && !sources) || (nout > 0 && !destinations))
        return rtmpi_error(comm, __func__, MPI_ERR_ARG, "NULL array");
    for (int i = 0; i < nin; i++) {
        sources[i] = t->sources[i];
        if (t->weighted && sourceweights != MPI_UNWEIGHTED && sourceweights)
            sourceweights[i] = t->sourceweights[i];
    }
    for (int i = 0; i < nout; i++) {
        destinations[i] = t->dests[i];
        if (t->weighted && destweights != MPI_UNWEIGHTED && destweights)
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
