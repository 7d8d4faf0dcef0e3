#!/bin/bash
# The shm transport picks CMA or the ring copy per message, by size and the
# host's load (RTM_SHM_LOAD, transport/shm/shm_load.c), and no byte is lost
# either way: ping-pong of every size up to 1 MiB (pingpong.c checks each
# byte), with the load signal forced. Busy: messages from
# RTM_SHM_CMA_THRESHOLD_BUSY (32K) are read by CMA; quiet, with
# RTM_SHM_CMA_THRESHOLD=16M: none is, every rendezvous goes through the
# rings. Checked by the counters each rank logs at close, not by time.
# Then the reads are gathered: a window of 64 rendezvous messages whose
# receives are posted once every RTS is there (window.c) is read in at most
# two process_vm_readv calls at the receiver, and in 64 with
# RTM_SHM_CMA_BATCH=1. Then reads from RTM_SHM_CMA_SPLIT are split with
# their senders (shm_split.c), byte-checked, and not with 0.
. "$top_srcdir/tests/integration/lib.sh"

t_require_rtrun
failed=0
# run LOAD ENV...: prints "reads declined" of rank 0's shm counters
run() {
    local load=$1 out
    shift
    out=$(export RTM_SHM_LOAD="$load" RTM_LOG_LEVEL=debug "$@"
          itest_run 2 "$ITEST_BIN/pingpong" 1M 2>&1)
    rc=$?
    printf '%s\n' "$out" | grep -v '\] debug: ' | tail -5 >&2
    printf '%s\n' "$out" | grep 'CMA reads' >&2
    [ $rc -eq 0 ] || { echo "FAIL: RTM_SHM_LOAD=$load $*: the job exited $rc" >&2; return 1; }
    printf '%s\n' "$out" |
        sed -n 's/^\[[^]]*:0\] debug: shm: \([0-9]*\) CMA reads ([0-9]* B) in [0-9]* system calls, \([0-9]*\) rendezvous left.*/\1 \2/p'
}
if grep -q 'CMA refused\|CMA off' < <(RTM_LOG_LEVEL=info itest_run 2 "$ITEST_BIN/pingpong" 1 2>&1); then
    echo "CMA is not available here: skipped"
    exit 77
fi
c=$(run busy) || failed=1
read -r reads declined <<<"$c"
if [ -z "${reads:-}" ] || [ "$reads" -eq 0 ] || [ "$declined" -ne 0 ]; then
    echo "FAIL: RTM_SHM_LOAD=busy: ${reads:-?} CMA reads, ${declined:-?} left to the rings; expected every rendezvous from 32K by CMA"
    failed=1
fi
c=$(run quiet RTM_SHM_CMA_THRESHOLD=16M) || failed=1
read -r reads declined <<<"$c"
if [ -z "${reads:-}" ] || [ "$reads" -ne 0 ] || [ "$declined" -eq 0 ]; then
    echo "FAIL: RTM_SHM_LOAD=quiet, threshold 16M: ${reads:-?} CMA reads, ${declined:-?} left to the rings; expected none by CMA"
    failed=1
fi
# window BATCH MAXCALLS: the window job with RTM_SHM_CMA_BATCH=BATCH (and no
# split reads, which window's 64 KiB messages would make); rank 1
# must make its 64 reads in at least 64/BATCH and at most MAXCALLS calls
window() {
    local batch=$1 max=$2 out reads calls
    out=$(RTM_SHM_CMA_BATCH=$batch RTM_SHM_CMA_SPLIT=0 RTM_LOG_LEVEL=debug \
          itest_run 2 "$ITEST_BIN/window" 2>&1) || {
        printf '%s\n' "$out" | tail -20
        echo "FAIL: the window job failed (RTM_SHM_CMA_BATCH=$batch)"
        return 1
    }
    printf '%s\n' "$out" | grep -v '\] debug: ' | tail -2
    printf '%s\n' "$out" | grep 'CMA reads'
    read -r reads calls < <(printf '%s\n' "$out" |
        sed -n 's/^\[[^]]*:1\] debug: shm: \([0-9]*\) CMA reads ([0-9]* B) in \([0-9]*\) system calls.*/\1 \2/p')
    if [ "${reads:-0}" -ne 64 ] || [ "${calls:-999}" -gt "$max" ] ||
       [ "${calls:-0}" -lt $(( 64 / batch )) ]; then
        echo "FAIL: window, RTM_SHM_CMA_BATCH=$batch: rank 1 made ${reads:-?} CMA reads in ${calls:-?} system calls; expected 64 in $(( 64 / batch ))..$max"
        return 1
    fi
}
window 64 2 || failed=1
window 1 64 || failed=1
# split SPLIT MIN: ping-pong up to 4 MiB with RTM_SHM_CMA_SPLIT=SPLIT (every
# byte and a canary checked); each rank must have split at least MIN of its
# reads with its sender, and none when MIN is 0. How many chunks the sender
# wrote depends on scheduling and is only shown.
split() {
    local val=$1 min=$2 out n r0 r1
    out=$(RTM_SHM_CMA_SPLIT=$val RTM_LOG_LEVEL=debug itest_run 2 "$ITEST_BIN/pingpong" 4M 2>&1) || {
        printf '%s\n' "$out" | tail -20
        echo "FAIL: ping-pong with RTM_SHM_CMA_SPLIT=$val failed"
        return 1
    }
    printf '%s\n' "$out" | grep 'reads split'
    for r in 0 1; do
        n=$(printf '%s\n' "$out" |
            sed -n "s/^\[[^]]*:$r\] debug: shm: \([0-9]*\) reads split with their senders.*/\1/p")
        if [ -z "$n" ] || { [ "$min" -eq 0 ] && [ "$n" -ne 0 ]; } || [ "$n" -lt "$min" ]; then
            echo "FAIL: RTM_SHM_CMA_SPLIT=$val: rank $r split ${n:-?} reads; expected $([ "$min" -eq 0 ] && echo none || echo "at least $min")"
            return 1
        fi
    done
}
split 256K 1 || failed=1
split 64K 1 || failed=1
split 0 0 || failed=1
[ $failed -eq 0 ] && echo "PASS: CMA chosen by size and load, every byte checked; a window read in one or two calls, or one per read with RTM_SHM_CMA_BATCH=1; large reads split with the sender (none with RTM_SHM_CMA_SPLIT=0)"
exit $failed
