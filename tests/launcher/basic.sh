#!/bin/bash
# rtrun runs programs that never use PMIx, passes -x variables, reports
# bindings, and answers --help and --version.
. "$(dirname "$0")/common.sh"

run 0 -n 2 true
run 0 -n 2 hostname
[ "$(grep -c "^$(hostname)\$" "$OUT")" = 2 ] || fail "hostname not printed twice"
run 3 -n 1 sh -c 'exit 3'
expect_err "rank 0 (.*) exited with code 3"

run 0 -n 2 -x FOO=bar -x HOME --tag-output sh -c 'echo "foo=$FOO home=$HOME"'
expect_out "^\[0\] foo=bar home=$HOME\$"
expect_out "^\[1\] foo=bar home=$HOME\$"

run 0 -n 1 --report-bindings --bind-to core true
expect_err "rank 0 (.*) bound to core 0"
run 0 -n 2 --oversubscribe --bind-to none --report-bindings true
expect_err "rank 1 (.*) not bound"
grep -q "bound to core" "$ERR" && fail "--bind-to none bound a rank"

run 0 --help
expect_out "Usage: rtrun \[-n N\]"
expect_out "--oversubscribe"
expect_out "Exit status"
run 0 --version
expect_out "^rtrun (librtmsg) [0-9]"

# the rank's environment has the PMIx namespace rtrun chose
run 0 -n 1 sh -c 'echo "ns=$PMIX_NAMESPACE rank=$PMIX_RANK"'
expect_out "^ns=rtm\.[A-Za-z0-9._-]*\.[0-9]* rank=0\$"
expect_no_orphans
finish
