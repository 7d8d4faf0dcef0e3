#!/bin/bash
# libFuzzer target fuzz_rma_key (tests/fuzz/fuzz_rma_key.c) over its corpus and new inputs.
. "$top_srcdir/tests/fuzz/run.sh"
fuzz_run rma_key 20000 128
