/* SPDX-License-Identifier: MIT */
/* net: a libuv TCP client of the wizwar protocol: connecting, sending, reading, reconnecting after a drop. */
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sodium.h>

#include "known.h"
#include "net_internal.h"
#include "rated.h"
#include "seatfile.h"
#include "text.h"

/* A write in flight: the request and its bytes, freed in its callback. */
struct wreq {
	uv_write_t req;
	uint8_t data[];
};

void
net_config_default(struct net_config *c)
{
	memset(c, 0, sizeof *c);
	c->port = NET_DEFAULT_PORT;
	c->role = ROLE_PLAYER;
	c->connect_ms = 10000;
	c->reconnect_ms = 1000;
	c->reconnect_for_ms = 130000;
	c->heartbeat_ms = 15000;
	c->idle_ms = 45000;
	c->record_ms = PROTO_RECORD_MS;
	c->verify = true;
}

void
net__fail(struct net *n, int code, bool fatal, const char *fmt, ...)
{
	char text[768];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(text, sizeof text, fmt, ap);
	va_end(ap);
	if (n->cfg.ev.error)
		n->cfg.ev.error(n->cfg.ud, n, code, fatal, text);
}

/* The seat file of this duel (cfg.seat_file), or nothing. */
void
net__seat_save(struct net *n)
{
	struct seatfile_key k = { n->host, n->cfg.port, n->room_given ? n->room : "", n->name };

	struct seatfile_seat seat;

	seat.token_len = n->token_len;
	memcpy(seat.token, n->token, n->token_len);
	seat.has_commit = n->have_commit;
	memcpy(seat.commit, n->commit, sizeof seat.commit);
	seat.have_part = n->duel_have_part;
	memcpy(seat.part, n->duel_part, sizeof seat.part);
	seat.part_bits = n->duel_bits;
	if (n->seat_file && n->token_len && seatfile_save(n->seat_file, &k, &seat) != 0)
		net__fail(n, PERR_SERVER, false, "cannot keep the resume token in %s: a killed client could not come back",
		     n->seat_file);
}

void
net__seat_forget(struct net *n)
{
	n->token_from_file = false;
	seatfile_remove(n->seat_file);
}

/* Closing. */

static void
unref(struct net *n)
{
	if (--n->handles > 0)
		return;
	if (n->cfg.ev.closed)
		n->cfg.ev.closed(n->cfg.ud, n);
	pconn_finish(&n->pc);
	auth_key_wipe(&n->key);
	auth_ident_wipe(&n->ident);
	if (n->password) {
		sodium_memzero(n->password, strlen(n->password));
		free(n->password);
	}
	free(n->fingerprint);
	free(n->known_file);
	free(n->seen);
	free(n->log);
	free(n->host);
	free(n->origin_host);
	free(n->name);
	free(n->room);
	free(n->seat_file);
	free(n);
}

static void
on_link_closed(uv_handle_t *h)
{
	struct net_link *l = h->data;
	struct net *n = l->n;

	free(l);
	unref(n);
}

void
net__close_link(struct net *n)
{
	struct net_link *l = n->link;

	if (l == NULL)
		return;
	n->link = NULL;
	n->joined = n->queried = false;
	l->closing = true;
	uv_close((uv_handle_t *)&l->tcp, on_link_closed);
}

static void
on_timer_closed(uv_handle_t *h)
{
	unref(h->data);
}

static void
shut_down(struct net *n)
{
	if (n->phase == NET_CLOSED)
		return;
	n->phase = NET_CLOSED;
	net__close_link(n);
	if (n->resolving)
		uv_cancel((uv_req_t *)&n->gai);
	uv_close((uv_handle_t *)&n->timer, on_timer_closed);
}

static void
on_bye_written(uv_shutdown_t *req, int status)
{
	struct net_link *l = req->data;

	(void)status;
	free(req);
	if (!l->closing) {
		l->closing = true;
		uv_close((uv_handle_t *)&l->tcp, on_link_closed);
	}
}

void
net_abandon(struct net *n)
{
	if (n == NULL || n->closing)
		return;
	/* No BYE: to the server this is a dropped connection, and the seat file stays for the
	 * same command to take the seat back. */
	n->closing = true;
	shut_down(n);
}

void
net_close(struct net *n)
{
	if (n == NULL || n->closing)
		return;
	n->closing = true;
	/* A BYE in a duel is a forfeit, after it leaving: the token is worth nothing after it. */
	net__seat_forget(n);
	if (n->link && n->joined) {
		/* Say BYE and let it go out before the socket closes. */
		struct net_link *l = n->link;
		uv_shutdown_t *req = malloc(sizeof *req);
		n->out.type = WIRE_BYE;
		n->out.u.bye.reason = BYE_QUIT;
		net_send(n, &n->out);
		if (req) {
			req->data = l;
			if (uv_shutdown(req, (uv_stream_t *)&l->tcp, on_bye_written) == 0) {
				n->link = NULL;
				n->joined = false;
				uv_read_stop((uv_stream_t *)&l->tcp);
				shut_down(n);
				return;
			}
			free(req);
		}
	}
	shut_down(n);
}

/* Sending. */

static void
on_write(uv_write_t *req, int status)
{
	(void)status;
	free(req);
}

int
net__send_msg(struct net *n, const struct wire_msg *m)
{
	struct proto_err e;
	struct wreq *w;
	size_t len;
	uv_buf_t b;

	if (n->link == NULL || !n->link->connected)
		return -1;
	if (pconn_send(&n->pc, m, n->frame, sizeof n->frame, &len, &e) != 0) {
		net__fail(n, e.code, false, "cannot send %s: %s", wire_name(m->type), e.why);
		return -1;
	}
	if ((w = malloc(sizeof *w + len)) == NULL)
		return -1;
	memcpy(w->data, n->frame, len);
	b = uv_buf_init((char *)w->data, (unsigned)len);
	if (uv_write(&w->req, (uv_stream_t *)&n->link->tcp, &b, 1, on_write) != 0) {
		free(w);
		return -1;
	}
	n->bytes_out += len;
	n->last_tx = net__now(n);
	return 0;
}

int
net_send(struct net *n, const struct wire_msg *m)
{
	if (!n->joined)
		return -1;
	return net__send_msg(n, m);
}

int
net_cmd(struct net *n, const struct cmd *c)
{
	n->out.type = WIRE_CMD;
	n->out.u.cmd = *c;
	return net_send(n, &n->out);
}

int
net_chat(struct net *n, const char *text)
{
	n->out.type = WIRE_CHAT;
	n->out.u.chat.from = CHAT_FROM_CLIENT;
	if (text == NULL || text_clean(n->out.u.chat.text, sizeof n->out.u.chat.text, text, strlen(text), TEXT_CHAT) <= 0)
		return -1;
	return net_send(n, &n->out);
}

int
net_spect_set(struct net *n, bool allowed, int mode, int delay, int player)
{
	n->out.type = WIRE_SPECT_SET;
	memset(&n->out.u.sset, 0, sizeof n->out.u.sset);
	n->out.u.sset.allowed = allowed;
	n->out.u.sset.mode = (uint8_t)mode;
	n->out.u.sset.delay = (uint8_t)delay;
	n->out.u.sset.player = (uint8_t)player;
	return net_send(n, &n->out);
}

int
net_spect_chat(struct net *n, const char *text)
{
	n->out.type = WIRE_SPECT_CHAT;
	memset(&n->out.u.schat, 0, sizeof n->out.u.schat);
	if (text == NULL || text_clean(n->out.u.schat.text, sizeof n->out.u.schat.text, text, strlen(text), TEXT_CHAT) <= 0)
		return -1;
	return net_send(n, &n->out);
}

bool
net_spectator(const struct net *n)
{
	return n->joined && n->player == WELCOME_SPECTATOR;
}

int
net_options(struct net *n, const struct options *o, int turn_time)
{
	n->out.type = WIRE_OPTIONS;
	n->out.u.options.opt = *o;
	n->out.u.options.turn_time = (uint16_t)turn_time;
	return net_send(n, &n->out);
}

/* READY 1 and REMATCH carry a fresh part of the next seed, and only answer a commitment the
 * server made before it could have seen the part: one from a LOBBY after the last END. Until
 * that LOBBY is here the message waits (a bot that asks for a rematch the moment END is read). */
int
net__send_ask(struct net *n)
{
	int kind = n->ask;

	n->ask = 0;
	/* One part per commitment: a READY sent again in the same lobby (or after READY 0) repeats
	 * it, so that the server cannot get a new roll of the dice by making us ready again, and
	 * whichever of our READYs starts the duel carries the part we check at the end. */
	if (!n->have_part || !auth_equal(n->part_commit, n->lobby.commit, sizeof n->part_commit)) {
		auth_random(n->part, sizeof n->part);
		memcpy(n->part_commit, n->lobby.commit, sizeof n->part_commit);
		n->have_part = true;
	}
	n->part_bits = n->lobby.parts;
	n->part_mirror = kind == 2 && n->ask_mirror;
	n->asked = kind;
	n->asked_seen = false;
	if (kind == 2) {
		n->out.type = WIRE_REMATCH;
		n->out.u.rematch.mirror = n->ask_mirror;
		memcpy(n->out.u.rematch.part, n->part, sizeof n->part);
	} else {
		n->out.type = WIRE_READY;
		n->out.u.ready.ready = true;
		memcpy(n->out.u.ready.part, n->part, sizeof n->part);
	}
	return net_send(n, &n->out);
}

static int
ask(struct net *n, int kind, bool mirror)
{
	if (!n->joined)
		return -1;
	n->ask = kind;
	n->ask_mirror = mirror;
	return n->lobby_fresh ? net__send_ask(n) : 0;
}

int
net_ready(struct net *n, bool ready)
{
	if (ready)
		return ask(n, 1, false);
	n->ask = n->asked = 0;
	n->out.type = WIRE_READY;
	memset(&n->out.u.ready, 0, sizeof n->out.u.ready);
	return net_send(n, &n->out);
}

int
net_control(struct net *n)
{
	n->out.type = WIRE_CONTROL;
	return net_send(n, &n->out);
}

int
net_rematch(struct net *n)
{
	return net_rematch_mirror(n, false);
}

int
net_rematch_mirror(struct net *n, bool mirror)
{
	return ask(n, 2, mirror);
}

/* The server's key. */

/* "host:port" as a person types it, the name in the known-servers file. */
static void
server_label(const struct net *n, char *buf, size_t len)
{
	if (strchr(n->host, ':'))
		snprintf(buf, len, "[%s]:%d", n->host, n->cfg.port);
	else
		snprintf(buf, len, "%s:%d", n->host, n->cfg.port);
}

/* Is the key that just proved itself in the handshake the server we mean? 0, or -1 said. Once a connection. */
/* A server key that finished a handshake: kept for net_rated_key (the oldest dropped when full). */
static void
met_key(struct net *n, const uint8_t *pk)
{
	int cap = (int)(sizeof n->met / sizeof n->met[0]);

	for (int i = 0; i < n->nmet; i++)
		if (memcmp(n->met[i], pk, PROTO_KEY_LEN) == 0)
			return;
	if (n->nmet == cap) {
		memmove(n->met[0], n->met[1], (size_t)(cap - 1) * sizeof n->met[0]);
		n->nmet--;
	}
	memcpy(n->met[n->nmet++], pk, PROTO_KEY_LEN);
}

WW_COLD int
net__check_server_key(struct net *n)
{
	const uint8_t *pk = pconn_peer_key(&n->pc);
	char fp[AUTH_FP_LEN + 1], old[128], label[300], why[300];
	int how = NET_KEY_PINNED, line, rc;

	if (pk == NULL)
		return -1;
	auth_fingerprint(pk, fp);
	server_label(n, label, sizeof label);
	if (n->has_pin) {
		if (auth_equal(pk, n->pinned, PROTO_KEY_LEN)) {
			met_key(n, pk);
			return 0;
		}
		net__fail(n, PERR_HOSTKEY, true,
		     "the server at %s came back with another key (%s): someone may be in the middle; not resuming", label, fp);
		return -1;
	}
	if (n->cfg.server_key) {
		if (!auth_equal(pk, n->cfg.server_key, PROTO_KEY_LEN)) {
			net__fail(n, PERR_HOSTKEY, true, "the server at %s is not the one started here (key %s)", label, fp);
			return -1;
		}
	} else if (n->fingerprint) {
		if (strcmp(fp, n->fingerprint) != 0) {
			net__fail(n, PERR_HOSTKEY, true,
			     "THE SERVER'S KEY IS NOT THE ONE GIVEN: %s shows key %s, but %s said %s. "
			     "Someone may be in the middle of this connection, or the line was mistyped. Not joining.",
			     label, fp, n->cfg.fingerprint_from ? n->cfg.fingerprint_from : "the join line", n->fingerprint);
			return -1;
		}
		if (n->known_file &&
		    known_check(n->known_file, label, fp, true, old, sizeof old, &line, why, sizeof why) == KNOWN_ERROR)
			net__fail(n, PERR_SERVER, false, "%s", why); /* the key is right; only remembering it failed */
	} else if (n->known_file) {
		rc = known_check(n->known_file, label, fp, false, old, sizeof old, &line, why, sizeof why);
		if (rc == KNOWN_CHANGED) {
			net__fail(n, PERR_HOSTKEY, true,
			     "WARNING: THE SERVER'S KEY HAS CHANGED. %s now shows key %s, but %s line %d remembers %s. "
			     "Someone may be in the middle of this connection, or the server made a new key. Not joining. "
			     "If the server's owner confirms the new fingerprint, accept it on purpose with: "
			     "wizwar join %s#%s (or delete line %d of %s).",
			     label, fp, n->known_file, line, old, label, fp, line, n->known_file);
			return -1;
		}
		if (rc == KNOWN_ERROR) {
			net__fail(n, PERR_HOSTKEY, true, "cannot check the server's key: %s", why);
			return -1;
		}
		how = rc == KNOWN_NEW ? NET_KEY_NEW : NET_KEY_KNOWN;
	} else {
		net__fail(n, PERR_HOSTKEY, true, "no way to check the server's key (no fingerprint, no known-servers file)");
		return -1;
	}
	memcpy(n->pinned, pk, PROTO_KEY_LEN);
	n->has_pin = true;
	met_key(n, pk);
	if (n->cfg.ev.key)
		n->cfg.ev.key(n->cfg.ud, n, how, fp);
	return 0;
}

/* HELLO's hint of the key this client expects (docs/protocol.md, "Key rotation"): a server in a
 * key rotation answers under the old key only to a client that pinned it. None on first contact. */
void
net__key_hint(const struct net *n, struct wire_hello *h)
{
	char label[300], fp[128];

	h->has_hint = true;
	if (n->has_pin) {
		auth_key_hint(n->pinned, h->hint);
		return;
	}
	if (n->cfg.server_key) {
		auth_key_hint(n->cfg.server_key, h->hint);
		return;
	}
	if (n->fingerprint && auth_fingerprint_hint(n->fingerprint, h->hint))
		return;
	server_label(n, label, sizeof label);
	h->has_hint = n->known_file && known_find(n->known_file, label, fp, sizeof fp) &&
	              auth_fingerprint_hint(fp, h->hint);
}

/* KEYS: the server, answering under the key pinned here, names its new key signed by that key.
 * Verified against the pin (never against anything the server says), then the pin moves: here for
 * every reconnection, and in the known-servers file. Anything else is refused and the link closed. */
WW_COLD void
net__rotate(struct net *n, const struct wire_keys *k)
{
	char label[300], ofp[AUTH_FP_LEN + 1], nfp[AUTH_FP_LEN + 1], old[128], why[300];
	int line;

	server_label(n, label, sizeof label);
	auth_fingerprint(n->pinned, ofp);
	auth_fingerprint(k->new_key, nfp);
	if (!auth_rotate_verify(n->pinned, pconn_hash(&n->pc), k->old_ed, k->new_key, k->until, k->sig)) {
		n->fatal = true;
		net__fail(n, PERR_HOSTKEY, true,
		          "REFUSED A KEY CHANGE: the server at %s named a new key (%s) that its pinned key %s did not "
		          "sign. Someone may hold this server or be in the middle; the pin stays %s. Not joining.",
		          label, nfp, ofp, ofp);
		net_close(n);
		return;
	}
	if (n->known_file &&
	    known_check(n->known_file, label, nfp, true, old, sizeof old, &line, why, sizeof why) == KNOWN_ERROR)
		net__fail(n, PERR_SERVER, false, "%s", why); /* the new key is proven; only remembering it failed */
	memcpy(n->pinned, k->new_key, PROTO_KEY_LEN);
	n->rotated = true;
	if (n->cfg.ev.key)
		n->cfg.ev.key(n->cfg.ud, n, NET_KEY_ROTATED, nfp);
}

/* Receiving. */

static void
on_alloc(uv_handle_t *h, size_t suggested, uv_buf_t *buf)
{
	struct net_link *l = h->data;
	size_t len;
	uint8_t *p = pconn_space(&l->n->pc, &len);

	(void)suggested;
	*buf = uv_buf_init((char *)p, (unsigned)len);
}

static void
on_read(uv_stream_t *st, ssize_t nread, const uv_buf_t *buf)
{
	struct net_link *l = st->data;
	struct net *n = l->n;
	struct proto_err e;

	if (l != n->link)
		return;
	if (nread < 0) {
		net__link_lost(n, nread == UV_EOF ? "the server closed the connection" : uv_strerror((int)nread));
		return;
	}
	if (nread == 0)
		return;
	if (n->cfg.ev.rx)
		n->cfg.ev.rx(n->cfg.ud, n, (const uint8_t *)buf->base, (size_t)nread);
	pconn_commit(&n->pc, (size_t)nread);
	n->bytes_in += (uint64_t)nread;
	n->last_rx = net__now(n);
	while (n->link == l && !n->closing) {
		int rc = pconn_next(&n->pc, &n->in, &e);
		if (rc == PROTO_MORE)
			break;
		if (rc == PROTO_BROKEN && (e.code == PERR_CRYPTO || e.code == PERR_RECORD) && n->pc.secure &&
		    net__has_seat(n)) {
			/* The same the other way: a record from the server that does not verify, or
			 * whose length no record may have (a length changed on the way). */
			net__link_lost(n, "a record from the server was changed on the way");
			break;
		}
		if (rc == PROTO_BROKEN) {
			unsigned here, there;
			if ((e.code == PERR_VERSION || e.code == PERR_RULES) &&
			    sscanf(e.why, "%*s version %u here, %u there", &here, &there) == 2)
				net__fail(n, e.code, true, "version mismatch: this client has %s version %u, the server %u",
				     e.code == PERR_VERSION ? "protocol" : "rules", here, there);
			else
				net__fail(n, e.code, true, "the server broke the protocol: %s", e.why);
			n->fatal = true;
			net_close(n);
			break;
		}
		net__message(n, &n->in);
	}
	if (n->link == l && !n->closing)
		(void)pconn_stalled(&n->pc, net__now(n), n->cfg.record_ms); /* starts its clock */
}

/* Connecting and reconnecting. */

/* A seat the server holds for us after a drop: in a duel, or in the lobby with a token. */
bool
net__has_seat(const struct net *n)
{
	return n->watching || (n->token_len && ((n->phase == NET_LOBBY && n->player >= 0) || n->phase == NET_PLAYING ||
	                                        n->phase == NET_RECONNECTING));
}

static void next_node(struct net *n);
static bool fall_back(struct net *n, const char *why);

void
net__link_lost(struct net *n, const char *why)
{
	bool was_up = n->joined, lobby = n->phase == NET_LOBBY && n->player >= 0 && !n->watching;

	/* Closed before WELCOME by the node we were sent to (killed in the handshake): as a refusal. An
	 * ERROR it sent first set fatal (a refusal of ours, said), and then this is not tried. */
	if (!n->gave_up && fall_back(n, why))
		return;
	net__close_link(n);
	if (n->closing || n->phase == NET_CLOSED)
		return;
	if (n->fatal || n->gave_up || !net__has_seat(n)) {
		net__fail(n, PERR_SERVER, true, "connection lost: %s", why);
		net_close(n);
		return;
	}
	if (n->phase != NET_RECONNECTING)
		n->lost_node = n->node_i;
	if (n->nnodes > 1)
		next_node(n);
	/* A seat, in a duel or in the lobby: the server holds it, and we come back with its token,
	 * the same way in both. */
	snprintf(n->lost_why, sizeof n->lost_why, "%s", why);
	if (n->phase != NET_RECONNECTING) {
		n->lobby_lost = lobby;
		if (lobby) {
			/* The server drops a dropped seat's READY: say it again once back. */
			if (!n->ask && n->asked) {
				n->ask = n->asked;
				n->ask_mirror = n->part_mirror;
			}
			n->reasking = n->ask != 0;
			n->asked = 0;
			n->asked_seen = false;
		}
		n->phase = NET_RECONNECTING;
		n->lost_at = net__now(n);
		n->attempts = 0;
		if (was_up && n->cfg.ev.link)
			n->cfg.ev.link(n->cfg.ud, n, false, why);
	}
	/* Among a cluster's nodes sooner: a node whose room is still moving closes at once, and the
	 * room has its new node within a tick of the old one's death being seen. */
	n->next_try = net__now(n) + (n->nnodes > 1 && n->cfg.reconnect_ms > NET_NODE_RETRY_MS ? NET_NODE_RETRY_MS
	                                                                                      : n->cfg.reconnect_ms);
}

/*
 * ERROR MOVING before a WELCOME: the room's node stopped answering and the cluster is taking the room
 * over (docs/server.md, "A cluster"). A link lost before (a seat, or a watch being followed, in
 * NET_RECONNECTING) goes on as for any drop when the server closes it: net__link_lost tries the nodes
 * NODES named, and a note at each try would only repeat what the lost link said. A first ask (a new
 * `wizwar watch`, which knows no other node yet) asks the same node again every NET_MOVING_RETRY_MS,
 * saying so once, for reconnect_for_ms: by then that node sends it to the room's new node, or
 * refuses it (the room is gone), and that is said.
 */
void
net__moving(struct net *n, const char *text)
{
	uint64_t now = net__now(n);

	if (n->phase != NET_CONNECTING)
		return;
	if (n->moving_since == 0) {
		n->moving_since = now;
		net__fail(n, PERR_MOVING, false, "%s: asking again every %u ms, for up to %u s", text, NET_MOVING_RETRY_MS,
		          (n->cfg.reconnect_for_ms + 999) / 1000);
	} else if (now - n->moving_since >= n->cfg.reconnect_for_ms) {
		n->fatal = true;
		net__fail(n, PERR_MOVING, true, "%s (still, after %u s of asking): giving up", text,
		          (unsigned)((now - n->moving_since) / 1000));
		net_close(n);
		return;
	}
	net__close_link(n);
	n->moving_at = now + NET_MOVING_RETRY_MS;
}

/* Node i of the cluster's: its address (an IP address: NODES carries nothing else, so no lookup)
 * and its key, pinned, for the next attempt. */
static void
use_node(struct net *n, int i)
{
	const struct wire_redirect *d = &n->nodes[i];
	struct sockaddr_storage a;
	char *h;

	memset(&a, 0, sizeof a);
	if (uv_ip4_addr(d->host, d->port, (struct sockaddr_in *)&a) != 0 &&
	    uv_ip6_addr(d->host, d->port, (struct sockaddr_in6 *)&a) != 0)
		return;
	if ((h = strdup(d->host)) == NULL)
		return;
	free(n->host);
	n->host = h;
	n->cfg.port = d->port;
	memcpy(n->pinned, d->key, PROTO_KEY_LEN);
	n->has_pin = true;
	n->addr[0] = a;
	n->naddr = 1;
	n->addr_i = 0;
	n->resolved = true;
	n->node_i = i;
	n->redirects = 0;
}

/* The next node after the one just tried, not the one whose link dropped. */
static void
next_node(struct net *n)
{
	for (int k = 1; k <= n->nnodes; k++) {
		int i = ((n->node_i < 0 ? -1 : n->node_i) + k) % n->nnodes;
		if (i != n->lost_node) {
			use_node(n, i);
			return;
		}
	}
}

void
net__nodes(struct net *n, const struct wire_nodes *d)
{
	n->nnodes = d->n;
	memcpy(n->nodes, d->node, sizeof d->node[0] * d->n);
	n->node_i = -1;
	for (int i = 0; i < n->nnodes; i++)
		if (memcmp(n->nodes[i].key, n->pinned, PROTO_KEY_LEN) == 0)
			n->node_i = i;
}

static void
addr_name(const struct sockaddr_storage *a, char *buf, size_t len)
{
	if (a->ss_family == AF_INET6)
		uv_ip6_name((const struct sockaddr_in6 *)a, buf, len);
	else
		uv_ip4_name((const struct sockaddr_in *)a, buf, len);
}

/* The node a REDIRECT sent us to is dead to us (`why`: it refused, or did not answer): before a seat
 * there is nothing to resume, so rather than fail, the join goes back to the node first asked, in a
 * moment (by then the directory drops or re-homes a dead node's rooms, docs/server.md "A cluster"),
 * saying so. Past NET_FALLBACKS_MAX tries, the end, said. false: not a REDIRECT's link. */
static bool
fall_back(struct net *n, const char *why)
{
	char dead[300], origin[300];
	char *h;

	if (n->phase != NET_CONNECTING || !n->redirected || n->origin_host == NULL || n->closing || n->fatal)
		return false;
	server_label(n, dead, sizeof dead);
	net__close_link(n);
	n->redirected = false;
	if (n->fallbacks >= NET_FALLBACKS_MAX || (h = strdup(n->origin_host)) == NULL) {
		net__fail(n, PERR_SERVER, true, "the node the cluster sent us to, %s, is out of reach (%s), and the node first "
		          "asked sent us to a dead node %u times: giving up", dead, why, n->fallbacks + 1);
		n->fatal = true;
		net_close(n);
		return true;
	}
	n->fallbacks++;
	free(n->host);
	n->host = h;
	n->cfg.port = n->origin_port;
	memcpy(n->pinned, n->origin_pin, PROTO_KEY_LEN);
	n->has_pin = true;
	n->redirects = 0; /* an ask of its own: it may be sent on again */
	n->node_i = -1;
	n->resolved = false;
	n->naddr = n->addr_i = 0;
	n->tried[0] = '\0';
	unsigned wait_ms = NET_FALLBACK_MS * n->fallbacks;
	n->fallback_at = net__now(n) + wait_ms;
	server_label(n, origin, sizeof origin);
	net__fail(n, PERR_OK, false, "the node the cluster sent us to, %s, is out of reach (%s): asking %s again in %u s "
	          "(try %u of %u)", dead, why, origin, wait_ms / 1000, n->fallbacks, NET_FALLBACKS_MAX);
	return true;
}

/* This address did not answer: the next one, or (all tried) say what each said. */
static void
next_address(struct net *n, const char *why)
{
	char name[64];
	size_t used = strlen(n->tried);

	addr_name(&n->addr[n->addr_i], name, sizeof name);
	if (used < sizeof n->tried - 1)
		snprintf(n->tried + used, sizeof n->tried - used, "%s%s: %s", used ? "; " : "", name, why);
	net__close_link(n);
	if (n->addr_i + 1 < n->naddr && n->phase == NET_CONNECTING) {
		n->addr_i++;
		net__try_connect(n);
		return;
	}
	if (n->phase == NET_CONNECTING) {
		if (fall_back(n, why))
			return;
		if (n->naddr > 1)
			net__fail(n, PERR_SERVER, true, "cannot connect to %s port %d (%s)", n->host, n->cfg.port, n->tried);
		else
			net__fail(n, PERR_SERVER, true, "cannot connect to %s port %d: %s", n->host, n->cfg.port, why);
		n->fatal = true;
		net_close(n);
		return;
	}
	/* Reconnecting: the next attempt tries the next address. */
	n->addr_i = (n->addr_i + 1) % n->naddr;
	n->tried[0] = '\0';
	net__link_lost(n, why);
}

static void
on_connect(uv_connect_t *req, int status)
{
	struct net_link *l = req->data;
	struct net *n = l->n;

	if (l != n->link)
		return;
	if (status != 0) {
		next_address(n, uv_strerror(status));
		return;
	}
	l->connected = true;
	uv_tcp_nodelay(&l->tcp, 1);
	pconn_finish(&n->pc);
	pconn_init(&n->pc, PCONN_CLIENT);
	n->last_rx = net__now(n);
	uv_read_start((uv_stream_t *)&l->tcp, on_alloc, on_read);
	wire_hello_init(&n->out);
	net__key_hint(n, &n->out.u.hello);
	net__send_msg(n, &n->out);
}

void
net__try_connect(struct net *n)
{
	struct net_link *l;

	if (n->link || n->closing || !n->resolved)
		return;
	if ((l = calloc(1, sizeof *l)) == NULL)
		return;
	l->n = n;
	uv_tcp_init(n->loop, &l->tcp);
	l->tcp.data = l;
	l->creq.data = l;
	n->handles++;
	n->link = l;
	n->joined = n->queried = false;
	n->rotated = false;
	n->link_since = net__now(n);
	if (uv_tcp_connect(&l->creq, &l->tcp, (const struct sockaddr *)&n->addr[n->addr_i], on_connect) != 0)
		next_address(n, "cannot start a connection");
}

static void start_lookup(struct net *n);

static void
on_tick(uv_timer_t *t)
{
	struct net *n = t->data;
	uint64_t tnow = net__now(n);

	if (n->closing)
		return;
	if (n->link && !n->link->connected && n->addr_i + 1 < n->naddr && n->phase == NET_CONNECTING &&
	    tnow - n->link_since >= NET_ADDR_WAIT_MS) {
		/* An address that neither answers nor refuses (a firewall, no route): the next one. */
		next_address(n, "no answer");
		return;
	}
	if (n->phase == NET_CONNECTING && n->fallback_at && n->link == NULL && !n->resolving && tnow >= n->fallback_at) {
		n->fallback_at = 0;
		start_lookup(n); /* the node first asked, by the name given: it may have moved */
		return;
	}
	if (n->phase == NET_CONNECTING && n->moving_at && n->link == NULL && tnow >= n->moving_at) {
		n->moving_at = 0;
		net__try_connect(n); /* the node that said MOVING, at the address that answered */
		return;
	}
	unsigned bound = n->redirected && n->cfg.connect_ms > NET_REDIRECT_WAIT_MS ? NET_REDIRECT_WAIT_MS : n->cfg.connect_ms;
	if (n->link && !n->joined && !n->queried && tnow - n->link_since >= bound) {
		char said[64];
		snprintf(said, sizeof said, "no answer in %u s", bound / 1000);
		if (fall_back(n, said))
			return;
		if (n->phase == NET_CONNECTING) {
			net__fail(n, PERR_TIMEOUT, true, "no answer from %s port %d", n->host, n->cfg.port);
			n->fatal = true;
			net_close(n);
		} else {
			net__link_lost(n, "no answer");
		}
		return;
	}
	if (n->link && (n->joined || n->queried)) {
		if (tnow - n->last_rx >= n->cfg.idle_ms) {
			net__link_lost(n, "the server went silent");
			return;
		}
		if (pconn_stalled(&n->pc, tnow, n->cfg.record_ms)) {
			/* The server's heartbeats would only go into a record that never ends. */
			net__link_lost(n, "a record from the server did not finish in time");
			return;
		}
		if (tnow - n->last_tx >= n->cfg.heartbeat_ms) {
			n->out.type = WIRE_HEARTBEAT;
			net__send_msg(n, &n->out);
		}
	}
	if (n->phase == NET_RECONNECTING && n->link == NULL) {
		if (tnow - n->lost_at >= n->cfg.reconnect_for_ms) {
			char label[300];
			n->gave_up = true;
			net__seat_forget(n);
			server_label(n, label, sizeof label);
			net__fail(n, PERR_TIMEOUT, true, "could not get back to %s: %u attempt%s in %u s, the last: %s", label,
			     n->attempts, n->attempts == 1 ? "" : "s", (unsigned)((tnow - n->lost_at) / 1000), n->lost_why);
			net_close(n);
			return;
		}
		if (tnow >= n->next_try) {
			n->attempts++;
			if (n->cfg.ev.retry)
				n->cfg.ev.retry(n->cfg.ud, n, n->attempts,
				                (unsigned)((n->cfg.reconnect_for_ms - (tnow - n->lost_at) + 999) / 1000), n->lost_why);
			net__try_connect(n);
		}
	}
}

static void
on_resolved(uv_getaddrinfo_t *req, int status, struct addrinfo *res)
{
	struct net *n = req->data;

	n->resolving = false;
	if (status != 0 || res == NULL) {
		if (status != UV_EAI_CANCELED && !n->closing) {
			net__fail(n, PERR_SERVER, true, "cannot find %s: %s", n->host, uv_strerror(status));
			n->fatal = true;
			net_close(n);
		}
		if (res)
			uv_freeaddrinfo(res);
		unref(n);
		return;
	}
	for (struct addrinfo *ai = res; ai && n->naddr < NET_ADDRS_MAX; ai = ai->ai_next) {
		struct sockaddr_storage *a = &n->addr[n->naddr];
		bool dup = false;
		if ((ai->ai_family != AF_INET && ai->ai_family != AF_INET6) || ai->ai_addrlen > sizeof *a)
			continue;
		memset(a, 0, sizeof *a);
		memcpy(a, ai->ai_addr, ai->ai_addrlen);
		if (a->ss_family == AF_INET)
			((struct sockaddr_in *)a)->sin_port = htons((uint16_t)n->cfg.port);
		else
			((struct sockaddr_in6 *)a)->sin6_port = htons((uint16_t)n->cfg.port);
		for (int i = 0; i < n->naddr && !dup; i++)
			dup = memcmp(&n->addr[i], a, sizeof *a) == 0;
		if (!dup)
			n->naddr++;
	}
	uv_freeaddrinfo(res);
	if (n->naddr == 0) {
		if (!n->closing) {
			net__fail(n, PERR_SERVER, true, "cannot find %s: no IPv4 or IPv6 address", n->host);
			n->fatal = true;
			net_close(n);
		}
		unref(n);
		return;
	}
	n->resolved = true;
	if (!n->closing)
		net__try_connect(n);
	unref(n);
}

/* Look n->host up (off the loop, libuv's threadpool); on_resolved connects. */
static void
start_lookup(struct net *n)
{
	struct addrinfo hints;

	memset(&hints, 0, sizeof hints);
	hints.ai_family = AF_UNSPEC;
	hints.ai_socktype = SOCK_STREAM;
	n->gai.data = n;
	n->resolving = true;
	n->resolved = false;
	n->naddr = n->addr_i = 0;
	n->handles++;
	if (uv_getaddrinfo(n->loop, &n->gai, on_resolved, n->host, NULL, &hints) != 0) {
		n->resolving = false;
		n->handles--;
		net__fail(n, PERR_SERVER, true, "cannot look up %s", n->host);
		net_close(n);
	}
}

/* A cluster's node sent us to the node holding the room (REDIRECT, inside the channel of the
 * server we trust): that node's key is pinned for the next connection, whatever the known-servers
 * file says of its address, and the same AUTH or RESUME goes there. */
void
net__redirect(struct net *n, const char *host, int port, const uint8_t key[PROTO_KEY_LEN])
{
	char *h = strdup(host);

	if (h == NULL || ++n->redirects > NET_REDIRECTS_MAX) {
		free(h);
		net__fail(n, PERR_SERVER, true, "sent from node to node %d times: the cluster cannot say where the room is",
		          n->redirects - 1);
		n->fatal = true;
		net_close(n);
		return;
	}
	if (n->origin_host == NULL && n->has_pin && (n->origin_host = strdup(n->host)) != NULL) {
		n->origin_port = n->cfg.port;
		memcpy(n->origin_pin, n->pinned, PROTO_KEY_LEN);
	}
	n->redirected = true;
	net__close_link(n);
	free(n->host);
	n->host = h;
	n->cfg.port = port;
	memcpy(n->pinned, key, PROTO_KEY_LEN);
	n->has_pin = true;
	for (int i = 0; i < n->nnodes; i++)
		if (memcmp(n->nodes[i].key, key, PROTO_KEY_LEN) == 0)
			n->node_i = i;
	start_lookup(n);
}

struct net *
net_create(uv_loop_t *loop, const struct net_config *cfg, char *why, size_t whylen)
{
	struct net *n;
	char name[PROTO_NAME_BYTES + 1];

	signal(SIGPIPE, SIG_IGN); /* a dead server is an EPIPE, not the end of the process */
	if (auth_init() != 0) {
		snprintf(why, whylen, "libsodium cannot start");
		return NULL;
	}
	if (cfg->host == NULL || cfg->host[0] == '\0' || cfg->port <= 0 || cfg->port > 65535) {
		snprintf(why, whylen, "no server address");
		return NULL;
	}
	if (cfg->name == NULL || text_clean(name, sizeof name, cfg->name, strlen(cfg->name), TEXT_NAME) <= 0) {
		snprintf(why, whylen, "a name is 1 to %d printable characters", PROTO_NAME_CHARS);
		return NULL;
	}
	if (cfg->room && cfg->room[0] && !text_check(cfg->room, strlen(cfg->room), TEXT_ROOM)) {
		snprintf(why, whylen, "a room code is 1 to %d letters, digits, '-' or '_'", PROTO_ROOM_BYTES);
		return NULL;
	}
	if (cfg->token_len > PROTO_TOKEN_MAX || (cfg->token_len && cfg->token_len < PROTO_TOKEN_MIN)) {
		snprintf(why, whylen, "bad resume token");
		return NULL;
	}
	if ((n = calloc(1, sizeof *n)) == NULL) {
		snprintf(why, whylen, "out of memory");
		return NULL;
	}
	n->loop = loop;
	n->cfg = *cfg;
	n->host = strdup(cfg->host);
	n->name = strdup(name);
	/* HELLO's room code may not be empty (text.h); a one-room host ignores it. */
	n->room = strdup(cfg->room && cfg->room[0] ? cfg->room : "host");
	n->room_given = cfg->room && cfg->room[0];
	n->seat_file = cfg->seat_file ? strdup(cfg->seat_file) : NULL;
	n->player = -1;
	n->node_i = n->lost_node = -1;
	n->phase = NET_CONNECTING;
	n->hold_ms = NET_LOBBY_HOLD_MS;
	n->grace_ms = NET_DUEL_GRACE_MS;
	if (cfg->token_len) {
		memcpy(n->token, cfg->token, cfg->token_len);
		n->token_len = cfg->token_len;
	}
	if (cfg->key)
		n->key = *cfg->key;
	if (cfg->ident)
		n->ident = *cfg->ident;
	else
		auth_ident_new(&n->ident);
	n->cfg.ident = NULL;
	if (cfg->query)
		n->query = *cfg->query;
	n->cfg.query = NULL;
	n->password = cfg->password && cfg->password[0] ? strdup(cfg->password) : NULL;
	n->fingerprint = cfg->fingerprint ? strdup(cfg->fingerprint) : NULL;
	n->known_file = cfg->known_file ? strdup(cfg->known_file) : NULL;
	n->cfg.password = n->cfg.fingerprint = n->cfg.known_file = NULL;
	n->cfg.key = NULL;
	if (cfg->server_key) {
		memcpy(n->pinned, cfg->server_key, PROTO_KEY_LEN);
		n->cfg.server_key = n->pinned; /* the caller's copy may go */
	}
	if (!n->host || !n->name || !n->room || (cfg->password && cfg->password[0] && !n->password) ||
	    (cfg->fingerprint && !n->fingerprint) || (cfg->known_file && !n->known_file) ||
	    (cfg->seat_file && !n->seat_file)) {
		snprintf(why, whylen, "out of memory");
		goto fail;
	}
	if (n->seat_file && n->token_len == 0) {
		struct seatfile_key k = { n->host, n->cfg.port, n->room_given ? n->room : "", n->name };
		struct seatfile_seat seat;
		if ((n->token_from_file = seatfile_load(n->seat_file, &k, &seat))) {
			n->token_len = seat.token_len;
			memcpy(n->token, seat.token, seat.token_len);
			memcpy(n->commit, seat.commit, sizeof n->commit);
			n->have_commit = seat.has_commit;
			n->duel_have_part = seat.have_part;
			memcpy(n->duel_part, seat.part, sizeof n->duel_part);
			n->duel_bits = seat.part_bits;
		}
	}
	pconn_init(&n->pc, PCONN_CLIENT);
	update_blank(&n->view);
	uv_timer_init(loop, &n->timer);
	n->timer.data = n;
	n->handles = 1; /* the timer; the address lookup counts itself */
	uv_timer_start(&n->timer, on_tick, 200, 200);
	start_lookup(n);
	return n;
fail:
	auth_ident_wipe(&n->ident);
	free(n->password);
	free(n->fingerprint);
	free(n->known_file);
	free(n->host);
	free(n->origin_host);
	free(n->name);
	free(n->room);
	free(n->seat_file);
	free(n);
	return NULL;
}

bool
net_resuming_seat(const struct net *n)
{
	return n->token_from_file;
}

void
net_server_label(const struct net *n, char *buf, size_t len)
{
	server_label(n, buf, len);
}

unsigned
net_reconnect_secs(const struct net *n)
{
	return (n->cfg.reconnect_for_ms + 999) / 1000;
}

unsigned
net_lobby_hold_secs(const struct net *n, bool *known)
{
	if (known)
		*known = n->limits_known;
	return (n->hold_ms + 999) / 1000;
}

unsigned
net_duel_grace_secs(const struct net *n, bool *known)
{
	if (known)
		*known = n->limits_known;
	return (n->grace_ms + 999) / 1000;
}

int
net_seat_hold_left(const struct net *n)
{
	uint64_t away;

	if (n->phase != NET_RECONNECTING || !n->lobby_lost || !n->token_len)
		return -1;
	away = net__now(n) - n->lost_at;
	return away >= n->hold_ms ? 0 : (int)((n->hold_ms - away + 999) / 1000);
}

int
net_phase(const struct net *n)
{
	return n->phase;
}

bool
net_seed_chosen(const struct net *n)
{
	return n->seed_chosen;
}

bool
net_seed_mirror(const struct net *n)
{
	return n->seed_mirror;
}

bool
net_seed_mine(const struct net *n)
{
	return !n->seed_chosen && !n->seed_mirror && n->duel_have_part && n->player >= 0 &&
	       ((n->duel_bits >> n->player) & 1);
}

const uint8_t *
net_server_key(const struct net *n)
{
	return n->pc.secure ? pconn_peer_key(&n->pc) : NULL;
}

const uint8_t *
net_rated_key(const struct net *n, const struct wire_rated *r)
{
	if (net_server_key(n) == NULL)
		return NULL;
	return rated_signed_by(&r->rec, r->signer, (const uint8_t (*)[32])n->met, (size_t)n->nmet);
}

int
net_player(const struct net *n)
{
	return n->player;
}

bool
net_controller(const struct net *n)
{
	return n->controller;
}

int
net_fd(const struct net *n)
{
	uv_os_fd_t fd;

	if (n->link == NULL || uv_fileno((const uv_handle_t *)&n->link->tcp, &fd) != 0)
		return -1;
	return (int)fd;
}

const struct view *
net_view(const struct net *n)
{
	return &n->view;
}

const struct wire_lobby *
net_lobby(const struct net *n)
{
	return &n->lobby;
}

const char *
net_end_log(const struct net *n, size_t *len)
{
	*len = n->log ? n->end.log_len : 0;
	return n->log;
}

void *
net_ud(const struct net *n)
{
	return n->cfg.ud;
}

void
net_bytes(const struct net *n, uint64_t *in, uint64_t *out)
{
	*in = n->bytes_in;
	*out = n->bytes_out;
}

int
net_parse_hostport(const char *s, char *host, size_t hostlen, int *port, int default_port, char *why, size_t whylen)
{
	const char *colon = NULL, *h = s;
	size_t hl;

	*port = default_port;
	if (s == NULL || *s == '\0') {
		snprintf(why, whylen, "no server address");
		return -1;
	}
	if (s[0] == '[') {
		const char *end = strchr(s, ']');
		if (end == NULL) {
			snprintf(why, whylen, "'%s': no ']' after an IPv6 address", s);
			return -1;
		}
		h = s + 1;
		hl = (size_t)(end - h);
		if (end[1] == ':')
			colon = end + 1;
		else if (end[1] != '\0') {
			snprintf(why, whylen, "'%s': junk after ']'", s);
			return -1;
		}
	} else {
		colon = strrchr(s, ':');
		if (colon && strchr(s, ':') != colon)
			colon = NULL; /* a bare IPv6 address */
		hl = colon ? (size_t)(colon - s) : strlen(s);
	}
	if (hl == 0 || hl >= hostlen) {
		snprintf(why, whylen, "'%s': bad host name", s);
		return -1;
	}
	memcpy(host, h, hl);
	host[hl] = '\0';
	if (colon) {
		char *end;
		long p = strtol(colon + 1, &end, 10);
		if (colon[1] == '\0' || *end != '\0' || p < 1 || p > 65535 || colon[1] == '+' || colon[1] == '-') {
			snprintf(why, whylen, "'%s': the port must be 1 to 65535", colon + 1);
			return -1;
		}
		*port = (int)p;
	}
	return 0;
}
