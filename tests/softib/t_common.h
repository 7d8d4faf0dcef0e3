/*
 * Helpers for softib's own tests: open the device, make and connect QPs,
 * poll with a deadline. Checks are tests/harness.h's (EXPECT counted, CHECK
 * fatal; th_case names the part running). The tests link libsoftib
 * directly, so they exercise exactly what LD_PRELOAD would provide.
 */
#ifndef SOFTIB_T_COMMON_H
#define SOFTIB_T_COMMON_H

#include "tests/harness.h"

#include <infiniband/verbs.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>


struct t_dev {
    struct ibv_context *ctx;
    struct ibv_pd *pd;
    uint16_t lid;
};

struct t_conn {            /* how a QP is connected (RTR/RTS attributes) */
    uint8_t timeout, retry_cnt, rnr_retry, min_rnr_timer;
    int access;
};

void t_dev_open(struct t_dev *d);
void t_dev_close(struct t_dev *d);
struct ibv_cq *t_cq(struct t_dev *d, int cqe);
struct ibv_qp *t_rc_qp(struct t_dev *d, struct ibv_cq *scq, struct ibv_cq *rcq,
                       uint32_t max_send_wr, uint32_t max_recv_wr);
struct t_conn t_conn_default(void);
/* RESET -> INIT -> RTR -> RTS towards (dlid, dqpn); 0 or errno */
int t_connect(struct ibv_qp *qp, uint16_t dlid, uint32_t dqpn,
              const struct t_conn *c);
/* one completion within ms milliseconds: 1, or 0 on timeout */
int t_poll(struct ibv_cq *cq, struct ibv_wc *wc, int ms);
/* no completion for ms milliseconds: true */
bool t_quiet(struct ibv_cq *cq, int ms);
int t_post_send(struct ibv_qp *qp, enum ibv_wr_opcode op, struct ibv_mr *mr,
                void *buf, uint32_t len, uint64_t raddr, uint32_t rkey,
                uint64_t wr_id);
int t_post_recv(struct ibv_qp *qp, struct ibv_mr *mr, void *buf, uint32_t len,
                uint64_t wr_id);
/* the exit code: 1 if a check failed, else 0 ("all checks passed") */
int t_finish(void);

#endif
