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

run 0 -n 1 -H "$(hostname):1" true

# the multi-host options name the bad argument (remote hosts themselves are
# tested under tests/multihost/)
run 2 -n 2 --map-by socket true
expect_err '\-\-map-by "socket": expected slot, node, core or numa'
run 2 -n 2 --npernode 0 true
expect_err '\-\-npernode "0"'
run 2 -n 2 --fanout x true
expect_err '\-\-fanout "x"'
run 2 -n 2 -H 'bad/host' true
expect_err '"bad/host" is not a host name'
run 2 -n 2 --hostfile /nonexistent/hosts true
expect_err "cannot open hostfile /nonexistent/hosts"
run 2 -n 3 --npernode 2 -H localhost:4 true
expect_err "places at most 2"
run 0 -n 2 --map-by numa --report-bindings true
run 0 -n 1 --bind-to numa --report-bindings true
expect_err "rank 0 (.*) bound to NUMA 0"
finish
