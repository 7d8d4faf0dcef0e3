#!/bin/bash
# Context ids are recycled (runtime/comm.c, runtime/ctxid.c): 100,000
# rtm_comm_dup + rtm_comm_free cycles under rtrun with 2 ranks (and fewer
# with 3 and 4 ranks, which share this machine's 2 cores), then
# each rank's debug line at finalize must show tables as large as the most
# communicators alive at once (the program keeps 3 besides world and self,
# and makes 2 more at a time), not as many as were made. Without recycling
# the matching table held two contexts per communicator ever made.
. "$top_srcdir/tests/integration/lib.sh"

t_require_rtrun
failed=0
for job in 2:100000 3:2000 4:5000; do
    n=${job%%:*}
    cycles=${COMM_RECYCLE_CYCLES:-${job#*:}}
    out=$(RTM_LOG_LEVEL=debug itest_run "$n" "$ITEST_BIN/comm_recycle" "$cycles" 2>&1)
    rc=$?
    lines=$(printf '%s\n' "$out" | grep 'communicators: at most')
    printf '%s\n' "$out" | grep -v '\] debug: ' | head -40
    printf '%s\n' "$lines"
    if [ "$rc" -ne 0 ]; then
        failed=1
        continue
    fi
    if [ "$(printf '%s\n' "$lines" | grep -c .)" -ne "$n" ]; then
        echo "FAIL: $n ranks: expected one 'communicators:' debug line per rank" >&2
        failed=1
        continue
    fi
    # "communicators: at most A alive at once, H handles, C matching contexts in the table"
    if ! printf '%s\n' "$lines" | awk '
        { for (i = 1; i <= NF; i++) {
              if ($i == "most") alive = $(i + 1)
              if ($i == "handles,") handles = $(i - 1)
              if ($i == "matching") ctxs = $(i - 1)
          }
          # world, self, 3 kept, the dup and the split: 7 alive at most
          if (alive > 7 || handles > 8 || ctxs > 16) {
              printf "FAIL: %s\n  (expected at most 7 alive, 8 handles, 16 contexts)\n", $0
              bad = 1
          } }
        END { exit bad }' >&2; then
        failed=1
    fi
done
exit $failed
