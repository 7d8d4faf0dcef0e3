/*
 * Fuzz target: the daemon-tree messages rtrun and rtd take for themselves
 * (a rank started, its output, exit, PMIx events and job-state answer, a
 * daemon's error, stdin acks; stdin, kill and job-state questions), through
 * the check both programs call first (launcher/rtd_msg.c rtd_msg_decode),
 * then formatted as rtrun's on_remote does with what it returned.
 *
 * The input: u8 nprocs - 1, then the header's fields (u32 type, u32 a, b,
 * c as int32, little endian), then the payload: the rest of the input, as
 * rtd_conn_next hands a whole message (h.len is its length). An accepted
 * message names a rank of the job, a stream, signal, event type and ack
 * in range, and its payload is the input's.
 *
 * RTM_FUZZ_RTD_MSG_SEEDS=DIR writes the seed corpus (each message as rtd.c
 * and rtrun.c send it, for a job of 4 ranks) into DIR and exits.
 */
#include "config.h"

#include "launcher/rtd_msg.h"
#include "launcher/pmix_server.h"
#include "tests/fuzz/fuzz.h"

#include <signal.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fz_in_t in = fz_in(data, size);
    int nprocs = 1 + fz_u8(&in);
    rtd_hdr_t h;
    rtd_msg_t m;
    const uint8_t *p;
    char *payload;
    char text[3072], evmsg[244];

    memset(&h, 0, sizeof(h));
    h.type = fz_u32(&in);
    h.a = (int32_t)fz_u32(&in);
    h.b = (int32_t)fz_u32(&in);
    h.c = (int32_t)fz_u32(&in);
    h.dst = -1;
    h.len = (uint32_t)fz_bytes(&in, in.left, &p);
    payload = fz_dup(p, h.len);
    if (payload == NULL)
        return 0;
    if (rtd_msg_decode(&h, payload, nprocs, &m)) {
        FZ_CHECK(m.type == (int)h.type && m.data == payload && m.len == h.len);
        FZ_CHECK(m.eof == 0 || m.eof == 1);
        switch (m.type) {
        case RTD_MSG_STARTED:
        case RTD_MSG_IOF:
        case RTD_MSG_EXIT:
        case RTD_MSG_PMIXEV:
        case RTD_MSG_STATE:
            FZ_CHECK(m.rank >= 0 && m.rank < nprocs);
            break;
        case RTD_MSG_ERROR:
        case RTD_MSG_STDIN_ACK:
        case RTD_MSG_STDIN:
        case RTD_MSG_KILL:
        case RTD_MSG_STATE_ASK:
            break;
        default:
            FZ_CHECK(!"a type nobody handles accepted");
        }
        if (m.type == RTD_MSG_STARTED)
            FZ_CHECK(m.pid > 0 && m.len == 0);
        if (m.type == RTD_MSG_IOF)
            FZ_CHECK(m.stream == 1 || m.stream == 2);
        if (m.type == RTD_MSG_EXIT)
            FZ_CHECK((m.connected == 0 || m.connected == 1) &&
                     (m.finalized == 0 || m.finalized == 1));
        if (m.type == RTD_MSG_PMIXEV) {
            FZ_CHECK(m.ev_type >= RTRUN_PMIX_EV_CONNECTED && m.ev_type <= RTRUN_PMIX_EV_LOST);
            snprintf(evmsg, sizeof(evmsg), "%.*s", (int)m.len, m.data);
        }
        if (m.type == RTD_MSG_ERROR)
            snprintf(text, sizeof(text), "%.*s", (int)m.len, m.data);
        if (m.type == RTD_MSG_STDIN_ACK)
            FZ_CHECK(m.acked > 0);
        if (m.type == RTD_MSG_STDIN)
            FZ_CHECK(m.len <= RTD_STDIN_WINDOW);
        if (m.type == RTD_MSG_KILL)
            FZ_CHECK(m.sig > 0 && m.sig < NSIG);
    }
    free(payload);
    return 0;
}

/* ---- the seed corpus ---------------------------------------------------- */

static void seed(const char *dir, const char *name, uint32_t type, int32_t a, int32_t b, int32_t c,
                 const char *payload)
{
    uint8_t buf[256];
    size_t n = 0, plen = payload != NULL ? strlen(payload) : 0;
    uint32_t f[4] = {type, (uint32_t)a, (uint32_t)b, (uint32_t)c};
    char path[4096];
    rtd_hdr_t h = {type, (uint32_t)plen, -1, a, b, c};
    rtd_msg_t m;
    FILE *fp;

    buf[n++] = 3; /* 4 ranks */
    for (int i = 0; i < 4; i++)
        for (int k = 0; k < 4; k++)
            buf[n++] = (uint8_t)(f[i] >> (8 * k));
    memcpy(buf + n, payload != NULL ? payload : "", plen);
    n += plen;
    if (!rtd_msg_decode(&h, payload, 4, &m)) {
        fprintf(stderr, "seed %s is not accepted\n", name);
        exit(1);
    }
    snprintf(path, sizeof(path), "%s/%s", dir, name);
    fp = fopen(path, "wb");
    if (fp == NULL || fwrite(buf, 1, n, fp) != n) {
        fprintf(stderr, "cannot write %s\n", path);
        exit(1);
    }
    fclose(fp);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    const char *dir = getenv("RTM_FUZZ_RTD_MSG_SEEDS");

    (void)argc;
    (void)argv;
    if (dir == NULL)
        return 0;
    /* up, to rtrun (rtd.c's eng_on_* callbacks, report.c) */
    seed(dir, "started", RTD_MSG_STARTED, 2, 4242, 0, NULL);
    seed(dir, "iof_stdout", RTD_MSG_IOF, 1, 1, 0, "hello from rank 1\n");
    seed(dir, "iof_stderr_eof", RTD_MSG_IOF, 3, 2, 1, NULL);
    seed(dir, "exit", RTD_MSG_EXIT, 2, 0, 3, NULL);
    seed(dir, "exit_signal", RTD_MSG_EXIT, 3, SIGKILL, 1, NULL);
    seed(dir, "pmixev_abort", RTD_MSG_PMIXEV, 1, RTRUN_PMIX_EV_ABORT, 71, "it went wrong");
    seed(dir, "pmixev_lost", RTD_MSG_PMIXEV, 2, RTRUN_PMIX_EV_LOST, 0, NULL);
    seed(dir, "state", RTD_MSG_STATE, 3, 1, 0, "rank 3: in rtm_recv from rank 0, tag 7");
    seed(dir, "error", RTD_MSG_ERROR, -1, 1, 0, "rtd on host h2: cannot start rank 2");
    seed(dir, "error_lost", RTD_MSG_ERROR, 1, 1, 0, "rtd on host h1 lost");
    seed(dir, "stdin_ack", RTD_MSG_STDIN_ACK, 4096, 0, 0, NULL);
    /* down, to rtd (rtrun.c) */
    seed(dir, "stdin", RTD_MSG_STDIN, 0, 0, 0, "line of input\n");
    seed(dir, "stdin_eof", RTD_MSG_STDIN, 0, 0, 1, NULL);
    seed(dir, "kill", RTD_MSG_KILL, SIGTERM, 0, 0, NULL);
    seed(dir, "state_ask", RTD_MSG_STATE_ASK, 1, 0, 0, NULL);
    exit(0);
}
