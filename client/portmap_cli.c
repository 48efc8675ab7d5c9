/* SPDX-License-Identifier: MIT */
/* portmap_cli: what host and server say about the port mapping (portmap.c), and the join line it changes.
 * Each outcome is one plain line that names what works: the public join line, or why there is none
 * and the way that works instead (a `wizwar server` both players can reach). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cmd_net.h"
#include "portmap_cli.h"

bool
portmap_cli_methods(unsigned *methods)
{
	const char *env = getenv("WIZWAR_PORTMAP");

	*methods = PORTMAP_UPNP | PORTMAP_NATPMP;
	if (env == NULL || env[0] == '\0')
		return true;
	if (portmap_methods_parse(env, methods))
		return true;
	cli_error("WIZWAR_PORTMAP is upnp, natpmp or both, not '%.40s'\n", env);
	return false;
}

/* A line for the player: on the screen when there is one, else on the server's log. */
static void
say(struct portmap_cli *pc, const char *line, const char *share)
{
	if (!pc->screen) {
		server_say(pc->srv, "%s", line);
		return;
	}
	if (cmd_net_curses_show(line, share))
		return;
	/* No screen yet: the banner it starts with carries the line. */
	size_t n = strlen(pc->banner);
	snprintf(pc->banner + n, pc->banner_len - n, " %s", line);
}

static void
on_report(void *ud, const struct portmap_report *r)
{
	struct portmap_cli *pc = ud;
	int port = server_port(pc->srv);
	char line[900], join[200];

	switch (r->state) {
	case PORTMAP_MAPPED:
		snprintf(join, sizeof join, "wizwar join %s:%d#%s%s", r->external, r->external_port, pc->fp, pc->tail);
		if (r->lease_s)
			snprintf(line, sizeof line, "The router (%s) forwards %s:%d to port %d here, for %u s at a time, "
			         "renewed while this runs: from outside, `%s`.", r->method, r->external, r->external_port,
			         port, r->lease_s, join);
		else
			snprintf(line, sizeof line, "The router (%s) forwards %s:%d to port %d here until this stops: "
			         "from outside, `%s`.", r->method, r->external, r->external_port, port, join);
		if (pc->share)
			snprintf(pc->share, pc->share_len, "%s", join);
		say(pc, line, pc->share);
		if (!pc->screen) {
			printf("%s\n", join); /* the line to copy, alone on stdout as the first was */
			fflush(stdout);
		}
		return;
	case PORTMAP_PRIVATE:
		snprintf(line, sizeof line, "The router (%s) forwards port %d, but its own address %s is private or "
		         "shared (carrier-grade NAT): nobody outside can reach this host through it. The LAN works; "
		         "from outside, meet at a `wizwar server` both players can reach.", r->method, port, r->external);
		break;
	case PORTMAP_NONE:
		snprintf(line, sizeof line, "No port mapping (%s): players outside this network cannot reach this host. "
		         "The LAN works; from outside, meet at a `wizwar server` both players can reach (or forward "
		         "TCP port %d here by hand).", r->why, port);
		break;
	case PORTMAP_LOST:
		snprintf(line, sizeof line, "The router stopped renewing port %d (%s): players outside may lose this "
		         "host; asking again every 30 s.", r->external_port, r->why);
		break;
	}
	say(pc, line, NULL);
}

static bool
loopback_only(const char *bound)
{
	return strncmp(bound, "127.", 4) == 0 || strcmp(bound, "::1") == 0 || strcmp(bound, "localhost") == 0;
}

void
portmap_cli_start(struct portmap_cli *pc, uv_loop_t *loop, unsigned methods)
{
	char line[300];

	pc->pm = NULL;
	if (loopback_only(server_bound(pc->srv)))
		return; /* asked for: nothing outside this machine, the router included */
	if ((methods & portmap_methods()) == 0) {
		snprintf(line, sizeof line, "This build asks no router to forward its port (%s): players outside this "
		         "network cannot reach this host; from outside, meet at a `wizwar server` both players can reach.",
		         portmap_methods() ? "not the method WIZWAR_PORTMAP names" : "built without miniupnpc and libnatpmp");
		say(pc, line, NULL);
		return;
	}
	struct portmap_config cfg = { .port = server_port(pc->srv), .methods = methods, .report = on_report, .ud = pc };
	pc->pm = portmap_start(loop, &cfg);
	if (pc->pm == NULL)
		say(pc, "No port mapping: out of memory.", NULL);
}

void
portmap_cli_stop(struct portmap_cli *pc)
{
	portmap_stop(pc->pm);
	pc->pm = NULL;
}
