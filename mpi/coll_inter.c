/*
 * Collectives on intercommunicators (MPI 3.1 5.2.2), blocking and
 * nonblocking from one builder each, as on intracommunicators. Every
 * message goes over the bridge (intercomm.h), named by bridge rank:
 * LOCAL(i) and REMOTE(j) below.
 *
 * Rooted operations follow the standard's convention: in the root's group
 * the root passes MPI_ROOT and the others MPI_PROC_NULL (they take no
 * part); in the other group every process passes the root's rank in the
 * remote group. Data moves between the groups: a root's buffer holds one
 * block per remote process; an all-to-all operation's result in one group
 * comes from the other group's processes.
 *
 * The algorithms: Barrier is a dissemination over both groups; Bcast goes
 * from the root to the remote group's rank 0 and down a binomial tree
 * there; Gather(v) and Scatter(v) are linear at the root; Allgather(v) and
 * Alltoall(v,w) exchange directly between every pair of a local and a
 * remote process; Reduce is a binomial-tree reduction (in rank order, so
 * for any op) to the non-root group's rank 0, which sends the result to
 * the root; Allreduce and Reduce_scatter(_block) reduce in each group to
 * its rank 0, the two ranks 0 swap their results, and each spreads the
 * other group's result through its own group (a tree, a scatterv). Scan
 * and Exscan are not defined on intercommunicators (MPI_ERR_COMM, in
 * coll_scan.c).
 */
#include "config.h"

#include "coll.h"
#include "intercomm.h"

#include <limits.h>

#define LOCAL(_ci, _i)  rtmpi_inter_local_br((_ci)->c, (_i))
#define REMOTE(_ci, _j) rtmpi_inter_remote_br((_ci)->c, (_j))
#define LSIZE(_ci)      ((_ci)->c->inter->local_size)

/* The root argument: MPI_ROOT, MPI_PROC_NULL or a rank of the remote group
 * (ci->size is the remote group's). */
static int check_root(const char *fn, cinfo_t *ci, int root)
{
    if (root == MPI_ROOT || root == MPI_PROC_NULL || (root >= 0 && root < ci->size))
        return MPI_SUCCESS;
    return FAIL(ci, fn, MPI_ERR_ROOT, "root %d is not MPI_ROOT, MPI_PROC_NULL or a rank of the "
                "remote group (0..%d) of this intercommunicator", root, ci->size - 1);
}

static int no_in_place(const char *fn, cinfo_t *ci, const void *sbuf, const void *rbuf)
{
    if (sbuf == MPI_IN_PLACE || rbuf == MPI_IN_PLACE)
        return FAIL(ci, fn, MPI_ERR_BUFFER, "MPI_IN_PLACE is not valid on an intercommunicator");
    return MPI_SUCCESS;
}

/* Counts of the local group (reduce_scatter's), which ci->size is not. */
static int check_local_counts(const char *fn, cinfo_t *ci, const int *counts, MPI_Count *total_p)
{
    MPI_Count total = 0;

    if (!counts)
        return FAIL(ci, fn, MPI_ERR_ARG, "receive counts are NULL");
    for (int i = 0; i < LSIZE(ci); i++) {
        if (counts[i] < 0)
            return FAIL(ci, fn, MPI_ERR_COUNT, "negative receive count %d for rank %d",
                        counts[i], i);
        total += counts[i];
    }
    *total_p = total;
    return MPI_SUCCESS;
}

/* buf from the local group's rank 0 to all its ranks, down a binomial tree. */
static void local_bcast(rtmpi_sched_t *s, cinfo_t *ci, void *buf, MPI_Count count,
                        MPI_Datatype dt)
{
    int n = LSIZE(ci), r = ci->rank, bit;

    rtmpi_sched_round(s);
    for (bit = 1; bit < n; bit <<= 1) {
        if (r & bit) {
            rtmpi_sched_recv(s, buf, count, dt, LOCAL(ci, r - bit));
            rtmpi_sched_round(s);
            break;
        }
    }
    for (bit >>= 1; bit > 0; bit >>= 1)
        if (r + bit < n)
            rtmpi_sched_send(s, buf, count, dt, LOCAL(ci, r + bit));
    rtmpi_sched_round(s);
}

/* The reduction of the local group's sbufs, in rank order, at its rank 0:
 * rank r combines what it holds (ranks r..r+bit-1) with what r + bit holds
 * (the ranks after), so any op is applied in the order MPI defines. Returns
 * where the result will be at rank 0 once the schedule has run (sbuf
 * itself in a group of one), NULL at the other ranks or out of memory. */
static const void *local_reduce(rtmpi_sched_t *s, cinfo_t *ci, const void *sbuf,
                                MPI_Count count, MPI_Datatype dt, MPI_Op op)
{
    int n = LSIZE(ci), r = ci->rank;
    const void *acc = sbuf;

    rtmpi_sched_round(s);
    for (int bit = 1; bit < n; bit <<= 1) {
        if (r & bit) {
            rtmpi_sched_send(s, acc, count, dt, LOCAL(ci, r - bit));
            rtmpi_sched_round(s);
            return NULL;
        }
        if (r + bit < n) {
            void *tmp = rtmpi_sched_tmp_dt(s, count, dt);

            if (!tmp)
                return NULL;
            rtmpi_sched_recv(s, tmp, count, dt, LOCAL(ci, r + bit));
            rtmpi_sched_round(s);
            rtmpi_sched_reduce(s, acc, tmp, count, dt, op);   /* tmp = acc op tmp */
            acc = tmp;
        }
    }
    rtmpi_sched_round(s);
    return acc;
}

/* ---- Barrier ---- */

int icoll_barrier(const char *fn, cinfo_t *ci, MPI_Request *request)
{
    int p = LSIZE(ci) + ci->size, r = LOCAL(ci, ci->rank);

    NEW_SCHED(s);
    for (int k = 1; k < p; k <<= 1) {
        rtmpi_sched_send(s, NULL, 0, MPI_BYTE, (r + k) % p);
        rtmpi_sched_recv(s, NULL, 0, MPI_BYTE, (r - k + p) % p);
        rtmpi_sched_round(s);
    }
    return coll_launch(fn, ci, s, rtmpi_sched_failed(s), request);
}

/* ---- Bcast ---- */

int icoll_bcast(const char *fn, cinfo_t *ci, void *buf, int count, MPI_Datatype dt, int root,
                MPI_Request *request)
{
    int rc;

    if ((rc = check_root(fn, ci, root)))
        return rc;
    if (root != MPI_PROC_NULL && (rc = coll_check_buf(fn, ci, buf, count, dt, NULL, "")))
        return rc;
    NEW_SCHED(s);
    if (root == MPI_ROOT) {
        rtmpi_sched_send(s, buf, count, dt, REMOTE(ci, 0));
    } else if (root != MPI_PROC_NULL) {
        if (ci->rank == 0)
            rtmpi_sched_recv(s, buf, count, dt, REMOTE(ci, root));
        local_bcast(s, ci, buf, count, dt);
    }
    return coll_launch(fn, ci, s, rtmpi_sched_failed(s), request);
}

/* ---- Gather(v), Scatter(v) ---- */

/* The buffer of ci->size blocks (the remote group's): counts and displs
 * when counts is not NULL (a v-form), else `count` each. */
static int vblocks(const char *fn, cinfo_t *ci, const void *buf, const int *counts,
                   const int *displs, int count, MPI_Datatype dt, const char *what)
{
    int rc;

    if (counts)
        return (rc = coll_check_counts(fn, ci, counts, displs, what)) ? rc :
               coll_check_vbuf(fn, ci, buf, counts, displs, dt, what);
    return (rc = coll_check_buf(fn, ci, buf, count, dt, NULL, what)) ? rc :
           coll_check_blocks(fn, ci, ci->size, count, dt, what);
}

int icoll_gather(const char *fn, cinfo_t *ci, const void *sbuf, int scount, MPI_Datatype stype,
                 void *rbuf, const int *rcounts, const int *displs, int rcount,
                 MPI_Datatype rtype, int root, MPI_Request *request)
{
    int rc;

    if ((rc = check_root(fn, ci, root)) || (rc = no_in_place(fn, ci, sbuf, rbuf)))
        return rc;
    if (root == MPI_ROOT) {
        if ((rc = vblocks(fn, ci, rbuf, rcounts, displs, rcount, rtype, "receive")))
            return rc;
    } else if (root != MPI_PROC_NULL &&
               (rc = coll_check_buf(fn, ci, sbuf, scount, stype, NULL, "send"))) {
        return rc;
    }
    NEW_SCHED(s);
    if (root == MPI_ROOT) {
        for (int j = 0; j < ci->size; j++)
            rtmpi_sched_recv(s, at(rbuf, rcounts ? displs[j] : (MPI_Aint)j * rcount, rtype),
                             rcounts ? rcounts[j] : rcount, rtype, REMOTE(ci, j));
    } else if (root != MPI_PROC_NULL) {
        rtmpi_sched_send(s, sbuf, scount, stype, REMOTE(ci, root));
    }
    return coll_launch(fn, ci, s, rtmpi_sched_failed(s), request);
}

int icoll_scatter(const char *fn, cinfo_t *ci, const void *sbuf, const int *scounts,
                  const int *displs, int scount, MPI_Datatype stype, void *rbuf, int rcount,
                  MPI_Datatype rtype, int root, MPI_Request *request)
{
    int rc;

    if ((rc = check_root(fn, ci, root)) || (rc = no_in_place(fn, ci, sbuf, rbuf)))
        return rc;
    if (root == MPI_ROOT) {
        if ((rc = vblocks(fn, ci, sbuf, scounts, displs, scount, stype, "send")))
            return rc;
    } else if (root != MPI_PROC_NULL &&
               (rc = coll_check_buf(fn, ci, rbuf, rcount, rtype, NULL, "receive"))) {
        return rc;
    }
    NEW_SCHED(s);
    if (root == MPI_ROOT) {
        for (int j = 0; j < ci->size; j++)
            rtmpi_sched_send(s, at(sbuf, scounts ? displs[j] : (MPI_Aint)j * scount, stype),
                             scounts ? scounts[j] : scount, stype, REMOTE(ci, j));
    } else if (root != MPI_PROC_NULL) {
        rtmpi_sched_recv(s, rbuf, rcount, rtype, REMOTE(ci, root));
    }
    return coll_launch(fn, ci, s, rtmpi_sched_failed(s), request);
}

/* ---- Allgather(v) ---- */

int icoll_allgather(const char *fn, cinfo_t *ci, const void *sbuf, int scount,
                    MPI_Datatype stype, void *rbuf, const int *rcounts, const int *displs,
                    int rcount, MPI_Datatype rtype, MPI_Request *request)
{
    int rc;

    if ((rc = no_in_place(fn, ci, sbuf, rbuf)) ||
        (rc = coll_check_buf(fn, ci, sbuf, scount, stype, NULL, "send")) ||
        (rc = vblocks(fn, ci, rbuf, rcounts, displs, rcount, rtype, "receive")))
        return rc;
    NEW_SCHED(s);
    for (int j = 0; j < ci->size; j++) {
        rtmpi_sched_send(s, sbuf, scount, stype, REMOTE(ci, j));
        rtmpi_sched_recv(s, at(rbuf, rcounts ? displs[j] : (MPI_Aint)j * rcount, rtype),
                         rcounts ? rcounts[j] : rcount, rtype, REMOTE(ci, j));
    }
    return coll_launch(fn, ci, s, rtmpi_sched_failed(s), request);
}

/* ---- Alltoall(v,w) ---- */

int icoll_alltoall(const char *fn, cinfo_t *ci, int kind, const void *sbuf, const int *scounts,
                   const int *sdispls, const MPI_Datatype *stypes, int scount, void *rbuf,
                   const int *rcounts, const int *rdispls, const MPI_Datatype *rtypes,
                   int rcount, MPI_Request *request)
{
    int rc, w = kind == ICOLL_ALLTOALLW;

    if ((rc = no_in_place(fn, ci, sbuf, rbuf)))
        return rc;
    if (kind != ICOLL_ALLTOALL &&
        ((rc = coll_check_counts(fn, ci, scounts, sdispls, "send")) ||
         (rc = coll_check_counts(fn, ci, rcounts, rdispls, "receive"))))
        return rc;
    for (int j = 0; j < ci->size; j++) {
        if ((rc = coll_check_wbuf(fn, ci, sbuf, w ? sdispls[j] : 0,
                                  kind == ICOLL_ALLTOALL ? scount : scounts[j], stypes[w ? j : 0],
                                  "send")) ||
            (rc = coll_check_wbuf(fn, ci, rbuf, w ? rdispls[j] : 0,
                                  kind == ICOLL_ALLTOALL ? rcount : rcounts[j], rtypes[w ? j : 0],
                                  "receive")))
            return rc;
        if (kind == ICOLL_ALLTOALL
                ? (rc = coll_check_blocks(fn, ci, ci->size, scount, stypes[0], "send")) ||
                      (rc = coll_check_blocks(fn, ci, ci->size, rcount, rtypes[0], "receive"))
                : (rc = coll_check_span(fn, ci, w ? sdispls[j] : 0, w ? 0 : sdispls[j],
                                        scounts[j], stypes[w ? j : 0], "send", j)) ||
                      (rc = coll_check_span(fn, ci, w ? rdispls[j] : 0, w ? 0 : rdispls[j],
                                            rcounts[j], rtypes[w ? j : 0], "receive", j)))
            return rc;
        if (kind == ICOLL_ALLTOALL)
            break;
    }
    NEW_SCHED(s);
    for (int j = 0; j < ci->size; j++) {
        MPI_Datatype st = stypes[w ? j : 0], rt = rtypes[w ? j : 0];

        if (kind == ICOLL_ALLTOALL) {
            rtmpi_sched_send(s, at(sbuf, (MPI_Aint)j * scount, st), scount, st, REMOTE(ci, j));
            rtmpi_sched_recv(s, at(rbuf, (MPI_Aint)j * rcount, rt), rcount, rt, REMOTE(ci, j));
        } else if (kind == ICOLL_ALLTOALLV) {
            rtmpi_sched_send(s, at(sbuf, sdispls[j], st), scounts[j], st, REMOTE(ci, j));
            rtmpi_sched_recv(s, at(rbuf, rdispls[j], rt), rcounts[j], rt, REMOTE(ci, j));
        } else {
            /* alltoallw: displacements in bytes */
            rtmpi_sched_send(s, (const char *)sbuf + sdispls[j], scounts[j], st, REMOTE(ci, j));
            rtmpi_sched_recv(s, (char *)rbuf + rdispls[j], rcounts[j], rt, REMOTE(ci, j));
        }
    }
    return coll_launch(fn, ci, s, rtmpi_sched_failed(s), request);
}

/* ---- Reduce, Allreduce, Reduce_scatter(_block) ---- */

int icoll_reduce(const char *fn, cinfo_t *ci, const void *sbuf, void *rbuf, int count,
                 MPI_Datatype dt, MPI_Op op, int root, MPI_Request *request)
{
    int rc;

    if ((rc = check_root(fn, ci, root)) || (rc = no_in_place(fn, ci, sbuf, rbuf)))
        return rc;
    if (root == MPI_ROOT) {
        if ((rc = coll_check_buf(fn, ci, rbuf, count, dt, NULL, "receive")) ||
            (rc = coll_check_op(fn, ci, op, dt)))
            return rc;
    } else if (root != MPI_PROC_NULL) {
        if ((rc = coll_check_buf(fn, ci, sbuf, count, dt, NULL, "send")) ||
            (rc = coll_check_op(fn, ci, op, dt)))
            return rc;
    }
    NEW_SCHED(s);
    if (root == MPI_ROOT) {
        rtmpi_sched_recv(s, rbuf, count, dt, REMOTE(ci, 0));
    } else if (root != MPI_PROC_NULL) {
        const void *acc = local_reduce(s, ci, sbuf, count, dt, op);

        if (acc)
            rtmpi_sched_send(s, acc, count, dt, REMOTE(ci, root));
    }
    return coll_launch(fn, ci, s, rtmpi_sched_failed(s), request);
}

int icoll_allreduce(const char *fn, cinfo_t *ci, const void *sbuf, void *rbuf, int count,
                    MPI_Datatype dt, MPI_Op op, MPI_Request *request)
{
    int rc;

    if ((rc = no_in_place(fn, ci, sbuf, rbuf)) ||
        (rc = coll_check_buf(fn, ci, sbuf, count, dt, NULL, "send")) ||
        (rc = coll_check_buf(fn, ci, rbuf, count, dt, NULL, "receive")) ||
        (rc = coll_check_op(fn, ci, op, dt)))
        return rc;
    NEW_SCHED(s);
    const void *acc = local_reduce(s, ci, sbuf, count, dt, op);
    if (ci->rank == 0 && acc) {
        /* the ranks 0 swap their groups' results */
        rtmpi_sched_send(s, acc, count, dt, REMOTE(ci, 0));
        rtmpi_sched_recv(s, rbuf, count, dt, REMOTE(ci, 0));
    }
    local_bcast(s, ci, rbuf, count, dt);
    return coll_launch(fn, ci, s, rtmpi_sched_failed(s), request);
}

/* Within each group every process passes the same receive counts, one per
 * process of its group, and a send buffer of their sum; the other group's
 * vectors have the same length (MPI 3.1 5.10.1). */
int icoll_reduce_scatter(const char *fn, cinfo_t *ci, const void *sbuf, void *rbuf,
                         const int *rcounts, int rcount, MPI_Datatype dt, MPI_Op op,
                         MPI_Request *request)
{
    MPI_Count total = 0;
    int rc, n = LSIZE(ci);

    if ((rc = no_in_place(fn, ci, sbuf, rbuf)))
        return rc;
    if (rcounts) {
        if ((rc = check_local_counts(fn, ci, rcounts, &total)))
            return rc;
    } else {
        if (rcount < 0)
            return FAIL(ci, fn, MPI_ERR_COUNT, "negative receive count %d", rcount);
        total = (MPI_Count)rcount * n;
    }
    if (total > INT_MAX)
        return FAIL(ci, fn, MPI_ERR_COUNT, "the receive counts add up to more than INT_MAX");
    if ((rc = coll_check_buf(fn, ci, sbuf, (int)total, dt, NULL, "send")) ||
        (rc = coll_check_buf(fn, ci, rbuf, rcounts ? rcounts[ci->rank] : rcount, dt, NULL,
                             "receive")) ||
        (rc = coll_check_op(fn, ci, op, dt)))
        return rc;
    NEW_SCHED(s);
    const void *acc = local_reduce(s, ci, sbuf, total, dt, op);
    if (ci->rank == 0 && acc) {
        void *theirs = rtmpi_sched_tmp_dt(s, total, dt);

        if (theirs) {
            MPI_Aint off = 0;

            rtmpi_sched_send(s, acc, total, dt, REMOTE(ci, 0));
            rtmpi_sched_recv(s, theirs, total, dt, REMOTE(ci, 0));
            rtmpi_sched_round(s);
            for (int i = 0; i < n; i++) {
                int c = rcounts ? rcounts[i] : rcount;

                if (i == 0)
                    rtmpi_sched_copy(s, theirs, c, dt, rbuf, c, dt);
                else
                    rtmpi_sched_send(s, at(theirs, off, dt), c, dt, LOCAL(ci, i));
                off += c;
            }
        }
    } else if (ci->rank != 0) {
        rtmpi_sched_recv(s, rbuf, rcounts ? rcounts[ci->rank] : rcount, dt, LOCAL(ci, 0));
    }
    rtmpi_sched_round(s);
    return coll_launch(fn, ci, s, rtmpi_sched_failed(s), request);
}
