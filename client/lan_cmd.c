/* SPDX-License-Identifier: MIT */
/* lan_cmd: what host, server, join and bot do with the LAN: announce a server and keep it true, browse and choose. */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "lan.h"
#include "server.h"

#define CHECK_MS 250 /* how often a host looks whether its duel got full (a seat count: nothing to it) */

void
lan_host_stop(struct lan_host *h)
{
	lan_announce_stop(h->ad);
	h->ad = NULL;
	if (h->checking)
		uv_close((uv_handle_t *)&h->check, NULL);
	h->checking = false;
}

static void host_closing(void *ud);

void
lan_host_hook(struct lan_host *h, struct server_config *cfg)
{
	cfg->hooks.ud = h;
	cfg->hooks.closing = host_closing;
}

static void
host_closing(void *ud)
{
	lan_host_stop(ud);
}

static void
on_check(uv_timer_t *t)
{
	struct lan_host *h = t->data;
	struct gameroom *r = server_room(h->srv, NULL);

	lan_announce_wanted(h->ad, r == NULL || room_seats_taken(r) < PLAYERS);
}

void
lan_host_start(struct lan_host *h, uv_loop_t *loop, struct server *srv, const char *name, bool password)
{
	char fp[AUTH_FP_LEN + 1], why[300];
	struct lan_info info = { .server = h->server, .name = name, .port = server_port(srv), .password = password,
	                         .wanted = true, .fp = fp };

	h->srv = srv;
	server_fingerprint(srv, fp);
	if (lan_announce_start(loop, &info, &h->ad, why, sizeof why) != 0) {
		cli_error("not announced on the LAN: %s (the address form still works)\n", why);
		return;
	}
	if (h->server)
		return;
	uv_timer_init(loop, &h->check);
	h->check.data = h;
	uv_timer_start(&h->check, on_check, CHECK_MS, CHECK_MS);
	h->checking = true;
}

/* Read a number from 1 to n on the terminal; 0 for none (an empty line, end of input). */
static int
ask(size_t n)
{
	char line[32];
	long v;

	for (;;) {
		printf("Join which? (1-%zu, Enter for none): ", n);
		fflush(stdout);
		if (fgets(line, sizeof line, stdin) == NULL)
			return 0;
		if (strchr(line, '\n') == NULL) { /* a long line: the rest of it is not the next answer */
			int c;
			while ((c = getchar()) != '\n' && c != EOF)
				;
		}
		line[strcspn(line, "\r\n")] = '\0';
		if (line[0] == '\0')
			return 0;
		char why[200];
		if (cli_int_why(line, 1, (long)n, "the number", &v, why, sizeof why))
			return (int)v;
		printf("%s\n", why);
	}
}

int
lan_choose(const char *want, unsigned ms, char *addr, size_t addrlen, char fp[AUTH_FP_LEN + 1], bool *password,
           char *label, size_t labellen)
{
	static struct lan_duel list[LAN_FOUND_MAX];
	size_t n = 0;
	char why[300], line[400];
	int pick = -1, usable[LAN_FOUND_MAX], nusable = 0;

	if (!lan_available()) {
		cli_error("LAN discovery is not built in (meson -Davahi=enabled): give the address, "
		          "wizwar join HOST[:PORT][#FINGERPRINT]\n");
		return 2;
	}
	if (lan_browse(ms, want, list, &n, LAN_FOUND_MAX, why, sizeof why) != 0) {
		cli_error("cannot look on the LAN: %s; give the address instead: wizwar join HOST[:PORT][#FINGERPRINT]\n", why);
		return 1;
	}
	if (want) {
		int count = lan_list_named(list, n, want, &pick);
		if (count == 0) {
			cli_error("no duel called '%s' found on the LAN in %u.%u s\n", want, ms / 1000, ms % 1000 / 100);
			return 1;
		}
		if (count > 1) {
			/* Two of one name: one may be forged, and only the host knows which key is theirs. */
			cli_error("%d duels on the LAN are called '%s'; not guessing which is the real one:\n", count, want);
			for (size_t i = 0; i < n; i++)
				if (list[i].usable && strcmp(list[i].name, want) == 0) {
					char host[41];
					lan_clean(host, sizeof host, list[i].host, strlen(list[i].host));
					fprintf(stderr, "  %s:%d#%s (on %s)\n", list[i].addr, list[i].port, list[i].fp, host);
				}
			cli_error("ask the host for their fingerprint and join by address: wizwar join ADDR:PORT#FINGERPRINT\n");
			return 1;
		}
	} else {
		for (size_t i = 0; i < n; i++)
			if (list[i].usable)
				usable[nusable++] = (int)i;
		if (n == 0) {
			cli_error("no duel found on the LAN in %u.%u s; give the address: wizwar join HOST[:PORT][#FINGERPRINT]\n",
			          ms / 1000, ms % 1000 / 100);
			return 1;
		}
		printf("Duels on the LAN:\n");
		for (int k = 0; k < nusable; k++) {
			lan_list_line(line, sizeof line, k + 1, &list[usable[k]]);
			printf("%s\n", line);
		}
		for (size_t i = 0; i < n; i++)
			if (!list[i].usable) {
				lan_list_line(line, sizeof line, 0, &list[i]);
				printf("%s\n", line);
			}
		for (int k = 0; k < nusable; k++)
			for (int j = 0; j < k; j++)
				if (strcmp(list[usable[k]].name, list[usable[j]].name) == 0) {
					printf("Two duels are called '%s': one may be forged; ask the host which key (key ...) is theirs.\n",
					       list[usable[k]].name);
					j = k;
				}
		if (nusable == 0) {
			cli_error("none of them can be joined (the reasons above)\n");
			return 1;
		}
		if (!isatty(STDIN_FILENO)) {
			cli_error("no terminal to ask which: wizwar join --lan NAME\n");
			return 2;
		}
		int k = ask((size_t)nusable);
		if (k == 0) {
			cli_error("none chosen: nothing joined\n");
			return 1;
		}
		pick = usable[k - 1];
	}
	const struct lan_duel *d = &list[pick];
	/* An IPv6 address is put in brackets, so that its port is not read as part of it. */
	snprintf(addr, addrlen, strchr(d->addr, ':') ? "[%s]:%d" : "%s:%d", d->addr, d->port);
	memcpy(fp, d->fp, AUTH_FP_LEN + 1);
	*password = d->password;
	snprintf(label, labellen, "the LAN announcement of '%s'", d->name);
	cli_error("joining '%s' found on the LAN at %s (key %s)\n", d->name, addr, d->fp);
	return 0;
}
