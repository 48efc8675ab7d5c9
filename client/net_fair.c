/* SPDX-License-Identifier: MIT */
/* net_fair: the fair-host check: every view shown is kept (hashed), and at the END the revealed seed,
 * parts and log must bear out the commitment made before the duel and replay to every one of them. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "net_internal.h"
#include "turnlog.h"

uint64_t
net_view_hash(const struct view *v)
{
	uint64_t h = 0xcbf29ce484222325ULL;
#define MIX(p, len)                                                  \
	do {                                                             \
		const uint8_t *b_ = (const uint8_t *)(p);                    \
		for (size_t i_ = 0; i_ < (size_t)(len); i_++)                \
			h = (h ^ b_[i_]) * 0x100000001b3ULL;                     \
	} while (0)
#define MIXV(x)                                                      \
	do {                                                             \
		uint64_t x_ = (uint64_t)(x);                                 \
		MIX(&x_, 8);                                                 \
	} while (0)
	MIXV(v->opt.size);
	MIXV(v->opt.fov);
	MIXV(v->opt.potions);
	MIXV(v->me);
	MIX(v->cell, sizeof v->cell);
	MIX(v->potion, sizeof v->potion);
	MIXV(v->x);
	MIXV(v->y);
	MIXV(v->hp);
	MIXV(v->opp_hp);
	MIXV(v->opp_state);
	MIXV(v->opp_x);
	MIXV(v->opp_y);
	MIXV(v->ninv);
	MIX(v->inv, sizeof v->inv);
	MIX(v->kind_of, sizeof v->kind_of);
	MIXV(v->intrinsics);
	MIX(v->turns_left, sizeof v->turns_left);
	MIXV(v->turn);
	MIXV(v->turn_no);
	MIXV(v->steps_left);
	MIX(v->offered, sizeof v->offered);
	MIXV(v->result);
	MIXV(v->end_reason);
#undef MIX
#undef MIXV
	return h;
}

void
net__record_view(struct net *n, bool resumed)
{
	uint64_t h = net_view_hash(&n->view);

	if (!resumed && n->nseen && n->seen[n->nseen - 1].hash == h)
		return;
	if (n->nseen == n->capseen) {
		size_t cap = n->capseen ? n->capseen * 2 : 256;
		struct seen *ns = realloc(n->seen, cap * sizeof *ns);
		if (ns == NULL)
			return;
		n->seen = ns;
		n->capseen = cap;
	}
	n->seen[n->nseen++] = (struct seen){ h, net__now(n), resumed };
}

struct replayed {
	int me;
	uint64_t *h;
	size_t n, cap;
	bool oom;
	struct view v;
};

static void
push_hash(struct replayed *r, uint64_t h)
{
	if (r->n && r->h[r->n - 1] == h)
		return;
	if (r->n == r->cap) {
		size_t cap = r->cap ? r->cap * 2 : 1024;
		uint64_t *nh = realloc(r->h, cap * sizeof *nh);
		if (nh == NULL) {
			r->oom = true;
			return;
		}
		r->h = nh;
		r->cap = cap;
	}
	r->h[r->n++] = h;
}

static void
replay_cb(void *ud, const struct game *g, int p, const struct cmd *c, const struct events *ev, int lineno)
{
	struct replayed *r = ud;

	(void)p;
	(void)c;
	(void)ev;
	(void)lineno;
	view_build(g, r->me, &r->v);
	push_hash(r, net_view_hash(&r->v));
}

/* A host restart resumes from its log on disk, which is written after the updates go
 * out, off the server's loop (server/tlog.c): what a killed host sent in its last
 * moments may not have reached the file, and the duel goes on from before it. Views
 * shown up to this long before the last one ahead of a resumed snapshot may be missing
 * from the log (the writer is normally well under a millisecond behind; a loaded
 * machine makes it tens). A longer window would let a host take back more moves. */
#define NET_REWIND_MS 2000

static size_t
find_view(const struct replayed *r, size_t from, uint64_t h)
{
	while (from < r->n && r->h[from] != h)
		from++;
	return from;
}

/* Could view i have been taken back by the restart whose snapshot is view snap? */
static bool
rewindable(const struct net *n, size_t i, size_t snap)
{
	return snap > 0 && i < snap && n->seen[i].at + NET_REWIND_MS >= n->seen[snap - 1].at;
}

/* Every view this player was shown must appear, in order, among the views the log
 * gives it; only views shown just before a resumed snapshot (NET_REWIND_MS) may be
 * missing, counted in *rewound: commands a killed host sent before their log lines
 * reached the disk. Such a view may also match by chance a later point of the log
 * (the duel, resumed from before it, can pass the same way again): the snapshot is
 * then looked for from before those views. */
static bool
views_match(const struct net *n, const struct replayed *r, size_t *rewound, char *why, size_t whylen)
{
	size_t j = 0, *pos = malloc((n->nseen + 1) * sizeof *pos);
	bool ok = false;

	*rewound = 0;
	if (pos == NULL) {
		snprintf(why, whylen, "out of memory");
		return false;
	}
	for (size_t i = 0; i < n->nseen; i++) {
		size_t k = find_view(r, j, n->seen[i].hash);
		if (n->seen[i].resumed) {
			/* The snapshot's place in the log: the earliest after the last view that
			 * no restart may take back (shown more than NET_REWIND_MS before it, or
			 * an earlier restart's snapshot, which the log held already). The
			 * earliest leaves the most room for the views after it; the latest
			 * could be a state the duel passed through again after the restart. */
			size_t x0 = i, from = 0;
			while (x0-- > 0 && !n->seen[x0].resumed && rewindable(n, x0, i))
				;
			for (size_t y = x0 + 1; y-- > 0;)
				if (y < i && pos[y] != SIZE_MAX) {
					from = pos[y];
					break;
				}
			k = find_view(r, from, n->seen[i].hash);
			if (k < r->n)
				for (size_t x = x0 + 1; x < i; x++)
					*rewound += pos[x] == SIZE_MAX || pos[x] > k;
		}
		if (k < r->n) {
			pos[i] = j = k;
			continue;
		}
		pos[i] = SIZE_MAX;
		size_t next = i + 1;
		while (next < n->nseen && !n->seen[next].resumed)
			next++;
		if (n->seen[i].resumed || next >= n->nseen || !rewindable(n, i, next)) {
			snprintf(why, whylen, "view %zu of %zu that the server showed is not in the replayed log", i + 1,
			         n->nseen);
			goto out;
		}
	}
	ok = true;
out:
	free(pos);
	return ok;
}

/* Where the seed came from, said for the verification line in `how`; false (and why) when the
 * server's END does not bear out what it promised: the seed is not the hash of the parts, our
 * own part is missing or changed, or other parts than those the LOBBY named went in. */
static bool
seed_origin(const struct net *n, const struct wire_end *e, char *how, size_t howlen, char *why, size_t whylen)
{
	int me = n->player;
	unsigned mine = me >= 0 && me < PLAYERS ? 1u << me : 0;

	if (n->seed_mirror) {
		if (n->duel_have_part && !n->duel_mirror_asked) {
			snprintf(why, whylen, "the server called this duel a mirror rematch (the last seed again), "
			         "but this client did not ask for one");
			return false;
		}
		if (n->have_last_seed && e->seed != n->last_seed) {
			snprintf(why, whylen, "a mirror rematch must replay the last duel's seed %016" PRIx64 ", not %016" PRIx64,
			         n->last_seed, e->seed);
			return false;
		}
		snprintf(how, howlen, "%s (a mirror rematch)%s",
		         n->have_last_seed ? "the last duel's seed again" : "the seed of a duel before this one",
		         n->seed_chosen ? "; the host chose that level (--seed)" : "");
		return true;
	}
	if (n->seed_chosen) {
		snprintf(how, howlen, "the host chose this level and who moves first (--seed): the dice were its; %s",
		         "your part was not used");
		return true;
	}
	if (auth_seed_mix(e->server_part, e->parts, e->part) != e->seed) {
		snprintf(why, whylen, "the seed is not the hash of the parts the server revealed");
		return false;
	}
	if (!n->duel_have_part) {
		snprintf(how, howlen, "seed made from the server's committed part (this client was started again and "
		         "cannot tell whether its own part was used)");
		return true;
	}
	if ((n->duel_bits & mine) &&
	    (!(e->parts & mine) || !auth_equal(e->part[me], n->duel_part, PROTO_PART_LEN))) {
		snprintf(why, whylen, "YOUR PART WAS NOT USED: the seed was not made with the random part this client "
		         "sent, so the host could have chosen it");
		return false;
	}
	if (e->parts != n->duel_bits) {
		snprintf(why, whylen, "the seed was made with other players' parts (0x%x) than the server announced "
		         "before your part was sent (0x%x)", e->parts, n->duel_bits);
		return false;
	}
	if (!(e->parts & mine))
		snprintf(how, howlen, "seed made with the other player's part (your seat is the host's)");
	else if (e->parts == mine)
		snprintf(how, howlen, "seed made with your part");
	else
		snprintf(how, howlen, "seed made with your part and the other player's");
	return true;
}

/* The host's check, once a duel at its END (cold: optimized for size). */
WW_COLD static bool
verify(struct net *n, char *why, size_t whylen)
{
	const struct wire_end *e = &n->end;
	struct turnlog_replay *rp = NULL;
	struct replayed r = { .me = n->player };
	struct game *g = NULL;
	bool ok = false;

	char how[200];

	if (n->commit_changed) {
		snprintf(why, whylen, "the host's seed commitment changed while this client was away");
		return false;
	}
	if (n->commit_moved) {
		snprintf(why, whylen, "the duel started on another commitment than the one your part answered: "
		         "the host could have picked its part after seeing yours");
		return false;
	}
	if (!auth_seed_commit_check(e->server_part, n->commit)) {
		snprintf(why, whylen, "the server's revealed part does not match the commitment it made before the duel");
		return false;
	}
	if (!seed_origin(n, e, how, sizeof how, why, whylen))
		return false;
	if (e->log_len == 0) {
		snprintf(why, whylen, "the server revealed no log");
		return false;
	}
	if ((rp = malloc(sizeof *rp)) == NULL || (g = malloc(sizeof *g)) == NULL) {
		snprintf(why, whylen, "out of memory");
		goto out;
	}
	/* The view before any command: from the options and seed the log names. */
	if (turnlog_replay(n->log, e->log_len, rp, NULL, NULL) != 0) {
		snprintf(why, whylen, "the revealed log does not replay: %s", rp->error); /* "line N: ..." */
		goto out;
	}
	if (game_init(g, &rp->hdr.opt, rp->hdr.seed) != ERR_OK) {
		snprintf(why, whylen, "the revealed log's options are refused");
		goto out;
	}
	view_build(g, n->player, &r.v);
	push_hash(&r, net_view_hash(&r.v));
	turnlog_replay(n->log, e->log_len, rp, replay_cb, &r);
	if (r.oom) {
		snprintf(why, whylen, "out of memory");
		goto out;
	}
	if (rp->hdr.seed != e->seed) {
		snprintf(why, whylen, "the log's seed is not the revealed seed");
		goto out;
	}
	if (!rp->ended || rp->game.result != e->result || game_hash(&rp->game) != e->hash) {
		snprintf(why, whylen, "the log does not end as the server says the duel ended");
		goto out;
	}
	size_t rewound = 0;
	ok = views_match(n, &r, &rewound, why, whylen);
	if (ok) {
		char back[96] = "";
		if (rewound)
			snprintf(back, sizeof back, "; a host restart took back %zu view%s", rewound, rewound == 1 ? "" : "s");
		snprintf(why, whylen, "%s, log verified: %zu views checked%s", how, n->nseen, back);
	}
out:
	free(r.h);
	free(rp);
	free(g);
	return ok;
}

void
net__end_done(struct net *n)
{
	char why[400] = "";
	bool ok = false;

	n->end_pending = false;
	if (n->repeat_end) {
		n->repeat_end = false;
		free(n->log);
		n->log = NULL;
		return;
	}
	if (n->phase == NET_PLAYING)
		n->phase = NET_LOBBY;
	if (n->cfg.verify)
		ok = verify(n, why, sizeof why);
	else
		snprintf(why, sizeof why, "not verified");
	if (ok) {
		n->last_seed = n->end.seed;
		n->have_last_seed = true;
	}
	/* The commitment and part were this duel's: a rerun after now meets the next duel's START
	 * (or this one's END again), whose commitment it takes on first sight. Before the callback,
	 * which may leave (BYE) and delete the file. */
	memcpy(n->end_commit, n->commit, sizeof n->end_commit);
	n->have_end_commit = n->have_commit;
	n->have_commit = n->duel_have_part = false;
	net__seat_save(n);
	if (n->cfg.ev.end)
		n->cfg.ev.end(n->cfg.ud, n, &n->end, ok, why);
	free(n->log);
	n->log = NULL;
	n->nseen = 0;
	n->have_commit = n->commit_changed = n->commit_moved = n->duel_have_part = false;
}