#!/bin/bash
# libFuzzer target fuzz_tcp_frames (tests/fuzz/fuzz_tcp_frames.c) over its corpus and new inputs.
. "$top_srcdir/tests/fuzz/run.sh"
fuzz_run tcp_frames 10000 70000
