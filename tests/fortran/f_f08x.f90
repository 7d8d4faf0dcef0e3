! f_f08x.f90: (issue 16) more of the mpi_f08 module than f_f08.f90: PMPI_
! names and a Fortran profiler that replaces MPI_Barrier_f08 and
! MPI_Send_f08ts (calling the PMPI_ ones), handle values equal to the mpi
! module's, statuses arrays, LOGICAL and CHARACTER arguments, nonblocking
! point-to-point on non-contiguous sections (2-D too), Igather from one, a
! Gatherv into a
! strided section, Allreduce between sections, a section too small for its
! count (MPI_ERR_COUNT), a refused section (MPI_ERR_BUFFER) for MPI_Iallreduce,
! an mpi_f08 error handler, attribute callbacks, TYPE(C_PTR) from
! MPI_Alloc_mem / MPI_Win_allocate / MPI_Buffer_detach, one-sided Put,
! MPI_Pack_external, MPI_Wtime, MPI_Aint_add/diff, MPI_Get_address,
! MPI_Sizeof. Any number
! of ranks.
module f08x_prof
    implicit none
    integer :: nbarrier = 0, nsend = 0, nerrh = 0, lasterr = 0, ndelete = 0
end module f08x_prof

! The profiler: replaces the library's weak MPI_Barrier_f08 and
! MPI_Send_f08ts (their linker names) and calls the PMPI_ routines.
subroutine MPI_Barrier_f08(comm, ierror)
    use mpi_f08, only: MPI_Comm, PMPI_Barrier
    use f08x_prof
    implicit none
    type(MPI_Comm), intent(in) :: comm
    integer, optional, intent(out) :: ierror
    nbarrier = nbarrier + 1
    call PMPI_Barrier(comm, ierror)
end subroutine MPI_Barrier_f08

subroutine MPI_Send_f08ts(buf, count, datatype, dest, tag, comm, ierror) &
        bind(C, name="mpi_send_f08ts_")
    use mpi_f08, only: MPI_Comm, MPI_Datatype, PMPI_Send
    use f08x_prof
    implicit none
    type(*), dimension(..), intent(in) :: buf
    integer, intent(in) :: count, dest, tag
    type(MPI_Datatype), intent(in) :: datatype
    type(MPI_Comm), intent(in) :: comm
    integer, optional, intent(out) :: ierror
    nsend = nsend + 1
    call PMPI_Send(buf, count, datatype, dest, tag, comm, ierror)
end subroutine MPI_Send_f08ts

module f08x_cb
    use mpi_f08
    use f08x_prof
    implicit none
contains
    subroutine on_error(comm, error_code)
        type(MPI_Comm) :: comm
        integer :: error_code
        if (comm /= MPI_COMM_NULL) nerrh = nerrh + 1
        lasterr = error_code
    end subroutine on_error
    subroutine on_delete(comm, keyval, attribute_val, extra_state, ierror)
        type(MPI_Comm) :: comm
        integer :: keyval, ierror
        integer(kind=MPI_ADDRESS_KIND) :: attribute_val, extra_state
        if (attribute_val == 42 .and. extra_state == 7) ndelete = ndelete + 1
        ierror = MPI_SUCCESS
    end subroutine on_delete
    ! the value the mpi module gives MPI_COMM_WORLD, MPI_DOUBLE_PRECISION, MPI_SUM
    subroutine mpi_values(c, d, o)
        use mpi, only: W => MPI_COMM_WORLD, D8 => MPI_DOUBLE_PRECISION, S => MPI_SUM
        integer, intent(out) :: c, d, o
        c = W
        d = D8
        o = S
    end subroutine mpi_values
end module f08x_cb

program f_f08x
    use, intrinsic :: iso_c_binding, only: c_ptr, c_f_pointer, c_associated
    use mpi_f08
    use f08x_prof
    use f08x_cb
    implicit none
    integer :: rank, nproc, left, right, ierr, nerr, nchk, tot(2), n, i, k
    integer :: c, d, o, keyval, sz
    logical :: flag, per(1)
    type(MPI_Comm) :: dup, dup2, cart
    type(MPI_Request) :: reqs(4)
    type(MPI_Status) :: sts(4), st
    type(MPI_Errhandler) :: eh
    type(MPI_Win) :: win
    type(MPI_Info) :: info
    type(c_ptr) :: p
    integer, pointer :: mem(:), wmem(:)
    integer :: a(20), b(20), m(5, 6), mm(5, 6), g(40), counts(64), displs(64)
    integer(kind=MPI_ADDRESS_KIND) :: a1, a2, val
    character(len=MPI_MAX_OBJECT_NAME) :: name
    character(len=1) :: pk(64)
    double precision :: t0
    real :: x(3)
    integer, allocatable :: bsbuf(:)

    nerr = 0
    nchk = 0
    call MPI_Init()
    call PMPI_Comm_rank(MPI_COMM_WORLD, rank)
    call MPI_Comm_size(MPI_COMM_WORLD, nproc, ierr)
    right = mod(rank + 1, nproc)
    left = mod(rank - 1 + nproc, nproc)
    t0 = MPI_Wtime()

    ! the same handle values as the mpi module
    call mpi_values(c, d, o)
    call chk(MPI_COMM_WORLD%MPI_VAL == c .and. MPI_DOUBLE_PRECISION%MPI_VAL == d .and. &
             MPI_SUM%MPI_VAL == o, 'handle values are the mpi module''s')

    ! the profiler sees MPI_Barrier
    call MPI_Barrier(MPI_COMM_WORLD)
    call MPI_Barrier(MPI_COMM_WORLD, ierr)
    call chk(nbarrier == 2 .and. ierr == MPI_SUCCESS, 'profiler MPI_Barrier_f08 called twice')

    call MPI_Comm_dup(MPI_COMM_WORLD, dup)
    ! names: CHARACTER in and out
    call MPI_Comm_set_name(dup, '  f08 dup ')
    call MPI_Comm_get_name(dup, name, n)
    call chk(name == 'f08 dup' .and. n == 7, 'Comm_set_name / get_name')

    ! nonblocking on sections: a strided 1-D and a 2-D block, through the
    ! profiler's MPI_Send as well
    a = [(rank * 100 + i, i = 1, 20)]
    b = -1
    m = reshape([(rank * 1000 + i, i = 1, 30)], [5, 6])
    mm = -1
    call MPI_Irecv(b(2:20:3), 7, MPI_INTEGER, left, 1, dup, reqs(1))
    call MPI_Irecv(mm(2:4, 2:5), 12, MPI_INTEGER, left, 2, dup, reqs(2))
    call MPI_Isend(a(20:1:-3), 7, MPI_INTEGER, right, 1, dup, reqs(3))
    call MPI_Isend(m(1:5:2, 1:6:2), 9, MPI_INTEGER, right, 2, dup, reqs(4))
    call MPI_Waitall(4, reqs, sts)
    call MPI_F_sync_reg(b)
    call MPI_F_sync_reg(mm)
    call MPI_Get_count(sts(1), MPI_INTEGER, n)
    call MPI_Get_count(sts(2), MPI_INTEGER, k)
    call chk(all(reqs == MPI_REQUEST_NULL) .and. sts(1)%MPI_SOURCE == left .and. &
             sts(2)%MPI_TAG == 2 .and. n == 7 .and. k == 9, 'Waitall statuses')
    call chk(all(b(2:20:3) == [(left * 100 + i, i = 20, 1, -3)]) .and. &
             all(b(1:20:3) == -1) .and. all(b(3:20:3) == -1), 'Irecv / Isend strided sections')
    call chk(all(reshape(mm(2:4, 2:4), [9]) == [((left * 1000 + i + 5 * (k - 1), i = 1, 5, 2), &
             k = 1, 6, 2)]) .and. all(mm(2:4, 5) == -1) .and. all(mm(1, :) == -1) .and. &
             all(mm(5, :) == -1) .and. all(mm(:, 1) == -1), 'Irecv / Isend 2-D sections')
    ! blocking send through the profiler
    b = -1
    call MPI_Send(a(1:20:2), 10, MPI_INTEGER, right, 3, dup)
    call MPI_Recv(b, 20, MPI_INTEGER, left, 3, dup, st)
    call MPI_Get_count(st, MPI_INTEGER, n)
    call chk(nsend == 1 .and. n == 10 .and. all(b(1:10) == [(left * 100 + i, i = 1, 20, 2)]), &
             'profiler MPI_Send_f08ts and a strided send')

    ! Gatherv into every other element of g
    counts = 2
    displs(1:nproc) = [(2 * i, i = 0, nproc - 1)]
    g = -1
    call MPI_Gatherv(a(1:3:2), 2, MPI_INTEGER, g(1:40:2), counts, displs, MPI_INTEGER, 0, dup)
    if (rank == 0) call chk(all([(g(4 * i + 1) == i * 100 + 1 .and. g(4 * i + 3) == i * 100 + 3, &
                                  i = 0, nproc - 1)]) .and. all(g(2:40:2) == -1), &
                            'Gatherv into a strided section')

    ! Igather from a strided section (a datatype, no copy)
    g = -1
    call MPI_Igather(a(3:9:3), 3, MPI_INTEGER, g, 3, MPI_INTEGER, nproc - 1, dup, reqs(1))
    call MPI_Wait(reqs(1), MPI_STATUS_IGNORE)
    if (rank == nproc - 1) call chk(all([((g(3 * k + i) == k * 100 + 3 * i, i = 1, 3), &
                                          k = 0, nproc - 1)]) .and. g(3 * nproc + 1) == -1, &
                                    'Igather from a strided section')

    ! Allreduce between sections (copied), sum over the ranks
    b = -1
    call MPI_Allreduce(a(2:8:3), b(20:14:-3), 3, MPI_INTEGER, MPI_SUM, dup)
    call chk(all(b(20:14:-3) == [(sum([(k * 100 + i, k = 0, nproc - 1)]), i = 2, 8, 3)]) .and. &
             count(b == -1) == 17, 'Allreduce from and into strided sections')

    ! Iallreduce on a section is refused; an mpi_f08 error handler sees it
    call MPI_Comm_create_errhandler(on_error, eh)
    call MPI_Comm_set_errhandler(MPI_COMM_WORLD, eh)
    call MPI_Iallreduce(a(1:4:2), b(1:4:2), 2, MPI_INTEGER, MPI_SUM, dup, reqs(1), ierr)
    call chk(ierr == MPI_ERR_BUFFER .and. nerrh == 1 .and. lasterr == MPI_ERR_BUFFER, &
             'non-contiguous Iallreduce: MPI_ERR_BUFFER to the error handler')
    call MPI_Bcast(b(1:6:2), 5, MPI_INTEGER, 0, dup, ierr)
    call chk(ierr == MPI_ERR_COUNT .and. nerrh == 2 .and. lasterr == MPI_ERR_COUNT, &
             'a section smaller than count: MPI_ERR_COUNT')
    call MPI_Comm_set_errhandler(dup, eh)
    call MPI_Send(a, 1, MPI_INTEGER, nproc, 0, dup, ierr)
    call chk(ierr == MPI_ERR_RANK .and. nerrh == 3 .and. lasterr == MPI_ERR_RANK, &
             'mpi_f08 error handler on a communicator')
    call MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL)
    call MPI_Errhandler_free(eh)
    call chk(eh == MPI_ERRHANDLER_NULL, 'Errhandler_free')

    ! attributes: MPI_COMM_DUP_FN copies, a Fortran delete callback
    call MPI_Comm_create_keyval(MPI_COMM_DUP_FN, on_delete, keyval, 7_MPI_ADDRESS_KIND)
    call MPI_Comm_set_attr(dup, keyval, 42_MPI_ADDRESS_KIND)
    call MPI_Comm_dup(dup, dup2)
    call MPI_Comm_get_attr(dup2, keyval, val, flag)
    call chk(flag .and. val == 42, 'attribute copied by MPI_COMM_DUP_FN')
    call MPI_Comm_free(dup2)
    call MPI_Comm_delete_attr(dup, keyval)
    call chk(ndelete == 2, 'delete callback (free and delete_attr)')
    call MPI_Comm_free_keyval(keyval)

    ! LOGICAL arrays and flags
    call MPI_Cart_create(dup, 1, [nproc], [.true.], .false., cart)
    per = .false.
    call MPI_Cart_get(cart, 1, counts(1:1), per, displs(1:1))
    call MPI_Comm_test_inter(cart, flag)
    call chk(per(1) .and. counts(1) == nproc .and. .not. flag, 'Cart_get LOGICAL periods')
    call MPI_Iprobe(MPI_ANY_SOURCE, 99, cart, flag, MPI_STATUS_IGNORE)
    call chk(.not. flag, 'Iprobe with nothing there')
    call MPI_Comm_free(cart)

    ! TYPE(C_PTR): Alloc_mem, Buffer_attach / detach, Win_allocate
    call MPI_Alloc_mem(40_MPI_ADDRESS_KIND, MPI_INFO_NULL, p)
    call c_f_pointer(p, mem, [10])
    mem = rank
    call chk(sum(mem) == 10 * rank, 'Alloc_mem gives usable memory')
    call MPI_Free_mem(mem)
    allocate (bsbuf(1000))
    call MPI_Buffer_attach(bsbuf, 4000)
    call MPI_Bsend(a(1:5), 5, MPI_INTEGER, right, 4, dup)
    call MPI_Recv(b(1:5), 5, MPI_INTEGER, left, 4, dup, MPI_STATUS_IGNORE)
    call MPI_Buffer_detach(p, sz)
    call chk(c_associated(p) .and. sz == 4000 .and. all(b(1:5) == left * 100 + [1, 2, 3, 4, 5]), &
             'Bsend, Buffer_detach returns the buffer')
    deallocate (bsbuf)
    call MPI_Info_create(info)
    call MPI_Win_allocate(int(4 * nproc, MPI_ADDRESS_KIND), 4, info, dup, p, win)
    call MPI_Info_free(info)
    call c_f_pointer(p, wmem, [nproc])
    wmem = -1
    call MPI_Win_fence(0, win)
    k = rank + 1000
    call MPI_Put(k, 1, MPI_INTEGER, right, int(rank, MPI_ADDRESS_KIND), 1, &
                 MPI_INTEGER, win)
    call MPI_Win_fence(0, win)
    call chk(wmem(left + 1) == left + 1000 .and. count(wmem == -1) == nproc - 1, &
             'Win_allocate (TYPE(C_PTR)) and Put')
    call MPI_Win_free(win)
    call chk(win == MPI_WIN_NULL, 'Win_free')

    ! Pack_external: CHARACTER and buffers in one BIND(C) routine, sections
    call MPI_Pack_external_size('external32', 3, MPI_INTEGER, a2)
    a1 = 0
    call MPI_Pack_external('external32', a(1:5:2), 3, MPI_INTEGER, pk, 64_MPI_ADDRESS_KIND, a1)
    n = a1
    b = 0
    a1 = 0
    call MPI_Unpack_external(' external32 ', pk, 64_MPI_ADDRESS_KIND, a1, b(2:10:3), 3, &
                             MPI_INTEGER, ierr)
    call chk(a2 == 12 .and. n == 12 .and. a1 == 12 .and. ierr == MPI_SUCCESS .and. &
             ichar(pk(4)) == mod(rank * 100 + 1, 256) .and. &
             all(b(2:10:3) == [a(1), a(3), a(5)]) .and. count(b == 0) == 17, &
             'Pack_external / Unpack_external (big-endian) of sections')

    ! addresses and sizes
    call MPI_Get_address(m(1, 2), a1)
    call MPI_Get_address(m(3:5, 3), a2)
    call chk(MPI_Aint_diff(a2, a1) == 4 * 7 .and. MPI_Aint_add(a1, 28_MPI_ADDRESS_KIND) == a2, &
             'Get_address of sections, Aint_add / diff')
    call MPI_Sizeof(x, n)
    call MPI_Sizeof(1.0d0, k)
    call MPI_Sizeof(a1, i, ierr)
    call chk(n == 4 .and. k == 8 .and. i == 8 .and. ierr == MPI_SUCCESS, 'MPI_Sizeof')
    call chk(MPI_Wtime() >= t0 .and. MPI_Wtick() > 0, 'Wtime / Wtick')
    call MPI_Comm_free(dup)

    tot = [nerr, nchk]
    call MPI_Allreduce(MPI_IN_PLACE, tot, 2, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD)
    if (rank == 0) then
        if (tot(1) == 0) then
            write (*, '(a,i0,a,i0,a)') 'f_f08x: ', tot(2), ' checks on ', nproc, ' rank(s)'
            write (*, '(a)') 'PASS'
        else
            write (*, '(a,i0,a)') 'f_f08x: ', tot(1), ' check(s) failed'
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

end program f_f08x
