/*
 * A job in which one rank dies on purpose, for the fault tests.
 *
 * Usage: fault_rank MODE VICTIM TOKEN
 *   MODE   selfkill  the victim raises SIGKILL
 *          sibling   the victim sends its pid to another rank, which kills it
 *                    with SIGKILL
 *          abort     the victim calls rtm_abort(7, "... TOKEN")
 *          exit      the victim exits with code 3 without rtm_finalize
 *          stream    every other rank streams 64 KiB messages to the victim,
 *                    which takes one from each (so every pair is connected
 *                    and traffic flows) and raises SIGKILL: the others see
 *                    their connection to it break (over tcp: they abort,
 *                    "connection to rank V lost") while still sending
 *   VICTIM world rank that dies
 *   TOKEN  a string unique to this run; it is in every rank's command line,
 *          so the driver can find leftover processes
 *
 * Every other rank blocks in a receive that only the victim could satisfy:
 * only the launcher ending the job can end them. Lines start with "fault:"
 * and never say "rank", so a driver grepping for the launcher's report of
 * the dead rank can't be fooled by us.
 */
#include "config.h"

#include "rtmsg.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

static double realtime(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_REALTIME, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

#define DIE(...) do { fprintf(stderr, "fault: " __VA_ARGS__); fputc('\n', stderr); exit(99); } while (0)

int main(int argc, char **argv)
{
    int rank, size, victim, killer;
    const char *mode;
    char buf[64];

    if (argc != 4)
        DIE("usage: fault_rank selfkill|sibling|abort|exit|stream VICTIM TOKEN");
    mode = argv[1];
    victim = atoi(argv[2]);
    setvbuf(stdout, NULL, _IOLBF, 0);
    if (rtm_init() != RTM_OK)
        DIE("rtm_init failed: %s", rtm_last_error());
    if (rtm_comm_rank(RTM_COMM_WORLD, &rank) != RTM_OK ||
        rtm_comm_size(RTM_COMM_WORLD, &size) != RTM_OK)
        DIE("comm_rank/size failed: %s", rtm_last_error());
    if (victim < 0 || victim >= size)
        DIE("victim %d out of range for %d processes", victim, size);
    killer = victim == 0 ? size - 1 : 0;
    if (rank == 0)
        printf("fault: nspace=%s size=%d\n", getenv("PMIX_NAMESPACE") ?
               getenv("PMIX_NAMESPACE") : "", size);
    /* everyone is up and connected before anything dies */
    if (rtm_barrier(RTM_COMM_WORLD) != RTM_OK)
        DIE("barrier failed: %s", rtm_last_error());

    if (strcmp(mode, "stream") == 0) {
        static char chunk[65536];

        if (rank == victim) {
            for (int src = 0; src < size; src++)
                if (src != victim &&
                    rtm_recv(chunk, sizeof(chunk), src, 3, RTM_COMM_WORLD, RTM_STATUS_IGNORE) !=
                        RTM_OK)
                    DIE("receive of the first chunk failed: %s", rtm_last_error());
            printf("fault: victim dies now (%s) at %.6f\n", mode, realtime());
            fflush(stdout);
            raise(SIGKILL);
            DIE("still alive after SIGKILL");
        }
        for (;;)
            if (rtm_send(chunk, sizeof(chunk), victim, 3, RTM_COMM_WORLD) != RTM_OK)
                break;
        fprintf(stderr, "fault: a send to the dead process returned: %s\n", rtm_last_error());
        return 98;
    }
    if (rank == victim) {
        if (strcmp(mode, "sibling") == 0 && killer != victim) {
            pid_t me = getpid();

            if (rtm_send(&me, sizeof(me), killer, 1, RTM_COMM_WORLD) != RTM_OK)
                DIE("send of pid failed: %s", rtm_last_error());
            for (;;)
                pause();
        }
        printf("fault: victim dies now (%s) at %.6f\n", mode, realtime());
        fflush(stdout);
        if (strcmp(mode, "abort") == 0)
            rtm_abort(7, argv[3]);
        if (strcmp(mode, "exit") == 0)
            exit(3);
        raise(SIGKILL);
        DIE("still alive after SIGKILL");
    }
    if (rank == killer && strcmp(mode, "sibling") == 0) {
        pid_t pid;

        if (rtm_recv(&pid, sizeof(pid), victim, 1, RTM_COMM_WORLD, RTM_STATUS_IGNORE) != RTM_OK)
            DIE("receive of pid failed: %s", rtm_last_error());
        printf("fault: victim (pid %ld) killed by a sibling at %.6f\n", (long)pid, realtime());
        fflush(stdout);
        if (kill(pid, SIGKILL) != 0)
            DIE("kill failed");
    }
    /* Wait for a message that never comes; the launcher must end us. */
    rtm_recv(buf, sizeof(buf), victim, 2, RTM_COMM_WORLD, RTM_STATUS_IGNORE);
    fprintf(stderr, "fault: a receive from the dead process returned: %s\n", rtm_last_error());
    return 98;
}
