#!/bin/bash
# Standard output, standard error and exit codes of ranks on another host
# (two namespace hosts, 2 ranks each): every line arrives whole on the right
# stream, --tag-output prefixes it, rtrun's stdin reaches rank 0 on the other
# host (intact, flow-controlled, EOF passed on), a remote rank's exit code
# becomes rtrun's with a message naming the rank and its host.
. "$top_srcdir/tests/multihost/netns.sh"
mh_setup 2
A=${MH_HOSTS[0]} B=${MH_HOSTS[1]}

# 200 lines per rank on each stream, written in pieces
mh_job --host "$A:2,$B:2" -n 4 sh -c \
    'i=0; while [ $i -lt 200 ]; do printf "out %s line %s " $PMIX_RANK $i; echo "end"; echo "err $PMIX_RANK line $i" >&2; i=$((i+1)); done; printf "no newline $PMIX_RANK"'
mh_expect_rc 0 "stdio"
for r in 0 1 2 3; do
    n=$(grep -c "^out $r line [0-9]* end$" "$MH_OUT")
    [ "$n" = 200 ] || mh_fail "stdio: rank $r: $n of 200 whole stdout lines"
    n=$(grep -c "^err $r line [0-9]*$" "$MH_ERR")
    [ "$n" = 200 ] || mh_fail "stdio: rank $r: $n of 200 whole stderr lines"
    grep -qx "no newline $r" "$MH_OUT" || mh_fail "stdio: rank $r: last partial line missing"
done
[ "$(wc -l <"$MH_OUT")" = 804 ] || mh_fail "stdio: $(wc -l <"$MH_OUT") stdout lines, expected 804"

mh_job --host "$A:2,$B:2" -n 4 --tag-output sh -c 'echo "I am $PMIX_RANK on $(ip netns identify $$)"'
mh_expect_rc 0 "tag-output"
for r in 0 1; do grep -qx "\[$r\] I am $r on $A" "$MH_OUT" || mh_fail "tag-output: rank $r"; done
for r in 2 3; do grep -qx "\[$r\] I am $r on $B" "$MH_OUT" || mh_fail "tag-output: rank $r"; done

# rtrun's stdin reaches rank 0 on the other host, whole and in order (3 MB,
# many times the 64 KiB window of unacknowledged bytes)
head -c 3000000 /dev/urandom >"$MH_TMP/stdin"
want=$(md5sum <"$MH_TMP/stdin" | cut -d' ' -f1)
mh_job --host "$B:1,$A:1" -n 2 sh -c '[ $PMIX_RANK = 0 ] && echo "rank 0 read $(md5sum | cut -d" " -f1)"; exit 0' \
    <"$MH_TMP/stdin"
mh_expect_rc 0 "remote stdin"
grep -qx "rank 0 read $want" "$MH_OUT" || mh_fail "remote stdin: rank 0 did not read rtrun's stdin intact"
# an endless stdin that rank 0 never reads: rtrun stops at the window and
# the job still ends when the ranks do; one that rank 0 stops reading early
mh_job --host "$B:1,$A:1" -n 2 sh -c 'sleep 1' </dev/zero
mh_expect_rc 0 "unread remote stdin"
mh_job --host "$B:1,$A:1" -n 2 sh -c '[ $PMIX_RANK = 0 ] && head -c 100000 >/dev/null; sleep 1' </dev/zero
mh_expect_rc 0 "remote stdin closed early"
# no stdin at all: remote rank 0 sees EOF at once
mh_job --host "$B:1,$A:1" -n 2 sh -c '[ $PMIX_RANK = 0 ] && echo "rank 0 read $(wc -c) bytes"; exit 0' <&-
mh_expect_rc 0 "closed stdin"
grep -qx "rank 0 read 0 bytes" "$MH_OUT" || mh_fail "closed stdin: rank 0 did not see EOF"

# a remote rank's exit code; the others are killed
mh_job --host "$A:2,$B:2" -n 4 sh -c '[ $PMIX_RANK = 3 ] && exit 7; sleep 30'
mh_expect_rc 7 "remote exit code"
mh_expect_err "rank 3 \($B, pid [0-9]+\) exited with code 7; ending the job \(3 other ranks killed\)" "remote exit code"
mh_expect_clean "after the remote exit" || MH_FAILURES=$((MH_FAILURES + 1))

# the program missing on the remote host: 127 as on one host
mh_job --host "$A:2,$B:2" -n 4 --map-by node sh -c 'exec /nonexistent/prog-$PMIX_RANK'
mh_expect_rc 127 "missing program"

# every rank succeeds: 0
mh_job --host "$A:1,$B:3" -n 4 true
mh_expect_rc 0 "all succeed"
mh_expect_clean "at the end" || MH_FAILURES=$((MH_FAILURES + 1))
mh_finish
