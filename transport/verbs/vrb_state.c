/*
 * The verbs endpoint's part of a job-state report (ops.ep_state): the QP's
 * state as the device has it (ibv_query_qp), its number, work requests
 * posted and not yet retired, the retry and RNR retry counts it was
 * programmed with, and the flow-control credits. Read on the slow path of
 * a report only: a query, never a modify.
 */
#include "config.h"

#include "transport/verbs/vrb.h"

#include <infiniband/verbs.h>
#include <stdio.h>
#include <string.h>

static const char *vrb_qp_state_name(enum ibv_qp_state s)
{
    switch (s) {
    case IBV_QPS_RESET: return "RESET";
    case IBV_QPS_INIT:  return "INIT";
    case IBV_QPS_RTR:   return "RTR";
    case IBV_QPS_RTS:   return "RTS";
    case IBV_QPS_SQD:   return "SQD";
    case IBV_QPS_SQE:   return "SQE";
    case IBV_QPS_ERR:   return "ERR";
    default:            return "unknown";
    }
}

size_t vrb_ep_state(rtm_tl_ep_t *tl_ep, char *buf, size_t len)
{
    vrb_ep_t *ep = vrb_ep_of(tl_ep);
    struct ibv_qp_attr attr;
    struct ibv_qp_init_attr init;
    const char *state = "none";
    int n, retry = -1, rnr = -1, timeout = -1;
    uint32_t qpn = 0;

    if (buf == NULL || len == 0)
        return 0;
    buf[0] = '\0';
    if (ep == NULL)
        return 0;
    if (ep->qp != NULL) {
        qpn = ep->qp->qp_num;
        memset(&attr, 0, sizeof(attr));
        if (ibv_query_qp(ep->qp, &attr, IBV_QP_STATE | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
                         IBV_QP_TIMEOUT, &init) == 0) {
            state = vrb_qp_state_name(attr.qp_state);
            retry = attr.retry_cnt;
            rnr = attr.rnr_retry;
            timeout = attr.timeout;
        } else {
            state = "query failed";
        }
    }
    n = snprintf(buf, len, "\"qp_state\":\"%s\",\"qp_num\":\"0x%x\",\"remote_qp_num\":\"0x%x\","
                 "\"connected\":%d,\"conn_state\":%d,\"sq_outstanding\":%llu,"
                 "\"sq_depth\":%d,\"retry_cnt\":%d,\"rnr_retry\":%d,\"timeout\":%d,"
                 "\"tx_credits\":%d,\"credits_owed\":%d,\"rma_inflight\":%d,"
                 "\"qp_access\":\"0x%x\",\"peer_host\":\"%s\"",
                 state, (unsigned)qpn, (unsigned)ep->remote_qpn, ep->connected, ep->conn_state,
                 (unsigned long long)(ep->sq_head - ep->sq_tail), VRB_SQ_DEPTH, retry, rnr,
                 timeout, ep->tx_credits, ep->credits_owed, ep->rma_inflight,
                 (unsigned)ep->qp_access, ep->host);
    return n < 0 ? 0 : (size_t)n >= len ? len - 1 : (size_t)n;
}
