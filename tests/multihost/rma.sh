#!/bin/bash
# One-sided communication across two namespace hosts, 2 ranks each, over
# tcp and over verbs on softib (full mesh): --map-by node puts ranks 0, 2 on
# one host and 1, 3 on the other, so every MPI_Win_allocate window has a
# target's same-host origin (direct load/store and CPU atomics in the host
# segment) and its other-host origins (messages over tcp; RDMA Put/Get and
# messages over verbs) at once. Runs the suite's rmas_sync, rmas_acc and
# rmas_win, rma_passive, and rma_locks (exclusive read-modify-write by
# origins of both kinds: the counts are exact only if one lock excludes
# them all; 20 rounds, as each round is a lock round trip per target across
# hosts). rmas_acc and rma_passive run over verbs only: their accumulates
# and atomics go by messages on both transports (the same target-side
# code), and they are the slowest programs (CI time). MH_MODES="tcp verbs-fullmesh verbs-ondemand" runs every mode;
# MH_RMA_PROGS overrides the programs.
. "$top_srcdir/tests/multihost/netns.sh"
mh_setup 2
# a busy 2-core machine slows tcp polling between 4 ranks a lot: a bound,
# not a time limit
MH_TIMEOUT=120
A=${MH_HOSTS[0]} B=${MH_HOSTS[1]}
for mode in ${MH_MODES:-tcp verbs-fullmesh}; do
    mh_mode_args "$mode" || continue
    echo "== mode $mode"
    progs="rmas_sync rmas_win rma_locks"
    [ "$mode" = tcp ] || progs="$progs rma_passive rmas_acc"
    for prog in ${MH_RMA_PROGS:-$progs}; do
        args=()
        [ "$prog" = rma_locks ] && args=(20)
        mh_job --host "$A:2,$B:2" -n 4 --map-by node "${MH_MODE_ARGS[@]}" \
            "$top_builddir/tests/mpi/$prog" "${args[@]}"
        mh_expect_rc 0 "$prog ($mode)"
        grep -q "(4 ranks): PASS" "$MH_OUT" || mh_fail "$prog ($mode): no PASS line"
        mh_check_mode "$mode" "$prog"
    done
done
mh_expect_clean "at the end" || MH_FAILURES=$((MH_FAILURES + 1))
mh_finish
