! f_mixed.f90: (issue 16) a mixed C/Fortran program, with f_mixed.c:
! Fortran handles go to C (MPI_*_f2c there), handles made in C come back
! (MPI_*_c2f) and are used here; a request crosses both ways, and a status
! crosses through MPI_Status_c2f / MPI_Status_f2c. Any number of ranks.
program f_mixed
    use mpi
    use iso_c_binding, only: c_int
    implicit none
    interface
        integer(c_int) function fm_consts(world, self, dp, integer, sum, reqnull, &
                                          commnull, errret) bind(C)
            import :: c_int
            integer(c_int), value :: world, self, dp, integer, sum, reqnull, commnull, errret
        end function fm_consts
        integer(c_int) function fm_use_comm(fcomm, want_size, want_rank) bind(C)
            import :: c_int
            integer(c_int), value :: fcomm, want_size, want_rank
        end function fm_use_comm
        integer(c_int) function fm_make_comm() bind(C)
            import :: c_int
        end function fm_make_comm
        integer(c_int) function fm_make_type() bind(C)
            import :: c_int
        end function fm_make_type
        integer(c_int) function fm_make_info() bind(C)
            import :: c_int
        end function fm_make_info
        integer(c_int) function fm_make_group() bind(C)
            import :: c_int
        end function fm_make_group
        integer(c_int) function fm_start_irecv(buf, count, src, tag) bind(C)
            import :: c_int
            integer(c_int), intent(inout) :: buf(*)
            integer(c_int), value :: count, src, tag
        end function fm_start_irecv
        integer(c_int) function fm_wait_fortran_req(freq, fstatus, src, tag, count) bind(C)
            import :: c_int
            integer(c_int), intent(inout) :: freq, fstatus(*)
            integer(c_int), value :: src, tag, count
        end function fm_wait_fortran_req
        integer(c_int) function fm_read_status(fstatus, src, tag, count) bind(C)
            import :: c_int
            integer(c_int), intent(in) :: fstatus(*)
            integer(c_int), value :: src, tag, count
        end function fm_read_status
    end interface

    integer :: rank, nproc, ierr, left, right, nerr, nchk, tot(2)
    integer :: comm, ccomm, ctype, info, group, req, n, i, res, st(MPI_STATUS_SIZE)
    integer, target :: ibuf(8), jbuf(8)
    character(len=MPI_MAX_OBJECT_NAME) :: cname
    character(len=32) :: val
    logical :: flag

    nerr = 0
    nchk = 0
    call MPI_Init(ierr)
    call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
    call MPI_Comm_size(MPI_COMM_WORLD, nproc, ierr)
    right = mod(rank + 1, nproc)
    left = mod(rank - 1 + nproc, nproc)

    call csum(fm_consts(MPI_COMM_WORLD, MPI_COMM_SELF, MPI_DOUBLE_PRECISION, MPI_INTEGER, &
                        MPI_SUM, MPI_REQUEST_NULL, MPI_COMM_NULL, MPI_ERRORS_RETURN))

    ! Fortran communicators into C: a dup of world and a split by parity
    call MPI_Comm_dup(MPI_COMM_WORLD, comm, ierr)
    call csum(fm_use_comm(comm, nproc, rank))
    call MPI_Comm_free(comm, ierr)
    call MPI_Comm_split(MPI_COMM_WORLD, mod(rank, 2), rank, comm, ierr)
    call csum(fm_use_comm(comm, (nproc - mod(rank, 2) + 1) / 2, rank / 2))
    call MPI_Comm_free(comm, ierr)

    ! a C communicator in Fortran: world reversed, named in C
    ccomm = fm_make_comm()
    call chk(ccomm /= MPI_COMM_NULL, 'Comm_c2f of a C communicator')
    call MPI_Comm_rank(ccomm, n, ierr)
    call chk(ierr == MPI_SUCCESS .and. n == nproc - 1 - rank, 'rank in a C communicator')
    call MPI_Comm_get_name(ccomm, cname, n, ierr)
    call chk(cname == 'made in C' .and. n == 9, 'name set in C, read in Fortran')
    n = rank
    call MPI_Allreduce(MPI_IN_PLACE, n, 1, MPI_INTEGER, MPI_MAX, ccomm, ierr)
    call chk(n == nproc - 1, 'Allreduce on a C communicator')
    call MPI_Comm_compare(ccomm, MPI_COMM_WORLD, res, ierr)
    if (nproc == 1) then
        call chk(res == MPI_CONGRUENT, 'Comm_compare: C comm of one rank')
    else
        call chk(res == MPI_SIMILAR, 'Comm_compare: C comm is world reordered')
    end if
    call MPI_Comm_free(ccomm, ierr)
    call chk(ccomm == MPI_COMM_NULL, 'Comm_free of a C communicator')

    ! a C datatype in Fortran: every other INTEGER of 3
    ctype = fm_make_type()
    call MPI_Type_size(ctype, n, ierr)
    call chk(ierr == MPI_SUCCESS .and. n == 12, 'Type_size of a C type')
    ibuf = [(rank * 10 + i, i = 1, 8)]
    jbuf = -1
    call MPI_Sendrecv(ibuf, 1, ctype, right, 1, jbuf, 3, MPI_INTEGER, left, 1, &
                      MPI_COMM_WORLD, st, ierr)
    call chk(all(jbuf(1:3) == [left * 10 + 1, left * 10 + 3, left * 10 + 5]) .and. &
             jbuf(4) == -1, 'data sent with a C type')
    call MPI_Type_free(ctype, ierr)
    call chk(ctype == MPI_DATATYPE_NULL, 'Type_free of a C type')

    ! a C info and group in Fortran
    info = fm_make_info()
    call MPI_Info_get(info, 'made_in', len(val), val, flag, ierr)
    call chk(flag .and. val == 'C side', 'Info made in C')
    call MPI_Info_free(info, ierr)
    group = fm_make_group()
    call MPI_Group_size(group, n, ierr)
    call MPI_Group_rank(group, i, ierr)
    call chk(n == nproc .and. i == rank, 'Group made in C')
    call MPI_Group_free(group, ierr)
    call chk(group == MPI_GROUP_NULL, 'Group_free')

    ! a request started in C, completed in Fortran with a Fortran status
    jbuf = -1
    req = fm_start_irecv(jbuf, 4, left, 2)
    call chk(req /= MPI_REQUEST_NULL, 'Request_c2f')
    call MPI_Send(ibuf, 4, MPI_INTEGER, right, 2, MPI_COMM_WORLD, ierr)
    call MPI_Wait(req, st, ierr)
    call chk(req == MPI_REQUEST_NULL, 'Wait in Fortran frees a C request')
    call MPI_Get_count(st, MPI_INTEGER, n, ierr)
    call chk(st(MPI_SOURCE) == left .and. st(MPI_TAG) == 2 .and. n == 4, &
             'status of a C request')
    call chk(all(jbuf(1:4) == [(left * 10 + i, i = 1, 4)]), 'data of a C request')

    ! a request started in Fortran, completed in C; status back by c2f
    jbuf = -1
    call MPI_Irecv(jbuf, 8, MPI_INTEGER, left, 3, MPI_COMM_WORLD, req, ierr)
    call MPI_Send(ibuf, 5, MPI_INTEGER, right, 3, MPI_COMM_WORLD, ierr)
    st = -99
    call csum(fm_wait_fortran_req(req, st, left, 3, 5))
    call chk(req == MPI_REQUEST_NULL, 'Wait in C frees a Fortran request')
    call MPI_Get_count(st, MPI_INTEGER, n, ierr)
    call chk(st(MPI_SOURCE) == left .and. st(MPI_TAG) == 3 .and. n == 5, &
             'Status_c2f fields')
    call chk(all(jbuf(1:5) == [(left * 10 + i, i = 1, 5)]) .and. jbuf(6) == -1, &
             'data of a Fortran request completed in C')

    ! a Fortran status read in C
    call MPI_Sendrecv(ibuf, 7, MPI_INTEGER, right, 4, jbuf, 8, MPI_INTEGER, left, 4, &
                      MPI_COMM_WORLD, st, ierr)
    call csum(fm_read_status(st, left, 4, 7))

    tot = [nerr, nchk]
    call MPI_Allreduce(MPI_IN_PLACE, tot, 2, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
    if (rank == 0) then
        if (tot(1) == 0) then
            write (*, '(a,i0,a,i0,a)') 'f_mixed: ', tot(2), ' checks on ', nproc, ' rank(s)'
            write (*, '(a)') 'PASS'
        else
            write (*, '(a,i0,a)') 'f_mixed: ', tot(1), ' check(s) failed'
            write (*, '(a)') 'FAIL'
        end if
    end if
    call MPI_Finalize(ierr)
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

    ! csum: the failures a C check function returned (printed there)
    subroutine csum(nfail)
        integer, intent(in) :: nfail
        nchk = nchk + 1
        nerr = nerr + nfail
    end subroutine csum

end program f_mixed
