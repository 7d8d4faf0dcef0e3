#!/bin/bash
# libFuzzer target fuzz_tcp_handshake (tests/fuzz/fuzz_tcp_handshake.c) over its corpus and new inputs.
. "$top_srcdir/tests/fuzz/run.sh"
fuzz_run tcp_handshake 20000 70000
