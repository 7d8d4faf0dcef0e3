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
 * Pair mode: a rank's n - 1 incoming rings share RTM_SHM_RX_BUDGET: each is
 * the largest power of two of lines within budget / (n - 1),
 * RTM_SHM_FIFO_SIZE and, for all n(n - 1) of them with the control area,
 * RTM_SHM_SEG_MAX; but never below SHM_MIN_FIFO_LINES (4 KiB), which holds
 * four of the largest messages (a quarter ring, 1 KiB: an eager limit of
 * 760 B, rendezvous fragments of 1000 B; the largest control message, an
 * RTS, is 112 B) for a stream to keep several in flight. So the rings of
 * the segment take at most n x budget while the floor is not reached
 * (n - 1 <= budget / 4 KiB: 449 ranks at the 1792 KiB default). At 256 KiB
 * rings 64 ranks took 1 GiB and 128 ranks 4 GiB; the default budget keeps
 * 256 KiB rings up to 8 local ranks and gives 64 ranks 16 KiB rings (a
 * 63 MiB segment), 128 ranks 8 KiB (128 MiB).
 *
 * Past the floor the rings would make n(n - 1) x 4 KiB (quadratic: 3.8 GiB
 * at 1000 ranks), so RTM_SHM_QUEUE=auto switches to shared mode there: one
 * queue per rank, the largest power of two of lines within the budget and
 * RTM_SHM_FIFO_SIZE (256 KiB by default: what one pair ring gets at up to
 * 8 ranks, so that the lines a stream cycles through stay as few as a
 * ring's), RTM_SHM_SEG_MAX for all n and 2 MiB (SHM_QUEUE_MAX_LINES: the
 * stamp's 16 bits tell laps apart), at least 4 KiB: n x 256 KiB plus 320 B a rank
 * (113 MiB at 450 ranks, 250 MiB at 1000; from 4096 ranks the 1G
 * RTM_SHM_SEG_MAX halves the queues).
 */
static void pair_layout(uint64_t n, shm_seg_geom_t *geom)
{
    geom->shared = 0;
    geom->rings = n * (n - 1);
    geom->ctrl_stride = align_up((n - 1) * sizeof(shm_fifo_ctrl_t), 2 * SHM_LINE);
    geom->rings_offset = geom->ctrl_offset + align_up(n * geom->ctrl_stride, SHM_PAGE);
}

static int pair_fits(uint64_t n, const shm_seg_geom_t *geom, uint64_t lines)
{
    uint64_t bytes = lines * SHM_LINE;

    return bytes <= shm_config.fifo_size && (n - 1) * bytes <= shm_config.rx_budget &&
           geom->rings_offset + geom->rings * bytes <= shm_config.seg_max;
}

static int queue_fits(const shm_seg_geom_t *geom, uint64_t lines)
{
    uint64_t bytes = lines * SHM_LINE;

    return bytes <= shm_config.rx_budget && bytes <= shm_config.fifo_size &&
           lines <= SHM_QUEUE_MAX_LINES &&
           geom->rings_offset + geom->rings * bytes <= shm_config.seg_max;
}

void shm_seg_geometry(int local_size, shm_seg_geom_t *geom)
{
    uint64_t n = local_size > 1 ? (uint64_t)local_size : 1;
    uint64_t lines = SHM_MIN_FIFO_LINES;

    geom->split_offset = align_up(SHM_PAGE + n * sizeof(shm_rank_info_t), SHM_PAGE);
    geom->ctrl_offset = geom->split_offset + n * SHM_SPLIT_SLOTS * sizeof(shm_split_slot_t);
    pair_layout(n, geom);
    if (shm_config.queue == SHM_QUEUE_SHARED ||
        (shm_config.queue == SHM_QUEUE_AUTO && n > 1 && !pair_fits(n, geom, lines))) {
        geom->shared = 1;
        geom->rings = n;
        geom->ctrl_stride = sizeof(shm_queue_ctrl_t);
        geom->rings_offset = geom->ctrl_offset + align_up(n * geom->ctrl_stride, SHM_PAGE);
        while (queue_fits(geom, lines * 2))
            lines *= 2;
    } else {
        while (pair_fits(n, geom, lines * 2))
            lines *= 2;
    }
    geom->fifo_lines = lines;
    geom->size = geom->rings_offset + geom->rings * lines * SHM_LINE;
}
