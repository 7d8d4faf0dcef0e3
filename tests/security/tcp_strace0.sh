#!/bin/sh
# Runs rank 0 of a job under strace, recording what it sends (hex) into
# $RTMTEST_STRACE: the "recorded handshake" of tests/security/tcp_replay.sh.
# Every other rank runs the program as it is.
if [ "${PMIX_RANK:-}" = 0 ]; then
    exec strace -f -qq -xx -s 1024 -e trace=sendto,sendmsg,write -o "$RTMTEST_STRACE" "$@"
fi
exec "$@"
