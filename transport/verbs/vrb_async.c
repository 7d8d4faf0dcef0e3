/*
 * verbs: asynchronous events of the device (ibv_get_async_event on the
 * context's async fd), polled from progress at a low rate.
 *
 * A failed work completion reaches vrb_wc_fatal through the CQ; some
 * failures do not produce one: a CQ overrun (IBV_EVENT_CQ_ERR: completions
 * were lost, the CQ is unusable), a QP that failed while no WR of ours was
 * outstanding on it (IBV_EVENT_QP_FATAL, QP_REQ_ERR, QP_ACCESS_ERR), an SRQ
 * error, a port that went down, a device that died. Ignored, each of these
 * is a hang; here each is one message naming the local rank and host, the
 * peer rank and host when a QP names one, the QP number and the event, and
 * the job ends through the runtime (PMIx abort). Informational events
 * (port active, SRQ limit, last WQE, communication established, ...) only
 * go to the debug log.
 */
#include "config.h"

#include "transport/verbs/vrb.h"
#include "common/log.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>

/* Progress calls between two looks at the async fd: one read() that
 * usually finds nothing (EAGAIN) per this many calls (softib adds an
 * fcntl). A progress pass that finds nothing costs tens of ns (the CQ is
 * not polled at each, vrb_am.c), so at 256 the two system calls took some
 * 10% of a wait and now and then sat between a ring message landing and its
 * delivery; at 4096 a wait spinning on an empty ring looks every ~0.1 ms,
 * soon enough for events that end the job. One verbs interface per process,
 * so one counter. */
#define VRB_ASYNC_EVERY 4096

static unsigned async_countdown;
static int async_fd_nonblocking = -1;   /* the fd already set O_NONBLOCK */

static const char *event_hint(enum ibv_event_type t)
{
    switch (t) {
    case IBV_EVENT_CQ_ERR:
        return "the completion queue overran or failed: completions were lost";
    case IBV_EVENT_QP_FATAL:
        return "the queue pair hit an error the HCA cannot report in a completion";
    case IBV_EVENT_QP_REQ_ERR:
        return "the peer's HCA rejected a request as invalid";
    case IBV_EVENT_QP_ACCESS_ERR:
        return "the peer tried an access this rank did not allow (wrong rkey, bounds or "
               "rights)";
    case IBV_EVENT_SRQ_ERR:
        return "the shared receive queue failed: no message can be received any more";
    case IBV_EVENT_PATH_MIG_ERR:
        return "the alternate path failed";
    case IBV_EVENT_PORT_ERR:
        return "the port went down (cable, switch or subnet manager)";
    case IBV_EVENT_DEVICE_FATAL:
        return "the HCA failed; the device must be reset";
    default:
        return NULL;   /* not fatal */
    }
}

static void async_fatal(vrb_iface_t *iface, const struct ibv_async_event *ev,
                        const char *hint)
{
    char msg[768];
    vrb_ep_t *ep = NULL;
    uint32_t qpn = 0;

    switch (ev->event_type) {
    case IBV_EVENT_QP_FATAL:
    case IBV_EVENT_QP_REQ_ERR:
    case IBV_EVENT_QP_ACCESS_ERR:
    case IBV_EVENT_PATH_MIG_ERR:
        if (ev->element.qp != NULL) {
            qpn = ev->element.qp->qp_num;
            ep = vrb_ep_of_qpn(iface, qpn);
        }
        break;
    default:
        break;
    }
    if (ep != NULL)
        snprintf(msg, sizeof(msg), "rank %d (%s): verbs QP 0x%x to rank %d (%s, QP 0x%x) on "
                 "%s port %u: async event \"%s\"; %s", iface->world_rank, iface->host, qpn,
                 ep->super.peer, ep->host, ep->remote_qpn, iface->dev.name, iface->dev.port,
                 ibv_event_type_str(ev->event_type), hint);
    else if (qpn != 0)
        snprintf(msg, sizeof(msg), "rank %d (%s): verbs QP 0x%x on %s port %u: async event "
                 "\"%s\"; %s", iface->world_rank, iface->host, qpn, iface->dev.name,
                 iface->dev.port, ibv_event_type_str(ev->event_type), hint);
    else
        snprintf(msg, sizeof(msg), "rank %d (%s): verbs device %s port %u: async event "
                 "\"%s\"; %s", iface->world_rank, iface->host, iface->dev.name,
                 iface->dev.port, ibv_event_type_str(ev->event_type), hint);
    ibv_ack_async_event((struct ibv_async_event *)ev);
    vrb_fatal(iface, ep, msg);
}

int vrb_async_poll(vrb_iface_t *iface)
{
    struct ibv_context *ctx = iface->dev.ctx;
    struct ibv_async_event ev;
    int n = 0;

    if (__builtin_expect(async_countdown-- > 0, 1))
        return 0;
    async_countdown = VRB_ASYNC_EVERY;
    if (ctx == NULL)
        return 0;
    /* the fd is ours to poll: never block in ibv_get_async_event */
    if (async_fd_nonblocking != ctx->async_fd) {
        int fl = fcntl(ctx->async_fd, F_GETFL);

        if (fl < 0 || fcntl(ctx->async_fd, F_SETFL, fl | O_NONBLOCK) != 0)
            return 0;
        async_fd_nonblocking = ctx->async_fd;
    }
    while (ibv_get_async_event(ctx, &ev) == 0) {
        const char *hint = event_hint(ev.event_type);

        if (hint != NULL && !iface->closing)
            async_fatal(iface, &ev, hint);
        rtm_debug("rank %d (%s): verbs %s port %u: async event \"%s\"", iface->world_rank,
                  iface->host, iface->dev.name, iface->dev.port,
                  ibv_event_type_str(ev.event_type));
        ibv_ack_async_event(&ev);
        n++;
    }
    return n;
}
