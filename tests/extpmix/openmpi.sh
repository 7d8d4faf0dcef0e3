#!/bin/bash
# rtmsg programs launched by Open MPI's mpirun, whose PMIx server (Debian's
# Open MPI 4.1 on the system OpenPMIx) serves them as foreign PMIx clients:
# no rtrun involved. Each job checks its data (pingpong byte for byte at
# every size up to 1 MiB; the order test's sequence), that every rank got
# the job's shape from mpirun (N ranks, all on one node) and that the ranks
# talked over shared memory, and that nothing is left behind; once with the
# addresses fetched peer by peer (direct modex, RTM_PMIX_COLLECT=0).
. "$top_srcdir/tests/extpmix/lib.sh"

MPIRUN=${MPIRUN_OPENMPI:-mpirun.openmpi}
command -v "$MPIRUN" >/dev/null 2>&1 || { echo "SKIP: $MPIRUN is not installed (package openmpi-bin)"; exit 77; }
for p in pingpong order; do
    [ -x "$ITEST_BIN/$p" ] || { echo "FAIL: $ITEST_BIN/$p is not built" >&2; exit 1; }
done

root_flag=""
[ "$(id -u)" -eq 0 ] && root_flag=--allow-run-as-root
out=$(mktemp /tmp/extpmix-ompi.XXXXXX)
# mpirun's session directory (and its PMIx server's files) go under a
# TMPDIR of the test's own, removed at the end whatever mpirun leaves.
ompi_tmp=$(mktemp -d /tmp/extpmix-ompi-tmp.XXXXXX)
trap 'rm -rf "$out" "$ompi_tmp"; for p in $(extpmix_marked_pids); do kill -9 "$p" 2>/dev/null; done' EXIT
failed=0

# ompi_run NP PROG [ARGS]: one job under mpirun, debug log on.
ompi_run() {
    local np=$1 prog=$2 rc start
    shift 2
    echo "+ $MPIRUN $root_flag --oversubscribe -n $np $(basename "$prog") $*"
    start=$(date +%s.%N)
    # Open MPI's own transports stay out of the way (the ranks are not Open
    # MPI processes); its launcher is all that is used.
    env $EXTPMIX_ENV RTM_LOG_LEVEL=debug OMPI_MCA_plm_rsh_agent=false TMPDIR="$ompi_tmp" \
        timeout -k 5 90 "$MPIRUN" $root_flag --oversubscribe --bind-to none -n "$np" \
        "$prog" "$@" >"$out" 2>&1
    rc=$?
    extpmix_show "$out"
    echo "  (exit $rc after $(t_elapsed "$start") s)"
    if [ $rc -ne 0 ]; then
        echo "FAIL: $(basename "$prog") with $np ranks under $MPIRUN exited $rc" >&2
        return 1
    fi
    extpmix_check_job "$(basename "$prog")" "$np" "$out"
}

ompi_run 2 "$ITEST_BIN/pingpong" 1M || failed=1
ompi_run 4 "$ITEST_BIN/pingpong" 1M || failed=1
ompi_run 4 "$ITEST_BIN/order" || failed=1
# direct modex: each peer's address fetched from mpirun's server on demand
RTM_PMIX_COLLECT=0 ompi_run 4 "$ITEST_BIN/pingpong" 64K || failed=1
exit $failed
