#!/bin/bash
# The fake-uid PMIx connect against an rtd's PMIx server (issue 12, item 1):
# a 4-rank job on two namespace hosts (--map-by node: ranks 1 and 3 are
# launched by host B's rtd); on host B, another local user with the
# fake-uid shim runs PMIx_Init as rank 1, then a plain PMIx_Init as rank 3.
# Must: both fail; the job ends with every rank's data right and exit 0;
# each refusal is logged once with the peer's address.
. "$top_srcdir/tests/multihost/netns.sh"
. "$top_srcdir/tests/security/lib.sh"
. "$top_srcdir/tests/security/pmix_lib.sh"
mh_setup 2
sec_need_attacker
pj_init
# both cleanups: the hosts (netns.sh) and the user and files (pmix_lib.sh)
trap 'pj_cleanup; mh_cleanup' EXIT
pj_preload
A=${MH_HOSTS[0]} B=${MH_HOSTS[1]}

MH_TIMEOUT=120 mh_rtrun --host "$A:2,$B:2" -n 4 --map-by node "$PJ_RANK" "$PJ_DIR" \
    >"$PJ_DIR/out" 2>"$PJ_DIR/err" &
job=$!
pj_wait_files 'spawned.*' 4
touch "$PJ_DIR/start"
pj_wait_files 'ready.*' 4
for r in 1 3; do
    pid=$(pj_rank_pid $r) || t_die "no process of rank $r"
    [ "$(ip netns identify "$pid")" = "$B" ] || t_die "rank $r is not on host $B"
    pj_attack_env "$pid" $r
    preload=()
    [ $r = 1 ] && preload=(LD_PRELOAD="$PJ_PRELOAD")
    ip netns exec "$B" runuser -u "$T_ATTACKER" -- env -i PATH=/usr/bin:/bin \
        ${ASAN_OPTIONS:+ASAN_OPTIONS="$ASAN_OPTIONS"} \
        ${LSAN_OPTIONS:+LSAN_OPTIONS="$LSAN_OPTIONS"} \
        "${PJ_ENV[@]}" "${preload[@]}" timeout -k 5 60 "$PJ_CLIENT" >"$PJ_DIR/attack$r" 2>&1
    arc=$?
    cat "$PJ_DIR/attack$r"
    [ "$arc" = 3 ] || t_fail "the client as rank $r on $B exited $arc (3: PMIx_Init refused)"
    grep -q "job size" "$PJ_DIR/attack$r" && t_fail "the attacker (rank $r) read the job size"
done
touch "$PJ_DIR/go"
wait "$job"
rc=$?
cat "$PJ_DIR/out"
cat "$PJ_DIR/err" >&2
[ "$rc" = 0 ] || t_fail "rtrun exited $rc, expected 0"
[ "$(grep -c ': data ok (job size 4)' "$PJ_DIR/out")" = 4 ] || t_fail "not every rank's data was right"
[ "$(pj_refusals)" = 2 ] || t_fail "$(pj_refusals) refusals logged, expected 2"
[ "$(grep -c "refused a PMIx connection from 127\.0\.0\.1:[0-9]* to job .* on $B: .*uid $T_ATTACKER_UID" \
    "$PJ_DIR/err")" = 2 ] || t_fail "the refusals do not name host $B, the peer's address and uid"
mh_expect_clean "after the attacked job" || t_fail "the job left something behind"
t_finish
