/*
 * Faults of the running stack. "faults" (after "restarts"): a worker of either group and the reaper, killed with
 * SIGKILL under traffic, are replaced by their supervisor (confab-supervise) within seconds, and no request is lost
 * beyond those the killed process held; the reaper survives a Redis restart and logs an outage once. (What other
 * local users can open: test_access.c.)
 *
 * Needs CONFAB_RUN_DIR (the stack's run/ directory, where api.pid, events.pid and reaper.pid name each group's
 * confab-supervise; its children are found in /proc) and CONFAB_REDIS_CLI (redis-cli on the stack's socket).
 */
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "itest.h"
#include "procs.h"

#define MAX_KIDS    64
#define NPOSTERS    3 /* clients sending messages and reading /users/me (the api group) */
#define NPOLLERS    3 /* clients long-polling their queues (the events group) */
#define MAX_RECEIVE 4096

/* ---- processes ---------------------------------------------------------------------------------------------- */

/* The one process prog run by the supervisor of group. */
static pid_t only_child(const char *group, const char *prog)
{
	pid_t kids[MAX_KIDS];
	int n = proc_children(group_supervisor(group), prog, kids, MAX_KIDS);
	REQUIRE(n == 1, "%d %s processes under the %s supervisor, expected 1", n, prog, group);
	return kids[0];
}

/*
 * Waits up to 15 s until sup runs want processes prog again, killed not among them. Returns the one that is new,
 * or 0 (and *secs the time it took).
 */
static pid_t wait_replaced(pid_t sup, const char *prog, int want, pid_t killed, const pid_t *before, double *secs)
{
	double start = mono_secs();
	for (;;) {
		pid_t kids[MAX_KIDS], fresh = 0;
		int n = proc_children(sup, prog, kids, MAX_KIDS);
		bool has_killed = false;
		for (int i = 0; i < n; i++) {
			bool old = false;
			for (int j = 0; j < want; j++)
				old = old || kids[i] == before[j];
			has_killed = has_killed || kids[i] == killed;
			if (!old)
				fresh = kids[i];
		}
		*secs = mono_secs() - start;
		if (n == want && !has_killed && fresh != 0)
			return fresh;
		if (*secs > 15)
			return 0;
		usleep(50000);
	}
}

/* ---- traffic: clients in child processes, each reporting on a pipe ------------------------------------------- */

struct client_report {
	int ok, failed;
	int n;                    /* message ids acknowledged (posters) or received (pollers) */
	int64_t ids[MAX_RECEIVE]; /* in that order */
	char first_bad[400];
};

struct traffic {
	struct user *posters[NPOSTERS], *pollers[NPOLLERS];
	struct queue *queues[NPOLLERS];
	const char *channel, *topic;
	int stop_posters[2], stop_pollers[2];
	struct client clients[NPOSTERS + NPOLLERS];
	struct client_report report[NPOSTERS + NPOLLERS];
};

static void note_failure(struct client_report *rep, const struct resp *r)
{
	if (rep->failed++ == 0)
		snprintf(rep->first_bad, sizeof(rep->first_bad), "%s -> %ld %.300s", r->what, r->status, r->body);
}

static void poster(struct traffic *t, int k, struct client_report *rep)
{
	for (int i = 0; !stop_requested(t->stop_posters[0]); i++) {
		struct resp *r =
		    i % 2 ? api_get(t->posters[k], "/users/me")
		          : api_post(t->posters[k], "/messages",
		                     fmt("type=stream&to=%s&topic=%s&content=%s", url_encode(t->channel),
		                         url_encode(t->topic), url_encode(fmt("poster %d message %d", k, i))));
		if (r->status != 200 || r->json == NULL) {
			note_failure(rep, r);
		} else {
			rep->ok++;
			if (i % 2 == 0 && rep->n < MAX_RECEIVE)
				rep->ids[rep->n++] = jint(r->json, "id");
		}
		usleep(100000);
	}
}

/* Records the message ids of a GET /events answer; false if it was not a 200 with events. */
static bool receive(void *report, struct queue *q, const struct resp *r)
{
	struct client_report *rep = report;
	if (!receive_message_ids(q, r, rep->ids, &rep->n, MAX_RECEIVE)) {
		note_failure(rep, r);
		return false;
	}
	rep->ok++;
	return true;
}

static void poller(struct traffic *t, int k, struct client_report *rep)
{
	poll_until_stopped(t->queues[k], NULL, t->stop_pollers[0], receive, rep);
}

static void client_run(void *arg, int i, void *report)
{
	struct traffic *t = arg;
	if (i < NPOSTERS)
		poster(t, i, report);
	else
		poller(t, i - NPOSTERS, report);
}

/* Users, a channel they are all subscribed to, a queue per poller; then the clients. */
static void traffic_start(struct traffic *t)
{
	const char *ids = "";
	for (int i = 0; i < NPOSTERS; i++) {
		t->posters[i] = new_user("member");
		ids = fmt("%s,%lld", ids, (long long)t->posters[i]->id);
	}
	for (int i = 0; i < NPOLLERS; i++) {
		t->pollers[i] = new_user("member");
		ids = fmt("%s,%lld", ids, (long long)t->pollers[i]->id);
	}
	t->channel = fmt("faults %ld-%d", (long)time(NULL), (int)getpid());
	t->topic = "under traffic";
	struct resp *r =
	    api_post(t->posters[0], "/users/me/subscriptions",
	             fmt("subscriptions=%s&principals=%s", url_encode(fmt("[{\"name\":\"%s\"}]", t->channel)),
	                 url_encode(fmt("[%s]", ids + 1))));
	REQUIRE(r->status == 200, "creating channel %s: %s", t->channel, r->body);
	for (int i = 0; i < NPOLLERS; i++)
		t->queues[i] = queue_register(t->pollers[i], "event_types=%5B%22message%22%5D");
	REQUIRE(pipe(t->stop_posters) == 0 && pipe(t->stop_pollers) == 0, "pipe failed");
	int write_ends[2] = {t->stop_posters[1], t->stop_pollers[1]};
	for (int i = 0; i < NPOSTERS + NPOLLERS; i++)
		client_spawn(&t->clients[i], client_run, t, i, sizeof(t->report[i]), write_ends, 2);
	close(t->stop_posters[0]);
	close(t->stop_pollers[0]);
}

/* Reads the reports of clients first..last-1 (killing a client that hangs for 120 s) and reaps them. */
static void collect(struct traffic *t, int first, int last)
{
	for (int i = first; i < last; i++)
		CHECK(client_collect(&t->clients[i], &t->report[i], sizeof(t->report[i])),
		      "traffic client %d sent no report", i);
}

/* Stops the posters, then the pollers: a last message wakes the polls that wait, then each drains its queue. */
static void traffic_stop(struct traffic *t)
{
	close(t->stop_posters[1]);
	collect(t, 0, NPOSTERS);
	close(t->stop_pollers[1]);
	send_channel_message(t->posters[0], t->channel, t->topic, "last one");
	collect(t, NPOSTERS, NPOSTERS + NPOLLERS);
}

static bool has_id(const struct client_report *rep, int64_t id)
{
	for (int i = 0; i < rep->n; i++)
		if (rep->ids[i] == id)
			return true;
	return false;
}

/*
 * Failures of each kind of client within what was in flight (one request a client) where the killed process
 * served them, none elsewhere; every acknowledged message reached every poller (concurrent senders' messages may
 * commit, and so arrive, in another order than their ids).
 */
static void traffic_check(const struct traffic *t, int posters_may_fail, int pollers_may_fail)
{
	int failed[2] = {0, 0};
	for (int i = 0; i < NPOSTERS + NPOLLERS; i++) {
		const struct client_report *rep = &t->report[i];
		failed[i >= NPOSTERS] += rep->failed;
		printf("(%s %d: %d ok, %d failed) ", i < NPOSTERS ? "poster" : "poller", i, rep->ok, rep->failed);
		if (rep->failed > 0)
			printf("(first failure: %s) ", rep->first_bad);
		CHECK(rep->ok >= 3, "client %d got only %d answers", i, rep->ok);
	}
	CHECK(failed[0] <= posters_may_fail, "%d failed api requests, at most %d were in flight", failed[0],
	      posters_may_fail);
	CHECK(failed[1] <= pollers_may_fail, "%d failed long-polls, at most %d were in flight", failed[1],
	      pollers_may_fail);
	for (int p = NPOSTERS; p < NPOSTERS + NPOLLERS; p++) {
		for (int i = 0; i < NPOSTERS; i++)
			for (int j = 0; j < t->report[i].n; j++)
				CHECK(has_id(&t->report[p], t->report[i].ids[j]), "poller %d never got message %lld",
				      p - NPOSTERS, (long long)t->report[i].ids[j]);
	}
}

/* SIGKILL to one process prog of group while clients run; it must be replaced, and the clients served. */
static void kill_under_traffic(const char *group, const char *prog, int posters_may_fail, int pollers_may_fail)
{
	pid_t sup = group_supervisor(group), before[MAX_KIDS];
	int n = proc_children(sup, prog, before, MAX_KIDS);
	REQUIRE(n >= 1, "no %s under the %s supervisor (pid %d)", prog, group, (int)sup);
	struct traffic *t = keep(calloc(1, sizeof(*t)));
	traffic_start(t);
	usleep(1000000); /* polls held, messages flowing */
	REQUIRE(kill(before[0], SIGKILL) == 0, "kill -9 %d failed", (int)before[0]);
	double secs = 0;
	pid_t fresh = wait_replaced(sup, prog, n, before[0], before, &secs);
	usleep(1500000); /* traffic served with the replacement */
	traffic_stop(t);
	CHECK(fresh > 0, "%s %d (group %s) killed: not replaced after %.1f s", prog, (int)before[0], group, secs);
	printf("(%s %d killed, %d in its place after %.1f s) ", prog, (int)before[0], (int)fresh, secs);
	traffic_check(t, posters_may_fail, pollers_may_fail);
}

static void test_kill_api_worker(void)
{
	kill_under_traffic("api", "confab-worker", NPOSTERS, 0);
}

/* With two events processes, the polls of the other one go on; the killed one's fail once and are repeated. */
static void test_kill_events_worker(void)
{
	pid_t kids[MAX_KIDS];
	int n = proc_children(group_supervisor("events"), "confab-worker", kids, MAX_KIDS);
	CHECK(n >= 2, "%d events worker(s): killing one would fail every long-poll", n);
	kill_under_traffic("events", "confab-worker", 0, NPOLLERS);
}

/* Waits up to 30 s until the reaper deleted queue qid (idle); checked in Redis, which does not touch the queue. */
static bool wait_reaped(const char *qid)
{
	const char *cli = getenv("CONFAB_REDIS_CLI");
	REQUIRE(cli != NULL && *cli != '\0', "CONFAB_REDIS_CLI is not set");
	for (int i = 0; i < 300; i++) {
		FILE *f = popen(fmt("%s EXISTS 'confab:q:{%s}:meta'", cli, qid), "r");
		char out[32] = "";
		if (f != NULL) {
			if (fgets(out, sizeof(out), f) == NULL)
				out[0] = '\0';
			pclose(f);
		}
		if (strncmp(out, "0", 1) == 0)
			return true;
		usleep(100000);
	}
	return false;
}

/* A queue idle past its timeout (2 s) is deleted by the reaper: GET /events then answers BAD_EVENT_QUEUE_ID. */
static void expect_idle_expiry(void)
{
	struct user *u = new_user("member");
	struct queue *q = queue_register(u, "event_types=%5B%22message%22%5D&idle_queue_timeout=2");
	CHECK(wait_reaped(q->id), "queue %s (idle_queue_timeout=2) still exists after 30 s", q->id);
	struct resp *r =
	    api_get(u, fmt("/events?queue_id=%s&last_event_id=%lld&dont_block=true", q->id, (long long)q->last));
	EXPECT_ERROR(r, 400, "BAD_EVENT_QUEUE_ID", fmt("Bad event queue ID: %s", q->id));
}

static void test_kill_reaper(void)
{
	kill_under_traffic("reaper", "confab-reaper", 0, 0);
	expect_idle_expiry();
}

/* The reaper's connection breaks with the restart: it reconnects (no SIGPIPE death, no restart) and works on. */
static void test_reaper_survives_redis_restart(void)
{
	pid_t reaper = only_child("reaper", "confab-reaper");
	const char *cmd = getenv("CONFAB_RESTART_REDIS");
	REQUIRE(cmd != NULL && *cmd != '\0', "CONFAB_RESTART_REDIS is not set");
	fflush(NULL);
	REQUIRE(system(cmd) == 0, "%s failed", cmd);
	expect_idle_expiry(); /* the reaper ran commands after the restart */
	pid_t now = only_child("reaper", "confab-reaper");
	CHECK(now == reaper, "the reaper %d died with the Redis restart (%d runs now)", (int)reaper, (int)now);
}

/* The value of name in the environment of pid, or NULL. */
static const char *environ_of(pid_t pid, const char *name)
{
	FILE *f = fopen(fmt("/proc/%d/environ", (int)pid), "r");
	REQUIRE(f != NULL, "cannot read the environment of %d", (int)pid);
	static char buf[65536];
	size_t n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	size_t len = strlen(name);
	for (size_t i = 0; i < n; i += strlen(buf + i) + 1)
		if (strncmp(buf + i, name, len) == 0 && buf[i + len] == '=')
			return fmt("%s", buf + i + len + 1);
	return NULL;
}

static int count_lines(const char *path, const char *needle)
{
	FILE *f = fopen(path, "r");
	if (f == NULL)
		return -1;
	char line[2048];
	int n = 0;
	while (fgets(line, sizeof(line), f) != NULL)
		n += strstr(line, needle) != NULL;
	fclose(f);
	return n;
}

/* A reaper (the stack's binary and configuration) facing a Redis that is not there: one line, not one a second. */
static void test_reaper_logs_outage_once(void)
{
	pid_t reaper = only_child("reaper", "confab-reaper");
	char exe[1024];
	ssize_t len = readlink(fmt("/proc/%d/exe", (int)reaper), exe, sizeof(exe) - 1);
	REQUIRE(len > 0, "cannot read /proc/%d/exe", (int)reaper);
	exe[len] = '\0';
	const char *config = environ_of(reaper, "CONFAB_CONFIG");
	REQUIRE(config != NULL, "the reaper has no CONFAB_CONFIG");
	char log[] = "/tmp/confab-itest-reaper.XXXXXX";
	int fd = mkstemp(log);
	REQUIRE(fd >= 0, "mkstemp failed");
	close(fd);
	fflush(NULL);
	pid_t pid = fork();
	REQUIRE(pid >= 0, "fork failed");
	if (pid == 0) {
		setenv("CONFAB_CONFIG", config, 1);
		setenv("CONFAB_LOG_FILE", log, 1);
		setenv("CONFAB_REDIS_SOCKET", "/nonexistent/redis.sock", 1);
		execl(exe, "confab-reaper", (char *)NULL);
		_exit(127);
	}
	usleep(7500000); /* attempts at 1, 3 and 7 s with backoff; 7 without */
	kill(pid, SIGTERM);
	int status = 0;
	waitpid(pid, &status, 0);
	int connect = count_lines(log, "could not connect to redis"), failed = count_lines(log, "maintenance failed");
	unlink(log);
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0, "the reaper ended with status %d", status);
	CHECK(connect == 1, "\"could not connect to redis\" logged %d times in 7.5 s, expected once", connect);
	CHECK(failed == 1, "\"event queue maintenance failed\" logged %d times in 7.5 s, expected once", failed);
}

void register_faults_tests(void)
{
	static const struct itest_case faults[] = {
	    {"kill_api_worker", test_kill_api_worker},
	    {"kill_events_worker", test_kill_events_worker},
	    {"kill_reaper", test_kill_reaper},
	    {"reaper_survives_redis_restart", test_reaper_survives_redis_restart},
	    {"reaper_logs_outage_once", test_reaper_logs_outage_once},
	    {NULL, NULL},
	};
	itest_add_suite("faults", faults);
}
