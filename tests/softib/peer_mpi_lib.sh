# Sourced by the peer_*.sh tests: other MPI implementations (Debian's Open
# MPI and MPICH) run tests/softib/peer_mpi.c on softib, unmodified, through
# this build's softib-run. Provides peer_build MPICC NAME and
# peer_job NAME NP MPIRUN_ARGS... (bounded; passes when the job exits 0 and
# rank 0 printed "peer_mpi: ok").
. "$top_srcdir/tests/softib/acceptance.sh"
SIB_VIA_RUN=1
# With the ASan runtime preloaded (a sanitizer build of libsoftib), Open
# MPI's memory patcher (it rewrites munmap & co. for openib's registration
# cache) leaves a jump into unloaded code behind, and the uninstrumented
# ranks die at exit in it (SEGV at a non-executable address, with or without
# softib's verbs calls): turn the patcher off there only.
if [ "$SIB_PRELOAD" != "$SIB_LIB" ]; then
    export OMPI_MCA_memory=^patcher
fi
PEER_LIMIT=${RTMTEST_TIMEOUT:-300}
[ "$PEER_LIMIT" -gt 240 ] && PEER_LIMIT=240

peer_build() {
    local cc=$1 name=$2
    sib_need "$cc"
    "$cc" -O1 -o "$SIB_TMP/$name" "$top_srcdir/tests/softib/peer_mpi.c" \
        >"$SIB_TMP/$name.cc" 2>&1 || { cat "$SIB_TMP/$name.cc" >&2; sib_fail "$cc failed"; }
}

# UCX sees softib0 only through the device node softib-run makes as root
peer_need_ucx_node() {
    t_need_root "UCX on softib (the device node /dev/infiniband/uverbs_softib0)"
}

peer_job() {
    local name=$1 rc
    shift
    t_job "$PEER_LIMIT" env SOFTIB_LIB="$SIB_PRELOAD" "$top_builddir/softib-run" "$@" \
        >"$SIB_TMP/$name.log" 2>&1
    rc=$?
    if [ $rc != 0 ] || ! grep -q '^peer_mpi: ok' "$SIB_TMP/$name.log"; then
        cat "$SIB_TMP/$name.log" >&2
        sib_fail "$name: exit $rc"
    fi
    grep '^peer_mpi: ok' "$SIB_TMP/$name.log" | sed "s/^/$name: /"
}
