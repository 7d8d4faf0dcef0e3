#!/bin/sh
# mpi_bigmsg: one message of 2 GiB + 4 KiB between 2 ranks, data checked,
# and a Sendrecv_replace of as many bytes (to MPI_PROC_NULL) (mpi_bigmsg.c).
# The sanitizer pass runs only the Sendrecv_replace, in one process:
# copying and checking gigabytes instrumented takes minutes there, and the
# send's code paths are those the small messages of the other tests run.
# Skipped where less memory is free than it needs (6 GiB; 3 GiB).
. "$top_srcdir/tests/mpi/common.sh"
require_rtrun
if [ "${RTMTEST_SANITIZER_PASS:-0}" = 1 ]; then
    need_gb=3 np=1 what=replace
else
    need_gb=6 np=2 what=
fi
avail_kb=$(awk '/^MemAvailable:/ { print $2 }' /proc/meminfo 2>/dev/null)
[ -n "$avail_kb" ] && [ "$avail_kb" -lt $((need_gb * 1024 * 1024)) ] &&
    t_skip "only $((avail_kb / 1024)) MiB free, $need_gb GiB needed"
# shellcheck disable=SC2086 # what is empty or one word
run_np "$np" mpi_bigmsg $what
