/*
 * A message above INT_MAX bytes, the MPI 3.1 way (issue 14): one element
 * of a contiguous type of 2^19 + 1 chunks of 4 KiB (2 GiB + 4 KiB), data
 * checked:
 * - on 2 ranks, rank 0 sends it to rank 1 (MPI_Send / MPI_Recv through the
 *   transport between them): every 8-byte word arrives; on the status
 *   MPI_Get_count is 1 of the type and MPI_UNDEFINED in bytes,
 *   MPI_Get_elements_x the byte count, MPI_Get_elements MPI_UNDEFINED;
 * - then (alone with the argument "replace", any number of ranks) the
 *   last rank: MPI_Sendrecv_replace of as many bytes with MPI_PROC_NULL
 *   (its packed copy went out as an int count of bytes, which wrapped:
 *   MPI_ERR_COUNT, or beyond 4 GiB silently fewer bytes).
 * At most two 2 GiB buffers exist at a time on the node: 4.3 GiB; 2.1 GiB
 * with "replace", which is what the driver runs in the sanitizer pass
 * (instrumented fills and checks of gigabytes take minutes there, and the
 * send's code paths are those the small messages of the other tests run).
 */
#include "mpitest.h"

#include <limits.h>
#include <stdint.h>
#include <string.h>

#define CHUNK 4096
#define NCHUNKS ((1 << 19) + 1)

static const size_t total = (size_t)CHUNK * NCHUNKS;

static uint64_t word(size_t i, uint64_t salt)
{
    return (i * 0x9e3779b97f4a7c15ull) ^ salt;
}

static void fill(uint64_t *w, uint64_t salt)
{
    for (size_t i = 0; i < total / 8; i++)
        w[i] = word(i, salt);
}

/* The first word that differs, or SIZE_MAX. */
static size_t first_bad(const uint64_t *w, uint64_t salt)
{
    for (size_t i = 0; i < total / 8; i++)
        if (w[i] != word(i, salt))
            return i;
    return SIZE_MAX;
}

static void check_status(const MPI_Status *st, MPI_Datatype big)
{
    MPI_Count n;
    int c;

    CHECK_RC(MPI_Get_count(st, big, &c));
    EXPECT(c == 1, "Get_count of the big type %d", c);
    CHECK_RC(MPI_Get_count(st, MPI_BYTE, &c));
    EXPECT(c == MPI_UNDEFINED, "Get_count in bytes %d (MPI_UNDEFINED expected)", c);
    CHECK_RC(MPI_Get_elements_x(st, MPI_BYTE, &n));
    EXPECT(n == (MPI_Count)total, "Get_elements_x %lld, expected %zu", n, total);
    CHECK_RC(MPI_Get_elements(st, MPI_BYTE, &c));
    EXPECT(c == MPI_UNDEFINED, "Get_elements %d (MPI_UNDEFINED expected)", c);
    CHECK_RC(MPI_Get_elements_x(st, big, &n));
    EXPECT(n == (MPI_Count)total, "Get_elements_x of the big type %lld", n);
}

/* rank 0 sends one element of the 2 GiB + 4 KiB type to rank 1 */
static void test_send(MPI_Datatype big)
{
    MPI_Status st;
    uint64_t *buf;

    th_case = "send";
    CHECK(th_size == 2, "the send runs on 2 ranks, not %d", th_size);
    buf = malloc(total);
    CHECK(buf != NULL, "no %zu bytes", total);
    if (th_rank == 0) {
        fill(buf, 1);
        CHECK_RC(MPI_Send(buf, 1, big, 1, 7, MPI_COMM_WORLD));
    } else {
        CHECK_RC(MPI_Recv(buf, 1, big, 0, 7, MPI_COMM_WORLD, &st));
        size_t bad = first_bad(buf, 1);
        EXPECT(bad == SIZE_MAX, "received data differs at byte %zu", bad * 8);
        check_status(&st, big);
    }
    free(buf);
    MPI_Barrier(MPI_COMM_WORLD);
    th_case = NULL;
}

/* MPI_Sendrecv_replace of 2 GiB + 4 KiB with MPI_PROC_NULL both ways, on
 * the last rank: the packed copy is made and sent nowhere, the buffer
 * keeps its data, the status is MPI_PROC_NULL's. The data is one 4 KiB
 * chunk NCHUNKS times (an hvector of stride 0: a send buffer may overlap
 * itself), so only the library's copy is big. */
static void test_replace(void)
{
    MPI_Datatype rep;
    MPI_Status st;
    unsigned char chunk[CHUNK];
    int c = -1;

    th_case = "sendrecv_replace";
    if (th_rank == th_size - 1) {
        for (int i = 0; i < CHUNK; i++)
            chunk[i] = (unsigned char)(i * 7 + 1);
        CHECK_RC(MPI_Type_create_hvector(NCHUNKS, CHUNK, 0, MPI_BYTE, &rep));
        CHECK_RC(MPI_Type_commit(&rep));
        CHECK_RC(MPI_Sendrecv_replace(chunk, 1, rep, MPI_PROC_NULL, 8, MPI_PROC_NULL, 8,
                                      MPI_COMM_WORLD, &st));
        MPI_Get_count(&st, rep, &c);
        EXPECT(st.MPI_SOURCE == MPI_PROC_NULL && c == 0, "status: source %d count %d",
               st.MPI_SOURCE, c);
        int bad = -1;
        for (int i = 0; i < CHUNK && bad < 0; i++)
            if (chunk[i] != (unsigned char)(i * 7 + 1))
                bad = i;
        EXPECT(bad < 0, "data differs at byte %d after Sendrecv_replace", bad);
        MPI_Type_free(&rep);
    }
    th_case = NULL;
}

int main(int argc, char **argv)
{
    MPI_Datatype chunk, big;
    MPI_Count sz;

    mt_init(&argc, &argv);
    CHECK_RC(MPI_Type_contiguous(CHUNK, MPI_BYTE, &chunk));
    CHECK_RC(MPI_Type_contiguous(NCHUNKS, chunk, &big));
    CHECK_RC(MPI_Type_commit(&big));
    CHECK_RC(MPI_Type_size_x(big, &sz));
    CHECK(sz == (MPI_Count)total && total > INT_MAX, "type size %lld", sz);
    if (argc < 2 || strcmp(argv[1], "replace") != 0)
        test_send(big);
    test_replace();
    MPI_Type_free(&big);
    MPI_Type_free(&chunk);
    return mt_finish("mpi_bigmsg");
}
