#!/bin/bash
# The ping-pong again with other protocol switch points, set through the
# environment: the program adds sizes one byte either side of them.
# Also the copy path forced by configuration (RTM_SHM_CMA=off) and a tiny
# credit count that makes flow control stall the sender all the time.
. "$top_srcdir/tests/integration/lib.sh"
t_require_rtrun
failed=0
run_with() {
    local n=$1
    shift
    echo "== env $*"
    env "$@" ITEST_JOB_TIMEOUT="$ITEST_JOB_TIMEOUT" bash -c \
        '. "$top_srcdir/tests/integration/lib.sh"; itest_run '"$n"' "$ITEST_BIN/pingpong"' || failed=1
}
run_with 2 RTM_SHM_EAGER_LIMIT=1K RTM_SHM_CMA_THRESHOLD=64K
run_with 3 RTM_SHM_EAGER_LIMIT=1K RTM_SHM_CMA_THRESHOLD=64K
run_with 2 RTM_SHM_EAGER_LIMIT=16K RTM_SHM_CMA_THRESHOLD=1M
run_with 2 RTM_SHM_EAGER_LIMIT=100 RTM_SHM_CMA_THRESHOLD=5000 RTM_EAGER_CREDITS=2
run_with 2 RTM_SHM_CMA=off
exit $failed
