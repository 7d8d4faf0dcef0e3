/*
 * rtm_check: the RDMA and host troubleshooting checklist as a command. It
 * checks this host: RDMA devices and ports (state, link layer, active MTU,
 * the LID or the RoCE v2 IPv4-mapped GID librtmsg would pick),
 * RLIMIT_MEMLOCK against what the verbs pools register, /dev/shm free
 * space against the job's shared segment, Yama ptrace scope and whether
 * CMA (process_vm_readv between sibling ranks) works, hugepages, and the
 * topology (hwloc). A person reads the table, each failed check with its
 * exact fix; a script reads --json. The exit code is 1 when a check
 * failed. `rtrun --check` runs it on every host of a job (launcher/check.c).
 *
 *   rtm_check [-n RANKS_PER_HOST] [--json] [--name HOSTNAME]
 */
#include "config.h"

#include <errno.h>
#include <hwloc.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/statvfs.h>
#include <sys/types.h>
#include <sys/prctl.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>
#ifdef RTM_HAVE_IBVERBS
#include <infiniband/verbs.h>
#endif

#include "common/error.h"
#include "common/rtconfig.h"
#include "transport/shm/shm.h"
#include "transport/shm/shm_config.h"

/* What one rank locks: its verbs pools take about 2.4 MiB by default
 * (measured: rtm_init refuses below that, naming the figure), and the
 * registration cache pins rendezvous buffers as large as the messages;
 * RLIMIT_MEMLOCK is per process, so this is asked of each rank. */
#define CHECK_MEMLOCK_PER_RANK (64ull << 20)

enum { ST_OK, ST_INFO, ST_WARN, ST_FAIL };
static const char *const st_name[] = {"ok", "info", "warn", "FAIL"};

typedef struct check {
    char name[48];
    int  status;
    char detail[512];
    char fix[512];
} check_t;

static check_t checks[64];
static int     nchecks;
static int     worst;
static int     have_rdma;   /* an RDMA device is there: memlock matters */

static void add(const char *name, int status, const char *fix, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static void add(const char *name, int status, const char *fix, const char *fmt, ...)
{
    check_t *c;
    va_list ap;

    if (nchecks == (int)(sizeof(checks) / sizeof(checks[0])))
        return;
    c = &checks[nchecks++];
    snprintf(c->name, sizeof(c->name), "%s", name);
    c->status = status;
    va_start(ap, fmt);
    vsnprintf(c->detail, sizeof(c->detail), fmt, ap);
    va_end(ap);
    snprintf(c->fix, sizeof(c->fix), "%s", fix ? fix : "");
    if (status > worst)
        worst = status;
}

static void human_size(unsigned long long b, char *buf, size_t len)
{
    if (b >= 1ull << 30)
        snprintf(buf, len, "%.1f GiB", (double)b / (1ull << 30));
    else if (b >= 1ull << 20)
        snprintf(buf, len, "%.1f MiB", (double)b / (1ull << 20));
    else
        snprintf(buf, len, "%llu KiB", b >> 10);
}

/* ---- RDMA devices and ports ---- */

#ifdef RTM_HAVE_IBVERBS
static const char *port_state_name(enum ibv_port_state s)
{
    switch (s) {
    case IBV_PORT_DOWN:         return "DOWN";
    case IBV_PORT_INIT:         return "INIT";
    case IBV_PORT_ARMED:        return "ARMED";
    case IBV_PORT_ACTIVE:       return "ACTIVE";
    case IBV_PORT_ACTIVE_DEFER: return "ACTIVE_DEFER";
    default:                    return "NOP";
    }
}

static void check_rdma(void)
{
    int ndev = 0, nactive = 0;
    struct ibv_device **list = ibv_get_device_list(&ndev);

    if (list == NULL || ndev == 0) {
        add("rdma", ST_INFO, NULL, "no RDMA device: jobs use tcp between hosts");
        if (list != NULL)
            ibv_free_device_list(list);
        return;
    }
    have_rdma = 1;
    for (int d = 0; d < ndev; d++) {
        const char *dname = ibv_get_device_name(list[d]);
        struct ibv_context *ctx = ibv_open_device(list[d]);
        struct ibv_device_attr da;

        if (ctx == NULL) {
            char fix[256];

            snprintf(fix, sizeof(fix), "check the permissions of /dev/infiniband/uverbs* and "
                     "that the %s driver is loaded", dname);
            add("rdma device", ST_FAIL, fix, "%s: cannot open: %s", dname, strerror(errno));
            continue;
        }
        if (ibv_query_device(ctx, &da) != 0)
            da.phys_port_cnt = 1;
        for (int p = 1; p <= da.phys_port_cnt; p++) {
            struct ibv_port_attr pa;
            char name[48], fix[384], gid_text[64] = "";
            int roce;

            snprintf(name, sizeof(name), "rdma %s:%d", dname, p);
            if (ibv_query_port(ctx, (uint8_t)p, &pa) != 0) {
                add(name, ST_FAIL, "run ibv_devinfo -v to see why the port cannot be queried",
                    "cannot query the port: %s", strerror(errno));
                continue;
            }
            roce = pa.link_layer == IBV_LINK_LAYER_ETHERNET;
            if (roce) {   /* the IPv4-mapped GID librtmsg picks (RoCE v2 first) */
                for (int g = 0; g < pa.gid_tbl_len && g < 256; g++) {
                    union ibv_gid gid;

                    if (ibv_query_gid(ctx, (uint8_t)p, g, &gid) != 0)
                        break;
                    if (gid.raw[10] == 0xff && gid.raw[11] == 0xff &&
                        !memcmp(gid.raw, "\0\0\0\0\0\0\0\0\0\0", 10)) {
                        snprintf(gid_text, sizeof(gid_text), "GID %d = ::ffff:%u.%u.%u.%u", g,
                                 gid.raw[12], gid.raw[13], gid.raw[14], gid.raw[15]);
                        break;
                    }
                }
            }
            if (pa.state != IBV_PORT_ACTIVE) {
                snprintf(fix, sizeof(fix), "bring the port up (cable, switch, subnet manager: "
                         "ibstat, `ip link set <netdev> up` for RoCE), or point librtmsg at an "
                         "ACTIVE port with RTM_VERBS_DEVICE=<device>:<port>");
                add(name, ST_FAIL, fix, "port %s, link layer %s, active MTU %d", 
                    port_state_name(pa.state), roce ? "Ethernet" : "InfiniBand",
                    128 << pa.active_mtu);
                continue;
            }
            nactive++;
            if (roce && gid_text[0] == '\0')
                add(name, ST_FAIL, "give the netdev of this port an IPv4 address (RoCE v2 "
                    "IPv4-mapped GID), e.g. ip addr add <addr>/<len> dev <netdev>",
                    "ACTIVE, Ethernet, MTU %d, no IPv4-mapped GID", 128 << pa.active_mtu);
            else if (roce)
                add(name, ST_OK, NULL, "ACTIVE, Ethernet (RoCE), MTU %d, %s",
                    128 << pa.active_mtu, gid_text);
            else if (pa.lid == 0)
                add(name, ST_FAIL, "start a subnet manager (opensm) on the fabric",
                    "ACTIVE, InfiniBand, MTU %d, no LID assigned", 128 << pa.active_mtu);
            else
                add(name, ST_OK, NULL, "ACTIVE, InfiniBand, MTU %d, LID %u",
                    128 << pa.active_mtu, pa.lid);
        }
        ibv_close_device(ctx);
    }
    ibv_free_device_list(list);
    if (nactive == 0)
        add("rdma", ST_WARN, "see the failed ports above; without one jobs use tcp",
            "%d device%s, no ACTIVE port", ndev, ndev == 1 ? "" : "s");
}
#else
static void check_rdma(void)
{
    add("rdma", ST_INFO, NULL, "built without libibverbs: jobs use tcp between hosts");
}
#endif

/* ---- limits, /dev/shm, CMA, hugepages ---- */

static void check_memlock(void)
{
    struct rlimit rl;
    unsigned long long need = CHECK_MEMLOCK_PER_RANK;
    char have[32], want[32], fix[384];

    if (getrlimit(RLIMIT_MEMLOCK, &rl) != 0) {
        add("memlock", ST_WARN, NULL, "getrlimit: %s", strerror(errno));
        return;
    }
    if (rl.rlim_cur == RLIM_INFINITY) {
        add("memlock", ST_OK, NULL, "RLIMIT_MEMLOCK unlimited");
        return;
    }
    human_size(rl.rlim_cur, have, sizeof(have));
    human_size(need, want, sizeof(want));
    snprintf(fix, sizeof(fix), "raise the limit: ulimit -l unlimited in the job's shell, "
             "'* - memlock unlimited' in /etc/security/limits.conf, LimitMEMLOCK=infinity for "
             "the daemon that starts jobs (slurmd, sshd)");
    if ((unsigned long long)rl.rlim_cur < need)
        add("memlock", have_rdma ? ST_FAIL : ST_INFO, have_rdma ? fix : NULL,
            "RLIMIT_MEMLOCK %s < %s a verbs rank locks (pools and registration cache)%s",
            have, want, have_rdma ? "" : "; no RDMA device, so nothing is locked");
    else
        add("memlock", ST_OK, NULL, "RLIMIT_MEMLOCK %s >= %s needed", have, want);
}

/* What the shm transport's segment takes of /dev/shm at `ranks` local
 * ranks: its own geometry (transport/shm/shm_geom.c) from this
 * environment's RTM_SHM_* rows, so the figure is the job's. */
static void check_shm(int ranks)
{
    struct statvfs sv;
    shm_seg_geom_t geom;
    unsigned long long need, avail;
    char have[32], want[32], fix[384];

    if (rtm_config_register(&shm_config_table) != RTM_OK) {
        add("/dev/shm", ST_FAIL, "correct or unset that RTM_SHM_* variable", "%s",
            rtm_last_error());
        return;
    }
    shm_seg_geometry(ranks, &geom);
    need = (unsigned long long)geom.size;

    if (statvfs("/dev/shm", &sv) != 0) {
        add("/dev/shm", ST_FAIL, "mount a tmpfs on /dev/shm (mount -t tmpfs tmpfs /dev/shm)",
            "cannot stat /dev/shm: %s", strerror(errno));
        return;
    }
    avail = (unsigned long long)sv.f_bavail * sv.f_frsize;
    human_size(avail, have, sizeof(have));
    human_size(need, want, sizeof(want));
    snprintf(fix, sizeof(fix), "make room in /dev/shm (remove stale rtm-* files: ls /dev/shm), "
             "or enlarge it: mount -o remount,size=<size> /dev/shm (docker: --shm-size), or "
             "lower RTM_SHM_RX_BUDGET");
    if (avail < need)
        add("/dev/shm", ST_FAIL, fix, "%s free < %s the shared segment of %d ranks needs",
            have, want, ranks);
    else
        add("/dev/shm", ST_OK, NULL, "%s free >= %s for %d ranks", have, want, ranks);
}

/* Two sibling processes, as two ranks are: the second reads the first's
 * memory with process_vm_readv. Under Yama ptrace_scope 1 the first lets
 * its user's processes read it first (PR_SET_PTRACER_ANY), as a rank does
 * (transport/shm/shm_cma.c). */
static void check_cma(void)
{
    int scope = -1, pfd[2], rfd[2], yfd[2];
    FILE *f = fopen("/proc/sys/kernel/yama/ptrace_scope", "r");
    volatile unsigned long word = 0x5254434d41ul;   /* "RTCMA" */
    pid_t a, b;
    int status = 0, err = 0;
    char fix[384];

    if (f != NULL) {
        if (fscanf(f, "%d", &scope) != 1)
            scope = -1;
        fclose(f);
    }
    if (pipe(pfd) != 0 || pipe(rfd) != 0 || pipe(yfd) != 0) {
        add("cma", ST_WARN, NULL, "pipe: %s", strerror(errno));
        return;
    }
    a = fork();
    if (a == 0) {   /* the target: says it is ready, then waits until b is done */
        char c = 1;

        close(pfd[1]);
        close(yfd[0]);
        if (scope == 1)
            (void)prctl(PR_SET_PTRACER, PR_SET_PTRACER_ANY, 0, 0, 0);
        if (write(yfd[1], &c, 1) < 0 || read(pfd[0], &c, 1) < 0)
            _exit(1);
        _exit(0);
    }
    close(yfd[1]);
    {
        char c;

        if (a < 0 || read(yfd[0], &c, 1) != 1)
            a = -1;
    }
    close(yfd[0]);
    b = a < 0 ? -1 : fork();
    if (b == 0) {   /* the reader */
        unsigned long got = 0;
        struct iovec l = {&got, sizeof(got)}, r = {(void *)&word, sizeof(word)};
        int e = 0;

        if (process_vm_readv(a, &l, 1, &r, 1, 0) != (ssize_t)sizeof(got))
            e = errno ? errno : EIO;
        else if (got != word)
            e = EFAULT;
        if (write(rfd[1], &e, sizeof(e)) < 0)
            _exit(1);
        _exit(0);
    }
    close(rfd[1]);
    if (b < 0 || read(rfd[0], &err, sizeof(err)) != (ssize_t)sizeof(err))
        err = ECHILD;
    close(pfd[1]);
    close(pfd[0]);
    close(rfd[0]);
    if (a > 0)
        waitpid(a, &status, 0);
    if (b > 0)
        waitpid(b, &status, 0);
    snprintf(fix, sizeof(fix), "%s; or run with RTM_SHM_CMA=off (large messages are then "
             "copied through shared memory: slower, correct)",
             scope > 1 ? "allow it: sysctl kernel.yama.ptrace_scope=1 (ranks then let their "
                         "siblings read them) or 0"
                       : "allow process_vm_readv: a seccomp profile (containers: "
                         "--security-opt seccomp=..., or --cap-add SYS_PTRACE) refuses it");
    if (err != 0)
        add("cma", ST_FAIL, fix, "process_vm_readv between sibling processes refused: %s "
            "(Yama ptrace_scope %d)", strerror(err), scope);
    else
        add("cma", ST_OK, NULL, "process_vm_readv between siblings works (Yama ptrace_scope "
            "%d)", scope);
}

static void check_hugepages(void)
{
    FILE *f = fopen("/proc/meminfo", "r");
    char line[256], thp[128] = "?";
    long total = -1, freep = -1, size_kb = 0;

    while (f != NULL && fgets(line, sizeof(line), f) != NULL) {
        sscanf(line, "HugePages_Total: %ld", &total);
        sscanf(line, "HugePages_Free: %ld", &freep);
        sscanf(line, "Hugepagesize: %ld kB", &size_kb);
    }
    if (f != NULL)
        fclose(f);
    f = fopen("/sys/kernel/mm/transparent_hugepage/enabled", "r");
    if (f != NULL) {
        if (fgets(thp, sizeof(thp), f) != NULL)
            thp[strcspn(thp, "\n")] = '\0';
        fclose(f);
    }
    add("hugepages", ST_INFO, NULL, "%ld of %ld free (%ld kB each); transparent: %s", freep,
        total, size_kb, thp);
}

static void check_topology(void)
{
    hwloc_topology_t t;
    int cores, pus, numa;

    if (hwloc_topology_init(&t) != 0)
        return;
    /* I/O discovery (PCI) only where an HCA is in sysfs: it costs, and
     * an emulated device (softib) has no PCI locality to show. */
    if (access("/sys/class/infiniband", F_OK) == 0)
        hwloc_topology_set_io_types_filter(t, HWLOC_TYPE_FILTER_KEEP_IMPORTANT);
    if (hwloc_topology_load(t) != 0) {
        hwloc_topology_destroy(t);
        add("topology", ST_WARN, NULL, "hwloc cannot load the topology");
        return;
    }
    cores = hwloc_get_nbobjs_by_type(t, HWLOC_OBJ_CORE);
    pus = hwloc_get_nbobjs_by_type(t, HWLOC_OBJ_PU);
    numa = hwloc_get_nbobjs_by_type(t, HWLOC_OBJ_NUMANODE);
    add("topology", ST_INFO, NULL, "%d cores, %d hardware threads, %d NUMA node%s", cores, pus,
        numa, numa == 1 ? "" : "s");
    for (hwloc_obj_t o = hwloc_get_next_osdev(t, NULL); o != NULL;
         o = hwloc_get_next_osdev(t, o)) {
        hwloc_obj_t anc = hwloc_get_non_io_ancestor_obj(t, o);
        char cpus[128] = "";

        if (o->attr->osdev.type != HWLOC_OBJ_OSDEV_OPENFABRICS || anc == NULL)
            continue;
        hwloc_bitmap_list_snprintf(cpus, sizeof(cpus), anc->cpuset);
        add("nearest HCA", ST_INFO, NULL, "%s is nearest cores (PUs) %s", o->name, cpus);
    }
    hwloc_topology_destroy(t);
}

/* ---- output ---- */

static void json_str(const char *s)
{
    putchar('"');
    for (; *s; s++) {
        if (*s == '"' || *s == '\\')
            printf("\\%c", *s);
        else if ((unsigned char)*s < 0x20)
            printf("\\u%04x", (unsigned char)*s);
        else
            putchar(*s);
    }
    putchar('"');
}

int main(int argc, char **argv)
{
    int ranks = 0, json = 0;
    char host[256] = "";

    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--json") == 0) {
            json = 1;
        } else if (strcmp(argv[i], "-n") == 0 && i + 1 < argc) {
            ranks = atoi(argv[++i]);
        } else if (strcmp(argv[i], "--name") == 0 && i + 1 < argc) {
            snprintf(host, sizeof(host), "%s", argv[++i]);
        } else if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
            printf("usage: rtm_check [-n RANKS_PER_HOST] [--json] [--name HOSTNAME]\n"
                   "Checks this host for librtmsg jobs: RDMA ports, RLIMIT_MEMLOCK, /dev/shm,\n"
                   "CMA, hugepages, topology. Exit 1 when a check failed. `rtrun --check`\n"
                   "runs it on every host of a job (docs/diagnostics.md).\n");
            return 0;
        } else {
            fprintf(stderr, "rtm_check: unknown argument \"%s\" (try --help)\n", argv[i]);
            return 2;
        }
    }
    if (ranks <= 0) {
        long n = sysconf(_SC_NPROCESSORS_ONLN);

        ranks = n > 0 ? (int)n : 1;
    }
    if (host[0] == '\0' && gethostname(host, sizeof(host) - 1) != 0)
        snprintf(host, sizeof(host), "localhost");
    check_rdma();
    check_memlock();
    check_shm(ranks);
    check_cma();
    check_hugepages();
    check_topology();
    if (json) {
        printf("{\"host\":");
        json_str(host);
        printf(",\"ranks_per_host\":%d,\"ok\":%s,\"checks\":[", ranks,
               worst == ST_FAIL ? "false" : "true");
        for (int i = 0; i < nchecks; i++) {
            printf("%s\n {\"check\":", i ? "," : "");
            json_str(checks[i].name);
            printf(",\"status\":\"%s\",\"detail\":", st_name[checks[i].status]);
            json_str(checks[i].detail);
            printf(",\"fix\":");
            json_str(checks[i].fix);
            printf("}");
        }
        printf("\n]}\n");
    } else {
        printf("%s: librtmsg host check (%d ranks per host)\n", host, ranks);
        for (int i = 0; i < nchecks; i++) {
            printf("  %-16s %-4s  %s\n", checks[i].name, st_name[checks[i].status],
                   checks[i].detail);
            if (checks[i].status == ST_FAIL && checks[i].fix[0])
                printf("  %-16s       fix: %s\n", "", checks[i].fix);
        }
        printf("%s: %s\n", host, worst == ST_FAIL ? "FAILED" : "all checks passed");
    }
    return worst == ST_FAIL ? 1 : 0;
}
