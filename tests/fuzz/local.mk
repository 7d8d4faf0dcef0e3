# libFuzzer targets for every parser of outside input, each run for a
# bounded time by a test. Tier: FUZZ_TESTS (make check-fuzz).
#
# A target is tests/fuzz/fuzz_<name>.c (LLVMFuzzerTestOneInput) compiled
# together with exactly the sources it exercises by $(FUZZ_CC) (clang) with
# -fsanitize=fuzzer,address,undefined, whatever CC and --enable-sanitizers
# say: automake gives one compiler to a build, so these are plain make
# rules, not programs. configure finds clang and checks that it links
# libFuzzer (RTM_FUZZ); without it nothing here is built and each test
# skips (77) saying why. Its corpus is tests/fuzz/corpus/<name>/: the seeds,
# and every input that once crashed, hung or bloated the target (named
# regress-<what>), kept as a regression. tests/fuzz/run.sh runs it over its
# corpus, then for a fixed number of new inputs from a fixed seed: the same
# inputs on every machine, slow or fast (docs/testing.md).
#
# The targets are the same binaries in both builds (always ASan+UBSan), so
# they are built and run in the plain build's pass only: in build-asan/
# the tier targets leave them out (NO_SANITIZER_TESTS, tests/local.mk).

FUZZ_NAMES = hostfile alloc cli jobdesc rtd_wire rtd_hs tcp_frames tcp_handshake tcp_hs am config \
	addr vrb_addr rtd_msg rma_hdr rma_key shm_split pmix_uri

FUZZ_BINS = $(FUZZ_NAMES:%=tests/fuzz/fuzz_%)
# Spelled out: automake rewrites a substitution reference inside TESTS
# (its $(EXEEXT) pass made it $(FUZZ_NAMES), bare names no rule makes).
FUZZ_TESTS += \
	tests/fuzz/hostfile.sh \
	tests/fuzz/alloc.sh \
	tests/fuzz/cli.sh \
	tests/fuzz/jobdesc.sh \
	tests/fuzz/rtd_wire.sh \
	tests/fuzz/rtd_hs.sh \
	tests/fuzz/tcp_frames.sh \
	tests/fuzz/tcp_handshake.sh \
	tests/fuzz/tcp_hs.sh \
	tests/fuzz/am.sh \
	tests/fuzz/config.sh \
	tests/fuzz/addr.sh \
	tests/fuzz/vrb_addr.sh \
	tests/fuzz/rtd_msg.sh \
	tests/fuzz/rma_hdr.sh \
	tests/fuzz/rma_key.sh \
	tests/fuzz/shm_split.sh \
	tests/fuzz/pmix_uri.sh
NO_SANITIZER_TESTS += $(FUZZ_NAMES:%=tests/fuzz/%.sh)
EXTRA_DIST += $(FUZZ_NAMES:%=tests/fuzz/%.sh) $(FUZZ_NAMES:%=tests/fuzz/fuzz_%.c) \
	tests/fuzz/run.sh tests/fuzz/fuzz.h tests/fuzz/fuzz_tcp.h tests/fuzz/corpus
CLEANFILES += $(FUZZ_BINS)
if RTM_SANITIZERS
# not built here either: `make check TESTS=tests/fuzz/x.sh` says where they run
AM_TESTS_ENVIRONMENT += RTMTEST_FUZZ_MISSING='they are built and run in the plain build (ASan+UBSan there too)'; \
	export RTMTEST_FUZZ_MISSING;
else
AM_TESTS_ENVIRONMENT += RTMTEST_FUZZ_MISSING='$(RTM_FUZZ_MISSING)'; export RTMTEST_FUZZ_MISSING;
if RTM_FUZZ
check_SCRIPTS += $(FUZZ_BINS)
endif
endif

# The warnings of the build (-Werror with --enable-werror), not its
# sanitizer flags: a target always has its own.
FUZZ_CFLAGS = $(filter -std=% -W%,$(RTM_CFLAGS)) -g -O1 -fno-omit-frame-pointer \
	-fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined
FUZZ_CPPFLAGS = -I$(top_srcdir)/include -I$(top_srcdir) -I$(top_builddir)
# One compile-and-link per target, of the .c files among its prerequisites.
FUZZ_COMPILE = $(AM_V_CC)$(MKDIR_P) tests/fuzz && \
	$(FUZZ_CC) $(FUZZ_CPPFLAGS) $(FUZZ_CFLAGS) -o $@
fuzz_srcs = $(filter %.c,$^)

# Every target logs through common/ (silenced by run.sh, -close_fd_mask=2).
# A target depends on every header of the tree: a few seconds of clang
# each, only for make check, and never a stale target.
# Only the source directories: a build directory inside the source tree
# (build/, build-asan/) holds headers configure makes and removes.
FUZZ_HDR_DIRS = common include runtime transport launcher mpi softib tests
FUZZ_COMMON = $(wildcard $(FUZZ_HDR_DIRS:%=$(top_srcdir)/%/*.h) \
	$(FUZZ_HDR_DIRS:%=$(top_srcdir)/%/*/*.h)) $(top_builddir)/config.h \
	$(top_srcdir)/common/error.c $(top_srcdir)/common/log.c

# Hostfiles (launcher/hostfile.c): rtrun_hostfile_parse on the input.
tests/fuzz/fuzz_hostfile: $(top_srcdir)/tests/fuzz/fuzz_hostfile.c $(FUZZ_COMMON) \
		$(top_srcdir)/launcher/hostfile.c
	$(FUZZ_COMPILE) $(fuzz_srcs)

# Scheduler allocations (launcher/alloc.c): Slurm hostlists and per-node
# counts, PBS nodefiles.
tests/fuzz/fuzz_alloc: $(top_srcdir)/tests/fuzz/fuzz_alloc.c $(FUZZ_COMMON) \
		$(top_srcdir)/launcher/alloc.c $(top_srcdir)/launcher/hostfile.c
	$(FUZZ_COMPILE) $(fuzz_srcs)

# rtrun's command line (launcher/cli.c) with --host, -x, --map-by ..., and
# the job map made from it (job.c); the hostfile it may open is the
# input's (fopen wrapped).
FUZZ_CLI_SRCS = $(top_srcdir)/launcher/cli.c $(top_srcdir)/launcher/alloc.c \
	$(top_srcdir)/launcher/hostfile.c $(top_srcdir)/launcher/launcher_config.c \
	$(top_srcdir)/common/config_parse.c $(top_srcdir)/launcher/job.c \
	$(top_srcdir)/common/shmname.c \
	$(top_srcdir)/launcher/bind.c
tests/fuzz/fuzz_cli: $(top_srcdir)/tests/fuzz/fuzz_cli.c $(FUZZ_COMMON) $(FUZZ_CLI_SRCS)
	$(FUZZ_COMPILE) $(HWLOC_CFLAGS) $(fuzz_srcs) -Wl,--wrap=fopen $(HWLOC_LIBS)

# The job description of the daemon tree's JOB message (launcher/rtd_jobdesc.c).
tests/fuzz/fuzz_jobdesc: $(top_srcdir)/tests/fuzz/fuzz_jobdesc.c $(FUZZ_COMMON) \
		$(top_srcdir)/launcher/rtd_jobdesc.c
	$(FUZZ_COMPILE) $(fuzz_srcs)

# The daemon tree's byte stream as a parent or child daemon sends it:
# headers (launcher/rtd_wire.c), messages cut from the connection's buffer
# (rtd_conn.c), routed and handled by a node (rtd_node.c, rtd_modex.c,
# rtd_tree.c); the PMIx server's side is stubbed in the target.
FUZZ_RTD_SRCS = $(top_srcdir)/launcher/rtd_wire.c $(top_srcdir)/launcher/rtd_conn.c \
	$(top_srcdir)/launcher/rtd_node.c $(top_srcdir)/launcher/rtd_modex.c \
	$(top_srcdir)/launcher/rtd_tree.c $(top_srcdir)/launcher/rtd_jobdesc.c \
	$(top_srcdir)/common/secret.c
tests/fuzz/fuzz_rtd_wire: $(top_srcdir)/tests/fuzz/fuzz_rtd_wire.c $(FUZZ_COMMON) $(FUZZ_RTD_SRCS)
	$(FUZZ_COMPILE) $(PMIX_CFLAGS) $(SODIUM_CFLAGS) $(fuzz_srcs) $(SODIUM_LIBS)

# The tcp transport as a peer or a stranger writes to it (tests/fuzz/fuzz_tcp.h):
# frames on an established connection (tcp_am.c), and the handshake of
# tcp_conn.c with the frames behind it.
# The handshake proves the job secret (tcp_hs.c, common/secret.c: libsodium).
FUZZ_TCP_SRCS = $(top_srcdir)/transport/tcp/tcp_am.c $(top_srcdir)/transport/tcp/tcp_conn.c \
	$(top_srcdir)/transport/tcp/tcp_hs.c $(top_srcdir)/common/secret.c
tests/fuzz/fuzz_tcp_frames: $(top_srcdir)/tests/fuzz/fuzz_tcp_frames.c $(FUZZ_COMMON) $(FUZZ_TCP_SRCS)
	$(FUZZ_COMPILE) $(SODIUM_CFLAGS) $(fuzz_srcs) $(SODIUM_LIBS)
tests/fuzz/fuzz_tcp_handshake: $(top_srcdir)/tests/fuzz/fuzz_tcp_handshake.c $(FUZZ_COMMON) \
		$(FUZZ_TCP_SRCS)
	$(FUZZ_COMPILE) $(SODIUM_CFLAGS) $(fuzz_srcs) $(SODIUM_LIBS)

# The handshake messages alone, through the pure checks: tcp_hs_check
# (transport/tcp/tcp_hs.c) and the daemon tree's rtd_hs_check (rtd_wire.c).
tests/fuzz/fuzz_tcp_hs: $(top_srcdir)/tests/fuzz/fuzz_tcp_hs.c $(FUZZ_COMMON) \
		$(top_srcdir)/transport/tcp/tcp_hs.c $(top_srcdir)/common/secret.c
	$(FUZZ_COMPILE) $(SODIUM_CFLAGS) $(fuzz_srcs) $(SODIUM_LIBS)
tests/fuzz/fuzz_rtd_hs: $(top_srcdir)/tests/fuzz/fuzz_rtd_hs.c $(FUZZ_COMMON) \
		$(top_srcdir)/launcher/rtd_wire.c $(top_srcdir)/common/secret.c
	$(FUZZ_COMPILE) $(SODIUM_CFLAGS) $(fuzz_srcs) $(SODIUM_LIBS)

# The runtime's protocol messages as a transport delivers them (runtime/am.c
# into eager.c, rndv.c, credit.c; proto.c for the application's side), over
# a fake transport; the job (PMIx) is stubbed in the target.
FUZZ_AM_SRCS = $(top_srcdir)/runtime/am.c $(top_srcdir)/runtime/credit.c \
	$(top_srcdir)/runtime/eager.c $(top_srcdir)/runtime/match.c $(top_srcdir)/runtime/peer.c \
	$(top_srcdir)/runtime/proto.c $(top_srcdir)/runtime/request.c $(top_srcdir)/runtime/rndv.c \
	$(top_srcdir)/common/config_parse.c $(top_srcdir)/common/mpool.c \
	$(runtime_librtmcfg_la_SOURCES:%=$(top_srcdir)/%)
tests/fuzz/fuzz_am: $(top_srcdir)/tests/fuzz/fuzz_am.c $(FUZZ_COMMON) $(FUZZ_AM_SRCS)
	$(FUZZ_COMPILE) $(fuzz_srcs)

# RTM_* values through common/'s parser and every component's table, and
# RTM_TCP_IF's list through tcp_ifsel.c.
tests/fuzz/fuzz_config: $(top_srcdir)/tests/fuzz/fuzz_config.c $(FUZZ_COMMON) \
		$(top_srcdir)/common/config_parse.c $(top_srcdir)/transport/tcp/tcp_ifsel.c \
		$(runtime_librtmcfg_la_SOURCES:%=$(top_srcdir)/%)
	$(FUZZ_COMPILE) $(fuzz_srcs)

# Transport address blobs read from PMIx: tcp's and shm's reachable and
# ep_create on interfaces built by hand.
tests/fuzz/fuzz_addr: $(top_srcdir)/tests/fuzz/fuzz_addr.c $(FUZZ_COMMON) $(FUZZ_TCP_SRCS) \
		$(top_srcdir)/transport/tcp/tcp_iface.c $(top_srcdir)/transport/tcp/tcp_ifsel.c \
		$(top_srcdir)/transport/tcp/tcp_state.c \
		$(filter %.c,$(SHM_SOURCES:%=$(top_srcdir)/%)) $(top_srcdir)/common/config_parse.c $(top_srcdir)/common/shmname.c \
		$(runtime_librtmcfg_la_SOURCES:%=$(top_srcdir)/%)
	$(FUZZ_COMPILE) $(SODIUM_CFLAGS) $(fuzz_srcs) -lrt $(SODIUM_LIBS)

# The verbs transport's address blob (PMIx) and on-demand connection
# datagram (UD), through their pure checks (transport/verbs/vrb_addr.c):
# no device, no libibverbs.
tests/fuzz/fuzz_vrb_addr: $(top_srcdir)/tests/fuzz/fuzz_vrb_addr.c $(FUZZ_COMMON) \
		$(top_srcdir)/transport/verbs/vrb_addr.c
	$(FUZZ_COMPILE) $(fuzz_srcs)

# The daemon-tree messages rtrun and rtd take for themselves, through the
# check both call first (launcher/rtd_msg.c).
tests/fuzz/fuzz_rtd_msg: $(top_srcdir)/tests/fuzz/fuzz_rtd_msg.c $(FUZZ_COMMON) \
		$(top_srcdir)/launcher/rtd_msg.c
	$(FUZZ_COMPILE) $(fuzz_srcs)

# What a one-sided target receives (mpi/rma.c), through its checks
# (mpi/rma_wire.c): header messages, inline or with a separate run list.
tests/fuzz/fuzz_rma_hdr: $(top_srcdir)/tests/fuzz/fuzz_rma_hdr.c $(FUZZ_COMMON) \
		$(top_srcdir)/mpi/rma_wire.c
	$(FUZZ_COMPILE) $(fuzz_srcs)

# The key of an exposed region a peer sends (runtime/rma_key.c), through
# the check rtm_rma_key_unpack makes first.
tests/fuzz/fuzz_rma_key: $(top_srcdir)/tests/fuzz/fuzz_rma_key.c $(FUZZ_COMMON) \
		$(top_srcdir)/runtime/rma_key.c
	$(FUZZ_COMPILE) $(fuzz_srcs)

# What a rank takes from a local peer for a split read (transport/shm/
# shm_split.c): the SHM_AM_SPLIT record and the slot word both ranks claim
# chunks from, through shm_split_check and shm_split_claim.
tests/fuzz/fuzz_shm_split: $(top_srcdir)/tests/fuzz/fuzz_shm_split.c $(FUZZ_COMMON) \
		$(filter %.c,$(SHM_SOURCES:%=$(top_srcdir)/%)) $(top_srcdir)/common/config_parse.c $(top_srcdir)/common/shmname.c \
		$(runtime_librtmcfg_la_SOURCES:%=$(top_srcdir)/%)
	$(FUZZ_COMPILE) $(SODIUM_CFLAGS) $(fuzz_srcs) -lrt $(SODIUM_LIBS)

# The PMIx server URI a rank reads from its environment (runtime/
# pmix_sock.c), through rtm_pmix_uri_addr.
tests/fuzz/fuzz_pmix_uri: $(top_srcdir)/tests/fuzz/fuzz_pmix_uri.c $(FUZZ_COMMON) \
		$(top_srcdir)/runtime/pmix_sock.c
	$(FUZZ_COMPILE) $(fuzz_srcs)
