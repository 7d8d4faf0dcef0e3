#!/bin/bash
# perftest ib_read_lat (RC, default post-send API) between two processes; prints
# the figures. A benchmark is not a timed test: it passes when both sides
# finish and report a result.
. "$top_srcdir/tests/softib/acceptance.sh"
sib_need ib_read_lat

p=$(sib_port)
sib_pair ib_read_lat $p 120 ib_read_lat -d softib0 -p $p -n 2000 -- ib_read_lat -d softib0 -p $p -n 2000 127.0.0.1
cat "$SIB_TMP/ib_read_lat.client"
grep -A1 't_typical' "$SIB_TMP/ib_read_lat.client" | tail -1 | awk '{ if ($1 + 0 > 0 && $NF + 0 > 0) ok = 1 } END { exit !ok }' ||
    sib_fail "ib_read_lat printed no result"
