#!/bin/bash
# perftest ib_write_lat (RC, default post-send API) between two processes; prints
# the figures. A benchmark is not a timed test: it passes when both sides
# finish and report a result.
. "$top_srcdir/tests/softib/acceptance.sh"
sib_need ib_write_lat

p=$(sib_port)
sib_pair ib_write_lat $p 120 ib_write_lat -d softib0 -p $p -n 2000 -- ib_write_lat -d softib0 -p $p -n 2000 127.0.0.1
cat "$SIB_TMP/ib_write_lat.client"
grep -A1 't_typical' "$SIB_TMP/ib_write_lat.client" | tail -1 | awk '{ if ($1 + 0 > 0 && $NF + 0 > 0) ok = 1 } END { exit !ok }' ||
    sib_fail "ib_write_lat printed no result"
