#!/bin/bash
# A job in which the kernel refuses cross-memory attach (process_vm_readv
# fails with EPERM under a seccomp filter, as in many containers) must still
# run, detect it at init, say so in its debug log and move large messages
# through the shared-memory copy path, every byte intact.
. "$top_srcdir/tests/integration/lib.sh"
t_require_rtrun
refused_re='(CMA|process_vm_readv).*refused.*cop(y|ied)'

"$ITEST_BIN/no_cma" --selftest
rc=$?
if [ $rc -eq 77 ]; then
    echo "SKIP: this kernel or architecture does not let us install the seccomp filter"
    exit 77
elif [ $rc -ne 0 ]; then
    echo "FAIL: the no_cma wrapper does not refuse process_vm_readv" >&2
    exit 1
fi

failed=0
out=$(mktemp)
for n in 2 3; do
    echo "+ RTM_LOG_LEVEL=debug $RTRUN -n $n --oversubscribe no_cma pingpong"
    RTM_LOG_LEVEL=debug timeout -k 5 "$ITEST_JOB_TIMEOUT" "$RTRUN" -n $n --oversubscribe \
        "$ITEST_BIN/no_cma" "$ITEST_BIN/pingpong" >"$out" 2>&1
    rc=$?
    grep -iE 'cma|process_vm|copy|FAIL|PASS|pingpong:|error' "$out" | head -n 40 | sed 's/^/  | /'
    if [ $rc -ne 0 ]; then
        echo "FAIL: pingpong with CMA refused, $n ranks: exit $rc; end of its output:" >&2
        tail -n 30 "$out" >&2
        failed=1
    fi
    if ! grep -qiE "$refused_re" "$out"; then
        echo "FAIL: with CMA refused ($n ranks) no log line says CMA was refused and the copy path is used" >&2
        failed=1
    fi
done

# Control: without the filter, nothing may claim CMA was refused (unless
# this machine's Yama policy refuses it anyway).
if [ "$(cat /proc/sys/kernel/yama/ptrace_scope 2>/dev/null || echo 0)" -ge 2 ]; then
    echo "(ptrace_scope >= 2: CMA is refused here anyway; control run skipped)"
    rm -f "$out"
    exit $failed
fi
echo "+ RTM_LOG_LEVEL=debug $RTRUN -n 2 --oversubscribe pingpong 2M"
RTM_LOG_LEVEL=debug timeout -k 5 "$ITEST_JOB_TIMEOUT" "$RTRUN" -n 2 --oversubscribe \
    "$ITEST_BIN/pingpong" 2M >"$out" 2>&1
rc=$?
grep -iE 'cma|process_vm' "$out" | head -n 10 | sed 's/^/  | /'
if [ $rc -ne 0 ]; then
    echo "FAIL: control pingpong (CMA allowed) exited $rc" >&2
    tail -n 30 "$out" >&2
    failed=1
elif grep -qiE "$refused_re" "$out"; then
    echo "FAIL: CMA reported refused although nothing refuses it here" >&2
    failed=1
fi
rm -f "$out"
exit $failed
