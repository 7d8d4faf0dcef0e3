#!/bin/sh
# An mpi_f08 entry point given a non-contiguous section of zero-length
# elements (tests/fortran/f_f08zero.c, a C program calling the f08 entry
# points with a CFI descriptor, linked by mpifort): no division by the
# element length. Skips while mpifort has no mpi_f08.
. "${top_srcdir:?run through make check (top_srcdir unset)}/tests/fortran/flib.sh"
f_need_f08
command -v "$MPICC" >/dev/null 2>&1 || t_die "no C wrapper ($MPICC)"
cflags="-std=c11 -O2 -Wall -Wextra -Werror"
case "$("$MPICC" --showme:link 2>/dev/null)" in
*-fsanitize=*)
    cflags="$cflags -fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer" ;;
esac
echo "+ $MPICC $cflags -c f_f08zero.c"
# shellcheck disable=SC2086 # cflags is a list of words
"$MPICC" $cflags -c -o "$ftmp/f_f08zero.o" "$fsrc/f_f08zero.c" || t_die "$MPICC could not build f_f08zero.c"
f_build f_f08zero "$ftmp/f_f08zero.o"
for np in $(t_np "1 2" "1"); do
    f_run "$np" f_f08zero
done
exit $failed
