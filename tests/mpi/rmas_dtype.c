/*
 * rmas_dtype: derived datatypes on the origin and the target of Put, Get
 * and Accumulate (SUM), each rank to the next in a ring, fence epochs:
 * vector, indexed, struct (of ints, and int + double for Put/Get), resized,
 * subarray, and counts that are not multiples of each other (4 x
 * contiguous(3) onto 3 x vector(2,2,3)). The expected memory is what
 * MPI_Pack of the origin side and MPI_Unpack into the target side give:
 * one-sided transfers map elements in type-signature order, like that.
 * The whole window and the whole origin buffer are compared, so a byte
 * written outside the type's blocks is caught too.
 */
#include "tests/mpi/rmas_common.h"

#define WIN_INTS 512

static int me, n;

struct tcase {
    const char *name;
    MPI_Datatype ot, tt;
    int oc, tc;
    int acc;            /* only ints: Accumulate applies */
};

static void pattern(int *buf, int rank, int salt)
{
    for (int i = 0; i < WIN_INTS; i++)
        buf[i] = salt + rank * 1000 + i;
}

/* dst (init by the caller) = unpack(pack(src, sc, st), dc, dt) */
static void map(const void *src, int sc, MPI_Datatype st, void *dst, int dc, MPI_Datatype dt)
{
    int sz = 0, pos = 0;
    char *packed;

    MPI_Pack_size(sc, st, MPI_COMM_WORLD, &sz);
    packed = malloc((size_t)sz + 1);
    MPI_Pack(src, sc, st, packed, sz, &pos, MPI_COMM_WORLD);
    sz = pos;
    pos = 0;
    MPI_Unpack(packed, sz, &pos, dst, dc, dt, MPI_COMM_WORLD);
    free(packed);
}

static void compare(const char *what, const int *got, const int *want)
{
    int bad = 0;

    for (int i = 0; i < WIN_INTS && bad < 4; i++) {
        if (memcmp(&got[i], &want[i], sizeof(int)) != 0) {
            EXPECT(0, "%s: int %d = %d, want %d", what, i, got[i], want[i]);
            bad++;
        }
    }
}

static void run_case(const struct tcase *c, int *mem, MPI_Win win)
{
    int next = (me + 1) % n, prev = (me - 1 + n) % n;
    int *obuf = malloc(sizeof(int) * WIN_INTS), *want = malloc(sizeof(int) * WIN_INTS);
    int *src = malloc(sizeof(int) * WIN_INTS);

    rs_case(c->name);
    /* Put: my pattern into the next rank through (ot, oc) -> (tt, tc) */
    for (int i = 0; i < WIN_INTS; i++)
        mem[i] = -1;
    pattern(obuf, me, 0);
    OK(MPI_Win_fence(0, win));
    OK(MPI_Put(obuf, c->oc, c->ot, next, 0, c->tc, c->tt, win));
    OK(MPI_Win_fence(0, win));
    pattern(src, prev, 0);
    for (int i = 0; i < WIN_INTS; i++)
        want[i] = -1;
    map(src, c->oc, c->ot, want, c->tc, c->tt);
    compare("Put", mem, want);

    /* Get: the next rank's window through (tt, tc) into (ot, oc) */
    pattern(mem, me, 500000);
    for (int i = 0; i < WIN_INTS; i++)
        obuf[i] = -1;
    OK(MPI_Win_fence(0, win));
    OK(MPI_Get(obuf, c->oc, c->ot, next, 0, c->tc, c->tt, win));
    OK(MPI_Win_fence(0, win));
    pattern(src, next, 500000);
    for (int i = 0; i < WIN_INTS; i++)
        want[i] = -1;
    map(src, c->tc, c->tt, want, c->oc, c->ot);
    compare("Get", obuf, want);

    if (c->acc) {
        /* Accumulate SUM onto ones: want = 1 + the mapped pattern where the
         * target type reaches, 1 elsewhere */
        int *zero = calloc(WIN_INTS, sizeof(int));
        for (int i = 0; i < WIN_INTS; i++)
            mem[i] = 1;
        pattern(obuf, me, 0);
        OK(MPI_Win_fence(0, win));
        OK(MPI_Accumulate(obuf, c->oc, c->ot, next, 0, c->tc, c->tt, MPI_SUM, win));
        OK(MPI_Win_fence(0, win));
        pattern(src, prev, 0);
        memcpy(want, zero, sizeof(int) * WIN_INTS);
        map(src, c->oc, c->ot, want, c->tc, c->tt);
        for (int i = 0; i < WIN_INTS; i++)
            want[i] += 1;
        compare("Accumulate SUM", mem, want);

        /* Get_accumulate NO_OP through the target type reads the same */
        for (int i = 0; i < WIN_INTS; i++)
            obuf[i] = -1;
        OK(MPI_Win_fence(0, win));
        OK(MPI_Get_accumulate(zero, c->oc, c->ot, obuf, c->oc, c->ot, next, 0, c->tc, c->tt,
                              MPI_NO_OP, win));
        OK(MPI_Win_fence(0, win));
        pattern(src, me, 0);
        memcpy(want, zero, sizeof(int) * WIN_INTS);
        map(src, c->oc, c->ot, want, c->tc, c->tt);     /* next's window as I filled it */
        for (int i = 0; i < WIN_INTS; i++)
            want[i] += 1;
        memcpy(src, want, sizeof(int) * WIN_INTS);
        for (int i = 0; i < WIN_INTS; i++)
            want[i] = -1;
        map(src, c->tc, c->tt, want, c->oc, c->ot);
        compare("Get_accumulate NO_OP", obuf, want);
        free(zero);
    }
    free(obuf);
    free(want);
    free(src);
}

int main(int argc, char **argv)
{
    MPI_Datatype vec453, c3, v223, idx, vec_for_idx, st_ints, res2, vres, contig12, contig15,
        sub, mixed;
    int bl[3] = { 1, 3, 2 }, ds[3] = { 0, 2, 7 };
    int sbl[2] = { 2, 1 }, sizes[2] = { 8, 8 }, subs[2] = { 3, 4 }, starts[2] = { 2, 1 };
    MPI_Aint sds[2] = { 0, 4 * sizeof(int) }, mds[2] = { 0, 8 };
    MPI_Datatype sts[2] = { MPI_INT, MPI_INT }, mts[2] = { MPI_INT, MPI_DOUBLE };
    int mbl[2] = { 1, 1 };
    int *mem = NULL;
    MPI_Win win;

    rs_init(&argc, &argv);
    me = th_rank;
    n = th_size;
    MPI_Type_vector(4, 3, 5, MPI_INT, &vec453);
    MPI_Type_contiguous(3, MPI_INT, &c3);
    MPI_Type_vector(2, 2, 3, MPI_INT, &v223);
    MPI_Type_indexed(3, bl, ds, MPI_INT, &idx);               /* 6 ints, extent 9 */
    MPI_Type_vector(6, 2, 4, MPI_INT, &vec_for_idx);          /* 12 ints */
    MPI_Type_create_struct(2, sbl, sds, sts, &st_ints);        /* 3 ints, extent 5 */
    MPI_Type_create_resized(MPI_INT, 0, 2 * sizeof(int), &res2);
    {
        MPI_Datatype v;
        MPI_Type_vector(2, 1, 2, MPI_INT, &v);
        MPI_Type_create_resized(v, 0, 3 * sizeof(int), &vres);   /* 2 ints, extent 3 */
        MPI_Type_free(&v);
    }
    MPI_Type_contiguous(12, MPI_INT, &contig12);
    MPI_Type_contiguous(15, MPI_INT, &contig15);
    MPI_Type_create_subarray(2, sizes, subs, starts, MPI_ORDER_C, MPI_INT, &sub);
    MPI_Type_create_struct(2, mbl, mds, mts, &mixed);          /* int, hole, double */
    MPI_Datatype all[] = { vec453, c3, v223, idx, vec_for_idx, st_ints, res2, vres, contig12,
                           contig15, sub, mixed };
    for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++)
        MPI_Type_commit(&all[i]);
    const struct tcase cases[] = {
        { "contig(12) x1 -> vector(4,3,5) x1", contig12, vec453, 1, 1, 1 },
        { "vector(4,3,5) x1 -> contig(12) x1", vec453, contig12, 1, 1, 1 },
        { "contig(3) x4 -> vector(2,2,3) x3", all[1], all[2], 4, 3, 1 },
        { "indexed x2 -> vector(6,2,4) x1", all[3], all[4], 2, 1, 1 },
        { "struct of ints x4 -> resized int x12", all[5], all[6], 4, 12, 1 },
        { "resized vector x5 -> MPI_INT x10", all[7], MPI_INT, 5, 10, 1 },
        { "MPI_INT x12 -> subarray 3x4 of 8x8", MPI_INT, all[10], 12, 1, 1 },
        { "subarray -> vector(4,3,5)", all[10], all[0], 1, 1, 1 },
        { "contig(15) x1 -> contig(3) x5", all[9], all[1], 1, 5, 1 },
        { "struct int+double x5 -> same", all[11], all[11], 5, 5, 0 },
    };

    rs_flavor_now = "create";
    rs_case("window");
    if (rs_win(RS_CREATE, (MPI_Aint)sizeof(int) * WIN_INTS, 1, MPI_COMM_WORLD, (void **)&mem,
               &win)) {
        for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
            run_case(&cases[i], mem, win);
        OK(MPI_Win_fence(MPI_MODE_NOSUCCEED, win));
        rs_case("free");
        rs_win_free(RS_CREATE, mem, &win);
    }
    for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++)
        MPI_Type_free(&all[i]);
    th_case = NULL;
    return mt_finish("rmas_dtype");
}
