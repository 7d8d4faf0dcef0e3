#!/bin/bash
# Open MPI's openib BTL (pml ob1, btl openib,self) on softib through
# softib-run, 2 and 4 ranks: a byte-checked ping-pong 0 B-4 MiB and an
# alltoall; with and without eager RDMA. openib needs only softib's sysfs
# tree (SYSFS_PATH), no root.
. "$top_srcdir/tests/softib/peer_mpi_lib.sh"
sib_need mpirun.openmpi
peer_build mpicc.openmpi peer_ompi
root=()
[ "$(id -u)" = 0 ] && root=(--allow-run-as-root)
for run in 2:1 2:0 4:1; do
    np=${run%:*} erdma=${run#*:}
    peer_job openib-np$np-erdma$erdma mpirun.openmpi "${root[@]}" --oversubscribe -np $np \
        --mca pml ob1 --mca btl openib,self --mca btl_openib_allow_ib 1 \
        --mca btl_openib_warn_no_device_params_found 0 \
        --mca btl_openib_use_eager_rdma $erdma "$SIB_TMP/peer_ompi"
done
