/* SPDX-License-Identifier: MIT */
/* msg: message texts and argument kinds, built from MSG_LIST; formatting is bounded and total. */
#include <stdio.h>
#include <string.h>

#include "effect.h"
#include "msg.h"
#include "potion.h"
#include "spell.h"

static const struct {
	enum msg_arg a, b;
	const char *text;
} msgs[MSG_COUNT] = {
#define X(id, a, b, text) { a, b, text },
	MSG_LIST(X)
#undef X
};

enum msg_arg
msg_arg_kind(int id, int which)
{
	if (id < 0 || id >= MSG_COUNT)
		return ARG_NONE;
	return which == 0 ? msgs[id].a : msgs[id].b;
}

const char *
msg_template(int id)
{
	return id >= 0 && id < MSG_COUNT ? msgs[id].text : NULL;
}

/* The text of one argument. Values outside their table (possible when the id came
 * off the wire) print as a number in brackets instead of indexing past a table. */
static void
arg_text(enum msg_arg kind, unsigned v, char *buf, size_t len)
{
	switch (kind) {
	case ARG_SPELL:
		if (v < SPELL_COUNT) {
			snprintf(buf, len, "%s", spell_name((int)v));
			return;
		}
		break;
	case ARG_APPEAR:
		if (v < APPEARANCE_COUNT) {
			snprintf(buf, len, "%s", appearance_name((int)v));
			return;
		}
		break;
	case ARG_KIND:
		if (v < POTION_KIND_COUNT) {
			snprintf(buf, len, "%s", potion_name((int)v));
			return;
		}
		break;
	case ARG_ELEMENT:
		if (v < ELEMENT_COUNT) {
			snprintf(buf, len, "%s", element_name((int)v));
			return;
		}
		break;
	case ARG_NUM:
		snprintf(buf, len, "%u", v);
		return;
	case ARG_NONE:
		break;
	}
	snprintf(buf, len, "[%u]", v);
}

size_t
msg_format(const struct msg *m, char *buf, size_t len)
{
	char args[2][32];
	size_t n = 0;

	if (len == 0)
		return 0;
	if (m->id >= MSG_COUNT) {
		snprintf(buf, len, "(unknown message %u)", (unsigned)m->id);
		return strlen(buf);
	}
	arg_text(msgs[m->id].a, m->a, args[0], sizeof args[0]);
	arg_text(msgs[m->id].b, m->b, args[1], sizeof args[1]);
	for (const char *t = msgs[m->id].text; *t && n + 1 < len; t++) {
		if (t[0] == '{') {
			/* {one/many}: the words for a count of 1 and for any other. */
			const char *bar = strchr(t, '/'), *end = bar ? strchr(bar, '}') : NULL;
			if (bar && end) {
				const char *s = m->a == 1 ? t + 1 : bar + 1, *e = m->a == 1 ? bar : end;
				while (s < e && n + 1 < len)
					buf[n++] = *s++;
				t = end;
				continue;
			}
		}
		if (t[0] == '%' && (t[1] == '1' || t[1] == '2')) {
			const char *s = args[t[1] - '1'];
			while (*s && n + 1 < len)
				buf[n++] = *s++;
			t++;
			continue;
		}
		buf[n++] = *t;
	}
	buf[n] = '\0';
	return n;
}
