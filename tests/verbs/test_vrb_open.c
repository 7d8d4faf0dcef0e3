/*
 * The verbs transport's open, against the contract (transport/transport.h),
 * on softib linked in:
 *   - without peer_failed, open refuses (no transport may end the job
 *     itself, so it must have somewhere to report a lost peer);
 *   - an open that fails after the interface was allocated (here: an
 *     RTM_VERBS_SRQ_DEPTH the device cannot take, checked once the device
 *     is open) leaves *iface_p as it was: output parameters are written on
 *     success only (it used to be set early and left dangling when the
 *     error path freed the interface);
 *   - a good open writes it, and the interface's base names its ops table.
 */
#include "config.h"

#include "transport/transport.h"
#include "transport/verbs/vrb_config.h"
#include "tests/harness.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void am_cb(void *arg, int src, unsigned am_id, const void *data, size_t len)
{
    (void)arg;
    (void)data;
    CHECK(0, "message from %d (am %u, %zu B) on an interface nobody talks to", src, am_id,
          len);
}

static void peer_failed(void *arg, int peer, rtm_status_t status, const char *msg)
{
    (void)arg;
    CHECK(0, "peer_failed(%d, %d): %s", peer, (int)status, msg);
}

static rtm_status_t addr_lookup(int peer, const char *name, void **blob_p, size_t *len_p)
{
    (void)peer;
    (void)name;
    (void)blob_p;
    (void)len_p;
    return RTM_ERR_UNREACHABLE;
}

static rtm_status_t open_with(const char *srq_depth, rtm_tl_params_t *params,
                              rtm_tl_iface_t **iface_p)
{
    setenv("RTM_VERBS_SRQ_DEPTH", srq_depth, 1);
    CHECK(rtm_config_register(&vrb_config_table) == RTM_OK, "%s", rtm_last_error());
    return rtm_tl_verbs.open(params, iface_p);
}

int main(void)
{
    static int peers[1] = {0};
    static char token;
    rtm_tl_iface_t *const untouched = (rtm_tl_iface_t *)(void *)&token;
    rtm_tl_params_t params;
    rtm_tl_iface_t *iface;
    char dir[] = "/tmp/rtm-vrbopen.XXXXXX";
    rtm_status_t status;

    th_name = "test_vrb_open";
    CHECK(mkdtemp(dir) != NULL, "mkdtemp");
    setenv("SOFTIB_DIR", dir, 1);
    memset(&params, 0, sizeof(params));
    params.world_rank = 0;
    params.world_size = 2;
    params.local_rank = 0;
    params.local_size = 1;
    params.local_peers = peers;
    params.nspace = "test.vrbopen";
    params.hostname = "testhost";
    params.am_cb = am_cb;
    params.addr_lookup = addr_lookup;
    CHECK(rtm_tl_verbs.abi_version == RTM_TL_ABI_VERSION &&
          rtm_tl_verbs.ops_size == sizeof(rtm_tl_ops_t), "ops table of ABI %u, %u B",
          (unsigned)rtm_tl_verbs.abi_version, (unsigned)rtm_tl_verbs.ops_size);

    /* no peer_failed */
    iface = untouched;
    status = open_with("0", &params, &iface);
    CHECK(status == RTM_ERR_INVALID_ARG, "open without peer_failed: %d", (int)status);
    CHECK(iface == untouched, "a refused open wrote *iface_p");
    params.peer_failed = peer_failed;

    /* fails late: the device is open when the SRQ depth is checked */
    iface = untouched;
    status = open_with("1", &params, &iface);
    CHECK(status == RTM_ERR_INVALID_ARG, "open with RTM_VERBS_SRQ_DEPTH=1: %d (%s)",
          (int)status, rtm_last_error());
    CHECK(strstr(rtm_last_error(), "RTM_VERBS_SRQ_DEPTH") != NULL, "error: %s",
          rtm_last_error());
    CHECK(iface == untouched, "a failed open wrote *iface_p (%p): the caller holds a "
          "pointer the error path freed", (void *)iface);

    /* succeeds */
    iface = untouched;
    status = open_with("0", &params, &iface);
    CHECK(status == RTM_OK, "open: %s", rtm_last_error());
    CHECK(iface != untouched && iface != NULL, "open succeeded without writing *iface_p");
    CHECK(iface->ops == &rtm_tl_verbs, "the interface's base does not name its ops table");
    rtm_tl_verbs.close(iface);
    rmdir(dir);
    printf("verbs open: peer_failed required, *iface_p written on success only\n");
    return 0;
}
