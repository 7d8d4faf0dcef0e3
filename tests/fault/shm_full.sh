#!/bin/bash
# /dev/shm too small for the host's shared segment (a 256 KiB tmpfs in a
# private mount namespace: unshare -m): rank 0, which sizes the segment,
# fails, and the user reads that cause once: one line saying "No space left
# on device", rtrun naming rank 0 and its exit code, and nothing from the
# other ranks (their address exchange failed because rank 0 died: they end
# as a consequence, without "PMIx_Fence ... PARTIAL SUCCESS; is the
# launcher still running?" lines, and are not blamed). An MPI program and a
# native one. Root only (the mount namespace).
. "$top_srcdir/tests/lib.sh"
t_require_rtrun
t_need_root "a private /dev/shm (unshare -m)"
t_need unshare
T_FAILURES=0
out=$(mktemp)
trap 'rm -f "$out"' EXIT
unshare -m true 2>/dev/null || t_skip "unshare -m is not permitted here"

# run WHAT EXPECTED_RC PROGRAM...: 4 ranks under a 256 KiB /dev/shm
run() {
    local what=$1 want=$2 rc n
    shift 2
    echo "+ rtrun -n 4 $* (/dev/shm of 256 KiB)"
    unshare -m sh -c 'mount -t tmpfs -o size=256k tmpfs /dev/shm && exec timeout -k 5 60 "$@"' sh \
        "$RTRUN" -n 4 --oversubscribe "$@" >"$out" 2>&1
    rc=$?
    sed 's/^/  | /' "$out"
    [ "$rc" = "$want" ] || t_fail "$what: rtrun exited $rc, expected $want"
    n=$(grep -c 'No space left on device' "$out")
    [ "$n" = 1 ] || t_fail "$what: the cause is said $n times, expected once"
    if grep -qE 'PARTIAL SUCCESS|launcher still running' "$out"; then
        t_fail "$what: the other ranks' failed fence is reported"
    fi
    n=$(grep -c '^rtrun: rank ' "$out")
    [ "$n" = 1 ] || t_fail "$what: rtrun reported $n ranks, expected one"
    grep -qE "^rtrun: rank 0 \([^,]*, pid [0-9]+\) exited with code $want; ending the job" "$out" ||
        t_fail "$what: rtrun does not blame rank 0 with code $want"
}

# MPI_Init's error line (MPI_ERR_OTHER = 16) is the one message
run "MPI program" 16 "$top_builddir/tests/mpi/mpi_p2p"
# the program prints rtm_init's error; exit 1
run "native program" 1 "$top_builddir/tests/integration/pingpong"
t_finish
