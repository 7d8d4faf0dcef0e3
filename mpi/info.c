/*
 * MPI_Info objects: ordered (key, value) lists. No call of this library
 * changes behaviour on an info key yet; the objects exist so codes that
 * build them work.
 */
#include "config.h"

#include "mpi_impl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct info_entry {
    char key[MPI_MAX_INFO_KEY + 1];
    char *value;
} info_entry_t;

typedef struct info {
    int n, cap;
    info_entry_t *e;
} info_t;

/* By handle; grows as needed (no limit but memory). A freed handle's slot
 * is reused by a later MPI_Info_create. */
static info_t **infos;
static int ninfos = MPI_INFO_ENV + 1, infos_cap;
static int infos_free_hint = MPI_INFO_ENV + 1;   /* no free slot below it */
static info_t env_info;   /* MPI_INFO_ENV: empty */

static info_t *info_get(MPI_Info h)
{
    if (h == MPI_INFO_ENV)
        return &env_info;
    return h > MPI_INFO_ENV && h < ninfos ? infos[h] : NULL;
}

/* A free handle for i, the table grown if need be; 0 out of memory. */
static int info_handle_new(info_t *i)
{
    int h = 0;

    for (int k = infos_free_hint; k < ninfos && !h; k++)
        if (!infos[k])
            h = k;
    if (!h) {
        if (ninfos >= infos_cap) {
            int cap = infos_cap ? infos_cap * 2 : 64;
            info_t **t = realloc(infos, (size_t)cap * sizeof(*t));

            if (!t)
                return 0;
            memset(t + infos_cap, 0, (size_t)(cap - infos_cap) * sizeof(*t));
            infos = t;
            infos_cap = cap;
        }
        h = ninfos++;
    }
    infos[h] = i;
    infos_free_hint = h + 1;
    return h;
}

static void info_destroy(info_t *i)
{
    for (int k = 0; k < i->n; k++)
        free(i->e[k].value);
    free(i->e);
    free(i);
}

#define GET_INFO(_h, _i) \
    info_t *_i = info_get(_h); \
    if (!_i) \
        return rtmpi_error(MPI_COMM_NULL, __func__, MPI_ERR_INFO, "invalid info %d", _h)

static int check_key(const char *fn, const char *key)
{
    if (!key || !key[0] || strlen(key) > MPI_MAX_INFO_KEY)
        return rtmpi_error(MPI_COMM_NULL, fn, MPI_ERR_INFO_KEY, "invalid info key");
    return MPI_SUCCESS;
}

static int find(const info_t *i, const char *key)
{
    for (int k = 0; k < i->n; k++)
        if (!strcmp(i->e[k].key, key))
            return k;
    return -1;
}

int PMPI_Info_create(MPI_Info *info)
{
    RTMPI_ENTER();
    if (!info)
        return rtmpi_error(MPI_COMM_NULL, __func__, MPI_ERR_ARG, "info is NULL");
    info_t *i = calloc(1, sizeof(info_t));
    int h = i ? info_handle_new(i) : 0;
    if (!h) {
        free(i);
        return rtmpi_error(MPI_COMM_NULL, __func__, MPI_ERR_NO_MEM,
                           "out of memory for an info object");
    }
    *info = h;
    return MPI_SUCCESS;
}
RTMPI_WEAK(Info_create)

int PMPI_Info_set(MPI_Info info, const char *key, const char *value)
{
    RTMPI_ENTER();
    GET_INFO(info, i);
    int rc = check_key(__func__, key);
    if (rc)
        return rc;
    if (!value || strlen(value) > MPI_MAX_INFO_VAL)
        return rtmpi_error(MPI_COMM_NULL, __func__, MPI_ERR_INFO_VALUE, "invalid info value");
    /* malloc, not strdup: the copy is the allocation that fails first when
     * memory runs out, and the tests' failmalloc sees malloc alone */
    size_t vlen = strlen(value) + 1;
    char *v = malloc(vlen);
    if (v)
        memcpy(v, value, vlen);
    if (!v)
        return rtmpi_error(MPI_COMM_NULL, __func__, MPI_ERR_NO_MEM, "out of memory");
    int k = find(i, key);
    if (k >= 0) {
        free(i->e[k].value);
        i->e[k].value = v;
        return MPI_SUCCESS;
    }
    if (i->n == i->cap) {
        int cap = i->cap ? i->cap * 2 : 8;
        info_entry_t *e = realloc(i->e, (size_t)cap * sizeof(*e));

        if (!e) {
            free(v);
            return rtmpi_error(MPI_COMM_NULL, __func__, MPI_ERR_NO_MEM, "out of memory");
        }
        i->e = e;
        i->cap = cap;
    }
    snprintf(i->e[i->n].key, sizeof(i->e[i->n].key), "%s", key);
    i->e[i->n++].value = v;
    return MPI_SUCCESS;
}
RTMPI_WEAK(Info_set)

int PMPI_Info_get(MPI_Info info, const char *key, int valuelen, char *value, int *flag)
{
    RTMPI_ENTER();
    GET_INFO(info, i);
    int rc = check_key(__func__, key);
    if (rc)
        return rc;
    if (!flag || valuelen < 0 || (!value && valuelen > 0))
        return rtmpi_error(MPI_COMM_NULL, __func__, MPI_ERR_ARG, "invalid value buffer or flag");
    int k = find(i, key);
    *flag = k >= 0;
    if (k >= 0 && valuelen > 0)
        snprintf(value, (size_t)valuelen + 1, "%s", i->e[k].value);
    return MPI_SUCCESS;
}
RTMPI_WEAK(Info_get)

int PMPI_Info_get_valuelen(MPI_Info info, const char *key, int *valuelen, int *flag)
{
    RTMPI_ENTER();
    GET_INFO(info, i);
    int rc = check_key(__func__, key);
    if (rc)
        return rc;
    if (!flag || !valuelen)
        return rtmpi_error(MPI_COMM_NULL, __func__, MPI_ERR_ARG, "valuelen or flag is NULL");
    int k = find(i, key);
    *flag = k >= 0;
    if (k >= 0)
        *valuelen = (int)strlen(i->e[k].value);
    return MPI_SUCCESS;
}
RTMPI_WEAK(Info_get_valuelen)

int PMPI_Info_get_nkeys(MPI_Info info, int *nkeys)
{
    RTMPI_ENTER();
    GET_INFO(info, i);
    if (!nkeys)
        return rtmpi_error(MPI_COMM_NULL, __func__, MPI_ERR_ARG, "nkeys is NULL");
    *nkeys = i->n;
    return MPI_SUCCESS;
}
RTMPI_WEAK(Info_get_nkeys)

int PMPI_Info_get_nthkey(MPI_Info info, int n, char *key)
{
    RTMPI_ENTER();
    GET_INFO(info, i);
    if (n < 0 || n >= i->n || !key)
        return rtmpi_error(MPI_COMM_NULL, __func__, MPI_ERR_ARG, "key index %d not in 0..%d", n,
                           i->n - 1);
    strcpy(key, i->e[n].key);
    return MPI_SUCCESS;
}
RTMPI_WEAK(Info_get_nthkey)

int PMPI_Info_delete(MPI_Info info, const char *key)
{
    RTMPI_ENTER();
    GET_INFO(info, i);
    int rc = check_key(__func__, key);
    if (rc)
        return rc;
    int k = find(i, key);
    if (k < 0)
        return rtmpi_error(MPI_COMM_NULL, __func__, MPI_ERR_INFO_NOKEY, "no key \"%s\"", key);
    free(i->e[k].value);
    memmove(&i->e[k], &i->e[k + 1], (size_t)(i->n - k - 1) * sizeof(info_entry_t));
    i->n--;
    return MPI_SUCCESS;
}
RTMPI_WEAK(Info_delete)

int PMPI_Info_dup(MPI_Info info, MPI_Info *newinfo)
{
    RTMPI_ENTER();
    GET_INFO(info, i);
    if (!newinfo)
        return rtmpi_error(MPI_COMM_NULL, __func__, MPI_ERR_ARG, "newinfo is NULL");
    int rc = PMPI_Info_create(newinfo);
    if (rc)
        return rc;
    for (int k = 0; k < i->n && !rc; k++)
        rc = PMPI_Info_set(*newinfo, i->e[k].key, i->e[k].value);
    if (rc) {
        /* out of memory part way: no half copy is left behind */
        MPI_Info part = *newinfo;
        PMPI_Info_free(&part);
        *newinfo = MPI_INFO_NULL;
    }
    return rc;
}
RTMPI_WEAK(Info_dup)

int PMPI_Info_free(MPI_Info *info)
{
    RTMPI_ENTER();
    if (!info)
        return rtmpi_error(MPI_COMM_NULL, __func__, MPI_ERR_ARG, "info is NULL");
    GET_INFO(*info, i);
    if (*info == MPI_INFO_ENV)
        return rtmpi_error(MPI_COMM_NULL, __func__, MPI_ERR_INFO, "MPI_INFO_ENV cannot be freed");
    info_destroy(i);
    infos[*info] = NULL;
    if (*info < infos_free_hint)
        infos_free_hint = *info;
    *info = MPI_INFO_NULL;
    return MPI_SUCCESS;
}
RTMPI_WEAK(Info_free)

void rtmpi_info_finalize(void)
{
    for (int h = MPI_INFO_ENV + 1; h < ninfos; h++)
        if (infos[h])
            info_destroy(infos[h]);
    free(infos);
    infos = NULL;
    ninfos = MPI_INFO_ENV + 1;
    infos_cap = 0;
    infos_free_hint = MPI_INFO_ENV + 1;
}
