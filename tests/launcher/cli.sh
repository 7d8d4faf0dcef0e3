#!/bin/bash
# Bad command lines: exit code 2 and a message naming the argument.
. "$(dirname "$0")/common.sh"

run 2 -n 2 --frobnicate true
expect_err 'unknown option "--frobnicate"'
expect_err "Usage: rtrun"
run 2 -n zero true
expect_err '\-n "zero"'
run 2 true
expect_err "missing -n N"
run 2 -n 2
expect_err "no program"
run 2 -n 2 --bind-to socket true
expect_err '\-\-bind-to "socket"'
run 2 -n 2 --timeout
expect_err "\-\-timeout needs a value"

# refusing to oversubscribe says how to proceed
ncores=$(grep -c ^processor /proc/cpuinfo)
run 2 -n 64 true
expect_err "64 ranks requested"
expect_err "\-\-oversubscribe"
run 2 -n 3 -H localhost:2 true
expect_err "only 2 slots"
run 0 -n 3 -H localhost:3 true

# other hosts come later
run 2 -n 2 -H some-other-host:2 true
expect_err '"some-other-host" is not this host'
expect_err "later"
run 0 -n 1 -H "$(hostname):1" true
finish
