/*
 * The shared-memory transport's config rows. Data only (rtrun and the unit
 * tests link it without the transport).
 *
 * Switch points, measured with transport/shm/bench_shm and a
 * process_vm_readv loop on the reference machine (2-vCPU Firecracker VM,
 * AMD EPYC, shared with other work; best of 7 runs). One process_vm_readv
 * moves 16K/64K/256K/1M/4M/16M/64M at 2.2/6.3/10/6.8/4.9/3.5/4.3 GB/s;
 * memcpy does 130/100/95/26/26/8/9 GB/s. Two processes, one message at a
 * time: the ring copy (32K fragments) against CMA 32K 23 vs 0.8, 256K 40 vs
 * 1.8, 512K 47 vs 3.3 GB/s; from 1M the load made single runs unrankable,
 * and at 16M/64M CMA came out ahead under load (the copy path needs both
 * ranks on a core, CMA only the receiver). Peers on bare metal find CMA
 * equal to a copy from 256K. A copy through the rings costs little anywhere;
 * CMA here costs 3-10x below 16M: so CMA from 16M. Eager stays at 4K: the
 * receiver may buffer credits x limit per peer.
 */
#include "config.h"

#include "transport/shm/shm_config.h"

shm_config_t shm_config;

static const rtm_cfg_row_t shm_config_rows[] = {
    /* the transport lowers it to what one queue record holds */
    RTM_CFG_ROW(SHM_EAGER_LIMIT, shm_config_t, eager_limit, SIZE, "4K", NULL, 0, RTM_CFG_MIB,
      "Shared memory: largest message sent eagerly (copied into the peer's queue); larger ones use rendezvous"),
    RTM_CFG_ROW(SHM_CMA_THRESHOLD, shm_config_t, cma_threshold, SIZE, "16M", NULL, 0, RTM_CFG_TIB,
      "Shared memory: smallest message read in a single copy with process_vm_readv (CMA); smaller rendezvous messages are pipelined through the shared segment (where CMA is as fast as a copy, e.g. bare metal, 256K does well)"),
    RTM_CFG_ROW(SHM_CMA, shm_config_t, cma, ENUM, "auto", "auto|off", 0, 0,
      "Shared memory: auto uses CMA single copy when the kernel permits it (checked at init); off always copies through the shared segment"),
    RTM_CFG_ROW(SHM_FIFO_SIZE, shm_config_t, fifo_size, SIZE, "256K", NULL, SHM_CONFIG_FIFO_MIN,
                SHM_CONFIG_FIFO_MAX,
      "Shared memory: bytes of each per-pair queue in the job's segment"),
};

rtm_cfg_table_t shm_config_table =
    RTM_CFG_TABLE_INIT("shm", "shared-memory transport, also used by self", shm_config_rows, shm_config);
