#!/bin/bash
# rmas_sync: every synchronization mode (fence, PSCW, locks, lock_all + flushes, Win_sync) with Put/Get/Accumulate between all pairs.
# On shm (1 2 3 4 8 ranks), tcp and verbs on softib (tests/mpi/rmas_lib.sh);
# $1 or RMAS_TRANSPORTS picks transports, e.g. tests/mpi/rmas_sync.sh "tcp verbs".
. "${top_srcdir:?run through make check (top_srcdir unset)}/tests/mpi/rmas_lib.sh"
rmas_suite "${1:-}" rmas_sync
