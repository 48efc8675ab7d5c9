/* SPDX-License-Identifier: MIT */
/* client/cli: cli_args reads a command line by getopt_long's rules, from the options a usage text names: values
 * after a space or '=', optional values only after '=', abbreviations, operands anywhere, --, and refusals. */
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>
#include <criterion/redirect.h>

#include "cli.h"
#include "cmd_net.h"

static const char usage[] =
	"usage: wizwar demo [--port P] [--password[=PW]] [--password-file F] [--quiet] [--list [DIR]]\n"
	"                   [--view 1|2|all] [--seed S] HOST\n";

/* Run cli_args on the words of `line` (space-separated); the rewritten argv joined by '|' into out. */
static int
run(const char *line, bool operand, char *out, size_t len, const char **op)
{
	static char buf[512];
	char *words[32];
	int n = 0;

	snprintf(buf, sizeof buf, "%s", line);
	for (char *w = strtok(buf, " "); w && n < 31; w = strtok(NULL, " "))
		words[n++] = strcmp(w, "''") == 0 ? (char *)"" : w;
	words[n] = NULL;
	char **argv = words;
	int argc = n;
	*op = NULL;
	int r = cli_args("demo", usage, &argc, &argv, operand ? op : NULL);
	out[0] = '\0';
	for (int i = 0; r < 0 && i < argc; i++) {
		strncat(out, i ? "|" : "", len - strlen(out) - 1);
		strncat(out, argv[i], len - strlen(out) - 1);
	}
	return r;
}

static void
quiet(void)
{
	cr_redirect_stderr();
	cr_redirect_stdout();
}

TestSuite(cli, .init = quiet);

Test(cli, values_after_a_space_or_equals)
{
	char out[256];
	const char *op;

	cr_assert_eq(run("--port 7000 --seed=5 --view all", false, out, sizeof out, &op), -1);
	cr_assert_str_eq(out, "--port|7000|--seed|5|--view|all");
	cr_assert_eq(run("--port -1 --seed --", false, out, sizeof out, &op), -1, "a value is taken as it is");
	cr_assert_str_eq(out, "--port|-1|--seed|--");
}

Test(cli, an_optional_value_only_after_equals)
{
	char out[256];
	const char *op;

	cr_assert_eq(run("--password HOST", true, out, sizeof out, &op), -1);
	cr_assert_str_eq(out, "--password", "the next word is no value of an optional one");
	cr_assert_str_eq(op, "HOST");
	cr_assert_eq(run("--password=sesame HOST", true, out, sizeof out, &op), -1);
	cr_assert_str_eq(out, "--password=sesame");
	cr_assert_eq(run("--password= HOST", true, out, sizeof out, &op), -1);
	cr_assert_str_eq(out, "--password=", "an empty value is the command's to refuse");
	cr_assert_eq(run("--list DIR", true, out, sizeof out, &op), -1);
	cr_assert_str_eq(out, "--list");
	cr_assert_str_eq(op, "DIR");
}

Test(cli, abbreviations)
{
	char out[256];
	const char *op;

	cr_assert_eq(run("--po 1 --q --password-f F --password", false, out, sizeof out, &op), -1);
	cr_assert_str_eq(out, "--port|1|--quiet|--password-file|F|--password", "an exact name is never ambiguous");
	cr_assert_eq(run("--pass", false, out, sizeof out, &op), 2, "a prefix of two options");
	cr_assert_eq(run("--p 1", false, out, sizeof out, &op), 2);
}

Test(cli, operands_anywhere_and_after_dashdash)
{
	char out[256];
	const char *op;

	cr_assert_eq(run("HOST --quiet", true, out, sizeof out, &op), -1);
	cr_assert_str_eq(out, "--quiet");
	cr_assert_str_eq(op, "HOST");
	cr_assert_eq(run("--quiet -- --port", true, out, sizeof out, &op), -1);
	cr_assert_str_eq(out, "--quiet");
	cr_assert_str_eq(op, "--port");
	cr_assert_eq(run("- --quiet", true, out, sizeof out, &op), -1, "'-' alone is an operand");
	cr_assert_str_eq(op, "-");
	cr_assert_eq(run("a b", true, out, sizeof out, &op), 2, "one operand only");
	cr_assert_eq(run("a", false, out, sizeof out, &op), 2, "none where the command takes none");
	setenv("POSIXLY_CORRECT", "1", 1);
	cr_assert_eq(run("HOST --quiet", true, out, sizeof out, &op), -1);
	unsetenv("POSIXLY_CORRECT");
	cr_assert_str_eq(out, "--quiet", "POSIXLY_CORRECT does not stop the options at the first operand");
}

Test(cli, refusals)
{
	char out[256];
	const char *op;

	cr_assert_eq(run("--quiet=yes", false, out, sizeof out, &op), 2);
	cr_assert_eq(run("--port", false, out, sizeof out, &op), 2);
	cr_assert_eq(run("--nope", false, out, sizeof out, &op), 2);
	cr_assert_eq(run("-x", false, out, sizeof out, &op), 2);
	cr_assert_eq(run("-h", false, out, sizeof out, &op), -1);
	cr_assert_str_eq(out, "--help");
	cr_assert_eq(run("--vers", false, out, sizeof out, &op), 0, "--version (abbreviated) prints and ends");
}

Test(cli, refusals_say_why_with_the_command_name, .init = NULL)
{
	char out[256];
	const char *op;

	cr_redirect_stderr();
	cr_assert_eq(run("--pass", false, out, sizeof out, &op), 2);
	fflush(stderr);
	cr_assert_stderr_eq_str("wizwar demo: '--pass' is ambiguous: --password --password-file\n" "usage: wizwar demo [--port P] [--password[=PW]] [--password-file F] [--quiet] [--list [DIR]]\n"
	                        "                   [--view 1|2|all] [--seed S] HOST\n");
}

/* The resume command printed when a host stops reads the argv cli_args made: a password given as
 * --password=PW (the only way to give one) is never printed, only --password, which asks. */
Test(cli, the_resume_line_keeps_a_password_out)
{
	char line[512];
	static char w0[] = "--password=sesame", w1[] = "--name", w2[] = "Jo";
	char *argv[] = { w0, w1, w2, NULL };

	cmd_net_resume_line(line, sizeof line, "host", 3, argv, 7000, "/tmp/x.log");
	cr_assert_null(strstr(line, "sesame"), "%s", line);
	cr_assert_not_null(strstr(line, " --password"), "%s", line);
	cr_assert_not_null(strstr(line, "Jo"), "%s", line);
}
