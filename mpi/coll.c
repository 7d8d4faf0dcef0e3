/*
 * Collective algorithms, built as schedules (coll_sched.h) over
 * point-to-point on each communicator's hidden collective communicator.
 * The same builder serves the blocking call (run at once) and the
 * nonblocking one (advanced by progress). docs/collectives.md explains the
 * choices and the switch points below.
 */
#include "config.h"

#include "mpi/coll_sched.h"
#include "mpi/mpi_config.h"

#include <stdlib.h>
#include <string.h>

/* Switch points are rows of MPI's config table (RTM_MPI_*,
 * mpi/mpi_config.c); docs/collectives.md gives the measurements behind the
 * defaults. */

typedef struct cinfo {
    MPI_Comm      comm;
    rtmpi_comm_t *c;
    int           rank, size;
} cinfo_t;

#define FAIL(_ci, _fn, _cls, ...) rtmpi_error((_ci)->comm, _fn, _cls, __VA_ARGS__)

static int get_comm(const char *fn, MPI_Comm comm, cinfo_t *ci)
{
    ci->c = rtmpi_comm_get(comm);
    if (!ci->c)
        return rtmpi_error(MPI_COMM_NULL, fn, MPI_ERR_COMM, "invalid communicator %d", comm);
    ci->comm = comm;
    ci->rank = ci->c->rank;
    ci->size = ci->c->size;
    return MPI_SUCCESS;
}

static int check_buf(const char *fn, cinfo_t *ci, const void *buf, int count, MPI_Datatype dt,
                     rtmpi_dtype_t **dp, const char *what)
{
    rtmpi_dtype_t *d;

    if (count < 0)
        return FAIL(ci, fn, MPI_ERR_COUNT, "negative %s count %d", what, count);
    if (rtmpi_dtype_check(dt, &d))
        return FAIL(ci, fn, MPI_ERR_TYPE, "invalid or uncommitted %s datatype %d", what, dt);
    if (!buf && count > 0 && d->size > 0 && d->true_lb == 0)
        return FAIL(ci, fn, MPI_ERR_BUFFER, "%s buffer is NULL with count %d", what, count);
    if (dp)
        *dp = d;
    return MPI_SUCCESS;
}

static int check_root(const char *fn, cinfo_t *ci, int root)
{
    if (root < 0 || root >= ci->size)
        return FAIL(ci, fn, MPI_ERR_ROOT, "root %d not in 0..%d", root, ci->size - 1);
    return MPI_SUCCESS;
}

static int check_op(const char *fn, cinfo_t *ci, MPI_Op op, MPI_Datatype dt)
{
    if (rtmpi_op_check(op))
        return FAIL(ci, fn, MPI_ERR_OP, "invalid op %d", op);
    if (rtmpi_op_valid_for(op, dt)) {
        rtmpi_dtype_t *d = rtmpi_dtype_get(dt);

        return FAIL(ci, fn, MPI_ERR_OP, "op %d does not apply to datatype %s", op,
                    d && d->name[0] ? d->name : "(derived)");
    }
    return MPI_SUCCESS;
}

static MPI_Aint extent_of(MPI_Datatype dt)
{
    return rtmpi_dtype_get(dt)->extent;
}

static void *at(const void *buf, MPI_Aint index, MPI_Datatype dt)
{
    return (char *)buf + index * extent_of(dt);
}

/* ---- Barrier: dissemination, ceil(log2 p) rounds of zero-byte messages. */
static int build_barrier(rtmpi_sched_t *s, cinfo_t *ci)
{
    int p = ci->size, r = ci->rank;

    for (int k = 1; k < p; k <<= 1) {
        rtmpi_sched_send(s, NULL, 0, MPI_BYTE, (r + k) % p);
        rtmpi_sched_recv(s, NULL, 0, MPI_BYTE, (r - k + p) % p);
        rtmpi_sched_round(s);
    }
    return rtmpi_sched_failed(s);
}

/* ---- Bcast ---- */

/* Binomial tree rooted at `root` (relative ranks). */
static void bcast_binomial(rtmpi_sched_t *s, cinfo_t *ci, void *buf, MPI_Count count,
                           MPI_Datatype dt, int root)
{
    int p = ci->size, vr = (ci->rank - root + p) % p, mask = 1;

    rtmpi_sched_round(s);
    while (mask < p) {
        if (vr & mask) {
            rtmpi_sched_recv(s, buf, count, dt, (vr - mask + root) % p);
            rtmpi_sched_round(s);
            break;
        }
        mask <<= 1;
    }
    for (mask >>= 1; mask > 0; mask >>= 1)
        if (vr + mask < p)
            rtmpi_sched_send(s, buf, count, dt, (vr + mask + root) % p);
    rtmpi_sched_round(s);
}

/* Large messages: binomial scatter of p chunks, then a ring allgather, on
 * the data as bytes (van de Geijn): each rank sends about 2x the data
 * instead of log2(p) x. */
static void bcast_scatter_allgather(rtmpi_sched_t *s, cinfo_t *ci, char *data, size_t bytes,
                                    int root)
{
    int p = ci->size, vr = (ci->rank - root + p) % p, mask = 1;
    size_t chunk = bytes / (size_t)p;
#define CHUNK_OFF(_j) ((size_t)(_j) * chunk)
#define CHUNKS_LEN(_a, _b) ((_b) >= p ? bytes - CHUNK_OFF(_a) : CHUNK_OFF(_b) - CHUNK_OFF(_a))

    rtmpi_sched_round(s);
    while (mask < p) {
        if (vr & mask) {
            int hi = vr + mask;

            rtmpi_sched_recv(s, data + CHUNK_OFF(vr), (MPI_Count)CHUNKS_LEN(vr, hi), MPI_BYTE,
                             (vr - mask + root) % p);
            rtmpi_sched_round(s);
            break;
        }
        mask <<= 1;
    }
    for (mask >>= 1; mask > 0; mask >>= 1) {
        int child = vr + mask;

        if (child < p)
            rtmpi_sched_send(s, data + CHUNK_OFF(child), (MPI_Count)CHUNKS_LEN(child, child + mask),
                             MPI_BYTE, (child + root) % p);
    }
    rtmpi_sched_round(s);
    int right = (ci->rank + 1) % p, left = (ci->rank - 1 + p) % p;
    for (int step = 0; step < p - 1; step++) {
        int sj = (vr - step + p) % p, rj = (vr - step - 1 + p) % p;

        rtmpi_sched_send(s, data + CHUNK_OFF(sj), (MPI_Count)CHUNKS_LEN(sj, sj + 1), MPI_BYTE, right);
        rtmpi_sched_recv(s, data + CHUNK_OFF(rj), (MPI_Count)CHUNKS_LEN(rj, rj + 1), MPI_BYTE, left);
        rtmpi_sched_round(s);
    }
#undef CHUNK_OFF
#undef CHUNKS_LEN
}

static int build_bcast(const char *fn, rtmpi_sched_t *s, cinfo_t *ci, void *buf, int count,
                       MPI_Datatype dt, int root)
{
    rtmpi_dtype_t *d = rtmpi_dtype_get(dt);
    size_t bytes = (size_t)count * (size_t)d->size;
    MPI_Aint off;

    (void)fn;
    if (ci->size == 1 || bytes == 0)
        return MPI_SUCCESS;
    if (bytes < mpi_config.bcast_large || ci->size < 3 || bytes < (size_t)ci->size) {
        bcast_binomial(s, ci, buf, count, dt, root);
    } else if (rtmpi_dtype_contig(d, count, &off)) {
        bcast_scatter_allgather(s, ci, (char *)buf + off, bytes, root);
    } else {
        char *packed = rtmpi_sched_tmp(s, bytes);

        if (!packed)
            return rtmpi_sched_failed(s);
        if (ci->rank == root)
            rtmpi_sched_copy(s, buf, count, dt, packed, (MPI_Count)bytes, MPI_BYTE);
        bcast_scatter_allgather(s, ci, packed, bytes, root);
        if (ci->rank != root)
            rtmpi_sched_copy(s, packed, (MPI_Count)bytes, MPI_BYTE, buf, count, dt);
    }
    return rtmpi_sched_failed(s);
}

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
    if (!work)
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

        if (!w)
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

/* ---- Gather / Scatter (linear: the root posts every transfer at once) ---- */

static int build_gatherv(rtmpi_sched_t *s, cinfo_t *ci, const void *sbuf, int scount,
                         MPI_Datatype stype, void *rbuf, const int *rcounts, const int *displs,
                         int rcount, MPI_Datatype rtype, int root)
{
    int p = ci->size, r = ci->rank;

    rtmpi_sched_round(s);
    if (r != root) {
        rtmpi_sched_send(s, sbuf, scount, stype, root);
    } else {
        for (int i = 0; i < p; i++) {
            int n = rcounts ? rcounts[i] : rcount;
            void *slot = at(rbuf, rcounts ? displs[i] : (MPI_Aint)i * rcount, rtype);

            if (i == r) {
                if (sbuf != MPI_IN_PLACE)
                    rtmpi_sched_copy(s, sbuf, scount, stype, slot, n, rtype);
            } else {
                rtmpi_sched_recv(s, slot, n, rtype, i);
            }
        }
    }
    rtmpi_sched_round(s);
    return rtmpi_sched_failed(s);
}

static int build_scatterv(rtmpi_sched_t *s, cinfo_t *ci, const void *sbuf, const int *scounts,
                          const int *displs, int scount, MPI_Datatype stype, void *rbuf,
                          int rcount, MPI_Datatype rtype, int root)
{
    int p = ci->size, r = ci->rank;

    rtmpi_sched_round(s);
    if (r != root) {
        rtmpi_sched_recv(s, rbuf, rcount, rtype, root);
    } else {
        for (int i = 0; i < p; i++) {
            int n = scounts ? scounts[i] : scount;
            const void *slot = at(sbuf, scounts ? displs[i] : (MPI_Aint)i * scount, stype);

            if (i == r) {
                if (rbuf != MPI_IN_PLACE)
                    rtmpi_sched_copy(s, slot, n, stype, rbuf, rcount, rtype);
            } else {
                rtmpi_sched_send(s, slot, n, stype, i);
            }
        }
    }
    rtmpi_sched_round(s);
    return rtmpi_sched_failed(s);
}

/* ---- Allgather ---- */

/* Bruck: ceil(log2 p) rounds for any p, on packed blocks in rank-rotated
 * order, unrotated into the receive buffer at the end. */
static void allgather_bruck(rtmpi_sched_t *s, cinfo_t *ci, void *rbuf, int rcount,
                            MPI_Datatype rtype)
{
    int p = ci->size, r = ci->rank;
    size_t b = (size_t)rcount * (size_t)rtmpi_dtype_get(rtype)->size;
    char *tmp = rtmpi_sched_tmp(s, b * (size_t)p);

    if (!tmp)
        return;
    rtmpi_sched_round(s);
    rtmpi_sched_copy(s, at(rbuf, (MPI_Aint)r * rcount, rtype), rcount, rtype, tmp, (MPI_Count)b,
                     MPI_BYTE);
    for (int dist = 1; dist < p; dist <<= 1) {
        int n = dist < p - dist ? dist : p - dist;

        rtmpi_sched_send(s, tmp, (MPI_Count)(b * (size_t)n), MPI_BYTE, (r - dist + p) % p);
        rtmpi_sched_recv(s, tmp + b * (size_t)dist, (MPI_Count)(b * (size_t)n), MPI_BYTE,
                         (r + dist) % p);
        rtmpi_sched_round(s);
    }
    for (int i = 1; i < p; i++)
        rtmpi_sched_copy(s, tmp + b * (size_t)i, (MPI_Count)b, MPI_BYTE,
                         at(rbuf, (MPI_Aint)((r + i) % p) * rcount, rtype), rcount, rtype);
    rtmpi_sched_round(s);
}

/* Ring: p-1 rounds, each rank forwards the block it received last. */
static void allgather_ring(rtmpi_sched_t *s, cinfo_t *ci, void *rbuf, const int *rcounts,
                           const int *displs, int rcount, MPI_Datatype rtype)
{
    int p = ci->size, r = ci->rank, right = (r + 1) % p, left = (r - 1 + p) % p;

    rtmpi_sched_round(s);
    for (int step = 0; step < p - 1; step++) {
        int sj = (r - step + p) % p, rj = (r - step - 1 + p) % p;

        rtmpi_sched_send(s, at(rbuf, rcounts ? displs[sj] : (MPI_Aint)sj * rcount, rtype),
                         rcounts ? rcounts[sj] : rcount, rtype, right);
        rtmpi_sched_recv(s, at(rbuf, rcounts ? displs[rj] : (MPI_Aint)rj * rcount, rtype),
                         rcounts ? rcounts[rj] : rcount, rtype, left);
        rtmpi_sched_round(s);
    }
}

static int build_allgatherv(rtmpi_sched_t *s, cinfo_t *ci, const void *sbuf, int scount,
                            MPI_Datatype stype, void *rbuf, const int *rcounts,
                            const int *displs, int rcount, MPI_Datatype rtype)
{
    int p = ci->size, r = ci->rank;
    void *mine = at(rbuf, rcounts ? displs[r] : (MPI_Aint)r * rcount, rtype);

    if (sbuf != MPI_IN_PLACE)
        rtmpi_sched_copy(s, sbuf, scount, stype, mine, rcounts ? rcounts[r] : rcount, rtype);
    if (p == 1)
        return rtmpi_sched_failed(s);
    size_t total = (size_t)rcount * (size_t)rtmpi_dtype_get(rtype)->size * (size_t)p;
    if (!rcounts && total < mpi_config.allgather_ring)
        allgather_bruck(s, ci, rbuf, rcount, rtype);
    else
        allgather_ring(s, ci, rbuf, rcounts, displs, rcount, rtype);
    return rtmpi_sched_failed(s);
}

/* ---- Alltoall(v,w) ---- */

/* Everything as (buffer, count, type) per peer; sdispls/rdispls in bytes. */
typedef struct a2a {
    const void *sbuf;
    void       *rbuf;
    int        *scounts, *rcounts;
    MPI_Aint   *sdispls, *rdispls;
    MPI_Datatype *stypes, *rtypes;
} a2a_t;

static int build_alltoallw(rtmpi_sched_t *s, cinfo_t *ci, a2a_t *a, int in_place, int pairwise)
{
    int p = ci->size, r = ci->rank;

    rtmpi_sched_round(s);
    if (in_place) {
        /* Send from a packed copy of what the receive buffer holds now. */
        size_t total = 0;
        for (int i = 0; i < p; i++)
            total += (size_t)a->rcounts[i] * (size_t)rtmpi_dtype_get(a->rtypes[i])->size;
        char *copy = rtmpi_sched_tmp(s, total);
        if (!copy)
            return rtmpi_sched_failed(s);
        size_t off = 0;
        for (int i = 0; i < p; i++) {
            size_t n = (size_t)a->rcounts[i] * (size_t)rtmpi_dtype_get(a->rtypes[i])->size;

            rtmpi_sched_copy(s, (char *)a->rbuf + a->rdispls[i], a->rcounts[i], a->rtypes[i],
                             copy + off, (MPI_Count)n, MPI_BYTE);
            a->sdispls[i] = (MPI_Aint)off;
            a->scounts[i] = (int)n;
            a->stypes[i] = MPI_BYTE;
            off += n;
        }
        a->sbuf = copy;
        rtmpi_sched_round(s);
    }
    rtmpi_sched_copy(s, (const char *)a->sbuf + a->sdispls[r], a->scounts[r], a->stypes[r],
                     (char *)a->rbuf + a->rdispls[r], a->rcounts[r], a->rtypes[r]);
    for (int k = 1; k < p; k++) {
        int to = (r + k) % p, from = (r - k + p) % p;

        rtmpi_sched_send(s, (const char *)a->sbuf + a->sdispls[to], a->scounts[to], a->stypes[to], to);
        rtmpi_sched_recv(s, (char *)a->rbuf + a->rdispls[from], a->rcounts[from], a->rtypes[from],
                         from);
        if (pairwise)
            rtmpi_sched_round(s);
    }
    rtmpi_sched_round(s);
    return rtmpi_sched_failed(s);
}

static a2a_t *a2a_new(rtmpi_sched_t *s, int p)
{
    a2a_t *a = rtmpi_sched_tmp(s, sizeof(*a));
    char *m = rtmpi_sched_tmp(s, (size_t)p * (2 * sizeof(int) + 2 * sizeof(MPI_Aint) +
                                              2 * sizeof(MPI_Datatype)));

    if (!a || !m)
        return NULL;
    a->sdispls = (MPI_Aint *)m;
    a->rdispls = a->sdispls + p;
    a->scounts = (int *)(a->rdispls + p);
    a->rcounts = a->scounts + p;
    a->stypes = a->rcounts + p;
    a->rtypes = a->stypes + p;
    return a;
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
        rc = build_scatterv(s, ci, all, rcounts, disp, 0, dt, rbuf, rcounts[r], dt, 0);
        if (rc)
            return rc;
    }
    return rtmpi_sched_failed(s);
}

/* ---- Scan / Exscan: recursive doubling; `partial` is the reduction of
 * the ranks of this rank's current block, combined in rank order. */
static int build_scan(rtmpi_sched_t *s, cinfo_t *ci, const void *sbuf, void *rbuf, int count,
                      MPI_Datatype dt, MPI_Op op, int exclusive)
{
    int p = ci->size, r = ci->rank, first = 1;
    const void *input = sbuf == MPI_IN_PLACE ? rbuf : sbuf;

    if (count == 0)
        return MPI_SUCCESS;
    void *partial = rtmpi_sched_tmp_dt(s, count, dt), *tmp = rtmpi_sched_tmp_dt(s, count, dt);
    if (!partial || !tmp)
        return rtmpi_sched_failed(s);
    rtmpi_sched_round(s);
    rtmpi_sched_copy(s, input, count, dt, partial, count, dt);
    if (!exclusive && sbuf != MPI_IN_PLACE)
        rtmpi_sched_copy(s, sbuf, count, dt, rbuf, count, dt);
    for (int mask = 1; mask < p; mask <<= 1) {
        int dst = r ^ mask;

        if (dst >= p)
            continue;
        rtmpi_sched_send(s, partial, count, dt, dst);
        rtmpi_sched_recv(s, tmp, count, dt, dst);
        rtmpi_sched_round(s);
        if (r > dst) {
            if (exclusive && first)
                rtmpi_sched_copy(s, tmp, count, dt, rbuf, count, dt);
            else
                rtmpi_sched_reduce(s, tmp, rbuf, count, dt, op);
            first = 0;
            rtmpi_sched_reduce(s, tmp, partial, count, dt, op);
        } else if (rtmpi_op_commutative(op)) {
            rtmpi_sched_reduce(s, tmp, partial, count, dt, op);
        } else {
            /* partial = partial op tmp, landing in tmp: swap the roles */
            rtmpi_sched_reduce(s, partial, tmp, count, dt, op);
            void *t = partial;
            partial = tmp;
            tmp = t;
        }
    }
    rtmpi_sched_round(s);
    return rtmpi_sched_failed(s);
}

/* ---- API --------------------------------------------------------------- */

/* Builds with `build_expr` into schedule `s`, then runs it (blocking) or
 * starts it (request != NULL). */
static int launch(const char *fn, cinfo_t *ci, rtmpi_sched_t *s, int build_rc, MPI_Request *request)
{
    int rc;

    if (build_rc) {
        rtmpi_sched_free(s);
        return FAIL(ci, fn, build_rc, "cannot build the collective");
    }
    if (request) {
        rc = rtmpi_sched_start(s, request);
        return rc ? FAIL(ci, fn, rc, "cannot start the collective") : MPI_SUCCESS;
    }
    rc = rtmpi_sched_run(s);
    return rc ? FAIL(ci, fn, rc, "the collective failed") : MPI_SUCCESS;
}

#define NEW_SCHED(_s) \
    rtmpi_sched_t *_s = rtmpi_sched_new(ci->comm); \
    if (!_s) \
        return FAIL(ci, __func__, MPI_ERR_NO_MEM, "out of memory")

static int barrier(const char *fn, MPI_Comm comm, MPI_Request *request)
{
    cinfo_t ci_ = { 0 }, *ci = &ci_;
    int rc = get_comm(fn, comm, ci);

    if (rc)
        return rc;
    NEW_SCHED(s);
    return launch(fn, ci, s, build_barrier(s, ci), request);
}

int PMPI_Barrier(MPI_Comm comm)
{
    RTMPI_ENTER();
    return barrier(__func__, comm, NULL);
}
RTMPI_WEAK(Barrier)

int PMPI_Ibarrier(MPI_Comm comm, MPI_Request *request)
{
    RTMPI_ENTER();
    if (!request)
        return rtmpi_error(comm, __func__, MPI_ERR_ARG, "request is NULL");
    return barrier(__func__, comm, request);
}
RTMPI_WEAK(Ibarrier)

static int bcast(const char *fn, void *buffer, int count, MPI_Datatype datatype, int root,
                 MPI_Comm comm, MPI_Request *request)
{
    cinfo_t ci_ = { 0 }, *ci = &ci_;
    int rc;

    if ((rc = get_comm(fn, comm, ci)) || (rc = check_buf(fn, ci, buffer, count, datatype, NULL, "")) ||
        (rc = check_root(fn, ci, root)))
        return rc;
    NEW_SCHED(s);
    return launch(fn, ci, s, build_bcast(fn, s, ci, buffer, count, datatype, root), request);
}

int PMPI_Bcast(void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm)
{
    RTMPI_ENTER();
    return bcast(__func__, buffer, count, datatype, root, comm, NULL);
}
RTMPI_WEAK(Bcast)

int PMPI_Ibcast(void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm,
                MPI_Request *request)
{
    RTMPI_ENTER();
    if (!request)
        return rtmpi_error(comm, __func__, MPI_ERR_ARG, "request is NULL");
    return bcast(__func__, buffer, count, datatype, root, comm, request);
}
RTMPI_WEAK(Ibcast)

static int reduce(const char *fn, const void *sendbuf, void *recvbuf, int count,
                  MPI_Datatype datatype, MPI_Op op, int root, MPI_Comm comm, MPI_Request *request)
{
    cinfo_t ci_ = { 0 }, *ci = &ci_;
    int rc;

    if ((rc = get_comm(fn, comm, ci)) || (rc = check_root(fn, ci, root)))
        return rc;
    if (sendbuf == MPI_IN_PLACE && ci->rank != root)
        return FAIL(ci, fn, MPI_ERR_BUFFER, "MPI_IN_PLACE is only valid at the root");
    if ((rc = check_buf(fn, ci, sendbuf == MPI_IN_PLACE ? recvbuf : sendbuf, count, datatype, NULL,
                        "send")) ||
        (ci->rank == root && (rc = check_buf(fn, ci, recvbuf, count, datatype, NULL, "receive"))) ||
        (rc = check_op(fn, ci, op, datatype)))
        return rc;
    NEW_SCHED(s);
    return launch(fn, ci, s, build_reduce(s, ci, sendbuf, recvbuf, count, datatype, op, root),
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
        return rtmpi_error(comm, __func__, MPI_ERR_ARG, "request is NULL");
    return reduce(__func__, sendbuf, recvbuf, count, datatype, op, root, comm, request);
}
RTMPI_WEAK(Ireduce)

static int allreduce(const char *fn, const void *sendbuf, void *recvbuf, int count,
                     MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Request *request)
{
    cinfo_t ci_ = { 0 }, *ci = &ci_;
    int rc;

    if ((rc = get_comm(fn, comm, ci)) ||
        (sendbuf != MPI_IN_PLACE &&
         (rc = check_buf(fn, ci, sendbuf, count, datatype, NULL, "send"))) ||
        (rc = check_buf(fn, ci, recvbuf, count, datatype, NULL, "receive")) ||
        (rc = check_op(fn, ci, op, datatype)))
        return rc;
    NEW_SCHED(s);
    return launch(fn, ci, s, build_allreduce(s, ci, sendbuf, recvbuf, count, datatype, op),
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
        return rtmpi_error(comm, __func__, MPI_ERR_ARG, "request is NULL");
    return allreduce(__func__, sendbuf, recvbuf, count, datatype, op, comm, request);
}
RTMPI_WEAK(Iallreduce)

static int check_counts(const char *fn, cinfo_t *ci, const int *counts, const int *displs,
                        const char *what)
{
    if (!counts || !displs)
        return FAIL(ci, fn, MPI_ERR_ARG, "%s counts or displacements are NULL", what);
    for (int i = 0; i < ci->size; i++)
        if (counts[i] < 0)
            return FAIL(ci, fn, MPI_ERR_COUNT, "negative %s count %d for rank %d", what,
                        counts[i], i);
    return MPI_SUCCESS;
}

static int gather(const char *fn, const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                  void *recvbuf, const int *recvcounts, const int *displs, int recvcount,
                  MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request *request)
{
    cinfo_t ci_ = { 0 }, *ci = &ci_;
    int rc;

    if ((rc = get_comm(fn, comm, ci)) || (rc = check_root(fn, ci, root)))
        return rc;
    int is_root = ci->rank == root;
    if (sendbuf == MPI_IN_PLACE && !is_root)
        return FAIL(ci, fn, MPI_ERR_BUFFER, "MPI_IN_PLACE is only valid at the root");
    if (sendbuf != MPI_IN_PLACE &&
        (rc = check_buf(fn, ci, sendbuf, sendcount, sendtype, NULL, "send")))
        return rc;
    if (is_root) {
        if (recvcounts && (rc = check_counts(fn, ci, recvcounts, displs, "receive")))
            return rc;
        if ((rc = check_buf(fn, ci, recvbuf, recvcounts ? 1 : recvcount, recvtype, NULL, "receive")))
            return rc;
    }
    NEW_SCHED(s);
    return launch(fn, ci, s, build_gatherv(s, ci, sendbuf, sendcount, sendtype, recvbuf,
                                           recvcounts, displs, recvcount, recvtype, root),
                  request);
}

int PMPI_Gather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm)
{
    RTMPI_ENTER();
    return gather(__func__, sendbuf, sendcount, sendtype, recvbuf, NULL, NULL, recvcount, recvtype,
                  root, comm, NULL);
}
RTMPI_WEAK(Gather)

int PMPI_Igather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                 int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
                 MPI_Request *request)
{
    RTMPI_ENTER();
    if (!request)
        return rtmpi_error(comm, __func__, MPI_ERR_ARG, "request is NULL");
    return gather(__func__, sendbuf, sendcount, sendtype, recvbuf, NULL, NULL, recvcount, recvtype,
                  root, comm, request);
}
RTMPI_WEAK(Igather)

int PMPI_Gatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                 const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root,
                 MPI_Comm comm)
{
    RTMPI_ENTER();
    return gather(__func__, sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, 0, recvtype,
                  root, comm, NULL);
}
RTMPI_WEAK(Gatherv)

int PMPI_Igatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                  const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root,
                  MPI_Comm comm, MPI_Request *request)
{
    RTMPI_ENTER();
    if (!request)
        return rtmpi_error(comm, __func__, MPI_ERR_ARG, "request is NULL");
    return gather(__func__, sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, 0, recvtype,
                  root, comm, request);
}
RTMPI_WEAK(Igatherv)

static int scatter(const char *fn, const void *sendbuf, const int *sendcounts, const int *displs,
                   int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                   MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request *request)
{
    cinfo_t ci_ = { 0 }, *ci = &ci_;
    int rc;

    if ((rc = get_comm(fn, comm, ci)) || (rc = check_root(fn, ci, root)))
        return rc;
    int is_root = ci->rank == root;
    if (recvbuf == MPI_IN_PLACE && !is_root)
        return FAIL(ci, fn, MPI_ERR_BUFFER, "MPI_IN_PLACE is only valid at the root");
    if (recvbuf != MPI_IN_PLACE &&
        (rc = check_buf(fn, ci, recvbuf, recvcount, recvtype, NULL, "receive")))
        return rc;
    if (is_root) {
        if (sendcounts && (rc = check_counts(fn, ci, sendcounts, displs, "send")))
            return rc;
        if ((rc = check_buf(fn, ci, sendbuf, sendcounts ? 1 : sendcount, sendtype, NULL, "send")))
            return rc;
    }
    NEW_SCHED(s);
    return launch(fn, ci, s, build_scatterv(s, ci, sendbuf, sendcounts, displs, sendcount,
                                            sendtype, recvbuf, recvcount, recvtype, root),
                  request);
}

int PMPI_Scatter(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                 int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm)
{
    RTMPI_ENTER();
    return scatter(__func__, sendbuf, NULL, NULL, sendcount, sendtype, recvbuf, recvcount,
                   recvtype, root, comm, NULL);
}
RTMPI_WEAK(Scatter)

int PMPI_Iscatter(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                  int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
                  MPI_Request *request)
{
    RTMPI_ENTER();
    if (!request)
        return rtmpi_error(comm, __func__, MPI_ERR_ARG, "request is NULL");
    return scatter(__func__, sendbuf, NULL, NULL, sendcount, sendtype, recvbuf, recvcount,
                   recvtype, root, comm, request);
}
RTMPI_WEAK(Iscatter)

int PMPI_Scatterv(const void *sendbuf, const int sendcounts[], const int displs[],
                  MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype,
                  int root, MPI_Comm comm)
{
    RTMPI_ENTER();
    return scatter(__func__, sendbuf, sendcounts, displs, 0, sendtype, recvbuf, recvcount,
                   recvtype, root, comm, NULL);
}
RTMPI_WEAK(Scatterv)

int PMPI_Iscatterv(const void *sendbuf, const int sendcounts[], const int displs[],
                   MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype,
                   int root, MPI_Comm comm, MPI_Request *request)
{
    RTMPI_ENTER();
    if (!request)
        return rtmpi_error(comm, __func__, MPI_ERR_ARG, "request is NULL");
    return scatter(__func__, sendbuf, sendcounts, displs, 0, sendtype, recvbuf, recvcount,
                   recvtype, root, comm, request);
}
RTMPI_WEAK(Iscatterv)

static int allgather(const char *fn, const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                     void *recvbuf, const int *recvcounts, const int *displs, int recvcount,
                     MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request)
{
    cinfo_t ci_ = { 0 }, *ci = &ci_;
    int rc;

    if ((rc = get_comm(fn, comm, ci)))
        return rc;
    if (sendbuf != MPI_IN_PLACE &&
        (rc = check_buf(fn, ci, sendbuf, sendcount, sendtype, NULL, "send")))
        return rc;
    if (recvcounts && (rc = check_counts(fn, ci, recvcounts, displs, "receive")))
        return rc;
    if ((rc = check_buf(fn, ci, recvbuf, recvcounts ? 1 : recvcount, recvtype, NULL, "receive")))
        return rc;
    NEW_SCHED(s);
    return launch(fn, ci, s, build_allgatherv(s, ci, sendbuf, sendcount, sendtype, recvbuf,
                                              recvcounts, displs, recvcount, recvtype),
                  request);
}

int PMPI_Allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                   int recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
    RTMPI_ENTER();
    return allgather(__func__, sendbuf, sendcount, sendtype, recvbuf, NULL, NULL, recvcount,
                     recvtype, comm, NULL);
}
RTMPI_WEAK(Allgather)

int PMPI_Iallgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                    int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request)
{
    RTMPI_ENTER();
    if (!request)
        return rtmpi_error(comm, __func__, MPI_ERR_ARG, "request is NULL");
    return allgather(__func__, sendbuf, sendcount, sendtype, recvbuf, NULL, NULL, recvcount,
                     recvtype, comm, request);
}
RTMPI_WEAK(Iallgather)

int PMPI_Allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                    const int recvcounts[], const int displs[], MPI_Datatype recvtype,
                    MPI_Comm comm)
{
    RTMPI_ENTER();
    return allgather(__func__, sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, 0,
                     recvtype, comm, NULL);
}
RTMPI_WEAK(Allgatherv)

int PMPI_Iallgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                     const int recvcounts[], const int displs[], MPI_Datatype recvtype,
                     MPI_Comm comm, MPI_Request *request)
{
    RTMPI_ENTER();
    if (!request)
        return rtmpi_error(comm, __func__, MPI_ERR_ARG, "request is NULL");
    return allgather(__func__, sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, 0,
                     recvtype, comm, request);
}
RTMPI_WEAK(Iallgatherv)

/* kind 0: alltoall, 1: alltoallv, 2: alltoallw */
static int alltoall(const char *fn, int kind, const void *sendbuf, const int *sendcounts,
                    const int *sdispls, const MPI_Datatype *sendtypes, int sendcount,
                    void *recvbuf, const int *recvcounts, const int *rdispls,
                    const MPI_Datatype *recvtypes, int recvcount, MPI_Comm comm,
                    MPI_Request *request)
{
    cinfo_t ci_ = { 0 }, *ci = &ci_;
    int rc, in_place = sendbuf == MPI_IN_PLACE;

    if ((rc = get_comm(fn, comm, ci)))
        return rc;
    int p = ci->size;
    if (kind > 0) {
        if ((!in_place && (rc = check_counts(fn, ci, sendcounts, sdispls, "send"))) ||
            (rc = check_counts(fn, ci, recvcounts, rdispls, "receive")))
            return rc;
    }
    for (int i = 0; i < p; i++) {
        MPI_Datatype st = kind == 2 ? (in_place ? MPI_BYTE : sendtypes[i]) : sendtypes[0];
        MPI_Datatype rt = kind == 2 ? recvtypes[i] : recvtypes[0];
        int sc = kind == 0 ? sendcount : (in_place ? 0 : sendcounts[i]);
        int rcn = kind == 0 ? recvcount : recvcounts[i];

        if ((!in_place && (rc = check_buf(fn, ci, sendbuf, sc, st, NULL, "send"))) ||
            (rc = check_buf(fn, ci, recvbuf, rcn, rt, NULL, "receive")))
            return rc;
        if (kind < 2)
            break;
    }
    NEW_SCHED(s);
    a2a_t *a = a2a_new(s, p);
    if (!a)
        return launch(fn, ci, s, MPI_ERR_NO_MEM, request);
    a->sbuf = sendbuf;
    a->rbuf = recvbuf;
    size_t block = 0;
    for (int i = 0; i < p; i++) {
        MPI_Datatype rt = kind == 2 ? recvtypes[i] : recvtypes[0];

        a->rtypes[i] = rt;
        a->rcounts[i] = kind == 0 ? recvcount : recvcounts[i];
        a->rdispls[i] = kind == 0 ? (MPI_Aint)i * recvcount * extent_of(rt)
                      : kind == 1 ? (MPI_Aint)rdispls[i] * extent_of(rt) : rdispls[i];
        if (!in_place) {
            MPI_Datatype st = kind == 2 ? sendtypes[i] : sendtypes[0];

            a->stypes[i] = st;
            a->scounts[i] = kind == 0 ? sendcount : sendcounts[i];
            a->sdispls[i] = kind == 0 ? (MPI_Aint)i * sendcount * extent_of(st)
                          : kind == 1 ? (MPI_Aint)sdispls[i] * extent_of(st) : sdispls[i];
        }
        block += (size_t)a->rcounts[i] * (size_t)rtmpi_dtype_get(rt)->size;
    }
    int pairwise = p > 2 && block / (size_t)p >= mpi_config.alltoall_pairwise;
    return launch(fn, ci, s, build_alltoallw(s, ci, a, in_place, pairwise), request);
}

int PMPI_Alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                  int recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
    RTMPI_ENTER();
    return alltoall(__func__, 0, sendbuf, NULL, NULL, &sendtype, sendcount, recvbuf, NULL, NULL,
                    &recvtype, recvcount, comm, NULL);
}
RTMPI_WEAK(Alltoall)

int PMPI_Ialltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                   int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request)
{
    RTMPI_ENTER();
    if (!request)
        return rtmpi_error(comm, __func__, MPI_ERR_ARG, "request is NULL");
    return alltoall(__func__, 0, sendbuf, NULL, NULL, &sendtype, sendcount, recvbuf, NULL, NULL,
                    &recvtype, recvcount, comm, request);
}
RTMPI_WEAK(Ialltoall)

int PMPI_Alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[],
                   MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                   const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm)
{
    RTMPI_ENTER();
    return alltoall(__func__, 1, sendbuf, sendcounts, sdispls, &sendtype, 0, recvbuf, recvcounts,
                    rdispls, &recvtype, 0, comm, NULL);
}
RTMPI_WEAK(Alltoallv)

int PMPI_Ialltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[],
                    MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                    const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm,
                    MPI_Request *request)
{
    RTMPI_ENTER();
    if (!request)
        return rtmpi_error(comm, __func__, MPI_ERR_ARG, "request is NULL");
    return alltoall(__func__, 1, sendbuf, sendcounts, sdispls, &sendtype, 0, recvbuf, recvcounts,
                    rdispls, &recvtype, 0, comm, request);
}
RTMPI_WEAK(Ialltoallv)

int PMPI_Alltoallw(const void *sendbuf, const int sendcounts[], const int sdispls[],
                   const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
                   const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm)
{
    RTMPI_ENTER();
    if (!recvtypes || (sendbuf != MPI_IN_PLACE && !sendtypes))
        return rtmpi_error(comm, __func__, MPI_ERR_ARG, "datatype array is NULL");
    return alltoall(__func__, 2, sendbuf, sendcounts, sdispls, sendtypes, 0, recvbuf, recvcounts,
                    rdispls, recvtypes, 0, comm, NULL);
}
RTMPI_WEAK(Alltoallw)

int PMPI_Ialltoallw(const void *sendbuf, const int sendcounts[], const int sdispls[],
                    const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
                    const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm,
                    MPI_Request *request)
{
    RTMPI_ENTER();
    if (!request)
        return rtmpi_error(comm, __func__, MPI_ERR_ARG, "request is NULL");
    if (!recvtypes || (sendbuf != MPI_IN_PLACE && !sendtypes))
        return rtmpi_error(comm, __func__, MPI_ERR_ARG, "datatype array is NULL");
    return alltoall(__func__, 2, sendbuf, sendcounts, sdispls, sendtypes, 0, recvbuf, recvcounts,
                    rdispls, recvtypes, 0, comm, request);
}
RTMPI_WEAK(Ialltoallw)

static int reduce_scatter(const char *fn, const void *sendbuf, void *recvbuf,
                          const int *recvcounts, int recvcount, MPI_Datatype datatype, MPI_Op op,
                          MPI_Comm comm, MPI_Request *request)
{
    cinfo_t ci_ = { 0 }, *ci = &ci_;
    int rc, total = 0;

    if ((rc = get_comm(fn, comm, ci)))
        return rc;
    if (recvcounts) {
        if (!recvcounts)
            return FAIL(ci, fn, MPI_ERR_ARG, "recvcounts is NULL");
        for (int i = 0; i < ci->size; i++) {
            if (recvcounts[i] < 0)
                return FAIL(ci, fn, MPI_ERR_COUNT, "negative count %d for rank %d", recvcounts[i], i);
            total += recvcounts[i];
        }
    } else if (recvcount < 0) {
        return FAIL(ci, fn, MPI_ERR_COUNT, "negative count %d", recvcount);
    } else {
        total = recvcount * ci->size;
    }
    if ((sendbuf != MPI_IN_PLACE &&
         (rc = check_buf(fn, ci, sendbuf, total, datatype, NULL, "send"))) ||
        (rc = check_buf(fn, ci, recvbuf, recvcounts ? recvcounts[ci->rank] : recvcount, datatype,
                        NULL, "receive")) ||
        (rc = check_op(fn, ci, op, datatype)))
        return rc;
    NEW_SCHED(s);
    int *counts = (int *)recvcounts;
    if (!recvcounts) {
        counts = rtmpi_sched_tmp(s, (size_t)ci->size * sizeof(int));
        if (!counts)
            return launch(fn, ci, s, MPI_ERR_NO_MEM, request);
        for (int i = 0; i < ci->size; i++)
            counts[i] = recvcount;
    } else {
        /* The request may outlive the caller's array. */
        counts = rtmpi_sched_tmp(s, (size_t)ci->size * sizeof(int));
        if (!counts)
            return launch(fn, ci, s, MPI_ERR_NO_MEM, request);
        memcpy(counts, recvcounts, (size_t)ci->size * sizeof(int));
    }
    return launch(fn, ci, s, build_reduce_scatter(s, ci, sendbuf, recvbuf, counts, datatype, op),
                  request);
}

int PMPI_Reduce_scatter(const void *sendbuf, void *recvbuf, const int recvcounts[],
                        MPI_Datatype datatype, MPI_Op op, MPI_Comm comm)
{
    RTMPI_ENTER();
    if (!recvcounts)
        return rtmpi_error(comm, __func__, MPI_ERR_ARG, "recvcounts is NULL");
    return reduce_scatter(__func__, sendbuf, recvbuf, recvcounts, 0, datatype, op, comm, NULL);
}
RTMPI_WEAK(Reduce_scatter)

int PMPI_Ireduce_scatter(const void *sendbuf, void *recvbuf, const int recvcounts[],
                         MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Request *request)
{
    RTMPI_ENTER();
    if (!request || !recvcounts)
        return rtmpi_error(comm, __func__, MPI_ERR_ARG, "request or recvcounts is NULL");
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
        return rtmpi_error(comm, __func__, MPI_ERR_ARG, "request is NULL");
    return reduce_scatter(__func__, sendbuf, recvbuf, NULL, recvcount, datatype, op, comm, request);
}
RTMPI_WEAK(Ireduce_scatter_block)

static int scan(const char *fn, const void *sendbuf, void *recvbuf, int count,
                MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, int exclusive,
                MPI_Request *request)
{
    cinfo_t ci_ = { 0 }, *ci = &ci_;
    int rc;

    if ((rc = get_comm(fn, comm, ci)) ||
        (sendbuf != MPI_IN_PLACE &&
         (rc = check_buf(fn, ci, sendbuf, count, datatype, NULL, "send"))) ||
        (rc = check_buf(fn, ci, recvbuf, count, datatype, NULL, "receive")) ||
        (rc = check_op(fn, ci, op, datatype)))
        return rc;
    NEW_SCHED(s);
    return launch(fn, ci, s, build_scan(s, ci, sendbuf, recvbuf, count, datatype, op, exclusive),
                  request);
}

int PMPI_Scan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
              MPI_Comm comm)
{
    RTMPI_ENTER();
    return scan(__func__, sendbuf, recvbuf, count, datatype, op, comm, 0, NULL);
}
RTMPI_WEAK(Scan)

int PMPI_Iscan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
               MPI_Comm comm, MPI_Request *request)
{
    RTMPI_ENTER();
    if (!request)
        return rtmpi_error(comm, __func__, MPI_ERR_ARG, "request is NULL");
    return scan(__func__, sendbuf, recvbuf, count, datatype, op, comm, 0, request);
}
RTMPI_WEAK(Iscan)

int PMPI_Exscan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                MPI_Comm comm)
{
    RTMPI_ENTER();
    return scan(__func__, sendbuf, recvbuf, count, datatype, op, comm, 1, NULL);
}
RTMPI_WEAK(Exscan)

int PMPI_Iexscan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                 MPI_Comm comm, MPI_Request *request)
{
    RTMPI_ENTER();
    if (!request)
        return rtmpi_error(comm, __func__, MPI_ERR_ARG, "request is NULL");
    return scan(__func__, sendbuf, recvbuf, count, datatype, op, comm, 1, request);
}
RTMPI_WEAK(Iexscan)
