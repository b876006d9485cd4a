/* core/config.h: the database keys pg_prepared_statements (on|off) and pg_listen_conninfo, from file and
 * environment, and the event queues' bounds. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/config.h"
#include "unit.h"

/* Loads a configuration file of text (NULL: none); returns config_load's result, the error in err. */
static int load(struct config *cfg, const char *text, char *err, size_t errlen)
{
	char path[] = "/tmp/confab-unit-config.XXXXXX";
	int fd = mkstemp(path);
	CU_ASSERT_FATAL(fd >= 0);
	FILE *f = fdopen(fd, "w");
	fputs(text ? text : "", f);
	fclose(f);
	int rc = config_load(cfg, path, err, errlen);
	unlink(path);
	return rc;
}

static void test_prepared_statements_default_on(void)
{
	struct config cfg;
	char err[256];
	unsetenv("CONFAB_PG_PREPARED_STATEMENTS");
	unsetenv("CONFAB_PG_LISTEN_CONNINFO");
	CU_ASSERT_EQUAL_FATAL(load(&cfg, "pg_conninfo = dbname=x\n", err, sizeof(err)), 0);
	CU_ASSERT_TRUE(cfg.pg_prepared_statements);
	/* No listen conninfo of its own: the ordinary one. */
	CU_ASSERT_STRING_EQUAL(config_listen_conninfo(&cfg), "dbname=x");
	config_free(&cfg);
}

static void test_prepared_statements_values(void)
{
	static const struct {
		const char *text;
		int want; /* -1: refused */
	} cases[] = {
	    {"off", 0}, {"on", 1}, {"OFF", 0}, {"false", 0}, {"no", 0}, {"0", 0}, {"true", 1}, {"yes", 1}, {"1", 1},
	    {"", -1},   {"of", -1}, {"2", -1}, {"onn", -1},
	};
	unsetenv("CONFAB_PG_PREPARED_STATEMENTS");
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct config cfg;
		char err[256] = "", text[128];
		snprintf(text, sizeof(text), "pg_prepared_statements = %s\n", cases[i].text);
		int rc = load(&cfg, text, err, sizeof(err));
		if (cases[i].want < 0) {
			CU_ASSERT_EQUAL(rc, -1);
			CU_ASSERT_PTR_NOT_NULL(strstr(err, "pg_prepared_statements"));
		} else {
			CU_ASSERT_EQUAL(rc, 0);
			CU_ASSERT_EQUAL(cfg.pg_prepared_statements, cases[i].want);
		}
		config_free(&cfg);
	}
}

/* The environment wins over the file, as for every key. */
static void test_environment_wins(void)
{
	struct config cfg;
	char err[256];
	setenv("CONFAB_PG_PREPARED_STATEMENTS", "off", 1);
	setenv("CONFAB_PG_LISTEN_CONNINFO", "host=/direct dbname=x", 1);
	CU_ASSERT_EQUAL_FATAL(load(&cfg, "pg_conninfo = port=6432\npg_prepared_statements = on\n", err, sizeof(err)), 0);
	CU_ASSERT_FALSE(cfg.pg_prepared_statements);
	CU_ASSERT_STRING_EQUAL(config_listen_conninfo(&cfg), "host=/direct dbname=x");
	CU_ASSERT_STRING_EQUAL(cfg.pg_conninfo, "port=6432");
	config_free(&cfg);
	setenv("CONFAB_PG_PREPARED_STATEMENTS", "sometimes", 1);
	CU_ASSERT_EQUAL(load(&cfg, NULL, err, sizeof(err)), -1);
	config_free(&cfg);
	unsetenv("CONFAB_PG_PREPARED_STATEMENTS");
	unsetenv("CONFAB_PG_LISTEN_CONNINFO");
}

/* The event queues' bounds (docs/LIMITS.md, "Event queues"): their defaults, and long_polls off from the environment
 * (as scripts/lib.sh and the systemd unit start the api group). */
static void test_event_queue_bounds(void)
{
	struct config cfg;
	char err[256];
	unsetenv("CONFAB_LONG_POLLS");
	CU_ASSERT_EQUAL_FATAL(load(&cfg, NULL, err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(cfg.event_queues_per_user, 50);
	CU_ASSERT_EQUAL(cfg.event_queue_max_events, 10000);
	CU_ASSERT_EQUAL(cfg.event_queue_max_bytes, 4 * 1024 * 1024);
	CU_ASSERT_EQUAL(cfg.event_queue_max_idle_secs, 7 * 24 * 3600);
	CU_ASSERT_TRUE(cfg.long_polls);
	config_free(&cfg);
	setenv("CONFAB_LONG_POLLS", "off", 1);
	CU_ASSERT_EQUAL_FATAL(load(&cfg, "event_queues_per_user = 0\n", err, sizeof(err)), 0);
	CU_ASSERT_FALSE(cfg.long_polls);
	CU_ASSERT_EQUAL(cfg.event_queues_per_user, 0);
	config_free(&cfg);
	unsetenv("CONFAB_LONG_POLLS");
}

int main(void)
{
	static const struct unit_test tests[] = {
	    {"prepared_statements_default_on", test_prepared_statements_default_on},
	    {"prepared_statements_values", test_prepared_statements_values},
	    {"environment_wins", test_environment_wins},
	    {"event_queue_bounds", test_event_queue_bounds},
	    {NULL, NULL},
	};
	return unit_run("config", tests);
}
