/* session_net: the curses client's session seam over the network: net.c's events become app_on_* calls. */
#ifndef WW_SESSION_NET_H
#define WW_SESSION_NET_H

#include <stdbool.h>

#include "app.h"
#include "net.h"

struct server;

struct session_net {
	/* read-only */
	struct net *net;
	int me;
	bool ended_ok;          /* the last duel verified */
	char last_result[200];
	/* private */
	struct app *app;
	struct server *srv;     /* `host`: the in-process server, closed on quit */
	bool quit, started, srv_closing;
	bool auto_ready;
	struct fx_square fx[LEVEL_MAX * LEVEL_MAX];
};

/* Fill the net events of cfg so that they drive s; then net_create(). */
void session_net_events(struct session_net *s, struct net_config *cfg);
/* Attach the app (before the loop runs). srv: the host's own server, or NULL. */
void session_net_start(struct session_net *s, struct app *app, struct net *net, struct server *srv);

/* Lobby commands typed at the chat prompt, for the person: "/ready", "/rematch", ... Returns true
 * when `text` was one (answered with a status line). */
bool session_net_command(struct session_net *s, const char *text);

extern const struct session_ops session_net_ops;

#endif
