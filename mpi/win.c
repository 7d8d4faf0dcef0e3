/*
 * Window objects: creation (Win_create, Win_allocate, Win_allocate_shared,
 * Win_create_dynamic), attach/detach, Win_free, and what a window carries
 * (group, name, info, error handler, attributes). The communication and
 * synchronization calls are in rma.c; win_impl.h describes the design.
 */
#include "config.h"

#include "win_impl.h"
#include "intercomm.h"
#include "common/log.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <unistd.h>

rtmpi_win_t **rtmpi_wins;
int rtmpi_nwins = 1;   /* 0 is MPI_WIN_NULL */
static int wins_cap;

int MPI_WIN_DUP_FN(MPI_Win oldwin, int win_keyval, void *extra_state, void *attribute_val_in,
                   void *attribute_val_out, int *flag)
{
    (void)oldwin; (void)win_keyval; (void)extra_state;
    *(void **)attribute_val_out = attribute_val_in;
    *flag = 1;
    return MPI_SUCCESS;
}

#define GET_WIN(_win, _w) \
    rtmpi_win_t *_w = rtmpi_win_get(_win); \
    if (!_w) \
        return rtmpi_error(MPI_COMM_NULL, __func__, MPI_ERR_WIN, "invalid window %d", (_win))

static int handle_new(rtmpi_win_t *w)
{
    for (int i = 1; i < rtmpi_nwins; i++)
        if (!rtmpi_wins[i]) {
            rtmpi_wins[i] = w;
            w->handle = i;
            return MPI_SUCCESS;
        }
    if (rtmpi_nwins >= wins_cap) {
        int cap = wins_cap ? wins_cap * 2 : 16;
        rtmpi_win_t **t = realloc(rtmpi_wins, (size_t)cap * sizeof(*t));

        if (!t)
            return MPI_ERR_NO_MEM;
        memset(t + wins_cap, 0, (size_t)(cap - wins_cap) * sizeof(*t));
        rtmpi_wins = t;
        wins_cap = cap;
    }
    rtmpi_wins[rtmpi_nwins] = w;
    w->handle = rtmpi_nwins++;
    return MPI_SUCCESS;
}

static void rdma_release(rtmpi_win_t *w)
{
    if (w->rreg)
        binding_rma_revoke(w->rreg);
    w->rreg = NULL;
    if (w->lreg)
        binding_rma_revoke(w->lreg);   /* before its word is freed */
    w->lreg = NULL;
    free(w->lockw);
    free(w->lkeys);
    w->lockw = NULL;
    w->lkeys = NULL;
    w->hca_locks = 0;
    free(w->rkeys);
    free(w->rrights);
    free(w->rdirty);
    free(w->acc_msg);
    w->rkeys = NULL;
    w->rrights = NULL;
    w->rdirty = NULL;
    w->acc_msg = NULL;
    w->nrdirty = 0;
    w->hca_atomic = 0;
}

static void win_destroy(rtmpi_win_t *w)
{
    rdma_release(w);
    if (w->handle > 0 && w->handle < rtmpi_nwins && rtmpi_wins[w->handle] == w)
        rtmpi_wins[w->handle] = NULL;
    if (w->hcomm != MPI_COMM_NULL)
        PMPI_Comm_free(&w->hcomm);
    if (w->info != MPI_INFO_NULL)
        PMPI_Info_free(&w->info);
    rtmpi_errhandler_release(w->errhandler);
    if (w->shm)
        munmap(w->shm, w->shm_len);
    free(w->alloc);
    free(w->sizes);
    free(w->disp_units);
    free(w->shm_off);
    free(w->dbase);
    free(w->dctl);
    free(w->regions);
    free(w->waiters);
    free(w->expose);
    free(w->range_errs);
    free(w->seq);
    free(w->fseq);
    free(w->issued);
    free(w->locked);
    free(w->lock_nocheck);
    free(w->access);
    free(w->in_access);
    free(w->pend);
    free(w->sends);
    free(w);
}

/* The collective part every constructor shares: checks, the hidden
 * communicator, everyone's size and disp_unit. On error *wp is NULL and
 * the error was raised on comm. */
static void rdma_setup(rtmpi_win_t *w, MPI_Info info);

static int win_new(const char *fn, MPI_Comm comm, MPI_Aint size, int disp_unit, MPI_Info info,
                   int flavor, rtmpi_win_t **wp)
{
    rtmpi_comm_t *c = rtmpi_comm_get(comm);
    rtm_comm_t n;
    rtm_status_t st;
    int rc;

    *wp = NULL;
    if (!c)
        return rtmpi_error(MPI_COMM_NULL, fn, MPI_ERR_COMM, "invalid communicator %d", comm);
    if (c->inter)
        return rtmpi_error(comm, fn, MPI_ERR_COMM,
                           "a window needs an intracommunicator (comm %d is an "
                           "intercommunicator)", comm);
    if (size < 0)
        return rtmpi_error(comm, fn, MPI_ERR_SIZE, "size %ld is negative", (long)size);
    if (disp_unit <= 0)
        return rtmpi_error(comm, fn, MPI_ERR_DISP, "disp_unit %d is not positive", disp_unit);

    rtmpi_win_t *w = calloc(1, sizeof(*w));
    if (!w)
        return rtmpi_error(comm, fn, MPI_ERR_NO_MEM, "out of memory for a window");
    w->hcomm = MPI_COMM_NULL;
    w->info = MPI_INFO_NULL;
    w->flavor = flavor;
    w->win_size = size;
    w->disp_unit = disp_unit;
    w->model = MPI_WIN_UNIFIED;
    w->lock_excl = -1;
    w->nexpose = -1;
    w->naccess = -1;
    w->errhandler = MPI_ERRORS_ARE_FATAL;   /* MPI 3.1 8.3: windows' default */
    /* The hidden communicator: the native duplicate (its own context) with
     * none of comm's attributes, errors returned to this file. */
    st = rtm_comm_dup(c->pt2pt, &n);
    if (st != RTM_OK) {
        free(w);
        return rtmpi_error_rtm(comm, fn, st);
    }
    if ((rc = rtmpi_comm_wrap(n, fn, MPI_COMM_NULL, &w->hcomm))) {
        free(w);
        return rtmpi_error(comm, fn, rc, "cannot create the window's communicator");
    }
    rtmpi_comm_t *hc = rtmpi_comm_get(w->hcomm);
    hc->errhandler = MPI_ERRORS_RETURN;   /* predefined: not counted */
    snprintf(hc->name, sizeof(hc->name), "window of comm %d", comm);
    w->nc = hc->pt2pt;
    w->rank = hc->rank;
    w->size = hc->size;
    int p = w->size;
    w->sizes = malloc((size_t)p * sizeof(*w->sizes));
    w->disp_units = malloc((size_t)p * sizeof(*w->disp_units));
    w->seq = calloc((size_t)p, sizeof(*w->seq));
    w->fseq = calloc((size_t)p, sizeof(*w->fseq));
    w->issued = calloc((size_t)p, sizeof(*w->issued));
    w->locked = calloc((size_t)p, sizeof(*w->locked));
    w->lock_nocheck = calloc((size_t)p, sizeof(*w->lock_nocheck));
    w->access = calloc((size_t)p, sizeof(*w->access));
    w->in_access = calloc((size_t)p, 1);
    w->expose = calloc((size_t)p, sizeof(*w->expose));
    w->range_errs = calloc((size_t)p, sizeof(*w->range_errs));
    rc = MPI_SUCCESS;
    if (!w->sizes || !w->disp_units || !w->seq || !w->fseq || !w->issued || !w->locked ||
        !w->lock_nocheck || !w->access || !w->in_access || !w->expose || !w->range_errs)
        rc = MPI_ERR_NO_MEM;
    if (info != MPI_INFO_NULL && rc == MPI_SUCCESS && PMPI_Info_dup(info, &w->info))
        rc = MPI_ERR_INFO;
    /* Everyone learns of a failure here, so no rank is left with half a
     * window. */
    int bad = rc != MPI_SUCCESS, anybad = 0;
    if (PMPI_Allreduce(&bad, &anybad, 1, MPI_INT, MPI_MAX, w->hcomm) || anybad) {
        win_destroy(w);
        return rtmpi_error(comm, fn, rc ? rc : MPI_ERR_OTHER,
                           rc ? "cannot create the window here" :
                                "another rank could not create the window");
    }
    MPI_Aint mine[2] = { size, disp_unit };
    MPI_Aint *all = malloc((size_t)p * 2 * sizeof(*all));
    if (!all || PMPI_Allgather(mine, 2, MPI_AINT, all, 2, MPI_AINT, w->hcomm)) {
        free(all);
        win_destroy(w);
        return rtmpi_error(comm, fn, MPI_ERR_NO_MEM, "exchanging window sizes failed");
    }
    for (int i = 0; i < p; i++) {
        w->sizes[i] = all[2 * i];
        w->disp_units[i] = (int)all[2 * i + 1];
    }
    free(all);
    *wp = w;
    return MPI_SUCCESS;
}

/* Makes w a window with a handle and starts serving it (collective: every
 * rank gets here). */
static int win_finish(const char *fn, MPI_Comm comm, rtmpi_win_t *w, MPI_Win *win)
{
    int rc = handle_new(w);

    if (rc == MPI_SUCCESS)
        rc = rtmpi_rma_win_start(w);
    if (rc) {
        win_destroy(w);
        return rtmpi_error(comm, fn, rc, "out of memory for the window");
    }
    w->in_use = 1;
    w->name[0] = '\0';   /* MPI 3.1 6.8: no name until MPI_Win_set_name */
    *win = w->handle;
    /* Nobody's operations may reach a window not served yet. */
    rc = PMPI_Barrier(w->hcomm);
    return rc ? rtmpi_error(comm, fn, rc, "synchronizing the window's creation failed")
              : MPI_SUCCESS;
}

int PMPI_Win_create(void *base, MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm,
                    MPI_Win *win)
{
    rtmpi_win_t *w;
    int rc;

    RTMPI_ENTER();
    if (!win)
        return rtmpi_error(comm, __func__, MPI_ERR_ARG, "win is NULL");
    *win = MPI_WIN_NULL;
    if (size > 0 && !base)
        return rtmpi_error(comm, __func__, MPI_ERR_BASE, "base is NULL for %ld bytes",
                           (long)size);
    if ((rc = win_new(__func__, comm, size, disp_unit, info, MPI_WIN_FLAVOR_CREATE, &w)))
        return rc;
    w->base = base;
    rdma_setup(w, info);
    return win_finish(__func__, comm, w, win);
}
RTMPI_WEAK(Win_create)

static int info_is(MPI_Info info, const char *key, const char *val)
{
    char v[16];
    int flag = 0;

    if (info == MPI_INFO_NULL)
        return 0;
    if (PMPI_Info_get(info, key, (int)sizeof(v) - 1, v, &flag) || !flag)
        return 0;
    return !strcmp(v, val);
}

static int info_true(MPI_Info info, const char *key)
{
    return info_is(info, key, "true");
}

static int info_false(MPI_Info info, const char *key)
{
    return info_is(info, key, "false");
}

static int seg_map(rtmpi_win_t *w, MPI_Comm ncomm, size_t align);

/* The rights a rank exposes its part of a window with: read (Get), write
 * (Put) and atomic (accumulates of 8-byte elements in an HCA-atomic window,
 * see rdma_setup and docs/mpi.md; the transport grants it only where the
 * device has atomics, the runtime asks again without it otherwise).
 * Info key rtmsg_win_rdma narrows them: "read" (Puts to this rank then go
 * by messages), "write", or "false" (no exposure: every operation to this
 * rank is a message); with any of them no atomic right, so the window's
 * accumulates are messages. */
static unsigned rdma_rights(MPI_Info info)
{
    if (info_false(info, "rtmsg_win_rdma"))
        return 0;
    if (info_is(info, "rtmsg_win_rdma", "read"))
        return RTM_RMA_READ;
    if (info_is(info, "rtmsg_win_rdma", "write"))
        return RTM_RMA_WRITE;
    return RTM_RMA_READ | RTM_RMA_WRITE | RTM_RMA_ATOMIC;
}

/* A rank's keys for one peer, as they travel (len 0: none, use messages):
 * its part of the window, and its lock word. */
typedef struct rdma_keymsg {
    uint32_t      len;
    uint32_t      llen;
    unsigned char blob[RTM_RMA_KEY_MAX];
    unsigned char lblob[RTM_RMA_KEY_MAX];
} rdma_keymsg_t;

/* This rank's key for its own region reg (its part, its lock word), through
 * its transport's loopback endpoint; left zeroed (no rights) without one. */
static void own_key(rtmpi_win_t *w, rtm_rma_region_t reg, rtm_rma_key_t *key)
{
    unsigned char blob[RTM_RMA_KEY_MAX];
    size_t len = sizeof(blob);

    if (reg && (binding_rma_key_pack(reg, w->rank, blob, &len) != RTM_OK ||
                binding_rma_key_unpack(w->nc, w->rank, blob, len, key) != RTM_OK))
        rtm_debug("a window: rank %d reaches its own memory through no device (%s)",
                  w->rank, rtm_last_error());
}

/* Collective over the window, at the end of rdma_setup (ok: this rank's
 * keys are all in): whether the window is HCA-atomic and has HCA lock words
 * (win_impl.h), one allreduce. This rank's own keys go to itself, so its
 * own accumulates and locks go through the device as the others' do. A
 * rank whose part is empty needs no key for it: no operation may reach it;
 * every rank has a lock word. */
static void hca_setup(rtmpi_win_t *w, int ok)
{
    int mine[2], all[2] = { 0, 0 };

    w->hca_atomic = 0;
    w->hca_locks = 0;
    if (ok) {
        own_key(w, w->rreg, &w->rkeys[w->rank]);
        own_key(w, w->lreg, &w->lkeys[w->rank]);
    }
    mine[0] = ok && !w->dctl;
    mine[1] = ok && w->lreg;
    for (int r = 0; r < w->size; r++) {
        if (w->sizes[r] > 0 && !(w->rkeys[r].rights & RTM_RMA_ATOMIC))
            mine[0] = 0;
        if (!(w->lkeys[r].rights & RTM_RMA_ATOMIC))
            mine[1] = 0;
    }
    if (PMPI_Allreduce(mine, all, 2, MPI_INT, MPI_MIN, w->hcomm) == MPI_SUCCESS) {
        w->hca_atomic = all[0];
        w->hca_locks = all[1];
    }
    w->acc_unordered = info_is(w->info, "accumulate_ordering", "none");
    rtm_debug("a window: rank %d: accumulates of 8-byte elements %s; locks %s", w->rank,
              w->hca_atomic ? "by the device's atomics (HCA-atomic window)" : "by messages",
              w->hca_locks ? "by the device's atomics on lock words (HCA locks)"
                           : "by messages");
}

/* Collective over the window (every rank, the same windows in the same
 * order, as MPI has them created): exposes this rank's part [base,
 * base+win_size) to the ranks of the window (binding_rma_expose, with the
 * rights of rdma_rights), packs one key per peer and sends each peer only
 * its own, point-to-point on the hidden communicator, so no rank outside
 * the window ever holds one; unpacks the key every peer sent for this
 * rank. A peer without a key (its transport has no one-sided operations,
 * the transport refused, the peer's info said so) is reached by messages.
 * Never fails the window: what does not work here falls back to messages. */
static void rdma_setup(rtmpi_win_t *w, MPI_Info info)
{
    int p = w->size, ok, allok = 0;
    unsigned rights = rdma_rights(info);
    rdma_keymsg_t *out = NULL, *in = NULL;
    rtm_request_t *reqs = NULL;

    if (p == 1)
        return;
    w->rkeys = calloc((size_t)p, sizeof(*w->rkeys));
    w->rrights = calloc((size_t)p, 1);
    w->rdirty = calloc((size_t)p, 1);
    w->acc_msg = calloc((size_t)p, 1);
    w->lkeys = calloc((size_t)p, sizeof(*w->lkeys));
    out = calloc((size_t)p, sizeof(*out));
    in = calloc((size_t)p, sizeof(*in));
    reqs = malloc((size_t)(2 * p) * sizeof(*reqs));
    ok = w->rkeys && w->rrights && w->rdirty && w->acc_msg && w->lkeys && out && in && reqs;
    /* every rank sends every peer one message, or none does */
    if (PMPI_Allreduce(&ok, &allok, 1, MPI_INT, MPI_MIN, w->hcomm) || !allok)
        goto off;
    if (rights && w->win_size > 0 && w->base) {
        rtm_status_t st = binding_rma_expose(w->nc, w->base, (size_t)w->win_size, rights,
                                             &w->rreg);

        if (st != RTM_OK) {
            rtm_debug("a window: rank %d exposes nothing (%s); its peers use messages",
                      w->rank, rtm_last_error());
            w->rreg = NULL;
        }
    }
    /* the lock word: atomics only, whatever the part's size */
    if ((rights & RTM_RMA_ATOMIC) && (w->lockw = aligned_alloc(64, 64)) != NULL) {
        memset(w->lockw, 0, 64);
        if (binding_rma_expose(w->nc, w->lockw, 64, RTM_RMA_ATOMIC, &w->lreg) != RTM_OK) {
            rtm_debug("a window: rank %d exposes no lock word (%s); locks by messages",
                      w->rank, rtm_last_error());
            w->lreg = NULL;
        }
    }
    for (int r = 0; r < p; r++) {
        size_t len = sizeof(out[r].blob), llen = sizeof(out[r].lblob);

        if (r != w->rank && w->rreg &&
            binding_rma_key_pack(w->rreg, r, out[r].blob, &len) == RTM_OK)
            out[r].len = (uint32_t)len;
        if (r != w->rank && w->lreg &&
            binding_rma_key_pack(w->lreg, r, out[r].lblob, &llen) == RTM_OK)
            out[r].llen = (uint32_t)llen;
    }
    int n = 0;
    for (int r = 0; r < p; r++)
        if (r != w->rank && rtm_irecv(&in[r], sizeof(in[r]), r, RMA_TAG_KEY, w->nc,
                                      &reqs[n++]) != RTM_OK)
            reqs[n - 1] = RTM_REQUEST_NULL, ok = 0;
    for (int r = 0; r < p; r++)
        if (r != w->rank && rtm_isend(&out[r], sizeof(out[r]), r, RMA_TAG_KEY, w->nc,
                                      &reqs[n++]) != RTM_OK)
            reqs[n - 1] = RTM_REQUEST_NULL, ok = 0;
    /* other windows' targets keep being served while this one is made */
    for (int i = 0, polls = 0; i < n; i++) {
        int flag = 0;

        while (reqs[i] != RTM_REQUEST_NULL && !flag &&
               rtm_test(&reqs[i], &flag, RTM_STATUS_IGNORE) == RTM_OK && !flag) {
            if (rtmpi_progress() > 0)
                polls = 0;
            else
                binding_idle((unsigned long)++polls);
        }
    }
    for (int r = 0; r < p && ok; r++) {
        if (r != w->rank && in[r].llen > 0 && in[r].llen <= sizeof(in[r].lblob) &&
            binding_rma_key_unpack(w->nc, r, in[r].lblob, in[r].llen, &w->lkeys[r]) != RTM_OK)
            memset(&w->lkeys[r], 0, sizeof(w->lkeys[r]));   /* locks by messages */
        if (r == w->rank || in[r].len == 0 || in[r].len > sizeof(in[r].blob))
            continue;
        if (binding_rma_key_unpack(w->nc, r, in[r].blob, in[r].len, &w->rkeys[r]) == RTM_OK)
            w->rrights[r] = (unsigned char)(w->rkeys[r].rights &
                                            (RTM_RMA_READ | RTM_RMA_WRITE));
        else
            rtm_debug("a window: rank %d's key for rank %d: %s; messages", r, w->rank,
                      rtm_last_error());
    }
    hca_setup(w, ok);
    free(out);
    free(in);
    free(reqs);
    return;
off:
    free(out);
    free(in);
    free(reqs);
    rdma_release(w);
}

/* Whether this rank shares memory with the others of its host: the
 * runtime opened its shm transport (RTM_TRANSPORTS lists it and another
 * rank of the job is here). Without it, as over a network, every one-sided
 * operation is a message; the tcp and verbs tests rely on that. */
static int shm_allowed(void)
{
    return binding_tl_open("shm");
}

int PMPI_Win_allocate(MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm, void *baseptr,
                      MPI_Win *win)
{
    rtmpi_win_t *w;
    int rc;

    RTMPI_ENTER();
    if (!win || !baseptr)
        return rtmpi_error(comm, __func__, MPI_ERR_ARG, "win or baseptr is NULL");
    *win = MPI_WIN_NULL;
    if ((rc = win_new(__func__, comm, size, disp_unit, info, MPI_WIN_FLAVOR_ALLOCATE, &w)))
        return rc;
    /* The window's ranks on this host share one segment, so their
     * operations on each other are loads, stores and atomics; ranks on
     * other hosts (and ranks that gave info rtmsg_win_shm=false) go by
     * messages. Without a segment (one rank here, or no shm) the memory is
     * the process's own. */
    int node = 0, nsize = 0;
    MPI_Comm ncomm = MPI_COMM_NULL;
    int join = !info_false(info, "rtmsg_win_shm") && shm_allowed() &&
               rtm_world_node(rtmpi_state.world_rank, &node) == RTM_OK;
    if (PMPI_Comm_split(w->hcomm, join ? node : MPI_UNDEFINED, w->rank, &ncomm)) {
        win_destroy(w);
        return rtmpi_error(comm, __func__, MPI_ERR_OTHER, "cannot group the window's ranks "
                           "by host");
    }
    if (ncomm != MPI_COMM_NULL) {
        PMPI_Comm_size(ncomm, &nsize);
        if (nsize > 1)
            seg_map(w, ncomm, 64);   /* on failure: private memory, messages */
        PMPI_Comm_free(&ncomm);
    }
    if (!w->shm && size > 0) {
        /* Aligned for any basic type and for a later RDMA registration. */
        if (posix_memalign(&w->alloc, 64, (size_t)size)) {
            /* The others wait in win_finish's barrier: end the job rather
             * than leave them there. */
            win_destroy(w);
            return rtmpi_error(MPI_COMM_NULL, __func__, MPI_ERR_NO_MEM,
                               "cannot allocate %ld bytes for the window", (long)size);
        }
        memset(w->alloc, 0, (size_t)size);
        w->base = w->alloc;
    }
    /* The ranks outside this host's segment reach this part by RDMA where
     * their transport can (all in it: every operation is direct). */
    if (!w->all_local)
        rdma_setup(w, info);
    *(void **)baseptr = w->base;
    return win_finish(__func__, comm, w, win);
}
RTMPI_WEAK(Win_allocate)

/* One POSIX shm segment for the window's ranks in ncomm (all on this
 * host; ncomm's order is the window's): their parts in that order (each
 * part's start rounded up to `align` bytes), then one control block per
 * rank. Rank 0 of ncomm creates it under a random name it broadcasts,
 * everyone maps it, and the name is unlinked once all have, so nothing
 * outlives the job. Collective over ncomm; everyone gets the same result.
 * Sets shm, shm_len, dbase, dctl, ctl (and shm_off, indexed by window
 * rank, for allocate_shared's query). */
static int seg_map(rtmpi_win_t *w, MPI_Comm ncomm, size_t align)
{
    int p = w->size, np = 0, nr = 0, rc = MPI_ERR_NO_MEM;
    size_t total = 0;
    int *hr = NULL;
    size_t *off = NULL;

    PMPI_Comm_size(ncomm, &np);
    PMPI_Comm_rank(ncomm, &nr);
    hr = malloc((size_t)np * sizeof(*hr));
    off = malloc((size_t)np * sizeof(*off));
    w->shm_off = calloc((size_t)p, sizeof(*w->shm_off));
    w->dbase = calloc((size_t)p, sizeof(*w->dbase));
    w->dctl = calloc((size_t)p, sizeof(*w->dctl));
    int ok = hr && off && w->shm_off && w->dbase && w->dctl, allok = 0;
    if (PMPI_Allreduce(&ok, &allok, 1, MPI_INT, MPI_MIN, ncomm) || !allok)
        goto out;
    rc = MPI_ERR_OTHER;
    if (PMPI_Allgather(&w->rank, 1, MPI_INT, hr, 1, MPI_INT, ncomm))
        goto out;
    /* The sizes come from the users of every rank: a sum past what a
     * mapping (and off_t) can hold is MPI_ERR_SIZE, never a wrapped, small
     * mapping that direct operations would write past. Every rank has the
     * same sizes, so every rank decides the same. */
    size_t ctl_off = 0;
    int wraps = 0;
    for (int i = 0; i < np; i++) {
        wraps |= __builtin_add_overflow(total, align - 1, &total);
        total = total / align * align;
        off[i] = total;
        wraps |= __builtin_add_overflow(total, (size_t)w->sizes[hr[i]], &total);
    }
    wraps |= __builtin_add_overflow(total, (size_t)63, &ctl_off);
    ctl_off &= ~(size_t)63;
    wraps |= __builtin_add_overflow(ctl_off, (size_t)np * sizeof(rma_ctl_t), &total);
    if (wraps || total > (size_t)INT64_MAX) {
        rc = MPI_ERR_SIZE;
        goto out;
    }

    char name[64];
    unsigned long long nonce = 0;
    int fd = -1;

    /* Unpredictable, so no other local user can take the name first (O_EXCL
     * would then refuse the window); the kernel's generator, not the pid or
     * the clock. */
    ok = 1;
    if (nr == 0 && getrandom(&nonce, sizeof(nonce), 0) != (ssize_t)sizeof(nonce))
        ok = 0;
    if (PMPI_Bcast(&nonce, 1, MPI_UNSIGNED_LONG_LONG, 0, ncomm))
        goto out;
    snprintf(name, sizeof(name), "/rtmpi-win-%llx", nonce);
    if (nr == 0 && ok) {
        /* posix_fallocate reserves the pages: a full /dev/shm refuses
         * the segment here (MPI_Win_allocate then falls back to private
         * memory) instead of a SIGBUS at the first touch. */
        fd = shm_open(name, O_CREAT | O_EXCL | O_RDWR, 0600);
        if (fd < 0 || ftruncate(fd, (off_t)total) != 0 ||
            posix_fallocate(fd, 0, (off_t)total) != 0)
            ok = 0;
    }
    rc = MPI_ERR_RMA_SHARED;
    if (PMPI_Bcast(&ok, 1, MPI_INT, 0, ncomm) || !ok) {
        if (fd >= 0) {
            close(fd);
            shm_unlink(name);
        }
        goto out;
    }
    if (nr != 0 && (fd = shm_open(name, O_RDWR, 0600)) < 0)
        ok = 0;
    if (ok) {
        /* ftruncate's pages read as zeros: the window starts zeroed, the
         * lock words free. */
        void *m = mmap(NULL, total, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);

        if (m == MAP_FAILED) {
            ok = 0;
        } else {
            w->shm = m;
            w->shm_len = total;
        }
    }
    if (fd >= 0)
        close(fd);
    if (PMPI_Allreduce(&ok, &allok, 1, MPI_INT, MPI_MIN, ncomm))
        allok = 0;
    if (nr == 0)
        shm_unlink(name);
    if (!allok)
        goto out;
    for (int i = 0; i < np; i++) {
        w->shm_off[hr[i]] = (MPI_Aint)off[i];
        w->dbase[hr[i]] = (char *)w->shm + off[i];
        w->dctl[hr[i]] = (rma_ctl_t *)(void *)((char *)w->shm + ctl_off) + i;
    }
    w->ctl = w->dctl[w->rank];
    w->base = w->dbase[w->rank];
    w->all_local = np == p;
    rc = MPI_SUCCESS;
out:
    free(hr);
    free(off);
    {
        /* Every rank of ncomm ends with the same outcome and error: a
         * collective above that failed at one rank only (or this agreement
         * itself failing here) must not leave the others using the segment
         * as if it had one more member. The error codes are positive, so
         * the greatest is any rank's failure, the same on all. */
        int mine = rc, worst = 0;

        if (PMPI_Allreduce(&mine, &worst, 1, MPI_INT, MPI_MAX, ncomm))
            worst = rc ? rc : MPI_ERR_OTHER;
        rc = worst;
    }
    if (rc) {
        if (w->shm)
            munmap(w->shm, w->shm_len);
        w->shm = NULL;
        w->shm_len = 0;
        free(w->dbase);
        free(w->dctl);
        free(w->shm_off);
        w->dbase = NULL;
        w->dctl = NULL;
        w->shm_off = NULL;
        w->ctl = NULL;
        w->all_local = 0;
    }
    return rc;
}

int PMPI_Win_allocate_shared(MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm,
                             void *baseptr, MPI_Win *win)
{
    rtmpi_win_t *w;
    rtmpi_comm_t *c;
    int rc;

    RTMPI_ENTER();
    if (!win || !baseptr)
        return rtmpi_error(comm, __func__, MPI_ERR_ARG, "win or baseptr is NULL");
    *win = MPI_WIN_NULL;
    if (!(c = rtmpi_comm_get(comm)))
        return rtmpi_error(MPI_COMM_NULL, __func__, MPI_ERR_COMM, "invalid communicator %d",
                           comm);
    if (!c->inter) {
        /* Every rank must share this host's memory. */
        MPI_Comm sc;
        int ssize = 0;

        if ((rc = PMPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &sc)))
            return rc;
        PMPI_Comm_size(sc, &ssize);
        PMPI_Comm_free(&sc);
        if (ssize != c->size)
            return rtmpi_error(comm, __func__, MPI_ERR_RMA_SHARED,
                               "the ranks of comm %d are on more than one host (%d of %d "
                               "here)", comm, ssize, c->size);
    }
    if ((rc = win_new(__func__, comm, size, disp_unit, info, MPI_WIN_FLAVOR_SHARED, &w)))
        return rc;
    if ((rc = seg_map(w, w->hcomm, info_true(info, "alloc_shared_noncontig") ? 4096 : 1))) {
        win_destroy(w);
        return rtmpi_error(comm, __func__, rc, "cannot map the shared window's memory");
    }
    *(void **)baseptr = w->base;
    return win_finish(__func__, comm, w, win);
}
RTMPI_WEAK(Win_allocate_shared)

int PMPI_Win_shared_query(MPI_Win win, int rank, MPI_Aint *size, int *disp_unit, void *baseptr)
{
    RTMPI_ENTER();
    GET_WIN(win, w);
    if (w->flavor != MPI_WIN_FLAVOR_SHARED)
        return WIN_ERR(w, __func__, MPI_ERR_RMA_FLAVOR,
                       "window %d was not made by MPI_Win_allocate_shared", win);
    if (!size || !disp_unit || !baseptr)
        return WIN_ERR(w, __func__, MPI_ERR_ARG, "size, disp_unit or baseptr is NULL");
    if (rank == MPI_PROC_NULL) {
        /* The first rank with memory (MPI 3.1 11.2.3). */
        rank = 0;
        for (int i = 0; i < w->size; i++)
            if (w->sizes[i] > 0) {
                rank = i;
                break;
            }
    } else if (rank < 0 || rank >= w->size) {
        return WIN_ERR(w, __func__, MPI_ERR_RANK, "rank %d is not in window %d of %d ranks",
                       rank, win, w->size);
    }
    *size = w->sizes[rank];
    *disp_unit = w->disp_units[rank];
    *(void **)baseptr = w->dbase && w->sizes[rank] > 0 ? w->dbase[rank] : NULL;
    return MPI_SUCCESS;
}
RTMPI_WEAK(Win_shared_query)

int PMPI_Win_create_dynamic(MPI_Info info, MPI_Comm comm, MPI_Win *win)
{
    rtmpi_win_t *w;
    int rc;

    RTMPI_ENTER();
    if (!win)
        return rtmpi_error(comm, __func__, MPI_ERR_ARG, "win is NULL");
    *win = MPI_WIN_NULL;
    if ((rc = win_new(__func__, comm, 0, 1, info, MPI_WIN_FLAVOR_DYNAMIC, &w)))
        return rc;
    w->base = MPI_BOTTOM;
    return win_finish(__func__, comm, w, win);
}
RTMPI_WEAK(Win_create_dynamic)

int PMPI_Win_attach(MPI_Win win, void *base, MPI_Aint size)
{
    RTMPI_ENTER();
    GET_WIN(win, w);
    if (w->flavor != MPI_WIN_FLAVOR_DYNAMIC)
        return WIN_ERR(w, __func__, MPI_ERR_RMA_FLAVOR,
                       "window %d was not made by MPI_Win_create_dynamic", win);
    if (size < 0)
        return WIN_ERR(w, __func__, MPI_ERR_SIZE, "size %ld is negative", (long)size);
    if (!base && size > 0)
        return WIN_ERR(w, __func__, MPI_ERR_RMA_ATTACH, "base is NULL");
    uintptr_t b = (uintptr_t)base;
    for (int i = 0; i < w->nregions; i++)
        if (b < w->regions[i].base + (uintptr_t)w->regions[i].len &&
            w->regions[i].base < b + (uintptr_t)size)
            return WIN_ERR(w, __func__, MPI_ERR_RMA_ATTACH,
                           "[%p, +%ld) overlaps memory already attached", base, (long)size);
    if (w->nregions == w->regions_cap) {
        int cap = w->regions_cap ? 2 * w->regions_cap : 8;
        rma_region_t *t = realloc(w->regions, (size_t)cap * sizeof(*t));

        if (!t)
            return WIN_ERR(w, __func__, MPI_ERR_NO_MEM, "out of memory");
        w->regions = t;
        w->regions_cap = cap;
    }
    w->regions[w->nregions].base = b;
    w->regions[w->nregions].len = size;
    w->nregions++;
    return MPI_SUCCESS;
}
RTMPI_WEAK(Win_attach)

int PMPI_Win_detach(MPI_Win win, const void *base)
{
    RTMPI_ENTER();
    GET_WIN(win, w);
    if (w->flavor != MPI_WIN_FLAVOR_DYNAMIC)
        return WIN_ERR(w, __func__, MPI_ERR_RMA_FLAVOR,
                       "window %d was not made by MPI_Win_create_dynamic", win);
    for (int i = 0; i < w->nregions; i++)
        if (w->regions[i].base == (uintptr_t)base) {
            w->regions[i] = w->regions[--w->nregions];
            return MPI_SUCCESS;
        }
    return WIN_ERR(w, __func__, MPI_ERR_RMA_ATTACH,
                   "%p is not the base of memory attached to window %d", base, win);
}
RTMPI_WEAK(Win_detach)

/* Collective end of window w: everyone's operations are complete (the
 * program closed its epochs), then nothing is in flight. */
static int win_free(const char *fn, rtmpi_win_t *w)
{
    int rc;

    if ((rc = rtmpi_win_attrs_delete_all(w->handle, &w->attrs)))
        return WIN_ERR(w, fn, rc, "an attribute delete callback failed");
    rtmpi_rma_wait_pend(w, -1);
    int frc = rtmpi_rma_rdma_flush(w, -1);
    rc = PMPI_Barrier(w->hcomm);
    /* Every rank's operations are complete (its epochs are closed, its
     * RDMA flushed): no peer uses this rank's keys any more, so they end
     * now, before MPI_Win_free returns; a peer that used one after this
     * would get a remote access error. */
    if (w->rreg) {
        rtm_status_t st = binding_rma_revoke(w->rreg);

        w->rreg = NULL;
        if (st != RTM_OK && !rc)
            rc = rtmpi_class_of(st);
    }
    if (!rc)
        rc = frc;
    rtmpi_rma_drain(w);
    if (!rc)
        rc = PMPI_Barrier(w->hcomm);
    rtmpi_rma_win_stop(w);
    w->in_use = 0;
    win_destroy(w);
    return rc;
}

int PMPI_Win_free(MPI_Win *win)
{
    RTMPI_ENTER();
    if (!win)
        return rtmpi_error(MPI_COMM_NULL, __func__, MPI_ERR_ARG, "win is NULL");
    GET_WIN(*win, w);
    int held = w->lock_all;
    for (int i = 0; i < w->size && !held; i++)
        held = w->locked[i];
    if (held || w->naccess >= 0 || w->nexpose >= 0)
        return WIN_ERR(w, __func__, MPI_ERR_RMA_SYNC,
                       "window %d still has an open epoch (a lock, or a PSCW access or "
                       "exposure epoch)", *win);
    MPI_Errhandler eh = w->errhandler;
    MPI_Win h = *win;
    int rc = win_free(__func__, w);
    *win = MPI_WIN_NULL;
    return rc ? rtmpi_error_win(h, eh, __func__, rc, "freeing window %d failed", h)
              : MPI_SUCCESS;
}
RTMPI_WEAK(Win_free)

void rtmpi_win_finalize(void)
{
    for (int i = 1; i < rtmpi_nwins; i++)
        if (rtmpi_wins[i] && rtmpi_wins[i]->in_use)
            win_free("MPI_Finalize", rtmpi_wins[i]);
    free(rtmpi_wins);
    rtmpi_wins = NULL;
    rtmpi_nwins = 1;
    wins_cap = 0;
}

int PMPI_Win_get_group(MPI_Win win, MPI_Group *group)
{
    RTMPI_ENTER();
    GET_WIN(win, w);
    if (!group)
        return WIN_ERR(w, __func__, MPI_ERR_ARG, "group is NULL");
    rtmpi_comm_t *hc = rtmpi_comm_get(w->hcomm);
    int rc = rtmpi_group_new(hc->size, hc->world_ranks, group);
    return rc ? WIN_ERR(w, __func__, rc, "out of memory") : MPI_SUCCESS;
}
RTMPI_WEAK(Win_get_group)

int PMPI_Win_set_name(MPI_Win win, const char *win_name)
{
    RTMPI_ENTER();
    GET_WIN(win, w);
    if (!win_name)
        return WIN_ERR(w, __func__, MPI_ERR_ARG, "win_name is NULL");
    snprintf(w->name, sizeof(w->name), "%s", win_name);
    return MPI_SUCCESS;
}
RTMPI_WEAK(Win_set_name)

int PMPI_Win_get_name(MPI_Win win, char *win_name, int *resultlen)
{
    RTMPI_ENTER();
    GET_WIN(win, w);
    if (!win_name || !resultlen)
        return WIN_ERR(w, __func__, MPI_ERR_ARG, "win_name or resultlen is NULL");
    snprintf(win_name, MPI_MAX_OBJECT_NAME, "%s", w->name);
    *resultlen = (int)strlen(win_name);
    return MPI_SUCCESS;
}
RTMPI_WEAK(Win_get_name)

int PMPI_Win_set_errhandler(MPI_Win win, MPI_Errhandler errhandler)
{
    RTMPI_ENTER();
    GET_WIN(win, w);
    if (!rtmpi_errhandler_valid(errhandler))
        return WIN_ERR(w, __func__, MPI_ERR_ARG, "invalid error handler %d", errhandler);
    rtmpi_errhandler_retain(errhandler);
    rtmpi_errhandler_release(w->errhandler);
    w->errhandler = errhandler;
    return MPI_SUCCESS;
}
RTMPI_WEAK(Win_set_errhandler)

/* A new reference, as MPI_Comm_get_errhandler hands out. */
int PMPI_Win_get_errhandler(MPI_Win win, MPI_Errhandler *errhandler)
{
    RTMPI_ENTER();
    GET_WIN(win, w);
    if (!errhandler)
        return WIN_ERR(w, __func__, MPI_ERR_ARG, "errhandler is NULL");
    rtmpi_errhandler_retain(w->errhandler);
    *errhandler = w->errhandler;
    return MPI_SUCCESS;
}
RTMPI_WEAK(Win_get_errhandler)

/* Window and communicator handlers share one table: their functions have
 * the same signature. */
int PMPI_Win_create_errhandler(MPI_Win_errhandler_function *function, MPI_Errhandler *errhandler)
{
    return PMPI_Comm_create_errhandler(function, errhandler);
}
RTMPI_WEAK(Win_create_errhandler)

int PMPI_Win_call_errhandler(MPI_Win win, int errorcode)
{
    RTMPI_ENTER();
    GET_WIN(win, w);
    WIN_ERR(w, __func__, errorcode, "raised by the application");
    return MPI_SUCCESS;
}
RTMPI_WEAK(Win_call_errhandler)

int PMPI_Win_get_attr(MPI_Win win, int win_keyval, void *attribute_val, int *flag)
{
    RTMPI_ENTER();
    GET_WIN(win, w);
    if (!attribute_val || !flag)
        return WIN_ERR(w, __func__, MPI_ERR_ARG, "attribute_val or flag is NULL");
    *flag = 1;
    switch (win_keyval) {
    case MPI_WIN_BASE:
        *(void **)attribute_val = w->base;
        return MPI_SUCCESS;
    case MPI_WIN_SIZE:
        *(void **)attribute_val = &w->win_size;
        return MPI_SUCCESS;
    case MPI_WIN_DISP_UNIT:
        *(void **)attribute_val = &w->disp_unit;
        return MPI_SUCCESS;
    case MPI_WIN_CREATE_FLAVOR:
        *(void **)attribute_val = &w->flavor;
        return MPI_SUCCESS;
    case MPI_WIN_MODEL:
        *(void **)attribute_val = &w->model;
        return MPI_SUCCESS;
    default:
        break;
    }
    int rc = rtmpi_win_attr_get(&w->attrs, win_keyval, attribute_val, flag);
    return rc ? WIN_ERR(w, __func__, rc, "keyval %d is not a window keyval", win_keyval)
              : MPI_SUCCESS;
}
RTMPI_WEAK(Win_get_attr)

int PMPI_Win_set_attr(MPI_Win win, int win_keyval, void *attribute_val)
{
    RTMPI_ENTER();
    GET_WIN(win, w);
    int rc = rtmpi_win_attr_set(win, &w->attrs, win_keyval, attribute_val);
    return rc ? WIN_ERR(w, __func__, rc, "keyval %d is not a window keyval of the application "
                        "(invalid, freed or predefined), or its old value's delete callback "
                        "failed", win_keyval)
              : MPI_SUCCESS;
}
RTMPI_WEAK(Win_set_attr)

int PMPI_Win_delete_attr(MPI_Win win, int win_keyval)
{
    RTMPI_ENTER();
    GET_WIN(win, w);
    int rc = rtmpi_win_attr_delete(win, &w->attrs, win_keyval);
    return rc ? WIN_ERR(w, __func__, rc, "no attribute with keyval %d, or its delete callback "
                        "failed", win_keyval)
              : MPI_SUCCESS;
}
RTMPI_WEAK(Win_delete_attr)

int PMPI_Win_create_keyval(MPI_Win_copy_attr_function *win_copy_attr_fn,
                           MPI_Win_delete_attr_function *win_delete_attr_fn, int *win_keyval,
                           void *extra_state)
{
    RTMPI_ENTER();
    return rtmpi_win_keyval_create(win_copy_attr_fn, win_delete_attr_fn, win_keyval,
                                   extra_state);
}
RTMPI_WEAK(Win_create_keyval)

int PMPI_Win_free_keyval(int *win_keyval)
{
    RTMPI_ENTER();
    return rtmpi_win_keyval_free(win_keyval);
}
RTMPI_WEAK(Win_free_keyval)

int PMPI_Win_set_info(MPI_Win win, MPI_Info info)
{
    MPI_Info copy = MPI_INFO_NULL;

    RTMPI_ENTER();
    GET_WIN(win, w);
    if (info != MPI_INFO_NULL && PMPI_Info_dup(info, &copy))
        return WIN_ERR(w, __func__, MPI_ERR_INFO, "invalid info %d", info);
    if (w->info != MPI_INFO_NULL)
        PMPI_Info_free(&w->info);
    w->info = copy;
    return MPI_SUCCESS;
}
RTMPI_WEAK(Win_set_info)

int PMPI_Win_get_info(MPI_Win win, MPI_Info *info_used)
{
    RTMPI_ENTER();
    GET_WIN(win, w);
    if (!info_used)
        return WIN_ERR(w, __func__, MPI_ERR_ARG, "info_used is NULL");
    int rc = w->info != MPI_INFO_NULL ? PMPI_Info_dup(w->info, info_used)
                                      : PMPI_Info_create(info_used);
    return rc ? WIN_ERR(w, __func__, rc, "cannot copy the window's info") : MPI_SUCCESS;
}
RTMPI_WEAK(Win_get_info)
