#!/bin/bash
# rmas_win: window flavors, shared windows, dynamic windows, attributes, names, info, keyvals, c2f, error handlers and classes, request-based calls, 4 MiB and zero-size transfers.
# On shm (1 2 3 4 8 ranks), tcp and verbs on softib (tests/mpi/rmas_lib.sh);
# $1 or RMAS_TRANSPORTS picks transports, e.g. tests/mpi/rmas_win.sh "tcp verbs".
. "${top_srcdir:?run through make check (top_srcdir unset)}/tests/mpi/rmas_lib.sh"
rmas_suite "${1:-}" rmas_win
