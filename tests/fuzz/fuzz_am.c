/*
 * Fuzz target: the runtime's protocol messages as a transport delivers them
 * (runtime/am.c's dispatch into eager.c, rndv.c, credit.c), to rank 0 of 3,
 * interleaved with what the application does meanwhile (receives posted,
 * sends started, queued control messages flushed, a communicator freed:
 * proto.c), over a fake transport that takes, refuses (RTM_ERR_AGAIN) or
 * fails what is sent and completes gets at once or with an error. The job
 * (runtime/job.c, PMIx) is stubbed: job_abort -- where a protocol error
 * ends the job (exit 70) -- returns to the target instead, which then
 * frees everything. Nothing carries over from one input to the next.
 *
 * The input: u8 transport caps (bit 0: it can get), then records
 *   0 src am_id len16 bytes   a message from world rank src % 4 (3 is out of
 *                             range), am_id % 16 (past RTM_AM_COUNT: unknown)
 *   1 ctx src tag len16       rtm_irecv: src/tag % 4 (3: any), a buffer of len
 *   2 ctx dst tag len16 sync  rtm_isend of len bytes
 *   3                         flush every peer's queued messages
 *   4 flags                   bit 0: am_send says AGAIN; bit 1: it fails;
 *                             bits 2-3: get completes / fails / is refused
 *   5 v                       v < 128: context v % 4 is released
 *                             (rtm_comm_free); else the send request at table
 *                             index v % 64, if there is one, is cancelled
 *                             (rtm_cancel: at once if queued, else CANCEL)
 * Request ids start at index 0, generation 1 (1 << 32 | index): the seeds
 * name them in CTS, FIN and DATA.
 */
#include "config.h"

#include "runtime/am.h"
#include "runtime/job.h"
#include "runtime/match.h"
#include "runtime/peer.h"
#include "runtime/proto.h"
#include "runtime/request.h"
#include "runtime/rndv.h"
#include "runtime/rt.h"
#include "runtime/rt_config.h"
#include "runtime/wire.h"
#include "tests/fuzz/fuzz.h"

#include <setjmp.h>

#define FZ_WORLD    3
#define FZ_MAX_BUFS 64

rtm_runtime_t rtm_rt;

static jmp_buf fz_job_end;
static int fz_in_job;
static unsigned fz_flags;          /* record 4 */
static void *fz_bufs[FZ_MAX_BUFS];  /* the application's buffers */
static size_t fz_nbufs;
static void *fz_msg;               /* the message being delivered */

/* --- the job: PMIx stubbed --- */
void job_abort(int code, const char *message)
{
    FZ_CHECK(code == 70 || code == 71 || code == 74);
    FZ_CHECK(message != NULL && strstr(message, "rank 0 (fuzzhost)") != NULL);
    FZ_CHECK(fz_in_job);
    longjmp(fz_job_end, 1);
}

const char *job_peer_hostname(int peer)
{
    (void)peer;
    return "peerhost";
}

int job_peer_node(int peer)
{
    return peer;
}

rtm_status_t job_lookup(int peer, const char *key, void **blob_p, size_t *len_p)
{
    (void)peer;
    (void)key;
    *blob_p = malloc(1);
    *len_p = 1;
    return *blob_p != NULL ? RTM_OK : RTM_ERR_NO_MEMORY;
}

/* --- the fake transport --- */
static rtm_tl_iface_t fake_iface;
static rtm_tl_ep_t fake_eps[FZ_WORLD];
static int fake_memh;

static int fake_reachable(rtm_tl_iface_t *iface, int peer, const void *blob, size_t blob_len)
{
    (void)iface;
    (void)blob;
    (void)blob_len;
    return peer >= 0 && peer < FZ_WORLD;
}

static rtm_status_t fake_ep_create(rtm_tl_iface_t *iface, int peer, const void *blob,
                                   size_t blob_len, rtm_tl_ep_t **ep_p)
{
    (void)blob;
    (void)blob_len;
    fake_eps[peer].iface = iface;
    fake_eps[peer].peer = peer;
    *ep_p = &fake_eps[peer];
    return RTM_OK;
}

static void fake_ep_destroy(rtm_tl_ep_t *ep)
{
    (void)ep;
}

/* What the runtime sends: within the transport's limits, and read whole. */
static rtm_status_t fake_am_send(rtm_tl_ep_t *ep, unsigned am_id, const void *hdr,
                                 size_t hdr_len, const void *payload, size_t len)
{
    const uint8_t *h = hdr, *p = payload;
    unsigned sum = 0;

    FZ_CHECK(ep >= fake_eps && ep < fake_eps + FZ_WORLD && ep->peer != 0);
    FZ_CHECK(am_id > 0 && am_id < RTM_AM_COUNT);
    FZ_CHECK(hdr_len + len <= rtm_rt.tls[0].caps.am_max);
    for (size_t i = 0; i < hdr_len; i++)
        sum += h[i];
    for (size_t i = 0; i < len; i++)
        sum += p[i];
    (void)sum;
    if (fz_flags & 2)
        return RTM_ERR_TRANSPORT;
    return fz_flags & 1 ? RTM_ERR_AGAIN : RTM_OK;
}

static rtm_status_t fake_mem_reg(rtm_tl_iface_t *iface, void *addr, size_t len,
                                 rtm_tl_memh_t **memh_p, void *rkey, size_t *rkey_len_p)
{
    (void)iface;
    FZ_CHECK(addr != NULL && len > 0 && *rkey_len_p >= 8);
    memset(rkey, 0x5a, 8);
    *rkey_len_p = 8;
    *memh_p = (rtm_tl_memh_t *)(void *)&fake_memh;
    return RTM_OK;
}

static void fake_mem_dereg(rtm_tl_iface_t *iface, rtm_tl_memh_t *memh)
{
    (void)iface;
    FZ_CHECK(memh == (rtm_tl_memh_t *)(void *)&fake_memh);
}

/* A get writes the local buffer (ASan checks its bounds), then completes. */
static rtm_status_t fake_get(rtm_tl_ep_t *ep, void *local, rtm_tl_memh_t *local_memh,
                             size_t len, uint64_t remote_addr, const void *rkey,
                             size_t rkey_len, rtm_tl_comp_t *comp)
{
    unsigned mode = (fz_flags >> 2) & 3;

    (void)ep;
    (void)local_memh;
    (void)remote_addr;
    FZ_CHECK(rkey != NULL && rkey_len > 0 && rkey_len <= RTM_TL_RKEY_MAX && len > 0);
    if (mode == 2)
        return RTM_ERR_TRANSPORT;
    memset(local, 0x47, len);
    comp->cb(comp, mode == 1 ? RTM_ERR_TRANSPORT : RTM_OK);
    return RTM_OK;
}

static int fake_progress(rtm_tl_iface_t *iface)
{
    (void)iface;
    return 0;
}

static const rtm_tl_ops_t fake_ops = {
    RTM_TL_OPS_VERSION,
    .name       = "fake",
    .reachable  = fake_reachable,
    .ep_create  = fake_ep_create,
    .ep_destroy = fake_ep_destroy,
    .am_send    = fake_am_send,
    .mem_reg    = fake_mem_reg,
    .mem_dereg  = fake_mem_dereg,
    .get        = fake_get,
    .progress   = fake_progress,
};

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    rtm_lib_config_register();
    return 0;
}

static int world_ranks[FZ_WORLD] = {0, 1, 2};
static rtm_comm_obj_t world = {.in_use = 1, .rank = 0, .size = FZ_WORLD,
                               .world_ranks = world_ranks};

static void *fz_buf(size_t len)
{
    void *buf;

    if (fz_nbufs == FZ_MAX_BUFS)
        return NULL;
    buf = malloc(len ? len : 1);
    if (buf != NULL)
        fz_bufs[fz_nbufs++] = buf;
    return buf;
}

static void fz_setup(unsigned caps)
{
    memset(&rtm_rt, 0, sizeof(rtm_rt));
    rtm_rt.state = RT_READY;
    rtm_rt.world_rank = 0;
    rtm_rt.world_size = FZ_WORLD;
    snprintf(rtm_rt.hostname, sizeof(rtm_rt.hostname), "fuzzhost");
    rtm_rt.tls[0].ops = &fake_ops;
    rtm_rt.tls[0].iface = &fake_iface;
    rtm_rt.tls[0].caps.flags = caps & 1 ? RTM_TL_CAP_GET : 0;
    rtm_rt.tls[0].caps.am_max = 4096;
    rtm_rt.tls[0].caps.eager_limit = 1024;
    rtm_rt.tls[0].caps.get_threshold = 2048;
    rtm_rt.num_tls = 1;
    req_pool_init();
    match_table_init(&rtm_rt.contexts, 64);
    FZ_CHECK(peers_init() == RTM_OK);
    fz_flags = 0;
    fz_nbufs = 0;
}

static void fz_teardown(void)
{
    match_table_cleanup(&rtm_rt.contexts);
    req_pool_cleanup();
    free(rtm_rt.peers);
    rtm_rt.peers = NULL;
    for (size_t i = 0; i < fz_nbufs; i++)
        free(fz_bufs[i]);
    free(fz_msg);   /* the job ended inside its delivery */
    fz_msg = NULL;
}

static int fz_rank_or_any(uint8_t v)
{
    return v % 4 == 3 ? RTM_ANY_SOURCE : v % 4;
}

static void fz_record(fz_in_t *in)
{
    unsigned op = fz_u8(in) % 6;
    rtm_request_impl_t *req;

    switch (op) {
    case 0: {
        int src = fz_u8(in) % 4;
        unsigned am_id = fz_u8(in) % 16;
        size_t len = fz_u8(in);
        const uint8_t *p;
        void *msg;

        len |= (size_t)fz_u8(in) << 8;
        len = fz_bytes(in, len, &p);
        /* a buffer of exactly len bytes, 8-aligned as transports deliver,
         * valid only during the call (a handler keeping a pointer into it
         * is a use after free) */
        msg = fz_dup(p, len);
        if (msg == NULL)
            return;
        fz_msg = msg;
        proto_am_handler(NULL, src, am_id, msg, len);
        fz_msg = NULL;
        free(msg);
        return;
    }
    case 1: {
        uint32_t ctx = fz_u8(in) % 4;
        int src = fz_rank_or_any(fz_u8(in));
        int tag = fz_rank_or_any(fz_u8(in));
        size_t len = fz_u8(in);
        void *buf;

        len |= (size_t)fz_u8(in) << 8;
        buf = fz_buf(len);
        if (buf != NULL)
            proto_irecv(&world, ctx, buf, len, src, tag, &req);
        return;
    }
    case 2: {
        uint32_t ctx = fz_u8(in) % 4;
        int dst = 1 + fz_u8(in) % 2;
        int tag = fz_u8(in) % 3;
        size_t len = fz_u8(in);
        int sync;
        void *buf;

        len |= (size_t)fz_u8(in) << 8;
        sync = fz_u8(in) & 1;
        buf = fz_buf(len);
        if (buf == NULL)
            return;
        memset(buf, 0x33, len);
        proto_isend(&world, ctx, buf, len, dst, tag, sync, &req);
        return;
    }
    case 3:
        for (int i = 1; i < FZ_WORLD; i++)
            if (!rtm_list_is_empty(&rtm_rt.peers[i].pending_link))
                proto_flush_peer(&rtm_rt.peers[i]);
        return;
    case 4:
        fz_flags = fz_u8(in);
        return;
    default: {
        unsigned v = fz_u8(in);

        if (v < 128) {
            proto_ctx_release(v % 4);
            return;
        }
        req = req_at(v % 64);
        if (req != NULL && req->magic == RTM_REQ_MAGIC && req->kind == RTM_REQ_SEND)
            rndv_cancel_send(req);
        return;
    }
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static fz_in_t in;   /* static: read after longjmp */

    in = fz_in(data, size);
    fz_setup(fz_u8(&in));
    fz_in_job = 1;
    if (setjmp(fz_job_end) == 0) {
        while (in.left > 0)
            fz_record(&in);
    }
    fz_in_job = 0;
    fz_teardown();
    return 0;
}
