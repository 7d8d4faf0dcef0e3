/*
 * Cancelling sends (MPI 3.1 3.8.4). A send whose message no receive has
 * matched yet is cancelled: MPI_Wait then returns at once, "irrespective of
 * the activities of other processes", Test_cancelled says true, and the
 * receiver never sees the message. A send whose message was matched (by a
 * receive or a matched probe) completes normally and Test_cancelled says
 * false; so does an eager standard send, complete when it returns.
 *
 * Ranks pair up (0<->1, 2<->3, ...); an odd rank out, and a singleton, send
 * to themselves. The order of events is made by messages and barriers,
 * never by time: a cancelled send's Wait returns only once its receiver
 * dropped the message, so after a barrier that receiver's Iprobe must find
 * nothing.
 *
 * Rounds (the sender of a pair is its lower rank; each checks both sides):
 *   unmatched   Issend 8 B, Isend 1 MiB, Ssend_init 64 KiB + Start:
 *               cancelled; the receiver's Iprobe finds none of them; a
 *               later message on the same tag arrives whole (nothing stale
 *               matched instead);
 *   many        100 unmatched Issends, cancelled in reverse order, Waitall;
 *   matched     the receiver receives (or Mprobes) the message and says so
 *               before the sender cancels: not cancelled, data intact;
 *   eager       a standard Isend of 8 B: complete, not cancelled, received.
 */
#include "tests/mpi/mpitest.h"

#include <stdint.h>

#define BIG (1 << 20)
#define MID (64 * 1024)
#define MANY 100

static int me, peer, sender, self_pair;

static void fill(unsigned char *b, size_t n, unsigned seed)
{
    for (size_t i = 0; i < n; i++)
        b[i] = (unsigned char)(seed * 31u + i * 7u);
}

static int same(const unsigned char *b, size_t n, unsigned seed)
{
    for (size_t i = 0; i < n; i++)
        if (b[i] != (unsigned char)(seed * 31u + i * 7u))
            return 0;
    return 1;
}

static int cancelled(const MPI_Status *st)
{
    int flag = -1;

    CHECK_RC(MPI_Test_cancelled(st, &flag));
    return flag;
}

/* Nothing from peer is waiting on tag (or any tag) at this rank. */
static void expect_nothing(int tag, const char *what)
{
    int flag = 1;
    MPI_Status st;

    CHECK_RC(MPI_Iprobe(peer, tag, MPI_COMM_WORLD, &flag, &st));
    EXPECT(!flag, "%s: a cancelled message is still there (tag %d)", what,
           flag ? st.MPI_TAG : -1);
}

static void round_unmatched(unsigned char *buf, unsigned char *rbuf)
{
    MPI_Request rq[3];
    MPI_Status st[3];

    if (sender || self_pair) {
        fill(buf, BIG, 1);
        CHECK_RC(MPI_Issend(buf, 8, MPI_BYTE, peer, 10, MPI_COMM_WORLD, &rq[0]));
        CHECK_RC(MPI_Isend(buf, BIG, MPI_BYTE, peer, 11, MPI_COMM_WORLD, &rq[1]));
        CHECK_RC(MPI_Ssend_init(buf, MID, MPI_BYTE, peer, 12, MPI_COMM_WORLD, &rq[2]));
        CHECK_RC(MPI_Start(&rq[2]));
        for (int i = 0; i < 3; i++)
            CHECK_RC(MPI_Cancel(&rq[i]));
        for (int i = 0; i < 3; i++) {
            CHECK_RC(MPI_Wait(&rq[i], &st[i]));
            EXPECT(cancelled(&st[i]), "unmatched send %d (tag %d) not cancelled", i, 10 + i);
        }
        /* the persistent request may start again, and this time it goes */
        fill(buf, MID, 2);
        CHECK_RC(MPI_Start(&rq[2]));
    }
    CHECK_RC(MPI_Barrier(MPI_COMM_WORLD));
    if (!sender || self_pair) {
        expect_nothing(10, "Issend 8 B");
        expect_nothing(11, "Isend 1 MiB");
        CHECK_RC(MPI_Recv(rbuf, MID, MPI_BYTE, peer, 12, MPI_COMM_WORLD, &st[0]));
        EXPECT(same(rbuf, MID, 2), "the restarted persistent send's data");
        expect_nothing(MPI_ANY_TAG, "after the restarted send");
    }
    if (sender || self_pair) {
        CHECK_RC(MPI_Wait(&rq[2], &st[2]));
        EXPECT(!cancelled(&st[2]), "the restarted persistent send says cancelled");
        CHECK_RC(MPI_Request_free(&rq[2]));
    }
    CHECK_RC(MPI_Barrier(MPI_COMM_WORLD));
}

static void round_many(unsigned char *buf)
{
    MPI_Request rq[MANY];
    MPI_Status st[MANY];
    int n = 0;

    if (sender || self_pair) {
        for (int i = 0; i < MANY; i++)
            CHECK_RC(MPI_Issend(buf + i, 1 + i, MPI_BYTE, peer, 100 + i, MPI_COMM_WORLD, &rq[i]));
        for (int i = MANY - 1; i >= 0; i--)
            CHECK_RC(MPI_Cancel(&rq[i]));
        CHECK_RC(MPI_Waitall(MANY, rq, st));
        for (int i = 0; i < MANY; i++)
            n += cancelled(&st[i]);
        EXPECT(n == MANY, "%d of %d unmatched Issends cancelled", n, MANY);
    }
    CHECK_RC(MPI_Barrier(MPI_COMM_WORLD));
    if (!sender || self_pair)
        expect_nothing(MPI_ANY_TAG, "100 cancelled Issends");
    CHECK_RC(MPI_Barrier(MPI_COMM_WORLD));
}

/* The receiver has the message (received, or matched by Mprobe) before the
 * sender cancels: the cancel fails and the send completes. */
static void round_matched(unsigned char *buf, unsigned char *rbuf, int mprobe, size_t len)
{
    MPI_Request rq;
    MPI_Status st;
    MPI_Message msg;
    char token = 0;

    if (self_pair) {
        fill(buf, len, 3);
        CHECK_RC(MPI_Issend(buf, (int)len, MPI_BYTE, me, 20, MPI_COMM_WORLD, &rq));
        if (mprobe)
            CHECK_RC(MPI_Mprobe(me, 20, MPI_COMM_WORLD, &msg, &st));
        else
            CHECK_RC(MPI_Recv(rbuf, (int)len, MPI_BYTE, me, 20, MPI_COMM_WORLD, &st));
        CHECK_RC(MPI_Cancel(&rq));
        if (mprobe)
            CHECK_RC(MPI_Mrecv(rbuf, (int)len, MPI_BYTE, &msg, &st));
        CHECK_RC(MPI_Wait(&rq, &st));
        EXPECT(!cancelled(&st), "self: a matched send (%zu B, %s) says cancelled", len,
               mprobe ? "Mprobe" : "Recv");
        EXPECT(same(rbuf, len, 3), "self: matched message data (%zu B)", len);
    } else if (sender) {
        fill(buf, len, 3);
        CHECK_RC(MPI_Issend(buf, (int)len, MPI_BYTE, peer, 20, MPI_COMM_WORLD, &rq));
        CHECK_RC(MPI_Recv(&token, 1, MPI_CHAR, peer, 21, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        CHECK_RC(MPI_Cancel(&rq));
        CHECK_RC(MPI_Send(&token, 1, MPI_CHAR, peer, 22, MPI_COMM_WORLD));
        CHECK_RC(MPI_Wait(&rq, &st));
        EXPECT(!cancelled(&st), "a matched send (%zu B, %s) says cancelled", len,
               mprobe ? "Mprobe" : "Recv");
    } else {
        if (mprobe)
            CHECK_RC(MPI_Mprobe(peer, 20, MPI_COMM_WORLD, &msg, &st));
        else
            CHECK_RC(MPI_Recv(rbuf, (int)len, MPI_BYTE, peer, 20, MPI_COMM_WORLD, &st));
        CHECK_RC(MPI_Send(&token, 1, MPI_CHAR, peer, 21, MPI_COMM_WORLD));
        /* the sender has asked to cancel by now: the matched message stays */
        CHECK_RC(MPI_Recv(&token, 1, MPI_CHAR, peer, 22, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        if (mprobe)
            CHECK_RC(MPI_Mrecv(rbuf, (int)len, MPI_BYTE, &msg, &st));
        EXPECT(same(rbuf, len, 3), "matched message data (%zu B, %s)", len,
               mprobe ? "Mprobe" : "Recv");
        EXPECT(!cancelled(&st), "the receiver's status says cancelled");
    }
    CHECK_RC(MPI_Barrier(MPI_COMM_WORLD));
}

static void round_eager(unsigned char *buf, unsigned char *rbuf)
{
    MPI_Request rq;
    MPI_Status st;

    if (sender || self_pair) {
        fill(buf, 8, 4);
        CHECK_RC(MPI_Isend(buf, 8, MPI_BYTE, peer, 30, MPI_COMM_WORLD, &rq));
        CHECK_RC(MPI_Cancel(&rq));
        CHECK_RC(MPI_Wait(&rq, &st));
        /* MPI lets either happen; ours is sent at once */
        EXPECT(!cancelled(&st), "an eager Isend says cancelled");
    }
    if (!sender || self_pair) {
        CHECK_RC(MPI_Recv(rbuf, 8, MPI_BYTE, peer, 30, MPI_COMM_WORLD, &st));
        EXPECT(same(rbuf, 8, 4), "eager message data");
    }
    CHECK_RC(MPI_Barrier(MPI_COMM_WORLD));
}

int main(int argc, char **argv)
{
    unsigned char *buf, *rbuf;

    mt_init(&argc, &argv);
    me = th_rank;
    self_pair = (th_size % 2 == 1 && me == th_size - 1);
    peer = self_pair ? me : (me ^ 1);
    sender = !self_pair && me < peer;
    buf = malloc(BIG);
    rbuf = malloc(BIG);
    CHECK(buf && rbuf, "no memory");

    round_unmatched(buf, rbuf);
    round_many(buf);
    round_matched(buf, rbuf, 0, 8);
    round_matched(buf, rbuf, 1, 8);
    round_matched(buf, rbuf, 0, BIG);
    round_matched(buf, rbuf, 1, BIG);
    round_eager(buf, rbuf);
    round_unmatched(buf, rbuf);   /* again: nothing of the first is left over */

    free(buf);
    free(rbuf);
    return mt_finish("mpi_scancel");
}
