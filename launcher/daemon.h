/*
 * The daemon tree of a multi-host job: rtrun is its root, one rtd per
 * remote host holding ranks is a node. Shared by rtrun and rtd, one
 * concern per file:
 *   rtd_wire     the message header and types
 *   rtd_jobdesc  the job description every daemon gets (the JOB message)
 *   rtd_tree     the tree shape (positions, subtrees)
 *   rtd_conn     one TCP connection: output queue, input buffer, connect
 *   rtd_node     a node: its connections, routing, dispatch of messages
 *   rtd_modex    fences and direct-modex requests across the tree
 *   rtd_launch   starting children through the launch agent, admitting them
 */
#ifndef RTM_LAUNCHER_DAEMON_H
#define RTM_LAUNCHER_DAEMON_H

#include "launcher/rtd_conn.h"
#include "launcher/rtd_jobdesc.h"
#include "launcher/rtd_launch.h"
#include "launcher/rtd_modex.h"
#include "launcher/rtd_node.h"
#include "launcher/rtd_tree.h"
#include "launcher/rtd_wire.h"

#endif
