/* f_mixed.c: (issue 16) the C half of f_mixed.f90. Fortran calls these
 * with Fortran handles (INTEGERs) and gets Fortran handles back; the C
 * side converts with MPI_*_f2c / c2f and checks that the two views name
 * the same objects. Each check function returns its count of failures
 * and prints what failed with the rank. */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

static int c_rank(void)
{
    int r = -1;
    MPI_Comm_rank(MPI_COMM_WORLD, &r);
    return r;
}

static int check(int ok, const char *what)
{
    if (!ok)
        printf("FAIL: rank %d: C side: %s\n", c_rank(), what);
    return !ok;
}

/* The predefined handles Fortran sees are the ones C's c2f gives. */
int fm_consts(MPI_Fint world, MPI_Fint self, MPI_Fint dp, MPI_Fint integer,
              MPI_Fint sum, MPI_Fint reqnull, MPI_Fint commnull, MPI_Fint errret)
{
    int n = 0;
    n += check(MPI_Comm_c2f(MPI_COMM_WORLD) == world, "Comm_c2f(MPI_COMM_WORLD)");
    n += check(MPI_Comm_f2c(world) == MPI_COMM_WORLD, "Comm_f2c(MPI_COMM_WORLD)");
    n += check(MPI_Comm_f2c(self) == MPI_COMM_SELF, "Comm_f2c(MPI_COMM_SELF)");
    n += check(MPI_Comm_f2c(commnull) == MPI_COMM_NULL, "Comm_f2c(MPI_COMM_NULL)");
    n += check(MPI_Type_c2f(MPI_DOUBLE_PRECISION) == dp, "Type_c2f(MPI_DOUBLE_PRECISION)");
    n += check(MPI_Type_f2c(integer) == MPI_INTEGER, "Type_f2c(MPI_INTEGER)");
    n += check(MPI_Op_f2c(sum) == MPI_SUM, "Op_f2c(MPI_SUM)");
    n += check(MPI_Request_f2c(reqnull) == MPI_REQUEST_NULL, "Request_f2c(MPI_REQUEST_NULL)");
    n += check(MPI_Errhandler_f2c(errret) == MPI_ERRORS_RETURN,
               "Errhandler_f2c(MPI_ERRORS_RETURN)");
    return n;
}

/* A communicator made in Fortran, used from C. */
int fm_use_comm(MPI_Fint fcomm, int want_size, int want_rank)
{
    MPI_Comm c = MPI_Comm_f2c(fcomm);
    int n = 0, size = -1, rank = -1, sum = -1;
    n += check(c != MPI_COMM_NULL, "Comm_f2c of a Fortran communicator");
    if (n)
        return n;
    MPI_Comm_size(c, &size);
    MPI_Comm_rank(c, &rank);
    n += check(size == want_size && rank == want_rank, "size and rank through Comm_f2c");
    MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, c);
    n += check(sum == size * (size - 1) / 2, "Allreduce on a Fortran communicator");
    n += check(MPI_Comm_c2f(c) == fcomm, "Comm_c2f(Comm_f2c(h)) == h");
    return n;
}

/* A communicator made in C (world in reverse order), given to Fortran. */
MPI_Fint fm_make_comm(void)
{
    MPI_Comm c;
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (MPI_Comm_split(MPI_COMM_WORLD, 0, -rank, &c) != MPI_SUCCESS)
        return MPI_Comm_c2f(MPI_COMM_NULL);
    MPI_Comm_set_name(c, "made in C");
    return MPI_Comm_c2f(c);
}

/* A type made in C: every other int of 3, given to Fortran. */
MPI_Fint fm_make_type(void)
{
    MPI_Datatype t;
    MPI_Type_vector(3, 1, 2, MPI_INT, &t);
    MPI_Type_commit(&t);
    return MPI_Type_c2f(t);
}

/* An info made in C, read in Fortran. */
MPI_Fint fm_make_info(void)
{
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "made_in", "C side");
    return MPI_Info_c2f(info);
}

/* A group made in C: the world group, given to Fortran. */
MPI_Fint fm_make_group(void)
{
    MPI_Group g;
    MPI_Comm_group(MPI_COMM_WORLD, &g);
    return MPI_Group_c2f(g);
}

/* A receive started in C into a Fortran array, completed in Fortran. */
MPI_Fint fm_start_irecv(int *buf, int count, int src, int tag)
{
    MPI_Request r;
    MPI_Irecv(buf, count, MPI_INT, src, tag, MPI_COMM_WORLD, &r);
    return MPI_Request_c2f(r);
}

/* A receive started in Fortran, completed in C: the C status comes back
 * to Fortran through MPI_Status_c2f. */
int fm_wait_fortran_req(MPI_Fint *freq, MPI_Fint *fstatus, int src, int tag, int count)
{
    MPI_Request r = MPI_Request_f2c(*freq);
    MPI_Status st;
    int n = 0, got = -1;
    n += check(r != MPI_REQUEST_NULL, "Request_f2c of a live request");
    if (n)
        return n;
    MPI_Wait(&r, &st);
    *freq = MPI_Request_c2f(r);
    MPI_Get_count(&st, MPI_INT, &got);
    n += check(st.MPI_SOURCE == src && st.MPI_TAG == tag && got == count,
               "C status of a Fortran request");
    n += check(MPI_Status_c2f(&st, fstatus) == MPI_SUCCESS, "Status_c2f");
    return n;
}

/* A status received in Fortran, read in C through MPI_Status_f2c. */
int fm_read_status(const MPI_Fint *fstatus, int src, int tag, int count)
{
    MPI_Status st;
    int n = 0, got = -1;
    memset(&st, 0xff, sizeof st);
    n += check(MPI_Status_f2c(fstatus, &st) == MPI_SUCCESS, "Status_f2c");
    MPI_Get_count(&st, MPI_INTEGER, &got);
    n += check(st.MPI_SOURCE == src && st.MPI_TAG == tag, "Status_f2c fields");
    n += check(got == count, "Get_count of a Status_f2c status");
    return n;
}
