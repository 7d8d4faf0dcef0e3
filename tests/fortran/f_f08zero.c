/*
 * f_f08zero.c: (issue 14) a non-contiguous CFI descriptor whose elements
 * have no bytes (elem_len 0, as a section of CHARACTER(LEN=0); a compiler
 * may keep the parent's byte strides in sm) passed to an mpi_f08 entry
 * point that copies non-contiguous sections (MPI_Pack, MPI_Unpack): the
 * copy's size was divided by elem_len (SIGFPE). Now such a section is
 * taken as it is: no bytes, nothing to copy. Built with mpicc, linked by
 * mpifort (the entry points are in librtmsg_mpifh); any number of ranks.
 */
#include <mpi.h>
#include <ISO_Fortran_binding.h>

#include <stdio.h>
#include <string.h>

void pmpi_pack_f08ts_(CFI_cdesc_t *inbuf, MPI_Fint *incount, MPI_Fint *datatype,
                      CFI_cdesc_t *outbuf, MPI_Fint *outsize, MPI_Fint *position,
                      MPI_Fint *comm, MPI_Fint *ierr);
void pmpi_unpack_f08ts_(CFI_cdesc_t *inbuf, MPI_Fint *insize, MPI_Fint *position,
                        CFI_cdesc_t *outbuf, MPI_Fint *outcount, MPI_Fint *datatype,
                        MPI_Fint *comm, MPI_Fint *ierr);

/* A rank-1 descriptor of n elements of elem_len bytes, sm bytes apart. */
static void section(CFI_cdesc_t *d, void *base, size_t elem_len, CFI_index_t n, CFI_index_t sm)
{
    memset(d, 0, sizeof(CFI_CDESC_T(1)));
    d->base_addr = base;
    d->elem_len = elem_len;
    d->version = CFI_VERSION;
    d->rank = 1;
    d->type = CFI_type_char;
    d->attribute = CFI_attribute_other;
    d->dim[0].lower_bound = 0;
    d->dim[0].extent = n;
    d->dim[0].sm = sm;
}

int main(int argc, char **argv)
{
    char chars[64] = "unchanged", packed[16] = "";
    CFI_CDESC_T(1) zero, flat;
    MPI_Fint count = 0, size = sizeof(packed), pos = 0, ierr = -1, failures = 0;
    MPI_Fint type, comm;
    int rank;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    type = MPI_Type_c2f(MPI_CHARACTER);
    comm = MPI_Comm_c2f(MPI_COMM_WORLD);
    /* 5 elements of no bytes, 8 bytes apart: not contiguous by its strides */
    section((CFI_cdesc_t *)&zero, chars, 0, 5, 8);
    section((CFI_cdesc_t *)&flat, packed, 1, (CFI_index_t)sizeof(packed), 1);
    pmpi_pack_f08ts_((CFI_cdesc_t *)&zero, &count, &type, (CFI_cdesc_t *)&flat, &size, &pos,
                     &comm, &ierr);
    if (ierr != MPI_SUCCESS || pos != 0) {
        fprintf(stderr, "FAIL: rank %d: MPI_Pack of a zero-length section: ierr %d position %d\n",
                rank, (int)ierr, (int)pos);
        failures++;
    }
    ierr = -1;
    pmpi_unpack_f08ts_((CFI_cdesc_t *)&flat, &size, &pos, (CFI_cdesc_t *)&zero, &count, &type,
                       &comm, &ierr);
    if (ierr != MPI_SUCCESS || pos != 0 || strcmp(chars, "unchanged") != 0) {
        fprintf(stderr, "FAIL: rank %d: MPI_Unpack into a zero-length section: ierr %d "
                "position %d\n", rank, (int)ierr, (int)pos);
        failures++;
    }
    if (rank == 0 && failures == 0)
        printf("PASS\n");
    MPI_Finalize();
    return failures != 0;
}
