/*
 * Calls that run out of memory part way leave nothing behind
 * (tests/mpi/failmalloc.c, preloaded, makes malloc fail). Run by
 * mpi_nomem.sh.
 * - A buffered send whose request cannot be allocated gives its slot of
 *   the attached buffer back. Each rank attaches room for exactly one
 *   message, makes MPI_Bsend fail on the request allocation, then sends the
 *   same message to itself: it fits only if the failed call released its
 *   slot.
 * - MPI_Info_dup that cannot copy a value returns MPI_ERR_NO_MEM with
 *   *newinfo MPI_INFO_NULL, and the half-made copy is freed: the next
 *   MPI_Info_create gets the handle it had.
 * Malloc fails for the whole armed thread, progress included: a message
 * from another rank arriving unexpected in that window would find no
 * memory and end the job (seen in CI: rank 0, already in mt_finish, sent to
 * rank 1 while rank 1's first MPI_Bsend was armed). So the ranks take their
 * armed windows in turn, and the others wait meanwhile in an MPI_Recv from
 * the rank whose turn it is, sending nothing.
 *
 * "mpi_nomem unexpected" (2 ranks) is that case on purpose: rank 1 arms,
 * tells rank 0 (an eager send must not allocate), then polls with
 * MPI_Iprobe; rank 0 sends it 1024 bytes (eager everywhere) it has not posted a receive for.
 * Rank 1 has no memory to keep them: the job must end, with a line that
 * says so (mpi_nomem.sh checks it), not crash or drop the message.
 */
#define _GNU_SOURCE
#include "mpitest.h"

#include <dlfcn.h>

enum { BYTES = 4096, TAG = 7 };

static void armed_checks(int (*arm)(int))
{
    static char out[BYTES], in[BYTES];
    int size = BYTES + MPI_BSEND_OVERHEAD, refused, rc;
    char *attached = malloc((size_t)size);
    void *detached;

    for (int i = 0; i < BYTES; i++)
        out[i] = (char)(i * 7 + th_rank);
    CHECK_RC(MPI_Buffer_attach(attached, size));

    arm(1);
    rc = MPI_Bsend(out, BYTES, MPI_BYTE, th_rank, TAG, MPI_COMM_WORLD);
    refused = arm(0);
    EXPECT(rc == MPI_ERR_NO_MEM && refused > 0,
           "MPI_Bsend with malloc failing returned %d (%d mallocs refused); expected "
           "MPI_ERR_NO_MEM (%d) from the request allocation", rc, refused, MPI_ERR_NO_MEM);

    rc = MPI_Bsend(out, BYTES, MPI_BYTE, th_rank, TAG, MPI_COMM_WORLD);
    EXPECT(rc == MPI_SUCCESS, "MPI_Bsend after the failed one returned %d: the failed call "
           "kept its slot of the attached buffer", rc);
    if (rc == MPI_SUCCESS) {
        CHECK_RC(MPI_Recv(in, BYTES, MPI_BYTE, th_rank, TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        EXPECT(memcmp(in, out, BYTES) == 0, "the buffered message arrived changed");
    }
    CHECK_RC(MPI_Buffer_detach(&detached, &size));
    free(attached);

    MPI_Info info, copy = MPI_INFO_NULL, next;
    CHECK_RC(MPI_Info_create(&info));
    CHECK_RC(MPI_Info_set(info, "key", "a value to copy"));
    arm(1);
    rc = MPI_Info_dup(info, &copy);
    refused = arm(0);
    EXPECT(rc == MPI_ERR_NO_MEM && refused > 0 && copy == MPI_INFO_NULL,
           "MPI_Info_dup with malloc failing returned %d (%d mallocs refused), newinfo %d; "
           "expected MPI_ERR_NO_MEM and MPI_INFO_NULL", rc, refused, (int)copy);
    CHECK_RC(MPI_Info_create(&next));
    EXPECT(next == info + 1, "MPI_Info_create after the failed dup gave handle %d, not %d: "
           "the failed dup kept its half copy", (int)next, (int)info + 1);
    CHECK_RC(MPI_Info_free(&next));
    if (copy != MPI_INFO_NULL)
        MPI_Info_free(&copy);
    CHECK_RC(MPI_Info_free(&info));
}

int main(int argc, char **argv)
{
    int (*arm)(int) = (int (*)(int))dlsym(RTLD_DEFAULT, "failmalloc_arm");
    int token = 0;

    if (!arm) {
        fprintf(stderr, "mpi_nomem: run with tests/mpi/.libs/libfailmalloc.so in LD_PRELOAD\n");
        return 2;
    }
    mt_init(&argc, &argv);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    if (argc > 1 && strcmp(argv[1], "unexpected") == 0 && th_size == 2) {
        static char msg[1024];
        int flag = 0;

        if (th_rank == 1) {
            arm(1);
            MPI_Send(&token, 1, MPI_INT, 0, TAG + 1, MPI_COMM_WORLD);
            for (;;)
                MPI_Iprobe(0, TAG + 2, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
        }
        CHECK_RC(MPI_Recv(&token, 1, MPI_INT, 1, TAG + 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        CHECK_RC(MPI_Send(msg, (int)sizeof(msg), MPI_BYTE, 1, TAG, MPI_COMM_WORLD));
        for (;;)
            MPI_Iprobe(1, TAG + 2, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
    }
    for (int turn = 0; turn < th_size; turn++) {
        if (turn == th_rank) {
            armed_checks(arm);
            for (int r = 0; r < th_size; r++)
                if (r != th_rank)
                    CHECK_RC(MPI_Send(&token, 1, MPI_INT, r, TAG + 1, MPI_COMM_WORLD));
        } else {
            CHECK_RC(MPI_Recv(&token, 1, MPI_INT, turn, TAG + 1, MPI_COMM_WORLD,
                              MPI_STATUS_IGNORE));
        }
    }
    return mt_finish("mpi_nomem");
}
