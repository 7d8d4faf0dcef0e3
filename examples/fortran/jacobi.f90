! jacobi.f90: Jacobi iteration for the Laplace equation on an NR x NC grid
! of interior points, through the mpi_f08 module. The boundary values are
! u = (i**2 - j**2) / s on the grid's index lattice (s scales them into
! [-1, 1]): a quadratic harmonic function, which the 5-point stencil
! reproduces exactly, so it is also the closed-form solution of the
! discrete problem, and the converged result is checked against it.
!
! The grid is split in blocks over a 2-D Cartesian communicator
! (MPI_Dims_create, MPI_Cart_create, MPI_Cart_shift, not periodic, so
! ranks on the border have MPI_PROC_NULL neighbours). Each iteration
! exchanges one-cell halos: columns (contiguous in Fortran's order) with
! MPI_Sendrecv of array sections, rows (strided) with MPI_Irecv/MPI_Isend
! of an MPI_Type_vector row. Every 10 iterations MPI_Allreduce finds the
! largest change; the iteration stops below TOL. Rank 0 prints PASS when
! every point is within 1e-6 of the closed form, else FAIL.
!
!   jacobi [NR NC [ITERS [TOL]]] [--corrupt]
!
! --corrupt adds 0.5 to one halo cell of the last rank at every
! iteration (a boundary cell on one rank), so the check must fail.
! Plain MPI: builds with any MPI's mpifort that has mpi_f08. Exits 0 only
! on PASS.
program jacobi
    use mpi_f08
    implicit none
    integer, parameter :: dp = kind(1.0d0), check_every = 10
    integer :: nr = 16, nc = 12, max_iters = 5000
    real(dp) :: tol = 1.0e-10_dp
    logical :: corrupt = .false.
    type(MPI_Comm) :: cart
    type(MPI_Datatype) :: rowt
    type(MPI_Request) :: req(4)
    integer :: rank, nproc, dims(2), coords(2), crank, up, down, west, east
    integer :: gi0, gj0, rows, cols, iters, i, j, nargs, iarg, stat
    character(len=32) :: arg
    real(dp), allocatable, asynchronous :: u(:, :)
    real(dp), allocatable :: unew(:, :)
    real(dp) :: change, local, err, max_err, t0, t
    logical :: ok

    call MPI_Init()
    call MPI_Comm_rank(MPI_COMM_WORLD, rank)
    call MPI_Comm_size(MPI_COMM_WORLD, nproc)
    nargs = 0
    do iarg = 1, command_argument_count()
        call get_command_argument(iarg, arg)
        if (arg == '--corrupt') then
            corrupt = .true.
            cycle
        end if
        nargs = nargs + 1
        select case (nargs)
        case (1)
            read (arg, *, iostat=stat) nr
        case (2)
            read (arg, *, iostat=stat) nc
        case (3)
            read (arg, *, iostat=stat) max_iters
        case (4)
            read (arg, *, iostat=stat) tol
        end select
        if (stat /= 0) nr = -1
    end do

    ! the grid of ranks: dims(1) splits the rows (i), dims(2) the columns (j)
    dims = 0
    call MPI_Dims_create(nproc, 2, dims)
    if (nr < dims(1) .or. nc < dims(2) .or. max_iters < 1) then
        if (rank == 0) write (*, '(a)') 'jacobi: bad arguments or too many ranks for the grid'
        call MPI_Finalize()
        stop 2
    end if
    call MPI_Cart_create(MPI_COMM_WORLD, 2, dims, [.false., .false.], .true., cart)
    call MPI_Comm_rank(cart, crank)
    call MPI_Cart_coords(cart, crank, 2, coords)
    call MPI_Cart_shift(cart, 0, 1, up, down)
    call MPI_Cart_shift(cart, 1, 1, west, east)
    call block(nr, dims(1), coords(1), gi0, rows)
    call block(nc, dims(2), coords(2), gj0, cols)

    ! u(i, j) is the global point (gi0 + i - 1, gj0 + j - 1); the halo
    ! cells that are the grid's boundary hold the boundary values
    allocate (u(0:rows + 1, 0:cols + 1), unew(0:rows + 1, 0:cols + 1))
    u = 0
    do j = 0, cols + 1
        do i = 0, rows + 1
            if (gi0 + i - 1 == 0 .or. gi0 + i - 1 == nr + 1 .or. &
                gj0 + j - 1 == 0 .or. gj0 + j - 1 == nc + 1) &
                u(i, j) = exact(gi0 + i - 1, gj0 + j - 1)
        end do
    end do
    unew = u

    ! one interior row of the local array: cols elements, rows + 2 apart
    call MPI_Type_vector(cols, 1, rows + 2, MPI_DOUBLE_PRECISION, rowt)
    call MPI_Type_commit(rowt)

    call MPI_Barrier(cart)
    t0 = MPI_Wtime()
    iters = 0
    change = huge(change)
    do while (iters < max_iters)
        ! columns: contiguous sections; PROC_NULL leaves the border alone
        call MPI_Sendrecv(u(1:rows, 1), rows, MPI_DOUBLE_PRECISION, west, 0, &
                          u(1:rows, cols + 1), rows, MPI_DOUBLE_PRECISION, east, 0, &
                          cart, MPI_STATUS_IGNORE)
        call MPI_Sendrecv(u(1:rows, cols), rows, MPI_DOUBLE_PRECISION, east, 1, &
                          u(1:rows, 0), rows, MPI_DOUBLE_PRECISION, west, 1, &
                          cart, MPI_STATUS_IGNORE)
        ! rows: strided, with the vector type, nonblocking
        call MPI_Irecv(u(0, 1), 1, rowt, up, 2, cart, req(1))
        call MPI_Irecv(u(rows + 1, 1), 1, rowt, down, 3, cart, req(2))
        call MPI_Isend(u(rows, 1), 1, rowt, down, 2, cart, req(3))
        call MPI_Isend(u(1, 1), 1, rowt, up, 3, cart, req(4))
        call MPI_Waitall(4, req, MPI_STATUSES_IGNORE)
        if (.not. MPI_ASYNC_PROTECTS_NONBLOCKING) &
            call MPI_F_sync_reg(u)
        if (corrupt .and. crank == nproc - 1) u(1, 0) = u(1, 0) + 0.5_dp

        local = 0
        do j = 1, cols
            do i = 1, rows
                unew(i, j) = 0.25_dp * (u(i - 1, j) + u(i + 1, j) + u(i, j - 1) + u(i, j + 1))
                local = max(local, abs(unew(i, j) - u(i, j)))
            end do
        end do
        u(1:rows, 1:cols) = unew(1:rows, 1:cols)
        iters = iters + 1
        if (mod(iters, check_every) == 0) then
            call MPI_Allreduce(local, change, 1, MPI_DOUBLE_PRECISION, MPI_MAX, cart)
            if (change < tol) exit
        end if
    end do
    t = MPI_Wtime() - t0

    ! the closed form at every interior point (also catches NaN)
    err = 0
    do j = 1, cols
        do i = 1, rows
            if (.not. (abs(u(i, j) - exact(gi0 + i - 1, gj0 + j - 1)) <= err)) &
                err = abs(u(i, j) - exact(gi0 + i - 1, gj0 + j - 1))
        end do
    end do
    call MPI_Allreduce(err, max_err, 1, MPI_DOUBLE_PRECISION, MPI_MAX, cart)
    ok = max_err <= 1.0e-6_dp .and. change < tol
    if (rank == 0) then
        write (*, '(a,i0,a,i0,a,i0,a,i0,a,i0,a,es9.3,a,es9.3,a,f6.3,a)') 'jacobi: ', nr, ' x ', &
            nc, ' grid on ', dims(1), ' x ', dims(2), ' ranks, ', iters, &
            ' iterations, last change ', change, ', max |u - closed form| ', max_err, ', ', t, ' s'
        if (ok) then
            write (*, '(a)') 'PASS'
        else
            write (*, '(a)') 'FAIL'
        end if
    end if
    call MPI_Type_free(rowt)
    call MPI_Comm_free(cart)
    deallocate (u, unew)
    call MPI_Finalize()
    if (.not. ok) stop 1

contains

    ! the closed form, on the index lattice (both spacings equal)
    pure real(dp) function exact(gi, gj)
        integer, intent(in) :: gi, gj
        exact = real(gi * gi - gj * gj, dp) / real((max(nr, nc) + 1)**2, dp)
    end function exact

    ! block: the first global index and the count of block c of n split in d
    subroutine block(n, d, c, first, count)
        integer, intent(in) :: n, d, c
        integer, intent(out) :: first, count
        count = n / d
        if (c < mod(n, d)) count = count + 1
        first = c * (n / d) + min(c, mod(n, d)) + 1
    end subroutine block

end program jacobi
