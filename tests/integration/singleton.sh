#!/bin/bash
# A program started directly, with no launcher and no PMIx server, runs as
# a singleton: a world of size 1 in which self-sends work. One started by a
# PMIx launcher (PMIX_NAMESPACE set) whose server does not take it fails at
# init, saying so: alone as a singleton it would leave the job's other
# ranks waiting for it (seen once: rtrun's gate refused a rank under load,
# the rank "passed" alone, the others hung to the timeout).
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
echo "+ PMIX_NAMESPACE=rtm.gone.1 PMIX_RANK=2 PMIX_SERVER_URI41=<a port nobody serves> $ITEST_BIN/selfsend"
out=$(env -u PMIX_SERVER_URI4 -u PMIX_SERVER_URI3 -u PMIX_SERVER_URI2 -u PMIX_SERVER_URI21 \
      PMIX_NAMESPACE=rtm.gone.1 PMIX_RANK=2 PMIX_SERVER_URI41="rtm.gone.1.0;tcp4://127.0.0.1:9" \
      timeout -k 5 60 "$ITEST_BIN/selfsend" 2>&1)
rc=$?
printf '%s\n' "$out" | sed 's/^/  | /'
if [ $rc -eq 0 ] || [ $rc -ge 124 ]; then
    echo "FAIL: a rank whose PMIx server is gone exited $rc; expected a failure at init" >&2
    failed=1
elif printf '%s\n' "$out" | grep -q "PASS with 1 rank"; then
    echo "FAIL: a rank whose PMIx server is gone ran as a singleton" >&2
    failed=1
elif ! printf '%s\n' "$out" | grep -q "rank 2 (.*): started by a PMIx launcher as a rank of job rtm.gone.1"; then
    echo "FAIL: no error naming the rank and its job" >&2
    failed=1
fi
exit $failed
