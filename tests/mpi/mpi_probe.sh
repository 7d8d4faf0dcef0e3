#!/bin/bash
# mpi_probe_credits (a probe, or a receive posted first, for a message sent
# behind 63, 64, 65 and 1000 blocking sends it has not received yet; the
# non-overtaking order) on shm as a singleton, at 2 and 3 ranks; over tcp;
# over verbs on softib. A hang meets rtrun's --timeout (or t_job's bound).
. "$top_srcdir/tests/mpi/common.sh"
require_rtrun
run_everywhere mpi_probe_credits
