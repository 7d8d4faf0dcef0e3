#!/bin/bash
# RTM_RNDV_GET_BIDIR: a rendezvous receive reads the sender's buffer with a
# get (CMA on shared memory) from this size, below the transport's own get
# threshold, while the receiving rank is itself sending a rendezvous message
# to that peer. One-way traffic keeps the transport's threshold. Off (0) by
# default (docs/benchmarks.md says why).
#
#   both ways:  RTM_RNDV_GET_BIDIR=128K, sendrecv with 2 ranks (300000 B and
#               4 MiB each way at once): every rank reads by get
#               "(traffic both ways)", data checked
#   off:        the default: no such read, data checked
#   one way:    RTM_RNDV_GET_BIDIR=128K, the ping-pong up to 1 MiB: never
#               "(traffic both ways)"
set -u
. "${top_srcdir:?run through make check (top_srcdir unset)}/tests/lib.sh"
bin=$top_builddir/tests/integration
out=$(mktemp /tmp/rtm-rndv-bidir.XXXXXX)
trap 'rm -f "$out"' EXIT
failed=0
unset RTM_RNDV_GET_BIDIR   # "off" checks the default
# the transport's own threshold above every size here, quiet or busy host,
# so that only RTM_RNDV_GET_BIDIR can make a read by get
export RTM_SHM_CMA_THRESHOLD=16M RTM_SHM_CMA_THRESHOLD_BUSY=16M

for p in sendrecv pingpong; do
    [ -x "$bin/$p" ] || { echo "FAIL: $bin/$p is not built"; exit 1; }
done

# run NAME PROG [ARGS]: 2 ranks at trace level into $out; 0 when it passed
run() {
    local what=$1
    shift
    echo "+ $what: rtrun -n 2 $*"
    RTM_LOG_LEVEL=trace timeout -k 5 120 "$RTRUN" -n 2 --oversubscribe "$@" >"$out" 2>&1
    rc=$?
    if [ $rc -ne 0 ]; then
        grep -v ": trace: " "$out" | tail -20
        echo "FAIL: $what: the job exited $rc"
        failed=1
        return 1
    fi
    return 0
}

# expect WHAT RANK_LINES_MIN RANK_LINES_MAX: lines saying "traffic both ways"
expect_bidir() {
    local what=$1 min=$2 max=$3 n
    n=$(grep -c "read by get (traffic both ways)" "$out")
    echo "  $n reads by get for traffic both ways"
    if [ "$n" -lt "$min" ] || [ "$n" -gt "$max" ]; then
        echo "FAIL: $what: expected $min..$max reads by get for traffic both ways, saw $n"
        failed=1
    fi
}

if RTM_RNDV_GET_BIDIR=128K run "both ways" "$bin/sendrecv"; then
    if ! grep -q "CMA single copy from" "$out"; then
        grep "shm:" "$out" | head -2
        echo "SKIP: CMA (process_vm_readv) is not permitted here, no get to choose"
        exit 77
    fi
    expect_bidir "both ways" 4 4
fi
if run "off" "$bin/sendrecv"; then
    expect_bidir "off" 0 0
fi
if RTM_RNDV_GET_BIDIR=128K run "one way" "$bin/pingpong" 1048576; then
    expect_bidir "one way" 0 0
fi
[ $failed -eq 0 ] && echo "PASS: rendezvous reads by get when traffic goes both ways, copies one way"
exit $failed
