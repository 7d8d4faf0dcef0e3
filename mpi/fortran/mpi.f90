! The `mpi` module of librtmsg (issue 16): the constants of mpif.h
! (generated from mpi.h by gen.py) and the functions and predefined
! callbacks. The routines have implicit interfaces, as through mpif.h;
! their C entry points are in librtmsg_mpifh (mpi/fortran/bindings.c).
module mpi
  implicit none
  include 'mpi_consts.h'
  double precision, external :: MPI_WTIME, MPI_WTICK, PMPI_WTIME, PMPI_WTICK
  integer(kind=MPI_ADDRESS_KIND), external :: MPI_AINT_ADD, MPI_AINT_DIFF
  external :: MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN, MPI_COMM_DUP_FN
  external :: MPI_TYPE_NULL_COPY_FN, MPI_TYPE_NULL_DELETE_FN, MPI_TYPE_DUP_FN
  external :: MPI_WIN_NULL_COPY_FN, MPI_WIN_NULL_DELETE_FN, MPI_WIN_DUP_FN
  external :: MPI_NULL_COPY_FN, MPI_NULL_DELETE_FN, MPI_DUP_FN
end module mpi
