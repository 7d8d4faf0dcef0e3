/*
 * Fuzz target: RTM_* values from the environment (common/config_parse.c and
 * every component's table, runtime/rt_config.c lists them), and what
 * parses a value further: RTM_TCP_IF's interface list
 * (transport/tcp/tcp_ifsel.c, on this host's interfaces). The input is
 * NUL-separated "NAME=VALUE" strings (at most 4): a NAME whose first byte
 * is below 0x20 names a registered row (its index), any other is taken as
 * typed (RTM_ prefix or not, known or not). They are put in the
 * environment, every table is registered (parsed), unknown names are
 * warned about, every row is formatted back; then the environment is as
 * before and the tables back to their defaults.
 */
#include "config.h"

#include "common/rtconfig.h"
#include "runtime/rt_config.h"
#include "transport/tcp/tcp.h"
#include "transport/tcp/tcp_config.h"
#include "tests/fuzz/fuzz.h"

/* each unknown name costs an edit distance to every row: a few do */
#define FZ_MAX_VARS 4

static const rtm_cfg_row_t *row_by_index(unsigned index)
{
    unsigned n = 0;

    for (const rtm_cfg_table_t *t = rtm_config_tables(); t != NULL; t = t->next)
        n += (unsigned)t->num_rows;
    index %= n;
    for (const rtm_cfg_table_t *t = rtm_config_tables(); t != NULL; t = t->next) {
        if (index < t->num_rows)
            return &t->rows[index];
        index -= (unsigned)t->num_rows;
    }
    return NULL;
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    /* the suite's own environment holds no RTM_* name (docs/testing.md) */
    rtm_lib_config_register();
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fz_in_t in = fz_in(data, size);
    char *names[FZ_MAX_VARS];
    int nvars = 0;

    while (in.left > 0 && nvars < FZ_MAX_VARS) {
        char *s = fz_str(&in), *eq, *name;
        const char *value;

        if (s == NULL)
            break;
        eq = strchr(s, '=');
        value = eq ? eq + 1 : "";
        if (eq)
            *eq = '\0';
        if ((unsigned char)s[0] < 0x20 && s[0] != '\0')
            name = strdup(row_by_index((unsigned char)s[0])->name);
        else
            name = strdup(s);
        /* setenv refuses an empty name; a name already set is left alone */
        if (name == NULL || name[0] == '\0' || getenv(name) != NULL ||
            setenv(name, value, 1) != 0) {
            free(name);
            free(s);
            continue;
        }
        free(s);
        names[nvars++] = name;
    }
    rtm_lib_config_register();
    rtm_config_warn_unknown();
    for (const rtm_cfg_table_t *t = rtm_config_tables(); t != NULL; t = t->next) {
        for (size_t i = 0; i < t->num_rows; i++) {
            char buf[256];

            rtm_config_format(t, &t->rows[i], buf, sizeof(buf));
            FZ_CHECK(memchr(buf, '\0', sizeof(buf)) != NULL);
            rtm_config_format_range(&t->rows[i], buf, sizeof(buf));
            FZ_CHECK(rtm_config_find(t->rows[i].name, NULL) == &t->rows[i]);
        }
    }
    {
        tcp_ifaddr_t addrs[TCP_MAX_ADDRS];
        int n = -1;

        if (tcp_ifsel(tcp_config.interfaces, (int)(size & 1), addrs, TCP_MAX_ADDRS, &n) ==
            RTM_OK)
            FZ_CHECK(n >= 0 && n <= TCP_MAX_ADDRS);
    }
    for (int i = 0; i < nvars; i++) {
        unsetenv(names[i]);
        free(names[i]);
    }
    rtm_lib_config_register();   /* the defaults again: no value points into the input */
    return 0;
}
