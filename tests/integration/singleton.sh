#!/bin/bash
# A program started directly, with no launcher and no PMIx server, runs as
# a singleton: a world of size 1 in which self-sends work.
. "$top_srcdir/tests/integration/lib.sh"
failed=0
for prog in selfsend argcheck "pingpong 4M" comm; do
    set -- $prog
    echo "+ $ITEST_BIN/$*  (no rtrun)"
    out=$(env -u PMIX_NAMESPACE -u PMIX_RANK -u PMIX_SERVER_URI41 -u PMIX_SERVER_URI4 \
          -u PMIX_SERVER_URI3 -u PMIX_SERVER_URI2 -u PMIX_SERVER_URI21 \
          timeout -k 5 60 "$ITEST_BIN/$1" ${2:+"$2"} 2>&1)
    rc=$?
    printf '%s\n' "$out" | sed 's/^/  | /'
    if [ $rc -ne 0 ]; then
        echo "FAIL: singleton $1 exited $rc" >&2
        failed=1
    elif ! printf '%s\n' "$out" | grep -q "PASS with 1 rank$"; then
        echo "FAIL: singleton $1 did not report a world of 1 rank" >&2
        failed=1
    fi
done
exit $failed
