#!/bin/bash
# ibv_rc_pingpong between two processes: polling, with completion events
# (-e), with messages larger than one softib packet, and in Ethernet
# (RoCE-style, GID-addressed) mode.
. "$top_srcdir/tests/softib/acceptance.sh"
sib_need ibv_rc_pingpong

p=$(sib_port); sib_pair poll $p 60 ibv_rc_pingpong -p $p -n 500 -- ibv_rc_pingpong -p $p -n 500 127.0.0.1
p=$(sib_port); sib_pair events $p 60 ibv_rc_pingpong -e -p $p -n 500 -- ibv_rc_pingpong -e -p $p -n 500 127.0.0.1
p=$(sib_port); sib_pair large $p 60 ibv_rc_pingpong -s 300000 -r 8 -p $p -n 50 -- ibv_rc_pingpong -s 300000 -r 8 -p $p -n 50 127.0.0.1
p=$(sib_port); SOFTIB_LINK=eth sib_pair roce $p 60 ibv_rc_pingpong -g 1 -p $p -n 200 -- ibv_rc_pingpong -g 1 -p $p -n 200 127.0.0.1
grep -q '500 iters' "$SIB_TMP/events.client" || sib_fail "no iteration report"
cat "$SIB_TMP/poll.client" "$SIB_TMP/events.client"
