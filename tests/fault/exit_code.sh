#!/bin/bash
# A rank that exits with code 3 before rtm_finalize ends the job at once:
# rtrun exits non-zero and names the rank and its exit code.
. "$top_srcdir/tests/integration/lib.sh"
failed=0
fault_run exit 2 1 || failed=1
fault_run exit 4 0 || failed=1
exit $failed
