/*
 * A large rendezvous read made by both ranks at once (shm.h, "split
 * read"). One CMA read is one core copying; from a few hundred KiB the
 * copy is the whole cost of a message, and the sender is usually idle in a
 * wait for it. So the receiver, on starting a read of at least
 * RTM_SHM_CMA_SPLIT bytes, asks the sender (an SHM_AM_SPLIT record) to
 * write chunks from the back of the message into the receiver's buffer
 * with process_vm_writev while it reads chunks from the front with
 * process_vm_readv. Measured alone (two processes, one core each): 256 KiB
 * 12.3 -> 7.2 us, 1 MiB 66 -> 25 us, 4 MiB 398 -> 195-223 us.
 *
 * The chunks are shared out through one 64-bit word in a slot of the
 * receiver's page of the segment: gen << 32 | front << 16 | back. Chunks
 * [front, back) are unclaimed; each side claims half of what is left
 * (rounded up; the receiver from the front, the sender from the back) with
 * a compare-and-swap, copies it, and claims again until nothing is left.
 * The sender adds what it wrote to the slot's done word. The receiver
 * completes the read when its own chunks and the sender's make the whole.
 *
 * Why this is safe whatever the sender does:
 * - A sender that never comes (computing, off its core, CMA refused on its
 *   side) costs one record: the receiver claims every chunk itself.
 * - A sender that comes late finds no chunk left, or a slot of another
 *   generation (reused for a later read), and writes nothing: it writes
 *   only chunks it claimed, and a chunk is claimed once.
 * - The receiver completes only when every claimed chunk is written, so no
 *   write of the sender lands after the buffer was handed back.
 * - A write the kernel refused sets SHM_SPLIT_FAILED: the receiver reads
 *   the sender's chunks (all at the back: [its own, n)) itself; a read it
 *   cannot make completes with RTM_ERR_TRANSPORT, as a refused gathered
 *   read does (the runtime then has the bytes copied through the rings).
 *
 * The sender's part runs inside its progress, when it meets the record;
 * the receiver's in shm_progress after the records of the pass. Neither
 * allocates, locks or logs (except the first failure, once).
 */
#include "config.h"

#include "transport/shm/shm.h"
#include "common/error.h"
#include "common/log.h"
#include "transport/shm/shm_config.h"

#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#define SPLIT_FRONT(w) ((uint32_t)((w) >> 16) & 0xffffu)
#define SPLIT_BACK(w)  ((uint32_t)(w) & 0xffffu)
#define SPLIT_GEN(w)   ((uint32_t)((w) >> 32))
#define SPLIT_COUNT    UINT64_C(0xffffffff)

/* No virtual address range is larger (x86-64 and AArch64 user space: at
 * most 2^57), and with chunk <= len no chunk offset overflows. */
#define SHM_SPLIT_LEN_MAX (UINT64_C(1) << 58)

int shm_split_check(const void *data, size_t len, shm_split_req_t *req)
{
    shm_split_req_t r;

    if (data == NULL || req == NULL || len != sizeof(r))
        return -1;
    memcpy(&r, data, sizeof(r));
    if (r.slot >= SHM_SPLIT_SLOTS || r.len == 0 || r.len > SHM_SPLIT_LEN_MAX ||
        r.chunk < SHM_PAGE ||
        r.chunk % SHM_PAGE != 0 || r.nchunks < 2 ||
        (r.len - 1) / r.chunk + 1 != r.nchunks ||
        r.src > UINT64_MAX - r.len || r.dst > UINT64_MAX - r.len)
        return -1;
    *req = r;
    return 0;
}

/* Valgrind's memcheck does not see a write by another process into this
 * one (a read it does see: process_vm_readv is a system call of this
 * process), so bytes a sender wrote would look undefined to it; under
 * valgrind (its preload library in LD_PRELOAD) this rank reads alone. */
int shm_split_allowed(const shm_iface_t *iface)
{
    const char *preload = getenv("LD_PRELOAD");

    if (preload != NULL && strstr(preload, "vgpreload") != NULL) {
        rtm_debug("shm: rank %d runs under valgrind: its large reads are not split with "
                  "their senders (RTM_SHM_CMA_SPLIT)", iface->world_rank);
        return 0;
    }
    return 1;
}

int shm_split_start(shm_iface_t *iface, shm_ep_t *ep, void *local, uint64_t remote, size_t len,
                    rtm_tl_comp_t *comp)
{
    uint64_t chunk, n;
    shm_split_slot_t *slot;
    shm_split_req_t req;
    shm_split_t *sp;
    uint32_t gen;
    int s;

    if (len < 2 * (size_t)SHM_PAGE || len > SHM_SPLIT_LEN_MAX || iface->split_slots == NULL)
        return 0;
    /* While this rank has rendezvous sends out, traffic goes both ways (a
     * halo exchange, bidirectional bandwidth, an alltoall): both cores are
     * copying already, and a split read would only cost claims and lose
     * the gathered read (measured both ways: 64 KiB-512 KiB 0.80-0.95x of
     * the unsplit figure). */
    if (iface->exposed > 0) {
        iface->split_both_ways++;
        return 0;
    }
    if (ep->split_pause > 0) {
        ep->split_pause--;
        iface->split_paused++;
        return 0;
    }
    if (iface->split_busy == UINT64_MAX) {
        iface->split_declined++;
        return 0;
    }
    s = __builtin_ctzll(~iface->split_busy);
    /* two halves up to 512 KiB; past that chunks of SHM_SPLIT_CHUNK, so
     * that a late sender still takes its share */
    chunk = ((len + 1) / 2 + SHM_PAGE - 1) / SHM_PAGE * SHM_PAGE;
    if (chunk > SHM_SPLIT_CHUNK)
        chunk = SHM_SPLIT_CHUNK;
    if ((len - 1) / chunk + 1 > SHM_SPLIT_CHUNKS_MAX)
        chunk = ((len - 1) / SHM_SPLIT_CHUNKS_MAX + SHM_PAGE) / SHM_PAGE * SHM_PAGE;
    n = (len - 1) / chunk + 1;
    if (n < 2)
        return 0;
    gen = ++iface->split_gen[s];
    if (gen == 0)
        gen = ++iface->split_gen[s];   /* 0 is a fresh slot's */
    slot = &iface->split_slots[s];
    /* done before claim: a sender that sees the new claim word sees done at 0 */
    atomic_store_explicit(&slot->done, 0, memory_order_relaxed);
    atomic_store_explicit(&slot->claim, (uint64_t)gen << 32 | n, memory_order_release);
    memset(&req, 0, sizeof(req));
    req.gen = gen;
    req.slot = (uint16_t)s;
    req.nchunks = (uint16_t)n;
    req.src = remote;
    req.dst = (uint64_t)(uintptr_t)local;
    req.len = len;
    req.chunk = chunk;
    if (shm_fifo_push(ep->tx, SHM_AM_SPLIT, &req, sizeof(req), NULL, 0) != 0) {
        /* the ring to the sender is full: nobody knows the slot's new
         * generation, and the read goes the usual way */
        iface->split_declined++;
        return 0;
    }
    sp = &iface->split[s];
    sp->comp = comp;
    sp->local = local;
    sp->remote = remote;
    sp->len = len;
    sp->chunk = chunk;
    sp->gen = gen;
    sp->nchunks = (uint32_t)n;
    sp->mine = 0;
    sp->failed = 0;
    sp->pid = ep->pid;
    sp->peer = ep->super.peer;
    sp->local_peer = ep->local;
    iface->split_busy |= UINT64_C(1) << s;
    iface->split_reads++;
    iface->split_chunks += n;
    return 1;
}

int shm_split_claim(uint64_t w, uint32_t gen, uint32_t nchunks, uint64_t chunk, uint64_t len,
                    int sender, shm_split_claim_t *c)
{
    uint32_t front = SPLIT_FRONT(w), back = SPLIT_BACK(w), first;

    if (SPLIT_GEN(w) != gen || front >= back || back > nchunks || chunk == 0 || len == 0 ||
        len > SHM_SPLIT_LEN_MAX || chunk > len ||
        (uint64_t)nchunks > (len - 1) / chunk + 1)
        return 0;   /* nothing left, a slot serving a later read, or a word gone wrong */
    c->chunks = (back - front + 1) / 2;
    if (sender) {
        first = back - c->chunks;
        c->word = (w & ~UINT64_C(0xffff)) | first;
    } else {
        first = front;
        c->word = (uint64_t)gen << 32 | (uint64_t)(front + c->chunks) << 16 | back;
    }
    c->off = (uint64_t)first * chunk;
    c->end = (uint64_t)(first + c->chunks) * chunk;
    if (c->end > len)
        c->end = len;
    return 1;
}

/* The receiver's claims on one split read: half of what is left each time,
 * from the front, read at once. After a failed read it still claims (and
 * skips) the rest, so that the sender starts nothing more. */
static void split_take(shm_iface_t *iface, shm_split_t *sp, shm_split_slot_t *slot)
{
    uint64_t w = atomic_load_explicit(&slot->claim, memory_order_acquire);
    shm_split_claim_t c;

    while (shm_split_claim(w, sp->gen, sp->nchunks, sp->chunk, sp->len, 0, &c)) {
        if (!atomic_compare_exchange_weak_explicit(&slot->claim, &w, c.word,
                                                   memory_order_acq_rel, memory_order_acquire))
            continue;
        w = c.word;
        if (sp->failed == 0) {
            int err = shm_cma_xfer(sp->pid, sp->local + c.off, sp->remote + c.off,
                                   c.end - c.off, 0);

            iface->cma_calls++;
            if (err != 0)
                sp->failed = err;
            else
                iface->cma_bytes += c.end - c.off;
        }
        sp->mine += c.chunks;
    }
}

/* A sender that wrote nothing of SHM_SPLIT_MISSES split reads in a row
 * (computing, off its core, sending itself) gets SHM_SPLIT_PAUSE reads
 * unsplit: alone, the receiver reads a message in one call gathered with
 * others, where a split read claims it in halves. */
static void split_judge(shm_ep_t *ep, int missed)
{
    if (!missed) {
        ep->split_misses = 0;
    } else if (++ep->split_misses >= SHM_SPLIT_MISSES) {
        ep->split_misses = 0;
        ep->split_pause = SHM_SPLIT_PAUSE;
    }
}

int shm_split_progress(shm_iface_t *iface)
{
    uint64_t busy = iface->split_busy;
    int completed = 0;

    while (busy != 0) {
        int s = __builtin_ctzll(busy);
        shm_split_t *sp = &iface->split[s];
        shm_split_slot_t *slot = &iface->split_slots[s];
        rtm_status_t status = RTM_OK;
        uint64_t done;

        busy &= busy - 1;
        split_take(iface, sp, slot);
        done = atomic_load_explicit(&slot->done, memory_order_acquire);
        if (sp->mine + (done & SPLIT_COUNT) < sp->nchunks)
            continue;   /* the sender is still writing the chunks it claimed */
        if (sp->failed == 0 && (done & SHM_SPLIT_FAILED)) {
            /* the sender's chunks are [mine, nchunks): read them here */
            uint64_t off = (uint64_t)sp->mine * sp->chunk;

            sp->failed = shm_cma_xfer(sp->pid, sp->local + off, sp->remote + off,
                                      sp->len - off, 0);
            iface->cma_calls++;
        }
        iface->split_busy &= ~(UINT64_C(1) << s);
        iface->split_peer_chunks += sp->nchunks - sp->mine;
        split_judge(&iface->eps[sp->local_peer], sp->mine >= sp->nchunks);
        if (sp->failed != 0)
            status = shm_cma_read_failed(iface, sp->peer, sp->pid, sp->len, sp->failed);
        else
            iface->cma_reads++;
        completed++;
        sp->comp->cb(sp->comp, status);   /* may start another split read */
    }
    return completed;
}

/* Each split read waits only for chunks its sender claimed and is copying;
 * a sender that died meanwhile never finishes them, so past a while a
 * read whose sender is gone is dropped (close; the job is failing). */
void shm_split_drain(shm_iface_t *iface)
{
    unsigned spins = 0;

    while (iface->split_busy != 0) {
        if (shm_split_progress(iface) > 0)
            continue;
        if (++spins % 4096 == 0) {
            uint64_t busy = iface->split_busy;

            while (busy != 0) {
                int s = __builtin_ctzll(busy);

                busy &= busy - 1;
                if (kill(iface->split[s].pid, 0) != 0 && errno == ESRCH) {
                    iface->split_busy &= ~(UINT64_C(1) << s);
                    iface->split[s].comp->cb(iface->split[s].comp, RTM_ERR_TRANSPORT);
                }
            }
        }
        sched_yield();
    }
}

void shm_split_help(shm_iface_t *iface, int src_local, const void *data, size_t len)
{
    shm_split_slot_t *slot;
    shm_split_claim_t c;
    shm_split_req_t r;
    uint64_t w;
    pid_t pid;

    if (shm_split_check(data, len, &r) != 0) {
        iface->split_bad++;   /* reported at close */
        return;
    }
    /* Without CMA, or without an endpoint to the receiver, it reads alone. */
    if (iface->cma != SHM_CMA_OK || src_local < 0 || src_local >= iface->local_size ||
        src_local == iface->local_rank || iface->eps == NULL ||
        !iface->eps[src_local].in_use) {
        iface->split_skipped++;
        return;
    }
    /* So it does while this rank has split reads of its own: traffic both
     * ways keeps both cores copying already, and chunks taken from each
     * other only add claims (measured: 256 KiB both ways 45.6 GB/s unsplit,
     * 37.4 when each rank helped the other). This rank's reads from that
     * peer then go unsplit for a while too. */
    if (iface->split_busy != 0) {
        iface->split_skipped++;
        iface->eps[src_local].split_pause = SHM_SPLIT_PAUSE;
        return;
    }
    pid = iface->eps[src_local].pid;
    slot = shm_seg_split_slots(iface, src_local) + r.slot;
    w = atomic_load_explicit(&slot->claim, memory_order_acquire);
    while (shm_split_claim(w, r.gen, r.nchunks, r.chunk, r.len, 1, &c)) {
        int err;

        if (!atomic_compare_exchange_weak_explicit(&slot->claim, &w, c.word,
                                                   memory_order_acq_rel, memory_order_acquire))
            continue;
        err = shm_cma_xfer(pid, (void *)(uintptr_t)(r.src + c.off), r.dst + c.off,
                           c.end - c.off, 1);
        if (err != 0) {
            if (!iface->cma_warned) {
                iface->cma_warned = 1;
                rtm_debug("shm: CMA write of %llu B to rank %d (pid %d) for a split read "
                          "failed: %s; it reads those chunks itself",
                          (unsigned long long)(c.end - c.off), iface->local_peers[src_local],
                          (int)pid, strerror(err));
            }
            iface->split_help_failed++;
            atomic_fetch_or_explicit(&slot->done, SHM_SPLIT_FAILED, memory_order_relaxed);
        } else {
            iface->split_helped += c.chunks;
            iface->split_helped_bytes += c.end - c.off;
        }
        atomic_fetch_add_explicit(&slot->done, c.chunks, memory_order_release);
        w = atomic_load_explicit(&slot->claim, memory_order_acquire);
    }
}
