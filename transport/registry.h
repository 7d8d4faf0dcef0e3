/*
 * Which transports this librtmsg has: self, shm and tcp are built in;
 * verbs is a module (librtmsg-verbs.so) loaded at run time, so one build
 * runs on hosts with and without rdma-core. The runtime (runtime/tl.c) and
 * rtm_info ask here by name and, for a transport that is absent, learn why
 * (module not installed, the dynamic loader's error, a module of another
 * build). These functions are exported from librtmsg (rtm_ prefix) for
 * rtm_info; they are not part of the public API.
 */
#ifndef RTM_TRANSPORT_REGISTRY_H
#define RTM_TRANSPORT_REGISTRY_H

#include "transport/transport.h"

#include <stddef.h>

/* The transports this build knows, 0 .. count-1 in default preference
 * order, and their names. */
int         rtm_tl_registry_count(void);
const char *rtm_tl_registry_name(int i);

/* Index of the transport named by the first len chars of name, or -1. */
int rtm_tl_registry_index(const char *name, size_t len);

/* 1 if transport i is a module loaded at run time. Its fences after wireup
 * and before closing are then decided from the list alone (every rank that
 * lists it fences, loaded or not), since whether it loads may differ from
 * host to host. */
int rtm_tl_registry_is_module(int i);

/* The ops table of transport i, loading its module the first time. NULL if
 * it is absent here; then *why_p (if not NULL) says why, in a phrase that
 * follows "verbs: ". A module's table is checked against this contract's
 * abi_version and ops_size before it is returned. Not thread-safe (called
 * during init and by rtm_info). */
const rtm_tl_ops_t *rtm_tl_registry_get(int i, const char **why_p);

/* Where transport i's module was loaded from (NULL: built in, or absent). */
const char *rtm_tl_registry_path(int i);

/* "self, shm, tcp": the transports available here (loading modules). */
void rtm_tl_registry_available(char *buf, size_t len);

#endif
