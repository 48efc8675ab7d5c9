/* SPDX-License-Identifier: MIT */
/* lan_none: LAN discovery when built without Avahi (-Davahi=disabled): announcing does nothing, browsing says why. */
#include <stdio.h>

#include "lan.h"

bool
lan_available(void)
{
	return false;
}

int
lan_announce_start(uv_loop_t *loop, const struct lan_info *info, struct lan_ad **out, char *why, size_t whylen)
{
	*out = NULL;
	snprintf(why, whylen, "LAN discovery is not built in");
	return -1;
}

void
lan_announce_wanted(struct lan_ad *ad, bool wanted)
{
}

void
lan_announce_stop(struct lan_ad *ad)
{
}

int
lan_browse(unsigned ms, const char *want, struct lan_duel *list, size_t *n, size_t max, char *why, size_t whylen)
{
	*n = 0;
	snprintf(why, whylen, "LAN discovery is not built in");
	return -1;
}
