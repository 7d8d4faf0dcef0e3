#!/bin/bash
# --timeout ends the job with 124 and names the ranks still running.
. "$(dirname "$0")/common.sh"

# rank 1 exits at once; 5 s leave it room to have done so on a loaded
# machine (with 1 s its shell was sometimes still starting, and named)
run 124 -n 3 --oversubscribe --timeout 5 sh -c 'if [ "$PMIX_RANK" = 1 ]; then exit 0; fi; sleep 60'
expect_err "timeout of 5 s expired with 2 ranks still running (ranks 0, 2)"
expect_within 25
expect_no_orphans

# ranks that ignore SIGTERM are killed after the grace period
run 124 -n 1 --timeout 1 sh -c 'trap "" TERM; sleep 60'
expect_err "rank 0)"
expect_within 20
expect_no_orphans

run 0 -n 2 --timeout 30 true
finish
