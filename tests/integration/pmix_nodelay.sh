#!/bin/bash
# Each rank's connection to its PMIx server has TCP_NODELAY (runtime/
# pmix_sock.c): without it a finalize request written right after another
# waited for the server's delayed ACK, 40 ms of every launch. Checked by
# the line each rank logs at init (debug level), which counts the sockets
# it set, not by time.
set -u
. "${top_srcdir:?run through make check (top_srcdir unset)}/tests/lib.sh"
out=$(mktemp /tmp/rtm-nodelay.XXXXXX)
trap 'rm -f "$out"' EXIT

RTM_LOG_LEVEL=debug timeout -k 5 120 "$RTRUN" -n 2 --oversubscribe \
    "$top_builddir/tests/integration/pingpong" >"$out" 2>&1
rc=$?
if [ $rc -ne 0 ]; then
    tail -n 30 "$out"
    echo "FAIL: pingpong exited $rc"
    exit 1
fi
n=$(grep -c "TCP_NODELAY on 1 connection(s) to the PMIx server" "$out")
if [ "$n" -ne 2 ]; then
    grep "TCP_NODELAY" "$out"
    echo "FAIL: $n of 2 ranks set TCP_NODELAY on their one PMIx connection"
    exit 1
fi
echo "PASS: both ranks' PMIx connections have TCP_NODELAY"
