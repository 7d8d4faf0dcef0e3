/*
 * Execution of collective schedules (see coll_sched.h).
 */
#include "config.h"

#include "coll_sched.h"
#include "intercomm.h"
#include "mpi_config.h"
#include "mpi_state.h"

#include <stdio.h>

#include <stdlib.h>
#include <string.h>


enum step_kind { STEP_SEND, STEP_RECV, STEP_REDUCE, STEP_COPY, STEP_CALL };

typedef struct step {
    int          kind;
    int          round;
    const void  *sbuf;
    void        *rbuf;
    MPI_Count    count;
    MPI_Datatype dt;
    int          peer;
    MPI_Op       op;
    MPI_Count    rcount;
    MPI_Datatype rdt;
    rtmpi_sched_fn *fn;      /* STEP_CALL */
    void        *arg;
    rtmpi_request_t req;     /* send/recv in flight */
} step_t;

struct rtmpi_sched {
    MPI_Comm    comm;
    rtm_comm_t  ncomm;
    int         tag;
    step_t     *steps;
    int         nsteps, cap;
    int         round;          /* round being built */
    /* execution: the running round is steps [cur, end) */
    int         cur, end;
    int         inflight;       /* its sends and receives not complete yet */
    int         listed;         /* on the ready list */
    int         busy;           /* advance() is running it */
    int         nonblocking;    /* counted in nactive */
    int         post_error;     /* a send or receive could not be started */
    int         done, error, build_error;
    int         held;           /* nonblocking: its types and ops are retained (hold) */
    struct scratch *tmps;
    int         ntmps, tmpcap;
    struct rtmpi_sched *next_ready;
};

/* Progress is driven by completions, not by polling: every send and receive
 * a schedule posts is watched (runtime/binding.h, binding_req_watch); the
 * completion of the last one of its round puts the schedule on the ready
 * list, and the binding's progress advances only the schedules on it. So
 * the cost of a progress call does not grow with the number of collectives
 * in flight (thousands of MPI_I* outstanding cost a scan of all of them per
 * poll before: bench/nbc-many.sh, docs/collectives.md). */
static rtmpi_sched_t *ready_head, *ready_tail;
static int nactive;             /* nonblocking collectives in flight */
static rtmpi_sched_t *running;  /* the blocking collective in progress (job-state reports) */

/* Finished schedules kept with their step and scratch arrays, so a small
 * collective allocates nothing once the first few have run. */
#define SCHED_FREE_MAX 16
static rtmpi_sched_t *sched_free_list[SCHED_FREE_MAX];
static int sched_nfree;

/* Scratch blocks of finished schedules, kept for the next collective.
 * A large block freed to glibc goes back to the kernel (brk trim or
 * munmap), so allocating it per call made every collective fault in each
 * of its pages again: MPI_Reduce of 1 MiB spent ~6 ms of its time in page
 * faults on this VM (docs/collectives.md). Up to RTM_MPI_COLL_SCRATCH bytes
 * stay allocated, in at most SCRATCH_SLOTS blocks. Small blocks are cheap
 * to malloc and are not kept. */
struct scratch {
    void  *p;
    size_t len;
};
#define SCRATCH_SLOTS    8
#define SCRATCH_MIN_KEEP 4096
static struct scratch scratch_cache[SCRATCH_SLOTS];
static size_t scratch_cached_bytes;

/* The smallest cached block of at least `bytes`, else a new one. */
static struct scratch scratch_get(size_t bytes)
{
    int best = -1;

    for (int i = 0; i < SCRATCH_SLOTS; i++)
        if (scratch_cache[i].p && scratch_cache[i].len >= bytes &&
            (best < 0 || scratch_cache[i].len < scratch_cache[best].len))
            best = i;
    if (best >= 0) {
        struct scratch b = scratch_cache[best];

        scratch_cache[best].p = NULL;
        scratch_cached_bytes -= b.len;
        return b;
    }
    return (struct scratch){ malloc(bytes), bytes };
}

/* Keeps b for later when it fits the budget, evicting smaller blocks. */
static void scratch_put(struct scratch b)
{
    size_t budget = mpi_config.coll_scratch;

    if (b.len < SCRATCH_MIN_KEEP || b.len > budget) {
        free(b.p);
        return;
    }
    for (;;) {
        int slot = -1, smallest = -1;

        for (int i = 0; i < SCRATCH_SLOTS; i++) {
            if (!scratch_cache[i].p)
                slot = i;
            else if (smallest < 0 || scratch_cache[i].len < scratch_cache[smallest].len)
                smallest = i;
        }
        if (slot >= 0 && scratch_cached_bytes + b.len <= budget) {
            scratch_cache[slot] = b;
            scratch_cached_bytes += b.len;
            return;
        }
        if (smallest < 0 || scratch_cache[smallest].len > b.len) {
            free(b.p);
            return;
        }
        free(scratch_cache[smallest].p);
        scratch_cached_bytes -= scratch_cache[smallest].len;
        scratch_cache[smallest].p = NULL;
    }
}

void rtmpi_sched_finalize(void)
{
    while (sched_nfree > 0) {
        rtmpi_sched_t *s = sched_free_list[--sched_nfree];

        free(s->tmps);
        free(s->steps);
        free(s);
    }
    for (int i = 0; i < SCRATCH_SLOTS; i++) {
        free(scratch_cache[i].p);
        scratch_cache[i].p = NULL;
    }
    scratch_cached_bytes = 0;
}

rtmpi_sched_t *rtmpi_sched_new(MPI_Comm comm)
{
    rtmpi_comm_t *c = rtmpi_comm_get(comm);
    rtmpi_sched_t *s;

    if (sched_nfree > 0) {
        s = sched_free_list[--sched_nfree];
        step_t *steps = s->steps;
        struct scratch *tmps = s->tmps;
        int cap = s->cap, tmpcap = s->tmpcap;

        memset(s, 0, sizeof(*s));
        s->steps = steps;
        s->cap = cap;
        s->tmps = tmps;
        s->tmpcap = tmpcap;
    } else {
        s = calloc(1, sizeof(*s));
    }
    if (!s)
        return NULL;
    s->comm = comm;
    s->ncomm = c->coll;
    s->tag = (int)(c->coll_seq++ & 0x3fffffff);
    return s;
}

int rtmpi_sched_failed(const rtmpi_sched_t *s)
{
    return s->build_error;
}

void rtmpi_sched_round(rtmpi_sched_t *s)
{
    if (s->nsteps > 0 && s->steps[s->nsteps - 1].round == s->round)
        s->round++;
}

static step_t *add(rtmpi_sched_t *s, int kind)
{
    if (s->nsteps == s->cap) {
        int cap = s->cap ? s->cap * 2 : 16;
        step_t *t = realloc(s->steps, (size_t)cap * sizeof(*t));

        if (!t) {
            s->build_error = MPI_ERR_NO_MEM;
            return NULL;
        }
        s->steps = t;
        s->cap = cap;
    }
    step_t *st = &s->steps[s->nsteps++];
    memset(st, 0, sizeof(*st));
    st->kind = kind;
    st->round = s->round;
    return st;
}

int rtmpi_sched_send(rtmpi_sched_t *s, const void *buf, MPI_Count count, MPI_Datatype dt, int peer)
{
    step_t *st = add(s, STEP_SEND);

    if (!st)
        return MPI_ERR_NO_MEM;
    st->sbuf = buf;
    st->count = count;
    st->dt = dt;
    st->peer = peer;
    return MPI_SUCCESS;
}

int rtmpi_sched_recv(rtmpi_sched_t *s, void *buf, MPI_Count count, MPI_Datatype dt, int peer)
{
    step_t *st = add(s, STEP_RECV);

    if (!st)
        return MPI_ERR_NO_MEM;
    st->rbuf = buf;
    st->count = count;
    st->dt = dt;
    st->peer = peer;
    return MPI_SUCCESS;
}

int rtmpi_sched_reduce(rtmpi_sched_t *s, const void *in, void *inout, MPI_Count count,
                       MPI_Datatype dt, MPI_Op op)
{
    step_t *st = add(s, STEP_REDUCE);

    if (!st)
        return MPI_ERR_NO_MEM;
    st->sbuf = in;
    st->rbuf = inout;
    st->count = count;
    st->dt = dt;
    st->op = op;
    return MPI_SUCCESS;
}

int rtmpi_sched_copy(rtmpi_sched_t *s, const void *sbuf, MPI_Count scount, MPI_Datatype stype,
                     void *rbuf, MPI_Count rcount, MPI_Datatype rtype)
{
    step_t *st = add(s, STEP_COPY);

    if (!st)
        return MPI_ERR_NO_MEM;
    st->sbuf = sbuf;
    st->count = scount;
    st->dt = stype;
    st->rbuf = rbuf;
    st->rcount = rcount;
    st->rdt = rtype;
    return MPI_SUCCESS;
}

int rtmpi_sched_call(rtmpi_sched_t *s, rtmpi_sched_fn *fn, void *arg)
{
    step_t *st = add(s, STEP_CALL);

    if (!st)
        return MPI_ERR_NO_MEM;
    st->fn = fn;
    st->arg = arg;
    return MPI_SUCCESS;
}

/* A call step: what fn adds goes to rounds after every step there is, so
 * the round running now is not changed under it; a nonblocking schedule
 * holds the types and ops of those steps too. */
static int do_call(rtmpi_sched_t *s, int i)
{
    rtmpi_sched_fn *fn = s->steps[i].fn;
    void *arg = s->steps[i].arg;
    int before = s->nsteps, rc;

    s->round = s->steps[s->nsteps - 1].round + 1;
    rc = fn(s, arg);
    if (s->held) {
        for (int k = before; k < s->nsteps; k++) {
            rtmpi_dtype_retain(s->steps[k].dt);
            rtmpi_dtype_retain(s->steps[k].rdt);
            rtmpi_op_retain(s->steps[k].op);
        }
    }
    return rc ? rc : s->build_error;
}

void *rtmpi_sched_tmp(rtmpi_sched_t *s, size_t bytes)
{
    struct scratch b;

    if (s->ntmps == s->tmpcap) {
        int cap = s->tmpcap ? s->tmpcap * 2 : 4;
        struct scratch *t = realloc(s->tmps, (size_t)cap * sizeof(*t));

        if (!t) {
            s->build_error = MPI_ERR_NO_MEM;
            return NULL;
        }
        s->tmps = t;
        s->tmpcap = cap;
    }
    b = scratch_get(bytes ? bytes : 1);
    if (!b.p) {
        s->build_error = MPI_ERR_NO_MEM;
        return NULL;
    }
    s->tmps[s->ntmps++] = b;
    return b.p;
}

void *rtmpi_sched_tmp_dt(rtmpi_sched_t *s, MPI_Count count, MPI_Datatype dt)
{
    rtmpi_dtype_t *d = rtmpi_dtype_get(dt);
    /* element i's data is at i * extent + [true_lb, true_ub); the extent
     * may be negative (MPI_Type_create_resized), the elements then go down
     * from the buffer's address */
    MPI_Aint reach = count > 0 ? (MPI_Aint)(count - 1) * d->extent : 0;
    MPI_Aint lo = (reach < 0 ? reach : 0) + d->true_lb, hi = (reach > 0 ? reach : 0) + d->true_ub;
    char *p = rtmpi_sched_tmp(s, hi > lo ? (size_t)hi - (size_t)lo : 1);

    return p ? rtmpi_addr(p, -lo) : NULL;
}

/* copy step: contiguous to contiguous is one memcpy, anything else goes
 * through a packed intermediate. */
static int do_copy(step_t *st)
{
    rtmpi_dtype_t *sd = rtmpi_dtype_obj(st->dt), *rd = rtmpi_dtype_obj(st->rdt);
    size_t sbytes = (size_t)(st->count * sd->size), rbytes = (size_t)(st->rcount * rd->size);
    size_t n = sbytes < rbytes ? sbytes : rbytes;
    MPI_Aint soff, roff;

    if (n == 0)
        return MPI_SUCCESS;
    if (rtmpi_dtype_contig(sd, st->count, &soff) && rtmpi_dtype_contig(rd, st->rcount, &roff)) {
        memmove(rtmpi_addr(st->rbuf, roff), rtmpi_addr(st->sbuf, soff), n);
        return MPI_SUCCESS;
    }
    void *tmp = malloc(sbytes);
    if (!tmp)
        return MPI_ERR_NO_MEM;
    rtmpi_pack(st->sbuf, st->count, sd, tmp);
    rtmpi_unpack(tmp, n, st->rbuf, st->rcount, rd);
    free(tmp);
    return MPI_SUCCESS;
}

static void finish(rtmpi_sched_t *s, int error)
{
    s->done = 1;
    if (!s->error)
        s->error = error;
    if (s->nonblocking)
        nactive--;
}

/* The completion notice of a watched send or receive (binding_done_register):
 * the last one of a round puts its schedule on the ready list.
 * Runtime hot path: no allocation, lock, log or call into the library. */
static void step_done(binding_req_t *rq)
{
    rtmpi_sched_t *s = (rtmpi_sched_t *)rq->binding[1];

    if (--s->inflight > 0 || s->listed || s->busy)
        return;
    s->listed = 1;
    s->next_ready = NULL;
    if (ready_tail)
        ready_tail->next_ready = s;
    else
        ready_head = s;
    ready_tail = s;
}

/* 1 when the step's send or receive has completed (the runtime's flag; the
 * step's status is collected at the end of its round). */
static int step_complete(const step_t *st)
{
    if (st->req.complete || st->req.native == RTM_REQUEST_NULL)
        return 1;
    return (((const binding_req_t *)(const void *)st->req.native)->flags &
            BINDING_REQ_COMPLETE) != 0;
}

/* Runs the local steps of the round at s->cur and posts its messages, each
 * watched; stops at the first failure (s->end then ends the part posted). */
static void start_round(rtmpi_sched_t *s)
{
    int end = s->cur;

    while (end < s->nsteps && s->steps[end].round == s->steps[s->cur].round)
        end++;
    s->end = end;
    for (int i = s->cur; i < end; i++) {
        step_t *st = &s->steps[i];
        int rc = MPI_SUCCESS;

        if (st->kind == STEP_REDUCE)
            rc = rtmpi_op_apply(st->op, st->sbuf, st->rbuf, st->count, st->dt);
        else if (st->kind == STEP_COPY)
            rc = do_copy(st);
        else if (st->kind == STEP_CALL)
            rc = do_call(s, i);   /* may move s->steps: st is not used after */
        if (rc) {
            s->end = s->cur;   /* nothing posted */
            s->error = rc;
            s->post_error = 1;
            return;
        }
    }
    for (int i = s->cur; i < end; i++) {
        step_t *st = &s->steps[i];
        int rc;

        if (st->kind != STEP_SEND && st->kind != STEP_RECV)
            continue;
        st->req.comm = s->comm;
        rc = rtmpi_p2p_start(&st->req, st->kind == STEP_SEND ? RTMPI_REQ_SEND : RTMPI_REQ_RECV,
                             st->kind == STEP_SEND ? st->sbuf : st->rbuf, (int)st->count, st->dt,
                             st->peer, s->tag, s->ncomm, RTMPI_SEND_STANDARD);
        if (rc) {
            /* the round ends with what was posted; the schedule then fails */
            s->end = i;
            s->error = rc;
            s->post_error = 1;
            return;
        }
        if (st->req.native != RTM_REQUEST_NULL) {
            binding_req_t *rq = (binding_req_t *)(void *)st->req.native;

            if (!binding_req_watch(rq)) {
                rq->binding[1] = (uintptr_t)s;
                s->inflight++;
            }
        }
    }
}

/* Collects the statuses of the round that ended (every message of it is
 * complete) into s->error. */
static void end_round(rtmpi_sched_t *s)
{
    for (int i = s->cur; i < s->end; i++) {
        step_t *st = &s->steps[i];

        if (st->kind != STEP_SEND && st->kind != STEP_RECV)
            continue;
        rtmpi_req_poll(&st->req);   /* complete: finishes (unpacks) it */
        if (st->req.status.MPI_ERROR && !s->error)
            s->error = st->req.status.MPI_ERROR;
    }
    s->cur = s->end;
}

/* Runs rounds of s while their messages complete at once; returns with a
 * round in flight (its completions will list s again) or s done. */
static void advance(rtmpi_sched_t *s)
{
    s->busy = 1;
    while (!s->done && s->inflight == 0) {
        if (s->cur < s->end)
            end_round(s);
        if (s->post_error || s->cur >= s->nsteps) {
            finish(s, MPI_SUCCESS);
            break;
        }
        start_round(s);   /* a failure to post ends s at the next pass (s->error) */
    }
    s->busy = 0;
}

static void sched_begin(rtmpi_sched_t *s)
{
    static int registered;

    if (!registered) {
        binding_done_register(step_done);
        registered = 1;
    }
    advance(s);
}

int rtmpi_sched_poll(rtmpi_sched_t *s)
{
    return s->done;
}

int rtmpi_sched_error(rtmpi_sched_t *s)
{
    return s->error;
}

/* A nonblocking schedule holds the datatypes and ops of its steps, whose
 * handles the application may free while it runs. */
static void hold(rtmpi_sched_t *s, int on)
{
    for (int i = 0; i < s->nsteps; i++) {
        step_t *st = &s->steps[i];

        if (on) {
            rtmpi_dtype_retain(st->dt);
            rtmpi_dtype_retain(st->rdt);
            rtmpi_op_retain(st->op);
        } else {
            rtmpi_dtype_release(st->dt);
            rtmpi_dtype_release(st->rdt);
            rtmpi_op_release(st->op);
        }
    }
    s->held = on;
}

void rtmpi_sched_free(rtmpi_sched_t *s)
{
    /* done (no message in flight, not listed), or never started */
    if (s->held)
        hold(s, 0);
    for (int i = 0; i < s->ntmps; i++)
        scratch_put(s->tmps[i]);
    if (sched_nfree < SCHED_FREE_MAX) {
        sched_free_list[sched_nfree++] = s;
        return;
    }
    free(s->tmps);
    free(s->steps);
    free(s);
}

int rtmpi_sched_active(void)
{
    return nactive > 0;
}

/* Advances the schedules whose round completed; the others cost nothing. */
int rtmpi_sched_progress_all(void)
{
    int n = 0;

    while (ready_head) {
        rtmpi_sched_t *s = ready_head;

        ready_head = s->next_ready;
        if (!ready_head)
            ready_tail = NULL;
        s->listed = 0;
        if (!s->done && !s->busy && s->inflight == 0) {
            advance(s);
            n++;
        }
    }
    return n;
}

int rtmpi_sched_run(rtmpi_sched_t *s)
{
    unsigned polls = 0;
    int err;

    if (s->build_error) {
        err = s->build_error;
        rtmpi_sched_free(s);
        return err;
    }
    running = s;
    sched_begin(s);
    while (!s->done) {
        rtmpi_progress();
        binding_idle(++polls);   /* yields only on an oversubscribed host (RTM_IDLE_WAIT) */
    }
    running = NULL;
    err = s->error;
    rtmpi_sched_free(s);
    return err;
}

int rtmpi_sched_start(rtmpi_sched_t *s, MPI_Request *request)
{
    rtmpi_request_t *r;

    if (s->build_error) {
        int err = s->build_error;

        rtmpi_sched_free(s);
        return err;
    }
    r = rtmpi_req_alloc(RTMPI_REQ_COLL, s->comm);
    if (!r) {
        rtmpi_sched_free(s);
        return MPI_ERR_NO_MEM;
    }
    r->sched = s;
    hold(s, 1);
    if (rtmpi_handle_new(r, request) != MPI_SUCCESS) {
        rtmpi_req_release(r);   /* frees s too */
        return MPI_ERR_NO_MEM;
    }
    s->nonblocking = 1;
    nactive++;
    sched_begin(s);   /* post the first round now */
    return MPI_SUCCESS;
}

int rtmpi_sched_describe_running(char *buf, size_t len, int *peer_world_p)
{
    const rtmpi_sched_t *s = running;

    if (s == NULL || s->nsteps == 0 || s->cur >= s->nsteps)
        return 0;
    for (int i = s->cur; i < s->nsteps && s->steps[i].round == s->steps[s->cur].round; i++) {
        const step_t *st = &s->steps[i];

        if ((st->kind != STEP_SEND && st->kind != STEP_RECV) || step_complete(st))
            continue;
        /* An intercommunicator's schedule runs on its bridge: its peers are
         * bridge ranks, which the user never sees; name them in the group
         * the user knows them by (intercomm.h: side 0's ranks first). */
        const rtmpi_comm_t *c = rtmpi_comm_get(s->comm);
        const char *group = "";
        int shown = st->peer;
        if (c != NULL && c->inter != NULL) {
            int low = c->inter->low_size, in_low = st->peer < low;

            shown = in_low ? st->peer : st->peer - low;
            group = in_low == !c->inter->side ? "local " : "remote ";
        }
        snprintf(buf, len, "schedule round %d of %d: %s %srank %d (tag %d)",
                 st->round + 1, s->steps[s->nsteps - 1].round + 1,
                 st->kind == STEP_SEND ? "send to" : "receive from", group, shown, s->tag);
        if (rtm_comm_world_rank(s->ncomm, st->peer, peer_world_p) != RTM_OK)
            *peer_world_p = -1;
        return 1;
    }
    snprintf(buf, len, "schedule round %d of %d", s->steps[s->cur].round + 1,
             s->steps[s->nsteps - 1].round + 1);
    *peer_world_p = -1;
    return 1;
}
