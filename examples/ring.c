/*
 * ring: the demo the README's first command runs.
 *
 * 1. A token travels twice around the ring 0 -> 1 -> ... -> N-1 -> 0; each
 *    rank adds its rank number on the way, so after the trip rank 0 holds
 *    2 * (0 + 1 + ... + N-1) = N(N-1).
 * 2. An allreduce written by hand: every rank contributes (rank + 1)^2 and a
 *    vector of 1 MiB of doubles (large enough for the rendezvous path); the
 *    partial sums go around the ring once (reduce) and the result goes
 *    around once more (broadcast), so every rank ends with the total, which
 *    it checks against the closed form N(N+1)(2N+1)/6.
 *
 * Prints the results and whether they match; exits 1 if anything is wrong.
 * Run: rtrun -n 4 examples/ring
 */
#include <rtmsg.h>

#include <stdio.h>
#include <stdlib.h>

#define VEC_LEN (1u << 17)   /* 128 Ki doubles = 1 MiB */

static int fail(const char *what, rtm_status_t st)
{
    fprintf(stderr, "ring: %s failed: %s (%s)\n", what, rtm_strerror(st), rtm_last_error());
    rtm_abort(1, "ring example failed");
}

#define TRY(_call) do { rtm_status_t st_ = (_call); if (st_ != RTM_OK) return fail(#_call, st_); } while (0)

int main(void)
{
    int rank, size, next, prev, ok = 1;
    long token = 0, expect_token;
    double *vec, *tmp, sum, expect_sum;
    double t0;

    TRY(rtm_init());
    TRY(rtm_comm_rank(RTM_COMM_WORLD, &rank));
    TRY(rtm_comm_size(RTM_COMM_WORLD, &size));
    next = (rank + 1) % size;
    prev = (rank + size - 1) % size;
    t0 = rtm_wtime();

    /* 1: the token, twice around */
    for (int lap = 0; lap < 2; lap++) {
        if (rank == 0) {
            TRY(rtm_send(&token, sizeof(token), next, lap, RTM_COMM_WORLD));
            TRY(rtm_recv(&token, sizeof(token), prev, lap, RTM_COMM_WORLD, RTM_STATUS_IGNORE));
        } else {
            TRY(rtm_recv(&token, sizeof(token), prev, lap, RTM_COMM_WORLD, RTM_STATUS_IGNORE));
            token += rank;
            TRY(rtm_send(&token, sizeof(token), next, lap, RTM_COMM_WORLD));
        }
    }

    /* 2: allreduce by hand around the ring */
    vec = malloc(VEC_LEN * sizeof(*vec));
    tmp = malloc(VEC_LEN * sizeof(*tmp));
    if (vec == NULL || tmp == NULL) {
        fprintf(stderr, "ring: out of memory\n");
        rtm_abort(1, "ring example: out of memory");
    }
    for (unsigned i = 0; i < VEC_LEN; i++)
        vec[i] = (double)(rank + 1) * (double)(rank + 1) + (double)i;
    if (size > 1) {
        if (rank == 0) {
            TRY(rtm_send(vec, VEC_LEN * sizeof(*vec), next, 10, RTM_COMM_WORLD));
            TRY(rtm_recv(vec, VEC_LEN * sizeof(*vec), prev, 10, RTM_COMM_WORLD, RTM_STATUS_IGNORE));
            /* vec now holds the total: send it around */
            TRY(rtm_send(vec, VEC_LEN * sizeof(*vec), next, 11, RTM_COMM_WORLD));
            TRY(rtm_recv(tmp, VEC_LEN * sizeof(*tmp), prev, 11, RTM_COMM_WORLD, RTM_STATUS_IGNORE));
        } else {
            TRY(rtm_recv(tmp, VEC_LEN * sizeof(*tmp), prev, 10, RTM_COMM_WORLD, RTM_STATUS_IGNORE));
            for (unsigned i = 0; i < VEC_LEN; i++)
                vec[i] += tmp[i];
            TRY(rtm_send(vec, VEC_LEN * sizeof(*vec), next, 10, RTM_COMM_WORLD));
            TRY(rtm_recv(vec, VEC_LEN * sizeof(*vec), prev, 11, RTM_COMM_WORLD, RTM_STATUS_IGNORE));
            /* the last rank hands it back to rank 0, which ends the lap */
            TRY(rtm_send(vec, VEC_LEN * sizeof(*vec), next, 11, RTM_COMM_WORLD));
        }
    }

    /* every element i holds sum((r+1)^2) + N*i */
    expect_sum = (double)size * (size + 1) * (2 * size + 1) / 6.0;
    sum = vec[0];
    for (unsigned i = 0; i < VEC_LEN; i++) {
        if (vec[i] != expect_sum + (double)size * i) {
            fprintf(stderr, "ring: element %u on this process is %.1f, expected %.1f\n", i,
                    vec[i], expect_sum + (double)size * i);
            ok = 0;
            break;
        }
    }
    TRY(rtm_barrier(RTM_COMM_WORLD));

    expect_token = (long)size * (size - 1);
    if (rank == 0) {
        printf("ring: %d ranks on %s, %s\n", size, rtm_hostname(), rtm_version_string());
        printf("ring: token after 2 laps = %ld, expected N(N-1) = %ld: %s\n", token,
               expect_token, token == expect_token ? "OK" : "WRONG");
        printf("ring: allreduce of (rank+1)^2 = %.0f, expected N(N+1)(2N+1)/6 = %.0f: %s\n",
               sum, expect_sum, sum == expect_sum && ok ? "OK" : "WRONG");
        printf("ring: also reduced a %zu KiB vector elementwise: %s; %.3f s in all\n",
               (size_t)VEC_LEN * sizeof(double) / 1024, ok ? "OK" : "WRONG",
               rtm_wtime() - t0);
        if (token != expect_token)
            ok = 0;
    }
    /* each rank checked its own copy of the vector; rank 0 also the token */
    free(vec);
    free(tmp);
    TRY(rtm_finalize());
    return ok ? 0 : 1;
}
