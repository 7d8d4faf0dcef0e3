#!/bin/bash
# A stuck PMIx teardown ends at a SIGTERM (issue 12, item 3). A process of
# the job (rank 1's child: trusted, so the gate admits it) connects with a
# fake uid that OpenPMIx's own check refuses, once the ranks have their
# data; after such a refusal the library's PMIx_server_finalize never
# returns. The ranks finish; then rtrun gets a SIGTERM and must end promptly (the
# teardown is bounded anyway) with the job's exit code 0. (Before: rtrun
# hung in PMIx_server_finalize, its main thread on a lock, and SIGTERM did
# nothing.)
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/security/lib.sh"
. "$top_srcdir/tests/security/pmix_lib.sh"
t_require_rtrun
t_need_root "a job whose user's uid the fake one differs from"
pj_init
pj_preload

touch "$PJ_DIR/start"
t_job 120 "$RTRUN" -n 2 --oversubscribe --bind-to none "$PJ_RANK" "$PJ_DIR" 1 \
    env FAKEID_UID=4242 LD_PRELOAD="$PJ_PRELOAD" "$PJ_CLIENT" >"$PJ_DIR/out" 2>"$PJ_DIR/err" &
job=$!
touch "$PJ_DIR/go"
pj_wait_files child.status 1
echo "the fake-uid child exited $(cat "$PJ_DIR/child.status")"
[ "$(cat "$PJ_DIR/child.status")" = 3 ] || t_fail "the library did not refuse the fake uid"
# Until rtrun is in its teardown: both ranks reaped and its main thread
# waiting on a futex (the PMIx teardown) instead of in poll (the loop), or
# already gone.
rtrun_pid=$(pgrep -P "$job" -x rtrun)
case $(uname -m) in
x86_64) futex=202 ;;
aarch64) futex=98 ;;
*) futex=any ;;
esac
for ((i = 0; i < 600; i++)); do
    [ -r "/proc/$rtrun_pid/syscall" ] || break
    if [ -z "$(pgrep -P "$rtrun_pid")" ] && { [ $futex = any ] || [ "$(cut -d' ' -f1 "/proc/$rtrun_pid/syscall")" = $futex ]; }; then
        break
    fi
    sleep 0.05
done
kill -TERM "$rtrun_pid" 2>/dev/null
ended=
for ((i = 0; i < 200; i++)); do
    kill -0 "$job" 2>/dev/null || { ended=1; break; }
    sleep 0.1
done
[ -n "$ended" ] || t_fail "rtrun still runs 20 s after a SIGTERM during its teardown"
wait "$job"
rc=$?
cat "$PJ_DIR/out"
cat "$PJ_DIR/err" >&2
[ "$rc" = 0 ] || t_fail "rtrun exited $rc, expected the job's 0"
[ "$(grep -c ': data ok (job size 2)' "$PJ_DIR/out")" = 2 ] || t_fail "not every rank's data was right"
t_finish
