/*
 * What every collective shares (coll.h): the checks of its arguments and
 * the launch of its schedule, run at once or started as a request.
 */
#include "config.h"

#include "coll.h"
#include "mpi_state.h"

#include <stdarg.h>
#include <stdio.h>

int coll_arg_fail(cinfo_t *ci, const char *fn, int errclass, const char *fmt, ...)
{
    char detail[512];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(detail, sizeof(detail), fmt, ap);
    va_end(ap);
    ci->c->coll_seq++;   /* the tag this instance would have had */
    return rtmpi_error(ci->comm, fn, errclass, "%s", detail);
}

int coll_arg_error(MPI_Comm comm, const char *fn, int errclass, const char *fmt, ...)
{
    rtmpi_comm_t *c = rtmpi_comm_get(comm);
    char detail[512];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(detail, sizeof(detail), fmt, ap);
    va_end(ap);
    if (c)
        c->coll_seq++;
    return rtmpi_error(comm, fn, errclass, "%s", detail);
}

int coll_get_comm(const char *fn, MPI_Comm comm, cinfo_t *ci)
{
    ci->c = rtmpi_comm_get(comm);
    if (!ci->c)
        return rtmpi_error(MPI_COMM_NULL, fn, MPI_ERR_COMM, "invalid communicator %d", comm);
    ci->comm = comm;
    ci->rank = ci->c->rank;
    ci->size = ci->c->size;
    return MPI_SUCCESS;
}

/* coll_check_buf of a block `disp` bytes into buf: with buf MPI_BOTTOM
 * (NULL) a non-zero disp is the block's address, so only disp 0 makes the
 * block NULL. */
static int check_buf_at(const char *fn, cinfo_t *ci, const void *buf, MPI_Aint disp, int count,
                        MPI_Datatype dt, rtmpi_dtype_t **dp, const char *what)
{
    const char *sp = what[0] ? " " : "";   /* "send count", "count" */
    rtmpi_dtype_t *d;

    if (count < 0)
        return FAIL(ci, fn, MPI_ERR_COUNT, "negative %s%scount %d", what, sp, count);
    if (rtmpi_dtype_check(dt, &d))
        return FAIL(ci, fn, MPI_ERR_TYPE, "invalid or uncommitted %s%sdatatype %d", what, sp, dt);
    if (buf == MPI_IN_PLACE)
        return FAIL(ci, fn, MPI_ERR_BUFFER, "MPI_IN_PLACE is not valid as the %s%sbuffer here",
                    what, sp);
    if (!buf && disp == 0 && count > 0 && d->size > 0 && d->true_lb == 0)
        return FAIL(ci, fn, MPI_ERR_BUFFER, "the %s%sbuffer is NULL with count %d", what, sp,
                    count);
    /* the schedules multiply count by size and extent unchecked */
    if (!rtmpi_dtype_count_fits(d, count))
        return FAIL(ci, fn, MPI_ERR_COUNT, "%s%scount %d of %s is more bytes, or spans more "
                    "addresses, than 64 bits hold", what, sp, count, d->name);
    if (dp)
        *dp = d;
    return MPI_SUCCESS;
}

int coll_check_buf(const char *fn, cinfo_t *ci, const void *buf, int count, MPI_Datatype dt,
                   rtmpi_dtype_t **dp, const char *what)
{
    return check_buf_at(fn, ci, buf, 0, count, dt, dp, what);
}

int coll_check_wbuf(const char *fn, cinfo_t *ci, const void *buf, MPI_Aint disp, int count,
                    MPI_Datatype dt, const char *what)
{
    return check_buf_at(fn, ci, buf, disp, count, dt, NULL, what);
}

/* 1 when elements [first, first + n) of d, base bytes into a buffer, are
 * n * size bytes and every byte offset they reach (first * extent + base,
 * then i * extent + [true_lb, true_ub) for each element) fits an MPI_Aint:
 * the schedules compute those offsets without checks. A type of size 0 is
 * held to the offsets too: at() computes them all the same. */
static int span_fits(const rtmpi_dtype_t *d, MPI_Aint base, MPI_Count first, MPI_Count n)
{
    MPI_Aint a, b, lo, hi;

    if (n <= 0)
        return 1;
    if (!rtmpi_dtype_count_fits(d, n) ||
        __builtin_mul_overflow(first, d->extent, &a) ||
        __builtin_add_overflow(a, base, &a) ||
        __builtin_mul_overflow(n - 1, d->extent, &b) ||
        __builtin_add_overflow(a, b, &b))
        return 0;
    /* a and b: the offsets of the first and the last element */
    return !__builtin_add_overflow(a < b ? a : b, d->true_lb, &lo) &&
           !__builtin_add_overflow(a < b ? b : a, d->true_ub, &hi);
}

static const char *dt_name(const rtmpi_dtype_t *d)
{
    return d->name[0] ? d->name : "a derived datatype";
}

int coll_check_span(const char *fn, cinfo_t *ci, MPI_Aint base, MPI_Count first, MPI_Count n,
                    MPI_Datatype dt, const char *what, int block)
{
    rtmpi_dtype_t *d = rtmpi_dtype_get(dt);

    if (span_fits(d, base, first, n))
        return MPI_SUCCESS;
    return FAIL(ci, fn, MPI_ERR_COUNT, "%s block %d: %lld elements of %s at element %lld, "
                "byte %lld, are more bytes, or reach further, than 64-bit offsets hold",
                what, block, (long long)n, dt_name(d), (long long)first, (long long)base);
}

int coll_check_blocks(const char *fn, cinfo_t *ci, int nblocks, int count, MPI_Datatype dt,
                      const char *what)
{
    rtmpi_dtype_t *d = rtmpi_dtype_get(dt);

    if (span_fits(d, 0, 0, (MPI_Count)nblocks * count))
        return MPI_SUCCESS;
    return FAIL(ci, fn, MPI_ERR_COUNT, "%s count %d x %d blocks of %s are more bytes, or "
                "reach further, than 64-bit offsets hold", what, count, nblocks, dt_name(d));
}

int coll_check_vbuf(const char *fn, cinfo_t *ci, const void *buf, const int *counts,
                    const int *displs, MPI_Datatype dt, const char *what)
{
    int largest = 0, rc;

    /* the counts were checked (coll_check_counts): none is negative */
    for (int i = 0; i < ci->size; i++)
        if (counts[i] > largest)
            largest = counts[i];
    if ((rc = coll_check_buf(fn, ci, buf, largest, dt, NULL, what)))
        return rc;
    for (int i = 0; i < ci->size; i++)
        if ((rc = coll_check_span(fn, ci, 0, displs[i], counts[i], dt, what, i)))
            return rc;
    return MPI_SUCCESS;
}

int coll_check_root(const char *fn, cinfo_t *ci, int root)
{
    if (root < 0 || root >= ci->size)
        return FAIL(ci, fn, MPI_ERR_ROOT, "root %d not in 0..%d", root, ci->size - 1);
    return MPI_SUCCESS;
}

int coll_check_op(const char *fn, cinfo_t *ci, MPI_Op op, MPI_Datatype dt)
{
    if (rtmpi_op_check(op))
        return FAIL(ci, fn, MPI_ERR_OP, "invalid op %d", op);
    if (rtmpi_op_valid_for(op, dt)) {
        rtmpi_dtype_t *d = rtmpi_dtype_get(dt);

        return FAIL(ci, fn, MPI_ERR_OP, "op %d does not apply to datatype %s", op,
                    d && d->name[0] ? d->name : "(derived)");
    }
    return MPI_SUCCESS;
}

int coll_check_counts(const char *fn, cinfo_t *ci, const int *counts, const int *displs,
                      const char *what)
{
    if (!counts || !displs)
        return FAIL(ci, fn, MPI_ERR_ARG, "%s counts or displacements are NULL", what);
    for (int i = 0; i < ci->size; i++)
        if (counts[i] < 0)
            return FAIL(ci, fn, MPI_ERR_COUNT, "negative %s count %d for rank %d", what,
                        counts[i], i);
    return MPI_SUCCESS;
}

/* s was built with result build_rc: runs it (blocking) or starts it
 * (request != NULL). */
int coll_launch(const char *fn, cinfo_t *ci, rtmpi_sched_t *s, int build_rc,
                MPI_Request *request)
{
    int rc;

    /* s has its tag already: these are not argument errors (no FAIL) */
    if (build_rc) {
        rtmpi_sched_free(s);
        return rtmpi_error(ci->comm, fn, build_rc, "cannot build the collective");
    }
    if (request) {
        rc = rtmpi_sched_start(s, request);
        return rc ? rtmpi_error(ci->comm, fn, rc, "cannot start the collective") : MPI_SUCCESS;
    }
    rtmpi_call_enter(fn, RTMPI_CALL_NONE, RTMPI_CALL_NONE, ci->comm);
    rc = rtmpi_sched_run(s);
    return rc ? rtmpi_error(ci->comm, fn, rc, "the collective failed") : MPI_SUCCESS;
}
