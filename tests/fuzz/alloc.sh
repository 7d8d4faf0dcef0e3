#!/bin/bash
# libFuzzer target fuzz_alloc (tests/fuzz/fuzz_alloc.c) over its corpus and new inputs.
. "$top_srcdir/tests/fuzz/run.sh"
fuzz_run alloc 5000 4096
