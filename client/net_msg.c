/* SPDX-License-Identifier: MIT */
/* net_msg: what the client does with each message a server sends: one handler per type, in one table. */
#include <stdlib.h>
#include <string.h>

#include "frame.h"
#include "net_internal.h"

/* A handler returns false when its message is out of turn here; net__message then drops the link
 * (PERR_STATE), as it does for a type with no handler (one only a client sends). Anything else a
 * handler finds wrong it deals with itself, saying why. */
typedef bool (*msg_fn)(struct net *n, const struct wire_msg *m);

static bool
on_challenge(struct net *n, const struct wire_msg *m)
{
	const struct wire_challenge *c = &m->u.challenge;
	const uint8_t *h = pconn_hash(&n->pc);

	if (n->joined)
		return false;
	/* Nothing goes inside the channel before the key is known to be the server's. */
	if (net__check_server_key(n) != 0) {
		n->fatal = true;
		net_close(n);
		return true;
	}
	if (c->password && !n->password && !(n->key.set && auth_equal(n->key.salt, c->salt, sizeof c->salt))) {
		n->fatal = true;
		net__fail(n, PERR_AUTH, true, "this game needs a password (--password)");
		net_close(n);
		return true;
	}
	if (c->password && !(n->key.set && auth_equal(n->key.salt, c->salt, sizeof c->salt)) &&
	    auth_key_derive(&n->key, n->password, c->salt) != 0) {
		n->fatal = true;
		net__fail(n, PERR_NOMEM, true, "out of memory deriving the password key");
		net_close(n);
		return true;
	}
	if (!c->password)
		auth_key_wipe(&n->key); /* proofs of zeros: the server checks none */
	/* The key first (protocol 7), signed over this channel's handshake hash: good for no other. */
	n->out.type = WIRE_IDENT;
	memcpy(n->out.u.ident.key, n->ident.pk, PROTO_IDENT_KEY_LEN);
	auth_ident_sign(&n->ident, h, n->out.u.ident.sig);
	net__send_msg(n, &n->out);
	if (n->cfg.ask) {
		n->out.type = WIRE_ASK;
		n->out.u.ask = *n->cfg.ask;
		net__send_msg(n, &n->out);
		return true;
	}
	if (n->query.type) {
		n->queried = true;
		net__send_msg(n, &n->query);
		return true;
	}
	if (n->token_len) {
		n->out.type = WIRE_RESUME;
		wire_who_init(&n->out.u.resume.who, n->name, n->room, n->cfg.role);
		n->out.u.resume.token_len = (uint8_t)n->token_len;
		memcpy(n->out.u.resume.token, n->token, n->token_len);
		auth_proof(&n->key, h, n->token, n->token_len, n->out.u.resume.proof);
	} else {
		n->out.type = WIRE_AUTH;
		wire_who_init(&n->out.u.auth.who, n->name, n->room, n->cfg.role);
		/* A member joining again after a lobby drop makes its room again if the server no
		 * longer has it (a restarted server): else whoever of the two came back second would be
		 * refused (NO_ROOM), and its tries would count as guesses of room codes. */
		n->out.u.auth.who.create = n->cfg.create_room || n->rejoin_create;
		n->out.u.auth.who.public_room = n->out.u.auth.who.create && n->cfg.public_room;
		auth_proof(&n->key, h, n->name, strlen(n->name), n->out.u.auth.proof);
	}
	net__send_msg(n, &n->out);
	return true;
}

/* KEYS: only after the key was checked against the pin (CHALLENGE) and before WELCOME, once. */
static bool
on_keys(struct net *n, const struct wire_msg *m)
{
	if (n->joined || !n->has_pin || n->rotated || !pconn_hash(&n->pc))
		return false;
	net__rotate(n, &m->u.keys);
	return true;
}

static bool
on_welcome(struct net *n, const struct wire_msg *m)
{
	n->joined = true;
	n->redirects = 0; /* counted for one join: a resume later on another node counts afresh */
	n->redirected = false;
	n->fallbacks = 0;
	n->moving_at = n->moving_since = 0;
	n->player = m->u.welcome.player;
	n->watching = n->player == WELCOME_SPECTATOR;
	n->controller = m->u.welcome.controller;
	n->token_len = m->u.welcome.token_len;
	memcpy(n->token, m->u.welcome.token, n->token_len);
	n->hold_ms = m->u.welcome.hold * 1000u;
	n->grace_ms = m->u.welcome.grace * 1000u;
	n->limits_known = true;
	if (n->phase == NET_CONNECTING || n->phase == NET_RECONNECTING) {
		bool was = n->phase == NET_RECONNECTING;
		n->phase = NET_LOBBY;
		n->token_from_file = false;
		/* The seat is ours from the join: a drop in the lobby holds it too, and a killed
		 * client run again takes it back from the file. */
		net__seat_save(n);
		if (was && n->cfg.ev.link)
			n->cfg.ev.link(n->cfg.ud, n, true, NULL);
	}
	if (n->cfg.ev.welcome)
		n->cfg.ev.welcome(n->cfg.ud, n, n->player, n->controller);
	return true;
}

static bool
on_lobby(struct net *n, const struct wire_msg *m)
{
	bool quiet = false;

	n->lobby = m->u.lobby;
	n->controller = m->u.lobby.controller == n->player;
	if (n->phase == NET_LOBBY && n->asked && n->player >= 0 && n->player < PLAYERS) {
		if (n->lobby.ready & (1u << n->player))
			n->asked_seen = true;
		else if (n->asked_seen)
			n->asked = 0; /* the server cleared it: the options changed, or the opponent left */
	}
	if (n->phase == NET_LOBBY) {
		/* Between duels: the commitment a part sent now answers. */
		n->lobby_fresh = true;
		if (n->ask) {
			/* Back after a drop that cost the seat its READY: this LOBBY is not news, the
			 * one that answers the READY is. */
			quiet = n->reasking;
			net__send_ask(n);
		}
		n->reasking = false;
	}
	if (n->cfg.ev.lobby && !quiet)
		n->cfg.ev.lobby(n->cfg.ud, n, &n->lobby);
	return true;
}

static bool
on_start(struct net *n, const struct wire_msg *m)
{
	struct proto_err e;

	if (m->u.start.resumed && n->phase == NET_LOBBY && n->have_end_commit &&
	    auth_equal(n->end_commit, m->u.start.commit, sizeof n->end_commit)) {
		/* Back in the lobby after a drop there: the server owes the seat the last duel's
		 * END again, as it cannot know it arrived. It did, and was checked: its final
		 * view, END and log are taken in and dropped, nothing said. */
		n->repeat_end = true;
		return true;
	}
	update_blank(&n->view);
	if (update_apply(&n->view, &m->u.start.view, &e) != 0) {
		net__fail(n, e.code, true, "bad START: %s", e.why);
		n->fatal = true;
		net_close(n);
		return true;
	}
	if (!m->u.start.resumed) {
		/* A new duel: on the commitment our part answered, with that part. */
		n->nseen = 0;
		memcpy(n->commit, m->u.start.commit, sizeof n->commit);
		n->have_commit = true;
		n->duel_have_part = n->have_part;
		memcpy(n->duel_part, n->part, sizeof n->part);
		n->duel_bits = n->part_bits;
		n->duel_mirror_asked = n->part_mirror;
		n->commit_moved = n->have_part && !auth_equal(n->part_commit, m->u.start.commit, sizeof n->commit);
		n->have_part = false;
	} else if (!n->have_commit) {
		/* A resumed snapshot before any START in this process (a client that was killed
		 * and kept no seat file) has only the commitment it carries: trust on first sight.
		 * Or a duel that started while our link was down in the lobby: our part, if it
		 * answered this very commitment, is the one to check at the end. */
		n->nseen = 0;
		memcpy(n->commit, m->u.start.commit, sizeof n->commit);
		n->have_commit = true;
		n->duel_have_part = n->have_part && auth_equal(n->part_commit, m->u.start.commit, sizeof n->commit);
		if (n->duel_have_part) {
			memcpy(n->duel_part, n->part, sizeof n->part);
			n->duel_bits = n->part_bits;
			n->duel_mirror_asked = n->part_mirror;
			n->have_part = false;
		}
	} else if (!auth_equal(n->commit, m->u.start.commit, sizeof n->commit)) {
		/* Kept from this duel's START (in memory or in the seat file): the host may not
		 * change its promise while we were away. */
		n->commit_changed = true;
	}
	n->seed_chosen = m->u.start.chosen;
	n->seed_mirror = m->u.start.mirror;
	n->lobby_fresh = false;
	n->ask = n->asked = 0;
	n->reasking = n->have_end_commit = n->repeat_end = false;
	net__record_view(n, m->u.start.resumed);
	n->phase = NET_PLAYING;
	n->token_from_file = false;
	net__seat_save(n);
	if (n->cfg.ev.start)
		n->cfg.ev.start(n->cfg.ud, n, &n->view, m->u.start.resumed);
	return true;
}

static bool
on_update(struct net *n, const struct wire_msg *m)
{
	struct proto_err e;

	if (n->phase != NET_PLAYING)
		return false;
	if (update_apply(&n->view, &m->u.update, &e) != 0) {
		net__fail(n, e.code, true, "bad UPDATE: %s", e.why);
		n->fatal = true;
		net_close(n);
		return true;
	}
	net__record_view(n, false);
	if (n->cfg.ev.update)
		n->cfg.ev.update(n->cfg.ud, n, &n->view, &m->u.update);
	return true;
}

static bool
on_end(struct net *n, const struct wire_msg *m)
{
	/* Still in the duel until its log is in (net__end_done): a link lost before then comes
	 * back for the END again. The seat file stays: until the player leaves (BYE), a
	 * drop holds the seat after the duel too, and a rerun takes it back. */
	n->end = m->u.end;
	if (!n->repeat_end)
		n->lobby_fresh = false; /* the next part answers the next LOBBY's commitment */
	free(n->log);
	n->log = NULL;
	n->log_got = 0;
	if (n->end.log_len > PROTO_LOG_MAX)
		n->end.log_len = 0;
	if (n->end.log_len && (n->log = malloc(n->end.log_len + 1)) == NULL)
		n->end.log_len = 0;
	n->end_pending = true;
	if (n->end.log_len == 0)
		net__end_done(n);
	return true;
}

static bool
on_log_chunk(struct net *n, const struct wire_msg *m)
{
	if (!n->end_pending || m->u.log.offset != n->log_got || m->u.log.len > n->end.log_len - n->log_got)
		return false;
	memcpy(n->log + n->log_got, m->u.log.data, m->u.log.len);
	n->log_got += m->u.log.len;
	if (n->log_got == n->end.log_len) {
		n->log[n->log_got] = '\0';
		net__end_done(n);
	}
	return true;
}

static bool
on_chat(struct net *n, const struct wire_msg *m)
{
	if (n->cfg.ev.chat)
		n->cfg.ev.chat(n->cfg.ud, n, m->u.chat.from, m->u.chat.text);
	return true;
}

/* What only a spectator is sent: a player's client that gets one drops the link, so that no
 * spectator's line can ever be shown to a player, whatever a server does. */
static bool
on_spect_view(struct net *n, const struct wire_msg *m)
{
	if (!net_spectator(n))
		return false;
	if (n->cfg.ev.spect_view)
		n->cfg.ev.spect_view(n->cfg.ud, n, &m->u.sview);
	return true;
}

static bool
on_spect_chat(struct net *n, const struct wire_msg *m)
{
	if (!net_spectator(n) || m->u.schat.name[0] == '\0')
		return false;
	if (n->cfg.ev.spect_chat)
		n->cfg.ev.spect_chat(n->cfg.ud, n, m->u.schat.name, m->u.schat.text);
	return true;
}

static bool
on_spect_info(struct net *n, const struct wire_msg *m)
{
	if (!n->joined)
		return false;
	if (n->cfg.ev.spect_info)
		n->cfg.ev.spect_info(n->cfg.ud, n, &m->u.sinfo);
	return true;
}

static bool
on_peer(struct net *n, const struct wire_msg *m)
{
	if (n->cfg.ev.peer)
		n->cfg.ev.peer(n->cfg.ud, n, &m->u.peer);
	return true;
}

static bool
on_error(struct net *n, const struct wire_msg *m)
{
	const struct wire_error *er = &m->u.error;

	if (!n->pc.secure) {
		/* In clear, before the handshake: the server's refusal of a HELLO, or anyone on the
		 * path. Said as unauthenticated, and it forgets no seat and changes no plan. */
		if (er->fatal)
			n->fatal = true;
		net__fail(n, er->code, er->fatal, "before the encrypted channel (unauthenticated): %s", er->text);
		if (er->fatal)
			net_close(n);
		return true;
	}
	if (er->fatal && er->code == PERR_RESUME &&
	    ((n->token_from_file && n->phase == NET_CONNECTING) || (n->lobby_lost && n->phase == NET_RECONNECTING))) {
		/* The seat a killed run of this command left behind is gone (its grace ran
		 * out, or the duel ended), or the one left in the lobby by a drop was not held
		 * long enough (or the server started again): join as anyone would. */
		bool lobby = n->phase == NET_RECONNECTING;
		net__seat_forget(n);
		n->token_len = 0;
		n->rejoin_create = lobby && n->room_given;
		net__fail(n, PERR_RESUME, false, lobby ? "the server no longer holds your seat: joining the room again as a new player"
		                                       : "the seat kept from an earlier run is gone: joining afresh");
		net__close_link(n);
		net__try_connect(n);
		return true;
	}
	if (er->code == PERR_MOVING && (!n->joined || n->phase == NET_RECONNECTING)) {
		net__moving(n, er->text);
		return true;
	}
	if (er->fatal && (er->code == PERR_CRYPTO || er->code == PERR_RECORD) && net__has_seat(n)) {
		/* A record of ours reached the server changed (a bit flipped on the way, a
		 * tamperer who cannot read it): the server dropped the link and holds the seat,
		 * as for any drop. Back with the token, over a new handshake with the same key. */
		net__link_lost(n, er->code == PERR_CRYPTO ? "a record was changed on the way to the server"
		                                          : "a record was cut or changed on the way to the server");
		return true;
	}
	if (er->fatal) {
		n->fatal = true;
		if (er->code == PERR_RESUME) {
			n->gave_up = true;
			net__seat_forget(n);
		}
	}
	net__fail(n, er->code, er->fatal, "%s", er->text);
	if (er->fatal)
		net_close(n);
	return true;
}

static bool
on_heartbeat(struct net *n, const struct wire_msg *m)
{
	return true; /* it has done its work: n->last_rx is now */
}

/* RATED: checked here against the server's key (the handshake's, which the fingerprint pinned),
 * so that what is shown and kept is the server's own statement. */
static bool
on_rated(struct net *n, const struct wire_msg *m)
{
	bool ok = net_rated_key(n, &m->u.rated) != NULL;

	if (!n->joined)
		return false;
	if (n->cfg.ev.rated)
		n->cfg.ev.rated(n->cfg.ud, n, &m->u.rated, ok);
	return true;
}

/* RECORDS, LADDER: the answer to this connection's ASK, and to nothing else. */
static bool
on_answer(struct net *n, const struct wire_msg *m)
{
	if (n->cfg.ask == NULL || n->joined)
		return false;
	if ((m->type == WIRE_RECORDS) != (n->cfg.ask->kind == ASK_HISTORY))
		return false;
	if (n->cfg.ev.answer)
		n->cfg.ev.answer(n->cfg.ud, n, m);
	return true;
}

/* What a goodbye means to the player, where the wire's word (bye_text) says too little. */
static const char *const bye_said[BYE_COUNT] = {
	[BYE_LEAVE] = "the host left and closed the room",
	[BYE_SHUTDOWN] = "the server is shutting down",
	[BYE_REPLACED] = "the server says goodbye: the same player connected again (this seat is now played "
	                 "from elsewhere)",
};

static bool
on_bye(struct net *n, const struct wire_msg *m)
{
	/* A server that is stopping (a signal, a restart) may be back, or a host may resume its
	 * duel from the log: in a duel and in the lobby alike, try to get back as after a drop.
	 * Any other goodbye is for good: the room closed by its host, this seat taken by the
	 * same player from elsewhere, ... */
	if (m->u.bye.reason == BYE_SHUTDOWN && n->phase != NET_CONNECTING) {
		net__link_lost(n, "the server is shutting down");
	} else {
		unsigned r = m->u.bye.reason;
		n->fatal = true;
		if (r == BYE_LEAVE && n->watching && n->room_given)
			net__fail(n, PERR_OK, true, "the room closed: its players left"); /* a server's room, not a host's */
		else if (r < BYE_COUNT && bye_said[r])
			net__fail(n, PERR_OK, true, "%s", bye_said[r]);
		else
			net__fail(n, PERR_OK, true, "the server says goodbye: %s", bye_text((int)r));
		net_close(n);
	}
	return true;
}

/* REDIRECT: the room is on another node of the server's cluster. Only before WELCOME (wire.h says
 * so for every message after it), and only inside the encrypted channel. */
static bool
on_redirect(struct net *n, const struct wire_msg *m)
{
	const struct wire_redirect *d = &m->u.redirect;

	if (!n->pc.secure || n->joined)
		return false;
	if (n->query.type == WIRE_QUICK) /* a cluster pairs on one of its nodes (docs/server.md) */
		net__fail(n, PERR_OK, false, "pairing is on another node of this server: %s port %u", d->host, d->port);
	else
		net__fail(n, PERR_OK, false, "the room is on another node of this server: %s port %u", d->host, d->port);
	net__redirect(n, d->host, d->port, d->key);
	return true;
}

/* NODES: a cluster's nodes, before WELCOME and when they change, inside the channel of the node we
 * trust. */
static bool
on_nodes(struct net *n, const struct wire_msg *m)
{
	if (!n->pc.secure)
		return false;
	net__nodes(n, &m->u.nodes);
	return true;
}

/* ROOMS (and ROOMS_PARTIAL before it) and MATCH: only to a query that asked (net_config.query); the caller reads them. */
static bool
on_reply(struct net *n, const struct wire_msg *m)
{
	bool ours = (n->query.type == WIRE_ROOMS_ASK && (m->type == WIRE_ROOMS || m->type == WIRE_ROOMS_PARTIAL)) ||
	            (n->query.type == WIRE_QUICK && m->type == WIRE_MATCH);

	if (!ours || !n->queried)
		return false;
	if (n->cfg.ev.reply)
		n->cfg.ev.reply(n->cfg.ud, n, m);
	return true;
}

/* Every type a server may send (WIRE_S2C or WIRE_BOTH in proto/wire.h's WIRE_LIST) has a row;
 * tests/client/test_netmsg.c checks that, so a new message cannot be forgotten here. A type is
 * 7 bits on the wire (frame.h: the 8th says deflated), hence 128 rows. */
static const msg_fn handlers[FRAME_DEFLATED] = {
	[WIRE_CHALLENGE] = on_challenge,
	[WIRE_KEYS] = on_keys,
	[WIRE_WELCOME] = on_welcome,
	[WIRE_LOBBY] = on_lobby,
	[WIRE_START] = on_start,
	[WIRE_UPDATE] = on_update,
	[WIRE_END] = on_end,
	[WIRE_LOG_CHUNK] = on_log_chunk,
	[WIRE_CHAT] = on_chat,
	[WIRE_ERROR] = on_error,
	[WIRE_HEARTBEAT] = on_heartbeat,
	[WIRE_BYE] = on_bye,
	[WIRE_PEER] = on_peer,
	[WIRE_SPECT_VIEW] = on_spect_view,
	[WIRE_SPECT_CHAT] = on_spect_chat,
	[WIRE_SPECT_INFO] = on_spect_info,
	[WIRE_REDIRECT] = on_redirect,
	[WIRE_NODES] = on_nodes,
	[WIRE_RATED] = on_rated,
	[WIRE_RECORDS] = on_answer,
	[WIRE_LADDER] = on_answer,
	[WIRE_ROOMS] = on_reply,
	[WIRE_ROOMS_PARTIAL] = on_reply,
	[WIRE_MATCH] = on_reply,
};

bool
net__handles(int type)
{
	return type >= 0 && type < FRAME_DEFLATED && handlers[type] != NULL;
}

void
net__message(struct net *n, const struct wire_msg *m)
{
	msg_fn fn = m->type < FRAME_DEFLATED ? handlers[m->type] : NULL;

	if (n->cfg.ev.msg)
		n->cfg.ev.msg(n->cfg.ud, n, m);
	if (fn && fn(n, m))
		return;
	net__fail(n, PERR_STATE, true, "the server sent %s out of turn", wire_name(m->type));
	n->fatal = true;
	net_close(n);
}
