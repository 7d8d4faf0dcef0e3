/*
 * Fault injection for the MPI tests, loaded with LD_PRELOAD: malloc fails
 * while a test has armed it, so a test can make one allocation inside the
 * library fail without a hook in the library's code. Only malloc is
 * replaced (calloc, realloc and free are the C library's, or ASan's).
 *
 * A test finds the switch with dlsym(RTLD_DEFAULT, "failmalloc_arm"):
 * failmalloc_arm(1) makes every later malloc of the calling thread return
 * NULL (errno ENOMEM); failmalloc_arm(0) ends that and returns how many
 * mallocs it refused. Only the thread that armed it is refused: PMIx's
 * progress thread allocating in that window would otherwise fail in ways
 * the test does not look at (seen once in five runs: a SEGV in PMIx_Abort
 * under ASan).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stddef.h>

void *malloc(size_t size);
int failmalloc_arm(int on);

static void *(*next_malloc)(size_t);
static _Thread_local int armed __attribute__((tls_model("initial-exec")));
static _Thread_local int refused __attribute__((tls_model("initial-exec")));

__attribute__((constructor)) static void failmalloc_init(void)
{
    next_malloc = (void *(*)(size_t))dlsym(RTLD_NEXT, "malloc");
}

int failmalloc_arm(int on)
{
    int n = refused;

    armed = on;
    refused = 0;
    return n;
}

void *malloc(size_t size)
{
    if (armed) {
        refused++;
        errno = ENOMEM;
        return NULL;
    }
    if (!next_malloc)
        failmalloc_init();
    return next_malloc(size);
}
