/*
 * The daemon tree's message header (see rtd_wire.h for the layout).
 */
#include "config.h"

#include "launcher/rtd_wire.h"

#include <arpa/inet.h>
#include <string.h>

void rtd_hdr_pack(const rtd_hdr_t *h, void *out)
{
    uint32_t w[6];

    w[0] = htonl(h->type);
    w[1] = htonl(h->len);
    w[2] = htonl((uint32_t)h->dst);
    w[3] = htonl((uint32_t)h->a);
    w[4] = htonl((uint32_t)h->b);
    w[5] = htonl((uint32_t)h->c);
    memcpy(out, w, RTD_HDR_SIZE);
}

int rtd_hdr_unpack(const void *in, rtd_hdr_t *h_p)
{
    uint32_t w[6];
    rtd_hdr_t h;

    memcpy(w, in, RTD_HDR_SIZE);
    h.type = ntohl(w[0]);
    h.len = ntohl(w[1]);
    h.dst = (int32_t)ntohl(w[2]);
    h.a = (int32_t)ntohl(w[3]);
    h.b = (int32_t)ntohl(w[4]);
    h.c = (int32_t)ntohl(w[5]);
    if (h.len > RTD_MAX_PAYLOAD)
        return -1;
    *h_p = h;
    return 0;
}
