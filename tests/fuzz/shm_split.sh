#!/bin/bash
# libFuzzer target fuzz_shm_split (tests/fuzz/fuzz_shm_split.c) over its corpus and new inputs.
. "$top_srcdir/tests/fuzz/run.sh"
fuzz_run shm_split 20000 128
