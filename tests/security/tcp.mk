# Attack tests (tcp): each runs an attack from an unprivileged local user
# (tests/security/lib.sh) or from a namespace host against a running job.
# Tier: SECURITY_TESTS (make check-security).
#
# The job attacked: tests/security/tcp_target (4 ranks, or 2 hosts, that
# poll until told to go, then a byte-checked ring); the stranger:
# tests/security/tcp_attack.py (python3, the real wire formats).
check_PROGRAMS += tests/security/tcp_target
tests_security_tcp_target_LDADD = $(ITEST_LIBS)
tests_security_tcp_target_LDFLAGS = $(ITEST_LINK_FLAGS)
EXTRA_DIST += tests/security/tcp_attack.py tests/security/tcp_lib.sh
# A forged HELLO claiming rank 0 plus an EAGER frame, in the old and the
# new handshake, to every rank of a 4-rank tcp job before any pair is
# connected: refused, logged once with the address, the ring intact.
SECURITY_TESTS += tests/security/tcp_forge.sh
dist_noinst_SCRIPTS += tests/security/tcp_forge.sh
# rank 0's handshake recorded (strace) and replayed by the stranger to
# rank 1, and to ranks 2 and 3 as it was and with its peer rank rewritten.
SECURITY_TESTS += tests/security/tcp_replay.sh
dist_noinst_SCRIPTS += tests/security/tcp_replay.sh
EXTRA_DIST += tests/security/tcp_strace0.sh
# Garbage, truncated handshakes and 4 GiB lengths on every rank's tcp port
# and on rtrun's daemon-tree port of a 2-host (namespace) job.
SECURITY_TESTS += tests/security/tcp_garbage.sh
dist_noinst_SCRIPTS += tests/security/tcp_garbage.sh
# 40 idle connections held open on rtrun's daemon-tree port while the
# other host's rtd starts (a gated launch agent): the rtd is admitted, the
# job completes; rtrun listens on no wildcard address.
SECURITY_TESTS += tests/security/tcp_idle.sh
dist_noinst_SCRIPTS += tests/security/tcp_idle.sh
EXTRA_DIST += tests/security/tcp_agent_gate.sh
# The daemon-tree port listens only on the addresses the job's rtds reach
# it by (the kernel's route to each child host), not on an extra address
# of rtrun's host that no host of the job uses.
SECURITY_TESTS += tests/security/tree_listen.sh
dist_noinst_SCRIPTS += tests/security/tree_listen.sh
