#!/bin/sh
# Launch agent of tests/security/tcp_idle.sh: holds the rtd of host $1 back
# until the file $RTMTEST_GATE exists (the stranger's idle connections are
# open by then; bounded against a hang), then starts it in that namespace
# host as ip netns exec would.
i=0
while [ ! -e "$RTMTEST_GATE" ] && [ $i -lt 1200 ]; do
    sleep 0.1
    i=$((i + 1))
done
exec ip netns exec "$@"
