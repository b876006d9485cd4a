/* core/metrics: one slot per process in a group's file, summed by metrics_read(); dead processes' slots reused. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/buf.h"
#include "core/metrics.h"
#include "unit.h"

static char dir[64];

static void fresh_dir(void)
{
	snprintf(dir, sizeof(dir), "/tmp/confab-metrics-test.XXXXXX");
	CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(dir));
}

static void remove_dir(void)
{
	char cmd[128];
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	CU_ASSERT_EQUAL(system(cmd), 0);
}

/* The figures of group name (NULL if absent) among the n read. */
static const struct metrics_group *group(const struct metrics_group *g, int n, const char *name)
{
	for (int i = 0; i < n; i++)
		if (strcmp(g[i].name, name) == 0)
			return &g[i];
	return NULL;
}

/* In a child process: takes a slot of group, counts, holds a poll, and exits without closing (as kill -9 would). */
static void child_counts(const char *name)
{
	pid_t pid = fork();
	if (pid == 0) {
		struct metrics *m = metrics_open(dir, name, 3, 42);
		metrics_add(m, M_EVENTS_SERVED, 5);
		metrics_add(m, M_POLLS_HELD, 1);
		metrics_request(m, 1, 200, 0.02);
		_exit(m == NULL ? 1 : 0);
	}
	int status;
	CU_ASSERT_EQUAL(waitpid(pid, &status, 0), pid);
	CU_ASSERT(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

static void test_slots_summed_across_processes(void)
{
	fresh_dir();
	struct metrics *m = metrics_open(dir, "api", 3, 42);
	CU_ASSERT_PTR_NOT_NULL_FATAL(m);
	metrics_add(m, M_EVENTS_SERVED, 2);
	metrics_add(m, M_POLLS_HELD, 1);
	metrics_request(m, 1, 200, 0.003);
	metrics_request(m, -1, 404, 0.0);
	metrics_request(m, 2, 299, 100.0);
	child_counts("api");
	struct metrics_group *g;
	int n;
	CU_ASSERT_EQUAL_FATAL(metrics_read(dir, 3, 42, &g, &n), 0);
	const struct metrics_group *api = group(g, n, "api");
	CU_ASSERT_PTR_NOT_NULL_FATAL(api);
	/* Counters of the dead child count; its gauge and its process do not. */
	CU_ASSERT_EQUAL(api->v[M_EVENTS_SERVED], 7);
	CU_ASSERT_EQUAL(api->v[M_POLLS_HELD], 1);
	CU_ASSERT_EQUAL(api->processes, 1);
	CU_ASSERT_EQUAL_FATAL(api->nroutes, 3);
	CU_ASSERT_EQUAL(api->requests[1 * (METRICS_NSTATUS + 1) + 0], 2);                /* route 1, 200 */
	CU_ASSERT_EQUAL(api->requests[3 * (METRICS_NSTATUS + 1) + 9], 1);                /* no route, 404 */
	CU_ASSERT_EQUAL(api->requests[2 * (METRICS_NSTATUS + 1) + METRICS_NSTATUS], 1); /* 299: "other" */
	CU_ASSERT_EQUAL(api->buckets[1 * (METRICS_NBUCKETS + 1) + 0], 1);                /* 3 ms: le 0.005 */
	CU_ASSERT_EQUAL(api->buckets[1 * (METRICS_NBUCKETS + 1) + 2], 1);                /* 20 ms: le 0.025 */
	CU_ASSERT_EQUAL(api->buckets[2 * (METRICS_NBUCKETS + 1) + METRICS_NBUCKETS], 1); /* 100 s: +Inf */
	CU_ASSERT_EQUAL(api->sum_usec[1], 23000);
	metrics_groups_free(g, n);
	/* A reader of another route table gets the counters but no per-route figures. */
	CU_ASSERT_EQUAL_FATAL(metrics_read(dir, 3, 43, &g, &n), 0);
	CU_ASSERT_EQUAL(group(g, n, "api")->v[M_EVENTS_SERVED], 7);
	CU_ASSERT_EQUAL(group(g, n, "api")->nroutes, 0);
	CU_ASSERT_PTR_NULL(group(g, n, "api")->requests);
	metrics_groups_free(g, n);
	metrics_close(m);
	remove_dir();
}

static void test_dead_slot_reused_counters_go_on(void)
{
	fresh_dir();
	child_counts("events");
	child_counts("events"); /* takes the first child's slot: counters go on from 5 */
	struct metrics_group *g;
	int n;
	CU_ASSERT_EQUAL_FATAL(metrics_read(dir, 3, 42, &g, &n), 0);
	CU_ASSERT_EQUAL_FATAL(n, 1);
	CU_ASSERT_STRING_EQUAL(g[0].name, "events");
	CU_ASSERT_EQUAL(g[0].v[M_EVENTS_SERVED], 10);
	CU_ASSERT_EQUAL(g[0].processes, 0);
	CU_ASSERT_EQUAL(g[0].v[M_POLLS_HELD], 0);
	metrics_groups_free(g, n);
	/* A binary of another layout replaces the file: its counters start again (a counter reset). */
	struct metrics *m = metrics_open(dir, "events", 4, 7);
	CU_ASSERT_PTR_NOT_NULL_FATAL(m);
	CU_ASSERT_EQUAL_FATAL(metrics_read(dir, 4, 7, &g, &n), 0);
	CU_ASSERT_EQUAL(g[0].v[M_EVENTS_SERVED], 0);
	CU_ASSERT_EQUAL(g[0].processes, 1);
	metrics_groups_free(g, n);
	metrics_close(m);
	remove_dir();
}

static void test_label_value_escaped(void)
{
	struct buf b;
	buf_init(&b, 0);
	metrics_label_value(&b, "a\\b\"c\nd/{e}");
	CU_ASSERT_STRING_EQUAL(buf_str(&b), "a\\\\b\\\"c\\nd/{e}");
	buf_release(&b);
}

static void test_off_and_bad_names(void)
{
	CU_ASSERT_PTR_NULL(metrics_open("", "api", 3, 42));
	metrics_add(NULL, M_EVENTS_SERVED, 1); /* no-ops */
	metrics_request(NULL, 0, 200, 0.1);
	fresh_dir();
	CU_ASSERT_PTR_NULL(metrics_open(dir, "../api", 3, 42));
	CU_ASSERT_PTR_NULL(metrics_open(dir, "", 3, 42));
	CU_ASSERT(metrics_group_name_ok("events-2"));
	CU_ASSERT(!metrics_group_name_ok("Api"));
	remove_dir();
}

int main(void)
{
	static const struct unit_test tests[] = {
	    {"slots_summed_across_processes", test_slots_summed_across_processes},
	    {"dead_slot_reused_counters_go_on", test_dead_slot_reused_counters_go_on},
	    {"label_value_escaped", test_label_value_escaped},
	    {"off_and_bad_names", test_off_and_bad_names},
	    {NULL, NULL},
	};
	return unit_run("metrics", tests);
}
