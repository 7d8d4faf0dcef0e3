#!/bin/bash
# Open MPI's pml ucx and osc ucx over UCX's rc_verbs (ud_verbs for wireup)
# on softib through softib-run, 2 and 4 ranks: a byte-checked ping-pong,
# an alltoall, and one-sided put/get/fetch-and-op. Root: UCX wants the
# device node softib-run makes in a private mount namespace.
. "$top_srcdir/tests/softib/peer_mpi_lib.sh"
sib_need mpirun.openmpi
peer_need_ucx_node
peer_build mpicc.openmpi peer_ompi
export UCX_NET_DEVICES=softib0:1 UCX_TLS=rc_verbs,ud_verbs,self UCX_WARN_UNUSED_ENV_VARS=n
for np in 2 4; do
    peer_job ucx-np$np mpirun.openmpi --allow-run-as-root --oversubscribe -np $np \
        --mca pml ucx --mca osc ucx --mca btl self "$SIB_TMP/peer_ompi" rma
done
