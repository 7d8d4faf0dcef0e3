#!/bin/bash
# rmas_dtype: derived datatypes (vector, indexed, struct, resized, subarray) on origin and target.
# On shm (1 2 3 4 8 ranks), tcp and verbs on softib (tests/mpi/rmas_lib.sh);
# $1 or RMAS_TRANSPORTS picks transports, e.g. tests/mpi/rmas_dtype.sh "tcp verbs".
. "${top_srcdir:?run through make check (top_srcdir unset)}/tests/mpi/rmas_lib.sh"
rmas_suite "${1:-}" rmas_dtype
