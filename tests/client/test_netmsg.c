/* SPDX-License-Identifier: MIT */
/* client/netmsg: the network client's handler table (net_msg.c): a row for every message a server may send and
 * none for the rest; a message out of turn, or of a type only clients send, ends the session with PERR_STATE. */
#include <stdio.h>
#include <string.h>

#include <criterion/criterion.h>

#include "net_internal.h"

Test(netmsg, a_handler_for_every_message_a_server_sends)
{
	int handled = 0;

	for (int t = 0; t < 256; t++) {
		bool s2c = wire_known(t) && (wire_dir(t) & WIRE_S2C);
		cr_expect_eq(net__handles(t), s2c, "type 0x%02x (%s): %s", t, wire_name(t),
		             s2c ? "a server sends it, but net_msg.c has no handler for it"
		                 : "net_msg.c has a handler for a type no server sends");
		handled += s2c;
	}
	cr_assert_gt(handled, 0, "WIRE_LIST names no message a server sends");
}

struct said {
	int errors, code;
	bool fatal, closed;
	char text[300];
};

static void
on_error(void *ud, struct net *n, int code, bool fatal, const char *text)
{
	struct said *s = ud;

	s->errors++;
	s->code = code;
	s->fatal = fatal;
	snprintf(s->text, sizeof s->text, "%s", text);
}

static void
on_closed(void *ud, struct net *n)
{
	((struct said *)ud)->closed = true;
}

/* A client still connecting is handed m as if it had come from the server; the loop then runs
 * until the client has closed everything. */
static void
deliver(const struct wire_msg *m, struct said *s, bool close_after)
{
	uv_loop_t loop;
	struct net_config cfg;
	struct net *n;
	char why[200];

	memset(s, 0, sizeof *s);
	cr_assert_eq(uv_loop_init(&loop), 0);
	net_config_default(&cfg);
	cfg.host = "127.0.0.1";
	cfg.name = "Jo";
	cfg.ev.error = on_error;
	cfg.ev.closed = on_closed;
	cfg.ud = s;
	n = net_create(&loop, &cfg, why, sizeof why);
	cr_assert_not_null(n, "%s", why);
	cr_assert_eq(net_phase(n), NET_CONNECTING);
	net__message(n, m);
	if (close_after)
		net_close(n);
	uv_run(&loop, UV_RUN_DEFAULT);
	cr_expect(s->closed, "the client did not close");
	cr_expect_eq(uv_loop_close(&loop), 0, "a handle was left open");
}

static void
out_of_turn(int type, const char *want)
{
	struct wire_msg m;
	struct said s;

	memset(&m, 0, sizeof m);
	m.type = (uint8_t)type;
	deliver(&m, &s, false);
	cr_expect_eq(s.errors, 1);
	cr_expect_eq(s.code, PERR_STATE);
	cr_expect(s.fatal);
	cr_expect_str_eq(s.text, want);
}

Test(netmsg, an_update_before_any_start_is_out_of_turn)
{
	out_of_turn(WIRE_UPDATE, "the server sent UPDATE out of turn");
}

Test(netmsg, a_log_chunk_with_no_end_is_out_of_turn)
{
	out_of_turn(WIRE_LOG_CHUNK, "the server sent LOG_CHUNK out of turn");
}

Test(netmsg, a_type_only_clients_send_is_out_of_turn)
{
	out_of_turn(WIRE_OPTIONS, "the server sent OPTIONS out of turn");
	out_of_turn(WIRE_HELLO, "the server sent HELLO out of turn");
}

Test(netmsg, a_heartbeat_is_taken_quietly)
{
	struct wire_msg m;
	struct said s;

	memset(&m, 0, sizeof m);
	m.type = WIRE_HEARTBEAT;
	deliver(&m, &s, true);
	cr_expect_eq(s.errors, 0, "a HEARTBEAT said: %s", s.text);
}
