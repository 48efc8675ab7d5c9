/* SPDX-License-Identifier: MIT */
/* web: the web port: GET / and /app.js (embedded), and the "wizwar" websocket: the room list, a live room, a replay. */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include <arpa/inet.h>

#include <libwebsockets.h>
#include <sodium.h>

#include "cli.h"
#include "cluster.h"
#include "help.h"
#include "logtree.h"
#include "web.h"
#include "web_page.h"
#include "wmsg.h"
#include "wview.h"

/*
 * Everything runs on the server's own libuv loop: libwebsockets is given it as a foreign loop
 * (LWS_SERVER_OPTION_LIBUV + foreign_loops), so there is no second loop and no thread. What
 * could block runs off the loop on libuv's thread pool: reading a finished log (gunzip and a
 * replay that checks every hash) and listing the log tree. Drawing a screen is ui.c's
 * ncurses into memory, a few tens of microseconds, done at most once per page per write.
 *
 * A page never gets more than a terminal spectator: a live room comes through
 * server_spect_attach(), which sends it the very payloads a spectator's connection gets (the
 * views of common/spect.c, made by server/spect.c), and a finished duel, whose whole truth any
 * spectator is shown at its end, from its log.
 */

#define WEB_LIST_MAX 50        /* rooms and finished duels a list holds, each */
#define WEB_SCAN_EVERY_MS 5000 /* the log tree is listed again at most this often */
#define WEB_OUTQ 4             /* text messages waiting for a page's socket; more closes it */
#define WEB_RENDER_MAX 65536   /* a screen's JSON at most (24x80 cells, runs of styles) */
#define WEB_NODES_MAX 8        /* a cluster's web pages a page is told of (and its CSP names), as NODES */
#define WEB_AUTH_MAX 72        /* "HOST:PORT" or "[V6]:PORT" of one */
#define WEB_NODES_EVERY_MS 1000 /* a watching page is told the nodes again, when they changed, at most this often */

struct addr_count {
	char addr[64];
	unsigned n;
};

struct duel_entry {
	char id[WEB_ID_MAX + 1]; /* YYYYMMDD-NAME: DIR/YYYY/MM/DD/NAME.log.gz */
	char when[20];           /* YYYY-MM-DD HH:MM, the log's last change */
	char name[PLAYERS][PROTO_NAME_BYTES + 1];
	time_t mtime;
};

struct scan_job {
	uv_work_t req;
	struct web *w;
	char dir[4096];
	struct duel_entry found[WEB_LIST_MAX];
	unsigned n;
};

struct sess;

struct load_job {
	uv_work_t req;
	struct web *w;
	struct sess *s;          /* NULL once the page has gone */
	struct load_job *next;   /* waiting its turn */
	char path[4200];
	struct rcursor_log *d;
	char why[300];
};

enum sess_kind { SESS_NONE, SESS_LIVE, SESS_REPLAY };

struct sess {
	struct web *w;
	struct lws *wsi;
	struct sess *next, *prev;
	char addr[64];
	int kind;
	struct wview *v;
	struct spect_sink sink;
	bool dirty;              /* the screen changed since it was last sent */
	bool want_list;          /* a list to send when the scan ends */
	bool over_said;          /* a live duel's end (and its replay link) was said */
	bool closing;
	char *outq[WEB_OUTQ];
	unsigned nout;
	char rx[WEB_MSG_MAX + 1];
	size_t nrx;
	uint64_t rate_start;
	unsigned rate_n;
	struct load_job *loading;
	lws_sorted_usec_list_t sul; /* a playing replay's next command */
	char nodes[WEB_NODES_MAX * (WEB_AUTH_MAX + 3) + 32]; /* the "nodes" message last sent (live, a cluster) */
	uint64_t nodes_at;
};

struct pss {
	struct sess *s;
};

/* A private server's room whose links were said in the log. */
struct said {
	char code[PROTO_ROOM_BYTES + 1];
	char end[400];            /* the link of the last finished duel said */
	bool live, seen;
};
#define WEB_SAID_MAX 1024

struct web {
	uv_loop_t *loop;
	struct server *srv;
	struct lws_context *ctx;
	struct lws_vhost *vh;
	int port;
	struct ui ui;
	struct keys keys;
	bool screen_ok;
	struct sess *sessions;
	struct addr_count addrs[WEB_CONNS_MAX];
	/* the log tree's finished duels, listed off the loop */
	struct duel_entry duels[WEB_LIST_MAX];
	unsigned nduels;
	uint64_t scanned_at;
	bool scanning, scanned;
	struct load_job *waiting, *waiting_tail;
	unsigned loads;
	lws_sorted_usec_list_t links; /* a private server: each room's links said once, checked each second */
	struct said *said;
	unsigned nsaid;
	bool own;                     /* web_list_own(): the duels this process finished, not the log tree's */
	char own_end[400];            /* the last finished duel taken into the list (host: one room) */
	char own_name[PLAYERS][PROTO_NAME_BYTES + 1]; /* its players, as last seen seated */
	char render[LWS_PRE + WEB_RENDER_MAX];
};

/* ---- links ---- */

static void
mac_hex(const struct web *w, const char *what, const char *id, char out[WEB_MAC_HEX + 1])
{
	uint8_t mac[crypto_auth_BYTES], key[32];
	crypto_auth_hmacsha512256_state st;

	/* HMAC-SHA-512-256 under the server's link key, over what the link opens and its name. The key
	 * is asked each time: a private cluster node's follows its password (a reload changes it). */
	server_link_key(w->srv, key);
	crypto_auth_hmacsha512256_init(&st, key, sizeof key);
	sodium_memzero(key, sizeof key);
	crypto_auth_hmacsha512256_update(&st, (const uint8_t *)what, strlen(what) + 1);
	crypto_auth_hmacsha512256_update(&st, (const uint8_t *)id, strlen(id));
	crypto_auth_hmacsha512256_final(&st, mac);
	sodium_bin2hex(out, WEB_MAC_HEX + 1, mac, WEB_MAC_HEX / 2);
}

static bool
mac_ok(const struct web *w, const char *what, const char *id, const char *given)
{
	char want[WEB_MAC_HEX + 1];

	if (strlen(given) != WEB_MAC_HEX)
		return false;
	mac_hex(w, what, id, want);
	return sodium_memcmp(want, given, WEB_MAC_HEX) == 0;
}

/* A log's name as the tree keeps it: letters, digits, '-', '_' and '.', not starting with '.'. */
static bool
name_ok(const char *s, size_t n)
{
	if (n == 0 || n > WEB_ID_MAX - 9 || s[0] == '.')
		return false;
	for (size_t i = 0; i < n; i++) {
		char c = s[i];
		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' ||
		      c == '_' || c == '.'))
			return false;
	}
	return true;
}

/* "YYYYMMDD-NAME" into DIR/YYYY/MM/DD/NAME.log.gz; false when it is not one. */
static bool
id_path(const char *dir, const char *id, char *out, size_t len)
{
	size_t n = strlen(id);

	if (n < 10 || n > WEB_ID_MAX || id[8] != '-' || !name_ok(id + 9, n - 9))
		return false;
	for (int i = 0; i < 8; i++)
		if (id[i] < '0' || id[i] > '9')
			return false;
	int r = snprintf(out, len, "%s/%.4s/%.2s/%.2s/%s.log.gz", dir, id, id + 4, id + 6, id + 9);
	return r > 0 && (size_t)r < len;
}

/* The other way: DIR/YYYY/MM/DD/NAME.log.gz into its id. */
static bool
path_id(const char *dir, const char *path, char *id, size_t len)
{
	size_t dl = strlen(dir), pl = strlen(path);
	const char *p = path + dl;

	if (pl < dl + 1 + 11 + 7 || strncmp(path, dir, dl) != 0 || *p++ != '/')
		return false;
	if (p[4] != '/' || p[7] != '/' || p[10] != '/')
		return false;
	const char *name = p + 11;
	size_t nl = strlen(name);
	if (nl <= 7 || strcmp(name + nl - 7, ".log.gz") != 0 || !name_ok(name, nl - 7))
		return false;
	int r = snprintf(id, len, "%.4s%.2s%.2s-%.*s", p, p + 5, p + 8, (int)(nl - 7), name);
	if (r <= 0 || (size_t)r >= len)
		return false;
	for (int i = 0; i < 8; i++)
		if (id[i] < '0' || id[i] > '9')
			return false;
	return true;
}

bool
web_replay_fragment(const struct web *w, const char *path, char *out, size_t len)
{
	const char *dir = server_log_dir(w->srv);
	char id[WEB_ID_MAX + 1], mac[WEB_MAC_HEX + 1];

	if (dir == NULL || path == NULL || !path_id(dir, path, id, sizeof id))
		return false;
	mac_hex(w, "replay", id, mac);
	int r = snprintf(out, len, "#r=%s.%s", id, mac);
	return r > 0 && (size_t)r < len;
}

bool
web_room_fragment(const struct web *w, const char *room, char *out, size_t len)
{
	char mac[WEB_MAC_HEX + 1];

	mac_hex(w, "room", room, mac);
	int r = snprintf(out, len, "#w=%s.%s", room, mac);
	return r > 0 && (size_t)r < len;
}

/*
 * A private server lists nothing: whoever runs it hands the links on. Each playing room's page
 * link, and each finished duel's replay link, is said once in the log (the players' clients
 * do not hear of the web page: nothing on the game port changes).
 */
/*
 * `host --web` lists the duels its own process finished, newest first: the host's log folder
 * also holds its earlier duels, which a page of this one has no business showing. Each room's
 * last finished duel is taken in once (polled each second); its names are its players' as last seen
 * seated (the host has one room).
 */
static void
own_duels(struct web *w, const struct server_room_info *rooms, unsigned n)
{
	const char *dir = server_log_dir(w->srv);

	for (unsigned i = 0; dir && i < n; i++) {
		const char *end = server_room_end_path(w->srv, rooms[i].code);
		struct duel_entry e;
		struct tm tm;
		/* A player who leaves at the end (a bot of one duel) is no longer seated: named as seen. */
		for (int p = 0; p < PLAYERS; p++)
			if (rooms[i].name[p][0])
				snprintf(w->own_name[p], sizeof w->own_name[p], "%s", rooms[i].name[p]);
		if (end == NULL || strcmp(end, w->own_end) == 0)
			continue;
		snprintf(w->own_end, sizeof w->own_end, "%s", end);
		memset(&e, 0, sizeof e);
		if (!path_id(dir, end, e.id, sizeof e.id))
			continue;
		e.mtime = time(NULL);
		if (localtime_r(&e.mtime, &tm))
			strftime(e.when, sizeof e.when, "%Y-%m-%d %H:%M", &tm);
		for (int p = 0; p < PLAYERS; p++)
			snprintf(e.name[p], sizeof e.name[p], "%s", w->own_name[p]);
		unsigned keep = w->nduels < WEB_LIST_MAX ? w->nduels : WEB_LIST_MAX - 1;
		memmove(&w->duels[1], &w->duels[0], keep * sizeof w->duels[0]);
		w->duels[0] = e;
		w->nduels = keep + 1;
	}
}

static void
on_links(lws_sorted_usec_list_t *sul)
{
	struct web *w = lws_container_of(sul, struct web, links);
	struct server_room_info *rooms = malloc(WEB_SAID_MAX * sizeof *rooms);
	unsigned n = rooms ? server_rooms_list(w->srv, rooms, WEB_SAID_MAX) : 0;
	char frag[400];

	if (w->own && !server_private(w->srv)) {
		own_duels(w, rooms, n);
		free(rooms);
		lws_sul_schedule(w->ctx, 0, &w->links, on_links, 1000 * 1000);
		return;
	}
	for (unsigned i = 0; i < w->nsaid; i++)
		w->said[i].seen = false;
	for (unsigned i = 0; i < n; i++) {
		struct said *sd = NULL;
		for (unsigned k = 0; k < w->nsaid && !sd; k++)
			if (strcmp(w->said[k].code, rooms[i].code) == 0)
				sd = &w->said[k];
		if (sd == NULL && w->nsaid < WEB_SAID_MAX) {
			sd = &w->said[w->nsaid++];
			memset(sd, 0, sizeof *sd);
			snprintf(sd->code, sizeof sd->code, "%s", rooms[i].code);
		}
		if (sd == NULL)
			continue;
		sd->seen = true;
		if (!sd->live && web_room_fragment(w, sd->code, frag, sizeof frag)) {
			server_log(w->srv, LOG_NOTICE, "room %s: its web page is http://HOST:%d/%s", sd->code, w->port, frag);
			sd->live = true;
		}
		const char *end = server_room_end_path(w->srv, sd->code);
		if (end && web_replay_fragment(w, end, frag, sizeof frag) && strcmp(frag, sd->end) != 0) {
			server_log(w->srv, LOG_NOTICE, "room %s: its last duel replays at http://HOST:%d/%s", sd->code,
			           w->port, frag);
			snprintf(sd->end, sizeof sd->end, "%s", frag);
		}
	}
	/* Rooms gone are forgotten (a code made again later is another room). */
	for (unsigned i = 0; i < w->nsaid;)
		if (!w->said[i].seen)
			w->said[i] = w->said[--w->nsaid];
		else
			i++;
	free(rooms);
	lws_sul_schedule(w->ctx, 0, &w->links, on_links, 1000 * 1000);
}

/* ---- JSON out ---- */

/* s as a JSON string's contents (it was cleaned before: printable text; quotes and
 * backslashes escaped here, anything below U+0020 dropped). */
static void
json_str(char *out, size_t len, const char *s)
{
	size_t n = 0;

	for (; *s && n + 3 < len; s++) {
		unsigned char c = (unsigned char)*s;
		if (c < 0x20)
			continue;
		if (c == '"' || c == '\\')
			out[n++] = '\\';
		out[n++] = (char)c;
	}
	out[n] = '\0';
}

/* ---- sending ---- */

static void
sess_close(struct sess *s, const char *why)
{
	if (s->closing)
		return;
	s->closing = true;
	if (why)
		lws_close_reason(s->wsi, LWS_CLOSE_STATUS_POLICY_VIOLATION, (unsigned char *)why, strlen(why));
	lws_callback_on_writable(s->wsi); /* the writable callback returns -1: closed */
}

static void
send_text(struct sess *s, const char *json)
{
	if (s->closing)
		return;
	if (s->nout == WEB_OUTQ) {
		sess_close(s, "too slow");
		return;
	}
	size_t n = strlen(json);
	char *b = malloc(LWS_PRE + n + 1);
	if (b == NULL)
		return;
	memcpy(b + LWS_PRE, json, n + 1);
	s->outq[s->nout++] = b;
	lws_callback_on_writable(s->wsi);
}

static void
send_error(struct sess *s, const char *text)
{
	char buf[400], esc[300];

	json_str(esc, sizeof esc, text);
	snprintf(buf, sizeof buf, "{\"t\":\"error\",\"text\":\"%s\"}", esc);
	send_text(s, buf);
}

static void
screen_changed(struct sess *s)
{
	s->dirty = true;
	lws_callback_on_writable(s->wsi);
}

static int
on_writable(struct sess *s)
{
	struct web *w = s->w;

	if (s->closing)
		return -1;
	if (s->nout) {
		char *b = s->outq[0];
		size_t n = strlen(b + LWS_PRE);
		memmove(s->outq, s->outq + 1, (s->nout - 1) * sizeof s->outq[0]);
		s->nout--;
		int r = lws_write(s->wsi, (unsigned char *)b + LWS_PRE, n, LWS_WRITE_TEXT);
		free(b);
		if (r < (int)n)
			return -1;
	} else if (s->dirty && s->v && w->screen_ok) {
		s->dirty = false;
		size_t n = wview_render(s->v, &w->ui, w->render + LWS_PRE, WEB_RENDER_MAX);
		if (n > 0 && lws_write(s->wsi, (unsigned char *)w->render + LWS_PRE, n, LWS_WRITE_TEXT) < (int)n)
			return -1;
	}
	if (s->nout || s->dirty)
		lws_callback_on_writable(s->wsi);
	return 0;
}

/* ---- the list ---- */

static const char *const mode_name[SPECT_MODE_COUNT] = {
	[SPECT_SHARED] = "shared", [SPECT_DELAYED] = "delayed", [SPECT_AFTER] = "after",
};

static void
send_list(struct sess *s)
{
	struct web *w = s->w;
	bool priv = server_private(w->srv);
	struct server_room_info *rooms = NULL;
	unsigned nr = 0;
	size_t cap = 4096 + WEB_LIST_MAX * 2 * 700, n = 0;
	char *out = malloc(cap), a[PLAYERS][2 * PROTO_NAME_BYTES + 1], code[2 * PROTO_ROOM_BYTES + 1];

	if (out == NULL)
		return;
	if (!priv && (rooms = malloc(WEB_LIST_MAX * sizeof *rooms)) != NULL)
		nr = server_rooms_list(w->srv, rooms, WEB_LIST_MAX);
	n += (size_t)snprintf(out + n, cap - n, "{\"t\":\"list\",\"private\":%s,\"rooms\":[", priv ? "true" : "false");
	bool first = true;
	for (unsigned i = 0; i < nr; i++) {
		const struct server_room_info *r = &rooms[i];
		/* Only a view a spectator may have while the duel runs: shared, or one player's delayed. */
		if (!r->allowed || r->mode == SPECT_AFTER || !r->playing)
			continue;
		json_str(code, sizeof code, r->code);
		for (int p = 0; p < PLAYERS; p++)
			json_str(a[p], sizeof a[p], r->name[p]);
		n += (size_t)snprintf(out + n, cap - n,
		    "%s{\"room\":\"%s\",\"players\":[\"%s\",\"%s\"],\"view\":\"%s\",\"delay\":%u,\"watching\":%u,\"turn\":%u}",
		    first ? "" : ",", code, a[0], a[1], mode_name[r->mode], (unsigned)r->delay, r->watching,
		    (unsigned)r->turn);
		first = false;
	}
	n += (size_t)snprintf(out + n, cap - n, "],\"duels\":[");
	for (unsigned i = 0; !priv && i < w->nduels; i++) {
		const struct duel_entry *d = &w->duels[i];
		char mac[WEB_MAC_HEX + 1];
		mac_hex(w, "replay", d->id, mac);
		for (int p = 0; p < PLAYERS; p++)
			json_str(a[p], sizeof a[p], d->name[p]);
		n += (size_t)snprintf(out + n, cap - n, "%s{\"id\":\"%s\",\"key\":\"%s\",\"ended\":\"%s\",\"players\":[\"%s\",\"%s\"]}",
		    i ? "," : "", d->id, mac, d->when, a[0], a[1]);
	}
	snprintf(out + n, cap - n, "]}");
	send_text(s, out);
	free(out);
	free(rooms);
}

/* The newest date folders first, their newest logs first, up to WEB_LIST_MAX (off the loop). */
static int
cmp_desc(const void *a, const void *b)
{
	return -strcmp(*(char *const *)a, *(char *const *)b);
}

static unsigned
list_dir(const char *dir, char **names, unsigned max, bool want_dirs)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	unsigned n = 0;

	if (d == NULL)
		return 0;
	while ((e = readdir(d)) != NULL) {
		size_t l = strlen(e->d_name);
		bool digits = l > 0;
		for (size_t i = 0; i < l; i++)
			digits = digits && e->d_name[i] >= '0' && e->d_name[i] <= '9';
		bool ok = want_dirs ? digits && l <= 4 : l > 7 && strcmp(e->d_name + l - 7, ".log.gz") == 0 &&
		    name_ok(e->d_name, l - 7);
		if (!ok)
			continue;
		if (n == max) { /* keep the largest: a full list's smallest goes */
			qsort(names, n, sizeof *names, cmp_desc);
			if (strcmp(e->d_name, names[n - 1]) <= 0)
				continue;
			free(names[--n]);
		}
		if ((names[n] = strdup(e->d_name)) != NULL)
			n++;
	}
	closedir(d);
	qsort(names, n, sizeof *names, cmp_desc);
	return n;
}

/* The players' names from a log's header (its first lines). */
static void
read_names(const char *path, struct duel_entry *e)
{
	char *buf = NULL, why[300];
	size_t len;

	/* A finished log is at most a few hundred KiB; its header is at its start. */
	if (cli_read_file_why(path, "log", 4u << 20, &buf, &len, why, sizeof why) != 0)
		return;
	for (char *line = buf; line && *line;) {
		char *nl = strchr(line, '\n');
		if (nl)
			*nl = '\0';
		int p;
		char name[PROTO_NAME_BYTES + 1];
		if (sscanf(line, "player %d %64[^\n]", &p, name) == 2 && p >= 0 && p < PLAYERS)
			state_clean_text(e->name[p], sizeof e->name[p], name, strlen(name));
		if (strncmp(line, "start ", 6) == 0)
			break;
		line = nl ? nl + 1 : NULL;
	}
	free(buf);
}

static void
scan_work(uv_work_t *req)
{
	struct scan_job *j = req->data;
	char *years[16], *months[16], *days[40], *files[WEB_LIST_MAX];
	char p[4400];

	unsigned ny = list_dir(j->dir, years, 16, true);
	for (unsigned y = 0; y < ny; y++) {
		snprintf(p, sizeof p, "%s/%s", j->dir, years[y]);
		unsigned nm = j->n < WEB_LIST_MAX ? list_dir(p, months, 16, true) : 0;
		for (unsigned m = 0; m < nm; m++) {
			snprintf(p, sizeof p, "%s/%s/%s", j->dir, years[y], months[m]);
			unsigned nd = j->n < WEB_LIST_MAX ? list_dir(p, days, 40, true) : 0;
			for (unsigned d = 0; d < nd; d++) {
				snprintf(p, sizeof p, "%s/%s/%s/%s", j->dir, years[y], months[m], days[d]);
				unsigned nf = j->n < WEB_LIST_MAX ? list_dir(p, files, WEB_LIST_MAX, false) : 0;
				for (unsigned f = 0; f < nf; f++) {
					struct duel_entry *e = &j->found[j->n];
					struct stat sb;
					snprintf(p, sizeof p, "%s/%s/%s/%s/%s", j->dir, years[y], months[m], days[d], files[f]);
					memset(e, 0, sizeof *e);
					if (j->n < WEB_LIST_MAX && strlen(years[y]) == 4 && strlen(months[m]) == 2 &&
					    strlen(days[d]) == 2 && path_id(j->dir, p, e->id, sizeof e->id) &&
					    lstat(p, &sb) == 0 && S_ISREG(sb.st_mode)) {
						struct tm tm;
						e->mtime = sb.st_mtime;
						if (localtime_r(&e->mtime, &tm))
							strftime(e->when, sizeof e->when, "%Y-%m-%d %H:%M", &tm);
						read_names(p, e);
						j->n++;
					}
					free(files[f]);
				}
				free(days[d]);
			}
			free(months[m]);
		}
		free(years[y]);
	}
}

static void
scan_done(uv_work_t *req, int status)
{
	struct scan_job *j = req->data;
	struct web *w = j->w;

	(void)status;
	w->scanning = false;
	w->scanned = true;
	if (w->ctx == NULL) {
		free(j);
		if (w->loads == 0)
			free(w); /* web_stop left it to the last job */
		return;
	}
	{
		memcpy(w->duels, j->found, j->n * sizeof j->found[0]);
		w->nduels = j->n;
		w->scanned_at = uv_now(w->loop);
		for (struct sess *s = w->sessions; s; s = s->next)
			if (s->want_list) {
				s->want_list = false;
				send_list(s);
			}
	}
	free(j);
}

static void
ask_list(struct sess *s)
{
	struct web *w = s->w;
	const char *dir = server_log_dir(w->srv);

	if (dir == NULL || server_private(w->srv) || w->own ||
	    (w->scanned && uv_now(w->loop) - w->scanned_at < WEB_SCAN_EVERY_MS)) {
		send_list(s);
		return;
	}
	s->want_list = true;
	if (w->scanning)
		return;
	struct scan_job *j = calloc(1, sizeof *j);
	if (j == NULL) {
		s->want_list = false;
		send_list(s);
		return;
	}
	j->w = w;
	j->req.data = j;
	snprintf(j->dir, sizeof j->dir, "%s", dir);
	if (uv_queue_work(w->loop, &j->req, scan_work, scan_done) != 0) {
		free(j);
		s->want_list = false;
		send_list(s);
		return;
	}
	w->scanning = true;
}

/* ---- a cluster's nodes ---- */

/*
 * A page follows its room across a cluster's nodes (docs/server.md, "A cluster"), as a terminal
 * spectator does: each node says its web page's address after its beats (cluster_set_web), a page
 * watching a live room is told every node's ("nodes", like NODES), and when its websocket closes in
 * the middle of the duel it asks the others; a node that does not hold the room says where it is
 * ("moved", like REDIRECT) or that it is moving ("moving": ask again in a moment). The page talks to
 * the other nodes' ports from its own origin: its CSP names them (connect-src), and each node lets
 * in a websocket whose Origin is its own page's or a cluster node's (origin_ok).
 */

/* "HOST:PORT", an IPv6 address in brackets: a URL's authority. */
static void
authority(const char *host, int port, char *out, size_t len)
{
	snprintf(out, len, strchr(host, ':') ? "[%s]:%d" : "%s:%d", host, port);
}

/* The cluster's web pages (this node's first), as authorities: how many, at most WEB_NODES_MAX. */
static unsigned
web_nodes(const struct web *w, char out[WEB_NODES_MAX][WEB_AUTH_MAX])
{
	struct cluster *c = server_cluster(w->srv);
	struct cluster_node nodes[WEB_NODES_MAX];
	unsigned n = c ? cluster_web_list(c, nodes, WEB_NODES_MAX) : 0;

	for (unsigned i = 0; i < n; i++)
		authority(nodes[i].web_host, nodes[i].web_port, out[i], WEB_AUTH_MAX);
	return n;
}

/* A live page is told the cluster's web pages: at its start, and again when they changed. */
static void
send_nodes(struct sess *s)
{
	char a[WEB_NODES_MAX][WEB_AUTH_MAX], buf[sizeof s->nodes];
	unsigned n = web_nodes(s->w, a);
	size_t len = 0;

	s->nodes_at = uv_now(s->w->loop);
	if (n == 0)
		return;
	len += (size_t)snprintf(buf + len, sizeof buf - len, "{\"t\":\"nodes\",\"nodes\":[");
	for (unsigned i = 0; i < n; i++)
		len += (size_t)snprintf(buf + len, sizeof buf - len, "%s\"%s\"", i ? "," : "", a[i]);
	snprintf(buf + len, sizeof buf - len, "]}");
	if (strcmp(buf, s->nodes) == 0)
		return;
	memcpy(s->nodes, buf, sizeof buf);
	send_text(s, buf);
}

/* Room `room` is not here: in a cluster, where it is (true: said). */
static bool
watch_elsewhere(struct sess *s, const char *room)
{
	struct cluster *c = server_cluster(s->w->srv);
	const struct cluster_node *n;
	char buf[160], a[WEB_AUTH_MAX];

	if (c == NULL)
		return false;
	/* Its node missed a beat, or died and the room is being taken over: no refusal, which would
	 * end the page's watch in the middle of a takeover; the page asks again in a moment. */
	if (cluster_room_moving(c, room)) {
		send_text(s, "{\"t\":\"moving\"}");
		return true;
	}
	if ((n = cluster_room_node(c, room)) == NULL)
		return false;
	if (n->web_port <= 0) {
		send_error(s, "the room is on another node, which serves no web page");
		return true;
	}
	authority(n->web_host, n->web_port, a, sizeof a);
	snprintf(buf, sizeof buf, "{\"t\":\"moved\",\"to\":\"%s\"}", a);
	send_text(s, buf);
	return true;
}

/*
 * Which pages may open a websocket here. A browser says the page's origin (Origin); the port lets
 * in its own page's (the origin is the address the request was made to, Host) and, in a cluster, a
 * page of any node's web address, a dead node's too (cluster_web_origin): that is the page that
 * follows its room here. Anything else a browser sends is refused: a page of another site, opened
 * by someone who can reach this port, cannot use that browser to watch, list or load here. A client
 * that is not a browser sends no Origin (or any it likes): let in, as it could be anyway.
 */
static bool
origin_ok(const struct web *w, struct lws *wsi)
{
	char origin[256], host[256], h[WEB_AUTH_MAX];
	const char *a;
	int port;

	if (lws_hdr_total_length(wsi, WSI_TOKEN_ORIGIN) <= 0)
		return true;
	if (lws_hdr_copy(wsi, origin, sizeof origin, WSI_TOKEN_ORIGIN) <= 0 ||
	    !wmsg_origin(origin, &a, h, sizeof h, &port))
		return false; /* "null" (a sandboxed or file page), or no origin a page of ours has */
	if (lws_hdr_copy(wsi, host, sizeof host, WSI_TOKEN_HOST) > 0 && strcasecmp(a, host) == 0)
		return true;
	struct cluster *c = server_cluster(w->srv);
	return c && cluster_web_origin(c, h, port);
}

/* The page's Content-Security-Policy: it connects back to its own origin and, in a cluster, to the
 * nodes' web pages known when it was served (where it follows its room). */
static void
csp_make(const struct web *w, char *out, size_t len)
{
	char a[WEB_NODES_MAX][WEB_AUTH_MAX];
	unsigned n = web_nodes(w, a);
	size_t k = (size_t)snprintf(out, len, "default-src 'none'; script-src 'self'; style-src 'unsafe-inline'; "
	    "connect-src 'self'");

	for (unsigned i = 0; i < n && k < len; i++)
		k += (size_t)snprintf(out + k, len - k, " ws://%s", a[i]);
	if (k < len)
		snprintf(out + k, len - k, "; img-src 'none'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'");
}

/* ---- a live room ---- */

static void
sink_msg(void *ud, int type, const uint8_t *payload, size_t len)
{
	struct sess *s = ud;
	struct web *w = s->w;

	if (wview_live_msg(s->v, type, payload, len) != 0) {
		sess_close(s, "a frame that does not decode");
		return;
	}
	screen_changed(s);
	if (uv_now(w->loop) - s->nodes_at >= WEB_NODES_EVERY_MS)
		send_nodes(s);
	if (s->over_said && s->v->st.have_view && s->v->st.view.result == RESULT_NONE) {
		s->over_said = false; /* a rematch: the room's next duel is under way */
		send_text(s, "{\"t\":\"live\"}");
	}
	if (!s->over_said && s->v->st.have_view && s->v->st.view.result != RESULT_NONE) {
		char frag[300], buf[400];
		s->over_said = true;
		if (web_replay_fragment(w, server_room_end_path(w->srv, s->v->room), frag, sizeof frag))
			snprintf(buf, sizeof buf, "{\"t\":\"over\",\"replay\":\"%s\"}", frag);
		else
			snprintf(buf, sizeof buf, "{\"t\":\"over\"}");
		send_text(s, buf);
	}
}

static void
sink_gone(void *ud)
{
	struct sess *s = ud;

	send_error(s, "the room closed, or its players turned spectators off");
}

static void
start_watch(struct sess *s, const char *room, const char *key)
{
	struct web *w = s->w;

	if (room[0] == '\0' || strlen(room) > PROTO_ROOM_BYTES) {
		send_error(s, "no such room");
		return;
	}
	/* A private server's room is watched only from its link; a wrong link says no more than a
	 * room that is not there. */
	if (server_private(w->srv) && !mac_ok(w, "room", room, key)) {
		send_error(s, "this room is private: its page opens only from its link");
		return;
	}
	if ((s->v = malloc(sizeof *s->v)) == NULL) {
		send_error(s, "out of memory");
		return;
	}
	wview_live_init(s->v, room);
	s->kind = SESS_LIVE;
	s->sink = (struct spect_sink){ .msg = sink_msg, .gone = sink_gone, .ud = s };
	int rc = server_spect_attach(w->srv, room, &s->sink);
	if (rc != PERR_OK) {
		if (rc != PERR_NO_ROOM || !watch_elsewhere(s, room))
			send_error(s, rc == PERR_NO_ROOM ? "no such room" : "the room cannot be watched now (full, or no spectators)");
		free(s->v);
		s->v = NULL;
		s->kind = SESS_NONE;
		return;
	}
	send_nodes(s);
	screen_changed(s);
}

/* ---- a replay ---- */

static void load_next(struct web *w);

static void
load_work(uv_work_t *req)
{
	struct load_job *j = req->data;
	struct turnlog_replay *r = malloc(sizeof *r);
	char *buf = NULL;
	size_t len;

	if (r == NULL || (j->d = calloc(1, sizeof *j->d)) == NULL) {
		snprintf(j->why, sizeof j->why, "out of memory");
		free(r);
		return;
	}
	if (cli_read_file_why(j->path, "the log", 64u << 20, &buf, &len, j->why, sizeof j->why) != 0) {
		snprintf(j->why, sizeof j->why, "no such duel");
	} else if (turnlog_replay(buf, len, r, rcursor_collect, j->d) != 0) {
		snprintf(j->why, sizeof j->why, "the duel's log does not replay: %.200s", r->error);
	} else if (j->d->oom || j->d->ncmd != r->commands) {
		snprintf(j->why, sizeof j->why, "out of memory");
	} else {
		j->d->hdr = r->hdr;
		if (j->d->ncmd == 0)
			j->d->turn_at = calloc(1, sizeof *j->d->turn_at);
		cli_log_chat(buf, len, rcursor_keep_chat, j->d);
	}
	if (j->why[0] || j->d->turn_at == NULL) {
		if (!j->why[0])
			snprintf(j->why, sizeof j->why, "out of memory");
		wview_log_free(j->d);
		j->d = NULL;
	}
	free(buf);
	free(r);
}

static void
load_done(uv_work_t *req, int status)
{
	struct load_job *j = req->data;
	struct web *w = j->w;
	struct sess *s = j->s;

	(void)status;
	w->loads--;
	if (s) {
		s->loading = NULL;
		if (j->d == NULL) {
			send_error(s, j->why);
		} else if ((s->v = malloc(sizeof *s->v)) == NULL) {
			send_error(s, "out of memory");
		} else {
			char buf[200];
			wview_replay_init(s->v, j->d, help_get(HELP_WATCH));
			j->d = NULL;
			s->kind = SESS_REPLAY;
			snprintf(buf, sizeof buf, "{\"t\":\"replay\",\"commands\":%u,\"turns\":%u}", (unsigned)s->v->d->ncmd,
			         (unsigned)s->v->d->turn_at[s->v->d->ncmd]);
			send_text(s, buf);
			screen_changed(s);
		}
	}
	wview_log_free(j->d);
	free(j);
	if (w->ctx)
		load_next(w);
	else if (w->loads == 0 && !w->scanning)
		free(w); /* web_stop left it to the last job */
}

static void
load_next(struct web *w)
{
	while (w->waiting && w->loads < WEB_REPLAYS_AT_ONCE) {
		struct load_job *j = w->waiting;
		w->waiting = j->next;
		if (w->waiting == NULL)
			w->waiting_tail = NULL;
		if (j->s == NULL) {
			free(j);
			continue;
		}
		if (uv_queue_work(w->loop, &j->req, load_work, load_done) != 0) {
			j->s->loading = NULL;
			send_error(j->s, "cannot read the log now");
			free(j);
			continue;
		}
		w->loads++;
	}
}

static void
start_replay(struct sess *s, const char *id, const char *key)
{
	struct web *w = s->w;
	const char *dir = server_log_dir(w->srv);
	struct load_job *j;

	/* Every finished duel is opened by its link: a public server lists the links, a private one
	 * gives each only to whoever watched the duel live from its own link. */
	if (dir == NULL || !mac_ok(w, "replay", id, key)) {
		send_error(s, "no such duel, or not its link");
		return;
	}
	if ((j = calloc(1, sizeof *j)) == NULL) {
		send_error(s, "out of memory");
		return;
	}
	if (!id_path(dir, id, j->path, sizeof j->path)) {
		free(j);
		send_error(s, "no such duel, or not its link");
		return;
	}
	j->w = w;
	j->s = s;
	j->req.data = j;
	s->loading = j;
	if (w->waiting_tail)
		w->waiting_tail->next = j;
	else
		w->waiting = j;
	w->waiting_tail = j;
	load_next(w);
}

static void
on_play(lws_sorted_usec_list_t *sul)
{
	struct sess *s = lws_container_of(sul, struct sess, sul);
	unsigned next;

	if (s->kind != SESS_REPLAY || s->closing)
		return;
	next = wview_replay_tick(s->v);
	screen_changed(s);
	if (next)
		lws_sul_schedule(s->w->ctx, 0, &s->sul, on_play, (lws_usec_t)next * 1000);
}

static void
replay_playing(struct sess *s)
{
	unsigned d = wview_replay_delay(s->v);

	lws_sul_schedule(s->w->ctx, 0, &s->sul, on_play, d ? (lws_usec_t)d * 1000 : LWS_SET_TIMER_USEC_CANCEL);
}

static void
on_message(struct sess *s, const char *text, size_t len)
{
	struct wmsg m;

	if (!wmsg_parse(text, len, &m)) {
		sess_close(s, "not a message of the page's protocol");
		return;
	}
	if (strcmp(m.t, "list") == 0) {
		ask_list(s);
	} else if ((strcmp(m.t, "watch") == 0 || strcmp(m.t, "replay") == 0) && s->kind == SESS_NONE &&
	           s->loading == NULL) {
		if (m.t[0] == 'w')
			start_watch(s, m.room, m.key);
		else
			start_replay(s, m.id, m.key);
	} else if (strcmp(m.t, "key") == 0 && s->kind == SESS_REPLAY && strlen(m.k) == 1) {
		if (wview_replay_key(s->v, m.k[0]))
			screen_changed(s);
		replay_playing(s);
	} else if (strcmp(m.t, "turn") == 0 && s->kind == SESS_REPLAY && m.has_turn) {
		wview_replay_turn(s->v, (uint32_t)m.turn);
		screen_changed(s);
		replay_playing(s);
	} else {
		sess_close(s, "a message not expected now");
	}
}

/* ---- libwebsockets ---- */

static struct addr_count *
addr_slot(struct web *w, const char *addr, bool add)
{
	struct addr_count *free_slot = NULL;

	for (int i = 0; i < WEB_CONNS_MAX; i++) {
		if (w->addrs[i].n && strcmp(w->addrs[i].addr, addr) == 0)
			return &w->addrs[i];
		if (!w->addrs[i].n && free_slot == NULL)
			free_slot = &w->addrs[i];
	}
	if (add && free_slot)
		snprintf(free_slot->addr, sizeof free_slot->addr, "%s", addr);
	return add ? free_slot : NULL;
}

static void
sess_free(struct sess *s)
{
	struct web *w = s->w;
	struct addr_count *a = addr_slot(w, s->addr, false);

	if (a && a->n)
		a->n--;
	server_spect_detach(&s->sink);
	lws_sul_cancel(&s->sul);
	if (s->loading)
		s->loading->s = NULL;
	if (s->prev)
		s->prev->next = s->next;
	else
		w->sessions = s->next;
	if (s->next)
		s->next->prev = s->prev;
	for (unsigned i = 0; i < s->nout; i++)
		free(s->outq[i]);
	if (s->v) {
		wview_log_free(s->v->d);
		free(s->v);
	}
	free(s);
}

static int
cb_ws(struct lws *wsi, enum lws_callback_reasons reason, void *user, void *in, size_t len)
{
	struct pss *pss = user;
	struct web *w = lws_context_user(lws_get_context(wsi));
	struct sess *s = pss ? pss->s : NULL;

	switch (reason) {
	case LWS_CALLBACK_FILTER_PROTOCOL_CONNECTION:
		return origin_ok(w, wsi) ? 0 : -1; /* refused before the upgrade: an HTTP error, no socket */
	case LWS_CALLBACK_ESTABLISHED: {
		char addr[64] = "";
		lws_get_peer_simple(wsi, addr, sizeof addr);
		struct addr_count *a = addr_slot(w, addr, true);
		if (a == NULL || a->n >= WEB_SOCKETS_PER_ADDR)
			return -1; /* refused: too many pages from that address */
		if ((s = calloc(1, sizeof *s)) == NULL)
			return -1;
		a->n++;
		s->w = w;
		s->wsi = wsi;
		snprintf(s->addr, sizeof s->addr, "%s", addr);
		s->rate_start = uv_now(w->loop);
		s->next = w->sessions;
		if (w->sessions)
			w->sessions->prev = s;
		w->sessions = s;
		pss->s = s;
		return 0;
	}
	case LWS_CALLBACK_RECEIVE: {
		if (s == NULL || s->closing)
			return 0;
		uint64_t now = uv_now(w->loop);
		if (now - s->rate_start >= 1000) {
			s->rate_start = now;
			s->rate_n = 0;
		}
		if (lws_frame_is_binary(wsi) || s->nrx + len > WEB_MSG_MAX)
			return -1; /* text messages of at most WEB_MSG_MAX bytes, nothing else */
		memcpy(s->rx + s->nrx, in, len);
		s->nrx += len;
		if (lws_remaining_packet_payload(wsi) || !lws_is_final_fragment(wsi))
			return 0;
		if (++s->rate_n > WEB_MSG_RATE)
			return -1;
		on_message(s, s->rx, s->nrx);
		s->nrx = 0;
		return 0;
	}
	case LWS_CALLBACK_SERVER_WRITEABLE:
		return s ? on_writable(s) : -1;
	case LWS_CALLBACK_CLOSED:
		if (s) {
			pss->s = NULL;
			sess_free(s);
		}
		return 0;
	default:
		return 0;
	}
}

static const struct {
	const char *path, *type;
	const unsigned char *data;
	size_t len;
} files[] = {
	{ "/", "text/html; charset=utf-8", web_index_html, sizeof web_index_html },
	{ "/app.js", "text/javascript; charset=utf-8", web_app_js, sizeof web_app_js },
};

struct pss_http {
	int file; /* -1 none */
};

static int
cb_http(struct lws *wsi, enum lws_callback_reasons reason, void *user, void *in, size_t len)
{
	struct pss_http *ph = user;
	uint8_t buf[LWS_PRE + 2048], *start = buf + LWS_PRE, *p = start, *end = buf + sizeof buf - 1;
	char csp[WEB_NODES_MAX * (WEB_AUTH_MAX + 6) + 256];

	switch (reason) {
	case LWS_CALLBACK_HTTP: {
		const char *uri = in;
		ph->file = -1;
		for (int i = 0; i < (int)(sizeof files / sizeof files[0]); i++)
			if (strcmp(uri, files[i].path) == 0)
				ph->file = i;
		/* The port serves these two files and the websocket, nothing else: no directory, no
		 * other method (lws answers HEAD and others itself), no query. */
		if (ph->file < 0 || lws_hdr_total_length(wsi, WSI_TOKEN_GET_URI) <= 0) {
			lws_return_http_status(wsi, HTTP_STATUS_NOT_FOUND, NULL);
			return -1;
		}
		csp_make(lws_context_user(lws_get_context(wsi)), csp, sizeof csp);
		if (lws_add_http_common_headers(wsi, HTTP_STATUS_OK, files[ph->file].type, files[ph->file].len - 1, &p, end) ||
		    lws_add_http_header_by_name(wsi, (const unsigned char *)"content-security-policy:",
		        (const unsigned char *)csp, (int)strlen(csp), &p, end) ||
		    lws_add_http_header_by_name(wsi, (const unsigned char *)"x-content-type-options:",
		        (const unsigned char *)"nosniff", 7, &p, end) ||
		    lws_add_http_header_by_name(wsi, (const unsigned char *)"referrer-policy:",
		        (const unsigned char *)"no-referrer", 11, &p, end) ||
		    lws_add_http_header_by_name(wsi, (const unsigned char *)"cache-control:",
		        (const unsigned char *)"no-cache", 8, &p, end) ||
		    lws_finalize_write_http_header(wsi, start, &p, end))
			return 1;
		lws_callback_on_writable(wsi);
		return 0;
	}
	case LWS_CALLBACK_HTTP_WRITEABLE: {
		if (ph->file < 0)
			return -1;
		size_t n = files[ph->file].len - 1; /* without the NUL the embedding adds */
		uint8_t *b = malloc(LWS_PRE + n);
		if (b == NULL)
			return -1;
		memcpy(b + LWS_PRE, files[ph->file].data, n);
		int r = lws_write(wsi, b + LWS_PRE, n, LWS_WRITE_HTTP_FINAL);
		free(b);
		ph->file = -1;
		if (r < (int)n)
			return -1;
		return lws_http_transaction_completed(wsi) ? -1 : 0;
	}
	default:
		return lws_callback_http_dummy(wsi, reason, user, in, len);
	}
}

static const struct lws_protocols protocols[] = {
	{ "http", cb_http, sizeof(struct pss_http), 0, 0, NULL, 0 },
	{ "wizwar", cb_ws, sizeof(struct pss), WEB_MSG_MAX, 0, NULL, 0 },
	{ NULL, NULL, 0, 0, 0, NULL, 0 }
};

/* "PORT", "ADDR:PORT" or "[V6]:PORT". */
static bool
parse_addr(const char *s, char *host, size_t hostlen, int *port, char *why, size_t whylen)
{
	const char *colon = strrchr(s, ':');
	const char *ps = colon ? colon + 1 : s;
	char *e;
	long v;

	host[0] = '\0';
	if (colon) {
		size_t hl = (size_t)(colon - s);
		if (hl >= 2 && s[0] == '[' && s[hl - 1] == ']') {
			s++;
			hl -= 2;
		}
		if (hl == 0 || hl >= hostlen) {
			snprintf(why, whylen, "--web: '%s' is not ADDR:PORT", s);
			return false;
		}
		memcpy(host, s, hl);
		host[hl] = '\0';
	}
	errno = 0;
	v = strtol(ps, &e, 10);
	if (ps[0] == '\0' || *e || errno || v < 0 || v > 65535) {
		snprintf(why, whylen, "--web: '%s' is not a port (0 to 65535)", ps);
		return false;
	}
	*port = (int)v;
	return true;
}

/* In a cluster, this node's page is said to the others (cluster_set_web): at the address it was
 * given when that is one address (an IP), else at the address other nodes send clients to
 * (--cluster-host, else --bind's). */
static void
publish(struct web *w, const char *bound)
{
	struct cluster *c = server_cluster(w->srv);
	const char *host = server_cluster_host(w->srv);
	unsigned char probe[16];
	char why[200];

	if (c == NULL)
		return;
	if ((inet_pton(AF_INET, bound, probe) == 1 && strcmp(bound, "0.0.0.0") != 0) ||
	    (inet_pton(AF_INET6, bound, probe) == 1 && strcmp(bound, "::") != 0))
		host = bound;
	if (host == NULL || strlen(host) > CLUSTER_HOST_MAX) {
		snprintf(why, sizeof why, "cluster: the web page's address is not said to the other nodes (no address)");
		server_say(w->srv, "%s", why);
		return;
	}
	cluster_set_web(c, host, w->port);
}

int
web_start(uv_loop_t *loop, struct server *srv, const char *addr, struct web **out, char *why, size_t whylen)
{
	struct lws_context_creation_info info;
	void *loops[1] = { loop };
	char host[64];
	int port;
	struct web *w;

	if (!parse_addr(addr, host, sizeof host, &port, why, whylen))
		return -1;
	if ((w = calloc(1, sizeof *w)) == NULL) {
		snprintf(why, whylen, "out of memory");
		return -1;
	}
	w->loop = loop;
	w->srv = srv;
	keys_init(&w->keys);
	w->screen_ok = wview_screen_start(&w->ui, &w->keys) == 0;
	if (!w->screen_ok) {
		snprintf(why, whylen, "--web: cannot draw screens (no xterm-256color terminfo, or no C.UTF-8 locale)");
		free(w);
		return -1;
	}
	lws_set_log_level(0, NULL); /* its errors reach the page as a closed socket; the server logs its own */
	memset(&info, 0, sizeof info);
	info.options = LWS_SERVER_OPTION_LIBUV | LWS_SERVER_OPTION_DISABLE_IPV6 * (host[0] && !strchr(host, ':')) |
	    LWS_SERVER_OPTION_VALIDATE_UTF8;
	info.foreign_loops = loops;
	info.port = port; /* 0: any free port, read back below */
	info.iface = host[0] ? host : NULL;
	info.protocols = protocols;
	info.user = w;
	info.fd_limit_per_thread = WEB_CONNS_MAX + 16;
	info.timeout_secs = 10;
	info.max_http_header_data = 2048;
	info.max_http_header_pool = 32;
	info.ka_time = 0;
	w->ctx = lws_create_context(&info);
	if (w->ctx == NULL) {
		snprintf(why, whylen, "--web %s: cannot listen there", addr);
		free(w);
		return -1;
	}
	w->vh = lws_get_vhost_by_name(w->ctx, "default");
	w->port = w->vh ? lws_get_vhost_listen_port(w->vh) : -1;
	if (w->port <= 0) {
		snprintf(why, whylen, "--web %s: cannot listen there", addr);
		lws_context_destroy(w->ctx);
		free(w);
		return -1;
	}
	publish(w, host);
	if (server_private(srv)) {
		if ((w->said = calloc(WEB_SAID_MAX, sizeof *w->said)) == NULL) {
			snprintf(why, whylen, "out of memory");
			lws_context_destroy(w->ctx);
			free(w);
			return -1;
		}
		lws_sul_schedule(w->ctx, 0, &w->links, on_links, 1000 * 1000);
	}
	*out = w;
	return 0;
}

void
web_list_own(struct web *w)
{
	w->own = true;
	if (!server_private(w->srv)) /* a private one says its links already */
		lws_sul_schedule(w->ctx, 0, &w->links, on_links, 1000 * 1000);
}

int
web_port(const struct web *w)
{
	return w ? w->port : -1;
}

void
web_stop(struct web *w)
{
	struct lws_context *ctx;

	if (w == NULL || w->ctx == NULL)
		return;
	ctx = w->ctx;
	/* Jobs on the thread pool finish on their own; their callbacks see no context and only free. */
	for (struct load_job *j = w->waiting, *n; j; j = n) {
		n = j->next;
		free(j);
	}
	w->waiting = w->waiting_tail = NULL;
	lws_sul_cancel(&w->links);
	free(w->said);
	w->said = NULL;
	lws_context_destroy(ctx); /* closes every page (each session freed in CLOSED) */
	w->ctx = NULL;
	if (!w->scanning && w->loads == 0)
		free(w);
	/* else the last job's callback frees it (scan_done, load_done) */
}
