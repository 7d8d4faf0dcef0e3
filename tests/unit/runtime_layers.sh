#!/bin/sh
# The runtime core's modules form a DAG. A module is a .c file and its
# private header next to it (runtime/foo.c + runtime/foo.h); runtime.h is
# tl.c's own include, so it counts as module tl. Module A depends on B when
# a file of A has #include "runtime/B.h". Any cycle fails the test and is
# printed, as a chain of modules.
#
# If the library's objects are built (make check builds them first), the
# same check runs on the call graph: A calls B when an object of A needs a
# function that an object of B defines (nm).
#
# Also: rtm_rt.state is compared with its named values, never a number.
#
# Usage: runtime_layers.sh [srcdir]   (default: $srcdir, or the script's ../..)
set -eu

top=${1:-${srcdir:-$(dirname "$0")/../..}}
rtdir="$top/runtime"
edges=$(mktemp)
trap 'rm -f "$edges" "$edges.calls" "$edges.defs"' EXIT
[ -n "${RUNTIME_LAYERS_DEBUG:-}" ] && trap - EXIT

module_of() {
    m=$(basename "$1")
    m=${m%.*}
    if [ "$m" = runtime ]; then m=tl; fi
    echo "$m"
}

for f in "$rtdir"/*.c "$rtdir"/*.h; do
    if [ "$(basename "$f")" = rtm_info.c ]; then continue; fi   # a program, not the library
    from=$(module_of "$f")
    sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"runtime\/\([a-z_0-9]*\)\.h".*/\1/p' "$f" |
        while read -r to; do
            if [ "$to" = runtime ]; then to=tl; fi
            if [ "$to" != "$from" ]; then echo "$from $to"; fi
        done
done | sort -u > "$edges"

# Prints one cycle of the graph in $1 (lines "from to") and fails, or
# succeeds silently. Depth-first search with colours, in awk.
find_cycle() {
    awk -v what="$2" '
    { adj[$1] = adj[$1] " " $2; nodes[$1] = 1; nodes[$2] = 1 }
    function dfs(n,    list, i, k, m, c) {
        colour[n] = 1; stack[++depth] = n
        k = split(adj[n], list, " ")
        for (i = 1; i <= k; i++) {
            m = list[i]
            if (colour[m] == 1) {
                c = m
                for (j = depth; j >= 1 && stack[j] != m; j--) c = stack[j] " -> " c
                printf "runtime_layers: %s cycle: %s -> %s\n", what, m, substr(c, length(m) + 5) == "" ? m : c
                found = 1
                return 1
            }
            if (colour[m] == 0 && dfs(m)) return 1
        }
        colour[n] = 2; depth--
        return 0
    }
    END {
        for (n in nodes) if (colour[n] == 0 && dfs(n)) exit 1
        exit 0
    }' "$1"
}

status=0
# The library's state is tested by name (rt.h's rtm_rt_state_t), never by number.
if grep -nE 'state *[!=]= *[0-9]' "$rtdir"/*.c "$rtdir"/*.h; then
    echo "runtime_layers: compare rtm_rt.state with RT_NEVER/RT_READY/RT_FINALIZED (rt.h)"
    status=1
fi
find_cycle "$edges" include || status=1
echo "runtime_layers: $(wc -l < "$edges") include edges between $(tr ' ' '\n' < "$edges" | sort -u | wc -l) modules"

# Call graph, from the objects libtool built (PIC objects of librtmsg).
objdir=runtime/.libs
if [ -d "$objdir" ] && ls "$objdir"/librtmsg_la-*.o > /dev/null 2>&1; then
    : > "$edges.defs"
    : > "$edges.calls"
    for o in "$objdir"/librtmsg_la-*.o; do
        m=$(basename "$o" .o)
        m=${m#librtmsg_la-}
        if [ ! -f "$rtdir/$m.c" ]; then continue; fi
        nm -P "$o" | awk -v m="$m" '$2 == "T" { print $1, m }' >> "$edges.defs"
        nm -P "$o" | awk -v m="$m" '$2 == "U" { print m, $1 }' >> "$edges.calls"
    done
    awk 'NR == FNR { def[$1] = $2; next }
         ($2 in def) && def[$2] != $1 { print $1, def[$2] }' "$edges.defs" "$edges.calls" |
        sort -u > "$edges.calls.g"
    mv "$edges.calls.g" "$edges.calls"
    find_cycle "$edges.calls" call || status=1
    echo "runtime_layers: $(wc -l < "$edges.calls") call edges between runtime modules"
fi
exit $status
