#!/bin/bash
# RTM_TRANSPORTS naming a transport this host does not have. On a build
# without libibverbs (no verbs module): rtm_info says verbs is not built;
# RTM_TRANSPORTS=self,verbs,tcp runs over tcp and rank 0 says once why verbs
# is not used (it used to be ignored silently); RTM_TRANSPORTS=verbs fails
# naming why and listing what is really available (it used to list "self,
# shm, tcp" as built whatever the build had). On any build: an unknown name
# is ignored with a warning listing the transports available here. (A build
# with verbs whose module is missing: tests/verbs/vrb_module.sh.)
. "$top_srcdir/tests/integration/lib.sh"
t_require_rtrun
PROG=$top_builddir/tests/tcp/tcp_pingpong
failed=0
log=$(mktemp)
trap 'rm -f "$log"' EXIT
expect() {   # expect FILE PATTERN WHAT (and show the line)
    grep -m1 -- "$2" "$1" | sed 's/^/  > /'
    grep -q -- "$2" "$1" || { echo "FAIL: $3; expected /$2/ in:" >&2; sed 's/^/  | /' "$1" >&2; failed=1; }
}

RTM_TRANSPORTS=self,bogus,tcp itest_run 2 "$PROG" >"$log" 2>&1 || { failed=1; tail -n 20 "$log" >&2; }
expect "$log" 'unknown transport "bogus" ignored (available here: self, shm, \(verbs, \)\?tcp)' \
    "an unknown transport"

if grep -q '^#define RTM_HAVE_IBVERBS 1' "$top_builddir/config.h"; then
    echo "verbs is built here: the absent-verbs checks are tests/verbs/vrb_module.sh's"
    exit $failed
fi
"$top_builddir/rtm_info" >"$log" 2>&1
expect "$log" "verbs  absent: not built (libibverbs was not found when librtmsg was configured)" \
    "rtm_info does not say why verbs is absent"
RTM_TRANSPORTS=self,verbs,tcp itest_run 2 "$PROG" >"$log" 2>&1 || { failed=1; tail -n 20 "$log" >&2; }
expect "$log" 'transport verbs is not available: not built .*(available here: self, shm, tcp)' \
    "RTM_TRANSPORTS=self,verbs,tcp: verbs ignored without a word"
[ "$(grep -c 'transport verbs is not available' "$log")" -eq 1 ] ||
    { echo "FAIL: the absence of verbs is not reported exactly once" >&2; failed=1; }
RTM_TRANSPORTS=verbs itest_run 2 "$PROG" >"$log" 2>&1 && {
    echo "FAIL: RTM_TRANSPORTS=verbs ran without verbs" >&2; failed=1; }
expect "$log" 'names no usable transport (available here: self, shm, tcp; verbs: not built' \
    "RTM_TRANSPORTS=verbs: the failure does not say why"
exit $failed
