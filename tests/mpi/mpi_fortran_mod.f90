! The `use mpi` binding (issue 16), run by mpi_fortran_wrap.sh as a
! singleton and on 2 and 3 ranks: every check stops with its own code.
module fcheck
  implicit none
  integer :: handler_calls = 0, handler_code = 0, handler_comm = -1
  integer :: deletes = 0, gfrees = 0
contains
  subroutine check(ok, code)
    logical, intent(in) :: ok
    integer, intent(in) :: code
    if (.not. ok) then
      write (*, '(a,i0)') 'FAIL: check ', code
      call abort_job(code)
    end if
  end subroutine check
  subroutine abort_job(code)
    integer, intent(in) :: code
    integer :: ierr
    call MPI_ABORT(1, code, ierr)
    stop 1
  end subroutine abort_job
end module fcheck

! (a,b) o (c,d) = (a*c, a*d+b): associative, not commutative.
subroutine affine(invec, inoutvec, len, dtype)
  implicit none
  integer :: len, dtype
  integer :: invec(2, len), inoutvec(2, len)
  integer :: i, a, b
  do i = 1, len
    a = invec(1, i) * inoutvec(1, i)
    b = invec(1, i) * inoutvec(2, i) + invec(2, i)
    inoutvec(1, i) = a
    inoutvec(2, i) = b
  end do
end subroutine affine

subroutine my_handler(comm, code)
  use fcheck
  implicit none
  integer :: comm, code
  handler_calls = handler_calls + 1
  handler_code = code
  handler_comm = comm
end subroutine my_handler

subroutine copy_plus1(oldcomm, keyval, extra, valin, valout, flag, ierr)
  use mpi
  implicit none
  integer :: oldcomm, keyval, ierr
  integer(kind=MPI_ADDRESS_KIND) :: extra, valin, valout
  logical :: flag
  valout = valin + 1 + extra
  flag = .true.
  ierr = MPI_SUCCESS
end subroutine copy_plus1

subroutine count_delete(comm, keyval, val, extra, ierr)
  use mpi
  use fcheck
  implicit none
  integer :: comm, keyval, ierr
  integer(kind=MPI_ADDRESS_KIND) :: val, extra
  deletes = deletes + 1
  ierr = MPI_SUCCESS
end subroutine count_delete

subroutine gq_query(extra, status, ierr)
  use mpi
  implicit none
  integer(kind=MPI_ADDRESS_KIND) :: extra
  integer :: status(MPI_STATUS_SIZE), ierr
  status(MPI_SOURCE) = 0
  status(MPI_TAG) = int(extra)
  status(MPI_ERROR) = MPI_SUCCESS
  call MPI_STATUS_SET_ELEMENTS(status, MPI_INTEGER, 3, ierr)
  call MPI_STATUS_SET_CANCELLED(status, .false., ierr)
end subroutine gq_query

subroutine gq_free(extra, ierr)
  use mpi
  use fcheck
  implicit none
  integer(kind=MPI_ADDRESS_KIND) :: extra
  integer :: ierr
  gfrees = gfrees + int(extra)
  ierr = MPI_SUCCESS
end subroutine gq_free

subroutine gq_cancel(extra, complete, ierr)
  use mpi
  implicit none
  integer(kind=MPI_ADDRESS_KIND) :: extra
  logical :: complete
  integer :: ierr
  ierr = MPI_SUCCESS
  if (complete .and. extra < 0) ierr = MPI_ERR_OTHER
end subroutine gq_cancel

program fortran_mod
  use mpi
  use fcheck
  implicit none
  external :: affine, my_handler, copy_plus1, count_delete, gq_query, gq_free, gq_cancel
  integer :: greq, ilb, iext, tstruct, ivals(3), idisp(2), iaddr1, iaddr2
  integer :: ierr, rank, nprocs, i, n, cls, color, sub, subsize, subrank
  integer :: st(MPI_STATUS_SIZE), sts(MPI_STATUS_SIZE, 4), reqs(4), idx, outcnt
  integer :: indices(4)
  integer :: buf(8), rbuf(8), pair, op, eh, dup, dup2, keyval, info, cart
  integer :: dims(2), coords(2), src, dst, nkeys, vec, arr(4, 3), col(4)
  integer(kind=MPI_ADDRESS_KIND) :: aval, extra, addr, lb, extent
  integer :: mine(2), prod(2), expect(2)
  logical :: flag, periods(2), ok
  character(len=16) :: word
  character(len=MPI_MAX_PROCESSOR_NAME) :: pname
  character(len=MPI_MAX_ERROR_STRING) :: estr
  character(len=MPI_MAX_OBJECT_NAME) :: cname
  character(len=40) :: value
  double precision :: t0, t1

  call MPI_INIT(ierr)
  call check(ierr == MPI_SUCCESS, 1)
  call MPI_INITIALIZED(flag, ierr)
  call check(flag, 2)
  call MPI_COMM_RANK(MPI_COMM_WORLD, rank, ierr)
  call MPI_COMM_SIZE(MPI_COMM_WORLD, nprocs, ierr)
  t0 = MPI_WTIME()
  call check(MPI_WTICK() > 0d0 .and. MPI_WTICK() < 1d0, 3)
  ! MPI_SIZEOF: bytes of one element, any type and rank
  call MPI_SIZEOF(t0, n, ierr)
  call MPI_SIZEOF(buf, i, ierr)
  call check(n == 8 .and. i == 4 .and. ierr == MPI_SUCCESS, 4)
  call MPI_SIZEOF(aval, n, ierr)
  call MPI_SIZEOF(word, i, ierr)
  call check(n == 8 .and. i == 16, 5)

  ! Point to point: status fields, count, MPI_STATUS_IGNORE, PROC_NULL.
  if (nprocs > 1) then
    if (rank == 0) then
      buf = (/ (i * 3, i = 1, 8) /)
      call MPI_SEND(buf, 5, MPI_INTEGER, 1, 17, MPI_COMM_WORLD, ierr)
      call MPI_SEND(buf, 2, MPI_INTEGER, 1, 18, MPI_COMM_WORLD, ierr)
    else if (rank == 1) then
      rbuf = -1
      call MPI_RECV(rbuf, 8, MPI_INTEGER, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, st, ierr)
      call check(ierr == MPI_SUCCESS .and. st(MPI_SOURCE) == 0 .and. st(MPI_TAG) == 17, 10)
      call MPI_GET_COUNT(st, MPI_INTEGER, n, ierr)
      call check(n == 5 .and. rbuf(5) == 15 .and. rbuf(6) == -1, 11)
      call MPI_RECV(rbuf, 8, MPI_INTEGER, 0, 18, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
      call check(ierr == MPI_SUCCESS .and. rbuf(2) == 6, 12)
    end if
  end if
  call MPI_SENDRECV(buf, 1, MPI_INTEGER, MPI_PROC_NULL, 1, rbuf, 1, MPI_INTEGER, &
                    MPI_PROC_NULL, 1, MPI_COMM_WORLD, st, ierr)
  call check(st(MPI_SOURCE) == MPI_PROC_NULL .and. st(MPI_TAG) == MPI_ANY_TAG, 13)

  ! Nonblocking ring: Waitall with statuses, then Waitany / Waitsome /
  ! Testall with 1-based indices and LOGICAL flags.
  dst = mod(rank + 1, nprocs)
  src = mod(rank + nprocs - 1, nprocs)
  call MPI_IRECV(rbuf, 1, MPI_INTEGER, src, 5, MPI_COMM_WORLD, reqs(1), ierr)
  buf(1) = rank + 100
  call MPI_ISEND(buf, 1, MPI_INTEGER, dst, 5, MPI_COMM_WORLD, reqs(2), ierr)
  call MPI_WAITALL(2, reqs, sts, ierr)
  call check(ierr == MPI_SUCCESS .and. rbuf(1) == src + 100, 20)
  call check(sts(MPI_SOURCE, 1) == src .and. sts(MPI_TAG, 1) == 5, 21)
  call check(reqs(1) == MPI_REQUEST_NULL .and. reqs(2) == MPI_REQUEST_NULL, 22)
  call MPI_IRECV(rbuf, 1, MPI_INTEGER, src, 6, MPI_COMM_WORLD, reqs(2), ierr)
  reqs(1) = MPI_REQUEST_NULL
  call MPI_ISEND(buf, 1, MPI_INTEGER, dst, 6, MPI_COMM_WORLD, reqs(3), ierr)
  call MPI_WAIT(reqs(3), MPI_STATUS_IGNORE, ierr)
  call MPI_WAITANY(2, reqs, idx, st, ierr)
  call check(idx == 2 .and. st(MPI_TAG) == 6 .and. reqs(2) == MPI_REQUEST_NULL, 23)
  call MPI_WAITANY(2, reqs, idx, st, ierr)
  call check(idx == MPI_UNDEFINED, 24)
  call MPI_IRECV(rbuf, 1, MPI_INTEGER, src, 7, MPI_COMM_WORLD, reqs(4), ierr)
  call MPI_ISEND(buf, 1, MPI_INTEGER, dst, 7, MPI_COMM_WORLD, reqs(3), ierr)
  outcnt = 0
  n = 0
  do while (n < 2)
    call MPI_WAITSOME(2, reqs(3), outcnt, indices, MPI_STATUSES_IGNORE, ierr)
    call check(ierr == MPI_SUCCESS .and. outcnt >= 1, 25)
    do i = 1, outcnt
      call check(indices(i) == 1 .or. indices(i) == 2, 26)
    end do
    n = n + outcnt
  end do
  call MPI_TESTALL(4, reqs, flag, MPI_STATUSES_IGNORE, ierr)
  call check(flag, 27)
  call MPI_ISEND(buf, 1, MPI_INTEGER, rank, 8, MPI_COMM_WORLD, reqs(1), ierr)
  call MPI_RECV(rbuf, 1, MPI_INTEGER, rank, 8, MPI_COMM_WORLD, st, ierr)
  flag = .false.
  do while (.not. flag)
    call MPI_TEST(reqs(1), flag, st, ierr)
  end do
  call check(reqs(1) == MPI_REQUEST_NULL, 28)

  ! Collectives: MPI_IN_PLACE, CHARACTER broadcast.
  buf = rank
  call MPI_ALLREDUCE(MPI_IN_PLACE, buf, 8, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  call check(ierr == MPI_SUCCESS .and. all(buf == nprocs * (nprocs - 1) / 2), 30)
  buf(1) = rank + 1
  if (rank == 0) then
    call MPI_REDUCE(MPI_IN_PLACE, buf, 1, MPI_INTEGER, MPI_MAX, 0, MPI_COMM_WORLD, ierr)
    call check(buf(1) == nprocs, 31)
  else
    call MPI_REDUCE(buf, rbuf, 1, MPI_INTEGER, MPI_MAX, 0, MPI_COMM_WORLD, ierr)
  end if
  word = ' '
  if (rank == nprocs - 1) word = 'librtmsg fortran'
  call MPI_BCAST(word, len(word), MPI_CHARACTER, nprocs - 1, MPI_COMM_WORLD, ierr)
  call check(word == 'librtmsg fortran', 32)

  ! A Fortran user op on a derived type, reduced in rank order.
  call MPI_TYPE_CONTIGUOUS(2, MPI_INTEGER, pair, ierr)
  call MPI_TYPE_COMMIT(pair, ierr)
  call MPI_OP_CREATE(affine, .false., op, ierr)
  call check(ierr == MPI_SUCCESS, 40)
  call MPI_OP_COMMUTATIVE(op, flag, ierr)
  call check(.not. flag, 41)
  mine = (/ 2, rank + 1 /)
  call MPI_ALLREDUCE(mine, prod, 1, pair, op, MPI_COMM_WORLD, ierr)
  expect = (/ 2, 1 /)
  do i = 1, nprocs - 1
    expect = (/ expect(1) * 2, expect(1) * (i + 1) + expect(2) /)
  end do
  call check(ierr == MPI_SUCCESS .and. all(prod == expect), 42)
  call MPI_OP_FREE(op, ierr)
  call check(op == MPI_OP_NULL, 43)
  call MPI_TYPE_FREE(pair, ierr)

  ! A column and a row of a Fortran array (column-major).
  arr = reshape((/ (i, i = 1, 12) /), (/ 4, 3 /))
  call MPI_TYPE_VECTOR(3, 1, 4, MPI_INTEGER, vec, ierr)
  call MPI_TYPE_COMMIT(vec, ierr)
  call MPI_TYPE_GET_EXTENT(vec, lb, extent, ierr)
  call check(lb == 0 .and. extent == 9 * 4, 50)
  call MPI_SENDRECV(arr(2, 1), 1, vec, rank, 9, col, 3, MPI_INTEGER, rank, 9, &
                    MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
  call check(col(1) == 2 .and. col(2) == 6 .and. col(3) == 10, 51)
  call MPI_TYPE_FREE(vec, ierr)
  ! MPI_BOTTOM with an absolute address.
  call MPI_GET_ADDRESS(arr(1, 3), addr, ierr)
  call MPI_SENDRECV(MPI_BOTTOM, 0, MPI_INTEGER, rank, 10, col, 4, MPI_INTEGER, rank, 10, &
                    MPI_COMM_WORLD, st, ierr)
  call MPI_TYPE_CREATE_HINDEXED(1, (/ 4 /), (/ addr /), MPI_INTEGER, vec, ierr)
  call MPI_TYPE_COMMIT(vec, ierr)
  col = 0
  call MPI_SENDRECV(MPI_BOTTOM, 1, vec, rank, 11, col, 4, MPI_INTEGER, rank, 11, &
                    MPI_COMM_WORLD, st, ierr)
  call check(ierr == MPI_SUCCESS .and. col(1) == 9 .and. col(4) == 12, 52)
  call MPI_TYPE_FREE(vec, ierr)

  ! Communicators: split, names, compare.
  color = mod(rank, 2)
  call MPI_COMM_SPLIT(MPI_COMM_WORLD, color, -rank, sub, ierr)
  call MPI_COMM_SIZE(sub, subsize, ierr)
  call MPI_COMM_RANK(sub, subrank, ierr)
  call check(subsize == (nprocs + 1 - color) / 2, 60)
  call check(subrank == (subsize - 1) - rank / 2, 61)
  call MPI_COMM_SET_NAME(sub, '  halves  ', ierr)
  call MPI_COMM_GET_NAME(sub, cname, n, ierr)
  call check(cname == 'halves' .and. n == 6, 62)
  call MPI_COMM_FREE(sub, ierr)
  call check(sub == MPI_COMM_NULL, 63)

  ! Cartesian topology with LOGICAL periods.
  dims = 0
  call MPI_DIMS_CREATE(nprocs, 2, dims, ierr)
  call MPI_CART_CREATE(MPI_COMM_WORLD, 2, dims, (/ .true., .false. /), .false., cart, ierr)
  call MPI_CART_GET(cart, 2, dims, periods, coords, ierr)
  call check(periods(1) .and. .not. periods(2), 70)
  call MPI_CART_SHIFT(cart, 1, 1, src, dst, ierr)
  call check(src == MPI_PROC_NULL .or. dims(2) > 1, 71)
  call MPI_COMM_FREE(cart, ierr)

  ! Strings: processor name, error string.
  call MPI_GET_PROCESSOR_NAME(pname, n, ierr)
  call check(n > 0 .and. len_trim(pname) == n, 80)
  call MPI_ERROR_STRING(MPI_ERR_TAG, estr, n, ierr)
  call check(n > 0 .and. len_trim(estr) == n, 81)

  ! Info: keys and values are trimmed; VALUELEN bounds the value.
  call MPI_INFO_CREATE(info, ierr)
  call MPI_INFO_SET(info, 'color ', ' blue and green ', ierr)
  call MPI_INFO_GET_NKEYS(info, nkeys, ierr)
  call check(nkeys == 1, 90)
  call MPI_INFO_GET_NTHKEY(info, 0, value, ierr)
  call check(value == 'color', 91)
  call MPI_INFO_GET(info, 'color', 40, value, flag, ierr)
  call check(flag .and. value == 'blue and green', 92)
  call MPI_INFO_GET(info, 'color', 4, value, flag, ierr)
  call check(flag .and. value == 'blue', 93)
  call MPI_INFO_GET(info, 'shape', 40, value, flag, ierr)
  call check(.not. flag, 94)
  call MPI_INFO_GET_VALUELEN(info, 'color', n, flag, ierr)
  call check(flag .and. n == 14, 95)
  call MPI_INFO_FREE(info, ierr)
  call check(info == MPI_INFO_NULL, 96)

  ! Attributes: a predefined one, DUP_FN, a Fortran copy and delete.
  call MPI_COMM_GET_ATTR(MPI_COMM_WORLD, MPI_TAG_UB, aval, flag, ierr)
  call check(flag .and. aval >= 32767, 100)
  call MPI_COMM_CREATE_KEYVAL(MPI_COMM_DUP_FN, MPI_COMM_NULL_DELETE_FN, keyval, 0_MPI_ADDRESS_KIND, ierr)
  call MPI_COMM_SET_ATTR(MPI_COMM_WORLD, keyval, 42_MPI_ADDRESS_KIND, ierr)
  call MPI_COMM_DUP(MPI_COMM_WORLD, dup, ierr)
  call MPI_COMM_GET_ATTR(dup, keyval, aval, flag, ierr)
  call check(flag .and. aval == 42, 101)
  call MPI_COMM_DELETE_ATTR(MPI_COMM_WORLD, keyval, ierr)
  call MPI_COMM_FREE_KEYVAL(keyval, ierr)
  extra = 10
  call MPI_COMM_CREATE_KEYVAL(copy_plus1, count_delete, keyval, extra, ierr)
  call MPI_COMM_SET_ATTR(dup, keyval, 5_MPI_ADDRESS_KIND, ierr)
  call MPI_COMM_DUP(dup, dup2, ierr)
  call MPI_COMM_GET_ATTR(dup2, keyval, aval, flag, ierr)
  call check(flag .and. aval == 16, 102)
  call MPI_COMM_FREE(dup2, ierr)
  call check(deletes == 1, 103)
  call MPI_COMM_FREE_KEYVAL(keyval, ierr)

  ! Errors: MPI_ERRORS_RETURN gives ierror values; a Fortran handler.
  call MPI_COMM_SET_ERRHANDLER(dup, MPI_ERRORS_RETURN, ierr)
  call MPI_SEND(buf, 1, MPI_INTEGER, nprocs + 3, 0, dup, ierr)
  call MPI_ERROR_CLASS(ierr, cls, i)
  call check(cls == MPI_ERR_RANK, 110)
  call MPI_SEND(buf, 1, MPI_INTEGER, 0, -5, dup, ierr)
  call MPI_ERROR_CLASS(ierr, cls, i)
  call check(cls == MPI_ERR_TAG, 111)
  call MPI_SEND(buf, -1, MPI_INTEGER, 0, 0, dup, ierr)
  call check(ierr /= MPI_SUCCESS, 112)
  call MPI_COMM_CREATE_ERRHANDLER(my_handler, eh, ierr)
  call MPI_COMM_SET_ERRHANDLER(dup, eh, ierr)
  call MPI_ERRHANDLER_FREE(eh, ierr)
  call MPI_BCAST(buf, 1, MPI_DATATYPE_NULL, 0, dup, ierr)
  call check(handler_calls == 1 .and. handler_comm == dup, 113)
  call MPI_ERROR_CLASS(handler_code, cls, i)
  call check(cls == MPI_ERR_TYPE, 114)
  call MPI_COMM_FREE(dup, ierr)
  call check(deletes == 2, 115)

  ! A generalized request with Fortran callbacks.
  call MPI_GREQUEST_START(gq_query, gq_free, gq_cancel, 77_MPI_ADDRESS_KIND, greq, ierr)
  call check(ierr == MPI_SUCCESS .and. greq /= MPI_REQUEST_NULL, 130)
  call MPI_TEST(greq, flag, st, ierr)
  call check(.not. flag, 131)
  call MPI_GREQUEST_COMPLETE(greq, ierr)
  call MPI_WAIT(greq, st, ierr)
  call check(ierr == MPI_SUCCESS .and. greq == MPI_REQUEST_NULL .and. gfrees == 77, 132)
  call MPI_GET_COUNT(st, MPI_INTEGER, n, ierr)
  call check(st(MPI_TAG) == 77 .and. n == 3, 133)
  call MPI_TEST_CANCELLED(st, flag, ierr)
  call check(.not. flag, 134)

  ! MPI-1 names with INTEGER addresses and extents.
  call MPI_TYPE_EXTENT(MPI_DOUBLE_PRECISION, iext, ierr)
  call MPI_TYPE_LB(MPI_INTEGER, ilb, ierr)
  call check(iext == 8 .and. ilb == 0, 140)
  call MPI_ADDRESS(ivals(1), iaddr1, ierr)
  call MPI_ADDRESS(ivals(3), iaddr2, ierr)
  call check(iaddr2 - iaddr1 == 8, 141)
  idisp = (/ 0, 8 /)
  call MPI_TYPE_STRUCT(2, (/ 1, 1 /), idisp, (/ MPI_INTEGER, MPI_INTEGER /), tstruct, ierr)
  call MPI_TYPE_COMMIT(tstruct, ierr)
  ivals = (/ 4, 5, 6 /)
  col = 0
  call MPI_SENDRECV(ivals, 1, tstruct, rank, 12, col, 2, MPI_INTEGER, rank, 12, &
                    MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
  call check(ierr == MPI_SUCCESS .and. col(1) == 4 .and. col(2) == 6, 142)
  call MPI_TYPE_FREE(tstruct, ierr)

  t1 = MPI_WTIME()
  call check(t1 >= t0, 120)
  call MPI_BARRIER(MPI_COMM_WORLD, ierr)
  call MPI_FINALIZE(ierr)
  call check(ierr == MPI_SUCCESS, 121)
  call MPI_FINALIZED(ok, ierr)
  if (.not. ok) stop 122
  if (rank == 0) print '(a,i0,a)', 'fortran_mod: ', nprocs, ' ranks OK'
end program fortran_mod
