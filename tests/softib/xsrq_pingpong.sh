#!/bin/bash
# ibv_xsrq_pingpong between two processes, polling and with completion
# events (-e).
. "$top_srcdir/tests/softib/acceptance.sh"
sib_need ibv_xsrq_pingpong
# the tool keeps its XRC domain in this fixed file; remove it if we made it
[ -e /tmp/xrc_domain ] || SIB_CLEANUP_HOOK="rm -f /tmp/xrc_domain"

p=$(sib_port); sib_pair poll $p 60 ibv_xsrq_pingpong -p $p -n 50 -- ibv_xsrq_pingpong -p $p -n 50 127.0.0.1
p=$(sib_port); sib_pair events $p 60 ibv_xsrq_pingpong -e -p $p -n 50 -- ibv_xsrq_pingpong -e -p $p -n 50 127.0.0.1
grep -q "success" "$SIB_TMP/events.client" || sib_fail "no success report"
cat "$SIB_TMP/poll.client" "$SIB_TMP/events.client"
