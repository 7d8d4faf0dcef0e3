# softib/: the userspace libibverbs emulator the verbs transport is tested on
# (no RDMA NIC here). Installed as a product component: LD_PRELOAD it to run
# any verbs program on it (softib/README.md). Its tests are in tests/softib/.
if HAVE_IBVERBS

lib_LTLIBRARIES += softib/libsoftib.la
softib_libsoftib_la_SOURCES = \
	softib/softib.h \
	softib/device.c \
	softib/wire.c \
	softib/mr.c \
	softib/cq.c \
	softib/srq.c \
	softib/qp.c \
	softib/send.c \
	softib/recv.c \
	softib/progress.c \
	softib/xrc.c \
	softib/pin.c \
	softib/sysfs.c
softib_libsoftib_la_CFLAGS = $(AM_CFLAGS) $(IBVERBS_CFLAGS) -fvisibility=hidden
softib_libsoftib_la_LDFLAGS = $(AM_LDFLAGS) -avoid-version -no-undefined
softib_libsoftib_la_LIBADD = -lpthread

# softib-run CMD...: CMD on softib (preload, sysfs tree, device node as root)
bin_SCRIPTS += softib-run
CLEANFILES += softib-run
softib-run: $(top_srcdir)/softib/softib-run.in Makefile
	$(AM_V_GEN)sed -e 's|@libdir@|$(libdir)|g' $(top_srcdir)/softib/softib-run.in > $@.tmp && \
		chmod +x $@.tmp && mv $@.tmp $@

endif HAVE_IBVERBS

EXTRA_DIST += softib/README.md softib/softib-run.in
