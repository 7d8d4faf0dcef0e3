! The mpi_f08 module of librtmsg (issue 16, MPI 3.1 section 17.2): a
! BIND(C) derived type per kind of handle (one INTEGER, MPI_VAL, the value
! the mpi module uses), TYPE(MPI_Status), the constants with those types
! (mpi_f08_consts.h), and the routines as generic names with one specific
! procedure each (mpi_f08_ifaces.h, both generated from mpi.h by gen.py).
! ierror is OPTIONAL everywhere. Choice buffers are TYPE(*), DIMENSION(..):
! those routines are BIND(C) and get the buffer's CFI descriptor
! (bindings.c); the others have the same arguments as the mpif.h routines,
! whose entry points they share. The module has no code of its own: every
! routine, the comparison operators and the special variables
! (MPI_STATUS_IGNORE, MPI_BOTTOM, ...) are in librtmsg_mpifh.
module mpi_f08
  use, intrinsic :: iso_c_binding, only: c_ptr, c_int, c_double, c_intptr_t
  implicit none
  private :: c_ptr, c_int, c_double, c_intptr_t

  type, bind(C) :: MPI_Comm
    integer(c_int) :: MPI_VAL
  end type MPI_Comm
  type, bind(C) :: MPI_Datatype
    integer(c_int) :: MPI_VAL
  end type MPI_Datatype
  type, bind(C) :: MPI_Group
    integer(c_int) :: MPI_VAL
  end type MPI_Group
  type, bind(C) :: MPI_Op
    integer(c_int) :: MPI_VAL
  end type MPI_Op
  type, bind(C) :: MPI_Info
    integer(c_int) :: MPI_VAL
  end type MPI_Info
  type, bind(C) :: MPI_Errhandler
    integer(c_int) :: MPI_VAL
  end type MPI_Errhandler
  type, bind(C) :: MPI_Request
    integer(c_int) :: MPI_VAL
  end type MPI_Request
  type, bind(C) :: MPI_Message
    integer(c_int) :: MPI_VAL
  end type MPI_Message
  type, bind(C) :: MPI_Win
    integer(c_int) :: MPI_VAL
  end type MPI_Win
  ! The layout of INTEGER STATUS(MPI_STATUS_SIZE) (MPI_Status_c2f): the
  ! three public fields, then the cancelled flag and the byte count.
  type, bind(C) :: MPI_Status
    integer(c_int) :: MPI_SOURCE, MPI_TAG, MPI_ERROR
    integer(c_int), private :: rtm_cancelled, rtm_count_lo, rtm_count_hi
  end type MPI_Status

  include 'mpi_f08_consts.h'
  ! Non-contiguous array sections are copied for blocking routines and
  ! described by a derived datatype for some nonblocking ones, not all
  ! (docs/mpi.md); nothing protects ASYNCHRONOUS buffers: call
  ! MPI_F_sync_reg after a nonblocking operation completes.
  logical, parameter :: MPI_SUBARRAYS_SUPPORTED = .false.
  logical, parameter :: MPI_ASYNC_PROTECTS_NONBLOCKING = .false.

  ! Special addresses: the variables of librtmsg_mpifh that mpif.h's COMMON
  ! blocks name too, recognised by address.
  type(MPI_Status), bind(C, name="rtm_mpi_f_st_ignore_") :: MPI_STATUS_IGNORE
  type(MPI_Status), dimension(1), bind(C, name="rtm_mpi_f_sts_ignore_") :: MPI_STATUSES_IGNORE
  integer(c_int), bind(C, name="rtm_mpi_f_bottom_") :: MPI_BOTTOM
  integer(c_int), bind(C, name="rtm_mpi_f_in_place_") :: MPI_IN_PLACE
  integer(c_int), dimension(1), bind(C, name="rtm_mpi_f_unweighted_") :: MPI_UNWEIGHTED
  integer(c_int), dimension(1), bind(C, name="rtm_mpi_f_weights_empty_") :: MPI_WEIGHTS_EMPTY

  ! Callbacks (MPI 3.1 17.2: the mpi_f08 forms).
  abstract interface
    subroutine MPI_User_function(invec, inoutvec, len, datatype)
      import :: c_ptr, MPI_Datatype
      type(c_ptr), value :: invec, inoutvec
      integer :: len
      type(MPI_Datatype) :: datatype
    end subroutine MPI_User_function
    subroutine MPI_Comm_errhandler_function(comm, error_code)
      import :: MPI_Comm
      type(MPI_Comm) :: comm
      integer :: error_code
    end subroutine MPI_Comm_errhandler_function
    subroutine MPI_Win_errhandler_function(win, error_code)
      import :: MPI_Win
      type(MPI_Win) :: win
      integer :: error_code
    end subroutine MPI_Win_errhandler_function
    subroutine MPI_Comm_copy_attr_function(oldcomm, comm_keyval, extra_state, &
        attribute_val_in, attribute_val_out, flag, ierror)
      import :: MPI_Comm, MPI_ADDRESS_KIND
      type(MPI_Comm) :: oldcomm
      integer :: comm_keyval, ierror
      integer(kind=MPI_ADDRESS_KIND) :: extra_state, attribute_val_in, attribute_val_out
      logical :: flag
    end subroutine MPI_Comm_copy_attr_function
    subroutine MPI_Comm_delete_attr_function(comm, comm_keyval, attribute_val, extra_state, &
        ierror)
      import :: MPI_Comm, MPI_ADDRESS_KIND
      type(MPI_Comm) :: comm
      integer :: comm_keyval, ierror
      integer(kind=MPI_ADDRESS_KIND) :: attribute_val, extra_state
    end subroutine MPI_Comm_delete_attr_function
    subroutine MPI_Type_copy_attr_function(oldtype, type_keyval, extra_state, &
        attribute_val_in, attribute_val_out, flag, ierror)
      import :: MPI_Datatype, MPI_ADDRESS_KIND
      type(MPI_Datatype) :: oldtype
      integer :: type_keyval, ierror
      integer(kind=MPI_ADDRESS_KIND) :: extra_state, attribute_val_in, attribute_val_out
      logical :: flag
    end subroutine MPI_Type_copy_attr_function
    subroutine MPI_Type_delete_attr_function(datatype, type_keyval, attribute_val, &
        extra_state, ierror)
      import :: MPI_Datatype, MPI_ADDRESS_KIND
      type(MPI_Datatype) :: datatype
      integer :: type_keyval, ierror
      integer(kind=MPI_ADDRESS_KIND) :: attribute_val, extra_state
    end subroutine MPI_Type_delete_attr_function
    subroutine MPI_Win_copy_attr_function(oldwin, win_keyval, extra_state, &
        attribute_val_in, attribute_val_out, flag, ierror)
      import :: MPI_Win, MPI_ADDRESS_KIND
      type(MPI_Win) :: oldwin
      integer :: win_keyval, ierror
      integer(kind=MPI_ADDRESS_KIND) :: extra_state, attribute_val_in, attribute_val_out
      logical :: flag
    end subroutine MPI_Win_copy_attr_function
    subroutine MPI_Win_delete_attr_function(win, win_keyval, attribute_val, extra_state, &
        ierror)
      import :: MPI_Win, MPI_ADDRESS_KIND
      type(MPI_Win) :: win
      integer :: win_keyval, ierror
      integer(kind=MPI_ADDRESS_KIND) :: attribute_val, extra_state
    end subroutine MPI_Win_delete_attr_function
    ! MPI-2 deprecated (MPI_Keyval_create), INTEGER values
    subroutine MPI_Copy_function(oldcomm, keyval, extra_state, attribute_val_in, &
        attribute_val_out, flag, ierror)
      import :: MPI_Comm
      type(MPI_Comm) :: oldcomm
      integer :: keyval, extra_state, attribute_val_in, attribute_val_out, ierror
      logical :: flag
    end subroutine MPI_Copy_function
    subroutine MPI_Delete_function(comm, keyval, attribute_val, extra_state, ierror)
      import :: MPI_Comm
      type(MPI_Comm) :: comm
      integer :: keyval, attribute_val, extra_state, ierror
    end subroutine MPI_Delete_function
    subroutine MPI_Grequest_query_function(extra_state, status, ierror)
      import :: MPI_Status, MPI_ADDRESS_KIND
      integer(kind=MPI_ADDRESS_KIND) :: extra_state
      type(MPI_Status) :: status
      integer :: ierror
    end subroutine MPI_Grequest_query_function
    subroutine MPI_Grequest_free_function(extra_state, ierror)
      import :: MPI_ADDRESS_KIND
      integer(kind=MPI_ADDRESS_KIND) :: extra_state
      integer :: ierror
    end subroutine MPI_Grequest_free_function
    subroutine MPI_Grequest_cancel_function(extra_state, complete, ierror)
      import :: MPI_ADDRESS_KIND
      integer(kind=MPI_ADDRESS_KIND) :: extra_state
      logical :: complete
      integer :: ierror
    end subroutine MPI_Grequest_cancel_function
  end interface

  ! The predefined attribute callbacks (the mpif.h ones, same arguments).
  procedure(MPI_Comm_copy_attr_function) :: MPI_COMM_NULL_COPY_FN, MPI_COMM_DUP_FN
  procedure(MPI_Comm_delete_attr_function) :: MPI_COMM_NULL_DELETE_FN
  procedure(MPI_Type_copy_attr_function) :: MPI_TYPE_NULL_COPY_FN, MPI_TYPE_DUP_FN
  procedure(MPI_Type_delete_attr_function) :: MPI_TYPE_NULL_DELETE_FN
  procedure(MPI_Win_copy_attr_function) :: MPI_WIN_NULL_COPY_FN, MPI_WIN_DUP_FN
  procedure(MPI_Win_delete_attr_function) :: MPI_WIN_NULL_DELETE_FN
  procedure(MPI_Copy_function) :: MPI_NULL_COPY_FN, MPI_DUP_FN
  procedure(MPI_Delete_function) :: MPI_NULL_DELETE_FN

  include 'mpi_f08_ifaces.h'
  ! .EQ./==, .NE./= on handles: compare MPI_VAL (rtm_f08_<kind>_eq_/ne_ in
  ! librtmsg_mpifh, elemental).
  interface operator(==)
    elemental logical function rtm_f08_comm_eq(a, b)
      import :: MPI_Comm
      type(MPI_Comm), intent(in) :: a, b
    end function rtm_f08_comm_eq
    elemental logical function rtm_f08_datatype_eq(a, b)
      import :: MPI_Datatype
      type(MPI_Datatype), intent(in) :: a, b
    end function rtm_f08_datatype_eq
    elemental logical function rtm_f08_group_eq(a, b)
      import :: MPI_Group
      type(MPI_Group), intent(in) :: a, b
    end function rtm_f08_group_eq
    elemental logical function rtm_f08_op_eq(a, b)
      import :: MPI_Op
      type(MPI_Op), intent(in) :: a, b
    end function rtm_f08_op_eq
    elemental logical function rtm_f08_info_eq(a, b)
      import :: MPI_Info
      type(MPI_Info), intent(in) :: a, b
    end function rtm_f08_info_eq
    elemental logical function rtm_f08_errhandler_eq(a, b)
      import :: MPI_Errhandler
      type(MPI_Errhandler), intent(in) :: a, b
    end function rtm_f08_errhandler_eq
    elemental logical function rtm_f08_request_eq(a, b)
      import :: MPI_Request
      type(MPI_Request), intent(in) :: a, b
    end function rtm_f08_request_eq
    elemental logical function rtm_f08_message_eq(a, b)
      import :: MPI_Message
      type(MPI_Message), intent(in) :: a, b
    end function rtm_f08_message_eq
    elemental logical function rtm_f08_win_eq(a, b)
      import :: MPI_Win
      type(MPI_Win), intent(in) :: a, b
    end function rtm_f08_win_eq
  end interface operator(==)
  interface operator(/=)
    elemental logical function rtm_f08_comm_ne(a, b)
      import :: MPI_Comm
      type(MPI_Comm), intent(in) :: a, b
    end function rtm_f08_comm_ne
    elemental logical function rtm_f08_datatype_ne(a, b)
      import :: MPI_Datatype
      type(MPI_Datatype), intent(in) :: a, b
    end function rtm_f08_datatype_ne
    elemental logical function rtm_f08_group_ne(a, b)
      import :: MPI_Group
      type(MPI_Group), intent(in) :: a, b
    end function rtm_f08_group_ne
    elemental logical function rtm_f08_op_ne(a, b)
      import :: MPI_Op
      type(MPI_Op), intent(in) :: a, b
    end function rtm_f08_op_ne
    elemental logical function rtm_f08_info_ne(a, b)
      import :: MPI_Info
      type(MPI_Info), intent(in) :: a, b
    end function rtm_f08_info_ne
    elemental logical function rtm_f08_errhandler_ne(a, b)
      import :: MPI_Errhandler
      type(MPI_Errhandler), intent(in) :: a, b
    end function rtm_f08_errhandler_ne
    elemental logical function rtm_f08_request_ne(a, b)
      import :: MPI_Request
      type(MPI_Request), intent(in) :: a, b
    end function rtm_f08_request_ne
    elemental logical function rtm_f08_message_ne(a, b)
      import :: MPI_Message
      type(MPI_Message), intent(in) :: a, b
    end function rtm_f08_message_ne
    elemental logical function rtm_f08_win_ne(a, b)
      import :: MPI_Win
      type(MPI_Win), intent(in) :: a, b
    end function rtm_f08_win_ne
  end interface operator(/=)

  ! Functions: the C ones themselves (MPI_Wtime is C's MPI_Wtime).
  interface MPI_Wtime
    function MPI_Wtime_f08() bind(C, name="MPI_Wtime")
      import :: c_double
      real(c_double) :: MPI_Wtime_f08
    end function MPI_Wtime_f08
  end interface MPI_Wtime
  interface PMPI_Wtime
    function PMPI_Wtime_f08() bind(C, name="PMPI_Wtime")
      import :: c_double
      real(c_double) :: PMPI_Wtime_f08
    end function PMPI_Wtime_f08
  end interface PMPI_Wtime
  interface MPI_Wtick
    function MPI_Wtick_f08() bind(C, name="MPI_Wtick")
      import :: c_double
      real(c_double) :: MPI_Wtick_f08
    end function MPI_Wtick_f08
  end interface MPI_Wtick
  interface PMPI_Wtick
    function PMPI_Wtick_f08() bind(C, name="PMPI_Wtick")
      import :: c_double
      real(c_double) :: PMPI_Wtick_f08
    end function PMPI_Wtick_f08
  end interface PMPI_Wtick
  interface MPI_Aint_add
    function MPI_Aint_add_f08(base, disp) bind(C, name="MPI_Aint_add")
      import :: c_intptr_t
      integer(c_intptr_t), value, intent(in) :: base, disp
      integer(c_intptr_t) :: MPI_Aint_add_f08
    end function MPI_Aint_add_f08
  end interface MPI_Aint_add
  interface MPI_Aint_diff
    function MPI_Aint_diff_f08(addr1, addr2) bind(C, name="MPI_Aint_diff")
      import :: c_intptr_t
      integer(c_intptr_t), value, intent(in) :: addr1, addr2
      integer(c_intptr_t) :: MPI_Aint_diff_f08
    end function MPI_Aint_diff_f08
  end interface MPI_Aint_diff
  interface PMPI_Aint_add
    function PMPI_Aint_add_f08(base, disp) bind(C, name="PMPI_Aint_add")
      import :: c_intptr_t
      integer(c_intptr_t), value, intent(in) :: base, disp
      integer(c_intptr_t) :: PMPI_Aint_add_f08
    end function PMPI_Aint_add_f08
  end interface PMPI_Aint_add
  interface PMPI_Aint_diff
    function PMPI_Aint_diff_f08(addr1, addr2) bind(C, name="PMPI_Aint_diff")
      import :: c_intptr_t
      integer(c_intptr_t), value, intent(in) :: addr1, addr2
      integer(c_intptr_t) :: PMPI_Aint_diff_f08
    end function PMPI_Aint_diff_f08
  end interface PMPI_Aint_diff
  interface MPI_Pcontrol
    subroutine MPI_Pcontrol_f08(level)
      integer, intent(in) :: level
    end subroutine MPI_Pcontrol_f08
  end interface MPI_Pcontrol
  ! Tells the compiler the buffer may have changed (it does nothing).
  interface MPI_F_sync_reg
    subroutine MPI_F_sync_reg_f08ts(buf) bind(C, name="mpi_f_sync_reg_f08ts_")
      type(*), dimension(..), asynchronous :: buf
    end subroutine MPI_F_sync_reg_f08ts
  end interface MPI_F_sync_reg
  interface PMPI_Pcontrol
    subroutine PMPI_Pcontrol_f08(level)
      integer, intent(in) :: level
    end subroutine PMPI_Pcontrol_f08
  end interface PMPI_Pcontrol
  ! Tells the compiler the buffer may have changed (it does nothing).
  interface PMPI_F_sync_reg
    subroutine PMPI_F_sync_reg_f08ts(buf) bind(C, name="pmpi_f_sync_reg_f08ts_")
      type(*), dimension(..), asynchronous :: buf
    end subroutine PMPI_F_sync_reg_f08ts
  end interface PMPI_F_sync_reg
  ! MPI_Sizeof: the size in bytes of one element of x (any type and rank).
  interface MPI_Sizeof
    subroutine MPI_Sizeof_f08ts(x, size, ierror) bind(C, name="mpi_sizeof_f08ts_")
      type(*), dimension(..), intent(in) :: x
      integer, intent(out) :: size
      integer, optional, intent(out) :: ierror
    end subroutine MPI_Sizeof_f08ts
  end interface MPI_Sizeof
  interface PMPI_Sizeof
    subroutine PMPI_Sizeof_f08ts(x, size, ierror) bind(C, name="pmpi_sizeof_f08ts_")
      type(*), dimension(..), intent(in) :: x
      integer, intent(out) :: size
      integer, optional, intent(out) :: ierror
    end subroutine PMPI_Sizeof_f08ts
  end interface PMPI_Sizeof
end module mpi_f08
