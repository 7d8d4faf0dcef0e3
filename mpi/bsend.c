/*
 * Buffered sends (MPI_Bsend, MPI_Ibsend, MPI_Bsend_init): the buffer the
 * application attached with MPI_Buffer_attach, carved into one slot per
 * message in flight. A buffered message is packed into its slot and sent
 * from there as a standard send whose request completes on its own (an
 * orphan); its slot is freed when it does.
 */
#include "config.h"

#include "mpi_impl.h"

#include <stdlib.h>
#include <string.h>

/* The attached buffer is carved first-fit into slots, one per buffered
 * message in flight; each slot is charged MPI_BSEND_OVERHEAD like the
 * standard says users must budget. */
typedef struct bslot {
    size_t start, len;
} bslot_t;

static struct {
    char    *buf;
    size_t   size;
    bslot_t *slots;      /* sorted by start */
    int      nslots, cap;
    int      inflight;
} bsend;

static char *bslot_alloc(size_t need)
{
    size_t pos = 0;
    int at = 0;

    need += MPI_BSEND_OVERHEAD;
    for (; at < bsend.nslots; at++) {
        if (bsend.slots[at].start - pos >= need)
            break;
        pos = bsend.slots[at].start + bsend.slots[at].len;
    }
    if (at == bsend.nslots && bsend.size - pos < need)
        return NULL;
    if (bsend.nslots == bsend.cap) {
        int cap = bsend.cap ? bsend.cap * 2 : 16;
        bslot_t *s = realloc(bsend.slots, (size_t)cap * sizeof(*s));

        if (!s)
            return NULL;
        bsend.slots = s;
        bsend.cap = cap;
    }
    memmove(&bsend.slots[at + 1], &bsend.slots[at], (size_t)(bsend.nslots - at) * sizeof(bslot_t));
    bsend.slots[at] = (bslot_t){ pos, need };
    bsend.nslots++;
    return bsend.buf + pos;
}

static void bslot_free(char *slot)
{
    size_t start = (size_t)(slot - bsend.buf);

    for (int i = 0; i < bsend.nslots; i++) {
        if (bsend.slots[i].start == start) {
            memmove(&bsend.slots[i], &bsend.slots[i + 1],
                    (size_t)(bsend.nslots - i - 1) * sizeof(bslot_t));
            bsend.nslots--;
            break;
        }
    }
}

void rtmpi_bsend_release(rtmpi_request_t *r)
{
    bslot_free(r->packbuf);
    bsend.inflight--;
    r->packbuf = NULL;
    r->bsend = 0;
}

/* Copies the message into the attached buffer and starts sending it from
 * there; the send then completes on its own (an orphan request). */
int rtmpi_bsend_start(const char *fn, const void *buf, int count, rtmpi_dtype_t *d, int dest,
                      int tag, MPI_Comm comm, rtmpi_comm_t *c)
{
    size_t bytes = (size_t)count * (size_t)d->size;
    rtmpi_request_t *r;
    rtm_status_t st;
    char *slot;

    if (dest == MPI_PROC_NULL)
        return MPI_SUCCESS;
    rtmpi_progress();   /* reclaim the slots of completed messages */
    slot = bslot_alloc(bytes);
    if (!slot)
        return rtmpi_error(comm, fn, MPI_ERR_BUFFER,
                           "%zu bytes (+%d overhead) do not fit in the attached buffer "
                           "(%zu bytes, %d messages in flight); attach a larger buffer",
                           bytes, MPI_BSEND_OVERHEAD, bsend.size, bsend.inflight);
    r = rtmpi_req_alloc(RTMPI_REQ_SEND, comm);
    if (!r) {
        bslot_free(slot);
        return rtmpi_error(comm, fn, MPI_ERR_NO_MEM, "out of memory");
    }
    r->bsend = 1;
    r->packbuf = slot;
    bsend.inflight++;
    rtmpi_pack(buf, count, d, slot);
    st = rtm_isend(slot, bytes, dest, tag, c->pt2pt, &r->native);
    if (st != RTM_OK) {
        rtmpi_req_release(r);
        return rtmpi_error_rtm(comm, fn, st);
    }
    rtmpi_orphan_add(r);
    return MPI_SUCCESS;
}

int PMPI_Buffer_attach(void *buffer, int size)
{
    RTMPI_ENTER();
    if (size < 0 || (!buffer && size > 0))
        return rtmpi_error(MPI_COMM_NULL, __func__, MPI_ERR_BUFFER, "invalid buffer or size %d", size);
    if (bsend.buf)
        return rtmpi_error(MPI_COMM_NULL, __func__, MPI_ERR_BUFFER,
                           "a buffer is already attached; detach it first");
    bsend.buf = buffer;
    bsend.size = (size_t)size;
    return MPI_SUCCESS;
}
RTMPI_WEAK(Buffer_attach)

int rtmpi_bsend_detach_all(void)
{
    while (bsend.inflight > 0)
        rtmpi_progress();
    free(bsend.slots);
    bsend.slots = NULL;
    bsend.nslots = bsend.cap = 0;
    return MPI_SUCCESS;
}

int PMPI_Buffer_detach(void *buffer_addr, int *size)
{
    RTMPI_ENTER();
    if (!buffer_addr || !size)
        return rtmpi_error(MPI_COMM_NULL, __func__, MPI_ERR_ARG, "buffer_addr or size is NULL");
    /* Blocks until every buffered message has left the buffer. */
    rtmpi_bsend_detach_all();
    *(void **)buffer_addr = bsend.buf;
    *size = (int)bsend.size;
    bsend.buf = NULL;
    bsend.size = 0;
    return MPI_SUCCESS;
}
RTMPI_WEAK(Buffer_detach)
