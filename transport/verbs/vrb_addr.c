/*
 * verbs: the checks of what a peer sends before any connection exists, its
 * address blob (read from PMIx) and its connection datagrams (over UD).
 * Each reads through a copy (the bytes may have any alignment), bounds
 * every count and index by the length it was given and by the job, and
 * hands back a parsed address; vrb_iface.c and vrb_conn.c keep it in the
 * peer's endpoint. No libibverbs here: tests/fuzz/fuzz_vrb_addr.c runs
 * these without a device.
 */
#include "config.h"

#include "transport/verbs/vrb_addr.h"
#include "common/error.h"
#include "common/log.h"

#include <string.h>

void vrb_addr_write(void *buf, const vrb_addr_t *a, const vrb_addr_xrc_t *x)
{
    char *p = buf;

    memcpy(p, a, sizeof(*a));
    memset(p + sizeof(*a), 0, 4 * (size_t)a->nqpn);
    if (x != NULL)
        memcpy(p + sizeof(*a) + 4 * (size_t)a->nqpn, x, sizeof(*x));
}

void vrb_addr_write_qpn(void *buf, size_t i, uint32_t qpn)
{
    memcpy((char *)buf + sizeof(vrb_addr_t) + 4 * i, &qpn, sizeof(qpn));
}

int vrb_addr_parse(const vrb_addr_self_t *self, int peer, const void *blob, size_t len,
                   vrb_peer_addr_t *out)
{
    vrb_addr_t ra;
    uint32_t my_qpn = 0;
    int ondemand, xrc;

    if (self == NULL || out == NULL) {
        rtm_error_set(RTM_ERR_INVALID_ARG, "verbs: vrb_addr_parse: NULL argument");
        return -1;
    }
    if (blob == NULL || len < sizeof(ra)) {
        rtm_error_set(RTM_ERR_TRANSPORT, "verbs: rank %d published a malformed verbs address "
                      "(%zu bytes; a different librtmsg version?)", peer, len);
        return -1;
    }
    memcpy(&ra, blob, sizeof(ra));
    if (ra.magic != VRB_ADDR_MAGIC || (len - sizeof(ra)) / 4 < (size_t)ra.nqpn) {
        rtm_error_set(RTM_ERR_TRANSPORT, "verbs: rank %d published a malformed verbs address "
                      "(%zu bytes; a different librtmsg version?)", peer, len);
        return -1;
    }
    ondemand = (ra.flags & VRB_ADDR_F_ONDEMAND) != 0;
    xrc = (ra.flags & VRB_ADDR_F_XRC) != 0;
    /* full mesh: the QP it dedicated to us, qpn[our rank] (within len: nqpn is) */
    if (!ondemand && !xrc && self->world_rank >= 0 && self->world_rank < self->world_size &&
        ra.nqpn == (uint32_t)self->world_size)
        memcpy(&my_qpn, (const char *)blob + sizeof(ra) + 4 * (size_t)self->world_rank,
               sizeof(my_qpn));
    if (ondemand != self->ondemand || xrc != self->xrc ||
        (!ondemand && !xrc && my_qpn == 0) ||
        ((ondemand || xrc) && ra.ud_qpn == 0) ||
        (xrc && len < sizeof(ra) + sizeof(vrb_addr_xrc_t))) {
        rtm_error_set(RTM_ERR_TRANSPORT, "verbs: rank %d (%.*s) connects %s%s, rank %d (%s) "
                      "%s%s: every rank must use the same RTM_VERBS_CONN, RTM_VERBS_XRC and "
                      "RTM_VERBS_FULLMESH_MAX", peer, VRB_HOST_LEN, ra.host,
                      ondemand ? "on demand" : "in a full mesh", xrc ? " with XRC" : "",
                      self->world_rank, self->host != NULL ? self->host : "?",
                      self->ondemand ? "on demand" : "in a full mesh",
                      self->xrc ? " with XRC" : "");
        return -1;
    }
    memset(out, 0, sizeof(*out));
    out->remote_qpn = my_qpn;
    if (!ondemand && !xrc)
        out->credits = ra.credits;
    if (ra.link != self->link) {
        rtm_debug("verbs: rank %d is on %s, we are on %s: not reachable over verbs", peer,
                  ra.link == VRB_LINK_IB ? "InfiniBand" : "Ethernet",
                  self->link == VRB_LINK_IB ? "InfiniBand" : "Ethernet");
        return 1;
    }
    if (xrc) {
        vrb_addr_xrc_t x;

        memcpy(&x, (const char *)blob + sizeof(ra), sizeof(x));
        if (x.node < 0 || x.node >= self->world_size) {
            rtm_error_set(RTM_ERR_TRANSPORT, "verbs: rank %d published node id %d out of range",
                          peer, (int)x.node);
            return -1;
        }
        out->srqn = x.srqn;
        out->node = x.node;
        out->local_size = x.local_size;
    }
    memcpy(out->host, ra.host, VRB_HOST_LEN);
    out->host[VRB_HOST_LEN] = '\0';
    out->lid = ra.lid;
    out->flags = ra.flags;
    out->mtu = ra.mtu;
    memcpy(out->gid, ra.gid, 16);
    out->ud_qpn = ra.ud_qpn;
    return 0;
}

int vrb_conn_msg_parse(const vrb_addr_self_t *self, const void *data, size_t len,
                       vrb_conn_msg_t *m)
{
    if (self == NULL || m == NULL || data == NULL || len < sizeof(*m)) {
        rtm_debug("verbs: dropped a malformed connection datagram (%zu bytes)", len);
        return -1;
    }
    memcpy(m, data, sizeof(*m));
    if (m->magic != VRB_CONN_MAGIC || m->dst != self->world_rank ||
        m->src < 0 || m->src >= self->world_size || m->src == self->world_rank ||
        m->link != self->link || m->type < VRB_CONN_REQ || m->type > VRB_CONN_XREP ||
        (self->xrc && (m->node < 0 || m->node >= self->world_size)) ||
        (!self->xrc && m->type > VRB_CONN_REP)) {
        rtm_debug("verbs: dropped a malformed connection datagram (%zu bytes)", len);
        return -1;
    }
    return 0;
}

void vrb_conn_msg_addr(const vrb_conn_msg_t *m, vrb_peer_addr_t *out)
{
    memset(out, 0, sizeof(*out));
    memcpy(out->host, m->host, VRB_HOST_LEN);
    out->host[VRB_HOST_LEN] = '\0';
    out->lid = m->lid;
    out->flags = m->flags;
    out->mtu = m->mtu;
    memcpy(out->gid, m->gid, 16);
    out->ud_qpn = m->ud_qpn;
    out->srqn = m->srqn;
    out->node = m->node;
    out->local_size = m->local_size;
}
