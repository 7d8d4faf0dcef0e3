/*
 * The TCP transport's config rows (tcp_config.c). Read tcp_config.<field>
 * directly.
 */
#ifndef RTM_TRANSPORT_TCP_CONFIG_H
#define RTM_TRANSPORT_TCP_CONFIG_H

#include "common/rtconfig.h"

typedef struct tcp_config {
    const char *interfaces;   /* RTM_TCP_IF */
    size_t      eager_limit;  /* RTM_TCP_EAGER_LIMIT */
} tcp_config_t;

extern tcp_config_t    tcp_config;
extern rtm_cfg_table_t tcp_config_table;

#endif
