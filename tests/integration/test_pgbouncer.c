/*
 * pgbouncer (`./scripts/test --pgbouncer`): the whole suite runs with pgbouncer in pool_mode = transaction between
 * the confab programs and PostgreSQL and pg_prepared_statements = off. These tests prove that pgbouncer really is
 * in the path (its admin console counts the API's transactions and lists the workers and the reaper as its
 * clients), that the setting is no no-op (named statements through it fail), and that its socket is as closed as
 * PostgreSQL's. Without CONFAB_PGBOUNCER=1 (the plain run) they have nothing to check and say so.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "itest.h"

static bool through_pgbouncer(void)
{
	const char *v = getenv("CONFAB_PGBOUNCER");
	if (v != NULL && strcmp(v, "1") == 0)
		return true;
	printf("(no pgbouncer in this run) ");
	return false;
}

/* Runs cmd through sh (stderr with stdout); its output, and its exit status in *status. */
static char *run(const char *cmd, int *status)
{
	fflush(NULL);
	FILE *f = popen(fmt("%s 2>&1", cmd), "r");
	REQUIRE(f != NULL, "popen failed");
	size_t cap = 4096, len = 0;
	char *out = malloc(cap);
	for (size_t n; out != NULL && (n = fread(out + len, 1, cap - len - 1, f)) > 0;) {
		len += n;
		if (cap - len < 2)
			out = realloc(out, cap *= 2); /* (a failure ends the loop; REQUIRE below) */
	}
	int st = pclose(f);
	REQUIRE(out != NULL, "out of memory");
	keep(out);
	out[len] = '\0';
	*status = WIFEXITED(st) ? WEXITSTATUS(st) : 128;
	return out;
}

/* A SHOW command on pgbouncer's admin console: its rows (header first, '|'-separated), one a line. */
static char *admin(const char *show)
{
	const char *cmd = getenv("CONFAB_PGBOUNCER_ADMIN");
	REQUIRE(cmd != NULL && *cmd != '\0', "CONFAB_PGBOUNCER_ADMIN is not set");
	int status;
	char *out = run(fmt("%s -P tuples_only=off -c '%s'", cmd, show), &status);
	REQUIRE(status == 0, "%s on the pgbouncer admin console failed: %s", show, out);
	return out;
}

/* Field i (from 0) of the '|'-separated line (up to its end), copied; "" if it has fewer. */
static char *field(const char *line, int i)
{
	for (; i > 0 && line != NULL; i--) {
		line = strpbrk(line, "|\n");
		line = line != NULL && *line == '|' ? line + 1 : NULL;
	}
	return fmt("%.*s", line ? (int)strcspn(line, "|\n") : 0, line ? line : "");
}

/* The index of column name in the header line of out; fatal if absent. */
static int column(const char *out, const char *name)
{
	for (int i = 0;; i++) {
		char *f = field(out, i);
		REQUIRE(*f != '\0', "no column %s in: %.300s", name, out);
		if (strcmp(f, name) == 0)
			return i;
	}
}

/* total_xact_count of the database confab in SHOW STATS. */
static long long confab_xacts(void)
{
	char *out = admin("SHOW STATS");
	int col = column(out, "total_xact_count");
	for (const char *l = strchr(out, '\n'); l != NULL; l = strchr(l, '\n')) {
		l++;
		if (strcmp(field(l, 0), "confab") == 0)
			return atoll(field(l, col));
	}
	REQUIRE(false, "SHOW STATS has no row for the database confab: %s", out);
	return 0;
}

/* The API's transactions go through pgbouncer: its counter of them moves with the requests. */
static void test_counts_the_api_transactions(void)
{
	if (!through_pgbouncer())
		return;
	long long before = confab_xacts(), after = before;
	for (int i = 0; i < 10; i++)
		EXPECT_SUCCESS(api_get(&itest_owner, "/users/me"));
	/* The totals are those of pgbouncer's last stats period (stats_period = 1 here). */
	for (int i = 0; i < 50 && after < before + 10; i++) {
		usleep(100000);
		after = confab_xacts();
	}
	CHECK(after >= before + 10, "pgbouncer counted %lld transactions for 10 GET /users/me (from %lld to %lld)",
	      after - before, before, after);
}

/* Its clients on the database confab are the workers and the reaper (the processes at the socket's other end). */
static void test_workers_and_reaper_are_its_clients(void)
{
	if (!through_pgbouncer())
		return;
	char *out = admin("SHOW CLIENTS");
	int db = column(out, "database"), pid = column(out, "remote_pid");
	int workers = 0, reapers = 0;
	for (const char *l = strchr(out, '\n'); l != NULL; l = strchr(l, '\n')) {
		l++;
		if (strcmp(field(l, db), "confab") != 0)
			continue;
		char comm[64] = "";
		FILE *f = fopen(fmt("/proc/%s/comm", field(l, pid)), "r");
		if (f != NULL) {
			if (fgets(comm, sizeof(comm), f) == NULL)
				comm[0] = '\0';
			fclose(f);
		}
		workers += strncmp(comm, "confab-worker", 13) == 0;
		reapers += strncmp(comm, "confab-reaper", 13) == 0;
	}
	CHECK(workers > 0 && reapers > 0, "pgbouncer's clients include %d worker and %d reaper connections: %s", workers,
	      reapers, out);
}

/*
 * pg_prepared_statements = on through a transaction pooler breaks: a named statement lives in the server session
 * that prepared it, and the next client (or transaction) on that session finds it there ("already exists") or
 * another session lacks it. confabctl, the same build, fails with it on and works with it off.
 */
static void test_prepared_statements_break_it(void)
{
	if (!through_pgbouncer())
		return;
	const char *ctl = getenv("CONFAB_CTL");
	REQUIRE(ctl != NULL && *ctl != '\0', "CONFAB_CTL is not set");
	int status;
	for (int i = 0; i < 3; i++) {
		char *out = run(fmt("CONFAB_PG_PREPARED_STATEMENTS=off %s show-realm --subdomain ''", ctl), &status);
		CHECK(status == 0, "confabctl show-realm with pg_prepared_statements = off: exit %d, %s", status, out);
	}
	int failed = 0;
	char *last = "";
	for (int i = 0; i < 6; i++) {
		last = run(fmt("CONFAB_PG_PREPARED_STATEMENTS=on %s show-realm --subdomain ''", ctl), &status);
		failed += status != 0 && strstr(last, "prepared statement") != NULL; /* (quotes escaped in the log line) */
	}
	CHECK(failed > 0, "pg_prepared_statements = on through pgbouncer never failed in 6 runs; last: %s", last);
	printf("(%d of 6 runs with prepared statements failed) ", failed);
}

/* Only the service's user confab (and root) open pgbouncer's socket, as for PostgreSQL's (access:*): not www-data,
 * which the machine's other sites share, nor nobody. */
static void test_nobody_cannot_open_it(void)
{
	if (!through_pgbouncer())
		return;
	const char *cmd = getenv("CONFAB_PGBOUNCER_ADMIN");
	REQUIRE(cmd != NULL && *cmd != '\0', "CONFAB_PGBOUNCER_ADMIN is not set");
	int status;
	char *out = run(fmt("cd / && runuser -u confab -- %s -c 'SHOW VERSION'", cmd), &status);
	CHECK(status == 0 && strstr(out, "PgBouncer") != NULL, "confab cannot open pgbouncer: exit %d, %s", status, out);
	static const char *const others[] = {"www-data", "nobody"};
	for (size_t i = 0; i < sizeof(others) / sizeof(*others); i++) {
		out = run(fmt("cd / && runuser -u %s -- %s -c 'SHOW VERSION'", others[i], cmd), &status);
		CHECK(status != 0 && strstr(out, "Permission denied") != NULL, "user %s opened pgbouncer: exit %d, %s",
		      others[i], status, out);
	}
}

void register_pgbouncer_tests(void)
{
	static const struct itest_case cases[] = {
	    {"counts_the_api_transactions", test_counts_the_api_transactions},
	    {"workers_and_reaper_are_its_clients", test_workers_and_reaper_are_its_clients},
	    {"prepared_statements_break_it", test_prepared_statements_break_it},
	    {"nobody_cannot_open_it", test_nobody_cannot_open_it},
	    {NULL, NULL},
	};
	itest_add_suite("pgbouncer", cases);
}
