/*
 * The self transport driven directly through rtm_tl_self: every size from
 * 0 to am_max in order and byte for byte, no delivery from inside am_send,
 * RTM_ERR_AGAIN when the ring is full and nothing lost, a handler that
 * sends to itself, get by memcpy with its bounds check, reachability.
 */
#include "config.h"

#include "tests/unit/test_shm_util.h"
#include "transport/shm/shm_config.h"

enum { AM_SIZED = 1, AM_ECHO = 2, AM_BURST = 3 };

static struct {
    rtm_tl_iface_t *iface;
    rtm_tl_ep_t    *ep;
    int             in_send;
    uint64_t        next_size;
    uint64_t        echoes;
    uint64_t        burst;
    int             comp_calls;
} S;

static unsigned char pattern(uint64_t msg, size_t i)
{
    return (unsigned char)(msg * 131u + i * 7u + 1u);
}

static void am_cb(void *arg, int src, unsigned am_id, const void *data, size_t len)
{
    const unsigned char *p = data;

    CHECK(arg == &S, "am_arg not passed through");
    CHECK(src == 5, "source %d, expected 5", src);
    CHECK(!S.in_send, "delivered from inside am_send");
    if (am_id == AM_SIZED) {
        CHECK(len == S.next_size, "message %llu arrived with %zu bytes",
              (unsigned long long)S.next_size, len);
        for (size_t i = 0; i < len; i++)
            CHECK(p[i] == pattern(len, i), "size %zu: byte %zu differs", len, i);
        S.next_size++;
    } else if (am_id == AM_ECHO) {
        uint64_t n;

        memcpy(&n, data, 8);
        CHECK(n == S.echoes, "echo %llu, expected %llu", (unsigned long long)n,
              (unsigned long long)S.echoes);
        S.echoes++;
        n++;
        /* the runtime may send from inside its handler; delivered later */
        if (n < 1000)
            CHECK(rtm_tl_self.am_send(S.ep, AM_ECHO, &n, 8, NULL, 0) == RTM_OK, "%s",
                  rtm_last_error());
    } else if (am_id == AM_BURST) {
        uint64_t n;

        CHECK(len == 8, "burst message of %zu B", len);
        memcpy(&n, data, 8);
        CHECK(n == S.burst, "burst %llu, expected %llu", (unsigned long long)n,
              (unsigned long long)S.burst);
        S.burst++;
    } else {
        CHECK(0, "unknown am_id %u", am_id);
    }
}

static void comp_cb(rtm_tl_comp_t *comp, rtm_status_t status)
{
    (void)comp;
    CHECK(status == RTM_OK, "get completed with %d", status);
    S.comp_calls++;
}

static rtm_status_t send_one(unsigned am_id, const void *hdr, size_t hdr_len,
                             const void *payload, size_t len)
{
    rtm_status_t st;

    S.in_send = 1;
    st = rtm_tl_self.am_send(S.ep, am_id, hdr, hdr_len, payload, len);
    S.in_send = 0;
    return st;
}

int main(void)
{
    static unsigned char buf[1 << 17], dst[1 << 17];
    int peers[1] = {5};
    rtm_tl_params_t params;
    rtm_tl_caps_t caps;
    rtm_tl_comp_t comp = {comp_cb};
    rtm_tl_memh_t *memh;
    unsigned char rkey[RTM_TL_RKEY_MAX];
    size_t rkey_len = sizeof(rkey), len = RTM_TL_ADDR_MAX;
    unsigned long again = 0;
    uint64_t queued, n;
    char desc[256];

    th_rank = 5;
    CHECK(rtm_config_register(&shm_config_table) == RTM_OK, "%s", rtm_last_error());
    memset(&params, 0, sizeof(params));
    params.world_rank = 5;
    params.world_size = 8;
    params.local_size = 1;
    params.local_peers = peers;
    params.nspace = "test.self";
    params.am_cb = am_cb;
    params.peer_failed = tjob_peer_failed;
    params.am_arg = &S;
    CHECK(rtm_tl_self.open(&params, &S.iface) == RTM_OK, "%s", rtm_last_error());
    rtm_tl_self.query(S.iface, &caps);
    CHECK((caps.flags & (RTM_TL_CAP_SELF | RTM_TL_CAP_GET)) == (RTM_TL_CAP_SELF | RTM_TL_CAP_GET),
          "caps %#x", caps.flags);
    CHECK(caps.am_max >= 32768 && caps.eager_limit <= caps.am_max, "am_max %zu eager %zu",
          caps.am_max, caps.eager_limit);
    CHECK(rtm_tl_self.addr_pack(S.iface, buf, &len) == RTM_OK && len == 0, "addr_pack");
    CHECK(rtm_tl_self.reachable(S.iface, 5, NULL, 0), "cannot reach itself");
    CHECK(!rtm_tl_self.reachable(S.iface, 4, NULL, 0), "reaches another rank");
    CHECK(rtm_tl_self.ep_create(S.iface, 4, NULL, 0, &S.ep) == RTM_ERR_UNREACHABLE,
          "ep to another rank");
    CHECK(rtm_tl_self.ep_create(S.iface, 5, NULL, 0, &S.ep) == RTM_OK, "%s", rtm_last_error());
    rtm_tl_self.describe(S.iface, desc, sizeof(desc));
    printf("    %s\n", desc);

    /* has_work: set by am_send, cleared once progress delivered everything
     * (the runtime polls self only while it is set) */
    CHECK(caps.flags & RTM_TL_CAP_POLL_ON_WORK, "self does not say it polls on work");
    CHECK(!S.iface->has_work, "work before any send");
    CHECK(rtm_tl_self.progress(S.iface) == 0 && !S.iface->has_work, "empty progress");
    n = 0;
    memcpy(buf, &n, 8);
    CHECK(send_one(AM_BURST, buf, 8, NULL, 0) == RTM_OK && S.iface->has_work,
          "has_work not set by am_send");
    CHECK(rtm_tl_self.progress(S.iface) == 1 && !S.iface->has_work,
          "has_work still set after the last delivery");
    CHECK(send_one(AM_SIZED, NULL, 0, buf, caps.am_max + 1) == RTM_ERR_INVALID_ARG &&
          !S.iface->has_work, "a refused send set has_work");
    S.burst = 0;
    printf("ok   self: has_work follows what waits in the ring\n");

    /* every size, in order; fill until AGAIN, then drain */
    for (size_t size = 0; size <= caps.am_max; size++) {
        size_t hdr_len = size < 32 ? size / 2 : 16;
        rtm_status_t st;

        for (size_t i = 0; i < size; i++)
            buf[i] = pattern(size, i);
        while ((st = send_one(AM_SIZED, buf, hdr_len, buf + hdr_len, size - hdr_len)) ==
               RTM_ERR_AGAIN) {
            again++;
            CHECK(rtm_tl_self.progress(S.iface) > 0, "ring full but nothing to deliver");
        }
        CHECK(st == RTM_OK, "am_send %zu B: %s", size, rtm_last_error());
    }
    while (S.next_size <= caps.am_max)
        CHECK(rtm_tl_self.progress(S.iface) > 0, "message %llu lost",
              (unsigned long long)S.next_size);
    CHECK(again > 0, "never saw AGAIN");
    CHECK(rtm_tl_self.progress(S.iface) == 0, "extra message");
    CHECK(send_one(AM_SIZED, NULL, 0, buf, caps.am_max + 1) == RTM_ERR_INVALID_ARG,
          "oversized am_send accepted");
    printf("ok   self: %zu messages 0..%zu B in order, %lu AGAIN\n", caps.am_max + 1,
           caps.am_max, again);

    /* full ring: 8 B messages until AGAIN, then every one delivered */
    for (queued = 0;; queued++) {
        memcpy(buf, &queued, 8);
        if (send_one(AM_BURST, buf, 8, NULL, 0) != RTM_OK)
            break;
    }
    CHECK(queued > 1000, "ring full after %llu messages", (unsigned long long)queued);
    while (rtm_tl_self.progress(S.iface) > 0)
        ;
    CHECK(S.burst == queued, "%llu of %llu delivered", (unsigned long long)S.burst,
          (unsigned long long)queued);
    printf("ok   self: burst of %llu until AGAIN, all delivered in order\n",
           (unsigned long long)queued);

    /* a handler that sends to itself: one hop per progress call */
    n = 0;
    CHECK(send_one(AM_ECHO, &n, 8, NULL, 0) == RTM_OK, "%s", rtm_last_error());
    for (int i = 0; i < 1000; i++) {
        CHECK(S.iface->has_work, "echo %d: has_work clear while a message waits", i);
        CHECK(rtm_tl_self.progress(S.iface) == 1, "echo %d: not exactly one delivery", i);
    }
    CHECK(!S.iface->has_work, "has_work set after the last echo");
    CHECK(S.echoes == 1000 && rtm_tl_self.progress(S.iface) == 0, "echoes %llu",
          (unsigned long long)S.echoes);
    printf("ok   self: handler sending to itself, no re-entrant delivery\n");

    /* get = memcpy within the exposure */
    for (size_t i = 0; i < sizeof(buf); i++)
        buf[i] = pattern(3, i);
    CHECK(rtm_tl_self.mem_reg(S.iface, buf, sizeof(buf), &memh, rkey, &rkey_len) == RTM_OK,
          "%s", rtm_last_error());
    CHECK(rtm_tl_self.get(S.ep, dst, NULL, sizeof(buf), (uint64_t)(uintptr_t)buf, rkey,
                          rkey_len, &comp) == RTM_OK && S.comp_calls == 1, "get");
    CHECK(memcmp(buf, dst, sizeof(buf)) == 0, "get copied wrong bytes");
    CHECK(rtm_tl_self.get(S.ep, dst, NULL, 2, (uint64_t)(uintptr_t)buf + sizeof(buf) - 1, rkey,
                          rkey_len, &comp) == RTM_ERR_INVALID_ARG && S.comp_calls == 1,
          "get past the exposure");
    rtm_tl_self.mem_dereg(S.iface, memh);
    printf("ok   self: get by memcpy, bounds checked\n");

    rtm_tl_self.ep_destroy(S.ep);
    rtm_tl_self.close(S.iface);
    return 0;
}
