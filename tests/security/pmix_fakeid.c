/*
 * The attacker's LD_PRELOAD shim: getuid, geteuid, getgid and getegid
 * return FAKEID_UID (default 0, root) as far as this process's own code
 * can tell. OpenPMIx's native security puts geteuid()/getegid() in the
 * connect message; the kernel's record of the process and of its sockets
 * stays what it is.
 */
#include "config.h"

#include <stdlib.h>
#include <sys/types.h>
#include <unistd.h>

static unsigned fake_id(void)
{
    /* The test's own variable; no RTM_ name. */
    const char *s = getenv("FAKEID_UID");

    return s != NULL ? (unsigned)strtoul(s, NULL, 10) : 0U;
}

uid_t getuid(void)
{
    return (uid_t)fake_id();
}

uid_t geteuid(void)
{
    return (uid_t)fake_id();
}

gid_t getgid(void)
{
    return (gid_t)fake_id();
}

gid_t getegid(void)
{
    return (gid_t)fake_id();
}
