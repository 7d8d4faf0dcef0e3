/*
 * The TCP transport's config rows. Data only (rtrun and the unit tests link
 * it without the transport).
 */
#include "config.h"

#include "transport/tcp/tcp_config.h"

tcp_config_t tcp_config;

static const rtm_cfg_row_t tcp_config_rows[] = {
    RTM_CFG_ROW(TCP_IF, tcp_config_t, interfaces, STRING, "", NULL, 0, 0,
      "TCP: interfaces and subnets to use, comma-separated names or CIDR (e.g. eth0,10.0.0.0/8); empty: every interface that is up except loopback, or loopback alone when all ranks share one host"),
    /* up to one message (TCP_AM_MAX); the transport keeps room for the
     * runtime's header in it */
    RTM_CFG_ROW(TCP_EAGER_LIMIT, tcp_config_t, eager_limit, SIZE, "32K", NULL, 0, 64 * RTM_CFG_KIB,
      "TCP: largest message sent eagerly; larger ones use rendezvous (RTS, CTS, then a stream of 64 KiB fragments)"),
};

rtm_cfg_table_t tcp_config_table =
    RTM_CFG_TABLE_INIT("tcp", "TCP transport", tcp_config_rows, tcp_config);
