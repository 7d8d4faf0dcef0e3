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

#define RTM_CONFIG_TABLE(X) \
    X(LOG_LEVEL, log_level, ENUM, "warn", "error|warn|info|debug|trace", \
      "Lowest severity of the messages a rank or rtrun prints on stderr") \
    X(TRANSPORTS, transports, STRING, "self,shm,verbs,tcp", NULL, \
      "Transports to use, in order of preference; a peer is reached by the first one listed that can reach it") \
    X(EAGER_CREDITS, eager_credits, INT, "64", NULL, \
      "Eager messages a rank may have in flight to one peer before further sends wait for the receiver (bounds unexpected-message memory)") \
    X(POLL_SPIN, poll_spin, INT, "2000", NULL, \
      "Empty progress polls a blocking call spins through before it starts yielding the core") \
    X(SHM_EAGER_LIMIT, shm_eager_limit, SIZE, "4K", NULL, \
      "Shared memory: largest message sent eagerly (copied into the peer's queue); larger ones use rendezvous") \
    X(SHM_CMA_THRESHOLD, shm_cma_threshold, SIZE, "256K", NULL, \
      "Shared memory: smallest message read in a single copy with process_vm_readv (CMA); smaller rendezvous messages are pipelined through the shared segment") \
    X(SHM_CMA, shm_cma, ENUM, "auto", "auto|off", \
      "Shared memory: auto uses CMA single copy when the kernel permits it (checked at init); off always copies through the shared segment") \
    X(SHM_FIFO_SIZE, shm_fifo_size, SIZE, "256K", NULL, \
      "Shared memory: bytes of each per-pair queue in the job's segment")

#endif
