/* SPDX-License-Identifier: MIT */
/* look: what the player knows of one square, said in words. Pure: reads the client model only. */
#ifndef WW_LOOK_H
#define WW_LOOK_H

#include <stddef.h>

#include "state.h"

/*
 * What st's view holds of square (x, y), as one line: who stands there (me, the opponent in
 * sight, sensed or last known), wall, floor or unknown, in view or remembered, how far and
 * which way from me, a potion's appearance and its kind where I identified it, and an effect
 * the last update drew there. Nothing the view does not hold. Returns the length written
 * (0 off the level or before the first view).
 */
size_t look_text(const struct state *st, int x, int y, char *buf, size_t len);

#endif
