/* SPDX-License-Identifier: MIT */
/* wire: payload encoders and strict decoders for every message, dispatched from WIRE_LIST. */
#include <arpa/inet.h>
#include <stddef.h>
#include <stdio.h>

#include "internal.h"
#include "text.h"
#include "wire.h"

_Static_assert(CMD_COUNT <= 8, "a command type is 3 bits on the wire");
_Static_assert(PLAYERS <= 8, "player bit sets are one byte");
_Static_assert(PLAYERS == 2, "END carries two players' parts");

typedef int (*enc_fn)(struct proto__w *w, const struct wire_msg *m, struct proto_err *e);
typedef int (*dec_fn)(struct proto__r *r, struct wire_msg *m, struct proto_err *e);

#define X(id, code, dir, pre, min, max, member) \
	static int enc_##id(struct proto__w *w, const struct wire_msg *m, struct proto_err *e); \
	static int dec_##id(struct proto__r *r, struct wire_msg *m, struct proto_err *e);
WIRE_LIST(X)
#undef X

struct wire_info {
	const char *name;
	uint8_t dir;
	bool pre;
	uint32_t min, max;
	enc_fn enc;
	dec_fn dec;
	size_t size; /* of struct wire_msg, up to the end of the union's member for the type */
};

#define MEMBER_END(member) (offsetof(struct wire_msg, u) + sizeof ((struct wire_msg *)0)->u.member)

static const struct wire_info infos[128] = {
#define X(id, code, dir, pre, min, max, member) \
	[code] = { #id, dir, pre, min, max, enc_##id, dec_##id, MEMBER_END(member) },
	WIRE_LIST(X)
#undef X
};

static const struct wire_info *
info(int type)
{
	if (type < 0 || type >= 128 || !infos[type].name)
		return NULL;
	return &infos[type];
}

const char *
wire_name(int type)
{
	const struct wire_info *i = info(type);

	return i ? i->name : "?";
}

bool
wire_known(int type)
{
	return info(type) != NULL;
}

int
wire_dir(int type)
{
	const struct wire_info *i = info(type);

	return i ? i->dir : 0;
}

bool
wire_before_join(int type)
{
	const struct wire_info *i = info(type);

	return i && i->pre;
}

size_t
wire_min(int type)
{
	const struct wire_info *i = info(type);

	return i ? i->min : 0;
}

size_t
wire_max(int type)
{
	const struct wire_info *i = info(type);

	return i ? i->max : 0;
}

const char *
bye_text(int reason)
{
	static const char *const texts[BYE_COUNT] = {
#define X(id, text) text,
		BYE_LIST(X)
#undef X
	};

	return reason >= 0 && reason < BYE_COUNT ? texts[reason] : "?";
}

/* ---- helpers ---- */

#define BAD(...) return proto__fail(e, PERR_RANGE, __VA_ARGS__)
#define NEED(ok) do { if (!(ok)) return proto__fail(e, PERR_TRUNCATED, "%s: truncated at %zu", wire_name(m->type), r->pos); } while (0)

static int
put_text(struct proto__w *w, const char *s, size_t cap, int kind, struct proto_err *e)
{
	size_t len = strnlen(s, cap);

	if (len == cap || !text_check(s, len, kind))
		return proto__fail(e, PERR_TEXT, "%s text not clean", kind == TEXT_NAME ? "name" : "a");
	proto__put_str8(w, s, len);
	return 0;
}

static int
get_text(struct proto__r *r, char *dst, size_t cap, int kind, const char *what, struct proto_err *e)
{
	uint8_t len;

	if (!proto__get_u8(r, &len))
		return proto__fail(e, PERR_TRUNCATED, "%s: truncated", what);
	if (len > proto__r_left(r))
		return proto__fail(e, PERR_TRUNCATED, "%s: %u bytes, %zu left", what, len, proto__r_left(r));
	if ((size_t)len >= cap || !text_check((const char *)r->p + r->pos, len, kind))
		return proto__fail(e, PERR_TEXT, "%s: not clean UTF-8 within %zu bytes", what, text_max_bytes(kind));
	memcpy(dst, r->p + r->pos, len);
	dst[len] = '\0';
	r->pos += len;
	return 0;
}

static bool
options_ok(const struct options *o)
{
	return o->size >= LEVEL_MIN && o->size <= LEVEL_MAX && (o->size & 1);
}

static unsigned
opt_flags(const struct options *o)
{
	return (o->fov ? 1u : 0u) | (o->potions ? 2u : 0u);
}

static int
get_options(struct proto__r *r, struct options *o, uint16_t *turn_time, struct proto_err *e)
{
	uint8_t size, flags;

	if (!proto__get_u8(r, &size) || !proto__get_u8(r, &flags) || !proto__get_u16(r, turn_time))
		return proto__fail(e, PERR_TRUNCATED, "options: truncated");
	o->size = size;
	o->fov = flags & 1;
	o->potions = (flags & 2) != 0;
	if (!options_ok(o) || flags > 3 || *turn_time > TURN_TIME_MAX)
		BAD("options: size %u, flags 0x%x, turn time %u", size, flags, *turn_time);
	return 0;
}

static int
put_options(struct proto__w *w, const struct options *o, uint16_t turn_time, struct proto_err *e)
{
	if (!options_ok(o) || turn_time > TURN_TIME_MAX)
		BAD("options: size %u, turn time %u", o->size, turn_time);
	proto__put_u8(w, o->size);
	proto__put_u8(w, opt_flags(o));
	proto__put_u16(w, turn_time);
	return 0;
}

int
wire_check_versions(uint32_t magic, uint16_t proto, uint16_t rules, struct proto_err *e)
{
	if (magic != PROTO_MAGIC)
		return proto__fail(e, PERR_MAGIC, "bad magic 0x%08x: not a wizwar peer", (unsigned)magic);
	if (proto != PROTO_VERSION)
		return proto__fail(e, PERR_VERSION, "protocol version %u here, %u there: update one of them",
		                   (unsigned)PROTO_VERSION, proto);
	if (rules != RULES_VERSION)
		return proto__fail(e, PERR_RULES, "rules version %u here, %u there: update one of them",
		                   (unsigned)RULES_VERSION, rules);
	return 0;
}

bool
wire_version_refusal(const struct proto_err *e, char *buf, size_t len)
{
	unsigned here, there;

	if ((e->code != PERR_VERSION && e->code != PERR_RULES) ||
	    sscanf(e->why, "%*s version %u here, %u there", &here, &there) != 2)
		return false;
	snprintf(buf, len, "version mismatch: the server has %s version %u, your client %u",
	         e->code == PERR_VERSION ? "protocol" : "rules", here, there);
	return true;
}

/* ---- handshake ---- */

static int
put_who(struct proto__w *w, const struct wire_who *x, struct proto_err *e)
{
	if (x->role > ROLE_MAX)
		BAD("who: role %u", x->role);
	if (x->public_room && !x->create)
		BAD("who: public without create");
	proto__put_u8(w, (uint8_t)(x->role | (x->create ? HELLO_CREATE : 0) | (x->public_room ? HELLO_PUBLIC : 0)));
	if (put_text(w, x->name, sizeof x->name, TEXT_NAME, e) < 0 ||
	    put_text(w, x->room, sizeof x->room, TEXT_ROOM, e) < 0)
		return PROTO_BROKEN;
	return 0;
}

static int
get_who(struct proto__r *r, struct wire_who *x, struct proto_err *e)
{
	if (!proto__get_u8(r, &x->role))
		return proto__fail(e, PERR_TRUNCATED, "who: truncated");
	x->create = (x->role & HELLO_CREATE) != 0;
	x->public_room = (x->role & HELLO_PUBLIC) != 0;
	x->role &= (uint8_t)~(HELLO_CREATE | HELLO_PUBLIC);
	if (x->role > ROLE_MAX || (x->public_room && !x->create))
		BAD("who: role %u%s", x->role, x->public_room && !x->create ? ", public without create" : "");
	if (get_text(r, x->name, sizeof x->name, TEXT_NAME, "name", e) < 0 ||
	    get_text(r, x->room, sizeof x->room, TEXT_ROOM, "room", e) < 0)
		return PROTO_BROKEN;
	return 0;
}

static int
enc_HELLO(struct proto__w *w, const struct wire_msg *m, struct proto_err *e)
{
	const struct wire_hello *h = &m->u.hello;

	proto__put_u32(w, h->magic);
	proto__put_u16(w, h->proto);
	proto__put_u16(w, h->rules);
	proto__put(w, h->e, sizeof h->e);
	if (h->has_hint)
		proto__put(w, h->hint, sizeof h->hint);
	return 0;
}

static int
dec_HELLO(struct proto__r *r, struct wire_msg *m, struct proto_err *e)
{
	struct wire_hello *h = &m->u.hello;

	/* The versions first, whatever follows: a peer of another version is told so. */
	NEED(proto__get_u32(r, &h->magic) && proto__get_u16(r, &h->proto) && proto__get_u16(r, &h->rules));
	if (wire_check_versions(h->magic, h->proto, h->rules, e) < 0)
		return PROTO_BROKEN;
	NEED(proto__get(r, h->e, sizeof h->e));
	/* The hint is all or nothing: anything else after e is trailing bytes. */
	if (proto__r_left(r) == sizeof h->hint) {
		proto__get(r, h->hint, sizeof h->hint);
		h->has_hint = true;
	}
	return 0;
}

static int
enc_CHALLENGE(struct proto__w *w, const struct wire_msg *m, struct proto_err *e)
{
	const struct wire_challenge *c = &m->u.challenge;

	proto__put_u32(w, c->magic);
	proto__put_u16(w, c->proto);
	proto__put_u16(w, c->rules);
	proto__put(w, c->noise, sizeof c->noise);
	return 0;
}

static int
dec_CHALLENGE(struct proto__r *r, struct wire_msg *m, struct proto_err *e)
{
	struct wire_challenge *c = &m->u.challenge;

	NEED(proto__get_u32(r, &c->magic) && proto__get_u16(r, &c->proto) && proto__get_u16(r, &c->rules));
	if (wire_check_versions(c->magic, c->proto, c->rules, e) < 0)
		return PROTO_BROKEN;
	NEED(proto__get(r, c->noise, sizeof c->noise));
	c->password = false; /* known once pconn has opened the Noise message */
	memset(c->salt, 0, sizeof c->salt);
	return 0;
}

int
wire_challenge_secret_put(const struct wire_challenge *c, uint8_t out[WIRE_CHALLENGE_SECRET])
{
	out[0] = c->password ? 1 : 0;
	memcpy(out + 1, c->salt, PROTO_PW_SALT_LEN);
	return 0;
}

int
wire_challenge_secret_get(struct wire_challenge *c, const uint8_t *p, size_t len, struct proto_err *e)
{
	if (len != WIRE_CHALLENGE_SECRET)
		return proto__fail(e, PERR_TRAILING, "challenge: %zu secret bytes, want %d", len, WIRE_CHALLENGE_SECRET);
	if (p[0] > 1)
		BAD("challenge: flags 0x%x", p[0]);
	c->password = p[0] & 1;
	memcpy(c->salt, p + 1, PROTO_PW_SALT_LEN);
	return 0;
}

static int
enc_AUTH(struct proto__w *w, const struct wire_msg *m, struct proto_err *e)
{
	if (put_who(w, &m->u.auth.who, e) < 0)
		return PROTO_BROKEN;
	proto__put(w, m->u.auth.proof, PROTO_PROOF_LEN);
	return 0;
}

static int
dec_AUTH(struct proto__r *r, struct wire_msg *m, struct proto_err *e)
{
	if (get_who(r, &m->u.auth.who, e) < 0)
		return PROTO_BROKEN;
	NEED(proto__get(r, m->u.auth.proof, PROTO_PROOF_LEN));
	return 0;
}

/* A player has a seat and a token; a spectator (WELCOME_SPECTATOR) neither, nor control. */
static bool
welcome_ok(unsigned player, bool controller, unsigned token_len)
{
	if (player == WELCOME_SPECTATOR)
		return !controller && token_len == 0;
	return player < PLAYERS && token_len >= PROTO_TOKEN_MIN && token_len <= PROTO_TOKEN_MAX;
}

/* IDENT: the key and the signature, as they are; the server verifies the signature (auth_ident_verify),
 * the decoder only the length. */
static int
enc_IDENT(struct proto__w *w, const struct wire_msg *m, struct proto_err *e)
{
	(void)e;
	proto__put(w, m->u.ident.key, PROTO_IDENT_KEY_LEN);
	proto__put(w, m->u.ident.sig, PROTO_IDENT_SIG_LEN);
	return 0;
}

/* KEYS: fixed fields; the client verifies the signature against its pin (auth_rotate_verify). */
static int
enc_KEYS(struct proto__w *w, const struct wire_msg *m, struct proto_err *e)
{
	const struct wire_keys *k = &m->u.keys;

	(void)e;
	proto__put(w, k->old_ed, sizeof k->old_ed);
	proto__put(w, k->new_key, sizeof k->new_key);
	proto__put_u64(w, k->until);
	proto__put(w, k->sig, sizeof k->sig);
	return 0;
}

static int
dec_KEYS(struct proto__r *r, struct wire_msg *m, struct proto_err *e)
{
	struct wire_keys *k = &m->u.keys;

	NEED(proto__get(r, k->old_ed, sizeof k->old_ed) && proto__get(r, k->new_key, sizeof k->new_key) &&
	     proto__get_u64(r, &k->until) && proto__get(r, k->sig, sizeof k->sig));
	return 0;
}

static int
dec_IDENT(struct proto__r *r, struct wire_msg *m, struct proto_err *e)
{
	NEED(proto__get(r, m->u.ident.key, PROTO_IDENT_KEY_LEN) && proto__get(r, m->u.ident.sig, PROTO_IDENT_SIG_LEN));
	return 0;
}

static int
enc_WELCOME(struct proto__w *w, const struct wire_msg *m, struct proto_err *e)
{
	const struct wire_welcome *c = &m->u.welcome;

	if (!welcome_ok(c->player, c->controller, c->token_len))
		BAD("welcome: player %u, token %u bytes", c->player, c->token_len);
	if (c->grace < 1 || c->hold > c->grace)
		BAD("welcome: lobby hold %u s, grace %u s", c->hold, c->grace);
	proto__put_u8(w, c->player);
	proto__put_u8(w, (uint8_t)((c->controller ? 1 : 0) | (c->names_owned ? 2 : 0)));
	proto__put_u8(w, c->token_len);
	proto__put(w, c->token, c->token_len);
	proto__put_u16(w, c->hold);
	proto__put_u16(w, c->grace);
	return 0;
}

static int
dec_WELCOME(struct proto__r *r, struct wire_msg *m, struct proto_err *e)
{
	struct wire_welcome *c = &m->u.welcome;
	uint8_t flags;

	NEED(proto__get_u8(r, &c->player) && proto__get_u8(r, &flags) && proto__get_u8(r, &c->token_len));
	if (flags > 3 || !welcome_ok(c->player, flags & 1, c->token_len))
		BAD("welcome: player %u, flags 0x%x, token %u bytes", c->player, flags, c->token_len);
	c->controller = flags & 1;
	c->names_owned = (flags & 2) != 0;
	NEED(proto__get(r, c->token, c->token_len));
	/* A seat is held a while in a duel (a grace of 0 would forfeit it at the drop), and a
	 * server never holds a lobby seat longer than a duel's. */
	NEED(proto__get_u16(r, &c->hold) && proto__get_u16(r, &c->grace));
	if (c->grace < 1 || c->hold > c->grace)
		BAD("welcome: lobby hold %u s, grace %u s", c->hold, c->grace);
	return 0;
}

/* ---- lobby ---- */

#define PLAYER_BITS ((1u << PLAYERS) - 1)

static int
enc_LOBBY(struct proto__w *w, const struct wire_msg *m, struct proto_err *e)
{
	const struct wire_lobby *l = &m->u.lobby;

	if (l->controller >= PLAYERS || (l->present | l->ready | l->bots | l->rematch | l->parts) & ~PLAYER_BITS)
		BAD("lobby: controller %u or player bits", l->controller);
	if (put_options(w, &l->opt, l->turn_time, e) < 0)
		return PROTO_BROKEN;
	proto__put_u8(w, l->controller);
	proto__put_u8(w, l->present);
	proto__put_u8(w, l->ready);
	proto__put_u8(w, l->bots);
	proto__put_u8(w, l->rematch);
	proto__put_u8(w, l->parts);
	proto__put(w, l->commit, PROTO_COMMIT_LEN);
	for (int p = 0; p < PLAYERS; p++) {
		size_t len = strnlen(l->name[p], sizeof l->name[p]);

		if (len == 0 && !((l->present >> p) & 1)) {
			proto__put_u8(w, 0);
			continue;
		}
		if (put_text(w, l->name[p], sizeof l->name[p], TEXT_NAME, e) < 0)
			return PROTO_BROKEN;
	}
	return 0;
}

static int
dec_LOBBY(struct proto__r *r, struct wire_msg *m, struct proto_err *e)
{
	struct wire_lobby *l = &m->u.lobby;

	if (get_options(r, &l->opt, &l->turn_time, e) < 0)
		return PROTO_BROKEN;
	NEED(proto__get_u8(r, &l->controller) && proto__get_u8(r, &l->present) && proto__get_u8(r, &l->ready) &&
	     proto__get_u8(r, &l->bots) && proto__get_u8(r, &l->rematch) && proto__get_u8(r, &l->parts) &&
	     proto__get(r, l->commit, PROTO_COMMIT_LEN));
	if (l->controller >= PLAYERS || (l->present | l->ready | l->bots | l->rematch | l->parts) & ~PLAYER_BITS)
		BAD("lobby: controller %u or player bits", l->controller);
	for (int p = 0; p < PLAYERS; p++) {
		/* A name is empty exactly when that player is absent. */
		if ((l->present >> p) & 1) {
			if (get_text(r, l->name[p], sizeof l->name[p], TEXT_NAME, "lobby name", e) < 0)
				return PROTO_BROKEN;
		} else {
			uint8_t len;

			NEED(proto__get_u8(r, &len));
			if (len != 0)
				BAD("lobby: a name for an absent player");
			l->name[p][0] = '\0';
		}
	}
	return 0;
}

static int
enc_OPTIONS(struct proto__w *w, const struct wire_msg *m, struct proto_err *e)
{
	return put_options(w, &m->u.options.opt, m->u.options.turn_time, e);
}

static int
dec_OPTIONS(struct proto__r *r, struct wire_msg *m, struct proto_err *e)
{
	return get_options(r, &m->u.options.opt, &m->u.options.turn_time, e);
}

/* READY 1 carries the player's part of the next seed; READY 0 nothing more. */
static int
enc_READY(struct proto__w *w, const struct wire_msg *m, struct proto_err *e)
{
	proto__put_u8(w, m->u.ready.ready ? 1 : 0);
	if (m->u.ready.ready)
		proto__put(w, m->u.ready.part, PROTO_PART_LEN);
	return 0;
}

static int
dec_READY(struct proto__r *r, struct wire_msg *m, struct proto_err *e)
{
	uint8_t b;

	NEED(proto__get_u8(r, &b));
	if (b > 1)
		BAD("ready: %u", b);
	m->u.ready.ready = b;
	if (b)
		NEED(proto__get(r, m->u.ready.part, PROTO_PART_LEN));
	return 0;
}

static int
enc_none(struct proto__w *w, const struct wire_msg *m, struct proto_err *e)
{
	return 0;
}

static int
dec_none(struct proto__r *r, struct wire_msg *m, struct proto_err *e)
{
	return 0;
}

static int enc_CONTROL(struct proto__w *w, const struct wire_msg *m, struct proto_err *e) { return enc_none(w, m, e); }
static int dec_CONTROL(struct proto__r *r, struct wire_msg *m, struct proto_err *e) { return dec_none(r, m, e); }
/* REMATCH: 0 a plain rematch, 1 a mirror; then the player's part of the next seed. */
static int
enc_REMATCH(struct proto__w *w, const struct wire_msg *m, struct proto_err *e)
{
	proto__put_u8(w, m->u.rematch.mirror ? 1 : 0);
	proto__put(w, m->u.rematch.part, PROTO_PART_LEN);
	return 0;
}

static int
dec_REMATCH(struct proto__r *r, struct wire_msg *m, struct proto_err *e)
{
	uint8_t b;

	NEED(proto__get_u8(r, &b) && proto__get(r, m->u.rematch.part, PROTO_PART_LEN));
	if (b > 1)
		BAD("rematch: %u (0 plain, 1 mirror)", b);
	m->u.rematch.mirror = b;
	return 0;
}
static int enc_HEARTBEAT(struct proto__w *w, const struct wire_msg *m, struct proto_err *e) { return enc_none(w, m, e); }
static int dec_HEARTBEAT(struct proto__r *r, struct wire_msg *m, struct proto_err *e) { return dec_none(r, m, e); }

/* ---- game ---- */

static int
enc_START(struct proto__w *w, const struct wire_msg *m, struct proto_err *e)
{
	const struct wire_start *s = &m->u.start;

	if (s->first >= PLAYERS || s->turn_time > TURN_TIME_MAX)
		BAD("start: first %u, turn time %u", s->first, s->turn_time);
	proto__put_u8(w, (s->resumed ? 1 : 0) | (s->chosen ? 2 : 0) | (s->mirror ? 4 : 0));
	proto__put_u8(w, s->first);
	proto__put_u16(w, s->turn_time);
	proto__put(w, s->commit, PROTO_COMMIT_LEN);
	return update__write(w, &s->view, e);
}

static int
dec_START(struct proto__r *r, struct wire_msg *m, struct proto_err *e)
{
	struct wire_start *s = &m->u.start;
	uint8_t flags;

	NEED(proto__get_u8(r, &flags) && proto__get_u8(r, &s->first) && proto__get_u16(r, &s->turn_time) &&
	     proto__get(r, s->commit, PROTO_COMMIT_LEN));
	if (flags > 7 || s->first >= PLAYERS || s->turn_time > TURN_TIME_MAX)
		BAD("start: flags 0x%x, first %u, turn time %u", flags, s->first, s->turn_time);
	s->resumed = flags & 1;
	s->chosen = (flags & 2) != 0;
	s->mirror = (flags & 4) != 0;
	return update__read(r, &s->view, e);
}

/* A command in one byte (two with an argument): type in bits 0-2, direction
 * in bits 3-6, bit 7 set when an argument byte follows. */
static bool
dir_ok(unsigned d)
{
	return d <= 9 && d != 5;
}

static int
enc_CMD(struct proto__w *w, const struct wire_msg *m, struct proto_err *e)
{
	const struct cmd *c = &m->u.cmd;

	if (c->type >= CMD_COUNT || !dir_ok(c->dir))
		BAD("cmd: type %u, dir %u", c->type, c->dir);
	proto__put_u8(w, (unsigned)c->type | (unsigned)c->dir << 3 | (c->arg ? 0x80u : 0u));
	if (c->arg)
		proto__put_u8(w, c->arg);
	return 0;
}

static int
dec_CMD(struct proto__r *r, struct wire_msg *m, struct proto_err *e)
{
	struct cmd *c = &m->u.cmd;
	uint8_t b;

	NEED(proto__get_u8(r, &b));
	c->type = b & 7;
	c->dir = (b >> 3) & 15;
	c->arg = 0;
	if (c->type >= CMD_COUNT || !dir_ok(c->dir))
		BAD("cmd: type %u, dir %u", c->type, c->dir);
	if (b & 0x80) {
		NEED(proto__get_u8(r, &c->arg));
		if (c->arg == 0)
			BAD("cmd: argument 0 sent"); /* one encoding per command */
	}
	return 0;
}

static int
enc_UPDATE(struct proto__w *w, const struct wire_msg *m, struct proto_err *e)
{
	return update__write(w, &m->u.update, e);
}

static int
dec_UPDATE(struct proto__r *r, struct wire_msg *m, struct proto_err *e)
{
	return update__read(r, &m->u.update, e);
}

/* A part whose bit is clear is all zeros: one encoding per END. */
static bool
end_parts_ok(const struct wire_end *d)
{
	static const uint8_t zero[PROTO_PART_LEN];

	if (d->parts & ~PLAYER_BITS)
		return false;
	for (int p = 0; p < PLAYERS; p++)
		if (!((d->parts >> p) & 1) && memcmp(d->part[p], zero, PROTO_PART_LEN) != 0)
			return false;
	return true;
}

static int
enc_END(struct proto__w *w, const struct wire_msg *m, struct proto_err *e)
{
	const struct wire_end *d = &m->u.end;

	if (d->result < RESULT_WIN0 || d->result > RESULT_DRAW || d->reason < END_KILLED ||
	    d->reason > END_TURN_LIMIT || d->log_len > PROTO_LOG_MAX || !end_parts_ok(d))
		BAD("end: result %u, reason %u, log %u, parts 0x%x", d->result, d->reason, (unsigned)d->log_len, d->parts);
	proto__put_u8(w, d->result);
	proto__put_u8(w, d->reason);
	proto__put_u64(w, d->seed);
	proto__put(w, d->server_part, PROTO_PART_LEN);
	proto__put_u8(w, d->parts);
	for (int p = 0; p < PLAYERS; p++)
		proto__put(w, d->part[p], PROTO_PART_LEN);
	proto__put_u64(w, d->hash);
	proto__put_u32(w, d->log_len);
	return 0;
}

static int
dec_END(struct proto__r *r, struct wire_msg *m, struct proto_err *e)
{
	struct wire_end *d = &m->u.end;

	NEED(proto__get_u8(r, &d->result) && proto__get_u8(r, &d->reason) && proto__get_u64(r, &d->seed) &&
	     proto__get(r, d->server_part, PROTO_PART_LEN) && proto__get_u8(r, &d->parts) &&
	     proto__get(r, d->part[0], PROTO_PART_LEN) && proto__get(r, d->part[1], PROTO_PART_LEN) &&
	     proto__get_u64(r, &d->hash) && proto__get_u32(r, &d->log_len));
	if (d->result < RESULT_WIN0 || d->result > RESULT_DRAW || d->reason < END_KILLED ||
	    d->reason > END_TURN_LIMIT || d->log_len > PROTO_LOG_MAX || !end_parts_ok(d))
		BAD("end: result %u, reason %u, log %u, parts 0x%x", d->result, d->reason, (unsigned)d->log_len, d->parts);
	return 0;
}

static int
enc_LOG_CHUNK(struct proto__w *w, const struct wire_msg *m, struct proto_err *e)
{
	const struct wire_log *l = &m->u.log;

	if (l->len < 1 || l->len > PROTO_LOG_CHUNK || l->offset >= PROTO_LOG_MAX || l->len > PROTO_LOG_MAX - l->offset)
		BAD("log: %u bytes at %u", l->len, (unsigned)l->offset);
	proto__put_var(w, l->offset);
	proto__put(w, l->data, l->len);
	return 0;
}

static int
dec_LOG_CHUNK(struct proto__r *r, struct wire_msg *m, struct proto_err *e)
{
	struct wire_log *l = &m->u.log;
	int rc = proto__get_var(r, &l->offset);
	size_t n = proto__r_left(r);

	if (rc <= 0)
		return proto__fail(e, rc ? PERR_VARINT : PERR_TRUNCATED, "log: offset");
	if (n < 1 || n > PROTO_LOG_CHUNK || l->offset >= PROTO_LOG_MAX || n > PROTO_LOG_MAX - l->offset)
		BAD("log: %zu bytes at %u", n, (unsigned)l->offset);
	l->len = (uint16_t)n;
	NEED(proto__get(r, l->data, n));
	return 0;
}

/* ---- control ---- */

static int
enc_CHAT(struct proto__w *w, const struct wire_msg *m, struct proto_err *e)
{
	const struct wire_chat *c = &m->u.chat;

	if (c->from >= PLAYERS && c->from != CHAT_FROM_CLIENT)
		BAD("chat: from %u", c->from);
	proto__put_u8(w, c->from);
	return put_text(w, c->text, sizeof c->text, TEXT_CHAT, e);
}

static int
dec_CHAT(struct proto__r *r, struct wire_msg *m, struct proto_err *e)
{
	struct wire_chat *c = &m->u.chat;

	NEED(proto__get_u8(r, &c->from));
	if (c->from >= PLAYERS && c->from != CHAT_FROM_CLIENT)
		BAD("chat: from %u", c->from);
	return get_text(r, c->text, sizeof c->text, TEXT_CHAT, "chat", e);
}

static int
enc_ERROR(struct proto__w *w, const struct wire_msg *m, struct proto_err *e)
{
	const struct wire_error *x = &m->u.error;

	proto__put_u16(w, x->code);
	proto__put_u8(w, x->fatal ? 1 : 0);
	return put_text(w, x->text, sizeof x->text, TEXT_REASON, e);
}

static int
dec_ERROR(struct proto__r *r, struct wire_msg *m, struct proto_err *e)
{
	struct wire_error *x = &m->u.error;
	uint8_t flags;

	NEED(proto__get_u16(r, &x->code) && proto__get_u8(r, &flags));
	if (flags > 1)
		BAD("error: flags 0x%x", flags);
	x->fatal = flags & 1;
	return get_text(r, x->text, sizeof x->text, TEXT_REASON, "error text", e);
}

static int
enc_RESUME(struct proto__w *w, const struct wire_msg *m, struct proto_err *e)
{
	const struct wire_resume *x = &m->u.resume;

	if (x->token_len < PROTO_TOKEN_MIN || x->token_len > PROTO_TOKEN_MAX)
		BAD("resume: token %u bytes", x->token_len);
	if (put_who(w, &x->who, e) < 0)
		return PROTO_BROKEN;
	proto__put_u8(w, x->token_len);
	proto__put(w, x->token, x->token_len);
	proto__put(w, x->proof, PROTO_PROOF_LEN);
	return 0;
}

static int
dec_RESUME(struct proto__r *r, struct wire_msg *m, struct proto_err *e)
{
	struct wire_resume *x = &m->u.resume;

	if (get_who(r, &x->who, e) < 0)
		return PROTO_BROKEN;
	NEED(proto__get_u8(r, &x->token_len));
	if (x->token_len < PROTO_TOKEN_MIN || x->token_len > PROTO_TOKEN_MAX)
		BAD("resume: token %u bytes", x->token_len);
	NEED(proto__get(r, x->token, x->token_len) && proto__get(r, x->proof, PROTO_PROOF_LEN));
	return 0;
}

static int
enc_BYE(struct proto__w *w, const struct wire_msg *m, struct proto_err *e)
{
	if (m->u.bye.reason >= BYE_COUNT)
		BAD("bye: reason %u", m->u.bye.reason);
	proto__put_u8(w, m->u.bye.reason);
	return 0;
}

static int
dec_BYE(struct proto__r *r, struct wire_msg *m, struct proto_err *e)
{
	NEED(proto__get_u8(r, &m->u.bye.reason));
	if (m->u.bye.reason >= BYE_COUNT)
		BAD("bye: reason %u", m->u.bye.reason);
	return 0;
}

static int
enc_PEER(struct proto__w *w, const struct wire_msg *m, struct proto_err *e)
{
	const struct wire_peer *p = &m->u.peer;

	if (p->player >= PLAYERS || p->state > PEER_GONE)
		BAD("peer: player %u, state %u", p->player, p->state);
	proto__put_u8(w, p->player);
	proto__put_u8(w, p->state);
	proto__put_u16(w, p->seconds);
	return 0;
}

static int
dec_PEER(struct proto__r *r, struct wire_msg *m, struct proto_err *e)
{
	struct wire_peer *p = &m->u.peer;

	NEED(proto__get_u8(r, &p->player) && proto__get_u8(r, &p->state) && proto__get_u16(r, &p->seconds));
	if (p->player >= PLAYERS || p->state > PEER_GONE)
		BAD("peer: player %u, state %u", p->player, p->state);
	return 0;
}

/* ---- cluster ---- */

/* A node's address as a client may be sent to it: an IP address (no name: a peer must not make a
 * client look names up, nor print one), NUL-terminated in h. */
static bool
redirect_host_ok(const char *h, size_t n)
{
	unsigned char a[16];

	return n > 0 && n <= WIRE_REDIRECT_HOST_MAX && strlen(h) == n &&
	       (inet_pton(AF_INET, h, a) == 1 || inet_pton(AF_INET6, h, a) == 1);
}

static int
enc_REDIRECT(struct proto__w *w, const struct wire_msg *m, struct proto_err *e)
{
	const struct wire_redirect *d = &m->u.redirect;
	size_t n = strnlen(d->host, sizeof d->host);

	if (d->port == 0 || !redirect_host_ok(d->host, n))
		BAD("redirect: port %u, host of %zu bytes", d->port, n);
	proto__put_u16(w, d->port);
	proto__put(w, d->key, PROTO_KEY_LEN);
	proto__put_str8(w, d->host, n);
	return 0;
}

/* One node's address, port and key: REDIRECT's payload, and each of NODES's. */
static int
get_node(struct proto__r *r, const struct wire_msg *m, struct wire_redirect *d, struct proto_err *e)
{
	uint8_t n;

	NEED(proto__get_u16(r, &d->port) && proto__get(r, d->key, PROTO_KEY_LEN) && proto__get_u8(r, &n));
	if (n > WIRE_REDIRECT_HOST_MAX)
		BAD("%s: host of %u bytes", wire_name(m->type), n);
	NEED(proto__get(r, d->host, n));
	d->host[n] = '\0';
	if (d->port == 0 || !redirect_host_ok(d->host, n))
		BAD("%s: port %u, host not an address", wire_name(m->type), d->port);
	return 0;
}

static int
dec_REDIRECT(struct proto__r *r, struct wire_msg *m, struct proto_err *e)
{
	return get_node(r, m, &m->u.redirect, e);
}

/* NODES: a count, then each node as REDIRECT's payload is. */
static int
enc_NODES(struct proto__w *w, const struct wire_msg *m, struct proto_err *e)
{
	const struct wire_nodes *d = &m->u.nodes;

	if (d->n == 0 || d->n > WIRE_NODES_MAX)
		BAD("nodes: %u nodes", d->n);
	proto__put_u8(w, d->n);
	for (unsigned i = 0; i < d->n; i++) {
		const struct wire_redirect *x = &d->node[i];
		size_t n = strnlen(x->host, sizeof x->host);
		if (x->port == 0 || !redirect_host_ok(x->host, n))
			BAD("nodes: node %u: port %u, host of %zu bytes", i, x->port, n);
		proto__put_u16(w, x->port);
		proto__put(w, x->key, PROTO_KEY_LEN);
		proto__put_str8(w, x->host, n);
	}
	return 0;
}

static int
dec_NODES(struct proto__r *r, struct wire_msg *m, struct proto_err *e)
{
	struct wire_nodes *d = &m->u.nodes;
	int rc;

	NEED(proto__get_u8(r, &d->n));
	if (d->n == 0 || d->n > WIRE_NODES_MAX)
		BAD("nodes: %u nodes", d->n);
	for (unsigned i = 0; i < d->n; i++)
		if ((rc = get_node(r, m, &d->node[i], e)) != 0)
			return rc;
	return 0;
}

/* ---- spectators ---- */

static int
enc_SPECT_VIEW(struct proto__w *w, const struct wire_msg *m, struct proto_err *e)
{
	const struct wire_sview *v = &m->u.sview;

	if (v->kind >= SPECT_KIND_COUNT || v->me_state > OPP_REMEMBERED || v->delay > SPECT_DELAY_MAX ||
	    ((v->kind == SPECT_KIND_PLAYER0 || v->kind == SPECT_KIND_PLAYER1) != (v->delay > 0)))
		BAD("spect view: kind %u, wizard 1 %u, delay %u", v->kind, v->me_state, v->delay);
	proto__put_var(w, v->cmds);
	proto__put_u8(w, v->kind);
	proto__put_u8(w, v->me_state);
	proto__put_u8(w, v->delay);
	return update__write(w, &v->view, e);
}

static int
dec_SPECT_VIEW(struct proto__r *r, struct wire_msg *m, struct proto_err *e)
{
	struct wire_sview *v = &m->u.sview;
	int rc = proto__get_var(r, &v->cmds);

	if (rc <= 0)
		return proto__fail(e, rc ? PERR_VARINT : PERR_TRUNCATED, "spect view: commands");
	NEED(proto__get_u8(r, &v->kind) && proto__get_u8(r, &v->me_state) && proto__get_u8(r, &v->delay));
	/* A delay goes with one player's view, and only there. */
	if (v->kind >= SPECT_KIND_COUNT || v->me_state > OPP_REMEMBERED || v->delay > SPECT_DELAY_MAX ||
	    ((v->kind == SPECT_KIND_PLAYER0 || v->kind == SPECT_KIND_PLAYER1) != (v->delay > 0)))
		BAD("spect view: kind %u, wizard 1 %u, delay %u", v->kind, v->me_state, v->delay);
	return update__read(r, &v->view, e);
}

static int
enc_SPECT_CHAT(struct proto__w *w, const struct wire_msg *m, struct proto_err *e)
{
	const struct wire_schat *c = &m->u.schat;

	if (c->name[0] != '\0' && put_text(w, c->name, sizeof c->name, TEXT_NAME, e) < 0)
		return PROTO_BROKEN;
	if (c->name[0] == '\0')
		proto__put_u8(w, 0);
	return put_text(w, c->text, sizeof c->text, TEXT_CHAT, e);
}

static int
dec_SPECT_CHAT(struct proto__r *r, struct wire_msg *m, struct proto_err *e)
{
	struct wire_schat *c = &m->u.schat;

	/* The name may be empty (a client's line); a name present is a clean one. */
	if (proto__r_left(r) > 0 && r->p[r->pos] == 0) {
		r->pos++;
	} else if (get_text(r, c->name, sizeof c->name, TEXT_NAME, "spect chat name", e) < 0) {
		return PROTO_BROKEN;
	}
	if (get_text(r, c->text, sizeof c->text, TEXT_CHAT, "spect chat", e) < 0)
		return PROTO_BROKEN;
	if (c->text[0] == '\0')
		BAD("spect chat: empty line");
	return 0;
}

/* SPECT_SET and SPECT_INFO share their first three bytes: flags (1 allowed, 2 player 1), mode, delay. */
static bool
sset_ok(bool allowed, unsigned mode, unsigned delay, unsigned player)
{
	(void)allowed;
	if (mode >= SPECT_MODE_COUNT || player >= PLAYERS)
		return false;
	/* One encoding per setting: a delay and a player only for the delayed view. */
	if (mode == SPECT_DELAYED)
		return delay >= SPECT_DELAY_MIN && delay <= SPECT_DELAY_MAX;
	return delay == 0 && player == 0;
}

static int
put_sset(struct proto__w *w, bool allowed, unsigned mode, unsigned delay, unsigned player, struct proto_err *e)
{
	if (!sset_ok(allowed, mode, delay, player))
		BAD("spectators: mode %u, delay %u, player %u", mode, delay, player);
	proto__put_u8(w, (uint8_t)((allowed ? 1u : 0u) | (player ? 2u : 0u)));
	proto__put_u8(w, (uint8_t)mode);
	proto__put_u8(w, (uint8_t)delay);
	return 0;
}

static int
get_sset(struct proto__r *r, bool *allowed, uint8_t *mode, uint8_t *delay, uint8_t *player, struct proto_err *e)
{
	uint8_t flags;

	if (!proto__get_u8(r, &flags) || !proto__get_u8(r, mode) || !proto__get_u8(r, delay))
		return proto__fail(e, PERR_TRUNCATED, "spectators: truncated");
	*allowed = flags & 1;
	*player = (flags >> 1) & 1;
	if (flags > 3 || !sset_ok(*allowed, *mode, *delay, *player))
		BAD("spectators: flags 0x%x, mode %u, delay %u", flags, *mode, *delay);
	return 0;
}

static int
enc_SPECT_SET(struct proto__w *w, const struct wire_msg *m, struct proto_err *e)
{
	const struct wire_sset *x = &m->u.sset;

	return put_sset(w, x->allowed, x->mode, x->delay, x->player, e);
}

static int
dec_SPECT_SET(struct proto__r *r, struct wire_msg *m, struct proto_err *e)
{
	struct wire_sset *x = &m->u.sset;

	return get_sset(r, &x->allowed, &x->mode, &x->delay, &x->player, e);
}

static int
enc_SPECT_INFO(struct proto__w *w, const struct wire_msg *m, struct proto_err *e)
{
	const struct wire_sinfo *x = &m->u.sinfo;

	if (put_sset(w, x->allowed, x->mode, x->delay, x->player, e) < 0)
		return PROTO_BROKEN;
	proto__put_u16(w, x->count);
	return 0;
}

static int
dec_SPECT_INFO(struct proto__r *r, struct wire_msg *m, struct proto_err *e)
{
	struct wire_sinfo *x = &m->u.sinfo;

	if (get_sset(r, &x->allowed, &x->mode, &x->delay, &x->player, e) < 0)
		return PROTO_BROKEN;
	NEED(proto__get_u16(r, &x->count));
	return 0;
}

/* ---- ratings (0x68..0x6f) ---- */

static int
put_rec(struct proto__w *w, const struct rated_rec *x)
{
	uint8_t b[RATED_SIGNED_LEN];

	rated_put(x, b);
	proto__put(w, b, sizeof b);
	return 0;
}

/* A record's numbers and fields are checked by rated_get (strict); its signature is the
 * reader's to verify, against its signer's server key, one the reader trusts (docs/client.md,
 * "Rating records"). */
static int
get_rec(struct proto__r *r, struct rated_rec *x, struct proto_err *e)
{
	uint8_t b[RATED_SIGNED_LEN];
	char why[96];

	if (!proto__get(r, b, sizeof b))
		return proto__fail(e, PERR_TRUNCATED, "rated record: truncated");
	if (!rated_get(b, sizeof b, x, why, sizeof why))
		return proto__fail(e, PERR_RANGE, "%s", why);
	return 0;
}

static int
enc_RATED(struct proto__w *w, const struct wire_msg *m, struct proto_err *e)
{
	(void)e;
	proto__put(w, m->u.rated.signer, RATED_SIGNER_LEN);
	return put_rec(w, &m->u.rated.rec);
}

static int
dec_RATED(struct proto__r *r, struct wire_msg *m, struct proto_err *e)
{
	NEED(proto__get(r, m->u.rated.signer, RATED_SIGNER_LEN));
	return get_rec(r, &m->u.rated.rec, e);
}

static int
enc_ASK(struct proto__w *w, const struct wire_msg *m, struct proto_err *e)
{
	const struct wire_ask *x = &m->u.ask;

	if (x->kind < ASK_HISTORY || x->kind > ASK_STATS)
		BAD("ask: kind %u", x->kind);
	proto__put_u8(w, x->kind);
	if (x->kind == ASK_STATS)
		return put_text(w, x->name, sizeof x->name, TEXT_NAME, e);
	if (x->kind == ASK_HISTORY)
		proto__put_u32(w, x->skip);
	return 0;
}

static int
dec_ASK(struct proto__r *r, struct wire_msg *m, struct proto_err *e)
{
	struct wire_ask *x = &m->u.ask;

	NEED(proto__get_u8(r, &x->kind));
	if (x->kind < ASK_HISTORY || x->kind > ASK_STATS)
		BAD("ask: kind %u", x->kind);
	if (x->kind == ASK_STATS)
		return get_text(r, x->name, sizeof x->name, TEXT_NAME, "ask: name", e);
	if (x->kind == ASK_HISTORY)
		NEED(proto__get_u32(r, &x->skip));
	return 0;
}

static int
enc_RECORDS(struct proto__w *w, const struct wire_msg *m, struct proto_err *e)
{
	const struct wire_records *x = &m->u.records;

	if (x->count > WIRE_RECORDS_MAX)
		BAD("records: %u", x->count);
	proto__put_u8(w, x->count);
	for (unsigned i = 0; i < x->count; i++) {
		proto__put(w, x->rec[i].signer, RATED_SIGNER_LEN);
		put_rec(w, &x->rec[i].rec);
	}
	return 0;
}

static int
dec_RECORDS(struct proto__r *r, struct wire_msg *m, struct proto_err *e)
{
	struct wire_records *x = &m->u.records;

	NEED(proto__get_u8(r, &x->count));
	if (x->count > WIRE_RECORDS_MAX)
		BAD("records: %u", x->count);
	for (unsigned i = 0; i < x->count; i++) {
		NEED(proto__get(r, x->rec[i].signer, RATED_SIGNER_LEN));
		if (get_rec(r, &x->rec[i].rec, e) < 0)
			return PROTO_BROKEN;
	}
	return 0;
}

static int
enc_LADDER(struct proto__w *w, const struct wire_msg *m, struct proto_err *e)
{
	const struct wire_ladder *x = &m->u.ladder;

	if (x->count > WIRE_LADDER_MAX || x->flags > LADDER_ALL)
		BAD("ladder: %u rows, flags %u", x->count, x->flags);
	proto__put_u8(w, x->flags);
	proto__put_u8(w, x->count);
	for (unsigned i = 0; i < x->count; i++) {
		const struct wire_ladder_row *o = &x->row[i];
		if (o->flags > LADDER_PROVISIONAL || o->wins > o->games || o->draws > o->games - o->wins)
			BAD("ladder row %u: flags %u, %u wins and %u draws of %u", i, o->flags, o->wins, o->draws, o->games);
		proto__put_u8(w, o->flags);
		proto__put_u16(w, o->rating);
		proto__put_u16(w, o->deviation);
		proto__put_u32(w, o->games);
		proto__put_u32(w, o->wins);
		proto__put_u32(w, o->draws);
		if (put_text(w, o->name, sizeof o->name, TEXT_NAME, e) < 0)
			return PROTO_BROKEN;
	}
	return 0;
}

static int
dec_LADDER(struct proto__r *r, struct wire_msg *m, struct proto_err *e)
{
	struct wire_ladder *x = &m->u.ladder;

	NEED(proto__get_u8(r, &x->flags) && proto__get_u8(r, &x->count));
	if (x->count > WIRE_LADDER_MAX || x->flags > LADDER_ALL)
		BAD("ladder: %u rows, flags %u", x->count, x->flags);
	for (unsigned i = 0; i < x->count; i++) {
		struct wire_ladder_row *o = &x->row[i];
		NEED(proto__get_u8(r, &o->flags) && proto__get_u16(r, &o->rating) && proto__get_u16(r, &o->deviation) &&
		     proto__get_u32(r, &o->games) && proto__get_u32(r, &o->wins) && proto__get_u32(r, &o->draws));
		if (o->flags > LADDER_PROVISIONAL || o->wins > o->games || o->draws > o->games - o->wins)
			BAD("ladder row %u: flags %u, %u wins and %u draws of %u", i, o->flags, o->wins, o->draws, o->games);
		if (get_text(r, o->name, sizeof o->name, TEXT_NAME, "ladder: name", e) < 0)
			return PROTO_BROKEN;
	}
	return 0;
}

/* ROOMS_PARTIAL: one reason byte, of those known. */
static int
enc_ROOMS_PARTIAL(struct proto__w *w, const struct wire_msg *m, struct proto_err *e)
{
	if (m->u.partial.why < 1 || m->u.partial.why > ROOMS_PARTIAL_MAX)
		BAD("rooms partial: reason %u", m->u.partial.why);
	proto__put_u8(w, m->u.partial.why);
	return 0;
}

static int
dec_ROOMS_PARTIAL(struct proto__r *r, struct wire_msg *m, struct proto_err *e)
{
	NEED(proto__get_u8(r, &m->u.partial.why));
	if (m->u.partial.why < 1 || m->u.partial.why > ROOMS_PARTIAL_MAX)
		BAD("rooms partial: reason %u, known 1..%u", m->u.partial.why, ROOMS_PARTIAL_MAX);
	return 0;
}

/* ---- open rooms and pairing ---- */

static int enc_ROOMS_ASK(struct proto__w *w, const struct wire_msg *m, struct proto_err *e) { return enc_none(w, m, e); }
static int dec_ROOMS_ASK(struct proto__r *r, struct wire_msg *m, struct proto_err *e) { return dec_none(r, m, e); }

static int
enc_ROOMS(struct proto__w *w, const struct wire_msg *m, struct proto_err *e)
{
	const struct wire_rooms *x = &m->u.rooms;

	if (x->count > WIRE_ROOMS_MAX)
		BAD("rooms: %u rooms, at most %u", x->count, WIRE_ROOMS_MAX);
	proto__put_u8(w, x->count);
	for (unsigned i = 0; i < x->count; i++) {
		const struct wire_room *o = &x->room[i];
		if (o->code[0] == '\0' || o->flags > WIRE_ROOM_PASSWORD)
			BAD("rooms: room %u: no code, or flags 0x%x", i, o->flags);
		if (put_text(w, o->code, sizeof o->code, TEXT_ROOM, e) < 0 ||
		    put_text(w, o->name, sizeof o->name, TEXT_NAME, e) < 0)
			return PROTO_BROKEN;
		proto__put_u16(w, o->rating);
		if (put_options(w, &o->opt, o->turn_time, e) < 0)
			return PROTO_BROKEN;
		proto__put_u8(w, o->flags);
		proto__put_u16(w, o->waiting);
	}
	return 0;
}

static int
dec_ROOMS(struct proto__r *r, struct wire_msg *m, struct proto_err *e)
{
	struct wire_rooms *x = &m->u.rooms;

	NEED(proto__get_u8(r, &x->count));
	if (x->count > WIRE_ROOMS_MAX)
		BAD("rooms: %u rooms, at most %u", x->count, WIRE_ROOMS_MAX);
	for (unsigned i = 0; i < x->count; i++) {
		struct wire_room *o = &x->room[i];
		if (get_text(r, o->code, sizeof o->code, TEXT_ROOM, "room code", e) < 0 ||
		    get_text(r, o->name, sizeof o->name, TEXT_NAME, "name", e) < 0)
			return PROTO_BROKEN;
		NEED(proto__get_u16(r, &o->rating));
		if (get_options(r, &o->opt, &o->turn_time, e) < 0)
			return PROTO_BROKEN;
		NEED(proto__get_u8(r, &o->flags));
		NEED(proto__get_u16(r, &o->waiting));
		if (o->code[0] == '\0' || o->flags > WIRE_ROOM_PASSWORD)
			BAD("rooms: room %u: no code, or flags 0x%x", i, o->flags);
	}
	return 0;
}

static int
enc_QUICK(struct proto__w *w, const struct wire_msg *m, struct proto_err *e)
{
	const struct wire_quick *x = &m->u.quick;

	if (x->wait < QUICK_WAIT_MIN || x->wait > QUICK_WAIT_MAX)
		BAD("quick: wait %u s", x->wait);
	if (put_options(w, &x->opt, x->turn_time, e) < 0)
		return PROTO_BROKEN;
	proto__put_u16(w, x->wait);
	return 0;
}

static int
dec_QUICK(struct proto__r *r, struct wire_msg *m, struct proto_err *e)
{
	struct wire_quick *x = &m->u.quick;

	if (get_options(r, &x->opt, &x->turn_time, e) < 0)
		return PROTO_BROKEN;
	NEED(proto__get_u16(r, &x->wait));
	if (x->wait < QUICK_WAIT_MIN || x->wait > QUICK_WAIT_MAX)
		BAD("quick: wait %u s, allowed %u..%u", x->wait, QUICK_WAIT_MIN, QUICK_WAIT_MAX);
	return 0;
}

/* One encoding per answer: a room exactly when PAIRED, the other's rating only then, the pool's
 * size only while WAITING. */
static bool
match_ok(const struct wire_match *x)
{
	if (x->status > MATCH_NOBODY)
		return false;
	if ((x->status == MATCH_PAIRED) != (x->room[0] != '\0'))
		return false;
	if (x->status != MATCH_PAIRED && x->other != 0)
		return false;
	return x->status == MATCH_WAITING ? x->pool >= 1 : x->pool == 0;
}

static int
enc_MATCH(struct proto__w *w, const struct wire_msg *m, struct proto_err *e)
{
	const struct wire_match *x = &m->u.match;

	if (!match_ok(x))
		BAD("match: status %u, room '%s', other %u, pool %u", x->status, x->room, x->other, x->pool);
	proto__put_u8(w, x->status);
	proto__put_u16(w, x->rating);
	proto__put_u16(w, x->other);
	proto__put_u16(w, x->waited);
	proto__put_u16(w, x->pool);
	if (x->room[0] == '\0') { /* no room: an empty string, which a room code may not be */
		proto__put_u8(w, 0);
		return 0;
	}
	return put_text(w, x->room, sizeof x->room, TEXT_ROOM, e);
}

static int
dec_MATCH(struct proto__r *r, struct wire_msg *m, struct proto_err *e)
{
	struct wire_match *x = &m->u.match;

	NEED(proto__get_u8(r, &x->status));
	NEED(proto__get_u16(r, &x->rating));
	NEED(proto__get_u16(r, &x->other));
	NEED(proto__get_u16(r, &x->waited));
	NEED(proto__get_u16(r, &x->pool));
	NEED(proto__r_left(r) >= 1);
	if (r->p[r->pos] == 0)
		r->pos++;
	else if (get_text(r, x->room, sizeof x->room, TEXT_ROOM, "room", e) < 0)
		return PROTO_BROKEN;
	if (!match_ok(x))
		BAD("match: status %u, room '%s', other %u, pool %u", x->status, x->room, x->other, x->pool);
	return 0;
}

/* ---- dispatch ---- */

int
wire_encode(const struct wire_msg *m, uint8_t *out, size_t cap, size_t *len, struct proto_err *e)
{
	const struct wire_info *i = info(m->type);
	struct proto__w w;

	if (!i)
		return proto__fail(e, PERR_TYPE, "encode: type 0x%02x", m->type);
	proto__w_init(&w, out, cap);
	if (i->enc(&w, m, e) < 0)
		return PROTO_BROKEN;
	if (w.over)
		return proto__fail(e, PERR_BUFFER, "%s: more than %zu bytes", i->name, cap);
	if (w.len < i->min || w.len > i->max)
		return proto__fail(e, PERR_TOO_BIG, "%s: %zu bytes, limit %u..%u", i->name, w.len,
		                   (unsigned)i->min, (unsigned)i->max);
	*len = w.len;
	return 0;
}

int
wire_decode(int type, const uint8_t *p, size_t len, struct wire_msg *m, struct proto_err *e)
{
	const struct wire_info *i = info(type);
	struct proto__r r;

	if (!i)
		return proto__fail(e, PERR_TYPE, "unknown message type 0x%02x", (unsigned)type);
	if (len < i->min || len > i->max)
		return proto__fail(e, PERR_FRAME_SIZE, "%s: %zu bytes, allowed %u..%u", i->name, len,
		                   (unsigned)i->min, (unsigned)i->max);
	memset(m, 0, i->size);
	m->type = (uint8_t)type;
	proto__r_init(&r, p, len);
	if (i->dec(&r, m, e) < 0)
		return PROTO_BROKEN;
	if (proto__r_left(&r))
		return proto__fail(e, PERR_TRAILING, "%s: %zu bytes after the end", i->name, proto__r_left(&r));
	return 0;
}

size_t
wire_decoded_size(int type)
{
	const struct wire_info *i = info(type);

	return i ? i->size : 0;
}

/* ---- constructors ---- */

void
wire_hello_init(struct wire_msg *m)
{
	memset(m, 0, sizeof m->type + sizeof m->u.hello);
	m->type = WIRE_HELLO;
	m->u.hello.magic = PROTO_MAGIC;
	m->u.hello.proto = PROTO_VERSION;
	m->u.hello.rules = RULES_VERSION;
}

void
wire_challenge_init(struct wire_msg *m, const uint8_t salt[PROTO_PW_SALT_LEN], bool password)
{
	memset(m, 0, sizeof m->type + sizeof m->u.challenge);
	m->type = WIRE_CHALLENGE;
	m->u.challenge.magic = PROTO_MAGIC;
	m->u.challenge.proto = PROTO_VERSION;
	m->u.challenge.rules = RULES_VERSION;
	memcpy(m->u.challenge.salt, salt, PROTO_PW_SALT_LEN);
	m->u.challenge.password = password;
}

void
wire_who_init(struct wire_who *w, const char *name, const char *room, int role)
{
	memset(w, 0, sizeof *w);
	w->role = (uint8_t)role;
	text_clean(w->name, sizeof w->name, name, strlen(name), TEXT_NAME);
	text_clean(w->room, sizeof w->room, room, strlen(room), TEXT_ROOM);
}

void
wire_error_init(struct wire_msg *m, int code, bool fatal, const char *text)
{
	m->type = WIRE_ERROR;
	memset(&m->u.error, 0, sizeof m->u.error);
	m->u.error.code = (uint16_t)code;
	m->u.error.fatal = fatal;
	if (text && text_clean(m->u.error.text, sizeof m->u.error.text, text, strlen(text), TEXT_REASON) < 0)
		m->u.error.text[0] = '\0';
}

