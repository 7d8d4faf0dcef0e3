#!/bin/bash
# A remote rank SIGKILLed while the ranks of both hosts stream messages to
# it over tcp (two namespace hosts, 2 ranks each): the survivors abort with
# "connection to rank V lost" (code 71), and their aborts may reach rtrun
# before the victim's rtd reports it dead. rtrun must name the victim and
# signal 9 all the same, exit 137, and leave nothing on any host. The rule
# is causal, so every run must pass; a rank on rtrun's own host is killed
# too (its death is reaped, the remote survivors' aborts come up the tree).
# One name per host: every host named in the output, by rtrun ("rank 2
# (HOST, pid N)") and by the ranks ("[HOST:pid:rank]", "rank 0 (HOST):
# connection to rank 2 (HOST) lost"), is a name rtrun was given (the
# namespace hosts share the machine's hostname, which ranks used to say).
. "$top_srcdir/tests/multihost/netns.sh"
mh_setup 2
A=${MH_HOSTS[0]} B=${MH_HOSTS[1]}
FAULT=$top_builddir/tests/fault/fault_rank

for run in 1 2 3; do
    for victim in 2 1; do
        [ "$victim" = 2 ] && where=$B || where=$A
        what="run $run: rank $victim ($where) killed mid-stream"
        mh_job --host "$A:2,$B:2" -n 4 "$FAULT" stream "$victim" "mh-kill-$$"
        mh_expect_rc 137 "$what"
        mh_expect_err "^rtrun: rank $victim \($where, pid [0-9]+\) was killed by signal 9 \(Killed\); ending the job" "$what"
        if grep -E '^rtrun: ' "$MH_ERR" | grep -q 'called abort'; then
            mh_fail "$what: rtrun blamed a survivor's abort"
        fi
        names=$( (sed -n 's/^\[\([^]:]*\):[0-9]*:[0-9-]*\].*/\1/p' "$MH_ERR"
                  grep -oE 'rank [0-9]+ \([^,)]+' "$MH_ERR" | sed 's/^rank [0-9]* (//') | sort -u)
        [ -n "$names" ] || mh_fail "$what: no host named in the output"
        for n in $names; do
            [ "$n" = "$A" ] || [ "$n" = "$B" ] || mh_fail "$what: host \"$n\" named, not one of $A, $B"
        done
        mh_expect_clean "$what" || MH_FAILURES=$((MH_FAILURES + 1))
    done
done
mh_finish
