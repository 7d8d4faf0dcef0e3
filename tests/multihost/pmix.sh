#!/bin/bash
# PMIx across two namespace hosts (2 ranks each): a collecting fence, fences
# without data, and direct modex (PMIx_Get of a remote rank's key with no
# fence: served by the owning host's rtd), with --map-by node so that a
# rank's neighbours are on the other host.
. "$top_srcdir/tests/multihost/netns.sh"
mh_setup 2
A=${MH_HOSTS[0]} B=${MH_HOSTS[1]}
PROBE=$top_builddir/tests/multihost/mh_probe
for mode in fence nocollect dmodex; do
    mh_job --host "$A:2,$B:2" -n 4 --map-by node "$PROBE" "$mode"
    mh_expect_rc 0 "$mode"
    n=$(grep -c "ok (job size 4, local size 2)" "$MH_OUT")
    [ "$n" = 4 ] || mh_fail "$mode: $n of 4 ranks said ok"
    for r in 0 2; do grep -q "rank $r on $A: ok" "$MH_OUT" || mh_fail "$mode: rank $r not on $A"; done
    for r in 1 3; do grep -q "rank $r on $B: ok" "$MH_OUT" || mh_fail "$mode: rank $r not on $B"; done
done
# A slow launch: rank 0 asks for rank 1's data before rank 1's rtd has even
# connected; the request waits for it (queued), it is not lost.
printf '#!/bin/sh\nsleep 2\nexec ip netns exec "$@"\n' >"$MH_TMP/slow_agent"
chmod +x "$MH_TMP/slow_agent"
MH_AGENT="$MH_TMP/slow_agent {host}" MH_TIMEOUT=30 \
    mh_job --host "$A:1,$B:1" -n 2 "$PROBE" dmodex
mh_expect_rc 0 "dmodex with a slow launch"
[ "$(grep -c ': ok' "$MH_OUT")" = 2 ] || mh_fail "dmodex with a slow launch: not every rank ok"
mh_expect_clean "after the PMIx jobs" || MH_FAILURES=$((MH_FAILURES + 1))
mh_finish
