/*
 * Collective argument handling and many nonblocking collectives at once
 * (issue 14, part collfix). Modes (argv[1]):
 *
 *   zero [nb]    NULL buffers with all-zero counts in every collective
 *                (the case mpi4py's 2-rank suite hung on: Gatherv, Scatterv,
 *                Allgatherv rejected it), v-collectives where some ranks
 *                contribute nothing from a NULL buffer, and MPI_IN_PLACE
 *                wherever MPI 3.1 allows it; data checked. Under the
 *                default handler: a wrongly rejected call ends the job.
 *   args [nb]    under MPI_ERRORS_RETURN, every argument error that every
 *                rank can see (the same value at each rank: communicator,
 *                root, op, op for the type, counts every rank passes, the
 *                request pointer) returns its class at every rank with
 *                nothing sent, and the communicator works afterwards; an
 *                error only the root of a Gatherv sees returns there while
 *                the others' sends complete, and the collectives after it
 *                still match (docs/collectives.md, "Argument errors").
 *   fatal CASE   an error only one rank sees, under MPI_ERRORS_ARE_FATAL:
 *                the job must end with one line naming rank and host (the
 *                driver checks it). CASE: scatterv-root (rank 0, the root,
 *                passes a negative count), gather-inplace (rank 1 passes
 *                MPI_IN_PLACE, valid only at the root), ibcast-null (rank 1
 *                passes a NULL buffer with count 4).
 *   many N       N outstanding nonblocking collectives of mixed kinds on two
 *                communicators, completed with Waitall, Waitany and Testsome
 *                in an order unlike the start order; data checked.
 */
#include "mpitest.h"

#include <limits.h>

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

/* ---- zero: NULL with zero counts, MPI_IN_PLACE --------------------------- */

static void test_zero(MPI_Comm comm)
{
    int p, r;

    MPI_Comm_size(comm, &p);
    MPI_Comm_rank(comm, &r);
    int *zeros = calloc((size_t)p, sizeof(int)), *cnt = calloc((size_t)p, sizeof(int));
    int *dsp = calloc((size_t)p, sizeof(int)), *rcnt = calloc((size_t)p, sizeof(int));
    int *rdsp = calloc((size_t)p, sizeof(int));
    MPI_Datatype *types = malloc((size_t)p * sizeof(*types));
    int *buf = malloc((size_t)(4 * p * p + 4) * sizeof(int));
    int *buf2 = malloc((size_t)(4 * p * p + 4) * sizeof(int));
    int ok, total;

    CHECK(zeros && cnt && dsp && rcnt && rdsp && types && buf && buf2, "out of memory");
    for (int i = 0; i < p; i++)
        types[i] = MPI_INT;

    /* everything NULL, every count 0, every root */
    th_case = "null, zero counts";
    for (int root = 0; root < p; root++) {
        COLL(MPI_Gatherv(NULL, 0, MPI_INT, NULL, zeros, zeros, MPI_INT, root, comm),
             MPI_Igatherv(NULL, 0, MPI_INT, NULL, zeros, zeros, MPI_INT, root, comm, &rq_));
        COLL(MPI_Scatterv(NULL, zeros, zeros, MPI_INT, NULL, 0, MPI_INT, root, comm),
             MPI_Iscatterv(NULL, zeros, zeros, MPI_INT, NULL, 0, MPI_INT, root, comm, &rq_));
        COLL(MPI_Gather(NULL, 0, MPI_INT, NULL, 0, MPI_INT, root, comm),
             MPI_Igather(NULL, 0, MPI_INT, NULL, 0, MPI_INT, root, comm, &rq_));
        COLL(MPI_Scatter(NULL, 0, MPI_INT, NULL, 0, MPI_INT, root, comm),
             MPI_Iscatter(NULL, 0, MPI_INT, NULL, 0, MPI_INT, root, comm, &rq_));
        COLL(MPI_Bcast(NULL, 0, MPI_INT, root, comm),
             MPI_Ibcast(NULL, 0, MPI_INT, root, comm, &rq_));
        COLL(MPI_Reduce(NULL, NULL, 0, MPI_INT, MPI_SUM, root, comm),
             MPI_Ireduce(NULL, NULL, 0, MPI_INT, MPI_SUM, root, comm, &rq_));
        /* the root's IN_PLACE with nothing to move */
        COLL(MPI_Gatherv(r == root ? MPI_IN_PLACE : NULL, 0, MPI_INT, NULL, zeros, zeros, MPI_INT,
                         root, comm),
             MPI_Igatherv(r == root ? MPI_IN_PLACE : NULL, 0, MPI_INT, NULL, zeros, zeros,
                          MPI_INT, root, comm, &rq_));
        COLL(MPI_Scatterv(NULL, zeros, zeros, MPI_INT, r == root ? MPI_IN_PLACE : NULL, 0,
                          MPI_INT, root, comm),
             MPI_Iscatterv(NULL, zeros, zeros, MPI_INT, r == root ? MPI_IN_PLACE : NULL, 0,
                           MPI_INT, root, comm, &rq_));
    }
    COLL(MPI_Allgatherv(NULL, 0, MPI_INT, NULL, zeros, zeros, MPI_INT, comm),
         MPI_Iallgatherv(NULL, 0, MPI_INT, NULL, zeros, zeros, MPI_INT, comm, &rq_));
    COLL(MPI_Allgatherv(MPI_IN_PLACE, 0, MPI_INT, NULL, zeros, zeros, MPI_INT, comm),
         MPI_Iallgatherv(MPI_IN_PLACE, 0, MPI_INT, NULL, zeros, zeros, MPI_INT, comm, &rq_));
    COLL(MPI_Allgather(NULL, 0, MPI_INT, NULL, 0, MPI_INT, comm),
         MPI_Iallgather(NULL, 0, MPI_INT, NULL, 0, MPI_INT, comm, &rq_));
    COLL(MPI_Alltoall(NULL, 0, MPI_INT, NULL, 0, MPI_INT, comm),
         MPI_Ialltoall(NULL, 0, MPI_INT, NULL, 0, MPI_INT, comm, &rq_));
    COLL(MPI_Alltoallv(NULL, zeros, zeros, MPI_INT, NULL, zeros, zeros, MPI_INT, comm),
         MPI_Ialltoallv(NULL, zeros, zeros, MPI_INT, NULL, zeros, zeros, MPI_INT, comm, &rq_));
    COLL(MPI_Alltoallv(MPI_IN_PLACE, NULL, NULL, MPI_DATATYPE_NULL, NULL, zeros, zeros, MPI_INT,
                       comm),
         MPI_Ialltoallv(MPI_IN_PLACE, NULL, NULL, MPI_DATATYPE_NULL, NULL, zeros, zeros, MPI_INT,
                        comm, &rq_));
    COLL(MPI_Alltoallw(NULL, zeros, zeros, types, NULL, zeros, zeros, types, comm),
         MPI_Ialltoallw(NULL, zeros, zeros, types, NULL, zeros, zeros, types, comm, &rq_));
    COLL(MPI_Allreduce(NULL, NULL, 0, MPI_INT, MPI_SUM, comm),
         MPI_Iallreduce(NULL, NULL, 0, MPI_INT, MPI_SUM, comm, &rq_));
    COLL(MPI_Allreduce(MPI_IN_PLACE, NULL, 0, MPI_INT, MPI_SUM, comm),
         MPI_Iallreduce(MPI_IN_PLACE, NULL, 0, MPI_INT, MPI_SUM, comm, &rq_));
    COLL(MPI_Reduce_scatter(NULL, NULL, zeros, MPI_INT, MPI_SUM, comm),
         MPI_Ireduce_scatter(NULL, NULL, zeros, MPI_INT, MPI_SUM, comm, &rq_));
    COLL(MPI_Reduce_scatter_block(NULL, NULL, 0, MPI_INT, MPI_SUM, comm),
         MPI_Ireduce_scatter_block(NULL, NULL, 0, MPI_INT, MPI_SUM, comm, &rq_));
    COLL(MPI_Scan(NULL, NULL, 0, MPI_INT, MPI_SUM, comm),
         MPI_Iscan(NULL, NULL, 0, MPI_INT, MPI_SUM, comm, &rq_));
    COLL(MPI_Exscan(NULL, NULL, 0, MPI_INT, MPI_SUM, comm),
         MPI_Iexscan(NULL, NULL, 0, MPI_INT, MPI_SUM, comm, &rq_));

    /* v-collectives where the odd ranks contribute two ints and the even
     * ones nothing, from (or into) a NULL buffer */
    th_case = "some ranks empty";
    total = 0;
    for (int i = 0; i < p; i++) {
        cnt[i] = i % 2 ? 2 : 0;
        dsp[i] = total;
        total += cnt[i];
    }
    int *mine = r % 2 ? buf2 : NULL;
    if (mine) {
        mine[0] = r * 10;
        mine[1] = r * 10 + 1;
    }
    for (int root = 0; root < p; root++) {
        for (int i = 0; i < total + 1; i++)
            buf[i] = -7;
        COLL(MPI_Gatherv(mine, cnt[r], MPI_INT, buf, cnt, dsp, MPI_INT, root, comm),
             MPI_Igatherv(mine, cnt[r], MPI_INT, buf, cnt, dsp, MPI_INT, root, comm, &rq_));
        if (r == root) {
            ok = buf[total] == -7;
            for (int i = 1; i < p; i += 2)
                ok &= buf[dsp[i]] == i * 10 && buf[dsp[i] + 1] == i * 10 + 1;
            EXPECT(ok, "gatherv with empty contributions, root %d", root);
        }
        /* the same scattered back: the even ranks receive nothing into NULL */
        int got[2] = { -1, -1 };
        if (r == root)
            for (int i = 0; i < total; i++)
                buf[i] = 500 + i;
        COLL(MPI_Scatterv(buf, cnt, dsp, MPI_INT, r % 2 ? got : NULL, cnt[r], MPI_INT, root, comm),
             MPI_Iscatterv(buf, cnt, dsp, MPI_INT, r % 2 ? got : NULL, cnt[r], MPI_INT, root, comm,
                           &rq_));
        if (r % 2)
            EXPECT(got[0] == 500 + dsp[r] && got[1] == 501 + dsp[r],
                   "scatterv with empty parts, root %d: %d %d", root, got[0], got[1]);
    }
    for (int i = 0; i < total + 1; i++)
        buf[i] = -7;
    COLL(MPI_Allgatherv(mine, cnt[r], MPI_INT, buf, cnt, dsp, MPI_INT, comm),
         MPI_Iallgatherv(mine, cnt[r], MPI_INT, buf, cnt, dsp, MPI_INT, comm, &rq_));
    ok = buf[total] == -7;
    for (int i = 1; i < p; i += 2)
        ok &= buf[dsp[i]] == i * 10 && buf[dsp[i] + 1] == i * 10 + 1;
    EXPECT(ok, "allgatherv with empty contributions");
    /* Alltoallv: each rank sends one int to rank 0 only, rank 0 sends
     * nothing (NULL buffer); only rank 0 receives. */
    for (int i = 0; i < p; i++) {
        cnt[i] = i == 0 && r != 0 ? 1 : 0;
        dsp[i] = 0;
        rcnt[i] = r == 0 && i != 0 ? 1 : 0;
        rdsp[i] = i;
    }
    int one = r * 3 + 1;
    for (int i = 0; i < p; i++)
        buf[i] = -7;
    COLL(MPI_Alltoallv(r ? &one : NULL, cnt, dsp, MPI_INT, r ? NULL : buf, rcnt, rdsp, MPI_INT,
                       comm),
         MPI_Ialltoallv(r ? &one : NULL, cnt, dsp, MPI_INT, r ? NULL : buf, rcnt, rdsp, MPI_INT,
                        comm, &rq_));
    if (r == 0) {
        ok = buf[0] == -7;
        for (int i = 1; i < p; i++)
            ok &= buf[i] == i * 3 + 1;
        EXPECT(ok, "alltoallv into one rank");
    }
    /* Reduce_scatter where the even ranks get nothing (NULL receive buffer) */
    total = 0;
    for (int i = 0; i < p; i++)
        total += cnt[i] = i % 2 ? 2 : 0;
    for (int i = 0; i < total; i++)
        buf2[i] = r + i;
    int rs[2] = { -1, -1 };
    if (total > 0) {
        COLL(MPI_Reduce_scatter(buf2, r % 2 ? rs : NULL, cnt, MPI_INT, MPI_SUM, comm),
             MPI_Ireduce_scatter(buf2, r % 2 ? rs : NULL, cnt, MPI_INT, MPI_SUM, comm, &rq_));
        if (r % 2) {
            int off = (r / 2) * 2;   /* odd ranks before r contribute 2 each */
            EXPECT(rs[0] == p * (p - 1) / 2 + p * off && rs[1] == p * (p - 1) / 2 + p * (off + 1),
                   "reduce_scatter with empty parts: %d %d", rs[0], rs[1]);
        }
    }

    /* MPI_IN_PLACE wherever MPI 3.1 allows it (intracommunicators) */
    th_case = "in place";
    int root = p - 1;
    for (int i = 0; i < p; i++) {
        cnt[i] = i + 1;
        dsp[i] = i * (p + 1);   /* gaps between the blocks */
    }
    int span = p * (p + 1);
    for (int i = 0; i < span; i++)
        buf[i] = r == root ? -5 : -1;
    for (int i = 0; i < cnt[r]; i++)
        buf2[i] = r * 100 + i;
    if (r == root)
        for (int i = 0; i < cnt[r]; i++)
            buf[dsp[r] + i] = r * 100 + i;
    COLL(MPI_Gatherv(r == root ? MPI_IN_PLACE : buf2, cnt[r], MPI_INT, buf, cnt, dsp, MPI_INT, root,
                     comm),
         MPI_Igatherv(r == root ? MPI_IN_PLACE : buf2, cnt[r], MPI_INT, buf, cnt, dsp, MPI_INT,
                      root, comm, &rq_));
    if (r == root) {
        ok = 1;
        for (int k = 0; k < p; k++)
            for (int i = 0; i < p + 1; i++)
                ok &= buf[k * (p + 1) + i] == (i < cnt[k] ? k * 100 + i : -5);
        EXPECT(ok, "gatherv in place");
    }
    /* Scatterv in place: the root keeps its block where it is */
    if (r == root)
        for (int i = 0; i < span; i++)
            buf[i] = 3000 + i;
    for (int i = 0; i < p + 1; i++)
        buf2[i] = -1;
    COLL(MPI_Scatterv(buf, cnt, dsp, MPI_INT, r == root ? MPI_IN_PLACE : buf2, cnt[r], MPI_INT,
                      root, comm),
         MPI_Iscatterv(buf, cnt, dsp, MPI_INT, r == root ? MPI_IN_PLACE : buf2, cnt[r], MPI_INT,
                       root, comm, &rq_));
    if (r != root) {
        ok = buf2[cnt[r]] == -1;
        for (int i = 0; i < cnt[r]; i++)
            ok &= buf2[i] == 3000 + dsp[r] + i;
        EXPECT(ok, "scatterv in place (non-root %d)", r);
    } else {
        ok = 1;
        for (int i = 0; i < span; i++)
            ok &= buf[i] == 3000 + i;
        EXPECT(ok, "scatterv in place: the root's buffer changed");
    }
    /* Scatter in place */
    if (r == root)
        for (int i = 0; i < 2 * p; i++)
            buf[i] = 4000 + i;
    buf2[0] = buf2[1] = -1;
    COLL(MPI_Scatter(buf, 2, MPI_INT, r == root ? MPI_IN_PLACE : buf2, 2, MPI_INT, root, comm),
         MPI_Iscatter(buf, 2, MPI_INT, r == root ? MPI_IN_PLACE : buf2, 2, MPI_INT, root, comm,
                      &rq_));
    if (r != root)
        EXPECT(buf2[0] == 4000 + 2 * r && buf2[1] == 4001 + 2 * r, "scatter in place");
    /* Gather in place */
    for (int i = 0; i < 2 * p; i++)
        buf[i] = r == root && i / 2 == root ? 60 * root + i % 2 : -1;
    buf2[0] = 60 * r;
    buf2[1] = 60 * r + 1;
    COLL(MPI_Gather(r == root ? MPI_IN_PLACE : buf2, 2, MPI_INT, buf, 2, MPI_INT, root, comm),
         MPI_Igather(r == root ? MPI_IN_PLACE : buf2, 2, MPI_INT, buf, 2, MPI_INT, root, comm,
                     &rq_));
    if (r == root) {
        ok = 1;
        for (int i = 0; i < 2 * p; i++)
            ok &= buf[i] == 60 * (i / 2) + i % 2;
        EXPECT(ok, "gather in place");
    }
    /* Allgatherv in place */
    for (int k = 0; k < p; k++)
        for (int i = 0; i < p + 1; i++)
            buf[k * (p + 1) + i] = k == r && i < cnt[k] ? 700 + k * 10 + i : -5;
    COLL(MPI_Allgatherv(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, buf, cnt, dsp, MPI_INT, comm),
         MPI_Iallgatherv(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, buf, cnt, dsp, MPI_INT, comm, &rq_));
    ok = 1;
    for (int k = 0; k < p; k++)
        for (int i = 0; i < p + 1; i++)
            ok &= buf[k * (p + 1) + i] == (i < cnt[k] ? 700 + k * 10 + i : -5);
    EXPECT(ok, "allgatherv in place");
    /* Alltoallv in place: rank r holds for rank k (k + 1) ints at k*(p+1),
     * and receives from k its cnt[r]... here symmetric counts: the block
     * exchanged between r and k has min(r, k) + 1 ints both ways */
    for (int k = 0; k < p; k++) {
        rcnt[k] = (k < r ? k : r) + 1;
        rdsp[k] = k * (p + 1);
        for (int i = 0; i < p + 1; i++)
            buf[k * (p + 1) + i] = i < rcnt[k] ? r * 1000 + k * 10 + i : -5;
    }
    COLL(MPI_Alltoallv(MPI_IN_PLACE, NULL, NULL, MPI_DATATYPE_NULL, buf, rcnt, rdsp, MPI_INT,
                       comm),
         MPI_Ialltoallv(MPI_IN_PLACE, NULL, NULL, MPI_DATATYPE_NULL, buf, rcnt, rdsp, MPI_INT,
                        comm, &rq_));
    ok = 1;
    for (int k = 0; k < p; k++)
        for (int i = 0; i < p + 1; i++)
            ok &= buf[k * (p + 1) + i] == (i < rcnt[k] ? k * 1000 + r * 10 + i : -5);
    EXPECT(ok, "alltoallv in place");
    /* Alltoallw in place: byte displacements */
    for (int k = 0; k < p; k++) {
        rdsp[k] = k * (p + 1) * (int)sizeof(int);
        for (int i = 0; i < p + 1; i++)
            buf[k * (p + 1) + i] = i < rcnt[k] ? r * 1000 + k * 10 + i : -5;
    }
    COLL(MPI_Alltoallw(MPI_IN_PLACE, NULL, NULL, NULL, buf, rcnt, rdsp, types, comm),
         MPI_Ialltoallw(MPI_IN_PLACE, NULL, NULL, NULL, buf, rcnt, rdsp, types, comm, &rq_));
    ok = 1;
    for (int k = 0; k < p; k++)
        for (int i = 0; i < p + 1; i++)
            ok &= buf[k * (p + 1) + i] == (i < rcnt[k] ? k * 1000 + r * 10 + i : -5);
    EXPECT(ok, "alltoallw in place");
    /* Reduce_scatter(_block) in place: the result is at the start of the buffer */
    total = 0;
    for (int i = 0; i < p; i++)
        total += cnt[i] = i + 1;
    for (int i = 0; i < total; i++)
        buf[i] = r * 2 + i;
    COLL(MPI_Reduce_scatter(MPI_IN_PLACE, buf, cnt, MPI_INT, MPI_SUM, comm),
         MPI_Ireduce_scatter(MPI_IN_PLACE, buf, cnt, MPI_INT, MPI_SUM, comm, &rq_));
    ok = 1;
    for (int i = 0, off = r * (r + 1) / 2; i < cnt[r]; i++)
        ok &= buf[i] == p * (p - 1) + p * (off + i);
    EXPECT(ok, "reduce_scatter in place");
    for (int i = 0; i < 2 * p; i++)
        buf[i] = r + i;
    COLL(MPI_Reduce_scatter_block(MPI_IN_PLACE, buf, 2, MPI_INT, MPI_SUM, comm),
         MPI_Ireduce_scatter_block(MPI_IN_PLACE, buf, 2, MPI_INT, MPI_SUM, comm, &rq_));
    EXPECT(buf[0] == p * (p - 1) / 2 + p * 2 * r && buf[1] == p * (p - 1) / 2 + p * (2 * r + 1),
           "reduce_scatter_block in place: %d %d", buf[0], buf[1]);
    /* Scan and Exscan in place */
    buf[0] = r + 1;
    buf[1] = 2 * r;
    COLL(MPI_Scan(MPI_IN_PLACE, buf, 2, MPI_INT, MPI_SUM, comm),
         MPI_Iscan(MPI_IN_PLACE, buf, 2, MPI_INT, MPI_SUM, comm, &rq_));
    EXPECT(buf[0] == (r + 1) * (r + 2) / 2 && buf[1] == r * (r + 1), "scan in place: %d %d",
           buf[0], buf[1]);
    buf[0] = r + 1;
    buf[1] = 2 * r;
    COLL(MPI_Exscan(MPI_IN_PLACE, buf, 2, MPI_INT, MPI_SUM, comm),
         MPI_Iexscan(MPI_IN_PLACE, buf, 2, MPI_INT, MPI_SUM, comm, &rq_));
    if (r > 0)
        EXPECT(buf[0] == r * (r + 1) / 2 && buf[1] == r * (r - 1), "exscan in place: %d %d",
               buf[0], buf[1]);
    th_case = NULL;
    free(zeros);
    free(cnt);
    free(dsp);
    free(rcnt);
    free(rdsp);
    free(types);
    free(buf);
    free(buf2);
}

/* ---- args: errors every rank sees, under MPI_ERRORS_RETURN -------------- */

/* The communicator still works: an allreduce of every rank's r + k. */
static void still_works(MPI_Comm comm, int k, const char *after)
{
    int p, r, in, out = -1;

    MPI_Comm_size(comm, &p);
    MPI_Comm_rank(comm, &r);
    in = r + k;
    CHECK_RC(MPI_Allreduce(&in, &out, 1, MPI_INT, MPI_SUM, comm));
    EXPECT(out == p * (p - 1) / 2 + p * k, "allreduce after %s: %d", after, out);
}

/* call returns class `want` at this rank; then the communicator works.
 * In nb mode the nonblocking form is called (an error returns at once,
 * with no request). */
#define EXPECT_ERR(_want, _blocking, _nonblocking) \
    do { \
        int rc_, cls_ = -1; \
        MPI_Request rq_ = MPI_REQUEST_NULL; \
        rc_ = nb ? (_nonblocking) : (_blocking); \
        if (rc_ != MPI_SUCCESS) \
            MPI_Error_class(rc_, &cls_); \
        EXPECT(cls_ == (_want), "%s: got class %d (rc %d), wanted %s", \
               nb ? #_nonblocking : #_blocking, cls_, rc_, #_want); \
        EXPECT(rq_ == MPI_REQUEST_NULL, "a request was made by a failed %s", #_nonblocking); \
        still_works(comm, __LINE__, nb ? #_nonblocking : #_blocking); \
    } while (0)

static void test_args(MPI_Comm comm)
{
    int p, r, a[8] = { 0 }, b[8] = { 0 };
    int *cnt, *neg, *dsp;
    MPI_Datatype uncommitted;

    MPI_Comm_size(comm, &p);
    MPI_Comm_rank(comm, &r);
    cnt = calloc((size_t)p, sizeof(int));
    neg = calloc((size_t)p, sizeof(int));
    dsp = calloc((size_t)p, sizeof(int));
    CHECK(cnt && neg && dsp, "out of memory");
    for (int i = 0; i < p; i++) {
        cnt[i] = 1;
        neg[i] = i == p - 1 ? -1 : 1;   /* the same array at every rank */
    }
    CHECK_RC(MPI_Type_contiguous(2, MPI_INT, &uncommitted));

    th_case = "communicator";
    EXPECT_ERR(MPI_ERR_COMM, MPI_Barrier(MPI_COMM_NULL), MPI_Ibarrier(MPI_COMM_NULL, &rq_));
    EXPECT_ERR(MPI_ERR_COMM, MPI_Bcast(a, 1, MPI_INT, 0, MPI_COMM_NULL),
               MPI_Ibcast(a, 1, MPI_INT, 0, MPI_COMM_NULL, &rq_));
    EXPECT_ERR(MPI_ERR_COMM, MPI_Allreduce(a, b, 1, MPI_INT, MPI_SUM, MPI_COMM_NULL),
               MPI_Iallreduce(a, b, 1, MPI_INT, MPI_SUM, MPI_COMM_NULL, &rq_));

    th_case = "root";
    EXPECT_ERR(MPI_ERR_ROOT, MPI_Bcast(a, 1, MPI_INT, p, comm),
               MPI_Ibcast(a, 1, MPI_INT, p, comm, &rq_));
    EXPECT_ERR(MPI_ERR_ROOT, MPI_Bcast(a, 1, MPI_INT, -1, comm),
               MPI_Ibcast(a, 1, MPI_INT, -1, comm, &rq_));
    EXPECT_ERR(MPI_ERR_ROOT, MPI_Reduce(a, b, 1, MPI_INT, MPI_SUM, p, comm),
               MPI_Ireduce(a, b, 1, MPI_INT, MPI_SUM, p, comm, &rq_));
    EXPECT_ERR(MPI_ERR_ROOT, MPI_Gather(a, 1, MPI_INT, b, 1, MPI_INT, p + 3, comm),
               MPI_Igather(a, 1, MPI_INT, b, 1, MPI_INT, p + 3, comm, &rq_));
    EXPECT_ERR(MPI_ERR_ROOT, MPI_Gatherv(a, 1, MPI_INT, b, cnt, dsp, MPI_INT, MPI_ROOT, comm),
               MPI_Igatherv(a, 1, MPI_INT, b, cnt, dsp, MPI_INT, MPI_ROOT, comm, &rq_));
    EXPECT_ERR(MPI_ERR_ROOT, MPI_Scatter(a, 1, MPI_INT, b, 1, MPI_INT, INT_MAX, comm),
               MPI_Iscatter(a, 1, MPI_INT, b, 1, MPI_INT, INT_MAX, comm, &rq_));
    EXPECT_ERR(MPI_ERR_ROOT, MPI_Scatterv(a, cnt, dsp, MPI_INT, b, 1, MPI_INT, -7, comm),
               MPI_Iscatterv(a, cnt, dsp, MPI_INT, b, 1, MPI_INT, -7, comm, &rq_));

    th_case = "op";
    EXPECT_ERR(MPI_ERR_OP, MPI_Reduce(a, b, 1, MPI_INT, MPI_OP_NULL, 0, comm),
               MPI_Ireduce(a, b, 1, MPI_INT, MPI_OP_NULL, 0, comm, &rq_));
    EXPECT_ERR(MPI_ERR_OP, MPI_Allreduce(a, b, 1, MPI_INT, MPI_OP_NULL, comm),
               MPI_Iallreduce(a, b, 1, MPI_INT, MPI_OP_NULL, comm, &rq_));
    EXPECT_ERR(MPI_ERR_OP, MPI_Allreduce(a, b, 1, MPI_FLOAT, MPI_BAND, comm),
               MPI_Iallreduce(a, b, 1, MPI_FLOAT, MPI_BAND, comm, &rq_));
    EXPECT_ERR(MPI_ERR_OP, MPI_Reduce(a, b, 1, MPI_DOUBLE, MPI_LXOR, p - 1, comm),
               MPI_Ireduce(a, b, 1, MPI_DOUBLE, MPI_LXOR, p - 1, comm, &rq_));
    EXPECT_ERR(MPI_ERR_OP, MPI_Reduce_scatter(a, b, cnt, MPI_INT, MPI_OP_NULL, comm),
               MPI_Ireduce_scatter(a, b, cnt, MPI_INT, MPI_OP_NULL, comm, &rq_));
    EXPECT_ERR(MPI_ERR_OP, MPI_Reduce_scatter_block(a, b, 1, MPI_FLOAT, MPI_BOR, comm),
               MPI_Ireduce_scatter_block(a, b, 1, MPI_FLOAT, MPI_BOR, comm, &rq_));
    EXPECT_ERR(MPI_ERR_OP, MPI_Scan(a, b, 1, MPI_INT, MPI_OP_NULL, comm),
               MPI_Iscan(a, b, 1, MPI_INT, MPI_OP_NULL, comm, &rq_));
    EXPECT_ERR(MPI_ERR_OP, MPI_Exscan(a, b, 1, MPI_FLOAT, MPI_BXOR, comm),
               MPI_Iexscan(a, b, 1, MPI_FLOAT, MPI_BXOR, comm, &rq_));

    th_case = "count and type every rank passes";
    EXPECT_ERR(MPI_ERR_COUNT, MPI_Bcast(a, -1, MPI_INT, 0, comm),
               MPI_Ibcast(a, -1, MPI_INT, 0, comm, &rq_));
    EXPECT_ERR(MPI_ERR_TYPE, MPI_Bcast(a, 1, MPI_DATATYPE_NULL, 0, comm),
               MPI_Ibcast(a, 1, MPI_DATATYPE_NULL, 0, comm, &rq_));
    EXPECT_ERR(MPI_ERR_TYPE, MPI_Bcast(a, 1, uncommitted, 0, comm),
               MPI_Ibcast(a, 1, uncommitted, 0, comm, &rq_));
    EXPECT_ERR(MPI_ERR_COUNT, MPI_Reduce(a, b, -2, MPI_INT, MPI_SUM, 0, comm),
               MPI_Ireduce(a, b, -2, MPI_INT, MPI_SUM, 0, comm, &rq_));
    EXPECT_ERR(MPI_ERR_COUNT, MPI_Allreduce(a, b, -1, MPI_INT, MPI_SUM, comm),
               MPI_Iallreduce(a, b, -1, MPI_INT, MPI_SUM, comm, &rq_));
    EXPECT_ERR(MPI_ERR_TYPE, MPI_Allreduce(a, b, 1, MPI_DATATYPE_NULL, MPI_SUM, comm),
               MPI_Iallreduce(a, b, 1, MPI_DATATYPE_NULL, MPI_SUM, comm, &rq_));
    EXPECT_ERR(MPI_ERR_COUNT, MPI_Scan(a, b, -1, MPI_INT, MPI_SUM, comm),
               MPI_Iscan(a, b, -1, MPI_INT, MPI_SUM, comm, &rq_));
    EXPECT_ERR(MPI_ERR_COUNT, MPI_Reduce_scatter_block(a, b, -1, MPI_INT, MPI_SUM, comm),
               MPI_Ireduce_scatter_block(a, b, -1, MPI_INT, MPI_SUM, comm, &rq_));
    EXPECT_ERR(MPI_ERR_COUNT, MPI_Reduce_scatter(a, b, neg, MPI_INT, MPI_SUM, comm),
               MPI_Ireduce_scatter(a, b, neg, MPI_INT, MPI_SUM, comm, &rq_));
    EXPECT_ERR(MPI_ERR_ARG, MPI_Reduce_scatter(a, b, NULL, MPI_INT, MPI_SUM, comm),
               MPI_Ireduce_scatter(a, b, NULL, MPI_INT, MPI_SUM, comm, &rq_));
    EXPECT_ERR(MPI_ERR_COUNT, MPI_Allgather(a, 1, MPI_INT, b, -1, MPI_INT, comm),
               MPI_Iallgather(a, 1, MPI_INT, b, -1, MPI_INT, comm, &rq_));
    EXPECT_ERR(MPI_ERR_COUNT, MPI_Allgatherv(a, 1, MPI_INT, b, neg, dsp, MPI_INT, comm),
               MPI_Iallgatherv(a, 1, MPI_INT, b, neg, dsp, MPI_INT, comm, &rq_));
    EXPECT_ERR(MPI_ERR_ARG, MPI_Allgatherv(a, 1, MPI_INT, b, NULL, dsp, MPI_INT, comm),
               MPI_Iallgatherv(a, 1, MPI_INT, b, NULL, dsp, MPI_INT, comm, &rq_));
    EXPECT_ERR(MPI_ERR_COUNT, MPI_Alltoall(a, -1, MPI_INT, b, 1, MPI_INT, comm),
               MPI_Ialltoall(a, -1, MPI_INT, b, 1, MPI_INT, comm, &rq_));
    EXPECT_ERR(MPI_ERR_TYPE, MPI_Alltoall(a, 1, MPI_INT, b, 1, MPI_DATATYPE_NULL, comm),
               MPI_Ialltoall(a, 1, MPI_INT, b, 1, MPI_DATATYPE_NULL, comm, &rq_));

    th_case = "MPI_IN_PLACE where MPI does not allow it, at every rank";
    EXPECT_ERR(MPI_ERR_BUFFER, MPI_Bcast(MPI_IN_PLACE, 1, MPI_INT, 0, comm),
               MPI_Ibcast(MPI_IN_PLACE, 1, MPI_INT, 0, comm, &rq_));
    EXPECT_ERR(MPI_ERR_BUFFER, MPI_Allreduce(a, MPI_IN_PLACE, 1, MPI_INT, MPI_SUM, comm),
               MPI_Iallreduce(a, MPI_IN_PLACE, 1, MPI_INT, MPI_SUM, comm, &rq_));
    EXPECT_ERR(MPI_ERR_BUFFER, MPI_Allgather(a, 1, MPI_INT, MPI_IN_PLACE, 1, MPI_INT, comm),
               MPI_Iallgather(a, 1, MPI_INT, MPI_IN_PLACE, 1, MPI_INT, comm, &rq_));
    EXPECT_ERR(MPI_ERR_BUFFER, MPI_Alltoall(a, 1, MPI_INT, MPI_IN_PLACE, 1, MPI_INT, comm),
               MPI_Ialltoall(a, 1, MPI_INT, MPI_IN_PLACE, 1, MPI_INT, comm, &rq_));
    EXPECT_ERR(MPI_ERR_BUFFER, MPI_Scan(a, MPI_IN_PLACE, 1, MPI_INT, MPI_SUM, comm),
               MPI_Iscan(a, MPI_IN_PLACE, 1, MPI_INT, MPI_SUM, comm, &rq_));

    /* the nonblocking forms' request pointer */
    if (nb) {
        th_case = "NULL request";
        int save = nb;
        nb = 0;   /* EXPECT_ERR's blocking slot holds the call */
        EXPECT_ERR(MPI_ERR_ARG, MPI_Ibarrier(comm, NULL), 0);
        EXPECT_ERR(MPI_ERR_ARG, MPI_Iallreduce(a, b, 1, MPI_INT, MPI_SUM, comm, NULL), 0);
        EXPECT_ERR(MPI_ERR_ARG, MPI_Igatherv(a, 1, MPI_INT, b, cnt, dsp, MPI_INT, 0, comm, NULL),
                   0);
        nb = save;
    }

    /* An error only the root sees: a negative count in its recvcounts. The
     * others' one-int sends complete (eagerly); the root returns the error.
     * The collectives after it must still match: the root used up the
     * failed Gatherv's place in the sequence too. */
    th_case = "error at the root only";
    for (int i = 0; i < p; i++) {
        cnt[i] = 1;
        dsp[i] = i;
    }
    for (int root = 0; root < p; root++) {
        int rc, cls = -1, val = 900 + r;
        MPI_Request rq = MPI_REQUEST_NULL;

        for (int i = 0; i < p; i++)
            b[i % 8] = -1;
        if (nb)
            rc = MPI_Igatherv(&val, 1, MPI_INT, b, r == root ? neg : cnt, dsp, MPI_INT, root,
                              comm, &rq);
        else
            rc = MPI_Gatherv(&val, 1, MPI_INT, b, r == root ? neg : cnt, dsp, MPI_INT, root, comm);
        if (r == root) {
            if (rc != MPI_SUCCESS)
                MPI_Error_class(rc, &cls);
            EXPECT(cls == MPI_ERR_COUNT || p == 1, "root-only error: class %d", cls);
        } else {
            CHECK_RC(rc);
            if (nb)
                CHECK_RC(MPI_Wait(&rq, MPI_STATUS_IGNORE));
        }
        /* the next gather from everyone must bring the new values */
        int small[8], *got = p <= 8 ? small : malloc((size_t)p * sizeof(int));
        CHECK(got, "out of memory");
        val = 100 * root + r;
        COLL(MPI_Gather(&val, 1, MPI_INT, got, 1, MPI_INT, root, comm),
             MPI_Igather(&val, 1, MPI_INT, got, 1, MPI_INT, root, comm, &rq_));
        if (r == root) {
            int ok = 1;
            for (int i = 0; i < p; i++)
                ok &= got[i] == 100 * root + i;
            EXPECT(ok, "gather after a root-only error at root %d", root);
        }
        if (got != small)
            free(got);
        still_works(comm, root, "a root-only error");
    }
    th_case = NULL;
    MPI_Type_free(&uncommitted);
    free(cnt);
    free(neg);
    free(dsp);
}

/* ---- fatal: an error only one rank sees, default handler ---------------- */

static void test_fatal(const char *which)
{
    int p, r, a[4] = { 0 }, b[64];

    MPI_Comm_size(MPI_COMM_WORLD, &p);
    MPI_Comm_rank(MPI_COMM_WORLD, &r);
    CHECK(p >= 2 && p <= 16, "the fatal cases run on 2 to 16 ranks");
    int cnt[16], dsp[16];
    for (int i = 0; i < p; i++) {
        cnt[i] = 1;
        dsp[i] = i;
    }
    if (!strcmp(which, "scatterv-root")) {
        if (r == 0)
            cnt[1] = -1;
        MPI_Scatterv(b, cnt, dsp, MPI_INT, a, 1, MPI_INT, 0, MPI_COMM_WORLD);
    } else if (!strcmp(which, "gather-inplace")) {
        MPI_Gather(r == 1 ? MPI_IN_PLACE : a, 1, MPI_INT, b, 1, MPI_INT, 0, MPI_COMM_WORLD);
    } else if (!strcmp(which, "ibcast-null")) {
        MPI_Request rq;

        MPI_Ibcast(r == 1 ? NULL : a, 4, MPI_INT, 0, MPI_COMM_WORLD, &rq);
        MPI_Wait(&rq, MPI_STATUS_IGNORE);
    } else {
        TH_FAIL("unknown fatal case %s", which);
    }
    /* Not reached: the job ended at the error. The barrier keeps the ranks
     * that did not err from ending first. */
    MPI_Barrier(MPI_COMM_WORLD);
    printf("fatal case %s: the error did not end the job\n", which);
    fflush(stdout);
}

/* ---- many: lots of nonblocking collectives in flight ------------------- */

static void test_many(int n)
{
    int p, r, ok = 1;
    MPI_Comm other;

    MPI_Comm_size(MPI_COMM_WORLD, &p);
    MPI_Comm_rank(MPI_COMM_WORLD, &r);
    CHECK_RC(MPI_Comm_dup(MPI_COMM_WORLD, &other));
    MPI_Request *rq = malloc((size_t)n * sizeof(*rq));
    int *in = malloc((size_t)n * sizeof(int)), *out = malloc((size_t)n * sizeof(int));
    int *gat = malloc((size_t)n * (size_t)p * sizeof(int));
    int *idx = malloc((size_t)n * sizeof(int));
    CHECK(rq && in && out && gat && idx, "out of memory");

    for (int i = 0; i < n; i++) {
        MPI_Comm c = i % 3 == 2 ? other : MPI_COMM_WORLD;

        in[i] = r * 7 + i;
        out[i] = -1;
        switch (i % 5) {
        case 0:
            CHECK_RC(MPI_Iallreduce(&in[i], &out[i], 1, MPI_INT, MPI_SUM, c, &rq[i]));
            break;
        case 1:
            out[i] = r == i % p ? i * 3 : -1;
            CHECK_RC(MPI_Ibcast(&out[i], 1, MPI_INT, i % p, c, &rq[i]));
            break;
        case 2:
            CHECK_RC(MPI_Iallgather(&in[i], 1, MPI_INT, &gat[(size_t)i * (size_t)p], 1, MPI_INT, c,
                                    &rq[i]));
            break;
        case 3:
            CHECK_RC(MPI_Iscan(&in[i], &out[i], 1, MPI_INT, MPI_MAX, c, &rq[i]));
            break;
        default:
            CHECK_RC(MPI_Ibarrier(c, &rq[i]));
            break;
        }
    }
    /* the last quarter first, in reverse, one by one; then the rest: some
     * with Testsome, what is left with Waitall */
    for (int i = n - 1; i >= 3 * n / 4; i--)
        CHECK_RC(MPI_Wait(&rq[i], MPI_STATUS_IGNORE));
    int outcount = 0, polls = 0, got = 0;
    while (got < n / 4 && outcount != MPI_UNDEFINED) {
        CHECK_RC(MPI_Testsome(3 * n / 4, rq, &outcount, idx, MPI_STATUSES_IGNORE));
        if (outcount != MPI_UNDEFINED)
            got += outcount;
        if (++polls > 100000000)
            TH_FAIL("Testsome made no progress");
    }
    int index;
    if (3 * n / 4 > 0)
        CHECK_RC(MPI_Waitany(3 * n / 4, rq, &index, MPI_STATUS_IGNORE));
    CHECK_RC(MPI_Waitall(n, rq, MPI_STATUSES_IGNORE));
    for (int i = 0; i < n; i++) {
        int want;

        EXPECT(rq[i] == MPI_REQUEST_NULL, "request %d not freed", i);
        switch (i % 5) {
        case 0:
            want = 7 * p * (p - 1) / 2 + p * i;
            ok &= out[i] == want;
            break;
        case 1:
            ok &= out[i] == i * 3;
            break;
        case 2:
            for (int k = 0; k < p; k++)
                ok &= gat[(size_t)i * (size_t)p + (size_t)k] == k * 7 + i;
            break;
        case 3:
            ok &= out[i] == r * 7 + i;
            break;
        default:
            break;
        }
        if (!ok) {
            EXPECT(ok, "collective %d (kind %d) has wrong data", i, i % 5);
            break;
        }
    }
    CHECK_RC(MPI_Comm_free(&other));
    free(rq);
    free(in);
    free(out);
    free(gat);
    free(idx);
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "zero";

    mt_init(&argc, &argv);
    nb = argc > 2 && !strcmp(argv[2], "nb");
    if (!strcmp(mode, "zero")) {
        test_zero(MPI_COMM_WORLD);
    } else if (!strcmp(mode, "args")) {
        MPI_Comm comm;

        CHECK_RC(MPI_Comm_dup(MPI_COMM_WORLD, &comm));
        /* MPI_COMM_NULL's errors go to MPI_COMM_WORLD's handler */
        CHECK_RC(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
        CHECK_RC(MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN));
        test_args(comm);
        CHECK_RC(MPI_Comm_free(&comm));
        CHECK_RC(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));
    } else if (!strcmp(mode, "fatal") && argc > 2) {
        test_fatal(argv[2]);
        return 1;
    } else if (!strcmp(mode, "many")) {
        test_many(argc > 2 ? atoi(argv[2]) : 1000);
    } else {
        TH_FAIL("unknown mode %s", mode);
    }
    char name[64];
    snprintf(name, sizeof(name), "mpi_collfix %s%s", mode, nb ? " nb" : "");
    return mt_finish(name);
}
