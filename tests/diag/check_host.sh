#!/bin/bash
# rtm_check on this host: green on a healthy setup (exit 0, --json "ok");
# each failure reported as the failure it is, with its fix, and exit 1:
# a too-low RLIMIT_MEMLOCK with an RDMA device (softib), a tiny /dev/shm
# (a private mount namespace, root), CMA refused (the no_cma seccomp
# wrapper of tests/integration).
: "${top_builddir:=$(pwd)}"
: "${top_srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"
. "$top_srcdir/tests/lib.sh"
CHECK=$top_builddir/rtm_check
[ -x "$CHECK" ] || t_skip "no $CHECK"
t_need python3
T=$(mktemp -d /tmp/diag-check.XXXXXX)
trap 'rm -rf "$T"' EXIT
fails=0
bad() { echo "FAIL: $*" >&2; sed 's/^/  | /' "$T/out" >&2; fails=$((fails + 1)); }

# healthy (no RDMA device: memlock does not matter)
"$CHECK" -n 2 > "$T/out" 2>&1 || bad "healthy host: exit $?"
grep -q "all checks passed" "$T/out" || bad "healthy host: no 'all checks passed'"
"$CHECK" -n 2 --json > "$T/out" 2>&1
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["ok"] is True, d' "$T/out" ||
    bad "healthy host: --json not ok"
"$RTRUN" --check > "$T/out" 2>&1 || bad "rtrun --check on this host: exit $?"

# memlock too low, with a verbs device (softib)
if t_softib_preload; then
    ( ulimit -l 1024 && SOFTIB_DIR=$T LD_PRELOAD="$T_SOFTIB_PRELOAD" exec "$CHECK" -n 2 ) \
        > "$T/out" 2>&1
    rc=$?
    [ "$rc" = 1 ] || bad "memlock: exit $rc, expected 1"
    grep -qE "memlock +FAIL +RLIMIT_MEMLOCK 1.0 MiB < 64.0 MiB" "$T/out" || bad "memlock: no FAIL line"
    grep -qF "fix: raise the limit: ulimit -l unlimited" "$T/out" || bad "memlock: no fix"
    grep -qE "rdma softib0:1 +ok +ACTIVE" "$T/out" || bad "memlock: softib port not listed ACTIVE"
fi

# /dev/shm too small for the job's segment
if [ "$(id -u)" = 0 ] && command -v unshare > /dev/null; then
    unshare -m sh -c 'mount --make-rprivate / && mount -t tmpfs -o size=256k tmpfs /dev/shm &&
                      exec "$0" -n 8' "$CHECK" > "$T/out" 2>&1
    rc=$?
    [ "$rc" = 1 ] || bad "/dev/shm: exit $rc, expected 1"
    grep -qE "/dev/shm +FAIL +256 KiB free < 14.0 MiB the shared segment of 8 ranks needs" "$T/out" ||
        bad "/dev/shm: no FAIL line"
    grep -qF "mount -o remount,size=" "$T/out" || bad "/dev/shm: no fix"
fi

# The segment's size is the shm transport's own geometry (RTM_SHM_RX_BUDGET
# shared by a rank's incoming rings: 8 KiB rings at 128 ranks, 128.5 MiB with
# a page of split-read slots per rank, not the 4 GiB of 256 KiB rings per
# pair it assumed before), and a bad RTM_SHM_*
# value is named
"$CHECK" -n 128 > "$T/out" 2>&1
grep -qE "/dev/shm +(ok|FAIL) +.* 128.5 MiB .*128 ranks" "$T/out" || bad "/dev/shm at 128 ranks: not 128.5 MiB"
RTM_SHM_RX_BUDGET=lots "$CHECK" -n 4 > "$T/out" 2>&1
[ $? = 1 ] || bad "RTM_SHM_RX_BUDGET=lots: exit not 1"
grep -qE '/dev/shm +FAIL +RTM_SHM_RX_BUDGET="lots" is not a size' "$T/out" ||
    bad "RTM_SHM_RX_BUDGET=lots: no FAIL line naming it"

# CMA refused (seccomp: process_vm_readv fails with EPERM)
NOCMA=$top_builddir/tests/integration/no_cma
if [ -x "$NOCMA" ] && "$NOCMA" --selftest > /dev/null 2>&1; then
    "$NOCMA" "$CHECK" -n 2 > "$T/out" 2>&1
    rc=$?
    [ "$rc" = 1 ] || bad "cma: exit $rc, expected 1"
    grep -qE "cma +FAIL +process_vm_readv between sibling processes refused: Operation not permitted" \
        "$T/out" || bad "cma: no FAIL line"
    grep -qF "RTM_SHM_CMA=off" "$T/out" || bad "cma: no fix"
fi
[ "$fails" = 0 ] || exit 1
echo PASS
