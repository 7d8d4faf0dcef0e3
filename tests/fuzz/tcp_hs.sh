#!/bin/bash
# libFuzzer target fuzz_tcp_hs (tests/fuzz/fuzz_tcp_hs.c) over its corpus and new inputs.
. "$top_srcdir/tests/fuzz/run.sh"
fuzz_run tcp_hs 20000 400
