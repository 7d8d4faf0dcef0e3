/*
 * The runtime's config rows (runtime/rt_config.c): transport choice, the
 * address exchange, flow control, progress and rendezvous. Hot paths read
 * rt_config.<field> directly.
 */
#ifndef RTM_RUNTIME_RT_CONFIG_H
#define RTM_RUNTIME_RT_CONFIG_H

#include "common/rtconfig.h"

typedef struct rt_config {
    const char *transports;        /* RTM_TRANSPORTS */
    int         pmix_collect;      /* RTM_PMIX_COLLECT */
    long        eager_credits;     /* RTM_EAGER_CREDITS */
    long        detached_sends;    /* RTM_DETACHED_SENDS */
    long        poll_spin;         /* RTM_POLL_SPIN */
    int         idle_wait;         /* RTM_IDLE_WAIT: 0 auto, 1 spin, 2 yield */
    long        net_poll_interval; /* RTM_NET_POLL_INTERVAL */
    size_t      rndv_get_bidir;    /* RTM_RNDV_GET_BIDIR */
} rt_config_t;

extern rt_config_t     rt_config;
extern rtm_cfg_table_t rt_config_table;

/* Register every config table librtmsg and its tools carry, in the order
 * rtm_info and docs/config.md list them: common's, the runtime's, each
 * transport's, MPI's and the launcher's (rtrun's environment reaches the
 * ranks, so they must know its rows from misspelt ones). Every table is
 * registered even when one has a bad value; the first error is returned.
 * rtm_init, rtm_info, rtrun and rtd call it. */
rtm_status_t rtm_lib_config_register(void);

#endif
