/* SPDX-License-Identifier: MIT */
/* lan_poll: Avahi's main-loop abstraction (AvahiPoll) on a libuv loop: watches are uv_poll_t, timeouts uv_timer_t,
 * so that avahi-client runs on the client's own loop, with no second loop and no thread. */
#include <stdbool.h>
#include <stdlib.h>

#include <avahi-common/timeval.h>
#include <avahi-common/watch.h>

#include "lan_internal.h"

/* libuv allows one uv_poll_t a descriptor, and D-Bus watches one socket twice (once to read, once to
 * write): each descriptor has one poll, shared by its watches, polling for the union of their events. */
struct lan_fd {
	struct lan_poll *lp;
	struct lan_fd *next;
	int fd;
	int busy;              /* dispatching its watches: they are unlinked only after */
	uv_poll_t poll;        /* poll.data = this; freed in its close callback */
	struct AvahiWatch *watches;
};

struct AvahiWatch {
	struct lan_fd *f;
	struct AvahiWatch *next;
	AvahiWatchEvent want, got;
	AvahiWatchCallback cb;
	void *ud;
	bool dead;             /* freed by Avahi during a dispatch: unlinked after it */
};

struct AvahiTimeout {
	uv_timer_t t;          /* t.data = this; freed in its close callback */
	AvahiTimeoutCallback cb;
	void *ud;
};

struct lan_poll {
	AvahiPoll api;         /* api.userdata = this */
	uv_loop_t *loop;
	struct lan_fd *fds;
};

static void
fd_closed(uv_handle_t *h)
{
	free(h->data);
}

static void on_poll(uv_poll_t *h, int status, int events);

static void
fd_apply(struct lan_fd *f)
{
	int ev = 0;

	for (struct AvahiWatch *w = f->watches; w; w = w->next)
		if (!w->dead)
			ev |= (w->want & AVAHI_WATCH_IN ? UV_READABLE : 0) | (w->want & AVAHI_WATCH_OUT ? UV_WRITABLE : 0);
	if (ev)
		uv_poll_start(&f->poll, ev, on_poll);
	else
		uv_poll_stop(&f->poll);
}

/* Unlink dead watches; a descriptor with none left gives up its poll. */
static void
fd_sweep(struct lan_fd *f)
{
	struct AvahiWatch **pw = &f->watches;

	if (f->busy)
		return;
	while (*pw) {
		struct AvahiWatch *w = *pw;
		if (w->dead) {
			*pw = w->next;
			free(w);
		} else {
			pw = &w->next;
		}
	}
	if (f->watches)
		return;
	for (struct lan_fd **pf = &f->lp->fds; *pf; pf = &(*pf)->next)
		if (*pf == f) {
			*pf = f->next;
			break;
		}
	uv_close((uv_handle_t *)&f->poll, fd_closed);
}

static void
on_poll(uv_poll_t *h, int status, int events)
{
	struct lan_fd *f = h->data;
	AvahiWatchEvent got = status < 0 ? AVAHI_WATCH_ERR
	                                 : (events & UV_READABLE ? AVAHI_WATCH_IN : 0) | (events & UV_WRITABLE ? AVAHI_WATCH_OUT : 0);

	f->busy++;
	/* A watch added by a callback goes in front: this walk does not reach it. */
	for (struct AvahiWatch *w = f->watches; w; w = w->next) {
		AvahiWatchEvent e = got & (w->want | AVAHI_WATCH_ERR | AVAHI_WATCH_HUP);
		if (w->dead || e == 0)
			continue;
		w->got = e;
		w->cb(w, f->fd, e, w->ud);
		w->got = 0;
	}
	f->busy--;
	if (status < 0)
		uv_poll_stop(&f->poll); /* libuv keeps reporting the error: Avahi has been told */
	fd_sweep(f);
}

static AvahiWatch *
watch_new(const AvahiPoll *api, int fd, AvahiWatchEvent event, AvahiWatchCallback cb, void *ud)
{
	struct lan_poll *lp = api->userdata;
	struct lan_fd *f;
	struct AvahiWatch *w = calloc(1, sizeof *w);

	if (w == NULL)
		return NULL;
	for (f = lp->fds; f && f->fd != fd; f = f->next)
		;
	if (f == NULL) {
		if ((f = calloc(1, sizeof *f)) == NULL || uv_poll_init(lp->loop, &f->poll, fd) != 0) {
			free(f);
			free(w);
			return NULL;
		}
		f->lp = lp;
		f->fd = fd;
		f->poll.data = f;
		f->next = lp->fds;
		lp->fds = f;
	}
	w->f = f;
	w->want = event;
	w->cb = cb;
	w->ud = ud;
	w->next = f->watches;
	f->watches = w;
	fd_apply(f);
	return w;
}

static void
watch_update(AvahiWatch *w, AvahiWatchEvent event)
{
	w->want = event;
	fd_apply(w->f);
}

static AvahiWatchEvent
watch_get_events(AvahiWatch *w)
{
	return w->got;
}

static void
watch_free(AvahiWatch *w)
{
	struct lan_fd *f = w->f;

	w->dead = true;
	fd_apply(f);
	fd_sweep(f);
}

static void
timer_closed(uv_handle_t *h)
{
	free(h->data);
}

static void
on_timer(uv_timer_t *t)
{
	struct AvahiTimeout *to = t->data;

	to->cb(to, to->ud); /* it may free or re-arm to: both are safe here */
}

/* Avahi's times are absolute (gettimeofday); libuv's timers relative. */
static void
timeout_update(AvahiTimeout *to, const struct timeval *tv)
{
	uv_timer_stop(&to->t);
	if (tv == NULL)
		return;
	AvahiUsec left = -avahi_age(tv);
	uint64_t ms = left <= 0 ? 0 : (uint64_t)(left + 999) / 1000;
	uv_timer_start(&to->t, on_timer, ms, 0);
}

static AvahiTimeout *
timeout_new(const AvahiPoll *api, const struct timeval *tv, AvahiTimeoutCallback cb, void *ud)
{
	struct lan_poll *lp = api->userdata;
	struct AvahiTimeout *to = calloc(1, sizeof *to);

	if (to == NULL || uv_timer_init(lp->loop, &to->t) != 0) {
		free(to);
		return NULL;
	}
	to->t.data = to;
	to->cb = cb;
	to->ud = ud;
	timeout_update(to, tv);
	return to;
}

static void
timeout_free(AvahiTimeout *to)
{
	uv_close((uv_handle_t *)&to->t, timer_closed);
}

struct lan_poll *
lan_poll_create(uv_loop_t *loop)
{
	struct lan_poll *lp = calloc(1, sizeof *lp);

	if (lp == NULL)
		return NULL;
	lp->loop = loop;
	lp->api = (AvahiPoll){
		.userdata = lp,
		.watch_new = watch_new,
		.watch_update = watch_update,
		.watch_get_events = watch_get_events,
		.watch_free = watch_free,
		.timeout_new = timeout_new,
		.timeout_update = timeout_update,
		.timeout_free = timeout_free,
	};
	return lp;
}

const AvahiPoll *
lan_poll_api(struct lan_poll *lp)
{
	return &lp->api;
}

/* After avahi_client_free, which frees every watch and timeout it made: their handles are closing,
 * and free themselves; none refers to lp any more. */
void
lan_poll_destroy(struct lan_poll *lp)
{
	if (lp == NULL)
		return;
	while (lp->fds) { /* a watch Avahi did not free (it frees them all): closed all the same */
		struct lan_fd *f = lp->fds;
		for (struct AvahiWatch *w = f->watches; w; w = w->next)
			w->dead = true;
		f->busy = 0;
		fd_sweep(f);
	}
	free(lp);
}
