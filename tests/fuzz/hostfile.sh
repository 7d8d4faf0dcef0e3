#!/bin/bash
# libFuzzer target fuzz_hostfile (tests/fuzz/fuzz_hostfile.c) over its corpus and new inputs.
. "$top_srcdir/tests/fuzz/run.sh"
fuzz_run hostfile 20000 4096
