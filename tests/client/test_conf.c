/* SPDX-License-Identifier: MIT */
/* client/conf: the server's configuration file: settings by the usage text's option names, and every wrong file said with its file and line. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <criterion/criterion.h>

#include "conf.h"
#include "help.h"

static char dir[200], path[300];
static const char *const refused[] = { "config", NULL };

static void
setup(void)
{
	snprintf(dir, sizeof dir, "/tmp/wizwar-test-conf-%d", (int)getpid());
	mkdir(dir, 0700);
	snprintf(path, sizeof path, "%s/server.conf", dir);
}

static void
teardown(void)
{
	char cmd[300];

	snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
	cr_expect_eq(system(cmd), 0);
}

TestSuite(conf, .init = setup, .fini = teardown);

static void
write_file(const void *text, size_t n, mode_t mode)
{
	FILE *f = fopen(path, "wb");

	cr_assert_not_null(f);
	cr_assert_eq(fwrite(text, 1, n, f), n);
	fclose(f);
	cr_assert_eq(chmod(path, mode), 0);
}

/* conf_read on text: 0, or -1 with why. */
static int
read_text(struct conf *c, const char *text, mode_t mode, char *why, size_t len)
{
	write_file(text, strlen(text), mode);
	return conf_read(c, path, help_get(HELP_SERVER), refused, why, len);
}

/* The file is refused, and the reason starts "PATH:LINE: " and says `says`. */
static void
expect_refused(const char *text, int line, const char *says)
{
	struct conf c;
	char why[2048], want[400];

	cr_assert_eq(read_text(&c, text, 0600, why, sizeof why), -1, "'%s' was taken", text);
	snprintf(want, sizeof want, "%s:%d: ", path, line);
	cr_expect_eq(strncmp(why, want, strlen(want)), 0, "'%s' does not start '%s'", why, want);
	cr_expect(strstr(why, says) != NULL, "'%s' does not say '%s'", why, says);
	cr_expect_eq(c.n, 0);
}

Test(conf, settings_become_the_command_lines_arguments)
{
	struct conf c;
	char why[2048];

	int rc = read_text(&c, "# a comment\n\n   max-rooms   500  \n\tpassword two words # and a hash\r\n"
	                       "resume\nlog-dir /var/log/wizwar\n", 0600, why, sizeof why);
	cr_assert_eq(rc, 0, "%s", why);
	cr_expect_eq(c.n, 4);
	cr_expect_str_eq(conf_get(&c, "max-rooms")->value, "500");
	cr_expect_eq(conf_get(&c, "max-rooms")->line, 3);
	cr_expect_str_eq(conf_get(&c, "password")->value, "two words # and a hash");
	cr_expect_null(conf_get(&c, "resume")->value, "a flag has no value");
	cr_expect_null(conf_get(&c, "port"));
	cr_assert_eq(c.argc, 6);
	const char *want[] = { "--max-rooms", "500", "--password=two words # and a hash", "--resume", "--log-dir",
		               "/var/log/wizwar" };
	for (int i = 0; i < 6; i++)
		cr_expect_str_eq(c.argv[i], want[i]);
	cr_expect_null(c.argv[6]);
	cr_expect_eq(c.argline[1], 3);
	cr_expect_eq(c.argline[5], 6);
	conf_free(&c);
}

Test(conf, every_mistake_names_its_file_and_line)
{
	expect_refused("max-rooms 5\nmax-romz 7\n", 2, "unknown setting 'max-romz'");
	expect_refused("\n\n--port 5\n", 3, "a setting is NAME VALUE");
	expect_refused("port=5\n", 1, "a setting is NAME VALUE");
	expect_refused("port\n", 1, "port needs a value");
	expect_refused("password\n", 1, "password needs a value");
	expect_refused("resume yes\n", 1, "resume takes no value");
	expect_refused("port 1\nbind ::1\nport 2\n", 3, "port again (first set on line 1)");
	expect_refused("config /etc/other.conf\n", 1, "no setting 'config' in a configuration file");
	expect_refused("help\n", 1, "setting 'help'");
	expect_refused("# ok\nport 5\x1b[2J\n", 2, "a control character (byte 0x1b)");
	/* What a message quotes of the file goes to a terminal or a log: no C1 control, no bidi mark. */
	expect_refused("p\xc2\x9bort 5\n", 1, "not 'p?ort 5'");
	expect_refused("resume \xe2\x80\xae" "evil\n", 1, "resume takes no value, not '?evil'");
	expect_refused("max-r\xc3\xb6oms 5\n", 1, "not 'max-r?oms 5'");

	char line[2000];
	memset(line, 'a', sizeof line);
	memcpy(line, "# ", 2);
	line[sizeof line - 2] = '\n';
	line[sizeof line - 1] = '\0';
	expect_refused(line, 1, "longer than 1024 bytes");
}

Test(conf, nul_bytes_are_refused_at_their_line)
{
	struct conf c;
	char why[2048], want[400];

	write_file("port 5\nbind 1\0.2\n", 17, 0600);
	cr_assert_eq(conf_read(&c, path, help_get(HELP_SERVER), refused, why, sizeof why), -1);
	snprintf(want, sizeof want, "%s:2: a NUL byte", path);
	cr_expect_eq(strncmp(why, want, strlen(want)), 0, "%s", why);
}

Test(conf, the_file_itself_is_checked)
{
	struct conf c;
	char why[2048];

	cr_expect_eq(read_text(&c, "port 5\n", 0602, why, sizeof why), -1);
	cr_expect(strstr(why, "writable by everyone") != NULL, "%s", why);
	cr_expect_eq(read_text(&c, "password pw\n", 0644, why, sizeof why), -1);
	cr_expect(strstr(why, ":1: a password in a file others can read") != NULL, "%s", why);
	cr_expect_eq(read_text(&c, "port 5\n", 0644, why, sizeof why), 0, "%s", why);
	conf_free(&c);

	/* A directory, a FIFO (not waited on), a missing file. */
	cr_expect_eq(conf_read(&c, dir, help_get(HELP_SERVER), refused, why, sizeof why), -1);
	cr_expect(strstr(why, "not a regular file") != NULL, "%s", why);
	char fifo[400];
	snprintf(fifo, sizeof fifo, "%s/fifo", dir);
	cr_assert_eq(mkfifo(fifo, 0600), 0);
	cr_expect_eq(conf_read(&c, fifo, help_get(HELP_SERVER), refused, why, sizeof why), -1);
	cr_expect(strstr(why, "not a regular file") != NULL, "%s", why);
	snprintf(fifo, sizeof fifo, "%s/none", dir);
	cr_expect_eq(conf_read(&c, fifo, help_get(HELP_SERVER), refused, why, sizeof why), -1);
	cr_expect(strstr(why, "No such file") != NULL, "%s", why);

	/* Over the cap: 64 KiB of comments and one more byte. */
	size_t n = CONF_MAX_BYTES + 1;
	char *big = malloc(n);
	cr_assert_not_null(big);
	for (size_t i = 0; i < n; i++)
		big[i] = i % 64 == 63 ? '\n' : '#';
	write_file(big, n, 0600);
	free(big);
	cr_expect_eq(conf_read(&c, path, help_get(HELP_SERVER), refused, why, sizeof why), -1);
	cr_expect(strstr(why, "larger than 65536 bytes") != NULL, "%s", why);
}
