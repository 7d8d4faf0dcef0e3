#!/bin/bash
# The stale-registration test (issue 5): rendezvous sends from a buffer that
# is then unmapped/remapped/zapped/freed and replaced by new memory at the
# same address with other content; the receiver must get the new content
# (tests/verbs/vrb_stale.c). SOFTIB_PIN=1 makes softib keep an MR's pages as
# an HCA does, so a stale cached registration would deliver the old bytes.
# Run with the registration cache on (and checked to be on) and off.
. "$top_srcdir/tests/verbs/verbs_lib.sh"
failed=0
log=$VRB_TMP/log
export SOFTIB_PIN=1
for rcache in 1 0; do
    echo "== RTM_VERBS_RCACHE=$rcache"
    if ! RTM_VERBS_RCACHE=$rcache RTM_LOG_LEVEL=debug vrb_run 2 \
            "$top_builddir/tests/verbs/vrb_stale" 2 >"$log" 2>&1; then
        failed=1
    fi
    grep -v '^\[' "$log" | sed 's/^/  | /'
    grep -E 'registration cache|rcache:' "$log" | sed 's/^/  | /'
    if [ "$rcache" = 1 ] && ! grep -q 'rendezvous registration cache on' "$log"; then
        echo "FAIL: the registration cache was not on: this run proved nothing about it" >&2
        failed=1
    fi
    if [ "$rcache" = 0 ] && grep -q 'rendezvous registration cache on' "$log"; then
        echo "FAIL: RTM_VERBS_RCACHE=0 left the cache on" >&2
        failed=1
    fi
    # With the hook at close (vrb_rndv_close) the cache reports its counts:
    # then it must have hit, and been invalidated by the remaps.
    if [ "$rcache" = 1 ] && grep -q 'rcache: [0-9]* hits' "$log"; then
        if ! grep -qE 'rcache: [1-9][0-9]* hits, [0-9]+ misses, [1-9][0-9]* invalidated' "$log"; then
            echo "FAIL: the cache never hit or was never invalidated" >&2
            failed=1
        fi
    fi
done
exit $failed
