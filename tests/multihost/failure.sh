#!/bin/bash
# Failure anywhere ends the job everywhere (two namespace hosts, 2 ranks
# each): a rank killed on the remote host, a remote rank failing first (the
# others failing because of it are not blamed), its rtd killed, a host the agent
# cannot reach, SIGINT at rtrun, rtrun SIGKILLed, --timeout. Each ends with
# the right message and exit code (every job is bounded by MH_TIMEOUT), and
# leaves no process on any host and no job file in /tmp or /dev/shm.
. "$top_srcdir/tests/multihost/netns.sh"
mh_setup 2
A=${MH_HOSTS[0]} B=${MH_HOSTS[1]}

# a rank killed on the remote host
mh_job --host "$A:2,$B:2" -n 4 sh -c '[ $PMIX_RANK = 2 ] && kill -9 $$; exec sleep 30'
mh_expect_rc 137 "remote rank killed"
mh_expect_err "rank 2 \($B, pid [0-9]+\) was killed by signal 9 \(Killed\); ending the job \(3 other ranks killed\)" "remote rank killed"
mh_expect_clean "remote rank killed" || MH_FAILURES=$((MH_FAILURES + 1))

# a PMIx rank dies on B and the fence lets the ranks on A go on without it:
# they exit 99, and may be reaped before it; the rank that died first is named
mh_job --host "$A:2,$B:2" -n 4 "$top_builddir/tests/launcher/pmix_probe" exitfirst 3 2
mh_expect_rc 3 "remote rank failed first"
mh_expect_err "rank 2 \($B, pid [0-9]+\) exited with code 3; ending the job \(3 other ranks killed\)" "remote rank failed first"
mh_expect_clean "remote rank failed first" || MH_FAILURES=$((MH_FAILURES + 1))

# the rtd of host B killed: its ranks die with it, the job ends
mh_rtrun --host "$A:2,$B:2" -n 4 sleep 30 >"$MH_OUT" 2>"$MH_ERR" &
job=$!
rtd=""
for i in $(seq 100); do
    for p in $(ip netns pids "$B"); do
        case "$(tr '\0' ' ' </proc/$p/cmdline 2>/dev/null)" in
        *rtd\ --parent*) rtd=$p ;;
        esac
    done
    # wait until its ranks run too (sleep processes in B)
    [ -n "$rtd" ] && [ "$(ip netns pids "$B" | wc -l)" -ge 3 ] && break
    sleep 0.1
done
if [ -z "$rtd" ]; then
    mh_fail "rtd killed: no rtd found in $B"
else
    kill -9 "$rtd"
fi
wait $job
MH_RC=$?
mh_expect_rc 1 "rtd killed"
mh_expect_err "rtd on host $B lost: " "rtd killed"
# a SIGKILLed rtd cannot remove its own files: the next rtd on the host does
mh_job --host "$A:1,$B:1" -n 2 true
mh_expect_rc 0 "job after the lost rtd"
mh_expect_clean "rtd killed" || MH_FAILURES=$((MH_FAILURES + 1))

# an unreachable host: the agent's own error is in the message
mh_job --host "$A:2,${MH_PREFIX}zz:2" -n 4 sleep 30
mh_expect_rc 1 "unreachable host"
mh_expect_err "cannot start rtd on host ${MH_PREFIX}zz with launch agent \"ip netns exec \{host\}\": .*Cannot open network namespace" "unreachable host"
mh_expect_clean "unreachable host" || MH_FAILURES=$((MH_FAILURES + 1))

# SIGINT at rtrun
ip netns exec "$A" "$RTRUN" --launch-agent "$MH_AGENT" "${MH_BIND[@]}" --host "$A:2,$B:2" -n 4 sleep 30 \
    >"$MH_OUT" 2>"$MH_ERR" &
job=$!
for i in $(seq 100); do
    [ "$(ip netns pids "$B" | wc -l)" -ge 3 ] && break
    sleep 0.1
done
kill -INT $job
wait $job
MH_RC=$?
mh_expect_rc 130 "SIGINT"
mh_expect_err "received SIGINT; forwarding it to the ranks and ending the job" "SIGINT"
mh_expect_clean "SIGINT" || MH_FAILURES=$((MH_FAILURES + 1))

# rtrun SIGKILLed: every rtd sees its connection close, kills its ranks and
# exits (the ranks on rtrun's own host die with it: parent-death signal)
ip netns exec "$A" "$RTRUN" --launch-agent "$MH_AGENT" "${MH_BIND[@]}" --host "$A:2,$B:2" -n 4 sleep 30 \
    >"$MH_OUT" 2>"$MH_ERR" &
job=$!
for i in $(seq 100); do
    [ "$(ip netns pids "$B" | wc -l)" -ge 3 ] && break
    sleep 0.1
done
b_pids=$(ip netns pids "$B")   # the rtd and its ranks
kill -9 $job
wait $job 2>/dev/null
for i in $(seq 100); do
    [ -z "$(ip netns pids "$B")$(ip netns pids "$A")" ] && break
    sleep 0.1
done
[ -z "$(ip netns pids "$B")" ] || mh_fail "rtrun killed: processes left in $B: $(ip netns pids "$B" | tr '\n' ' ')"
# the rtd removed its own files (it must not die by the agent's
# parent-death signal, which would leave them to the next job)
for p in $b_pids; do
    for d in /tmp/rtrun."$p".*; do
        [ -e "$d" ] && mh_fail "rtrun killed: the rtd (pid $p) left $d"
    done
done
mh_job --host "$A:1,$B:1" -n 2 true   # removes the dead rtrun's files
mh_expect_rc 0 "job after rtrun was killed"
mh_expect_clean "rtrun killed" || MH_FAILURES=$((MH_FAILURES + 1))

# RTM_KILL_GRACE is rtrun's on every host: B's rtd, started by an agent that
# gives it RTM_KILL_GRACE=0 (as an ssh login may give it anything), still
# waits rtrun's hour before it SIGKILLs ranks that ignore SIGTERM; a second
# SIGINT at rtrun then ends them at once.
cat > "$MH_TMP/agent0" <<EOA
#!/bin/bash
h=\$1; shift
[ "\$h" = "$B" ] && export RTM_KILL_GRACE=0
exec ip netns exec "\$h" "\$@"
EOA
chmod +x "$MH_TMP/agent0"
ip netns exec "$A" env RTM_KILL_GRACE=3600 "$RTRUN" --launch-agent "$MH_TMP/agent0 {host}" \
    "${MH_BIND[@]}" --host "$A:1,$B:1" -n 2 \
    sh -c 'trap "echo got-term" TERM; echo up; while :; do sleep 0.1; done' >"$MH_OUT" 2>"$MH_ERR" &
job=$!
for i in $(seq 600); do
    [ "$(grep -c up "$MH_OUT")" -ge 2 ] && break
    sleep 0.1
done
kill -TERM $job
for i in $(seq 600); do
    [ "$(grep -c got-term "$MH_OUT")" -ge 2 ] && break
    sleep 0.1
done
[ "$(grep -c got-term "$MH_OUT")" = 2 ] || mh_fail "grace: SIGTERM did not reach both ranks"
# the rank on B outlives B's own RTM_KILL_GRACE=0: its shell is still there
[ -n "$(for p in $(ip netns pids "$B"); do tr '\0' ' ' </proc/$p/cmdline 2>/dev/null | grep -l got-term; done)" ] ||
    mh_fail "grace: the rank on $B was killed before rtrun's grace ran out"
kill -INT $job
wait $job
MH_RC=$?
mh_expect_rc 143 "grace"
! grep -q "sending SIGKILL" "$MH_ERR" || mh_fail "grace: rtrun's own grace ran out"
mh_expect_clean "grace" || MH_FAILURES=$((MH_FAILURES + 1))

# --timeout
mh_job --timeout 2 --host "$A:2,$B:2" -n 4 sleep 30
mh_expect_rc 124 "timeout"
mh_expect_err "timeout of 2 s expired with 4 ranks still running" "timeout"
mh_expect_clean "timeout" || MH_FAILURES=$((MH_FAILURES + 1))
mh_finish
