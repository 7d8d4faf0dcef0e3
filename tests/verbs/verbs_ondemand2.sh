#!/bin/bash
# The second half of the protocol programs of verbs_protocols.sh, with 2 and
# 4 ranks, connecting on demand, and the runs with tiny credit counts (so
# connections are made while both flow-control layers stall senders).
export RTM_VERBS_CONN=ondemand
export VRB_PROGS="sendrecv barrier completion outstanding" VRB_CREDIT_RUNS=1
exec bash "$top_srcdir/tests/verbs/verbs_protocols.sh"
