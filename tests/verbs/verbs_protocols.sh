#!/bin/bash
# The foundation's integration programs over verbs on softib with 2 and 4
# ranks: ordering, unexpected floods (also with tiny credit counts, so both
# the runtime's and the transport's flow control stall senders), truncation,
# probe, wildcards, sendrecv, barrier, completion, many outstanding requests.
. "$top_srcdir/tests/verbs/verbs_lib.sh"
failed=0
# VRB_PROGS / VRB_CREDIT_RUNS=0: the drivers of other connection modes
# (verbs_ondemand*.sh) split the list to keep each test short.
# The sanitizer pass runs each program once, with 3 ranks (two peers per
# rank: every connection mode's paths), not with 2 and 4.
for prog in ${VRB_PROGS:-order unexpected truncate probe wildcard sendrecv barrier completion outstanding}; do
    for n in $(t_np "2 4" "3"); do
        vrb_run "$n" "$ITEST_BIN/$prog" || failed=1
    done
done
if [ "${VRB_CREDIT_RUNS:-1}" = 1 ]; then
    echo "== RTM_EAGER_CREDITS=4 RTM_VERBS_CREDITS=2"
    RTM_EAGER_CREDITS=4 RTM_VERBS_CREDITS=2 vrb_run 2 "$ITEST_BIN/unexpected" || failed=1
    RTM_EAGER_CREDITS=4 RTM_VERBS_CREDITS=2 vrb_run 4 "$ITEST_BIN/order" || failed=1
    RTM_VERBS_CREDITS=2 vrb_run 3 "$top_builddir/tests/tcp/tcp_pingpong" || failed=1
fi
exit $failed
