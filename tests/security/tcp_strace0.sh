#!/bin/sh
# Runs rank 0 of a job under strace, recording what it sends (hex) into
# $RTMTEST_STRACE: the "recorded handshake" of tests/security/tcp_replay.sh.
# Every other rank runs the program as it is.
if [ "${PMIX_RANK:-}" = 0 ]; then
    # LeakSanitizer stops the world with ptrace, which a traced process
    # cannot: leaks are checked in the three other ranks only
    export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
    exec strace -f -qq -xx -s 1024 -e trace=sendto,sendmsg,write -o "$RTMTEST_STRACE" "$@"
fi
exec "$@"
