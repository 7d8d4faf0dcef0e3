/*
 * A verbs module of another contract, for tests/verbs/vrb_module.sh: its
 * ops table claims a transport ABI this librtmsg does not have, so the
 * runtime must refuse it (naming both versions) before reading anything
 * else in it. It has no functions: none may ever be called.
 */
#include "config.h"

#include "transport/transport.h"

const rtm_tl_ops_t rtm_tl_verbs = {
    .abi_version = RTM_TL_ABI_VERSION + 998,
    .ops_size    = sizeof(rtm_tl_ops_t),
    .name        = "verbs",
};
