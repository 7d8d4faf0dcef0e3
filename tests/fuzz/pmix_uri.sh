#!/bin/bash
# libFuzzer target fuzz_pmix_uri (tests/fuzz/fuzz_pmix_uri.c) over its corpus and new inputs.
. "$top_srcdir/tests/fuzz/run.sh"
fuzz_run pmix_uri 20000 128
