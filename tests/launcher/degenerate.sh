#!/bin/bash
# Degenerate command-line values: each gets one clear message and its exit
# code, never a crash or a hang (issue 12).
. "$(dirname "$0")/common.sh"

# one message, then nothing else rtrun says (no PMIx error, no crash)
expect_one_line() {
    local n
    n=$(grep -c '^rtrun:' "$ERR")
    [ "$n" = 1 ] || fail "$1: rtrun said $n lines, expected one"
}

# an empty program name (rtrun -n 1 "$UNSET"): a usage error
run 2 -n 1 ''
expect_err 'the program name is empty'
expect_one_line "empty program"
run 2 -n 1 -- ''
expect_err 'the program name is empty'

# a directory, a file without execute permission, a missing program
dir=$(mktemp -d /tmp/launcher-degenerate.XXXXXX)
trap 'rm -rf "$dir"; cleanup' EXIT
echo 'echo hi' >"$dir/noexec"
chmod 644 "$dir/noexec"
run 126 -n 1 "$dir"
expect_err "cannot run \"$dir\": is a directory"
expect_one_line "directory"
run 126 -n 1 "$dir/noexec"
expect_err 'no execute permission'
run 127 -n 1 "$dir/missing"
expect_err 'no such file'
run 127 -n 1 rtm-no-such-program-here
expect_err 'command not found in PATH'

# a FIFO as hostfile: refused at once, not read (nobody writes to it)
mkfifo "$dir/fifo"
run 2 -n 1 --hostfile "$dir/fifo" true
expect_err "hostfile $dir/fifo is a FIFO"
expect_within 20
run 2 -n 1 --hostfile "$dir" true
expect_err "is a directory"
run 2 -n 1 --hostfile '' true
expect_err "needs a file name"

# -x with a 100 kB value, given on the command line and taken from rtrun's
# environment: the rank sees it whole
big=$(head -c 100000 /dev/zero | tr '\0' v)
run 0 -n 1 -x "RTMTEST_BIG=$big" sh -c 'echo "len=${#RTMTEST_BIG}"'
expect_out 'len=100000'
RTMTEST_BIG2=$big run 0 -n 2 -x RTMTEST_BIG2 sh -c 'echo "len=${#RTMTEST_BIG2}"'
[ "$(grep -c 'len=100000' "$OUT")" = 2 ] || fail "-x RTMTEST_BIG2: not every rank saw 100000 bytes"
finish
