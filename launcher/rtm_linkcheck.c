/*
 * rtm_linkcheck: the across-hosts half of rtrun --check (docs/diagnostics.md).
 * rtrun starts it with one rank per host; it runs over librtmsg itself, so
 * each pair of hosts is tested on the transport a job would use.
 *
 * Every pair of hosts is measured REPS times, each time in n-1 rounds of
 * disjoint pairs (the circle method: in each round a host talks to one
 * peer, so the pairs of a round do not share a host's NIC); a link keeps its
 * best latency and bandwidth, so a moment of load on a busy host is not a
 * slow link, while a slow link is slow every time; the links that look SLOW
 * then are measured CONFIRM_REPS times more before the verdict:
 *   - connect: the first message each way (a failure names both hosts);
 *   - latency: the shortest of LAT_ITERS round trips of 8 bytes, halved
 *     (noise on a busy host only ever adds to a round trip: the shortest
 *     is the link's, and a slow link has no short one);
 *   - bandwidth: up to BW_MSGS messages of BW_BYTES one way (the sender
 *     stops after BW_TIME, two at least), timed at the receiver;
 *   - MTU: each end's route MTU toward the other (a connected UDP socket's
 *     IP_MTU to each of the peer's IPv4 addresses, the first that routes),
 *     so a link whose two ends disagree is found.
 * Each host also counts TCP segments sent and retransmitted during the test
 * (/proc/net/snmp of its network namespace), and reads its RDMA ports'
 * error counters before and after (sysfs, under SYSFS_PATH as libibverbs
 * does: RNR NAKs, ack timeouts, sequence errors, symbol and receive
 * errors): loss shows as retransmissions or retries.
 * Rank 0 gathers everything and prints the table (or JSON with --json).
 *
 * With three hosts or more, a link is flagged SLOW when its latency exceeds
 * RTM_CHECK_RATIO (4) times the fastest link's and the fastest's by more
 * than RTM_CHECK_LAT_FLOOR_US (500: the jitter of a busy host is not an
 * outlier), or its bandwidth is under 1/RTM_CHECK_RATIO of the best link's
 * (with two hosts there is nothing to compare with: the figures are shown). An MTU mismatch FAILs.
 * Retransmissions are shown, not judged (a busy host's full queues cause
 * some too). Exit: 0 all links fine, 1 a link failed a check.
 */
#include "config.h"

#include "rtmsg.h"

#include <arpa/inet.h>
#include <dirent.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/in.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#define LAT_ITERS     11
#define LAT_WARMUP    3
#define BW_BYTES      (256 << 10)
#define BW_MSGS       16
#define BW_TIME       0.02     /* seconds: the sender stops after this */
#define REPS          3
/* Links that look SLOW after REPS are measured this many times more (they
 * keep their best figures) before the verdict: under a burst of load (a
 * full CI on a 2-CPU machine) one healthy link measured 33 MB/s in all 3
 * repetitions against 4.19 GB/s for the others; a slow link stays slow. */
#define CONFIRM_REPS  4
/* Defaults of RTM_CHECK_RATIO and RTM_CHECK_LAT_FLOOR_US. */
#define SLOW_RATIO    4.0
#define SLOW_FLOOR_US 500.0
#define MAX_ADDRS     16
#define TAG_LAT       11
#define TAG_BW        12
#define TAG_ACK       13
#define TAG_END       16
#define TAG_INFO      14
#define TAG_ROW       15
#define TAG_SUSPECT   17

/* What a host tells every peer about itself. */
typedef struct host_info {
    char     name[64];
    int      naddrs;
    uint32_t addrs[MAX_ADDRS]; /* IPv4, network order, not loopback */
} host_info_t;

/* What one host measured toward one peer. */
typedef struct link_row {
    int    peer;
    int    mtu;          /* this end's route MTU toward the peer; 0 unknown */
    double lat_us;
    double bw_mbs;       /* received here: MB/s (10^6) */
} link_row_t;

#define MAX_CTRS 24

/* One RDMA port error counter: "dev:port name" and its value. */
typedef struct port_ctr {
    char               what[96];
    unsigned long long v;
} port_ctr_t;

typedef struct host_tail {
    long long  out_segs, retrans; /* TCP, during the test; -1 unknown */
    int        nctrs;             /* port counters that moved during it */
    port_ctr_t ctrs[MAX_CTRS];    /* .v: by how much */
} host_tail_t;

/* hw_counters/ and counters/ files of an RDMA port that count trouble. */
static const char *const hw_ctr_names[] = {
    "rnr_nak_retry_err", "local_ack_timeout_err", "packet_seq_err", "out_of_sequence",
    "implied_nak_seq_err",
};
static const char *const port_ctr_names[] = {
    "symbol_error", "port_rcv_errors", "port_xmit_discards", "link_downed",
    "port_rcv_remote_physical_errors",
};
#define NHW   (sizeof(hw_ctr_names) / sizeof(hw_ctr_names[0]))
#define NPORT (sizeof(port_ctr_names) / sizeof(port_ctr_names[0]))

static int me, np;
static double slow_ratio = SLOW_RATIO, slow_floor_us = SLOW_FLOOR_US;

/* A positive number from the environment, or def; *bad names a bad one. */
static double env_num(const char *name, double def, const char **bad)
{
    const char *v = getenv(name);
    char *end;
    double x;

    if (v == NULL || *v == '\0')
        return def;
    x = strtod(v, &end);
    if (*end != '\0' || !(x > 0) || x > 1e12) {
        *bad = name;
        return def;
    }
    return x;
}

static void die(const char *what, rtm_status_t st, int peer, const host_info_t *hosts)
{
    fprintf(stderr, "rtm_linkcheck: %s: %s <-> %s: %s (%s)\n", what, hosts[me].name,
            peer >= 0 ? hosts[peer].name : "?", rtm_strerror(st), rtm_last_error());
    rtm_abort(1, "link check failed");
}

static void local_addrs(host_info_t *h)
{
    struct ifaddrs *ifa, *p;

    h->naddrs = 0;
    if (getifaddrs(&ifa) != 0)
        return;
    for (p = ifa; p != NULL && h->naddrs < MAX_ADDRS; p = p->ifa_next) {
        if (p->ifa_addr == NULL || p->ifa_addr->sa_family != AF_INET ||
            (p->ifa_flags & IFF_LOOPBACK) || !(p->ifa_flags & IFF_UP))
            continue;
        h->addrs[h->naddrs++] = ((struct sockaddr_in *)p->ifa_addr)->sin_addr.s_addr;
    }
    freeifaddrs(ifa);
}

/* This end's route MTU toward the first of the peer's addresses that has a
 * route; 0 when none does. No packet is sent. */
static int route_mtu(const host_info_t *peer)
{
    for (int i = 0; i < peer->naddrs; i++) {
        struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons(9) };
        int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0), mtu = 0;
        socklen_t len = sizeof(mtu);

        if (fd < 0)
            return 0;
        sa.sin_addr.s_addr = peer->addrs[i];
        if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) == 0 &&
            getsockopt(fd, IPPROTO_IP, IP_MTU, &mtu, &len) == 0 && mtu > 0) {
            close(fd);
            return mtu;
        }
        close(fd);
    }
    return 0;
}

/* TCP OutSegs and RetransSegs of this network namespace; -1 unknown. */
static void tcp_counters(long long *out, long long *retrans)
{
    char names[1024], vals[1024];
    FILE *f = fopen("/proc/net/snmp", "r");

    *out = *retrans = -1;
    if (f == NULL)
        return;
    while (fgets(names, sizeof(names), f) != NULL) {
        char *np_, *vp, *sn, *sv;
        const char *n, *v;

        if (strncmp(names, "Tcp:", 4) != 0 || fgets(vals, sizeof(vals), f) == NULL)
            continue;
        n = strtok_r(names, " \n", &sn);
        v = strtok_r(vals, " \n", &sv);
        while ((np_ = strtok_r(NULL, " \n", &sn)) != NULL &&
               (vp = strtok_r(NULL, " \n", &sv)) != NULL) {
            if (strcmp(np_, "OutSegs") == 0)
                *out = atoll(vp);
            else if (strcmp(np_, "RetransSegs") == 0)
                *retrans = atoll(vp);
        }
        (void)n;
        (void)v;
        break;
    }
    fclose(f);
}

/* What came from another host is bounded before use: counts clamped,
 * strings terminated (the peers are the job's own, but a bad value must
 * not read past an array). */
static void host_info_clean(host_info_t *h)
{
    h->name[sizeof(h->name) - 1] = '\0';
    if (h->naddrs < 0 || h->naddrs > MAX_ADDRS)
        h->naddrs = 0;
}

static void host_tail_clean(host_tail_t *t)
{
    if (t->nctrs < 0 || t->nctrs > MAX_CTRS)
        t->nctrs = 0;
    for (int i = 0; i < t->nctrs; i++)
        t->ctrs[i].what[sizeof(t->ctrs[i].what) - 1] = '\0';
}

static int read_ull(const char *path, unsigned long long *v)
{
    FILE *f = fopen(path, "r");
    int ok;

    if (f == NULL)
        return -1;
    ok = fscanf(f, "%llu", v) == 1;
    fclose(f);
    return ok ? 0 : -1;
}

/* This host's RDMA port error counters (those that exist); how many. */
static int port_counters(port_ctr_t *c, int max)
{
    const char *sys = getenv("SYSFS_PATH");
    char dir[512], path[1200];
    struct dirent *d, *p;
    DIR *devs, *ports;
    int n = 0;

    snprintf(dir, sizeof(dir), "%s/class/infiniband", sys && *sys ? sys : "/sys");
    devs = opendir(dir);
    if (devs == NULL)
        return 0;
    while ((d = readdir(devs)) != NULL && n < max) {
        char pdir[800];  /* dir/<name>/ports */

        if (d->d_name[0] == '.')
            continue;
        snprintf(pdir, sizeof(pdir), "%.500s/%.255s/ports", dir, d->d_name);
        ports = opendir(pdir);
        if (ports == NULL)
            continue;
        while ((p = readdir(ports)) != NULL && n < max) {
            if (p->d_name[0] == '.')
                continue;
            for (size_t i = 0; i < NHW + NPORT && n < max; i++) {
                const char *name = i < NHW ? hw_ctr_names[i] : port_ctr_names[i - NHW];

                snprintf(path, sizeof(path), "%.800s/%.255s/%s/%s", pdir, p->d_name,
                         i < NHW ? "hw_counters" : "counters", name);
                if (read_ull(path, &c[n].v) == 0) {
                    snprintf(c[n].what, sizeof(c[n].what), "%.40s:%.8s %s", d->d_name,
                             p->d_name, name);
                    n++;
                }
            }
        }
        closedir(ports);
    }
    closedir(devs);
    return n;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;

    return (x > y) - (x < y);
}

/* Measures the link to peer (lo is the end that starts each exchange) and
 * keeps the best figures of repetition rep and those before. */
static void measure(int peer, const host_info_t *hosts, char *buf, link_row_t *row, int rep)
{
    double lat, bw = 0;
    int lo = me < peer;
    double rtt[LAT_ITERS], t0;
    rtm_status_t st;
    char b8[8] = { 0 };

    for (int i = 0; i < LAT_WARMUP + LAT_ITERS; i++) {
        t0 = rtm_wtime();
        if (lo) {
            if ((st = rtm_send(b8, 8, peer, TAG_LAT, RTM_COMM_WORLD)) != RTM_OK ||
                (st = rtm_recv(b8, 8, peer, TAG_LAT, RTM_COMM_WORLD, RTM_STATUS_IGNORE)) != RTM_OK)
                die(i == 0 ? "cannot connect" : "latency test failed", st, peer, hosts);
        } else {
            if ((st = rtm_recv(b8, 8, peer, TAG_LAT, RTM_COMM_WORLD, RTM_STATUS_IGNORE)) != RTM_OK ||
                (st = rtm_send(b8, 8, peer, TAG_LAT, RTM_COMM_WORLD)) != RTM_OK)
                die(i == 0 ? "cannot connect" : "latency test failed", st, peer, hosts);
        }
        if (i >= LAT_WARMUP)
            rtt[i - LAT_WARMUP] = rtm_wtime() - t0;
    }
    qsort(rtt, LAT_ITERS, sizeof(rtt[0]), cmp_double);
    lat = rtt[0] / 2 * 1e6;

    /* Bandwidth, each way in turn: the receiver times it. The sender stops
     * after BW_TIME (two messages at least), so a slow link costs little
     * time: its figure is clear after one timed message. */
    for (int dir = 0; dir < 2; dir++) {
        int sender = dir == 0 ? lo : !lo;

        if (sender) {
            t0 = rtm_wtime();
            for (int m = 0; m < BW_MSGS; m++) {
                if ((st = rtm_send(buf, BW_BYTES, peer, TAG_BW, RTM_COMM_WORLD)) != RTM_OK)
                    die("bandwidth test failed", st, peer, hosts);
                if (m >= 1 && rtm_wtime() - t0 > BW_TIME)
                    break;
            }
            if ((st = rtm_send(b8, 1, peer, TAG_END, RTM_COMM_WORLD)) != RTM_OK ||
                (st = rtm_recv(b8, 1, peer, TAG_ACK, RTM_COMM_WORLD, RTM_STATUS_IGNORE)) != RTM_OK)
                die("bandwidth test failed", st, peer, hosts);
        } else {
            rtm_msg_status_t ms;
            double t_last = 0;
            int n = -1;

            /* the first message starts the clock: the sender's start-up
             * is not the link's; messages arrive in order, the end last */
            for (;;) {
                if ((st = rtm_recv(buf, BW_BYTES, peer, RTM_ANY_TAG, RTM_COMM_WORLD, &ms)) !=
                    RTM_OK)
                    die("bandwidth test failed", st, peer, hosts);
                if (ms.tag == TAG_END)
                    break;
                t_last = rtm_wtime();
                if (++n == 0)
                    t0 = t_last;
            }
            bw = n > 0 && t_last > t0 ? (double)BW_BYTES * n / (t_last - t0) / 1e6 : 0;
            if ((st = rtm_send(b8, 1, peer, TAG_ACK, RTM_COMM_WORLD)) != RTM_OK)
                die("bandwidth test failed", st, peer, hosts);
        }
    }
    if (rep == 0 || lat < row->lat_us)
        row->lat_us = lat;
    if (rep == 0 || bw > row->bw_mbs)
        row->bw_mbs = bw;
    row->peer = peer;
    row->mtu = route_mtu(&hosts[peer]);
}

/* Repetitions rep0 .. rep0 + reps - 1 of every link of this host (only the
 * links a-b, a < b, with only[a * np + b] set, when only is not NULL), by the
 * circle method over n (even) slots: slot n-1 fixed, the rest rotate; with
 * an odd number of hosts the extra slot is a bye. */
static void measure_all(const host_info_t *hosts, char *buf, link_row_t *mine, int rep0, int reps,
                        const char *only)
{
    int n = np % 2 ? np + 1 : np;

    for (int rep = rep0; rep < rep0 + reps; rep++)
        for (int round = 0; round < n - 1; round++) {
            int peer = -1;

            for (int k = 0; k < n / 2; k++) {
                int x = k == 0 ? n - 1 : (round + k) % (n - 1);
                int y = (round + n - 1 - k) % (n - 1);

                if (x == me)
                    peer = y;
                else if (y == me)
                    peer = x;
            }
            if (peer < 0 || peer >= np)
                continue;
            if (only && !only[(me < peer ? me : peer) * np + (me < peer ? peer : me)])
                continue;
            measure(peer, hosts, buf, &mine[peer], rep);
        }
}

static void fmt_lat(char *out, size_t len, double us)
{
    if (us >= 1000)
        snprintf(out, len, "%.1f ms", us / 1000);
    else
        snprintf(out, len, "%.0f us", us);
}

static void fmt_bw(char *out, size_t len, double mbs)
{
    if (mbs >= 1000)
        snprintf(out, len, "%.2f GB/s", mbs / 1000);
    else
        snprintf(out, len, "%.0f MB/s", mbs);
}

static void json_str(const char *s)
{
    putchar('"');
    for (; *s; s++) {
        if (*s == '"' || *s == '\\')
            printf("\\%c", *s);
        else if ((unsigned char)*s < 0x20)
            printf("\\u%04x", *s);
        else
            putchar(*s);
    }
    putchar('"');
}

/* rows[a*np+b]: what host a measured toward host b. Returns 1 when a link
 * failed a check. */
/* The best latency and bandwidth over all links of rows. */
static void best_of(const link_row_t *rows, double *best_lat, double *best_bw)
{
    *best_lat = *best_bw = 0;
    for (int a = 0; a < np; a++)
        for (int b = a + 1; b < np; b++) {
            const link_row_t *ab = &rows[a * np + b], *ba = &rows[b * np + a];
            double lat = (ab->lat_us + ba->lat_us) / 2;
            double bw = ab->bw_mbs < ba->bw_mbs ? ab->bw_mbs : ba->bw_mbs;

            if (*best_lat == 0 || lat < *best_lat)
                *best_lat = lat;
            if (bw > *best_bw)
                *best_bw = bw;
        }
}

/* Whether link a-b (a < b) of rows is slow in latency (*slow_lat) or
 * bandwidth (*slow_bw) against the best links. */
static void slow_link(const link_row_t *rows, int a, int b, double best_lat, double best_bw,
                      int *slow_lat, int *slow_bw)
{
    const link_row_t *ab = &rows[a * np + b], *ba = &rows[b * np + a];
    double lat = (ab->lat_us + ba->lat_us) / 2;
    double bw = ab->bw_mbs < ba->bw_mbs ? ab->bw_mbs : ba->bw_mbs;

    *slow_lat = np > 2 && lat > slow_ratio * best_lat && lat - best_lat > slow_floor_us;
    *slow_bw = np > 2 && bw * slow_ratio < best_bw;
}

static int report(const host_info_t *hosts, const link_row_t *rows, const host_tail_t *tails,
                  int json)
{
    double best_lat, best_bw;
    int failed = 0, first = 1;

    best_of(rows, &best_lat, &best_bw);
    if (json)
        printf("{\"hosts\": %d, \"links\": [", np);
    else
        printf("links: librtmsg link check (%d hosts, every pair, on the job's transport)\n", np);
    for (int a = 0; a < np; a++)
        for (int b = a + 1; b < np; b++) {
            const link_row_t *ab = &rows[a * np + b], *ba = &rows[b * np + a];
            double lat = (ab->lat_us + ba->lat_us) / 2;
            double bw = ab->bw_mbs < ba->bw_mbs ? ab->bw_mbs : ba->bw_mbs;
            int slow_lat, slow_bw;
            int mtu_bad = ab->mtu > 0 && ba->mtu > 0 && ab->mtu != ba->mtu;
            const char *status;

            slow_link(rows, a, b, best_lat, best_bw, &slow_lat, &slow_bw);
            status = mtu_bad ? "FAIL" : slow_lat || slow_bw ? "SLOW" : "ok";
            char l[32], w[32], bl[32], bb[32], detail[512], fix[512] = "";

            fmt_lat(l, sizeof(l), lat);
            fmt_bw(w, sizeof(w), bw);
            fmt_lat(bl, sizeof(bl), best_lat);
            fmt_bw(bb, sizeof(bb), best_bw);
            snprintf(detail, sizeof(detail), "latency %s%s%s%s, bandwidth %s%s%s%s, MTU %d/%d%s",
                     l, slow_lat ? " (the fastest link: " : "", slow_lat ? bl : "",
                     slow_lat ? ")" : "", w, slow_bw ? " (the best link: " : "",
                     slow_bw ? bb : "", slow_bw ? ")" : "", ab->mtu, ba->mtu,
                     mtu_bad ? ": the two ends disagree" : "");
            if (mtu_bad)
                snprintf(fix, sizeof(fix),
                         "set one MTU on both ends and the switch ports between them "
                         "(ip link set dev <netdev> mtu %d on %s, or %d on %s); for RoCE also "
                         "the same active_mtu on both HCA ports",
                         ab->mtu > ba->mtu ? ab->mtu : ba->mtu,
                         ab->mtu > ba->mtu ? hosts[b].name : hosts[a].name,
                         ab->mtu > ba->mtu ? ba->mtu : ab->mtu,
                         ab->mtu > ba->mtu ? hosts[a].name : hosts[b].name);
            else if (slow_lat || slow_bw)
                snprintf(fix, sizeof(fix),
                         "look at this link's cable, switch port and NIC (ethtool -S, "
                         "perfquery), at traffic shaping (tc qdisc show) and at load on "
                         "either host; a host in every slow link is the one to look at");
            failed |= mtu_bad || slow_lat || slow_bw;
            if (json) {
                printf("%s{\"a\": ", first ? "" : ", ");
                json_str(hosts[a].name);
                printf(", \"b\": ");
                json_str(hosts[b].name);
                printf(", \"status\": \"%s\", \"latency_us\": %.1f, \"bandwidth_mbs\": %.1f, "
                       "\"mtu_a\": %d, \"mtu_b\": %d, \"detail\": ",
                       status, lat, bw, ab->mtu, ba->mtu);
                json_str(detail);
                printf(", \"fix\": ");
                json_str(fix);
                putchar('}');
            } else {
                printf("  %s <-> %s  %-4s  %s\n", hosts[a].name, hosts[b].name, status, detail);
                if (fix[0])
                    printf("      fix: %s\n", fix);
            }
            first = 0;
        }
    if (json)
        printf("], \"hosts_tcp\": [");
    for (int a = 0; a < np; a++) {
        const host_tail_t *t = &tails[a];

        if (json) {
            printf("%s{\"host\": ", a ? ", " : "");
            json_str(hosts[a].name);
            printf(", \"tcp_out_segs\": %lld, \"tcp_retrans\": %lld", t->out_segs, t->retrans);
        } else if (t->retrans > 0) {
            printf("  %s  info  retransmitted %lld of %lld TCP segments it sent during the "
                   "test (loss on its links, or full queues on a busy host)\n",
                   hosts[a].name, t->retrans, t->out_segs);
        }
        if (json) {
            printf(", \"port_counters\": {");
            for (int i = 0; i < t->nctrs; i++) {
                printf("%s", i ? ", " : "");
                json_str(t->ctrs[i].what);
                printf(": %llu", t->ctrs[i].v);
            }
            printf("}}");
        } else {
            for (int i = 0; i < t->nctrs; i++)
                printf("  %s  info  %s +%llu during the test (RDMA retries or errors on "
                       "its port: cable, switch, or receivers without posted buffers)\n",
                       hosts[a].name, t->ctrs[i].what, t->ctrs[i].v);
        }
    }
    if (json)
        printf("], \"ok\": %s}\n", failed ? "false" : "true");
    else
        printf("links: %s\n", failed ? "FAILED" : "all links passed");
    return failed;
}

int main(int argc, char **argv)
{
    int json = argc > 1 && strcmp(argv[1], "--json") == 0;
    host_info_t *hosts;
    link_row_t *rows, *mine;
    host_tail_t *tails, tail;
    long long out0, re0;
    port_ctr_t ctr0[MAX_CTRS], ctr1[MAX_CTRS];
    int nctr0, nctr1;
    char *buf, *suspects;
    rtm_status_t st;
    const char *bad = NULL;
    int rc = 0;

    slow_ratio = env_num("RTM_CHECK_RATIO", SLOW_RATIO, &bad);
    slow_floor_us = env_num("RTM_CHECK_LAT_FLOOR_US", SLOW_FLOOR_US, &bad);
    if (bad != NULL) {
        fprintf(stderr, "rtm_linkcheck: %s=%s is not a positive number\n", bad, getenv(bad));
        return 2;
    }
    if (argc > 1 && !json) {
        fprintf(stderr, "usage: rtm_linkcheck [--json] (started by rtrun --check, one rank per "
                        "host)\n");
        return 2;
    }
    if ((st = rtm_init()) != RTM_OK) {
        fprintf(stderr, "rtm_linkcheck: rtm_init: %s (%s)\n", rtm_strerror(st), rtm_last_error());
        return 2;
    }
    rtm_comm_rank(RTM_COMM_WORLD, &me);
    rtm_comm_size(RTM_COMM_WORLD, &np);
    hosts = calloc((size_t)np, sizeof(*hosts));
    rows = calloc((size_t)np * (size_t)np, sizeof(*rows));
    tails = calloc((size_t)np, sizeof(*tails));
    mine = calloc((size_t)np, sizeof(*mine));
    buf = malloc(BW_BYTES);
    if (!hosts || !rows || !tails || !mine || !buf) {
        fprintf(stderr, "rtm_linkcheck: out of memory for %d hosts\n", np);
        rtm_abort(2, "out of memory");
    }
    memset(buf, 0x5a, BW_BYTES);
    snprintf(hosts[me].name, sizeof(hosts[me].name), "%s", rtm_hostname());
    local_addrs(&hosts[me]);
    tcp_counters(&out0, &re0);
    nctr0 = port_counters(ctr0, MAX_CTRS);

    /* Everyone learns everyone's name and addresses (through rank 0: this
     * is also each host's first contact with rank 0). */
    if (me == 0) {
        for (int r = 1; r < np; r++)
            if ((st = rtm_recv(&hosts[r], sizeof(hosts[r]), r, TAG_INFO, RTM_COMM_WORLD,
                               RTM_STATUS_IGNORE)) != RTM_OK)
                die("cannot connect", st, r, hosts);
        for (int r = 1; r < np; r++)
            if ((st = rtm_send(hosts, sizeof(*hosts) * (size_t)np, r, TAG_INFO,
                               RTM_COMM_WORLD)) != RTM_OK)
                die("cannot connect", st, r, hosts);
    } else {
        if ((st = rtm_send(&hosts[me], sizeof(hosts[me]), 0, TAG_INFO, RTM_COMM_WORLD)) != RTM_OK ||
            (st = rtm_recv(hosts, sizeof(*hosts) * (size_t)np, 0, TAG_INFO, RTM_COMM_WORLD,
                           RTM_STATUS_IGNORE)) != RTM_OK)
            die("cannot connect", st, 0, hosts);
    }
    for (int r = 0; r < np; r++)
        host_info_clean(&hosts[r]);

    measure_all(hosts, buf, mine, 0, REPS, NULL);
    /* A second look at the links that look slow: rank 0 gathers the rows,
     * names the suspects to everyone, and their two ends measure again. */
    suspects = calloc((size_t)np * (size_t)np, 1);
    if (!suspects)
        rtm_abort(2, "out of memory");
    if (me == 0) {
        double best_lat, best_bw;
        int sl, sb;

        memcpy(rows, mine, sizeof(*mine) * (size_t)np);
        for (int r = 1; r < np; r++)
            if ((st = rtm_recv(&rows[r * np], sizeof(*rows) * (size_t)np, r, TAG_ROW,
                               RTM_COMM_WORLD, RTM_STATUS_IGNORE)) != RTM_OK)
                die("cannot gather the results", st, r, hosts);
        best_of(rows, &best_lat, &best_bw);
        for (int a = 0; a < np; a++)
            for (int b = a + 1; b < np; b++) {
                slow_link(rows, a, b, best_lat, best_bw, &sl, &sb);
                suspects[a * np + b] = (char)(sl || sb);
            }
        for (int r = 1; r < np; r++)
            if ((st = rtm_send(suspects, (size_t)np * (size_t)np, r, TAG_SUSPECT,
                               RTM_COMM_WORLD)) != RTM_OK)
                die("cannot send the links to measure again", st, r, hosts);
    } else if ((st = rtm_send(mine, sizeof(*mine) * (size_t)np, 0, TAG_ROW, RTM_COMM_WORLD)) !=
                   RTM_OK ||
               (st = rtm_recv(suspects, (size_t)np * (size_t)np, 0, TAG_SUSPECT, RTM_COMM_WORLD,
                              RTM_STATUS_IGNORE)) != RTM_OK) {
        die("cannot exchange the first results", st, 0, hosts);
    }
    measure_all(hosts, buf, mine, REPS, CONFIRM_REPS, suspects);
    free(suspects);
    memset(&tail, 0, sizeof(tail));
    tcp_counters(&tail.out_segs, &tail.retrans);
    nctr1 = port_counters(ctr1, MAX_CTRS);
    for (int i = 0; i < nctr1; i++)
        for (int j = 0; j < nctr0; j++)
            if (strcmp(ctr1[i].what, ctr0[j].what) == 0 && ctr1[i].v > ctr0[j].v) {
                tail.ctrs[tail.nctrs] = ctr1[i];
                tail.ctrs[tail.nctrs++].v = ctr1[i].v - ctr0[j].v;
            }
    if (out0 >= 0 && tail.out_segs >= 0) {
        tail.out_segs -= out0;
        tail.retrans -= re0;
    } else {
        tail.out_segs = tail.retrans = -1;
    }

    if (me == 0) {
        memcpy(rows, mine, sizeof(*mine) * (size_t)np);
        tails[0] = tail;
        for (int r = 1; r < np; r++)
            if ((st = rtm_recv(&rows[r * np], sizeof(*rows) * (size_t)np, r, TAG_ROW,
                               RTM_COMM_WORLD, RTM_STATUS_IGNORE)) != RTM_OK ||
                (st = rtm_recv(&tails[r], sizeof(tails[r]), r, TAG_ROW, RTM_COMM_WORLD,
                               RTM_STATUS_IGNORE)) != RTM_OK)
                die("cannot gather the results", st, r, hosts);
        for (int r = 1; r < np; r++)
            host_tail_clean(&tails[r]);
        rc = report(hosts, rows, tails, json);
        fflush(stdout);
    } else if ((st = rtm_send(mine, sizeof(*mine) * (size_t)np, 0, TAG_ROW, RTM_COMM_WORLD)) !=
                   RTM_OK ||
               (st = rtm_send(&tail, sizeof(tail), 0, TAG_ROW, RTM_COMM_WORLD)) != RTM_OK) {
        die("cannot send the results", st, 0, hosts);
    }
    free(buf);
    free(mine);
    free(tails);
    free(rows);
    free(hosts);
    rtm_finalize();
    return rc;
}
