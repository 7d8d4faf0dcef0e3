#!/bin/bash
# rtrun over real ssh: an sshd started by the test inside namespace host B
# (its own config, host key and authorized key in a temp dir, StrictModes no),
# the default kind of launch agent (ssh, BatchMode, no tty) with a client
# config of the test's. A job across A (rtrun's host) and B passes PMIx and
# stdio; a host whose sshd is missing (C) fails the launch with ssh's own
# message. Skips without sshd.
. "$top_srcdir/tests/multihost/netns.sh"
SSHD=$(command -v sshd || echo /usr/sbin/sshd)
[ -x "$SSHD" ] || t_skip "no sshd (Debian package openssh-server)"
command -v ssh >/dev/null || t_skip "no ssh client"
mh_setup 3
A=${MH_HOSTS[0]} B=${MH_HOSTS[1]} C=${MH_HOSTS[2]}
D=$MH_TMP/ssh
mkdir -p "$D" /run/sshd
ssh-keygen -q -t ed25519 -N '' -f "$D/hostkey" || t_skip "ssh-keygen failed"
ssh-keygen -q -t ed25519 -N '' -f "$D/id" || t_skip "ssh-keygen failed"
cp "$D/id.pub" "$D/authorized_keys"
cat >"$D/sshd_config" <<EOC
ListenAddress 10.213.0.2
HostKey $D/hostkey
AuthorizedKeysFile $D/authorized_keys
PermitRootLogin prohibit-password
PubkeyAuthentication yes
PasswordAuthentication no
KbdInteractiveAuthentication no
UsePAM no
StrictModes no
PidFile $D/sshd.pid
AcceptEnv LSAN_OPTIONS ASAN_OPTIONS UBSAN_OPTIONS
EOC
cat >"$D/ssh_config" <<EOC
Host $B
    HostName 10.213.0.2
Host $C
    HostName 10.213.0.3
Host *
    User $(id -un)
    IdentityFile $D/id
    IdentitiesOnly yes
    StrictHostKeyChecking no
    UserKnownHostsFile /dev/null
    LogLevel ERROR
    ConnectTimeout 10
    SendEnv LSAN_OPTIONS ASAN_OPTIONS UBSAN_OPTIONS
EOC
ip netns exec "$B" "$SSHD" -D -e -f "$D/sshd_config" 2>"$D/sshd.log" &
sshd_pid=$!
stop_sshd() {
    kill "$sshd_pid" 2>/dev/null
    wait "$sshd_pid" 2>/dev/null
}
for i in $(seq 50); do
    ip netns exec "$A" ssh -F "$D/ssh_config" -o BatchMode=yes -T "$B" true 2>/dev/null && break
    sleep 0.2
done
ip netns exec "$A" ssh -F "$D/ssh_config" -o BatchMode=yes -T "$B" true 2>"$MH_ERR" ||
    { stop_sshd; t_skip "sshd in $B does not accept the test's key: $(cat "$MH_ERR" "$D/sshd.log")"; }

MH_AGENT="ssh -F $D/ssh_config -o BatchMode=yes -T {host}"
mh_job --host "$A:1,$B:1" -n 2 "$top_builddir/tests/multihost/mh_probe" dmodex
mh_expect_rc 0 "over ssh"
grep -q "rank 1 on $B: ok" "$MH_OUT" || mh_fail "over ssh: rank 1 did not report from $B"

mh_job --host "$A:1,$B:1" -n 2 sh -c 'echo "rank $PMIX_RANK in $(ip netns identify $$)"; exit $((PMIX_RANK * 3))'
mh_expect_rc 3 "exit code over ssh"
grep -qx "rank 1 in $B" "$MH_OUT" || mh_fail "exit code over ssh: no output from rank 1"
mh_expect_err "rank 1 \($B, pid [0-9]+\) exited with code 3" "exit code over ssh"

# C runs no sshd: ssh's own words name the problem
mh_job --host "$A:1,$C:1" -n 2 sleep 30
mh_expect_rc 1 "no sshd"
mh_expect_err "cannot start rtd on host $C with launch agent .*(Connection refused|port 22)" "no sshd"

stop_sshd
mh_expect_clean "at the end" || MH_FAILURES=$((MH_FAILURES + 1))
mh_finish
