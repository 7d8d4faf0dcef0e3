# bench/: benchmark programs (they print figures; they are not tests).
# rtm_pingpong uses the native API; bench/mpi_pingpong.c is the same
# measurement written against MPI, built by bench/compare.sh with
# mpicc.openmpi and mpicc.mpich.
noinst_PROGRAMS += bench/rtm_pingpong
bench_rtm_pingpong_SOURCES = bench/rtm_pingpong.c
bench_rtm_pingpong_LDADD = librtmsg.la
bench_rtm_pingpong_LDFLAGS = $(AM_LDFLAGS) -no-install
EXTRA_DIST += bench/mpi_pingpong.c bench/compare.sh
