#!/bin/bash
# The launch tree: with --fanout 1 over four namespace hosts rtrun starts one
# rtd (host B), which starts C's, which starts D's. A job passes through every
# level (fence data up and down, direct modex routed to the owning host,
# sendrecv over tcp); then the rtd in the middle (C) is killed: the job ends,
# and D's rtd, whose parent is gone, kills its ranks and exits.
. "$top_srcdir/tests/multihost/netns.sh"
mh_setup 4
A=${MH_HOSTS[0]} B=${MH_HOSTS[1]} C=${MH_HOSTS[2]} D=${MH_HOSTS[3]}
HOSTS="$A:1,$B:1,$C:1,$D:1"

for mode in fence dmodex; do
    mh_job --fanout 1 --host "$HOSTS" -n 4 "$top_builddir/tests/multihost/mh_probe" $mode
    mh_expect_rc 0 "fanout 1: $mode"
    [ "$(grep -c ': ok' "$MH_OUT")" = 4 ] || mh_fail "fanout 1: $mode: not every rank ok"
done
# rtrun has one connection only: D's rtd connected to C's
mh_rtrun --fanout 1 --host "$HOSTS" -n 4 sleep 30 >"$MH_OUT" 2>"$MH_ERR" &
job=$!
for i in $(seq 100); do
    [ "$(ip netns pids "$D" | wc -l)" -ge 2 ] && break
    sleep 0.1
done
parent_of_d=""
for p in $(ip netns pids "$D"); do
    case "$(tr '\0' ' ' </proc/$p/cmdline 2>/dev/null)" in
    *rtd\ --parent\ 10.213.0.3:*) parent_of_d=C ;;
    esac
done
[ "$parent_of_d" = C ] || mh_fail "fanout 1: D's rtd was not started by C's"
rtd_c=""
for p in $(ip netns pids "$C"); do
    case "$(tr '\0' ' ' </proc/$p/cmdline 2>/dev/null)" in
    *rtd\ --parent*) rtd_c=$p ;;
    esac
done
[ -n "$rtd_c" ] && kill -9 "$rtd_c"
wait $job
MH_RC=$?
mh_expect_rc 1 "middle rtd killed"
mh_expect_err "rtd on host $C lost" "middle rtd killed"
mh_job --host "$C:1,$D:1" -n 2 true   # the next rtds remove what C's left
mh_expect_clean "middle rtd killed" || MH_FAILURES=$((MH_FAILURES + 1))

mh_job --fanout 1 --host "$HOSTS" -n 4 "$top_builddir/tests/integration/sendrecv"
mh_expect_rc 0 "fanout 1: sendrecv"
mh_finish
