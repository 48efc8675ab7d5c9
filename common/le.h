/* SPDX-License-Identifier: MIT */
/* le: 8 bytes as one little-endian word, so that byte k is bits 8k to 8k+7 on any host (the row scans of gpack, fov and update find cells by position). */
#ifndef WIZWAR_LE_H
#define WIZWAR_LE_H

#include <stdint.h>
#include <string.h>

static inline uint64_t
le_load64(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, sizeof v);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	v = __builtin_bswap64(v);
#endif
	return v;
}

static inline void
le_store64(uint8_t *p, uint64_t v)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	v = __builtin_bswap64(v);
#endif
	memcpy(p, &v, sizeof v);
}

#endif
