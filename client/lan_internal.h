/* SPDX-License-Identifier: MIT */
/* lan_internal: what lan.c and lan_poll.c share: Avahi's poll API on a libuv loop. */
#ifndef WW_LAN_INTERNAL_H
#define WW_LAN_INTERNAL_H

#include <avahi-common/watch.h>
#include <uv.h>

struct lan_poll;
struct lan_poll *lan_poll_create(uv_loop_t *loop);
const AvahiPoll *lan_poll_api(struct lan_poll *lp);
/* After avahi_client_free: its handles finish closing on the loop. NULL is fine. */
void lan_poll_destroy(struct lan_poll *lp);

#endif
