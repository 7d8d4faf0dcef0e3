#!/bin/bash
# libFuzzer target fuzz_rma_hdr (tests/fuzz/fuzz_rma_hdr.c) over its corpus and new inputs.
. "$top_srcdir/tests/fuzz/run.sh"
fuzz_run rma_hdr 20000 4097
