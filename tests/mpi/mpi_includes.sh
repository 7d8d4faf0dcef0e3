#!/bin/sh
# mpi/ sees the public headers and runtime/binding.h only. The compiler
# enforces it for "runtime/x.h" and "transport/x.h" (mpi/local.mk gives mpi/
# no path to them); this catches what an include path cannot: a relative
# path out of mpi/ ("../runtime/runtime.h") and any other header name that
# is not on the list below.
#   config.h, mpi.h, rtmsg.h  the build's configuration, the public API
#   binding.h                 runtime/binding.h
#   common/*                  for now (the RTM_MPI_* config rows; see
#                             mpi/local.mk)
#   a file of mpi/ itself
dir="${top_srcdir:?}/mpi"
bad=0
for f in "$dir"/*.c "$dir"/*.h; do
    grep -n '^[[:space:]]*#[[:space:]]*include[[:space:]]*"' "$f" |
    sed 's/^\([0-9]*\):[^"]*"\([^"]*\)".*/\1 \2/' > "${TMPDIR:-/tmp}/mpi_includes.$$"
    while read -r line name; do
        case "$name" in
            config.h|mpi.h|rtmsg.h|binding.h) continue ;;
            common/*..*) ;;
            common/*) continue ;;
            */*|*..*) ;;
            *) [ -f "$dir/$name" ] && continue ;;
        esac
        echo "FAIL: mpi/$(basename "$f"):$line includes \"$name\": mpi/ may use rtmsg.h," \
             "mpi.h and runtime/binding.h only (see mpi/local.mk)" >&2
        bad=1
    done < "${TMPDIR:-/tmp}/mpi_includes.$$"
done
rm -f "${TMPDIR:-/tmp}/mpi_includes.$$"
[ $bad -eq 0 ] && echo "mpi/ includes: PASS"
exit $bad
