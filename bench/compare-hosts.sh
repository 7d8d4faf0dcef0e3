#!/usr/bin/env bash
# bench/compare-hosts.sh [BUILD_DIR]: launch time and TCP between hosts,
# librtmsg against Open MPI and MPICH on the same machine, interleaved.
#
#   launch-N      wall time of the launcher running bench/mpi/init_finalize
#                 (MPI_Init + MPI_Finalize) with N ranks on this host
#                 (N = 2, 8, 32; oversubscribed beyond the cores)
#   launch-2h     the same with 2 ranks on each of 2 hosts
#   tcp lat / bw  bench/mpi/osu_p2p over TCP: 2 ranks on loopback, and 2
#                 hosts with 1 rank each (not Open MPI: see below)
#
# The hosts are two network namespaces made here (veth pair, addresses in
# 10.219.<pid>/24 inside them only, both ends named rt0), launched through
# `ip netns exec`: rtrun --launch-agent, Open MPI's plm_rsh_agent and
# MPICH's -launcher-exec (the last two through a small rsh-style wrapper,
# since they pass ssh options and one command string). Peers are pinned to
# their TCP paths: Open MPI btl tcp,self (and vader on one host), MPICH's
# UCX with UCX_TLS=tcp,self. Must run as root.
#
# Environment: ROUNDS (5), REPS (3, inside one osu_p2p run), LAUNCH_REPS (5),
# JOB_TIMEOUT (300), OUT (docs/bench/hosts-results.md).
set -euo pipefail
top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
. "$top/scripts/deps.sh"
. "$top/bench/netns-hosts.sh"
build=$(cd "${1:-$top/build}" && pwd)
rounds=${ROUNDS:-5}
reps=${REPS:-3}
launch_reps=${LAUNCH_REPS:-5}
job_timeout=${JOB_TIMEOUT:-300}
out=${OUT:-$top/docs/bench/hosts-results.md}

[ "$(id -u)" -eq 0 ] || { echo "compare-hosts.sh: needs root (network namespaces)" >&2; exit 1; }
rtm_install_packages openmpi-bin libopenmpi-dev mpich libmpich-dev iproute2
make -C "$build" -s rtrun rtd librtmsg.la tests/mpi/mpicc >/dev/null

tmp=$(mktemp -d)
ha="rtbh$$a"
hb="rtbh$$b"
net="10.219.$(($$ % 250))"
cleanup() {
    bench_netns_del "$ha" "$hb"
    rm -rf "$tmp"
}
trap cleanup EXIT
bench_netns_hosts "$ha" "$hb" "$net"

# rsh-style agent for Open MPI and MPICH: [options] HOST COMMAND-STRING
cat >"$tmp/nsagent" <<'EOF'
#!/bin/sh
while [ "${1#-}" != "$1" ]; do shift; done
h=$1; shift
exec ip netns exec "$h" sh -c "$*"
EOF
chmod +x "$tmp/nsagent"

read -r -a impls <<<"${IMPLS:-ours openmpi mpich}"   # IMPLS: a subset, for trying the script
declare -A mpicc=([ours]="$build/tests/mpi/mpicc" [openmpi]=mpicc.openmpi [mpich]=mpicc.mpich)
declare -A label=([ours]=librtmsg [openmpi]="Open MPI" [mpich]=MPICH)
for impl in "${impls[@]}"; do
    for prog in osu_p2p init_finalize; do
        ${mpicc[$impl]} -O2 -Wno-stringop-overflow -o "$tmp/${prog}_$impl" "$top/bench/mpi/$prog.c"
    done
done

# run IMPL WHERE N PROG ARGS...: one bounded job of N ranks, WHERE = local
# (this host) or 2h (N/2 ranks on each of the 2 namespace hosts)
run() {
    local impl=$1 where=$2 n=$3 prog=$4 per=$(( $3 / 2 ))
    local -a cmd
    shift 4
    case $impl/$where in
    ours/local)    cmd=("$build/rtrun" -n "$n" --oversubscribe) ;;
    openmpi/local) cmd=(mpirun.openmpi --allow-run-as-root --oversubscribe -n "$n" --mca btl self,vader) ;;
    mpich/local)   cmd=(mpiexec.mpich -n "$n") ;;
    ours/lo)       cmd=(env RTM_TRANSPORTS=self,tcp "$build/rtrun" -n "$n") ;;
    openmpi/lo)    cmd=(mpirun.openmpi --allow-run-as-root -n "$n" --mca btl tcp,self
                        --mca btl_tcp_if_include lo) ;;
    mpich/lo)      cmd=(mpiexec.mpich -n "$n" -genv UCX_TLS tcp,self -genv UCX_NET_DEVICES lo) ;;
    # The namespace "hosts" share this machine's cores: each host's daemon
    # would bind its local rank 0 to core 0, stacking the two ranks on one
    # core, so nothing is bound in the 2-host runs.
    ours/2h)       cmd=(ip netns exec "$ha" "$build/rtrun" --launch-agent "ip netns exec {host}"
                        --bind-to none --host "$ha:$per,$hb:$per" -n "$n") ;;
    # Open MPI between the namespace hosts: its daemons and its tcp btl
    # must be kept on the veth (btl_tcp_if_include and oob_tcp_if_include;
    # else they also publish lo, the same 127.0.0.1 in both hosts) and off
    # shared memory (both hosts report the same hostname).
    openmpi/2h)    cmd=(ip netns exec "$ha" mpirun.openmpi --allow-run-as-root --bind-to none
                        --mca plm_rsh_agent "$tmp/nsagent" --host "$ha:$per,$hb:$per" -n "$n"
                        --mca btl tcp,self --mca btl_tcp_if_include rt0
                        --mca oob_tcp_if_include rt0) ;;
    mpich/2h)      cmd=(ip netns exec "$ha" mpiexec.mpich -launcher ssh -launcher-exec "$tmp/nsagent"
                        -hosts "$ha:$per,$hb:$per" -n "$n" -iface rt0
                        -bind-to none -genv UCX_TLS tcp,self -genv UCX_NET_DEVICES rt0) ;;
    esac
    timeout -k 10 "$job_timeout" "${cmd[@]}" "$tmp/${prog}_$impl" "$@"
}

raw="$tmp/raw"
: >"$raw"
failures=0
now_us() { echo $(( $(date +%s%N) / 1000 )); }
start_load=$(cut -d' ' -f1-3 /proc/loadavg)
start_date=$(date -u '+%Y-%m-%d %H:%M UTC')
for r in $(seq 1 "$rounds"); do
    echo "round $r/$rounds (load $(cut -d' ' -f1-3 /proc/loadavg))" >&2
    for spec in local:2 local:8 local:32 2h:4; do
        where=${spec%%:*} n=${spec##*:}
        name=$([ "$where" = local ] && echo "launch-$n" || echo "launch-2h")
        for impl in "${impls[@]}"; do
            : >"$tmp/launch"
            for _ in $(seq 1 "$launch_reps"); do
                t0=$(now_us)
                if run "$impl" "$where" "$n" init_finalize >"$tmp/out" 2>&1; then
                    echo $(( $(now_us) - t0 )) >>"$tmp/launch"
                else
                    failures=$((failures + 1))
                    { echo "== $impl $name"; tail -n 5 "$tmp/out"; } >&2
                fi
            done
            sort -n "$tmp/launch" | awk -v b="$name" -v impl="$impl" '
                { v[NR] = $1 / 1000 }
                END { if (NR) printf "impl=%s bench=%s size=0 value=%.4g unit=ms\n", impl, b,
                                     NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }' >>"$raw"
        done
    done
    # TCP on loopback (one host, every peer forced onto its TCP path), then
    # between the 2 namespace hosts, 1 rank each.
    for where in lo 2h; do
        for impl in "${impls[@]}"; do
            if run "$impl" "$where" 2 osu_p2p -t lat,bw -r "$reps" -x 4194304 >"$tmp/out" 2>&1; then
                grep '^bench=' "$tmp/out" | sed "s/^/impl=$impl /; s/bench=/bench=tcp-$where-/" >>"$raw" || true
            else
                failures=$((failures + 1))
                { echo "== $impl tcp $where osu_p2p"; tail -n 5 "$tmp/out"; } >&2
            fi
        done
    done
done
end_load=$(cut -d' ' -f1-3 /proc/loadavg)

# Median over rounds per (bench, size, impl); ratio ours / peer.
{
    echo "# Launch time and TCP between hosts"
    echo
    echo "Made by \`bench/compare-hosts.sh\` on $start_date: $rounds rounds, each running $(for i in "${impls[@]}"; do printf '%s, ' "${label[$i]}"; done | sed 's/, $//') one after the other (launch: median of $launch_reps launches; TCP: osu_p2p median of $reps repetitions). Load average $start_load at the start, $end_load at the end; $failures failed runs. Hosts are two network namespaces joined by a veth pair. Below 1 in a ratio column is better for times, above 1 for bandwidth."
    echo
    echo "Each cell: the median over the rounds, and in brackets the smallest and largest round."
    echo
    echo "| benchmark | size | librtmsg | Open MPI | MPICH | / Open MPI | / MPICH |"
    echo "|---|---|---|---|---|---|---|"
    awk '
    function sorted(list, a,   n, i, j, t) {
        n = split(list, a, " ")
        for (i = 2; i <= n; i++) for (j = i; j > 1 && a[j-1] + 0 > a[j] + 0; j--) { t = a[j]; a[j] = a[j-1]; a[j-1] = t }
        return n
    }
    function median(list,   n, a) {
        n = sorted(list, a)
        return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
    }
    # "median (min-max)" of one cell; the median alone for a single round
    function cell(list,   n, a) {
        if (list == "") return ""
        n = sorted(list, a)
        return n > 1 ? sprintf("%.4g (%.4g–%.4g)", median(list), a[1], a[n]) : sprintf("%.4g", a[1])
    }
    {
        delete f
        for (i = 1; i <= NF; i++) { split($i, kv, "="); f[kv[1]] = kv[2] }
        k = f["bench"] SUBSEP f["size"]
        if (f["bench"] ~ /^tcp-/ && f["size"] !~ /^(8|1024|65536|1048576|4194304)$/) next
        if (!(k in unit)) { unit[k] = f["unit"]; order[++n] = k }
        vals[k, f["impl"]] = vals[k, f["impl"]] " " f["value"]
    }
    END {
        for (i = 1; i <= n; i++) {
            k = order[i]; split(k, p, SUBSEP)
            o = (k SUBSEP "ours") in vals ? median(vals[k, "ours"]) : ""
            m1 = (k SUBSEP "openmpi") in vals ? median(vals[k, "openmpi"]) : ""
            m2 = (k SUBSEP "mpich") in vals ? median(vals[k, "mpich"]) : ""
            printf "| %s (%s) | %s | %s | %s | %s | %s | %s |\n", p[1], unit[k], p[2],
                   cell(vals[k, "ours"]), cell(vals[k, "openmpi"]), cell(vals[k, "mpich"]),
                   (o != "" && m1 + 0 > 0) ? sprintf("%.2f", o / m1) : "–",
                   (o != "" && m2 + 0 > 0) ? sprintf("%.2f", o / m2) : "–"
        }
    }' "$raw"
    echo
    echo "Command: \`sudo ROUNDS=$rounds REPS=$reps LAUNCH_REPS=$launch_reps${IMPLS:+ IMPLS=\"$IMPLS\"} bench/compare-hosts.sh BUILD_DIR\`"
} >"$out"
echo "wrote $out" >&2
[ "$failures" -eq 0 ]
