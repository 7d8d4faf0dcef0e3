! f_usempi.f90: (issue 16) the `mpi` module, free form, any number of
! ranks (exchanges are rings, to self on one rank). The checks are
! internal procedures of one program sharing the counters; the error
! count is summed at the end so every rank exits non-zero on a failure.

! The user op: 2x2 integer matrices multiplied (invec * inoutvec), kept
! small modulo 1009; matrix product is not commutative, so only a
! reduction in rank order gives the product r0 * r1 * ... * r(n-1).
subroutine matmul_op(invec, inoutvec, n, dtype)
    implicit none
    integer, intent(in) :: n, dtype
    integer, intent(in) :: invec(4, n)
    integer, intent(inout) :: inoutvec(4, n)
    integer :: i, a(2, 2), b(2, 2)
    if (dtype < -huge(dtype)) return ! dtype is unused; keeps -Wall quiet
    do i = 1, n
        a = reshape(invec(:, i), [2, 2])
        b = reshape(inoutvec(:, i), [2, 2])
        inoutvec(:, i) = reshape(mod(matmul(a, b), 1009), [4])
    end do
end subroutine matmul_op

program f_usempi
    use mpi
    implicit none
    integer :: rank, nproc, ierr, left, right
    integer :: nerr = 0, nchk = 0, tot(2)

    call MPI_Init(ierr)
    call chk(ierr == MPI_SUCCESS, 'MPI_Init ierror')
    call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
    call MPI_Comm_size(MPI_COMM_WORLD, nproc, ierr)
    right = mod(rank + 1, nproc)
    left = mod(rank - 1 + nproc, nproc)

    call test_p2p()
    call test_reqs()
    call test_coll()
    call test_uop()
    call test_types()
    call test_comms()
    call test_errors()
    call test_strings()

    tot = [nerr, nchk]
    call MPI_Allreduce(MPI_IN_PLACE, tot, 2, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
    if (ierr /= MPI_SUCCESS) tot(1) = tot(1) + 1
    if (rank == 0) then
        if (tot(1) == 0) then
            write (*, '(a,i0,a,i0,a)') 'f_usempi: ', tot(2), ' checks on ', nproc, ' rank(s)'
            write (*, '(a)') 'PASS'
        else
            write (*, '(a,i0,a)') 'f_usempi: ', tot(1), ' check(s) failed'
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

    subroutine chkst(st, src, tag, dtype, cnt, what)
        integer, intent(in) :: st(MPI_STATUS_SIZE), src, tag, dtype, cnt
        character(len=*), intent(in) :: what
        integer :: n, e
        call chk(st(MPI_SOURCE) == src, what // ': MPI_SOURCE')
        call chk(st(MPI_TAG) == tag, what // ': MPI_TAG')
        n = -7
        call MPI_Get_count(st, dtype, n, e)
        call chk(e == MPI_SUCCESS .and. n == cnt, what // ': MPI_Get_count')
    end subroutine chkst

    subroutine test_p2p()
        integer, parameter :: n = 6
        integer :: ia(n), ib(n), req, st(MPI_STATUS_SIZE), i
        real :: ra(n), rb(n)
        double precision :: da(n), db(n)
        complex :: ca(n), cb(n)
        double complex :: za(n), zb(n)
        logical :: la(n), lb(n)
        character(len=9) :: sa, sb
        integer(kind=1) :: i1a(n), i1b(n)
        integer(kind=2) :: i2a(n), i2b(n)
        integer(kind=8) :: i8a(n), i8b(n)

        ia = [(rank * 100 + i, i = 1, n)]
        ra = [(rank + 0.5 * i, i = 1, n)]
        da = [(rank + 1.0d-12 * i, i = 1, n)]
        ca = [(cmplx(real(i), real(rank)), i = 1, n)]
        za = [(dcmplx(1.0d20 * i, -dble(rank)), i = 1, n)]
        la = [(mod(i * (rank + 1), 3) == 0, i = 1, n)]
        i1a = [(int(-100 + rank + i, 1), i = 1, n)]
        i2a = [(int(20000 + rank * 10 + i, 2), i = 1, n)]
        i8a = [(-(2_8**50) * (rank + 1) - i, i = 1, n)]
        write (sa, '(a,i3.3)') 'rank ', rank

        call MPI_Isend(ia, n, MPI_INTEGER, right, 1, MPI_COMM_WORLD, req, ierr)
        ! a call with one status never writes its MPI_ERROR (MPI 3.1 3.2.5)
        st(MPI_ERROR) = 4242
        call MPI_Recv(ib, n, MPI_INTEGER, left, 1, MPI_COMM_WORLD, st, ierr)
        call chk(ierr == MPI_SUCCESS, 'Recv ierror')
        call chk(st(MPI_ERROR) == 4242, 'Recv leaves status(MPI_ERROR) as it was')
        call MPI_Wait(req, MPI_STATUS_IGNORE, ierr)
        call chkst(st, left, 1, MPI_INTEGER, n, 'INTEGER')
        call chk(all(ib == [(left * 100 + i, i = 1, n)]), 'INTEGER data')

        call MPI_Isend(ra, n, MPI_REAL, right, 2, MPI_COMM_WORLD, req, ierr)
        call MPI_Recv(rb, n, MPI_REAL, left, 2, MPI_COMM_WORLD, st, ierr)
        call MPI_Wait(req, MPI_STATUS_IGNORE, ierr)
        call chkst(st, left, 2, MPI_REAL, n, 'REAL')
        call chk(all(rb == [(left + 0.5 * i, i = 1, n)]), 'REAL data')

        call MPI_Isend(da, n, MPI_DOUBLE_PRECISION, right, 3, MPI_COMM_WORLD, req, ierr)
        call MPI_Recv(db, n, MPI_DOUBLE_PRECISION, left, 3, MPI_COMM_WORLD, st, ierr)
        call MPI_Wait(req, MPI_STATUS_IGNORE, ierr)
        call chkst(st, left, 3, MPI_DOUBLE_PRECISION, n, 'DOUBLE PRECISION')
        call chk(all(db == [(left + 1.0d-12 * i, i = 1, n)]), 'DOUBLE PRECISION data')

        call MPI_Isend(ca, n, MPI_COMPLEX, right, 4, MPI_COMM_WORLD, req, ierr)
        call MPI_Recv(cb, n, MPI_COMPLEX, left, 4, MPI_COMM_WORLD, st, ierr)
        call MPI_Wait(req, MPI_STATUS_IGNORE, ierr)
        call chkst(st, left, 4, MPI_COMPLEX, n, 'COMPLEX')
        call chk(all(cb == [(cmplx(real(i), real(left)), i = 1, n)]), 'COMPLEX data')

        call MPI_Isend(za, n, MPI_DOUBLE_COMPLEX, right, 5, MPI_COMM_WORLD, req, ierr)
        call MPI_Recv(zb, n, MPI_DOUBLE_COMPLEX, left, 5, MPI_COMM_WORLD, st, ierr)
        call MPI_Wait(req, MPI_STATUS_IGNORE, ierr)
        call chkst(st, left, 5, MPI_DOUBLE_COMPLEX, n, 'DOUBLE COMPLEX')
        call chk(all(zb == [(dcmplx(1.0d20 * i, -dble(left)), i = 1, n)]), 'DOUBLE COMPLEX data')

        call MPI_Isend(la, n, MPI_LOGICAL, right, 6, MPI_COMM_WORLD, req, ierr)
        call MPI_Recv(lb, n, MPI_LOGICAL, left, 6, MPI_COMM_WORLD, st, ierr)
        call MPI_Wait(req, MPI_STATUS_IGNORE, ierr)
        call chkst(st, left, 6, MPI_LOGICAL, n, 'LOGICAL')
        call chk(all(lb .eqv. [(mod(i * (left + 1), 3) == 0, i = 1, n)]), 'LOGICAL data')

        sb = '?????????'
        call MPI_Isend(sa, len(sa), MPI_CHARACTER, right, 7, MPI_COMM_WORLD, req, ierr)
        call MPI_Recv(sb, len(sb), MPI_CHARACTER, left, 7, MPI_COMM_WORLD, st, ierr)
        call MPI_Wait(req, MPI_STATUS_IGNORE, ierr)
        call chkst(st, left, 7, MPI_CHARACTER, 9, 'CHARACTER')
        write (sa, '(a,i3.3)') 'rank ', left
        call chk(sb == sa, 'CHARACTER data')

        call MPI_Isend(i1a, n, MPI_INTEGER1, right, 8, MPI_COMM_WORLD, req, ierr)
        call MPI_Recv(i1b, n, MPI_INTEGER1, left, 8, MPI_COMM_WORLD, st, ierr)
        call MPI_Wait(req, MPI_STATUS_IGNORE, ierr)
        call chkst(st, left, 8, MPI_INTEGER1, n, 'INTEGER(1)')
        call chk(all(i1b == [(int(-100 + left + i, 1), i = 1, n)]), 'INTEGER(1) data')

        call MPI_Isend(i2a, n, MPI_INTEGER2, right, 9, MPI_COMM_WORLD, req, ierr)
        call MPI_Recv(i2b, n, MPI_INTEGER2, left, 9, MPI_COMM_WORLD, st, ierr)
        call MPI_Wait(req, MPI_STATUS_IGNORE, ierr)
        call chkst(st, left, 9, MPI_INTEGER2, n, 'INTEGER(2)')
        call chk(all(i2b == [(int(20000 + left * 10 + i, 2), i = 1, n)]), 'INTEGER(2) data')

        call MPI_Isend(i8a, n, MPI_INTEGER8, right, 10, MPI_COMM_WORLD, req, ierr)
        call MPI_Recv(i8b, n, MPI_INTEGER8, left, 10, MPI_COMM_WORLD, st, ierr)
        call MPI_Wait(req, MPI_STATUS_IGNORE, ierr)
        call chkst(st, left, 10, MPI_INTEGER8, n, 'INTEGER(8)')
        call chk(all(i8b == [(-(2_8**50) * (left + 1) - i, i = 1, n)]), 'INTEGER(8) data')

        ! Sendrecv_replace: the array comes back from the other side
        ib = ia
        call MPI_Sendrecv_replace(ib, n, MPI_INTEGER, left, 11, right, 11, MPI_COMM_WORLD, st, ierr)
        call chkst(st, right, 11, MPI_INTEGER, n, 'Sendrecv_replace')
        call chk(all(ib == [(right * 100 + i, i = 1, n)]), 'Sendrecv_replace data')

        ! Probe, then receive what it saw with a count from Get_count
        call MPI_Isend(da, 3, MPI_DOUBLE_PRECISION, right, 12, MPI_COMM_WORLD, req, ierr)
        call MPI_Probe(left, 12, MPI_COMM_WORLD, st, ierr)
        call chkst(st, left, 12, MPI_DOUBLE_PRECISION, 3, 'Probe')
        db = -1
        call MPI_Recv(db, 3, MPI_DOUBLE_PRECISION, left, 12, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
        call MPI_Wait(req, MPI_STATUS_IGNORE, ierr)
        call chk(all(db(1:3) == [(left + 1.0d-12 * i, i = 1, 3)]) .and. db(4) == -1, &
                 'Recv after Probe')
    end subroutine test_p2p

    subroutine test_reqs()
        integer, parameter :: k = 3
        integer :: reqs(2 * k), sts(MPI_STATUS_SIZE, 2 * k), rbuf(2 * k), i, outcount
        integer :: idx(2 * k)
        logical :: flag

        rbuf = -1
        do i = 1, k
            call MPI_Irecv(rbuf(i), 1, MPI_INTEGER, left, i, MPI_COMM_WORLD, reqs(i), ierr)
            call MPI_Isend(rank * 10 + i, 1, MPI_INTEGER, right, i, MPI_COMM_WORLD, &
                           reqs(k + i), ierr)
        end do
        call MPI_Waitall(2 * k, reqs, MPI_STATUSES_IGNORE, ierr)
        call chk(ierr == MPI_SUCCESS .and. all(reqs == MPI_REQUEST_NULL), &
                 'Waitall MPI_STATUSES_IGNORE')
        call chk(all(rbuf(1:k) == [(left * 10 + i, i = 1, k)]), 'Waitall data')

        do i = 1, k
            call MPI_Irecv(rbuf(i), 1, MPI_INTEGER, MPI_ANY_SOURCE, 20 + i, MPI_COMM_WORLD, &
                           reqs(i), ierr)
        end do
        do i = 1, k
            call MPI_Send(rank * 10 + i, 1, MPI_INTEGER, right, 20 + i, MPI_COMM_WORLD, ierr)
        end do
        flag = .false.
        ! MPI_ERROR is written only with MPI_ERR_IN_STATUS
        sts(MPI_ERROR, :) = 4343
        do while (.not. flag)
            call MPI_Testall(k, reqs, flag, sts, ierr)
        end do
        call chk(ierr == MPI_SUCCESS .and. all(sts(MPI_ERROR, 1:k) == 4343), &
                 'Testall leaves status(MPI_ERROR) as it was')
        call chk(all(sts(MPI_SOURCE, 1:k) == left) .and. &
                 all(sts(MPI_TAG, 1:k) == [(20 + i, i = 1, k)]), 'Testall statuses')

        do i = 1, k
            call MPI_Irecv(rbuf(i), 1, MPI_INTEGER, left, 30 + i, MPI_COMM_WORLD, reqs(i), ierr)
            call MPI_Send(i, 1, MPI_INTEGER, right, 30 + i, MPI_COMM_WORLD, ierr)
        end do
        call MPI_Waitsome(k, reqs, outcount, idx, sts, ierr)
        call chk(outcount >= 1 .and. outcount <= k .and. all(idx(1:outcount) >= 1) .and. &
                 all(idx(1:outcount) <= k), 'Waitsome indices are 1-based')
        call MPI_Waitall(k, reqs, MPI_STATUSES_IGNORE, ierr)
        call chk(all(rbuf(1:k) == [(i, i = 1, k)]), 'Waitsome data')
    end subroutine test_reqs

    subroutine test_coll()
        integer :: ia(3), i, counts(nproc), displs(nproc), sv(nproc)
        integer, allocatable :: all_v(:)
        double precision :: d(2)
        logical :: l

        ia = [rank, 2 * rank, 1]
        call MPI_Allreduce(MPI_IN_PLACE, ia, 3, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
        call chk(all(ia == [nproc * (nproc - 1) / 2, nproc * (nproc - 1), nproc]), &
                 'Allreduce MPI_IN_PLACE')
        d = [dble(rank), -dble(rank)]
        call MPI_Allreduce(MPI_IN_PLACE, d, 2, MPI_DOUBLE_PRECISION, MPI_MAX, MPI_COMM_WORLD, ierr)
        call chk(all(d == [dble(nproc - 1), 0.0d0]), 'Allreduce MPI_MAX DOUBLE PRECISION')
        l = rank == 0
        call MPI_Allreduce(MPI_IN_PLACE, l, 1, MPI_LOGICAL, MPI_LOR, MPI_COMM_WORLD, ierr)
        call chk(l, 'Allreduce MPI_LOR LOGICAL')

        ! Gatherv of rank+1 integers each, at the last rank
        allocate (all_v(nproc * (nproc + 1) / 2))
        all_v = -1
        do i = 1, nproc
            counts(i) = i
            displs(i) = (i - 1) * i / 2
        end do
        sv = rank
        call MPI_Gatherv(sv, rank + 1, MPI_INTEGER, all_v, counts, displs, MPI_INTEGER, &
                         nproc - 1, MPI_COMM_WORLD, ierr)
        if (rank == nproc - 1) then
            call chk(all([(all_v(displs(i) + 1:displs(i) + i) == i - 1, i = 1, nproc)]), &
                     'Gatherv')
        end if
        ! Scatter from rank 0, then Reduce_scatter_block with IN_PLACE
        all_v(1:nproc) = [(i * 7, i = 0, nproc - 1)]
        call MPI_Scatter(all_v, 1, MPI_INTEGER, ia, 1, MPI_INTEGER, 0, MPI_COMM_WORLD, ierr)
        call chk(ia(1) == rank * 7, 'Scatter')
        all_v(1:nproc) = [(i, i = 1, nproc)]
        call MPI_Reduce_scatter_block(MPI_IN_PLACE, all_v, 1, MPI_INTEGER, MPI_SUM, &
                                      MPI_COMM_WORLD, ierr)
        call chk(all_v(1) == (rank + 1) * nproc, 'Reduce_scatter_block MPI_IN_PLACE')
        deallocate (all_v)
        ia(1) = rank + 1
        call MPI_Exscan(MPI_IN_PLACE, ia, 1, MPI_INTEGER, MPI_PROD, MPI_COMM_WORLD, ierr)
        if (rank > 0) call chk(ia(1) == product([(i, i = 1, rank)]), 'Exscan MPI_IN_PLACE')
    end subroutine test_coll

    subroutine test_uop()
        integer :: v(4, 2), e(4, 2), r, i

        ! e: the product in rank order, computed here
        e(:, 1) = [1, 0, 0, 1]
        e(:, 2) = [1, 0, 0, 1]
        do r = 0, nproc - 1
            do i = 1, 2
                e(:, i) = reshape(mod(matmul(reshape(e(:, i), [2, 2]), &
                                             reshape(elem(r, i), [2, 2])), 1009), [4])
            end do
        end do
        v(:, 1) = elem(rank, 1)
        v(:, 2) = elem(rank, 2)
        call uop_typed(v, e)
    end subroutine test_uop

    function elem(r, i) result(m)
        integer, intent(in) :: r, i
        integer :: m(4)
        m = [r + i, 1, 2 * r + 1, i]
    end function elem

    ! The op over a contiguous type of 4 INTEGERs: one matrix per element.
    subroutine uop_typed(v, e)
        integer, intent(in) :: v(4, 2), e(4, 2)
        external :: matmul_op
        integer :: op, mt, w(4, 2)
        logical :: cmt

        call MPI_Type_contiguous(4, MPI_INTEGER, mt, ierr)
        call MPI_Type_commit(mt, ierr)
        call MPI_Op_create(matmul_op, .false., op, ierr)
        call chk(ierr == MPI_SUCCESS .and. op /= MPI_OP_NULL, 'Op_create')
        cmt = .true.
        call MPI_Op_commutative(op, cmt, ierr)
        call chk(.not. cmt, 'Op_commutative .false.')
        w = -1
        call MPI_Allreduce(v, w, 2, mt, op, MPI_COMM_WORLD, ierr)
        call chk(ierr == MPI_SUCCESS .and. all(w == e), &
                 'Allreduce with the user op in rank order')
        w = -1
        call MPI_Reduce(v, w, 2, mt, op, nproc - 1, MPI_COMM_WORLD, ierr)
        if (rank == nproc - 1) call chk(all(w == e), 'Reduce with the user op in rank order')
        call MPI_Op_free(op, ierr)
        call chk(op == MPI_OP_NULL, 'Op_free')
        call MPI_Type_free(mt, ierr)
    end subroutine uop_typed

    subroutine test_types()
        integer, parameter :: m = 5, nc = 4
        double precision :: a(m, nc), b(m, nc)
        integer :: sub, sizes(2), subs(2), starts(2), i, j, sz
        integer(kind=MPI_ADDRESS_KIND) :: lb, ext

        ! a 3 x 2 block at (2, 2) of a 5 x 4 array (Fortran order)
        a = reshape([(dble(rank * 100 + i), i = 1, m * nc)], [m, nc])
        b = -1
        sizes = [m, nc]
        subs = [3, 2]
        starts = [1, 1]
        call MPI_Type_create_subarray(2, sizes, subs, starts, MPI_ORDER_FORTRAN, &
                                      MPI_DOUBLE_PRECISION, sub, ierr)
        call chk(ierr == MPI_SUCCESS, 'Type_create_subarray MPI_ORDER_FORTRAN')
        call MPI_Type_commit(sub, ierr)
        call MPI_Type_size(sub, sz, ierr)
        call MPI_Type_get_extent(sub, lb, ext, ierr)
        call chk(sz == 6 * 8 .and. lb == 0 .and. ext == m * nc * 8, 'subarray size and extent')
        call MPI_Sendrecv(a, 1, sub, right, 40, b, 1, sub, left, 40, MPI_COMM_WORLD, &
                          MPI_STATUS_IGNORE, ierr)
        do j = 1, nc
            do i = 1, m
                if (i >= 2 .and. i <= 4 .and. j >= 2 .and. j <= 3) then
                    call chk(b(i, j) == left * 100 + i + (j - 1) * m, 'subarray block')
                else
                    call chk(b(i, j) == -1, 'subarray leaves the rest')
                end if
            end do
        end do
        call MPI_Type_free(sub, ierr)
    end subroutine test_types

    subroutine test_comms()
        integer :: cart, dims(2), coords(2), src, dst, crank, sub, ssize, v
        logical :: periods(2), remain(2)

        dims = 0
        call MPI_Dims_create(nproc, 2, dims, ierr)
        periods = [.false., .true.]
        call MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, .true., cart, ierr)
        call chk(ierr == MPI_SUCCESS, 'Cart_create reorder .true.')
        call MPI_Comm_rank(cart, crank, ierr)
        call MPI_Cart_coords(cart, crank, 2, coords, ierr)
        call MPI_Cart_shift(cart, 1, 1, src, dst, ierr)
        call chk(dst == coords(1) * dims(2) + mod(coords(2) + 1, dims(2)), 'Cart_shift periodic')
        call MPI_Cart_shift(cart, 0, 1, src, dst, ierr)
        if (coords(1) == dims(1) - 1) then
            call chk(dst == MPI_PROC_NULL, 'Cart_shift past the edge')
        else
            call chk(dst == crank + dims(2), 'Cart_shift non-periodic')
        end if
        ! rows of the grid: Cart_sub keeps dimension 2
        remain = [.false., .true.]
        call MPI_Cart_sub(cart, remain, sub, ierr)
        call MPI_Comm_size(sub, ssize, ierr)
        call chk(ssize == dims(2), 'Cart_sub LOGICAL remain_dims')
        v = crank
        call MPI_Allreduce(MPI_IN_PLACE, v, 1, MPI_INTEGER, MPI_MIN, sub, ierr)
        call chk(v == coords(1) * dims(2), 'Allreduce on a Cart_sub row')
        call MPI_Comm_free(sub, ierr)
        call MPI_Comm_free(cart, ierr)
        call chk(cart == MPI_COMM_NULL, 'Comm_free')
    end subroutine test_comms

    subroutine test_errors()
        integer :: e, cls, slen, dummy(1), eh
        character(len=MPI_MAX_ERROR_STRING) :: str

        call MPI_Comm_dup(MPI_COMM_WORLD, dummy(1), ierr)
        call MPI_Comm_set_errhandler(dummy(1), MPI_ERRORS_RETURN, ierr)
        call MPI_Comm_get_errhandler(dummy(1), eh, ierr)
        call chk(eh == MPI_ERRORS_RETURN, 'Comm_get_errhandler')
        call MPI_Errhandler_free(eh, ierr)
        call MPI_Bcast(str, 1, MPI_CHARACTER, nproc, dummy(1), e)
        call MPI_Error_class(e, cls, ierr)
        call chk(cls == MPI_ERR_ROOT, 'Bcast root out of range: MPI_ERR_ROOT')
        str = ''
        call MPI_Error_string(e, str, slen, ierr)
        call chk(slen > 0 .and. len_trim(str) == slen, 'Error_string, blank-padded')
        call MPI_Comm_free(dummy(1), ierr)
    end subroutine test_errors

    subroutine test_strings()
        character(len=MPI_MAX_PROCESSOR_NAME) :: pname
        character(len=MPI_MAX_OBJECT_NAME) :: tname
        character(len=20) :: val
        integer :: plen, tlen, info, t
        logical :: flag

        call MPI_Get_processor_name(pname, plen, ierr)
        call chk(ierr == MPI_SUCCESS .and. plen > 0 .and. len_trim(pname) == plen, &
                 'Get_processor_name')
        call MPI_Type_dup(MPI_REAL, t, ierr)
        call MPI_Type_set_name(t, 'my real', ierr)
        call MPI_Type_get_name(t, tname, tlen, ierr)
        call chk(tname == 'my real' .and. tlen == 7, 'Type_set_name / get_name')
        call MPI_Type_free(t, ierr)
        call MPI_Type_get_name(MPI_DOUBLE_PRECISION, tname, tlen, ierr)
        call chk(tname == 'MPI_DOUBLE_PRECISION' .and. tlen == 20, &
                 'Type_get_name of MPI_DOUBLE_PRECISION')
        call MPI_Info_create(info, ierr)
        call MPI_Info_set(info, 'striping_unit', '65536', ierr)
        call MPI_Info_get(info, 'striping_unit', len(val), val, flag, ierr)
        call chk(flag .and. val == '65536', 'Info_set / Info_get')
        call MPI_Info_get(info, 'nothing', len(val), val, flag, ierr)
        call chk(.not. flag, 'Info_get absent key')
        call MPI_Info_free(info, ierr)
        call chk(MPI_Wtime() >= 0 .and. MPI_Wtick() > 0, 'Wtime / Wtick')
    end subroutine test_strings

end program f_usempi
