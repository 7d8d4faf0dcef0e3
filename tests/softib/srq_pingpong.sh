#!/bin/bash
# ibv_srq_pingpong between two processes, polling and with completion
# events (-e).
. "$top_srcdir/tests/softib/acceptance.sh"
sib_need ibv_srq_pingpong

p=$(sib_port); sib_pair poll $p 60 ibv_srq_pingpong -p $p -n 500 -- ibv_srq_pingpong -p $p -n 500 127.0.0.1
p=$(sib_port); sib_pair events $p 60 ibv_srq_pingpong -e -p $p -n 500 -- ibv_srq_pingpong -e -p $p -n 500 127.0.0.1
grep -q "500 iters" "$SIB_TMP/events.client" || sib_fail "no iteration report"
cat "$SIB_TMP/poll.client" "$SIB_TMP/events.client"
