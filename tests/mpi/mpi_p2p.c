/*
 * MPI point-to-point: every send mode, blocking and not, wildcards, probes,
 * matched probes, persistent requests, cancel, buffered sends,
 * non-contiguous data, PROC_NULL, the Wait/Test families and counts.
 * Runs on any number of ranks (1: everything goes to self).
 */
#include "mpitest.h"

#define N 1000

static void fill(int *a, int n, int seed)
{
    for (int i = 0; i < n; i++)
        a[i] = seed * 100000 + i;
}

static int same(const int *a, int n, int seed)
{
    for (int i = 0; i < n; i++)
        if (a[i] != seed * 100000 + i)
            return 0;
    return 1;
}

int main(int argc, char **argv)
{
    int size, rank, right, left;
    static int sbuf[4 * N], rbuf[4 * N];
    MPI_Status st;
    MPI_Request rq[8];

    mt_init(&argc, &argv);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    rank = th_rank;
    right = (rank + 1) % size;
    left = (rank - 1 + size) % size;

    /* Isend/Irecv ring, every send mode but buffered */
    for (int mode = 0; mode < 3; mode++) {
        fill(sbuf, N, rank);
        memset(rbuf, 0, sizeof(rbuf));
        CHECK_RC(MPI_Irecv(rbuf, N, MPI_INT, left, 7, MPI_COMM_WORLD, &rq[0]));
        if (mode == 0)
            CHECK_RC(MPI_Isend(sbuf, N, MPI_INT, right, 7, MPI_COMM_WORLD, &rq[1]));
        else if (mode == 1)
            CHECK_RC(MPI_Issend(sbuf, N, MPI_INT, right, 7, MPI_COMM_WORLD, &rq[1]));
        else
            CHECK_RC(MPI_Irsend(sbuf, N, MPI_INT, right, 7, MPI_COMM_WORLD, &rq[1]));
        MPI_Status sts[2];
        CHECK_RC(MPI_Waitall(2, rq, sts));
        EXPECT(same(rbuf, N, left), "mode %d: wrong data from %d", mode, left);
        EXPECT(sts[0].MPI_SOURCE == left && sts[0].MPI_TAG == 7, "mode %d: status %d/%d", mode,
               sts[0].MPI_SOURCE, sts[0].MPI_TAG);
        int count;
        MPI_Get_count(&sts[0], MPI_INT, &count);
        EXPECT(count == N, "count %d", count);
        EXPECT(rq[0] == MPI_REQUEST_NULL && rq[1] == MPI_REQUEST_NULL, "requests not nulled");
    }

    /* Blocking Send/Recv/Ssend/Rsend between pairs (even sends first) */
    if (size >= 2) {
        int peer = rank % 2 == 0 ? rank + 1 : rank - 1;
        if (peer < size) {
            for (int mode = 0; mode < 3; mode++) {
                fill(sbuf, 4 * N, rank);
                memset(rbuf, 0, sizeof(rbuf));
                if (rank % 2 == 0) {
                    if (mode == 0) CHECK_RC(MPI_Send(sbuf, 4 * N, MPI_INT, peer, mode, MPI_COMM_WORLD));
                    if (mode == 1) CHECK_RC(MPI_Ssend(sbuf, 4 * N, MPI_INT, peer, mode, MPI_COMM_WORLD));
                    if (mode == 2) {
                        MPI_Barrier(MPI_COMM_WORLD);
                        CHECK_RC(MPI_Rsend(sbuf, 4 * N, MPI_INT, peer, mode, MPI_COMM_WORLD));
                    }
                    CHECK_RC(MPI_Recv(rbuf, 4 * N, MPI_INT, peer, mode, MPI_COMM_WORLD, &st));
                } else {
                    if (mode == 2) {
                        CHECK_RC(MPI_Irecv(rbuf, 4 * N, MPI_INT, peer, mode, MPI_COMM_WORLD, &rq[0]));
                        MPI_Barrier(MPI_COMM_WORLD);
                        CHECK_RC(MPI_Wait(&rq[0], &st));
                    } else {
                        CHECK_RC(MPI_Recv(rbuf, 4 * N, MPI_INT, peer, mode, MPI_COMM_WORLD, &st));
                    }
                    CHECK_RC(MPI_Send(sbuf, 4 * N, MPI_INT, peer, mode, MPI_COMM_WORLD));
                }
                EXPECT(same(rbuf, 4 * N, peer), "blocking mode %d: wrong data", mode);
            }
        } else {
            MPI_Barrier(MPI_COMM_WORLD);   /* the odd one out joins the Rsend barrier */
        }
    }

    /* Sendrecv and Sendrecv_replace around the ring */
    fill(sbuf, N, rank);
    CHECK_RC(MPI_Sendrecv(sbuf, N, MPI_INT, right, 3, rbuf, N, MPI_INT, left, 3, MPI_COMM_WORLD, &st));
    EXPECT(same(rbuf, N, left), "sendrecv data");
    fill(rbuf, N, rank);
    CHECK_RC(MPI_Sendrecv_replace(rbuf, N, MPI_INT, right, 4, left, 4, MPI_COMM_WORLD, &st));
    EXPECT(same(rbuf, N, left), "sendrecv_replace data");

    /* Non-contiguous: every other int of 2N goes as a vector, lands contiguous */
    MPI_Datatype vec;
    MPI_Type_vector(N, 1, 2, MPI_INT, &vec);
    MPI_Type_commit(&vec);
    for (int i = 0; i < 2 * N; i++)
        sbuf[i] = i % 2 == 0 ? rank * 100000 + i / 2 : -1;
    memset(rbuf, 0, sizeof(rbuf));
    CHECK_RC(MPI_Sendrecv(sbuf, 1, vec, right, 5, rbuf, N, MPI_INT, left, 5, MPI_COMM_WORLD, &st));
    EXPECT(same(rbuf, N, left), "vector send -> contiguous receive");
    /* and contiguous -> vector receive */
    fill(sbuf, N, rank);
    for (int i = 0; i < 2 * N; i++)
        rbuf[i] = -7;
    CHECK_RC(MPI_Sendrecv(sbuf, N, MPI_INT, right, 6, rbuf, 1, vec, left, 6, MPI_COMM_WORLD, &st));
    int ok = 1;
    for (int i = 0; i < 2 * N; i++)
        if (rbuf[i] != (i % 2 == 0 ? left * 100000 + i / 2 : -7))
            ok = 0;
    EXPECT(ok, "contiguous send -> vector receive (gaps must stay untouched)");
    int elems;
    MPI_Get_elements(&st, vec, &elems);
    EXPECT(elems == N, "Get_elements %d", elems);
    MPI_Type_free(&vec);

    /* Wildcards and probe */
    fill(sbuf, 10, rank);
    CHECK_RC(MPI_Isend(sbuf, 10, MPI_INT, right, 42, MPI_COMM_WORLD, &rq[0]));
    CHECK_RC(MPI_Probe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st));
    EXPECT(st.MPI_SOURCE == left && st.MPI_TAG == 42, "probe status %d/%d", st.MPI_SOURCE, st.MPI_TAG);
    int count;
    MPI_Get_count(&st, MPI_INT, &count);
    EXPECT(count == 10, "probe count %d", count);
    CHECK_RC(MPI_Recv(rbuf, 10, MPI_INT, st.MPI_SOURCE, st.MPI_TAG, MPI_COMM_WORLD, &st));
    EXPECT(same(rbuf, 10, left), "probed receive data");
    CHECK_RC(MPI_Wait(&rq[0], MPI_STATUS_IGNORE));

    /* Matched probe: Mprobe/Mrecv and Improbe/Imrecv */
    CHECK_RC(MPI_Isend(sbuf, 10, MPI_INT, right, 43, MPI_COMM_WORLD, &rq[0]));
    MPI_Message msg;
    CHECK_RC(MPI_Mprobe(left, 43, MPI_COMM_WORLD, &msg, &st));
    CHECK_RC(MPI_Mrecv(rbuf, 10, MPI_INT, &msg, &st));
    EXPECT(msg == MPI_MESSAGE_NULL, "message not nulled");
    EXPECT(same(rbuf, 10, left) && st.MPI_TAG == 43, "mrecv");
    CHECK_RC(MPI_Wait(&rq[0], MPI_STATUS_IGNORE));
    CHECK_RC(MPI_Isend(sbuf, 10, MPI_INT, right, 44, MPI_COMM_WORLD, &rq[0]));
    int flag = 0;
    while (!flag)
        CHECK_RC(MPI_Improbe(MPI_ANY_SOURCE, 44, MPI_COMM_WORLD, &flag, &msg, &st));
    CHECK_RC(MPI_Imrecv(rbuf, 10, MPI_INT, &msg, &rq[1]));
    CHECK_RC(MPI_Waitall(2, rq, MPI_STATUSES_IGNORE));
    EXPECT(same(rbuf, 10, left), "imrecv");

    /* Persistent requests, started three times */
    MPI_Request pr[2];
    CHECK_RC(MPI_Recv_init(rbuf, N, MPI_INT, left, 9, MPI_COMM_WORLD, &pr[0]));
    CHECK_RC(MPI_Send_init(sbuf, N, MPI_INT, right, 9, MPI_COMM_WORLD, &pr[1]));
    for (int it = 0; it < 3; it++) {
        fill(sbuf, N, rank + it);
        memset(rbuf, 0, sizeof(rbuf));
        CHECK_RC(MPI_Startall(2, pr));
        CHECK_RC(MPI_Waitall(2, pr, MPI_STATUSES_IGNORE));
        EXPECT(pr[0] != MPI_REQUEST_NULL, "persistent request freed by wait");
        EXPECT(same(rbuf, N, left + it), "persistent iteration %d", it);
    }
    CHECK_RC(MPI_Request_free(&pr[0]));
    CHECK_RC(MPI_Request_free(&pr[1]));

    /* Cancel a receive that nothing matches */
    CHECK_RC(MPI_Irecv(rbuf, 1, MPI_INT, left, 999, MPI_COMM_WORLD, &rq[0]));
    CHECK_RC(MPI_Cancel(&rq[0]));
    CHECK_RC(MPI_Wait(&rq[0], &st));
    MPI_Test_cancelled(&st, &flag);
    EXPECT(flag, "receive not reported cancelled");

    /* Buffered sends */
    int bsize = 4 * (10 * (int)sizeof(int) + MPI_BSEND_OVERHEAD);
    char *bbuf = malloc((size_t)bsize);
    CHECK_RC(MPI_Buffer_attach(bbuf, bsize));
    for (int k = 0; k < 4; k++) {
        fill(sbuf, 10, rank + k);
        CHECK_RC(MPI_Bsend(sbuf, 10, MPI_INT, right, 20 + k, MPI_COMM_WORLD));
    }
    for (int k = 0; k < 4; k++) {
        CHECK_RC(MPI_Recv(rbuf, 10, MPI_INT, left, 20 + k, MPI_COMM_WORLD, &st));
        EXPECT(same(rbuf, 10, left + k), "bsend message %d", k);
    }
    void *det;
    int dsize;
    CHECK_RC(MPI_Buffer_detach(&det, &dsize));
    EXPECT(det == bbuf && dsize == bsize, "detach returned %p/%d", det, dsize);
    free(bbuf);

    /* PROC_NULL */
    CHECK_RC(MPI_Send(sbuf, 10, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD));
    CHECK_RC(MPI_Recv(rbuf, 10, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &st));
    MPI_Get_count(&st, MPI_INT, &count);
    EXPECT(st.MPI_SOURCE == MPI_PROC_NULL && st.MPI_TAG == MPI_ANY_TAG && count == 0,
           "PROC_NULL status %d/%d/%d", st.MPI_SOURCE, st.MPI_TAG, count);

    /* Waitany / Waitsome / Testall / Request_get_status over 4 receives */
    for (int k = 0; k < 4; k++)
        CHECK_RC(MPI_Irecv(&rbuf[k * 10], 10, MPI_INT, left, 60 + k, MPI_COMM_WORLD, &rq[k]));
    for (int k = 3; k >= 0; k--) {
        fill(&sbuf[k * 10], 10, rank + k);
        CHECK_RC(MPI_Isend(&sbuf[k * 10], 10, MPI_INT, right, 60 + k, MPI_COMM_WORLD, &rq[4 + k]));
    }
    int idx, done = 0, outc, indices[4];
    CHECK_RC(MPI_Waitany(4, rq, &idx, &st));
    EXPECT(idx >= 0 && idx < 4 && st.MPI_TAG == 60 + idx, "waitany index %d tag %d", idx, st.MPI_TAG);
    done++;
    while (done < 4) {
        CHECK_RC(MPI_Waitsome(4, rq, &outc, indices, MPI_STATUSES_IGNORE));
        EXPECT(outc != MPI_UNDEFINED && outc >= 1, "waitsome outcount %d", outc);
        if (outc == MPI_UNDEFINED)
            break;
        done += outc;
    }
    CHECK_RC(MPI_Waitany(4, rq, &idx, &st));
    EXPECT(idx == MPI_UNDEFINED, "waitany on null requests gave %d", idx);
    flag = 0;
    while (!flag)
        CHECK_RC(MPI_Testall(4, &rq[4], &flag, MPI_STATUSES_IGNORE));
    for (int k = 0; k < 4; k++)
        EXPECT(same(&rbuf[k * 10], 10, left + k), "any/some message %d", k);

    /* Ibsend + Request_get_status */
    return mt_finish("mpi_p2p");
}
