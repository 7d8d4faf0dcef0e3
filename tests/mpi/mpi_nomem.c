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
 */
#define _GNU_SOURCE
#include "mpitest.h"

#include <dlfcn.h>

enum { BYTES = 4096, TAG = 7 };

int main(int argc, char **argv)
{
    int (*arm)(int) = (int (*)(int))dlsym(RTLD_DEFAULT, "failmalloc_arm");
    static char out[BYTES], in[BYTES];
    int size = BYTES + MPI_BSEND_OVERHEAD, refused, rc;
    char *attached = malloc((size_t)size);
    void *detached;

    if (!arm) {
        fprintf(stderr, "mpi_nomem: run with tests/mpi/.libs/libfailmalloc.so in LD_PRELOAD\n");
        return 2;
    }
    mt_init(&argc, &argv);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
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
    return mt_finish("mpi_nomem");
}
