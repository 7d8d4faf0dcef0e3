/*
 * softib XRC: XRC domains and ibv_open_qp.
 *
 * A domain opened with a file descriptor is identified by the file (device
 * and inode), so every process of the host that opens the same file shares
 * it, as with a kernel driver. XRC SRQs and TGT QPs carry that identity in
 * the shared page, and the process owning an SRQ checks that a TGT QP
 * delivering into it belongs to the same domain. ibv_open_qp gives another
 * process a handle on an existing TGT QP (counted in the owner's page so the
 * QP number is not reused while it is open).
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "softib.h"

struct ibv_xrcd *sib_open_xrcd(struct ibv_context *ctx,
                               struct ibv_xrcd_init_attr *attr)
{
    struct sib_xrcd *x;
    struct stat st;
    int rc = sib_check_dev(ctx);

    if (!rc && (!(attr->comp_mask & IBV_XRCD_INIT_ATTR_FD) ||
                !(attr->comp_mask & IBV_XRCD_INIT_ATTR_OFLAGS) ||
                (attr->oflags & ~(O_CREAT | O_EXCL))))
        rc = EINVAL;
    if (!rc && attr->fd >= 0 && fstat(attr->fd, &st))
        rc = EBADF;
    if (!rc && attr->fd < 0 && !(attr->oflags & O_CREAT))
        rc = EINVAL; /* a private domain must be created */
    if (rc) {
        errno = rc;
        return NULL;
    }
    x = calloc(1, sizeof(*x));
    if (!x) {
        errno = ENOMEM;
        return NULL;
    }
    x->ibv.context = ctx;
    if (attr->fd >= 0)
        x->id = ((uint64_t)st.st_dev << 40) ^ (uint64_t)st.st_ino ^
                0x8000000000000000ull;
    else /* private to this process */
        x->id = ((uint64_t)sib_dev_of(ctx)->slot << 32) ^ (uintptr_t)x;
    return &x->ibv;
}

int sib_close_xrcd(struct ibv_xrcd *xrcd)
{
    free(xrcd);
    return 0;
}

uint64_t sib_xrcd_id(struct ibv_xrcd *xrcd)
{
    return ((struct sib_xrcd *)xrcd)->id;
}

struct ibv_qp *sib_open_qp(struct ibv_context *ctx, struct ibv_qp_open_attr *a)
{
    struct sib_dev *dev;
    struct sib_peer *p;
    struct sib_shared *sh;
    struct sib_shared_qp *s;
    struct sib_qp *qp;
    uint16_t owner;
    int rc = sib_check_dev(ctx);

    if (!rc && ((a->comp_mask & (IBV_QP_OPEN_ATTR_NUM | IBV_QP_OPEN_ATTR_XRCD |
                                 IBV_QP_OPEN_ATTR_TYPE)) !=
                    (IBV_QP_OPEN_ATTR_NUM | IBV_QP_OPEN_ATTR_XRCD |
                     IBV_QP_OPEN_ATTR_TYPE) ||
                a->qp_type != IBV_QPT_XRC_RECV || !a->xrcd))
        rc = EINVAL;
    if (rc) {
        errno = rc;
        return NULL;
    }
    dev = sib_dev_of(ctx);
    owner = (uint16_t)SIB_SLOT_OF(a->qp_num);
    pthread_mutex_lock(&dev->lock);
    if (owner == dev->slot) {
        sh = dev->shared;
    } else {
        p = sib_peer_get(dev, owner);
        sh = p ? p->shared : NULL;
    }
    s = sh ? &sh->qp[SIB_IDX_OF(a->qp_num)] : NULL;
    if (!s || atomic_load(&s->qpn) != a->qp_num ||
        s->type != IBV_QPT_XRC_RECV || s->xrcd_id != sib_xrcd_id(a->xrcd)) {
        pthread_mutex_unlock(&dev->lock);
        errno = ENOENT;
        return NULL;
    }
    qp = calloc(1, sizeof(*qp));
    if (!qp) {
        pthread_mutex_unlock(&dev->lock);
        errno = ENOMEM;
        return NULL;
    }
    atomic_fetch_add(&s->openers, 1);
    pthread_mutex_unlock(&dev->lock);
    qp->dev = dev;
    qp->is_open_handle = true;
    pthread_mutex_init(&qp->ex.qp_base.mutex, NULL);
    pthread_cond_init(&qp->ex.qp_base.cond, NULL);
    qp->xrcd_id = sib_xrcd_id(a->xrcd);
    qp->ex.qp_base.context = ctx;
    qp->ex.qp_base.qp_context = a->qp_context;
    qp->ex.qp_base.qp_num = a->qp_num;
    qp->ex.qp_base.qp_type = IBV_QPT_XRC_RECV;
    qp->ex.qp_base.state = (enum ibv_qp_state)atomic_load(&s->state);
    qp->attr.qp_state = qp->ex.qp_base.state;
    qp->attr.dest_qp_num = s->remote_qpn;
    return &qp->ex.qp_base;
}
