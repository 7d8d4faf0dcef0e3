#!/bin/sh
# Runs one test with a time bound, so a hang is a failure, never a stuck CI.
# RTMTEST_TIMEOUT (seconds) overrides the default bound of 300 s. The last
# line of the log is the test's wall time ("wrap: N s"): scripts/run-tests
# lists the slowest tests of each pass from it.
limit=${RTMTEST_TIMEOUT:-300}
case "$1" in *.sh) set -- bash "$@" ;; esac
t0=$(date +%s)
timeout -k 10 "$limit" "$@"
rc=$?
if [ $rc -eq 124 ] || [ $rc -eq 137 ]; then
    echo "FAIL: $* did not finish within ${limit} s" >&2
fi
echo "wrap: $(( $(date +%s) - t0 )) s" >&2
exit $rc
