#!/bin/bash
# A failing rank ends the job: exit code propagated, SIGKILL reported promptly
# (not after the other ranks' 60 s) naming the rank, the rank that failed
# first named rather than the ranks it made fail, exit without finalize is an
# error, nothing left over.
. "$(dirname "$0")/common.sh"

run 3 -n 4 --oversubscribe "$PROBE" exit 3 2
expect_err "^rtrun: rank 2 ($(hostname), pid [0-9]*) exited with code 3; ending the job (3 other ranks killed)"
expect_within 20
expect_no_orphans

# the rank that failed first is reaped last: rank 2 drops its PMIx
# connection, the others' fence fails and they exit 99 and are reaped; only
# then does rank 2 exit. Its loss came first, so it is named, whatever the
# order of the reaps and however long it takes.
# a rank that fails after PMIx_Finalize (a program that found its result
# wrong) ends the job with its code, but the others, finishing too, are let
# exit on their own: their last output is not cut
run 5 -n 3 --oversubscribe "$PROBE" finalexit 5 1
expect_err "^rtrun: rank 1 ($(hostname), pid [0-9]*) exited with code 5"
expect_out "^rank 0 finished"
expect_out "^rank 2 finished"
expect_within 20
expect_no_orphans

run 3 -n 4 --oversubscribe "$PROBE" cutfirst 3 2
expect_err "^rtrun: rank 2 ($(hostname), pid [0-9]*) exited with code 3; ending the job (3 other ranks killed)"
expect_within 20
expect_no_orphans

run 137 -n 4 --oversubscribe "$PROBE" kill 1
expect_err "^rtrun: rank 1 ($(hostname), pid [0-9]*) was killed by signal 9 (Killed); ending the job (3 other ranks killed)"
expect_within 20
expect_no_orphans

# the other ranks ignore SIGTERM: rtrun must still end them (SIGKILL)
run 137 -n 2 --oversubscribe sh -c 'trap "" TERM; if [ "$PMIX_RANK" = 1 ]; then sleep 0.3; kill -9 $$; fi; sleep 60'
expect_err "rank 1 (.*) was killed by signal 9"
expect_within 20
expect_no_orphans

run 1 -n 2 --oversubscribe "$PROBE" nofinalize
expect_err "exited with code 0 without calling PMIx_Finalize"
expect_no_orphans

# exactly one failure line
[ "$(grep -c "ending the job" "$ERR")" = 1 ] || fail "more than one failure line"

run 127 -n 1 /nonexistent/program
expect_err "/nonexistent/program"
finish
