/*
 * Unit test of active-message dispatch (runtime/am.c) on messages a peer
 * got wrong: a garbage, stale or mistyped request id in a CTS, FIN or
 * DATA, a truncated header, an unknown message type. Each must end the job
 * through the protocol-error path ("corrupt message from rank N", exit 70),
 * never read memory through the id. Each case runs in a child process; the
 * job's end (job_abort) is the stub below, which exits as job.c does.
 */
#include "config.h"

#include "runtime/am.h"
#include "runtime/peer.h"
#include "runtime/request.h"
#include "runtime/rt.h"
#include "runtime/wire.h"
#include "tests/harness.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

rtm_runtime_t rtm_rt;
/* --- the job (runtime/job.c needs a PMIx server): stubs --- */
static int abort_pipe = -1;

void job_abort(int code, const char *message)
{
    if (abort_pipe >= 0 && write(abort_pipe, message, strlen(message)) < 0)
        _exit(99);
    _exit(code);
}

const char *job_peer_hostname(int peer)
{
    (void)peer;
    return "testhost";
}

int job_peer_node(int peer)
{
    (void)peer;
    return 0;
}

rtm_status_t job_lookup(int peer, const char *key, void **blob_p, size_t *len_p)
{
    (void)peer;
    (void)key;
    (void)blob_p;
    (void)len_p;
    return RTM_ERR_UNREACHABLE;
}

/* Deliver one message from rank 1 in a child; expect the protocol error. */
static void expect_corrupt(const char *name, unsigned am_id, const void *msg, size_t len,
                           const char *why)
{
    int fds[2];
    char got[1024] = "";
    ssize_t n, total = 0;
    int wstatus = 0;
    pid_t pid;

    if (pipe(fds) != 0) {
        perror("pipe");
        exit(2);
    }
    pid = fork();
    if (pid == 0) {
        close(fds[0]);
        abort_pipe = fds[1];
        proto_am_handler(NULL, 1, am_id, msg, len);
        _exit(0);   /* accepted the message: a failure */
    }
    close(fds[1]);
    while ((n = read(fds[0], got + total, sizeof(got) - 1 - (size_t)total)) > 0)
        total += n;
    got[total] = '\0';
    close(fds[0]);
    waitpid(pid, &wstatus, 0);
    EXPECT(WIFEXITED(wstatus) && WEXITSTATUS(wstatus) == 70,
           "%s: the job ends with the protocol error (exit 70), not %s %d", name,
           WIFSIGNALED(wstatus) ? "signal" : "exit",
           WIFSIGNALED(wstatus) ? WTERMSIG(wstatus) : WEXITSTATUS(wstatus));
    EXPECT(strstr(got, "corrupt message from rank 1") != NULL, "%s: message names rank 1: '%s'",
           name, got);
    EXPECT(strstr(got, why) != NULL, "%s: message says '%s': '%s'", name, why, got);
}

int main(void)
{
    rtm_peer_t peers[2];
    rtm_request_impl_t *sreq, *rreq, *stale;
    uint64_t stale_id;

    th_name = "test_am";
    memset(peers, 0, sizeof(peers));
    for (int i = 0; i < 2; i++) {
        rtm_list_init(&peers[i].pending_sends);
        rtm_list_init(&peers[i].pending_ctrl);
        rtm_list_init(&peers[i].pending_link);
    }
    rtm_rt.world_rank = 0;
    rtm_rt.world_size = 2;
    rtm_rt.peers = peers;
    rtm_list_init(&rtm_rt.pending_peers);
    snprintf(rtm_rt.hostname, sizeof(rtm_rt.hostname), "testhost");
    req_pool_init();
    match_table_init(&rtm_rt.contexts, 64);

    /* a send waiting for its CTS/FIN, and a receive waiting for DATA, from rank 1 */
    sreq = req_alloc(RTM_REQ_SEND);
    sreq->peer = 1;
    sreq->len = 100;
    rreq = req_alloc(RTM_REQ_RECV);
    rreq->peer = 1;
    rreq->xfer_len = 100;
    stale = req_alloc(RTM_REQ_SEND);
    stale->peer = 1;
    stale_id = req_id(stale);
    req_release(stale);

    {
        const uint64_t garbage[] = {
            0x4141414141414141ull,      /* bytes of payload where an id should be */
            0,
            1,                          /* a small integer */
            (uint64_t)(uintptr_t)&peers[0],   /* a real address, not a request */
            stale_id,                   /* a request since released */
            req_id(rreq),               /* a receive named where a send is expected */
            req_id(sreq) ^ (1ull << 40),   /* a wrong generation */
            (uint64_t)0xffffffff,       /* an index far beyond the table */
        };

        for (size_t i = 0; i < sizeof(garbage) / sizeof(garbage[0]); i++) {
            rtm_cts_hdr_t cts = {garbage[i], 0, 10};
            rtm_fin_hdr_t fin = {garbage[i]};
            char name[64];

            snprintf(name, sizeof(name), "CTS with id %#llx", (unsigned long long)garbage[i]);
            expect_corrupt(name, RTM_AM_CTS, &cts, sizeof(cts), "unknown request");
            snprintf(name, sizeof(name), "FIN with id %#llx", (unsigned long long)garbage[i]);
            expect_corrupt(name, RTM_AM_FIN, &fin, sizeof(fin), "unknown request");
        }
        for (size_t i = 0; i < sizeof(garbage) / sizeof(garbage[0]); i++) {
            struct {
                rtm_data_hdr_t h;
                char payload[8];
            } data = {{garbage[i], 0}, "payload"};
            char name[64];

            if (garbage[i] == req_id(rreq))
                continue;   /* names the receive rightly */
            snprintf(name, sizeof(name), "DATA with id %#llx", (unsigned long long)garbage[i]);
            expect_corrupt(name, RTM_AM_DATA, &data, sizeof(data), "unknown request");
        }
    }
    {
        rtm_cts_hdr_t cts = {req_id(sreq), 0, 1000};
        rtm_data_hdr_t beyond = {req_id(rreq), 99};
        char big[sizeof(rtm_data_hdr_t) + 8];

        expect_corrupt("CTS for more than the message", RTM_AM_CTS, &cts, sizeof(cts),
                       "more than the message");
        memcpy(big, &beyond, sizeof(beyond));
        memset(big + sizeof(beyond), 0, 8);
        expect_corrupt("DATA beyond the buffer", RTM_AM_DATA, big, sizeof(big),
                       "beyond the receive buffer");
        expect_corrupt("truncated CTS", RTM_AM_CTS, &cts, sizeof(cts) - 1, "truncated CTS");
        expect_corrupt("truncated FIN", RTM_AM_FIN, &cts, 7, "truncated FIN");
        expect_corrupt("truncated DATA", RTM_AM_DATA, &cts, 15, "truncated DATA");
        expect_corrupt("truncated EAGER", RTM_AM_EAGER, &cts, 15, "truncated EAGER");
        expect_corrupt("truncated RTS", RTM_AM_RTS, &cts, 24, "truncated RTS");
        expect_corrupt("truncated CREDIT", RTM_AM_CREDIT, &cts, 3, "truncated CREDIT");
        expect_corrupt("unknown type 0", 0, &cts, sizeof(cts), "unknown message type");
        {
            /* rank 1 was lent no credit: any it returns is one too many
             * (0x80000001 overflowed tx_credits, found by tests/fuzz/fuzz_am) */
            rtm_credit_hdr_t credit = {0x80000001u};
            rtm_match_hdr_t piggy = {0, 0, 0, 0, 1};

            expect_corrupt("CREDIT of more than lent", RTM_AM_CREDIT, &credit, sizeof(credit),
                           "more eager credits returned than lent");
            expect_corrupt("EAGER returning more than lent", RTM_AM_EAGER, &piggy, sizeof(piggy),
                           "more eager credits returned than lent");
        }
        expect_corrupt("unknown type 200", 200, &cts, sizeof(cts), "unknown message type");
    }
    {
        rtm_match_hdr_t m = {99, 0, 0, 0, 0};

        expect_corrupt("EAGER for a context beyond the table", RTM_AM_EAGER, &m, sizeof(m),
                       "context id out of range");
        m.ctx = 0;
        m.seq = 5;
        expect_corrupt("EAGER out of order", RTM_AM_EAGER, &m, sizeof(m), "out of order");
    }
    {
        /* ids of requests that are not waiting for an answer: a send whose
         * RTS is still queued, a receive still posted. Taking them moved
         * them into a second queue through the same link: a CTS for a
         * queued send made the flush loop forever (found by fuzz_am). */
        rtm_request_impl_t *queued = req_alloc(RTM_REQ_SEND);
        rtm_request_impl_t *posted = req_alloc(RTM_REQ_RECV);
        rtm_cts_hdr_t cts;
        rtm_fin_hdr_t fin;
        rtm_data_hdr_t data;

        queued->peer = 1;
        queued->len = 100;
        queued->op = RTM_OP_RTS;
        posted->peer = 1;
        posted->flags |= RTM_REQ_F_POSTED;
        cts = (rtm_cts_hdr_t){req_id(queued), 0, 10};
        fin = (rtm_fin_hdr_t){req_id(queued)};
        data = (rtm_data_hdr_t){req_id(posted), 0};
        expect_corrupt("CTS for a send whose RTS is queued", RTM_AM_CTS, &cts, sizeof(cts),
                       "not waiting for it");
        expect_corrupt("FIN for a send whose RTS is queued", RTM_AM_FIN, &fin, sizeof(fin),
                       "not waiting for it");
        expect_corrupt("DATA for a receive still posted", RTM_AM_DATA, &data, sizeof(data),
                       "not waiting for it");
        req_release(queued);
        req_release(posted);
    }
    req_release(sreq);
    req_release(rreq);
    match_table_cleanup(&rtm_rt.contexts);
    req_pool_cleanup();
    if (th_failures > 0)
        TH_RETURN();
    printf("test_am: all checks passed\n");
    return 0;
}
