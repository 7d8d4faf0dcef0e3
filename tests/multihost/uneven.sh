#!/bin/bash
# Three namespace hosts with uneven slots (1, 2, 3): ranks land where the map
# says, and a job across all three passes (barrier and sendrecv over tcp).
. "$top_srcdir/tests/multihost/netns.sh"
mh_setup 3
A=${MH_HOSTS[0]} B=${MH_HOSTS[1]} C=${MH_HOSTS[2]}
ITEST=$top_builddir/tests/integration

mh_job --host "$A:1,$B:2,$C:3" -n 6 sh -c 'echo "rank $PMIX_RANK on $(ip netns identify $$)"'
mh_expect_rc 0 "placement"
for spec in "0 $A" "1 $B" "2 $B" "3 $C" "4 $C" "5 $C"; do
    set -- $spec
    grep -qx "rank $1 on $2" "$MH_OUT" || mh_fail "placement: rank $1 is not on $2"
done

mh_job --host "$A:1,$B:2,$C:3" -n 6 --oversubscribe "$ITEST/sendrecv"
mh_expect_rc 0 "sendrecv on 3 hosts"
mh_job --host "$A:1,$B:2,$C:3" -n 6 --oversubscribe "$top_builddir/tests/multihost/mh_probe" fence
mh_expect_rc 0 "fence on 3 hosts"
grep -q "rank 0 on $A: ok (job size 6, local size 1)" "$MH_OUT" || mh_fail "local size on $A"
grep -q "rank 5 on $C: ok (job size 6, local size 3)" "$MH_OUT" || mh_fail "local size on $C"
mh_expect_clean "at the end" || MH_FAILURES=$((MH_FAILURES + 1))
mh_finish
