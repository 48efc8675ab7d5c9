/* SPDX-License-Identifier: MIT */
/* proto: error texts for the protocol's codes, and the one helper that fills an error record. */
#include <stdarg.h>
#include <stdio.h>

#include "game.h"
#include "internal.h"
#include "proto.h"

const char *
proto_strerror(int code)
{
	switch (code) {
#define X(id, num, text) case num: return text;
	PERR_LIST(X)
#undef X
	default:
		break;
	}
	if (code >= PERR_REFUSED_BASE && code < PERR_REFUSED_BASE + ERR_COUNT)
		return "command refused";
	return "unknown error";
}

int
proto__fail(struct proto_err *e, int code, const char *fmt, ...)
{
	va_list ap;

	if (!e)
		return PROTO_BROKEN;
	e->code = code;
	va_start(ap, fmt);
	vsnprintf(e->why, sizeof e->why, fmt, ap);
	va_end(ap);
	return PROTO_BROKEN;
}
