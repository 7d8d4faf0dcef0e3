/*
 * Fixed-size object pool. Objects come from chunks allocated as the pool
 * grows and are recycled through a free list, so the steady state never
 * calls malloc. An optional limit bounds the number of objects.
 */
#ifndef RTM_COMMON_MPOOL_H
#define RTM_COMMON_MPOOL_H

#include <stddef.h>

typedef struct rtm_mpool_chunk rtm_mpool_chunk_t;

typedef struct rtm_mpool {
    void              *free_list;
    rtm_mpool_chunk_t *chunks;
    size_t             elem_size;
    size_t             per_chunk;
    size_t             count;       /* objects allocated so far */
    size_t             max_count;   /* 0: unbounded */
    size_t             in_use;
    const char        *name;
} rtm_mpool_t;

void  rtm_mpool_init(rtm_mpool_t *mp, const char *name, size_t elem_size,
                     size_t per_chunk, size_t max_count);
void  rtm_mpool_cleanup(rtm_mpool_t *mp);
/* NULL when the limit is reached or memory is exhausted. */
void *rtm_mpool_get_slow(rtm_mpool_t *mp);

static inline void *rtm_mpool_get(rtm_mpool_t *mp)
{
    void *obj = mp->free_list;

    if (obj == NULL)
        return rtm_mpool_get_slow(mp);
    mp->free_list = *(void **)obj;
    mp->in_use++;
    return obj;
}

static inline void rtm_mpool_put(rtm_mpool_t *mp, void *obj)
{
    *(void **)obj = mp->free_list;
    mp->free_list = obj;
    mp->in_use--;
}

#endif
