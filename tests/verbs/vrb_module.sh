#!/bin/bash
# The verbs transport is a module (librtmsg-verbs.so) librtmsg loads at run
# time from <libdir>/rtmsg, found from where librtmsg.so itself was loaded.
# On a DESTDIR-staged install, with softib preloaded:
#  1. rtm_info names the module it loaded; a 2-rank job over verbs loads it
#     from the staged tree (no environment variable points there);
#  2. module removed: rtm_info says verbs is absent and why; a job with
#     RTM_TRANSPORTS=self,verbs,tcp runs over tcp and says, once, why verbs
#     is not used; RTM_TRANSPORTS=verbs fails naming why and listing what is
#     available; the default list stays quiet about it;
#  3. a module that does not load (not an ELF file) and one of another
#     contract (ABI) are refused, rtm_info quoting the loader's error / both
#     versions.
. "$top_srcdir/tests/verbs/verbs_lib.sh"
failed=0
stage=$VRB_TMP/stage
log=$VRB_TMP/log
if ! make -s -C "$top_builddir" install DESTDIR="$stage" >"$log" 2>&1; then
    echo "FAIL: make install DESTDIR=$stage failed:"; tail -n 20 "$log"; exit 1
fi
prefix=$(sed -n 's/^prefix=//p' "$top_builddir/rtmsg.pc")
lib=$stage$prefix/lib
module=$lib/rtmsg/librtmsg-verbs.so
[ -f "$module" ] || { echo "FAIL: $prefix/lib/rtmsg/librtmsg-verbs.so not installed"; exit 1; }
if readelf -d "$lib/librtmsg.so" | grep -q 'NEEDED.*libibverbs'; then
    echo "FAIL: librtmsg.so still links libibverbs"; failed=1
fi
flags=$(PKG_CONFIG_PATH="$lib/pkgconfig" PKG_CONFIG_SYSROOT_DIR="$stage" \
        pkg-config --cflags --libs rtmsg) || { echo "FAIL: pkg-config rtmsg"; exit 1; }
# shellcheck disable=SC2086
cc -std=c11 -o "$stage/ring" "$top_srcdir/examples/ring.c" $flags $RTMTEST_LDFLAGS || exit 1
export LD_LIBRARY_PATH=$lib
RTRUN=$stage$prefix/bin/rtrun
info() { "$stage$prefix/bin/rtm_info" | sed -n '/^Transports/,/^Parameters/p'; }
expect() {   # expect FILE PATTERN WHAT (and show the line)
    grep -m1 -- "$2" "$1" | sed 's/^/  > /'
    grep -q -- "$2" "$1" || { echo "FAIL: $3; expected /$2/ in:" >&2; sed 's/^/  | /' "$1" >&2; failed=1; }
}
refuse() {   # refuse FILE PATTERN WHAT
    ! grep -q -- "$2" "$1" || { echo "FAIL: $3:" >&2; grep -- "$2" "$1" | sed 's/^/  | /' >&2; failed=1; }
}

echo "== 1. the staged module is found and loaded"
LD_PRELOAD="$VRB_PRELOAD" info >"$log"
sed 's/^/  | /' "$log"
expect "$log" "module $module" "rtm_info does not name the staged module"
expect "$log" "verbs: 1 RDMA device" "rtm_info does not see softib's device"
RTM_LOG_LEVEL=debug vrb_run 2 "$stage/ring" >"$log" 2>&1 || { failed=1; tail -n 20 "$log" >&2; }
expect "$log" "module $module loaded" "the job did not load the staged module"
vrb_check_used "$log" 2 || failed=1

echo "== 2. module removed"
mv "$module" "$VRB_TMP/saved.so"
info >"$log"
sed 's/^/  | /' "$log"
expect "$log" "verbs  absent: module not installed (looked for $module and $lib/librtmsg-verbs.so)" \
    "rtm_info does not say why verbs is absent"
RTM_TRANSPORTS=self,verbs,tcp vrb_run 2 "$stage/ring" >"$log" 2>&1 || { failed=1; tail -n 20 "$log" >&2; }
expect "$log" "transport verbs is not available: module not installed" \
    "RTM_TRANSPORTS=self,verbs,tcp: no word of verbs being absent"
expect "$log" "available here: self, shm, tcp" "the available transports are not listed"
[ "$(grep -c 'transport verbs is not available' "$log")" -eq 1 ] ||
    { echo "FAIL: the absence of verbs is not reported exactly once" >&2; failed=1; }
RTM_TRANSPORTS=verbs vrb_run 2 "$stage/ring" >"$log" 2>&1 && {
    echo "FAIL: RTM_TRANSPORTS=verbs ran without verbs" >&2; failed=1; }
expect "$log" 'RTM_TRANSPORTS="verbs" names no usable transport (available here: self, shm, tcp; verbs: module not installed' \
    "RTM_TRANSPORTS=verbs: the failure does not say why"
# the default list (which names verbs) says nothing of its absence
unset RTM_TRANSPORTS
vrb_run 2 "$stage/ring" >"$log" 2>&1 || { failed=1; tail -n 20 "$log" >&2; }
refuse "$log" "transport verbs\|verbs:" "the default list is not quiet about verbs being absent"

echo "== 3. modules that must be refused"
echo "not a module" >"$module"
info >"$log"
sed 's/^/  | /' "$log"
expect "$log" "verbs  absent: cannot load $module: .*" "a module that does not load"
cp "$top_builddir/tests/verbs/.libs/libvrbfakemod.so" "$module"
info >"$log"
sed 's/^/  | /' "$log"
abi=$(sed -n 's/^#define RTM_TL_ABI_VERSION \([0-9]*\).*/\1/p' "$top_srcdir/transport/transport.h")
fake_abi=$((abi + 998))   # tests/verbs/vrb_fake_module.c
expect "$log" "verbs  absent: module $module was built for transport ABI $fake_abi (ops table of [0-9]* B), this librtmsg has ABI $abi" \
    "a module of another contract"
RTM_TRANSPORTS=verbs vrb_run 2 "$stage/ring" >"$log" 2>&1 && {
    echo "FAIL: RTM_TRANSPORTS=verbs ran on a module of another ABI" >&2; failed=1; }
expect "$log" "verbs: module $module was built for transport ABI $fake_abi" \
    "RTM_TRANSPORTS=verbs with a module of another ABI: the failure does not say why"
exit $failed
