#!/bin/bash
# softib-run itself: CMD runs with libsoftib preloaded (ibv_devices lists
# softib0), SYSFS_PATH holds softib's sysfs tree (class/infiniband/softib0
# with node_guid equal to ibv_devinfo's, port 1 ACTIVE, link layer, GID 0
# and its type, numa_node), libibverbs' ibv_get_sysfs_path() is that tree
# (the file Open MPI checks), CMD's exit code comes back, a SOFTIB_DIR it
# made is gone afterwards; as root /dev/infiniband/uverbs_softib0 is a
# character device for CMD and nothing of it is left outside.
. "$top_srcdir/tests/softib/acceptance.sh"
sib_need ibv_devices ibv_devinfo
SIB_VIA_RUN=1
R="env SOFTIB_LIB=$SIB_PRELOAD $top_builddir/softib-run"

sib_run ibv_devices > "$SIB_TMP/devices" 2>&1 || sib_fail "ibv_devices failed"
grep -q softib0 "$SIB_TMP/devices" || sib_fail "ibv_devices does not list softib0"

# shellcheck disable=SC2016
files="node_guid ports/1/state ports/1/phys_state ports/1/link_layer ports/1/lid"
files="$files ports/1/gids/0 ports/1/gid_attrs/types/0 device/numa_node"
sib_run sh -c 'd=$SYSFS_PATH/class/infiniband/softib0; for f in $1; do
    printf "%s=" $f; cat $d/$f || exit 1; done' sh "$files" \
    > "$SIB_TMP/sysfs.out" 2>&1 || { cat "$SIB_TMP/sysfs.out" >&2; sib_fail "sysfs tree incomplete"; }
cat "$SIB_TMP/sysfs.out"
grep -qx 'ports/1/state=4: ACTIVE' "$SIB_TMP/sysfs.out" || sib_fail "port state"
grep -qx 'ports/1/link_layer=InfiniBand' "$SIB_TMP/sysfs.out" || sib_fail "link layer"
grep -qx 'ports/1/gid_attrs/types/0=IB/RoCE v1' "$SIB_TMP/sysfs.out" || sib_fail "GID type"
guid=$(sib_run ibv_devinfo | awk '/node_guid/ { print $2 }')
grep -qx "node_guid=$guid" "$SIB_TMP/sysfs.out" || sib_fail "node_guid is not ibv_devinfo's ($guid)"
grep -q '^ports/1/gids/0=fe80:0000:0000:0000:' "$SIB_TMP/sysfs.out" || sib_fail "GID 0"

# what libibverbs (and so Open MPI's openib) takes as the sysfs root
cat > "$SIB_TMP/sysfs_path.c" <<'C'
#include <infiniband/verbs.h>
#include <stdio.h>
extern const char *ibv_get_sysfs_path(void);
int main(void) { puts(ibv_get_sysfs_path()); return 0; }
C
if cc -o "$SIB_TMP/sysfs_path" "$SIB_TMP/sysfs_path.c" -libverbs 2>"$SIB_TMP/cc.log"; then
    # shellcheck disable=SC2016
    got=$(sib_run sh -c '"$1"; echo "$SYSFS_PATH"' sh "$SIB_TMP/sysfs_path")
    [ "$(echo "$got" | sed -n 1p)" = "$(echo "$got" | sed -n 2p)" ] ||
        sib_fail "ibv_get_sysfs_path() is not SYSFS_PATH: $got"
    echo "ok: ibv_get_sysfs_path() = $(echo "$got" | sed -n 1p)"
fi

sib_run sh -c 'exit 7'
[ $? = 7 ] || sib_fail "the exit code of CMD did not come back"

# a SOFTIB_DIR of its own is removed afterwards
# shellcheck disable=SC2016
made=$(env -u SOFTIB_DIR $R sh -c 'echo "$SOFTIB_DIR"')
[ -n "$made" ] && [ ! -e "$made" ] || sib_fail "softib-run left its SOFTIB_DIR $made"

if [ "$(id -u)" = 0 ]; then
    sib_run sh -c 'test -c /dev/infiniband/uverbs_softib0 && test -r /dev/infiniband/uverbs_softib0 &&
        test -c /dev/null && test -d /dev/shm && test -d /dev/pts' ||
        sib_fail "no device node (or /dev incomplete) under softib-run as root"
    [ -e /dev/infiniband/uverbs_softib0 ] && sib_fail "the device node leaked out of the namespace"
    echo "ok: /dev/infiniband/uverbs_softib0 inside, nothing outside"
fi
echo "ok: softib-run"
