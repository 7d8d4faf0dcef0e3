/*
 * The configuration parser. Every RTM_* environment variable is one row of
 * the table of the component it tunes (runtime/rt_config.c,
 * transport/shm/shm_config.c, ...): name, type, default, choices or range,
 * one-line doc, and where its value goes in that component's own struct,
 * which hot paths read directly (shm_config.eager_limit). A component
 * registers its table with rtm_config_register(); the parser fills the
 * struct from the environment and keeps the table, so rtm_info, the config
 * reference (docs/config.md) and the unknown-variable warning see every
 * registered row. Nothing else reads RTM_* variables; common/ names no
 * component's rows but its own (RTM_LOG_LEVEL).
 */
#ifndef RTM_COMMON_RTCONFIG_H
#define RTM_COMMON_RTCONFIG_H

#include "rtm_status.h"

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

typedef enum rtm_cfg_type {
    RTM_CFG_BOOL,     /* 1/0, yes/no, true/false, on/off */
    RTM_CFG_INT,      /* decimal, within [min, max] */
    RTM_CFG_SIZE,     /* bytes, K/M/G suffixes (binary), within [min, max] */
    RTM_CFG_STRING,
    RTM_CFG_ENUM      /* one of the '|'-separated choices; the field holds its index */
} rtm_cfg_type_t;

/* The C type of a field of each row type. */
#define RTM_CFG_CTYPE_BOOL   int
#define RTM_CFG_CTYPE_INT    long
#define RTM_CFG_CTYPE_SIZE   size_t
#define RTM_CFG_CTYPE_STRING const char *
#define RTM_CFG_CTYPE_ENUM   int

typedef struct rtm_cfg_row {
    const char    *name;      /* full variable name, RTM_... */
    rtm_cfg_type_t type;
    const char    *def;       /* default, as a user would write it */
    const char    *choices;   /* ENUM: "a|b|c"; otherwise NULL */
    long long      min, max;  /* INT, SIZE: the accepted values, inclusive */
    const char    *doc;       /* one line */
    size_t         offset;    /* of the field in the component's struct */
} rtm_cfg_row_t;

/* One component's rows and the struct they fill. The parser links
 * registered tables through `next`; the rest is the component's, static. */
typedef struct rtm_cfg_table {
    const char           *component;  /* "shm": rtm_info groups rows by it */
    const char           *title;      /* what the component is, a few words */
    const rtm_cfg_row_t  *rows;
    size_t                num_rows;
    void                 *values;     /* the component's struct */
    struct rtm_cfg_table *next;       /* the parser's */
    int                   registered; /* the parser's */
} rtm_cfg_table_t;

/* A row of field _field (of type RTM_CFG_CTYPE_<_type>) in struct _struct,
 * for variable RTM_<_name>. A field of the wrong C type fails to compile. */
#define RTM_CFG_ROW(_name, _struct, _field, _type, _def, _choices, _min, _max, _doc) \
    {"RTM_" #_name, RTM_CFG_##_type, _def, _choices, _min, _max, _doc, \
     offsetof(_struct, _field) + \
         0 * sizeof(char[sizeof(((_struct *)0)->_field) == \
                          sizeof(RTM_CFG_CTYPE_##_type) ? 1 : -1])}

#define RTM_CFG_TABLE_INIT(_component, _title, _rows, _values) \
    {_component, _title, _rows, sizeof(_rows) / sizeof((_rows)[0]), &(_values), NULL, 0}

/* Sizes for ranges. */
#define RTM_CFG_KIB (1LL << 10)
#define RTM_CFG_MIB (1LL << 20)
#define RTM_CFG_GIB (1LL << 30)
#define RTM_CFG_TIB (1LL << 40)

/*
 * Fill the table's struct from the environment (defaults for unset rows)
 * and keep the table (registering it again re-reads the environment). May
 * be called at any time, e.g. by a transport module when it is loaded. The
 * first call also registers common's own table (RTM_LOG_LEVEL);
 * rtm_config_register(NULL) re-reads that one alone. A value that does not
 * parse or lies outside the row's range is an error naming the variable,
 * the value and what it accepts (logged and returned); then the struct
 * keeps its previous values (defaults when the table was new) and the
 * table is registered anyway, so its names stay known.
 */
rtm_status_t rtm_config_register(rtm_cfg_table_t *table);
/* Warn about every RTM_* variable in the environment that no registered
 * table has, naming the closest known one. Call once the tables are
 * registered, in one process of the job. */
void rtm_config_warn_unknown(void);

/* The registered tables, common's first, then in order of registration
 * (follow ->next). */
const rtm_cfg_table_t *rtm_config_tables(void);
/* The registered row of that name (and its table), or NULL. */
const rtm_cfg_row_t *rtm_config_find(const char *name, const rtm_cfg_table_t **table_p);
/* The known variable closest to `name` (edit distance), or NULL. */
const char *rtm_config_closest(const char *name);

/* The current value of a row of a table, formatted ("4096", "warn", ...). */
void rtm_config_format(const rtm_cfg_table_t *table, const rtm_cfg_row_t *row, char *buf,
                       size_t len);
/* A row's range as a user writes it ("64..8K"), for INT and SIZE rows. */
void rtm_config_format_range(const rtm_cfg_row_t *row, char *buf, size_t len);
/* Parse one value for a row into *out (the field's C type), checking the
 * choices or the range. */
rtm_status_t rtm_config_parse_value(const rtm_cfg_row_t *row, const char *value, void *out);
/* Parse "64K"-style sizes; returns -1 on error. */
int rtm_parse_size(const char *s, size_t *size_p);

#endif
