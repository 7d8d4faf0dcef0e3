/*
 * accept(), as this program defines it for every caller in the process,
 * libpmix's listener thread included: the kernel's accept, then, for a
 * socket the PMIx server listens on, the gate's verdict (pmix_gate.h).
 * A refused connection is closed before anyone read from it and reported
 * as ECONNABORTED, which OpenPMIx's listener takes for a peer that gave up
 * (it goes on listening). A file of its own: <sys/socket.h> declares
 * accept with glibc's transparent-union argument, which a definition in
 * plain C cannot match.
 */
#include "config.h"

#include "launcher/pmix_gate_accept.h"

#include <errno.h>
#include <sys/syscall.h>
#include <unistd.h>

struct sockaddr;
int accept(int fd, struct sockaddr *addr, socklen_t *addrlen);

int accept(int fd, struct sockaddr *addr, socklen_t *addrlen)
{
    int s = (int)syscall(SYS_accept4, fd, addr, addrlen, 0);

    if (s < 0 || !rtrun_pmix_gate_is_listener(fd))
        return s;
    if (rtrun_pmix_gate_admit(s) == 0)
        return s;
    close(s);
    errno = ECONNABORTED;
    return -1;
}

void rtrun_pmix_gate_accept_linked(void)
{
}
