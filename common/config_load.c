/*
 * Loading the configuration table from the environment. This file is the
 * only place in librtmsg and rtrun that reads RTM_* variables.
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

rtm_config_t rtm_config;

static const rtm_cfg_entry_t config_entries[] = {
#define RTM_CFG_ENTRY(_name, _field, _type, _def, _choices, _doc) \
    {"RTM_" #_name, RTM_CFG_##_type, _def, _choices, _doc, offsetof(rtm_config_t, _field)},
    RTM_CONFIG_TABLE(RTM_CFG_ENTRY)
#undef RTM_CFG_ENTRY
};

#define NUM_ENTRIES (sizeof(config_entries) / sizeof(config_entries[0]))

const rtm_cfg_entry_t *rtm_config_entries(size_t *count_p)
{
    *count_p = NUM_ENTRIES;
    return config_entries;
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

rtm_status_t rtm_config_parse_value(const rtm_cfg_entry_t *entry, const char *value,
                                    void *out)
{
    char *end;
    long l;
    size_t sz;
    int idx;

    switch (entry->type) {
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
                                 entry->name, value);
        }
        return RTM_OK;
    case RTM_CFG_INT:
        errno = 0;
        l = strtol(value, &end, 10);
        if (errno != 0 || end == value || *end != '\0' || l < 0 || l > INT_MAX)
            return rtm_error_set(RTM_ERR_INVALID_ARG,
                                 "%s=\"%s\" is not a non-negative integer", entry->name,
                                 value);
        *(long *)out = l;
        return RTM_OK;
    case RTM_CFG_SIZE:
        if (rtm_parse_size(value, &sz) != 0)
            return rtm_error_set(RTM_ERR_INVALID_ARG,
                                 "%s=\"%s\" is not a size (bytes, optionally with a K, M or G suffix, e.g. 64K)",
                                 entry->name, value);
        *(size_t *)out = sz;
        return RTM_OK;
    case RTM_CFG_STRING:
        *(const char **)out = value;
        return RTM_OK;
    case RTM_CFG_ENUM:
        idx = choice_index(entry->choices, value);
        if (idx < 0)
            return rtm_error_set(RTM_ERR_INVALID_ARG, "%s=\"%s\" is not one of %s",
                                 entry->name, value, entry->choices);
        *(int *)out = idx;
        return RTM_OK;
    }
    return RTM_ERR_INTERNAL;
}

void rtm_config_format(const rtm_cfg_entry_t *entry, char *buf, size_t len)
{
    const char *field = (const char *)&rtm_config + entry->offset;
    const char *p;
    int idx;

    switch (entry->type) {
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
        p = entry->choices;
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

    for (size_t i = 0; i < NUM_ENTRIES; i++) {
        size_t d = edit_distance(name, config_entries[i].name);

        if (d < best_dist) {
            best_dist = d;
            best = config_entries[i].name;
        }
    }
    return best_dist <= 4 ? best : NULL;
}

static const rtm_cfg_entry_t *find_entry(const char *name, size_t len)
{
    for (size_t i = 0; i < NUM_ENTRIES; i++) {
        if (strlen(config_entries[i].name) == len &&
            strncmp(config_entries[i].name, name, len) == 0)
            return &config_entries[i];
    }
    return NULL;
}

void rtm_config_warn_unknown(void)
{
    for (char **env = environ; env && *env; env++) {
        const char *eq = strchr(*env, '=');
        char name[128];
        const char *closest;

        if (strncmp(*env, "RTM_", 4) != 0 || eq == NULL)
            continue;
        if (find_entry(*env, (size_t)(eq - *env)) != NULL)
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

rtm_status_t rtm_config_load(void)
{
    rtm_status_t status = rtm_config_parse_env();

    if (status == RTM_OK)
        rtm_config_warn_unknown();
    return status;
}

rtm_status_t rtm_config_parse_env(void)
{
    rtm_config_t fresh;
    rtm_status_t status;

    memset(&fresh, 0, sizeof(fresh));
    for (size_t i = 0; i < NUM_ENTRIES; i++) {
        const rtm_cfg_entry_t *e = &config_entries[i];
        void *field = (char *)&fresh + e->offset;

        status = rtm_config_parse_value(e, e->def, field);
        if (status != RTM_OK)
            return rtm_error_set(RTM_ERR_INTERNAL, "bad default for %s", e->name);
    }
    for (size_t i = 0; i < NUM_ENTRIES; i++) {
        const rtm_cfg_entry_t *e = &config_entries[i];
        const char *value = getenv(e->name);

        if (value == NULL)
            continue;
        status = rtm_config_parse_value(e, value, (char *)&fresh + e->offset);
        if (status != RTM_OK) {
            rtm_error("%s", rtm_last_error());
            return status;
        }
    }
    rtm_config = fresh;
    rtm_log_level = (rtm_log_level_t)rtm_config.log_level;
    return RTM_OK;
}
