/* SPDX-License-Identifier: MIT */
/* admin: the local admin socket, a line protocol on a Unix stream socket (0600, owner-only) with a table of commands. */
#define _GNU_SOURCE /* struct ucred, SO_PEERCRED */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>

#include "admin.h"
#include "internal.h"

struct admin {
	struct server *srv;
	uv_pipe_t listener;
	struct aclient *clients;
	unsigned nclients;
	bool closing;
	char path[sizeof ((struct sockaddr_un *)0)->sun_path];
	char why[ADMIN_LINE_MAX];  /* a command's error reason, until its reply is written */
};

struct aclient {
	uv_pipe_t pipe;
	uv_timer_t timer;
	struct admin *a;
	struct aclient *next, *prev;
	int handles;
	size_t queued;             /* bytes in writes not yet done */
	bool quit;                 /* close once what is queued is written */
	size_t len;
	char line[ADMIN_LINE_MAX];
};

struct awrite {
	uv_write_t req;
	struct aclient *c;
	size_t len;
	char data[];
};

static const char *cmd_help(struct server *s, const char *args, struct metrics_buf *out);

static const char *
cmd_status(struct server *s, const char *args, struct metrics_buf *out)
{
	if (args[0])
		return "status takes no arguments";
	metrics_status(s, out);
	return NULL;
}

static const char *
cmd_metrics(struct server *s, const char *args, struct metrics_buf *out)
{
	if (args[0])
		return "metrics takes no arguments";
	metrics_prometheus(s, out);
	return NULL;
}

/* Moderation (server/moderate.c holds the work; these only route). */
static const char *
cmd_ban(struct server *s, const char *args, struct metrics_buf *out)
{
	return moderate__cmd_ban(s, BAN_VERB_BAN, args, out, s->admin->why, sizeof s->admin->why);
}

static const char *
cmd_unban(struct server *s, const char *args, struct metrics_buf *out)
{
	return moderate__cmd_ban(s, BAN_VERB_UNBAN, args, out, s->admin->why, sizeof s->admin->why);
}

static const char *
cmd_mute(struct server *s, const char *args, struct metrics_buf *out)
{
	return moderate__cmd_ban(s, BAN_VERB_MUTE, args, out, s->admin->why, sizeof s->admin->why);
}

static const char *
cmd_unmute(struct server *s, const char *args, struct metrics_buf *out)
{
	return moderate__cmd_ban(s, BAN_VERB_UNMUTE, args, out, s->admin->why, sizeof s->admin->why);
}

static const char *
cmd_free_name(struct server *s, const char *args, struct metrics_buf *out)
{
	return moderate__cmd_free_name(s, args, out, s->admin->why, sizeof s->admin->why);
}

/* The commands: one row each (admin.h says how to add one). */
static const struct admin_command commands[] = {
	{ "help", "", "the commands", cmd_help },
	{ "ban", "key FINGERPRINT|name NAME|addr CIDR [--for DURATION] [--reason TEXT]",
	  "ban at once (who is connected is dropped) and in the store; DURATION 90s, 15m, 2h, 7d, 2w; --reason last", cmd_ban },
	{ "unban", "key FINGERPRINT|name NAME|addr CIDR", "lift a ban", cmd_unban },
	{ "bans", "", "the bans and mutes in force, with their expiry and reason", moderate__cmd_bans },
	{ "mute", "FINGERPRINT [--for DURATION]", "a key's chat (players' and spectators') reaches nobody; it is told", cmd_mute },
	{ "unmute", "FINGERPRINT", "lift a mute", cmd_unmute },
	{ "free-name", "NAME", "the name is no key's: the next key that uses it owns it", cmd_free_name },
	{ "status", "", "what `wizwar status` prints: connections, rooms, duels, commands, handshakes, limits, bytes, log", cmd_status },
	{ "metrics", "", "the same numbers in Prometheus' text format, as --metrics serves them", cmd_metrics },
};

static const char *
cmd_help(struct server *s, const char *args, struct metrics_buf *out)
{
	(void)s;
	(void)args;
	for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
		metrics_buf_printf(out, "%s%s%s: %s\n", commands[i].name, commands[i].args[0] ? " " : "", commands[i].args,
		                   commands[i].help);
	return NULL;
}

static void
client_closed(uv_handle_t *h)
{
	struct aclient *c = h->data;
	struct admin *a = c->a;

	if (--c->handles > 0)
		return;
	if (c->prev)
		c->prev->next = c->next;
	else
		a->clients = c->next;
	if (c->next)
		c->next->prev = c->prev;
	a->nclients--;
	struct server *s = a->srv;
	free(c);
	server__unref(s);
}

static void
client_close(struct aclient *c)
{
	if (uv_is_closing((uv_handle_t *)&c->pipe))
		return;
	uv_close((uv_handle_t *)&c->pipe, client_closed);
	uv_close((uv_handle_t *)&c->timer, client_closed);
}

static void
on_written(uv_write_t *req, int status)
{
	struct awrite *w = (struct awrite *)req;
	struct aclient *c = w->c;

	c->queued -= w->len;
	free(w);
	if (status < 0 || (c->quit && c->queued == 0))
		client_close(c);
}

/* Queue bytes for the client; a client that lets ADMIN_QUEUE_MAX pile up is closed: a
 * reader that does not read costs memory up to that, and never the loop's time. */
static void
client_write(struct aclient *c, const char *p, size_t n)
{
	struct awrite *w;
	uv_buf_t b;

	if (uv_is_closing((uv_handle_t *)&c->pipe) || n == 0)
		return;
	if (c->queued + n > ADMIN_QUEUE_MAX || (w = malloc(sizeof *w + n)) == NULL) {
		client_close(c);
		return;
	}
	w->c = c;
	w->len = n;
	memcpy(w->data, p, n);
	b = uv_buf_init(w->data, (unsigned)n);
	if (uv_write(&w->req, (uv_stream_t *)&c->pipe, &b, 1, on_written) != 0) {
		free(w);
		client_close(c);
		return;
	}
	c->queued += n;
}

static void
client_say(struct aclient *c, const char *text)
{
	client_write(c, text, strlen(text));
}

/* Data lines with "- " before each, then "ok" or "error: REASON". */
static void
reply(struct aclient *c, const struct metrics_buf *data, const char *err)
{
	struct metrics_buf out = { .max = ADMIN_QUEUE_MAX };
	const char *p = data ? data->p : NULL, *end = p ? p + data->len : NULL;

	while (p && p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);
		metrics_buf_printf(&out, "- %.*s\n", (int)n, p);
		p += n + (nl != NULL);
	}
	if (err)
		metrics_buf_printf(&out, "error: %s\n", err);
	else
		metrics_buf_printf(&out, "ok\n");
	if (out.failed)
		client_say(c, "error: out of memory\n");
	else
		client_write(c, out.p, out.len);
	metrics_buf_free(&out);
}

/* One line, without its newline. Its bytes were checked by the reader. */
static void
run_line(struct aclient *c, char *line)
{
	struct server *s = c->a->srv;
	char *args = strchr(line, ' ');
	char why[ADMIN_LINE_MAX + 64];

	if (args)
		*args++ = '\0';
	else
		args = line + strlen(line);
	s->m.admin_requests++;
	for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++) {
		if (strcmp(commands[i].name, line) != 0)
			continue;
		struct metrics_buf out = { .max = ADMIN_QUEUE_MAX / 2 };
		const char *err = commands[i].run(s, args, &out);
		if (out.failed)
			reply(c, NULL, "out of memory");
		else
			reply(c, &out, err);
		metrics_buf_free(&out);
		return;
	}
	if (line[0] == '\0')
		snprintf(why, sizeof why, "empty line (`help` lists the commands)");
	else
		snprintf(why, sizeof why, "unknown command '%.64s' (`help` lists the commands)", line);
	reply(c, NULL, why);
}

/* A line may hold printable text: no byte below 0x20 (a tab too) and no DEL. UTF-8 beyond ASCII
 * is let through as bytes: the commands compare names and parse numbers themselves. */
static bool
line_clean(const char *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)p[i] < 0x20 || p[i] == 0x7f)
			return false;
	return true;
}

static void
on_alloc(uv_handle_t *h, size_t suggested, uv_buf_t *buf)
{
	struct aclient *c = h->data;

	(void)suggested;
	*buf = uv_buf_init(c->line + c->len, (unsigned)(sizeof c->line - c->len));
}

static void
on_read(uv_stream_t *st, ssize_t nread, const uv_buf_t *buf)
{
	struct aclient *c = st->data;
	char *nl;

	(void)buf;
	if (nread < 0) {
		/* The client is done (EOF): what was asked is answered, then closed. */
		uv_read_stop(st);
		c->quit = true;
		if (c->queued == 0)
			client_close(c);
		return;
	}
	if (c->quit)
		return;
	c->len += (size_t)nread;
	uv_timer_again(&c->timer);
	while (!c->quit && (nl = memchr(c->line, '\n', c->len)) != NULL) {
		size_t n = (size_t)(nl - c->line), rest = c->len - n - 1;
		*nl = '\0';
		if (n > 0 && c->line[n - 1] == '\r')
			c->line[--n] = '\0';
		if (line_clean(c->line, n))
			run_line(c, c->line);
		else
			reply(c, NULL, "a control character in the line");
		memmove(c->line, nl + 1, rest);
		c->len = rest;
	}
	if (c->len == sizeof c->line) {
		char why[64];
		snprintf(why, sizeof why, "a line longer than %d bytes", ADMIN_LINE_MAX);
		reply(c, NULL, why);
		uv_read_stop(st);
		c->quit = true;
		if (c->queued == 0)
			client_close(c);
	}
}

static void
on_idle(uv_timer_t *t)
{
	client_close(t->data);
}

/* Who is on the other end: the server's own user or root, by the kernel's word (SO_PEERCRED).
 * The socket's mode and its folder's already keep others out; this is the second lock. */
static bool
peer_allowed(struct aclient *c)
{
	struct ucred cr;
	socklen_t len = sizeof cr;
	uv_os_fd_t fd;

	if (uv_fileno((uv_handle_t *)&c->pipe, &fd) != 0 || getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cr, &len) != 0)
		return false;
	return cr.uid == geteuid() || cr.uid == 0;
}

static void
on_connection(uv_stream_t *l, int status)
{
	struct admin *a = l->data;
	struct aclient *c;

	if (status < 0 || a->closing || (c = calloc(1, sizeof *c)) == NULL)
		return;
	c->a = a;
	uv_pipe_init(l->loop, &c->pipe, 0);
	uv_timer_init(l->loop, &c->timer);
	c->pipe.data = c->timer.data = c;
	c->handles = 2;
	c->next = a->clients;
	if (a->clients)
		a->clients->prev = c;
	a->clients = c;
	a->nclients++;
	a->srv->handles++;
	if (uv_accept(l, (uv_stream_t *)&c->pipe) != 0) {
		client_close(c);
		return;
	}
	if (!peer_allowed(c)) {
		c->quit = true;
		client_say(c, "error: permission denied: not the server's user\n");
		if (c->queued == 0)
			client_close(c);
		return;
	}
	if (a->nclients > ADMIN_CLIENTS_MAX) {
		c->quit = true;
		client_say(c, "error: busy: too many admin clients at once\n");
		if (c->queued == 0)
			client_close(c);
		return;
	}
	uv_timer_start(&c->timer, on_idle, ADMIN_IDLE_MS, ADMIN_IDLE_MS);
	if (uv_read_start((uv_stream_t *)&c->pipe, on_alloc, on_read) != 0)
		client_close(c);
}

static void
listener_closed(uv_handle_t *h)
{
	struct admin *a = h->data;
	struct server *s = a->srv;

	free(a);
	server__unref(s);
}

/* The socket's folder: a directory, this user's, that nobody else may write to (else another
 * user could put their own socket, or a link, where `wizwar status` looks). */
static bool
folder_ok(const char *path, char *why, size_t whylen)
{
	char dir[sizeof ((struct sockaddr_un *)0)->sun_path];
	const char *slash = strrchr(path, '/');
	struct stat st;

	if (slash == NULL)
		snprintf(dir, sizeof dir, ".");
	else if (slash == path)
		snprintf(dir, sizeof dir, "/");
	else
		snprintf(dir, sizeof dir, "%.*s", (int)(slash - path), path);
	if (lstat(dir, &st) != 0) {
		snprintf(why, whylen, "admin socket: %s: %s", dir, strerror(errno));
		return false;
	}
	if (!S_ISDIR(st.st_mode) || st.st_uid != geteuid() || (st.st_mode & 022) != 0) {
		snprintf(why, whylen, "admin socket: %s is not this user's own folder (a directory of uid %u, "
		         "writable by nobody else; it is uid %u, mode %04o)", dir, (unsigned)geteuid(), (unsigned)st.st_uid,
		         (unsigned)(st.st_mode & 07777));
		return false;
	}
	return true;
}

/* A socket file already there: a server still answering on it is another running server
 * (refused); one that does not answer was left by a server that stopped without removing it
 * (killed), and is removed. Anything else at that path is refused, never removed. */
static bool
clear_stale(const char *path, char *why, size_t whylen)
{
	struct stat st;
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd, rc;

	if (lstat(path, &st) != 0)
		return errno == ENOENT || (snprintf(why, whylen, "admin socket: %s: %s", path, strerror(errno)), false);
	if (!S_ISSOCK(st.st_mode)) {
		snprintf(why, whylen, "admin socket: %s exists and is not a socket", path);
		return false;
	}
	memcpy(sa.sun_path, path, strlen(path));
	if ((fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0)) < 0) {
		snprintf(why, whylen, "admin socket: %s", strerror(errno));
		return false;
	}
	rc = connect(fd, (struct sockaddr *)&sa, sizeof sa);
	close(fd);
	if (rc == 0) {
		snprintf(why, whylen, "admin socket: another server answers on %s", path);
		return false;
	}
	if (unlink(path) != 0 && errno != ENOENT) {
		snprintf(why, whylen, "admin socket: cannot remove the stale %s: %s", path, strerror(errno));
		return false;
	}
	return true;
}

int
admin_start(struct server *s, const char *path, struct admin **out, char *why, size_t whylen)
{
	struct admin *a;
	mode_t old;
	int rc;

	*out = NULL;
	if (strlen(path) >= sizeof a->path) {
		snprintf(why, whylen, "admin socket: the path is longer than %zu bytes: %s", sizeof a->path - 1, path);
		return -1;
	}
	if (!folder_ok(path, why, whylen) || !clear_stale(path, why, whylen))
		return -1;
	if ((a = calloc(1, sizeof *a)) == NULL) {
		snprintf(why, whylen, "out of memory");
		return -1;
	}
	a->srv = s;
	snprintf(a->path, sizeof a->path, "%s", path);
	uv_pipe_init(s->loop, &a->listener, 0);
	a->listener.data = a;
	s->handles++;
	/* Made 0600 from the start (umask), not chmod-ed after: no moment where others may
	 * connect. The loop is not serving yet, and no other thread makes files. */
	old = umask(0177);
	rc = uv_pipe_bind(&a->listener, path);
	umask(old);
	if (rc == 0 && chmod(path, 0600) != 0)
		rc = uv_translate_sys_error(errno);
	if (rc == 0)
		rc = uv_listen((uv_stream_t *)&a->listener, 8, on_connection);
	if (rc != 0) {
		snprintf(why, whylen, "admin socket: %s: %s", path, uv_strerror(rc));
		a->closing = true;
		a->path[0] = '\0';
		uv_close((uv_handle_t *)&a->listener, listener_closed);
		return -1;
	}
	*out = a;
	return 0;
}

void
admin_close(struct admin *a)
{
	if (a == NULL || a->closing)
		return;
	a->closing = true;
	for (struct aclient *c = a->clients; c; c = c->next)
		client_close(c);
	if (a->path[0])
		unlink(a->path);
	uv_close((uv_handle_t *)&a->listener, listener_closed);
}
