# Shell library of the PMIx attack tests (tests/security/pmix_*.sh), sourced
# after tests/lib.sh and tests/security/lib.sh. The job's ranks are
# tests/security/pmix_rank (see its header: files in $PJ_DIR pace it).
#
#   pj_init            $PJ_DIR (removed at exit, with the attacker user)
#   pj_wait_files GLOB N   waits (60 s at most) until N files match
#                      $PJ_DIR/GLOB; fails the test otherwise
#   pj_rank_pid R      the pid of rank R's pmix_rank process (any host)
#   pj_attack_env PID R   sets PJ_ENV: the PMIx environment a client needs
#                      to connect as rank R to the server of the rank whose
#                      pid is PID (namespace, server URI: public on the host
#                      through ps and ss; read here from the rank for
#                      brevity)
#   pj_preload         sets PJ_PRELOAD: LD_PRELOAD for the fake-uid shim
#                      (the ASan runtime first in a sanitizer build)
#   pj_refusals        how many refusals rtrun or rtd logged in $PJ_DIR/err
PJ_RANK=$top_builddir/tests/security/pmix_rank
PJ_CLIENT=$top_builddir/tests/security/pmix_client
PJ_SHIM=$top_builddir/tests/security/.libs/libpmixfakeid.so

pj_cleanup() {
    [ -n "${PJ_DIR:-}" ] && rm -rf "$PJ_DIR"
    sec_cleanup
}

pj_init() {
    [ -x "$PJ_RANK" ] && [ -x "$PJ_CLIENT" ] && [ -f "$PJ_SHIM" ] ||
        t_die "the PMIx attack programs are not built (make check builds them)"
    PJ_DIR=$(mktemp -d /tmp/rtm-pmixsec.XXXXXX)
    chmod 755 "$PJ_DIR"
    trap pj_cleanup EXIT
}

pj_wait_files() {
    local glob=$1 n=$2 i have
    for ((i = 0; i < 600; i++)); do
        have=$(find "$PJ_DIR" -maxdepth 1 -name "$glob" | wc -l)
        [ "$have" -ge "$n" ] && return 0
        sleep 0.1
    done
    echo "--- stdout:"; cat "$PJ_DIR/out" 2>/dev/null
    echo "--- stderr:"; cat "$PJ_DIR/err" 2>/dev/null
    t_die "only $have of $n $glob files appeared in 60 s"
}

pj_rank_pid() {
    local p
    for p in $(pgrep -f "pmix_rank $PJ_DIR"); do
        if tr '\0' '\n' <"/proc/$p/environ" 2>/dev/null | grep -qx "PMIX_RANK=$1"; then
            echo "$p"
            return 0
        fi
    done
    return 1
}

pj_attack_env() {
    local pid=$1 rank=$2 v
    PJ_ENV=(PMIX_RANK="$rank" PMIX_SECURITY_MODE=native PMIX_GDS_MODULE=hash)
    for v in PMIX_NAMESPACE PMIX_SERVER_URI4 PMIX_SERVER_URI41 PMIX_SERVER_URI3 \
        PMIX_SERVER_URI2 PMIX_SERVER_URI21 PMIX_BFROP_BUFFER_TYPE PMIX_VERSION PMIX_HOSTNAME; do
        PJ_ENV+=("$v=$(tr '\0' '\n' <"/proc/$pid/environ" | sed -n "s/^$v=//p")")
    done
    printf '%s\n' "${PJ_ENV[@]}" | grep -q '^PMIX_SERVER_URI4=.' ||
        t_die "rank $rank (pid $pid) has no PMIX_SERVER_URI4"
}

pj_preload() {
    PJ_PRELOAD=$PJ_SHIM
    if readelf -d "$PJ_CLIENT" 2>/dev/null | grep -q 'NEEDED.*libasan'; then
        PJ_PRELOAD="$(gcc -print-file-name=libasan.so):$PJ_SHIM"
    fi
}

pj_refusals() {
    grep -c "refused a PMIx connection from" "$PJ_DIR/err" 2>/dev/null || true
}
