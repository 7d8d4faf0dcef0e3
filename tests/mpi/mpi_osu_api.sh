#!/bin/sh
# mpi_osu_api (the API the OSU Micro-Benchmarks 7.x use) on 1, 2 and 4
# ranks; and no MPI-4 name in mpi.h or among the library's symbols:
# configure scripts (OSU's among them) probe for MPI_Session_init and
# would build code we cannot run.
. "$top_srcdir/tests/mpi/common.sh"
require_rtrun
for np in 1 2 4; do
    run_np $np mpi_osu_api
done
# Benchmarks build with warnings on; the same source through our mpicc
# with -Wall -Wextra -Werror -O2 (gcc 12 flagged MPI_UNWEIGHTED when it
# was a constant cast to a pointer).
tmp=$(mktemp -d /tmp/rtm-osuapi.XXXXXX) || exit 1
trap 'rm -rf "$tmp"' EXIT
if ! "$top_builddir/tests/mpi/mpicc" -std=c11 -Wall -Wextra -Werror -O2 -I"$top_srcdir/tests/mpi" \
        -I"$top_srcdir" \
        -o "$tmp/osu_api" "$top_srcdir/tests/mpi/mpi_osu_api.c"; then
    echo "FAIL: mpi_osu_api.c does not build warning-free with mpicc -Wall -Wextra -Werror -O2" >&2
    exit 1
fi
"$RTRUN" -n 2 --timeout 120 "$tmp/osu_api" || { echo "FAIL: mpicc-built mpi_osu_api" >&2; exit 1; }
if grep -n 'MPI_Session\|MPI_Isendrecv\|MPI_Comm_create_from_group\|MPI_Psend_init' \
        "$top_srcdir/include/mpi.h"; then
    echo "FAIL: mpi.h names MPI-4 functions or types (above) that are not implemented" >&2
    exit 1
fi
lib="$top_builddir/.libs/librtmsg.so"
if command -v nm >/dev/null 2>&1 && [ -f "$lib" ]; then
    if nm -D --defined-only "$lib" | grep -E ' P?MPI_(Session_|Isendrecv|Psend_init)'; then
        echo "FAIL: librtmsg exports MPI-4 symbols (above)" >&2
        exit 1
    fi
fi
echo "mpi_osu_api: PASS"
