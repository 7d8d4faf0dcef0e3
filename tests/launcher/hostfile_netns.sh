#!/bin/bash
# --hostfile across two network-namespace hosts (the multi-host harness of
# tests/multihost): both hostfile formats in one file, --map-by node deals
# the ranks in turn, --npernode 1 without -n puts one rank on each host,
# --map-by slot fills the first host first.
. "$top_srcdir/tests/multihost/netns.sh"
mh_setup 2
A=${MH_HOSTS[0]} B=${MH_HOSTS[1]}
HF=$MH_TMP/hosts
where='echo "rank $PMIX_RANK on $(ip netns identify $$)"'
printf '# two hosts\n%s slots=2\n\n%s:2  # MPICH form\n' "$A" "$B" >"$HF"

# expect_on "R HOST" ...: each rank R ran on HOST
expect_on() {
    for spec in "$@"; do
        set -- $spec
        grep -qx "rank $1 on $2" "$MH_OUT" || mh_fail "rank $1 is not on $2: $(cat "$MH_OUT")"
    done
}

mh_job --hostfile "$HF" --map-by node -n 4 sh -c "$where"
mh_expect_rc 0 "--map-by node"
expect_on "0 $A" "1 $B" "2 $A" "3 $B"
mh_job --hostfile "$HF" -n 3 sh -c "$where"
mh_expect_rc 0 "--map-by slot"
expect_on "0 $A" "1 $A" "2 $B"
mh_job --hostfile "$HF" --npernode 1 sh -c "$where"
mh_expect_rc 0 "--npernode 1"
expect_on "0 $A" "1 $B"
[ "$(grep -c '^rank' "$MH_OUT")" = 2 ] || mh_fail "--npernode 1 on 2 hosts: not 2 ranks"
mh_expect_clean "at the end" || MH_FAILURES=$((MH_FAILURES + 1))
mh_finish
