#!/bin/sh
# mpi_bigmsg: one message of 2 GiB + 4 KiB between 2 ranks, and a
# Sendrecv_replace of that size (to MPI_PROC_NULL), data checked (mpi_bigmsg.c). Skipped in
# the sanitizer pass: copying and checking gigabytes instrumented takes
# minutes, and the code paths are those the small messages of the other
# tests run there. Skipped too where less than 6 GiB is free (two 2 GiB
# buffers exist at a time).
. "$top_srcdir/tests/mpi/common.sh"
require_rtrun
[ "${RTMTEST_SANITIZER_PASS:-0}" = 1 ] && t_skip "gigabytes of instrumented copies (sanitizer pass)"
avail_kb=$(awk '/^MemAvailable:/ { print $2 }' /proc/meminfo 2>/dev/null)
[ -n "$avail_kb" ] && [ "$avail_kb" -lt $((6 * 1024 * 1024)) ] &&
    t_skip "only $((avail_kb / 1024)) MiB free, 6 GiB needed"
run_np 2 mpi_bigmsg
