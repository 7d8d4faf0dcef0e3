/* Unit test of the daemon tree's wire format: the message header round
 * trip, refusal of a length above RTD_MAX_PAYLOAD, whole messages cut out
 * of a connection's input buffer, and the job description round trip and
 * refusal of a truncated one; the checks of the messages rtrun and rtd
 * take for themselves (rtd_msg_decode). */
#include "config.h"

#include "launcher/rtd_conn.h"
#include "launcher/rtd_jobdesc.h"
#include "launcher/rtd_msg.h"
#include "launcher/pmix_server.h"
#include "launcher/rtd_wire.h"
#include "tests/harness.h"

#include <arpa/inet.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void test_hdr_round_trip(void)
{
    rtd_hdr_t h = {.type = RTD_MSG_DMX_RESP, .len = 12345, .dst = -1, .a = -7, .b = 0x7fffffff,
                   .c = (int32_t)0x80000000u};
    rtd_hdr_t back;
    unsigned char wire[RTD_HDR_SIZE];
    uint32_t first;

    rtd_hdr_pack(&h, wire);
    memcpy(&first, wire, 4);
    EXPECT(ntohl(first) == RTD_MSG_DMX_RESP, "type not first in network order");
    EXPECT(rtd_hdr_unpack(wire, &back) == 0, "unpack refused a valid header");
    EXPECT(memcmp(&h, &back, sizeof(h)) == 0, "header did not survive the round trip");

    h.len = RTD_MAX_PAYLOAD;
    rtd_hdr_pack(&h, wire);
    EXPECT(rtd_hdr_unpack(wire, &back) == 0 && back.len == RTD_MAX_PAYLOAD,
           "the largest payload must be accepted");
}

static void test_hdr_too_long(void)
{
    rtd_hdr_t h = {.type = RTD_MSG_IOF, .len = RTD_MAX_PAYLOAD + 1u, .dst = 3};
    rtd_hdr_t back = {.type = 99};
    unsigned char wire[RTD_HDR_SIZE];

    rtd_hdr_pack(&h, wire);
    EXPECT(rtd_hdr_unpack(wire, &back) == -1, "a length above the maximum was accepted");
    EXPECT(back.type == 99, "a refused header was written to the output");
    h.len = 0xffffffffu;
    rtd_hdr_pack(&h, wire);
    EXPECT(rtd_hdr_unpack(wire, &back) == -1, "length 0xffffffff was accepted");
}

/* Messages queued on one connection, handed to another's input buffer. */
static void test_conn_messages(void)
{
    rtd_conn_t tx, rx;
    rtd_hdr_t h;
    const char *payload;

    rtd_conn_init(&tx);
    rtd_conn_init(&rx);
    tx.hello = 1; /* not connected, but queues (as a child before its HELLO) */
    rtd_conn_send(&tx, RTD_MSG_STDIN, 2, 0, 0, 1, "abc", 3);
    rtd_conn_send(&tx, RTD_MSG_KILL, -1, 9, 0, 0, NULL, 0);
    EXPECT(tx.out_len == 2 * RTD_HDR_SIZE + 3, "queued %zu bytes", tx.out_len);

    /* a partial header, then a partial payload: nothing yet */
    rx.in = malloc(tx.out_len);
    rx.in_cap = tx.out_len;
    memcpy(rx.in, tx.out, tx.out_len);
    rx.in_len = RTD_HDR_SIZE - 1;
    EXPECT(rtd_conn_next(&rx, &h, &payload) == 0, "partial header taken as a message");
    rx.in_len = RTD_HDR_SIZE + 2;
    EXPECT(rtd_conn_next(&rx, &h, &payload) == 0, "partial payload taken as a message");
    rx.in_len = tx.out_len;
    EXPECT(rtd_conn_next(&rx, &h, &payload) == 1 && h.type == RTD_MSG_STDIN && h.dst == 2 &&
               h.c == 1 && h.len == 3 && memcmp(payload, "abc", 3) == 0,
           "first message wrong");
    rtd_conn_consume(&rx, &h);
    EXPECT(rtd_conn_next(&rx, &h, &payload) == 1 && h.type == RTD_MSG_KILL && h.a == 9 &&
               h.len == 0,
           "second message wrong");
    rtd_conn_consume(&rx, &h);
    EXPECT(rx.in_len == 0 && rtd_conn_next(&rx, &h, &payload) == 0, "buffer not empty");

    /* a header announcing too much is a protocol error, not a wait */
    h.type = RTD_MSG_IOF;
    h.len = RTD_MAX_PAYLOAD + 1u;
    h.dst = h.a = h.b = h.c = 0;
    rtd_hdr_pack(&h, rx.in);
    rx.in_len = RTD_HDR_SIZE;
    EXPECT(rtd_conn_next(&rx, &h, &payload) == -1, "oversized message not refused");
    rtd_conn_close(&tx);
    rtd_conn_close(&rx);
}

static rtd_jobdesc_t sample_desc(rtrun_job_t *job, char **argv, char **env)
{
    rtd_jobdesc_t d;

    memset(&d, 0, sizeof(d));
    snprintf(job->nspace, sizeof(job->nspace), "rtm.test.42");
    snprintf(job->hosts[0].name, sizeof(job->hosts[0].name), "h0");
    snprintf(job->hosts[1].name, sizeof(job->hosts[1].name), "h1");
    job->hosts[0].slots = 2;
    job->hosts[1].slots = 4;
    job->hosts[0].nranks = 1;
    job->hosts[1].nranks = 2;
    for (int r = 0; r < 3; r++) {
        job->ranks[r].node_id = r == 0 ? 0 : 1;
        job->ranks[r].local_rank = r == 0 ? 0 : r - 1;
        job->ranks[r].node_rank = job->ranks[r].local_rank;
    }
    job->oversubscribed = 1;
    d.job = job;
    d.root_host = 0;
    d.fanout = 2;
    d.bind = 1;
    d.map_by = 2;
    d.report_bindings = 1;
    d.agent = "ip netns exec {host}";
    d.rtd_path = "/usr/bin/rtd";
    d.cwd = NULL;
    d.prog_argc = 2;
    d.prog_argv = argv;
    d.nenv = 1;
    d.env = env;
    return d;
}

static void test_jobdesc(void)
{
    rtrun_job_t *job = rtd_job_alloc(3, 2);
    char *argv[] = {"./app", "--flag", NULL}, *env[] = {"RTM_LOG=debug", NULL};
    rtd_jobdesc_t d, back;
    char *blob = NULL;
    size_t len = 0;

    if (job == NULL) {
        EXPECT(0, "rtd_job_alloc failed");
        return;
    }
    d = sample_desc(job, argv, env);
    EXPECT(rtd_jobdesc_pack(&d, &blob, &len) == RTM_OK, "pack failed");
    EXPECT(rtd_jobdesc_unpack(blob, len, &back) == RTM_OK, "unpack failed");
    EXPECT(strcmp(back.job->nspace, "rtm.test.42") == 0 && back.job->nprocs == 3 &&
               back.job->nhosts == 2 && back.job->oversubscribed == 1,
           "job header wrong");
    EXPECT(strcmp(back.job->hosts[1].name, "h1") == 0 && back.job->hosts[1].slots == 4 &&
               back.job->hosts[1].nranks == 2,
           "host wrong");
    EXPECT(back.job->ranks[2].node_id == 1 && back.job->ranks[2].local_rank == 1 &&
               back.job->ranks[2].pid == -1 && back.job->ranks[2].state == RTRUN_RANK_NOT_STARTED,
           "rank wrong");
    EXPECT(back.root_host == 0 && back.fanout == 2 && back.bind == 1 && back.map_by == 2 &&
               back.report_bindings == 1,
           "settings wrong");
    EXPECT(strcmp(back.agent, "ip netns exec {host}") == 0 && back.cwd == NULL,
           "strings wrong (a NULL string must stay NULL)");
    EXPECT(back.prog_argc == 2 && strcmp(back.prog_argv[1], "--flag") == 0 &&
               back.prog_argv[2] == NULL,
           "argv wrong");
    EXPECT(back.nenv == 1 && strcmp(back.env[0], "RTM_LOG=debug") == 0, "env wrong");
    rtd_jobdesc_free(&back);

    /* every truncation is refused, none crashes */
    for (size_t cut = 0; cut < len; cut++)
        EXPECT(rtd_jobdesc_unpack(blob, cut, &back) != RTM_OK, "truncated at %zu accepted", cut);
    /* another version's description */
    blob[0] ^= 0x55;
    EXPECT(rtd_jobdesc_unpack(blob, len, &back) != RTM_OK, "bad magic accepted");
    free(blob);
    rtd_job_free(job);
}

/* What rtrun's on_remote and rtd's handler act on: a message of the job,
 * every field in range; anything else is ignored. */
static void test_msg_decode(void)
{
    static const char text[] = "rank 2 said so";
    rtd_hdr_t h;
    rtd_msg_t m;

#define MSG(t, len_, a_, b_, c_) \
    (h = (rtd_hdr_t){.type = (t), .len = (len_), .dst = -1, .a = (a_), .b = (b_), .c = (c_)})
    MSG(RTD_MSG_IOF, sizeof(text) - 1, 3, 2, 1);
    EXPECT(rtd_msg_decode(&h, text, 4, &m) == 1 && m.rank == 3 && m.stream == 2 && m.eof == 1 &&
           m.data == text && m.len == sizeof(text) - 1, "a valid IOF was not decoded");
    MSG(RTD_MSG_IOF, 0, 4, 1, 0);
    EXPECT(rtd_msg_decode(&h, NULL, 4, &m) == 0, "IOF of rank 4 in a job of 4 accepted");
    MSG(RTD_MSG_IOF, 0, -1, 1, 0);
    EXPECT(rtd_msg_decode(&h, NULL, 4, &m) == 0, "IOF of rank -1 accepted");
    MSG(RTD_MSG_IOF, 0, 0, 3, 0);
    EXPECT(rtd_msg_decode(&h, NULL, 4, &m) == 0, "IOF of stream 3 accepted");
    MSG(RTD_MSG_STARTED, 0, 1, 4242, 0);
    EXPECT(rtd_msg_decode(&h, NULL, 4, &m) == 1 && m.rank == 1 && m.pid == 4242,
           "a valid STARTED was not decoded");
    MSG(RTD_MSG_STARTED, 0, 1, 0, 0);
    EXPECT(rtd_msg_decode(&h, NULL, 4, &m) == 0, "STARTED with pid 0 accepted");
    MSG(RTD_MSG_EXIT, 0, 2, 9, 3);
    EXPECT(rtd_msg_decode(&h, NULL, 4, &m) == 1 && m.wstatus == 9 && m.connected == 1 &&
           m.finalized == 1, "a valid EXIT was not decoded");
    MSG(RTD_MSG_PMIXEV, 0, 2, RTRUN_PMIX_EV_FENCE, 0);
    EXPECT(rtd_msg_decode(&h, NULL, 4, &m) == 0, "a PMIx event rtrun never takes from the tree "
           "accepted");
    MSG(RTD_MSG_STDIN_ACK, 0, 0, 0, 0);
    EXPECT(rtd_msg_decode(&h, NULL, 4, &m) == 0, "a stdin ack of 0 bytes accepted");
    MSG(RTD_MSG_STDIN_ACK, 0, -5, 0, 0);
    EXPECT(rtd_msg_decode(&h, NULL, 4, &m) == 0, "a stdin ack of -5 bytes accepted");
    MSG(RTD_MSG_STDIN_ACK, 0, 100, 0, 0);
    EXPECT(rtd_msg_decode(&h, NULL, 4, &m) == 1 && m.acked == 100, "a stdin ack refused");
    MSG(RTD_MSG_KILL, 0, SIGTERM, 0, 0);
    EXPECT(rtd_msg_decode(&h, NULL, 4, &m) == 1 && m.sig == SIGTERM, "KILL SIGTERM refused");
    MSG(RTD_MSG_KILL, 0, NSIG, 0, 0);
    EXPECT(rtd_msg_decode(&h, NULL, 4, &m) == 0, "KILL with signal NSIG accepted");
    MSG(RTD_MSG_STDIN, RTD_STDIN_WINDOW + 1, 0, 0, 0);
    EXPECT(rtd_msg_decode(&h, text, 4, &m) == 0, "STDIN beyond rtrun's window accepted");
    MSG(RTD_MSG_FENCE_UP, 0, 0, 0, 0);
    EXPECT(rtd_msg_decode(&h, NULL, 4, &m) == 0, "a fence message taken as rtrun's own");
#undef MSG
}

int main(void)
{
    th_name = "test_wire";
    test_hdr_round_trip();
    test_hdr_too_long();
    test_conn_messages();
    test_jobdesc();
    test_msg_decode();
    if (th_failures > 0)
        TH_RETURN();
    printf("test_wire: ok\n");
    return 0;
}
