# Attack tests (pmix): each runs an attack from an unprivileged local user
# (tests/security/lib.sh) or from a namespace host against a running job.
# Tier: SECURITY_TESTS (make check-security).
EXTRA_DIST += tests/security/lib.sh

# The PMIx server's gate (launcher/pmix_gate.c): a job of pmix_rank ranks,
# attacked with pmix_client, plain or with the fake-uid shim.
check_PROGRAMS += tests/security/pmix_rank tests/security/pmix_client
tests_security_pmix_rank_SOURCES = tests/security/pmix_rank.c
tests_security_pmix_rank_CFLAGS = $(AM_CFLAGS) $(PMIX_CFLAGS)
tests_security_pmix_rank_LDADD = $(PMIX_LIBS)
tests_security_pmix_client_SOURCES = tests/security/pmix_client.c
tests_security_pmix_client_CFLAGS = $(AM_CFLAGS) $(PMIX_CFLAGS)
tests_security_pmix_client_LDADD = $(PMIX_LIBS)
check_LTLIBRARIES += tests/security/libpmixfakeid.la
tests_security_libpmixfakeid_la_SOURCES = tests/security/pmix_fakeid.c
tests_security_libpmixfakeid_la_LDFLAGS = -module -avoid-version -shared -rpath /nowhere
PMIX_SECURITY_SH = \
	tests/security/pmix_fakeuid.sh \
	tests/security/pmix_refused.sh \
	tests/security/pmix_teardown.sh \
	tests/security/pmix_rtd.sh \
	tests/security/pmix_claim.sh
SECURITY_TESTS += $(PMIX_SECURITY_SH)
EXTRA_DIST += $(PMIX_SECURITY_SH) tests/security/pmix_lib.sh
