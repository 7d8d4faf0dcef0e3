# bench/: benchmark programs (they print figures; they are not tests).
# rtm_pingpong uses the native API; bench/mpi_pingpong.c is the same
# measurement written against MPI, built by bench/compare.sh with
# mpicc.openmpi and mpicc.mpich.
noinst_PROGRAMS += bench/rtm_pingpong
bench_rtm_pingpong_SOURCES = bench/rtm_pingpong.c
bench_rtm_pingpong_LDADD = librtmsg.la
bench_rtm_pingpong_LDFLAGS = $(AM_LDFLAGS) -no-install
EXTRA_DIST += bench/mpi_pingpong.c bench/compare.sh bench/compare-verbs.sh bench/netns-hosts.sh
# bench/mpi/: the MPI benchmark suite (latency, bandwidth, bidirectional
# bandwidth, message rate, collectives, launch time). Not built here: any
# MPI's mpicc builds them; bench/compare-mpi.sh builds them with ours,
# mpicc.openmpi and mpicc.mpich and runs the three interleaved.
EXTRA_DIST += bench/mpi/bench_common.h bench/mpi/osu_p2p.c bench/mpi/osu_coll.c \
	bench/mpi/init_finalize.c bench/mpi/op_local.c bench/mpi/cg_loop.c bench/compare-mpi.sh \
	bench/osu.sh
# bench/callgrind-calls.sh: instructions per MPI call (valgrind callgrind,
# one method for ours, Open MPI and MPICH) with bench/mpi/mpi_calls.c.
EXTRA_DIST += bench/mpi/mpi_calls.c bench/callgrind-calls.sh
# bench/nbc-many.sh: many outstanding nonblocking collectives
# (bench/mpi/nbc_many.c) with ours, Open MPI and MPICH, or under callgrind.
EXTRA_DIST += bench/mpi/nbc_many.c bench/nbc-many.sh
# bench/rma-compare.sh: one-sided latency/bandwidth on shared memory
# (bench/rma_lat.c) with ours, Open MPI and MPICH, interleaved.
# bench/rma-verbs.sh: the same program over verbs on softib, RDMA against
# the message path (rtmsg_win_rdma=false), and work requests per operation.
EXTRA_DIST += bench/rma_lat.c bench/rma-compare.sh bench/rma-verbs.sh bench/rma_table.awk
