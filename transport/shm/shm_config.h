/*
 * The shared-memory transport's config rows (shm_config.c), read by shm and
 * by self (which shares shm's queues). Read shm_config.<field> directly.
 */
#ifndef RTM_TRANSPORT_SHM_CONFIG_H
#define RTM_TRANSPORT_SHM_CONFIG_H

#include "common/rtconfig.h"

/* RTM_SHM_FIFO_SIZE's range (shm_iface.c asserts its ring limits match) */
#define SHM_CONFIG_FIFO_MIN (8 * RTM_CFG_KIB)
#define SHM_CONFIG_FIFO_MAX RTM_CFG_GIB
/* RTM_SHM_CMA_BATCH's most (the iface's gathered reads, shm.h) */
#define SHM_CONFIG_CMA_BATCH_MAX 64

typedef struct shm_config {
    size_t eager_limit;    /* RTM_SHM_EAGER_LIMIT */
    size_t cma_threshold;  /* RTM_SHM_CMA_THRESHOLD */
    size_t cma_threshold_busy; /* RTM_SHM_CMA_THRESHOLD_BUSY */
    int    load;           /* RTM_SHM_LOAD: 0 auto, 1 quiet, 2 busy */
    int    cma;            /* RTM_SHM_CMA: 0 auto, 1 off */
    long   cma_batch;      /* RTM_SHM_CMA_BATCH */
    size_t cma_split;      /* RTM_SHM_CMA_SPLIT */
    size_t fifo_size;      /* RTM_SHM_FIFO_SIZE */
    size_t rx_budget;      /* RTM_SHM_RX_BUDGET */
    size_t seg_max;        /* RTM_SHM_SEG_MAX */
    int    queue;          /* RTM_SHM_QUEUE: SHM_QUEUE_AUTO, _PAIR, _SHARED */
} shm_config_t;

enum { SHM_QUEUE_AUTO = 0, SHM_QUEUE_PAIR = 1, SHM_QUEUE_SHARED = 2 };

extern shm_config_t    shm_config;
extern rtm_cfg_table_t shm_config_table;

#endif
