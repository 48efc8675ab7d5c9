/* samples: one valid message of every type, varied by a seed, for round trips, the fuzz corpus and docs. */
#ifndef WW_TEST_SAMPLES_H
#define WW_TEST_SAMPLES_H

#include <stdint.h>

#include "wire.h"

/* Fill m with a valid message of `type` (any type in WIRE_LIST); different seeds
 * give different field values, seed 0 the plainest. Returns 0, or -1 for a type
 * not in WIRE_LIST. START and UPDATE carry a real view from a generated duel. */
int sample_msg(int type, uint64_t seed, struct wire_msg *m);

/* Every type of WIRE_LIST, in order, and how many there are. */
extern const int sample_types[];
extern const int sample_ntypes;

#endif
