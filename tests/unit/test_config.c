/*
 * Unit test of the configuration table (common/config_load.c): size and
 * value parsing, defaults, environment overrides, errors that name the
 * variable, and the "did you mean" of unknown variables.
 */
#include "config.h"

#include "common/rtconfig.h"
#include "common/error.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures;

#define EXPECT(cond, ...) \
    do { \
        if (!(cond)) { \
            fprintf(stderr, "FAIL %s:%d: %s: ", __FILE__, __LINE__, #cond); \
            fprintf(stderr, __VA_ARGS__); \
            fputc('\n', stderr); \
            failures++; \
        } \
    } while (0)

static const rtm_cfg_entry_t *entry(const char *name)
{
    size_t n;
    const rtm_cfg_entry_t *e = rtm_config_entries(&n);

    for (size_t i = 0; i < n; i++) {
        if (!strcmp(e[i].name, name))
            return &e[i];
    }
    return NULL;
}

static void test_sizes(void)
{
    static const struct { const char *in; int ok; size_t out; } cases[] = {
        {"0", 1, 0}, {"4096", 1, 4096}, {"4K", 1, 4096}, {"4k", 1, 4096},
        {"256K", 1, 262144}, {"1M", 1, 1048576}, {"2G", 1, 2147483648UL},
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
    const rtm_cfg_entry_t *lvl = entry("RTM_LOG_LEVEL");
    const rtm_cfg_entry_t *credits = entry("RTM_EAGER_CREDITS");
    const rtm_cfg_entry_t *eager = entry("RTM_SHM_EAGER_LIMIT");
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

static void test_load(void)
{
    char buf[64];

    unsetenv("RTM_SHM_EAGER_LIMIT");
    setenv("RTM_EAGER_CREDITS", "9", 1);
    setenv("RTM_LOG_LEVEL", "error", 1);
    EXPECT(rtm_config_load() == RTM_OK, "load: %s", rtm_last_error());
    EXPECT(rtm_config.eager_credits == 9, "env override: %ld", rtm_config.eager_credits);
    EXPECT(rtm_config.shm_eager_limit == 4096, "default kept: %zu", rtm_config.shm_eager_limit);
    rtm_config_format(entry("RTM_LOG_LEVEL"), buf, sizeof(buf));
    EXPECT(!strcmp(buf, "error"), "enum formatted by name: %s", buf);

    /* a bad value fails the load and leaves the previous values */
    setenv("RTM_SHM_FIFO_SIZE", "huge", 1);
    EXPECT(rtm_config_load() == RTM_ERR_INVALID_ARG, "bad value fails the load");
    EXPECT(strstr(rtm_last_error(), "RTM_SHM_FIFO_SIZE") != NULL, "names it: %s", rtm_last_error());
    EXPECT(rtm_config.eager_credits == 9, "previous values kept");
    unsetenv("RTM_SHM_FIFO_SIZE");
    unsetenv("RTM_EAGER_CREDITS");
    unsetenv("RTM_LOG_LEVEL");
}

static void test_closest(void)
{
    const char *c = rtm_config_closest("RTM_EAGER_CREDIT");

    EXPECT(c && !strcmp(c, "RTM_EAGER_CREDITS"), "closest to RTM_EAGER_CREDIT: %s", c ? c : "(none)");
    c = rtm_config_closest("RTM_SHM_EAGERLIMIT");
    EXPECT(c && !strcmp(c, "RTM_SHM_EAGER_LIMIT"), "closest to RTM_SHM_EAGERLIMIT: %s", c ? c : "(none)");
    c = rtm_config_closest("RTM_COMPLETELY_DIFFERENT_THING");
    EXPECT(c == NULL, "nothing close: %s", c ? c : "(none)");
}

static void test_defaults_parse(void)
{
    size_t n;
    const rtm_cfg_entry_t *e = rtm_config_entries(&n);

    EXPECT(n > 0, "table not empty");
    for (size_t i = 0; i < n; i++) {
        char scratch[64];

        EXPECT(!strncmp(e[i].name, "RTM_", 4), "%s starts with RTM_", e[i].name);
        EXPECT(e[i].doc && strlen(e[i].doc) > 10, "%s has a doc line", e[i].name);
        EXPECT(rtm_config_parse_value(&e[i], e[i].def, scratch) == RTM_OK,
               "default of %s parses", e[i].name);
    }
}

int main(void)
{
    test_sizes();
    test_values();
    test_load();
    test_closest();
    test_defaults_parse();
    if (failures) {
        fprintf(stderr, "test_config: %d failure(s)\n", failures);
        return 1;
    }
    printf("test_config: all checks passed\n");
    return 0;
}
