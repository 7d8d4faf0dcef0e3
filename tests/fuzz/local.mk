# libFuzzer targets for every parser of outside input, each run for a
# bounded time by a test. Tier: FUZZ_TESTS (make check-fuzz).
