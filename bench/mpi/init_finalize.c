/*
 * init_finalize: the trivial program whose launch time bench/compare-mpi.sh
 * measures (wall time from starting the launcher until it exits, i.e. until
 * every rank has returned from MPI_Finalize and the launcher has reaped it).
 * MPI API only: builds with any mpicc.
 */
#include <mpi.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Finalize();
    return 0;
}
