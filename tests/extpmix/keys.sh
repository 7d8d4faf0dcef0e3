#!/bin/bash
# The job's shape from PMIx servers that describe it differently from
# rtrun: tests/extpmix/pmix_mini_server (a minimal OpenPMIx server) starts
# 4 ranks of pingpong (data checked up to 64 KiB: eager and rendezvous),
# leaving keys out or sending them in other forms (and leaving out the node
# and process maps, from which OpenPMIx would derive the missing keys
# itself). runtime/job.c must still find the 4 local ranks and use shared
# memory: without PMIX_LOCAL_PEERS (by PMIX_NODEID), without it and
# PMIX_NODEID (by PMIX_HOSTNAME), without PMIX_JOB_SIZE (PMIX_UNIV_SIZE),
# with PMIX_NODEID as int, PMIX_JOB_SIZE as uint64 and the peer list
# unsorted with a range ("3, 0-2"); and with direct modex
# (RTM_PMIX_COLLECT=0). With none of the three locality keys the job must
# still pass, over tcp, with a warning that says why.
. "$top_srcdir/tests/extpmix/lib.sh"

MINI=$top_builddir/tests/extpmix/pmix_mini_server
for p in "$MINI" "$ITEST_BIN/pingpong"; do
    [ -x "$p" ] || { echo "FAIL: $p is not built" >&2; exit 1; }
done
out=$(mktemp /tmp/extpmix-keys.XXXXXX)
trap 'rm -f "$out"; for p in $(extpmix_marked_pids); do kill -9 "$p" 2>/dev/null; done' EXIT
failed=0

# mini_run WHAT [SERVER OPTIONS]: 4 ranks of pingpong 64K, output in $out
mini_run() {
    local what=$1 rc start
    shift
    echo "+ pmix_mini_server -n 4 $* pingpong 64K   ($what)"
    start=$(date +%s.%N)
    env $EXTPMIX_ENV RTM_LOG_LEVEL=debug timeout -k 5 90 \
        "$MINI" -n 4 "$@" "$ITEST_BIN/pingpong" 64K >"$out" 2>&1
    rc=$?
    extpmix_show "$out" | grep -vE 'checked in|shm: ' 
    echo "  (exit $rc after $(t_elapsed "$start") s)"
    if [ $rc -ne 0 ]; then
        echo "FAIL: $what: the job exited $rc" >&2
        return 1
    fi
}

# mini_shm WHAT [SERVER OPTIONS]: as mini_run, and the ranks used shm
mini_shm() {
    local what=$1
    mini_run "$@" || return 1
    extpmix_check_job pingpong 4 "$out" || { echo "FAIL: ($what)" >&2; return 1; }
}

mini_shm "every key" || failed=1
mini_shm "no PMIX_LOCAL_PEERS" --omit maps,local_peers || failed=1
grep -q "finding local ranks by PMIX_NODEID" "$out" ||
    { echo "FAIL: without PMIX_LOCAL_PEERS the ranks did not say they used PMIX_NODEID" >&2; failed=1; }
mini_shm "no PMIX_LOCAL_PEERS, no PMIX_NODEID" --omit maps,local_peers,nodeid || failed=1
grep -q "finding local ranks by PMIX_HOSTNAME" "$out" ||
    { echo "FAIL: without PMIX_LOCAL_PEERS and PMIX_NODEID the ranks did not use PMIX_HOSTNAME" >&2; failed=1; }
mini_shm "no PMIX_JOB_SIZE" --omit maps,job_size || failed=1
mini_shm "other integer types, peers \"3, 0-2\"" --int-types --peers "3, 0-2" || failed=1
RTM_PMIX_COLLECT=0 mini_shm "direct modex" || failed=1

# Nothing says where the ranks run: no shm, but a working job over tcp.
if mini_run "no PMIX_LOCAL_PEERS, PMIX_NODEID, PMIX_HOSTNAME" --omit maps,local_peers,nodeid,hostname; then
    grep -q "^pingpong: PASS with 4 ranks" "$out" ||
        { echo "FAIL: without any locality key pingpong did not pass" >&2; failed=1; }
    grep -q "does not say which ranks share a host.*shared memory is not used" "$out" ||
        { echo "FAIL: without any locality key no rank warned that shared memory is not used" >&2; failed=1; }
else
    failed=1
fi
left=$(extpmix_marked_pids)
[ -z "$left" ] || { echo "FAIL: processes left: $(echo $left)" >&2; kill -9 $left; failed=1; }
exit $failed
