#!/bin/bash
# libFuzzer target fuzz_config (tests/fuzz/fuzz_config.c) over its corpus and new inputs.
. "$top_srcdir/tests/fuzz/run.sh"
fuzz_run config 3000 512
