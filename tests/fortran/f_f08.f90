! f_f08.f90: (issue 16) the mpi_f08 module: TYPE(MPI_Comm) and the other
! handle types (==, /=, %MPI_VAL), TYPE(MPI_Status) fields, the optional
! ierror, non-contiguous array sections as buffers, a user op with the
! mpi_f08 callback interface. Any number of ranks (rings, to self on one).
module f08_uop
    use mpi_f08
    implicit none
contains
    ! (a1,b1) o (a2,b2) = (a1*a2, b1*a2 + b2): composition of affine maps,
    ! associative, not commutative; only rank order gives the expected value
    subroutine affine(invec, inoutvec, len, datatype)
        use, intrinsic :: iso_c_binding, only: c_ptr, c_f_pointer
        type(c_ptr), value :: invec, inoutvec
        integer :: len
        type(MPI_Datatype) :: datatype
        integer, pointer :: a(:), b(:)
        integer :: i, x, y
        if (datatype /= MPI_2INTEGER) return
        call c_f_pointer(invec, a, [2 * len])
        call c_f_pointer(inoutvec, b, [2 * len])
        do i = 1, 2 * len, 2
            x = a(i) * b(i)
            y = a(i + 1) * b(i) + b(i + 1)
            b(i) = x
            b(i + 1) = y
        end do
    end subroutine affine
end module f08_uop

program f_f08
    use mpi_f08
    use f08_uop
    implicit none
    integer :: rank, nproc, left, right, ierr, nerr, nchk, tot(2), n, i, r
    type(MPI_Comm) :: dup, sub
    type(MPI_Status) :: st
    type(MPI_Request) :: req
    type(MPI_Datatype) :: rowt
    type(MPI_Op) :: op
    integer :: a(12), b(12), m(4, 5), mm(4, 5), v(2), w(2), e(2)
    double precision :: d(10), dd(10)

    nerr = 0
    nchk = 0
    call MPI_Init(ierr)
    call chk(ierr == MPI_SUCCESS, 'MPI_Init with ierror')
    call MPI_Comm_rank(MPI_COMM_WORLD, rank)
    call MPI_Comm_size(MPI_COMM_WORLD, nproc)
    right = mod(rank + 1, nproc)
    left = mod(rank - 1 + nproc, nproc)

    ! handles: a type per kind, comparison operators, %MPI_VAL
    call MPI_Comm_dup(MPI_COMM_WORLD, dup)
    call chk(dup /= MPI_COMM_NULL .and. .not. (dup == MPI_COMM_WORLD), 'Comm_dup, == and /=')
    call chk(MPI_COMM_WORLD%MPI_VAL /= MPI_COMM_NULL%MPI_VAL, '%MPI_VAL')
    call MPI_Comm_split(dup, mod(rank, 2), -rank, sub, ierr)
    call MPI_Comm_size(sub, n)
    call chk(ierr == MPI_SUCCESS .and. n == (nproc - mod(rank, 2) + 1) / 2, 'Comm_split')
    call MPI_Comm_free(sub)
    call chk(sub == MPI_COMM_NULL, 'Comm_free sets MPI_COMM_NULL')

    ! TYPE(MPI_Status): fields and Get_count
    a = [(rank * 100 + i, i = 1, 12)]
    b = -1
    call MPI_Sendrecv(a, 5, MPI_INTEGER, right, 7, b, 12, MPI_INTEGER, left, MPI_ANY_TAG, dup, st)
    call MPI_Get_count(st, MPI_INTEGER, n)
    call chk(st%MPI_SOURCE == left .and. st%MPI_TAG == 7 .and. n == 5, 'TYPE(MPI_Status) fields')
    call chk(all(b(1:5) == [(left * 100 + i, i = 1, 5)]) .and. b(6) == -1, 'Sendrecv data')

    ! non-contiguous sections: every other element, a row of a 2-D array
    b = -1
    call MPI_Sendrecv(a(1:12:2), 6, MPI_INTEGER, right, 8, b(2:12:2), 6, MPI_INTEGER, left, 8, &
                      dup, MPI_STATUS_IGNORE)
    call chk(all(b(2:12:2) == [(left * 100 + i, i = 1, 12, 2)]) .and. all(b(1:11:2) == -1), &
             'strided sections a(1:12:2) -> b(2:12:2)')
    m = reshape([(rank * 1000 + i, i = 1, 20)], [4, 5])
    mm = -1
    call MPI_Sendrecv(m(3, 1:4), 4, MPI_INTEGER, right, 9, mm(:, 2), 4, MPI_INTEGER, left, 9, &
                      dup, st)
    call MPI_Get_count(st, MPI_INTEGER, n)
    call chk(n == 4 .and. all(mm(:, 2) == [(left * 1000 + 3 + 4 * (i - 1), i = 1, 4)]) .and. &
             all(mm(:, 1) == -1), 'a row section m(3, 1:4) into a column')
    d = [(dble(rank * 10 + i), i = 1, 10)]
    dd = d
    call MPI_Bcast(d(10:1:-3), 4, MPI_DOUBLE_PRECISION, nproc - 1, dup)
    call chk(all(d(10:1:-3) == [(dble((nproc - 1) * 10 + i), i = 10, 1, -3)]) .and. &
             all(d(2:3) == dd(2:3)), 'Bcast into a reversed strided section')
    ! a vector type over a section's parent: the same row as a type
    call MPI_Type_vector(5, 1, 4, MPI_INTEGER, rowt)
    call MPI_Type_commit(rowt)
    mm = -1
    call MPI_Isend(m(2, 1), 1, rowt, right, 10, dup, req)
    call MPI_Recv(mm(1, 1), 1, rowt, left, 10, dup, st)
    call MPI_Wait(req, MPI_STATUS_IGNORE)
    call chk(req == MPI_REQUEST_NULL .and. all(mm(1, :) == [(left * 1000 + 2 + 4 * (i - 1), &
             i = 1, 5)]) .and. all(mm(2, :) == -1), 'Isend/Recv of a vector row type')
    call MPI_Type_free(rowt)
    call chk(rowt == MPI_DATATYPE_NULL, 'Type_free')

    ! a user op with the mpi_f08 interface, reduced in rank order
    call MPI_Op_create(affine, .false., op)
    v = [2, rank + 1]
    e = [1, 0]
    do r = 0, nproc - 1
        e = [e(1) * 2, e(2) * 2 + r + 1]
    end do
    w = -1
    call MPI_Allreduce(v, w, 1, MPI_2INTEGER, op, dup, ierr)
    call chk(ierr == MPI_SUCCESS .and. all(w == e), 'Allreduce with an mpi_f08 user op')
    call MPI_Op_free(op)
    call chk(op == MPI_OP_NULL, 'Op_free')

    ! an error through ierror under MPI_ERRORS_RETURN
    call MPI_Comm_set_errhandler(dup, MPI_ERRORS_RETURN)
    call MPI_Send(a, 1, MPI_INTEGER, nproc, 0, dup, ierr)
    call MPI_Error_class(ierr, n)
    call chk(n == MPI_ERR_RANK, 'ierror of a bad rank: MPI_ERR_RANK')
    call MPI_Comm_free(dup)

    tot = [nerr, nchk]
    call MPI_Allreduce(MPI_IN_PLACE, tot, 2, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD)
    if (rank == 0) then
        if (tot(1) == 0) then
            write (*, '(a,i0,a,i0,a)') 'f_f08: ', tot(2), ' checks on ', nproc, ' rank(s)'
            write (*, '(a)') 'PASS'
        else
            write (*, '(a,i0,a)') 'f_f08: ', tot(1), ' check(s) failed'
            write (*, '(a)') 'FAIL'
        end if
    end if
    call MPI_Finalize()
    if (tot(1) /= 0) stop 1

contains

    subroutine chk(ok, what)
        logical, intent(in) :: ok
        character(len=*), intent(in) :: what
        nchk = nchk + 1
        if (.not. ok) then
            write (*, '(a,i0,2a)') 'FAIL: rank ', rank, ': ', what
            nerr = nerr + 1
        end if
    end subroutine chk

end program f_f08
