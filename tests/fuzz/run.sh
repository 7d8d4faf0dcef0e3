# Sourced by each tests/fuzz/<name>.sh: runs one libFuzzer target over its
# corpus (tests/fuzz/corpus/<name>: seeds and every input that once crashed
# it), then for a fixed number of new inputs from a fixed seed, so a run
# tries the same inputs on any machine; -max_total_time is only a bound
# against a very slow machine, far above what the runs take.
#
#   fuzz_run NAME RUNS MAX_LEN [FLAG...]
#
# FLAGs go to libFuzzer as they are: -malloc_limit_mb=N makes an allocation
# of N MiB or more a crash, for a parser whose memory must stay in
# proportion to its input.
#
# New inputs go to a temporary directory, never into the source tree; a
# crash leaves its input as tests/fuzz/NAME-crash-<sha1> in the build
# directory, to be fixed and then copied into the corpus. By hand, from the
# build directory: tests/fuzz/fuzz_NAME ../tests/fuzz/corpus/NAME (fuzzes
# until stopped) or tests/fuzz/fuzz_NAME FILE (replays one input, with the
# parser's messages on stderr).
. "$top_srcdir/tests/lib.sh"

fuzz_run() {
    local name=$1 runs=$2 max_len=$3
    shift 3
    local bin="$top_builddir/tests/fuzz/fuzz_$name" corpus="$top_srcdir/tests/fuzz/corpus/$name"
    local work rc

    [ -x "$bin" ] || t_skip "fuzz target fuzz_$name not built: ${RTMTEST_FUZZ_MISSING:-see the output of configure}"
    [ -d "$corpus" ] || t_die "no corpus at $corpus"
    work=$(mktemp -d "${TMPDIR:-/tmp}/rtm-fuzz-$name.XXXXXX") || t_die "mktemp failed"
    # the target is always an ASan+UBSan build: the options hold in both
    # builds of the suite; leaks are found by libFuzzer itself (-detect_leaks)
    ASAN_OPTIONS=abort_on_error=0:detect_leaks=1:allocator_may_return_null=1 \
    UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
        "$bin" -runs="$runs" -seed=1 -max_len="$max_len" -timeout=60 -rss_limit_mb=2048 \
        -max_total_time=240 -close_fd_mask=2 -print_final_stats=1 \
        -artifact_prefix="$top_builddir/tests/fuzz/$name-" "$@" "$work" "$corpus"
    rc=$?
    rm -rf "$work"
    [ $rc -eq 0 ] || t_die "fuzz_$name failed (exit $rc): the input is in $top_builddir/tests/fuzz/$name-*; replay it with $bin FILE"
    echo "PASS: fuzz_$name: corpus and $runs runs"
    exit 0
}
