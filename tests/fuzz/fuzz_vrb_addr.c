/*
 * Fuzz target: what a verbs peer sends before any connection exists,
 * through the transport's own checks (transport/verbs/vrb_addr.c, no
 * device needed): the address blob it published through PMIx
 * (vrb_addr_parse, which ep_set_addr calls: QP numbers of a full mesh, LID,
 * GID, the UD QP of on-demand connections, XRC's SRQ number and node id)
 * and the on-demand connection datagram it sends over UD
 * (vrb_conn_msg_parse and vrb_conn_msg_addr, which on_datagram calls).
 *
 * The input: u8 mode (bit 0: datagram, else blob; bit 1: we connect on
 * demand; bit 2: XRC; bit 3: our link is Ethernet), u8 world size - 1,
 * u8 our rank (modulo the size), u8 peer, then the blob or datagram. An
 * accepted blob or datagram holds only what the job allows: QP numbers
 * within the blob, ranks and node ids within the job, a host name that
 * ends.
 *
 * RTM_FUZZ_VRB_SEEDS=DIR makes the target write its seed corpus (blobs
 * and datagrams of today's format, laid out by vrb_addr_write as
 * vrb_addr_pack does, datagrams filled as ud_send does) into DIR and exit.
 */
#include "config.h"

#include "transport/verbs/vrb_addr.h"
#include "common/error.h"
#include "tests/fuzz/fuzz.h"

static void check_blob(const vrb_addr_self_t *self, int peer, const uint8_t *p, size_t n)
{
    void *blob = fz_dup(p, n);
    vrb_peer_addr_t a;
    int rc;

    if (blob == NULL)
        return;
    rc = vrb_addr_parse(self, peer, blob, n, &a);
    FZ_CHECK(rc == -1 || rc == 0 || rc == 1);
    if (rc == -1)
        FZ_CHECK(rtm_last_error()[0] != '\0');
    if (rc == 0) {
        int ondemand = (a.flags & VRB_ADDR_F_ONDEMAND) != 0, xrc = (a.flags & VRB_ADDR_F_XRC) != 0;

        FZ_CHECK(ondemand == self->ondemand && xrc == self->xrc);
        FZ_CHECK(memchr(a.host, '\0', sizeof(a.host)) != NULL);
        FZ_CHECK(n >= sizeof(vrb_addr_t));
        if (!ondemand && !xrc)
            FZ_CHECK(a.remote_qpn != 0 &&
                     n >= vrb_addr_size((size_t)self->world_size, 0));
        else
            FZ_CHECK(a.ud_qpn != 0);
        if (xrc)
            FZ_CHECK(a.node >= 0 && a.node < self->world_size && n >= vrb_addr_size(0, 1));
    }
    free(blob);
}

static void check_msg(const vrb_addr_self_t *self, const uint8_t *p, size_t n)
{
    void *data = fz_dup(p, n);
    vrb_conn_msg_t m;
    vrb_peer_addr_t a;

    if (data == NULL)
        return;
    if (vrb_conn_msg_parse(self, data, n, &m) == 0) {
        FZ_CHECK(n >= sizeof(m));
        FZ_CHECK(m.src >= 0 && m.src < self->world_size && m.src != self->world_rank);
        FZ_CHECK(m.dst == self->world_rank && m.link == self->link);
        FZ_CHECK(m.type >= VRB_CONN_REQ && m.type <= (self->xrc ? VRB_CONN_XREP : VRB_CONN_REP));
        vrb_conn_msg_addr(&m, &a);
        FZ_CHECK(memchr(a.host, '\0', sizeof(a.host)) != NULL);
        if (self->xrc)
            FZ_CHECK(a.node >= 0 && a.node < self->world_size);
    }
    free(data);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fz_in_t in = fz_in(data, size);
    uint8_t mode = fz_u8(&in);
    vrb_addr_self_t self;
    int peer;
    const uint8_t *p;
    size_t n;

    self.world_size = 1 + fz_u8(&in);
    self.world_rank = fz_u8(&in) % self.world_size;
    peer = fz_u8(&in) % self.world_size;
    self.ondemand = (mode & 2) != 0;
    self.xrc = (mode & 4) != 0;
    self.link = (mode & 8) ? VRB_LINK_ETH : VRB_LINK_IB;
    self.host = "fuzzhost";
    n = fz_bytes(&in, in.left, &p);
    if (mode & 1)
        check_msg(&self, p, n);
    else
        check_blob(&self, peer, p, n);
    return 0;
}

/* ---- the seed corpus ---------------------------------------------------- */

/* A seed the checks accept: what the fuzzer starts from is valid. */
static void seed_write(const char *dir, const char *name, const uint8_t pre[4], const void *body,
                       size_t len)
{
    vrb_addr_self_t self;
    vrb_peer_addr_t a;
    vrb_conn_msg_t m;
    char path[4096];
    FILE *f;

    self.world_size = 1 + pre[1];
    self.world_rank = pre[2] % self.world_size;
    self.ondemand = (pre[0] & 2) != 0;
    self.xrc = (pre[0] & 4) != 0;
    self.link = (pre[0] & 8) ? VRB_LINK_ETH : VRB_LINK_IB;
    self.host = "fuzzhost";
    if ((pre[0] & 1) ? vrb_conn_msg_parse(&self, body, len, &m) != 0
                     : vrb_addr_parse(&self, pre[3] % self.world_size, body, len, &a) != 0) {
        fprintf(stderr, "seed %s is not accepted: %s\n", name, rtm_last_error());
        exit(1);
    }

    snprintf(path, sizeof(path), "%s/%s", dir, name);
    f = fopen(path, "wb");
    if (f == NULL || fwrite(pre, 1, 4, f) != 4 || fwrite(body, 1, len, f) != len) {
        fprintf(stderr, "cannot write %s\n", path);
        exit(1);
    }
    fclose(f);
}

/* The blob rank `me` of `size` publishes, as vrb_addr_pack lays it out. */
static size_t seed_blob(uint8_t *buf, int me, int size, int ondemand, int xrc, uint8_t link)
{
    size_t nqpn = ondemand || xrc ? 0 : (size_t)size;
    vrb_addr_t a;
    vrb_addr_xrc_t x;

    memset(&a, 0, sizeof(a));
    a.magic = VRB_ADDR_MAGIC;
    a.lid = link == VRB_LINK_IB ? (uint16_t)(1 + me) : 0;
    a.port = 1;
    a.link = link;
    for (int i = 0; i < 16; i++)
        a.gid[i] = (uint8_t)(link == VRB_LINK_ETH && i >= 10 ? 0xff : i);
    a.mtu = 5;
    a.flags = (link == VRB_LINK_ETH ? VRB_ADDR_F_GRH : 0) | (ondemand ? VRB_ADDR_F_ONDEMAND : 0) |
              (xrc ? VRB_ADDR_F_XRC : 0);
    a.credits = 32;
    a.nqpn = (uint32_t)nqpn;
    snprintf(a.host, sizeof(a.host), "host%d", me / 2);
    a.ud_qpn = ondemand || xrc ? 0x100u + (uint32_t)me : 0;
    x.srqn = 0x200u + (uint32_t)me;
    x.node = me / 2;
    x.local_size = 2;
    vrb_addr_write(buf, &a, xrc ? &x : NULL);
    for (size_t i = 0; i < nqpn; i++)
        vrb_addr_write_qpn(buf, i, (int)i == me ? 0 : 0x1000u + (uint32_t)(me * size) + (uint32_t)i);
    return vrb_addr_size(nqpn, xrc);
}

/* A datagram from rank src to dst, filled as ud_send fills it. */
static void seed_msg(vrb_conn_msg_t *m, uint8_t type, int src, int dst, uint8_t link)
{
    memset(m, 0, sizeof(*m));
    m->magic = VRB_CONN_MAGIC;
    m->type = type;
    m->mtu = 5;
    m->flags = link == VRB_LINK_ETH ? VRB_ADDR_F_GRH : 0;
    m->link = link;
    m->src = src;
    m->dst = dst;
    m->qpn = 0x1000u + (uint32_t)src;
    m->psn = 0x123456;
    m->peer_qpn = type == VRB_CONN_REP || type == VRB_CONN_XREP ? 0x1000u + (uint32_t)dst : 0;
    m->srqn = 0x200u + (uint32_t)src;
    m->node = src / 2;
    m->local_size = 2;
    m->ud_qpn = 0x100u + (uint32_t)src;
    m->lid = link == VRB_LINK_IB ? (uint16_t)(1 + src) : 0;
    m->credits = 32;
    snprintf(m->host, sizeof(m->host), "host%d", src / 2);
}

static void seeds(const char *dir)
{
    static const char *conn[] = {"fullmesh", "ondemand", "xrc"};
    uint8_t buf[RTM_TL_ADDR_MAX];
    vrb_conn_msg_t m;
    char name[64];

    /* rank 1 of 4 reads rank 2's blob, IB and RoCE, each mode */
    for (int c = 0; c < 3; c++)
        for (int eth = 0; eth < 2; eth++) {
            uint8_t link = eth ? VRB_LINK_ETH : VRB_LINK_IB;
            uint8_t pre[4] = {(uint8_t)((c == 1 ? 2 : 0) | (c == 2 ? 4 : 0) | (eth ? 8 : 0)),
                              3, 1, 2};
            size_t n = seed_blob(buf, 2, 4, c == 1, c == 2, link);

            snprintf(name, sizeof(name), "blob_%s_%s", conn[c], eth ? "roce" : "ib");
            seed_write(dir, name, pre, buf, n);
        }
    /* full mesh at its largest job */
    {
        uint8_t pre[4] = {0, VRB_FULLMESH_MAX - 1, 7, 3};
        size_t n = seed_blob(buf, 3, VRB_FULLMESH_MAX, 0, 0, VRB_LINK_IB);

        seed_write(dir, "blob_fullmesh_max", pre, buf, n);
    }
    /* datagrams to rank 1 of 4 from rank 2: each type of each mode */
    for (uint8_t t = VRB_CONN_REQ; t <= VRB_CONN_XREP; t++)
        for (int xrc = 0; xrc < 2; xrc++) {
            uint8_t pre[4] = {(uint8_t)(1 | 2 | (xrc ? 4 : 0)), 3, 1, 2};

            if (!xrc && t > VRB_CONN_REP)
                continue;
            seed_msg(&m, t, 2, 1, VRB_LINK_IB);
            snprintf(name, sizeof(name), "msg_%s_type%u", xrc ? "xrc" : "ondemand", (unsigned)t);
            seed_write(dir, name, pre, &m, sizeof(m));
        }
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    const char *dir = getenv("RTM_FUZZ_VRB_SEEDS");

    (void)argc;
    (void)argv;
    if (dir != NULL) {
        seeds(dir);
        exit(0);
    }
    return 0;
}
