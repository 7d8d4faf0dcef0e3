/*
 * One-sided communication (MPI_Win_*, Put, Get, Accumulate, ...) is not
 * supported yet: every call exists so codes link, and returns
 * MPI_ERR_UNSUPPORTED_OPERATION through the error handler (the
 * communicator's when there is one, else MPI_COMM_WORLD's). docs/mpi.md
 * lists this. Output handles are set to their null values.
 */
#include "config.h"

#include "mpi_impl.h"

#define UNSUPPORTED(_comm) \
    rtmpi_error(_comm, __func__, MPI_ERR_UNSUPPORTED_OPERATION, \
                "one-sided communication is not supported yet (see docs/mpi.md)")

int MPI_WIN_DUP_FN(MPI_Win oldwin, int win_keyval, void *extra_state, void *attribute_val_in,
                   void *attribute_val_out, int *flag)
{
    (void)oldwin; (void)win_keyval; (void)extra_state;
    *(void **)attribute_val_out = attribute_val_in;
    *flag = 1;
    return MPI_SUCCESS;
}

int PMPI_Win_create(void *base, MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm, MPI_Win *win)
{
    (void)base;
    (void)size;
    (void)disp_unit;
    (void)info;
    (void)win;
    RTMPI_ENTER();
    if (win)
        *win = MPI_WIN_NULL;
    return UNSUPPORTED(comm);
}
RTMPI_WEAK(Win_create)

int PMPI_Win_allocate(MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm, void *baseptr, MPI_Win *win)
{
    (void)size;
    (void)disp_unit;
    (void)info;
    (void)baseptr;
    (void)win;
    RTMPI_ENTER();
    if (win)
        *win = MPI_WIN_NULL;
    return UNSUPPORTED(comm);
}
RTMPI_WEAK(Win_allocate)

int PMPI_Win_allocate_shared(MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm, void *baseptr, MPI_Win *win)
{
    (void)size;
    (void)disp_unit;
    (void)info;
    (void)baseptr;
    (void)win;
    RTMPI_ENTER();
    if (win)
        *win = MPI_WIN_NULL;
    return UNSUPPORTED(comm);
}
RTMPI_WEAK(Win_allocate_shared)

int PMPI_Win_shared_query(MPI_Win win, int rank, MPI_Aint *size, int *disp_unit, void *baseptr)
{
    (void)win;
    (void)rank;
    (void)size;
    (void)disp_unit;
    (void)baseptr;
    RTMPI_ENTER();
    return UNSUPPORTED(MPI_COMM_NULL);
}
RTMPI_WEAK(Win_shared_query)

int PMPI_Win_create_dynamic(MPI_Info info, MPI_Comm comm, MPI_Win *win)
{
    (void)info;
    (void)win;
    RTMPI_ENTER();
    if (win)
        *win = MPI_WIN_NULL;
    return UNSUPPORTED(comm);
}
RTMPI_WEAK(Win_create_dynamic)

int PMPI_Win_attach(MPI_Win win, void *base, MPI_Aint size)
{
    (void)win;
    (void)base;
    (void)size;
    RTMPI_ENTER();
    return UNSUPPORTED(MPI_COMM_NULL);
}
RTMPI_WEAK(Win_attach)

int PMPI_Win_detach(MPI_Win win, const void *base)
{
    (void)win;
    (void)base;
    RTMPI_ENTER();
    return UNSUPPORTED(MPI_COMM_NULL);
}
RTMPI_WEAK(Win_detach)

int PMPI_Win_free(MPI_Win *win)
{
    (void)win;
    RTMPI_ENTER();
    if (win)
        *win = MPI_WIN_NULL;
    return UNSUPPORTED(MPI_COMM_NULL);
}
RTMPI_WEAK(Win_free)

int PMPI_Win_fence(int assert, MPI_Win win)
{
    (void)assert;
    (void)win;
    RTMPI_ENTER();
    return UNSUPPORTED(MPI_COMM_NULL);
}
RTMPI_WEAK(Win_fence)

int PMPI_Win_start(MPI_Group group, int assert, MPI_Win win)
{
    (void)group;
    (void)assert;
    (void)win;
    RTMPI_ENTER();
    return UNSUPPORTED(MPI_COMM_NULL);
}
RTMPI_WEAK(Win_start)

int PMPI_Win_complete(MPI_Win win)
{
    (void)win;
    RTMPI_ENTER();
    return UNSUPPORTED(MPI_COMM_NULL);
}
RTMPI_WEAK(Win_complete)

int PMPI_Win_post(MPI_Group group, int assert, MPI_Win win)
{
    (void)group;
    (void)assert;
    (void)win;
    RTMPI_ENTER();
    return UNSUPPORTED(MPI_COMM_NULL);
}
RTMPI_WEAK(Win_post)

int PMPI_Win_wait(MPI_Win win)
{
    (void)win;
    RTMPI_ENTER();
    return UNSUPPORTED(MPI_COMM_NULL);
}
RTMPI_WEAK(Win_wait)

int PMPI_Win_test(MPI_Win win, int *flag)
{
    (void)win;
    (void)flag;
    RTMPI_ENTER();
    return UNSUPPORTED(MPI_COMM_NULL);
}
RTMPI_WEAK(Win_test)

int PMPI_Win_lock(int lock_type, int rank, int assert, MPI_Win win)
{
    (void)lock_type;
    (void)rank;
    (void)assert;
    (void)win;
    RTMPI_ENTER();
    return UNSUPPORTED(MPI_COMM_NULL);
}
RTMPI_WEAK(Win_lock)

int PMPI_Win_unlock(int rank, MPI_Win win)
{
    (void)rank;
    (void)win;
    RTMPI_ENTER();
    return UNSUPPORTED(MPI_COMM_NULL);
}
RTMPI_WEAK(Win_unlock)

int PMPI_Win_lock_all(int assert, MPI_Win win)
{
    (void)assert;
    (void)win;
    RTMPI_ENTER();
    return UNSUPPORTED(MPI_COMM_NULL);
}
RTMPI_WEAK(Win_lock_all)

int PMPI_Win_unlock_all(MPI_Win win)
{
    (void)win;
    RTMPI_ENTER();
    return UNSUPPORTED(MPI_COMM_NULL);
}
RTMPI_WEAK(Win_unlock_all)

int PMPI_Win_flush(int rank, MPI_Win win)
{
    (void)rank;
    (void)win;
    RTMPI_ENTER();
    return UNSUPPORTED(MPI_COMM_NULL);
}
RTMPI_WEAK(Win_flush)

int PMPI_Win_flush_all(MPI_Win win)
{
    (void)win;
    RTMPI_ENTER();
    return UNSUPPORTED(MPI_COMM_NULL);
}
RTMPI_WEAK(Win_flush_all)

int PMPI_Win_flush_local(int rank, MPI_Win win)
{
    (void)rank;
    (void)win;
    RTMPI_ENTER();
    return UNSUPPORTED(MPI_COMM_NULL);
}
RTMPI_WEAK(Win_flush_local)

int PMPI_Win_flush_local_all(MPI_Win win)
{
    (void)win;
    RTMPI_ENTER();
    return UNSUPPORTED(MPI_COMM_NULL);
}
RTMPI_WEAK(Win_flush_local_all)

int PMPI_Win_sync(MPI_Win win)
{
    (void)win;
    RTMPI_ENTER();
    return UNSUPPORTED(MPI_COMM_NULL);
}
RTMPI_WEAK(Win_sync)

int PMPI_Win_get_group(MPI_Win win, MPI_Group *group)
{
    (void)win;
    (void)group;
    RTMPI_ENTER();
    if (group)
        *group = MPI_GROUP_NULL;
    return UNSUPPORTED(MPI_COMM_NULL);
}
RTMPI_WEAK(Win_get_group)

int PMPI_Win_set_name(MPI_Win win, const char *win_name)
{
    (void)win;
    (void)win_name;
    RTMPI_ENTER();
    return UNSUPPORTED(MPI_COMM_NULL);
}
RTMPI_WEAK(Win_set_name)

int PMPI_Win_get_name(MPI_Win win, char *win_name, int *resultlen)
{
    (void)win;
    (void)win_name;
    (void)resultlen;
    RTMPI_ENTER();
    return UNSUPPORTED(MPI_COMM_NULL);
}
RTMPI_WEAK(Win_get_name)

int PMPI_Win_set_errhandler(MPI_Win win, MPI_Errhandler errhandler)
{
    (void)win;
    (void)errhandler;
    RTMPI_ENTER();
    return UNSUPPORTED(MPI_COMM_NULL);
}
RTMPI_WEAK(Win_set_errhandler)

int PMPI_Win_get_errhandler(MPI_Win win, MPI_Errhandler *errhandler)
{
    (void)win;
    (void)errhandler;
    RTMPI_ENTER();
    if (errhandler)
        *errhandler = MPI_ERRHANDLER_NULL;
    return UNSUPPORTED(MPI_COMM_NULL);
}
RTMPI_WEAK(Win_get_errhandler)

int PMPI_Win_create_errhandler(MPI_Win_errhandler_function *function, MPI_Errhandler *errhandler)
{
    (void)function;
    (void)errhandler;
    RTMPI_ENTER();
    if (errhandler)
        *errhandler = MPI_ERRHANDLER_NULL;
    return UNSUPPORTED(MPI_COMM_NULL);
}
RTMPI_WEAK(Win_create_errhandler)

int PMPI_Win_call_errhandler(MPI_Win win, int errorcode)
{
    (void)win;
    (void)errorcode;
    RTMPI_ENTER();
    return UNSUPPORTED(MPI_COMM_NULL);
}
RTMPI_WEAK(Win_call_errhandler)

int PMPI_Win_get_attr(MPI_Win win, int win_keyval, void *attribute_val, int *flag)
{
    (void)win;
    (void)win_keyval;
    (void)attribute_val;
    (void)flag;
    RTMPI_ENTER();
    return UNSUPPORTED(MPI_COMM_NULL);
}
RTMPI_WEAK(Win_get_attr)

int PMPI_Win_set_attr(MPI_Win win, int win_keyval, void *attribute_val)
{
    (void)win;
    (void)win_keyval;
    (void)attribute_val;
    RTMPI_ENTER();
    return UNSUPPORTED(MPI_COMM_NULL);
}
RTMPI_WEAK(Win_set_attr)

int PMPI_Win_delete_attr(MPI_Win win, int win_keyval)
{
    (void)win;
    (void)win_keyval;
    RTMPI_ENTER();
    return UNSUPPORTED(MPI_COMM_NULL);
}
RTMPI_WEAK(Win_delete_attr)

int PMPI_Win_create_keyval(MPI_Win_copy_attr_function *win_copy_attr_fn, MPI_Win_delete_attr_function *win_delete_attr_fn, int *win_keyval, void *extra_state)
{
    (void)win_copy_attr_fn;
    (void)win_delete_attr_fn;
    (void)win_keyval;
    (void)extra_state;
    RTMPI_ENTER();
    return UNSUPPORTED(MPI_COMM_NULL);
}
RTMPI_WEAK(Win_create_keyval)

int PMPI_Win_free_keyval(int *win_keyval)
{
    (void)win_keyval;
    RTMPI_ENTER();
    return UNSUPPORTED(MPI_COMM_NULL);
}
RTMPI_WEAK(Win_free_keyval)

int PMPI_Win_set_info(MPI_Win win, MPI_Info info)
{
    (void)win;
    (void)info;
    RTMPI_ENTER();
    return UNSUPPORTED(MPI_COMM_NULL);
}
RTMPI_WEAK(Win_set_info)

int PMPI_Win_get_info(MPI_Win win, MPI_Info *info_used)
{
    (void)win;
    (void)info_used;
    RTMPI_ENTER();
    return UNSUPPORTED(MPI_COMM_NULL);
}
RTMPI_WEAK(Win_get_info)

int PMPI_Put(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank, MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Win win)
{
    (void)origin_addr;
    (void)origin_count;
    (void)origin_datatype;
    (void)target_rank;
    (void)target_disp;
    (void)target_count;
    (void)target_datatype;
    (void)win;
    RTMPI_ENTER();
    return UNSUPPORTED(MPI_COMM_NULL);
}
RTMPI_WEAK(Put)

int PMPI_Get(void *origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank, MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Win win)
{
    (void)origin_addr;
    (void)origin_count;
    (void)origin_datatype;
    (void)target_rank;
    (void)target_disp;
    (void)target_count;
    (void)target_datatype;
    (void)win;
    RTMPI_ENTER();
    return UNSUPPORTED(MPI_COMM_NULL);
}
RTMPI_WEAK(Get)

int PMPI_Accumulate(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank, MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Op op, MPI_Win win)
{
    (void)origin_addr;
    (void)origin_count;
    (void)origin_datatype;
    (void)target_rank;
    (void)target_disp;
    (void)target_count;
    (void)target_datatype;
    (void)op;
    (void)win;
    RTMPI_ENTER();
    return UNSUPPORTED(MPI_COMM_NULL);
}
RTMPI_WEAK(Accumulate)

int PMPI_Get_accumulate(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype, void *result_addr, int result_count, MPI_Datatype result_datatype, int target_rank, MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Op op, MPI_Win win)
{
    (void)origin_addr;
    (void)origin_count;
    (void)origin_datatype;
    (void)result_addr;
    (void)result_count;
    (void)result_datatype;
    (void)target_rank;
    (void)target_disp;
    (void)target_count;
    (void)target_datatype;
    (void)op;
    (void)win;
    RTMPI_ENTER();
    return UNSUPPORTED(MPI_COMM_NULL);
}
RTMPI_WEAK(Get_accumulate)

int PMPI_Fetch_and_op(const void *origin_addr, void *result_addr, MPI_Datatype datatype, int target_rank, MPI_Aint target_disp, MPI_Op op, MPI_Win win)
{
    (void)origin_addr;
    (void)result_addr;
    (void)datatype;
    (void)target_rank;
    (void)target_disp;
    (void)op;
    (void)win;
    RTMPI_ENTER();
    return UNSUPPORTED(MPI_COMM_NULL);
}
RTMPI_WEAK(Fetch_and_op)

int PMPI_Compare_and_swap(const void *origin_addr, const void *compare_addr, void *result_addr, MPI_Datatype datatype, int target_rank, MPI_Aint target_disp, MPI_Win win)
{
    (void)origin_addr;
    (void)compare_addr;
    (void)result_addr;
    (void)datatype;
    (void)target_rank;
    (void)target_disp;
    (void)win;
    RTMPI_ENTER();
    return UNSUPPORTED(MPI_COMM_NULL);
}
RTMPI_WEAK(Compare_and_swap)

int PMPI_Rput(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank, MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Win win, MPI_Request *request)
{
    (void)origin_addr;
    (void)origin_count;
    (void)origin_datatype;
    (void)target_rank;
    (void)target_disp;
    (void)target_count;
    (void)target_datatype;
    (void)win;
    (void)request;
    RTMPI_ENTER();
    if (request)
        *request = MPI_REQUEST_NULL;
    return UNSUPPORTED(MPI_COMM_NULL);
}
RTMPI_WEAK(Rput)

int PMPI_Rget(void *origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank, MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Win win, MPI_Request *request)
{
    (void)origin_addr;
    (void)origin_count;
    (void)origin_datatype;
    (void)target_rank;
    (void)target_disp;
    (void)target_count;
    (void)target_datatype;
    (void)win;
    (void)request;
    RTMPI_ENTER();
    if (request)
        *request = MPI_REQUEST_NULL;
    return UNSUPPORTED(MPI_COMM_NULL);
}
RTMPI_WEAK(Rget)

int PMPI_Raccumulate(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank, MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Op op, MPI_Win win, MPI_Request *request)
{
    (void)origin_addr;
    (void)origin_count;
    (void)origin_datatype;
    (void)target_rank;
    (void)target_disp;
    (void)target_count;
    (void)target_datatype;
    (void)op;
    (void)win;
    (void)request;
    RTMPI_ENTER();
    if (request)
        *request = MPI_REQUEST_NULL;
    return UNSUPPORTED(MPI_COMM_NULL);
}
RTMPI_WEAK(Raccumulate)

int PMPI_Rget_accumulate(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype, void *result_addr, int result_count, MPI_Datatype result_datatype, int target_rank, MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Op op, MPI_Win win, MPI_Request *request)
{
    (void)origin_addr;
    (void)origin_count;
    (void)origin_datatype;
    (void)result_addr;
    (void)result_count;
    (void)result_datatype;
    (void)target_rank;
    (void)target_disp;
    (void)target_count;
    (void)target_datatype;
    (void)op;
    (void)win;
    (void)request;
    RTMPI_ENTER();
    if (request)
        *request = MPI_REQUEST_NULL;
    return UNSUPPORTED(MPI_COMM_NULL);
}
RTMPI_WEAK(Rget_accumulate)
