/*
 * The transports of this build, built in or loaded as modules.
 *
 * A module lives in the directory librtmsg.so itself was loaded from:
 * <libdir>/rtmsg/librtmsg-verbs.so once installed ($(tlmoduledir), DESTDIR
 * staging included), or right beside librtmsg.so in the build tree (libtool
 * puts both in .libs/). So no environment variable is needed to find it, and
 * an installed librtmsg never loads a module of another install by accident.
 *
 * The module is opened RTLD_NOW (a missing library or symbol is reported
 * here, not at the first call) and RTLD_LOCAL (its own symbols stay its
 * own; it exports only its ops table). It is linked against librtmsg and
 * resolves common/'s services (rtm_log_*, rtm_error_set, rtm_config, ...)
 * to librtmsg's one copy, so it logs at the job's level and reads the same
 * configuration values. It stays loaded until the process exits: unloading
 * would gain nothing and would lose the module's frames from late reports
 * (sanitizer leak reports, backtraces).
 */
#include "config.h"

#include "transport/registry.h"
#include "common/log.h"

#include <dlfcn.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#ifndef PATH_MAX
#define PATH_MAX 4096
#endif

typedef struct tl_slot {
    const char         *name;
    const rtm_tl_ops_t *builtin;     /* NULL: a module */
    const char         *module;      /* the module's file name */
    const char         *not_built;   /* the module was not built: why */
    /* once looked for (a module loaded, any table checked) */
    int                 tried;
    const rtm_tl_ops_t *ops;
    char                path[PATH_MAX];
    char                why[2 * PATH_MAX + 256];
} tl_slot_t;

static tl_slot_t slots[] = {
    {.name = "self", .builtin = &rtm_tl_self},
    {.name = "shm", .builtin = &rtm_tl_shm},
    {.name = "verbs", .module = "librtmsg-verbs.so",
#ifndef RTM_HAVE_IBVERBS
     .not_built = "not built (libibverbs was not found when librtmsg was configured)",
#endif
    },
    {.name = "tcp", .builtin = &rtm_tl_tcp},
};

#define NUM_SLOTS ((int)(sizeof(slots) / sizeof(slots[0])))

int rtm_tl_registry_count(void)
{
    return NUM_SLOTS;
}

const char *rtm_tl_registry_name(int i)
{
    return i >= 0 && i < NUM_SLOTS ? slots[i].name : NULL;
}

int rtm_tl_registry_index(const char *name, size_t len)
{
    for (int i = 0; i < NUM_SLOTS; i++) {
        if (strlen(slots[i].name) == len && !strncmp(slots[i].name, name, len))
            return i;
    }
    return -1;
}

int rtm_tl_registry_is_module(int i)
{
    return i >= 0 && i < NUM_SLOTS && slots[i].builtin == NULL;
}

/* Every table handed out is of this contract: its first two fields are
 * read before anything else in it (a module may come from another build;
 * a built-in table is checked too, once, so the rule has no exception). */
static int ops_check(tl_slot_t *s, const rtm_tl_ops_t *ops)
{
    if (ops->abi_version != RTM_TL_ABI_VERSION || ops->ops_size != sizeof(rtm_tl_ops_t)) {
        snprintf(s->why, sizeof(s->why),
                 "%s %s was built for transport ABI %u (ops table of %u B), this "
                 "librtmsg has ABI %u (%zu B): install the module of the same librtmsg build",
                 s->builtin ? "built-in transport" : "module",
                 s->builtin ? s->name : s->path, (unsigned)ops->abi_version,
                 (unsigned)ops->ops_size, (unsigned)RTM_TL_ABI_VERSION, sizeof(rtm_tl_ops_t));
        return -1;
    }
    if (ops->name == NULL || strcmp(ops->name, s->name) != 0) {
        snprintf(s->why, sizeof(s->why), "module %s holds transport \"%s\", not \"%s\"",
                 s->path, ops->name ? ops->name : "(null)", s->name);
        return -1;
    }
    return 0;
}

/* The directory librtmsg.so was loaded from (with its trailing '/'). */
static int lib_dir(char *buf, size_t len)
{
    Dl_info info;
    const char *slash;

    if (dladdr((const void *)slots, &info) == 0 || info.dli_fname == NULL)
        return -1;
    slash = strrchr(info.dli_fname, '/');
    if (slash == NULL)
        return snprintf(buf, len, "./") < (int)len ? 0 : -1;
    return snprintf(buf, len, "%.*s", (int)(slash - info.dli_fname + 1), info.dli_fname) <
                   (int)len ? 0 : -1;
}

static void module_load(tl_slot_t *s)
{
    char dir[PATH_MAX];
    char tried[2][PATH_MAX];
    int n[2];
    void *handle;
    const rtm_tl_ops_t *ops;
    char symbol[64];

    if (s->not_built != NULL) {
        snprintf(s->why, sizeof(s->why), "%s", s->not_built);
        return;
    }
    if (lib_dir(dir, sizeof(dir)) != 0) {
        snprintf(s->why, sizeof(s->why), "cannot tell which directory librtmsg was loaded "
                 "from, to look for %s there", s->module);
        return;
    }
    /* installed, then the build tree (a path too long to build is skipped) */
    n[0] = snprintf(tried[0], sizeof(tried[0]), "%s%s/%s", dir, RTM_TL_MODULE_SUBDIR,
                    s->module);
    n[1] = snprintf(tried[1], sizeof(tried[1]), "%s%s", dir, s->module);
    for (int i = 0; i < 2; i++) {
        if (n[i] < 0 || (size_t)n[i] >= sizeof(tried[i]) || access(tried[i], F_OK) != 0)
            continue;
        snprintf(s->path, sizeof(s->path), "%s", tried[i]);
        handle = dlopen(s->path, RTLD_NOW | RTLD_LOCAL);
        if (handle == NULL) {
            snprintf(s->why, sizeof(s->why), "cannot load %s: %s", s->path, dlerror());
            return;
        }
        snprintf(symbol, sizeof(symbol), "rtm_tl_%s", s->name);
        ops = dlsym(handle, symbol);
        if (ops == NULL) {
            snprintf(s->why, sizeof(s->why), "%s has no transport table %s", s->path, symbol);
            dlclose(handle);
            return;
        }
        if (ops_check(s, ops) != 0) {
            dlclose(handle);
            return;
        }
        s->ops = ops;
        rtm_debug("transport %s: module %s loaded", s->name, s->path);
        return;
    }
    s->path[0] = '\0';
    snprintf(s->why, sizeof(s->why), "module not installed (looked for %s and %s)", tried[0],
             tried[1]);
}

const rtm_tl_ops_t *rtm_tl_registry_get(int i, const char **why_p)
{
    tl_slot_t *s;

    if (i < 0 || i >= NUM_SLOTS) {
        if (why_p != NULL)
            *why_p = "unknown transport";
        return NULL;
    }
    s = &slots[i];
    if (!s->tried) {
        s->tried = 1;
        if (s->builtin == NULL)
            module_load(s);
        else if (ops_check(s, s->builtin) == 0)
            s->ops = s->builtin;
    }
    if (s->ops == NULL && why_p != NULL)
        *why_p = s->why;
    return s->ops;
}

const char *rtm_tl_registry_path(int i)
{
    if (i < 0 || i >= NUM_SLOTS || slots[i].builtin != NULL || slots[i].ops == NULL)
        return NULL;
    return slots[i].path;
}

void rtm_tl_registry_available(char *buf, size_t len)
{
    size_t off = 0;

    if (len == 0)
        return;
    buf[0] = '\0';
    for (int i = 0; i < NUM_SLOTS && off < len; i++) {
        if (rtm_tl_registry_get(i, NULL) == NULL)
            continue;
        off += (size_t)snprintf(buf + off, len - off, "%s%s", off ? ", " : "", slots[i].name);
    }
}
