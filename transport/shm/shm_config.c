/*
 * The shared-memory transport's config rows. Data only (rtrun and the unit
 * tests link it without the transport).
 *
 * Switch points. Quiet host (2-vCPU VM, Intel Xeon, 2026-12-05; load under
 * 1, nothing else running), osu_p2p through the MPI
 * binding, 2 ranks, 4 interleaved runs (docs/benchmarks.md "Switch points,
 * quiet"): CMA from 8K against the ring copy, latency 8K 1.3 vs 2.2 us, 32K
 * 2.6 vs 6.0, 256K 12.3 vs 22-24; bandwidth (window 64) 8K 10.0 vs 10.4 GB/s,
 * 32K 15.8 vs 10.0, 64K 18.8 vs 10.2, 256K 22.2 vs 10.3. The ring copy is
 * bimodal from run to run (64K at 18.8 GB/s in some runs, 10 in most); at its
 * best it ties CMA, which never trailed it. Under load (an AMD EPYC VM, two
 * busy processes on the two CPUs) CMA from 32K had moved 1.3-5.6x (bw) and 3.8-12.7x (bibw)
 * what the ring copy did: a CMA read needs only the receiver on a core. Hence
 * CMA for every rendezvous message (4K, the eager limit), quiet or busy; the
 * ring copy serves where CMA is refused (ptrace rules, RTM_SHM_CMA=off) or a
 * threshold is raised. Eager stays at 4K: the receiver may buffer credits x
 * limit per peer.
 */
#include "config.h"

#include "transport/shm/shm_config.h"

shm_config_t shm_config;

static const rtm_cfg_row_t shm_config_rows[] = {
    /* the transport lowers it to what one queue record holds */
    RTM_CFG_ROW(SHM_EAGER_LIMIT, shm_config_t, eager_limit, SIZE, "4K", NULL, 0, RTM_CFG_MIB,
      "Shared memory: largest message sent eagerly (copied into the peer's queue); larger ones use rendezvous"),
    RTM_CFG_ROW(SHM_CMA_THRESHOLD, shm_config_t, cma_threshold, SIZE, "4K", NULL, 0, RTM_CFG_TIB,
      "Shared memory, quiet host: smallest message read in a single copy with process_vm_readv (CMA); smaller rendezvous messages are pipelined through the shared segment. 4K: every rendezvous message (above RTM_SHM_EAGER_LIMIT), as one CMA read was as fast as the ring copy or faster at every size on a quiet host"),
    RTM_CFG_ROW(SHM_CMA_THRESHOLD_BUSY, shm_config_t, cma_threshold_busy, SIZE, "4K", NULL, 0, RTM_CFG_TIB,
      "Shared memory, busy host (more runnable tasks than CPUs, RTM_SHM_LOAD): smallest message read by CMA; a copy through the segment needs both ranks on a core at once, a CMA read only the receiver"),
    RTM_CFG_ROW(SHM_LOAD, shm_config_t, load, ENUM, "auto", "auto|quiet|busy", 0, 0,
      "Shared memory: which CMA threshold applies; auto samples the host's runnable tasks (/proc/loadavg, at most every 10 ms, smoothed) against its CPUs, only for a size between the two thresholds (never while they are equal, as by default); quiet and busy force one"),
    RTM_CFG_ROW(SHM_CMA, shm_config_t, cma, ENUM, "auto", "auto|off", 0, 0,
      "Shared memory: auto uses CMA single copy when the kernel permits it (checked at init); off always copies through the shared segment"),
    RTM_CFG_ROW(SHM_CMA_BATCH, shm_config_t, cma_batch, INT, "64", NULL, 1, SHM_CONFIG_CMA_BATCH_MAX,
      "Shared memory: most rendezvous reads from one sender gathered into one process_vm_readv (those one progress pass meets; the system call, not the copy, is most of a read of 4-16 KiB); 1 makes each read alone"),
    RTM_CFG_ROW(SHM_CMA_SPLIT, shm_config_t, cma_split, SIZE, "64K", NULL, 0, RTM_CFG_TIB,
      "Shared memory: smallest CMA read the receiver shares with the sender, which writes chunks from the back of the message while the receiver reads from the front (each claims half of what is left; a sender busy elsewhere leaves them all to the receiver); 0 never: the receiver reads alone"),
    RTM_CFG_ROW(SHM_FIFO_SIZE, shm_config_t, fifo_size, SIZE, "256K", NULL, SHM_CONFIG_FIFO_MIN,
                SHM_CONFIG_FIFO_MAX,
      "Shared memory: bytes of each queue in the job's segment, per pair or shared (at most: see RTM_SHM_RX_BUDGET, RTM_SHM_SEG_MAX and RTM_SHM_QUEUE)"),
    RTM_CFG_ROW(SHM_RX_BUDGET, shm_config_t, rx_budget, SIZE, "1792K", NULL, 16 * RTM_CFG_KIB, RTM_CFG_TIB,
      "Shared memory: bytes the queues into one rank share, so that the job's segment grows linearly with local ranks (at most ranks x budget); each of a rank's n-1 incoming queues gets the largest power of two within budget/(n-1), at most RTM_SHM_FIFO_SIZE and at least 4K: 256K up to 8 local ranks, 16K at 64 (63 MiB), 8K at 128 (127 MiB) and up to 225, 4K from 226 to 449; past 449 (RTM_SHM_QUEUE=auto) one shared queue per rank of the largest power of two within the budget and RTM_SHM_FIFO_SIZE (256K: about n x 256 KiB)"),
    RTM_CFG_ROW(SHM_SEG_MAX, shm_config_t, seg_max, SIZE, "1G", NULL, RTM_CFG_MIB, RTM_CFG_TIB,
      "Shared memory: the most the job's segment on one host takes of /dev/shm, over RTM_SHM_RX_BUDGET; the per-pair queues (or the shared ones) shrink further until they fit, the per-pair ones down to 4K (below that auto switches to shared queues)"),
    RTM_CFG_ROW(SHM_QUEUE, shm_config_t, queue, ENUM, "auto", "auto|pair|shared", 0, 0,
      "Shared memory: pair gives every ordered pair of local ranks its own single-producer queue (the fastest; n(n-1) queues); shared gives every rank one queue all its local peers reserve space in (a compare-and-swap per message; n queues, each the largest power of two within RTM_SHM_RX_BUDGET, RTM_SHM_FIFO_SIZE, RTM_SHM_SEG_MAX and 2M: 256K by default, so the segment is about n x 256 KiB at any n); auto takes pair while the per-pair queues stay at 4K or more (up to 449 local ranks at the default budget) and shared past that"),
};

rtm_cfg_table_t shm_config_table =
    RTM_CFG_TABLE_INIT("shm", "shared-memory transport, also used by self", shm_config_rows, shm_config);
