/*
 * Unit test of the config parser (common/config_parse.c) and of every
 * component's rows: size and value parsing, ranges (a value outside one is
 * an error naming the variable, the value and the range), defaults,
 * environment overrides, registration of a component's table at any time,
 * and the "did you mean" of unknown variables across all tables.
 */
#include "config.h"

#include "common/rtconfig.h"
#include "common/error.h"
#include "common/log.h"
#include "runtime/rt_config.h"
#include "transport/shm/shm_config.h"
#include "launcher/launcher_config.h"
#include "tests/harness.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const rtm_cfg_row_t *row(const char *name)
{
    return rtm_config_find(name, NULL);
}

/* A component of the test's own, registered late (as a transport module
 * registers its table when it is loaded). */
typedef struct late_config {
    long   spin;
    size_t slot;
} late_config_t;

static late_config_t late_config;

static const rtm_cfg_row_t late_rows[] = {
    RTM_CFG_ROW(TEST_LATE_SPIN, late_config_t, spin, INT, "5", NULL, -3, 7,
                "test: an integer row with a range that includes negative numbers"),
    RTM_CFG_ROW(TEST_LATE_SLOT, late_config_t, slot, SIZE, "256", NULL, 64, 8 * RTM_CFG_KIB,
                "test: a size row with a range"),
};

static rtm_cfg_table_t late_table = RTM_CFG_TABLE_INIT("late", "a test component", late_rows,
                                                       late_config);

static void test_sizes(void)
{
    static const struct { const char *in; int ok; size_t out; } cases[] = {
        {"0", 1, 0}, {"4096", 1, 4096}, {"4K", 1, 4096}, {"4k", 1, 4096},
        {"256K", 1, 262144}, {"1M", 1, 1048576}, {"2G", 1, 2147483648UL},
        {"1T", 1, 1099511627776UL}, {"1t", 1, 1099511627776UL}, {"1TiB", 1, 1099511627776UL},
        {"16777216T", 0, 0},
        {"8KiB", 1, 8192}, {"8KB", 1, 8192},
        {"", 0, 0}, {"K", 0, 0}, {"-1", 0, 0}, {"12Q", 0, 0}, {"1.5M", 0, 0},
        {"99999999999999999999", 0, 0}, {"4K junk", 0, 0},
    };

    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        size_t v = 12345;
        int rc = rtm_parse_size(cases[i].in, &v);

        EXPECT((rc == 0) == cases[i].ok, "parse \"%s\": rc %d", cases[i].in, rc);
        if (cases[i].ok)
            EXPECT(v == cases[i].out, "parse \"%s\": %zu, want %zu", cases[i].in, v, cases[i].out);
    }
}

static void test_values(void)
{
    const rtm_cfg_row_t *lvl = row("RTM_LOG_LEVEL");
    const rtm_cfg_row_t *credits = row("RTM_EAGER_CREDITS");
    const rtm_cfg_row_t *eager = row("RTM_SHM_EAGER_LIMIT");
    int idx = -1;
    long l = -1;
    size_t sz = 0;

    EXPECT(lvl && credits && eager, "table rows exist");
    if (!lvl || !credits || !eager)
        return;
    EXPECT(rtm_config_parse_value(lvl, "debug", &idx) == RTM_OK && idx == 3, "enum debug -> 3 (%d)", idx);
    EXPECT(rtm_config_parse_value(lvl, "DEBUG", &idx) == RTM_OK && idx == 3, "enum is case-insensitive");
    EXPECT(rtm_config_parse_value(lvl, "loud", &idx) == RTM_ERR_INVALID_ARG, "bad enum rejected");
    EXPECT(strstr(rtm_last_error(), "RTM_LOG_LEVEL") && strstr(rtm_last_error(), "error|warn"),
           "error names the variable and the choices: %s", rtm_last_error());
    EXPECT(rtm_config_parse_value(credits, "17", &l) == RTM_OK && l == 17, "int 17");
    EXPECT(rtm_config_parse_value(credits, "-3", &l) == RTM_ERR_INVALID_ARG, "negative int rejected");
    EXPECT(rtm_config_parse_value(credits, "12abc", &l) == RTM_ERR_INVALID_ARG, "junk int rejected");
    EXPECT(strstr(rtm_last_error(), "RTM_EAGER_CREDITS") != NULL, "names the variable: %s", rtm_last_error());
    EXPECT(rtm_config_parse_value(eager, "8K", &sz) == RTM_OK && sz == 8192, "size 8K");
    EXPECT(rtm_config_parse_value(eager, "lots", &sz) == RTM_ERR_INVALID_ARG, "bad size rejected");
}

/* Every INT/SIZE row has a range, checked at parse time, and the error
 * names the variable, the value and the range. */
static void test_ranges(void)
{
    const rtm_cfg_row_t *spin = row("RTM_POLL_SPIN");
    const rtm_cfg_row_t *credits = row("RTM_EAGER_CREDITS");
    const rtm_cfg_row_t *slot = row("RTM_VERBS_ERDMA_SLOT_SIZE");
    const rtm_cfg_row_t *fifo = row("RTM_SHM_FIFO_SIZE");
    char range[80];
    long l = 12345;
    size_t sz = 12345;

    EXPECT(spin && credits && slot && fifo, "rows exist");
    if (!spin || !credits || !slot || !fifo)
        return;
    /* a negative spin count must never reach the unsigned comparison in
     * the idle loop (the rank would never yield) */
    EXPECT(rtm_config_parse_value(spin, "-1", &l) == RTM_ERR_INVALID_ARG && l == 12345,
           "negative RTM_POLL_SPIN rejected");
    EXPECT(strstr(rtm_last_error(), "RTM_POLL_SPIN=\"-1\"") &&
           strstr(rtm_last_error(), "0..1000000000"), "names variable, value, range: %s",
           rtm_last_error());
    EXPECT(rtm_config_parse_value(spin, "1000000001", &l) == RTM_ERR_INVALID_ARG,
           "RTM_POLL_SPIN above its maximum rejected");
    EXPECT(rtm_config_parse_value(spin, "0", &l) == RTM_OK && l == 0, "RTM_POLL_SPIN=0 (minimum)");
    EXPECT(rtm_config_parse_value(credits, "0", &l) == RTM_ERR_INVALID_ARG,
           "RTM_EAGER_CREDITS=0 rejected (no sender could ever send)");
    EXPECT(strstr(rtm_last_error(), "1..65535"), "credits range: %s", rtm_last_error());
    EXPECT(rtm_config_parse_value(slot, "32", &sz) == RTM_ERR_INVALID_ARG &&
           rtm_config_parse_value(slot, "16K", &sz) == RTM_ERR_INVALID_ARG,
           "slot size outside 64..8K rejected");
    EXPECT(strstr(rtm_last_error(), "RTM_VERBS_ERDMA_SLOT_SIZE=\"16K\"") &&
           strstr(rtm_last_error(), "64..8K"), "range written with a suffix: %s", rtm_last_error());
    EXPECT(rtm_config_parse_value(slot, "8K", &sz) == RTM_OK && sz == 8192, "8K (maximum)");
    rtm_config_format_range(fifo, range, sizeof(range));
    EXPECT(!strcmp(range, "8K..1G"), "fifo range %s", range);
    EXPECT(rtm_config_parse_value(late_rows, "-3", &l) == RTM_OK && l == -3,
           "a range may include negative numbers");
    EXPECT(rtm_config_parse_value(late_rows, "-4", &l) == RTM_ERR_INVALID_ARG, "below -3");
}

static void test_register(void)
{
    char buf[64];

    unsetenv("RTM_SHM_EAGER_LIMIT");
    setenv("RTM_EAGER_CREDITS", "9", 1);
    setenv("RTM_LOG_LEVEL", "error", 1);
    EXPECT(rtm_config_register(NULL) == RTM_OK, "common: %s", rtm_last_error());
    EXPECT(rtm_log_level == RTM_LOG_ERROR, "log level applied: %d", (int)rtm_log_level);
    EXPECT(rtm_lib_config_register() == RTM_OK, "register: %s", rtm_last_error());
    EXPECT(rt_config.eager_credits == 9, "env override: %ld", rt_config.eager_credits);
    EXPECT(shm_config.eager_limit == 4096, "default kept: %zu", shm_config.eager_limit);
    {
        const rtm_cfg_table_t *t = NULL;
        const rtm_cfg_row_t *r = rtm_config_find("RTM_LOG_LEVEL", &t);

        EXPECT(r && t && !strcmp(t->component, "common"), "RTM_LOG_LEVEL is common's");
        if (r && t) {
            rtm_config_format(t, r, buf, sizeof(buf));
            EXPECT(!strcmp(buf, "error"), "enum formatted by name: %s", buf);
        }
    }

    /* a bad value fails the registration and leaves the previous values */
    setenv("RTM_SHM_FIFO_SIZE", "huge", 1);
    setenv("RTM_SHM_EAGER_LIMIT", "1K", 1);
    EXPECT(rtm_config_register(&shm_config_table) == RTM_ERR_INVALID_ARG, "bad value fails");
    EXPECT(strstr(rtm_last_error(), "RTM_SHM_FIFO_SIZE") != NULL, "names it: %s", rtm_last_error());
    EXPECT(shm_config.eager_limit == 4096, "previous values kept: %zu", shm_config.eager_limit);
    unsetenv("RTM_SHM_FIFO_SIZE");
    EXPECT(rtm_config_register(&shm_config_table) == RTM_OK, "re-read: %s", rtm_last_error());
    EXPECT(shm_config.eager_limit == 1024, "registering again re-reads: %zu",
           shm_config.eager_limit);

    /* rtrun's rows are ranged too (rtrun fails on them) */
    setenv("RTM_LAUNCH_TIMEOUT", "0", 1);
    EXPECT(rtm_config_register(&launcher_config_table) == RTM_ERR_INVALID_ARG,
           "RTM_LAUNCH_TIMEOUT=0 rejected");
    EXPECT(strstr(rtm_last_error(), "RTM_LAUNCH_TIMEOUT=\"0\"") &&
           strstr(rtm_last_error(), "1..86400"), "message: %s", rtm_last_error());
    EXPECT(launcher_config.launch_timeout == 60, "default kept: %ld",
           launcher_config.launch_timeout);
    unsetenv("RTM_LAUNCH_TIMEOUT");

    /* a table registered late: defaults, then the environment; a bad value
     * leaves the defaults and the names known */
    setenv("RTM_TEST_LATE_SLOT", "32", 1);
    EXPECT(rtm_config_register(&late_table) == RTM_ERR_INVALID_ARG, "late: bad slot");
    EXPECT(late_config.spin == 5 && late_config.slot == 256, "late: defaults %ld %zu",
           late_config.spin, late_config.slot);
    EXPECT(row("RTM_TEST_LATE_SLOT") != NULL, "late: names known after a bad value");
    setenv("RTM_TEST_LATE_SLOT", "4K", 1);
    setenv("RTM_TEST_LATE_SPIN", "-2", 1);
    EXPECT(rtm_config_register(&late_table) == RTM_OK, "late: %s", rtm_last_error());
    EXPECT(late_config.spin == -2 && late_config.slot == 4096, "late: %ld %zu",
           late_config.spin, late_config.slot);
    {
        int n = 0;

        for (const rtm_cfg_table_t *t = rtm_config_tables(); t != NULL; t = t->next)
            n += (t == &late_table);
        EXPECT(n == 1, "registered once however often: %d", n);
    }
    unsetenv("RTM_TEST_LATE_SLOT");
    unsetenv("RTM_TEST_LATE_SPIN");
    unsetenv("RTM_SHM_EAGER_LIMIT");
    unsetenv("RTM_EAGER_CREDITS");
    unsetenv("RTM_LOG_LEVEL");
    rtm_config_register(NULL);
    rtm_lib_config_register();
}

static void test_closest(void)
{
    const char *c = rtm_config_closest("RTM_EAGER_CREDIT");

    EXPECT(c && !strcmp(c, "RTM_EAGER_CREDITS"), "closest to RTM_EAGER_CREDIT: %s", c ? c : "(none)");
    c = rtm_config_closest("RTM_SHM_EAGERLIMIT");
    EXPECT(c && !strcmp(c, "RTM_SHM_EAGER_LIMIT"), "closest to RTM_SHM_EAGERLIMIT: %s", c ? c : "(none)");
    c = rtm_config_closest("RTM_LAUNCH_TIMOUT");
    EXPECT(c && !strcmp(c, "RTM_LAUNCH_TIMEOUT"), "across tables: %s", c ? c : "(none)");
    c = rtm_config_closest("RTM_TEST_LATE_SPN");
    EXPECT(c && !strcmp(c, "RTM_TEST_LATE_SPIN"), "a late table's rows: %s", c ? c : "(none)");
    c = rtm_config_closest("RTM_COMPLETELY_DIFFERENT_THING");
    EXPECT(c == NULL, "nothing close: %s", c ? c : "(none)");
}

/* Every product row: named RTM_*, documented, its default parses and lies
 * in its range, INT/SIZE rows have a real range, and no name is in two
 * tables. */
static void test_rows(void)
{
    size_t total = 0;

    for (const rtm_cfg_table_t *t = rtm_config_tables(); t != NULL; t = t->next) {
        if (t == &late_table)
            continue;
        EXPECT(t->component && t->title && t->num_rows > 0, "table %s", t->component);
        for (size_t i = 0; i < t->num_rows; i++) {
            const rtm_cfg_row_t *e = &t->rows[i];
            char scratch[64];

            total++;
            EXPECT(!strncmp(e->name, "RTM_", 4), "%s starts with RTM_", e->name);
            EXPECT(e->doc && strlen(e->doc) > 10, "%s has a doc line", e->name);
            EXPECT(rtm_config_parse_value(e, e->def, scratch) == RTM_OK,
                   "default of %s parses: %s", e->name, rtm_last_error());
            EXPECT(rtm_config_find(e->name, NULL) == e, "%s is in one table", e->name);
            if (e->type == RTM_CFG_INT || e->type == RTM_CFG_SIZE)
                EXPECT(e->min < e->max && e->min >= 0, "%s has a range: %lld..%lld", e->name,
                       e->min, e->max);
            if (e->type == RTM_CFG_INT)
                EXPECT(e->max <= INT_MAX, "%s fits an int: %lld", e->name, e->max);
            EXPECT((e->type == RTM_CFG_ENUM) == (e->choices != NULL), "%s choices", e->name);
        }
    }
    EXPECT(total == 61, "every row registered: %zu", total);
}

int main(void)
{
    th_name = "test_config";
    test_sizes();
    test_register();
    test_values();
    test_ranges();
    test_closest();
    test_rows();
    if (th_failures > 0)
        TH_RETURN();
    printf("test_config: all checks passed\n");
    return 0;
}
