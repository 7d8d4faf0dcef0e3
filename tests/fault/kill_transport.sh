#!/bin/bash
# A rank SIGKILLed while the others stream messages to it, over every
# transport this host has (tcp, shm): rtrun names the rank that died first
# and signal 9, and exits 137. Over tcp the survivors see the connection
# break and abort with code 71 ("connection to rank V lost"), often before
# rtrun has reaped the victim: their abort is a consequence, never what
# rtrun blames (it used to be, in about 2 runs of 3). The rule is causal
# (the peer's death is waited for, not a time), so every run must pass:
# several runs per transport, each bounded by fault_run's limits.
. "$top_srcdir/tests/integration/lib.sh"
t_require_rtrun
failed=0
out=$(mktemp)
trap 'rm -f "$out"' EXIT
transports="self,shm"
if "$top_builddir/rtm_info" 2>/dev/null | grep -qE '^ +tcp +tcp:'; then
    transports="self,tcp $transports"
else
    echo "(no tcp transport in this build: shm only)"
fi

check_blame() {
    local what=$1 victim=$2
    if ! grep -qE "^rtrun: rank $victim \([^,]*, pid [0-9]+\) was killed by signal 9 \(Killed\); ending the job" "$out"; then
        echo "FAIL: $what: rtrun did not name rank $victim killed by signal 9" >&2
        failed=1
    fi
    if grep -E '^rtrun: ' "$out" | grep -q 'called abort'; then
        echo "FAIL: $what: rtrun blamed a survivor's abort: $(grep '^rtrun: .*called abort' "$out")" >&2
        failed=1
    fi
    if [ "$(grep -c '^rtrun: rank ' "$out")" != 1 ]; then
        echo "FAIL: $what: rtrun reported $(grep -c '^rtrun: rank ' "$out") ranks, expected one" >&2
        failed=1
    fi
}

for tl in $transports; do
    for run in 1 2 3 4 5; do
        for job in "4 2" "3 0"; do
            set -- $job
            echo "== RTM_TRANSPORTS=$tl run $run: $1 ranks, victim $2"
            RTM_TRANSPORTS=$tl FAULT_RUN_OUT=$out fault_run stream "$1" "$2" || failed=1
            check_blame "$tl run $run ($1 ranks, victim $2)" "$2"
            if [ "$FAULT_RUN_RC" != 137 ]; then
                echo "FAIL: $tl run $run: rtrun exited $FAULT_RUN_RC, expected 137 (128 + SIGKILL)" >&2
                failed=1
            fi
        done
    done
done
exit $failed
