#!/usr/bin/env bash
# bench/callgrind-calls.sh [BUILD_DIR]: instructions per MPI call, measured
# with valgrind callgrind by one method for librtmsg's MPI binding, Open MPI
# (ob1/vader) and MPICH: bench/mpi/mpi_calls.c built with each MPI's mpicc,
# 2 ranks on this host (shared memory), 8-byte messages, both ranks under
# callgrind. Per call = (inclusive - self) / calls of the noinline wrapper
# around the measured loop (mpi_calls.c says which call each wrapper holds);
# only the measured rounds and MPI_Init/MPI_Finalize are collected.
#
# Instruction counts do not depend on the machine's load (only on the paths
# taken), so the figures are stable on a shared machine; a run takes a few
# minutes because both ranks run under valgrind.
#
# BUILD_DIR defaults to build/ at the top of the tree. Environment:
#   ROUNDS (200)      measured rounds (16 messages each way per round)
#   IMPLS ("ours openmpi mpich")  which MPIs to run
#   BASE_BUILD        a second librtmsg build dir (e.g. of the commit before a
#                     change), run as "before"
#   JOB_TIMEOUT (900) seconds before one job is killed
#   KEEP_DIR          keep the callgrind files there (default: a temp dir)
# Prints a Markdown table on stdout.
set -euo pipefail
top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=$(cd "${1:-$top/build}" && pwd)
rounds=${ROUNDS:-200}
job_timeout=${JOB_TIMEOUT:-900}
read -r -a impls <<<"${IMPLS:-ours openmpi mpich}"
base=""
if [ -n "${BASE_BUILD:-}" ]; then
    base=$(cd "$BASE_BUILD" && pwd)
    impls=(ours base "${impls[@]/ours/}")
    read -r -a impls <<<"${impls[*]}"
fi

for tool in valgrind callgrind_annotate; do
    command -v "$tool" >/dev/null || { echo "callgrind-calls.sh: $tool not found (apt-get install valgrind)" >&2; exit 2; }
done
make -C "$build" -s rtrun librtmsg.la tests/mpi/mpicc >/dev/null
[ -n "$base" ] && make -C "$base" -s rtrun librtmsg.la tests/mpi/mpicc >/dev/null

if [ -n "${KEEP_DIR:-}" ]; then
    tmp=$KEEP_DIR
    mkdir -p "$tmp"
else
    tmp=$(mktemp -d)
    trap 'rm -rf "$tmp"' EXIT
fi

declare -A mpicc=([ours]="$build/tests/mpi/mpicc" [base]="$base/tests/mpi/mpicc"
                  [openmpi]=mpicc.openmpi [mpich]=mpicc.mpich)
declare -A label=([ours]=librtmsg [base]="librtmsg (before)" [openmpi]="Open MPI"
                  [mpich]=MPICH)
root_flag=()
[ "$(id -u)" -eq 0 ] && root_flag=(--allow-run-as-root)
launcher_ours=("$build/rtrun" -n 2 --bind-to core)
launcher_base=("$base/rtrun" -n 2 --bind-to core)
launcher_openmpi=(mpirun.openmpi "${root_flag[@]}" -n 2 --bind-to core --mca pml ob1 --mca btl self,vader)
launcher_mpich=(mpirun.mpich -n 2 -bind-to core)

# MPICH's MPI_STATUSES_IGNORE trips a false -Wstringop-overflow in gcc 12
cflags=(-O2 -g -Wall -Wextra -Wno-stringop-overflow)
vg=(valgrind --tool=callgrind --toggle-collect=measure_rounds --toggle-collect=bench_init
    --toggle-collect=bench_finalize)

# cost FILE FUNCTION inclusive|self: the instructions (Ir) of FUNCTION in
# the callgrind file FILE, 0 when absent.
cost() {
    local incl=no
    [ "$3" = inclusive ] && incl=yes
    callgrind_annotate --inclusive="$incl" --threshold=100 "$1" 2>/dev/null |
        awk -v fn="$2" '
            { gsub(",", "", $1) }
            !found && $1 ~ /^[0-9]+$/ { for (i = 2; i <= NF; i++) if ($i ~ (":" fn "$") || $i == fn) { v = $1; found = 1 } }
            END { print found ? v : 0 }'
}

run_job() {   # run_job IMPL DIR: both ranks under callgrind, bounded in time
    local -n l="launcher_$1"
    timeout -k 10 "$job_timeout" "${l[@]}" "${vg[@]}" \
        --callgrind-out-file="$2/callgrind.out.%p" "$2/mpi_calls" "$rounds" >"$2/out" 2>"$2/err"
}

results="$tmp/results"
: >"$results"
for impl in "${impls[@]}"; do
    dir="$tmp/$impl"
    mkdir -p "$dir"
    ${mpicc[$impl]} "${cflags[@]}" -o "$dir/mpi_calls" "$top/bench/mpi/mpi_calls.c"
    echo "running $impl (load average $(cut -d' ' -f1-3 /proc/loadavg))" >&2
    if ! run_job "$impl" "$dir"; then
        echo "callgrind-calls.sh: the $impl job failed:" >&2
        tail -n 20 "$dir/err" >&2
        continue
    fi
    # every wrapper is run by one rank: take it from the file that holds it
    grep '^calls ' "$dir/out" | while read -r _ _ w c; do
        wrapper=${w#wrapper=} calls=${c#calls=}
        total=0
        for f in "$dir"/callgrind.out.*; do
            if [ "$wrapper" = "bench_init+bench_finalize" ]; then
                v=$(( $(cost "$f" bench_init inclusive) + $(cost "$f" bench_finalize inclusive) ))
                # both ranks report it: keep the first file's
                [ "$total" -eq 0 ] && total=$v
                continue
            fi
            incl=$(cost "$f" "$wrapper" inclusive)
            [ "$incl" -eq 0 ] && continue
            self=$(cost "$f" "$wrapper" self)
            total=$(( incl - self ))
        done
        echo "$impl $wrapper $calls $total"
    done | sort -u >>"$results"
done

# ---- the table ------------------------------------------------------------
awk -v impls="${impls[*]}" -v labels="$(for i in "${impls[@]}"; do printf '%s|' "${label[$i]}"; done)" '
BEGIN {
    n = split(impls, im, " "); split(labels, lb, "|")
    row["bench_isend"] = "MPI_Isend, receiver active"
    row["bench_irecv_posted"] = "MPI_Irecv, posted before arrival"
    row["bench_irecv_unexp"] = "MPI_Irecv, message already arrived"
    row["bench_waitall_send"] = "MPI_Waitall, per completed send request"
    row["bench_waitall_recv"] = "MPI_Waitall, per completed receive request"
    row["bench_waitall_unexp"] = "MPI_Waitall, per receive request completed at MPI_Irecv"
    row["bench_init+bench_finalize"] = "MPI_Init + MPI_Finalize"
    split("bench_isend bench_irecv_posted bench_irecv_unexp bench_waitall_send bench_waitall_recv bench_waitall_unexp bench_init+bench_finalize", order, " ")
}
{ v[$1, $2] = $3 > 0 ? $4 / $3 : 0 }
END {
    printf "| call |"; for (i = 1; i <= n; i++) printf " %s |", lb[i]; printf "\n"
    printf "|---|"; for (i = 1; i <= n; i++) printf "---|"; printf "\n"
    for (k = 1; k <= 7; k++) {
        w = order[k]; printf "| %s |", row[w]
        for (i = 1; i <= n; i++) {
            if (!((im[i], w) in v)) { printf " – |"; continue }
            x = v[im[i], w]
            if (w == "bench_init+bench_finalize") printf " %.2f M |", x / 1e6
            else printf " %.0f |", x
        }
        printf "\n"
    }
}' "$results"
echo "(instructions per call, valgrind callgrind; ROUNDS=$rounds, 16 messages of 8 B per round each way, 2 ranks, shared memory)"
