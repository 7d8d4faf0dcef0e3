# The shell library every .sh test sources, directly or through its area's
# library (tests/integration/lib.sh, tests/verbs/verbs_lib.sh,
# tests/launcher/common.sh, tests/mpi/common.sh, tests/multihost/netns.sh,
# tests/softib/acceptance.sh, tests/extpmix/lib.sh, tests/slurm/cluster.sh).
# Sourced, not run; sourcing it twice is harmless.
#
#   top_builddir, top_srcdir, RTRUN   set by make check (tests/local.mk);
#                      by hand, run from the build directory:
#                      top_builddir=$PWD top_srcdir=.. RTRUN=$PWD/rtrun
#   t_skip MSG...      "SKIP: MSG" and exit 77 (automake's skip code)
#   t_die MSG...       "FAIL: MSG" on stderr and exit 1
#   t_fail MSG...      "FAIL: MSG" on stderr, counted in T_FAILURES;
#                      t_finish then exits 1 (or 0 with "PASS")
#   t_need CMD...      skips unless every command is installed
#   t_need_root WHAT   skips unless root
#   t_require_rtrun    fails unless rtrun is built
#   t_elapsed STAMP    seconds since a `date +%s.%N` stamp, two decimals
#   t_job SECS CMD...  CMD bounded by SECS (timeout -k 5); exit code of CMD,
#                      124 or 137 when it overran
#   t_marked_pids VAR=VALUE   pids of processes whose environment holds
#                      VAR=VALUE (a mark put in a job's environment finds
#                      whatever the job left behind)
#   t_free_port        a TCP port in 20000-31999 nothing listens on now
#   t_free_port_to VAR the same into VAR, remembered by later calls
#   t_softib_preload   sets T_SOFTIB (libsoftib.so of this build) and
#                      T_SOFTIB_PRELOAD (what LD_PRELOAD takes: the ASan
#                      runtime first when libsoftib is a sanitizer build);
#                      returns 1 when libsoftib is not built
#   t_np FULL [SAN]    the rank counts a driver loops over: RTMTEST_NP if
#                      set; else FULL, or SAN (default FULL) in the
#                      sanitizer pass (RTMTEST_SANITIZER_PASS=1, set by
#                      make check in a --enable-sanitizers build)
[ -n "${T_LIB_SOURCED:-}" ] && return 0
T_LIB_SOURCED=1

: "${top_builddir:?run through make check (top_builddir unset)}"
: "${top_srcdir:?run through make check (top_srcdir unset)}"
: "${RTRUN:=$top_builddir/rtrun}"
T_FAILURES=0

# libpmix leaks a few strings of its own (tests/lsan.supp); our own leaks
# are never suppressed. make check sets this already in a sanitizer build;
# a test run by hand gets it here.
if [ -f "$top_srcdir/tests/lsan.supp" ] && ! printf '%s' "${LSAN_OPTIONS:-}" | grep -q lsan.supp; then
    export LSAN_OPTIONS="suppressions=$top_srcdir/tests/lsan.supp:print_suppressions=0${LSAN_OPTIONS:+:$LSAN_OPTIONS}"
fi

t_skip() {
    echo "SKIP: $*"
    exit 77
}

t_die() {
    echo "FAIL: $*" >&2
    exit 1
}

t_fail() {
    echo "FAIL: $*" >&2
    T_FAILURES=$((T_FAILURES + 1))
}

t_finish() {
    if [ "$T_FAILURES" -gt 0 ]; then
        echo "$T_FAILURES check(s) failed"
        exit 1
    fi
    echo "PASS"
    exit 0
}

t_need() {
    local c
    for c in "$@"; do
        command -v "$c" >/dev/null 2>&1 || t_skip "$c is not installed"
    done
}

t_need_root() {
    [ "$(id -u)" = 0 ] || t_skip "$* needs root"
}

t_require_rtrun() {
    [ -x "$RTRUN" ] || t_die "the launcher is not built: $RTRUN"
}

t_elapsed() {
    awk -v a="$1" -v b="$(date +%s.%N)" 'BEGIN { printf "%.2f", b - a }'
}

t_job() {
    local secs=$1
    shift
    timeout -k 5 "$secs" "$@"
}

t_marked_pids() {
    grep -l -- "$1" /proc/[0-9]*/environ 2>/dev/null |
        sed 's|/proc/\([0-9]*\)/environ|\1|' || true
}

t_free_port() {
    local p used
    used=$(ss -Htln 2>/dev/null | awk '{ n = split($4, a, ":"); print a[n] }')
    while :; do
        p=$((20000 + (RANDOM * 32768 + RANDOM) % 12000))
        if ! printf '%s\n' $used ${T_PORTS_TAKEN:-} | grep -qx "$p"; then
            T_PORTS_TAKEN="${T_PORTS_TAKEN:-} $p"
            echo "$p"
            return 0
        fi
    done
}

# t_free_port_to VAR: t_free_port into VAR in this shell, so that the next
# call remembers the port ($(t_free_port) runs in a subshell, which forgets
# it: two such calls differ only by chance).
t_free_port_to() {
    local port
    port=$(t_free_port)
    T_PORTS_TAKEN="${T_PORTS_TAKEN:-} $port"
    printf -v "$1" '%s' "$port"
}

t_softib_preload() {
    T_SOFTIB="$top_builddir/softib/.libs/libsoftib.so"
    T_SOFTIB_PRELOAD="$T_SOFTIB"
    [ -f "$T_SOFTIB" ] || return 1
    # an ASan build of libsoftib needs the ASan runtime first in LD_PRELOAD
    if readelf -d "$T_SOFTIB" 2>/dev/null | grep -q 'NEEDED.*libasan'; then
        T_SOFTIB_PRELOAD="$(gcc -print-file-name=libasan.so):$T_SOFTIB"
    fi
    return 0
}

# The sanitizer pass looks for memory errors and undefined behaviour on the
# code paths a job takes; the plain pass has run the full matrix of rank
# counts already. Where a driver gives a shorter list, the sanitizer pass
# takes it: every process there is 2-5 times slower, and a rank count above
# the cores (oversubscription) slower again (docs/testing.md, "Which tests
# the sanitizer pass runs").
t_np() {
    if [ -n "${RTMTEST_NP:-}" ]; then
        echo "$RTMTEST_NP"
    elif [ "${RTMTEST_SANITIZER_PASS:-0}" = 1 ]; then
        echo "${2:-$1}"
    else
        echo "$1"
    fi
}
