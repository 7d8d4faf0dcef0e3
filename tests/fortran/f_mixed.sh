#!/bin/sh
# A mixed C/Fortran program (tests/fortran/f_mixed.f90 + f_mixed.c):
# handles cross the boundary both ways (MPI_*_f2c / c2f, Status_c2f/f2c),
# on 1 to 4 ranks. The C half is built with mpicc, linked by mpifort.
. "${top_srcdir:?run through make check (top_srcdir unset)}/tests/fortran/flib.sh"
command -v "$MPICC" >/dev/null 2>&1 || t_die "no C wrapper ($MPICC)"
cflags="-std=c11 -O2 -Wall -Wextra -Werror"
# with a sanitizer build the wrapper links the runtime: instrument C too
case "$("$MPICC" --showme:link 2>/dev/null)" in
*-fsanitize=*)
    cflags="$cflags -fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer" ;;
esac
echo "+ $MPICC $cflags -c f_mixed.c"
# shellcheck disable=SC2086 # cflags is a list of words
"$MPICC" $cflags -c -o "$ftmp/f_mixed_c.o" "$fsrc/f_mixed.c" || t_die "$MPICC could not build f_mixed.c"
f_build f_mixed "$fsrc/f_mixed.f90" "$ftmp/f_mixed_c.o"
for np in 1 2 3 4; do
    f_run "$np" f_mixed
done
exit $failed
