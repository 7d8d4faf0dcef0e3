#!/bin/bash
# A rank killed with SIGKILL mid-job, by itself or by a sibling, ends the
# job non-zero promptly (a hang meets the 60 s bound), rtrun names the rank and the signal, and nothing
# is left behind (processes, /dev/shm segments, temp files).
. "$top_srcdir/tests/integration/lib.sh"
failed=0
fault_run selfkill 2 1 || failed=1
fault_run selfkill 4 2 || failed=1
fault_run sibling 3 1 || failed=1
fault_run sibling 2 0 || failed=1
exit $failed
