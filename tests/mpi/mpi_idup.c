/*
 * MPI_Comm_idup that does not wait for the other members: rank 0 starts an
 * idup and then sends 1 MiB (a rendezvous) to rank 1, which receives it
 * before it calls its own idup (an idup that blocked until every member
 * called it would deadlock here: the driver's --timeout fails it). Then
 * several idups outstanding at once, completed in another order on odd
 * ranks; a blocking dup while one is outstanding; idups of a split and of
 * the world interleaved; the attributes copied. Intercommunicators the
 * same way: side 0's rank 0 sends 1 MiB to side 1's rank 0, which calls
 * idup before it receives (a deadlock for an idup that waited for both
 * groups), several outstanding completed in another order on one side,
 * each duplicate used for messages and collectives.
 * Each new communicator is used and checked (its collectives, and that its
 * messages match no other communicator's).
 */
#include "mpitest.h"

#define BIG (1 << 20)
#define NIDUP 4

static int copies;

static int copy_fn(MPI_Comm comm, int keyval, void *extra, void *in, void *out, int *flag)
{
    (void)comm; (void)keyval; (void)extra;
    copies++;
    *(void **)out = (char *)in + 1;
    *flag = 1;
    return MPI_SUCCESS;
}

/* c has n members, congruent with MPI_COMM_WORLD's order when world is set */
static void use(MPI_Comm c, int world)
{
    int me, n, sum = 0, flag;

    MPI_Comm_rank(c, &me);
    MPI_Comm_size(c, &n);
    CHECK_RC(MPI_Allreduce(&me, &sum, 1, MPI_INT, MPI_SUM, c));
    EXPECT(sum == n * (n - 1) / 2, "sum %d on %d ranks", sum, n);
    if (world) {
        MPI_Comm_compare(MPI_COMM_WORLD, c, &flag);
        EXPECT(flag == MPI_CONGRUENT, "compare %d", flag);
    }
}

int main(int argc, char **argv)
{
    int me, n;
    MPI_Request rq, rqs[NIDUP];
    MPI_Comm c, cs[NIDUP];

    mt_init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &n);

    th_case = "overlap";
    {
        char *buf = malloc(BIG);

        CHECK(buf != NULL, "no memory");
        for (int i = 0; i < BIG; i++)
            buf[i] = (char)(me == 0 ? i * 7 : 0);
        c = MPI_COMM_NULL;
        if (me == 0) {
            CHECK_RC(MPI_Comm_idup(MPI_COMM_WORLD, &c, &rq));
            if (n > 1)
                CHECK_RC(MPI_Send(buf, BIG, MPI_CHAR, 1, 5, MPI_COMM_WORLD));
            CHECK_RC(MPI_Wait(&rq, MPI_STATUS_IGNORE));
        } else if (me == 1) {
            CHECK_RC(MPI_Recv(buf, BIG, MPI_CHAR, 0, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
            int bad = 0;
            for (int i = 0; i < BIG; i++)
                bad += buf[i] != (char)(i * 7);
            EXPECT(bad == 0, "%d bytes wrong", bad);
            CHECK_RC(MPI_Comm_idup(MPI_COMM_WORLD, &c, &rq));
            CHECK_RC(MPI_Wait(&rq, MPI_STATUS_IGNORE));
        } else {
            CHECK_RC(MPI_Comm_idup(MPI_COMM_WORLD, &c, &rq));
            CHECK_RC(MPI_Wait(&rq, MPI_STATUS_IGNORE));
        }
        free(buf);
        use(c, 1);
    }

    th_case = "outstanding";
    for (int i = 0; i < NIDUP; i++)
        CHECK_RC(MPI_Comm_idup(i % 2 ? c : MPI_COMM_WORLD, &cs[i], &rqs[i]));
    /* a blocking dup while they are outstanding */
    MPI_Comm b;
    CHECK_RC(MPI_Comm_dup(MPI_COMM_WORLD, &b));
    for (int k = 0; k < NIDUP; k++) {
        int i = me % 2 ? NIDUP - 1 - k : k;
        int flag = 0;

        if (me % 2)
            while (!flag)
                CHECK_RC(MPI_Test(&rqs[i], &flag, MPI_STATUS_IGNORE));
        else
            CHECK_RC(MPI_Wait(&rqs[i], MPI_STATUS_IGNORE));
    }
    use(b, 1);
    for (int i = 0; i < NIDUP; i++)
        use(cs[i], 1);
    /* every communicator its own context: one message on each, with the same
     * tag from the same sender, received in the other order */
    {
        int right = (me + 1) % n, left = (me + n - 1) % n, got[NIDUP + 2];
        MPI_Comm all[NIDUP + 2] = { MPI_COMM_WORLD, c, cs[0], cs[1], cs[2], cs[3] };
        MPI_Request sr[NIDUP + 2], rr[NIDUP + 2];
        int vals[NIDUP + 2];

        for (int i = 0; i < NIDUP + 2; i++) {
            vals[i] = 100 * i + me;
            CHECK_RC(MPI_Isend(&vals[i], 1, MPI_INT, right, 9, all[i], &sr[i]));
        }
        for (int i = NIDUP + 1; i >= 0; i--)
            CHECK_RC(MPI_Irecv(&got[i], 1, MPI_INT, left, 9, all[i], &rr[i]));
        MPI_Waitall(NIDUP + 2, rr, MPI_STATUSES_IGNORE);
        MPI_Waitall(NIDUP + 2, sr, MPI_STATUSES_IGNORE);
        for (int i = 0; i < NIDUP + 2; i++)
            EXPECT(got[i] == 100 * i + left, "communicator %d got %d", i, got[i]);
    }
    MPI_Comm_free(&b);
    for (int i = 0; i < NIDUP; i++)
        MPI_Comm_free(&cs[i]);

    th_case = "split";
    {
        MPI_Comm half, hd, wd;
        MPI_Request r2[2];

        CHECK_RC(MPI_Comm_split(MPI_COMM_WORLD, me % 2, me, &half));
        CHECK_RC(MPI_Comm_idup(half, &hd, &r2[0]));
        CHECK_RC(MPI_Comm_idup(MPI_COMM_WORLD, &wd, &r2[1]));
        CHECK_RC(MPI_Waitall(2, r2, MPI_STATUSES_IGNORE));
        use(hd, 0);
        use(wd, 1);
        int hn, hdn;
        MPI_Comm_size(half, &hn);
        MPI_Comm_size(hd, &hdn);
        EXPECT(hn == hdn, "sizes %d %d", hn, hdn);
        MPI_Comm_free(&hd);
        MPI_Comm_free(&wd);
        MPI_Comm_free(&half);
    }

    th_case = "attributes";
    {
        int key, key2, flag = 0;
        void *v = NULL;
        static char base[4];
        MPI_Comm d;

        CHECK_RC(MPI_Comm_create_keyval(copy_fn, MPI_COMM_NULL_DELETE_FN, &key, NULL));
        CHECK_RC(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN, &key2,
                                        NULL));
        CHECK_RC(MPI_Comm_set_attr(c, key, base));
        CHECK_RC(MPI_Comm_set_attr(c, key2, base));
        copies = 0;
        CHECK_RC(MPI_Comm_idup(c, &d, &rq));
        CHECK_RC(MPI_Wait(&rq, MPI_STATUS_IGNORE));
        EXPECT(copies == 1, "copy callback ran %d times", copies);
        CHECK_RC(MPI_Comm_get_attr(d, key, &v, &flag));
        EXPECT(flag && v == base + 1, "copied attribute: flag %d", flag);
        CHECK_RC(MPI_Comm_get_attr(d, key2, &v, &flag));
        EXPECT(!flag, "attribute of MPI_COMM_NULL_COPY_FN copied");
        use(d, 1);
        MPI_Comm_free(&d);
        MPI_Comm_free_keyval(&key);
        MPI_Comm_free_keyval(&key2);
    }

    th_case = "intercomm";
    if (n >= 2) {
        MPI_Comm half, inter, id[NIDUP + 1];
        MPI_Request ir[NIDUP + 1];
        int side = me % 2, hr, rsize, key, flag;
        void *v = NULL;
        static char ibase[4];

        CHECK_RC(MPI_Comm_split(MPI_COMM_WORLD, side, me, &half));
        CHECK_RC(MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, side ? 0 : 1, 3, &inter));
        MPI_Comm_rank(half, &hr);
        MPI_Comm_remote_size(inter, &rsize);
        CHECK_RC(MPI_Comm_create_keyval(copy_fn, MPI_COMM_NULL_DELETE_FN, &key, NULL));
        CHECK_RC(MPI_Comm_set_attr(inter, key, ibase));
        copies = 0;

        /* side 0's rank 0 sends 1 MiB to side 1's rank 0 before it calls
         * idup; that one calls idup first and receives after: an idup that
         * waited for both groups would deadlock */
        char *buf = malloc(BIG);
        CHECK(buf != NULL, "no memory");
        for (int i = 0; i < BIG; i++)
            buf[i] = (char)(side == 0 ? i * 3 : 0);
        if (side == 0 && hr == 0) {
            CHECK_RC(MPI_Send(buf, BIG, MPI_CHAR, 0, 5, inter));
            CHECK_RC(MPI_Comm_idup(inter, &id[0], &ir[0]));
        } else if (side == 1 && hr == 0) {
            CHECK_RC(MPI_Comm_idup(inter, &id[0], &ir[0]));
            EXPECT(id[0] == MPI_COMM_NULL, "the duplicate is there before completion");
            CHECK_RC(MPI_Recv(buf, BIG, MPI_CHAR, 0, 5, inter, MPI_STATUS_IGNORE));
            int bad = 0;
            for (int i = 0; i < BIG; i++)
                bad += buf[i] != (char)(i * 3);
            EXPECT(bad == 0, "%d bytes wrong", bad);
        } else {
            CHECK_RC(MPI_Comm_idup(inter, &id[0], &ir[0]));
        }
        free(buf);
        /* more outstanding at once, of inter and of its first duplicate
         * (not complete yet: started once that one is) */
        for (int i = 1; i < NIDUP; i++)
            CHECK_RC(MPI_Comm_idup(inter, &id[i], &ir[i]));
        CHECK_RC(MPI_Wait(&ir[0], MPI_STATUS_IGNORE));
        CHECK_RC(MPI_Comm_idup(id[0], &id[NIDUP], &ir[NIDUP]));
        /* side 1 completes them in the other order */
        for (int k = 1; k <= NIDUP; k++) {
            int i = side ? NIDUP + 1 - k : k, done = 0;

            if (side)
                while (!done)
                    CHECK_RC(MPI_Test(&ir[i], &done, MPI_STATUS_IGNORE));
            else
                CHECK_RC(MPI_Wait(&ir[i], MPI_STATUS_IGNORE));
        }
        EXPECT(copies == NIDUP + 1, "copy callback ran %d times", copies);
        for (int i = 0; i <= NIDUP; i++) {
            int rs = -1, ls = -1, lr = -1, hn;

            MPI_Comm_test_inter(id[i], &flag);
            MPI_Comm_remote_size(id[i], &rs);
            MPI_Comm_size(id[i], &ls);
            MPI_Comm_rank(id[i], &lr);
            MPI_Comm_size(half, &hn);
            EXPECT(flag && rs == rsize && ls == hn && lr == hr,
                   "duplicate %d: inter %d remote size %d local %d rank %d", i, flag, rs, ls, lr);
            CHECK_RC(MPI_Comm_get_attr(id[i], key, &v, &flag));
            EXPECT(flag && v == (i < NIDUP ? ibase + 1 : ibase + 2), "attribute of %d", i);
            /* a collective: the sum of the remote group's values */
            int mine = 10 * (side + 1) + i, sum = 0;
            CHECK_RC(MPI_Allreduce(&mine, &sum, 1, MPI_INT, MPI_SUM, id[i]));
            EXPECT(sum == rsize * (10 * (2 - side) + i), "duplicate %d allreduce %d", i, sum);
            CHECK_RC(MPI_Barrier(id[i]));
        }
        /* point to point: each local rank with remote rank (its rank mod
         * the remote size), one message with the same tag on every
         * communicator, received in the other order */
        {
            MPI_Comm all[NIDUP + 2];
            MPI_Request sr[NIDUP + 2], rr[NIDUP + 2];
            int vals[NIDUP + 2], got[NIDUP + 2], peer = hr % rsize, hn, nfrom = 0;

            MPI_Comm_size(half, &hn);
            all[0] = inter;
            for (int i = 0; i <= NIDUP; i++)
                all[i + 1] = id[i];
            /* the remote ranks that send here: r with r mod hn == hr */
            int from[64];
            for (int r = 0; r < rsize && nfrom < 64; r++)
                if (r % hn == hr)
                    from[nfrom++] = r;
            for (int i = 0; i < NIDUP + 2; i++) {
                vals[i] = 1000 * i + 10 * side + hr;
                CHECK_RC(MPI_Isend(&vals[i], 1, MPI_INT, peer, 9, all[i], &sr[i]));
            }
            for (int f = 0; f < nfrom; f++) {
                for (int i = NIDUP + 1; i >= 0; i--)
                    CHECK_RC(MPI_Irecv(&got[i], 1, MPI_INT, from[f], 9, all[i], &rr[i]));
                CHECK_RC(MPI_Waitall(NIDUP + 2, rr, MPI_STATUSES_IGNORE));
                for (int i = 0; i < NIDUP + 2; i++)
                    EXPECT(got[i] == 1000 * i + 10 * (1 - side) + from[f],
                           "communicator %d from %d got %d", i, from[f], got[i]);
            }
            CHECK_RC(MPI_Waitall(NIDUP + 2, sr, MPI_STATUSES_IGNORE));
        }
        for (int i = 0; i <= NIDUP; i++)
            MPI_Comm_free(&id[i]);
        MPI_Comm_free_keyval(&key);
        MPI_Comm_free(&inter);
        MPI_Comm_free(&half);
    }
    MPI_Comm_free(&c);
    th_case = NULL;
    return mt_finish("mpi_idup");
}
