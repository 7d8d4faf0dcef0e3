/*
 * Intrusive doubly linked list with a sentinel head. Insert and remove are
 * O(1) and never allocate, so lists can sit on the hot path.
 */
#ifndef RTM_COMMON_LIST_H
#define RTM_COMMON_LIST_H

#include <stddef.h>

typedef struct rtm_list {
    struct rtm_list *next;
    struct rtm_list *prev;
} rtm_list_t;

#define RTM_LIST_INIT(_head) { &(_head), &(_head) }

#define rtm_container_of(_ptr, _type, _member) \
    ((_type *)(void *)((char *)(_ptr) - offsetof(_type, _member)))

static inline void rtm_list_init(rtm_list_t *head)
{
    head->next = head;
    head->prev = head;
}

static inline int rtm_list_is_empty(const rtm_list_t *head)
{
    return head->next == head;
}

static inline void rtm_list_insert_after(rtm_list_t *pos, rtm_list_t *elem)
{
    elem->prev = pos;
    elem->next = pos->next;
    pos->next->prev = elem;
    pos->next = elem;
}

static inline void rtm_list_push_tail(rtm_list_t *head, rtm_list_t *elem)
{
    rtm_list_insert_after(head->prev, elem);
}

static inline void rtm_list_push_head(rtm_list_t *head, rtm_list_t *elem)
{
    rtm_list_insert_after(head, elem);
}

static inline void rtm_list_del(rtm_list_t *elem)
{
    elem->prev->next = elem->next;
    elem->next->prev = elem->prev;
    elem->next = elem->prev = elem;
}

static inline rtm_list_t *rtm_list_pop_head(rtm_list_t *head)
{
    rtm_list_t *first = head->next;

    if (first == head)
        return NULL;
    rtm_list_del(first);
    return first;
}

static inline size_t rtm_list_length(const rtm_list_t *head)
{
    size_t n = 0;

    for (const rtm_list_t *p = head->next; p != head; p = p->next)
        n++;
    return n;
}

#define rtm_list_for_each(_pos, _head) \
    for ((_pos) = (_head)->next; (_pos) != (_head); (_pos) = (_pos)->next)

/* Safe against removal of _pos inside the loop. */
#define rtm_list_for_each_safe(_pos, _tmp, _head) \
    for ((_pos) = (_head)->next, (_tmp) = (_pos)->next; (_pos) != (_head); \
         (_pos) = (_tmp), (_tmp) = (_pos)->next)

#endif
