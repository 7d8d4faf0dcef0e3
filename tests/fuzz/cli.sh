#!/bin/bash
# libFuzzer target fuzz_cli (tests/fuzz/fuzz_cli.c) over its corpus and new inputs.
. "$top_srcdir/tests/fuzz/run.sh"
fuzz_run cli 20000 4096
