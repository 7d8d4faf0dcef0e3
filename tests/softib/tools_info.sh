#!/bin/bash
# ibv_devices and ibv_devinfo -v see softib's device and port, in
# InfiniBand and in Ethernet (RoCE-style) mode, and a port held DOWN by
# SOFTIB_PORT_STATE (no LID, physical state Disabled).
. "$top_srcdir/tests/softib/acceptance.sh"
sib_need ibv_devices ibv_devinfo

out=$(sib_run ibv_devices) || sib_fail "ibv_devices exited $?"
echo "$out"
echo "$out" | grep -Eq '^[[:space:]]*softib0[[:space:]]+[0-9a-f]{16}$' || sib_fail "ibv_devices does not list softib0"

out=$(sib_run ibv_devinfo -v) || sib_fail "ibv_devinfo -v exited $?"
echo "$out"
for want in 'hca_id:[[:space:]]+softib0' 'vendor_id:[[:space:]]+0x5f7b1b' \
            'state:[[:space:]]+PORT_ACTIVE' 'link_layer:[[:space:]]+InfiniBand' \
            'XRC' 'max_qp_wr:[[:space:]]+16384' 'GID\[  0\]:[[:space:]]+fe80:'; do
    echo "$out" | grep -Eq "$want" || sib_fail "ibv_devinfo -v: no '$want'"
done
lid=$(echo "$out" | sed -n 's/.*port_lid:[[:space:]]*//p')
[ -n "$lid" ] && [ "$lid" != 0 ] || sib_fail "port_lid is '$lid'"

out=$(SOFTIB_LINK=eth sib_run ibv_devinfo -v) || sib_fail "ibv_devinfo -v (eth) exited $?"
echo "$out" | grep -Eq 'link_layer:[[:space:]]+Ethernet' || sib_fail "eth mode: link layer"
echo "$out" | grep -Eq 'GID\[  1\]:[[:space:]]+::ffff:127\.83\.' || sib_fail "eth mode: no IPv4-mapped GID"
out=$(SOFTIB_PORT_STATE=down sib_run ibv_devinfo -v) || sib_fail "ibv_devinfo -v (port down) exited $?"
for want in 'state:[[:space:]]+PORT_DOWN' 'phys_state:[[:space:]]+DISABLED' 'port_lid:[[:space:]]+0$'; do
    echo "$out" | grep -Eq "$want" || sib_fail "port down: ibv_devinfo -v: no '$want'"
done
echo "ok: tools_info"
