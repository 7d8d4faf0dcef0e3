#!/bin/sh
# The layers of docs/architecture.md, checked on the sources (unit tier, no
# build needed):
#   - transport/ includes no public header but rtm_status.h (through
#     transport.h) and no runtime/, mpi/ or launcher/ header, and calls no
#     public API function (rtm_abort, rtm_init, ...);
#   - common/ includes nothing of the layers above it;
#   - runtime/ includes nothing of mpi/ or launcher/.
# mpi/'s own rule is tests/mpi/mpi_includes.sh; the runtime's internal graph
# is tests/unit/runtime_layers.sh.
top=${top_srcdir:?}
bad=0
say() { echo "FAIL: $*"; }
# report OUTPUT: print a check's failures; any line fails the test
report() { [ -z "$1" ] || { echo "$1" >&2; bad=1; }; }

includes() {   # includes DIR: "file:line name" for every #include "..."
    find "$top/$1" -name '*.[ch]' | sort | while read -r f; do
        grep -n '^[[:space:]]*#[[:space:]]*include[[:space:]]*"' "$f" |
            sed "s|^\([0-9]*\):[^\"]*\"\([^\"]*\)\".*|${f#$top/}:\1 \2|"
    done
}

report "$(includes transport | while read -r where name; do
    case "$name" in
        rtmsg.h|mpi.h|runtime/*|mpi/*|launcher/*|*../*)
            say "$where includes \"$name\": a transport sees transport/transport.h, its own headers and common/ only" ;;
    esac
done)"
# the public API: functions rtmsg.h declares, called anywhere under
# transport/. Those common/ implements (rtm_strerror, rtm_last_error: the
# error detail every layer shares) are common's services, not the API's.
api=$(sed -n 's/^[a-z_ ]*[ *]\(rtm_[a-z_0-9]*\)(.*/\1/p' "$top/include/rtmsg.h" | sort -u)
for fn in $api; do
    grep -q "^[a-z_ ]*[ *]$fn(" "$top"/common/*.c && continue
    hits=$(grep -rn --include='*.[ch]' "\\b$fn *(" "$top/transport" | grep -v '^\s*\*' )
    if [ -n "$hits" ]; then
        echo "$hits" | sed "s|^$top/||; s|^|FAIL: calls the public API ($fn): |" >&2
        bad=1
    fi
done
report "$(includes common | while read -r where name; do
    case "$name" in
        runtime/*|transport/*|mpi/*|launcher/*|rtmsg.h|mpi.h)
            say "$where includes \"$name\": common/ uses no layer above it" ;;
    esac
done)"
report "$(includes runtime | while read -r where name; do
    case "$name" in
        mpi/*_config.h|launcher/*_config.h)
            # rt_config.c registers every component's table (data only), so
            # rtm_info and the unknown-variable check know every row
            case "$where" in runtime/rt_config.c:*) ;; *)
                say "$where includes \"$name\": only rt_config.c lists other components' tables" ;; esac ;;
        launcher/*) say "$where includes \"$name\": the library does not use the launcher" ;;
        mpi/*) say "$where includes \"$name\": the runtime is below the MPI binding" ;;
    esac
done)"
[ $bad -eq 0 ] && echo "layers: PASS"
exit $bad
