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
#   softib counts  verbs work requests (send, receive), completions,
#                  softib packets and one-sided (process_vm) transfers per 8 B
#                  ping-pong message, summed over both
#                  ranks through SOFTIB_STATS: two runs of osu_p2p -t lat
#                  -x 8 with 1000 and 3000 iterations, the difference divided
#                  by the 22000 messages between them (so wireup, init and
#                  finalize cancel out)
#
# Each round runs every part with every stack in turn, so load on a shared
# machine falls on all alike; the tables give medians over ROUNDS rounds and
# our figure divided by each peer's. Only ratios of one run mean anything:
# the absolute figures are softib's, not an HCA's.
#
# Environment: ROUNDS (3), REPS (1, repetitions inside one program run),
# JOB_TIMEOUT (600 s per job), STACKS (all five, e.g. "ours openib"),
# PARTS ("p2p alltoall counts"), OUT (docs/bench/verbs-results.md; the raw
# lines go next to it as verbs-raw.txt), TABLES_FROM=<raw file> (no
# measurement: the tables of an earlier run's raw lines; LOADS and
# START_DATE then say what that run saw).
set -euo pipefail
top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
. "$top/scripts/deps.sh"
build=$(cd "${1:-$top/build}" && pwd)
rounds=${ROUNDS:-3}
reps=${REPS:-1}
job_timeout=${JOB_TIMEOUT:-600}
read -r -a stacks <<<"${STACKS:-ours openib-erdma openib ompi-ucx mpich-ucx}"
parts=" ${PARTS:-p2p alltoall counts} "
out=${OUT:-$top/docs/bench/verbs-results.md}
raw_out="$(dirname "$out")/verbs-raw.txt"

rtm_install_packages openmpi-bin libopenmpi-dev mpich libmpich-dev ucx-utils libucx0
make -C "$build" -s >/dev/null
run="$build/softib-run"
export SOFTIB_LIB="$build/softib/.libs/libsoftib.so"
[ -x "$run" ] && [ -f "$SOFTIB_LIB" ] || { echo "no softib in $build" >&2; exit 1; }
if [ "$(id -u)" != 0 ]; then
    echo "note: not root: UCX cannot see softib0 (no device node); ompi-ucx and mpich-ucx left out" >&2
    read -r -a stacks <<<"$(printf '%s\n' "${stacks[@]}" | grep -v ucx | tr '\n' ' ')"
fi
mkdir -p "$(dirname "$out")"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

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
# launch STACK NP PROG ARGS...: one bounded job on softib
launch() {
    local s=$1 np=$2 prog=$3
    shift 3
    local bin="$tmp/${prog}_$(mpi_of "$s")"
    case $s in
    ours) env RTM_TRANSPORTS=self,verbs timeout -k 10 "$job_timeout" \
              "$run" "$build/rtrun" -n "$np" --oversubscribe "$bin" "$@" ;;
    openib-erdma) timeout -k 10 "$job_timeout" "$run" mpirun.openmpi "${root_flag[@]}" \
              --oversubscribe -n "$np" "${ob1[@]}" --mca btl_openib_use_eager_rdma 1 "$bin" "$@" ;;
    openib) timeout -k 10 "$job_timeout" "$run" mpirun.openmpi "${root_flag[@]}" \
              --oversubscribe -n "$np" "${ob1[@]}" --mca btl_openib_use_eager_rdma 0 "$bin" "$@" ;;
    ompi-ucx) env "${ucx_env[@]}" timeout -k 10 "$job_timeout" "$run" mpirun.openmpi \
              "${root_flag[@]}" --oversubscribe -n "$np" --mca pml ucx --mca osc ucx \
              --mca btl self "$bin" "$@" ;;
    mpich-ucx) env "${ucx_env[@]}" MPIR_CVAR_NOLOCAL=1 timeout -k 10 "$job_timeout" \
              "$run" mpirun.mpich -n "$np" "$bin" "$@" ;;
    esac
}

raw="$tmp/raw"
: >"$raw"
: >"$tmp/failures"
record() { grep '^bench=' "$3" | sed "s/^/round=$1 impl=$2 /" >>"$raw" || true; }
job() {   # job ROUND STACK NP PROG ARGS...
    local r=$1 s=$2
    shift 2
    if ! launch "$s" "$@" >"$tmp/out" 2>&1; then
        { echo "== round $r $s $*"; tail -n 15 "$tmp/out"; } >>"$tmp/failures"
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
    if [[ $parts == *" p2p "* ]]; then
        for s in "${stacks[@]}"; do
            job "$r" "$s" 2 osu_p2p -r "$reps" -t lat,mr -x 8 -i 2000 -m 500
            job "$r" "$s" 2 osu_p2p -r "$reps" -t bw,bibw -x 4194304
        done
    fi
    if [[ $parts == *" alltoall "* ]]; then
        for s in "${stacks[@]}"; do job "$r" "$s" 4 osu_coll -t alltoall -s 256 -r "$reps" -i 500; done
    fi
    if [[ $parts == *" counts "* ]]; then
        for s in "${stacks[@]}"; do counts "$r" "$s"; done
    fi
done
[ -n "${TABLES_FROM:-}" ] && cp "$tmp/raw.in" "$raw" || loads+=("$(cut -d' ' -f1 /proc/loadavg)")
cp "$raw" "$raw_out"

# the tables: medians over rounds, ours / peer
commit=$(git -C "$top" rev-parse --short HEAD 2>/dev/null || echo unknown)
python3 - "$raw" "${stacks[*]}" >"$tmp/tables" <<'PY'
import sys, statistics, collections
raw, stacks = sys.argv[1], sys.argv[2].split()
v = collections.defaultdict(list)
for line in open(raw):
    f = dict(kv.split('=', 1) for kv in line.split() if '=' in kv)
    v[(f['bench'], int(f['size']), f['impl'])].append(float(f['value']))
def med(b, s, i):
    x = v.get((b, s, i))
    return statistics.median(x) if x else None
def fmt(x):
    return '–' if x is None else ('%.3g' % x)
peers = [s for s in stacks if s != 'ours']
def table(title, bench, sizes, unit, better):
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
table('8 B latency', 'lat', [8], 'µs', 'lower')
table('Bandwidth', 'bw', pow2, 'GB/s', 'higher')
table('Bidirectional bandwidth', 'bibw', [1, 64, 4096, 65536, 1 << 20, 4 << 20], 'GB/s', 'higher')
table('Message rate, 8 B', 'mr', [8], 'M msg/s', 'higher')
table('MPI_Alltoall, 4 ranks, 256 B per pair', 'alltoall', [256], 'µs per call', 'lower')
for k, t in [('send_wr', 'send work requests'), ('recv_wr', 'receive work requests'),
             ('cqe', 'completions polled'),
             ('packets', 'softib packets'), ('one_sided', 'one-sided process_vm ops')]:
    table('Per 8 B ping-pong message: ' + t, 'per_msg_' + k, [8], 'both ranks', 'lower')
PY
{
    echo "# verbs against other verbs stacks on softib: results"
    echo
    echo "Made by \`ROUNDS=$rounds REPS=$reps bench/compare-verbs.sh\` at $start_date, commit $commit,"
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
