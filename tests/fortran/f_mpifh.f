! f_mpifh.f: (issue 16) the mpif.h binding, fixed form, any number of
! ranks (1 included: every exchange is a ring, to self on one rank).
! Each group of checks is a subroutine; a failed check prints the rank
! and what failed, and the error counts are summed at the end so every
! rank exits non-zero when any check failed anywhere.
      program fmpifh
      implicit none
      include 'mpif.h'
      integer rank, nproc, ierr, nerr, nchk, tot(2)
      common /fcnt/ nerr, nchk
      nerr = 0
      nchk = 0
      call MPI_Init(ierr)
      call chk(ierr .eq. MPI_SUCCESS, 'MPI_Init ierror')
      call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
      call MPI_Comm_size(MPI_COMM_WORLD, nproc, ierr)
      call tp2p(rank, nproc)
      call treqs(rank, nproc)
      call tcoll(rank, nproc)
      call tloc(rank, nproc)
      call tuop(rank, nproc)
      call tvec(rank, nproc)
      call tcomm(rank, nproc)
      call terr(rank, nproc)
      call tstr(rank, nproc)
      call tbot(rank, nproc)
      tot(1) = nerr
      tot(2) = nchk
      call MPI_Allreduce(MPI_IN_PLACE, tot, 2, MPI_INTEGER, MPI_SUM,
     &     MPI_COMM_WORLD, ierr)
      if (ierr .ne. MPI_SUCCESS) tot(1) = tot(1) + 1
      if (rank .eq. 0) then
         if (tot(1) .eq. 0) then
            write(*,'(a,i0,a,i0,a)') 'f_mpifh: ', tot(2),
     &           ' checks on ', nproc, ' rank(s)'
            write(*,'(a)') 'PASS'
         else
            write(*,'(a,i0,a)') 'f_mpifh: ', tot(1), ' check(s) failed'
            write(*,'(a)') 'FAIL'
         endif
      endif
      call MPI_Finalize(ierr)
      if (tot(1) .ne. 0) stop 1
      end

! chk: counts a check; prints it with the rank when it failed.
      subroutine chk(ok, what)
      implicit none
      include 'mpif.h'
      logical ok
      character*(*) what
      integer nerr, nchk, rank, ierr
      common /fcnt/ nerr, nchk
      nchk = nchk + 1
      if (.not. ok) then
         call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
         write(*,'(a,i0,2a)') 'FAIL: rank ', rank, ': ', what
         nerr = nerr + 1
      endif
      end

! chkst: a received status names SRC and TAG and holds CNT of DTYPE.
      subroutine chkst(status, src, tag, dtype, cnt, what)
      implicit none
      include 'mpif.h'
      integer status(MPI_STATUS_SIZE), src, tag, dtype, cnt
      character*(*) what
      integer n, ierr
      call chk(status(MPI_SOURCE) .eq. src, what // ': MPI_SOURCE')
      call chk(status(MPI_TAG) .eq. tag, what // ': MPI_TAG')
      n = -7
      call MPI_Get_count(status, dtype, n, ierr)
      call chk(ierr .eq. MPI_SUCCESS .and. n .eq. cnt,
     &     what // ': MPI_Get_count')
      end

! Point-to-point with every Fortran datatype: Isend to the right,
! Recv from the left with a status, then Wait.
      subroutine tp2p(rank, nproc)
      implicit none
      include 'mpif.h'
      integer rank, nproc
      integer n
      parameter (n = 5)
      integer right, left, i, ierr, req
      integer st(MPI_STATUS_SIZE)
      integer ia(n), ib(n)
      real ra(n), rb(n)
      double precision da(n), db(n)
      complex ca(n), cb(n)
      double complex za(n), zb(n)
      logical la(n), lb(n)
      character*13 sa, sb
      integer*1 i1a(n), i1b(n)
      integer*2 i2a(n), i2b(n)
      integer*4 i4a(n), i4b(n)
      integer*8 i8a(n), i8b(n)
      real*4 r4a(n), r4b(n)
      real*8 r8a(n), r8b(n)
      logical ok

      right = mod(rank + 1, nproc)
      left = mod(rank - 1 + nproc, nproc)
      do i = 1, n
         ia(i) = 1000 * rank + i
         ra(i) = real(rank) + 0.25 * i
         da(i) = dble(rank) + 1.0d-9 * i
         ca(i) = cmplx(real(rank), real(-i))
         za(i) = dcmplx(dble(rank) * 1.0d10, dble(i) * 1.0d-10)
         la(i) = mod(rank + i, 2) .eq. 0
         i1a(i) = int(mod(rank * 13 + i, 127) - 60, 1)
         i2a(i) = int(-30000 + rank * 7 + i, 2)
         i4a(i) = -2000000000 + rank + i
         i8a(i) = 2_8**40 * (rank + 1) + i
         r4a(i) = -1.5e30 * i + rank
         r8a(i) = 1.0d300 / i + rank
      end do
      write(sa, '(a,i3.3,a)') 'hello ', rank, ' end'

      call MPI_Isend(ia, n, MPI_INTEGER, right, 1, MPI_COMM_WORLD,
     &     req, ierr)
      call chk(ierr .eq. MPI_SUCCESS, 'Isend INTEGER ierror')
      call MPI_Recv(ib, n, MPI_INTEGER, left, 1, MPI_COMM_WORLD,
     &     st, ierr)
      call chk(ierr .eq. MPI_SUCCESS, 'Recv INTEGER ierror')
      call MPI_Wait(req, MPI_STATUS_IGNORE, ierr)
      call chk(req .eq. MPI_REQUEST_NULL, 'Wait frees the request')
      call chkst(st, left, 1, MPI_INTEGER, n, 'INTEGER')
      ok = .true.
      do i = 1, n
         ok = ok .and. ib(i) .eq. 1000 * left + i
      end do
      call chk(ok, 'INTEGER data')

      call MPI_Isend(ra, n, MPI_REAL, right, 2, MPI_COMM_WORLD,
     &     req, ierr)
      call MPI_Recv(rb, n, MPI_REAL, left, 2, MPI_COMM_WORLD, st, ierr)
      call MPI_Wait(req, MPI_STATUS_IGNORE, ierr)
      call chkst(st, left, 2, MPI_REAL, n, 'REAL')
      ok = .true.
      do i = 1, n
         ok = ok .and. rb(i) .eq. real(left) + 0.25 * i
      end do
      call chk(ok, 'REAL data')

      call MPI_Isend(da, n, MPI_DOUBLE_PRECISION, right, 3,
     &     MPI_COMM_WORLD, req, ierr)
      call MPI_Recv(db, n, MPI_DOUBLE_PRECISION, left, 3,
     &     MPI_COMM_WORLD, st, ierr)
      call MPI_Wait(req, MPI_STATUS_IGNORE, ierr)
      call chkst(st, left, 3, MPI_DOUBLE_PRECISION, n, 'DOUBLE')
      ok = .true.
      do i = 1, n
         ok = ok .and. db(i) .eq. dble(left) + 1.0d-9 * i
      end do
      call chk(ok, 'DOUBLE PRECISION data')

      call MPI_Isend(ca, n, MPI_COMPLEX, right, 4, MPI_COMM_WORLD,
     &     req, ierr)
      call MPI_Recv(cb, n, MPI_COMPLEX, left, 4, MPI_COMM_WORLD,
     &     st, ierr)
      call MPI_Wait(req, MPI_STATUS_IGNORE, ierr)
      call chkst(st, left, 4, MPI_COMPLEX, n, 'COMPLEX')
      ok = .true.
      do i = 1, n
         ok = ok .and. cb(i) .eq. cmplx(real(left), real(-i))
      end do
      call chk(ok, 'COMPLEX data')

      call MPI_Isend(za, n, MPI_DOUBLE_COMPLEX, right, 5,
     &     MPI_COMM_WORLD, req, ierr)
      call MPI_Recv(zb, n, MPI_DOUBLE_COMPLEX, left, 5,
     &     MPI_COMM_WORLD, st, ierr)
      call MPI_Wait(req, MPI_STATUS_IGNORE, ierr)
      call chkst(st, left, 5, MPI_DOUBLE_COMPLEX, n, 'DOUBLE COMPLEX')
      ok = .true.
      do i = 1, n
         ok = ok .and. zb(i) .eq.
     &        dcmplx(dble(left) * 1.0d10, dble(i) * 1.0d-10)
      end do
      call chk(ok, 'DOUBLE COMPLEX data')

      call MPI_Isend(la, n, MPI_LOGICAL, right, 6, MPI_COMM_WORLD,
     &     req, ierr)
      call MPI_Recv(lb, n, MPI_LOGICAL, left, 6, MPI_COMM_WORLD,
     &     st, ierr)
      call MPI_Wait(req, MPI_STATUS_IGNORE, ierr)
      call chkst(st, left, 6, MPI_LOGICAL, n, 'LOGICAL')
      ok = .true.
      do i = 1, n
         ok = ok .and. (lb(i) .eqv. (mod(left + i, 2) .eq. 0))
      end do
      call chk(ok, 'LOGICAL data')

      call MPI_Isend(sa, len(sa), MPI_CHARACTER, right, 7,
     &     MPI_COMM_WORLD, req, ierr)
      sb = 'xxxxxxxxxxxxx'
      call MPI_Recv(sb, len(sb), MPI_CHARACTER, left, 7,
     &     MPI_COMM_WORLD, st, ierr)
      call MPI_Wait(req, MPI_STATUS_IGNORE, ierr)
      call chkst(st, left, 7, MPI_CHARACTER, 13, 'CHARACTER')
      write(sa, '(a,i3.3,a)') 'hello ', left, ' end'
      call chk(sb .eq. sa, 'CHARACTER data')

      call MPI_Isend(i1a, n, MPI_INTEGER1, right, 8, MPI_COMM_WORLD,
     &     req, ierr)
      call MPI_Recv(i1b, n, MPI_INTEGER1, left, 8, MPI_COMM_WORLD,
     &     st, ierr)
      call MPI_Wait(req, MPI_STATUS_IGNORE, ierr)
      call chkst(st, left, 8, MPI_INTEGER1, n, 'INTEGER*1')
      ok = .true.
      do i = 1, n
         ok = ok .and. i1b(i) .eq. int(mod(left * 13 + i, 127) - 60, 1)
      end do
      call chk(ok, 'INTEGER*1 data')

      call MPI_Isend(i2a, n, MPI_INTEGER2, right, 9, MPI_COMM_WORLD,
     &     req, ierr)
      call MPI_Recv(i2b, n, MPI_INTEGER2, left, 9, MPI_COMM_WORLD,
     &     st, ierr)
      call MPI_Wait(req, MPI_STATUS_IGNORE, ierr)
      call chkst(st, left, 9, MPI_INTEGER2, n, 'INTEGER*2')
      ok = .true.
      do i = 1, n
         ok = ok .and. i2b(i) .eq. int(-30000 + left * 7 + i, 2)
      end do
      call chk(ok, 'INTEGER*2 data')

      call MPI_Isend(i4a, n, MPI_INTEGER4, right, 10, MPI_COMM_WORLD,
     &     req, ierr)
      call MPI_Recv(i4b, n, MPI_INTEGER4, left, 10, MPI_COMM_WORLD,
     &     st, ierr)
      call MPI_Wait(req, MPI_STATUS_IGNORE, ierr)
      call chkst(st, left, 10, MPI_INTEGER4, n, 'INTEGER*4')
      ok = .true.
      do i = 1, n
         ok = ok .and. i4b(i) .eq. -2000000000 + left + i
      end do
      call chk(ok, 'INTEGER*4 data')

      call MPI_Isend(i8a, n, MPI_INTEGER8, right, 11, MPI_COMM_WORLD,
     &     req, ierr)
      call MPI_Recv(i8b, n, MPI_INTEGER8, left, 11, MPI_COMM_WORLD,
     &     st, ierr)
      call MPI_Wait(req, MPI_STATUS_IGNORE, ierr)
      call chkst(st, left, 11, MPI_INTEGER8, n, 'INTEGER*8')
      ok = .true.
      do i = 1, n
         ok = ok .and. i8b(i) .eq. 2_8**40 * (left + 1) + i
      end do
      call chk(ok, 'INTEGER*8 data')

      call MPI_Isend(r4a, n, MPI_REAL4, right, 12, MPI_COMM_WORLD,
     &     req, ierr)
      call MPI_Recv(r4b, n, MPI_REAL4, left, 12, MPI_COMM_WORLD,
     &     st, ierr)
      call MPI_Wait(req, MPI_STATUS_IGNORE, ierr)
      call chkst(st, left, 12, MPI_REAL4, n, 'REAL*4')
      ok = .true.
      do i = 1, n
         ok = ok .and. r4b(i) .eq. -1.5e30 * i + left
      end do
      call chk(ok, 'REAL*4 data')

      call MPI_Isend(r8a, n, MPI_REAL8, right, 13, MPI_COMM_WORLD,
     &     req, ierr)
      call MPI_Recv(r8b, n, MPI_REAL8, left, 13, MPI_COMM_WORLD,
     &     st, ierr)
      call MPI_Wait(req, MPI_STATUS_IGNORE, ierr)
      call chkst(st, left, 13, MPI_REAL8, n, 'REAL*8')
      ok = .true.
      do i = 1, n
         ok = ok .and. r8b(i) .eq. 1.0d300 / i + left
      end do
      call chk(ok, 'REAL*8 data')

!     A short message into a longer buffer: the count is what arrived,
!     the rest of the buffer is untouched; MPI_ANY_SOURCE / ANY_TAG
!     are resolved in the status.
      do i = 1, n
         ib(i) = -1
      end do
      call MPI_Isend(ia, 2, MPI_INTEGER, right, 14, MPI_COMM_WORLD,
     &     req, ierr)
      call MPI_Recv(ib, n, MPI_INTEGER, MPI_ANY_SOURCE, MPI_ANY_TAG,
     &     MPI_COMM_WORLD, st, ierr)
      call MPI_Wait(req, MPI_STATUS_IGNORE, ierr)
      call chkst(st, left, 14, MPI_INTEGER, 2, 'short message')
!     no rank sends again before all have received: ANY_TAG cannot
!     match the next exchange
      call MPI_Barrier(MPI_COMM_WORLD, ierr)
      call chk(ib(1) .eq. 1000 * left + 1 .and. ib(2) .eq.
     &     1000 * left + 2 .and. ib(3) .eq. -1, 'short message data')

!     Sendrecv both ways round the ring, the status ignored.
      do i = 1, n
         db(i) = 0
      end do
      call MPI_Sendrecv(da, n, MPI_DOUBLE_PRECISION, left, 15,
     &     db, n, MPI_DOUBLE_PRECISION, right, 15, MPI_COMM_WORLD,
     &     MPI_STATUS_IGNORE, ierr)
      call chk(ierr .eq. MPI_SUCCESS, 'Sendrecv ierror')
      ok = .true.
      do i = 1, n
         ok = ok .and. db(i) .eq. dble(right) + 1.0d-9 * i
      end do
      call chk(ok, 'Sendrecv data')
      call MPI_Sendrecv(ia, n, MPI_INTEGER, right, 16,
     &     ib, n, MPI_INTEGER, left, 16, MPI_COMM_WORLD, st, ierr)
      call chkst(st, left, 16, MPI_INTEGER, n, 'Sendrecv status')
      call chk(ib(n) .eq. 1000 * left + n, 'Sendrecv data 2')

!     MPI_PROC_NULL: completes at once with the null status.
      call MPI_Recv(ib, n, MPI_INTEGER, MPI_PROC_NULL, 17,
     &     MPI_COMM_WORLD, st, ierr)
      call chkst(st, MPI_PROC_NULL, MPI_ANY_TAG, MPI_INTEGER, 0,
     &     'Recv from MPI_PROC_NULL')
      end

! Nonblocking: Isend/Irecv to both neighbours, Waitall with
! MPI_STATUSES_IGNORE, then with a status array; Test and Waitany.
      subroutine treqs(rank, nproc)
      implicit none
      include 'mpif.h'
      integer rank, nproc
      integer k
      parameter (k = 4)
      integer right, left, i, j, ierr, idx
      integer llen
      character*(MPI_MAX_LIBRARY_VERSION_STRING) lib
      integer reqs(2 * k), sbuf(k), rl(k), rr(k)
      integer sts(MPI_STATUS_SIZE, 2 * k)
      logical ok, flag

      right = mod(rank + 1, nproc)
      left = mod(rank - 1 + nproc, nproc)
      do j = 1, 2
         do i = 1, k
            sbuf(i) = rank * 100 + i
            rl(i) = -1
            rr(i) = -1
         end do
         do i = 1, k
            call MPI_Irecv(rl(i), 1, MPI_INTEGER, left, i,
     &           MPI_COMM_WORLD, reqs(i), ierr)
            call MPI_Irecv(rr(i), 1, MPI_INTEGER, right, k + i,
     &           MPI_COMM_WORLD, reqs(k + i), ierr)
         end do
         do i = 1, k
            call MPI_Send(sbuf(i), 1, MPI_INTEGER, left, k + i,
     &           MPI_COMM_WORLD, ierr)
            call MPI_Send(sbuf(i), 1, MPI_INTEGER, right, i,
     &           MPI_COMM_WORLD, ierr)
         end do
         if (j .eq. 1) then
            call MPI_Waitall(2 * k, reqs, MPI_STATUSES_IGNORE, ierr)
            call chk(ierr .eq. MPI_SUCCESS,
     &           'Waitall MPI_STATUSES_IGNORE ierror')
         else
            call MPI_Waitall(2 * k, reqs, sts, ierr)
            ok = .true.
            do i = 1, k
               ok = ok .and. sts(MPI_SOURCE, i) .eq. left
     &              .and. sts(MPI_TAG, i) .eq. i
     &              .and. sts(MPI_SOURCE, k + i) .eq. right
     &              .and. sts(MPI_TAG, k + i) .eq. k + i
            end do
            call chk(ok, 'Waitall status array')
         endif
         ok = .true.
         do i = 1, 2 * k
            ok = ok .and. reqs(i) .eq. MPI_REQUEST_NULL
         end do
         call chk(ok, 'Waitall frees the requests')
         ok = .true.
         do i = 1, k
            ok = ok .and. rl(i) .eq. left * 100 + i
     &           .and. rr(i) .eq. right * 100 + i
         end do
         call chk(ok, 'Waitall data')
      end do

!     Test on a receive that must complete: loop until flag.
      call MPI_Irecv(rl, k, MPI_INTEGER, left, 99, MPI_COMM_WORLD,
     &     reqs(1), ierr)
      call MPI_Send(sbuf, k, MPI_INTEGER, right, 99, MPI_COMM_WORLD,
     &     ierr)
      flag = .false.
      do while (.not. flag)
         call MPI_Test(reqs(1), flag, sts(1, 1), ierr)
      end do
      call chk(reqs(1) .eq. MPI_REQUEST_NULL .and.
     &     sts(MPI_SOURCE, 1) .eq. left .and. rl(k) .eq.
     &     left * 100 + k, 'Test until complete')

!     Waitany over a null and a live request: index is 1-based.
      reqs(1) = MPI_REQUEST_NULL
      call MPI_Irecv(rl, 1, MPI_INTEGER, left, 98, MPI_COMM_WORLD,
     &     reqs(2), ierr)
      call MPI_Send(sbuf, 1, MPI_INTEGER, right, 98, MPI_COMM_WORLD,
     &     ierr)
      idx = -5
      call MPI_Waitany(2, reqs, idx, sts(1, 1), ierr)
      call chk(idx .eq. 2 .and. sts(MPI_TAG, 1) .eq. 98,
     &     'Waitany index is 1-based')
      call MPI_Waitany(2, reqs, idx, MPI_STATUS_IGNORE, ierr)
!     MPICH 4.0's Fortran Waitany adds 1 to MPI_UNDEFINED too; tolerated
!     there only, so the program can be checked on it
      call MPI_Get_library_version(lib, llen, ierr)
      if (index(lib, 'MPICH') .gt. 0 .and. idx .eq. MPI_UNDEFINED + 1)
     &     idx = MPI_UNDEFINED
      call chk(idx .eq. MPI_UNDEFINED, 'Waitany on nulls')
      end

! Collectives: MPI_IN_PLACE Allreduce and Reduce, Bcast, Allgather,
! predefined ops on the Fortran types (LOGICAL, COMPLEX, INTEGER*8).
      subroutine tcoll(rank, nproc)
      implicit none
      include 'mpif.h'
      integer rank, nproc
      integer n
      parameter (n = 4)
      integer i, ierr, ia(n), ig(64)
      double precision d(n), dall(n * 64)
      logical l(2), ok
      complex c
      double complex z
      integer*8 i8
      real*4 r4

      do i = 1, n
         ia(i) = rank + i
      end do
      call MPI_Allreduce(MPI_IN_PLACE, ia, n, MPI_INTEGER, MPI_SUM,
     &     MPI_COMM_WORLD, ierr)
      ok = ierr .eq. MPI_SUCCESS
      do i = 1, n
         ok = ok .and. ia(i) .eq. nproc * (nproc - 1) / 2 + nproc * i
      end do
      call chk(ok, 'Allreduce MPI_IN_PLACE MPI_SUM')

      do i = 1, n
         d(i) = dble(rank + 1) * i
      end do
      if (rank .eq. 0) then
         call MPI_Reduce(MPI_IN_PLACE, d, n, MPI_DOUBLE_PRECISION,
     &        MPI_MAX, 0, MPI_COMM_WORLD, ierr)
         ok = .true.
         do i = 1, n
            ok = ok .and. d(i) .eq. dble(nproc) * i
         end do
         call chk(ok, 'Reduce MPI_IN_PLACE MPI_MAX at the root')
      else
         call MPI_Reduce(d, d, n, MPI_DOUBLE_PRECISION,
     &        MPI_MAX, 0, MPI_COMM_WORLD, ierr)
      endif

      if (rank .eq. nproc - 1) then
         do i = 1, n
            d(i) = 0.5d0 * i
         end do
      else
         do i = 1, n
            d(i) = 0
         end do
      endif
      call MPI_Bcast(d, n, MPI_DOUBLE_PRECISION, nproc - 1,
     &     MPI_COMM_WORLD, ierr)
      ok = .true.
      do i = 1, n
         ok = ok .and. d(i) .eq. 0.5d0 * i
      end do
      call chk(ok, 'Bcast from the last rank')

      do i = 1, n
         d(i) = rank * 10 + i
      end do
      if (nproc .le. 64) then
         call MPI_Allgather(d, n, MPI_DOUBLE_PRECISION, dall, n,
     &        MPI_DOUBLE_PRECISION, MPI_COMM_WORLD, ierr)
         ok = .true.
         do i = 1, n * nproc
            ok = ok .and. dall(i) .eq. ((i - 1) / n) * 10 +
     &           mod(i - 1, n) + 1
         end do
         call chk(ok, 'Allgather DOUBLE PRECISION')
         do i = 1, nproc
            ig(i) = -1
         end do
         ig(rank + 1) = rank * 3
         call MPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, ig,
     &        1, MPI_INTEGER, MPI_COMM_WORLD, ierr)
         ok = .true.
         do i = 1, nproc
            ok = ok .and. ig(i) .eq. (i - 1) * 3
         end do
         call chk(ok, 'Allgather MPI_IN_PLACE')
      endif

!     LOGICAL ops: .true. and .false. as the compiler stores them.
      l(1) = .true.
      l(2) = rank .eq. nproc - 1
      call MPI_Allreduce(MPI_IN_PLACE, l, 2, MPI_LOGICAL, MPI_LAND,
     &     MPI_COMM_WORLD, ierr)
      call chk(l(1) .and. (l(2) .eqv. (nproc .eq. 1)),
     &     'Allreduce MPI_LAND on LOGICAL')
      l(1) = .false.
      l(2) = rank .eq. nproc - 1
      call MPI_Allreduce(MPI_IN_PLACE, l, 2, MPI_LOGICAL, MPI_LOR,
     &     MPI_COMM_WORLD, ierr)
      call chk(.not. l(1) .and. l(2), 'Allreduce MPI_LOR on LOGICAL')
      l(1) = .true.
      call MPI_Allreduce(MPI_IN_PLACE, l, 1, MPI_LOGICAL, MPI_LXOR,
     &     MPI_COMM_WORLD, ierr)
      call chk(l(1) .eqv. (mod(nproc, 2) .eq. 1),
     &     'Allreduce MPI_LXOR on LOGICAL')

      c = cmplx(1.0, real(rank))
      call MPI_Allreduce(MPI_IN_PLACE, c, 1, MPI_COMPLEX, MPI_SUM,
     &     MPI_COMM_WORLD, ierr)
      call chk(c .eq. cmplx(real(nproc), real(nproc*(nproc-1)/2)),
     &     'Allreduce MPI_SUM on COMPLEX')
      z = dcmplx(0.0d0, 1.0d0)
      call MPI_Allreduce(MPI_IN_PLACE, z, 1, MPI_DOUBLE_COMPLEX,
     &     MPI_PROD, MPI_COMM_WORLD, ierr)
      select case (mod(nproc, 4))
      case (0)
         ok = z .eq. dcmplx(1.0d0, 0.0d0)
      case (1)
         ok = z .eq. dcmplx(0.0d0, 1.0d0)
      case (2)
         ok = z .eq. dcmplx(-1.0d0, 0.0d0)
      case default
         ok = z .eq. dcmplx(0.0d0, -1.0d0)
      end select
      call chk(ok, 'Allreduce MPI_PROD on DOUBLE COMPLEX')
      i8 = 2_8**33 * (rank + 1)
      call MPI_Allreduce(MPI_IN_PLACE, i8, 1, MPI_INTEGER8, MPI_SUM,
     &     MPI_COMM_WORLD, ierr)
      call chk(i8 .eq. 2_8**33 * (nproc * (nproc + 1) / 2),
     &     'Allreduce MPI_SUM on INTEGER*8')
      r4 = -real(rank)
      call MPI_Allreduce(MPI_IN_PLACE, r4, 1, MPI_REAL4, MPI_MIN,
     &     MPI_COMM_WORLD, ierr)
      call chk(r4 .eq. -real(nproc - 1), 'Allreduce MPI_MIN on REAL*4')
      ia(1) = ieor(rank, 5)
      ia(2) = 2**rank
      call MPI_Allreduce(MPI_IN_PLACE, ia, 1, MPI_INTEGER, MPI_BXOR,
     &     MPI_COMM_WORLD, ierr)
      call MPI_Allreduce(MPI_IN_PLACE, ia(2), 1, MPI_INTEGER, MPI_BOR,
     &     MPI_COMM_WORLD, ierr)
      ig(1) = 0
      do i = 0, nproc - 1
         ig(1) = ieor(ig(1), ieor(i, 5))
      end do
      call chk(ia(1) .eq. ig(1) .and. ia(2) .eq. 2**nproc - 1,
     &     'Allreduce MPI_BXOR / MPI_BOR on INTEGER')
      ia(1) = rank + 1
      call MPI_Scan(MPI_IN_PLACE, ia, 1, MPI_INTEGER, MPI_SUM,
     &     MPI_COMM_WORLD, ierr)
      call chk(ia(1) .eq. (rank + 1) * (rank + 2) / 2,
     &     'Scan MPI_IN_PLACE')
      call MPI_Barrier(MPI_COMM_WORLD, ierr)
      call chk(ierr .eq. MPI_SUCCESS, 'Barrier')
      end

! MAXLOC / MINLOC on MPI_2INTEGER, MPI_2REAL, MPI_2DOUBLE_PRECISION.
      subroutine tloc(rank, nproc)
      implicit none
      include 'mpif.h'
      integer rank, nproc
      integer ip(2, 2), ierr, want
      real rp(2)
      double precision dp(2, 2)

!     value mod(3*rank+1, nproc+1) peaks at a rank that depends on nproc;
!     ties (equal values) must resolve to the lowest rank.
      ip(1, 1) = mod(3 * rank + 1, nproc + 1)
      ip(2, 1) = rank
      ip(1, 2) = 7
      ip(2, 2) = rank
      call MPI_Allreduce(MPI_IN_PLACE, ip, 2, MPI_2INTEGER,
     &     MPI_MAXLOC, MPI_COMM_WORLD, ierr)
      call maxat(nproc, want)
      call chk(ierr .eq. MPI_SUCCESS .and. ip(2, 1) .eq. want .and.
     &     ip(1, 1) .eq. mod(3 * want + 1, nproc + 1),
     &     'MAXLOC MPI_2INTEGER')
      call chk(ip(1, 2) .eq. 7 .and. ip(2, 2) .eq. 0,
     &     'MAXLOC MPI_2INTEGER tie takes the lowest rank')

      dp(1, 1) = -dble(mod(3 * rank + 1, nproc + 1))
      dp(2, 1) = dble(rank)
      dp(1, 2) = 1.5d0
      dp(2, 2) = dble(nproc - rank)
      call MPI_Allreduce(MPI_IN_PLACE, dp, 2, MPI_2DOUBLE_PRECISION,
     &     MPI_MINLOC, MPI_COMM_WORLD, ierr)
      call chk(ierr .eq. MPI_SUCCESS .and. dp(2, 1) .eq. dble(want),
     &     'MINLOC MPI_2DOUBLE_PRECISION')
      call chk(dp(1, 2) .eq. 1.5d0 .and. dp(2, 2) .eq. 1.0d0,
     &     'MINLOC MPI_2DOUBLE_PRECISION tie takes the lowest loc')
      dp(1, 1) = dble(rank) * 0.5d0
      dp(2, 1) = dble(rank)
      call MPI_Reduce(dp, dp(1, 2), 1, MPI_2DOUBLE_PRECISION,
     &     MPI_MAXLOC, 0, MPI_COMM_WORLD, ierr)
      if (rank .eq. 0) then
         call chk(dp(1, 2) .eq. dble(nproc - 1) * 0.5d0 .and.
     &        dp(2, 2) .eq. dble(nproc - 1),
     &        'Reduce MAXLOC MPI_2DOUBLE_PRECISION')
      endif
      rp(1) = real(nproc - rank)
      rp(2) = real(rank)
      call MPI_Allreduce(MPI_IN_PLACE, rp, 1, MPI_2REAL, MPI_MAXLOC,
     &     MPI_COMM_WORLD, ierr)
      call chk(rp(1) .eq. real(nproc) .and. rp(2) .eq. 0.0,
     &     'MAXLOC MPI_2REAL')
      end

! maxat: the lowest rank where mod(3*r+1, nproc+1) is largest.
      subroutine maxat(nproc, want)
      implicit none
      integer nproc, want, r, best
      best = -1
      want = -1
      do r = 0, nproc - 1
         if (mod(3 * r + 1, nproc + 1) .gt. best) then
            best = mod(3 * r + 1, nproc + 1)
            want = r
         endif
      end do
      end

! The user op: (a1,b1) o (a2,b2) = (a1*a2, b1*a2 + b2), the composition
! of x -> a*x + b maps: associative but not commutative, so a result in
! any order but rank order differs.
      subroutine affop(invec, inoutvec, n, dtype)
      implicit none
      integer n, dtype
      integer invec(2, n), inoutvec(2, n)
      integer i, a, b
      do i = 1, n
         a = invec(1, i) * inoutvec(1, i)
         b = invec(2, i) * inoutvec(1, i) + inoutvec(2, i)
         inoutvec(1, i) = a
         inoutvec(2, i) = b
      end do
      end

      subroutine tuop(rank, nproc)
      implicit none
      include 'mpif.h'
      integer rank, nproc
      external affop
      integer op, ierr, i, r, v(2, 3), w(2, 3), e(2, 3)
      logical ok, cmt

      call MPI_Op_create(affop, .false., op, ierr)
      call chk(ierr .eq. MPI_SUCCESS .and. op .ne. MPI_OP_NULL,
     &     'Op_create with a Fortran subroutine')
      cmt = .true.
      call MPI_Op_commutative(op, cmt, ierr)
      call chk(ierr .eq. MPI_SUCCESS .and. .not. cmt,
     &     'Op_commutative LOGICAL')
      do i = 1, 3
         e(1, i) = 1
         e(2, i) = 0
      end do
      do r = 0, nproc - 1
         do i = 1, 3
            e(2, i) = e(2, i) * (i + 1) + (r + 1) * i
            e(1, i) = e(1, i) * (i + 1)
         end do
      end do
      do i = 1, 3
         v(1, i) = i + 1
         v(2, i) = (rank + 1) * i
      end do
      call MPI_Allreduce(v, w, 3, MPI_2INTEGER, op, MPI_COMM_WORLD,
     &     ierr)
      ok = ierr .eq. MPI_SUCCESS
      do i = 1, 3
         ok = ok .and. w(1, i) .eq. e(1, i) .and. w(2, i) .eq. e(2, i)
      end do
      call chk(ok, 'Allreduce with the user op in rank order')
      do i = 1, 3
         w(1, i) = -1
         w(2, i) = -1
      end do
      call MPI_Reduce(v, w, 3, MPI_2INTEGER, op, nproc / 2,
     &     MPI_COMM_WORLD, ierr)
      if (rank .eq. nproc / 2) then
         ok = ierr .eq. MPI_SUCCESS
         do i = 1, 3
            ok = ok .and. w(1, i) .eq. e(1, i) .and.
     &           w(2, i) .eq. e(2, i)
         end do
         call chk(ok, 'Reduce with the user op in rank order')
      endif
      call MPI_Scan(v, w, 3, MPI_2INTEGER, op, MPI_COMM_WORLD, ierr)
      do i = 1, 3
         e(1, i) = 1
         e(2, i) = 0
      end do
      do r = 0, rank
         do i = 1, 3
            e(2, i) = e(2, i) * (i + 1) + (r + 1) * i
            e(1, i) = e(1, i) * (i + 1)
         end do
      end do
      ok = ierr .eq. MPI_SUCCESS
      do i = 1, 3
         ok = ok .and. w(1, i) .eq. e(1, i) .and. w(2, i) .eq. e(2, i)
      end do
      call chk(ok, 'Scan with the user op')
      call MPI_Op_free(op, ierr)
      call chk(ierr .eq. MPI_SUCCESS .and. op .eq. MPI_OP_NULL,
     &     'Op_free')
      end

! Derived types over a Fortran 2-D array (column-major): a column is
! contiguous, a row is a vector of stride the leading dimension. Each
! rank sends its row 2 and receives it as a column of the receiver.
      subroutine tvec(rank, nproc)
      implicit none
      include 'mpif.h'
      integer rank, nproc
      integer m, nc
      parameter (m = 4, nc = 6)
      real*8 a(m, nc), b(nc, m)
      integer rowt, colt, ierr, i, j, right, left, sz
      integer st(MPI_STATUS_SIZE)
      integer(kind=MPI_ADDRESS_KIND) lb, ext
      logical ok

      right = mod(rank + 1, nproc)
      left = mod(rank - 1 + nproc, nproc)
      do j = 1, nc
         do i = 1, m
            a(i, j) = rank * 1000 + i * 10 + j
         end do
      end do
      do j = 1, m
         do i = 1, nc
            b(i, j) = -1
         end do
      end do
!     a row of a: nc elements, stride m
      call MPI_Type_vector(nc, 1, m, MPI_REAL8, rowt, ierr)
      call MPI_Type_commit(rowt, ierr)
      call MPI_Type_size(rowt, sz, ierr)
      call chk(sz .eq. nc * 8, 'Type_size of a row')
      call MPI_Type_get_extent(rowt, lb, ext, ierr)
      call chk(lb .eq. 0 .and. ext .eq. ((nc - 1) * m + 1) * 8,
     &     'Type_get_extent of a row')
      call MPI_Type_contiguous(nc, MPI_REAL8, colt, ierr)
      call MPI_Type_commit(colt, ierr)
      call MPI_Sendrecv(a(2, 1), 1, rowt, right, 20,
     &     b(1, 3), 1, colt, left, 20, MPI_COMM_WORLD, st, ierr)
      call chkst(st, left, 20, colt, 1, 'row to column')
      ok = .true.
      do i = 1, nc
         ok = ok .and. b(i, 3) .eq. left * 1000 + 2 * 10 + i
         ok = ok .and. b(i, 2) .eq. -1 .and. b(i, 4) .eq. -1
      end do
      call chk(ok, 'a row of a 2-D array sent as a column')
!     the other way: a column of b into a row of a; count in elements
      call MPI_Sendrecv(b(1, 3), nc, MPI_REAL8, right, 21,
     &     a(4, 1), 1, rowt, left, 21, MPI_COMM_WORLD, st, ierr)
      call MPI_Get_count(st, MPI_REAL8, sz, ierr)
      call chk(sz .eq. nc, 'Get_count in basic elements')
      ok = .true.
      do j = 1, nc
!        the left neighbour sends the row it got from its left
         ok = ok .and. a(4, j) .eq.
     &        mod(rank - 2 + 2 * nproc, nproc) * 1000 + 2 * 10 + j
         ok = ok .and. a(3, j) .eq. rank * 1000 + 3 * 10 + j
      end do
      call chk(ok, 'a column sent into a row')
      call MPI_Type_free(rowt, ierr)
      call MPI_Type_free(colt, ierr)
      call chk(rowt .eq. MPI_DATATYPE_NULL .and.
     &     colt .eq. MPI_DATATYPE_NULL, 'Type_free')
      end

! Communicators and topologies: Comm_split, Cart_create / coords /
! shift (LOGICAL periods both ways), Comm_compare, Comm_dup.
      subroutine tcomm(rank, nproc)
      implicit none
      include 'mpif.h'
      integer rank, nproc
      integer sub, srank, ssize, ierr, i, want, s, cart, dup, res
      integer dims(2), coords(2), c2(2), src, dst, crank, v
      logical periods(2), per2(2), flag, ok

!     split by parity, key reversed: the highest world rank first
      call MPI_Comm_split(MPI_COMM_WORLD, mod(rank, 2), nproc - rank,
     &     sub, ierr)
      call chk(ierr .eq. MPI_SUCCESS, 'Comm_split ierror')
      call MPI_Comm_rank(sub, srank, ierr)
      call MPI_Comm_size(sub, ssize, ierr)
      want = 0
      s = 0
      do i = 0, nproc - 1
         if (mod(i, 2) .eq. mod(rank, 2)) then
            s = s + 1
            if (i .gt. rank) want = want + 1
         endif
      end do
      call chk(ssize .eq. s .and. srank .eq. want,
     &     'Comm_split size and rank')
      v = rank
      call MPI_Allreduce(MPI_IN_PLACE, v, 1, MPI_INTEGER, MPI_SUM,
     &     sub, ierr)
      s = 0
      do i = mod(rank, 2), nproc - 1, 2
         s = s + i
      end do
      call chk(v .eq. s, 'Allreduce on the split communicator')
      call MPI_Comm_dup(sub, dup, ierr)
      call MPI_Comm_compare(sub, dup, res, ierr)
      call chk(res .eq. MPI_CONGRUENT, 'Comm_compare of a dup')
      call MPI_Comm_free(dup, ierr)
      call chk(dup .eq. MPI_COMM_NULL, 'Comm_free')
      call MPI_Comm_free(sub, ierr)
      call MPI_Comm_split(MPI_COMM_WORLD, MPI_UNDEFINED, 0, sub, ierr)
      call chk(sub .eq. MPI_COMM_NULL, 'Comm_split MPI_UNDEFINED')

      dims(1) = 0
      dims(2) = 0
      call MPI_Dims_create(nproc, 2, dims, ierr)
      call chk(dims(1) * dims(2) .eq. nproc .and. dims(1) .ge. dims(2),
     &     'Dims_create')
      periods(1) = .true.
      periods(2) = .false.
      call MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, .false.,
     &     cart, ierr)
      call chk(ierr .eq. MPI_SUCCESS .and. cart .ne. MPI_COMM_NULL,
     &     'Cart_create')
      call MPI_Comm_rank(cart, crank, ierr)
      call MPI_Cart_coords(cart, crank, 2, coords, ierr)
      call chk(coords(1) .eq. crank / dims(2) .and.
     &     coords(2) .eq. mod(crank, dims(2)), 'Cart_coords row-major')
      call MPI_Cart_get(cart, 2, c2, per2, coords, ierr)
      call chk(per2(1) .and. .not. per2(2) .and. c2(1) .eq. dims(1)
     &     .and. c2(2) .eq. dims(2), 'Cart_get LOGICAL periods')
      call MPI_Topo_test(cart, i, ierr)
      call chk(i .eq. MPI_CART, 'Topo_test')
      call MPI_Comm_test_inter(cart, flag, ierr)
      call chk(.not. flag, 'Comm_test_inter LOGICAL')
!     periodic dimension 0: wraps
      call MPI_Cart_shift(cart, 0, 1, src, dst, ierr)
      c2(1) = mod(coords(1) + 1, dims(1))
      c2(2) = coords(2)
      call MPI_Cart_rank(cart, c2, want, ierr)
      call chk(dst .eq. want, 'Cart_shift periodic dest')
      c2(1) = mod(coords(1) - 1 + dims(1), dims(1))
      call MPI_Cart_rank(cart, c2, want, ierr)
      call chk(src .eq. want, 'Cart_shift periodic source')
!     non-periodic dimension 1: MPI_PROC_NULL past the edges
      call MPI_Cart_shift(cart, 1, 1, src, dst, ierr)
      ok = .true.
      if (coords(2) .eq. 0) ok = ok .and. src .eq. MPI_PROC_NULL
      if (coords(2) .eq. dims(2) - 1) ok = ok .and.
     &     dst .eq. MPI_PROC_NULL
      if (coords(2) .gt. 0) ok = ok .and. src .eq. crank - 1
      if (coords(2) .lt. dims(2) - 1) ok = ok .and. dst .eq. crank + 1
      call chk(ok, 'Cart_shift non-periodic')
!     a shift along dimension 1: edges send to / receive from PROC_NULL
      v = -1
      call MPI_Sendrecv(crank, 1, MPI_INTEGER, dst, 30, v, 1,
     &     MPI_INTEGER, src, 30, cart, MPI_STATUS_IGNORE, ierr)
      if (src .eq. MPI_PROC_NULL) then
         call chk(v .eq. -1, 'Sendrecv from MPI_PROC_NULL')
      else
         call chk(v .eq. src, 'Sendrecv along Cart_shift')
      endif
      call MPI_Comm_free(cart, ierr)
      end

! Error handlers: MPI_ERRORS_RETURN, then the ierror of bad calls, its
! class and string.
      subroutine terr(rank, nproc)
      implicit none
      include 'mpif.h'
      integer rank, nproc
      integer ierr, e, cls, slen, ib(2), eh
      character*(MPI_MAX_ERROR_STRING) str

      call MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN,
     &     ierr)
      call chk(ierr .eq. MPI_SUCCESS, 'Comm_set_errhandler')
      call MPI_Comm_get_errhandler(MPI_COMM_WORLD, eh, ierr)
      call chk(eh .eq. MPI_ERRORS_RETURN, 'Comm_get_errhandler')
      call MPI_Send(ib, 1, MPI_INTEGER, nproc + 5, 0, MPI_COMM_WORLD,
     &     e)
      call chk(e .ne. MPI_SUCCESS, 'Send to a bad rank fails')
      call MPI_Error_class(e, cls, ierr)
      call chk(ierr .eq. MPI_SUCCESS .and. cls .eq. MPI_ERR_RANK,
     &     'Error_class MPI_ERR_RANK')
      str = '@'
      slen = -1
      call MPI_Error_string(e, str, slen, ierr)
      call chk(ierr .eq. MPI_SUCCESS .and. slen .gt. 0 .and.
     &     slen .le. MPI_MAX_ERROR_STRING, 'Error_string length')
      if (slen .gt. 0 .and. slen .le. MPI_MAX_ERROR_STRING) then
         call chk(len_trim(str(1:slen)) .gt. 0 .and. str(1:1) .ne. '@'
     &        .and. str(slen+1:) .eq. ' ',
     &        'Error_string text, blank-padded')
      endif
      call MPI_Send(ib, -1, MPI_INTEGER, 0, 0, MPI_COMM_WORLD, e)
      call MPI_Error_class(e, cls, ierr)
      call chk(cls .eq. MPI_ERR_COUNT, 'Send count -1: MPI_ERR_COUNT')
      call MPI_Send(ib, 1, MPI_DATATYPE_NULL, 0, 0, MPI_COMM_WORLD, e)
      call MPI_Error_class(e, cls, ierr)
      call chk(cls .eq. MPI_ERR_TYPE, 'Send MPI_DATATYPE_NULL')
      call MPI_Recv(ib, 1, MPI_INTEGER, 0, -3, MPI_COMM_WORLD,
     &     MPI_STATUS_IGNORE, e)
      call MPI_Error_class(e, cls, ierr)
      call chk(cls .eq. MPI_ERR_TAG, 'Recv tag -3: MPI_ERR_TAG')
      call MPI_Comm_rank(MPI_COMM_NULL, ib(1), e)
      call MPI_Error_class(e, cls, ierr)
      call chk(cls .eq. MPI_ERR_COMM, 'MPI_COMM_NULL: MPI_ERR_COMM')
      call MPI_Error_string(MPI_SUCCESS, str, slen, ierr)
      call chk(ierr .eq. MPI_SUCCESS .and. slen .gt. 0,
     &     'Error_string(MPI_SUCCESS)')
      call MPI_Comm_set_errhandler(MPI_COMM_WORLD,
     &     MPI_ERRORS_ARE_FATAL, ierr)
      call chk(ierr .eq. MPI_SUCCESS, 'back to MPI_ERRORS_ARE_FATAL')
      end

! CHARACTER arguments: lengths passed hidden, results blank-padded,
! trailing blanks of inputs not part of the value.
      subroutine tstr(rank, nproc)
      implicit none
      include 'mpif.h'
      integer rank, nproc
      character*(MPI_MAX_PROCESSOR_NAME) pname
      character*(MPI_MAX_OBJECT_NAME) cname
      character*40 val
      character*(MPI_MAX_INFO_KEY) key
      character*3 tiny
      integer ierr, plen, clen, info, vlen, nkeys, dup
      logical flag
      double precision t1, t2

      pname = '@'
      plen = -1
      call MPI_Get_processor_name(pname, plen, ierr)
      call chk(ierr .eq. MPI_SUCCESS .and. plen .gt. 0 .and.
     &     plen .le. MPI_MAX_PROCESSOR_NAME, 'Get_processor_name')
      if (plen .gt. 0 .and. plen .le. MPI_MAX_PROCESSOR_NAME) then
         call chk(len_trim(pname) .eq. plen .and. pname(1:1) .ne. '@',
     &        'Get_processor_name text, blank-padded')
      endif

      call MPI_Comm_dup(MPI_COMM_WORLD, dup, ierr)
      call MPI_Comm_set_name(dup, 'fortran dup   ', ierr)
      call chk(ierr .eq. MPI_SUCCESS, 'Comm_set_name')
      cname = '@'
      call MPI_Comm_get_name(dup, cname, clen, ierr)
      call chk(ierr .eq. MPI_SUCCESS .and. clen .eq. 11 .and.
     &     cname .eq. 'fortran dup', 'Comm_get_name (trailing blanks)')
      call MPI_Comm_get_name(MPI_COMM_WORLD, cname, clen, ierr)
      call chk(cname .eq. 'MPI_COMM_WORLD' .and. clen .eq. 14,
     &     'Comm_get_name of MPI_COMM_WORLD')
      call MPI_Comm_free(dup, ierr)

      call MPI_Info_create(info, ierr)
      call chk(ierr .eq. MPI_SUCCESS .and. info .ne. MPI_INFO_NULL,
     &     'Info_create')
      call MPI_Info_set(info, 'color', 'deep blue   ', ierr)
      call MPI_Info_set(info, 'size', '42', ierr)
      call chk(ierr .eq. MPI_SUCCESS, 'Info_set')
      val = '@'
      flag = .false.
      call MPI_Info_get(info, 'color', 40, val, flag, ierr)
      call chk(ierr .eq. MPI_SUCCESS .and. flag .and.
     &     val .eq. 'deep blue', 'Info_get, blank-padded value')
      call MPI_Info_get_valuelen(info, 'color', vlen, flag, ierr)
      call chk(flag .and. vlen .eq. 9, 'Info_get_valuelen')
      tiny = '@'
      call MPI_Info_get(info, 'size', 40, tiny, flag, ierr)
      call chk(flag .and. tiny .eq. '42', 'Info_get into CHARACTER*3')
      flag = .true.
      call MPI_Info_get(info, 'absent', 40, val, flag, ierr)
      call chk(ierr .eq. MPI_SUCCESS .and. .not. flag,
     &     'Info_get of an absent key: flag .false.')
      call MPI_Info_get_nkeys(info, nkeys, ierr)
      call chk(nkeys .eq. 2, 'Info_get_nkeys')
      key = '@'
      call MPI_Info_get_nthkey(info, 1, key, ierr)
      call chk(key .eq. 'size', 'Info_get_nthkey (0-based n)')
      call MPI_Info_delete(info, 'color', ierr)
      call MPI_Info_get_nkeys(info, nkeys, ierr)
      call chk(nkeys .eq. 1, 'Info_delete')
      call MPI_Info_free(info, ierr)
      call chk(info .eq. MPI_INFO_NULL, 'Info_free')

      t1 = MPI_Wtime()
      t2 = MPI_Wtime()
      call chk(t1 .ge. 0.0d0 .and. t2 .ge. t1, 'MPI_Wtime')
      call chk(MPI_Wtick() .gt. 0.0d0 .and. MPI_Wtick() .lt. 1.0d0,
     &     'MPI_Wtick')
      end

! MPI_BOTTOM: a struct type of absolute addresses (MPI_Get_address)
! over three separate variables, sent and received at MPI_BOTTOM.
      subroutine tbot(rank, nproc)
      implicit none
      include 'mpif.h'
      integer rank, nproc
      integer si, ri, sarr(3), rarr(3), ierr, stype, rtype, right
      integer left, blens(3), types(3), i
      double precision sd, rd
      integer(kind=MPI_ADDRESS_KIND) disp(3), a1, a2
      integer st(MPI_STATUS_SIZE)
      logical ok

      right = mod(rank + 1, nproc)
      left = mod(rank - 1 + nproc, nproc)
      si = rank + 11
      sd = rank * 0.5d0
      do i = 1, 3
         sarr(i) = rank * 3 + i
         rarr(i) = -1
      end do
      ri = -1
      rd = -1
      blens(1) = 1
      blens(2) = 1
      blens(3) = 3
      types(1) = MPI_INTEGER
      types(2) = MPI_DOUBLE_PRECISION
      types(3) = MPI_INTEGER
      call MPI_Get_address(si, disp(1), ierr)
      call MPI_Get_address(sd, disp(2), ierr)
      call MPI_Get_address(sarr, disp(3), ierr)
      call chk(ierr .eq. MPI_SUCCESS .and. disp(1) .ne. 0,
     &     'Get_address')
      call MPI_Get_address(sarr(2), a1, ierr)
      call MPI_Get_address(sarr(3), a2, ierr)
      call chk(a2 - a1 .eq. 4, 'Get_address of consecutive elements')
      call MPI_Type_create_struct(3, blens, disp, types, stype, ierr)
      call MPI_Type_commit(stype, ierr)
      call MPI_Get_address(ri, disp(1), ierr)
      call MPI_Get_address(rd, disp(2), ierr)
      call MPI_Get_address(rarr, disp(3), ierr)
      call MPI_Type_create_struct(3, blens, disp, types, rtype, ierr)
      call MPI_Type_commit(rtype, ierr)
      call MPI_Sendrecv(MPI_BOTTOM, 1, stype, right, 40,
     &     MPI_BOTTOM, 1, rtype, left, 40, MPI_COMM_WORLD, st, ierr)
      call chk(ierr .eq. MPI_SUCCESS, 'Sendrecv at MPI_BOTTOM ierror')
      call chkst(st, left, 40, rtype, 1, 'MPI_BOTTOM')
      ok = ri .eq. left + 11 .and. rd .eq. left * 0.5d0
      do i = 1, 3
         ok = ok .and. rarr(i) .eq. left * 3 + i
      end do
      call chk(ok, 'struct of absolute addresses at MPI_BOTTOM')
      call MPI_Bcast(MPI_BOTTOM, 1, stype, 0, MPI_COMM_WORLD, ierr)
      call chk(si .eq. 11 .and. sd .eq. 0.0d0 .and. sarr(3) .eq. 3,
     &     'Bcast at MPI_BOTTOM')
      call MPI_Type_free(stype, ierr)
      call MPI_Type_free(rtype, ierr)
      end
