#!/bin/bash
# The first half of the protocol programs of verbs_protocols.sh, with 2 and
# 4 ranks, connecting on demand (RTM_VERBS_CONN=ondemand: no QP until the
# first message, a handshake over UD, messages queued meanwhile in order).
# verbs_ondemand2.sh runs the rest; verbs_conn.sh the all-pairs checks.
export RTM_VERBS_CONN=ondemand
export VRB_PROGS="order unexpected truncate probe wildcard" VRB_CREDIT_RUNS=0
exec bash "$top_srcdir/tests/verbs/verbs_protocols.sh"
