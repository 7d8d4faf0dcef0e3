/*
 * Access to the configuration table (config_table.h): typed values in
 * rtm_config, loaded from the environment by rtm_config_load().
 */
#ifndef RTM_COMMON_RTCONFIG_H
#define RTM_COMMON_RTCONFIG_H

#include "common/config_table.h"
#include "rtm_status.h"

#include <stddef.h>
#include <stdio.h>

#define RTM_CFG_CTYPE_BOOL   int
#define RTM_CFG_CTYPE_INT    long
#define RTM_CFG_CTYPE_SIZE   size_t
#define RTM_CFG_CTYPE_STRING const char *
#define RTM_CFG_CTYPE_ENUM   int

typedef struct rtm_config {
#define RTM_CFG_FIELD(_name, _field, _type, _def, _choices, _doc) RTM_CFG_CTYPE_##_type _field;
    RTM_CONFIG_TABLE(RTM_CFG_FIELD)
#undef RTM_CFG_FIELD
} rtm_config_t;

extern rtm_config_t rtm_config;

typedef enum rtm_cfg_type {
    RTM_CFG_BOOL, RTM_CFG_INT, RTM_CFG_SIZE, RTM_CFG_STRING, RTM_CFG_ENUM
} rtm_cfg_type_t;

typedef struct rtm_cfg_entry {
    const char    *name;      /* full variable name, RTM_... */
    rtm_cfg_type_t type;
    const char    *def;       /* default, as written in the table */
    const char    *choices;   /* ENUM: "a|b|c"; otherwise NULL */
    const char    *doc;
    size_t         offset;    /* of the field in rtm_config_t */
} rtm_cfg_entry_t;

/* Parse every row from the environment (defaults for unset ones). A value
 * that does not parse is an error naming the variable and what it accepts.
 * Unknown RTM_* variables get a warning naming the closest known one.
 * Safe to call more than once. */
rtm_status_t rtm_config_load(void);
/* The same without the warnings, for processes of which only one should
 * warn (the ranks of a job: rank 0 calls rtm_config_warn_unknown). */
rtm_status_t rtm_config_parse_env(void);
void rtm_config_warn_unknown(void);

const rtm_cfg_entry_t *rtm_config_entries(size_t *count_p);
/* The current value of an entry, formatted ("4096", "warn", ...). */
void rtm_config_format(const rtm_cfg_entry_t *entry, char *buf, size_t len);
/* Parse one value for an entry into *out (the field's C type). */
rtm_status_t rtm_config_parse_value(const rtm_cfg_entry_t *entry, const char *value,
                                    void *out);
/* Parse "64K"-style sizes; returns -1 on error. */
int rtm_parse_size(const char *s, size_t *size_p);
/* The known variable closest to `name` (edit distance), or NULL. */
const char *rtm_config_closest(const char *name);

#endif
