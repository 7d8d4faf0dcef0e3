#!/bin/bash
# rtm_abort(7, msg) ends the whole job with exit code 7 and the message,
# from a rank other than 0 and from rank 0, leaving nothing behind.
. "$top_srcdir/tests/integration/lib.sh"
failed=0
fault_run abort 3 1 || failed=1
fault_run abort 2 0 || failed=1
fault_run abort 1 0 || failed=1
exit $failed
