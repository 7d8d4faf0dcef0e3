/*
 * Unit test of matching (runtime/match.c): posted receives are taken in
 * post order, unexpected messages in arrival order, wildcards match, and
 * contexts are created on first use by a message or a communicator.
 */
#include "config.h"

#include "runtime/runtime.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

rtm_runtime_t rtm_rt;
static int failures;

#define EXPECT(cond, ...) \
    do { \
        if (!(cond)) { \
            fprintf(stderr, "FAIL %s:%d: %s: ", __FILE__, __LINE__, #cond); \
            fprintf(stderr, __VA_ARGS__); \
            fputc('\n', stderr); \
            failures++; \
        } \
    } while (0)

/* Stubs for what match.c calls outside matching. */
static int unexp_freed, recv_unexp_calls;
void unexp_free(rtm_unexp_t *ue) { unexp_freed++; free(ue); }
void proto_recv_unexp(rtm_request_impl_t *req, rtm_unexp_t *ue)
{
    recv_unexp_calls++;
    EXPECT(req->len == 0, "dropped message goes to a zero-byte sink");
    req_release(req);
    unexp_free(ue);
}

static rtm_request_impl_t *post(rtm_match_ctx_t *mctx, int src, int tag)
{
    rtm_request_impl_t *req = req_alloc(RTM_REQ_RECV);

    req->rank = src;
    req->tag = tag;
    req->flags |= RTM_REQ_F_POSTED;
    rtm_list_push_tail(&mctx->posted, &req->link);
    return req;
}

static rtm_unexp_t *arrive(rtm_match_ctx_t *mctx, int src, int tag)
{
    rtm_unexp_t *ue = calloc(1, sizeof(*ue));

    ue->src = src;
    ue->tag = tag;
    ue->am_id = RTM_AM_EAGER;
    rtm_list_push_tail(&mctx->unexpected, &ue->link);
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

static void test_posted_order(void)
{
    rtm_match_ctx_t *mctx = match_ctx_get(4);
    rtm_request_impl_t *a, *b, *c, *d, *got;

    EXPECT(mctx != NULL, "context 4 created");
    a = post(mctx, 1, 5);
    b = post(mctx, RTM_ANY_SOURCE, 5);
    c = post(mctx, 2, RTM_ANY_TAG);
    d = post(mctx, 1, 5);
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
    got = match_posted_take(mctx, 1, 5);
    EXPECT(got == d, "last one");
    EXPECT(rtm_list_is_empty(&mctx->posted), "posted queue empty");
    req_release(a);
    req_release(b);
    req_release(c);
    req_release(d);
}

static void test_unexpected_order(void)
{
    rtm_match_ctx_t *mctx = match_ctx_get(6);
    rtm_unexp_t *m1, *m2, *m3, *got;

    m1 = arrive(mctx, 0, 1);
    m2 = arrive(mctx, 1, 1);
    m3 = arrive(mctx, 0, 2);
    got = match_unexp_find(mctx, RTM_ANY_SOURCE, RTM_ANY_TAG);
    EXPECT(got == m1, "oldest first");
    got = match_unexp_find(mctx, 0, 2);
    EXPECT(got == m3, "exact");
    got = match_unexp_find(mctx, RTM_ANY_SOURCE, 1);
    EXPECT(got == m1, "any source, tag 1: oldest");
    rtm_list_del(&m1->link);
    free(m1);
    got = match_unexp_find(mctx, RTM_ANY_SOURCE, 1);
    EXPECT(got == m2, "after removal, next oldest");
    got = match_unexp_find(mctx, 5, RTM_ANY_TAG);
    EXPECT(got == NULL, "no message from 5");
    /* freeing the context drops the rest through a sink receive */
    match_ctx_put(6);
    EXPECT(recv_unexp_calls == 2, "both unreceived messages released (%d)", recv_unexp_calls);
    EXPECT(rtm_rt.match_ctxs[6] == NULL, "idle context freed");
}

static void test_context_growth(void)
{
    rtm_match_ctx_t *a = match_ctx_get(1000);
    rtm_match_ctx_t *b = match_ctx_get(1000);
    rtm_match_ctx_t *c = match_ctx_get(3);

    EXPECT(a != NULL && a == b, "same context for the same id");
    EXPECT(c != NULL && c != a, "distinct ids, distinct contexts");
    EXPECT(rtm_rt.num_match_ctxs > 1000, "table grew to %u", rtm_rt.num_match_ctxs);
    EXPECT(rtm_list_is_empty(&a->posted) && rtm_list_is_empty(&a->unexpected), "new context empty");
}

int main(void)
{
    rtm_mpool_init(&rtm_rt.req_pool, "requests", sizeof(rtm_request_impl_t), 4, 0);
    test_predicate();
    test_posted_order();
    test_unexpected_order();
    test_context_growth();
    if (failures) {
        fprintf(stderr, "test_match: %d failure(s)\n", failures);
        return 1;
    }
    printf("test_match: all checks passed\n");
    return 0;
}
