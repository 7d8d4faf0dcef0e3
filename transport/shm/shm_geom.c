/*
 * The shared segment's geometry (shm.h's layout) from the local rank count
 * and the RTM_SHM_* rows alone: the transport sizes its segment with it, and
 * rtm_check (launcher/rtm_check.c) what a job needs of /dev/shm.
 */
#include "config.h"

#include "transport/shm/shm.h"
#include "transport/shm/shm_config.h"

static uint64_t align_up(uint64_t v, uint64_t a)
{
    return (v + a - 1) / a * a;
}

/*
 * A rank's n - 1 incoming rings share RTM_SHM_RX_BUDGET: each is the
 * largest power of two of lines within budget / (n - 1), RTM_SHM_FIFO_SIZE
 * and, for all n(n - 1) of them with the control area, RTM_SHM_SEG_MAX; but
 * never below SHM_MIN_FIFO_LINES (4 KiB), which holds four of the largest
 * messages (a quarter ring, 1 KiB: an eager limit of 760 B, rendezvous
 * fragments of 1000 B; the largest control message, an RTS, is 112 B) for
 * a stream to keep several in flight. So the rings of the segment take at
 * most n x budget while the floor is not reached (n - 1 <= budget / 4 KiB:
 * 449 ranks at the 1792 KiB default), and n(n - 1) x 4 KiB beyond. At
 * 256 KiB rings 64 ranks took 1 GiB and 128 ranks 4 GiB; the default budget
 * keeps 256 KiB rings up to 8 local ranks and gives 64 ranks 16 KiB rings
 * (a 63 MiB segment), 128 ranks 8 KiB (128 MiB).
 */
void shm_seg_geometry(int local_size, shm_seg_geom_t *geom)
{
    uint64_t n = local_size > 1 ? (uint64_t)local_size : 1;
    uint64_t lines = SHM_MIN_FIFO_LINES;

    geom->rings = n * (n - 1);
    geom->ctrl_offset = align_up(SHM_PAGE + n * sizeof(shm_rank_info_t), SHM_PAGE);
    geom->ctrl_stride = align_up((n - 1) * sizeof(shm_fifo_ctrl_t), 2 * SHM_LINE);
    geom->rings_offset = geom->ctrl_offset + align_up(n * geom->ctrl_stride, SHM_PAGE);
    for (;;) {
        uint64_t bytes = lines * 2 * SHM_LINE;

        if (bytes > shm_config.fifo_size || (n - 1) * bytes > shm_config.rx_budget ||
            geom->rings_offset + geom->rings * bytes > shm_config.seg_max)
            break;
        lines *= 2;
    }
    geom->fifo_lines = lines;
    geom->size = geom->rings_offset + geom->rings * lines * SHM_LINE;
}
