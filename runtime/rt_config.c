/*
 * The runtime's config rows, and the list of every component's table
 * (rtm_lib_config_register). Data only: rtrun and the unit tests link this
 * file without the runtime.
 */
#include "config.h"

#include "runtime/rt_config.h"
#include "transport/shm/shm_config.h"
#include "transport/tcp/tcp_config.h"
#include "transport/verbs/vrb_config.h"
#include "mpi/mpi_config.h"
#include "launcher/launcher_config.h"

rt_config_t rt_config;

static const rtm_cfg_row_t rt_config_rows[] = {
    RTM_CFG_ROW(TRANSPORTS, rt_config_t, transports, STRING, "self,shm,verbs,tcp", NULL, 0, 0,
      "Transports to use, in order of preference; a peer is reached by the first one listed that can reach it"),
    RTM_CFG_ROW(PMIX_COLLECT, rt_config_t, pmix_collect, BOOL, "1", NULL, 0, 0,
      "1: the init fence collects every rank's transport addresses (one exchange, best for all-to-all jobs); 0: a plain fence, each peer's addresses fetched from the PMIx server on first use (direct modex, for large jobs where a rank talks to few peers)"),
    /* the wire hands credits back in 16 bits (runtime/proto.h) */
    RTM_CFG_ROW(EAGER_CREDITS, rt_config_t, eager_credits, INT, "64", NULL, 1, 65535,
      "Eager messages a rank may have in flight to one peer before further sends wait for the receiver (bounds unexpected-message memory)"),
    RTM_CFG_ROW(DETACHED_SENDS, rt_config_t, detached_sends, INT, "1024", NULL, 0, 1048576,
      "Standard sends up to the eager limit a rank may complete to one peer while out of eager credits: each is copied into the sender's memory and its envelope (an RTS, 224 B at the receiver, with the bytes inside up to 256 B) goes at once, so the receiver's matching and probes see it; past this, such a send waits for its receive, as MPI allows. 0: none"),
    RTM_CFG_ROW(POLL_SPIN, rt_config_t, poll_spin, INT, "0", NULL, 0, 1000000000,
      "Yielding waits (RTM_IDLE_WAIT): empty progress polls spun through before the first sched_yield; 0 yields at the first empty poll, as a peer sharing the core needs it at once"),
    RTM_CFG_ROW(IDLE_WAIT, rt_config_t, idle_wait, ENUM, "auto", "auto|spin|yield", 0, 0,
      "Blocking waits with nothing to do: spin keeps polling (lowest latency; each rank needs a core of its own); yield calls sched_yield at each empty poll past RTM_POLL_SPIN (ranks sharing a core let each other run); auto yields only when this host runs more ranks of the job than the CPUs they may use. Either way a wait idle for 50 ms yields, and one idle for 0.5 s sleeps 1/256 of its age (at most 1 ms) per poll"),
    RTM_CFG_ROW(NET_POLL_INTERVAL, rt_config_t, net_poll_interval, INT, "16", NULL, 1, 1000000,
      "Progress calls between two polls of a socket transport (tcp) while it finds nothing; 1 polls it every call. After it finds work it is polled every call for the next 64 polls"),
    RTM_CFG_ROW(RNDV_GET_BIDIR, rt_config_t, rndv_get_bidir, SIZE, "0", NULL, 0, RTM_CFG_TIB,
      "Rendezvous: from this size a receive reads the sender's buffer with the transport's get (CMA on shared memory) even below the transport's own get threshold, while this rank is itself sending a rendezvous message to that peer; 0: off. A get needs only the receiver to run, the copy through shared buffers needs both ranks on a core at once: on a machine loaded by other work 128K helped traffic both ways 2-4x, on a quiet one the copy was 1.0-2.8x faster"),
};

rtm_cfg_table_t rt_config_table =
    RTM_CFG_TABLE_INIT("runtime", "matching, protocols and progress", rt_config_rows, rt_config);

rtm_status_t rtm_lib_config_register(void)
{
    rtm_cfg_table_t *const all[] = {
        &rt_config_table, &shm_config_table, &tcp_config_table, &vrb_config_table,
        &mpi_config_table, &launcher_config_table,
    };
    rtm_status_t first = RTM_OK;

    for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++) {
        rtm_status_t status = rtm_config_register(all[i]);

        if (first == RTM_OK)
            first = status;
    }
    return first;
}
