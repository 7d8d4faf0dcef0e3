/*
 * mpi_ops: the predefined reduction ops, element by element, and which
 * algorithm a large MPI_Allreduce takes on one host.
 *
 * Part 1 (every rank, MPI_Reduce_local): each predefined op on each C type
 * it applies to, at lengths 0-40, 63-65, 1000 and 4099 elements, from an
 * aligned start and from one element past it, against the same operation
 * written as a plain loop here: the library's kernels run in blocks the
 * compiler vectorizes (AVX-512/AVX2/SSE2 clones, mpi/op.c), and a wrong
 * block tail, a lane that reads the wrong element or a store past the end
 * shows up as a differing element or a changed guard. Floating MAX/MIN
 * inputs hold NaNs and signed zeros: the result must be the C expression's
 * (a > b ? a : b), bit for bit.
 *
 * Part 2 (2 ranks or more): the MPI_T counter rtm_coll_shm_calls says
 * whether a blocking collective went through the communicator's shared
 * segment. ARGV[1] says what a 64 KiB float-sum Allreduce and an Allgather
 * of 64 KiB blocks must take,
 * "shm" or "ring" (the driver sets RTM_IDLE_WAIT, per rank or for all,
 * and the answer must follow rank 0's view: RTM_MPI_ALLREDUCE_SHM_MAX_OVERSUB
 * and RTM_MPI_ALLGATHER_SHM_MAX_OVERSUB apply when rank 0 found its host
 * oversubscribed, and every rank agrees, or the job would hang); 8 B always
 * takes shm, 1 MiB never. Every result
 * is checked, and Reduce of 1 MiB by each op class.
 */
#include "mpitest.h"

#include <complex.h>
#include <math.h>
#include <stdint.h>

/* A small pseudo-random sequence (the same at every rank). */
static uint64_t rnd_state = 88172645463325252ull;
static int rnd(void)
{
    rnd_state ^= rnd_state << 13;
    rnd_state ^= rnd_state >> 7;
    rnd_state ^= rnd_state << 17;
    return (int)(rnd_state % 7) - 3;   /* -3 .. 3: no overflow in a product of two */
}

static const size_t lens[] = {
    0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24,
    25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 37, 38, 39, 40, 63, 64, 65, 1000, 4099,
};
#define NLENS (sizeof(lens) / sizeof(lens[0]))
#define MAXLEN 4099
#define GUARD 3

enum { K_MAX, K_MIN, K_SUM, K_PROD, K_LAND, K_LOR, K_LXOR, K_BAND, K_BOR, K_BXOR, K_N };
static const MPI_Op op_of[K_N] = { MPI_MAX, MPI_MIN, MPI_SUM, MPI_PROD, MPI_LAND,
                                   MPI_LOR, MPI_LXOR, MPI_BAND, MPI_BOR, MPI_BXOR };
static const char *const op_name[K_N] = { "MAX", "MIN", "SUM", "PROD", "LAND",
                                          "LOR", "LXOR", "BAND", "BOR", "BXOR" };

/* Which ops a class of types takes (MPI 3.1 5.9.2). */
#define OPS_INT   ((1u << K_N) - 1)
#define OPS_FLOAT ((1u << K_MAX) | (1u << K_MIN) | (1u << K_SUM) | (1u << K_PROD))
#define OPS_CPLX  ((1u << K_SUM) | (1u << K_PROD))
#define OPS_BOOL  ((1u << K_LAND) | (1u << K_LOR) | (1u << K_LXOR))
#define OPS_BYTE  ((1u << K_BAND) | (1u << K_BOR) | (1u << K_BXOR))

/* The reference of op k on one element, for the classes that take it. */
#define REF_ARITH(k, x, y) \
    ((k) == K_MAX ? ((x) > (y) ? (x) : (y)) : (k) == K_MIN ? ((x) < (y) ? (x) : (y)) : \
     (k) == K_SUM ? (y) + (x) : (y) * (x))
#define REF_LOGIC(k, x, y) \
    ((k) == K_LAND ? ((x) && (y)) : (k) == K_LOR ? ((x) || (y)) : (!(x) != !(y)))
#define REF_BITS(k, x, y) \
    ((k) == K_BAND ? ((x) & (y)) : (k) == K_BOR ? ((x) | (y)) : ((x) ^ (y)))

static long checked;

/* One C type: every op its class takes, every length, both starts. */
#define TEST_TYPE(_ct, _dt, _ops, _fill, _ref) \
    do { \
        static _ct a[MAXLEN + 1 + GUARD], b[MAXLEN + 1 + GUARD], want[MAXLEN + 1 + GUARD]; \
        for (int k = 0; k < K_N; k++) { \
            if (!((_ops) & (1u << k))) \
                continue; \
            for (size_t li = 0; li < NLENS; li++) \
                for (size_t off = 0; off < 2; off++) { \
                    size_t n = lens[li], bad = 0; \
                    for (size_t i = 0; i < n + off + GUARD; i++) { \
                        _fill(a[i], i); \
                        _fill(b[i], i + 7); \
                    } \
                    memcpy(want, b, sizeof(b)); \
                    for (size_t i = off; i < off + n; i++) \
                        want[i] = (_ct)_ref(k, a[i], b[i]); \
                    CHECK_RC(MPI_Reduce_local(a + off, b + off, (int)n, _dt, op_of[k])); \
                    for (size_t i = 0; i < n + off + GUARD; i++) \
                        if (memcmp(&b[i], &want[i], sizeof(_ct)) != 0) \
                            bad++; \
                    EXPECT(bad == 0, "MPI_%s on %s, %zu elements from element %zu: " \
                           "%zu differ from a plain loop's", op_name[k], #_ct, n, off, bad); \
                    checked++; \
                } \
        } \
    } while (0)

#define FILL_INT(v, i) ((v) = (__typeof__(v))rnd())
#define FILL_UINT(v, i) ((v) = (__typeof__(v))(rnd() + 3))
/* floats: small values, and at some places NaN, -0.0, +0.0 (MAX/MIN) */
#define FILL_FLOAT(v, i) \
    ((v) = (i) % 11 == 3 ? (__typeof__(v))NAN : (i) % 13 == 5 ? (__typeof__(v))-0.0 : \
           (i) % 17 == 2 ? (__typeof__(v))0.0 : (__typeof__(v))rnd() / 4)
#define FILL_CPLX(v, i) ((v) = (__typeof__(v))rnd() + (__typeof__(v))rnd() * I)
#define FILL_BOOL(v, i) ((v) = (__typeof__(v))(rnd() > 0))

#define REF_INT(k, x, y) \
    ((k) <= K_PROD ? REF_ARITH(k, x, y) : (k) <= K_LXOR ? REF_LOGIC(k, x, y) : REF_BITS(k, x, y))
#define REF_FLOAT(k, x, y) REF_ARITH(k, x, y)
#define REF_CPLX(k, x, y) ((k) == K_SUM ? (y) + (x) : (y) * (x))
#define REF_BOOL(k, x, y) REF_LOGIC(k, x, y)
#define REF_BYTE(k, x, y) REF_BITS(k, x, y)

static void test_local(void)
{
    TEST_TYPE(signed char, MPI_SIGNED_CHAR, OPS_INT, FILL_INT, REF_INT);
    TEST_TYPE(unsigned char, MPI_UNSIGNED_CHAR, OPS_INT, FILL_UINT, REF_INT);
    TEST_TYPE(short, MPI_SHORT, OPS_INT, FILL_INT, REF_INT);
    TEST_TYPE(unsigned short, MPI_UNSIGNED_SHORT, OPS_INT, FILL_UINT, REF_INT);
    TEST_TYPE(int, MPI_INT, OPS_INT, FILL_INT, REF_INT);
    TEST_TYPE(unsigned, MPI_UNSIGNED, OPS_INT, FILL_UINT, REF_INT);
    TEST_TYPE(long, MPI_LONG, OPS_INT, FILL_INT, REF_INT);
    TEST_TYPE(unsigned long, MPI_UNSIGNED_LONG, OPS_INT, FILL_UINT, REF_INT);
    TEST_TYPE(long long, MPI_LONG_LONG, OPS_INT, FILL_INT, REF_INT);
    TEST_TYPE(int8_t, MPI_INT8_T, OPS_INT, FILL_INT, REF_INT);
    TEST_TYPE(uint16_t, MPI_UINT16_T, OPS_INT, FILL_UINT, REF_INT);
    TEST_TYPE(int32_t, MPI_INT32_T, OPS_INT, FILL_INT, REF_INT);
    TEST_TYPE(uint64_t, MPI_UINT64_T, OPS_INT, FILL_UINT, REF_INT);
    TEST_TYPE(float, MPI_FLOAT, OPS_FLOAT, FILL_FLOAT, REF_FLOAT);
    TEST_TYPE(double, MPI_DOUBLE, OPS_FLOAT, FILL_FLOAT, REF_FLOAT);
    TEST_TYPE(long double, MPI_LONG_DOUBLE, OPS_FLOAT, FILL_FLOAT, REF_FLOAT);
    TEST_TYPE(float, MPI_REAL, OPS_FLOAT, FILL_FLOAT, REF_FLOAT);
    TEST_TYPE(double, MPI_DOUBLE_PRECISION, OPS_FLOAT, FILL_FLOAT, REF_FLOAT);
    TEST_TYPE(float _Complex, MPI_C_FLOAT_COMPLEX, OPS_CPLX, FILL_CPLX, REF_CPLX);
    TEST_TYPE(double _Complex, MPI_C_DOUBLE_COMPLEX, OPS_CPLX, FILL_CPLX, REF_CPLX);
    TEST_TYPE(_Bool, MPI_C_BOOL, OPS_BOOL, FILL_BOOL, REF_BOOL);
    TEST_TYPE(unsigned char, MPI_BYTE, OPS_BYTE, FILL_UINT, REF_BYTE);
}

/* ---- Part 2: the algorithm of a large Allreduce ---- */

static MPI_T_pvar_session session;
static MPI_T_pvar_handle handle;

static unsigned long long shm_calls(void)
{
    unsigned long long v = 0;

    CHECK_RC(MPI_T_pvar_read(session, handle, &v));
    return v;
}

/* MPI_Allreduce of `bytes` of floats (sum); 1 if it went through shm. */
static int allreduce_path(size_t bytes)
{
    int p = th_size, n = (int)(bytes / sizeof(float)), bad = 0;
    float *in = malloc(bytes), *out = malloc(bytes);

    CHECK(in && out, "out of memory");
    for (int i = 0; i < n; i++)
        in[i] = (float)(th_rank + 1) + (float)(i % 5);
    unsigned long long before = shm_calls();
    CHECK_RC(MPI_Allreduce(in, out, n, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD));
    unsigned long long calls = shm_calls() - before;
    for (int i = 0; i < n; i++)
        if (out[i] != (float)(p * (p + 1) / 2) + (float)(p * (i % 5)))
            bad++;
    EXPECT(bad == 0, "Allreduce of %zu B: %d wrong elements", bytes, bad);
    EXPECT(calls <= 1, "one Allreduce counted %llu shm calls", calls);
    free(in);
    free(out);
    return calls == 1;
}

/* MPI_Allgather of blocks of `bytes`; 1 if it went through shm. */
static int allgather_path(size_t bytes)
{
    int p = th_size, bad = 0;
    unsigned char *in = malloc(bytes), *out = malloc(bytes * (size_t)p);

    CHECK(in && out, "out of memory");
    memset(in, th_rank + 1, bytes);
    unsigned long long before = shm_calls();
    CHECK_RC(MPI_Allgather(in, (int)bytes, MPI_BYTE, out, (int)bytes, MPI_BYTE, MPI_COMM_WORLD));
    unsigned long long calls = shm_calls() - before;
    for (size_t i = 0; i < bytes * (size_t)p; i++)
        bad += out[i] != (unsigned char)(i / bytes + 1);
    EXPECT(bad == 0, "Allgather of %zu B blocks: %d wrong bytes", bytes, bad);
    free(in);
    free(out);
    return calls == 1;
}

/* Reduce of 1 MiB to the last rank by MAX (double), BXOR (int), LAND
 * (int), through whatever path the size takes. */
static void reduce_large(void)
{
    int p = th_size, root = p - 1, n = (1 << 20) / 8, bad = 0;
    double *d = malloc((size_t)n * 8), *dr = malloc((size_t)n * 8);
    int *x = malloc((size_t)n * 8), *xr = malloc((size_t)n * 8);

    CHECK(d && dr && x && xr, "out of memory");
    for (int i = 0; i < n; i++)
        d[i] = (double)((i + th_rank) % p);
    CHECK_RC(MPI_Reduce(d, dr, n, MPI_DOUBLE, MPI_MAX, root, MPI_COMM_WORLD));
    if (th_rank == root)
        for (int i = 0; i < n; i++)
            bad += dr[i] != (double)(p - 1);
    EXPECT(bad == 0, "Reduce MAX of 1 MiB: %d wrong", bad);
    bad = 0;
    for (int i = 0; i < 2 * n; i++)
        x[i] = (i * 31 + 7) ^ (1 << (th_rank % 31));
    CHECK_RC(MPI_Reduce(x, xr, 2 * n, MPI_INT, MPI_BXOR, root, MPI_COMM_WORLD));
    if (th_rank == root)
        for (int i = 0; i < 2 * n; i++) {
            int want = p % 2 ? (i * 31 + 7) : 0;

            for (int r = 0; r < p; r++)
                want ^= 1 << (r % 31);
            bad += xr[i] != want;
        }
    EXPECT(bad == 0, "Reduce BXOR of 1 MiB: %d wrong", bad);
    bad = 0;
    for (int i = 0; i < 2 * n; i++)
        x[i] = i % 3 != 0 || th_rank != p / 2;
    CHECK_RC(MPI_Allreduce(x, xr, 2 * n, MPI_INT, MPI_LAND, MPI_COMM_WORLD));
    for (int i = 0; i < 2 * n; i++)
        bad += xr[i] != (i % 3 != 0);
    EXPECT(bad == 0, "Allreduce LAND of 1 MiB: %d wrong", bad);
    free(d);
    free(dr);
    free(x);
    free(xr);
}

static void test_paths(const char *want64k)
{
    int provided, idx = -1, count = 0;

    CHECK_RC(MPI_T_init_thread(MPI_THREAD_SINGLE, &provided));
    CHECK_RC(MPI_T_pvar_get_index("rtm_coll_shm_calls", MPI_T_PVAR_CLASS_COUNTER, &idx));
    CHECK_RC(MPI_T_pvar_session_create(&session));
    CHECK_RC(MPI_T_pvar_handle_alloc(session, idx, NULL, &handle, &count));
    CHECK_RC(MPI_T_pvar_start(session, handle));
    /* the communicator's first collective that could use a segment goes
     * by messages, its second makes the segment */
    allreduce_path(8);
    allreduce_path(8);
    EXPECT(allreduce_path(8) == 1, "an 8 B Allreduce did not go through shared memory");
    int shm64 = allreduce_path(64 << 10);
    EXPECT(shm64 == !strcmp(want64k, "shm"), "a 64 KiB Allreduce went %s, expected %s",
           shm64 ? "through shared memory" : "by messages", want64k);
    EXPECT(allreduce_path(1 << 20) == 0, "a 1 MiB Allreduce went through shared memory");
    EXPECT(allgather_path(8) == 1, "an Allgather of 8 B blocks did not go through shared memory");
    shm64 = allgather_path(64 << 10);
    EXPECT(shm64 == !strcmp(want64k, "shm"), "an Allgather of 64 KiB blocks went %s, expected %s",
           shm64 ? "through shared memory" : "by messages", want64k);
    EXPECT(allgather_path(1 << 20) == 0, "an Allgather of 1 MiB blocks went through shared memory");
    reduce_large();
    CHECK_RC(MPI_T_pvar_handle_free(session, &handle));
    CHECK_RC(MPI_T_pvar_session_free(&session));
    CHECK_RC(MPI_T_finalize());
}

int main(int argc, char **argv)
{
    mt_init(&argc, &argv);
    test_local();
    EXPECT(checked > 1000, "only %ld op/type/length cases ran", checked);
    if (th_size > 1) {
        CHECK(argc > 1 && (!strcmp(argv[1], "shm") || !strcmp(argv[1], "ring")),
              "usage: mpi_ops shm|ring (what a 64 KiB Allreduce must take)");
        test_paths(argv[1]);
    }
    return mt_finish("mpi_ops");
}
