#!/usr/bin/env bash
# bench/osu.sh OSU_SRC [OUT_DIR]: build the C MPI programs of the OSU
# Micro-Benchmarks 7.x from the user's own, unmodified source tree with
# librtmsg's mpicc, run each under rtrun and print a table of what built,
# what ran and what does not apply. A benchmark, not a test: CI has no OSU
# sources (no network), so nothing in TESTS calls this.
#
#   OSU_SRC   the top of an OSU 7.x tree (holding c/util/osu_util_mpi.c)
#   OUT_DIR   build directory and logs (default /tmp/rtm-osu.<pid>); the
#             source tree is never written to
#
# Build: with the tree's own configure when it has one (CC=mpicc, so the
# configure probes see our mpi.h and librtmsg; MPI_Session_init is not
# found, so OSU builds without its MPI-4 parts), else one mpicc line per
# program from what c/mpi/*/Makefile.am implies: the program, c/util/
# osu_util.c, osu_util_mpi.c and, where present, osu_util_graph.c and
# osu_util_papi.c, with FIELD_WIDTH=18 and FLOAT_PRECISION=2 as OSU's
# configure.ac defines them. If the tree lacks osu_util_graph.h/.c or
# osu_util_papi.h/.c (partial copies do), stand-ins written here are used:
# PAPI off and no graphs, as in a default OSU build; the table says so.
#
# Runs: pt2pt and startup programs with 2 ranks; collectives with
# OSU_COLL_NP ranks (4) and --oversubscribe; one-sided programs with 2 ranks
# once per window creation (-w create, allocate, dynamic) and per
# synchronization mode the program offers (-s, ONESIDED_SYNC below; a mode
# the program's own -h does not list is skipped), with -c where the
# program's -h offers validation; every run must exit 0 (and print
# no validation failure); osu_latency_mt needs
# MPI_THREAD_MULTIPLE, which we do not provide, and must say so itself;
# neighbourhood collectives do not compile (MPI_Neighbor_* is not declared).
#
# Environment:
#   MPICC, RTRUN       default: BUILD/tests/mpi/mpicc and BUILD/rtrun with
#                      BUILD=$top_builddir or ./build, else mpicc/rtrun in PATH
#   OSU_BUILD          auto (default) | configure | direct
#   OSU_PT2PT_ARGS     (-i 100 -x 10 -m 1:65536)
#   OSU_COLL_ARGS      (-i 20 -x 2 -m 1:16384)
#   OSU_COLL_NP        (4)
#   OSU_TIMEOUT        seconds per job (120)
#   OSU_ONLY           space-separated program names to build and run
#   OSU_MPI            rtmsg (default) | openmpi | mpich: the same programs
#                      built with mpicc.openmpi / mpicc.mpich and run with
#                      their mpirun, for the one-sided comparison of
#                      docs/benchmarks.md (MPICC/RTRUN then unused)
#   OSU_ONESIDED_ARGS  (-i 100 -x 10 -m 1:65536)
#   OSU_VERSION        the version to report when the tree has neither
#                      configure.ac nor configure (partial copies)
#   OSU_BUILD_ONLY     1: build the programs into OUT_DIR/bin and stop (no
#                      runs; bench/rma-compare.sh OSU=... uses this)
set -uo pipefail
top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

usage() { sed -n '2,12p' "$0" >&2; exit 2; }
[ $# -ge 1 ] || usage
src=$(cd "$1" 2>/dev/null && pwd) || { echo "osu.sh: no directory $1" >&2; exit 2; }
if [ ! -f "$src/c/util/osu_util_mpi.c" ]; then
    echo "osu.sh: $src is not an OSU Micro-Benchmarks 7.x tree (no c/util/osu_util_mpi.c)" >&2
    exit 2
fi
out=${2:-/tmp/rtm-osu.$$}
mkdir -p "$out/bin" "$out/logs" || exit 1
out=$(cd "$out" && pwd)

build_dir=${top_builddir:-$top/build}
mpicc=${MPICC:-}
if [ -z "$mpicc" ]; then
    if [ -x "$build_dir/tests/mpi/mpicc" ]; then mpicc=$build_dir/tests/mpi/mpicc
    else mpicc=$(command -v mpicc || true); fi
fi
rtrun=${RTRUN:-}
if [ -z "$rtrun" ]; then
    if [ -x "$build_dir/rtrun" ]; then rtrun=$build_dir/rtrun
    else rtrun=$(command -v rtrun || true); fi
fi
peer=${OSU_MPI:-rtmsg}
case $peer in
rtmsg) ;;
openmpi|mpich)
    mpicc=$(command -v "mpicc.$peer" || true)
    rtrun=$(command -v "mpirun.$peer" || true) ;;
*) echo "osu.sh: OSU_MPI is rtmsg, openmpi or mpich" >&2; exit 2 ;;
esac
[ -n "$mpicc" ] && [ -x "$mpicc" ] || { echo "osu.sh: no mpicc (set MPICC)" >&2; exit 2; }
[ -n "$rtrun" ] && [ -x "$rtrun" ] || { echo "osu.sh: no rtrun (set RTRUN)" >&2; exit 2; }
mpicxx=${mpicc%cc}cxx
[ "$peer" = rtmsg ] || mpicxx=mpicxx.$peer
if [ "$peer" = rtmsg ]; then
    mpicc_version=$("$mpicc" --showme:version 2>/dev/null | head -n 1)
    if [[ "$mpicc_version" != *librtmsg* ]]; then
        echo "osu.sh: $mpicc is not librtmsg's mpicc" >&2
        exit 2
    fi
else
    mpicc_version="$peer ($("$mpicc" --version 2>/dev/null | head -n 1))"
fi

# The version as OSU's configure.ac states it (AC_INIT), else unknown.
version=$(sed -n 's/^AC_INIT(\[OSU-Micro-Benchmarks\], *\[\([^]]*\)\].*/\1/p' \
    "$src/configure.ac" 2>/dev/null | head -n 1)
[ -n "$version" ] || version=$(sed -n "s/^PACKAGE_VERSION='\(.*\)'/\1/p" "$src/configure" 2>/dev/null | head -n 1)
[ -n "$version" ] || version=${OSU_VERSION:-unknown}

pt2pt_args=${OSU_PT2PT_ARGS:--i 100 -x 10 -m 1:65536}
coll_args=${OSU_COLL_ARGS:--i 20 -x 2 -m 1:16384}
coll_np=${OSU_COLL_NP:-4}
job_timeout=${OSU_TIMEOUT:-120}
mode=${OSU_BUILD:-auto}
if [ "$mode" = auto ]; then
    if [ -x "$src/configure" ]; then mode=configure; else mode=direct; fi
fi

# Stand-ins for util files a partial tree lacks. Our own code, not OSU's:
# the declarations follow what osu_util_mpi.h and the programs call.
notes=()
write_standins() {
    local d=$out/standin
    mkdir -p "$d"
    if [ ! -f "$src/c/util/osu_util_graph.h" ]; then
        notes+=("c/util/osu_util_graph.h/.c missing from the tree: stand-in used (no graphs, -G records nothing)")
        cat >"$d/osu_util_graph.h" <<'EOF'
/* Stand-in for OMB's osu_util_graph.h (written by librtmsg's bench/osu.sh). */
#ifndef OSU_UTIL_GRAPH_STANDIN_H
#define OSU_UTIL_GRAPH_STANDIN_H
#include <stddef.h>
typedef struct omb_graph_data_s {
    double *data;
    double avg;
    size_t message_size;
    size_t length;
} omb_graph_data_t;
typedef struct omb_graph_options_s {
    omb_graph_data_t **graph_datas;
    size_t number_of_graphs;
} omb_graph_options_t;
void omb_graph_options_init(omb_graph_options_t *opts);
void omb_graph_allocate_and_get_data_buffer(omb_graph_data_t **data,
                                            omb_graph_options_t *opts,
                                            size_t message_size, size_t length);
void omb_graph_allocate_data_buffer(omb_graph_options_t *opts,
                                    size_t message_size, size_t length);
void omb_graph_plot(omb_graph_options_t *opts, const char *name);
void omb_graph_combined_plot(omb_graph_options_t *opts, const char *name);
void omb_graph_free_data_buffers(omb_graph_options_t *opts);
#endif
EOF
        cat >"$d/osu_util_graph.c" <<'EOF'
/* Stand-in for OMB's osu_util_graph.c: keeps the per-iteration buffers the
 * programs write into, plots nothing. */
#include <stdlib.h>
#include "osu_util_graph.h"
void omb_graph_options_init(omb_graph_options_t *o)
{
    o->graph_datas = NULL;
    o->number_of_graphs = 0;
}
void omb_graph_allocate_and_get_data_buffer(omb_graph_data_t **d,
                                            omb_graph_options_t *o,
                                            size_t message_size, size_t length)
{
    omb_graph_data_t **grown =
        realloc(o->graph_datas, (o->number_of_graphs + 1) * sizeof(*grown));
    omb_graph_data_t *g = calloc(1, sizeof(*g));
    if (grown == NULL || g == NULL) abort();
    o->graph_datas = grown;
    g->data = calloc(length ? length : 1, sizeof(double));
    if (g->data == NULL) abort();
    g->message_size = message_size;
    g->length = length;
    grown[o->number_of_graphs++] = g;
    *d = g;
}
void omb_graph_allocate_data_buffer(omb_graph_options_t *o,
                                    size_t message_size, size_t length)
{
    omb_graph_data_t *d;
    omb_graph_allocate_and_get_data_buffer(&d, o, message_size, length);
}
void omb_graph_plot(omb_graph_options_t *o, const char *n) { (void)o; (void)n; }
void omb_graph_combined_plot(omb_graph_options_t *o, const char *n) { (void)o; (void)n; }
void omb_graph_free_data_buffers(omb_graph_options_t *o)
{
    for (size_t i = 0; i < o->number_of_graphs; i++) {
        free(o->graph_datas[i]->data);
        free(o->graph_datas[i]);
    }
    free(o->graph_datas);
    o->graph_datas = NULL;
    o->number_of_graphs = 0;
}
EOF
    fi
    if [ ! -f "$src/c/util/osu_util_papi.h" ]; then
        notes+=("c/util/osu_util_papi.h/.c missing from the tree: stand-in used (PAPI off, as in a default OSU build)")
        cat >"$d/osu_util_papi.h" <<'EOF'
/* Stand-in for OMB's osu_util_papi.h (written by librtmsg's bench/osu.sh). */
#ifndef OSU_UTIL_PAPI_STANDIN_H
#define OSU_UTIL_PAPI_STANDIN_H
#define OMB_PAPI_NULL -1
void omb_papi_init(int *eventset);
void omb_papi_start(int *eventset);
void omb_papi_stop_and_print(int *eventset, int size);
void omb_papi_free(int *eventset);
void omb_papi_parse_event_options(char *opt);
#endif
EOF
        cat >"$d/osu_util_papi.c" <<'EOF'
/* Stand-in for OMB's osu_util_papi.c: PAPI off, every call a no-op. */
#include "osu_util_papi.h"
void omb_papi_init(int *e) { *e = OMB_PAPI_NULL; }
void omb_papi_start(int *e) { (void)e; }
void omb_papi_stop_and_print(int *e, int s) { (void)e; (void)s; }
void omb_papi_free(int *e) { (void)e; }
void omb_papi_parse_event_options(char *o) { (void)o; }
EOF
    fi
}

# programs: "dir/name.c" relative to c/mpi, C MPI only (no CUDA kernels).
mapfile -t progs < <(cd "$src/c/mpi" && find pt2pt collective one-sided startup \
    -name 'osu_*.c' 2>/dev/null | sort)
if [ -n "${OSU_ONLY:-}" ]; then
    keep=()
    for p in "${progs[@]}"; do
        for o in $OSU_ONLY; do [ "$(basename "$p" .c)" = "$o" ] && keep+=("$p"); done
    done
    progs=("${keep[@]}")
fi
[ ${#progs[@]} -gt 0 ] || { echo "osu.sh: no programs under $src/c/mpi" >&2; exit 2; }

declare -A built
if [ "$mode" = configure ]; then
    echo "== OSU $version: configure CC=$mpicc in $out/build"
    mkdir -p "$out/build"
    (cd "$out/build" && "$src/configure" CC="$mpicc" CXX="$mpicxx" \
        >"$out/logs/configure.log" 2>&1 && make -j2 >"$out/logs/make.log" 2>&1)
    echo "   configure+make exit $? (logs/configure.log, logs/make.log)"
    for p in "${progs[@]}"; do
        n=$(basename "$p" .c)
        exe="$out/build/c/mpi/${p%.c}"
        if [ -x "$exe" ]; then cp "$exe" "$out/bin/$n" && built[$n]=yes; fi
    done
else
    write_standins
    util=("$src/c/util/osu_util.c" "$src/c/util/osu_util_mpi.c")
    # 7.x trees from 7.3 on keep the atomic validation of the one-sided
    # programs (atomic_data_validation_*) in their own file
    [ -f "$src/c/util/osu_util_validation.c" ] && util+=("$src/c/util/osu_util_validation.c")
    for f in osu_util_graph.c osu_util_papi.c; do
        if [ -f "$src/c/util/$f" ]; then util+=("$src/c/util/$f")
        else util+=("$out/standin/$f"); fi
    done
    echo "== OSU $version: one mpicc line per program (no configure in the tree)"
    echo "   $mpicc -O2 -DPACKAGE_VERSION=\"$version\" -DFIELD_WIDTH=18 -DFLOAT_PRECISION=2" \
        "-I$src/c/util -I$out/standin -o bin/NAME c/mpi/DIR/NAME.c ${util[*]#$src/} -lm -lpthread"
    for p in "${progs[@]}"; do
        n=$(basename "$p" .c)
        if "$mpicc" -O2 -DPACKAGE_VERSION="\"$version\"" -DFIELD_WIDTH=18 -DFLOAT_PRECISION=2 \
                -I"$src/c/util" -I"$out/standin" -o "$out/bin/$n" "$src/c/mpi/$p" "${util[@]}" \
                -lm -lpthread >"$out/logs/$n.build" 2>&1; then
            built[$n]=yes
        fi
    done
fi

if [ "${OSU_BUILD_ONLY:-0}" = 1 ]; then
    for p in "${progs[@]}"; do
        n=$(basename "$p" .c)
        [ -n "${built[$n]:-}" ] || { echo "osu.sh: $n did not build (logs/$n.build)" >&2; exit 1; }
    done
    exit 0
fi

# run NAME NP ARGS...: the job's exit status; output in logs/NAME.run
run() {
    local n=$1 np=$2; shift 2
    local over=() log=$out/logs/$n${RUN_TAG:-}.run
    case $peer in
    rtmsg)
        [ "$np" -gt 2 ] && over=(--oversubscribe)
        "$rtrun" -n "$np" "${over[@]}" --timeout "$job_timeout" "$out/bin/$n" "$@" ;;
    openmpi)
        timeout -k 5 "$job_timeout" "$rtrun" --oversubscribe --allow-run-as-root -n "$np" \
            "$out/bin/$n" "$@" ;;
    mpich)
        timeout -k 5 "$job_timeout" "$rtrun" -n "$np" "$out/bin/$n" "$@" ;;
    esac >"$log" 2>&1
}

# The synchronization modes (-s) of each one-sided program, as OSU 7.x
# documents them; run_onesided keeps those the program's -h names.
declare -A ONESIDED_SYNC=(
    [osu_put_latency]="lock flush flush_local lock_all pscw fence"
    [osu_get_latency]="lock flush flush_local lock_all pscw fence"
    [osu_put_bw]="lock flush flush_local lock_all pscw fence"
    [osu_get_bw]="lock flush flush_local lock_all pscw fence"
    [osu_put_bibw]="pscw fence"
    [osu_acc_latency]="lock flush flush_local lock_all pscw fence"
    [osu_fop_latency]="lock flush flush_local lock_all pscw fence"
    [osu_cas_latency]="lock flush flush_local lock_all pscw fence"
    [osu_get_acc_latency]="lock flush flush_local lock_all pscw fence"
)

# osu_fop_race NAME SYNC LOG: true when the run's only validation failure
# is OSU 7.x's own race in osu_fop_latency's passive modes (lock, flush,
# flush_local, lock_all): rank 1 checks its window once after a barrier
# while rank 0, past that barrier, goes on issuing fetch-and-ops to it, so
# an MPI whose atomics need no action of the target (librtmsg's shm and
# RDMA paths, Open MPI's osc sm: 5 of 5 runs of -w allocate -s flush) may
# show rank 1 more than the one it expects ("failed validation of addr",
# rank 1's summary FAILED; rank 0's results pass).
osu_fop_race() {
    [ "$1" = osu_fop_latency ] || return 1
    case $2 in lock|flush|flush_local|lock_all) ;; *) return 1 ;; esac
    grep -q 'failed validation of addr' "$3" || return 1
    ! grep -q 'failed validation of result\|^[0-9].*failed$\|skipped' "$3"
}

# run_onesided NAME: every -w x -s combination with 2 ranks; sets
# onesided_row to the table's text and returns non-zero if any run failed.
run_onesided() {
    local n=$1 w s help syncs ran=0 bad=0 skipped="" valid=() failed_runs="" used="" races=""
    local -a args
    read -r -a args <<<"${OSU_ONESIDED_ARGS:--i 100 -x 10 -m 1:65536}"
    RUN_TAG=.help run "$n" 2 -h
    help=$out/logs/$n.help.run
    grep -q -- '--validation\|-c, ' "$help" && valid=(-c)
    syncs=${ONESIDED_SYNC[$n]:-}
    [ -n "$syncs" ] || syncs="default"
    for w in create allocate dynamic; do
        for s in $syncs; do
            local sopt=()
            if [ "$s" != default ]; then
                if ! grep -qw -- "$s" "$help"; then
                    [[ " $skipped " == *" $s "* ]] || skipped+=" $s"
                    continue
                fi
                sopt=(-s "$s")
            fi
            [ "$w" = create ] && used+="/$s"
            RUN_TAG=".w$w.s$s" run "$n" 2 -w "$w" "${sopt[@]}" "${valid[@]}" "${args[@]}"
            local rc=$? log=$out/logs/$n.w$w.s$s.run
            ran=$((ran + 1))
            if [ $rc -eq 0 ] && osu_fop_race "$n" "$s" "$log"; then
                races+=" -w $w -s $s"
            elif [ $rc -ne 0 ] || grep -qi 'validation fail\|fail$\|^FAILED\|skipped$' "$log"; then
                bad=$((bad + 1))
                failed_runs+=" -w $w -s $s (logs/${log##*/})"
            fi
        done
    done
    if [ $bad -eq 0 ]; then
        onesided_row="ran $ran (-w create/allocate/dynamic x -s ${used#/})${valid:+, validation -c}"
    else
        onesided_row="FAIL: $bad of $ran runs:$failed_runs"
    fi
    [ -n "$races" ] && onesided_row+="; OSU's own validation race (see osu_fop_race):$races"
    [ -n "$skipped" ] && onesided_row+="; not offered by -h:$skipped"
    return $((bad > 0))
}

fails=0
rows=()
for p in "${progs[@]}"; do
    n=$(basename "$p" .c)
    dir=${p%%/*}
    if [ -z "${built[$n]:-}" ]; then
        why="did not build"
        if grep -q 'MPI_Neighbor\|MPI_Ineighbor' "$src/c/mpi/$p"; then
            why="n/a: MPI_Neighbor_* not implemented (docs/mpi.md), does not build"
        elif [ "$mode" = direct ]; then
            why="did not build: $(grep -m1 -E 'error|undefined' "$out/logs/$n.build" | cut -c1-100)"
            fails=$((fails + 1))
        else
            fails=$((fails + 1))
        fi
        rows+=("$p|$why")
        continue
    fi
    case "$dir" in
    one-sided)
        run_onesided "$n" || fails=$((fails + 1))
        rows+=("$p|$onesided_row")
        continue ;;
    collective) np=$coll_np; read -r -a args <<<"$coll_args" ;;
    startup) np=2; args=() ;;
    *) np=2; read -r -a args <<<"$pt2pt_args" ;;
    esac
    run "$n" "$np" "${args[@]}"
    rc=$?
    if [ "$n" = osu_latency_mt ] && grep -q 'MPI_THREAD_MULTIPLE' "$out/logs/$n.run"; then
        rows+=("$p|n/a: needs MPI_THREAD_MULTIPLE (we provide SERIALIZED); it said so and ended")
    elif [ $rc -eq 0 ]; then
        rows+=("$p|ran, $np ranks, $(grep -c '^[0-9]' "$out/logs/$n.run") result lines")
    else
        rows+=("$p|FAIL: exit $rc with $np ranks (logs/$n.run)")
        fails=$((fails + 1))
    fi
done

echo "== OSU Micro-Benchmarks $version with $mpicc_version"
printf '%-52s %s\n' program result
for r in "${rows[@]}"; do printf '%-52s %s\n' "${r%%|*}" "${r#*|}"; done
for note in "${notes[@]}"; do echo "note: $note"; done
echo "logs and binaries: $out"
exit $((fails > 0))
