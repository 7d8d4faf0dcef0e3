/*
 * The collectives that combine data with an op: MPI_Reduce (binomial tree,
 * or ring reduce-scatter + gather: RTM_MPI_REDUCE_LARGE), MPI_Allreduce
 * (recursive doubling, or ring reduce-scatter + allgather:
 * RTM_MPI_ALLREDUCE_RING), MPI_Reduce_scatter(_block) (ring, or reduce +
 * scatterv for a non-commutative op), and their nonblocking forms.
 */
#include "config.h"

#include "coll.h"
#include "coll_shm.h"
#include "mpi_config.h"

#include <limits.h>
#include <string.h>

/* Element ranges of p chunks of count elements. */
static void chunks(int count, int p, int *cnt, int *disp)
{
    for (int j = 0, off = 0; j < p; j++) {
        cnt[j] = count / p + (j < count % p);
        disp[j] = off;
        off += cnt[j];
    }
}

/* Ring reduce-scatter of input over chunks (cnt, disp): afterwards rank r
 * holds in work the full reduction of chunk (r + shift) % p. Commutative
 * ops only (each chunk is combined in ring order). When work is not input,
 * a partial result is received straight into work and combined there with
 * the input, which is only read: no copy of the input is made. When they
 * are the same buffer, partials go through a scratch chunk. Every chunk of
 * work but the one sent first is written. */
static void reduce_scatter_ring(rtmpi_sched_t *s, cinfo_t *ci, const void *input, void *work,
                                const int *cnt, const int *disp, MPI_Datatype dt, MPI_Op op,
                                int shift)
{
    int p = ci->size, r = ci->rank, maxc = 0;
    int right = (r + 1) % p, left = (r - 1 + p) % p;
    void *tmp = NULL;

    if (work == input) {
        for (int j = 0; j < p; j++)
            if (cnt[j] > maxc)
                maxc = cnt[j];
        tmp = rtmpi_sched_tmp_dt(s, maxc, dt);
        if (!tmp)
            return;
    }
    rtmpi_sched_round(s);
    for (int step = 0; step < p - 1; step++) {
        int sj = (r + shift - 1 - step + 2 * p) % p, rj = (r + shift - 2 - step + 2 * p) % p;

        /* chunk sj is this rank's input at the first step, afterwards the
         * partial it combined in the step before */
        rtmpi_sched_send(s, at(step == 0 ? input : work, disp[sj], dt), cnt[sj], dt, right);
        if (tmp) {
            rtmpi_sched_recv(s, tmp, cnt[rj], dt, left);
            rtmpi_sched_round(s);
            rtmpi_sched_reduce(s, tmp, at(work, disp[rj], dt), cnt[rj], dt, op);
        } else {
            rtmpi_sched_recv(s, at(work, disp[rj], dt), cnt[rj], dt, left);
            rtmpi_sched_round(s);
            rtmpi_sched_reduce(s, at(input, disp[rj], dt), at(work, disp[rj], dt), cnt[rj], dt, op);
        }
    }
    rtmpi_sched_round(s);
}

/* ---- Reduce ----
 *
 * Small: binomial tree. Ranks of a subtree are consecutive, so combining
 * "lower subtree op upper subtree" keeps rank order; a non-commutative op
 * therefore reduces on a tree rooted at rank 0 and the result travels to
 * the root afterwards. No copy of the input is made: a leaf sends its
 * input, a commutative reduction accumulates in the receive buffer at the
 * root.
 * Large, commutative op: ring reduce-scatter, then every rank sends the
 * chunk it reduced to the root, so the p ranks share the arithmetic and
 * each moves about 2x its data instead of log2(p) x. */
static void reduce_rs_gather(rtmpi_sched_t *s, cinfo_t *ci, const void *input, void *rbuf,
                             int count, MPI_Datatype dt, MPI_Op op, int root)
{
    int p = ci->size, r = ci->rank;
    int *cnt = rtmpi_sched_tmp(s, 2 * (size_t)p * sizeof(int)), *disp;

    if (!cnt)
        return;
    disp = cnt + p;
    chunks(count, p, cnt, disp);
    /* the root works in its receive buffer (which then needs no gather of
     * its own chunk); the others in scratch */
    void *work = r == root ? rbuf : rtmpi_sched_tmp_dt(s, count, dt);
    if (r != root && !work)   /* rbuf may be NULL: MPI_BOTTOM */
        return;
    reduce_scatter_ring(s, ci, input, work, cnt, disp, dt, op, 0);
    if (r != root) {
        rtmpi_sched_send(s, at(work, disp[r], dt), cnt[r], dt, root);
    } else {
        for (int j = 0; j < p; j++)
            if (j != root)
                rtmpi_sched_recv(s, at(rbuf, disp[j], dt), cnt[j], dt, j);
    }
    rtmpi_sched_round(s);
}

static int build_reduce(rtmpi_sched_t *s, cinfo_t *ci, const void *sbuf, void *rbuf, int count,
                        MPI_Datatype dt, MPI_Op op, int root)
{
    int p = ci->size, r = ci->rank, commute = rtmpi_op_commutative(op);
    int troot = commute ? root : 0;
    int vr = (r - troot + p) % p, parent = -1, nchild = 0;
    const void *input = sbuf == MPI_IN_PLACE ? rbuf : sbuf;
    size_t bytes = (size_t)count * (size_t)rtmpi_dtype_get(dt)->size;

    if (count == 0)
        return MPI_SUCCESS;
    if (p == 1) {
        if (sbuf != MPI_IN_PLACE)
            rtmpi_sched_copy(s, sbuf, count, dt, rbuf, count, dt);
        return rtmpi_sched_failed(s);
    }
    if (commute && count >= p && bytes >= mpi_config.reduce_large) {
        reduce_rs_gather(s, ci, input, rbuf, count, dt, op, root);
        return rtmpi_sched_failed(s);
    }
    for (int mask = 1; mask < p; mask <<= 1) {
        if (vr & mask) {
            parent = (vr - mask + troot) % p;
            break;
        }
        if (vr + mask < p)
            nchild++;
    }
    rtmpi_sched_round(s);
    const void *acc = input;     /* this subtree's reduction so far */
    if (nchild > 0 && commute) {
        /* Accumulate in one writable buffer W: the receive buffer at the
         * root, scratch elsewhere. The first child lands in W and is
         * combined with the input; later children go through scratch. */
        void *w = r == root ? rbuf : rtmpi_sched_tmp_dt(s, count, dt), *spare = NULL;
        int first = w != input;

        /* the receive buffer may be NULL (MPI_BOTTOM with a type of
         * absolute addresses): only scratch can have failed */
        if (r != root && !w)
            return rtmpi_sched_failed(s);
        if (nchild > (first ? 1 : 0) && !(spare = rtmpi_sched_tmp_dt(s, count, dt)))
            return rtmpi_sched_failed(s);
        for (int mask = 1, k = 0; mask < p && !(vr & mask); mask <<= 1) {
            if (vr + mask >= p)
                continue;
            int child = (vr + mask + troot) % p;
            if (k++ == 0 && first) {
                rtmpi_sched_recv(s, w, count, dt, child);
                rtmpi_sched_round(s);
                rtmpi_sched_reduce(s, input, w, count, dt, op);
            } else {
                rtmpi_sched_recv(s, spare, count, dt, child);
                rtmpi_sched_round(s);
                rtmpi_sched_reduce(s, spare, w, count, dt, op);
            }
        }
        acc = w;
    } else if (nchild > 0) {
        /* Rank order: acc (lower ranks) op child (upper ranks), computed
         * into the child's buffer; two buffers alternate. At the root the
         * last child is received into the receive buffer when that is
         * not the input, so the result needs no copy. */
        void *t[2] = { rtmpi_sched_tmp_dt(s, count, dt), NULL };

        if (!t[0] || (nchild > 1 && !(t[1] = rtmpi_sched_tmp_dt(s, count, dt))))
            return rtmpi_sched_failed(s);
        for (int mask = 1, k = 0; mask < p && !(vr & mask); mask <<= 1) {
            if (vr + mask >= p)
                continue;
            int child = (vr + mask + troot) % p;
            void *into = t[k % 2];
            if (++k == nchild && r == root && sbuf != MPI_IN_PLACE)
                into = rbuf;
            rtmpi_sched_recv(s, into, count, dt, child);
            rtmpi_sched_round(s);
            rtmpi_sched_reduce(s, acc, into, count, dt, op);
            acc = into;
        }
    }
    if (parent >= 0)
        rtmpi_sched_send(s, acc, count, dt, parent);
    rtmpi_sched_round(s);
    if (vr == 0 && r != root) {
        rtmpi_sched_send(s, acc, count, dt, root);
    } else if (vr == 0 && acc != rbuf) {
        rtmpi_sched_copy(s, acc, count, dt, rbuf, count, dt);
    } else if (r == root && vr != 0) {
        rtmpi_sched_recv(s, rbuf, count, dt, troot);
    }
    rtmpi_sched_round(s);
    return rtmpi_sched_failed(s);
}

/* ---- Allreduce ---- */

/* Recursive doubling; ranks beyond the largest power of two first fold
 * their data into a neighbour (even r into r+1), which keeps rank order. */
static void allreduce_recdbl(rtmpi_sched_t *s, cinfo_t *ci, void *rbuf, int count,
                             MPI_Datatype dt, MPI_Op op)
{
    int p = ci->size, r = ci->rank, pof2 = 1, newrank;

    while (pof2 * 2 <= p)
        pof2 *= 2;
    int rem = p - pof2;
    void *tmp = rtmpi_sched_tmp_dt(s, count, dt);
    if (!tmp)
        return;
    rtmpi_sched_round(s);
    if (r < 2 * rem) {
        if (r % 2 == 0) {
            rtmpi_sched_send(s, rbuf, count, dt, r + 1);
            newrank = -1;
        } else {
            rtmpi_sched_recv(s, tmp, count, dt, r - 1);
            rtmpi_sched_round(s);
            rtmpi_sched_reduce(s, tmp, rbuf, count, dt, op);
            newrank = r / 2;
        }
    } else {
        newrank = r - rem;
    }
    rtmpi_sched_round(s);
    if (newrank >= 0) {
        for (int mask = 1; mask < pof2; mask <<= 1) {
            int newdst = newrank ^ mask;
            int dst = newdst < rem ? newdst * 2 + 1 : newdst + rem;

            rtmpi_sched_send(s, rbuf, count, dt, dst);
            rtmpi_sched_recv(s, tmp, count, dt, dst);
            rtmpi_sched_round(s);
            if (dst < r || rtmpi_op_commutative(op)) {
                rtmpi_sched_reduce(s, tmp, rbuf, count, dt, op);
            } else {
                rtmpi_sched_reduce(s, rbuf, tmp, count, dt, op);
                rtmpi_sched_copy(s, tmp, count, dt, rbuf, count, dt);
            }
        }
    }
    rtmpi_sched_round(s);
    if (r < 2 * rem) {
        if (r % 2 == 0)
            rtmpi_sched_recv(s, rbuf, count, dt, r + 1);
        else
            rtmpi_sched_send(s, rbuf, count, dt, r - 1);
    }
    rtmpi_sched_round(s);
}

static int build_allreduce(rtmpi_sched_t *s, cinfo_t *ci, const void *sbuf, void *rbuf,
                           int count, MPI_Datatype dt, MPI_Op op)
{
    rtmpi_dtype_t *d = rtmpi_dtype_get(dt);
    int p = ci->size;

    if (count == 0)
        return MPI_SUCCESS;
    if (rtmpi_op_commutative(op) && count >= p && p > 1 &&
        (size_t)count * (size_t)d->size >= mpi_config.allreduce_ring) {
        int *cnt = rtmpi_sched_tmp(s, 2 * (size_t)p * sizeof(int)), *disp;

        if (!cnt)
            return rtmpi_sched_failed(s);
        disp = cnt + p;
        chunks(count, p, cnt, disp);
        /* after the reduce-scatter rank r owns chunk r; the input is read
         * where it is, the allgather fills the one chunk left unwritten */
        reduce_scatter_ring(s, ci, sbuf == MPI_IN_PLACE ? rbuf : sbuf, rbuf, cnt, disp, dt, op, 0);
        int r = ci->rank, right = (r + 1) % p, left = (r - 1 + p) % p;
        for (int step = 0; step < p - 1; step++) {
            int sj = (r - step + p) % p, rj = (r - step - 1 + p) % p;

            rtmpi_sched_send(s, at(rbuf, disp[sj], dt), cnt[sj], dt, right);
            rtmpi_sched_recv(s, at(rbuf, disp[rj], dt), cnt[rj], dt, left);
            rtmpi_sched_round(s);
        }
    } else {
        if (sbuf != MPI_IN_PLACE)
            rtmpi_sched_copy(s, sbuf, count, dt, rbuf, count, dt);
        if (p > 1)
            allreduce_recdbl(s, ci, rbuf, count, dt, op);
    }
    return rtmpi_sched_failed(s);
}

/* ---- Reduce_scatter ---- */

static int build_reduce_scatter(rtmpi_sched_t *s, cinfo_t *ci, const void *sbuf, void *rbuf,
                                const int *rcounts, MPI_Datatype dt, MPI_Op op)
{
    int p = ci->size, r = ci->rank, total = 0;
    int *disp = rtmpi_sched_tmp(s, (size_t)p * sizeof(int));

    if (!disp)
        return rtmpi_sched_failed(s);
    for (int i = 0; i < p; i++) {
        disp[i] = total;
        total += rcounts[i];
    }
    if (total == 0)
        return MPI_SUCCESS;
    const void *input = sbuf == MPI_IN_PLACE ? rbuf : sbuf;
    void *work = rtmpi_sched_tmp_dt(s, total, dt);
    if (!work)
        return rtmpi_sched_failed(s);
    rtmpi_sched_round(s);
    if (rtmpi_op_commutative(op) && p > 1) {
        /* work is scratch: the input is only read */
        reduce_scatter_ring(s, ci, input, work, rcounts, disp, dt, op, 0);
        rtmpi_sched_copy(s, at(work, disp[r], dt), rcounts[r], dt, rbuf, rcounts[r], dt);
        rtmpi_sched_round(s);
    } else {
        /* Non-commutative: reduce in rank order to rank 0, then scatter. */
        void *all = rtmpi_sched_tmp_dt(s, total, dt);
        int rc;

        if (!all)
            return rtmpi_sched_failed(s);
        rtmpi_sched_copy(s, input, total, dt, work, total, dt);
        rc = build_reduce(s, ci, work, all, total, dt, op, 0);
        if (rc)
            return rc;
        rc = coll_build_scatterv(s, ci, all, rcounts, disp, 0, dt, rbuf, rcounts[r], dt, 0);
        if (rc)
            return rc;
    }
    return rtmpi_sched_failed(s);
}

/* Reduce and Allreduce may go through shared memory (coll_shm.c), each up
 * to its own size (max). */
static int reduce(const char *fn, const void *sendbuf, void *recvbuf, int count,
                  MPI_Datatype datatype, MPI_Op op, int root, MPI_Comm comm, MPI_Request *request)
{
    cinfo_t ci_ = { 0 }, *ci = &ci_;
    int rc;

    if ((rc = coll_get_comm(fn, comm, ci)))
        return rc;
    if (ci->c->inter)
        return icoll_reduce(fn, ci, sendbuf, recvbuf, count, datatype, op, root, request);
    if ((rc = coll_check_root(fn, ci, root)))
        return rc;
    if (sendbuf == MPI_IN_PLACE && ci->rank != root)
        return FAIL(ci, fn, MPI_ERR_BUFFER, "MPI_IN_PLACE is only valid at the root");
    if ((rc = coll_check_buf(fn, ci, sendbuf == MPI_IN_PLACE ? recvbuf : sendbuf, count, datatype,
                             NULL, "send")) ||
        (ci->rank == root &&
         (rc = coll_check_buf(fn, ci, recvbuf, count, datatype, NULL, "receive"))) ||
        (rc = coll_check_op(fn, ci, op, datatype)))
        return rc;
    if (!request && count > 0 && coll_shm_fits(ci, count, datatype, mpi_config.reduce_shm_max,
                                            mpi_config.reduce_shm_max_pair)) {
        rtmpi_call_enter(fn, RTMPI_CALL_NONE, RTMPI_CALL_NONE, comm);
        if ((rc = coll_shm_reduce(ci, sendbuf, recvbuf, count, datatype, op, root)) !=
            COLL_SHM_DECLINED)
            return rc;
    }
    NEW_SCHED(s);
    return coll_launch(fn, ci, s, build_reduce(s, ci, sendbuf, recvbuf, count, datatype, op, root),
                       request);
}

int PMPI_Reduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                int root, MPI_Comm comm)
{
    RTMPI_ENTER();
    return reduce(__func__, sendbuf, recvbuf, count, datatype, op, root, comm, NULL);
}
RTMPI_WEAK(Reduce)

int PMPI_Ireduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
                 MPI_Op op, int root, MPI_Comm comm, MPI_Request *request)
{
    RTMPI_ENTER();
    if (!request)
        return coll_arg_error(comm, __func__, MPI_ERR_ARG, "request is NULL");
    return reduce(__func__, sendbuf, recvbuf, count, datatype, op, root, comm, request);
}
RTMPI_WEAK(Ireduce)

static int allreduce(const char *fn, const void *sendbuf, void *recvbuf, int count,
                     MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Request *request)
{
    cinfo_t ci_ = { 0 }, *ci = &ci_;
    int rc;

    if ((rc = coll_get_comm(fn, comm, ci)))
        return rc;
    if (ci->c->inter)
        return icoll_allreduce(fn, ci, sendbuf, recvbuf, count, datatype, op, request);
    if ((sendbuf != MPI_IN_PLACE &&
         (rc = coll_check_buf(fn, ci, sendbuf, count, datatype, NULL, "send"))) ||
        (rc = coll_check_buf(fn, ci, recvbuf, count, datatype, NULL, "receive")) ||
        (rc = coll_check_op(fn, ci, op, datatype)))
        return rc;
    if (!request && count > 0 &&
        coll_shm_fits(ci, count, datatype, coll_shm_allreduce_max(), SIZE_MAX)) {
        rtmpi_call_enter(fn, RTMPI_CALL_NONE, RTMPI_CALL_NONE, comm);
        if ((rc = coll_shm_allreduce(ci, sendbuf, recvbuf, count, datatype, op)) !=
            COLL_SHM_DECLINED)
            return rc;
    }
    NEW_SCHED(s);
    return coll_launch(fn, ci, s, build_allreduce(s, ci, sendbuf, recvbuf, count, datatype, op),
                       request);
}

int PMPI_Allreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
                   MPI_Op op, MPI_Comm comm)
{
    RTMPI_ENTER();
    return allreduce(__func__, sendbuf, recvbuf, count, datatype, op, comm, NULL);
}
RTMPI_WEAK(Allreduce)

int PMPI_Iallreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
                    MPI_Op op, MPI_Comm comm, MPI_Request *request)
{
    RTMPI_ENTER();
    if (!request)
        return coll_arg_error(comm, __func__, MPI_ERR_ARG, "request is NULL");
    return allreduce(__func__, sendbuf, recvbuf, count, datatype, op, comm, request);
}
RTMPI_WEAK(Iallreduce)

static int reduce_scatter(const char *fn, const void *sendbuf, void *recvbuf,
                          const int *recvcounts, int recvcount, MPI_Datatype datatype, MPI_Op op,
                          MPI_Comm comm, MPI_Request *request)
{
    cinfo_t ci_ = { 0 }, *ci = &ci_;
    MPI_Count total = 0;
    int rc;

    if ((rc = coll_get_comm(fn, comm, ci)))
        return rc;
    if (ci->c->inter)
        return icoll_reduce_scatter(fn, ci, sendbuf, recvbuf, recvcounts, recvcount, datatype, op,
                                    request);
    if (recvcounts) {
        if (!recvcounts)
            return FAIL(ci, fn, MPI_ERR_ARG, "recvcounts is NULL");
        for (int i = 0; i < ci->size; i++) {
            if (recvcounts[i] < 0)
                return FAIL(ci, fn, MPI_ERR_COUNT, "negative count %d for rank %d", recvcounts[i],
                            i);
            total += recvcounts[i];
        }
    } else if (recvcount < 0) {
        return FAIL(ci, fn, MPI_ERR_COUNT, "negative count %d", recvcount);
    } else {
        total = (MPI_Count)recvcount * ci->size;
    }
    /* every rank passes the same counts: all of them see this one */
    if (total > INT_MAX)
        return FAIL(ci, fn, MPI_ERR_COUNT, "the receive counts add up to %lld elements: more "
                    "than INT_MAX, the most this library reduces in one call", (long long)total);
    if ((rc = coll_check_buf(fn, ci, sendbuf == MPI_IN_PLACE ? recvbuf : sendbuf, (int)total,
                             datatype, NULL, "send")) ||
        (rc = coll_check_buf(fn, ci, recvbuf, recvcounts ? recvcounts[ci->rank] : recvcount,
                             datatype, NULL, "receive")) ||
        (rc = coll_check_op(fn, ci, op, datatype)))
        return rc;
    NEW_SCHED(s);
    int *counts = (int *)recvcounts;
    if (!recvcounts) {
        counts = rtmpi_sched_tmp(s, (size_t)ci->size * sizeof(int));
        if (!counts)
            return coll_launch(fn, ci, s, MPI_ERR_NO_MEM, request);
        for (int i = 0; i < ci->size; i++)
            counts[i] = recvcount;
    } else {
        /* The request may outlive the caller's array. */
        counts = rtmpi_sched_tmp(s, (size_t)ci->size * sizeof(int));
        if (!counts)
            return coll_launch(fn, ci, s, MPI_ERR_NO_MEM, request);
        memcpy(counts, recvcounts, (size_t)ci->size * sizeof(int));
    }
    return coll_launch(fn, ci, s,
                       build_reduce_scatter(s, ci, sendbuf, recvbuf, counts, datatype, op),
                       request);
}

int PMPI_Reduce_scatter(const void *sendbuf, void *recvbuf, const int recvcounts[],
                        MPI_Datatype datatype, MPI_Op op, MPI_Comm comm)
{
    RTMPI_ENTER();
    if (!recvcounts)
        return coll_arg_error(comm, __func__, MPI_ERR_ARG, "recvcounts is NULL");
    return reduce_scatter(__func__, sendbuf, recvbuf, recvcounts, 0, datatype, op, comm, NULL);
}
RTMPI_WEAK(Reduce_scatter)

int PMPI_Ireduce_scatter(const void *sendbuf, void *recvbuf, const int recvcounts[],
                         MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Request *request)
{
    RTMPI_ENTER();
    if (!request || !recvcounts)
        return coll_arg_error(comm, __func__, MPI_ERR_ARG, "request or recvcounts is NULL");
    return reduce_scatter(__func__, sendbuf, recvbuf, recvcounts, 0, datatype, op, comm, request);
}
RTMPI_WEAK(Ireduce_scatter)

int PMPI_Reduce_scatter_block(const void *sendbuf, void *recvbuf, int recvcount,
                              MPI_Datatype datatype, MPI_Op op, MPI_Comm comm)
{
    RTMPI_ENTER();
    return reduce_scatter(__func__, sendbuf, recvbuf, NULL, recvcount, datatype, op, comm, NULL);
}
RTMPI_WEAK(Reduce_scatter_block)

int PMPI_Ireduce_scatter_block(const void *sendbuf, void *recvbuf, int recvcount,
                               MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                               MPI_Request *request)
{
    RTMPI_ENTER();
    if (!request)
        return coll_arg_error(comm, __func__, MPI_ERR_ARG, "request is NULL");
    return reduce_scatter(__func__, sendbuf, recvbuf, NULL, recvcount, datatype, op, comm, request);
}
RTMPI_WEAK(Ireduce_scatter_block)
