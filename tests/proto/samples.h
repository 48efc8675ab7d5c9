/* SPDX-License-Identifier: MIT */
/* samples: one valid message of every type, varied by a seed, for round trips, the fuzz corpus and docs. */
#ifndef WW_TEST_SAMPLES_H
#define WW_TEST_SAMPLES_H

#include <stdint.h>

#include "pconn.h"
#include "wire.h"

/* Fill m with a valid message of `type` (any type in WIRE_LIST); different seeds
 * give different field values, seed 0 the plainest. Returns 0, or -1 for a type
 * not in WIRE_LIST. START and UPDATE carry a real view from a generated duel. */
int sample_msg(int type, uint64_t seed, struct wire_msg *m);

/* Every type of WIRE_LIST, in order, and how many there are. */
extern const int sample_types[];
extern const int sample_ntypes;

/* The fixed server key of the tests and examples: secret 0x01 0x02 ... 0x20. */
extern const uint8_t sample_server_secret[32];
/* Run HELLO and CHALLENGE between two fresh pconns (the server given the sample
 * key): both are then secure, not joined. 0, or -1 with e filled. */
int sample_handshake(struct pconn *srv, struct pconn *cli, struct proto_err *e);

#endif
