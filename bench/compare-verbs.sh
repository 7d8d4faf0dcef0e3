#!/usr/bin/env bash
# bench/compare-verbs.sh [BUILD_DIR]: librtmsg's verbs transport against
# other verbs stacks, all on softib on this host, interleaved:
#
#   ours           rtrun, RTM_TRANSPORTS=self,verbs
#   openib-erdma   Open MPI, pml ob1, btl openib,self, eager RDMA on
#   openib         the same, btl_openib_use_eager_rdma 0
#   ompi-ucx       Open MPI, pml ucx (UCX rc_verbs, ud_verbs for wireup)
#   mpich-ucx      MPICH ch4:ucx, MPIR_CVAR_NOLOCAL=1 (no shared memory)
#
# every one started unmodified through BUILD_DIR/softib-run (root: UCX needs
# the device node it makes). Measured with bench/mpi/ (built with each
# stack's mpicc):
#   osu_p2p        latency 0-8 B (2000 round trips), 8 B message rate (500
#                  windows of 64), bandwidth and bidirectional bandwidth
#                  1 B..4 MiB (window of 64); 2 ranks
#   osu_coll       MPI_Alltoall of 64 ints (256 B) per rank pair, 4 ranks
#                  (oversubscribed on 2 cores)
#   softib counts  verbs work requests (send, receive), ibv_poll_cq calls, completions,
#                  softib packets and one-sided (process_vm) transfers per 8 B
#                  ping-pong message, summed over both
#                  ranks through SOFTIB_STATS: two runs of osu_p2p -t lat
#                  -x 8 with 1000 and 3000 iterations, the difference divided
#                  by the 22000 messages between them (so wireup, init and
#                  finalize cancel out)
#
# Places (PLACES): "local", every rank on this host; "2h", two network
# namespace hosts made here (a veth pair, 10.218.<pid>/24 inside them only,
# both ends named rt0), 1 rank per host for osu_p2p and 2 per host for the
# alltoall, launched through `ip netns exec` (rtrun --launch-agent, Open
# MPI's plm_rsh_agent, MPICH's -launcher-exec), nothing bound (the hosts
# share this machine's cores). softib carries the traffic between the
# hosts over TCP (its instances in different namespaces reach each other
# through the veth), so 2h measures the protocols over a wire with a real
# round trip; the counts part runs locally only.
#
# Each round runs every part with every stack in turn, so load on a shared
# machine falls on all alike; the tables give medians over ROUNDS rounds and
# our figure divided by each peer's; with REPS > 1 also, for latency, message
# rate and the alltoall, the median over rounds of each run's best
# repetition (on a loaded machine a run's median is a draw of the
# scheduler, its best the figure with both ranks on a core). Only ratios of one run mean anything:
# the absolute figures are softib's, not an HCA's.
#
# Environment: ROUNDS (3), REPS (1, repetitions inside one program run),
# JOB_TIMEOUT (600 s per job), STACKS (all five, e.g. "ours openib"),
# PARTS ("p2p alltoall counts"), PLACES ("local 2h"; root only for 2h), OUT (docs/bench/verbs-results.md; the raw
# lines go next to it as verbs-raw.txt, or verbs-raw-X.txt for an OUT named
# verbs-results-X.md), TABLES_FROM=<raw file> (no
# measurement: the tables of an earlier run's raw lines; LOADS and
# START_DATE then say what that run saw).
set -euo pipefail
top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
. "$top/scripts/deps.sh"
. "$top/bench/netns-hosts.sh"
build=$(cd "${1:-$top/build}" && pwd)
rounds=${ROUNDS:-3}
reps=${REPS:-1}
job_timeout=${JOB_TIMEOUT:-600}
read -r -a stacks <<<"${STACKS:-ours openib-erdma openib ompi-ucx mpich-ucx}"
parts=" ${PARTS:-p2p alltoall counts} "
read -r -a places <<<"${PLACES:-local 2h}"
out=${OUT:-$top/docs/bench/verbs-results.md}
# the raw lines beside OUT: verbs-results[-X].md -> verbs-raw[-X].txt (any
# other name: NAME.raw.txt), so a run to another OUT leaves the default's alone
case $(basename "$out") in
verbs-results*.md) raw_name=$(basename "$out" .md); raw_name="verbs-raw${raw_name#verbs-results}.txt" ;;
*) raw_name="$(basename "$out" .md).raw.txt" ;;
esac
raw_out="$(dirname "$out")/$raw_name"

rtm_install_packages openmpi-bin libopenmpi-dev mpich libmpich-dev ucx-utils libucx0
make -C "$build" -s >/dev/null
run="$build/softib-run"
export SOFTIB_LIB="$build/softib/.libs/libsoftib.so"
[ -x "$run" ] && [ -f "$SOFTIB_LIB" ] || { echo "no softib in $build" >&2; exit 1; }
if [ "$(id -u)" != 0 ]; then
    echo "note: not root: UCX cannot see softib0 (no device node); ompi-ucx and mpich-ucx left out" >&2
    read -r -a stacks <<<"$(printf '%s\n' "${stacks[@]}" | grep -v ucx | tr '\n' ' ')"
    echo "note: not root: no namespace hosts; PLACES=local" >&2
    places=(local)
fi
mkdir -p "$(dirname "$out")"
tmp=$(mktemp -d)
ha="rtvb$$a"
hb="rtvb$$b"
net="10.218.$(($$ % 250))"
cleanup() {
    [[ " ${places[*]} " != *" 2h "* ]] || bench_netns_del "$ha" "$hb"
    rm -rf "$tmp"
}
trap cleanup EXIT
# softib's sockets and device pages: one directory both hosts see
export SOFTIB_DIR="$tmp/softib"
mkdir -p "$SOFTIB_DIR"
if [[ " ${places[*]} " == *" 2h "* ]] && [ -z "${TABLES_FROM:-}" ]; then
    bench_netns_hosts "$ha" "$hb" "$net"
    # rsh-style agent for Open MPI and MPICH ([options] HOST COMMAND-STRING),
    # with a TMPDIR per host: the hosts share the hostname, and Open MPI's
    # session directories are named after it
    cat >"$tmp/nsagent" <<EOA
#!/bin/bash
while [[ \$1 == -* ]]; do case \$1 in -[opliFbcJLRDWmSEw]) shift 2 ;; *) shift ;; esac; done
h=\$1; shift
mkdir -p "$tmp/tmp-\$h"
export TMPDIR="$tmp/tmp-\$h"
exec ip netns exec "\$h" sh -c "\$*"
EOA
    chmod +x "$tmp/nsagent"
fi

declare -A cc=([ours]="$build/tests/mpi/mpicc" [openmpi]=mpicc.openmpi [mpich]=mpicc.mpich)
cflags=(-O2 -Wall -Wextra -Wno-stringop-overflow)
for impl in ours openmpi mpich; do
    for prog in osu_p2p osu_coll; do
        ${cc[$impl]} "${cflags[@]}" -o "$tmp/${prog}_$impl" "$top/bench/mpi/$prog.c"
    done
done
mpi_of() { case $1 in ours) echo ours ;; mpich*) echo mpich ;; *) echo openmpi ;; esac; }

root_flag=()
[ "$(id -u)" = 0 ] && root_flag=(--allow-run-as-root)
ucx_env=(UCX_TLS=rc_verbs,ud_verbs,self UCX_NET_DEVICES=softib0:1 UCX_WARN_UNUSED_ENV_VARS=n)
ob1=(--mca pml ob1 --mca btl openib,self --mca btl_openib_allow_ib 1
     --mca btl_openib_warn_no_device_params_found 0)
# launch STACK NP PROG ARGS...: one bounded job on softib, at $place
launch() {
    local s=$1 np=$2 prog=$3
    shift 3
    local bin="$tmp/${prog}_$(mpi_of "$s")" per=$((np / 2))
    local -a at=() ompi=(--oversubscribe -n "$np") mpich=(-n "$np") ours=(-n "$np" --oversubscribe)
    if [ "$place" = 2h ]; then
        at=(ip netns exec "$ha")
        ours=(--launch-agent "ip netns exec {host}" --bind-to none --host "$ha:$per,$hb:$per"
              -n "$np" -x "LD_PRELOAD=$SOFTIB_LIB" -x "SOFTIB_DIR=$SOFTIB_DIR")
        ompi=(--bind-to none --mca plm_rsh_agent "$tmp/nsagent" --host "$ha:$per,$hb:$per"
              -n "$np" --mca oob_tcp_if_include rt0)
        mpich=(-launcher ssh -launcher-exec "$tmp/nsagent" -hosts "$ha:$per,$hb:$per" -n "$np"
               -iface rt0 -bind-to none)
    fi
    case $s in
    ours) env RTM_TRANSPORTS=self,verbs timeout -k 10 "$job_timeout" "${at[@]}" \
              "$run" "$build/rtrun" "${ours[@]}" "$bin" "$@" ;;
    openib-erdma) timeout -k 10 "$job_timeout" "${at[@]}" "$run" mpirun.openmpi "${root_flag[@]}" \
              "${ompi[@]}" "${ob1[@]}" --mca btl_openib_use_eager_rdma 1 "$bin" "$@" ;;
    openib) timeout -k 10 "$job_timeout" "${at[@]}" "$run" mpirun.openmpi "${root_flag[@]}" \
              "${ompi[@]}" "${ob1[@]}" --mca btl_openib_use_eager_rdma 0 "$bin" "$@" ;;
    ompi-ucx) env "${ucx_env[@]}" timeout -k 10 "$job_timeout" "${at[@]}" "$run" mpirun.openmpi \
              "${root_flag[@]}" "${ompi[@]}" --mca pml ucx --mca osc ucx \
              --mca btl self "$bin" "$@" ;;
    mpich-ucx) env "${ucx_env[@]}" MPIR_CVAR_NOLOCAL=1 timeout -k 10 "$job_timeout" "${at[@]}" \
              "$run" mpirun.mpich "${mpich[@]}" "$bin" "$@" ;;
    esac
}

raw="$tmp/raw"
: >"$raw"
: >"$tmp/failures"
# the raw lines of 2h runs name their bench 2h:NAME
record() {
    local pre=
    [ "$place" = 2h ] && pre=2h:
    grep '^bench=' "$3" | sed "s/^bench=/round=$1 impl=$2 bench=$pre/" >>"$raw" || true
}
job() {   # job ROUND STACK NP PROG ARGS...
    local r=$1 s=$2
    shift 2
    if ! launch "$s" "$@" >"$tmp/out" 2>&1; then
        { echo "== round $r $place $s $*"; tail -n 15 "$tmp/out"; } >>"$tmp/failures"
    fi
    record "$r" "$s" "$tmp/out"
}
# counts ROUND STACK: softib's counters per 8 B ping-pong message
counts() {
    local r=$1 s=$2 i d
    for i in 1000 3000; do
        d="$tmp/stats.$s.$i"
        rm -rf "$d" && mkdir "$d"
        SOFTIB_STATS=$d launch "$s" 2 osu_p2p -t lat -x 8 -r 1 -i $i >"$tmp/out" 2>&1 ||
            { echo "== round $r $s counts $i"; tail -n 15 "$tmp/out"; } >>"$tmp/failures"
    done
    for k in send_wr recv_wr poll_calls cqe packets one_sided; do
        awk -v k=$k -v r="$r" -v s="$s" \
            'FNR == 1 { f = FILENAME ~ /\.3000\// } $1 == k { v[f] += $2 }
             END { printf "round=%s impl=%s bench=per_msg_%s size=8 value=%.3f unit=count\n",
                   r, s, k, (v[1] - v[0]) / 22000 }' "$tmp/stats.$s.1000"/* "$tmp/stats.$s.3000"/* >>"$raw"
    done
}

start_date=$(date -u '+%Y-%m-%d %H:%M UTC')
loads=()
if [ -n "${TABLES_FROM:-}" ]; then
    # only the tables, from the raw lines of an earlier (maybe cut short) run
    cp "$TABLES_FROM" "$tmp/raw.in"
    rounds=$(sed -n 's/^round=\([0-9]*\) .*/\1/p' "$tmp/raw.in" | sort -n | tail -n 1)
    read -r -a loads <<<"${LOADS:-unknown}"
    start_date=${START_DATE:-$start_date}
    parts=" "
fi
for r in $(seq 1 "$rounds"); do
    [ -n "${TABLES_FROM:-}" ] && break
    loads+=("$(cut -d' ' -f1 /proc/loadavg)")
    echo "round $r/$rounds (load average $(cut -d' ' -f1-3 /proc/loadavg))" >&2
    for place in "${places[@]}"; do
        if [[ $parts == *" p2p "* ]]; then
            for s in "${stacks[@]}"; do
                job "$r" "$s" 2 osu_p2p -r "$reps" -t lat,mr -x 8 -i 2000 -m 500
                job "$r" "$s" 2 osu_p2p -r "$reps" -t bw,bibw -x 4194304
            done
        fi
        if [[ $parts == *" alltoall "* ]]; then
            for s in "${stacks[@]}"; do
                job "$r" "$s" 4 osu_coll -t alltoall -s 256 -r "$reps" -i 500
            done
        fi
        if [[ $parts == *" counts "* ]] && [ "$place" = local ]; then
            for s in "${stacks[@]}"; do counts "$r" "$s"; done
        fi
    done
done
[ -n "${TABLES_FROM:-}" ] && cp "$tmp/raw.in" "$raw" || loads+=("$(cut -d' ' -f1 /proc/loadavg)")
cp "$raw" "$raw_out"

# the tables: medians over rounds, ours / peer
commit=$(git -C "$top" rev-parse --short HEAD 2>/dev/null || echo unknown)
python3 - "$raw" "${stacks[*]}" >"$tmp/tables" <<'PY'
import sys, statistics, collections
raw, stacks = sys.argv[1], sys.argv[2].split()
v = collections.defaultdict(list)
reps = 1
for line in open(raw):
    f = dict(kv.split('=', 1) for kv in line.split() if '=' in kv)
    v[(f['bench'], int(f['size']), f['impl'])].append(float(f['value']))
    # a run's best repetition (REPS > 1): the figure with both ranks on a
    # core, steadier than the median on a machine loaded by other work
    if f['bench'].split(':')[-1] in ('lat', 'mr', 'alltoall') and 'min' in f and 'max' in f:
        best = f['min'] if f['bench'].split(':')[-1] != 'mr' else f['max']
        v[('best:' + f['bench'], int(f['size']), f['impl'])].append(float(best))
        reps = max(reps, int(f.get('reps', '1')))
def med(b, s, i):
    x = v.get((b, s, i))
    return statistics.median(x) if x else None
def fmt(x):
    return '–' if x is None else ('%.3g' % x)
peers = [s for s in stacks if s != 'ours']
def table(title, bench, sizes, unit, better):
    if not any(k[0] == bench for k in v):
        return
    print('\n**%s** (%s; %s is better)\n' % (title, unit, better))
    head = ['size'] + stacks + ['ours / ' + p for p in peers]
    print('| ' + ' | '.join(head) + ' |')
    print('|' + '---|' * len(head))
    for s in sizes:
        row = [str(s)] + [fmt(med(bench, s, i)) for i in stacks]
        o = med(bench, s, 'ours')
        for p in peers:
            m = med(bench, s, p)
            row.append('–' if o is None or not m else '%.2f' % (o / m))
        print('| ' + ' | '.join(row) + ' |')
pow2 = [1 << k for k in range(23)]
for pre, where in [('', 'one host'), ('2h:', 'two namespace hosts')]:
    table('8 B latency, ' + where, pre + 'lat', [8], 'µs', 'lower')
    table('Bandwidth, ' + where, pre + 'bw', pow2, 'GB/s', 'higher')
    table('Bidirectional bandwidth, ' + where, pre + 'bibw', [1, 64, 4096, 65536, 1 << 20, 4 << 20],
          'GB/s', 'higher')
    table('Message rate, 8 B, ' + where, pre + 'mr', [8], 'M msg/s', 'higher')
    table('MPI_Alltoall, 4 ranks, 256 B per pair, ' + where, pre + 'alltoall', [256],
          'µs per call', 'lower')
    if reps > 1:
        for b, t, u, bt in [('lat', '8 B latency', 'µs', 'lower'),
                            ('mr', 'Message rate, 8 B', 'M msg/s', 'higher'),
                            ('alltoall', 'MPI_Alltoall, 4 ranks, 256 B per pair', 'µs per call',
                             'lower')]:
            table(t + ', best of each run\'s %d repetitions, ' % reps + where,
                  'best:' + pre + b, [8] if b != 'alltoall' else [256], u, bt)
for k, t in [('send_wr', 'send work requests'), ('recv_wr', 'receive work requests'),
             ('poll_calls', 'ibv_poll_cq calls (depends on how long waits spin: compare within a run)'),
             ('cqe', 'completions polled'),
             ('packets', 'softib packets'), ('one_sided', 'one-sided process_vm ops')]:
    table('Per 8 B ping-pong message: ' + t, 'per_msg_' + k, [8], 'both ranks', 'lower')
PY
{
    echo "# verbs against other verbs stacks on softib: results"
    echo
    echo "Made by \`ROUNDS=$rounds REPS=$reps PLACES=\"${places[*]}\" bench/compare-verbs.sh\` at $start_date, commit $commit,"
    echo "$(nproc) CPUs, load average at the start of each round and at the end: ${loads[*]}."
    echo "Stacks: ${stacks[*]}. Medians over $rounds rounds; every figure is softib's,"
    echo "compare within a row only."
    cat "$tmp/tables"
    if [ -s "$tmp/failures" ]; then
        echo
        echo "Failed jobs (their figures are missing):"
        echo '```'
        cat "$tmp/failures"
        echo '```'
    fi
} >"$out"
cat "$out"
