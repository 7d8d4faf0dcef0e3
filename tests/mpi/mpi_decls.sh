#!/bin/sh
# mpi.h and the Fortran binding declare nothing that is not implemented
# (issue 14): configure scripts probe for names and build code paths on
# what they find.
#  - every function mpi.h declares (MPI_x and PMPI_x) is exported by
#    librtmsg.so;
#  - every object-like MPI_ macro of mpi.h is a usable value: a C (and,
#    when there is a C++ compiler, a C++) program using each one (its
#    address taken where it names an object or a function) compiles and
#    links against librtmsg, and every extern object mpi.h declares is
#    exported;
#  - no MPI_/PMPI_ (or Fortran mpi_/pmpi_) function of mpi/ is a stub: a
#    body that only returns an error, or that says it is unsupported or
#    not implemented;
#  - every routine the Fortran binding declares (mpif.h's EXTERNALs and
#    COMMON blocks, the interfaces of the mpi and mpi_f08 modules, their
#    BIND(C) variables) is exported by librtmsg_mpifh.so (or librtmsg.so,
#    for the few mpi_f08 binds to C's own functions).
# Each check is then run on a copy with one bogus declaration added, and
# must fail there: the test shows that it catches what it is for.
. "$top_srcdir/tests/mpi/common.sh"
lib="$top_builddir/.libs/librtmsg.so"
flib="$top_builddir/.libs/librtmsg_mpifh.so"
[ -f "$lib" ] || t_skip "$lib not built"
command -v nm >/dev/null 2>&1 || t_skip "no nm"
tmp=$(mktemp -d /tmp/rtm-decls.XXXXXX) || exit 1
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
cc=${CC:-cc}

nm -D --defined-only "$lib" | awk '{ print $NF }' | sort -u > "$tmp/exported"
[ "$(wc -l < "$tmp/exported")" -gt 500 ] || fail "nm -D $lib lists too few symbols"

# all_exported NAMES EXPORTED MIN WHERE LIB: more than MIN names (else the
# extraction is broken), each in EXPORTED; sets n.
all_exported() {
    n=$(wc -l < "$1")
    [ "$n" -gt "$3" ] || { echo "only $n names found in $4: the extraction is broken"; return 1; }
    missing=$(comm -23 "$1" "$2" | tr '\n' ' ')
    [ -z "$missing" ] || { echo "declared in $4, not defined by $5: $missing"; return 1; }
}

# c_functions HEADER: the functions HEADER declares are exported.
c_functions() {
    $cc -E -P -DRTMPI_NO_DEPRECATION_WARNINGS -I"$top_srcdir/include" "$1" > "$tmp/pp" ||
        return 1
    grep -oE '\bP?MPI_[A-Za-z0-9_]+[[:space:]]*\(' "$tmp/pp" | tr -d ' (' | sort -u \
        > "$tmp/declared"
    # ... minus the typedef'd function types (MPI_User_function, ...)
    grep -oE 'typedef[^;]*\bMPI_[A-Za-z0-9_]+[[:space:]]*\(' "$tmp/pp" |
        grep -oE 'MPI_[A-Za-z0-9_]+[[:space:]]*\($' | tr -d ' (' | sort -u > "$tmp/typedefs"
    comm -23 "$tmp/declared" "$tmp/typedefs" > "$tmp/functions"
    all_exported "$tmp/functions" "$tmp/exported" 600 "mpi.h" "librtmsg.so" || return 1
    echo "mpi.h: all $n declared functions (MPI_ and PMPI_) are exported"
}

# c_constants HEADER: every object-like MPI_ macro is a value a program can
# use and link; every extern object is exported.
c_constants() {
    $cc -E -dM -DRTMPI_NO_DEPRECATION_WARNINGS -I"$top_srcdir/include" "$1" |
        sed -n 's/^#define \(MPI_[A-Za-z0-9_]*\) .*/\1/p' | sort -u > "$tmp/macros"
    n=$(wc -l < "$tmp/macros")
    [ "$n" -gt 250 ] || { echo "only $n MPI_ macros in $1: the extraction is broken"; return 1; }
    {
        echo '#include <mpi.h>'
        echo '#ifdef __cplusplus'
        echo '#define AUTO auto'
        echo 'extern "C" void rtm_decls_use(const void *p, unsigned long n);'
        echo '#else'
        echo '#define AUTO __auto_type'
        echo 'void rtm_decls_use(const void *p, unsigned long n);'
        echo '#endif'
        echo 'int main(void)'
        echo '{'
        while read -r m; do
            echo "    { AUTO v = ($m); rtm_decls_use(&v, sizeof v); }"
        done < "$tmp/macros"
        echo '    return 0;'
        echo '}'
        echo 'void rtm_decls_use(const void *p, unsigned long n) { (void)p; (void)n; }'
    } > "$tmp/consts.c"
    mkdir -p "$tmp/inc" && cp "$1" "$tmp/inc/mpi.h"
    # in C, and in C++ when there is a C++ compiler (mpi.h serves both)
    cp "$tmp/consts.c" "$tmp/consts.cc"
    langs=
    for lang in c c++; do
        if [ $lang = c ]; then
            # shellcheck disable=SC2086
            set -- $cc -std=gnu11 "$tmp/consts.c"
        else
            command -v "${CXX:-c++}" >/dev/null 2>&1 || continue
            set -- "${CXX:-c++}" -std=c++11 "$tmp/consts.cc"
        fi
        if ! "$@" -Wall -Werror -Wno-unused -DRTMPI_NO_DEPRECATION_WARNINGS -I"$tmp/inc" \
                -o "$tmp/consts" -L"$top_builddir/.libs" -lrtmsg > "$tmp/consts.log" 2>&1; then
            head -20 "$tmp/consts.log"
            echo "a $lang program using each of mpi.h's $n MPI_ macros does not build or link (above)"
            return 1
        fi
        langs="$langs $lang"
    done
    $cc -E -P -DRTMPI_NO_DEPRECATION_WARNINGS -I"$top_srcdir/include" "$tmp/inc/mpi.h" |
        sed -n 's/^extern [^(]*[ *]\([A-Za-z_][A-Za-z0-9_]*\)[[]*[^(]*;$/\1/p' |
        sort -u > "$tmp/objects"
    [ -s "$tmp/objects" ] || { echo "no extern object found in $1: the extraction is broken"; return 1; }
    missing=$(comm -23 "$tmp/objects" "$tmp/exported" | tr '\n' ' ')
    [ -z "$missing" ] || { echo "extern in mpi.h, not defined by librtmsg.so: $missing"; return 1; }
    echo "mpi.h: all $n MPI_ macros build and link (in:$langs); its $(wc -l < "$tmp/objects") extern objects are exported"
}

# stubs FILE...: MPI entry points whose body does nothing but fail.
stubs() {
    awk '
    FNR == 1 { infn = 0 }
    !infn && /^[A-Za-z].*[ *]([Pp]?MPI_|[p]?mpi_)[A-Za-z0-9_]+\(/ && !/;[[:space:]]*$/ {
        infn = 1; body = ""; name = $0; sub(/\(.*/, "", name); sub(/.*[ *]/, "", name)
        where = FILENAME ":" FNR; next
    }
    infn == 1 && /;[[:space:]]*$/ && !/^[[:space:]]*{/ { infn = 0; next }   # a prototype
    infn == 1 && /^{/ { infn = 2; next }
    infn == 2 && /^}/ {
        infn = 0; nfn++
        b = body
        gsub(/\/\*([^*]|\*+[^*\/])*\*+\//, "", b)           # comments
        gsub(/\(void\)[[:space:]]*[A-Za-z_][A-Za-z0-9_]*[[:space:]]*;/, "", b)
        gsub(/[[:space:]]+/, " ", b)
        nst = gsub(/;/, ";", b)
        if (b ~ /UNSUPPORTED_OPERATION|NOT_SUPPORTED|[Nn]ot (yet )?implemented|[Uu]nimplemented|ENOSYS/ ||
            (nst == 1 && b ~ /^ *return [^;]*(MPI_ERR_|RTM_ERR_)[^;]*; *$/))
            print where ": " name ": a stub (its body only fails):" b
        next
    }
    infn == 2 { body = body " " $0 }
    END { print nfn + 0 > "/dev/stderr" }
    ' "$@" > "$tmp/stubs" 2> "$tmp/nbodies"
    if [ -s "$tmp/stubs" ]; then
        cat "$tmp/stubs"
        echo "stubs above: implement them, or remove them from mpi.h and list them in docs/mpi.md"
        return 1
    fi
    nb=$(cat "$tmp/nbodies")
    [ "$#" -eq 1 ] || [ "$nb" -gt 600 ] ||
        { echo "only $nb function bodies found: the extraction is broken"; return 1; }
    echo "no stub among the $nb MPI functions defined in $# source files"
}

# fortran_names FILE...: the linker names of what the Fortran sources
# declare as external (procedures in interfaces, EXTERNAL and PROCEDURE()
# statements, COMMON blocks, BIND(C) variables), one per line.
fortran_names() {
    awk '
    function lc(s) { return tolower(s) }
    function bindname(s, dflt,   t) {
        if (s !~ /[Bb][Ii][Nn][Dd][[:space:]]*\([[:space:]]*[Cc]/) return dflt
        t = s
        if (t ~ /[Nn][Aa][Mm][Ee][[:space:]]*=[[:space:]]*"/) {
            sub(/.*[Nn][Aa][Mm][Ee][[:space:]]*=[[:space:]]*"/, "", t); sub(/".*/, "", t)
            return t
        }
        return ""   # BIND(C) without a name: the lowercase Fortran name
    }
    {
        line = $0
        if (cont != "") { sub(/^[[:space:]]*&?/, "", line); line = cont line; cont = "" }
        if (FILENAME ~ /mpif\.h$/ && line ~ /^[Cc!*]/) next    # fixed form comments
        sub(/[[:space:]]*!.*/, "", line)
        if (line ~ /&[[:space:]]*$/) { sub(/&[[:space:]]*$/, "", line); cont = line; next }
        u = toupper(line)
        if (u ~ /^[[:space:]]*ABSTRACT[[:space:]]+INTERFACE/) { abstract = 1; next }
        if (u ~ /^[[:space:]]*END[[:space:]]+INTERFACE/) { abstract = 0; iface = 0; depth = 0; next }
        if (u ~ /^[[:space:]]*INTERFACE/) { iface = 1; depth = 0; next }
        if (abstract) next
        if (iface && u ~ /^[[:space:]]*END[[:space:]]+(SUBROUTINE|FUNCTION)/) { depth--; next }
        if (iface && depth == 0 && u ~ /(^|[[:space:]])(SUBROUTINE|FUNCTION)[[:space:]]+[A-Z_][A-Z0-9_]*[[:space:]]*\(/) {
            n = u; sub(/.*(SUBROUTINE|FUNCTION)[[:space:]]+/, "", n); sub(/[[:space:]]*\(.*/, "", n)
            b = bindname(line, "?")
            print (b == "?" ? lc(n) "_" : (b == "" ? lc(n) : b))
            depth++; next
        }
        if (iface) next
        if (u ~ /^[[:space:]]*COMMON[[:space:]]*\//) {
            n = line; sub(/^[^\/]*\//, "", n); sub(/\/.*/, "", n); print lc(n) "_"; next
        }
        if (u ~ /(^[[:space:]]*|,[[:space:]]*)EXTERNAL([[:space:]]|::)/) {
            n = line; sub(/.*[Ee][Xx][Tt][Ee][Rr][Nn][Aa][Ll][[:space:]]*(::)?/, "", n)
            k = split(n, a, /[[:space:],]+/)
            for (i = 1; i <= k; i++) if (a[i] != "") print lc(a[i]) "_"
            next
        }
        if (u ~ /^[[:space:]]*PROCEDURE[[:space:]]*\(.*::/) {
            n = line; sub(/.*::/, "", n)
            k = split(n, a, /[[:space:],]+/)
            for (i = 1; i <= k; i++) if (a[i] != "") print lc(a[i]) "_"
            next
        }
        if (u ~ /::/ && u ~ /BIND[[:space:]]*\([[:space:]]*C[[:space:]]*,[[:space:]]*NAME/ &&
            u !~ /^[[:space:]]*TYPE[[:space:]]*,/) {
            print bindname(line, ""); next
        }
    }' "$@" | sort -u
}

# fortran_symbols FILE...: each name the Fortran files declare is exported.
fortran_symbols() {
    fortran_names "$@" > "$tmp/fnames"
    all_exported "$tmp/fnames" "$tmp/fexported" 800 "the Fortran binding" \
        "librtmsg_mpifh.so or librtmsg.so" || return 1
    echo "Fortran: all $n names that mpif.h and the mpi, mpi_f08 modules declare are exported"
}

# expect_fail WHAT CMD...: CMD must fail (it is given a bogus declaration).
expect_fail() {
    what=$1; shift
    if "$@" > "$tmp/neg.log" 2>&1; then
        cat "$tmp/neg.log" >&2
        fail "the check did not catch $what"
    fi
    echo "  (caught $what: $(tail -1 "$tmp/neg.log" | cut -c1-100))"
}

# -- C: mpi.h.
hdr="$top_srcdir/include/mpi.h"
c_functions "$hdr" || fail "mpi.h functions"
c_constants "$hdr" || fail "mpi.h constants"
sed 's|^#endif /\* RTMSG_MPI_H \*/|int MPI_Rtm_decls_bogus(int x);\n&|' "$hdr" > "$tmp/bad1.h"
grep -q Rtm_decls_bogus "$tmp/bad1.h" || fail "could not add a declaration to a copy of mpi.h"
expect_fail "a declared, undefined function" c_functions "$tmp/bad1.h"
sed 's|^#endif /\* RTMSG_MPI_H \*/|extern int rtm_decls_bogus[1];\n#define MPI_DECLS_BOGUS (rtm_decls_bogus)\n&|' \
    "$hdr" > "$tmp/bad2.h"
expect_fail "a constant naming an undefined object" c_constants "$tmp/bad2.h"
sed 's|^#endif /\* RTMSG_MPI_H \*/|#define MPI_DECLS_BOGUS (MPI_Rtm_decls_nothing(0))\n&|' \
    "$hdr" > "$tmp/bad3.h"
expect_fail "a constant that is not a value" c_constants "$tmp/bad3.h"

# -- No stub.
stubs "$top_srcdir"/mpi/*.c "$top_srcdir"/mpi/fortran/*.c || fail "stubs"
cat > "$tmp/stub.c" <<'SRC'
int PMPI_Rtm_decls_bogus(int x)
{
    (void)x;
    /* one day */
    return MPI_ERR_OTHER;
}
void pmpi_rtm_decls_bogus_(MPI_Fint *x, MPI_Fint *ierr)
{
    *ierr = MPI_ERR_UNSUPPORTED_OPERATION;
}
SRC
expect_fail "a stub" stubs "$tmp/stub.c"
cat > "$tmp/stub.c" <<'SRC'
int PMPI_Rtm_decls_bogus(int x)
{
    return rtmpi_error(MPI_COMM_WORLD, "MPI_Rtm_decls_bogus", MPI_ERR_ARG,
                       "x %d", x);
}
SRC
expect_fail "a stub on two lines" stubs "$tmp/stub.c"

# -- Fortran.
if [ -f "$flib" ]; then
    fdir="$top_srcdir/mpi/fortran"
    { nm -D --defined-only "$flib"; nm -D --defined-only "$lib"; } |
        awk '{ print $NF }' | sort -u > "$tmp/fexported"
    ffiles="$fdir/mpif.h $fdir/mpi.f90 $fdir/mpi_ifaces.h $fdir/mpi_f08.f90 $fdir/mpi_f08_ifaces.h"
    # shellcheck disable=SC2086
    fortran_symbols $ffiles || fail "Fortran binding"
    for want in mpi_send_ pmpi_send_f08ts_ pmpi_wtime_ mpi_send_f08ts_ mpi_barrier_f08_ rtm_mpi_f_bottom_ \
            mpi_wtime_ MPI_Wtime mpi_comm_dup_fn_ rtm_f08_comm_eq_ mpi_win_dup_fn_; do
        grep -qx "$want" "$tmp/fnames" || fail "the Fortran extraction misses $want"
    done
    cp "$fdir/mpi_ifaces.h" "$tmp/bad_ifaces.h"
    cat >> "$tmp/bad_ifaces.h" <<'SRC'
  interface
    subroutine MPI_RTM_DECLS_BOGUS(ierror)
      integer :: ierror
    end subroutine MPI_RTM_DECLS_BOGUS
  end interface
SRC
    # shellcheck disable=SC2086
    expect_fail "an undefined Fortran routine" fortran_symbols $ffiles "$tmp/bad_ifaces.h"
    printf '%s\n' '  interface MPI_Rtm_bogus' \
        '    subroutine MPI_Rtm_bogus_f08ts(buf) bind(C, &' \
        '        name="mpi_rtm_bogus_f08ts_")' '      type(*), dimension(..) :: buf' \
        '    end subroutine MPI_Rtm_bogus_f08ts' '  end interface MPI_Rtm_bogus' > "$tmp/bad_f08.h"
    # shellcheck disable=SC2086
    expect_fail "an undefined mpi_f08 BIND(C) routine" fortran_symbols $ffiles "$tmp/bad_f08.h"
else
    echo "librtmsg_mpifh.so not built: the Fortran names are not checked"
fi
echo "mpi_decls: PASS"
