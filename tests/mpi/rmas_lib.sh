# Sourced by the one-sided suite's drivers (tests/mpi/rmas_*.sh): runs one
# program of the suite on each transport the job can use.
#
#   RMAS_TRANSPORTS  which of "shm tcp verbs" (default all three); a driver's
#                    first argument overrides it, e.g. rmas_sync.sh tcp
#   RMAS_NP          rank counts on shm (default 1 3 8: the singleton, an odd
#                    count, and contention; 1 = singleton; any list runs)
#
# shm: the default transports; tcp: RTM_TRANSPORTS=self,tcp over loopback
# (no shm, so every access is served by active messages at the target);
# verbs: RTM_TRANSPORTS=self,verbs on softib, the userspace verbs emulator,
# preloaded into every rank, in full mesh (4 ranks), on demand (3 ranks)
# and XRC (4 ranks). Skipped with a note when softib is not built.
. "$top_srcdir/tests/integration/lib.sh"
t_require_rtrun
rmas_failed=0
rmas_tmp=$(mktemp -d /tmp/rtm-rmas.XXXXXX) || exit 1
trap 'rm -rf "$rmas_tmp"' EXIT
trap 'exit 1' INT TERM

# rmas_job LABEL NP PROG [ARGS...]: one job with the environment as set.
rmas_job() {
    local label=$1 np=$2 prog=$top_builddir/tests/mpi/$3 rc
    shift 3
    echo "== $label, $np rank(s)"
    if [ "$np" -eq 1 ]; then
        t_job "$ITEST_JOB_TIMEOUT" "$prog" "$@"
        rc=$?
    else
        itest_run "$np" "$prog" "$@"
        rc=$?
    fi
    if [ $rc -ne 0 ]; then
        echo "FAIL: $(basename "$prog")${*:+ $*} on $label with $np rank(s) exited $rc" >&2
        rmas_failed=1
    fi
}

# rmas_suite TRANSPORTS PROG [ARGS...]: PROG on every transport of
# TRANSPORTS (empty: RMAS_TRANSPORTS); exits with the result.
rmas_suite() {
    local tr np trs=${1:-${RMAS_TRANSPORTS:-shm tcp verbs}}
    shift
    for tr in $trs; do
        case $tr in
        shm)
            for np in ${RMAS_NP:-1 3 8}; do
                rmas_job shm "$np" "$@"
            done ;;
        tcp)
            RTM_TRANSPORTS=self,tcp rmas_job tcp 4 "$@" ;;
        verbs)
            if ! t_softib_preload; then
                echo "== verbs: softib not built ($T_SOFTIB), skipped"
                continue
            fi
            mkdir -p "$rmas_tmp/softib"
            SOFTIB_DIR=$rmas_tmp/softib RTM_TRANSPORTS=self,verbs RTM_VERBS_CONN=fullmesh \
                LD_PRELOAD="$T_SOFTIB_PRELOAD" rmas_job "verbs (softib, full mesh)" 4 "$@"
            SOFTIB_DIR=$rmas_tmp/softib RTM_TRANSPORTS=self,verbs RTM_VERBS_CONN=ondemand \
                LD_PRELOAD="$T_SOFTIB_PRELOAD" rmas_job "verbs (softib, on demand)" 3 "$@"
            SOFTIB_DIR=$rmas_tmp/softib RTM_TRANSPORTS=self,verbs RTM_VERBS_CONN=fullmesh \
                RTM_VERBS_XRC=1 LD_PRELOAD="$T_SOFTIB_PRELOAD" rmas_job "verbs (softib, XRC)" 4 "$@" ;;
        *)
            echo "FAIL: unknown transport '$tr' (shm, tcp or verbs)" >&2
            rmas_failed=1 ;;
        esac
    done
    exit $rmas_failed
}
