#!/bin/bash
# One-sided communication across two namespace hosts, 2 ranks each, over
# tcp and over verbs on softib (full mesh): --map-by node puts ranks 0, 2 on
# one host and 1, 3 on the other, so every MPI_Win_allocate window has a
# target's same-host origin (direct load/store and CPU atomics in the host
# segment) and its other-host origins (messages over tcp; RDMA Put/Get and
# messages over verbs) at once. Runs the suite's rmas_sync, rmas_acc and
# rmas_win, rma_passive, and rma_locks (exclusive read-modify-write by
# origins of both kinds: the counts are exact only if one lock excludes
# them all). MH_MODES="tcp verbs-fullmesh verbs-ondemand" runs every mode.
. "$top_srcdir/tests/multihost/netns.sh"
mh_setup 2
# a busy 2-core machine slows tcp polling between 4 ranks a lot: a bound,
# not a time limit
MH_TIMEOUT=120
A=${MH_HOSTS[0]} B=${MH_HOSTS[1]}
for mode in ${MH_MODES:-tcp verbs-fullmesh}; do
    mh_mode_args "$mode" || continue
    echo "== mode $mode"
    for prog in rmas_sync rmas_acc rmas_win rma_passive rma_locks; do
        mh_job --host "$A:2,$B:2" -n 4 --map-by node "${MH_MODE_ARGS[@]}" \
            "$top_builddir/tests/mpi/$prog"
        mh_expect_rc 0 "$prog ($mode)"
        grep -q "(4 ranks): PASS" "$MH_OUT" || mh_fail "$prog ($mode): no PASS line"
        mh_check_mode "$mode" "$prog"
    done
done
mh_expect_clean "at the end" || MH_FAILURES=$((MH_FAILURES + 1))
mh_finish
