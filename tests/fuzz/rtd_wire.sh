#!/bin/bash
# libFuzzer target fuzz_rtd_wire (tests/fuzz/fuzz_rtd_wire.c) over its corpus and new inputs.
. "$top_srcdir/tests/fuzz/run.sh"
fuzz_run rtd_wire 20000 4096
