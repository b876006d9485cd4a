/*
 * Scale-out and rolling restarts. "scaleout": two worker hosts, A (127.0.0.2) and B (127.0.0.3), each an api and an
 * events group on TCP, share one PostgreSQL and one Redis; nginx serves both in one upstream (CONFAB_SCALEOUT_URL)
 * and each alone (CONFAB_SCALEOUT_A_URL, CONFAB_SCALEOUT_B_URL). Any worker of any host serves any queue: a queue
 * registered on one host is polled on the other, a message sent through one wakes a poll held by the other, and the
 * loss of host A (SIGKILL to its whole process groups) loses no acknowledged message, executes no message twice and
 * leaves the polls held by B working. A rolling restart (TERM to one worker at a time, each replaced by its supervisor)
 * of the events and the api groups answers every poll with 200 and delivers every message once per queue.
 *
 * Needs (scripts/test sets them; missing ones fail the test): CONFAB_SCALEOUT_URL, CONFAB_SCALEOUT_A_URL,
 * CONFAB_SCALEOUT_B_URL, CONFAB_SCALEOUT_CTL (kill|start HOST, rolling-restart GROUP), CONFAB_RUN_DIR (a-events.pid
 * ... name the hosts' confab-supervise processes) and CONFAB_REDIS_CLI.
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

#define NPOLLERS  6 /* queues polled during the traffic */
#define NBUSY     4 /* of which the first NBUSY get the channel's messages; the others wait, idle, for nothing */
#define MAX_SENDS 2048

static const char *env(const char *name)
{
	const char *v = getenv(name);
	REQUIRE(v != NULL && *v != '\0', "%s is not set (scripts/test sets up the scale-out hosts)", name);
	return v;
}

/* Runs CONFAB_SCALEOUT_CTL with args; a failure is fatal. */
static void scaleout_ctl(const char *args)
{
	fflush(NULL);
	int rc = system(fmt("%s %s", env("CONFAB_SCALEOUT_CTL"), args));
	REQUIRE(rc == 0, "%s %s failed (status %d)", env("CONFAB_SCALEOUT_CTL"), args, rc);
}

/* The worker that answered r (X-Request-Id: <pid>-<n>) belongs to group (e.g. "b-events"). */
static bool served_by(const struct resp *r, const char *group)
{
	const char *id = resp_header(r, "X-Request-Id");
	long pid = id ? strtol(id, NULL, 10) : 0;
	return pid > 0 && proc_parent((pid_t)pid) == group_supervisor_pid(group);
}

/* Waits up to 10 s until a poll of queue qid waits in Redis (the reaper's confab:waiting set). */
static bool poll_held(const char *qid)
{
	for (int i = 0; i < 100; i++) {
		FILE *f = popen(fmt("%s ZSCORE confab:waiting '%s'", env("CONFAB_REDIS_CLI"), qid), "r");
		char out[64] = "";
		if (f != NULL) {
			if (fgets(out, sizeof(out), f) == NULL)
				out[0] = '\0';
			pclose(f);
		}
		if (out[0] >= '0' && out[0] <= '9')
			return true;
		usleep(100000);
	}
	return false;
}

/* ---- one poll held on one host while the test sends through the other ---------------------------------------- */

struct held {
	pid_t pid;
	int fd;
};

/* What a held poll got: its status, whether the named group served it, its events, its first message. */
struct poll_result {
	long status;
	int mine;
	long nevents;
	long long message_id;
	char content[256];
	char body[512];
};

/* Starts GET /events of q through base in a child, which reports a struct poll_result on a pipe. */
static struct held hold_poll(struct queue *q, const char *base, const char *group)
{
	int fds[2];
	REQUIRE(pipe(fds) == 0, "pipe failed");
	fflush(NULL);
	pid_t pid = fork();
	REQUIRE(pid >= 0, "fork failed");
	if (pid == 0) {
		close(fds[0]);
		itest_http_after_fork();
		struct resp *r = http(&(struct request){
		    .base_url = base,
		    .path = fmt("/api/v1/events?queue_id=%s&last_event_id=%lld", q->id, (long long)q->last),
		    .user = q->u,
		    .timeout = 60,
		});
		struct poll_result pr = {.status = r->status, .mine = served_by(r, group)};
		json_object *events = jget(r->json, "events");
		pr.nevents = events ? (long)json_object_array_length(events) : -1;
		json_object *m = pr.nevents > 0 ? jget(json_object_array_get_idx(events, 0), "message") : NULL;
		pr.message_id = m ? jint(m, "id") : 0;
		snprintf(pr.content, sizeof(pr.content), "%s", m && jstr(m, "content") ? jstr(m, "content") : "");
		snprintf(pr.body, sizeof(pr.body), "%s", r->body);
		ssize_t w = write(fds[1], &pr, sizeof(pr));
		_exit(w == (ssize_t)sizeof(pr) ? 0 : 1);
	}
	close(fds[1]);
	return (struct held){pid, fds[0]};
}

/* The held poll's answer (fatal unless a 200). */
static struct poll_result poll_answer(struct held h)
{
	struct poll_result pr = {0};
	size_t off = 0;
	struct pollfd p = {.fd = h.fd, .events = POLLIN};
	while (off < sizeof(pr) && poll(&p, 1, 70000) > 0) {
		ssize_t n = read(h.fd, (char *)&pr + off, sizeof(pr) - off);
		if (n <= 0)
			break;
		off += (size_t)n;
	}
	close(h.fd);
	kill(h.pid, SIGKILL);
	waitpid(h.pid, NULL, 0);
	REQUIRE(off == sizeof(pr), "the held poll gave no answer");
	REQUIRE(pr.status == 200, "held poll: %ld %s", pr.status, pr.body);
	return pr;
}

/* Registers on host reg, holds a poll on host poll, sends through host reg: the poll gets the message. */
static void cross_host(const char *reg_url, const char *reg_group, const char *poll_url, const char *poll_group)
{
	struct user *u = new_user("member"), *v = new_user("member");
	struct resp *r = http(&(struct request){.method = "POST",
	                                        .base_url = reg_url,
	                                        .path = "/api/v1/register",
	                                        .user = u,
	                                        .form = "event_types=%5B%22message%22%5D"});
	EXPECT_STATUS(r, 200);
	CHECK(served_by(r, reg_group), "POST /register not served by %s", reg_group);
	struct queue q = {.u = u, .id = jstr(r->json, "queue_id"), .last = jint(r->json, "last_event_id")};
	REQUIRE(q.id != NULL, "no queue_id: %s", r->body);
	struct held h = hold_poll(&q, poll_url, poll_group);
	REQUIRE(poll_held(q.id), "the poll of queue %s is not waiting after 10 s", q.id);
	r = http(&(struct request){
	    .method = "POST",
	    .base_url = reg_url,
	    .path = "/api/v1/messages",
	    .user = v,
	    .form = fmt("type=direct&to=%s&content=across+hosts", url_encode(fmt("[%lld]", (long long)u->id)))});
	EXPECT_STATUS(r, 200);
	CHECK(served_by(r, reg_group), "POST /messages not served by %s", reg_group);
	struct poll_result pr = poll_answer(h);
	CHECK(pr.mine, "the held poll was not answered by %s: %s", poll_group, pr.body);
	CHECK(pr.nevents == 1 && pr.message_id == jint(r->json, "id"), "held poll: %s (message %lld sent)", pr.body,
	      (long long)jint(r->json, "id"));
	CHECK(strcmp(pr.content, "across hosts") == 0, "content %s", pr.content);
}

static void test_register_a_poll_b(void)
{
	cross_host(env("CONFAB_SCALEOUT_A_URL"), "a-api", env("CONFAB_SCALEOUT_B_URL"), "b-events");
}

static void test_register_b_poll_a(void)
{
	cross_host(env("CONFAB_SCALEOUT_B_URL"), "b-api", env("CONFAB_SCALEOUT_A_URL"), "a-events");
}

/* ---- traffic: a sender and pollers in child processes, each reporting on a pipe ------------------------------ */

/* What a client saw. A sender's entry i is its message "<tag> i": the id acknowledged (0 if never) and the
 * attempts it took; a poller's entries are the message ids it received, in order. */
struct report {
	int ok, failed, n;
	int64_t ids[MAX_SENDS];
	int attempts[MAX_SENDS];
	char first_bad[400];
};

struct traffic {
	struct user *sender, *pollers[NPOLLERS];
	struct queue *queues[NPOLLERS];
	const char *send_url, *poll_url[NPOLLERS], *channel, *tag;
	int stop_sender[2], stop_pollers[2];
	struct client clients[1 + NPOLLERS];
	struct report report[1 + NPOLLERS];
};

static void note_failure(struct report *rep, const struct resp *r)
{
	if (rep->failed++ == 0)
		snprintf(rep->first_bad, sizeof(rep->first_bad), "%s -> %ld (curl %d) %.300s", r->what, r->status,
		         r->curl_code, r->body);
}

/* Sends "<tag> i" for i = 0, 1 ... through send_url; a message not acknowledged with a 200 is sent again (up to 50
 * times), as a client retries. */
static void sender(struct traffic *t, struct report *rep)
{
	for (int i = 0; i < MAX_SENDS && !stop_requested(t->stop_sender[0]); i++) {
		const char *form = fmt("type=stream&to=%s&topic=t&content=%s", url_encode(t->channel),
		                       url_encode(fmt("%s %d", t->tag, i)));
		rep->n = i + 1;
		for (int attempt = 1; attempt <= 50; attempt++) {
			struct resp *r = http(&(struct request){.method = "POST",
			                                        .base_url = t->send_url,
			                                        .path = "/api/v1/messages",
			                                        .user = t->sender,
			                                        .form = form});
			rep->attempts[i] = attempt;
			if (r->status == 200 && jint(r->json, "id") > 0) {
				rep->ok++;
				rep->ids[i] = jint(r->json, "id");
				break;
			}
			note_failure(rep, r);
			usleep(100000);
		}
		usleep(20000);
	}
}

/* Records the message ids of a GET /events answer; false if it was not a 200 with events. */
static bool receive(void *report, struct queue *q, const struct resp *r)
{
	struct report *rep = report;
	if (!receive_message_ids(q, r, rep->ids, &rep->n, MAX_SENDS)) {
		note_failure(rep, r);
		return false;
	}
	rep->ok++;
	return true;
}

static void poller(struct traffic *t, int k, struct report *rep)
{
	poll_until_stopped(t->queues[k], t->poll_url[k], t->stop_pollers[0], receive, rep);
}

static void client_run(void *arg, int i, void *report)
{
	struct traffic *t = arg;
	if (i == 0)
		sender(t, report);
	else
		poller(t, i - 1, report);
}

/* A channel of the sender and the pollers, a queue per poller (registered through the upstream over both hosts,
 * or CONFAB_URL), then the clients. */
static void traffic_start(struct traffic *t, const char *register_url)
{
	t->sender = new_user("member");
	const char *ids = fmt("%lld", (long long)t->sender->id);
	for (int i = 0; i < NPOLLERS; i++) {
		t->pollers[i] = new_user("member");
		if (i < NBUSY)
			ids = fmt("%s,%lld", ids, (long long)t->pollers[i]->id);
	}
	t->channel = fmt("scaleout %ld-%d", (long)time(NULL), (int)getpid());
	t->tag = fmt("scaleout-%ld-%d", (long)time(NULL), (int)getpid());
	struct resp *r =
	    api_post(t->sender, "/users/me/subscriptions",
	             fmt("subscriptions=%s&principals=%s", url_encode(fmt("[{\"name\":\"%s\"}]", t->channel)),
	                 url_encode(fmt("[%s]", ids))));
	REQUIRE(r->status == 200, "creating channel %s: %s", t->channel, r->body);
	for (int i = 0; i < NPOLLERS; i++) {
		r = http(&(struct request){.method = "POST",
		                           .base_url = register_url,
		                           .path = "/api/v1/register",
		                           .user = t->pollers[i],
		                           .form = "event_types=%5B%22message%22%5D"});
		REQUIRE(r->status == 200 && jstr(r->json, "queue_id") != NULL, "register: %s", r->body);
		t->queues[i] = keep(calloc(1, sizeof(struct queue)));
		*t->queues[i] =
		    (struct queue){t->pollers[i], fmt("%s", jstr(r->json, "queue_id")), jint(r->json, "last_event_id")};
	}
	REQUIRE(pipe(t->stop_sender) == 0 && pipe(t->stop_pollers) == 0, "pipe failed");
	int write_ends[2] = {t->stop_sender[1], t->stop_pollers[1]};
	for (int i = 0; i < 1 + NPOLLERS; i++)
		client_spawn(&t->clients[i], client_run, t, i, sizeof(t->report[i]), write_ends, 2);
	close(t->stop_sender[0]);
	close(t->stop_pollers[0]);
	for (int i = 0; i < NPOLLERS; i++)
		REQUIRE(poll_held(t->queues[i]->id), "poller %d: no poll waiting after 10 s", i);
}

/* Reads the report of client i (killing a client that hangs for 120 s) and reaps it. */
static void collect(struct traffic *t, int i)
{
	CHECK(client_collect(&t->clients[i], &t->report[i], sizeof(t->report[i])), "traffic client %d sent no report",
	      i);
}

/* Stops the sender, then the pollers: a last message wakes the polls that wait, then each drains its queue. */
static void traffic_stop(struct traffic *t)
{
	close(t->stop_sender[1]);
	collect(t, 0);
	close(t->stop_pollers[1]);
	send_channel_message(t->sender, t->channel, "t", "last one");
	for (int k = NBUSY; k < NPOLLERS; k++)
		send_direct_message(t->sender, fmt("[%lld]", (long long)t->pollers[k]->id), "wake up");
	for (int i = 1; i < 1 + NPOLLERS; i++)
		collect(t, i);
}

static int count_of(const struct report *rep, int64_t id)
{
	int n = 0;
	for (int i = 0; i < rep->n; i++)
		n += rep->ids[i] == id;
	return n;
}

/* Each message "<tag> i" is stored at least once if acknowledged, and never more often than it was sent: exactly
 * once when its first attempt was acknowledged (nothing executed a POST twice). */
static void check_stored(const struct traffic *t)
{
	const struct report *s = &t->report[0];
	char *out = psql_ok("SELECT substr(content, %zu)::int, count(*) FROM messages WHERE content LIKE '%s %%' "
	                    "GROUP BY content",
	                    strlen(t->tag) + 2, t->tag);
	int stored[MAX_SENDS] = {0};
	for (char *line = strtok(out, "\n"); line != NULL; line = strtok(NULL, "\n")) {
		int i, c;
		if (sscanf(line, "%d|%d", &i, &c) == 2 && i >= 0 && i < MAX_SENDS)
			stored[i] = c;
	}
	for (int i = 0; i < s->n; i++) {
		CHECK(s->ids[i] == 0 || stored[i] >= 1, "message %d acknowledged (id %lld) but not stored", i,
		      (long long)s->ids[i]);
		CHECK(stored[i] <= s->attempts[i], "message %d stored %d times, sent %d times", i, stored[i],
		      s->attempts[i]);
	}
}

/*
 * The sender: failures at most sender_may_fail, every message acknowledged in the end. Poller k: at most
 * may_fail[k] failed polls. Every acknowledged message reached every busy poller exactly once; each idle poller got
 * at least idle_answers answers (one is the final wake-up).
 */
static void traffic_check(const struct traffic *t, int sender_may_fail, const int *may_fail, int idle_answers)
{
	const struct report *s = &t->report[0];
	printf("(sender: %d sent, %d ok, %d failed%s%s) ", s->n, s->ok, s->failed, s->failed ? ", first: " : "",
	       s->first_bad);
	CHECK(s->n >= 10, "the sender sent only %d messages", s->n);
	CHECK(s->failed <= sender_may_fail, "%d failed sends, at most %d allowed", s->failed, sender_may_fail);
	for (int k = 0; k < NPOLLERS; k++) {
		const struct report *rep = &t->report[1 + k];
		printf("(poller %d via %s: %d polls ok, %d failed%s%s) ", k, t->poll_url[k], rep->ok, rep->failed,
		       rep->failed ? ", first: " : "", rep->first_bad);
		CHECK(rep->failed <= may_fail[k], "poller %d: %d failed polls, at most %d allowed", k, rep->failed,
		      may_fail[k]);
		if (k >= NBUSY) {
			CHECK(rep->ok >= idle_answers, "idle poller %d: %d answers, expected at least %d", k, rep->ok,
			      idle_answers);
			continue;
		}
		for (int i = 0; i < s->n; i++) {
			int c = s->ids[i] ? count_of(rep, s->ids[i]) : 1;
			CHECK(c == 1, "poller %d got message %d (id %lld) %d times", k, i, (long long)s->ids[i], c);
		}
	}
	for (int i = 0; i < s->n; i++)
		CHECK(s->ids[i] > 0, "message %d never acknowledged in %d attempts", i, s->attempts[i]);
	check_stored(t);
}

/*
 * Host A is lost (SIGKILL to its groups, supervisors included) while a sender posts through the upstream over both
 * hosts and pollers hold polls through B and through that upstream. A send that A had taken may fail (a non-200 the
 * sender repeats); nothing else does: the upstream answers through B, and the polls go on.
 */
static void test_host_loss(void)
{
	struct traffic *t = keep(calloc(1, sizeof(*t)));
	t->send_url = env("CONFAB_SCALEOUT_URL");
	for (int k = 0; k < NPOLLERS; k++)
		t->poll_url[k] = k % 2 ? env("CONFAB_SCALEOUT_URL") : env("CONFAB_SCALEOUT_B_URL");
	env("CONFAB_SCALEOUT_A_URL");
	traffic_start(t, env("CONFAB_SCALEOUT_URL"));
	usleep(1000000);
	scaleout_ctl("kill a");
	usleep(500000);
	for (int i = 0; i < 4; i++) {
		struct resp *r =
		    http(&(struct request){.base_url = t->send_url, .path = "/api/v1/users/me", .user = t->sender});
		CHECK(r->status == 200, "through the upstream with A lost: %ld %s", r->status, r->body);
	}
	struct resp *r = http(
	    &(struct request){.base_url = env("CONFAB_SCALEOUT_A_URL"), .path = "/api/v1/users/me", .user = t->sender});
	CHECK(r->status == 502, "host A alone answers %ld after its loss", r->status);
	usleep(1500000);
	traffic_stop(t);
	scaleout_ctl("start a");
	int may_fail[NPOLLERS] = {0};
	/* At most the sends in flight on A at the kill fail (one: the sender waits for each answer). */
	traffic_check(t, 1, may_fail, 1);
}

/*
 * A rolling restart of the events group, then of the api group (TERM to one worker at a time, the supervisor starting
 * another on the same socket) while a sender posts and pollers hold polls: every poll is answered with a 200 (the
 * stopping worker answers those it holds), every send succeeds, every message arrives once on every queue.
 */
static void test_rolling_restart(void)
{
	struct traffic *t = keep(calloc(1, sizeof(*t)));
	t->send_url = itest_url;
	for (int k = 0; k < NPOLLERS; k++)
		t->poll_url[k] = itest_url;
	traffic_start(t, itest_url);
	usleep(500000);
	scaleout_ctl("rolling-restart events");
	scaleout_ctl("rolling-restart api");
	usleep(1000000);
	traffic_stop(t);
	int may_fail[NPOLLERS] = {0};
	/* Each idle poll was held by a worker that stopped, and answered then. */
	traffic_check(t, 0, may_fail, 2);
}

void register_scaleout_tests(void)
{
	static const struct itest_case cases[] = {
	    {"register_a_poll_b", test_register_a_poll_b},
	    {"register_b_poll_a", test_register_b_poll_a},
	    {"host_loss", test_host_loss},
	    {"rolling_restart", test_rolling_restart},
	    {NULL, NULL},
	};
	itest_add_suite("scaleout", cases);
}
