#!/bin/bash
# libFuzzer target fuzz_jobdesc (tests/fuzz/fuzz_jobdesc.c) over its corpus and new inputs.
. "$top_srcdir/tests/fuzz/run.sh"
fuzz_run jobdesc 20000 4096 -malloc_limit_mb=4
