/* SPDX-License-Identifier: MIT */
/* conf: a server's configuration file, checked line by line and turned into command-line arguments (conf.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <sodium.h>

#include "cli.h"
#include "conf.h"

static bool
name_char(char ch)
{
	return (ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9') || ch == '-';
}

/* A piece of the file quoted in a message, which goes to a terminal or a log: at most max bytes of
 * it, printable ASCII as it is and any other byte as '?' (a UTF-8 character as one), so that a
 * C1 control or a bidi mark in the file reaches neither. */
static const char *
quote(char *out, size_t max, const char *in)
{
	size_t o = 0;

	for (size_t i = 0; in[i] && i < max;) {
		unsigned char b = (unsigned char)in[i++];
		if (b >= 0x80)
			while (i < max && (unsigned char)in[i] >= 0x80 && (unsigned char)in[i] < 0xc0)
				i++;
		out[o++] = b >= 0x20 && b < 0x7f ? (char)b : '?';
	}
	out[o] = '\0';
	return out;
}

static bool
blank(char ch)
{
	return ch == ' ' || ch == '\t';
}

/* The whole file, checked for what it is before a byte is read. */
static int
read_whole(const char *path, char **out, size_t *len, bool *others_read, char *why, size_t whylen)
{
	struct stat st;
	char *buf;
	size_t n = 0;
	/* O_NONBLOCK: a FIFO named here must not hang the start, or the loop at a SIGHUP; the
	 * fstat below refuses it before any read. */
	int fd = open(path, O_RDONLY | O_NOCTTY | O_NONBLOCK | O_CLOEXEC);

	if (fd < 0) {
		snprintf(why, whylen, "%s: %s", path, strerror(errno));
		return -1;
	}
	if (fstat(fd, &st) != 0) {
		snprintf(why, whylen, "%s: %s", path, strerror(errno));
		goto fail;
	}
	if (!S_ISREG(st.st_mode)) {
		snprintf(why, whylen, "%s: not a regular file", path);
		goto fail;
	}
	if (st.st_mode & S_IWOTH) {
		snprintf(why, whylen, "%s: writable by everyone (anyone here could change the server's settings): "
		         "chmod o-w it", path);
		goto fail;
	}
	if (st.st_size > CONF_MAX_BYTES) {
		snprintf(why, whylen, "%s: larger than %d bytes", path, CONF_MAX_BYTES);
		goto fail;
	}
	*others_read = (st.st_mode & S_IROTH) != 0;
	if ((buf = malloc(CONF_MAX_BYTES + 2)) == NULL) {
		snprintf(why, whylen, "%s: out of memory", path);
		goto fail;
	}
	/* Bounded even if the file grows while it is read. */
	for (;;) {
		ssize_t r = read(fd, buf + n, CONF_MAX_BYTES + 1 - n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			snprintf(why, whylen, "%s: %s", path, strerror(errno));
			free(buf);
			goto fail;
		}
		if (r == 0)
			break;
		n += (size_t)r;
		if (n > CONF_MAX_BYTES) {
			snprintf(why, whylen, "%s: larger than %d bytes", path, CONF_MAX_BYTES);
			free(buf);
			goto fail;
		}
	}
	close(fd);
	buf[n] = '\0';
	*out = buf;
	*len = n;
	return 0;
fail:
	close(fd);
	return -1;
}

/* One line (NUL-terminated in place, without its '\n'): a setting into c, or nothing. */
static int
take_line(struct conf *c, char *line, size_t n, int lineno, const char *usage, const char *const *refused, char *why,
          size_t whylen)
{
	const char *path = c->path;
	char q[64];

	if (n > 0 && line[n - 1] == '\r') /* a file written on Windows */
		line[--n] = '\0';
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)line[i] < 0x20 ? line[i] != '\t' : line[i] == 0x7f) {
			snprintf(why, whylen, "%s:%d: a control character (byte 0x%02x) at column %zu", path, lineno,
			         (unsigned char)line[i], i + 1);
			return -1;
		}
	while (blank(*line))
		line++;
	if (*line == '\0' || *line == '#')
		return 0;
	char *name = line, *end = line;
	while (name_char(*end))
		end++;
	if ((*end != '\0' && !blank(*end)) || *name == '-') {
		snprintf(why, whylen, "%s:%d: a setting is NAME VALUE (an option of `wizwar server --help` without its "
		         "--), not '%s'", path, lineno, quote(q, 60, name));
		return -1;
	}
	char *value = end;
	while (blank(*value))
		value++;
	*end = '\0';
	size_t vlen = strlen(value);
	while (vlen > 0 && blank(value[vlen - 1]))
		value[--vlen] = '\0';
	int kind = cli_option_kind(usage, name);
	for (int i = 0; refused && refused[i]; i++)
		if (strcmp(refused[i], name) == 0)
			kind = -1;
	if (kind == CLI_OPT_UNKNOWN || kind < 0 || strcmp(name, "help") == 0 || strcmp(name, "version") == 0) {
		snprintf(why, whylen, "%s:%d: %s setting '%s'%s", path, lineno, kind < 0 ? "no" : "unknown", quote(q, 40, name),
		         kind < 0 ? " in a configuration file" : " (the settings are the options of `wizwar server "
		         "--help`, without their --)");
		return -1;
	}
	if (kind == CLI_OPT_FLAG && vlen > 0) {
		snprintf(why, whylen, "%s:%d: %s takes no value, not '%s'", path, lineno, name, quote(q, 60, value));
		return -1;
	}
	/* An optional value (--password alone asks on the terminal): a file has none to ask on. */
	if (kind != CLI_OPT_FLAG && vlen == 0) {
		snprintf(why, whylen, "%s:%d: %s needs a value", path, lineno, name);
		return -1;
	}
	const struct conf_setting *was = conf_get(c, name);
	if (was != NULL) {
		snprintf(why, whylen, "%s:%d: %s again (first set on line %d)", path, lineno, name, was->line);
		return -1;
	}
	if (c->n == CONF_MAX_SETTINGS) {
		snprintf(why, whylen, "%s:%d: more than %d settings", path, lineno, CONF_MAX_SETTINGS);
		return -1;
	}
	c->set[c->n++] = (struct conf_setting){ name, kind == CLI_OPT_FLAG ? NULL : value, lineno };
	return 0;
}

/* The settings as command-line arguments, for the command's own option loop. */
static int
make_argv(struct conf *c, char *why, size_t whylen)
{
	size_t bytes = 0;

	for (int i = 0; i < c->n; i++)
		bytes += strlen(c->set[i].name) + 4 + (c->set[i].value ? strlen(c->set[i].value) : 0);
	if ((c->argbuf = malloc(bytes + 1)) == NULL) {
		snprintf(why, whylen, "%s: out of memory", c->path);
		return -1;
	}
	char *p = c->argbuf;
	c->arglen = bytes + 1;
	c->argc = 0;
	for (int i = 0; i < c->n; i++) {
		const struct conf_setting *s = &c->set[i];
		bool joined = s->value && strcmp(s->name, "password") == 0; /* "--password=PW", cli_args's form */
		c->argline[c->argc] = s->line;
		c->argv[c->argc++] = p;
		p += sprintf(p, "--%s%s%s", s->name, joined ? "=" : "", joined ? s->value : "") + 1;
		if (s->value && !joined) {
			c->argline[c->argc] = s->line;
			c->argv[c->argc++] = (char *)s->value;
		}
	}
	c->argv[c->argc] = NULL;
	return 0;
}

int
conf_read(struct conf *c, const char *path, const char *usage, const char *const *refused, char *why, size_t whylen)
{
	size_t len;
	bool others_read = false;
	int lineno = 0;

	memset(c, 0, sizeof *c);
	snprintf(c->path, sizeof c->path, "%s", path);
	if (read_whole(path, &c->text, &len, &others_read, why, whylen) != 0)
		return -1;
	c->textlen = len;
	if (memchr(c->text, '\0', len) != NULL) {
		size_t at = (size_t)((char *)memchr(c->text, '\0', len) - c->text);
		for (size_t i = 0; i < at; i++)
			lineno += c->text[i] == '\n';
		snprintf(why, whylen, "%s:%d: a NUL byte (this is not a text file)", path, lineno + 1);
		goto fail;
	}
	for (char *p = c->text; *p != '\0';) {
		char *nl = strchr(p, '\n');
		size_t n = nl ? (size_t)(nl - p) : strlen(p);
		lineno++;
		if (n > CONF_LINE_MAX) {
			snprintf(why, whylen, "%s:%d: longer than %d bytes", path, lineno, CONF_LINE_MAX);
			goto fail;
		}
		p[n] = '\0';
		if (take_line(c, p, n, lineno, usage, refused, why, whylen) != 0)
			goto fail;
		p += n + (nl != NULL);
	}
	if (others_read && (conf_get(c, "password") != NULL)) {
		snprintf(why, whylen, "%s:%d: a password in a file others can read: chmod o-r it (or use "
		         "password-file)", path, conf_get(c, "password")->line);
		goto fail;
	}
	if (make_argv(c, why, whylen) != 0)
		goto fail;
	return 0;
fail:
	conf_free(c);
	return -1;
}

const struct conf_setting *
conf_get(const struct conf *c, const char *name)
{
	for (int i = 0; i < c->n; i++)
		if (strcmp(c->set[i].name, name) == 0)
			return &c->set[i];
	return NULL;
}

void
conf_free(struct conf *c)
{
	/* The file may hold the password: wiped, as cmd_net_password_wipe does its buffer. */
	if (c->text)
		sodium_memzero(c->text, c->textlen);
	if (c->argbuf)
		sodium_memzero(c->argbuf, c->arglen);
	free(c->text);
	free(c->argbuf);
	c->text = c->argbuf = NULL;
	c->n = c->argc = 0;
}
