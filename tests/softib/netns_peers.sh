#!/bin/bash
# The other MPI stacks, unmodified through softib-run, across two network
# namespace hosts joined by a veth pair (issue 17): MPICH over UCX (hydra's
# ssh launcher replaced by `ip netns exec`), Open MPI ob1/openib and Open
# MPI pml ucx (plm_rsh_agent the same), each running tests/softib/peer_mpi.c
# (a byte-checked ping-pong and alltoall; one-sided through pml ucx) with
# one rank per host (host names with hyphens: Open MPI refuses `_`). The hosts share the machine's hostname, so MPICH is
# told not to use shared memory (MPIR_CVAR_NOLOCAL) and Open MPI's openib
# is the only byte transport besides self; the veth counters show each
# job's traffic crossed the link.
. "$top_srcdir/tests/softib/peer_mpi_lib.sh"
sib_need ip mpirun.openmpi mpiexec.mpich mpicc.openmpi mpicc.mpich
peer_need_ucx_node

ns_a=sibp-a-$$
ns_b=sibp-b-$$
sib_netns_hosts $ns_a $ns_b vethpa$$ vethpb$$ 10.213.9

# ssh as the launchers call it ([options] HOST COMMAND...), into a
# namespace, with a TMPDIR of the host's own (the hosts share the hostname,
# so Open MPI's session directories, named after it, would collide)
cat > "$SIB_TMP/agent" <<EOA
#!/bin/bash
while [[ \$1 == -* ]]; do case \$1 in -[opliFbcJLRDWmSEw]) shift 2 ;; *) shift ;; esac; done
h=\$1; shift
mkdir -p "$SIB_TMP/tmp-\$h"
export TMPDIR="$SIB_TMP/tmp-\$h"
exec ip netns exec "\$h" sh -c "\$*"
EOA
chmod +x "$SIB_TMP/agent"
# netns_job NAME MPIRUN_ARGS...: from host A, bounded; rank 0 said ok, and
# host A received on its veth meanwhile at least the payload of peer_mpi's
# pongs (rank 1, on host B, answers each size 0, 1, 4, ..., 4 MiB, 4 MiB + 1
# three times: 29360127 bytes). A packet count was the check before, and a
# run of 966 packets (openib) fell below its 1000: offloads coalesce
# packets, so only the volume is a bound the traffic must reach.
netns_job() {
    local name=$1 rc before after
    shift
    before=$(sib_rx_bytes)
    t_job "$PEER_LIMIT" ip netns exec $ns_a env SOFTIB_LIB="$SIB_PRELOAD" \
        "$top_builddir/softib-run" "$@" >"$SIB_TMP/$name.log" 2>&1
    rc=$?
    after=$(sib_rx_bytes)
    if [ $rc != 0 ] || ! grep -q '^peer_mpi: ok' "$SIB_TMP/$name.log"; then
        cat "$SIB_TMP/$name.log" >&2
        sib_fail "$name: exit $rc"
    fi
    echo "$name: $(grep '^peer_mpi: ok' "$SIB_TMP/$name.log"); $((after - before)) bytes into host A"
    [ $((after - before)) -ge 29360127 ] || sib_fail "$name: the traffic did not cross the veth link"
}

peer_build mpicc.mpich peer_mpich
peer_build mpicc.openmpi peer_ompi
export UCX_NET_DEVICES=softib0:1 UCX_TLS=rc_verbs,ud_verbs,self UCX_WARN_UNUSED_ENV_VARS=n
MPIR_CVAR_NOLOCAL=1 netns_job mpich-ucx mpiexec.mpich -launcher ssh -launcher-exec "$SIB_TMP/agent" \
    -iface vethpa$$ -hosts $ns_a,$ns_b -n 2 "$SIB_TMP/peer_mpich"
ompi=(mpirun.openmpi --allow-run-as-root --host $ns_a,$ns_b -n 2
      --mca plm_rsh_agent "$SIB_TMP/agent" --mca oob_tcp_if_include 10.213.9.0/30)
netns_job ompi-openib "${ompi[@]}" --mca pml ob1 --mca btl openib,self --mca btl_openib_allow_ib 1 \
    --mca btl_openib_warn_no_device_params_found 0 "$SIB_TMP/peer_ompi"
netns_job ompi-ucx "${ompi[@]}" --mca pml ucx --mca osc ucx --mca btl self "$SIB_TMP/peer_ompi" rma
echo "ok: netns peers"
