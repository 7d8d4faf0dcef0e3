/*
 * The verbs transport's config rows (vrb_config.c). Read
 * rtm_verbs_config.<field> directly. The table is data only and needs no
 * libibverbs: it is part of librtmsg, registered with the other tables at
 * init, so a build or a host without the verbs module still documents and
 * recognises these rows. The module (librtmsg-verbs.so) reads librtmsg's one
 * copy of the values, which is why its name carries the rtm_ prefix that
 * librtmsg exports (transport/verbs/local.mk).
 */
#ifndef RTM_TRANSPORT_VRB_CONFIG_H
#define RTM_TRANSPORT_VRB_CONFIG_H

#include "common/rtconfig.h"

typedef struct vrb_config {
    const char *device;            /* RTM_VERBS_DEVICE */
    const char *gid_index;         /* RTM_VERBS_GID_INDEX */
    int         conn;              /* RTM_VERBS_CONN: 0 auto, 1 fullmesh, 2 ondemand */
    long        fullmesh_max;      /* RTM_VERBS_FULLMESH_MAX */
    long        connect_timeout;   /* RTM_VERBS_CONNECT_TIMEOUT */
    int         xrc;               /* RTM_VERBS_XRC */
    long        srq_depth;         /* RTM_VERBS_SRQ_DEPTH */
    size_t      eager_limit;       /* RTM_VERBS_EAGER_LIMIT */
    long        credits;           /* RTM_VERBS_CREDITS */
    long        erdma_threshold;   /* RTM_VERBS_ERDMA_THRESHOLD */
    long        erdma_peers;       /* RTM_VERBS_ERDMA_PEERS */
    long        erdma_slots;       /* RTM_VERBS_ERDMA_SLOTS */
    size_t      erdma_slot_size;   /* RTM_VERBS_ERDMA_SLOT_SIZE */
    int         mw;                /* RTM_VERBS_MW */
    int         mr_write;          /* RTM_VERBS_MR_WRITE */
    int         rcache;            /* RTM_VERBS_RCACHE */
    long        rcache_max_entries; /* RTM_VERBS_RCACHE_MAX_ENTRIES */
    size_t      rcache_max_bytes;  /* RTM_VERBS_RCACHE_MAX_BYTES */
} vrb_config_t;

extern vrb_config_t    rtm_verbs_config;
extern rtm_cfg_table_t vrb_config_table;

#endif
