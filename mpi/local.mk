# mpi/: the MPI binding, compiled into librtmsg; mpi.h and the
# mpicc/mpicxx wrappers. Its tests live in tests/mpi/ (rules below).
include_HEADERS += include/mpi.h

# The binding is a component of its own, linked into librtmsg. Its include
# path holds include/ (rtmsg.h, mpi.h) and mpi/view/ only, so a reach into
# runtime/ or transport/ fails to compile (quoted includes also search the
# including file's own directory, mpi/). mpi/view/ is made in the build tree
# and holds links to:
#   config.h           the build's configuration
#   binding.h          runtime/binding.h, what mpi/ needs of the runtime
#                      beyond rtmsg.h
#   common/            for now: coll_{bcast,gather,alltoall,reduce}.c,
#                      coll_sched.c and request.c include common/rtconfig.h
#                      for the RTM_MPI_* rows, until the binding owns its
#                      own rows
# (no implicit -I. -I$(srcdir): Makefile.am sets nostdinc.)
noinst_LTLIBRARIES += mpi/libmpi.la
librtmsg_la_LIBADD += mpi/libmpi.la
mpi_libmpi_la_SOURCES = \
	mpi/attr.c \
	mpi/bsend.c \
	mpi/coll.c \
	mpi/coll.h \
	mpi/coll_alltoall.c \
	mpi/coll_barrier.c \
	mpi/coll_bcast.c \
	mpi/coll_gather.c \
	mpi/coll_neighbor.c \
	mpi/coll_inter.c mpi/coll_inter.h \
	mpi/coll_reduce.c \
	mpi/coll_scan.c \
	mpi/coll_sched.c \
	mpi/coll_shm.c mpi/coll_shm.h \
	mpi/coll_sched.h \
	mpi/comm.c \
	mpi/datatype.c \
	mpi/deprecated.c \
	mpi/dtype_external.c \
	mpi/dtype_match.c \
	mpi/dtype_impl.h \
	mpi/dtype_envelope.c \
	mpi/dtype_darray.c \
	mpi/env.c \
	mpi/mpi_state.c mpi/mpi_state.h \
	mpi/errors.c \
	mpi/group.c \
	mpi/grequest.c \
	mpi/handles.c \
	mpi/info.c \
	mpi/intercomm.c mpi/intercomm.h \
	mpi/mpi_impl.h \
	mpi/mpit.c \
	mpi/op.c \
	mpi/pt2pt.c \
	mpi/request.c \
	mpi/topo.c \
	mpi/topo.h \
	mpi/rma.c mpi/rma_acc.c mpi/rma_wire.c mpi/rma_wire.h \
	mpi/win.c mpi/win_impl.h
mpi_libmpi_la_CPPFLAGS = -I$(top_srcdir)/include -I$(top_builddir)/mpi/view

# The runtime's side of runtime/binding.h, compiled with the runtime.
librtmsg_la_SOURCES += runtime/binding_rt.c runtime/binding.h

mpi_view = mpi/view/config.h mpi/view/binding.h mpi/view/common
$(mpi_libmpi_la_OBJECTS): | $(mpi_view)
mpi/view/config.h:
	$(AM_V_GEN)$(MKDIR_P) mpi/view && ln -sfn $(abs_top_builddir)/config.h $@
mpi/view/binding.h:
	$(AM_V_GEN)$(MKDIR_P) mpi/view && ln -sfn $(abs_top_srcdir)/runtime/binding.h $@
mpi/view/common:
	$(AM_V_GEN)$(MKDIR_P) mpi/view && ln -sfn $(abs_top_srcdir)/common $@
CLEANFILES += $(mpi_view)

# Wrappers: the installed ones point at the configured prefix; the copies
# in tests/mpi/ point at this build tree (headers from the source tree, the
# library from .libs) so tests compile programs exactly as users do.
bin_SCRIPTS += mpicc mpicxx
check_SCRIPTS += tests/mpi/mpicc tests/mpi/mpicxx
EXTRA_DIST += mpi/mpicc.in
CLEANFILES += mpicc mpicxx tests/mpi/mpicc tests/mpi/mpicxx

rtmpi_edit = sed -e 's|@RTMPI_CC@|$(CC)|g' -e 's|@RTMPI_CXX@|c++|g' \
	-e 's|@RTMPI_VERSION@|$(PACKAGE_VERSION)|g'
rtmpi_installed = -e 's|@RTMPI_INCDIR@|$(includedir)|g' -e 's|@RTMPI_LIBDIR@|$(libdir)|g' \
	-e 's|@RTMPI_EXTRA_LDFLAGS@||g'
rtmpi_buildtree = -e 's|@RTMPI_INCDIR@|$(abs_top_srcdir)/include|g' \
	-e 's|@RTMPI_LIBDIR@|$(abs_top_builddir)/.libs|g' \
	-e 's|@RTMPI_EXTRA_LDFLAGS@|$(RTM_LDFLAGS)|g'

mpicc: $(top_srcdir)/mpi/mpicc.in Makefile
	$(AM_V_GEN)$(rtmpi_edit) $(rtmpi_installed) -e 's|@RTMPI_LANG@|c|g' \
		-e 's|@RTMPI_NAME@|mpicc|g' $(top_srcdir)/mpi/mpicc.in > $@.tmp && \
		chmod +x $@.tmp && mv $@.tmp $@
mpicxx: $(top_srcdir)/mpi/mpicc.in Makefile
	$(AM_V_GEN)$(rtmpi_edit) $(rtmpi_installed) -e 's|@RTMPI_LANG@|c++|g' \
		-e 's|@RTMPI_NAME@|mpicxx|g' $(top_srcdir)/mpi/mpicc.in > $@.tmp && \
		chmod +x $@.tmp && mv $@.tmp $@
tests/mpi/mpicc: $(top_srcdir)/mpi/mpicc.in Makefile
	$(AM_V_GEN)$(MKDIR_P) tests/mpi && $(rtmpi_edit) $(rtmpi_buildtree) \
		-e 's|@RTMPI_LANG@|c|g' -e 's|@RTMPI_NAME@|mpicc|g' \
		$(top_srcdir)/mpi/mpicc.in > $@.tmp && chmod +x $@.tmp && mv $@.tmp $@
tests/mpi/mpicxx: $(top_srcdir)/mpi/mpicc.in Makefile
	$(AM_V_GEN)$(MKDIR_P) tests/mpi && $(rtmpi_edit) $(rtmpi_buildtree) \
		-e 's|@RTMPI_LANG@|c++|g' -e 's|@RTMPI_NAME@|mpicxx|g' \
		$(top_srcdir)/mpi/mpicc.in > $@.tmp && chmod +x $@.tmp && mv $@.tmp $@

include tests/mpi/local.mk
