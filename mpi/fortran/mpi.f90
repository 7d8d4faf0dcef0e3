! The `mpi` module of librtmsg (issue 16): the constants of mpif.h and
! explicit interfaces of the routines (both generated from mpi.h by
! gen.py); choice buffers take any type and rank through gfortran's
! NO_ARG_CHECK. The routines are the C entry points of librtmsg_mpifh
! (mpi/fortran/bindings.c, fortran.c), the same ones mpif.h calls.
module mpi
  implicit none
  include 'mpi_consts.h'
  include 'mpi_ifaces.h'
  interface
    double precision function MPI_WTIME()
    end function MPI_WTIME
    double precision function MPI_WTICK()
    end function MPI_WTICK
    function MPI_AINT_ADD(base, disp)
      import :: MPI_ADDRESS_KIND
      integer(kind=MPI_ADDRESS_KIND) :: MPI_AINT_ADD, base, disp
    end function MPI_AINT_ADD
    function MPI_AINT_DIFF(addr1, addr2)
      import :: MPI_ADDRESS_KIND
      integer(kind=MPI_ADDRESS_KIND) :: MPI_AINT_DIFF, addr1, addr2
    end function MPI_AINT_DIFF
    subroutine MPI_PCONTROL(level)
      integer :: level
    end subroutine MPI_PCONTROL
  end interface
  ! MPI_SIZEOF: the size in bytes of one element of X (any type, any
  ! rank), the entry point of mpi_f08's MPI_Sizeof.
  interface MPI_SIZEOF
    subroutine MPI_SIZEOF_TS(x, size, ierror) bind(C, name="mpi_sizeof_f08ts_")
      type(*), dimension(..), intent(in) :: x
      integer, intent(out) :: size
      integer :: ierror
    end subroutine MPI_SIZEOF_TS
  end interface MPI_SIZEOF
  ! PMPI_SIZEOF: the size in bytes of one element of X (any type, any
  ! rank), the entry point of mpi_f08's PMPI_Sizeof.
  interface PMPI_SIZEOF
    subroutine PMPI_SIZEOF_TS(x, size, ierror) bind(C, name="pmpi_sizeof_f08ts_")
      type(*), dimension(..), intent(in) :: x
      integer, intent(out) :: size
      integer :: ierror
    end subroutine PMPI_SIZEOF_TS
  end interface PMPI_SIZEOF
  double precision, external :: PMPI_WTIME, PMPI_WTICK
  external :: MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN, MPI_COMM_DUP_FN
  external :: MPI_TYPE_NULL_COPY_FN, MPI_TYPE_NULL_DELETE_FN, MPI_TYPE_DUP_FN
  external :: MPI_WIN_NULL_COPY_FN, MPI_WIN_NULL_DELETE_FN, MPI_WIN_DUP_FN
  external :: MPI_NULL_COPY_FN, MPI_NULL_DELETE_FN, MPI_DUP_FN
end module mpi
