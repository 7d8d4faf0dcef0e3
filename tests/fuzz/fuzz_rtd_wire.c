/*
 * Fuzz target: the daemon tree's messages as a parent or a child daemon
 * sends them (launcher/rtd_wire.c headers, cut out of the connection's
 * input buffer by rtd_conn.c), routed and handled by a node of the tree
 * (rtd_node.c: routing, fences and direct modex of rtd_modex.c), mixed with
 * the local PMIx server's requests. The PMIx server itself is stubbed here.
 *
 * The input: a job shape (u8 hosts - 2, u8 fanout - 1, u8 which host this
 * node is, u8 flags), then records
 *   0 conn len16 bytes   bytes arriving on a connection (conn: a child, or
 *                        the parent when conn % (children + 1) == children)
 *   1 len8 bytes         this host's part of a fence
 *   2 rank               a local rank asks for a rank's data (direct modex)
 *   3 host id status len8 bytes   local data served for another host
 * Nothing goes out on a socket: connections have no fd and queue what is
 * sent to them, so the node's routing and queues run as in a daemon.
 */
#include "config.h"

#include "launcher/rtd_conn.h"
#include "launcher/rtd_jobdesc.h"
#include "launcher/rtd_modex.h"
#include "launcher/rtd_node.h"
#include "launcher/rtd_wire.h"
#include "tests/fuzz/fuzz.h"

#include <pmix_common.h>

/* ---- the PMIx server's side (launcher/pmix_server.c needs a server) ---- */
static int serve_ok;

void rtrun_pmix_req_free(rtrun_pmix_req_t *req)
{
    if (req == NULL)
        return;
    free(req->data);
    free(req);
}

void rtrun_pmix_fence_done(rtrun_pmix_req_t *req, int ok, const char *data, size_t len)
{
    (void)ok;
    FZ_CHECK(len == 0 || data != NULL);
    /* touch every byte: ASan sees data that is not all there */
    for (size_t i = 0; i < len; i++)
        serve_ok ^= data[i] == 0x7f;
    rtrun_pmix_req_free(req);
}

void rtrun_pmix_dmodex_done(rtrun_pmix_req_t *req, int pmix_status, const char *data, size_t len)
{
    (void)pmix_status;
    FZ_CHECK(len == 0 || data != NULL);
    for (size_t i = 0; i < len; i++)
        serve_ok ^= data[i] == 0x7f;
    rtrun_pmix_req_free(req);
}

rtm_status_t rtrun_pmix_dmodex_serve(const char *nspace, int rank, int from_host, int from_id)
{
    (void)nspace;
    (void)from_host;
    (void)from_id;
    FZ_CHECK(rank >= 0);
    return serve_ok & 1 ? RTM_OK : RTM_ERR_PMIX;
}

static rtrun_pmix_req_t *req_new(fz_in_t *in, size_t len)
{
    rtrun_pmix_req_t *req = calloc(1, sizeof(*req));
    const uint8_t *p;

    if (req == NULL)
        return NULL;
    req->ndata = fz_bytes(in, len, &p);
    req->data = fz_dup(p, req->ndata);
    if (req->data == NULL) {
        free(req);
        return NULL;
    }
    return req;
}

/* A whole message at a time, as the daemons' loops do; -1: the
 * connection is dropped (a protocol error). */
static int conn_deliver(rtd_node_t *n, rtd_conn_t *c)
{
    rtd_hdr_t h;
    const char *payload;
    int got;

    while ((got = rtd_conn_next(c, &h, &payload)) > 0) {
        FZ_CHECK(h.len <= RTD_MAX_PAYLOAD && payload == c->in + RTD_HDR_SIZE &&
                 RTD_HDR_SIZE + (size_t)h.len <= c->in_len);
        got = rtd_node_handle(n, c, &h, payload);
        if (got < 0)
            return -1;
        if (got == 1)
            rtd_conn_consume(c, &h);   /* the program's own message (rtrun.c, rtd.c) */
    }
    return got;
}

static int conn_feed(rtd_conn_t *c, const uint8_t *p, size_t len)
{
    if (len == 0)
        return 0;
    if (c->in_cap - c->in_len < len) {
        size_t cap = c->in_len + len;
        char *grown = realloc(c->in, cap ? cap : 1);

        if (grown == NULL)
            return -1;
        c->in = grown;
        c->in_cap = cap;
    }
    memcpy(c->in + c->in_len, p, len);
    c->in_len += len;
    return 0;
}

static rtd_jobdesc_t *desc_new(fz_in_t *in)
{
    rtd_jobdesc_t *d = calloc(1, sizeof(*d));
    int nhosts = 2 + fz_u8(in) % 7;
    int nprocs = 2 * nhosts;

    if (d == NULL)
        return NULL;
    d->job = rtd_job_alloc(nprocs, nhosts);
    if (d->job == NULL) {
        free(d);
        return NULL;
    }
    snprintf(d->job->nspace, sizeof(d->job->nspace), "rtm.fuzz.1");
    for (int h = 0; h < nhosts; h++) {
        snprintf(d->job->hosts[h].name, sizeof(d->job->hosts[h].name), "host%d", h);
        d->job->hosts[h].slots = 2;
        d->job->hosts[h].nranks = 2;
    }
    for (int r = 0; r < nprocs; r++) {
        d->job->ranks[r].node_id = r / 2;
        d->job->ranks[r].local_rank = r % 2;
    }
    d->fanout = 1 + fz_u8(in) % 3;
    return d;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fz_in_t in = fz_in(data, size);
    rtd_jobdesc_t *d = desc_new(&in);
    static rtm_secret_t secret;
    rtd_node_t n;
    int self, flags;
    int dropped[64] = {0};

    if (d == NULL)
        return 0;
    self = fz_u8(&in) % (d->job->nhosts + 1) - 1;   /* -1: rtrun without ranks */
    flags = fz_u8(&in);
    d->root_host = self < 0 ? -1 : 0;
    serve_ok = flags & 1;
    if (rtm_secret_from_bytes("0123456789abcdef0123456789abcdef", 32, &secret) != RTM_OK ||
        rtd_node_init(&n, d, self, "job", 3, &secret) != RTM_OK)
        goto out_desc;
    /* every connection up (queues what it is sent) */
    n.parent.hello = n.pos != 0;
    for (int i = 0; i < n.nchildren; i++)
        n.children[i].hello = 1;

    while (in.left > 0) {
        unsigned op = fz_u8(&in) % 4;
        rtrun_pmix_req_t *req;

        switch (op) {
        case 0: {
            int k = fz_u8(&in) % (n.nchildren + 1);
            rtd_conn_t *c = k == n.nchildren ? &n.parent : &n.children[k];
            size_t len = fz_u8(&in);
            const uint8_t *p;

            len |= (size_t)fz_u8(&in) << 8;
            len = fz_bytes(&in, len, &p);
            if (c == &n.parent && n.pos == 0)
                break;   /* the root has no parent */
            if (dropped[k] || conn_feed(c, p, len) != 0)
                break;
            if (conn_deliver(&n, c) < 0)
                dropped[k] = 1;
            break;
        }
        case 1:
            req = req_new(&in, fz_u8(&in));
            if (req != NULL)
                rtd_node_fence_local(&n, req);
            break;
        case 2:
            req = req_new(&in, 0);
            if (req == NULL)
                break;
            req->rank = fz_u8(&in) % d->job->nprocs;
            rtd_node_dmodex_local(&n, req);
            break;
        default: {
            /* from_host and from_id come from a DMX_REQ: any values */
            int from_host = (int)(int8_t)fz_u8(&in);
            int from_id = fz_u8(&in);
            int status = (int)(int8_t)fz_u8(&in);

            req = req_new(&in, fz_u8(&in));
            if (req == NULL)
                break;
            req->from_host = from_host;
            req->from_id = from_id;
            req->status = status;
            rtd_node_dmodex_served(&n, req);
            break;
        }
        }
    }
    rtd_node_fini(&n);
out_desc:
    rtd_jobdesc_free(d);
    free(d);
    return 0;
}
