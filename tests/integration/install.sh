#!/bin/sh
# `make install` honours DESTDIR and installs what a user builds against:
# rtrun, rtm_info, librtmsg.so, rtmsg.h, mpi.h and rtmsg.pc; a program then
# builds with pkg-config from the staged tree and runs.
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
for f in bin/rtrun bin/rtm_info include/rtmsg.h include/mpi.h lib/pkgconfig/rtmsg.pc; do
    [ -e "$stage$prefix/$f" ] || { echo "FAIL: $prefix/$f not installed"; failed=1; }
done
ls "$stage$prefix"/lib/librtmsg.so* >/dev/null 2>&1 || { echo "FAIL: librtmsg.so not installed"; failed=1; }
[ $failed -eq 0 ] || exit 1
flags=$(PKG_CONFIG_PATH="$stage$prefix/lib/pkgconfig" PKG_CONFIG_SYSROOT_DIR="$stage" \
        pkg-config --cflags --libs rtmsg) || { echo "FAIL: pkg-config rtmsg"; exit 1; }
# shellcheck disable=SC2086
if ! cc -std=c11 -o "$stage/ring" "$top_srcdir/examples/ring.c" $flags $RTM_TEST_LDFLAGS 2>"$stage/cc.log"; then
    echo "FAIL: examples/ring.c does not build against the installed tree:"; cat "$stage/cc.log"
    exit 1
fi
out=$(LD_LIBRARY_PATH="$stage$prefix/lib" "$stage/ring" 2>&1) || { echo "FAIL: ring (singleton) failed: $out"; exit 1; }
echo "$out"
echo "$out" | grep -q OK || { echo "FAIL: ring printed no OK"; exit 1; }
echo "installed tree under DESTDIR works"
