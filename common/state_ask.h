/*
 * The job-state report's protocol between a launcher (rtrun, rtd) and its
 * ranks (runtime/state.c, launcher/report.c). Shared by both sides, so it
 * lives below both.
 *
 * The ask: the launcher's PMIx server notifies its local ranks of event
 * RTM_STATE_EVENT with two values, RTM_STATE_KEY_DIR (string: a directory
 * only the job's user can write, inside the launcher's job temp dir) and
 * RTM_STATE_KEY_SEQ (uint32: which ask this is). PMIx's thread only notes
 * the ask; the rank answers where it next waits in the library (past its
 * spin), so a report costs nothing on the fast path.
 *
 * The answer: the file <dir>/<world rank>.state, written under a temporary
 * name and renamed, so a launcher never reads half of one:
 *
 *     RTM-STATE 1                 version line
 *     seq <n>                     the ask answered
 *     rank <world rank>
 *     what <text>                 what the rank waits in (grouping key)
 *     waits_for <r> <r> ...       world ranks it waits for (may be empty)
 *     summary <text>              one line: "waits in MPI_Probe(0, tag 99, WORLD) for rank 0"
 *     json                        the rest of the file: one JSON object, the full detail
 */
#ifndef RTM_COMMON_STATE_ASK_H
#define RTM_COMMON_STATE_ASK_H

/* Below PMIX_EXTERNAL_ERR_BASE (-3000): a code of our own. */
#define RTM_STATE_EVENT   (-3180)
#define RTM_STATE_KEY_DIR "rtm.state.dir"
#define RTM_STATE_KEY_SEQ "rtm.state.seq"
#define RTM_STATE_SUFFIX  ".state"
#define RTM_STATE_MAGIC   "RTM-STATE 1"

#endif
