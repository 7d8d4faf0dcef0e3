/*
 * Prints the verbs transport's queue pairs and memory per rank at large job
 * sizes, in each connection mode, from the constants and size functions the
 * transport itself uses (vrb.h), as the markdown table of
 * docs/transports/verbs.md:
 *
 *   transport/verbs/vrb_sizes [ranks_per_host [eager_limit [credits]]]
 *
 * Defaults: 64 ranks per host and the config table's defaults (8 KiB eager
 * limit, 32 credits). Peers on the same host use shm (the default
 * RTM_TRANSPORTS), so on demand a rank connects at most to the remote ranks;
 * a full mesh creates a QP for every rank of the job whatever carries it.
 */
#include "config.h"

#include "transport/verbs/vrb.h"

#include <stdio.h>
#include <stdlib.h>

static double mib(double bytes)
{
    return bytes / (1024.0 * 1024.0);
}

int main(int argc, char **argv)
{
    static const long jobs[] = {1024, 16384, 65536};
    long per_host = argc > 1 ? atol(argv[1]) : 64;
    size_t eager = argc > 2 ? (size_t)atol(argv[2]) : 8192;
    long credits = argc > 3 ? atol(argv[3]) : 32;
    size_t buf = vrb_buf_size(eager);
    double tx = (double)VRB_BOUNCE_COUNT * (double)buf;
    double ud = 2.0 * VRB_UD_DEPTH * VRB_UD_BUF;
    double slots = (double)VRB_SQ_DEPTH * sizeof(vrb_sq_slot_t);

    if (per_host < 1 || credits < 2 || eager < 1)
        return 2;
    printf("Per rank, %ld ranks per host, eager limit %zu B (buffers of %zu B), %ld credits "
           "per peer (+%d slack); registered = SRQ receive buffers + %d send bounce buffers"
           "%s; host = endpoint table (%zu B per rank of the job) + %zu B of send-queue "
           "bookkeeping per QP.\n\n", per_host, eager, buf, credits, VRB_CTRL_SLACK,
           VRB_BOUNCE_COUNT, " (+ UD buffers on demand)", sizeof(vrb_ep_t), (size_t)slots);
    printf("| ranks | hosts | mode | QPs per rank (RC, or XRC INI + TGT) | UD QPs | SRQ buffers "
           "| registered MiB | host MiB | notes |\n|---|---|---|---|---|---|---|---|---|\n");
    for (size_t j = 0; j < sizeof(jobs) / sizeof(jobs[0]); j++) {
        long n = jobs[j], hosts = (n + per_host - 1) / per_host;
        long remote = n - per_host;
        int npeers = (int)(n - 1);
        long srq_full = (long)vrb_srq_peers(npeers, 0) * (credits + VRB_CTRL_SLACK);
        long srq_od = (long)vrb_srq_peers(npeers, 1) * (credits + VRB_CTRL_SLACK);
        int sparse = 0, sparse_remote = 0, sparse_hosts = 0;
        long seen[64];

        /* a ring plus rtm_finalize's dissemination barrier: 2 log2(n) peers;
         * XRC needs an INI QP per distinct remote host among them (rank 0's) */
        for (long k = 1; k < n; k <<= 1) {
            long peers[2] = {k % n, (n - k) % n};

            sparse += 2;
            for (int p = 0; p < 2; p++) {
                long h = peers[p] / per_host;
                int known = 0;

                if (h == 0)
                    continue;
                sparse_remote++;
                for (int i = 0; i < sparse_hosts; i++)
                    known |= seen[i] == h;
                if (!known && sparse_hosts < 64)
                    seen[sparse_hosts++] = h;
            }
        }
        printf("| %ld | %ld | full mesh | %d | 0 | %ld | %.1f | %.1f | not possible: the "
               "address blob holds %d QP numbers (RTM_TL_ADDR_MAX %d B); figures if it did |\n",
               n, hosts, npeers, srq_full, mib((double)srq_full * buf + tx),
               mib((double)n * sizeof(vrb_ep_t) + npeers * slots), (int)VRB_FULLMESH_MAX,
               RTM_TL_ADDR_MAX);
        printf("| %ld | %ld | on demand, sparse (ring + barrier) | %d | 1 | %ld | %.1f | %.1f "
               "| |\n", n, hosts, sparse, srq_od, mib((double)srq_od * buf + tx + ud),
               mib((double)n * sizeof(vrb_ep_t) + sparse * slots));
        printf("| %ld | %ld | on demand, all-to-all | %ld | 1 | %ld | %.1f | %.1f | peers "
               "beyond %d get 2 credits (RNR retries absorb overruns) |\n", n, hosts, remote,
               srq_od, mib((double)srq_od * buf + tx + ud),
               mib((double)n * sizeof(vrb_ep_t) + remote * slots), VRB_SRQ_PEERS);
        /* XRC (vrb_xrc.c): an INI QP per remote host, a TGT QP per remote
         * rank's INI QP on this host (made by the rank it asked first, so
         * hosts - 1 per rank on average); the UD QP of the handshake; send
         * bookkeeping stays per peer (vrb_xrc_attach) */
        printf("| %ld | %ld | XRC full mesh | %ld INI + ~%ld TGT | 1 | %ld | %.1f | %.1f | "
               "connected at wireup (the blob has no per-peer part: no rank limit); the SRQ "
               "holds credits for every peer, as in RC full mesh |\n", n, hosts, hosts, hosts,
               srq_full, mib((double)srq_full * buf + tx + ud),
               mib((double)n * sizeof(vrb_ep_t) + npeers * slots));
        printf("| %ld | %ld | XRC on demand, sparse (ring + barrier) | %d INI + ~%d TGT | 1 | "
               "%ld | %.1f | %.1f | %d remote peers on %d hosts |\n", n, hosts, sparse_hosts,
               sparse_hosts, srq_od, mib((double)srq_od * buf + tx + ud),
               mib((double)n * sizeof(vrb_ep_t) + sparse_remote * slots), sparse_remote,
               sparse_hosts);
        printf("| %ld | %ld | XRC on demand, all-to-all | %ld INI + ~%ld TGT | 1 | %ld | %.1f "
               "| %.1f | each INI QP's send queue holds %ld x %d WRs (a peer's share each); "
               "a host holds %ld TGT QPs |\n", n, hosts, hosts - 1, hosts - 1, srq_od,
               mib((double)srq_od * buf + tx + ud),
               mib((double)n * sizeof(vrb_ep_t) + remote * slots), per_host, VRB_SQ_DEPTH,
               remote);
    }
    return 0;
}
