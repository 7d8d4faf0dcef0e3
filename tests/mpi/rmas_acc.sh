#!/bin/bash
# rmas_acc: every predefined op + REPLACE/NO_OP, Get_accumulate, Fetch_and_op, Compare_and_swap, atomicity under contention, accumulate ordering.
# On shm (1 2 3 4 8 ranks), tcp and verbs on softib (tests/mpi/rmas_lib.sh);
# $1 or RMAS_TRANSPORTS picks transports, e.g. tests/mpi/rmas_acc.sh "tcp verbs".
. "${top_srcdir:?run through make check (top_srcdir unset)}/tests/mpi/rmas_lib.sh"
rmas_suite "${1:-}" rmas_acc
