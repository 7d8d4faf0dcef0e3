#!/bin/bash
# libFuzzer target fuzz_vrb_addr (tests/fuzz/fuzz_vrb_addr.c) over its corpus and new inputs.
. "$top_srcdir/tests/fuzz/run.sh"
fuzz_run vrb_addr 20000 600
