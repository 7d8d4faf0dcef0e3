/*
 * The shared-memory transport's config rows. Data only (rtrun and the unit
 * tests link it without the transport).
 *
 * Switch points, measured on the reference machine (2-vCPU VM, AMD EPYC,
 * shared with other work). Transport alone (bench_shm, best of 7): one
 * process_vm_readv moves 16K/64K/256K/1M/4M/16M/64M at 2.2/6.3/10/6.8/
 * 4.9/3.5/4.3 GB/s; two processes one message at a time, the ring copy (32K
 * fragments) against CMA: 32K 23 vs 0.8, 256K 40 vs 1.8, 512K 47 vs 3.3 GB/s
 * while both ranks have a core. Whole stack (osu_p2p bw/bibw, window 64,
 * docs/benchmarks.md "Under load"): with two busy processes on the two
 * CPUs, CMA from 32K moved 32K-4M 1.3-5.6x (bw) and 3.8-12.7x (bibw) what the
 * ring copy did; at load 5-7 from other work, CMA was ahead from 128K (bw) and
 * 64K (bibw); on a quiet host the ring copy led up to 256K and trailed the
 * peers' CMA at 512K-1M. Hence 512K quiet, 32K busy. Eager stays at 4K: the
 * receiver may buffer credits x limit per peer.
 */
#include "config.h"

#include "transport/shm/shm_config.h"

shm_config_t shm_config;

static const rtm_cfg_row_t shm_config_rows[] = {
    /* the transport lowers it to what one queue record holds */
    RTM_CFG_ROW(SHM_EAGER_LIMIT, shm_config_t, eager_limit, SIZE, "4K", NULL, 0, RTM_CFG_MIB,
      "Shared memory: largest message sent eagerly (copied into the peer's queue); larger ones use rendezvous"),
    RTM_CFG_ROW(SHM_CMA_THRESHOLD, shm_config_t, cma_threshold, SIZE, "512K", NULL, 0, RTM_CFG_TIB,
      "Shared memory, quiet host: smallest message read in a single copy with process_vm_readv (CMA); smaller rendezvous messages are pipelined through the shared segment, which is faster while both ranks have a core"),
    RTM_CFG_ROW(SHM_CMA_THRESHOLD_BUSY, shm_config_t, cma_threshold_busy, SIZE, "32K", NULL, 0, RTM_CFG_TIB,
      "Shared memory, busy host (more runnable tasks than CPUs, RTM_SHM_LOAD): smallest message read by CMA; a copy through the segment needs both ranks on a core at once, a CMA read only the receiver"),
    RTM_CFG_ROW(SHM_LOAD, shm_config_t, load, ENUM, "auto", "auto|quiet|busy", 0, 0,
      "Shared memory: which CMA threshold applies; auto samples the host's runnable tasks (/proc/loadavg, at most every 10 ms, smoothed) against its CPUs; quiet and busy force one"),
    RTM_CFG_ROW(SHM_CMA, shm_config_t, cma, ENUM, "auto", "auto|off", 0, 0,
      "Shared memory: auto uses CMA single copy when the kernel permits it (checked at init); off always copies through the shared segment"),
    RTM_CFG_ROW(SHM_FIFO_SIZE, shm_config_t, fifo_size, SIZE, "256K", NULL, SHM_CONFIG_FIFO_MIN,
                SHM_CONFIG_FIFO_MAX,
      "Shared memory: bytes of each per-pair queue in the job's segment (at most: see RTM_SHM_RX_BUDGET and RTM_SHM_SEG_MAX)"),
    RTM_CFG_ROW(SHM_RX_BUDGET, shm_config_t, rx_budget, SIZE, "1792K", NULL, 16 * RTM_CFG_KIB, RTM_CFG_TIB,
      "Shared memory: bytes the queues into one rank share, so that the job's segment grows linearly with local ranks (at most ranks x budget); each of a rank's n-1 incoming queues gets the largest power of two within budget/(n-1), at most RTM_SHM_FIFO_SIZE and at least 4K: 256K up to 8 local ranks, 16K at 64 (63 MiB), 8K at 128 (127 MiB) and up to 225, 4K from 226 to 449; past 449 the 4K floor makes n(n-1) x 4K"),
    RTM_CFG_ROW(SHM_SEG_MAX, shm_config_t, seg_max, SIZE, "1G", NULL, RTM_CFG_MIB, RTM_CFG_TIB,
      "Shared memory: the most the job's segment on one host takes of /dev/shm, over RTM_SHM_RX_BUDGET; the per-pair queues shrink further (to 4K at the least, which makes n(n-1) x 4K) until every pair's fits"),
};

rtm_cfg_table_t shm_config_table =
    RTM_CFG_TABLE_INIT("shm", "shared-memory transport, also used by self", shm_config_rows, shm_config);
