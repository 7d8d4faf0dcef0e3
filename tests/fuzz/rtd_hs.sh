#!/bin/bash
# libFuzzer target fuzz_rtd_hs (tests/fuzz/fuzz_rtd_hs.c) over its corpus and new inputs.
. "$top_srcdir/tests/fuzz/run.sh"
fuzz_run rtd_hs 20000 400
