#!/bin/bash
# The daemon-tree port listens only on the addresses the job's rtds reach
# rtrun by: rtrun's host (a namespace host) has a second address on an
# interface no other host of the job can reach (10.99.0.1, on a veth pair
# both ends of which are in that host);
# the other host is named by its address (10.213.0.2, through a launch
# agent that knows which namespace it is), so rtrun knows the route to it.
# While the ranks run, rtrun listens on 10.213.0.1 (the route's source),
# not on 10.99.0.1 and not on a wildcard address; the job ends with exit 0.
# Before, rtrun listened on every up non-loopback IPv4 address of its host.
. "${top_srcdir:?run through make check (top_srcdir unset)}/tests/multihost/netns.sh"
t_need ss
mh_setup 2
h0=${MH_HOSTS[0]}
h1=${MH_HOSTS[1]}
dir=$MH_TMP
ip -n "$h0" link add extra0 type veth peer name extra1 || t_skip "cannot create a veth pair"
ip -n "$h0" addr add 10.99.0.1/24 dev extra0
ip -n "$h0" link set extra1 up
ip -n "$h0" link set extra0 up
cat >"$dir/agent.sh" <<AGENT
h=\$1; shift
case \$h in 10.213.0.2) h=$h1 ;; esac
exec ip netns exec "\$h" "\$@"
AGENT
MH_AGENT="/bin/sh $dir/agent.sh {host}"

mh_rtrun --host "$h0:1,10.213.0.2:1" -n 2 /bin/sh -c \
    "touch $dir/started.\$PMIX_RANK; while [ ! -e $dir/end ]; do sleep 0.1; done" \
    >"$dir/out" 2>"$dir/err" &
job=$!
for ((i = 0; i < 600; i++)); do
    [ -e "$dir/started.0" ] && [ -e "$dir/started.1" ] && break
    kill -0 $job 2>/dev/null || break
    sleep 0.1
done
[ -e "$dir/started.0" ] && [ -e "$dir/started.1" ] ||
    t_die "the job's ranks did not start: $(cat "$dir/err")"
listening=$(ip netns exec "$h0" ss -Hltnp | grep '"rtrun"')
echo "rtrun listens on: $listening"
touch "$dir/end"
wait $job
rc=$?
[ $rc -eq 0 ] || t_die "the job exited with $rc: $(cat "$dir/err")"
echo "$listening" | grep -q ' 10\.213\.0\.1:[0-9]' ||
    t_die "rtrun does not listen on 10.213.0.1, the address its rtd reaches it by"
echo "$listening" | grep -q ' 10\.99\.0\.1:[0-9]' &&
    t_die "rtrun listens on 10.99.0.1, an address no host of the job uses"
echo "$listening" | grep -qE '(0\.0\.0\.0|\*|\[::\]):[0-9]' &&
    t_die "rtrun listens on a wildcard address"
mh_expect_clean "tree_listen" || exit 1
echo "PASS: tree_listen"
