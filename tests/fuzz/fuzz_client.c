/* SPDX-License-Identifier: MIT */
/* fuzz_client: a whole connection into the real client (net.c): a scripted server on loopback TCP with its own
 * key (which the client pins) does the real encrypted handshake, then sends frames sealed in records (script.h). */
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "auth.h"
#include "fuzz.h"
#include "net.h"
#include "pconn.h"
#include "script.h"

struct fz {
	struct net *n;
	int closed;
};
static struct fz f;

static void
ev_closed(void *ud, struct net *n)
{
	struct fz *fz = ud;
	(void)n;
	fz->closed = 1;
	fz->n = NULL;
}

static struct script_peer pe;

static void
turn(uv_loop_t *loop, int times)
{
	for (int i = 0; i < times; i++) {
		uv_run(loop, UV_RUN_NOWAIT);
		script_peer_read(&pe);
	}
}

/* Turn until the client has sent a message of this type (it answers within a few turns), or fail the harness. */
static void
turn_until_got(uv_loop_t *loop, int type)
{
	for (int i = 0; i < 200 && pe.count[type] == 0; i++)
		turn(loop, 1);
	FUZZ_CHECK(pe.count[type] > 0);
}

/* The server's long-term key: fixed, so that every input sees the same server. */
static const struct noise_keypair *
identity(void)
{
	static struct noise_keypair kp;
	static bool made;

	if (!made) {
		uint8_t sk[NOISE_KEY_LEN];
		memset(sk, 0x42, sizeof sk);
		FUZZ_CHECK(auth_init() == 0 && noise_keypair_from(&kp, sk) == 0);
		made = true;
	}
	return &kp;
}

/* The server's part of the handshake: the client's HELLO, CHALLENGE (no password), the client's AUTH inside. */
static void
handshake(uv_loop_t *loop)
{
	static struct wire_msg m;
	static const uint8_t salt[PROTO_PW_SALT_LEN];

	turn_until_got(loop, WIRE_HELLO);
	wire_challenge_init(&m, salt, false);
	script_peer_msg(&pe, &m);
	turn_until_got(loop, WIRE_AUTH);
}

/* WELCOME: player 0, the controller, as a server sends it; the script then starts in the lobby. */
static void
welcome(uv_loop_t *loop)
{
	static struct wire_msg m;

	memset(&m, 0, sizeof m);
	m.type = WIRE_WELCOME;
	m.u.welcome.player = 0;
	m.u.welcome.controller = 1;
	m.u.welcome.token_len = PROTO_TOKEN_MIN;
	memset(m.u.welcome.token, 0x5a, PROTO_TOKEN_MIN);
	m.u.welcome.hold = 30;
	m.u.welcome.grace = 120;
	script_peer_msg(&pe, &m);
	turn(loop, 3);
	FUZZ_CHECK(!f.closed && net_phase(f.n) == NET_LOBBY); /* the client took it */
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct net_config cfg;
	struct sockaddr_in a;
	socklen_t alen = sizeof a;
	struct script_rec r;
	uv_loop_t loop;
	char why[200];
	int lfd, fd = -1;
	const struct noise_keypair *kp = identity();
	size_t pos = 1;

	if (size < 1)
		return 0;
	memset(&f, 0, sizeof f);
	lfd = socket(AF_INET, SOCK_STREAM, 0);
	FUZZ_CHECK(lfd >= 0);
	memset(&a, 0, sizeof a);
	a.sin_family = AF_INET;
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	FUZZ_CHECK(bind(lfd, (struct sockaddr *)&a, sizeof a) == 0 && listen(lfd, 4) == 0);
	FUZZ_CHECK(getsockname(lfd, (struct sockaddr *)&a, &alen) == 0);
	fcntl(lfd, F_SETFL, O_NONBLOCK);
	FUZZ_CHECK(uv_loop_init(&loop) == 0);
	net_config_default(&cfg);
	cfg.host = "127.0.0.1";
	cfg.port = ntohs(a.sin_port);
	cfg.name = "fz";
	cfg.server_key = kp->pk; /* pinned, as for an in-process server */
	cfg.ud = &f;
	cfg.ev.closed = ev_closed;
	cfg.reconnect_for_ms = 0; /* a lost link is not tried again: one connection per input */
	f.n = net_create(&loop, &cfg, why, sizeof why);
	FUZZ_CHECK(f.n != NULL);
	for (int i = 0; i < 1000 && fd < 0; i++) {
		uv_run(&loop, UV_RUN_NOWAIT);
		fd = accept(lfd, NULL, NULL);
		if (fd < 0)
			uv_sleep(1);
	}
	FUZZ_CHECK(fd >= 0);
	fcntl(fd, F_SETFL, O_NONBLOCK);
	script_peer_init(&pe, fd, PCONN_SERVER);
	pconn_set_identity(&pe.pc, kp);
	turn(&loop, 2);
	if (data[0] & (SCRIPT_SECURE | SCRIPT_JOIN))
		handshake(&loop);
	if (data[0] & SCRIPT_JOIN)
		welcome(&loop);
	while (script_next(data, size, &pos, &r)) {
		script_peer_send(&pe, &r);
		if (r.close && pe.fd >= 0) {
			close(pe.fd);
			pe.fd = -1;
		}
		turn(&loop, r.turns);
	}
	script_peer_finish(&pe);
	close(lfd);
	turn(&loop, 2);
	if (f.n)
		net_close(f.n);
	uv_run(&loop, UV_RUN_DEFAULT);
	FUZZ_CHECK(f.closed);
	FUZZ_CHECK(uv_loop_close(&loop) == 0);
	return 0;
}
