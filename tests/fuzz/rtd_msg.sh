#!/bin/bash
# libFuzzer target fuzz_rtd_msg (tests/fuzz/fuzz_rtd_msg.c) over its corpus and new inputs.
. "$top_srcdir/tests/fuzz/run.sh"
fuzz_run rtd_msg 20000 4096
