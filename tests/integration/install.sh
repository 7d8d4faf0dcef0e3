#!/bin/sh
# `make install` honours DESTDIR and installs what a user builds against:
# rtrun, rtm_info, librtmsg.so, rtmsg.h (and the rtm_status.h it includes),
# mpi.h and rtmsg.pc, and the verbs transport module; a program then builds
# with pkg-config from the staged tree and runs, and the staged rtm_info
# loads the staged verbs module (found from where librtmsg.so was loaded).
set -u
. "${top_srcdir:?run through make check (top_srcdir unset)}/tests/lib.sh"
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
if ! make -s -C "$top_builddir" install DESTDIR="$stage" >"$stage.log" 2>&1; then
    echo "FAIL: make install DESTDIR=$stage failed:"; tail -n 20 "$stage.log"; rm -f "$stage.log"
    exit 1
fi
rm -f "$stage.log"
prefix=$(sed -n 's/^prefix=//p' "$top_builddir/rtmsg.pc")
failed=0
for f in bin/rtrun bin/rtm_info include/rtmsg.h include/rtm_status.h include/mpi.h \
         lib/pkgconfig/rtmsg.pc; do
    [ -e "$stage$prefix/$f" ] || { echo "FAIL: $prefix/$f not installed"; failed=1; }
done
ls "$stage$prefix"/lib/librtmsg.so* >/dev/null 2>&1 || { echo "FAIL: librtmsg.so not installed"; failed=1; }
[ $failed -eq 0 ] || exit 1
flags=$(PKG_CONFIG_PATH="$stage$prefix/lib/pkgconfig" PKG_CONFIG_SYSROOT_DIR="$stage" \
        pkg-config --cflags --libs rtmsg) || { echo "FAIL: pkg-config rtmsg"; exit 1; }
# shellcheck disable=SC2086
if ! cc -std=c11 -o "$stage/ring" "$top_srcdir/examples/ring.c" $flags $RTMTEST_LDFLAGS 2>"$stage/cc.log"; then
    echo "FAIL: examples/ring.c does not build against the installed tree:"; cat "$stage/cc.log"
    exit 1
fi
out=$(LD_LIBRARY_PATH="$stage$prefix/lib" "$stage/ring" 2>&1) || { echo "FAIL: ring (singleton) failed: $out"; exit 1; }
echo "$out"
echo "$out" | grep -q OK || { echo "FAIL: ring printed no OK"; exit 1; }
if grep -q '^#define RTM_HAVE_IBVERBS 1' "$top_builddir/config.h"; then
    module=$stage$prefix/lib/rtmsg/librtmsg-verbs.so
    [ -f "$module" ] || { echo "FAIL: $prefix/lib/rtmsg/librtmsg-verbs.so not installed"; exit 1; }
    out=$(LD_LIBRARY_PATH="$stage$prefix/lib" "$stage$prefix/bin/rtm_info" 2>&1) ||
        { echo "FAIL: the staged rtm_info failed: $out"; exit 1; }
    echo "$out" | grep "^  verbs\|module "
    echo "$out" | grep -q "module $module\$" ||
        { echo "FAIL: the staged rtm_info did not load the staged verbs module"; exit 1; }
fi
echo "installed tree under DESTDIR works"
