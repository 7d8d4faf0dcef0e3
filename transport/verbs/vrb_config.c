/*
 * The verbs transport's config rows. Data only (no libibverbs): rtrun, the
 * unit tests and builds without verbs link it without the transport. Where
 * a row's doc names a rule beyond its range (a power of two, a multiple of
 * 64, the device's SRQ limit), vrb_iface.c / vrb_erdma.c check that rule.
 */
#include "config.h"

#include "transport/verbs/vrb_config.h"

vrb_config_t rtm_verbs_config;

static const rtm_cfg_row_t vrb_config_rows[] = {
    RTM_CFG_ROW(VERBS_DEVICE, vrb_config_t, device, STRING, "", NULL, 0, 0,
      "Verbs: RDMA device and port to use, name[:port] (e.g. mlx5_0:1, as ibv_devices lists them); empty: the HCA nearest this rank's cores (hwloc), its first ACTIVE port"),
    RTM_CFG_ROW(VERBS_GID_INDEX, vrb_config_t, gid_index, STRING, "auto", NULL, 0, 0,
      "Verbs: GID table index to use (a number); auto chooses (RoCE: RoCE v2 with an IPv4-mapped address, then a global IPv6 one; InfiniBand: no GRH, LID routing)"),
    RTM_CFG_ROW(VERBS_CONN, vrb_config_t, conn, ENUM, "auto", "auto|fullmesh|ondemand", 0, 0,
      "Verbs: connection mode; fullmesh creates one RC queue pair per peer at init (jobs of up to 111 ranks), ondemand connects to a peer at the first message through a handshake over one UD queue pair (any job size); auto: fullmesh up to RTM_VERBS_FULLMESH_MAX ranks, ondemand above"),
    RTM_CFG_ROW(VERBS_FULLMESH_MAX, vrb_config_t, fullmesh_max, INT, "64", NULL, 0, 1000000,
      "Verbs: with RTM_VERBS_CONN=auto, the largest job that connects in a full mesh at init; above it every rank connects on demand (no queue pair nor buffers for peers it never talks to)"),
    RTM_CFG_ROW(VERBS_CONNECT_TIMEOUT, vrb_config_t, connect_timeout, INT, "60", NULL, 1, 86400,
      "Verbs, on demand: seconds a rank keeps retransmitting a connection request (50 ms, doubling to 1 s apart) to a peer that does not answer before it ends the job naming the peer; a peer answers only when it calls into the library"),
    RTM_CFG_ROW(VERBS_XRC, vrb_config_t, xrc, BOOL, "0", NULL, 0, 0,
      "Verbs: 1 uses XRC: one XRC shared receive queue per rank, one send (INI) queue pair per remote host instead of one per remote rank, receive (TGT) queue pairs in an XRC domain shared by the host's ranks through /dev/shm/rtm-<job>-xrc-<node> (removed once every local rank opened it); connections through the on-demand handshake, all at init with RTM_VERBS_CONN=fullmesh (no rank limit); every rank must use the same value"),
    /* 1 is refused at open, as is more than the device's max_srq_wr */
    RTM_CFG_ROW(VERBS_SRQ_DEPTH, vrb_config_t, srq_depth, INT, "0", NULL, 0, 1 << 24,
      "Verbs: receive buffers on this rank's shared receive queue; 0 sizes it so every peer's credits fit (normal traffic never needs RNR retries); a smaller value saves pinned memory but a burst from many peers exhausts it and leans on RNR retries (slower, never lost)"),
    RTM_CFG_ROW(VERBS_EAGER_LIMIT, vrb_config_t, eager_limit, SIZE, "8K", NULL, 0, RTM_CFG_MIB,
      "Verbs: largest message sent eagerly (Send into a pre-posted receive buffer of this size); larger ones use rendezvous by RDMA Read; every rank must use the same value"),
    RTM_CFG_ROW(VERBS_CREDITS, vrb_config_t, credits, INT, "32", NULL, 2, 4096,
      "Verbs: receive buffers reserved for each peer on this rank's shared receive queue; a peer sends at most this many messages before this rank hands buffers back"),
    RTM_CFG_ROW(VERBS_ERDMA_THRESHOLD, vrb_config_t, erdma_threshold, INT, "16", NULL, 0,
                1000000000,
      "Verbs eager RDMA: after this many small messages from a peer, this rank gives that peer a ring it writes small messages into with RDMA Write (polled, no receive completion); 0 disables the fast path"),
    RTM_CFG_ROW(VERBS_ERDMA_PEERS, vrb_config_t, erdma_peers, INT, "16", NULL, 0, 1000000,
      "Verbs eager RDMA: most peers a rank gives a ring to (each ring is polled in every progress call and takes slots x slot size of registered memory, 256 KiB by default); the first peers over the threshold get them"),
    /* and a power of two (vrb_erdma.c) */
    RTM_CFG_ROW(VERBS_ERDMA_SLOTS, vrb_config_t, erdma_slots, INT, "32", NULL, 2, 1024,
      "Verbs eager RDMA: ring length in units of the slot size; a message takes only the 64-byte cells it needs, so the ring holds this many of the largest messages and more smaller ones (when a peer finds it full it falls back to Send/Recv, in order, until this rank hands cells back); a power of two, 2..1024"),
    /* and a multiple of 64 (vrb_erdma.c) */
    RTM_CFG_ROW(VERBS_ERDMA_SLOT_SIZE, vrb_config_t, erdma_slot_size, SIZE, "8K", NULL, 64,
                8 * RTM_CFG_KIB,
      "Verbs eager RDMA: the largest write into a ring (20 bytes of header and footer, the rest runtime header and payload; larger messages use Send/Recv); 64..8K, a multiple of 64"),
    RTM_CFG_ROW(VERBS_MW, vrb_config_t, mw, BOOL, "1", NULL, 0, 0,
      "Verbs one-sided: 1 exposes a region through one type 2 memory window per peer queue pair (a key works for that peer only) where the device binds them (IBV_DEVICE_MEM_WINDOW_TYPE_2B, not with XRC); 0, or a device without them: one memory region per exposed region, whose key any peer of this rank's protection domain could use"),
    RTM_CFG_ROW(VERBS_MR_WRITE, vrb_config_t, mr_write, BOOL, "0", NULL, 0, 0,
      "Verbs one-sided, without type 2 memory windows (a device without them, RTM_VERBS_MW=0, XRC aside): 0 exposes regions for reading only (puts and atomics to this rank are not available: the MPI layer uses messages), since one memory region's key would let a rank outside the window's group write it if that rank learned or guessed the key and its queue pair admits writes (an eager RDMA peer, a peer of another such region); 1 also exposes for writes and atomics through that one region"),
    RTM_CFG_ROW(VERBS_RCACHE, vrb_config_t, rcache, BOOL, "1", NULL, 0, 0,
      "Verbs: keep rendezvous buffers registered between messages (a cache invalidated by the kernel's userfaultfd unmap/remap/remove events, see docs/transports/verbs-rcache.md); 0 registers every rendezvous buffer per message"),
    RTM_CFG_ROW(VERBS_RCACHE_MAX_ENTRIES, vrb_config_t, rcache_max_entries, INT, "256", NULL, 0,
                1 << 20,
      "Verbs: registrations the rendezvous cache keeps; the least recently used unused one is released beyond this"),
    RTM_CFG_ROW(VERBS_RCACHE_MAX_BYTES, vrb_config_t, rcache_max_bytes, SIZE, "256M", NULL, 0,
                RTM_CFG_TIB,
      "Verbs: bytes of memory the rendezvous cache keeps registered (locked); the least recently used unused registrations are released beyond this"),
};

rtm_cfg_table_t vrb_config_table =
    RTM_CFG_TABLE_INIT("verbs", "RDMA verbs transport (RC, XRC, on demand)", vrb_config_rows,
                       rtm_verbs_config);
