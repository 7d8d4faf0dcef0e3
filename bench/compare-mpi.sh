#!/usr/bin/env bash
# bench/compare-mpi.sh [BUILD_DIR]: the MPI benchmark suite of bench/mpi/
# run with librtmsg's MPI binding, Open MPI and MPICH, 2 ranks on this host,
# interleaved, and written up as Markdown tables and gnuplot PNGs.
#
#   bench/mpi/osu_p2p.c        latency 0 B..4 MiB, bandwidth, bidirectional
#                              bandwidth (window of 64), 8 B message rate
#   bench/mpi/osu_coll.c       Barrier/Bcast/Reduce/Allreduce/Allgather/
#                              Alltoall at 8 B, 1 KiB, 64 KiB, 1 MiB
#   bench/mpi/init_finalize.c  launch time: wall time of the launcher running
#                              this trivial program, measured here
#   bench/mpi/op_local.c       the reduction kernels alone (MPI_Reduce_local:
#                              float/double sum, double max, int bxor)
#   bench/mpi/cg_loop.c        an HPCG-like loop: CG on the 27-point stencil,
#                              halo exchanges and 3 Allreduce per iteration
#
# Each program is built with BUILD_DIR/tests/mpi/mpicc (ours), mpicc.openmpi
# and mpicc.mpich. Each round runs, per program, ours then Open MPI then MPICH,
# so load on a shared machine falls on all three alike. A program reports the
# median of REPS repetitions; the tables give the median over ROUNDS rounds of
# those figures, their min-max, and our figure divided by each peer's. Only
# ratios from one run mean anything on a shared machine.
#
# BUILD_DIR defaults to build/ at the top of the tree. Environment:
#   ROUNDS (5)        rounds
#   REPS (3)          repetitions inside one program run
#   LAUNCH_REPS (5)   launches per implementation per round (median kept)
#   JOB_TIMEOUT (600) seconds before one job is killed
#   P2P_ARGS, COLL_ARGS  extra arguments for osu_p2p / osu_coll
#   PARTS ("p2p coll launch ops cg")  which parts to run, e.g. PARTS=coll
#                     COLL_ARGS="-t reduce,allreduce" for collectives alone
#   OUT_DIR (docs/bench)  where mpi-results.md, mpi-raw.txt and the PNGs go
#   BASE_BUILD        a second librtmsg build dir (e.g. of the commit before a
#                     change): run interleaved with the others as "before",
#                     with a column ours / before in every table
#   NP (2)            ranks; more than the CPUs runs oversubscribed (every
#                     launcher told so: no binding, Open MPI then yields idle)
#   LOAD (0)          1: loaded mode: one busy process per CPU runs for the
#                     whole measurement (each bounded by LOAD_SECONDS, 3600,
#                     and killed at exit), so the three MPIs meet the same load;
#                     osu_p2p then times samples of at least 50 ms (-T 50,
#                     before P2P_ARGS): 200 windows of 1 B last well under a
#                     millisecond, and one descheduling decided the figure
# With NP or LOAD set, the files are named mpi-results-np4-loaded.md etc.
# Installs openmpi-bin libopenmpi-dev mpich libmpich-dev gnuplot-nox if missing.
set -euo pipefail
top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
. "$top/scripts/deps.sh"
build=$(cd "${1:-$top/build}" && pwd)
rounds=${ROUNDS:-5}
reps=${REPS:-3}
launch_reps=${LAUNCH_REPS:-5}
job_timeout=${JOB_TIMEOUT:-600}
out_dir=${OUT_DIR:-$top/docs/bench}
read -r -a p2p_extra <<<"${P2P_ARGS:-}"
[ "${LOAD:-0}" = 1 ] && p2p_extra=(-T 50 "${p2p_extra[@]}")
read -r -a coll_extra <<<"${COLL_ARGS:-}"
parts=" ${PARTS:-p2p coll launch ops cg} "
np=${NP:-2}
load=${LOAD:-0}
load_seconds=${LOAD_SECONDS:-3600}
tag=""
[ "$np" != 2 ] && tag="$tag-np$np"
[ "$load" = 1 ] && tag="$tag-loaded"
oversub=0
[ "$np" -gt "$(nproc)" ] && oversub=1

rtm_install_packages openmpi-bin libopenmpi-dev mpich libmpich-dev gnuplot-nox
make -C "$build" -s rtrun librtmsg.la tests/mpi/mpicc >/dev/null
base=""
if [ -n "${BASE_BUILD:-}" ]; then
    base=$(cd "$BASE_BUILD" && pwd)
    make -C "$base" -s rtrun librtmsg.la tests/mpi/mpicc >/dev/null
fi
mkdir -p "$out_dir"

tmp=$(mktemp -d)
busy_pids=()
stop_load() {
    local p
    for p in "${busy_pids[@]}"; do kill "$p" 2>/dev/null || true; done
    for p in "${busy_pids[@]}"; do wait "$p" 2>/dev/null || true; done
    busy_pids=()
}
trap 'stop_load; rm -rf "$tmp"' EXIT

impls=(ours openmpi mpich)
declare -A mpicc=([ours]="$build/tests/mpi/mpicc" [openmpi]=mpicc.openmpi [mpich]=mpicc.mpich)
declare -A label=([ours]=librtmsg [openmpi]="Open MPI" [mpich]=MPICH)
if [ -n "$base" ]; then
    impls=(ours base openmpi mpich)
    mpicc[base]="$base/tests/mpi/mpicc"
    label[base]="librtmsg (before)"
fi
# MPICH's MPI_STATUSES_IGNORE trips a false -Wstringop-overflow in gcc 12
cflags=(-O2 -Wall -Wextra -Wno-stringop-overflow)
for impl in "${impls[@]}"; do
    for prog in osu_p2p osu_coll init_finalize op_local cg_loop; do
        ${mpicc[$impl]} "${cflags[@]}" -o "$tmp/${prog}_$impl" "$top/bench/mpi/$prog.c" -lm
    done
done

root_flag=()
[ "$(id -u)" -eq 0 ] && root_flag=(--allow-run-as-root)
if [ "$oversub" = 1 ]; then
    launcher_ours=("$build/rtrun" -n "$np" --oversubscribe)
    launcher_base=("$base/rtrun" -n "$np" --oversubscribe)
    launcher_openmpi=(mpirun.openmpi "${root_flag[@]}" -n "$np" --oversubscribe --bind-to none --mca pml ob1 --mca btl self,vader)
    launcher_mpich=(mpirun.mpich -n "$np")
else
    launcher_ours=("$build/rtrun" -n "$np" --bind-to core)
    launcher_base=("$base/rtrun" -n "$np" --bind-to core)
    # ob1 + vader: Open MPI's shared-memory path, one rank per core
    launcher_openmpi=(mpirun.openmpi "${root_flag[@]}" -n "$np" --bind-to core --mca pml ob1 --mca btl self,vader)
    launcher_mpich=(mpirun.mpich -n "$np" -bind-to core)
fi
launch() {   # launch IMPL PROGRAM ARGS...: one bounded job
    local impl=$1; shift
    local -n l="launcher_$impl"
    timeout -k 10 "$job_timeout" "${l[@]}" "$@"
}

raw="$tmp/raw"
: >"$raw"
failures=()
loads=()
record() {   # record ROUND IMPL FILE: keep the measurement lines of one run
    grep '^bench=' "$3" | sed "s/^/round=$1 impl=$2 /" >>"$raw" || true
}
run_prog() {   # run_prog ROUND IMPL PROG ARGS...
    local r=$1 impl=$2 prog=$3; shift 3
    if launch "$impl" "$tmp/${prog}_$impl" "$@" >"$tmp/out" 2>&1; then
        record "$r" "$impl" "$tmp/out"
    else
        failures+=("round $r: $prog under ${label[$impl]} exited with $? (see below)")
        { echo "== round $r $impl $prog"; tail -n 20 "$tmp/out"; } >>"$tmp/failures.log"
        record "$r" "$impl" "$tmp/out"   # whatever it measured before failing
    fi
}
now_ns() { date +%s%N; }

# loaded mode: one busy process per CPU, each bounded in time, each in a
# session of its own (setsid) as other work on a host would be: with the
# kernel's autogroup scheduling (sched_autogroup_enabled) a session shares
# one CPU share, and MPICH's launcher puts every rank in a session of its own
if [ "$load" = 1 ]; then
    for c in $(seq 1 "$(nproc)"); do
        setsid timeout "$load_seconds" sh -c 'while :; do :; done' &
        busy_pids+=($!)
    done
    echo "loaded mode: ${#busy_pids[@]} busy processes (pids ${busy_pids[*]}), at most $load_seconds s" >&2
fi
# the tree as measured, before this run writes its own files into it
commit=$(git -C "$top" rev-parse --short HEAD 2>/dev/null || echo unknown)
if [ -n "$(git -C "$top" status --porcelain 2>/dev/null)" ]; then commit="$commit + uncommitted changes"; fi
start_load=$(cut -d' ' -f1-3 /proc/loadavg)
start_date=$(date -u '+%Y-%m-%d %H:%M UTC')
for r in $(seq 1 "$rounds"); do
    loads+=("$(cut -d' ' -f1 /proc/loadavg)")
    echo "round $r/$rounds (load average $(cut -d' ' -f1-3 /proc/loadavg))" >&2
    if [[ $parts == *" p2p "* ]]; then
        for impl in "${impls[@]}"; do
            run_prog "$r" "$impl" osu_p2p -r "$reps" "${p2p_extra[@]}"
        done
    fi
    if [[ $parts == *" coll "* ]]; then
        for impl in "${impls[@]}"; do
            run_prog "$r" "$impl" osu_coll -r "$reps" "${coll_extra[@]}"
        done
    fi
    if [[ $parts == *" ops "* ]]; then
        for impl in "${impls[@]}"; do
            run_prog "$r" "$impl" op_local -r "$reps"
        done
    fi
    if [[ $parts == *" cg "* ]]; then
        for impl in "${impls[@]}"; do
            run_prog "$r" "$impl" cg_loop -r "$reps"
        done
    fi
    for impl in "${impls[@]}"; do
        [[ $parts == *" launch "* ]] || break
        : >"$tmp/launch"
        for k in $(seq 1 "$launch_reps"); do
            t0=$(now_ns)
            if launch "$impl" "$tmp/init_finalize_$impl" >"$tmp/out" 2>&1; then
                echo "$(( ($(now_ns) - t0) / 1000 ))" >>"$tmp/launch"
            else
                failures+=("round $r: launch $k under ${label[$impl]} failed")
                { echo "== round $r $impl launch $k"; tail -n 20 "$tmp/out"; } >>"$tmp/failures.log"
            fi
        done
        # median and extremes of this round's launches, in milliseconds
        sort -n "$tmp/launch" | awk -v r="$r" -v impl="$impl" '
            { v[NR] = $1 / 1000 }
            END { if (NR == 0) exit
                  med = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
                  printf "round=%s impl=%s bench=launch size=0 value=%.4g unit=ms min=%.4g max=%.4g reps=%d iters=1\n",
                         r, impl, med, v[1], v[NR], NR }' >>"$raw"
    done
done
end_load=$(cut -d' ' -f1-3 /proc/loadavg)
stop_load
cp "$raw" "$out_dir/mpi-raw$tag.txt"

# ---- tables and plot data ------------------------------------------------
# For every (bench, size, impl): median over rounds of the per-run value and
# min-max over rounds. Ratios are ours / peer, for every metric: below 1 is
# better for times (us, ms), above 1 for rates (GB/s, Mmsg/s).
awk -v datadir="$tmp" -v hasbase="${base:+1}" '
function median(list,   n, a, i, j, t) {
    n = split(list, a, " ")
    for (i = 2; i <= n; i++) for (j = i; j > 1 && a[j-1] + 0 > a[j] + 0; j--) { t = a[j]; a[j] = a[j-1]; a[j-1] = t }
    lo = a[1]; hi = a[n]
    return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
}
function human(s) {
    if (s >= 1048576 && s % 1048576 == 0) return (s / 1048576) " MiB"
    if (s >= 1024 && s % 1024 == 0) return (s / 1024) " KiB"
    return s " B"
}
function fmt(v) { return v >= 100 ? sprintf("%.0f", v) : v >= 10 ? sprintf("%.1f", v) : v >= 1 ? sprintf("%.2f", v) : v >= 0.01 ? sprintf("%.3f", v) : sprintf("%.2g", v) }
function cell(b, s, i,   k) {
    k = b SUBSEP s SUBSEP i
    if (!(k in vals)) return "–"
    return sprintf("%s (%s–%s)", fmt(med[k]), fmt(mn[k]), fmt(mx[k]))
}
function ratio(b, s, p,   a, c) {
    a = b SUBSEP s SUBSEP "ours"; c = b SUBSEP s SUBSEP p
    if (!(a in vals) || !(c in vals) || med[c] == 0) return "–"
    return sprintf("%.2f", med[a] / med[c])
}
function best(b, s,   o, m, lower) {   # the better peer figure, or "" if none
    o = b SUBSEP s SUBSEP "openmpi"; m = b SUBSEP s SUBSEP "mpich"
    lower = (unit[b] == "us" || unit[b] == "ms")
    if (!(o in vals)) return (m in vals) ? med[m] : ""
    if (!(m in vals)) return med[o]
    return lower ? (med[o] < med[m] ? med[o] : med[m]) : (med[o] > med[m] ? med[o] : med[m])
}
function vsbest(b, s,   a, bp) {
    a = b SUBSEP s SUBSEP "ours"; bp = best(b, s)
    if (!(a in vals) || bp == "" || bp == 0) return "–"
    return sprintf("%.2f", med[a] / bp)
}
function basecols(b, s) {   # the "before" build and ours / before, when run
    return hasbase ? sprintf(" %s | %s |", cell(b, s, "base"), ratio(b, s, "base")) : ""
}
function target(b, s,   r) {   # issue 4: times <= 0.8x, rates >= 1.25x, launch < 0.5x the better peer
    r = vsbest(b, s)
    if (r == "–") return "–"
    if (b == "launch") return r + 0 < 0.5 ? "met" : "not met"
    if (unit[b] == "us") return r + 0 <= 0.8 ? "met" : "not met"
    return r + 0 >= 1.25 ? "met" : "not met"
}
{
    delete f
    for (i = 1; i <= NF; i++) { split($i, kv, "="); f[kv[1]] = kv[2] }
    b = f["bench"]; s = f["size"] + 0
    if (!(b in unit)) { unit[b] = f["unit"]; border[++nb] = b }
    if (!((b, s) in seen)) { seen[b, s] = 1; sizes[b] = sizes[b] " " s }
    k = b SUBSEP s SUBSEP f["impl"]
    vals[k] = vals[k] " " f["value"]
}
END {
    for (k in vals) { med[k] = median(vals[k]); mn[k] = lo; mx[k] = hi }
    names["lat"] = "Latency (ping-pong, half round trip)"
    names["bw"] = "Bandwidth (window of 64 MPI_Isend, ack per window)"
    names["bibw"] = "Bidirectional bandwidth (window of 64 each way)"
    names["mr"] = "Message rate (8 B, window of 64)"
    names["barrier"] = "MPI_Barrier"; names["bcast"] = "MPI_Bcast"; names["reduce"] = "MPI_Reduce (float sum)"
    names["allreduce"] = "MPI_Allreduce (float sum)"; names["allgather"] = "MPI_Allgather (size per rank)"
    names["alltoall"] = "MPI_Alltoall (size per rank pair)"; names["launch"] = "Launch time (MPI_Init + MPI_Finalize)"
    names["sendrecv"] = "MPI_Sendrecv (ring: to the next rank, from the previous)"
    names["op_float_sum"] = "MPI_Reduce_local, MPI_FLOAT MPI_SUM (size of each buffer)"
    names["op_double_sum"] = "MPI_Reduce_local, MPI_DOUBLE MPI_SUM"
    names["op_double_max"] = "MPI_Reduce_local, MPI_DOUBLE MPI_MAX"
    names["op_int_bxor"] = "MPI_Reduce_local, MPI_INT MPI_BXOR"
    names["cg"] = "HPCG-like CG iteration (bench/mpi/cg_loop.c; size: grid points per rank)"
    short["lat"] = "latency"; short["bw"] = "bandwidth"; short["bibw"] = "bidir. bandwidth"; short["mr"] = "message rate"
    short["barrier"] = "Barrier"; short["allreduce"] = "Allreduce"; short["launch"] = "launch time"

    # headline
    nh = split("lat:8 bw:65536 bw:1048576 bibw:1048576 mr:8 barrier:0 allreduce:8 allreduce:1048576 launch:0", hl, " ")
    print "### Headline\n"
    print "Median over rounds (min–max over rounds). Ratio: librtmsg / peer; \"vs best\": librtmsg / the better peer; target from issue 4: times at most 0.8×, rates at least 1.25×, launch under 0.5× the better peer.\n"
    print "| metric | librtmsg | Open MPI | MPICH | / Open MPI | / MPICH | vs best | target |" (hasbase ? " before | / before |" : "")
    print "|---|---|---|---|---|---|---|---|" (hasbase ? "---|---|" : "")
    for (h = 1; h <= nh; h++) {
        split(hl[h], p, ":"); b = p[1]; s = p[2] + 0
        if (!(b in unit)) continue
        m = short[b] (b == "launch" || b == "barrier" ? "" : " " human(s))
        printf "| %s, %s | %s | %s | %s | %s | %s | %s | %s |%s\n", m, unit[b],
            cell(b, s, "ours"), cell(b, s, "openmpi"), cell(b, s, "mpich"),
            ratio(b, s, "openmpi"), ratio(b, s, "mpich"), vsbest(b, s), target(b, s), basecols(b, s)
    }
    print ""
    for (i = 1; i <= nb; i++) {
        b = border[i]
        printf "### %s, %s (%s is better)\n\n", names[b] ? names[b] : b, unit[b], (unit[b] == "us" || unit[b] == "ms") ? "lower" : "higher"
        print "| size | librtmsg | Open MPI | MPICH | / Open MPI | / MPICH | vs best | target |" (hasbase ? " before | / before |" : "")
        print "|---|---|---|---|---|---|---|---|" (hasbase ? "---|---|" : "")
        n = split(sizes[b], ss, " ")
        dat = datadir "/" b ".dat"
        for (j = 1; j <= n; j++) {
            s = ss[j] + 0
            printf "| %s | %s | %s | %s | %s | %s | %s | %s |%s\n", human(s),
                cell(b, s, "ours"), cell(b, s, "openmpi"), cell(b, s, "mpich"),
                ratio(b, s, "openmpi"), ratio(b, s, "mpich"), vsbest(b, s), target(b, s), basecols(b, s)
            line = s
            for (q = 1; q <= 3; q++) {
                im = q == 1 ? "ours" : q == 2 ? "openmpi" : "mpich"
                k = b SUBSEP s SUBSEP im
                line = line ((k in vals) ? sprintf(" %g %g %g", med[k], mn[k], mx[k]) : " NaN NaN NaN")
            }
            print line > dat
        }
        close(dat)
        print ""
    }
}' "$raw" >"$tmp/tables.md"

# ---- plots ---------------------------------------------------------------
plot() {   # plot BENCH FILE TITLE YLABEL LOGY
    local b=$1 png=$2 title=$3 ylabel=$4 logy=$5
    [ -s "$tmp/$b.dat" ] || return 0
    # size 0 has no place on a log axis
    awk '$1 > 0' "$tmp/$b.dat" >"$tmp/$b.plot"
    gnuplot <<EOF
set terminal pngcairo size 900,560 font "sans,10"
set output "$out_dir/${png/mpi-/mpi$tag-}"
set title "$title"
set xlabel "message size (bytes)"
set ylabel "$ylabel"
set logscale x 2
set format x "2^{%L}"
$( [ "$logy" = yes ] && echo 'set logscale y 10' )
set key top left
set grid
plot "$tmp/$b.plot" using 1:2:3:4 with yerrorlines lw 2 title "librtmsg", \
     "" using 1:5:6:7 with yerrorlines lw 2 title "Open MPI 4.1 (ob1/vader)", \
     "" using 1:8:9:10 with yerrorlines lw 2 title "MPICH 4.0"
EOF
}
plot lat mpi-latency.png "Ping-pong latency, $np ranks (median over $rounds rounds, bars: min-max)" "microseconds (lower is better)" yes
plot bw mpi-bandwidth.png "Streaming bandwidth, window of 64, $np ranks (median over $rounds rounds, bars: min-max)" "GB/s (higher is better)" yes
plot reduce mpi-reduce.png "MPI_Reduce (float sum), $np ranks (median over $rounds rounds, bars: min-max)" "microseconds (lower is better)" yes
plot allreduce mpi-allreduce.png "MPI_Allreduce (float sum), $np ranks (median over $rounds rounds, bars: min-max)" "microseconds (lower is better)" yes

# ---- the write-up --------------------------------------------------------
ompi_ver=$(mpirun.openmpi --version 2>&1 | sed -n 's/.*(Open[A-Za-z ]*) *//p' | head -n 1)
mpich_ver=$(mpirun.mpich --version 2>&1 | sed -n 's/^ *Version: *//p' | head -n 1)
cpu=$(sed -n 's/^model name[[:space:]]*: *//p' /proc/cpuinfo | head -n 1)
{
    echo "## MPI benchmarks: $start_date"
    echo
    echo "Generated by \`ROUNDS=$rounds REPS=$reps LAUNCH_REPS=$launch_reps${NP:+ NP=$NP}${LOAD:+ LOAD=$LOAD}${PARTS:+ PARTS=\"$PARTS\"}${COLL_ARGS:+ COLL_ARGS=\"$COLL_ARGS\"}${P2P_ARGS:+ P2P_ARGS=\"$P2P_ARGS\"} bench/compare-mpi.sh\`"
    echo "(commit $commit) on $(nproc) CPUs ($cpu), Linux $(uname -r). Open MPI $ompi_ver"
    echo "(ob1/vader), MPICH $mpich_ver. Load average (1, 5, 15 min) at the start"
    echo "$start_load, at the end $end_load; 1-min load at the start of each round: ${loads[*]}."
    if [ "$load" = 1 ]; then
        echo "Loaded mode: $(nproc) busy processes (one per CPU, \`while :; do :; done\`) ran through"
        echo "every round, so each MPI met the same extra load (autogroup scheduling:"
        echo "$(cat /proc/sys/kernel/sched_autogroup_enabled 2>/dev/null || echo unknown); with it, MPICH's ranks, each in a session"
        echo "of its own, get a CPU share each, ours and Open MPI's share one per job)."
    fi
    [ "$oversub" = 1 ] && echo "Oversubscribed: $np ranks on $(nproc) CPUs, no binding."
    echo "With $np ranks on $(nproc) CPUs, any other load lands on a benchmark core:"
    echo "absolute figures are those of this machine at this time; compare within a row."
    echo
    echo "Each program run reports the median of $reps repetitions; a cell gives the"
    echo "median over the $rounds rounds of that figure and, in parentheses, the"
    echo "lowest and highest round. Launch time: wall time from starting the launcher"
    echo "until it exits for a program that only calls MPI_Init and MPI_Finalize,"
    echo "median of $launch_reps launches per round. Raw lines: [mpi-raw$tag.txt](mpi-raw$tag.txt)."
    echo
    echo "Commands (programs in bench/mpi/ built with each MPI's mpicc ${cflags[*]}):"
    echo
    echo "- librtmsg: \`${launcher_ours[*]/#$build\//} PROG\` (compiled with <build>/tests/mpi/mpicc)"
    [ -n "$base" ] && echo "- librtmsg before (BASE_BUILD, commit $(git -C "$base/.." rev-parse --short HEAD 2>/dev/null || echo unknown)): the same with that build's rtrun and mpicc"
    echo "- Open MPI: \`${launcher_openmpi[*]} PROG\`"
    echo "- MPICH: \`${launcher_mpich[*]} PROG\`"
    echo "- PROG: \`osu_p2p -r $reps${P2P_ARGS:+ $P2P_ARGS}\`, \`osu_coll -r $reps${COLL_ARGS:+ $COLL_ARGS}\`, \`init_finalize\`, \`op_local -r $reps\`, \`cg_loop -r $reps\`"
    echo
    if [ ${#failures[@]} -gt 0 ]; then
        echo "**Failed runs** (their figures are missing from the medians):"
        echo
        for f in "${failures[@]}"; do echo "- $f"; done
        echo
        echo '```'
        cat "$tmp/failures.log"
        echo '```'
        echo
    fi
    # the plots this run drew (PARTS may leave some out)
    for b in lat:latency bw:bandwidth reduce:reduce allreduce:allreduce; do
        if [ -s "$tmp/${b%%:*}.dat" ]; then echo "![${b#*:}](mpi$tag-${b#*:}.png)"; fi
    done
    echo
    cat "$tmp/tables.md"
} >"$out_dir/mpi-results$tag.md"
echo "wrote $out_dir/mpi-results$tag.md, mpi-raw$tag.txt and the plots" >&2
if [ ${#failures[@]} -gt 0 ]; then
    printf '%s\n' "${failures[@]}" >&2
    exit 1
fi
