/* SPDX-License-Identifier: MIT */
/* script: one fuzz input as a script of bytes for the peers of one connection (as curl-fuzzer does). */
#ifndef WW_FUZZ_SCRIPT_H
#define WW_FUZZ_SCRIPT_H

#include <stddef.h>
#include <stdint.h>

/*
 * Input: a flags byte (bit 0: do the handshake first, so the script starts after the join), then
 * records, each [tag][len][len bytes]: the bytes go to peer (tag & 1), which is then closed when
 * tag & 2, and the loop turns 1 + (tag >> 2 & 7) times before the next record. A record cut short
 * sends what there is.
 */
#define SCRIPT_JOIN 1

struct script_rec {
	int peer;
	int close;
	int turns;
	const uint8_t *bytes;
	size_t len;
};

/* The next record at *pos; 0 when the input is used up. */
static inline int
script_next(const uint8_t *data, size_t size, size_t *pos, struct script_rec *r)
{
	size_t n;

	if (*pos + 2 > size)
		return 0;
	r->peer = data[*pos] & 1;
	r->close = (data[*pos] & 2) != 0;
	r->turns = 1 + (data[*pos] >> 2 & 7);
	n = data[*pos + 1];
	*pos += 2;
	if (n > size - *pos)
		n = size - *pos;
	r->bytes = data + *pos;
	r->len = n;
	*pos += n;
	return 1;
}

#endif
