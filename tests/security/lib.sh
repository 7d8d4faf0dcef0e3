# Shell library of the attack tests (tests/security/*): an unprivileged
# local user to attack from. Sourced after tests/lib.sh.
#
#   sec_need_attacker   makes the user T_ATTACKER (created with useradd,
#                       removed by an EXIT trap: sec_cleanup), or skips
#                       unless root; sets T_ATTACKER_UID
#   sec_as_attacker CMD...   runs CMD as that user (runuser), with a clean
#                       environment but PATH and the sanitizer options
#   sec_cleanup         removes the user (the EXIT trap calls it; call it
#                       yourself if you replace the trap)
[ -n "${T_SEC_LIB_SOURCED:-}" ] && return 0
T_SEC_LIB_SOURCED=1

sec_cleanup() {
    if [ -n "${T_ATTACKER:-}" ] && [ -n "${T_ATTACKER_MADE:-}" ]; then
        pkill -KILL -u "$T_ATTACKER" 2>/dev/null
        userdel "$T_ATTACKER" 2>/dev/null
        T_ATTACKER_MADE=
    fi
}

sec_need_attacker() {
    t_need_root "an unprivileged user to attack from (useradd)"
    t_need useradd userdel runuser
    # One name per test process: tests of one tier run one at a time, but
    # a user left by a killed run must not make the next one fail.
    T_ATTACKER=rtmatk$$
    T_ATTACKER=${T_ATTACKER:0:31}
    if ! id "$T_ATTACKER" >/dev/null 2>&1; then
        useradd --no-create-home --home-dir /nonexistent --shell /bin/sh \
            --user-group "$T_ATTACKER" || t_die "useradd $T_ATTACKER failed"
        T_ATTACKER_MADE=1
        trap sec_cleanup EXIT
    fi
    T_ATTACKER_UID=$(id -u "$T_ATTACKER")
    # The attacker must reach the build's programs to run them.
    local d=$top_builddir
    while [ "$d" != / ] && [ -n "$d" ]; do
        if ! runuser -u "$T_ATTACKER" -- test -x "$d"; then
            t_skip "$T_ATTACKER cannot enter $d (the build must be reachable by other users)"
        fi
        d=$(dirname "$d")
    done
}

sec_as_attacker() {
    runuser -u "$T_ATTACKER" -- env -i PATH=/usr/bin:/bin \
        ${ASAN_OPTIONS:+ASAN_OPTIONS="$ASAN_OPTIONS"} \
        ${LSAN_OPTIONS:+LSAN_OPTIONS="$LSAN_OPTIONS"} \
        ${UBSAN_OPTIONS:+UBSAN_OPTIONS="$UBSAN_OPTIONS"} "$@"
}
