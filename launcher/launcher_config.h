/*
 * rtrun's and rtd's config rows (launcher_config.c). Read
 * launcher_config.<field> directly.
 */
#ifndef RTM_LAUNCHER_CONFIG_H
#define RTM_LAUNCHER_CONFIG_H

#include "common/rtconfig.h"

typedef struct launcher_config {
    const char *launch_agent;    /* RTM_LAUNCH_AGENT */
    long        launch_timeout;  /* RTM_LAUNCH_TIMEOUT */
    long        kill_grace;      /* RTM_KILL_GRACE */
} launcher_config_t;

extern launcher_config_t launcher_config;
extern rtm_cfg_table_t   launcher_config_table;

#endif
