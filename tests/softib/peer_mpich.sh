#!/bin/bash
# MPICH (ch4:ucx) on softib through softib-run, 2 and 4 ranks, every rank
# treated as remote (MPIR_CVAR_NOLOCAL=1, so shared memory carries
# nothing): a byte-checked ping-pong, an alltoall, one-sided
# put/get/fetch-and-op; over rc_verbs and over ud_verbs alone. Root: UCX
# wants the device node softib-run makes.
. "$top_srcdir/tests/softib/peer_mpi_lib.sh"
sib_need mpirun.mpich
peer_need_ucx_node
peer_build mpicc.mpich peer_mpich
export UCX_NET_DEVICES=softib0:1 MPIR_CVAR_NOLOCAL=1 UCX_WARN_UNUSED_ENV_VARS=n
for np in 2 4; do
    UCX_TLS=rc_verbs,ud_verbs,self peer_job mpich-rc-np$np mpirun.mpich -n $np "$SIB_TMP/peer_mpich" rma
done
UCX_TLS=ud_verbs,self peer_job mpich-ud-np2 mpirun.mpich -n 2 "$SIB_TMP/peer_mpich"
