/*
 * librtmsg MPI binding (MPI 3.1 C names).
 *
 * Handles of objects with predefined values (communicators, groups,
 * datatypes, ops, error handlers, infos, windows) are small ints, so the
 * predefined ones are compile-time constants; requests and matched messages
 * are pointers. Every MPI_X is a weak alias of PMPI_X so that profiling
 * tools can interpose.
 *
 * Only what the library implements is declared here: configure scripts
 * probe for symbols, so nothing of MPI 4 (sessions, partitioned
 * communication, ...) is declared. docs/mpi.md lists what is unsupported.
 */
#ifndef RTMSG_MPI_H
#define RTMSG_MPI_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define MPI_VERSION    3
#define MPI_SUBVERSION 1

/* Identifies this implementation for codes that need to know. */
#define RTMSG_MPI 1

/* ---- Basic types ---- */
typedef intptr_t  MPI_Aint;
typedef long long MPI_Offset;
typedef long long MPI_Count;

typedef int MPI_Comm;
typedef int MPI_Group;
typedef int MPI_Datatype;
typedef int MPI_Op;
typedef int MPI_Errhandler;
typedef int MPI_Info;
typedef int MPI_Win;
typedef struct rtmpi_request *MPI_Request;
typedef struct rtmpi_message *MPI_Message;

typedef struct MPI_Status {
    int MPI_SOURCE;
    int MPI_TAG;
    int MPI_ERROR;
    int rtmpi_cancelled;     /* private */
    long long rtmpi_count;   /* private: bytes received */
} MPI_Status;

/* ---- Limits ---- */
#define MPI_MAX_PROCESSOR_NAME         256
#define MPI_MAX_ERROR_STRING           256
#define MPI_MAX_OBJECT_NAME            64
#define MPI_MAX_LIBRARY_VERSION_STRING 256
#define MPI_MAX_INFO_KEY               255
#define MPI_MAX_INFO_VAL               1024
#define MPI_MAX_PORT_NAME              1024
#define MPI_BSEND_OVERHEAD             96

/* ---- Special values ---- */
#define MPI_ANY_SOURCE   (-1)
#define MPI_ANY_TAG      (-1)
#define MPI_PROC_NULL    (-2)
#define MPI_ROOT         (-3)
#define MPI_UNDEFINED    (-32766)
#define MPI_KEYVAL_INVALID (-1)

#define MPI_BOTTOM          ((void *)0)
#define MPI_IN_PLACE        ((void *)1)
#define MPI_STATUS_IGNORE   ((MPI_Status *)0)
#define MPI_STATUSES_IGNORE ((MPI_Status *)0)
#define MPI_ERRCODES_IGNORE ((int *)0)
/* Addresses of library objects, not small constants cast to pointers: gcc
 * 12 and later (-Wall: -Wstringop-overread/-overflow) reject a constant
 * pointer passed for an array parameter, which broke -Werror builds of
 * code calling MPI_Dist_graph_* with MPI_UNWEIGHTED. */
extern int rtm_mpi_unweighted[1];
extern int rtm_mpi_weights_empty[1];
#define MPI_UNWEIGHTED      (rtm_mpi_unweighted)
#define MPI_WEIGHTS_EMPTY   (rtm_mpi_weights_empty)
#define MPI_ARGV_NULL       ((char **)0)
#define MPI_ARGVS_NULL      ((char ***)0)

#define MPI_REQUEST_NULL    ((MPI_Request)0)
#define MPI_MESSAGE_NULL    ((MPI_Message)0)
#define MPI_MESSAGE_NO_PROC ((MPI_Message)1)

/* Comparison results */
#define MPI_IDENT     0
#define MPI_CONGRUENT 1
#define MPI_SIMILAR   2
#define MPI_UNEQUAL   3

/* Thread levels */
#define MPI_THREAD_SINGLE     0
#define MPI_THREAD_FUNNELED   1
#define MPI_THREAD_SERIALIZED 2
#define MPI_THREAD_MULTIPLE   3

/* Topologies */
#define MPI_GRAPH      1
#define MPI_CART       2
#define MPI_DIST_GRAPH 3

#define MPI_COMM_TYPE_SHARED 1

/* Subarray order */
#define MPI_ORDER_C       0
#define MPI_ORDER_FORTRAN 1

/* Datatype combiners (MPI_Type_get_envelope) */
#define MPI_COMBINER_NAMED          1
#define MPI_COMBINER_DUP            2
#define MPI_COMBINER_CONTIGUOUS     3
#define MPI_COMBINER_VECTOR         4
#define MPI_COMBINER_HVECTOR        5
#define MPI_COMBINER_INDEXED        6
#define MPI_COMBINER_HINDEXED       7
#define MPI_COMBINER_INDEXED_BLOCK  8
#define MPI_COMBINER_HINDEXED_BLOCK 9
#define MPI_COMBINER_STRUCT         10
#define MPI_COMBINER_SUBARRAY       11
#define MPI_COMBINER_DARRAY         12
#define MPI_COMBINER_RESIZED        13
#define MPI_COMBINER_F90_REAL       14
#define MPI_COMBINER_F90_COMPLEX    15
#define MPI_COMBINER_F90_INTEGER    16

/* One-sided constants */
#define MPI_MODE_NOCHECK    1
#define MPI_MODE_NOSTORE    2
#define MPI_MODE_NOPUT      4
#define MPI_MODE_NOPRECEDE  8
#define MPI_MODE_NOSUCCEED  16
#define MPI_LOCK_EXCLUSIVE  1
#define MPI_LOCK_SHARED     2
/* MPI_WIN_CREATE_FLAVOR and MPI_WIN_MODEL values */
#define MPI_WIN_FLAVOR_CREATE   1
#define MPI_WIN_FLAVOR_ALLOCATE 2
#define MPI_WIN_FLAVOR_DYNAMIC  3
#define MPI_WIN_FLAVOR_SHARED   4
#define MPI_WIN_SEPARATE        1
#define MPI_WIN_UNIFIED         2

/* ---- Error classes ---- */
#define MPI_SUCCESS                   0
#define MPI_ERR_BUFFER                1
#define MPI_ERR_COUNT                 2
#define MPI_ERR_TYPE                  3
#define MPI_ERR_TAG                   4
#define MPI_ERR_COMM                  5
#define MPI_ERR_RANK                  6
#define MPI_ERR_REQUEST               7
#define MPI_ERR_ROOT                  8
#define MPI_ERR_GROUP                 9
#define MPI_ERR_OP                    10
#define MPI_ERR_TOPOLOGY              11
#define MPI_ERR_DIMS                  12
#define MPI_ERR_ARG                   13
#define MPI_ERR_UNKNOWN               14
#define MPI_ERR_TRUNCATE              15
#define MPI_ERR_OTHER                 16
#define MPI_ERR_INTERN                17
#define MPI_ERR_IN_STATUS             18
#define MPI_ERR_PENDING               19
#define MPI_ERR_ACCESS                20
#define MPI_ERR_AMODE                 21
#define MPI_ERR_ASSERT                22
#define MPI_ERR_BAD_FILE              23
#define MPI_ERR_BASE                  24
#define MPI_ERR_CONVERSION            25
#define MPI_ERR_DISP                  26
#define MPI_ERR_DUP_DATAREP           27
#define MPI_ERR_FILE_EXISTS           28
#define MPI_ERR_FILE_IN_USE           29
#define MPI_ERR_FILE                  30
#define MPI_ERR_INFO_KEY              31
#define MPI_ERR_INFO_NOKEY            32
#define MPI_ERR_INFO_VALUE            33
#define MPI_ERR_INFO                  34
#define MPI_ERR_IO                    35
#define MPI_ERR_KEYVAL                36
#define MPI_ERR_LOCKTYPE              37
#define MPI_ERR_NAME                  38
#define MPI_ERR_NO_MEM                39
#define MPI_ERR_NOT_SAME              40
#define MPI_ERR_NO_SPACE              41
#define MPI_ERR_NO_SUCH_FILE          42
#define MPI_ERR_PORT                  43
#define MPI_ERR_QUOTA                 44
#define MPI_ERR_READ_ONLY             45
#define MPI_ERR_RMA_CONFLICT          46
#define MPI_ERR_RMA_SYNC              47
#define MPI_ERR_SERVICE               48
#define MPI_ERR_SIZE                  49
#define MPI_ERR_SPAWN                 50
#define MPI_ERR_UNSUPPORTED_DATAREP   51
#define MPI_ERR_UNSUPPORTED_OPERATION 52
#define MPI_ERR_WIN                   53
#define MPI_ERR_RMA_RANGE             54
#define MPI_ERR_RMA_ATTACH            55
#define MPI_ERR_RMA_SHARED            56
#define MPI_ERR_RMA_FLAVOR            57
#define MPI_T_ERR_INVALID             58
#define MPI_ERR_LASTCODE              74   /* above MPI_T_ERR_PVAR_NO_ATOMIC (MPI_T section) */

/* ---- Predefined handles ---- */
#define MPI_COMM_NULL  0
#define MPI_COMM_WORLD 1
#define MPI_COMM_SELF  2

#define MPI_GROUP_NULL  0
#define MPI_GROUP_EMPTY 1

#define MPI_ERRHANDLER_NULL  0
#define MPI_ERRORS_ARE_FATAL 1
#define MPI_ERRORS_RETURN    2

#define MPI_INFO_NULL 0
#define MPI_INFO_ENV  1

#define MPI_WIN_NULL 0

/* Datatypes: the numbering is the library's table index; do not reorder. */
#define MPI_DATATYPE_NULL          0
#define MPI_CHAR                   1
#define MPI_SIGNED_CHAR            2
#define MPI_UNSIGNED_CHAR          3
#define MPI_BYTE                   4
#define MPI_SHORT                  5
#define MPI_UNSIGNED_SHORT         6
#define MPI_INT                    7
#define MPI_UNSIGNED               8
#define MPI_LONG                   9
#define MPI_UNSIGNED_LONG          10
#define MPI_LONG_LONG_INT          11
#define MPI_LONG_LONG              MPI_LONG_LONG_INT
#define MPI_UNSIGNED_LONG_LONG     12
#define MPI_FLOAT                  13
#define MPI_DOUBLE                 14
#define MPI_LONG_DOUBLE            15
#define MPI_WCHAR                  16
#define MPI_C_BOOL                 17
#define MPI_INT8_T                 18
#define MPI_INT16_T                19
#define MPI_INT32_T                20
#define MPI_INT64_T                21
#define MPI_UINT8_T                22
#define MPI_UINT16_T               23
#define MPI_UINT32_T               24
#define MPI_UINT64_T               25
#define MPI_AINT                   26
#define MPI_COUNT                  27
#define MPI_OFFSET                 28
#define MPI_C_FLOAT_COMPLEX        29
#define MPI_C_COMPLEX              MPI_C_FLOAT_COMPLEX
#define MPI_C_DOUBLE_COMPLEX       30
#define MPI_C_LONG_DOUBLE_COMPLEX  31
#define MPI_PACKED                 32
#define MPI_FLOAT_INT              33
#define MPI_DOUBLE_INT             34
#define MPI_LONG_INT               35
#define MPI_2INT                   36
#define MPI_SHORT_INT              37
#define MPI_LONG_DOUBLE_INT        38
/* Fortran types, with gfortran's sizes on this ABI (x86_64: INTEGER,
 * REAL and LOGICAL 4 bytes, DOUBLE PRECISION 8, REAL(16) IEEE quad); there
 * is no REAL(2) in gfortran, so neither MPI_REAL2 nor MPI_COMPLEX4. */
#define MPI_INTEGER                39
#define MPI_REAL                   40
#define MPI_DOUBLE_PRECISION       41
#define MPI_COMPLEX                42
#define MPI_DOUBLE_COMPLEX         43
#define MPI_LOGICAL                44
#define MPI_CHARACTER              45
#define MPI_INTEGER1               46
#define MPI_INTEGER2               47
#define MPI_INTEGER4               48
#define MPI_INTEGER8               49
#define MPI_INTEGER16              50
#define MPI_REAL4                  51
#define MPI_REAL8                  52
#define MPI_REAL16                 53
#define MPI_COMPLEX8               54
#define MPI_COMPLEX16              55
#define MPI_COMPLEX32              56
#define MPI_2INTEGER               57
#define MPI_2REAL                  58
#define MPI_2DOUBLE_PRECISION      59
/* C++ types (bool and std::complex<T> have C's layout on this ABI) */
#define MPI_CXX_BOOL               60
#define MPI_CXX_FLOAT_COMPLEX      61
#define MPI_CXX_DOUBLE_COMPLEX     62
#define MPI_CXX_LONG_DOUBLE_COMPLEX 63
#define RTMPI_N_PREDEFINED_TYPES   64

/* Reduction operations */
#define MPI_OP_NULL 0
#define MPI_MAX     1
#define MPI_MIN     2
#define MPI_SUM     3
#define MPI_PROD    4
#define MPI_LAND    5
#define MPI_BAND    6
#define MPI_LOR     7
#define MPI_BOR     8
#define MPI_LXOR    9
#define MPI_BXOR    10
#define MPI_MAXLOC  11
#define MPI_MINLOC  12
#define MPI_REPLACE 13
#define MPI_NO_OP   14

/* Predefined attribute keys */
#define MPI_TAG_UB          1
#define MPI_HOST            2
#define MPI_IO              3
#define MPI_WTIME_IS_GLOBAL 4
#define MPI_APPNUM          5
#define MPI_UNIVERSE_SIZE   6
#define MPI_LASTUSEDCODE    7
#define MPI_WIN_BASE        8
#define MPI_WIN_SIZE        9
#define MPI_WIN_DISP_UNIT   10
#define MPI_WIN_CREATE_FLAVOR 11
#define MPI_WIN_MODEL       12

/* ---- Callbacks ---- */
typedef void MPI_User_function(void *invec, void *inoutvec, int *len, MPI_Datatype *datatype);
typedef int MPI_Comm_copy_attr_function(MPI_Comm oldcomm, int comm_keyval, void *extra_state,
                                        void *attribute_val_in, void *attribute_val_out,
                                        int *flag);
typedef int MPI_Comm_delete_attr_function(MPI_Comm comm, int comm_keyval,
                                          void *attribute_val, void *extra_state);
typedef void MPI_Comm_errhandler_function(MPI_Comm *comm, int *error_code, ...);
typedef MPI_Comm_errhandler_function MPI_Comm_errhandler_fn;
typedef int MPI_Win_copy_attr_function(MPI_Win oldwin, int win_keyval, void *extra_state,
                                       void *attribute_val_in, void *attribute_val_out,
                                       int *flag);
typedef int MPI_Win_delete_attr_function(MPI_Win win, int win_keyval, void *attribute_val,
                                         void *extra_state);
typedef void MPI_Win_errhandler_function(MPI_Win *win, int *error_code, ...);
/* MPI-1 names, still part of MPI 3.1 (deprecated) */
typedef int MPI_Copy_function(MPI_Comm oldcomm, int keyval, void *extra_state,
                              void *attribute_val_in, void *attribute_val_out, int *flag);
typedef int MPI_Delete_function(MPI_Comm comm, int keyval, void *attribute_val,
                                void *extra_state);

/* The predefined copy callbacks that copy are real functions. */
int MPI_COMM_DUP_FN(MPI_Comm oldcomm, int comm_keyval, void *extra_state,
                    void *attribute_val_in, void *attribute_val_out, int *flag);
int MPI_WIN_DUP_FN(MPI_Win oldwin, int win_keyval, void *extra_state,
                   void *attribute_val_in, void *attribute_val_out, int *flag);
#define MPI_COMM_NULL_COPY_FN   ((MPI_Comm_copy_attr_function *)0)
#define MPI_COMM_NULL_DELETE_FN ((MPI_Comm_delete_attr_function *)0)
#define MPI_WIN_NULL_COPY_FN    ((MPI_Win_copy_attr_function *)0)
#define MPI_WIN_NULL_DELETE_FN  ((MPI_Win_delete_attr_function *)0)

/* Every function is declared twice: MPI_X (weak) and PMPI_X. */
#define RTMPI_API(_name, _args) int MPI_##_name _args; int PMPI_##_name _args;

/* ---- Environment ---- */
RTMPI_API(Init, (int *argc, char ***argv))
RTMPI_API(Init_thread, (int *argc, char ***argv, int required, int *provided))
RTMPI_API(Initialized, (int *flag))
RTMPI_API(Finalize, (void))
RTMPI_API(Finalized, (int *flag))
RTMPI_API(Abort, (MPI_Comm comm, int errorcode))
RTMPI_API(Query_thread, (int *provided))
RTMPI_API(Is_thread_main, (int *flag))
RTMPI_API(Get_version, (int *version, int *subversion))
RTMPI_API(Get_library_version, (char *version, int *resultlen))
RTMPI_API(Get_processor_name, (char *name, int *resultlen))
RTMPI_API(Pcontrol, (const int level, ...))
double MPI_Wtime(void);
double PMPI_Wtime(void);
double MPI_Wtick(void);
double PMPI_Wtick(void);

/* ---- Errors ---- */
RTMPI_API(Comm_set_errhandler, (MPI_Comm comm, MPI_Errhandler errhandler))
RTMPI_API(Comm_get_errhandler, (MPI_Comm comm, MPI_Errhandler *errhandler))
RTMPI_API(Comm_call_errhandler, (MPI_Comm comm, int errorcode))
RTMPI_API(Comm_create_errhandler, (MPI_Comm_errhandler_function *function,
                                   MPI_Errhandler *errhandler))
RTMPI_API(Errhandler_free, (MPI_Errhandler *errhandler))
RTMPI_API(Error_string, (int errorcode, char *string, int *resultlen))
RTMPI_API(Error_class, (int errorcode, int *errorclass))

/* ---- Point-to-point ---- */
RTMPI_API(Send, (const void *buf, int count, MPI_Datatype datatype, int dest, int tag,
                 MPI_Comm comm))
RTMPI_API(Ssend, (const void *buf, int count, MPI_Datatype datatype, int dest, int tag,
                  MPI_Comm comm))
RTMPI_API(Rsend, (const void *buf, int count, MPI_Datatype datatype, int dest, int tag,
                  MPI_Comm comm))
RTMPI_API(Bsend, (const void *buf, int count, MPI_Datatype datatype, int dest, int tag,
                  MPI_Comm comm))
RTMPI_API(Buffer_attach, (void *buffer, int size))
RTMPI_API(Buffer_detach, (void *buffer_addr, int *size))
RTMPI_API(Recv, (void *buf, int count, MPI_Datatype datatype, int source, int tag,
                 MPI_Comm comm, MPI_Status *status))
RTMPI_API(Isend, (const void *buf, int count, MPI_Datatype datatype, int dest, int tag,
                  MPI_Comm comm, MPI_Request *request))
RTMPI_API(Issend, (const void *buf, int count, MPI_Datatype datatype, int dest, int tag,
                   MPI_Comm comm, MPI_Request *request))
RTMPI_API(Irsend, (const void *buf, int count, MPI_Datatype datatype, int dest, int tag,
                   MPI_Comm comm, MPI_Request *request))
RTMPI_API(Ibsend, (const void *buf, int count, MPI_Datatype datatype, int dest, int tag,
                   MPI_Comm comm, MPI_Request *request))
RTMPI_API(Irecv, (void *buf, int count, MPI_Datatype datatype, int source, int tag,
                  MPI_Comm comm, MPI_Request *request))
RTMPI_API(Sendrecv, (const void *sendbuf, int sendcount, MPI_Datatype sendtype, int dest,
                     int sendtag, void *recvbuf, int recvcount, MPI_Datatype recvtype,
                     int source, int recvtag, MPI_Comm comm, MPI_Status *status))
RTMPI_API(Sendrecv_replace, (void *buf, int count, MPI_Datatype datatype, int dest,
                             int sendtag, int source, int recvtag, MPI_Comm comm,
                             MPI_Status *status))
RTMPI_API(Probe, (int source, int tag, MPI_Comm comm, MPI_Status *status))
RTMPI_API(Iprobe, (int source, int tag, MPI_Comm comm, int *flag, MPI_Status *status))
RTMPI_API(Mprobe, (int source, int tag, MPI_Comm comm, MPI_Message *message,
                   MPI_Status *status))
RTMPI_API(Improbe, (int source, int tag, MPI_Comm comm, int *flag, MPI_Message *message,
                    MPI_Status *status))
RTMPI_API(Mrecv, (void *buf, int count, MPI_Datatype datatype, MPI_Message *message,
                  MPI_Status *status))
RTMPI_API(Imrecv, (void *buf, int count, MPI_Datatype datatype, MPI_Message *message,
                   MPI_Request *request))
RTMPI_API(Send_init, (const void *buf, int count, MPI_Datatype datatype, int dest, int tag,
                      MPI_Comm comm, MPI_Request *request))
RTMPI_API(Ssend_init, (const void *buf, int count, MPI_Datatype datatype, int dest, int tag,
                       MPI_Comm comm, MPI_Request *request))
RTMPI_API(Rsend_init, (const void *buf, int count, MPI_Datatype datatype, int dest, int tag,
                       MPI_Comm comm, MPI_Request *request))
RTMPI_API(Bsend_init, (const void *buf, int count, MPI_Datatype datatype, int dest, int tag,
                       MPI_Comm comm, MPI_Request *request))
RTMPI_API(Recv_init, (void *buf, int count, MPI_Datatype datatype, int source, int tag,
                      MPI_Comm comm, MPI_Request *request))
RTMPI_API(Start, (MPI_Request *request))
RTMPI_API(Startall, (int count, MPI_Request array_of_requests[]))

/* ---- Completion ---- */
RTMPI_API(Wait, (MPI_Request *request, MPI_Status *status))
RTMPI_API(Waitall, (int count, MPI_Request array_of_requests[],
                    MPI_Status array_of_statuses[]))
RTMPI_API(Waitany, (int count, MPI_Request array_of_requests[], int *index,
                    MPI_Status *status))
RTMPI_API(Waitsome, (int incount, MPI_Request array_of_requests[], int *outcount,
                     int array_of_indices[], MPI_Status array_of_statuses[]))
RTMPI_API(Test, (MPI_Request *request, int *flag, MPI_Status *status))
RTMPI_API(Testall, (int count, MPI_Request array_of_requests[], int *flag,
                    MPI_Status array_of_statuses[]))
RTMPI_API(Testany, (int count, MPI_Request array_of_requests[], int *index, int *flag,
                    MPI_Status *status))
RTMPI_API(Testsome, (int incount, MPI_Request array_of_requests[], int *outcount,
                     int array_of_indices[], MPI_Status array_of_statuses[]))
RTMPI_API(Cancel, (MPI_Request *request))
RTMPI_API(Test_cancelled, (const MPI_Status *status, int *flag))
RTMPI_API(Request_free, (MPI_Request *request))
RTMPI_API(Request_get_status, (MPI_Request request, int *flag, MPI_Status *status))
RTMPI_API(Get_count, (const MPI_Status *status, MPI_Datatype datatype, int *count))
RTMPI_API(Get_elements, (const MPI_Status *status, MPI_Datatype datatype, int *count))
RTMPI_API(Get_elements_x, (const MPI_Status *status, MPI_Datatype datatype,
                           MPI_Count *count))
RTMPI_API(Status_set_elements, (MPI_Status *status, MPI_Datatype datatype, int count))
RTMPI_API(Status_set_elements_x, (MPI_Status *status, MPI_Datatype datatype,
                                  MPI_Count count))
RTMPI_API(Status_set_cancelled, (MPI_Status *status, int flag))

/* ---- Datatypes ---- */
RTMPI_API(Type_contiguous, (int count, MPI_Datatype oldtype, MPI_Datatype *newtype))
RTMPI_API(Type_vector, (int count, int blocklength, int stride, MPI_Datatype oldtype,
                        MPI_Datatype *newtype))
RTMPI_API(Type_create_hvector, (int count, int blocklength, MPI_Aint stride,
                                MPI_Datatype oldtype, MPI_Datatype *newtype))
RTMPI_API(Type_indexed, (int count, const int array_of_blocklengths[],
                         const int array_of_displacements[], MPI_Datatype oldtype,
                         MPI_Datatype *newtype))
RTMPI_API(Type_create_hindexed, (int count, const int array_of_blocklengths[],
                                 const MPI_Aint array_of_displacements[],
                                 MPI_Datatype oldtype, MPI_Datatype *newtype))
RTMPI_API(Type_create_indexed_block, (int count, int blocklength,
                                      const int array_of_displacements[],
                                      MPI_Datatype oldtype, MPI_Datatype *newtype))
RTMPI_API(Type_create_hindexed_block, (int count, int blocklength,
                                       const MPI_Aint array_of_displacements[],
                                       MPI_Datatype oldtype, MPI_Datatype *newtype))
RTMPI_API(Type_create_struct, (int count, const int array_of_blocklengths[],
                               const MPI_Aint array_of_displacements[],
                               const MPI_Datatype array_of_types[], MPI_Datatype *newtype))
RTMPI_API(Type_create_subarray, (int ndims, const int array_of_sizes[],
                                 const int array_of_subsizes[], const int array_of_starts[],
                                 int order, MPI_Datatype oldtype, MPI_Datatype *newtype))
RTMPI_API(Type_create_resized, (MPI_Datatype oldtype, MPI_Aint lb, MPI_Aint extent,
                                MPI_Datatype *newtype))
RTMPI_API(Type_dup, (MPI_Datatype oldtype, MPI_Datatype *newtype))
RTMPI_API(Type_commit, (MPI_Datatype *datatype))
RTMPI_API(Type_free, (MPI_Datatype *datatype))
RTMPI_API(Type_size, (MPI_Datatype datatype, int *size))
RTMPI_API(Type_size_x, (MPI_Datatype datatype, MPI_Count *size))
RTMPI_API(Type_get_extent, (MPI_Datatype datatype, MPI_Aint *lb, MPI_Aint *extent))
RTMPI_API(Type_get_extent_x, (MPI_Datatype datatype, MPI_Count *lb, MPI_Count *extent))
RTMPI_API(Type_get_true_extent, (MPI_Datatype datatype, MPI_Aint *true_lb,
                                 MPI_Aint *true_extent))
RTMPI_API(Type_get_true_extent_x, (MPI_Datatype datatype, MPI_Count *true_lb,
                                   MPI_Count *true_extent))
RTMPI_API(Type_get_name, (MPI_Datatype datatype, char *type_name, int *resultlen))
RTMPI_API(Type_set_name, (MPI_Datatype datatype, const char *type_name))
RTMPI_API(Get_address, (const void *location, MPI_Aint *address))
RTMPI_API(Pack, (const void *inbuf, int incount, MPI_Datatype datatype, void *outbuf,
                 int outsize, int *position, MPI_Comm comm))
RTMPI_API(Unpack, (const void *inbuf, int insize, int *position, void *outbuf,
                   int outcount, MPI_Datatype datatype, MPI_Comm comm))
RTMPI_API(Pack_size, (int incount, MPI_Datatype datatype, MPI_Comm comm, int *size))
MPI_Aint MPI_Aint_add(MPI_Aint base, MPI_Aint disp);
MPI_Aint PMPI_Aint_add(MPI_Aint base, MPI_Aint disp);
MPI_Aint MPI_Aint_diff(MPI_Aint addr1, MPI_Aint addr2);
MPI_Aint PMPI_Aint_diff(MPI_Aint addr1, MPI_Aint addr2);

/* ---- Communicators ---- */
RTMPI_API(Comm_size, (MPI_Comm comm, int *size))
RTMPI_API(Comm_rank, (MPI_Comm comm, int *rank))
RTMPI_API(Comm_dup, (MPI_Comm comm, MPI_Comm *newcomm))
RTMPI_API(Comm_dup_with_info, (MPI_Comm comm, MPI_Info info, MPI_Comm *newcomm))
RTMPI_API(Comm_split, (MPI_Comm comm, int color, int key, MPI_Comm *newcomm))
RTMPI_API(Comm_split_type, (MPI_Comm comm, int split_type, int key, MPI_Info info,
                            MPI_Comm *newcomm))
RTMPI_API(Comm_create, (MPI_Comm comm, MPI_Group group, MPI_Comm *newcomm))
RTMPI_API(Comm_free, (MPI_Comm *comm))
RTMPI_API(Comm_compare, (MPI_Comm comm1, MPI_Comm comm2, int *result))
RTMPI_API(Comm_group, (MPI_Comm comm, MPI_Group *group))
RTMPI_API(Comm_test_inter, (MPI_Comm comm, int *flag))
RTMPI_API(Comm_set_name, (MPI_Comm comm, const char *comm_name))
RTMPI_API(Comm_get_name, (MPI_Comm comm, char *comm_name, int *resultlen))
RTMPI_API(Comm_create_keyval, (MPI_Comm_copy_attr_function *comm_copy_attr_fn,
                               MPI_Comm_delete_attr_function *comm_delete_attr_fn,
                               int *comm_keyval, void *extra_state))
RTMPI_API(Comm_free_keyval, (int *comm_keyval))
RTMPI_API(Comm_set_attr, (MPI_Comm comm, int comm_keyval, void *attribute_val))
RTMPI_API(Comm_get_attr, (MPI_Comm comm, int comm_keyval, void *attribute_val, int *flag))
RTMPI_API(Comm_delete_attr, (MPI_Comm comm, int comm_keyval))

/* ---- Groups ---- */
RTMPI_API(Group_size, (MPI_Group group, int *size))
RTMPI_API(Group_rank, (MPI_Group group, int *rank))
RTMPI_API(Group_incl, (MPI_Group group, int n, const int ranks[], MPI_Group *newgroup))
RTMPI_API(Group_excl, (MPI_Group group, int n, const int ranks[], MPI_Group *newgroup))
RTMPI_API(Group_range_incl, (MPI_Group group, int n, int ranges[][3], MPI_Group *newgroup))
RTMPI_API(Group_range_excl, (MPI_Group group, int n, int ranges[][3], MPI_Group *newgroup))
RTMPI_API(Group_union, (MPI_Group group1, MPI_Group group2, MPI_Group *newgroup))
RTMPI_API(Group_intersection, (MPI_Group group1, MPI_Group group2, MPI_Group *newgroup))
RTMPI_API(Group_difference, (MPI_Group group1, MPI_Group group2, MPI_Group *newgroup))
RTMPI_API(Group_translate_ranks, (MPI_Group group1, int n, const int ranks1[],
                                  MPI_Group group2, int ranks2[]))
RTMPI_API(Group_compare, (MPI_Group group1, MPI_Group group2, int *result))
RTMPI_API(Group_free, (MPI_Group *group))

/* ---- Info ---- */
RTMPI_API(Info_create, (MPI_Info *info))
RTMPI_API(Info_set, (MPI_Info info, const char *key, const char *value))
RTMPI_API(Info_get, (MPI_Info info, const char *key, int valuelen, char *value, int *flag))
RTMPI_API(Info_get_valuelen, (MPI_Info info, const char *key, int *valuelen, int *flag))
RTMPI_API(Info_get_nkeys, (MPI_Info info, int *nkeys))
RTMPI_API(Info_get_nthkey, (MPI_Info info, int n, char *key))
RTMPI_API(Info_delete, (MPI_Info info, const char *key))
RTMPI_API(Info_dup, (MPI_Info info, MPI_Info *newinfo))
RTMPI_API(Info_free, (MPI_Info *info))

/* ---- Topologies ---- */
RTMPI_API(Cart_create, (MPI_Comm comm_old, int ndims, const int dims[], const int periods[],
                        int reorder, MPI_Comm *comm_cart))
RTMPI_API(Cart_coords, (MPI_Comm comm, int rank, int maxdims, int coords[]))
RTMPI_API(Cart_rank, (MPI_Comm comm, const int coords[], int *rank))
RTMPI_API(Cart_shift, (MPI_Comm comm, int direction, int disp, int *rank_source,
                       int *rank_dest))
RTMPI_API(Cart_get, (MPI_Comm comm, int maxdims, int dims[], int periods[], int coords[]))
RTMPI_API(Cartdim_get, (MPI_Comm comm, int *ndims))
RTMPI_API(Cart_sub, (MPI_Comm comm, const int remain_dims[], MPI_Comm *newcomm))
RTMPI_API(Dims_create, (int nnodes, int ndims, int dims[]))
RTMPI_API(Dist_graph_create_adjacent, (MPI_Comm comm_old, int indegree, const int sources[],
                                       const int sourceweights[], int outdegree,
                                       const int destinations[], const int destweights[],
                                       MPI_Info info, int reorder, MPI_Comm *comm_dist_graph))
RTMPI_API(Dist_graph_neighbors_count, (MPI_Comm comm, int *indegree, int *outdegree,
                                       int *weighted))
RTMPI_API(Dist_graph_neighbors, (MPI_Comm comm, int maxindegree, int sources[],
                                 int sourceweights[], int maxoutdegree, int destinations[],
                                 int destweights[]))
RTMPI_API(Topo_test, (MPI_Comm comm, int *status))

/* ---- Reduction operations ---- */
RTMPI_API(Op_create, (MPI_User_function *user_fn, int commute, MPI_Op *op))
RTMPI_API(Op_free, (MPI_Op *op))
RTMPI_API(Op_commutative, (MPI_Op op, int *commute))
RTMPI_API(Reduce_local, (const void *inbuf, void *inoutbuf, int count,
                         MPI_Datatype datatype, MPI_Op op))

/* ---- Collectives ---- */
RTMPI_API(Barrier, (MPI_Comm comm))
RTMPI_API(Bcast, (void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm))
RTMPI_API(Reduce, (const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
                   MPI_Op op, int root, MPI_Comm comm))
RTMPI_API(Allreduce, (const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
                      MPI_Op op, MPI_Comm comm))
RTMPI_API(Gather, (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                   int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm))
RTMPI_API(Gatherv, (const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                    void *recvbuf, const int recvcounts[], const int displs[],
                    MPI_Datatype recvtype, int root, MPI_Comm comm))
RTMPI_API(Scatter, (const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                    void *recvbuf, int recvcount, MPI_Datatype recvtype, int root,
                    MPI_Comm comm))
RTMPI_API(Scatterv, (const void *sendbuf, const int sendcounts[], const int displs[],
                     MPI_Datatype sendtype, void *recvbuf, int recvcount,
                     MPI_Datatype recvtype, int root, MPI_Comm comm))
RTMPI_API(Allgather, (const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                      void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm))
RTMPI_API(Allgatherv, (const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                       void *recvbuf, const int recvcounts[], const int displs[],
                       MPI_Datatype recvtype, MPI_Comm comm))
RTMPI_API(Alltoall, (const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                     void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm))
RTMPI_API(Alltoallv, (const void *sendbuf, const int sendcounts[], const int sdispls[],
                      MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                      const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm))
RTMPI_API(Alltoallw, (const void *sendbuf, const int sendcounts[], const int sdispls[],
                      const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
                      const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm))
RTMPI_API(Reduce_scatter, (const void *sendbuf, void *recvbuf, const int recvcounts[],
                           MPI_Datatype datatype, MPI_Op op, MPI_Comm comm))
RTMPI_API(Reduce_scatter_block, (const void *sendbuf, void *recvbuf, int recvcount,
                                 MPI_Datatype datatype, MPI_Op op, MPI_Comm comm))
RTMPI_API(Scan, (const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
                 MPI_Op op, MPI_Comm comm))
RTMPI_API(Exscan, (const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
                   MPI_Op op, MPI_Comm comm))

RTMPI_API(Ibarrier, (MPI_Comm comm, MPI_Request *request))
RTMPI_API(Ibcast, (void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm,
                   MPI_Request *request))
RTMPI_API(Ireduce, (const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
                    MPI_Op op, int root, MPI_Comm comm, MPI_Request *request))
RTMPI_API(Iallreduce, (const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
                       MPI_Op op, MPI_Comm comm, MPI_Request *request))
RTMPI_API(Igather, (const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                    void *recvbuf, int recvcount, MPI_Datatype recvtype, int root,
                    MPI_Comm comm, MPI_Request *request))
RTMPI_API(Igatherv, (const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                     void *recvbuf, const int recvcounts[], const int displs[],
                     MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request *request))
RTMPI_API(Iscatter, (const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                     void *recvbuf, int recvcount, MPI_Datatype recvtype, int root,
                     MPI_Comm comm, MPI_Request *request))
RTMPI_API(Iscatterv, (const void *sendbuf, const int sendcounts[], const int displs[],
                      MPI_Datatype sendtype, void *recvbuf, int recvcount,
                      MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request *request))
RTMPI_API(Iallgather, (const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                       void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                       MPI_Request *request))
RTMPI_API(Iallgatherv, (const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                        void *recvbuf, const int recvcounts[], const int displs[],
                        MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request))
RTMPI_API(Ialltoall, (const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                      void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                      MPI_Request *request))
RTMPI_API(Ialltoallv, (const void *sendbuf, const int sendcounts[], const int sdispls[],
                       MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                       const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm,
                       MPI_Request *request))
RTMPI_API(Ialltoallw, (const void *sendbuf, const int sendcounts[], const int sdispls[],
                       const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
                       const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm,
                       MPI_Request *request))
RTMPI_API(Ireduce_scatter, (const void *sendbuf, void *recvbuf, const int recvcounts[],
                            MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                            MPI_Request *request))
RTMPI_API(Ireduce_scatter_block, (const void *sendbuf, void *recvbuf, int recvcount,
                                  MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                                  MPI_Request *request))
RTMPI_API(Iscan, (const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
                  MPI_Op op, MPI_Comm comm, MPI_Request *request))
RTMPI_API(Iexscan, (const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
                    MPI_Op op, MPI_Comm comm, MPI_Request *request))

/* ---- One-sided: declared so codes build; every call returns
 * MPI_ERR_UNSUPPORTED_OPERATION through the error handler. ---- */
RTMPI_API(Win_create, (void *base, MPI_Aint size, int disp_unit, MPI_Info info,
                       MPI_Comm comm, MPI_Win *win))
RTMPI_API(Win_allocate, (MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm,
                         void *baseptr, MPI_Win *win))
RTMPI_API(Win_allocate_shared, (MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm,
                                void *baseptr, MPI_Win *win))
RTMPI_API(Win_shared_query, (MPI_Win win, int rank, MPI_Aint *size, int *disp_unit,
                             void *baseptr))
RTMPI_API(Win_create_dynamic, (MPI_Info info, MPI_Comm comm, MPI_Win *win))
RTMPI_API(Win_attach, (MPI_Win win, void *base, MPI_Aint size))
RTMPI_API(Win_detach, (MPI_Win win, const void *base))
RTMPI_API(Win_free, (MPI_Win *win))
RTMPI_API(Win_fence, (int assert, MPI_Win win))
RTMPI_API(Win_start, (MPI_Group group, int assert, MPI_Win win))
RTMPI_API(Win_complete, (MPI_Win win))
RTMPI_API(Win_post, (MPI_Group group, int assert, MPI_Win win))
RTMPI_API(Win_wait, (MPI_Win win))
RTMPI_API(Win_test, (MPI_Win win, int *flag))
RTMPI_API(Win_lock, (int lock_type, int rank, int assert, MPI_Win win))
RTMPI_API(Win_unlock, (int rank, MPI_Win win))
RTMPI_API(Win_lock_all, (int assert, MPI_Win win))
RTMPI_API(Win_unlock_all, (MPI_Win win))
RTMPI_API(Win_flush, (int rank, MPI_Win win))
RTMPI_API(Win_flush_all, (MPI_Win win))
RTMPI_API(Win_flush_local, (int rank, MPI_Win win))
RTMPI_API(Win_flush_local_all, (MPI_Win win))
RTMPI_API(Win_sync, (MPI_Win win))
RTMPI_API(Win_get_group, (MPI_Win win, MPI_Group *group))
RTMPI_API(Win_set_name, (MPI_Win win, const char *win_name))
RTMPI_API(Win_get_name, (MPI_Win win, char *win_name, int *resultlen))
RTMPI_API(Win_set_errhandler, (MPI_Win win, MPI_Errhandler errhandler))
RTMPI_API(Win_get_errhandler, (MPI_Win win, MPI_Errhandler *errhandler))
RTMPI_API(Win_create_errhandler, (MPI_Win_errhandler_function *function,
                                  MPI_Errhandler *errhandler))
RTMPI_API(Win_call_errhandler, (MPI_Win win, int errorcode))
RTMPI_API(Win_get_attr, (MPI_Win win, int win_keyval, void *attribute_val, int *flag))
RTMPI_API(Win_set_attr, (MPI_Win win, int win_keyval, void *attribute_val))
RTMPI_API(Win_delete_attr, (MPI_Win win, int win_keyval))
RTMPI_API(Win_create_keyval, (MPI_Win_copy_attr_function *win_copy_attr_fn,
                              MPI_Win_delete_attr_function *win_delete_attr_fn,
                              int *win_keyval, void *extra_state))
RTMPI_API(Win_free_keyval, (int *win_keyval))
RTMPI_API(Win_set_info, (MPI_Win win, MPI_Info info))
RTMPI_API(Win_get_info, (MPI_Win win, MPI_Info *info_used))
RTMPI_API(Put, (const void *origin_addr, int origin_count, MPI_Datatype origin_datatype,
                int target_rank, MPI_Aint target_disp, int target_count,
                MPI_Datatype target_datatype, MPI_Win win))
RTMPI_API(Get, (void *origin_addr, int origin_count, MPI_Datatype origin_datatype,
                int target_rank, MPI_Aint target_disp, int target_count,
                MPI_Datatype target_datatype, MPI_Win win))
RTMPI_API(Accumulate, (const void *origin_addr, int origin_count,
                       MPI_Datatype origin_datatype, int target_rank, MPI_Aint target_disp,
                       int target_count, MPI_Datatype target_datatype, MPI_Op op,
                       MPI_Win win))
RTMPI_API(Get_accumulate, (const void *origin_addr, int origin_count,
                           MPI_Datatype origin_datatype, void *result_addr, int result_count,
                           MPI_Datatype result_datatype, int target_rank,
                           MPI_Aint target_disp, int target_count,
                           MPI_Datatype target_datatype, MPI_Op op, MPI_Win win))
RTMPI_API(Fetch_and_op, (const void *origin_addr, void *result_addr, MPI_Datatype datatype,
                         int target_rank, MPI_Aint target_disp, MPI_Op op, MPI_Win win))
RTMPI_API(Compare_and_swap, (const void *origin_addr, const void *compare_addr,
                             void *result_addr, MPI_Datatype datatype, int target_rank,
                             MPI_Aint target_disp, MPI_Win win))
RTMPI_API(Rput, (const void *origin_addr, int origin_count, MPI_Datatype origin_datatype,
                 int target_rank, MPI_Aint target_disp, int target_count,
                 MPI_Datatype target_datatype, MPI_Win win, MPI_Request *request))
RTMPI_API(Rget, (void *origin_addr, int origin_count, MPI_Datatype origin_datatype,
                 int target_rank, MPI_Aint target_disp, int target_count,
                 MPI_Datatype target_datatype, MPI_Win win, MPI_Request *request))
RTMPI_API(Raccumulate, (const void *origin_addr, int origin_count,
                        MPI_Datatype origin_datatype, int target_rank, MPI_Aint target_disp,
                        int target_count, MPI_Datatype target_datatype, MPI_Op op,
                        MPI_Win win, MPI_Request *request))
RTMPI_API(Rget_accumulate, (const void *origin_addr, int origin_count,
                            MPI_Datatype origin_datatype, void *result_addr,
                            int result_count, MPI_Datatype result_datatype, int target_rank,
                            MPI_Aint target_disp, int target_count,
                            MPI_Datatype target_datatype, MPI_Op op, MPI_Win win,
                            MPI_Request *request))
RTMPI_API(Alloc_mem, (MPI_Aint size, MPI_Info info, void *baseptr))
RTMPI_API(Free_mem, (void *base))

/* ---- Intercommunicators; communicator creation and info (MPI 3.1 chapter 6) ---- */
RTMPI_API(Intercomm_create, (MPI_Comm local_comm, int local_leader, MPI_Comm peer_comm,
                             int remote_leader, int tag, MPI_Comm *newintercomm))
RTMPI_API(Intercomm_merge, (MPI_Comm intercomm, int high, MPI_Comm *newintracomm))
RTMPI_API(Comm_remote_size, (MPI_Comm comm, int *size))
RTMPI_API(Comm_remote_group, (MPI_Comm comm, MPI_Group *group))
RTMPI_API(Comm_idup, (MPI_Comm comm, MPI_Comm *newcomm, MPI_Request *request))
RTMPI_API(Comm_create_group, (MPI_Comm comm, MPI_Group group, int tag, MPI_Comm *newcomm))
RTMPI_API(Comm_set_info, (MPI_Comm comm, MPI_Info info))
RTMPI_API(Comm_get_info, (MPI_Comm comm, MPI_Info *info_used))
RTMPI_API(Comm_disconnect, (MPI_Comm *comm))
/* (end of this section) */

/* ---- Process topologies and neighbourhood collectives (chapter 7) ---- */
RTMPI_API(Cart_map, (MPI_Comm comm, int ndims, const int dims[], const int periods[],
                     int *newrank))
RTMPI_API(Graph_create, (MPI_Comm comm_old, int nnodes, const int index[], const int edges[],
                         int reorder, MPI_Comm *comm_graph))
RTMPI_API(Graph_map, (MPI_Comm comm, int nnodes, const int index[], const int edges[],
                      int *newrank))
RTMPI_API(Graphdims_get, (MPI_Comm comm, int *nnodes, int *nedges))
RTMPI_API(Graph_get, (MPI_Comm comm, int maxindex, int maxedges, int index[], int edges[]))
RTMPI_API(Graph_neighbors_count, (MPI_Comm comm, int rank, int *nneighbors))
RTMPI_API(Graph_neighbors, (MPI_Comm comm, int rank, int maxneighbors, int neighbors[]))
RTMPI_API(Dist_graph_create, (MPI_Comm comm_old, int n, const int sources[], const int degrees[],
                              const int destinations[], const int weights[], MPI_Info info,
                              int reorder, MPI_Comm *comm_dist_graph))
RTMPI_API(Neighbor_allgather, (const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                               void *recvbuf, int recvcount, MPI_Datatype recvtype,
                               MPI_Comm comm))
RTMPI_API(Neighbor_allgatherv, (const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                                void *recvbuf, const int recvcounts[], const int displs[],
                                MPI_Datatype recvtype, MPI_Comm comm))
RTMPI_API(Neighbor_alltoall, (const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                              void *recvbuf, int recvcount, MPI_Datatype recvtype,
                              MPI_Comm comm))
RTMPI_API(Neighbor_alltoallv, (const void *sendbuf, const int sendcounts[], const int sdispls[],
                               MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                               const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm))
RTMPI_API(Neighbor_alltoallw, (const void *sendbuf, const int sendcounts[],
                               const MPI_Aint sdispls[], const MPI_Datatype sendtypes[],
                               void *recvbuf, const int recvcounts[], const MPI_Aint rdispls[],
                               const MPI_Datatype recvtypes[], MPI_Comm comm))
RTMPI_API(Ineighbor_allgather, (const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                                void *recvbuf, int recvcount, MPI_Datatype recvtype,
                                MPI_Comm comm, MPI_Request *request))
RTMPI_API(Ineighbor_allgatherv, (const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                                 void *recvbuf, const int recvcounts[], const int displs[],
                                 MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request))
RTMPI_API(Ineighbor_alltoall, (const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                               void *recvbuf, int recvcount, MPI_Datatype recvtype,
                               MPI_Comm comm, MPI_Request *request))
RTMPI_API(Ineighbor_alltoallv, (const void *sendbuf, const int sendcounts[],
                                const int sdispls[], MPI_Datatype sendtype, void *recvbuf,
                                const int recvcounts[], const int rdispls[],
                                MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request))
RTMPI_API(Ineighbor_alltoallw, (const void *sendbuf, const int sendcounts[],
                                const MPI_Aint sdispls[], const MPI_Datatype sendtypes[],
                                void *recvbuf, const int recvcounts[], const MPI_Aint rdispls[],
                                const MPI_Datatype recvtypes[], MPI_Comm comm,
                                MPI_Request *request))
/* (end of this section) */

/* ---- Datatypes: envelope and contents, darray, large counts (chapter 4) ---- */
#define MPI_DISTRIBUTE_BLOCK     0
#define MPI_DISTRIBUTE_CYCLIC    1
#define MPI_DISTRIBUTE_NONE      2
#define MPI_DISTRIBUTE_DFLT_DARG (-1)
RTMPI_API(Type_get_envelope, (MPI_Datatype datatype, int *num_integers, int *num_addresses,
                              int *num_datatypes, int *combiner))
RTMPI_API(Type_get_contents, (MPI_Datatype datatype, int max_integers, int max_addresses,
                              int max_datatypes, int array_of_integers[],
                              MPI_Aint array_of_addresses[], MPI_Datatype array_of_datatypes[]))
RTMPI_API(Type_create_darray, (int size, int rank, int ndims, const int array_of_gsizes[],
                               const int array_of_distribs[], const int array_of_dargs[],
                               const int array_of_psizes[], int order, MPI_Datatype oldtype,
                               MPI_Datatype *newtype))
/* (end of this section) */

/* ---- Datatypes: more predefined types, size matching, external32 (chapters 3, 4, 17) ---- */
/* Type classes of MPI_Type_match_size */
#define MPI_TYPECLASS_REAL    1
#define MPI_TYPECLASS_INTEGER 2
#define MPI_TYPECLASS_COMPLEX 3
RTMPI_API(Type_match_size, (int typeclass, int size, MPI_Datatype *datatype))
/* gfortran's kinds of SELECTED_INT_KIND(r) / SELECTED_REAL_KIND(p, r);
 * MPI_UNDEFINED leaves p or r (not both) unconstrained for real and complex */
RTMPI_API(Type_create_f90_integer, (int r, MPI_Datatype *newtype))
RTMPI_API(Type_create_f90_real, (int p, int r, MPI_Datatype *newtype))
RTMPI_API(Type_create_f90_complex, (int p, int r, MPI_Datatype *newtype))
/* Representation "external32" only (big-endian, the standard's sizes) */
RTMPI_API(Pack_external, (const char datarep[], const void *inbuf, int incount,
                          MPI_Datatype datatype, void *outbuf, MPI_Aint outsize,
                          MPI_Aint *position))
RTMPI_API(Unpack_external, (const char datarep[], const void *inbuf, MPI_Aint insize,
                            MPI_Aint *position, void *outbuf, int outcount,
                            MPI_Datatype datatype))
RTMPI_API(Pack_external_size, (const char datarep[], int incount, MPI_Datatype datatype,
                               MPI_Aint *size))
/* (end of this section) */

/* ---- Handles: Fortran conversions, error classes and codes, generalized requests ---- */
/* A Fortran INTEGER (gfortran's default kind). Handles that are ints in C
 * convert as themselves; requests and messages get integers from a table
 * (MPI_Request_f2c of a stale or unknown integer gives MPI_REQUEST_NULL). */
typedef int MPI_Fint;

/* A Fortran status: MPI_F_STATUS_SIZE integers, MPI_SOURCE, MPI_TAG and
 * MPI_ERROR at these (0-based) indices. */
#define MPI_F_STATUS_SIZE 6
#define MPI_F_SOURCE      0
#define MPI_F_TAG         1
#define MPI_F_ERROR       2
extern MPI_Fint rtm_mpi_f_status_ignore[MPI_F_STATUS_SIZE];
extern MPI_Fint rtm_mpi_f_statuses_ignore[MPI_F_STATUS_SIZE];
#define MPI_F_STATUS_IGNORE   (rtm_mpi_f_status_ignore)
#define MPI_F_STATUSES_IGNORE (rtm_mpi_f_statuses_ignore)

#define RTMPI_F2C_API(_Name, _type) \
    MPI_Fint MPI_##_Name##_c2f(_type h); MPI_Fint PMPI_##_Name##_c2f(_type h); \
    _type MPI_##_Name##_f2c(MPI_Fint h); _type PMPI_##_Name##_f2c(MPI_Fint h);
RTMPI_F2C_API(Comm, MPI_Comm)
RTMPI_F2C_API(Group, MPI_Group)
RTMPI_F2C_API(Type, MPI_Datatype)
RTMPI_F2C_API(Op, MPI_Op)
RTMPI_F2C_API(Info, MPI_Info)
RTMPI_F2C_API(Errhandler, MPI_Errhandler)
RTMPI_F2C_API(Request, MPI_Request)
RTMPI_F2C_API(Message, MPI_Message)
RTMPI_F2C_API(Win, MPI_Win)
#undef RTMPI_F2C_API
RTMPI_API(Status_c2f, (const MPI_Status *c_status, MPI_Fint *f_status))
RTMPI_API(Status_f2c, (const MPI_Fint *f_status, MPI_Status *c_status))

/* Error classes and codes of the application, numbered from
 * MPI_ERR_LASTCODE + 1 (the MPI_LASTUSEDCODE attribute says how far). */
RTMPI_API(Add_error_class, (int *errorclass))
RTMPI_API(Add_error_code, (int errorclass, int *errorcode))
RTMPI_API(Add_error_string, (int errorcode, const char *string))

/* Generalized requests */
typedef int MPI_Grequest_query_function(void *extra_state, MPI_Status *status);
typedef int MPI_Grequest_free_function(void *extra_state);
typedef int MPI_Grequest_cancel_function(void *extra_state, int complete);
RTMPI_API(Grequest_start, (MPI_Grequest_query_function *query_fn,
                           MPI_Grequest_free_function *free_fn,
                           MPI_Grequest_cancel_function *cancel_fn, void *extra_state,
                           MPI_Request *request))
RTMPI_API(Grequest_complete, (MPI_Request request))

/* Datatype attributes */
typedef int MPI_Type_copy_attr_function(MPI_Datatype oldtype, int type_keyval,
                                        void *extra_state, void *attribute_val_in,
                                        void *attribute_val_out, int *flag);
typedef int MPI_Type_delete_attr_function(MPI_Datatype datatype, int type_keyval,
                                          void *attribute_val, void *extra_state);
int MPI_TYPE_DUP_FN(MPI_Datatype oldtype, int type_keyval, void *extra_state,
                    void *attribute_val_in, void *attribute_val_out, int *flag);
#define MPI_TYPE_NULL_COPY_FN   ((MPI_Type_copy_attr_function *)0)
#define MPI_TYPE_NULL_DELETE_FN ((MPI_Type_delete_attr_function *)0)
RTMPI_API(Type_create_keyval, (MPI_Type_copy_attr_function *type_copy_attr_fn,
                               MPI_Type_delete_attr_function *type_delete_attr_fn,
                               int *type_keyval, void *extra_state))
RTMPI_API(Type_free_keyval, (int *type_keyval))
RTMPI_API(Type_set_attr, (MPI_Datatype datatype, int type_keyval, void *attribute_val))
RTMPI_API(Type_get_attr, (MPI_Datatype datatype, int type_keyval, void *attribute_val,
                          int *flag))
RTMPI_API(Type_delete_attr, (MPI_Datatype datatype, int type_keyval))
/* (end of this section) */

/* ---- The tool information interface, MPI_T (chapter 14) ---- */
/* Return codes (error classes, MPI 3.1 section 14.3.9; MPI_T_ERR_INVALID
 * is with the other classes above). */
#define MPI_T_ERR_MEMORY              59
#define MPI_T_ERR_NOT_INITIALIZED     60
#define MPI_T_ERR_CANNOT_INIT         61
#define MPI_T_ERR_INVALID_INDEX       62
#define MPI_T_ERR_INVALID_ITEM        63
#define MPI_T_ERR_INVALID_NAME        64
#define MPI_T_ERR_INVALID_HANDLE      65
#define MPI_T_ERR_OUT_OF_HANDLES      66
#define MPI_T_ERR_OUT_OF_SESSIONS     67
#define MPI_T_ERR_INVALID_SESSION     68
#define MPI_T_ERR_CVAR_SET_NOT_NOW    69
#define MPI_T_ERR_CVAR_SET_NEVER      70
#define MPI_T_ERR_PVAR_NO_STARTSTOP   71
#define MPI_T_ERR_PVAR_NO_WRITE       72
#define MPI_T_ERR_PVAR_NO_ATOMIC      73

typedef struct rtmpi_t_enum *MPI_T_enum;
typedef struct rtmpi_t_cvar_handle *MPI_T_cvar_handle;
typedef struct rtmpi_t_pvar_handle *MPI_T_pvar_handle;
typedef struct rtmpi_t_pvar_session *MPI_T_pvar_session;

#define MPI_T_ENUM_NULL         ((MPI_T_enum)0)
#define MPI_T_CVAR_HANDLE_NULL  ((MPI_T_cvar_handle)0)
#define MPI_T_PVAR_HANDLE_NULL  ((MPI_T_pvar_handle)0)
#define MPI_T_PVAR_ALL_HANDLES  ((MPI_T_pvar_handle)-1)
#define MPI_T_PVAR_SESSION_NULL ((MPI_T_pvar_session)0)

enum {
    MPI_T_VERBOSITY_USER_BASIC = 221,
    MPI_T_VERBOSITY_USER_DETAIL,
    MPI_T_VERBOSITY_USER_ALL,
    MPI_T_VERBOSITY_TUNER_BASIC,
    MPI_T_VERBOSITY_TUNER_DETAIL,
    MPI_T_VERBOSITY_TUNER_ALL,
    MPI_T_VERBOSITY_MPIDEV_BASIC,
    MPI_T_VERBOSITY_MPIDEV_DETAIL,
    MPI_T_VERBOSITY_MPIDEV_ALL
};

enum {
    MPI_T_BIND_NO_OBJECT = 9700,
    MPI_T_BIND_MPI_COMM,
    MPI_T_BIND_MPI_DATATYPE,
    MPI_T_BIND_MPI_ERRHANDLER,
    MPI_T_BIND_MPI_FILE,
    MPI_T_BIND_MPI_GROUP,
    MPI_T_BIND_MPI_OP,
    MPI_T_BIND_MPI_REQUEST,
    MPI_T_BIND_MPI_WIN,
    MPI_T_BIND_MPI_MESSAGE,
    MPI_T_BIND_MPI_INFO
};

enum {
    MPI_T_SCOPE_CONSTANT = 60438,
    MPI_T_SCOPE_READONLY,
    MPI_T_SCOPE_LOCAL,
    MPI_T_SCOPE_GROUP,
    MPI_T_SCOPE_GROUP_EQ,
    MPI_T_SCOPE_ALL,
    MPI_T_SCOPE_ALL_EQ
};

enum {
    MPI_T_PVAR_CLASS_STATE = 240,
    MPI_T_PVAR_CLASS_LEVEL,
    MPI_T_PVAR_CLASS_SIZE,
    MPI_T_PVAR_CLASS_PERCENTAGE,
    MPI_T_PVAR_CLASS_HIGHWATERMARK,
    MPI_T_PVAR_CLASS_LOWWATERMARK,
    MPI_T_PVAR_CLASS_COUNTER,
    MPI_T_PVAR_CLASS_AGGREGATE,
    MPI_T_PVAR_CLASS_TIMER,
    MPI_T_PVAR_CLASS_GENERIC
};

RTMPI_API(T_init_thread, (int required, int *provided))
RTMPI_API(T_finalize, (void))
RTMPI_API(T_enum_get_info, (MPI_T_enum enumtype, int *num, char *name, int *name_len))
RTMPI_API(T_enum_get_item, (MPI_T_enum enumtype, int index, int *value, char *name,
                            int *name_len))
RTMPI_API(T_cvar_get_num, (int *num_cvar))
RTMPI_API(T_cvar_get_info, (int cvar_index, char *name, int *name_len, int *verbosity,
                            MPI_Datatype *datatype, MPI_T_enum *enumtype, char *desc,
                            int *desc_len, int *bind, int *scope))
RTMPI_API(T_cvar_get_index, (const char *name, int *cvar_index))
RTMPI_API(T_cvar_handle_alloc, (int cvar_index, void *obj_handle, MPI_T_cvar_handle *handle,
                                int *count))
RTMPI_API(T_cvar_handle_free, (MPI_T_cvar_handle *handle))
RTMPI_API(T_cvar_read, (MPI_T_cvar_handle handle, void *buf))
RTMPI_API(T_cvar_write, (MPI_T_cvar_handle handle, const void *buf))
RTMPI_API(T_pvar_get_num, (int *num_pvar))
RTMPI_API(T_pvar_get_info, (int pvar_index, char *name, int *name_len, int *verbosity,
                            int *var_class, MPI_Datatype *datatype, MPI_T_enum *enumtype,
                            char *desc, int *desc_len, int *bind, int *readonly,
                            int *continuous, int *atomic))
RTMPI_API(T_pvar_get_index, (const char *name, int var_class, int *pvar_index))
RTMPI_API(T_pvar_session_create, (MPI_T_pvar_session *session))
RTMPI_API(T_pvar_session_free, (MPI_T_pvar_session *session))
RTMPI_API(T_pvar_handle_alloc, (MPI_T_pvar_session session, int pvar_index, void *obj_handle,
                                MPI_T_pvar_handle *handle, int *count))
RTMPI_API(T_pvar_handle_free, (MPI_T_pvar_session session, MPI_T_pvar_handle *handle))
RTMPI_API(T_pvar_start, (MPI_T_pvar_session session, MPI_T_pvar_handle handle))
RTMPI_API(T_pvar_stop, (MPI_T_pvar_session session, MPI_T_pvar_handle handle))
RTMPI_API(T_pvar_read, (MPI_T_pvar_session session, MPI_T_pvar_handle handle, void *buf))
RTMPI_API(T_pvar_write, (MPI_T_pvar_session session, MPI_T_pvar_handle handle,
                         const void *buf))
RTMPI_API(T_pvar_reset, (MPI_T_pvar_session session, MPI_T_pvar_handle handle))
RTMPI_API(T_pvar_readreset, (MPI_T_pvar_session session, MPI_T_pvar_handle handle, void *buf))
RTMPI_API(T_category_get_num, (int *num_cat))
RTMPI_API(T_category_get_info, (int cat_index, char *name, int *name_len, char *desc,
                                int *desc_len, int *num_cvars, int *num_pvars,
                                int *num_categories))
RTMPI_API(T_category_get_index, (const char *name, int *cat_index))
RTMPI_API(T_category_get_cvars, (int cat_index, int len, int indices[]))
RTMPI_API(T_category_get_pvars, (int cat_index, int len, int indices[]))
RTMPI_API(T_category_get_categories, (int cat_index, int len, int indices[]))
RTMPI_API(T_category_changed, (int *stamp))
/* (end of this section) */

/* ---- MPI-1 names removed in MPI 3.0 that old codes still call (deprecated) ---- */
/* As Open MPI built with --enable-mpi1-compatibility does: every use warns
 * (gcc/clang -Wdeprecated-declarations, on by default) and names the
 * replacement, so an old code builds, and fails only where it asks for
 * -Werror. -DRTMPI_NO_DEPRECATION_WARNINGS silences them. MPI_Attr_*,
 * MPI_Keyval_* and the three callbacks are still in MPI 3.1, deprecated
 * since MPI 2.0; the others were removed in MPI 3.0. */
#if defined(RTMPI_NO_DEPRECATION_WARNINGS)
#define RTMPI_DEPRECATED(_msg)
#elif defined(__GNUC__) || defined(__clang__)
#define RTMPI_DEPRECATED(_msg) __attribute__((__deprecated__(_msg)))
#else
#define RTMPI_DEPRECATED(_msg)
#endif
#define RTMPI_API_OLD(_name, _args, _use) \
    int MPI_##_name _args RTMPI_DEPRECATED("MPI_" #_name " is an MPI-1 name; use MPI_" #_use); \
    int PMPI_##_name _args RTMPI_DEPRECATED("PMPI_" #_name " is an MPI-1 name; use PMPI_" #_use);
typedef void MPI_Handler_function(MPI_Comm *comm, int *error_code, ...);
RTMPI_API_OLD(Address, (void *location, MPI_Aint *address), Get_address)
RTMPI_API_OLD(Type_extent, (MPI_Datatype datatype, MPI_Aint *extent), Type_get_extent)
RTMPI_API_OLD(Type_lb, (MPI_Datatype datatype, MPI_Aint *displacement), Type_get_extent)
RTMPI_API_OLD(Type_ub, (MPI_Datatype datatype, MPI_Aint *displacement), Type_get_extent)
RTMPI_API_OLD(Type_struct, (int count, int array_of_blocklengths[],
                            MPI_Aint array_of_displacements[], MPI_Datatype array_of_types[],
                            MPI_Datatype *newtype), Type_create_struct)
RTMPI_API_OLD(Type_hvector, (int count, int blocklength, MPI_Aint stride, MPI_Datatype oldtype,
                             MPI_Datatype *newtype), Type_create_hvector)
RTMPI_API_OLD(Type_hindexed, (int count, int array_of_blocklengths[],
                              MPI_Aint array_of_displacements[], MPI_Datatype oldtype,
                              MPI_Datatype *newtype), Type_create_hindexed)
RTMPI_API_OLD(Errhandler_create, (MPI_Handler_function *function, MPI_Errhandler *errhandler),
              Comm_create_errhandler)
RTMPI_API_OLD(Errhandler_set, (MPI_Comm comm, MPI_Errhandler errhandler), Comm_set_errhandler)
RTMPI_API_OLD(Errhandler_get, (MPI_Comm comm, MPI_Errhandler *errhandler), Comm_get_errhandler)
RTMPI_API_OLD(Keyval_create, (MPI_Copy_function *copy_fn, MPI_Delete_function *delete_fn,
                              int *keyval, void *extra_state), Comm_create_keyval)
RTMPI_API_OLD(Keyval_free, (int *keyval), Comm_free_keyval)
RTMPI_API_OLD(Attr_put, (MPI_Comm comm, int keyval, void *attribute_val), Comm_set_attr)
RTMPI_API_OLD(Attr_get, (MPI_Comm comm, int keyval, void *attribute_val, int *flag),
              Comm_get_attr)
RTMPI_API_OLD(Attr_delete, (MPI_Comm comm, int keyval), Comm_delete_attr)
/* The MPI-1 callbacks are functions here (as in Open MPI), so that naming
 * one warns like calling a removed function does. */
int rtm_mpi_null_copy_fn(MPI_Comm oldcomm, int keyval, void *extra_state,
                         void *attribute_val_in, void *attribute_val_out, int *flag)
    RTMPI_DEPRECATED("MPI_NULL_COPY_FN is an MPI-1 name; use MPI_COMM_NULL_COPY_FN");
int rtm_mpi_null_delete_fn(MPI_Comm comm, int keyval, void *attribute_val, void *extra_state)
    RTMPI_DEPRECATED("MPI_NULL_DELETE_FN is an MPI-1 name; use MPI_COMM_NULL_DELETE_FN");
int rtm_mpi_dup_fn(MPI_Comm oldcomm, int keyval, void *extra_state, void *attribute_val_in,
                   void *attribute_val_out, int *flag)
    RTMPI_DEPRECATED("MPI_DUP_FN is an MPI-1 name; use MPI_COMM_DUP_FN");
#define MPI_NULL_COPY_FN   rtm_mpi_null_copy_fn
#define MPI_NULL_DELETE_FN rtm_mpi_null_delete_fn
#define MPI_DUP_FN         rtm_mpi_dup_fn
#undef RTMPI_API_OLD
/* (end of this section) */

#undef RTMPI_API

#ifdef __cplusplus
}
#endif
#endif /* RTMSG_MPI_H */
