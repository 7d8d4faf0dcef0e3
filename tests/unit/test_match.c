/*
 * Unit test of matching (runtime/match.c), linked alone: no stubs, no
 * global state. Posted receives are taken in post order, unexpected
 * messages in arrival order, wildcards match, contexts are created on
 * first use, bounded by the table's id limit, and freed only when idle.
 */
#include "config.h"

#include "runtime/match.h"
#include "tests/harness.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static rtm_request_impl_t reqs[8];
static int nreqs;

static rtm_request_impl_t *post(rtm_match_ctx_t *mctx, int src, int tag)
{
    rtm_request_impl_t *req = &reqs[nreqs++];

    memset(req, 0, sizeof(*req));
    req->rank = src;
    req->tag = tag;
    match_posted_add(mctx, req);
    return req;
}

static rtm_unexp_t *arrive(rtm_match_table_t *tbl, rtm_match_ctx_t *mctx, int src, int tag,
                           size_t len)
{
    rtm_unexp_t *ue = match_unexp_alloc(tbl);

    EXPECT(ue != NULL, "unexpected message allocated");
    ue->src = src;
    ue->tag = tag;
    ue->am_id = RTM_AM_EAGER;
    ue->len = len;
    ue->data = len <= sizeof(ue->inline_data) ? ue->inline_data : malloc(len);
    match_unexp_add(mctx, ue);
    return ue;
}

static void test_predicate(void)
{
    EXPECT(match_matches(3, 7, 3, 7), "exact");
    EXPECT(!match_matches(3, 7, 2, 7), "other source");
    EXPECT(!match_matches(3, 7, 3, 8), "other tag");
    EXPECT(match_matches(RTM_ANY_SOURCE, 7, 5, 7), "any source");
    EXPECT(match_matches(3, RTM_ANY_TAG, 3, 0), "any tag");
    EXPECT(match_matches(RTM_ANY_SOURCE, RTM_ANY_TAG, 9, 123), "both wildcards");
    EXPECT(!match_matches(RTM_ANY_SOURCE, 1, 9, 2), "any source, other tag");
}

static void test_posted_order(rtm_match_table_t *tbl)
{
    rtm_match_ctx_t *mctx = match_ctx_get(tbl, 4);
    rtm_request_impl_t *a, *b, *c, *d, *e, *got;

    EXPECT(mctx != NULL, "context 4 created");
    a = post(mctx, 1, 5);
    b = post(mctx, RTM_ANY_SOURCE, 5);
    c = post(mctx, 2, RTM_ANY_TAG);
    d = post(mctx, 1, 5);
    e = post(mctx, 7, 7);
    EXPECT(a->flags & RTM_REQ_F_POSTED, "posted request marked posted");
    /* message (2, 5): b was posted before c and matches */
    got = match_posted_take(mctx, 2, 5);
    EXPECT(got == b, "first posted match in post order (got %p, want %p)", (void *)got, (void *)b);
    EXPECT(!(got->flags & RTM_REQ_F_POSTED), "taken request no longer marked posted");
    got = match_posted_take(mctx, 1, 5);
    EXPECT(got == a, "exact match posted first wins");
    got = match_posted_take(mctx, 2, 9);
    EXPECT(got == c, "any-tag receive");
    got = match_posted_take(mctx, 3, 5);
    EXPECT(got == NULL, "nothing posted for source 3");
    match_posted_remove(e);
    EXPECT(!(e->flags & RTM_REQ_F_POSTED), "removed (cancelled) request not posted");
    got = match_posted_take(mctx, 7, 7);
    EXPECT(got == NULL, "a removed receive matches nothing");
    EXPECT(!match_ctx_free(tbl, 4), "a context with a posted receive stays");
    got = match_posted_take(mctx, 1, 5);
    EXPECT(got == d, "last one");
    EXPECT(rtm_list_is_empty(&mctx->posted), "posted queue empty");
    EXPECT(match_ctx_free(tbl, 4), "an idle context is freed");
    EXPECT(tbl->ctxs[4] == NULL, "freed context gone from the table");
}

static void test_unexpected_order(rtm_match_table_t *tbl)
{
    rtm_match_ctx_t *mctx = match_ctx_get(tbl, 6);
    rtm_unexp_t *m1, *m2, *m3, *got;

    m1 = arrive(tbl, mctx, 0, 1, 8);
    m2 = arrive(tbl, mctx, 1, 1, 1000);   /* payload outside the object */
    m3 = arrive(tbl, mctx, 0, 2, 0);
    got = match_unexp_find(mctx, RTM_ANY_SOURCE, RTM_ANY_TAG);
    EXPECT(got == m1, "oldest first");
    got = match_unexp_find(mctx, 0, 2);
    EXPECT(got == m3, "exact");
    got = match_unexp_find(mctx, RTM_ANY_SOURCE, 1);
    EXPECT(got == m1, "any source, tag 1: oldest");
    got = match_unexp_find(mctx, 1, RTM_ANY_TAG);
    EXPECT(got == m2, "any tag from 1");
    match_unexp_remove(m1);
    match_unexp_free(tbl, m1);
    got = match_unexp_find(mctx, RTM_ANY_SOURCE, 1);
    EXPECT(got == m2, "after removal, next oldest");
    got = match_unexp_find(mctx, 5, RTM_ANY_TAG);
    EXPECT(got == NULL, "no message from 5");
    EXPECT(!match_ctx_free(tbl, 6), "a context with unexpected messages stays");
    got = match_unexp_pop(mctx);
    EXPECT(got == m2, "pop takes the oldest");
    match_unexp_free(tbl, got);
    got = match_unexp_pop(mctx);
    EXPECT(got == m3, "then the next");
    match_unexp_free(tbl, got);
    EXPECT(match_unexp_pop(mctx) == NULL, "queue empty");
    EXPECT(match_ctx_free(tbl, 6), "now idle: freed");
    /* left for match_table_cleanup: a context with one message */
    mctx = match_ctx_get(tbl, 6);
    arrive(tbl, mctx, 3, 3, 500);
}

static void test_context_table(rtm_match_table_t *tbl)
{
    rtm_match_ctx_t *a = match_ctx_get(tbl, 1000);
    rtm_match_ctx_t *b = match_ctx_find(tbl, 1000);
    rtm_match_ctx_t *c = match_ctx_find(tbl, 3);

    EXPECT(a != NULL && a == b, "same context for the same id");
    EXPECT(c != NULL && c != a, "distinct ids, distinct contexts");
    EXPECT(tbl->num > 1000 && tbl->num <= tbl->max_ids, "table grew to %u", tbl->num);
    EXPECT(rtm_list_is_empty(&a->posted) && rtm_list_is_empty(&a->unexpected), "new context empty");
    EXPECT(match_ctx_get(tbl, tbl->max_ids - 1) != NULL, "the last id is valid");
    EXPECT(tbl->num == tbl->max_ids, "table never larger than the id limit (%u)", tbl->num);
    EXPECT(match_ctx_get(tbl, tbl->max_ids) == NULL, "an id beyond the limit is refused");
    EXPECT(match_ctx_find(tbl, 0xffffffffu) == NULL, "a wild id is refused, not allocated");
    EXPECT(!match_ctx_free(tbl, 0xffffffffu), "freeing an unknown id is harmless");
}

int main(void)
{
    rtm_match_table_t tbl;

    th_name = "test_match";
    match_table_init(&tbl, 4096);
    test_predicate();
    test_posted_order(&tbl);
    test_unexpected_order(&tbl);
    test_context_table(&tbl);
    match_table_cleanup(&tbl);
    EXPECT(tbl.num == 0 && tbl.ctxs == NULL, "table emptied");
    if (th_failures > 0)
        TH_RETURN();
    printf("test_match: all checks passed\n");
    return 0;
}
