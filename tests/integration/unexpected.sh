#!/bin/bash
# Runs tests/integration/unexpected.c with 1-4 ranks, then with a tiny
# credit count and a small eager limit so flow control stalls the flood.
. "$top_srcdir/tests/integration/lib.sh"
failed=0
itest_run_all unexpected || failed=1
echo "== env RTM_EAGER_CREDITS=4 RTM_SHM_EAGER_LIMIT=512"
RTM_EAGER_CREDITS=4 RTM_SHM_EAGER_LIMIT=512 itest_run 2 "$ITEST_BIN/unexpected" || failed=1
exit $failed
