/*
 * Shared-memory collectives among the ranks of an intracommunicator that
 * are all on one host (coll_shm.h, docs/collectives.md "Shared memory"):
 * MPI_Barrier, MPI_Bcast, MPI_Reduce, MPI_Allreduce, MPI_Allgather and
 * MPI_Alltoall go through a POSIX shm segment the communicator's ranks map, made at its
 * second collective that could use it and unmapped when the communicator
 * is destroyed.
 *
 * Segment: one cache line of flags per rank (ready, done), a result area
 * and one slot per rank, each `chunk` bytes. Every shm collective is a run
 * of steps numbered 1, 2, ... per communicator, the same at every rank
 * (blocking collectives are called in the same order everywhere). A rank
 * publishes "my data of step n is in place" by storing n in its ready
 * flag, and "I read everything of step n" by storing n in its done flag;
 * the flags only grow. Step n uses buffer set n % SHM_NBUF (a result area
 * and the slots), so a writer can run SHM_NBUF steps ahead of the slowest
 * reader (a Bcast root or a Reduce leaf does not wait for the others to
 * finish). The one rule that makes reuse safe: a rank writes any shared
 * area at step n only after every done flag is >= n - SHM_NBUF.
 */
#include "config.h"

#include "coll_shm.h"
#include "mpi_config.h"
#include "mpi_state.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <unistd.h>

uint64_t rtmpi_coll_shm_calls;

typedef struct shm_flags {
    uint64_t ready;
    uint64_t done;
    char     pad[64 - 2 * sizeof(uint64_t)];
} shm_flags_t;

struct coll_shm {
    char        *base;
    size_t       len;
    size_t       chunk;    /* bytes of the result area and of each slot */
    uint64_t     step;     /* the last step this rank took part in */
    int          p;
    int          oversub;  /* rank 0's binding_host_oversubscribed() at setup */
    shm_flags_t *flags;    /* [p] */
    uint64_t     all_done; /* every done flag was >= this when last read */
    uint64_t     nsmall;   /* small sets */
    char        *small;    /* [nsmall][p + 1][SHM_SMALL]: the same, for small steps */
    char        *data;     /* [SHM_NBUF][p + 1][chunk]: result area, then slots */
};

/* Buffer sets: how far a writer may run ahead of the readers. 16 rather
 * than 4: oversubscribed (4 ranks on 2 CPUs) Bcast 8 B 1.3 -> 0.40 us and
 * Reduce 8 B 1.4 -> 0.48 us, as a root or leaf yields less often. */
#define SHM_NBUF 16

/* Steps of at most SHM_SMALL bytes per slot go through small sets of their
 * own (one cache line per slot): up to 32 ranks as many as fit the 512 KiB
 * that 256 take at 32 ranks (a power of two, at least 256: 2048 at 2 and 3
 * ranks, 1024 at 4, 512 at 8; at most 528 KiB), 64 beyond. A writer runs
 * that many steps ahead rather than 16, so an oversubscribed root or leaf
 * of 8 B collectives yields less often (with 64: Reduce 8 B 0.50 -> 0.27
 * us, Bcast 8 B 0.43 -> 0.18-0.29; 2048 rather than 256 at 2 ranks: Reduce
 * 8 B 0.148 -> 0.107 us, its leaf no longer held to the root's pace). Which sets a
 * step uses follows from its size, the same at every rank. Reuse stays
 * safe: the step that last used a set is at least nsmall (small) or
 * SHM_NBUF (large) steps back, so "every done flag >= n - that" covers it. */
#define SHM_SMALL ((size_t)64)
/* A small step's data fills at most the first SHM_SMALL_DATA bytes of each
 * line it uses; the last word is the line's stamp, the step that last wrote
 * it, stored after the data (release). A reader waits for the stamp of the
 * line it reads rather than for the writer's ready flag: one cache line
 * crosses from the writer's core to the reader's, not two (the flag's, then
 * the data's). The flags are kept as well, for the large steps and
 * wait_writable. */
#define SHM_SMALL_DATA (SHM_SMALL - sizeof(uint64_t))

static uint64_t small_sets(int p)
{
    uint64_t n = 256;

    if (p > 32)
        return 64;
    /* the 512 KiB that 256 sets take at 32 ranks, at every size up to it */
    while (n * 2 * (uint64_t)(p + 1) * SHM_SMALL <= ((uint64_t)512 << 10))
        n *= 2;
    return n;
}
/* a step whose area is a whole large set whatever its size (Reduce's chain) */
#define SHM_LARGE ((size_t)-1)

/* A communicator's state: its first collective that could use a segment
 * goes by messages (SHM_UNTRIED -> SHM_ONCE), its second makes one, so a
 * communicator used once (MPI_Win_allocate's grouping by host, a split to
 * learn a size) never pays for a segment. */
enum { SHM_UNTRIED = 0, SHM_READY = 1, SHM_OFF = -1, SHM_SETUP = 2, SHM_ONCE = 3 };

/* All of the segment beyond the flags, whatever the chunk asked for. */
#define SHM_DATA_MAX ((size_t)8 << 20)
#define SHM_CHUNK_MIN ((size_t)1024)

static size_t chunk_for(int p)
{
    size_t c = mpi_config.coll_shm_chunk, cap = SHM_DATA_MAX / SHM_NBUF / (size_t)(p + 1);

    if (c > cap)
        c = cap;
    c &= ~(size_t)63;
    return c < SHM_CHUNK_MIN ? 0 : c;
}

/* ---- the segment ------------------------------------------------------- */

static void seg_unmap(struct coll_shm *sh)
{
    if (sh) {
        if (sh->base)
            munmap(sh->base, sh->len);
        free(sh);
    }
}

/* Collective over the communicator (network algorithms: the state is
 * SHM_SETUP meanwhile). Everyone ends with the same state. */
static void seg_setup(cinfo_t *ci)
{
    rtmpi_comm_t *c = ci->c;
    int p = ci->size, r = ci->rank, ok = 1, allok = 0, fd = -1;
    size_t chunk = chunk_for(p);
    size_t small = small_sets(p) * (size_t)(p + 1) * SHM_SMALL;
    size_t len = (size_t)p * sizeof(shm_flags_t) + small + SHM_NBUF * (size_t)(p + 1) * chunk;
    /* nonce, rank 0's segment made, rank 0's host oversubscribed */
    unsigned long long msg[3] = {0, 0, 0};
    struct coll_shm *sh = calloc(1, sizeof(*sh));
    char name[320], what[48];

    c->shm_state = SHM_SETUP;
    if (!sh || !chunk || !binding_tl_open("shm"))
        ok = 0;
    if (r == 0) {
        if (ok && getrandom(&msg[0], sizeof(msg[0]), 0) != (ssize_t)sizeof(msg[0]))
            ok = 0;
        snprintf(what, sizeof(what), "coll-%llx", msg[0]);
        if (binding_job_shm_name(what, name, sizeof(name)) != 0)
            ok = 0;
        /* posix_fallocate: a full /dev/shm refuses here, not by SIGBUS */
        if (ok && ((fd = shm_open(name, O_CREAT | O_EXCL | O_RDWR, 0600)) < 0 ||
                   ftruncate(fd, (off_t)len) != 0 || posix_fallocate(fd, 0, (off_t)len) != 0))
            ok = 0;
        msg[1] = (unsigned long long)ok;
        msg[2] = (unsigned long long)binding_host_oversubscribed();
    }
    if (PMPI_Bcast(msg, 3, MPI_UNSIGNED_LONG_LONG, 0, ci->comm) != MPI_SUCCESS)
        msg[1] = 0;
    snprintf(what, sizeof(what), "coll-%llx", msg[0]);
    if (binding_job_shm_name(what, name, sizeof(name)) != 0)
        msg[1] = 0;
    if (msg[1]) {
        if (r != 0 && ok && (fd = shm_open(name, O_RDWR, 0600)) < 0)
            ok = 0;
        if (ok) {
            /* ftruncate's pages read as zeros: every flag starts at step 0 */
            void *m = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);

            if (m == MAP_FAILED) {
                ok = 0;
            } else {
                sh->base = m;
                sh->len = len;
            }
        }
        if (PMPI_Allreduce(&ok, &allok, 1, MPI_INT, MPI_MIN, ci->comm) != MPI_SUCCESS)
            allok = 0;
    }
    if (fd >= 0)
        close(fd);
    if (r == 0 && msg[1])
        shm_unlink(name);   /* everyone that could map it has */
    if (!allok) {
        seg_unmap(sh);
        c->shm_state = SHM_OFF;
        return;
    }
    sh->chunk = chunk;
    sh->p = p;
    sh->oversub = msg[2] != 0;
    sh->flags = (shm_flags_t *)(void *)sh->base;
    sh->nsmall = small_sets(p);
    sh->small = sh->base + (size_t)p * sizeof(shm_flags_t);
    sh->data = sh->small + small;
    c->shm = sh;
    c->shm_state = SHM_READY;
}

/* Every rank of the communicator is on this rank's host. The same answer
 * at every rank: the job's map of ranks to hosts. */
static int all_here(const rtmpi_comm_t *c)
{
    int me = -1, node = -1;

    if (rtm_world_node(c->world_ranks[c->rank], &me) != RTM_OK)
        return 0;
    for (int i = 0; i < c->size; i++)
        if (rtm_world_node(c->world_ranks[i], &node) != RTM_OK || node != me)
            return 0;
    return 1;
}

static struct coll_shm *shm_get(cinfo_t *ci)
{
    rtmpi_comm_t *c = ci->c;

    if (__builtin_expect(c->shm_state == SHM_READY, 1))
        return c->shm;
    if (c->shm_state != SHM_UNTRIED && c->shm_state != SHM_ONCE)
        return NULL;
    if (!mpi_config.coll_shm || c->inter || ci->size < 2 || !all_here(c)) {
        c->shm_state = SHM_OFF;
        return NULL;
    }
    if (c->shm_state == SHM_UNTRIED) {
        c->shm_state = SHM_ONCE;
        return NULL;
    }
    seg_setup(ci);
    return c->shm;
}

int coll_shm_usable(cinfo_t *ci)
{
    rtmpi_comm_t *c = ci->c;

    if (c->shm_state == SHM_READY)
        return 1;
    return (c->shm_state == SHM_UNTRIED || c->shm_state == SHM_ONCE) && mpi_config.coll_shm &&
           !c->inter && ci->size >= 2;
}

int coll_shm_fits(cinfo_t *ci, int count, MPI_Datatype dt, size_t max, size_t pair)
{
    size_t bytes = (size_t)count * (size_t)rtmpi_dtype_get(dt)->size;

    return coll_shm_usable(ci) && bytes <= max && (ci->size != 2 || bytes <= pair);
}

void coll_shm_free(rtmpi_comm_t *c)
{
    seg_unmap(c->shm);
    c->shm = NULL;
    c->shm_state = SHM_OFF;
}

/* ---- flags and waits --------------------------------------------------- */

static inline uint64_t flag_load(const uint64_t *f)
{
    return __atomic_load_n(f, __ATOMIC_ACQUIRE);
}

static inline void flag_store(uint64_t *f, uint64_t v)
{
    __atomic_store_n(f, v, __ATOMIC_RELEASE);
}

/* Waits for *f >= v, driving progress (other traffic, nonblocking
 * collectives, one-sided targets) and idling as the runtime's blocking
 * waits do: a rank that shares its core yields it, so the rank it waits
 * for can run. */
static uint64_t wait_ge(const uint64_t *f, uint64_t v)
{
    unsigned long polls = 0;
    uint64_t now;

    while ((now = flag_load(f)) < v) {
        if (rtmpi_progress() > 0)
            polls = 0;
        else
            binding_idle(++polls);
    }
    return now;
}

/* Waits until every done flag is >= v; returns the least of the values
 * read (>= v), which every done flag stays at or above. */
static uint64_t wait_all_done(struct coll_shm *sh, int p, uint64_t v)
{
    uint64_t least = UINT64_MAX;

    for (int i = 0; i < p; i++) {
        uint64_t d = wait_ge(&sh->flags[i].done, v);

        if (d < least)
            least = d;
    }
    return least;
}

static void wait_all_ready(struct coll_shm *sh, int p, uint64_t v)
{
    for (int i = 0; i < p; i++)
        wait_ge(&sh->flags[i].ready, v);
}

/* The result area and rank i's slot of step n, whose slots hold `len`
 * bytes (the same at every rank): small sets up to SHM_SMALL_DATA. */
static inline int small_step(size_t len)
{
    return len <= SHM_SMALL_DATA;
}

/* A small line's stamp (see SHM_SMALL_DATA). */
static inline uint64_t *stamp_of(char *line)
{
    return (uint64_t *)(void *)(line + SHM_SMALL_DATA);
}

static inline char *res(struct coll_shm *sh, uint64_t n, size_t len)
{
    if (small_step(len))
        return sh->small + (size_t)(n % sh->nsmall) * (size_t)(sh->p + 1) * SHM_SMALL;
    return sh->data + (size_t)(n % SHM_NBUF) * (size_t)(sh->p + 1) * sh->chunk;
}

static inline char *slot(struct coll_shm *sh, uint64_t n, int i, size_t len)
{
    return res(sh, n, len) + (size_t)(i + 1) * (small_step(len) ? SHM_SMALL : sh->chunk);
}

/* The writer of a line of step n (len bytes a slot) says its data is in
 * place: the stamp for a small step, then the ready flag as ever. */
static inline void publish(struct coll_shm *sh, int r, char *line, uint64_t n, size_t len)
{
    if (small_step(len))
        flag_store(stamp_of(line), n);
    flag_store(&sh->flags[r].ready, n);
}

/* Waits until rank j's line of step n holds its data. */
static inline void wait_line(struct coll_shm *sh, int j, char *line, uint64_t n, size_t len)
{
    wait_ge(small_step(len) ? stamp_of(line) : &sh->flags[j].ready, n);
}

/* May this rank write the shared areas of step n? */
static inline void wait_writable(struct coll_shm *sh, uint64_t n, size_t len)
{
    uint64_t lag = small_step(len) ? sh->nsmall : SHM_NBUF;

    /* the flags only grow: no need to read p lines again while the last
     * reading covers n. What that reading found is kept, not the bound it
     * waited for: a writer ahead of its readers then reads their lines
     * again about once in `lag` steps, not at every step (each read takes
     * a line the readers write at every step across cores). */
    if (n > lag && sh->all_done < n - lag)
        sh->all_done = wait_all_done(sh, sh->p, n - lag);
}

/* ---- Barrier ----------------------------------------------------------- */

int coll_shm_barrier(cinfo_t *ci)
{
    struct coll_shm *sh = shm_get(ci);

    if (!sh)
        return COLL_SHM_DECLINED;
    rtmpi_coll_shm_calls++;
    uint64_t n = ++sh->step;
    flag_store(&sh->flags[ci->rank].ready, n);
    wait_all_ready(sh, ci->size, n);
    flag_store(&sh->flags[ci->rank].done, n);
    return MPI_SUCCESS;
}

/* ---- Bcast ------------------------------------------------------------- */

int coll_shm_bcast(cinfo_t *ci, void *buf, int count, MPI_Datatype dt, int root)
{
    rtmpi_dtype_t *d = rtmpi_dtype_get(dt);
    size_t bytes = (size_t)count * (size_t)d->size;
    struct coll_shm *sh;
    MPI_Aint off = 0;
    char *data, *packed = NULL;
    int r = ci->rank, rc = MPI_SUCCESS;

    if (bytes == 0 || ci->size == 1)
        return MPI_SUCCESS;
    if (!(sh = shm_get(ci)))
        return COLL_SHM_DECLINED;
    rtmpi_coll_shm_calls++;
    if (rtmpi_dtype_contig(d, count, &off)) {
        data = rtmpi_addr(buf, off);
    } else {
        /* this rank's type is not one byte range (another rank's may be):
         * through a packed copy */
        data = packed = malloc(bytes);
        if (!packed)
            rc = MPI_ERR_NO_MEM;   /* still takes its part, or the others wait */
        else if (r == root)
            rtmpi_pack(buf, count, d, packed);
    }
    /* a step's area is its whole buffer set (the slots are not used) */
    size_t step = (size_t)(sh->p + 1) * sh->chunk;

    for (size_t at = 0; at < bytes; at += step) {
        size_t len = bytes - at < step ? bytes - at : step;
        uint64_t n = ++sh->step;

        if (r == root) {
            wait_writable(sh, n, len);
            if (data)
                memcpy(res(sh, n, len), data + at, len);
            publish(sh, r, res(sh, n, len), n, len);
        } else {
            wait_line(sh, root, res(sh, n, len), n, len);
            if (data)
                memcpy(data + at, res(sh, n, len), len);
        }
        flag_store(&sh->flags[r].done, n);
    }
    if (packed && r != root)
        rtmpi_unpack(packed, bytes, buf, count, d);
    free(packed);
    return rc;
}

/* ---- Reduce, Allreduce ------------------------------------------------- */

/* Elements of dt that go through a slot in one step; 0 when dt cannot go
 * through shared memory (its elements are not packed side by side, as a
 * predefined type's or a contiguous type's are, or one is too large). */
static size_t elems_per_step(struct coll_shm *sh, const rtmpi_dtype_t *d)
{
    if (d->extent <= 0 || d->true_lb != 0 || d->true_ub > d->extent ||
        (size_t)d->extent > sh->chunk)
        return 0;
    if (!d->predefined && !(d->direct && d->direct_off == 0 && d->size == d->extent))
        return 0;
    return sh->chunk / (size_t)d->extent;
}

/* Bytes k elements span (the last one without its trailing padding). */
static inline size_t span(const rtmpi_dtype_t *d, size_t k)
{
    return (k - 1) * (size_t)d->extent + (size_t)d->true_ub;
}

/* acc = x_0 op x_1 op ... op x_{p-1} over elements [e0, e0 + k) of the
 * slots of step n (len bytes each), folded from the right (the same order
 * at every rank, and rank order for a non-commutative op). */
static void fold_slots(struct coll_shm *sh, uint64_t n, size_t len, size_t e0, size_t k,
                       MPI_Datatype dt, MPI_Op op, const rtmpi_dtype_t *d, char *acc)
{
    size_t o = e0 * (size_t)d->extent;

    memcpy(acc, slot(sh, n, sh->p - 1, len) + o, span(d, k));
    for (int j = sh->p - 2; j >= 0; j--)
        rtmpi_op_apply(op, slot(sh, n, j, len) + o, acc, (MPI_Count)k, dt);
}

/* Rank r's part of step n into its slot, once the slot is free. */
static void contribute(struct coll_shm *sh, uint64_t n, int r, const char *src, size_t len)
{
    wait_writable(sh, n, len);
    memcpy(slot(sh, n, r, len), src, len);
}

/* One step of Reduce (root >= 0): k elements of `in` (this rank's part;
 * at the root in place, the receive buffer itself) to `out` at the root. */
static void reduce_step(struct coll_shm *sh, int r, int root, uint64_t n, const char *in,
                        char *out, int inplace, size_t k, size_t len, MPI_Datatype dt, MPI_Op op,
                        const rtmpi_dtype_t *d)
{
    if (r != root) {
        contribute(sh, n, r, in, len);
        publish(sh, r, slot(sh, n, r, len), n, len);
        flag_store(&sh->flags[r].done, n);   /* reads nothing */
        return;
    }
    for (int j = 0; j < sh->p; j++)
        if (j != root)
            wait_line(sh, j, slot(sh, n, j, len), n, len);
    if (rtmpi_op_commutative(op)) {
        if (!inplace)
            memcpy(out, in, len);
        for (int j = 0; j < sh->p; j++)
            if (j != root)
                rtmpi_op_apply(op, slot(sh, n, j, len), out, (MPI_Count)k, dt);
    } else {
        /* rank order; the root's part goes through its slot too (in
         * place, the fold overwrites it) */
        contribute(sh, n, r, in, len);
        fold_slots(sh, n, len, 0, k, dt, op, d, out);
    }
    flag_store(&sh->flags[r].ready, n);
    flag_store(&sh->flags[r].done, n);
}

/* One step of Allreduce (it may take two step numbers): k elements of
 * `in` reduced into `out` at every rank. */
static void allreduce_step(struct coll_shm *sh, int r, uint64_t n, const char *in, char *out,
                           size_t k, size_t len, MPI_Datatype dt, MPI_Op op,
                           const rtmpi_dtype_t *d)
{
    int p = sh->p;

    contribute(sh, n, r, in, len);
    publish(sh, r, slot(sh, n, r, len), n, len);
    for (int j = 0; j < p; j++)
        if (j != r)
            wait_line(sh, j, slot(sh, n, j, len), n, len);
    if (len < mpi_config.allreduce_shm_split || k < (size_t)p) {
        /* every rank folds the whole chunk itself: one wait */
        fold_slots(sh, n, len, 0, k, dt, op, d, out);
        flag_store(&sh->flags[r].done, n);
        return;
    }
    /* each rank folds its share into the result area, then everyone
     * copies the result out: the arithmetic is shared */
    size_t ext = (size_t)d->extent, e0 = k * (size_t)r / (size_t)p;
    size_t e1 = k * (size_t)(r + 1) / (size_t)p;
    char *result = res(sh, n, len);
    if (e1 > e0)
        fold_slots(sh, n, len, e0, e1 - e0, dt, op, d, result + e0 * ext);
    n = ++sh->step;   /* no area of this step's own: only its flags */
    flag_store(&sh->flags[r].ready, n);
    wait_all_ready(sh, p, n);
    memcpy(out, result, len);
    flag_store(&sh->flags[r].done, n);
}

/* Reduce of more than a slot: a pipelined chain from the highest rank
 * down. Step n's whole buffer set is one accumulator: rank p - 1 copies its
 * part in, then each rank j < p - 1, once rank j + 1 has, folds its own
 * part into it (acc = x_j op acc: rank order, whatever the op), and the
 * root copies the result out once rank 0 has. Each rank's part is one
 * copy or one reduction from its own buffer, against p - 1 copies into
 * slots and p - 1 reductions all at the root when the root folds the
 * slots; the ranks work on different steps at once. Oversubscribed (4
 * ranks on 2 CPUs) a 1 MiB Reduce was 1.3x Open MPI's time that way,
 * the root's CPU doing most of the work. */
/* The chain pipelines from this many steps; below, a step's ranks take turns
 * one after another (at 4 oversubscribed ranks a 64 KiB Reduce, one step,
 * took 1.5x Open MPI's time that way, against 0.97x by slots). */
#define SHM_CHAIN_MIN 4

static void reduce_chain(struct coll_shm *sh, int r, int root, const char *input, char *rbuf,
                         size_t count, MPI_Datatype dt, MPI_Op op, const rtmpi_dtype_t *d)
{
    size_t ext = (size_t)d->extent, per = (size_t)(sh->p + 1) * sh->chunk / ext;
    int last = sh->p - 1;

    for (size_t i = 0; i < count; i += per) {
        size_t k = count - i < per ? count - i : per, len = span(d, k);
        uint64_t n = ++sh->step;
        char *acc = res(sh, n, SHM_LARGE);
        const char *in = input + i * ext;

        if (r == last) {
            wait_writable(sh, n, SHM_LARGE);
            memcpy(acc, in, len);
        } else {
            wait_ge(&sh->flags[r + 1].ready, n);
            rtmpi_op_apply(op, in, acc, (MPI_Count)k, dt);
        }
        flag_store(&sh->flags[r].ready, n);
        if (r == root) {
            if (r != 0)
                wait_ge(&sh->flags[0].ready, n);
            memcpy(rbuf + i * ext, acc, len);
        }
        flag_store(&sh->flags[r].done, n);
    }
}

/* Reduce to root, or Allreduce (root -1), step by step. */
static int reduce_steps(cinfo_t *ci, const void *sbuf, void *rbuf, int count, MPI_Datatype dt,
                        MPI_Op op, int root)
{
    rtmpi_dtype_t *d = rtmpi_dtype_get(dt);
    struct coll_shm *sh;
    size_t per, ext = (size_t)d->extent;
    const char *input = sbuf == MPI_IN_PLACE ? rbuf : sbuf;

    if (!(sh = shm_get(ci)) || !(per = elems_per_step(sh, d)))
        return COLL_SHM_DECLINED;
    rtmpi_coll_shm_calls++;
    if (root >= 0 && (size_t)count >= SHM_CHAIN_MIN * (size_t)(sh->p + 1) * per) {
        reduce_chain(sh, ci->rank, root, input, rbuf, (size_t)count, dt, op, d);
        return MPI_SUCCESS;
    }
    for (size_t i = 0; i < (size_t)count; i += per) {
        size_t k = (size_t)count - i < per ? (size_t)count - i : per;
        uint64_t n = ++sh->step;
        const char *in = input + i * ext;
        char *out = (char *)rbuf + i * ext;

        if (root >= 0)
            reduce_step(sh, ci->rank, root, n, in, out, sbuf == MPI_IN_PLACE, k, span(d, k), dt,
                        op, d);
        else
            allreduce_step(sh, ci->rank, n, in, out, k, span(d, k), dt, op, d);
    }
    return MPI_SUCCESS;
}

int coll_shm_reduce(cinfo_t *ci, const void *sbuf, void *rbuf, int count, MPI_Datatype dt,
                    MPI_Op op, int root)
{
    return reduce_steps(ci, sbuf, rbuf, count, dt, op, root);
}

/* A size bound of a collective that follows the host's state: `quiet`, or
 * on an oversubscribed host the larger of `quiet` and `oversub`. Called with
 * oversubscribed = 1 it is the largest bound, a first test that needs no
 * segment. */
static inline size_t host_bound(int oversubscribed, size_t quiet, size_t oversub)
{
    return oversubscribed && oversub > quiet ? oversub : quiet;
}

size_t coll_shm_allreduce_max(void)
{
    return host_bound(1, mpi_config.allreduce_shm_max, mpi_config.allreduce_shm_max_oversub);
}

int coll_shm_allreduce(cinfo_t *ci, const void *sbuf, void *rbuf, int count, MPI_Datatype dt,
                       MPI_Op op)
{
    struct coll_shm *sh = shm_get(ci);
    size_t bytes = (size_t)count * (size_t)rtmpi_dtype_get(dt)->size;

    /* the segment's agreed host state picks the bound: the same at every
     * rank, which one rank's own view might not be */
    if (!sh || bytes > host_bound(sh->oversub, mpi_config.allreduce_shm_max,
                                  mpi_config.allreduce_shm_max_oversub))
        return COLL_SHM_DECLINED;
    return reduce_steps(ci, sbuf, rbuf, count, dt, op, -1);
}

/* ---- Alltoall ---------------------------------------------------------- */

/* One step: each rank writes its row (its p blocks, packed) into its slot
 * once and reads its column (block r of every slot) out; one wait per
 * peer, against p - 1 messages each way by the network algorithm. Only
 * when a row fits a slot, a size every rank computes alike. */
int coll_shm_alltoall(cinfo_t *ci, const void *sbuf, int scount, MPI_Datatype sdt, void *rbuf,
                      int rcount, MPI_Datatype rdt)
{
    rtmpi_dtype_t *rd = rtmpi_dtype_get(rdt);
    size_t block = (size_t)rcount * (size_t)rd->size;
    MPI_Aint rext = rd->extent * (MPI_Aint)rcount, off = 0;
    struct coll_shm *sh;
    int p = ci->size, r = ci->rank, inplace = sbuf == MPI_IN_PLACE;

    if (block == 0 || p == 1)
        return COLL_SHM_DECLINED;   /* nothing to share: the usual copy */
    if (!(sh = shm_get(ci)) || block > sh->chunk / (size_t)p)
        return COLL_SHM_DECLINED;
    rtmpi_coll_shm_calls++;
    uint64_t n = ++sh->step;
    size_t rowlen = block * (size_t)p;
    char *row = slot(sh, n, r, rowlen);
    const rtmpi_dtype_t *sd = inplace ? rd : rtmpi_dtype_get(sdt);
    const char *src = inplace ? rbuf : sbuf;
    MPI_Count scnt = (MPI_Count)p * (inplace ? rcount : scount);

    wait_writable(sh, n, rowlen);
    if (rtmpi_dtype_contig(sd, scnt, &off))
        memcpy(row, src + off, rowlen);
    else
        rtmpi_pack(src, scnt, sd, row);
    publish(sh, r, row, n, rowlen);
    int contig = rtmpi_dtype_contig(rd, rcount, &off);
    for (int k = inplace; k < p; k++) {   /* k = 0: this rank's own block */
        int j = (r + k) % p;
        const char *from = slot(sh, n, j, rowlen) + (size_t)r * block;
        char *to = (char *)rbuf + (MPI_Aint)j * rext;

        if (k)
            wait_line(sh, j, slot(sh, n, j, rowlen), n, rowlen);
        if (contig)
            memcpy(to + off, from, block);
        else
            rtmpi_unpack(from, block, to, rcount, rd);
    }
    flag_store(&sh->flags[r].done, n);
    return MPI_SUCCESS;
}

/* ---- Allgather --------------------------------------------------------- */

/* Blocks of up to RTM_MPI_ALLGATHER_SHM_MAX bytes, in steps of at most one
 * chunk: each rank writes its piece of the step into its slot once and
 * copies every rank's piece out as its flag (or stamp) appears: one copy in
 * and p - 1 out per rank, against p - 1 messages each way, and a rank runs
 * up to 16 steps ahead of a peer that is off its CPU. A type that is not
 * one byte range at this rank (another rank's may be) goes through a packed
 * copy of its block, or of all p blocks on the receive side. */
int coll_shm_allgather(cinfo_t *ci, const void *sbuf, int scount, MPI_Datatype sdt, void *rbuf,
                       int rcount, MPI_Datatype rdt)
{
    rtmpi_dtype_t *rd = rtmpi_dtype_get(rdt);
    size_t block = (size_t)rcount * (size_t)rd->size;
    MPI_Aint rext = rd->extent * (MPI_Aint)rcount, roff = 0, soff = 0;
    struct coll_shm *sh;
    int p = ci->size, r = ci->rank, inplace = sbuf == MPI_IN_PLACE, rc = MPI_SUCCESS;

    size_t quiet = mpi_config.allgather_shm_max, over = mpi_config.allgather_shm_max_oversub;

    if (block == 0 || p == 1 || block > host_bound(1, quiet, over))
        return COLL_SHM_DECLINED;
    /* the bound by the segment's agreed host state, as Allreduce's */
    if (!(sh = shm_get(ci)) || block > host_bound(sh->oversub, quiet, over))
        return COLL_SHM_DECLINED;
    rtmpi_coll_shm_calls++;

    const rtmpi_dtype_t *sd = inplace ? rd : rtmpi_dtype_get(sdt);
    const char *src = inplace ? (const char *)rbuf + (MPI_Aint)r * rext : sbuf;
    MPI_Count scnt = inplace ? rcount : scount;
    char *spacked = NULL, *rpacked = NULL;

    /* the bytes this rank contributes and where the p blocks go, as byte
     * ranges: the buffers themselves, or packed copies */
    if (rtmpi_dtype_contig(sd, scnt, &soff)) {
        src += soff;
    } else if ((spacked = malloc(block)) != NULL) {
        rtmpi_pack(src, scnt, sd, spacked);
        src = spacked;
    } else {
        rc = MPI_ERR_NO_MEM;   /* still takes its part, or the others wait */
        src = NULL;
    }
    int rcontig = rtmpi_dtype_contig(rd, rcount, &roff);
    if (!rcontig && !(rpacked = malloc(block * (size_t)p)))
        rc = MPI_ERR_NO_MEM;
    for (size_t at = 0; at < block; at += sh->chunk) {
        size_t len = block - at < sh->chunk ? block - at : sh->chunk;
        uint64_t n = ++sh->step;
        char *mine = slot(sh, n, r, len);

        wait_writable(sh, n, len);
        if (src)
            memcpy(mine, src + at, len);
        publish(sh, r, mine, n, len);
        for (int k = inplace; k < p; k++) {   /* k = 0: this rank's own block */
            int j = (r + k) % p;
            char *from = slot(sh, n, j, len);

            if (k)
                wait_line(sh, j, from, n, len);
            if (rcontig)
                memcpy((char *)rbuf + (MPI_Aint)j * rext + roff + at, from, len);
            else if (rpacked)
                memcpy(rpacked + (size_t)j * block + at, from, len);
        }
        flag_store(&sh->flags[r].done, n);
    }
    if (rpacked)
        for (int j = 0; j < p; j++)
            if (j != r || !inplace)
                rtmpi_unpack(rpacked + (size_t)j * block, block,
                             (char *)rbuf + (MPI_Aint)j * rext, rcount, rd);
    free(spacked);
    free(rpacked);
    return rc;
}
