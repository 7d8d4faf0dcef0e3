/*
 * rtrun's and rtd's config rows. Data only (librtmsg links it too, so a
 * rank knows these names in the environment rtrun passes on).
 */
#include "config.h"

#include "launcher/launcher_config.h"

launcher_config_t launcher_config;

static const rtm_cfg_row_t launcher_config_rows[] = {
    RTM_CFG_ROW(LAUNCH_AGENT, launcher_config_t, launch_agent, STRING, "", NULL, 0, 0,
      "rtrun: command that starts rtd on a remote host, {host} replaced by the host name (e.g. 'ip netns exec {host}'); without {host} the host name is added after the command (as ssh takes it); empty: ssh; --launch-agent overrides it"),
    RTM_CFG_ROW(LAUNCH_TIMEOUT, launcher_config_t, launch_timeout, INT, "60", NULL, 1, 86400,
      "rtrun: seconds an rtd may take to start and connect back before its host is reported unreachable and the job ends"),
    RTM_CFG_ROW(KILL_GRACE, launcher_config_t, kill_grace, INT, "2", NULL, 0, 3600,
      "rtrun and rtd: seconds between the SIGTERM that ends a job (a failed rank, an abort, --timeout, SIGINT or SIGTERM at rtrun) and the SIGKILL of the ranks still running; a second SIGINT at rtrun kills at once"),
};

rtm_cfg_table_t launcher_config_table =
    RTM_CFG_TABLE_INIT("launcher", "rtrun and rtd", launcher_config_rows, launcher_config);
