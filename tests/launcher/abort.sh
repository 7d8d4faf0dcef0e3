#!/bin/bash
# PMIx_Abort (what rtm_abort calls) ends the job with its code.
. "$(dirname "$0")/common.sh"

run 7 -n 3 --oversubscribe "$PROBE" abort 7 1
expect_err "^rtrun: rank 1 ($(hostname), pid [0-9]*) called abort with code 7: probe abort: something went wrong"
expect_within 20
expect_no_orphans

# a code that would read as success becomes 1
run 1 -n 2 --oversubscribe "$PROBE" abort 256 0
expect_err "rank 0 (.*) called abort with code 256"
expect_no_orphans
finish
