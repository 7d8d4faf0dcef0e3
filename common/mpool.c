#include "config.h"

#include "common/mpool.h"

#include <stdlib.h>
#include <string.h>

struct rtm_mpool_chunk {
    rtm_mpool_chunk_t *next;
    /* objects follow, each elem_size bytes, 16-byte aligned */
};

#define CHUNK_HEADER 16

void rtm_mpool_init(rtm_mpool_t *mp, const char *name, size_t elem_size,
                    size_t per_chunk, size_t max_count)
{
    memset(mp, 0, sizeof(*mp));
    if (elem_size < sizeof(void *))
        elem_size = sizeof(void *);
    mp->elem_size = (elem_size + 15) & ~(size_t)15;
    mp->per_chunk = per_chunk ? per_chunk : 64;
    mp->max_count = max_count;
    mp->name = name;
}

void rtm_mpool_cleanup(rtm_mpool_t *mp)
{
    rtm_mpool_chunk_t *c = mp->chunks;

    while (c != NULL) {
        rtm_mpool_chunk_t *next = c->next;

        free(c);
        c = next;
    }
    mp->chunks = NULL;
    mp->free_list = NULL;
    mp->count = 0;
    mp->in_use = 0;
}

void *rtm_mpool_get_slow(rtm_mpool_t *mp)
{
    size_t n = mp->per_chunk;
    rtm_mpool_chunk_t *chunk;
    char *objs;

    if (mp->max_count && mp->count + n > mp->max_count)
        n = mp->max_count - mp->count;
    if (n == 0)
        return NULL;
    chunk = malloc(CHUNK_HEADER + n * mp->elem_size);
    if (chunk == NULL)
        return NULL;
    chunk->next = mp->chunks;
    mp->chunks = chunk;
    mp->count += n;
    objs = (char *)chunk + CHUNK_HEADER;
    for (size_t i = 0; i < n; i++) {
        void *obj = objs + i * mp->elem_size;

        *(void **)obj = mp->free_list;
        mp->free_list = obj;
    }
    return rtm_mpool_get(mp);
}
