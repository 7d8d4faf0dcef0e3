/*
 * no_cma PROG [ARGS...]: runs PROG with cross-memory attach refused, the
 * way a container's seccomp profile or a strict Yama ptrace policy refuses
 * it: process_vm_readv and process_vm_writev fail with EPERM. A seccomp
 * filter survives exec, so PROG and everything it starts inherit it.
 * Exits 77 (skip) where the filter can't be installed or the architecture
 * is not one this filter knows. `no_cma --selftest` checks the filter
 * itself: a process_vm_readv of our own memory must fail with EPERM.
 */
#include "config.h"

#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/uio.h>

#if defined(__x86_64__)
#define NO_CMA_ARCH AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define NO_CMA_ARCH AUDIT_ARCH_AARCH64
#endif

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: no_cma PROG [ARGS...]\n");
        return 2;
    }
#ifndef NO_CMA_ARCH
    fprintf(stderr, "no_cma: unknown architecture, can't build the seccomp filter\n");
    return 77;
#else
    struct sock_filter filter[] = {
        /* A syscall number only means something for one architecture:
         * refuse to judge calls made through another ABI. */
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, NO_CMA_ARCH, 1, 0),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS),
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_process_vm_readv, 2, 0),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_process_vm_writev, 1, 0),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | (EPERM & SECCOMP_RET_DATA)),
    };
    struct sock_fprog prog = {
        .len = (unsigned short)(sizeof(filter) / sizeof(filter[0])),
        .filter = filter,
    };

    /* Lets an unprivileged process install a filter; it also keeps a
     * set-uid program from gaining privileges under our filter. */
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) {
        fprintf(stderr, "no_cma: prctl(PR_SET_NO_NEW_PRIVS): %s\n", strerror(errno));
        return 77;
    }
    if (prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog) != 0) {
        fprintf(stderr, "no_cma: installing the seccomp filter: %s\n", strerror(errno));
        return 77;
    }
    if (strcmp(argv[1], "--selftest") == 0) {
        char src[16] = "cma", dst[16] = "";
        struct iovec local = { dst, sizeof(dst) }, remote = { src, sizeof(src) };
        ssize_t n = process_vm_readv(getpid(), &local, 1, &remote, 1, 0);

        if (n >= 0 || errno != EPERM) {
            fprintf(stderr, "no_cma: process_vm_readv still works under the filter "
                    "(returned %zd, %s)\n", n, n < 0 ? strerror(errno) : "no error");
            return 1;
        }
        printf("no_cma: process_vm_readv refused with EPERM as intended\n");
        return 0;
    }
    execvp(argv[1], argv + 1);
    fprintf(stderr, "no_cma: exec %s: %s\n", argv[1], strerror(errno));
    return 127;
#endif
}
