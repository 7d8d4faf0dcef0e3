/*
 * The one table of every RTM_* environment variable. Nothing else in the
 * tree reads the environment for tunables: add a row here, read the value
 * through rtm_config.<field>. rtm_info and docs/config.md are generated from
 * this table, so the documented defaults cannot drift from the real ones.
 *
 * X(NAME, field, TYPE, "default", "choices or NULL", "one-line doc")
 *   NAME    the variable is RTM_<NAME>
 *   TYPE    BOOL, INT, SIZE (bytes; K/M/G suffixes, binary), STRING, ENUM
 *           (ENUM: value must be one of the '|'-separated choices; the
 *           field holds its index)
 */
#ifndef RTM_COMMON_CONFIG_TABLE_H
#define RTM_COMMON_CONFIG_TABLE_H

/*
 * Shared-memory switch points, measured with transport/shm/bench_shm and a
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
#define RTM_CONFIG_TABLE(X) \
    X(LOG_LEVEL, log_level, ENUM, "warn", "error|warn|info|debug|trace", \
      "Lowest severity of the messages a rank or rtrun prints on stderr") \
    X(LAUNCH_AGENT, launch_agent, STRING, "", NULL, \
      "rtrun: command that starts rtd on a remote host, {host} replaced by the host name (e.g. 'ip netns exec {host}'); without {host} the host name is added after the command (as ssh takes it); empty: ssh; --launch-agent overrides it") \
    X(TRANSPORTS, transports, STRING, "self,shm,verbs,tcp", NULL, \
      "Transports to use, in order of preference; a peer is reached by the first one listed that can reach it") \
    X(PMIX_COLLECT, pmix_collect, BOOL, "1", NULL, \
      "1: the init fence collects every rank's transport addresses (one exchange, best for all-to-all jobs); 0: a plain fence, each peer's addresses fetched from the PMIx server on first use (direct modex, for large jobs where a rank talks to few peers)") \
    X(EAGER_CREDITS, eager_credits, INT, "64", NULL, \
      "Eager messages a rank may have in flight to one peer before further sends wait for the receiver (bounds unexpected-message memory)") \
    X(POLL_SPIN, poll_spin, INT, "2000", NULL, \
      "Empty progress polls a blocking call spins through before it starts yielding the core") \
    X(IDLE_WAIT, idle_wait, ENUM, "auto", "auto|spin|yield", \
      "Blocking waits with nothing to do: spin keeps polling (lowest latency; each rank needs a core of its own); yield calls sched_yield after RTM_POLL_SPIN empty polls (ranks sharing a core let each other run); auto yields only when this host runs more ranks of the job than the CPUs they may use") \
    X(MPI_COLL_SCRATCH, mpi_coll_scratch, SIZE, "32M", NULL, \
      "MPI collectives: bytes of scratch memory a rank keeps allocated between collectives, so repeated large collectives do not fault their buffers in again; 0 frees scratch after each collective") \
    X(MPI_BCAST_LARGE, mpi_bcast_large, SIZE, "512K", NULL, \
      "MPI_Bcast: from this many bytes (and 3 or more ranks) scatter + ring allgather; binomial tree below") \
    X(MPI_REDUCE_LARGE, mpi_reduce_large, SIZE, "256K", NULL, \
      "MPI_Reduce with a commutative op: from this many bytes reduce-scatter + gather (each rank reduces a share); binomial tree below") \
    X(MPI_ALLREDUCE_RING, mpi_allreduce_ring, SIZE, "64K", NULL, \
      "MPI_Allreduce with a commutative op: from this many bytes ring reduce-scatter + ring allgather; recursive doubling below") \
    X(MPI_ALLGATHER_RING, mpi_allgather_ring, SIZE, "4K", NULL, \
      "MPI_Allgather: from this many bytes in total ring; Bruck below") \
    X(MPI_ALLTOALL_PAIRWISE, mpi_alltoall_pairwise, SIZE, "64", NULL, \
      "MPI_Alltoall(v,w): from this many bytes per block (and 3 or more ranks) pairwise exchange; every transfer posted at once below") \
    X(NET_POLL_INTERVAL, net_poll_interval, INT, "16", NULL, \
      "Progress calls between two polls of a socket transport (tcp) while it finds nothing; 1 polls it every call. After it finds work it is polled every call for the next 64 polls") \
    X(SHM_EAGER_LIMIT, shm_eager_limit, SIZE, "4K", NULL, \
      "Shared memory: largest message sent eagerly (copied into the peer's queue); larger ones use rendezvous") \
    X(SHM_CMA_THRESHOLD, shm_cma_threshold, SIZE, "16M", NULL, \
      "Shared memory: smallest message read in a single copy with process_vm_readv (CMA); smaller rendezvous messages are pipelined through the shared segment (where CMA is as fast as a copy, e.g. bare metal, 256K does well)") \
    X(SHM_CMA, shm_cma, ENUM, "auto", "auto|off", \
      "Shared memory: auto uses CMA single copy when the kernel permits it (checked at init); off always copies through the shared segment") \
    X(RNDV_GET_BIDIR, rndv_get_bidir, SIZE, "0", NULL, \
      "Rendezvous: from this size a receive reads the sender's buffer with the transport's get (CMA on shared memory) even below the transport's own get threshold, while this rank is itself sending a rendezvous message to that peer; 0: off. A get needs only the receiver to run, the copy through shared buffers needs both ranks on a core at once: on a machine loaded by other work 128K helped traffic both ways 2-4x, on a quiet one the copy was 1.0-2.8x faster") \
    X(SHM_FIFO_SIZE, shm_fifo_size, SIZE, "256K", NULL, \
      "Shared memory: bytes of each per-pair queue in the job's segment") \
    X(TCP_IF, tcp_if, STRING, "", NULL, \
      "TCP: interfaces and subnets to use, comma-separated names or CIDR (e.g. eth0,10.0.0.0/8); empty: every interface that is up except loopback, or loopback alone when all ranks share one host") \
    X(TCP_EAGER_LIMIT, tcp_eager_limit, SIZE, "32K", NULL, \
      "TCP: largest message sent eagerly; larger ones use rendezvous (RTS, CTS, then a stream of 64 KiB fragments)") \
    X(VERBS_DEVICE, verbs_device, STRING, "", NULL, \
      "Verbs: RDMA device and port to use, name[:port] (e.g. mlx5_0:1, as ibv_devices lists them); empty: the HCA nearest this rank's cores (hwloc), its first ACTIVE port") \
    X(VERBS_GID_INDEX, verbs_gid_index, STRING, "auto", NULL, \
      "Verbs: GID table index to use (a number); auto chooses (RoCE: RoCE v2 with an IPv4-mapped address, then a global IPv6 one; InfiniBand: no GRH, LID routing)") \
    X(VERBS_CONN, verbs_conn, ENUM, "auto", "auto|fullmesh|ondemand", \
      "Verbs: connection mode; fullmesh creates one RC queue pair per peer at init (jobs of up to 111 ranks), ondemand connects to a peer at the first message through a handshake over one UD queue pair (any job size); auto: fullmesh up to RTM_VERBS_FULLMESH_MAX ranks, ondemand above") \
    X(VERBS_FULLMESH_MAX, verbs_fullmesh_max, INT, "64", NULL, \
      "Verbs: with RTM_VERBS_CONN=auto, the largest job that connects in a full mesh at init; above it every rank connects on demand (no queue pair nor buffers for peers it never talks to)") \
    X(VERBS_CONNECT_TIMEOUT, verbs_connect_timeout, INT, "60", NULL, \
      "Verbs, on demand: seconds a rank keeps retransmitting a connection request (50 ms, doubling to 1 s apart) to a peer that does not answer before it ends the job naming the peer; a peer answers only when it calls into the library") \
    X(VERBS_XRC, verbs_xrc, BOOL, "0", NULL, \
      "Verbs: 1 uses XRC: one XRC shared receive queue per rank, one send (INI) queue pair per remote host instead of one per remote rank, receive (TGT) queue pairs in an XRC domain shared by the host's ranks through /dev/shm/rtm-<job>-xrc-<node> (removed once every local rank opened it); connections through the on-demand handshake, all at init with RTM_VERBS_CONN=fullmesh (no rank limit); every rank must use the same value") \
    X(VERBS_SRQ_DEPTH, verbs_srq_depth, INT, "0", NULL, \
      "Verbs: receive buffers on this rank's shared receive queue; 0 sizes it so every peer's credits fit (normal traffic never needs RNR retries); a smaller value saves pinned memory but a burst from many peers exhausts it and leans on RNR retries (slower, never lost)") \
    X(VERBS_EAGER_LIMIT, verbs_eager_limit, SIZE, "8K", NULL, \
      "Verbs: largest message sent eagerly (Send into a pre-posted receive buffer of this size); larger ones use rendezvous by RDMA Read; every rank must use the same value") \
    X(VERBS_CREDITS, verbs_credits, INT, "32", NULL, \
      "Verbs: receive buffers reserved for each peer on this rank's shared receive queue; a peer sends at most this many messages before this rank hands buffers back") \
    X(VERBS_ERDMA_THRESHOLD, verbs_erdma_threshold, INT, "16", NULL, \
      "Verbs eager RDMA: after this many small messages from a peer, this rank gives that peer a ring it writes small messages into with RDMA Write (polled, no receive completion); 0 disables the fast path") \
    X(VERBS_ERDMA_PEERS, verbs_erdma_peers, INT, "16", NULL, \
      "Verbs eager RDMA: most peers a rank gives a ring to (each ring is polled in every progress call and takes slots x slot size of registered memory); the first peers over the threshold get them") \
    X(VERBS_ERDMA_SLOTS, verbs_erdma_slots, INT, "32", NULL, \
      "Verbs eager RDMA: slots per ring (messages a peer may write before this rank hands slots back; then it falls back to Send/Recv in order); a power of two, 2..1024") \
    X(VERBS_ERDMA_SLOT_SIZE, verbs_erdma_slot_size, SIZE, "256", NULL, \
      "Verbs eager RDMA: bytes per ring slot (20 of them header and footer, the rest runtime header and payload; larger messages use Send/Recv); 64..8K, a multiple of 64") \
    X(VERBS_RCACHE, verbs_rcache, BOOL, "1", NULL, \
      "Verbs: keep rendezvous buffers registered between messages (a cache invalidated by the kernel's userfaultfd unmap/remap/remove events, see docs/transports/verbs-rcache.md); 0 registers every rendezvous buffer per message") \
    X(VERBS_RCACHE_MAX_ENTRIES, verbs_rcache_max_entries, INT, "256", NULL, \
      "Verbs: registrations the rendezvous cache keeps; the least recently used unused one is released beyond this") \
    X(VERBS_RCACHE_MAX_BYTES, verbs_rcache_max_bytes, SIZE, "256M", NULL, \
      "Verbs: bytes of memory the rendezvous cache keeps registered (locked); the least recently used unused registrations are released beyond this") \
    X(LAUNCH_TIMEOUT, launch_timeout, INT, "60", NULL, \
      "rtrun: seconds an rtd may take to start and connect back before its host is reported unreachable and the job ends")

#endif
