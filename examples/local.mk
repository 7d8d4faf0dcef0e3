# examples/: small programs using the native API (rtmsg.h).
# examples/ring is the demo scripts/setup-and-demo runs under rtrun -n 4.
noinst_PROGRAMS += examples/ring
examples_ring_SOURCES = examples/ring.c
examples_ring_LDADD = librtmsg.la
# a real executable, not a libtool wrapper script: rtrun starts it directly
examples_ring_LDFLAGS = $(AM_LDFLAGS) -no-install
