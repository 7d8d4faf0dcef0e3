#!/bin/bash
# Runs tests/integration/cancel.c under rtrun with 1, 2, 3 and 4 ranks.
. "$top_srcdir/tests/integration/lib.sh"
itest_run_all cancel
