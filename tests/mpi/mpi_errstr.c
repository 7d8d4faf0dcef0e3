/*
 * MPI_Error_string for every error class, 0 to MPI_ERR_LASTCODE: each
 * succeeds, starts with its class's name, and goes on with a text of its
 * own (no two classes share one); MPI_Error_class maps each class to
 * itself; codes outside the range are refused with MPI_ERR_ARG under
 * MPI_ERRORS_RETURN. Runs as a singleton and under rtrun.
 */
#include "mpitest.h"

#define CLASS(c) [c] = #c
static const char *const names[MPI_ERR_LASTCODE + 1] = {
    CLASS(MPI_SUCCESS), CLASS(MPI_ERR_BUFFER), CLASS(MPI_ERR_COUNT), CLASS(MPI_ERR_TYPE),
    CLASS(MPI_ERR_TAG), CLASS(MPI_ERR_COMM), CLASS(MPI_ERR_RANK), CLASS(MPI_ERR_REQUEST),
    CLASS(MPI_ERR_ROOT), CLASS(MPI_ERR_GROUP), CLASS(MPI_ERR_OP), CLASS(MPI_ERR_TOPOLOGY),
    CLASS(MPI_ERR_DIMS), CLASS(MPI_ERR_ARG), CLASS(MPI_ERR_UNKNOWN), CLASS(MPI_ERR_TRUNCATE),
    CLASS(MPI_ERR_OTHER), CLASS(MPI_ERR_INTERN), CLASS(MPI_ERR_IN_STATUS),
    CLASS(MPI_ERR_PENDING), CLASS(MPI_ERR_ACCESS), CLASS(MPI_ERR_AMODE), CLASS(MPI_ERR_ASSERT),
    CLASS(MPI_ERR_BAD_FILE), CLASS(MPI_ERR_BASE), CLASS(MPI_ERR_CONVERSION),
    CLASS(MPI_ERR_DISP), CLASS(MPI_ERR_DUP_DATAREP), CLASS(MPI_ERR_FILE_EXISTS),
    CLASS(MPI_ERR_FILE_IN_USE), CLASS(MPI_ERR_FILE), CLASS(MPI_ERR_INFO_KEY),
    CLASS(MPI_ERR_INFO_NOKEY), CLASS(MPI_ERR_INFO_VALUE), CLASS(MPI_ERR_INFO),
    CLASS(MPI_ERR_IO), CLASS(MPI_ERR_KEYVAL), CLASS(MPI_ERR_LOCKTYPE), CLASS(MPI_ERR_NAME),
    CLASS(MPI_ERR_NO_MEM), CLASS(MPI_ERR_NOT_SAME), CLASS(MPI_ERR_NO_SPACE),
    CLASS(MPI_ERR_NO_SUCH_FILE), CLASS(MPI_ERR_PORT), CLASS(MPI_ERR_QUOTA),
    CLASS(MPI_ERR_READ_ONLY), CLASS(MPI_ERR_RMA_CONFLICT), CLASS(MPI_ERR_RMA_SYNC),
    CLASS(MPI_ERR_SERVICE), CLASS(MPI_ERR_SIZE), CLASS(MPI_ERR_SPAWN),
    CLASS(MPI_ERR_UNSUPPORTED_DATAREP), CLASS(MPI_ERR_UNSUPPORTED_OPERATION),
    CLASS(MPI_ERR_WIN), CLASS(MPI_ERR_RMA_RANGE), CLASS(MPI_ERR_RMA_ATTACH),
    CLASS(MPI_ERR_RMA_SHARED), CLASS(MPI_ERR_RMA_FLAVOR), CLASS(MPI_T_ERR_INVALID),
    CLASS(MPI_T_ERR_MEMORY), CLASS(MPI_T_ERR_NOT_INITIALIZED), CLASS(MPI_T_ERR_CANNOT_INIT),
    CLASS(MPI_T_ERR_INVALID_INDEX), CLASS(MPI_T_ERR_INVALID_ITEM), CLASS(MPI_T_ERR_INVALID_NAME),
    CLASS(MPI_T_ERR_INVALID_HANDLE), CLASS(MPI_T_ERR_OUT_OF_HANDLES),
    CLASS(MPI_T_ERR_OUT_OF_SESSIONS), CLASS(MPI_T_ERR_INVALID_SESSION),
    CLASS(MPI_T_ERR_CVAR_SET_NOT_NOW), CLASS(MPI_T_ERR_CVAR_SET_NEVER),
    CLASS(MPI_T_ERR_PVAR_NO_STARTSTOP), CLASS(MPI_T_ERR_PVAR_NO_WRITE),
    CLASS(MPI_T_ERR_PVAR_NO_ATOMIC),
    CLASS(MPI_ERR_LASTCODE),
};

int main(int argc, char **argv)
{
    static char text[MPI_ERR_LASTCODE + 1][MPI_MAX_ERROR_STRING];
    char s[MPI_MAX_ERROR_STRING];
    int len, cls;

    mt_init(&argc, &argv);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    for (int c = 0; c <= MPI_ERR_LASTCODE; c++) {
        size_t nlen;

        CHECK(names[c] != NULL, "class %d has no name in this test (mpi.h grew?)", c);
        nlen = strlen(names[c]);
        memset(s, 0, sizeof(s));
        len = -1;
        EXPECT(MPI_Error_string(c, s, &len) == MPI_SUCCESS, "MPI_Error_string(%s) failed",
               names[c]);
        EXPECT(len == (int)strlen(s) && len < MPI_MAX_ERROR_STRING,
               "MPI_Error_string(%s): resultlen %d for \"%s\"", names[c], len, s);
        EXPECT(strncmp(s, names[c], nlen) == 0 && s[nlen] == ':' && s[nlen + 1] == ' ' &&
               s[nlen + 2] != '\0',
               "MPI_Error_string(%s) is \"%s\": expected \"%s: \" and a text", names[c], s,
               names[c]);
        snprintf(text[c], sizeof(text[c]), "%s", strlen(s) > nlen + 2 ? s + nlen + 2 : "");
        for (int o = 0; o < c; o++)
            EXPECT(strcmp(text[o], text[c]) != 0, "%s and %s share the text \"%s\"", names[o],
                   names[c], text[c]);
        cls = -1;
        EXPECT(MPI_Error_class(c, &cls) == MPI_SUCCESS && cls == c,
               "MPI_Error_class(%s) gave %d", names[c], cls);
    }
    EXPECT(MPI_Error_string(-1, s, &len) == MPI_ERR_ARG, "MPI_Error_string(-1) accepted");
    EXPECT(MPI_Error_string(MPI_ERR_LASTCODE + 1, s, &len) == MPI_ERR_ARG,
           "MPI_Error_string(MPI_ERR_LASTCODE + 1) accepted");
    EXPECT(MPI_Error_class(MPI_ERR_LASTCODE + 1, &cls) == MPI_ERR_ARG,
           "MPI_Error_class(MPI_ERR_LASTCODE + 1) accepted");
    return mt_finish("mpi_errstr");
}
