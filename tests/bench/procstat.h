/* SPDX-License-Identifier: MIT */
/* procstat: what the network benchmarks read of a process (resident memory, load), one copy for all. */
#ifndef WIZWAR_BENCH_PROCSTAT_H
#define WIZWAR_BENCH_PROCSTAT_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

/* A line of /proc/PID/status, in KiB: "VmRSS" (all resident pages) or "RssAnon" (those not
 * backed by a file: the heap, what the duels allocate; VmRSS also counts the pages of the
 * program's and libraries' code that playing touches for the first time). -1 if unreadable. */
static inline long
status_kib(pid_t pid, const char *key)
{
	char path[64], line[256];
	size_t kl = strlen(key);
	long v = -1;
	FILE *f;

	snprintf(path, sizeof path, "/proc/%d/status", (int)pid);
	if ((f = fopen(path, "r")) == NULL)
		return -1;
	while (fgets(line, sizeof line, f))
		if (strncmp(line, key, kl) == 0 && line[kl] == ':') {
			v = strtol(line + kl + 1, NULL, 10);
			break;
		}
	fclose(f);
	return v;
}

static inline long
rss_kib(pid_t pid)
{
	return status_kib(pid, "VmRSS");
}

/* The one-minute load average, printed beside every figure ("-1.00" if unreadable): these
 * machines are shared, and a latency means little without it. */
static inline void
loadavg(char *out, size_t len)
{
	FILE *f = fopen("/proc/loadavg", "r");
	double a = -1;

	if (f == NULL || fscanf(f, "%lf", &a) != 1)
		a = -1;
	if (f)
		fclose(f);
	snprintf(out, len, "%.2f", a);
}

#endif
