# Attack tests (launch): each runs an attack from an unprivileged local user
# (tests/security/lib.sh) or from a namespace host against a running job.
# Tier: SECURITY_TESTS (make check-security).
