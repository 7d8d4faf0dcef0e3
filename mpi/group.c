/*
 * MPI groups: ordered lists of world ranks.
 */
#include "config.h"

#include "mpi_impl.h"

#include <stdlib.h>
#include <string.h>

typedef struct group {
    int  n;
    int *world_ranks;
} group_t;

static group_t **groups;
static int ngroups, groups_cap;
static group_t empty_group;

static group_t *group_get(MPI_Group g)
{
    if (g == MPI_GROUP_EMPTY)
        return &empty_group;
    if (g <= MPI_GROUP_EMPTY || g >= ngroups || !groups[g])
        return NULL;
    return groups[g];
}

int rtmpi_group_new(int n, const int *world_ranks, MPI_Group *group_p)
{
    group_t *g;
    int h = -1;

    if (n == 0) {
        *group_p = MPI_GROUP_EMPTY;
        return MPI_SUCCESS;
    }
    for (int i = MPI_GROUP_EMPTY + 1; i < ngroups && h < 0; i++)
        if (!groups[i])
            h = i;
    if (h < 0) {
        if (ngroups == groups_cap) {
            int cap = groups_cap ? groups_cap * 2 : 16;
            group_t **t = realloc(groups, (size_t)cap * sizeof(*t));

            if (!t)
                return MPI_ERR_NO_MEM;
            memset(t + groups_cap, 0, (size_t)(cap - groups_cap) * sizeof(*t));
            groups = t;
            groups_cap = cap;
        }
        if (ngroups == 0)
            ngroups = MPI_GROUP_EMPTY + 1;
        h = ngroups++;
    }
    g = malloc(sizeof(*g));
    if (!g)
        return MPI_ERR_NO_MEM;
    g->n = n;
    g->world_ranks = malloc((size_t)n * sizeof(int));
    if (!g->world_ranks) {
        free(g);
        return MPI_ERR_NO_MEM;
    }
    memcpy(g->world_ranks, world_ranks, (size_t)n * sizeof(int));
    groups[h] = g;
    *group_p = h;
    return MPI_SUCCESS;
}

void rtmpi_group_finalize(void)
{
    for (int i = 0; i < ngroups; i++) {
        if (groups[i]) {
            free(groups[i]->world_ranks);
            free(groups[i]);
        }
    }
    free(groups);
    groups = NULL;
    ngroups = groups_cap = 0;
}

#define GET_GROUP(_h, _g) \
    group_t *_g = group_get(_h); \
    if (!_g) \
        return rtmpi_error(MPI_COMM_NULL, __func__, MPI_ERR_GROUP, "invalid group %d", _h)

/* Position of world rank w in g, or MPI_UNDEFINED. */
static int rank_of(const group_t *g, int w)
{
    for (int i = 0; i < g->n; i++)
        if (g->world_ranks[i] == w)
            return i;
    return MPI_UNDEFINED;
}

static int make(const char *fn, int n, const int *ranks, MPI_Group *newgroup)
{
    int rc = rtmpi_group_new(n, ranks, newgroup);

    return rc ? rtmpi_error(MPI_COMM_NULL, fn, rc, "cannot create the group") : MPI_SUCCESS;
}

int PMPI_Group_size(MPI_Group group, int *size)
{
    RTMPI_ENTER();
    GET_GROUP(group, g);
    if (!size)
        return rtmpi_error(MPI_COMM_NULL, __func__, MPI_ERR_ARG, "size is NULL");
    *size = g->n;
    return MPI_SUCCESS;
}
RTMPI_WEAK(Group_size)

int PMPI_Group_rank(MPI_Group group, int *rank)
{
    RTMPI_ENTER();
    GET_GROUP(group, g);
    if (!rank)
        return rtmpi_error(MPI_COMM_NULL, __func__, MPI_ERR_ARG, "rank is NULL");
    *rank = rank_of(g, rtmpi_state.world_rank);
    return MPI_SUCCESS;
}
RTMPI_WEAK(Group_rank)

int PMPI_Group_incl(MPI_Group group, int n, const int ranks[], MPI_Group *newgroup)
{
    RTMPI_ENTER();
    GET_GROUP(group, g);
    if (n < 0 || n > g->n || (n > 0 && !ranks) || !newgroup)
        return rtmpi_error(MPI_COMM_NULL, __func__, MPI_ERR_ARG, "invalid n %d or NULL array", n);
    int *w = malloc((size_t)(n ? n : 1) * sizeof(int));
    if (!w)
        return rtmpi_error(MPI_COMM_NULL, __func__, MPI_ERR_NO_MEM, "out of memory");
    for (int i = 0; i < n; i++) {
        if (ranks[i] < 0 || ranks[i] >= g->n) {
            free(w);
            return rtmpi_error(MPI_COMM_NULL, __func__, MPI_ERR_RANK,
                               "rank %d not in a group of size %d", ranks[i], g->n);
        }
        w[i] = g->world_ranks[ranks[i]];
    }
    int rc = make(__func__, n, w, newgroup);
    free(w);
    return rc;
}
RTMPI_WEAK(Group_incl)

int PMPI_Group_excl(MPI_Group group, int n, const int ranks[], MPI_Group *newgroup)
{
    RTMPI_ENTER();
    GET_GROUP(group, g);
    if (n < 0 || n > g->n || (n > 0 && !ranks) || !newgroup)
        return rtmpi_error(MPI_COMM_NULL, __func__, MPI_ERR_ARG, "invalid n %d or NULL array", n);
    char *drop = calloc((size_t)g->n + 1, 1);
    int *w = malloc((size_t)g->n * sizeof(int) + 1);
    int m = 0;
    if (!drop || !w) {
        free(drop);
        free(w);
        return rtmpi_error(MPI_COMM_NULL, __func__, MPI_ERR_NO_MEM, "out of memory");
    }
    for (int i = 0; i < n; i++) {
        if (ranks[i] < 0 || ranks[i] >= g->n) {
            free(drop);
            free(w);
            return rtmpi_error(MPI_COMM_NULL, __func__, MPI_ERR_RANK,
                               "rank %d not in a group of size %d", ranks[i], g->n);
        }
        drop[ranks[i]] = 1;
    }
    for (int i = 0; i < g->n; i++)
        if (!drop[i])
            w[m++] = g->world_ranks[i];
    int rc = make(__func__, m, w, newgroup);
    free(drop);
    free(w);
    return rc;
}
RTMPI_WEAK(Group_excl)

/* The ranks a list of (first, last, stride) triplets names, in order. */
static int expand_ranges(const char *fn, const group_t *g, int n, int ranges[][3], int **out_p,
                         int *m_p)
{
    int m = 0, cap = 16;
    int *out = malloc((size_t)cap * sizeof(int));

    if (!out)
        return rtmpi_error(MPI_COMM_NULL, fn, MPI_ERR_NO_MEM, "out of memory");
    for (int i = 0; i < n; i++) {
        int first = ranges[i][0], last = ranges[i][1], stride = ranges[i][2];

        if (stride == 0 || first < 0 || first >= g->n || last < 0 || last >= g->n ||
            (stride > 0 && first > last) || (stride < 0 && first < last)) {
            free(out);
            return rtmpi_error(MPI_COMM_NULL, fn, MPI_ERR_ARG,
                               "invalid range (%d, %d, %d) for a group of size %d", first, last,
                               stride, g->n);
        }
        for (int r = first; stride > 0 ? r <= last : r >= last; r += stride) {
            if (m == cap) {
                int *t = realloc(out, (size_t)(cap *= 2) * sizeof(int));

                if (!t) {
                    free(out);
                    return rtmpi_error(MPI_COMM_NULL, fn, MPI_ERR_NO_MEM, "out of memory");
                }
                out = t;
            }
            out[m++] = r;
        }
    }
    *out_p = out;
    *m_p = m;
    return MPI_SUCCESS;
}

int PMPI_Group_range_incl(MPI_Group group, int n, int ranges[][3], MPI_Group *newgroup)
{
    int *r, m, rc;

    RTMPI_ENTER();
    GET_GROUP(group, g);
    if (n < 0 || (n > 0 && !ranges) || !newgroup)
        return rtmpi_error(MPI_COMM_NULL, __func__, MPI_ERR_ARG, "invalid arguments");
    if ((rc = expand_ranges(__func__, g, n, ranges, &r, &m)))
        return rc;
    rc = PMPI_Group_incl(group, m, r, newgroup);
    free(r);
    return rc;
}
RTMPI_WEAK(Group_range_incl)

int PMPI_Group_range_excl(MPI_Group group, int n, int ranges[][3], MPI_Group *newgroup)
{
    int *r, m, rc;

    RTMPI_ENTER();
    GET_GROUP(group, g);
    if (n < 0 || (n > 0 && !ranges) || !newgroup)
        return rtmpi_error(MPI_COMM_NULL, __func__, MPI_ERR_ARG, "invalid arguments");
    if ((rc = expand_ranges(__func__, g, n, ranges, &r, &m)))
        return rc;
    rc = PMPI_Group_excl(group, m, r, newgroup);
    free(r);
    return rc;
}
RTMPI_WEAK(Group_range_excl)

enum group_setop { SETOP_UNION, SETOP_INTERSECTION, SETOP_DIFFERENCE };

/* Order follows group1 (then group2 for the union), as MPI specifies. */
static int setop(const char *fn, MPI_Group group1, MPI_Group group2, enum group_setop op,
                 MPI_Group *newgroup)
{
    group_t *a = group_get(group1), *b = group_get(group2);

    if (!a || !b)
        return rtmpi_error(MPI_COMM_NULL, fn, MPI_ERR_GROUP, "invalid group");
    if (!newgroup)
        return rtmpi_error(MPI_COMM_NULL, fn, MPI_ERR_ARG, "newgroup is NULL");
    int *w = malloc((size_t)(a->n + b->n + 1) * sizeof(int));
    int m = 0;
    if (!w)
        return rtmpi_error(MPI_COMM_NULL, fn, MPI_ERR_NO_MEM, "out of memory");
    for (int i = 0; i < a->n; i++) {
        int in_b = rank_of(b, a->world_ranks[i]) != MPI_UNDEFINED;

        if (op == SETOP_UNION || (op == SETOP_INTERSECTION && in_b) ||
            (op == SETOP_DIFFERENCE && !in_b))
            w[m++] = a->world_ranks[i];
    }
    if (op == SETOP_UNION)
        for (int i = 0; i < b->n; i++)
            if (rank_of(a, b->world_ranks[i]) == MPI_UNDEFINED)
                w[m++] = b->world_ranks[i];
    int rc = make(fn, m, w, newgroup);
    free(w);
    return rc;
}

int PMPI_Group_union(MPI_Group group1, MPI_Group group2, MPI_Group *newgroup)
{
    RTMPI_ENTER();
    return setop(__func__, group1, group2, SETOP_UNION, newgroup);
}
RTMPI_WEAK(Group_union)

int PMPI_Group_intersection(MPI_Group group1, MPI_Group group2, MPI_Group *newgroup)
{
    RTMPI_ENTER();
    return setop(__func__, group1, group2, SETOP_INTERSECTION, newgroup);
}
RTMPI_WEAK(Group_intersection)

int PMPI_Group_difference(MPI_Group group1, MPI_Group group2, MPI_Group *newgroup)
{
    RTMPI_ENTER();
    return setop(__func__, group1, group2, SETOP_DIFFERENCE, newgroup);
}
RTMPI_WEAK(Group_difference)

int PMPI_Group_translate_ranks(MPI_Group group1, int n, const int ranks1[], MPI_Group group2,
                               int ranks2[])
{
    RTMPI_ENTER();
    GET_GROUP(group1, a);
    GET_GROUP(group2, b);
    if (n < 0 || (n > 0 && (!ranks1 || !ranks2)))
        return rtmpi_error(MPI_COMM_NULL, __func__, MPI_ERR_ARG, "invalid n or NULL array");
    for (int i = 0; i < n; i++) {
        if (ranks1[i] == MPI_PROC_NULL) {
            ranks2[i] = MPI_PROC_NULL;
            continue;
        }
        if (ranks1[i] < 0 || ranks1[i] >= a->n)
            return rtmpi_error(MPI_COMM_NULL, __func__, MPI_ERR_RANK,
                               "rank %d not in a group of size %d", ranks1[i], a->n);
        ranks2[i] = rank_of(b, a->world_ranks[ranks1[i]]);
    }
    return MPI_SUCCESS;
}
RTMPI_WEAK(Group_translate_ranks)

int PMPI_Group_compare(MPI_Group group1, MPI_Group group2, int *result)
{
    RTMPI_ENTER();
    GET_GROUP(group1, a);
    GET_GROUP(group2, b);
    if (!result)
        return rtmpi_error(MPI_COMM_NULL, __func__, MPI_ERR_ARG, "result is NULL");
    if (a->n != b->n) {
        *result = MPI_UNEQUAL;
        return MPI_SUCCESS;
    }
    if (a->n == 0 || !memcmp(a->world_ranks, b->world_ranks, (size_t)a->n * sizeof(int))) {
        *result = MPI_IDENT;
        return MPI_SUCCESS;
    }
    *result = MPI_SIMILAR;
    for (int i = 0; i < a->n; i++)
        if (rank_of(b, a->world_ranks[i]) == MPI_UNDEFINED)
            *result = MPI_UNEQUAL;
    return MPI_SUCCESS;
}
RTMPI_WEAK(Group_compare)

int PMPI_Group_free(MPI_Group *group)
{
    RTMPI_ENTER();
    if (!group)
        return rtmpi_error(MPI_COMM_NULL, __func__, MPI_ERR_ARG, "group is NULL");
    GET_GROUP(*group, g);
    if (*group != MPI_GROUP_EMPTY) {
        free(g->world_ranks);
        free(g);
        groups[*group] = NULL;
    }
    *group = MPI_GROUP_NULL;
    return MPI_SUCCESS;
}
RTMPI_WEAK(Group_free)

int rtmpi_group_members(MPI_Group group, int *n_p, const int **world_ranks_p)
{
    group_t *g = group_get(group);

    if (!g)
        return MPI_ERR_GROUP;
    *n_p = g->n;
    *world_ranks_p = g->world_ranks;
    return MPI_SUCCESS;
}
