#!/bin/bash
# SIGTERM/SIGINT to rtrun reach the ranks and end the job; a second SIGINT
# kills at once; nothing is left running.
. "$(dirname "$0")/common.sh"

wait_started() {  # until the ranks run (they print "up")
    local i
    for i in $(seq 1 600); do
        [ "$(grep -c up "$OUT")" -ge "$1" ] && return 0
        sleep 0.1
    done
    fail "ranks did not start"
}

"$RTRUN" $RTRUN_X -n 2 --oversubscribe sh -c 'echo up; exec sleep 60' >"$OUT" 2>"$ERR" </dev/null &
pid=$!
wait_started 2
kill -TERM $pid
wait $pid
rc=$?
[ $rc = 143 ] || fail "SIGTERM: exit code $rc, expected 143"
expect_err "received SIGTERM"
expect_no_orphans

# ranks that catch SIGINT: the forwarded one reaches them (they say so),
# the second SIGINT kills them at once. The grace before rtrun's own
# SIGKILL is an hour here, so only the second SIGINT can end ranks that
# ignore SIGTERM, and no clock decides the outcome.
: >"$OUT"   # no stale "up" from the last job: wait_started reads this file
RTM_KILL_GRACE=3600 "$RTRUN" $RTRUN_X -n 2 --oversubscribe sh -c 'trap "echo got-int" INT; trap "" TERM; echo up; while :; do sleep 0.1; done' >"$OUT" 2>"$ERR" </dev/null &
pid=$!
wait_started 2
kill -INT $pid
# the second SIGINT only once the first has reached both ranks (a fixed
# sleep here lost the race on a loaded machine)
for i in $(seq 1 1200); do
    [ "$(grep -c got-int "$OUT")" -ge 2 ] && break
    sleep 0.05
done
kill -INT $pid
# the ranks ignore SIGTERM: only the SIGKILL of the second SIGINT ends
# them (a minute is a bound for a broken rtrun, not a measurement)
for i in $(seq 1 1200); do
    [ -z "$(marked_pids)" ] && break
    sleep 0.05
done
[ -z "$(marked_pids)" ] || fail "the second SIGINT did not kill the ranks"
wait $pid
rc=$?
[ $rc = 130 ] || fail "SIGINT: exit code $rc, expected 130"
[ "$(grep -c got-int "$OUT")" = 2 ] || fail "SIGINT did not reach both ranks"
expect_err "received SIGINT again"
! grep -q "sending SIGKILL" "$ERR" || fail "the ranks were killed by the grace timer, not the second SIGINT"
expect_no_orphans

# ranks that ignore SIGTERM are SIGKILLed when RTM_KILL_GRACE runs out
# (0 here: at once), and rtrun says so
: >"$OUT"   # no stale "up" from the last job: wait_started reads this file
RTM_KILL_GRACE=0 "$RTRUN" $RTRUN_X -n 2 --oversubscribe sh -c 'trap "" TERM; echo up; while :; do sleep 0.1; done' >"$OUT" 2>"$ERR" </dev/null &
pid=$!
wait_started 2
kill -TERM $pid
wait $pid
rc=$?
[ $rc = 143 ] || fail "grace: exit code $rc, expected 143"
expect_err "still running 0 s after SIGTERM; sending SIGKILL (RTM_KILL_GRACE)"
expect_no_orphans

# rtrun SIGKILLed: the ranks die with it (parent-death signal)
: >"$OUT"   # no stale "up" from the last job: wait_started reads this file
"$RTRUN" $RTRUN_X -n 2 --oversubscribe sh -c 'echo up; exec sleep 60' >"$OUT" 2>"$ERR" </dev/null &
pid=$!
wait_started 2
kill -KILL $pid
wait $pid 2>/dev/null
expect_no_orphans
rm -rf /tmp/rtrun.$pid.*

# Each rank leads a process group of its own (rtrun signals the rank with
# whatever it started: killpg), and a session of its own while the job's
# ranks have a CPU each (a CPU share of its own under autogroup scheduling);
# with more ranks than CPUs they stay in rtrun's session, where sched_yield
# reaches one another (launcher/spawn.h, rtrun_spawn_own_session).
# /proc/PID/stat: field 5 is the process group, 6 the session. nproc counts
# the CPUs this shell may use, as rtrun does.
my_sid=$(awk '{print $6}' /proc/$$/stat)
cpus=$(nproc)
session_probe() {   # session_probe NP: the ids lines of NP ranks
    "$RTRUN" $RTRUN_X -n "$1" --oversubscribe sh -c 'awk "{print \"ids\", \$1, \$5, \$6}" /proc/$$/stat' \
        >"$OUT" 2>"$ERR" </dev/null || fail "session probe at $1 ranks: rtrun exited $?"
    [ "$(grep -c '^ids ' "$OUT")" = "$1" ] || fail "session probe: expected $1 lines"
}
session_probe "$cpus"
while read -r _ p g s; do
    [ "$p" = "$g" ] && [ "$p" = "$s" ] ||
        fail "$cpus ranks on $cpus CPUs: rank pid $p: process group $g, session $s; expected both $p"
    [ "$s" != "$my_sid" ] || fail "rank pid $p runs in the caller's session $s"
done < <(grep '^ids ' "$OUT")
session_probe $((cpus + 1))
while read -r _ p g s; do
    [ "$p" = "$g" ] ||
        fail "$((cpus + 1)) ranks on $cpus CPUs: rank pid $p: process group $g; expected $p"
    [ "$s" = "$my_sid" ] ||
        fail "$((cpus + 1)) ranks on $cpus CPUs: rank pid $p runs in session $s, not rtrun's ($my_sid)"
done < <(grep '^ids ' "$OUT")
expect_no_orphans
finish
