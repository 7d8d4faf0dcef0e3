# Shared by the tcp attack tests (tests/security/tcp_*.sh), sourced after
# tests/lib.sh and tests/security/lib.sh.
#
#   tcp_start_job OUTDIR ARGS...   rtrun ARGS in the background (stdout and
#                  stderr in OUTDIR/out, OUTDIR/err; pid in TCP_JOB_PID)
#   tcp_wait_lines FILE PATTERN N  until FILE holds N lines matching PATTERN
#                  (bounded, fails if the job ends first)
#   tcp_rank_port RANK             a rank's tcp port, from the ranks' debug log
#   tcp_check_refusals             each connection tcp_attack.py reported is
#                  "refused" and the job logged its refusal exactly once,
#                  naming the address
#   tcp_finish_job                 waits for the job; TCP_JOB_RC
TCP_ATTACK=(/usr/bin/python3 "$top_srcdir/tests/security/tcp_attack.py")
TCP_FAILURES=0

# tcp_attack_from NETNS ARGS...: tcp_attack.py ARGS as the attacker, inside
# the namespace host NETNS (see sec_as_attacker)
tcp_attack_from() {
    local ns=$1
    shift
    ip netns exec "$ns" runuser -u "$T_ATTACKER" -- env -i PATH=/usr/bin:/bin \
        "${TCP_ATTACK[@]}" "$@"
}

tcp_fail() {
    echo "FAIL: $*" >&2
    TCP_FAILURES=$((TCP_FAILURES + 1))
}

tcp_start_job() {
    TCP_DIR=$1
    shift
    "$@" >"$TCP_DIR/out" 2>"$TCP_DIR/err" &
    TCP_JOB_PID=$!
}

tcp_wait_lines() {
    local file=$1 pattern=$2 n=$3 i
    for ((i = 0; i < 1200; i++)); do
        [ "$(grep -cE -- "$pattern" "$file" 2>/dev/null)" -ge "$n" ] && return 0
        kill -0 "$TCP_JOB_PID" 2>/dev/null || break
        sleep 0.1
    done
    echo "--- stdout:" >&2; cat "$TCP_DIR/out" >&2
    echo "--- stderr:" >&2; tail -50 "$TCP_DIR/err" >&2
    t_die "no $n lines /$pattern/ in $file (the job ended or hung)"
}

tcp_rank_port() {
    sed -n "s/.*tcp: rank $1 listens on .* port \([0-9]*\).*/\1/p" "$TCP_DIR/err" | head -1
}

tcp_rank_addr() {
    sed -n "s/.*tcp: rank $1 listens on [^ ]* \([0-9.]*\)\/.*/\1/p" "$TCP_DIR/err" | head -1
}

tcp_check_refusals() {
    local line addr result n want
    [ -s "$TCP_DIR/attack" ] || tcp_fail "the attacker made no connection"
    while read -r line; do
        case $line in conn\ *) ;; *) continue ;; esac
        set -- $line
        addr=$3
        result=$4
        [ "$result" = refused ] || tcp_fail "attack $2 from $addr: $result (not refused)"
        # the kernel may give one source port to two connections to
        # different ranks: each of those is refused and logged once
        want=$(grep -c "^conn [^ ]* $addr " "$TCP_DIR/attack")
        n=$(grep -c "refused a .*connection from $addr:" "$TCP_DIR/err")
        [ "$n" = "$want" ] ||
            tcp_fail "attack $2 from $addr: its refusal logged $n times, expected $want (once per connection from that address)"
    done <"$TCP_DIR/attack"
}

tcp_finish_job() {
    wait "$TCP_JOB_PID"
    TCP_JOB_RC=$?
    if grep -qE "ERROR: (Address|Leak)Sanitizer|runtime error:" "$TCP_DIR/err"; then
        tcp_fail "sanitizer report"
    fi
}

tcp_report() {
    if [ "$TCP_FAILURES" -gt 0 ]; then
        echo "--- attacker:" >&2; cat "$TCP_DIR/attack" >&2
        echo "--- stdout:" >&2; cat "$TCP_DIR/out" >&2
        echo "--- stderr (refusals, errors):" >&2
        grep -E "refused|error|FAIL|warn" "$TCP_DIR/err" | tail -40 >&2
        echo "$TCP_FAILURES check(s) failed"
        exit 1
    fi
    echo "--- attacker:"; cat "$TCP_DIR/attack"
    echo "--- refusals logged:"; grep "refused a" "$TCP_DIR/err"
    echo PASS
    exit 0
}
