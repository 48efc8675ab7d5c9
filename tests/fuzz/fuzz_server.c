/* SPDX-License-Identifier: MIT */
/* fuzz_server: whole connections into a real server: two peers on loopback TCP do the real encrypted handshake
 * with a multi-room server, then send a script of frames sealed in records (or of raw bytes: script.h). */
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "fuzz.h"
#include "pconn.h"
#include "script.h"
#include "server.h"

static void
on_closed(void *ud)
{
	*(int *)ud = 1;
}

static int
connect_to(int port)
{
	struct sockaddr_in a;
	int fd = socket(AF_INET, SOCK_STREAM, 0), rc;

	FUZZ_CHECK(fd >= 0);
	memset(&a, 0, sizeof a);
	a.sin_family = AF_INET;
	a.sin_port = htons((uint16_t)port);
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	rc = connect(fd, (struct sockaddr *)&a, sizeof a);
	if (rc != 0 && errno == EINTR) {
		/* libFuzzer's SIGALRM (its -timeout watchdog, no SA_RESTART) can land in a blocking connect:
		 * the handshake goes on in the kernel; wait for it rather than fail the harness. */
		struct pollfd w = { .fd = fd, .events = POLLOUT };
		int err = 0;
		socklen_t len = sizeof err;

		while (poll(&w, 1, -1) < 0 && errno == EINTR)
			;
		FUZZ_CHECK(getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len) == 0);
		rc = err ? -1 : 0;
		errno = err;
	}
	if (rc != 0) {
		fprintf(stderr, "fuzz_server: connect: %s\n", strerror(errno));
		abort();
	}
	fcntl(fd, F_SETFL, O_NONBLOCK);
	return fd;
}

static struct script_peer pe[2];

/* server/quick.c's wave (server/internal.h, whose name proto/'s own internal.h shadows here). */
void quick__wave(struct server *s);

static void
turn(uv_loop_t *loop, int times)
{
	for (int i = 0; i < times; i++) {
		uv_run(loop, UV_RUN_NOWAIT);
		script_peer_read(&pe[0]);
		script_peer_read(&pe[1]);
	}
}

/* Turn until done(p) (the server answers within a few turns), or fail the harness. */
static void
turn_until(uv_loop_t *loop, struct script_peer *p, bool (*done)(const struct script_peer *))
{
	for (int i = 0; i < 200 && !done(p); i++)
		turn(loop, 1);
	FUZZ_CHECK(done(p));
}

static bool
is_secure(const struct script_peer *p)
{
	return p->pc.secure;
}

static bool
is_joined(const struct script_peer *p)
{
	return p->pc.joined;
}

/* HELLO, then the server's CHALLENGE verified and its key checked, as a client pins it. */
static void
handshake(uv_loop_t *loop, struct server *s, struct script_peer *p)
{
	static struct wire_msg m;

	wire_hello_init(&m);
	script_peer_msg(p, &m);
	turn_until(loop, p, is_secure);
	FUZZ_CHECK(memcmp(pconn_peer_key(&p->pc), server_public_key(s), NOISE_KEY_LEN) == 0);
}

/* IDENT (protocol 7): a fixed key of this seed byte, signed over this channel. */
static void
ident(struct script_peer *p, uint8_t which)
{
	static struct wire_msg m;
	struct auth_ident id;
	uint8_t seed[AUTH_IDENT_SEED_LEN];

	memset(seed, which, sizeof seed);
	auth_ident_from_seed(&id, seed);
	memset(&m, 0, sizeof m);
	m.type = WIRE_IDENT;
	memcpy(m.u.ident.key, id.pk, PROTO_IDENT_KEY_LEN);
	auth_ident_sign(&id, pconn_hash(&p->pc), m.u.ident.sig);
	script_peer_msg(p, &m);
}

/* IDENT, then AUTH without a password into room "fz" (the first peer creates it), until WELCOME. */
static void
join(uv_loop_t *loop, struct script_peer *p, const char *name, bool create)
{
	static struct wire_msg m;

	/* Both in one record: the script's socket has Nagle on, and a second small record would wait
	 * for the first's delayed ACK (40 ms) while the turns run out. */
	pconn_cork(&p->pc);
	ident(p, 0x17);
	memset(&m, 0, sizeof m);
	m.type = WIRE_AUTH; /* no password: the proof is all zeros and not checked */
	wire_who_init(&m.u.auth.who, name, "fz", ROLE_PLAYER);
	m.u.auth.who.create = create;
	script_peer_msg(p, &m);
	{
		size_t len;
		FUZZ_CHECK(pconn_flush(&p->pc, p->out, sizeof p->out, &len, NULL) == 0);
		script_put(p->fd, p->out, len);
	}
	turn_until(loop, p, is_joined);
}

static void
on_dropped(void *ud, const struct conn *c, int code, const char *why)
{
	(void)ud, (void)c;
	if (getenv("FUZZ_VERBOSE"))
		fprintf(stderr, "dropped: %d %s\n", code, why);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct server_config cfg;
	struct server *s;
	struct script_rec r;
	uv_loop_t loop;
	char why[200];
	int closed = 0;
	size_t pos = 1;

	if (size < 1)
		return 0;
	FUZZ_CHECK(uv_loop_init(&loop) == 0);
	server_config_default(&cfg);
	cfg.bind = "127.0.0.1";
	cfg.multi = true;
	cfg.quiet = true;
	cfg.hooks.dropped = on_dropped;
	FUZZ_CHECK(server_create(&loop, &cfg, &s, why, sizeof why) == 0);
	for (int i = 0; i < 2; i++)
		script_peer_init(&pe[i], connect_to(server_port(s)), PCONN_CLIENT);
	turn(&loop, 2);
	if (data[0] & (SCRIPT_SECURE | SCRIPT_JOIN)) {
		handshake(&loop, s, &pe[0]);
		handshake(&loop, s, &pe[1]);
	}
	if (data[0] & SCRIPT_JOIN) {
		join(&loop, &pe[0], "ann", true);
		join(&loop, &pe[1], "bea", false);
	} else if ((data[0] & (SCRIPT_IDENT | SCRIPT_SECURE)) == (SCRIPT_IDENT | SCRIPT_SECURE)) {
		/* Two keys: two QUICKs may be paired with each other. No Nagle: the script's first record
		 * would otherwise wait behind IDENT, which nothing answers, for the delayed ACK (40 ms). */
		int one = 1;
		for (int i = 0; i < 2; i++)
			setsockopt(pe[i].fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
		ident(&pe[0], 0x17);
		ident(&pe[1], 0x18);
		turn(&loop, 2);
	}
	while (script_next(data, size, &pos, &r)) {
		script_peer_send(&pe[r.peer], &r);
		if (r.close && pe[r.peer].fd >= 0) {
			close(pe[r.peer].fd);
			pe[r.peer].fd = -1;
		}
		turn(&loop, r.turns);
		if (data[0] & SCRIPT_IDENT)
			quick__wave(s); /* a wave after each record, not once a 2 s the script never lasts */
	}
	for (int i = 0; i < 2; i++)
		script_peer_finish(&pe[i]);
	turn(&loop, 2);
	server_close(s, on_closed, &closed);
	uv_run(&loop, UV_RUN_DEFAULT);
	FUZZ_CHECK(closed);
	FUZZ_CHECK(uv_loop_close(&loop) == 0);
	return 0;
}
