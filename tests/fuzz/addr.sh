#!/bin/bash
# libFuzzer target fuzz_addr (tests/fuzz/fuzz_addr.c) over its corpus and new inputs.
. "$top_srcdir/tests/fuzz/run.sh"
fuzz_run addr 20000 1024
