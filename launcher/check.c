/* placeholder, replaced below */
#include "config.h"
#include "launcher/check.h"
#include <stdio.h>
int rtrun_check_main(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    fprintf(stderr, "rtm_check: not built yet\n");
    return 1;
}
