/*
 * The MPI binding's config rows (mpi_config.c): collective switch points
 * and scratch memory. Read mpi_config.<field> directly.
 */
#ifndef RTM_MPI_CONFIG_H
#define RTM_MPI_CONFIG_H

#include "common/rtconfig.h"

typedef struct mpi_config {
    size_t coll_scratch;       /* RTM_MPI_COLL_SCRATCH */
    size_t bcast_large;        /* RTM_MPI_BCAST_LARGE */
    size_t reduce_large;       /* RTM_MPI_REDUCE_LARGE */
    size_t allreduce_ring;     /* RTM_MPI_ALLREDUCE_RING */
    size_t allgather_ring;     /* RTM_MPI_ALLGATHER_RING */
    size_t alltoall_pairwise;  /* RTM_MPI_ALLTOALL_PAIRWISE */
    size_t alltoall_pairwise_oversub;  /* RTM_MPI_ALLTOALL_PAIRWISE_OVERSUB */
    int    coll_shm;           /* RTM_MPI_COLL_SHM */
    size_t coll_shm_chunk;     /* RTM_MPI_COLL_SHM_CHUNK */
    size_t bcast_shm_max;      /* RTM_MPI_BCAST_SHM_MAX */
    size_t bcast_shm_max_pair; /* RTM_MPI_BCAST_SHM_MAX_PAIR */
    size_t reduce_shm_max;     /* RTM_MPI_REDUCE_SHM_MAX */
    size_t reduce_shm_max_pair; /* RTM_MPI_REDUCE_SHM_MAX_PAIR */
    size_t allreduce_shm_max;  /* RTM_MPI_ALLREDUCE_SHM_MAX */
    size_t allreduce_shm_max_oversub;  /* RTM_MPI_ALLREDUCE_SHM_MAX_OVERSUB */
    size_t allgather_shm_max;  /* RTM_MPI_ALLGATHER_SHM_MAX */
    size_t allgather_shm_max_oversub;  /* RTM_MPI_ALLGATHER_SHM_MAX_OVERSUB */
    size_t allreduce_shm_split; /* RTM_MPI_ALLREDUCE_SHM_SPLIT */
} mpi_config_t;

extern mpi_config_t    mpi_config;
extern rtm_cfg_table_t mpi_config_table;

#endif
