# Checks shared by the tests that run rtmsg programs under a PMIx server
# that is not rtrun's (tests/extpmix, tests/slurm). Sourced, not run.
#
# A job's output is read with RTM_LOG_LEVEL=debug on: every rank logs
#   "rank R of N ready (local rank L of M on node K)"
#   "rank R reaches rank P (host) over shm"
#   "shm: /rtm-<nspace>-<node>, M local ranks, ..."
# which is how these tests see the job's shape and the transport chosen.

. "${top_srcdir:?run through make check (top_srcdir unset)}/tests/lib.sh"
ITEST_BIN=$top_builddir/tests/integration

# A mark in the jobs' environment finds any process a job left behind:
# start jobs as `env $EXTPMIX_ENV CMD...` (not exported, so neither this
# shell's helpers nor daemons it starts carry it).
EXTPMIX_MARK="extpmix-test-$$-$RANDOM"
EXTPMIX_ENV="EXTPMIX_TEST_MARK=$EXTPMIX_MARK"

extpmix_marked_pids() {
    t_marked_pids "EXTPMIX_TEST_MARK=$EXTPMIX_MARK"
}

# extpmix_check_job NAME NP OUTFILE: the job's output (stdout and stderr,
# debug log on) shows NAME passed with NP ranks, every rank saw all NP
# ranks on one node (the shape came from the PMIx server), rank 0 reached
# rank 1 over shm, and no segment is left in /dev/shm. Prints a FAIL line
# for each thing that is wrong; returns 1 if any.
extpmix_check_job() {
    local name=$1 np=$2 out=$3 failed=0 r seg left
    if ! grep -q "^$name: PASS with $np rank" "$out"; then
        echo "FAIL: $name with $np ranks: no \"$name: PASS with $np ranks\" line" >&2
        failed=1
    fi
    for r in $(seq 0 $((np - 1))); do
        if ! grep -qE "rank $r of $np ready \(local rank [0-9]+ of $np on node [0-9]+\)" "$out"; then
            echo "FAIL: $name: rank $r did not report itself ready as one of $np ranks on one node" >&2
            failed=1
        fi
    done
    if [ "$np" -gt 1 ] && ! grep -qE "rank 0 reaches rank 1 \(.*\) over shm" "$out"; then
        echo "FAIL: $name: rank 0 did not reach rank 1 over shared memory" >&2
        failed=1
    fi
    if grep -qE "transport tcp opened" "$out"; then
        echo "FAIL: $name: tcp was opened although every rank shares this host" >&2
        failed=1
    fi
    seg=$(sed -n 's|^.*debug: shm: \(/rtm-[^,]*\),.*|\1|p' "$out" | head -n 1)
    if [ "$np" -gt 1 ] && [ -z "$seg" ]; then
        echo "FAIL: $name: no rank logged its shared memory segment" >&2
        failed=1
    elif [ -n "$seg" ] && [ -e "/dev/shm$seg" ]; then
        echo "FAIL: $name: /dev/shm$seg left behind" >&2
        rm -f "/dev/shm$seg"
        failed=1
    fi
    left=$(extpmix_marked_pids)
    if [ -n "$left" ]; then
        echo "FAIL: $name: processes left after the job: $(echo $left)" >&2
        kill -9 $left 2>/dev/null
        failed=1
    fi
    return $failed
}

# extpmix_show OUTFILE: the job's output without the per-size lines, indented
extpmix_show() {
    grep -vE '^  |debug: transport |debug: rank [1-9][0-9]* reaches|info: shm: ' "$1" | sed 's/^/  | /'
}
