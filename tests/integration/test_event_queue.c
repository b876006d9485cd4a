/*
 * The event queue itself: GET /events errors, acknowledgement and pruning, DELETE /events, heartbeats.
 * Reference: digest section a; Zulip zerver/tornado/event_queue.py, zerver/tornado/views.py,
 * zerver/tests/test_event_system.py. Queues here come from the legacy form (GET /events?dont_block=true without a
 * queue_id), so that these tests do not depend on POST /register.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "itest.h"

static char *new_queue(const struct user *u)
{
	struct resp *r = api_get(u, "/events?dont_block=true");
	EXPECT_SUCCESS(r);
	const char *q = jstr(r->json, "queue_id");
	REQUIRE(q != NULL && strlen(q) == 36, "queue_id: %s", r->body);
	CHECK(json_object_array_length(jget(r->json, "events")) == 0, "%s", r->body);
	return fmt("%s", q);
}

static void expect_bad_queue(struct resp *r, const char *q)
{
	EXPECT_ERROR(r, 400, "BAD_EVENT_QUEUE_ID", fmt("Bad event queue ID: %s", q));
	EXPECT_STR(r->json, "queue_id", q);
}

static void test_missing_arguments(void)
{
	struct user *u = new_user("member");
	struct resp *r = api_get(u, "/events");
	EXPECT_ERROR(r, 400, "BAD_REQUEST", "Missing 'queue_id' argument");
	r = api_get(u, fmt("/events?queue_id=%s", new_queue(u)));
	EXPECT_ERROR(r, 400, "BAD_REQUEST", "Missing 'last_event_id' argument");
	r = api_get(u, fmt("/events?queue_id=%s&last_event_id=x&dont_block=true", new_queue(u)));
	EXPECT_ERROR(r, 400, "BAD_REQUEST", "last_event_id is not valid JSON");
}

/*
 * The reference checks queue_id and last_event_id itself (fetch_events), not through its validator: a plain
 * BAD_REQUEST without var_name, whatever else comes with them.
 */
static void test_missing_arguments_are_bad_request(void)
{
	struct user *u = new_user("member");
	struct resp *r = api_get(u, "/events?last_event_id=-1");
	EXPECT_ERROR(r, 400, "BAD_REQUEST", "Missing 'queue_id' argument");
	EXPECT_ABSENT(r->json, "var_name");
	r = api_get(u, fmt("/events?queue_id=%s&dont_block=true", new_queue(u)));
	EXPECT_ERROR(r, 400, "BAD_REQUEST", "Missing 'last_event_id' argument");
	EXPECT_ABSENT(r->json, "var_name");
	/* Without a queue but with dont_block the legacy form still makes one. */
	r = api_get(u, "/events?dont_block=true");
	EXPECT_SUCCESS(r);
	CHECK(jhas(r->json, "queue_id"), "%s", r->body);
}

static void test_unknown_and_foreign_queue(void)
{
	struct user *u = new_user("member"), *other = new_user("member");
	expect_bad_queue(api_get(u, "/events?queue_id=hamster&last_event_id=-1&dont_block=true"), "hamster");
	char *q = new_queue(other);
	expect_bad_queue(api_get(u, fmt("/events?queue_id=%s&last_event_id=-1&dont_block=true", q)), q);
	/* The owner still has it. */
	EXPECT_SUCCESS(api_get(other, fmt("/events?queue_id=%s&last_event_id=-1&dont_block=true", q)));
}

static void test_empty_queue_and_acknowledgement(void)
{
	struct user *u = new_user("member");
	char *q = new_queue(u);
	struct resp *r = api_get(u, fmt("/events?queue_id=%s&last_event_id=-1&dont_block=true", q));
	EXPECT_SUCCESS(r);
	EXPECT_STR(r->json, "queue_id", q);
	CHECK(strcmp(jtext(jget(r->json, "events")), "[]") == 0, "%s", r->body);
	r = api_get(u, fmt("/events?queue_id=%s&last_event_id=99&dont_block=true", q));
	EXPECT_ERROR(r, 400, "BAD_REQUEST", "Event 99 was not in this queue");
	/* Re-sending the same acknowledged id is fine. */
	EXPECT_SUCCESS(api_get(u, fmt("/events?queue_id=%s&last_event_id=-1&dont_block=true", q)));
}

static void test_delete_queue(void)
{
	struct user *u = new_user("member"), *other = new_user("member");
	char *q = new_queue(u);
	expect_bad_queue(api_method("DELETE", other, fmt("/events?queue_id=%s", q)), q);
	struct resp *r = api_method("DELETE", u, fmt("/events?queue_id=%s", q));
	EXPECT_SUCCESS(r);
	expect_bad_queue(api_get(u, fmt("/events?queue_id=%s&last_event_id=-1&dont_block=true", q)), q);
	expect_bad_queue(api_method("DELETE", u, fmt("/events?queue_id=%s", q)), q);
	r = api_method("DELETE", u, "/events");
	EXPECT_ERROR(r, 400, "REQUEST_VARIABLE_MISSING", "Missing 'queue_id' argument");
}

/* A poll with nothing to deliver ends with a heartbeat after 45-55 s (from the reaper), and its id counts. */
static void test_heartbeat(void)
{
	struct user *u = new_user("member");
	char *q = new_queue(u);
	time_t start = time(NULL);
	struct resp *r = http(
	    &(struct request){.path = fmt("/api/v1/events?queue_id=%s&last_event_id=-1", q), .user = u, .timeout = 90});
	long waited = (long)(time(NULL) - start);
	EXPECT_SUCCESS(r);
	CHECK(waited >= 44 && waited <= 62, "heartbeat after %ld s", waited);
	CHECK(strcmp(jtext(jget(r->json, "events")), "[{\"type\":\"heartbeat\",\"id\":0}]") == 0, "%s", r->body);
	/* Acknowledged, the heartbeat is gone; acknowledging an older id is refused. */
	r = api_get(u, fmt("/events?queue_id=%s&last_event_id=0&dont_block=true", q));
	CHECK(strcmp(jtext(jget(r->json, "events")), "[]") == 0, "%s", r->body);
	r = api_get(u, fmt("/events?queue_id=%s&last_event_id=-1&dont_block=true", q));
	EXPECT_ERROR(r, 400, "BAD_REQUEST", "An event newer than -1 has already been pruned!");
}

static char *register_queue(const struct user *u, const char *form)
{
	struct resp *r = api_post(u, "/register", form);
	EXPECT_SUCCESS(r);
	REQUIRE(jstr(r->json, "queue_id") != NULL, "register: %s", r->body);
	return fmt("%s", jstr(r->json, "queue_id"));
}

static double now_ms(void)
{
	struct timeval tv;
	gettimeofday(&tv, NULL);
	return (double)tv.tv_sec * 1e3 + (double)tv.tv_usec / 1e3;
}

/*
 * The request id names the worker process ("<pid>-<n>"); a blocking GET /events runs in the events group (one with
 * dont_block in the api group, as POST /register: conf/nginx/confab.conf). An event waits, so it answers at once.
 */
static void test_served_by_another_process(void)
{
	struct user *u = new_user("member"), *other = new_user("member");
	struct resp *r = api_post(u, "/register", "event_types=%5B%22message%22%5D");
	EXPECT_SUCCESS(r);
	const char *reg = resp_header(r, "X-Request-Id");
	const char *q = jstr(r->json, "queue_id");
	REQUIRE(reg != NULL && q != NULL, "%s", r->body);
	char *reg_pid = fmt("%.*s", (int)strcspn(reg, "-"), reg);
	send_direct_message(other, fmt("[%lld]", (long long)u->id), "for the poll");
	r = api_get(u, fmt("/events?queue_id=%s&last_event_id=-1", q));
	EXPECT_SUCCESS(r);
	const char *ev = resp_header(r, "X-Request-Id");
	REQUIRE(ev != NULL, "no X-Request-Id");
	CHECK(strncmp(ev, reg_pid, strlen(reg_pid)) != 0 || ev[strlen(reg_pid)] != '-',
	      "register (%s) and events (%s) in the same process", reg, ev);
}

/* A waiting poll returns as soon as an event arrives (not at the heartbeat). */
static void test_poll_woken_by_event(void)
{
	struct user *a = new_user("member"), *b = new_user("member");
	char *q = register_queue(b, "event_types=%5B%22message%22%5D");
	/* The sender's message goes out from a background curl 300 ms after the poll starts. */
	char *cmd = fmt("(sleep 0.3; curl -s -o /dev/null -u '%s:%s' -d type=direct -d 'to=[%lld]' -d content=wake "
	                "'%s/api/v1/messages') &",
	                a->email, a->key, (long long)b->id, itest_url);
	double start = now_ms();
	REQUIRE(system(cmd) == 0, "could not start curl");
	struct resp *r = http(
	    &(struct request){.path = fmt("/api/v1/events?queue_id=%s&last_event_id=-1", q), .user = b, .timeout = 90});
	double waited = now_ms() - start;
	EXPECT_SUCCESS(r);
	json_object *events = jget(r->json, "events");
	REQUIRE(events != NULL && json_object_array_length(events) == 1, "%s", r->body);
	EXPECT_STR(json_object_array_get_idx(events, 0), "type", "message");
	CHECK(waited < 10000, "the poll waited %.0f ms for an event sent after 300 ms", waited);
}

/* A queue idle past its timeout is deleted by the reaper. */
static void test_idle_expiry(void)
{
	struct user *u = new_user("member");
	char *q = register_queue(u, "idle_queue_timeout=1&event_types=%5B%22message%22%5D");
	struct resp *r = NULL;
	for (int i = 0; i < 50; i++) {
		r = api_get(u, fmt("/events?queue_id=%s&last_event_id=-1&dont_block=true", q));
		if (r->status == 400)
			break;
		usleep(100000);
	}
	expect_bad_queue(r, q);
}

/*
 * The reference's race test: while other requests subscribe the user to new channels, the user registers. Its
 * initial subscriptions plus the events that follow must equal a fresh register's subscriptions, with no channel
 * added twice and none missed (design: snapshot visibility).
 */
static void test_register_races_writes(void)
{
	struct user *admin = new_user("admin"), *u = new_user("member");
	char *loops = fmt("%s", "");
	for (int w = 0; w < 3; w++)
		loops = fmt("%s(for i in $(seq 1 15); do curl -s -o /dev/null -u '%s:%s' "
		            "--data-urlencode \"subscriptions=[{\\\"name\\\":\\\"race-%d-$i-%ld\\\"}]\" "
		            "--data-urlencode 'principals=[%lld]' '%s/api/v1/users/me/subscriptions'; done) & ",
		            loops, admin->email, admin->key, w, (long)getpid(), (long long)u->id, itest_url);
	FILE *bg = popen(fmt("%s wait", loops), "r");
	REQUIRE(bg != NULL, "could not start the writers");
	usleep(150000);
	const char *form = "event_types=%5B%22subscription%22%5D&fetch_event_types=%5B%22subscription%22%5D";
	struct resp *r = api_post(u, "/register", form);
	pclose(bg);
	EXPECT_SUCCESS(r);
	const char *q = jstr(r->json, "queue_id");
	/* The state as a set of channel ids. */
	int64_t state[256];
	int n = 0;
	json_object *subs = jget(r->json, "subscriptions");
	for (size_t i = 0; subs && i < json_object_array_length(subs); i++)
		state[n++] = jint(json_object_array_get_idx(subs, i), "stream_id");
	int initial = n, added = 0;
	struct resp *ev = api_get(u, fmt("/events?queue_id=%s&last_event_id=-1&dont_block=true", q));
	EXPECT_SUCCESS(ev);
	json_object *events = jget(ev->json, "events");
	for (size_t i = 0; events && i < json_object_array_length(events); i++) {
		json_object *e = json_object_array_get_idx(events, i);
		if (strcmp(jstr(e, "op") ? jstr(e, "op") : "", "add") != 0)
			continue;
		json_object *list = jget(e, "subscriptions");
		for (size_t k = 0; list && k < json_object_array_length(list); k++) {
			int64_t id = jint(json_object_array_get_idx(list, k), "stream_id");
			for (int j = 0; j < n; j++)
				CHECK(state[j] != id, "channel %lld both in the initial state and in an event",
				      (long long)id);
			if (n < 256)
				state[n++] = id, added++;
		}
	}
	fprintf(stderr, " [initial state %d channels, events %d] ", initial, added);
	struct resp *fresh = api_post(u, "/register", form);
	json_object *now = jget(fresh->json, "subscriptions");
	CHECK(now != NULL && (int)json_object_array_length(now) == n,
	      "fresh register has %zu channels; initial %d + events %d", now ? json_object_array_length(now) : 0,
	      initial, added);
	CHECK(n == 45, "45 channels expected, got %d (initial %d + events %d)", n, initial, added);
}

/*
 * unread_msgs is read on a second connection in the register's snapshot (model/unread.h). A session holds a lock that
 * the unread statement waits for; meanwhile the user marks five messages read. The answer must still show them
 * unread (its snapshot came first), and the queue the flag event: read in a later snapshot, they would be missing.
 */
static void test_register_unread_in_snapshot(void)
{
	struct user *u = new_user("member"), *a = new_user("member");
	const char *name = unique_channel_name("snap");
	create_channel_with(u, name, NULL);
	int64_t ids[5];
	for (int i = 0; i < 5; i++)
		ids[i] = send_channel_message(a, name, "snapshot", "unread");
	const char *list = fmt("[%lld,%lld,%lld,%lld,%lld]", (long long)ids[0], (long long)ids[1], (long long)ids[2],
	                       (long long)ids[3], (long long)ids[4]);
	pid_t holder = psql_in_background(
	    "BEGIN; LOCK TABLE direct_conversations IN ACCESS EXCLUSIVE MODE; SELECT pg_sleep(3); COMMIT");
	bool locked = false;
	for (int i = 0; i < 30 && !locked; i++, usleep(100000))
		locked = atoi(psql_ok("SELECT count(*) FROM pg_locks l JOIN pg_class c ON c.oid = l.relation"
		                      " WHERE c.relname = 'direct_conversations' AND l.mode = 'AccessExclusiveLock'"
		                      " AND l.granted")) > 0;
	fflush(NULL);
	FILE *reg = popen(fmt("curl -s -u '%s:%s' --data-urlencode 'event_types=[\"message\",\"update_message_flags\"]'"
	                      " --data-urlencode 'fetch_event_types=[\"message\",\"update_message_flags\"]'"
	                      " '%s/api/v1/register'",
	                      u->email, u->key, itest_url),
	                  "r");
	REQUIRE(reg != NULL, "could not start the register");
	bool waited = locked && await_lock_wait("WITH r AS (SELECT m.id, um.flags", 3);
	if (waited)
		EXPECT_SUCCESS(api_post(u, "/messages/flags", fmt("op=add&flag=read&messages=%s", url_encode(list))));
	char body[1 << 16];
	size_t len = fread(body, 1, sizeof(body) - 1, reg);
	body[len] = '\0';
	pclose(reg);
	waitpid(holder, NULL, 0);
	REQUIRE(locked && waited, "the unread statement did not wait for the lock (locked %d)", locked);
	json_object *j = json_tokener_parse(body);
	REQUIRE(j != NULL, "register: %s", body);
	json_object *unread = jget(j, "unread_msgs");
	EXPECT_INT(unread, "count", 5);
	CHECK(strstr(jtext(jget(unread, "streams")), fmt("\"unread_message_ids\":%s", list)) != NULL,
	      "the snapshot's unread messages: %s", jtext(unread));
	struct resp *ev = api_get(u, fmt("/events?queue_id=%s&last_event_id=-1&dont_block=true", jstr(j, "queue_id")));
	EXPECT_SUCCESS(ev);
	CHECK(strstr(ev->body, "\"update_message_flags\"") != NULL && strstr(ev->body, list) != NULL,
	      "the queue has the flag event: %s", ev->body);
	json_object_put(j);
}

static int64_t send_dm(const struct user *from, const struct user *to)
{
	struct resp *r = api_post(from, "/messages", fmt("type=direct&to=%%5B%lld%%5D&content=hi", (long long)to->id));
	EXPECT_SUCCESS(r);
	return jint(r->json, "id");
}

static void set_flag(const struct user *u, const char *op, int64_t id)
{
	EXPECT_SUCCESS(api_post(u, "/messages/flags", fmt("op=%s&flag=read&messages=%%5B%lld%%5D", op, (long long)id)));
}

/* flags/add/read events merge into one with both messages and the later id; flags/remove/read do not merge. */
static void test_flag_events_merge(void)
{
	struct user *a = new_user("member"), *b = new_user("member");
	int64_t m1 = send_dm(a, b), m2 = send_dm(a, b);
	char *q = register_queue(b, "event_types=%5B%22update_message_flags%22%5D");
	set_flag(b, "add", m1);
	set_flag(b, "add", m2);
	struct resp *r = api_get(b, fmt("/events?queue_id=%s&last_event_id=-1&dont_block=true", q));
	json_object *events = jget(r->json, "events");
	REQUIRE(events != NULL && json_object_array_length(events) == 1, "one merged event: %s", r->body);
	json_object *e = json_object_array_get_idx(events, 0);
	EXPECT_INT(e, "id", 1);
	CHECK(strcmp(jtext(jget(e, "messages")), fmt("[%lld,%lld]", (long long)m1, (long long)m2)) == 0, "%s", r->body);
	set_flag(b, "remove", m1);
	set_flag(b, "remove", m2);
	r = api_get(b, fmt("/events?queue_id=%s&last_event_id=1&dont_block=true", q));
	events = jget(r->json, "events");
	CHECK(events != NULL && json_object_array_length(events) == 2, "remove/read is not merged: %s", r->body);
}

/*
 * A poll's wake-up is never lost (issue 29, item 14). Many short polls, each against one direct message sent at an
 * offset of -8 to +8 ms from the poll, so that over the rounds the publication lands at every point of the poll's
 * path, the window between its read of the queue and its registration as the queue's waiter included. Nothing else
 * is sent to the receiver, so a wake-up lost in that window leaves the poll to the reaper's heartbeat (45-55 s): the
 * round then fails at WAKEUP_DEADLINE_SECS, or on the heartbeat. In a build with fault points, "X-Confab-Fault:
 * pause-before-wait" holds each poll 20 ms in that window (events/queues.c), so that most sends land there.
 */
#define WAKEUP_ROUNDS        300
#define WAKEUP_DEADLINE_SECS 10

struct wakeup_pair {
	struct user *sender, *receiver;
	char *queue;
	int64_t last;
};

static void wakeup_pair_new(struct wakeup_pair *p)
{
	p->sender = new_user("member");
	p->receiver = new_user("member");
	p->queue = register_queue(p->receiver, "event_types=%5B%22message%22%5D");
	p->last = -1;
}

/* In a child process: waits delay_us, sends round's message, exits 0 if it was accepted. */
__attribute__((noreturn)) static void wakeup_send(const struct wakeup_pair *p, int round, long delay_us)
{
	itest_http_after_fork();
	if (delay_us > 0)
		usleep((useconds_t)delay_us);
	struct resp *r =
	    api_post(p->sender, "/messages",
	             fmt("type=direct&to=%%5B%lld%%5D&content=wake-%d", (long long)p->receiver->id, round));
	_exit(r->status == 200 ? 0 : 1);
}

/*
 * Polls until round's message comes, failing on a heartbeat, an error or the deadline; moves p->last on. fault names
 * the fault point each poll asks for (builds without fault points ignore it).
 */
static void wakeup_receive(struct wakeup_pair *p, int round, double start, const char *fault)
{
	const char *const headers[] = {fmt("X-Confab-Fault: %s", fault), NULL};
	const char *want = fmt("wake-%d", round);
	for (;;) {
		long left = (long)(start + WAKEUP_DEADLINE_SECS - now_secs());
		struct resp *r = NULL;
		if (left > 0)
			r = http(&(struct request){
			    .path = fmt("/api/v1/events?queue_id=%s&last_event_id=%lld", p->queue, (long long)p->last),
			    .user = p->receiver,
			    .headers = headers,
			    .timeout = left});
		REQUIRE(r != NULL && r->status != 0,
		        "round %d: no answer within %d s: a wake-up was lost, the poll waits for its heartbeat", round,
		        WAKEUP_DEADLINE_SECS);
		REQUIRE(r->status == 200 && jget(r->json, "events") != NULL, "round %d: %ld %s", round, r->status,
		        r->body);
		json_object *events = jget(r->json, "events");
		for (size_t i = 0; i < json_object_array_length(events); i++) {
			json_object *e = json_object_array_get_idx(events, i);
			REQUIRE(strcmp(jstr(e, "type"), "heartbeat") != 0, "round %d: answered by a heartbeat: %s",
			        round, r->body);
			p->last = jint(e, "id");
			const char *content = jstr(jget(e, "message"), "content");
			if (content != NULL && strcmp(content, want) == 0)
				return;
		}
	}
}

/* One round: the message sent offset_us after the poll starts (before it when negative), and received. */
static void wakeup_round(struct wakeup_pair *p, int round, long offset_us, const char *fault)
{
	fflush(NULL);
	pid_t pid = fork();
	REQUIRE(pid >= 0, "fork failed");
	if (pid == 0)
		wakeup_send(p, round, offset_us);
	if (offset_us < 0)
		usleep((useconds_t)-offset_us);
	wakeup_receive(p, round, now_secs(), fault);
	int status;
	REQUIRE(waitpid(pid, &status, 0) == pid && WIFEXITED(status) && WEXITSTATUS(status) == 0,
	        "round %d: the send failed", round);
}

static void test_wakeup_races_sends(void)
{
	/* Each round costs the sender one request and the receiver one or more: a pair stays within its budget. */
	int per_pair = itest_rate_limit / 2 - 10;
	struct wakeup_pair pair = {0};
	for (int round = 0; round < WAKEUP_ROUNDS; round++) {
		if (round % per_pair == 0)
			wakeup_pair_new(&pair);
		/* From -8 to +8 ms (> 0: the poll first), spread over the rounds. */
		wakeup_round(&pair, round, (long)((round * 7919) % 16001) - 8000, "pause-before-wait");
	}
}

/*
 * A wake-up lost with the poll's Redis connection: Redis popped it, the reply never arrived. The poll must look at its
 * queue again rather than block again until its heartbeat. In a build with fault points, "X-Confab-Fault:
 * lose-wake-reply" drops every value a poll's BLPOP pops, with the connection (redis/redis.c).
 */
static void test_wakeup_survives_lost_wake_reply(void)
{
	struct wakeup_pair pair;
	wakeup_pair_new(&pair);
	for (int round = 0; round < 3; round++)
		wakeup_round(&pair, round, 300000, "lose-wake-reply"); /* the poll waits by then */
}

void register_event_queue_tests(void)
{
	static const struct itest_case cases[] = {
	    {"missing_arguments", test_missing_arguments},
	    {"missing_arguments_are_bad_request", test_missing_arguments_are_bad_request},
	    {"unknown_and_foreign_queue", test_unknown_and_foreign_queue},
	    {"empty_queue_and_acknowledgement", test_empty_queue_and_acknowledgement},
	    {"delete_queue", test_delete_queue},
	    {"served_by_another_process", test_served_by_another_process},
	    {"poll_woken_by_event", test_poll_woken_by_event},
	    {"idle_expiry", test_idle_expiry},
	    {"register_races_writes", test_register_races_writes},
	    {"register_unread_in_snapshot", test_register_unread_in_snapshot},
	    {"flag_events_merge", test_flag_events_merge},
	    {"wakeup_races_sends", test_wakeup_races_sends},
	    {"wakeup_survives_lost_wake_reply", test_wakeup_survives_lost_wake_reply},
	    {NULL, NULL},
	};
	itest_add_suite("event_queue", cases);
	static const struct itest_case slow[] = {
	    {"heartbeat", test_heartbeat},
	    {NULL, NULL},
	};
	itest_add_suite("event_queue_slow", slow);
}
