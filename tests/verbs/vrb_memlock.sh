#!/bin/bash
# RLIMIT_MEMLOCK too low for the verbs pools (issue 5 "Errors"): with a
# 256 KiB limit and softib counting registrations against it
# (SOFTIB_MEMLOCK=1, as the kernel counts pinned pages for an unprivileged
# user), rtm_init must fail on every rank with one clear message naming the
# limit, the amount needed and the fix -- not a bare ENOMEM, not a hang.
. "$top_srcdir/tests/verbs/verbs_lib.sh"
failed=0
log=$VRB_TMP/log
(
    ulimit -l 256 || exit 77
    SOFTIB_MEMLOCK=1 LD_PRELOAD="$VRB_PRELOAD" timeout -k 5 60 "$RTRUN" -n 2 --oversubscribe \
        "$top_builddir/tests/tcp/tcp_pingpong"
) >"$log" 2>&1
rc=$?
grep -v 'warning: unknown variable' "$log" | sed 's/^/  | /' | head -n 6
if [ "$rc" -eq 77 ]; then
    echo "SKIP: cannot lower RLIMIT_MEMLOCK here"; exit 77
elif [ "$rc" -eq 0 ]; then
    echo "FAIL: the job ran although the pools could not be registered" >&2; failed=1
elif [ "$rc" -eq 124 ]; then
    echo "FAIL: the job hung" >&2; failed=1
fi
if ! grep -qE 'rank [0-9]+ \(.*\).*RLIMIT_MEMLOCK is 262144 bytes and this rank needs at least [0-9]+ locked; raise it \(ulimit -l unlimited' "$log"; then
    echo "FAIL: no message naming the rank, the limit, the amount needed and the fix" >&2; failed=1
fi
exit $failed
