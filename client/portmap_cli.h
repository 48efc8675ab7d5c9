/* SPDX-License-Identifier: MIT */
/* portmap_cli: what host and server say about the port mapping (portmap.c), and the join line it changes. */
#ifndef WW_PORTMAP_CLI_H
#define WW_PORTMAP_CLI_H

#include <stdbool.h>
#include <stddef.h>

#include <uv.h>

#include "auth.h"
#include "portmap.h"
#include "server.h"

struct portmap_cli {
	struct portmap *pm;      /* private */
	struct server *srv;      /* its lines go to the server's log (headless), or to the screen */
	bool screen;             /* host with a terminal: cmd_net_curses_show, else the banner below */
	const char *tail;        /* what the join line ends with: " --password", " --new-room", ... */
	char fp[AUTH_FP_LEN + 1];
	char *share;             /* the share line (host), rewritten to the public address; or NULL */
	size_t share_len;
	char *banner;            /* host's first status line, lengthened while there is no screen yet */
	size_t banner_len;
};

/* Which methods to try: WIZWAR_PORTMAP (upnp, natpmp, both), else both; false (said) on another
 * value. */
bool portmap_cli_methods(unsigned *methods);
/* Ask the router for srv's port (not when it listens on loopback only: said). pc is filled
 * by the caller (srv, screen, tail, fp, share, banner) and lives until portmap_cli_stop. */
void portmap_cli_start(struct portmap_cli *pc, uv_loop_t *loop, unsigned methods);
/* Stop renewing and remove the mapping; the loop runs until the router has been told. */
void portmap_cli_stop(struct portmap_cli *pc);

#endif
