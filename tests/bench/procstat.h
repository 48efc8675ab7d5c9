/* SPDX-License-Identifier: MIT */
/* procstat: what the network benchmarks read of a process (resident memory, load), one copy for all. */
#ifndef WIZWAR_BENCH_PROCSTAT_H
#define WIZWAR_BENCH_PROCSTAT_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <signal.h>
#include <unistd.h>
#include <sys/types.h>
#include <sys/wait.h>

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

/* A process's user and system CPU seconds, every thread, from /proc/PID/stat (clock ticks: good
 * to 10 ms, enough over a window of seconds). -1 if unreadable. */
static inline int
proc_times_s(pid_t pid, double *user, double *sys)
{
	char path[64], buf[1024], *p;
	unsigned long long ut, st;
	size_t n;
	FILE *f;

	snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
	if ((f = fopen(path, "r")) == NULL)
		return -1;
	n = fread(buf, 1, sizeof buf - 1, f);
	fclose(f);
	buf[n] = '\0';
	/* The name (field 2) may hold spaces and parentheses: count from the last ')'. */
	if ((p = strrchr(buf, ')')) == NULL ||
	    sscanf(p + 1, " %*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu", &ut, &st) != 2)
		return -1;
	*user = (double)ut / (double)sysconf(_SC_CLK_TCK);
	*sys = (double)st / (double)sysconf(_SC_CLK_TCK);
	return 0;
}

/* CPU seconds of a process, user + system. -1 if unreadable. */
static inline double
proc_cpu_s(pid_t pid)
{
	double u, k;

	return proc_times_s(pid, &u, &k) == 0 ? u + k : -1;
}

/* The user-space part of proc_cpu_s (utime alone): the code's own cost, which a loaded
 * machine moves less than the kernel's (issue 29's restated goal). -1 if unreadable. */
static inline double
proc_user_s(pid_t pid)
{
	double u, k;

	return proc_times_s(pid, &u, &k) == 0 ? u : -1;
}

/* Context switches of a process, every thread, voluntary and not, summed over
 * /proc/PID/task/TID/status. -1 if unreadable. */
static inline long
proc_ctxt(pid_t pid)
{
	char path[64];
	struct dirent *e;
	long sum = 0;
	DIR *d;

	snprintf(path, sizeof path, "/proc/%d/task", (int)pid);
	if ((d = opendir(path)) == NULL)
		return -1;
	while ((e = readdir(d)) != NULL) {
		if (e->d_name[0] == '.')
			continue;
		pid_t tid = (pid_t)atoi(e->d_name);
		char tpath[160], line[128];
		FILE *f;
		snprintf(tpath, sizeof tpath, "/proc/%d/task/%d/status", (int)pid, (int)tid);
		if ((f = fopen(tpath, "r")) == NULL)
			continue;
		while (fgets(line, sizeof line, f))
			if (strncmp(line, "voluntary_ctxt_switches:", 24) == 0 ||
			    strncmp(line, "nonvoluntary_ctxt_switches:", 27) == 0)
				sum += strtol(strchr(line, ':') + 1, NULL, 10);
		fclose(f);
	}
	closedir(d);
	return sum;
}

/* Open descriptors of a process (entries of /proc/PID/fd). -1 if unreadable. */
static inline long
proc_fds(pid_t pid)
{
	char path[64];
	struct dirent *e;
	long n = 0;
	DIR *d;

	snprintf(path, sizeof path, "/proc/%d/fd", (int)pid);
	if ((d = opendir(path)) == NULL)
		return -1;
	while ((e = readdir(d)) != NULL)
		n += e->d_name[0] != '.';
	closedir(d);
	return n;
}

/* System calls and context switches of a process over a window, every thread, from
 * `perf stat -e raw_syscalls:sys_enter,context-switches -p PID` (the kernel's own counts;
 * the process runs at full speed, unlike under strace). perfstat_start forks perf writing
 * to PATH; perfstat_stop ends it with SIGINT (it then writes its counts) and reads them.
 * The caller lets some 300 ms pass (its loop running) before its window starts, for perf to
 * attach to every thread. Where perf or its events are missing (not root, no tracefs), the counts are -1 and the
 * caller says so; BENCH_NO_PERF=1 skips perf. */
struct perfstat {
	pid_t child;
	char path[64];
};

static inline void
perfstat_start(struct perfstat *ps, pid_t pid)
{
	char spid[16];

	ps->child = -1;
	if (getenv("BENCH_NO_PERF"))
		return;
	snprintf(ps->path, sizeof ps->path, "/tmp/wizwar-perfstat-%d-%d", (int)getpid(), (int)pid);
	snprintf(spid, sizeof spid, "%d", (int)pid);
	if ((ps->child = fork()) == 0) {
		FILE *devnull = freopen("/dev/null", "w", stderr);
		(void)devnull;
		execlp("perf", "perf", "stat", "-x", ",", "-o", ps->path, "-e", "raw_syscalls:sys_enter,context-switches",
		       "-p", spid, (char *)NULL);
		_exit(127);
	}
}

static inline void
perfstat_stop(struct perfstat *ps, long *syscalls, long *cs)
{
	char line[256];
	FILE *f;

	*syscalls = *cs = -1;
	if (ps->child <= 0)
		return;
	kill(ps->child, SIGINT);
	waitpid(ps->child, NULL, 0);
	if ((f = fopen(ps->path, "r")) == NULL)
		return;
	while (fgets(line, sizeof line, f)) {
		long v;
		if (line[0] < '0' || line[0] > '9' || sscanf(line, "%ld", &v) != 1)
			continue;
		if (strstr(line, "raw_syscalls:sys_enter"))
			*syscalls = v;
		else if (strstr(line, "context-switches"))
			*cs = v;
	}
	fclose(f);
	unlink(ps->path);
}

/* CPU time of a whole process, every thread (a server's threadpool too), in nanoseconds: the
 * scheduler's own accounting (/proc/PID/task/TID/schedstat), not ticks. 0 if unreadable. */
static inline uint64_t
proc_cpu_ns(pid_t pid)
{
	char path[96];
	uint64_t sum = 0;
	DIR *d;
	struct dirent *e;

	snprintf(path, sizeof path, "/proc/%d/task", (int)pid);
	if ((d = opendir(path)) == NULL)
		return 0;
	while ((e = readdir(d)) != NULL) {
		char p2[400];
		unsigned long long ns;
		FILE *f;
		if (e->d_name[0] == '.')
			continue;
		snprintf(p2, sizeof p2, "%s/%s/schedstat", path, e->d_name);
		if ((f = fopen(p2, "r")) == NULL)
			continue;
		if (fscanf(f, "%llu", &ns) == 1)
			sum += ns;
		fclose(f);
	}
	closedir(d);
	return sum;
}

static inline int
proc_cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

/* The p-quantile (0..1) of n samples in nanoseconds, in microseconds; sorts v. */
static inline double
proc_pct_us(uint64_t *v, size_t n, double p)
{
	if (n == 0)
		return 0;
	qsort(v, n, sizeof *v, proc_cmp_u64);
	return (double)v[(size_t)(p * (double)(n - 1) + 0.5)] / 1000.0;
}

#endif
