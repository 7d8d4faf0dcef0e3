#!/bin/bash
# rtrun --hostfile with local entries runs the job; malformed hostfiles are
# refused with exit 2 and a FILE:LINE message; a Slurm or PBS allocation
# gives the hosts and, without -n, the number of ranks.
. "$(dirname "$0")/common.sh"

HF=$(mktemp /tmp/launcher-hostfile.XXXXXX)
trap 'cleanup; rm -f "$HF"' EXIT
me=$(hostname)
count_ranks() { grep -c '^rank=' "$OUT"; }

# Open MPI format: runs a PMIx job, -n taken from the slots when left out
printf '# this host only\nlocalhost slots=2   # two ranks\n\n' >"$HF"
run 0 --hostfile "$HF" -n 2 "$PROBE" modex
run 0 --hostfile "$HF" sh -c 'echo rank=$PMIX_RANK'
[ "$(count_ranks)" = 2 ] || fail "hostfile with 2 slots and no -n: $(count_ranks) ranks, expected 2"
run 2 --hostfile "$HF" -n 3 true
expect_err "only 2 slots"

# MPICH format, the same host under two names: slots add up
printf 'localhost:1\n%s:2\n' "$me" >"$HF"
run 0 --machinefile "$HF" -n 3 --map-by node sh -c 'echo rank=$PMIX_RANK'
[ "$(count_ranks)" = 3 ] || fail "3 slots over two names of this host: $(count_ranks) ranks"
run 0 --hostfile "$HF" --npernode 1 sh -c 'echo rank=$PMIX_RANK'
[ "$(count_ranks)" = 1 ] || fail "--npernode 1 on one host: $(count_ranks) ranks, expected 1"

# malformed hostfiles: exit 2, FILE:LINE, nothing started
printf 'localhost slots=2\nlocalhost slots=abc\n' >"$HF"
run 2 --hostfile "$HF" -n 1 true
expect_err "$HF:2: slots=abc: expected a positive integer"
printf '\n\nlocalhost:0\n' >"$HF"
run 2 --hostfile "$HF" -n 1 true
expect_err "$HF:3: \"localhost:0\""
printf 'localhost slots=1 bogus\n' >"$HF"
run 2 --hostfile "$HF" -n 1 true
expect_err "$HF:1: \"bogus\""
printf '# only a comment\n' >"$HF"
run 2 --hostfile "$HF" -n 1 true
expect_err "$HF: no hosts"
run 2 --hostfile "$HF.missing" -n 1 true
expect_err "cannot open hostfile $HF.missing: No such file or directory"
printf 'localhost:1\n' >"$HF"
run 2 --hostfile "$HF" -H localhost -n 1 true
expect_err "both given"

# a Slurm allocation of this host
SLURM_JOB_NODELIST=$me SLURM_TASKS_PER_NODE=2 run 0 sh -c 'echo rank=$PMIX_RANK'
[ "$(count_ranks)" = 2 ] || fail "Slurm allocation of 2 tasks: $(count_ranks) ranks"
SLURM_JOB_NODELIST="$me" SLURM_TASKS_PER_NODE="2(x2)" run 2 -n 1 true
expect_err "SLURM_TASKS_PER_NODE"
# --host wins over the allocation
SLURM_JOB_NODELIST=$me SLURM_TASKS_PER_NODE=2 run 0 -H localhost:1 sh -c 'echo rank=$PMIX_RANK'
[ "$(count_ranks)" = 1 ] || fail "--host over an allocation: $(count_ranks) ranks, expected 1"

# a PBS allocation: one line per slot
printf '%s\n%s\n' "$me" "$me" >"$HF"
PBS_NODEFILE=$HF run 0 sh -c 'echo rank=$PMIX_RANK'
[ "$(count_ranks)" = 2 ] || fail "PBS nodefile with 2 lines: $(count_ranks) ranks"

expect_no_orphans
finish
