/*
 * The payloads of the daemon-tree messages rtrun and rtd handle
 * themselves: checks and decoding (launcher/rtd_msg.h).
 */
#include "config.h"

#include "launcher/rtd_msg.h"
#include "launcher/pmix_server.h"

#include <signal.h>
#include <string.h>

int rtd_msg_decode(const rtd_hdr_t *h, const char *payload, int nprocs, rtd_msg_t *m)
{
    int ranked;

    if (h == NULL || m == NULL || (payload == NULL && h->len > 0))
        return 0;
    memset(m, 0, sizeof(*m));
    m->type = (int)h->type;
    m->data = payload;
    m->len = h->len;
    ranked = h->type == RTD_MSG_STARTED || h->type == RTD_MSG_IOF || h->type == RTD_MSG_EXIT ||
             h->type == RTD_MSG_PMIXEV || h->type == RTD_MSG_STATE;
    if (ranked) {
        if (h->a < 0 || h->a >= nprocs)
            return 0;
        m->rank = h->a;
    }
    switch (h->type) {
    case RTD_MSG_STARTED:
        m->pid = h->b;
        return h->b > 0 && h->len == 0;
    case RTD_MSG_IOF:
        m->stream = h->b;
        m->eof = h->c != 0;
        return h->b == 1 || h->b == 2;
    case RTD_MSG_EXIT:
        m->wstatus = h->b;
        m->connected = h->c & 1;
        m->finalized = (h->c >> 1) & 1;
        return h->len == 0;
    case RTD_MSG_PMIXEV:
        m->ev_type = h->b;
        m->ev_status = h->c;
        return h->b >= RTRUN_PMIX_EV_CONNECTED && h->b <= RTRUN_PMIX_EV_LOST;
    case RTD_MSG_STATE:
        m->seq = (unsigned)h->b;
        return 1;
    case RTD_MSG_ERROR:
        m->lost_host = h->a;
        m->code = h->b;
        return 1;
    case RTD_MSG_STDIN_ACK:
        m->acked = h->a > 0 ? (size_t)h->a : 0;
        return h->a > 0 && h->len == 0;
    case RTD_MSG_STDIN:
        m->eof = h->c != 0;
        return h->len <= RTD_STDIN_WINDOW;
    case RTD_MSG_KILL:
        m->sig = h->a;
        return h->a > 0 && h->a < NSIG && h->len == 0;
    case RTD_MSG_STATE_ASK:
        m->seq = (unsigned)h->a;
        return h->len == 0;
    default:
        return 0;
    }
}
