/*
 * Operations (issue 18): the logs and the send -> receive health probe.
 *
 * "ops": every line the workers and the reaper write is strict logfmt (ts, level, proc, pid, msg first; values
 * escaped so that hostile paths and user agents can forge neither a line nor a field); SIGUSR1 to a worker, or
 * SIGUSR2 to the confab-supervise of a group, reopens the log file after a rename (logrotate); `confabctl probe`
 * answers OK with a latency through nginx, the workers and Redis, WARNING over its threshold, and CRITICAL when
 * Redis is down or nothing answers at its URL.
 *
 * Needs CONFAB_RUN_DIR (api.pid, events.pid and reaper.pid name each group's confab-supervise; the log file of a
 * process is its CONFAB_LOG_FILE), CONFAB_CTL, CONFAB_STOP_REDIS and CONFAB_START_REDIS.
 */
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "itest.h"
#include "procs.h"

#define MAX_KIDS   16
#define MAX_FIELDS 32

/* ---- processes ---------------------------------------------------------------------------------------------- */

/* Waits up to secs seconds until path holds text; true if it does. */
static bool wait_for_text(const char *path, const char *text, int secs)
{
	for (int i = 0; i < secs * 20; i++) {
		if (strstr(file_text(path), text) != NULL)
			return true;
		usleep(50000);
	}
	return false;
}

/* ---- a strict logfmt parser --------------------------------------------------------------------------------- */

struct field {
	char key[32];
	char *val; /* decoded, NUL-terminated (freed after the test) */
	size_t len;
};

static int hexval(char c)
{
	return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/* n lowercase hex digits at s as a number, or -1. */
static long hexnum(const char *s, int n)
{
	long v = 0;
	for (int i = 0; i < n; i++) {
		int d = hexval(s[i]);
		if (d < 0)
			return -1;
		v = v * 16 + d;
	}
	return v;
}

static size_t put_utf8(char *out, long cp)
{
	if (cp < 0x80)
		return out[0] = (char)cp, 1;
	if (cp < 0x800)
		return out[0] = (char)(0xc0 | (cp >> 6)), out[1] = (char)(0x80 | (cp & 0x3f)), 2;
	if (cp < 0x10000)
		return out[0] = (char)(0xe0 | (cp >> 12)), out[1] = (char)(0x80 | ((cp >> 6) & 0x3f)),
		       out[2] = (char)(0x80 | (cp & 0x3f)), 3;
	return out[0] = (char)(0xf0 | (cp >> 18)), out[1] = (char)(0x80 | ((cp >> 12) & 0x3f)),
	       out[2] = (char)(0x80 | ((cp >> 6) & 0x3f)), out[3] = (char)(0x80 | (cp & 0x3f)), 4;
}

/* A quoted value at *s (after the opening quote) decoded into out; advances *s past the closing quote. */
static bool parse_quoted(const char **s, char *out, size_t *len)
{
	const char *p = *s;
	size_t n = 0;
	static const char simple[] = "\"\"\\\\n\nr\rt\t";
	for (;;) {
		unsigned char c = (unsigned char)*p;
		if (c == '"')
			break;
		if (c < 0x20 || c == 0x7f)
			return false; /* end of line or a raw control character */
		if (c != '\\') {
			out[n++] = (char)c;
			p++;
			continue;
		}
		const char *e = strchr(simple, p[1]);
		long v;
		if (p[1] != '\0' && e != NULL && (e - simple) % 2 == 0)
			out[n++] = e[1], p += 2;
		else if (p[1] == 'u' && (v = hexnum(p + 2, 4)) >= 0)
			n += put_utf8(out + n, v), p += 6;
		else if (p[1] == 'U' && (v = hexnum(p + 2, 8)) >= 0 && v <= 0x10ffff)
			n += put_utf8(out + n, v), p += 10;
		else if (p[1] == 'x' && (v = hexnum(p + 2, 2)) >= 0x80)
			out[n++] = (char)v, p += 4;
		else
			return false;
	}
	*s = p + 1;
	out[n] = '\0';
	*len = n;
	return true;
}

/*
 * Parses one line (without its newline): key=value pairs separated by one space, keys [a-z_]+ and unique, values
 * bare (printable ASCII but '"', '=', '\') or quoted (escapes \" \\ \n \r \t \uXXXX \UXXXXXXXX \xXX, no raw
 * control character). The first five keys are ts, level, proc, pid, msg. Returns the number of fields, or -1.
 */
static int logfmt_parse(const char *line, struct field *f, int max)
{
	static const char *first[] = {"ts", "level", "proc", "pid", "msg"};
	int n = 0;
	const char *s = line;
	while (*s != '\0') {
		if (n == max || (n > 0 && *s++ != ' '))
			return -1;
		size_t k = strspn(s, "abcdefghijklmnopqrstuvwxyz_");
		if (k == 0 || k >= sizeof(f[n].key) || s[k] != '=')
			return -1;
		memcpy(f[n].key, s, k);
		f[n].key[k] = '\0';
		for (int i = 0; i < n; i++)
			if (strcmp(f[i].key, f[n].key) == 0)
				return -1;
		if (n < 5 && strcmp(f[n].key, first[n]) != 0)
			return -1;
		s += k + 1;
		f[n].val = keep(malloc(strlen(s) * 4 + 1));
		if (*s == '"') {
			s++;
			if (!parse_quoted(&s, f[n].val, &f[n].len))
				return -1;
		} else {
			size_t b = 0;
			while (s[b] > 0x20 && s[b] < 0x7f && s[b] != '"' && s[b] != '=' && s[b] != '\\')
				b++;
			if (b == 0 || (s[b] != ' ' && s[b] != '\0'))
				return -1;
			memcpy(f[n].val, s, b);
			f[n].val[b] = '\0';
			f[n].len = b;
			s += b;
		}
		n++;
	}
	return n >= 5 ? n : -1;
}

static const char *field(const struct field *f, int n, const char *key)
{
	for (int i = 0; i < n; i++)
		if (strcmp(f[i].key, key) == 0)
			return f[i].val;
	return NULL;
}

/* The ts, level and pid values are well-formed. */
static bool header_ok(const struct field *f)
{
	int y, mo, d, h, mi, s, ms, end = 0;
	static const char *levels = " debug info warning error fatal ";
	return strlen(f[0].val) == 24 &&
	       sscanf(f[0].val, "%4d-%2d-%2dT%2d:%2d:%2d.%3dZ%n", &y, &mo, &d, &h, &mi, &s, &ms, &end) == 7 &&
	       end == 24 && strstr(levels, fmt(" %s ", f[1].val)) != NULL && *f[1].val != '\0' &&
	       strspn(f[3].val, "0123456789") == strlen(f[3].val);
}

/*
 * Parses every complete line of path; a line that is not strict logfmt fails the test. Returns the number of lines;
 * with want_path, *found gets the fields of the access line whose path is want_path (freed after the test).
 */
static int check_log(const char *path, const char *want_path, struct field **found, int *nfound)
{
	char *text = file_text(path);
	int lines = 0;
	for (char *line = text, *nl; (nl = strchr(line, '\n')) != NULL; line = nl + 1) {
		*nl = '\0';
		struct field *f = keep(calloc(MAX_FIELDS, sizeof(*f)));
		int n = logfmt_parse(line, f, MAX_FIELDS);
		lines++;
		CHECK(n >= 5 && header_ok(f), "%s: line %d is not strict logfmt: %s", path, lines, line);
		if (n >= 5 && want_path != NULL && strcmp(f[4].val, "access") == 0 &&
		    strcmp(field(f, n, "path") ? field(f, n, "path") : "", want_path) == 0) {
			*found = f;
			*nfound = n;
		}
	}
	return lines;
}

/* ---- log tests ---------------------------------------------------------------------------------------------- */

/* Requests with hostile paths and user agents: every line of every log stays strict logfmt, the fields exact. */
static void test_logfmt_hostile(void)
{
	pid_t kids[MAX_KIDS];
	REQUIRE(proc_children(group_supervisor("api"), "confab-worker", kids, MAX_KIDS) > 0, "no api worker");
	const char *log = proc_log_file(kids[0]);
	char *tag = unique_email("log");
	*strchr(tag, '@') = '\0';
	/* As nginx decodes it into DOCUMENT_URI: a forged field and line, CR, an ANSI escape, a backslash, a byte
	 * that is not UTF-8, U+2028 (a line separator to some viewers), and a plain é. */
	const char *enc = "/a%20b%22c%3Dd%0ats=2026-01-01T00:00:00.000Z%20level=error%20forged=1%0d%1b%5b31mred%5c%ff"
	                  "%e2%80%a8%c3%a9";
	const char *dec = "/a b\"c=d\nts=2026-01-01T00:00:00.000Z level=error forged=1\r\x1b[31mred\\\xff"
	                  "\xe2\x80\xa8\xc3\xa9";
	const char *ua = "Mozilla/5.0 \"quoted\" key=value \x1b[2J\ttab \\ \xfe end";
	struct resp *r = http(&(struct request){.path = fmt("/api/v1/ops-%s%s", tag, enc),
	                                        .headers = (const char *const[]){fmt("User-Agent: %s", ua), NULL}});
	REQUIRE(r->status > 0, "no answer to the hostile path");
	const char *want = fmt("/api/v1/ops-%s%s", tag, dec);
	struct field *f = NULL;
	int n = 0;
	for (int i = 0; i < 40 && f == NULL; i++) {
		if (i > 0)
			usleep(50000);
		f = NULL;
		check_log(log, want, &f, &n);
	}
	REQUIRE(f != NULL, "no access line with the decoded hostile path in %s", log);
	{
		const char *expect[][2] = {{"level", "info"},
		                           {"proc", "confab-worker"},
		                           {"method", "GET"},
		                           {"user_agent", ua},
		                           {"remote_addr", "127.0.0.1"},
		                           {"user", "0"},
		                           {"status", fmt("%ld", r->status)}};
		for (size_t i = 0; i < sizeof(expect) / sizeof(expect[0]); i++) {
			const char *got = field(f, n, expect[i][0]);
			CHECK(got != NULL && strcmp(got, expect[i][1]) == 0, "%s: got \"%s\", expected \"%s\"",
			      expect[i][0], got ? got : "(absent)", expect[i][1]);
		}
	}
	const char *dur = field(f, n, "duration_ms");
	CHECK(dur != NULL && strspn(dur, "0123456789.") == strlen(dur), "duration_ms: %s", dur ? dur : "(absent)");
	/* A long path is cut, the fields after it stay. */
	char *longp = fmt("/api/v1/ops-%s-long/%s", tag, repeat('x', 3000));
	r = http(&(struct request){.path = longp});
	REQUIRE(r->status > 0, "no answer to the long path");
	longp[512] = '\0';
	f = NULL;
	for (int i = 0; i < 40 && f == NULL; i++) {
		if (i > 0)
			usleep(50000);
		check_log(log, fmt("%s...", longp), &f, &n);
	}
	REQUIRE(f != NULL, "no access line with the long path cut at 512 bytes in %s", log);
	CHECK(field(f, n, "status") && strcmp(field(f, n, "status"), fmt("%ld", r->status)) == 0 &&
	          field(f, n, "user_agent") != NULL,
	      "the fields after the long path are missing");
	/* The other logs of the stack too: the events group and the reaper. */
	REQUIRE(proc_children(group_supervisor("events"), "confab-worker", kids, MAX_KIDS) > 0, "no events worker");
	check_log(proc_log_file(kids[0]), NULL, NULL, NULL);
	REQUIRE(proc_children(group_supervisor("reaper"), "confab-reaper", kids, MAX_KIDS) > 0, "no reaper");
	check_log(proc_log_file(kids[0]), NULL, NULL, NULL);
}

/* Renames the log of the processes, signals them (to, sig), waits for each one's "log file reopened" in the new
 * file; then a request (api only) lands in the new file and not in the renamed one. */
static void reopen_case(const char *group, const char *prog, bool via_supervisor, int sig)
{
	pid_t sup = group_supervisor(group), kids[MAX_KIDS];
	int n = proc_children(sup, prog, kids, MAX_KIDS);
	REQUIRE(n > 0, "no %s under the %s supervisor", prog, group);
	const char *log = proc_log_file(kids[0]);
	const char *old = fmt("%s.itest-%ld", log, (long)time(NULL));
	/* As logrotate does (create): rename, then a new file of the same owner and mode (the log directory is not
	 * the workers' to write in). */
	struct stat st;
	REQUIRE(stat(log, &st) == 0 && rename(log, old) == 0, "cannot rename %s", log);
	int fd = open(log, O_WRONLY | O_CREAT | O_EXCL, st.st_mode & 07777);
	REQUIRE(fd >= 0 && fchown(fd, st.st_uid, st.st_gid) == 0, "cannot create %s", log);
	close(fd);
	if (via_supervisor)
		REQUIRE(kill(sup, sig) == 0, "kill %d failed", (int)sup);
	for (int i = 0; i < n && !via_supervisor; i++)
		REQUIRE(kill(kids[i], sig) == 0, "kill %d failed", (int)kids[i]);
	for (int i = 0; i < n; i++)
		CHECK(wait_for_text(log, fmt("pid=%d msg=\"log file reopened\"", (int)kids[i]), 10),
		      "%s %d did not reopen %s after signal %d%s", prog, (int)kids[i], log, sig,
		      via_supervisor ? " to its supervisor" : "");
	pid_t now[MAX_KIDS];
	CHECK(group_supervisor(group) == sup && proc_children(sup, prog, now, MAX_KIDS) == n,
	      "the %s group changed on signal %d", group, sig);
	if (strcmp(group, "api") != 0)
		return;
	char *tag = unique_email("reopen");
	*strchr(tag, '@') = '\0';
	for (int i = 0; i < 2 * n; i++) /* likely to reach every worker */
		http(&(struct request){.path = fmt("/api/v1/ops-%s-%d", tag, i)});
	CHECK(wait_for_text(log, fmt("path=/api/v1/ops-%s-0 ", tag), 5), "the request is not in the new %s", log);
	CHECK(strstr(file_text(old), tag) == NULL, "a request after the reopen went to the renamed %s", old);
}

static void test_log_reopen_usr1(void)
{
	reopen_case("api", "confab-worker", false, SIGUSR1);
}

/* What conf/logrotate/confab does under spawn-fcgi and systemd: USR2 to confab-supervise, which passes it on. */
static void test_log_reopen_supervisor_usr2(void)
{
	reopen_case("api", "confab-worker", true, SIGUSR2);
	reopen_case("events", "confab-worker", true, SIGUSR2);
	reopen_case("reaper", "confab-reaper", true, SIGUSR2);
}

/* ---- confabctl probe ---------------------------------------------------------------------------------------- */

/* Runs `CONFAB_CTL probe --realm '' ARGS`; its output (freed after the test) and exit status. */
static char *probe(const char *args, int *status)
{
	const char *ctl = getenv("CONFAB_CTL");
	REQUIRE(ctl != NULL && *ctl != '\0', "CONFAB_CTL is not set");
	return command_output(fmt("%s probe --realm '' %s", ctl, args), status);
}

/* The latency of an answered probe line ("... | latency_ms=12.5;W;C;0"), or -1. */
static double probe_latency(const char *out)
{
	const char *p = strstr(out, "| latency_ms=");
	double ms = -1;
	if (p == NULL || sscanf(p, "| latency_ms=%lf;", &ms) != 1)
		return -1;
	return ms;
}

#define PROBE_BOT_SQL                                                                                                  \
	"FROM users WHERE full_name = 'Health probe' AND is_bot AND bot_type = 1 AND delivery_email LIKE "             \
	"'health-probe-bot@%%' AND realm_id = (SELECT realm_id FROM users WHERE id = %lld)"

/* OK with a latency, twice with the same bot, whose key is revoked and message deleted after each run; no human
 * sees anything of it. */
static void test_probe_ok(void)
{
	struct queue *owner = queue_register(&itest_owner, "event_types=%5B%22message%22%5D");
	for (int run = 1; run <= 2; run++) {
		int st;
		char *out = probe(fmt("--url %s", itest_url), &st);
		CHECK(st == 0, "run %d: exit status %d: %s", run, st, out);
		CHECK(strstr(out, fmt("CONFAB OK - message from %s delivered in ", itest_url)) == out, "run %d: %s",
		      run, out);
		CHECK(probe_latency(out) > 0 && strstr(out, ";1000;5000;0\n") != NULL, "run %d: perfdata: %s", run,
		      out);
	}
	long long realm = (long long)itest_owner.id;
	CHECK(strcmp(psql_ok("SELECT count(*) " PROBE_BOT_SQL, realm), "1") == 0, "not one probe bot");
	const char *bot = psql_ok("SELECT id " PROBE_BOT_SQL, realm);
	CHECK(strcmp(psql_ok("SELECT count(*) FROM api_keys WHERE user_id = %s", bot), "0") == 0,
	      "the probe's API keys were not revoked");
	CHECK(strcmp(psql_ok("SELECT count(*) FROM messages WHERE sender_id = %s", bot), "0") == 0,
	      "the probe's messages were not deleted");
	EXPECT_NO_EVENTS(owner);
}

/* Thresholds: over --warning WARNING (1), over --critical CRITICAL (2), with the latency in both. */
static void test_probe_thresholds(void)
{
	int st;
	char *out = probe(fmt("--url %s --warning 0", itest_url), &st);
	CHECK(st == 1 && strstr(out, "CONFAB WARNING - message from ") == out && strstr(out, "(warning over 0 ms)"),
	      "--warning 0: exit status %d: %s", st, out);
	CHECK(probe_latency(out) > 0 && strstr(out, ";0;5000;0\n") != NULL, "perfdata: %s", out);
	out = probe(fmt("--url %s --warning 0 --critical 0", itest_url), &st);
	CHECK(st == 2 && strstr(out, "CONFAB CRITICAL - message from ") == out && strstr(out, "(critical over 0 ms)"),
	      "--critical 0: exit status %d: %s", st, out);
	out = probe("--warning 2 --critical 1", &st);
	CHECK(st == 3 && strstr(out, "CONFAB UNKNOWN - ") == out, "--warning over --critical: %d: %s", st, out);
	out = probe("--timeout soon", &st);
	CHECK(st == 3, "a bad --timeout: exit status %d: %s", st, out);
}

/* --prometheus: the text format (a comment, then HELP, TYPE and value of each gauge), the same exit status. */
static void test_probe_prometheus(void)
{
	int st;
	char *out = probe(fmt("--url %s --prometheus", itest_url), &st);
	CHECK(st == 0 && strstr(out, "# CONFAB OK - message from ") == out, "exit status %d: %s", st, out);
	CHECK(strstr(out, "\n# TYPE confab_probe_success gauge\nconfab_probe_success 1\n") != NULL, "%s", out);
	CHECK(strstr(out, "\n# TYPE confab_probe_state gauge\nconfab_probe_state 0\n") != NULL, "%s", out);
	const char *lat = strstr(out, "\nconfab_probe_latency_seconds ");
	double secs = -1;
	CHECK(lat != NULL && sscanf(lat, "\nconfab_probe_latency_seconds %lf\n", &secs) == 1 && secs > 0, "%s", out);
	for (char *line = out, *nl; (nl = strchr(line, '\n')) != NULL; line = nl + 1) {
		*nl = '\0';
		CHECK(line[0] == '#' || strncmp(line, "confab_probe_", 13) == 0, "not a Prometheus line: %s", line);
	}
	out = probe("--url http://127.0.0.1:1 --timeout 5 --prometheus", &st);
	CHECK(st == 2 && strstr(out, "\nconfab_probe_success 0\n") && strstr(out, "\nconfab_probe_state 2\n") &&
	          strstr(out, "confab_probe_latency_seconds ") == NULL,
	      "nothing listening: exit status %d: %s", st, out);
}

/* Waits up to 30 s for a probe that answers OK again (the workers reconnect to Redis with backoff). */
static void expect_probe_recovers(void)
{
	int st = -1;
	char *out = NULL;
	for (int i = 0; i < 30 && st != 0; i++) {
		if (i > 0)
			sleep(1);
		out = probe(fmt("--url %s --timeout 5", itest_url), &st);
	}
	CHECK(st == 0, "the probe did not recover: %s", out);
}

/* Redis down: CRITICAL (2) with no latency, quickly; OK again once Redis is back. */
static void test_probe_redis_down(void)
{
	run_env_command("CONFAB_STOP_REDIS");
	int st;
	char *out = probe(fmt("--url %s --timeout 5", itest_url), &st);
	run_env_command("CONFAB_START_REDIS");
	CHECK(st == 2 && strstr(out, "CONFAB CRITICAL - register: HTTP 503 ") == out, "exit status %d: %s", st, out);
	CHECK(strstr(out, "| latency_ms=U;1000;5000;0\n") != NULL, "perfdata: %s", out);
	expect_probe_recovers();
}

/* Workers that do not answer (stopped): CRITICAL at the timeout; nothing listening at the URL: CRITICAL. */
static void test_probe_no_answer(void)
{
	pid_t kids[MAX_KIDS];
	int n = proc_children(group_supervisor("api"), "confab-worker", kids, MAX_KIDS);
	REQUIRE(n > 0, "no api worker");
	for (int i = 0; i < n; i++)
		kill(kids[i], SIGSTOP);
	int st;
	char *out = probe(fmt("--url %s --timeout 2", itest_url), &st);
	for (int i = 0; i < n; i++)
		kill(kids[i], SIGCONT);
	CHECK(st == 2 && strstr(out, "CONFAB CRITICAL - register: no answer within the timeout (2 s)") == out,
	      "stopped workers: exit status %d: %s", st, out);
	out = probe("--url http://127.0.0.1:1 --timeout 5", &st);
	CHECK(st == 2 && strstr(out, "CONFAB CRITICAL - register: ") == out && strstr(out, "latency_ms=U;"),
	      "nothing listening: exit status %d: %s", st, out);
	expect_probe_recovers();
}

void register_ops_tests(void)
{
	static const struct itest_case cases[] = {
	    {"log_reopen_usr1", test_log_reopen_usr1},
	    {"log_reopen_supervisor_usr2", test_log_reopen_supervisor_usr2},
	    {"logfmt_hostile", test_logfmt_hostile},
	    {"probe_ok", test_probe_ok},
	    {"probe_thresholds", test_probe_thresholds},
	    {"probe_prometheus", test_probe_prometheus},
	    {"probe_redis_down", test_probe_redis_down},
	    {"probe_no_answer", test_probe_no_answer},
	    {NULL, NULL},
	};
	itest_add_suite("ops", cases);
}
