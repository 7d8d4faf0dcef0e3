#!/bin/bash
# /dev/shm/rtm-<nspace>* files of a job are removed at its end, even when
# the rank that made them was SIGKILLed; the temp dir goes too.
. "$(dirname "$0")/common.sh"

"$RTRUN" $RTRUN_X -n 2 --oversubscribe "$PROBE" shmfile 1 >"$OUT" 2>"$ERR" </dev/null &
pid=$!
wait $pid
rc=$?
[ $rc = 137 ] || fail "expected 137, got $rc"
files=$(sed -n 's/^created //p' "$OUT")
[ -n "$files" ] || fail "the ranks created no file"
for f in $files; do
    case "$f" in /dev/shm/rtm-rtm.*) ;; *) fail "unexpected name $f" ;; esac
    [ -e "$f" ] && { fail "$f left behind"; rm -f "$f"; }
done
ls -d /tmp/rtrun.$pid.* >/dev/null 2>&1 && fail "temp dir /tmp/rtrun.$pid.* left behind"

# a file whose name extends our nspace is not ours and must survive (a
# letter, not a digit: rtm.<host>.<pid>0 would be the nspace of a dead
# rtrun, which the next rtrun on the host sweeps away)
"$RTRUN" $RTRUN_X -n 1 sh -c 'touch /dev/shm/rtm-${PMIX_NAMESPACE}x-0 /dev/shm/rtm-${PMIX_NAMESPACE}-0; echo "$PMIX_NAMESPACE"' >"$OUT" 2>"$ERR" </dev/null
ns=$(cat "$OUT")
[ -e "/dev/shm/rtm-${ns}-0" ] && fail "/dev/shm/rtm-${ns}-0 left behind"
[ -e "/dev/shm/rtm-${ns}x-0" ] || fail "/dev/shm/rtm-${ns}x-0, not the job's, was removed"
rm -f "/dev/shm/rtm-${ns}x-0" "/dev/shm/rtm-${ns}-0"

# leftovers of an rtrun that was SIGKILLed (its pid is gone) are swept by
# the next rtrun
sleep 30 &
dead=$!
kill -9 $dead; wait $dead 2>/dev/null
stale_dir=/tmp/rtrun.$dead.test01
stale_shm=/dev/shm/rtm-rtm.$(hostname | tr -c 'A-Za-z0-9._\n-' _).$dead-0
mkdir -p "$stale_dir" && touch "$stale_dir/pmix-file" "$stale_shm"
run 0 -n 1 true
[ -e "$stale_dir" ] && { fail "stale $stale_dir not swept"; rm -rf "$stale_dir"; }
[ -e "$stale_shm" ] && { fail "stale $stale_shm not swept"; rm -f "$stale_shm"; }
expect_no_orphans
finish
