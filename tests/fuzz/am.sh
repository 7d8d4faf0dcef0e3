#!/bin/bash
# libFuzzer target fuzz_am (tests/fuzz/fuzz_am.c) over its corpus and new inputs.
. "$top_srcdir/tests/fuzz/run.sh"
fuzz_run am 20000 4096
