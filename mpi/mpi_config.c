/*
 * The MPI binding's config rows (docs/collectives.md tells how the switch
 * points were measured). Data only (rtrun and the unit tests link it).
 */
#include "config.h"

#include "mpi_config.h"

mpi_config_t mpi_config;

static const rtm_cfg_row_t mpi_config_rows[] = {
    RTM_CFG_ROW(MPI_COLL_SCRATCH, mpi_config_t, coll_scratch, SIZE, "32M", NULL, 0, RTM_CFG_TIB,
      "MPI collectives: bytes of scratch memory a rank keeps allocated between collectives, so repeated large collectives do not fault their buffers in again; 0 frees scratch after each collective"),
    RTM_CFG_ROW(MPI_BCAST_LARGE, mpi_config_t, bcast_large, SIZE, "512K", NULL, 0, RTM_CFG_TIB,
      "MPI_Bcast: from this many bytes (and 3 or more ranks) scatter + ring allgather; binomial tree below"),
    RTM_CFG_ROW(MPI_REDUCE_LARGE, mpi_config_t, reduce_large, SIZE, "256K", NULL, 0, RTM_CFG_TIB,
      "MPI_Reduce with a commutative op: from this many bytes reduce-scatter + gather (each rank reduces a share); binomial tree below"),
    RTM_CFG_ROW(MPI_ALLREDUCE_RING, mpi_config_t, allreduce_ring, SIZE, "64K", NULL, 0, RTM_CFG_TIB,
      "MPI_Allreduce with a commutative op: from this many bytes ring reduce-scatter + ring allgather; recursive doubling below"),
    RTM_CFG_ROW(MPI_ALLGATHER_RING, mpi_config_t, allgather_ring, SIZE, "4K", NULL, 0, RTM_CFG_TIB,
      "MPI_Allgather: from this many bytes in total ring; Bruck below"),
    RTM_CFG_ROW(MPI_ALLTOALL_PAIRWISE, mpi_config_t, alltoall_pairwise, SIZE, "64", NULL, 0,
                RTM_CFG_TIB,
      "MPI_Alltoall(v,w): from this many bytes per block (and 3 or more ranks) pairwise exchange; every transfer posted at once below"),
};

rtm_cfg_table_t mpi_config_table =
    RTM_CFG_TABLE_INIT("mpi", "MPI binding", mpi_config_rows, mpi_config);
