! pi.f: computes pi as the integral of 4/(1+x**2) over [0,1] with the
! midpoint rule, through mpif.h (fixed form, as old codes are written).
! Rank 0 takes the number of intervals from the command line and
! broadcasts it; each rank sums its cyclic share of the intervals and
! MPI_Reduce adds the shares on rank 0, which checks the result against
! the closed form (pi = 4 atan(1)) and prints PASS or FAIL.
!
!   pi [INTERVALS] [--corrupt]
!
! --corrupt makes the last rank skip one interval, so the check must
! fail (the tests use it to show the check can catch a wrong result).
! Plain MPI: builds with any MPI's mpifort. Exits 0 only on PASS.
      program pi
      implicit none
      include 'mpif.h'
      integer rank, nproc, ierr, n, i, done, total, iarg, verdict
      logical corrupt
      character*32 arg
      double precision h, x, local, sum, err, bound, t0, t, pi0
      double precision part(2), both(2)

      call MPI_Init(ierr)
      call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
      call MPI_Comm_size(MPI_COMM_WORLD, nproc, ierr)
      n = 1000000
      corrupt = .false.
      do iarg = 1, command_argument_count()
         call get_command_argument(iarg, arg)
         if (arg .eq. '--corrupt') then
            corrupt = .true.
         else if (rank .eq. 0) then
!           only the root's value counts: the others get it by Bcast
            read (arg, *, iostat=ierr) n
            if (ierr .ne. 0) n = -1
         endif
      end do
      if (rank .ne. 0) n = -1
      call MPI_Bcast(n, 1, MPI_INTEGER, 0, MPI_COMM_WORLD, ierr)
      if (n .lt. 1) then
         if (rank .eq. 0) write (*, '(a)')
     &        'pi: the number of intervals must be a positive integer'
         call MPI_Finalize(ierr)
         stop 2
      endif

      t0 = MPI_Wtime()
      h = 1.0d0 / n
      local = 0.0d0
      done = 0
      do i = rank, n - 1, nproc
         if (.not. (corrupt .and. rank .eq. nproc - 1 .and.
     &        i .eq. rank)) then
            x = h * (i + 0.5d0)
            local = local + 4.0d0 / (1.0d0 + x * x)
            done = done + 1
         endif
      end do
!     the share and the count of intervals in one DOUBLE PRECISION
!     reduction (exact for counts below 2**53): every choice buffer of
!     this file is then of one type, as gfortran 10 and later require of
!     the implicit interfaces of mpif.h without -fallow-argument-mismatch
      part(1) = local * h
      part(2) = done
      both(1) = 0.0d0
      both(2) = 0.0d0
      call MPI_Reduce(part, both, 2, MPI_DOUBLE_PRECISION, MPI_SUM, 0,
     &     MPI_COMM_WORLD, ierr)
      sum = both(1)
      total = nint(both(2))
      t = MPI_Wtime() - t0

      verdict = 0
      if (rank .eq. 0) then
!        The midpoint rule's error here is h**2/12 (f'(1) - f'(0) = -2);
!        twice that plus 1e-10 for rounding in the sums. One missing
!        interval costs at least 2h, far above the bound.
         pi0 = 4.0d0 * atan(1.0d0)
         err = abs(sum - pi0)
         bound = h * h / 6.0d0 + 1.0d-10
         if (err .le. bound .and. total .eq. n) verdict = 1
         write (*, '(a,i0,a,i0,a,f17.15,a,es9.3,a,es9.3,a,i0,a,f6.3,a)')
     &        'pi: ', n, ' intervals on ', nproc, ' ranks: pi = ', sum,
     &        ', error ', err, ' (bound ', bound, '), ', total,
     &        ' intervals summed, ', t, ' s'
         if (verdict .eq. 1) then
            write (*, '(a)') 'PASS'
         else
            write (*, '(a)') 'FAIL'
         endif
      endif
!     every rank exits with the verdict, so the launcher reports it too
      call MPI_Bcast(verdict, 1, MPI_INTEGER, 0, MPI_COMM_WORLD, ierr)
      call MPI_Finalize(ierr)
      if (verdict .ne. 1) stop 1
      end
