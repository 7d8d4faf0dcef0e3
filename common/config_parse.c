/*
 * The configuration parser: registered tables, parsing and range checks,
 * formatting, the unknown-variable warning. This file is the only place in
 * librtmsg and rtrun that reads RTM_* variables; the rows live in the
 * tables of the components they tune (see common/rtconfig.h).
 */
#include "config.h"

#include "common/rtconfig.h"
#include "common/error.h"
#include "common/log.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

extern char **environ;

/* common's own rows */
typedef struct common_config {
    int log_level;   /* rtm_log_level_t */
} common_config_t;

static common_config_t common_config;

static const rtm_cfg_row_t common_config_rows[] = {
    RTM_CFG_ROW(LOG_LEVEL, common_config_t, log_level, ENUM, "warn",
                "error|warn|info|debug|trace", 0, 0,
                "Lowest severity of the messages a rank or rtrun prints on stderr"),
};

static rtm_cfg_table_t common_config_table =
    RTM_CFG_TABLE_INIT("common", "logging", common_config_rows, common_config);

/* Registered tables, in order; common's first once anything registered. */
static rtm_cfg_table_t *tables;

const rtm_cfg_table_t *rtm_config_tables(void)
{
    return tables;
}

int rtm_parse_size(const char *s, size_t *size_p)
{
    char *end;
    unsigned long long v;
    unsigned shift = 0;

    if (s == NULL || !isdigit((unsigned char)*s))
        return -1;
    errno = 0;
    v = strtoull(s, &end, 10);
    if (errno != 0)
        return -1;
    switch (toupper((unsigned char)*end)) {
    case '\0': break;
    case 'K': shift = 10; end++; break;
    case 'M': shift = 20; end++; break;
    case 'G': shift = 30; end++; break;
    case 'T': shift = 40; end++; break;   /* the ranges say 1T: it must parse */
    default: return -1;
    }
    if (toupper((unsigned char)*end) == 'B' || toupper((unsigned char)*end) == 'I')
        end += (toupper((unsigned char)end[0]) == 'I' && toupper((unsigned char)end[1]) == 'B') ? 2 : 1;
    if (*end != '\0' || v > (SIZE_MAX >> shift))
        return -1;
    *size_p = (size_t)(v << shift);
    return 0;
}

static int choice_index(const char *choices, const char *value)
{
    size_t vlen = strlen(value);
    int index = 0;
    const char *p = choices;

    while (*p != '\0') {
        const char *bar = strchr(p, '|');
        size_t len = bar ? (size_t)(bar - p) : strlen(p);

        if (len == vlen && strncasecmp(p, value, len) == 0)
            return index;
        index++;
        if (bar == NULL)
            break;
        p = bar + 1;
    }
    return -1;
}

static void format_bound(rtm_cfg_type_t type, long long v, char *buf, size_t len)
{
    static const char suffix[] = "KMGT";
    int unit = -1;

    /* sizes as a user writes them: 8K, not 8192 */
    while (type == RTM_CFG_SIZE && v != 0 && v % 1024 == 0 && unit < 3) {
        v /= 1024;
        unit++;
    }
    if (unit >= 0)
        snprintf(buf, len, "%lld%c", v, suffix[unit]);
    else
        snprintf(buf, len, "%lld", v);
}

void rtm_config_format_range(const rtm_cfg_row_t *row, char *buf, size_t len)
{
    char lo[32], hi[32];

    format_bound(row->type, row->min, lo, sizeof(lo));
    format_bound(row->type, row->max, hi, sizeof(hi));
    snprintf(buf, len, "%s..%s", lo, hi);
}

static rtm_status_t out_of_range(const rtm_cfg_row_t *row, const char *value)
{
    char range[80];

    rtm_config_format_range(row, range, sizeof(range));
    return rtm_error_set(RTM_ERR_INVALID_ARG, "%s=\"%s\" is out of range: expected %s",
                         row->name, value, range);
}

rtm_status_t rtm_config_parse_value(const rtm_cfg_row_t *row, const char *value, void *out)
{
    char *end;
    long l;
    size_t sz;
    int idx;

    switch (row->type) {
    case RTM_CFG_BOOL:
        if (!strcmp(value, "1") || !strcasecmp(value, "yes") || !strcasecmp(value, "true") ||
            !strcasecmp(value, "on")) {
            *(int *)out = 1;
        } else if (!strcmp(value, "0") || !strcasecmp(value, "no") ||
                   !strcasecmp(value, "false") || !strcasecmp(value, "off")) {
            *(int *)out = 0;
        } else {
            return rtm_error_set(RTM_ERR_INVALID_ARG,
                                 "%s=\"%s\" is not a boolean (use 1/0, yes/no, on/off)",
                                 row->name, value);
        }
        return RTM_OK;
    case RTM_CFG_INT:
        errno = 0;
        l = strtol(value, &end, 10);
        if (errno != 0 || end == value || *end != '\0')
            return rtm_error_set(RTM_ERR_INVALID_ARG, "%s=\"%s\" is not an integer", row->name,
                                 value);
        if (l < row->min || l > row->max)
            return out_of_range(row, value);
        *(long *)out = l;
        return RTM_OK;
    case RTM_CFG_SIZE:
        if (rtm_parse_size(value, &sz) != 0)
            return rtm_error_set(RTM_ERR_INVALID_ARG,
                                 "%s=\"%s\" is not a size (bytes, optionally with a K, M, G or T suffix, e.g. 64K)",
                                 row->name, value);
        if (sz < (unsigned long long)row->min || sz > (unsigned long long)row->max)
            return out_of_range(row, value);
        *(size_t *)out = sz;
        return RTM_OK;
    case RTM_CFG_STRING:
        *(const char **)out = value;
        return RTM_OK;
    case RTM_CFG_ENUM:
        idx = choice_index(row->choices, value);
        if (idx < 0)
            return rtm_error_set(RTM_ERR_INVALID_ARG, "%s=\"%s\" is not one of %s",
                                 row->name, value, row->choices);
        *(int *)out = idx;
        return RTM_OK;
    }
    return RTM_ERR_INTERNAL;
}

void rtm_config_format(const rtm_cfg_table_t *table, const rtm_cfg_row_t *row, char *buf,
                       size_t len)
{
    const char *field = (const char *)table->values + row->offset;
    const char *p;
    int idx;

    switch (row->type) {
    case RTM_CFG_BOOL:
        snprintf(buf, len, "%s", *(const int *)field ? "1" : "0");
        return;
    case RTM_CFG_INT:
        snprintf(buf, len, "%ld", *(const long *)field);
        return;
    case RTM_CFG_SIZE:
        snprintf(buf, len, "%zu", *(const size_t *)field);
        return;
    case RTM_CFG_STRING:
        snprintf(buf, len, "%s", *(const char *const *)field ? *(const char *const *)field : "");
        return;
    case RTM_CFG_ENUM:
        idx = *(const int *)field;
        p = row->choices;
        while (idx-- > 0 && (p = strchr(p, '|')) != NULL)
            p++;
        snprintf(buf, len, "%.*s", p ? (int)strcspn(p, "|") : 1, p ? p : "?");
        return;
    }
}

static size_t edit_distance(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    size_t row[64];

    if (lb >= 63 || la >= 63)
        return SIZE_MAX;
    for (size_t j = 0; j <= lb; j++)
        row[j] = j;
    for (size_t i = 1; i <= la; i++) {
        size_t diag = row[0];

        row[0] = i;
        for (size_t j = 1; j <= lb; j++) {
            size_t up = row[j];
            size_t best = diag + (toupper((unsigned char)a[i - 1]) !=
                                  toupper((unsigned char)b[j - 1]));

            if (row[j] + 1 < best)
                best = row[j] + 1;
            if (row[j - 1] + 1 < best)
                best = row[j - 1] + 1;
            row[j] = best;
            diag = up;
        }
    }
    return row[lb];
}

const char *rtm_config_closest(const char *name)
{
    const char *best = NULL;
    size_t best_dist = SIZE_MAX;

    for (const rtm_cfg_table_t *t = tables; t != NULL; t = t->next) {
        for (size_t i = 0; i < t->num_rows; i++) {
            size_t d = edit_distance(name, t->rows[i].name);

            if (d < best_dist) {
                best_dist = d;
                best = t->rows[i].name;
            }
        }
    }
    return best_dist <= 4 ? best : NULL;
}

static const rtm_cfg_row_t *find_row(const char *name, size_t len,
                                     const rtm_cfg_table_t **table_p)
{
    for (const rtm_cfg_table_t *t = tables; t != NULL; t = t->next) {
        for (size_t i = 0; i < t->num_rows; i++) {
            if (strlen(t->rows[i].name) == len && strncmp(t->rows[i].name, name, len) == 0) {
                if (table_p != NULL)
                    *table_p = t;
                return &t->rows[i];
            }
        }
    }
    return NULL;
}

const rtm_cfg_row_t *rtm_config_find(const char *name, const rtm_cfg_table_t **table_p)
{
    return find_row(name, strlen(name), table_p);
}

void rtm_config_warn_unknown(void)
{
    for (char **env = environ; env && *env; env++) {
        const char *eq = strchr(*env, '=');
        char name[128];
        const char *closest;

        if (strncmp(*env, "RTM_", 4) != 0 || eq == NULL)
            continue;
        if (find_row(*env, (size_t)(eq - *env), NULL) != NULL)
            continue;
        snprintf(name, sizeof(name), "%.*s", (int)(eq - *env), *env);
        closest = rtm_config_closest(name);
        if (closest)
            rtm_warn("unknown variable %s in the environment (did you mean %s?); "
                     "rtm_info lists every RTM_* variable", name, closest);
        else
            rtm_warn("unknown variable %s in the environment; rtm_info lists every "
                     "RTM_* variable", name);
    }
}

/* Any field of any row type. */
typedef union cfg_value {
    int         i;
    long        l;
    size_t      sz;
    const char *s;
} cfg_value_t;

static size_t value_size(rtm_cfg_type_t type)
{
    switch (type) {
    case RTM_CFG_INT:    return sizeof(long);
    case RTM_CFG_SIZE:   return sizeof(size_t);
    case RTM_CFG_STRING: return sizeof(const char *);
    default:             return sizeof(int);
    }
}

/* Defaults into a table's struct the first time it is seen. */
static void table_defaults(rtm_cfg_table_t *table)
{
    cfg_value_t v;

    if (table->registered)
        return;
    for (size_t i = 0; i < table->num_rows; i++) {
        const rtm_cfg_row_t *row = &table->rows[i];

        memset(&v, 0, sizeof(v));
        if (rtm_config_parse_value(row, row->def, &v) != RTM_OK)
            rtm_error("config: bad default for %s: %s", row->name, rtm_last_error());
        memcpy((char *)table->values + row->offset, &v, value_size(row->type));
    }
}

/* Every row's value from the environment (or its default) into the
 * table's struct; nothing is written unless every row parses. */
static rtm_status_t table_parse(rtm_cfg_table_t *table)
{
    rtm_status_t status;
    cfg_value_t v;

    for (size_t i = 0; i < table->num_rows; i++) {
        const rtm_cfg_row_t *row = &table->rows[i];
        const char *value = getenv(row->name);

        status = rtm_config_parse_value(row, value ? value : row->def, &v);
        if (status != RTM_OK) {
            if (value == NULL)
                return rtm_error_set(RTM_ERR_INTERNAL, "config: bad default for %s: %s",
                                     row->name, rtm_last_error());
            return status;
        }
    }
    for (size_t i = 0; i < table->num_rows; i++) {
        const rtm_cfg_row_t *row = &table->rows[i];
        const char *value = getenv(row->name);

        rtm_config_parse_value(row, value ? value : row->def, &v);
        memcpy((char *)table->values + row->offset, &v, value_size(row->type));
    }
    return RTM_OK;
}

static void table_keep(rtm_cfg_table_t *table)
{
    rtm_cfg_table_t **tail = &tables;

    if (table->registered)
        return;
    while (*tail != NULL)
        tail = &(*tail)->next;
    table->next = NULL;
    *tail = table;
    table->registered = 1;
}

static rtm_status_t table_register(rtm_cfg_table_t *table)
{
    rtm_status_t status;

    table_defaults(table);
    table_keep(table);
    status = table_parse(table);
    if (status != RTM_OK)
        rtm_error("%s", rtm_last_error());
    return status;
}

rtm_status_t rtm_config_register(rtm_cfg_table_t *table)
{
    rtm_status_t status = RTM_OK;

    if (!common_config_table.registered || table == NULL) {
        status = table_register(&common_config_table);
        if (status == RTM_OK)
            rtm_log_level = (rtm_log_level_t)common_config.log_level;
    }
    if (table == NULL)
        return status;
    if (status != RTM_OK) {
        /* keep the table's names known; its values stay as they were */
        table_defaults(table);
        table_keep(table);
        return status;
    }
    return table_register(table);
}
