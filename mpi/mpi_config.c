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
    RTM_CFG_ROW(MPI_ALLTOALL_PAIRWISE_OVERSUB, mpi_config_t, alltoall_pairwise_oversub, SIZE,
                "1G", NULL, 0, RTM_CFG_TIB,
      "MPI_Alltoall(v,w) at a rank whose host runs more of the job's ranks than CPUs (the test of RTM_IDLE_WAIT=auto, or RTM_IDLE_WAIT=yield; each rank's own view: the two algorithms send the same messages, so ranks may differ): pairwise exchange from this many bytes per block (or RTM_MPI_ALLTOALL_PAIRWISE if larger). Every transfer posted at once lets a rank's messages move whenever each peer runs, where a pairwise step waits for one peer: at 4 ranks on 2 CPUs 16 KiB took 16.3 us that way against 21.2 pairwise, 64 KiB 33.7 against 37.7, 1-4 MiB even or 1-3% less"),
    RTM_CFG_ROW(MPI_COLL_SHM, mpi_config_t, coll_shm, BOOL, "1", NULL, 0, 0,
      "MPI_Barrier, MPI_Bcast, MPI_Reduce, MPI_Allreduce (blocking) on a communicator whose ranks are all on one host go through a shared-memory segment of the communicator's (made at its first such collective); 0: always the point-to-point algorithms. The same value at every rank"),
    RTM_CFG_ROW(MPI_COLL_SHM_CHUNK, mpi_config_t, coll_shm_chunk, SIZE, "16K", NULL, 4096, RTM_CFG_TIB,
      "Shared-memory collectives: bytes of each rank's slot and of the result area (the step of a pipelined Bcast or Reduce); the segment holds 16 x (ranks + 1) of them, at most 8 MiB (the chunk shrinks to fit)"),
    RTM_CFG_ROW(MPI_BCAST_SHM_MAX, mpi_config_t, bcast_shm_max, SIZE, "1G", NULL, 0, RTM_CFG_TIB,
      "MPI_Bcast: up to this many bytes through shared memory (RTM_MPI_COLL_SHM); the point-to-point algorithms above"),
    RTM_CFG_ROW(MPI_REDUCE_SHM_MAX, mpi_config_t, reduce_shm_max, SIZE, "1G", NULL, 0, RTM_CFG_TIB,
      "MPI_Reduce: up to this many bytes through shared memory (RTM_MPI_COLL_SHM); the point-to-point algorithms above"),
    RTM_CFG_ROW(MPI_BCAST_SHM_MAX_PAIR, mpi_config_t, bcast_shm_max_pair, SIZE, "32K", NULL, 0, RTM_CFG_TIB,
      "MPI_Bcast on a communicator of 2 ranks: up to this many bytes (or RTM_MPI_BCAST_SHM_MAX if smaller) through shared memory; above, one message, which the two ranks copy together (RTM_SHM_CMA_SPLIT): 64 KiB took 3.6 us that way against 4.7 through shared memory, 256 KiB 7.9 against 18.2, 1 MiB 25 against 79, 4 MiB 193 against 334; 32 KiB 2.4 against 2.1"),
    RTM_CFG_ROW(MPI_REDUCE_SHM_MAX_PAIR, mpi_config_t, reduce_shm_max_pair, SIZE, "256K", NULL, 0, RTM_CFG_TIB,
      "MPI_Reduce on a communicator of 2 ranks: up to this many bytes (or RTM_MPI_REDUCE_SHM_MAX if smaller) through shared memory; above, the point-to-point algorithms, whose messages the two ranks copy together (RTM_SHM_CMA_SPLIT): 512 KiB took 40.6 us that way against 46.3 through shared memory, 1 MiB 82 against 110, 2 MiB 231 against 259; 64-256 KiB were slower (64 KiB 10.1 against 5.2)"),
    RTM_CFG_ROW(MPI_ALLREDUCE_SHM_MAX, mpi_config_t, allreduce_shm_max, SIZE, "32K", NULL, 0, RTM_CFG_TIB,
      "MPI_Allreduce: up to this many bytes through shared memory (RTM_MPI_COLL_SHM); the point-to-point algorithms above (from RTM_MPI_ALLREDUCE_RING a ring whose blocks each rank reads by CMA): at 2 ranks on one host 64 KiB took 14.1 us that way against 20.6 through shared memory, 1 MiB 163-167 against 347-357; 8-32 KiB 3.9-10.3 through shared memory against 5.3-15.2"),
    RTM_CFG_ROW(MPI_ALLREDUCE_SHM_MAX_OVERSUB, mpi_config_t, allreduce_shm_max_oversub, SIZE, "128K", NULL, 0, RTM_CFG_TIB,
      "MPI_Allreduce on a host with more of the job's ranks than CPUs (the test of RTM_IDLE_WAIT=auto, or RTM_IDLE_WAIT=yield; rank 0's view when the communicator's segment is made): up to this many bytes (or RTM_MPI_ALLREDUCE_SHM_MAX if larger) through shared memory, where a rank can run 16 steps ahead of a peer that is off its CPU, rather than the ring, each of whose blocks waits for the peer to run. At 4 ranks on 2 CPUs 64 KiB took 36 us through shared memory against 63-67 by the ring, 128 KiB 72-75 against 94-99, 256 KiB 155 against 150, 1 MiB 685 against 490-520"),
    RTM_CFG_ROW(MPI_ALLGATHER_SHM_MAX, mpi_config_t, allgather_shm_max, SIZE, "8K", NULL, 0, RTM_CFG_TIB,
      "MPI_Allgather: blocks (bytes per rank) up to this size through shared memory (RTM_MPI_COLL_SHM), in steps of a chunk; the point-to-point algorithms above (at 2 ranks 8 B took 0.32-0.35 us that way against 0.47-0.76 by messages, 1 KiB 0.62-0.75 against 0.97-1.28, 16 KiB even, 64 KiB 13-16 against 7.2-7.8)"),
    RTM_CFG_ROW(MPI_ALLGATHER_SHM_MAX_OVERSUB, mpi_config_t, allgather_shm_max_oversub, SIZE, "64K", NULL, 0, RTM_CFG_TIB,
      "MPI_Allgather on a host with more of the job's ranks than CPUs (as RTM_MPI_ALLREDUCE_SHM_MAX_OVERSUB): blocks up to this size (or RTM_MPI_ALLGATHER_SHM_MAX if larger) through shared memory. At 4 ranks on 2 CPUs 16 KiB took 10-11 us that way against 31-32 by messages, 64 KiB 42-45 against 68-70, 256 KiB 210-260 against 223-228"),
    RTM_CFG_ROW(MPI_ALLREDUCE_SHM_SPLIT, mpi_config_t, allreduce_shm_split, SIZE, "16K", NULL, 0, RTM_CFG_TIB,
      "MPI_Allreduce through shared memory: from this many bytes per step each rank reduces a share of the data and all copy the result; below every rank reduces all of it"),
};

rtm_cfg_table_t mpi_config_table =
    RTM_CFG_TABLE_INIT("mpi", "MPI binding", mpi_config_rows, mpi_config);
