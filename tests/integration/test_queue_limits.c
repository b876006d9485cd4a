/*
 * Bounds on event queues (docs/LIMITS.md, "Event queues"; issue 29, items 3 and 4): the queues of a user (the least
 * recently used goes), the events of a queue (one more discards it), Redis past its maxmemory (a clear 503, and a
 * message sent meanwhile arrives once when Redis takes writes again), the polls one user holds, and dont_block polls
 * while every thread of the events group holds a poll.
 *
 * Needs CONFAB_REDIS_CLI and CONFAB_RUN_DIR (the events group's workers). The bounds are the configuration's
 * defaults, or CONFAB_EVENT_QUEUES_PER_USER / CONFAB_EVENT_QUEUE_MAX_BYTES when the stack was started with them.
 */
#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include "itest.h"
#include "procs.h"

/* A configuration key's value as the stack's workers see it (the environment override), or its default. */
static int config_int(const char *env, int def)
{
	const char *v = getenv(env);
	return v != NULL && atoi(v) > 0 ? atoi(v) : def;
}

static int queues_per_user(void)
{
	return config_int("CONFAB_EVENT_QUEUES_PER_USER", 50);
}

/* A queue of u from the legacy GET /events?dont_block=true (no initial state: quick); its id. */
static const char *legacy_queue(const struct user *u)
{
	struct resp *r = api_get(u, "/events?dont_block=true");
	EXPECT_SUCCESS(r);
	const char *q = jstr(r->json, "queue_id");
	REQUIRE(q != NULL, "no queue_id: %s", r->body);
	return q;
}

/* ---- polls held on sockets of their own ---------------------------------------------------------------------- */

/* Starts a blocking GET /events of u on queue qid (HTTP/1.0: the answer ends with the connection); its socket. */
static int poll_start(const struct user *u, const char *qid)
{
	const char *colon = strrchr(itest_hostport, ':');
	struct addrinfo hints = {.ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM}, *ai = NULL;
	REQUIRE(getaddrinfo(itest_hostname, colon ? colon + 1 : "80", &hints, &ai) == 0, "cannot resolve %s",
	        itest_hostport);
	int fd = socket(ai->ai_family, ai->ai_socktype, ai->ai_protocol);
	bool ok = fd >= 0 && connect(fd, ai->ai_addr, ai->ai_addrlen) == 0;
	freeaddrinfo(ai);
	REQUIRE(ok, "cannot connect to %s", itest_hostport);
	const char *credentials = fmt("%s:%s", u->email, u->key);
	const char *req = fmt("GET /api/v1/events?queue_id=%s&last_event_id=-1 HTTP/1.0\r\nHost: %s\r\n"
	                      "Authorization: Basic %s\r\n\r\n",
	                      qid, realm_host(u->realm), base64(credentials, strlen(credentials)));
	REQUIRE(send(fd, req, strlen(req), MSG_NOSIGNAL) == (ssize_t)strlen(req), "could not send the poll");
	return fd;
}

/* The answer of a poll started by poll_start() (waiting up to 90 s: longer than a heartbeat), and closes it. */
static struct resp *poll_answer(int fd)
{
	struct timeval tv = {90, 0};
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	size_t cap = 1 << 16, got = 0;
	char *buf = keep(malloc(cap + 1));
	ssize_t n;
	while (got < cap && (n = recv(fd, buf + got, cap - got, 0)) > 0)
		got += (size_t)n;
	close(fd);
	buf[got] = '\0';
	struct resp *r = keep(calloc(1, sizeof(*r)));
	sscanf(buf, "HTTP/1.%*d %ld", &r->status);
	char *body = strstr(buf, "\r\n\r\n");
	r->body = body ? body + 4 : buf;
	r->json = keep_json(json_tokener_parse(r->body));
	r->what = "held GET /api/v1/events";
	return r;
}

/* How many of queues[0..n) have a poll waiting on them (the waiter each poll registers in Redis; redis-cli prints an
 * empty line for the others, which strtok() skips). */
static int waiting_polls(const char *const *queues, int n)
{
	char *args = malloc((size_t)n * 40 + 32), *p = args;
	REQUIRE(args != NULL, "out of memory");
	p += sprintf(p, "ZMSCORE confab:waiting");
	for (int i = 0; i < n; i++)
		p += sprintf(p, " %.36s", queues[i]);
	char *out = redis_cli(args);
	free(args);
	int found = 0;
	for (char *line = strtok(out, "\n"); line != NULL; line = strtok(NULL, "\n"))
		found += *line != '\0';
	return found;
}

/* Waits (up to 60 s) until every one of queues[0..n) has its poll waiting. */
static void await_polls(const char *const *queues, int n)
{
	int found = 0;
	for (int i = 0; i < 600 && (found = waiting_polls(queues, n)) < n; i++)
		usleep(100000);
	REQUIRE(found == n, "%d of %d polls waiting after 60 s", found, n);
}

/* ---- item 3: queues and events ------------------------------------------------------------------------------- */

/* Checks that a poll answered one event, the message id; returns the event's id. */
static int64_t expect_message(const struct resp *r, int64_t id)
{
	EXPECT_SUCCESS(r);
	json_object *events = jget(r->json, "events");
	REQUIRE(events != NULL && json_object_array_length(events) == 1, "%s", r->body);
	EXPECT_INT(jget(json_object_array_get_idx(events, 0), "message"), "id", id);
	return jint(json_object_array_get_idx(events, 0), "id");
}

static void expect_bad_queue(const struct resp *r, const char *qid)
{
	EXPECT_ERROR(r, 400, "BAD_EVENT_QUEUE_ID", fmt("Bad event queue ID: %s", qid));
	EXPECT_STR(r->json, "queue_id", qid);
}

/*
 * One queue more than event_queues_per_user discards the user's least recently used one: of queues no poll waits on,
 * the oldest. The queue whose poll waits (the oldest of all) stays, and its poll gets the next message.
 */
static void test_queues_per_user(void)
{
	int cap = queues_per_user();
	struct user *u = new_user("member"), *other = new_user("member");
	const char **q = keep(calloc((size_t)cap + 1, sizeof(*q)));
	for (int i = 0; i < cap; i++)
		q[i] = legacy_queue(u);
	int held = poll_start(u, q[0]);
	await_polls(q, 1);
	q[cap] = legacy_queue(u);
	expect_bad_queue(api_get(u, fmt("/events?queue_id=%s&last_event_id=-1&dont_block=true", q[1])), q[1]);
	int64_t id = send_direct_message(other, fmt("[%lld]", (long long)u->id), "after the bound");
	expect_message(poll_answer(held), id);
	for (int i = 2; i <= cap; i++)
		expect_message(api_get(u, fmt("/events?queue_id=%s&last_event_id=-1&dont_block=true", q[i])), id);
}

/*
 * A queue nobody reads is discarded once its events would pass event_queue_max_bytes (4 MiB): its next poll answers
 * BAD_EVENT_QUEUE_ID, as after a restart. A queue of the same user that is read all along gets every message.
 */
static void test_queue_bytes_bound(void)
{
	struct user *u = new_user("member"), *other = new_user("member");
	struct queue *idle = queue_register(u, "event_types=%5B%22message%22%5D");
	struct queue *read = queue_register(u, "event_types=%5B%22message%22%5D");
	/* 1,250 emoji: 10,000 characters, some 130 KB of event (the HTML with the Markdown). */
	char *content = repeat(' ', 10000);
	for (int i = 0; i < 1250; i++)
		memcpy(content + 8 * i, ":smile: ", 8);
	int sends = config_int("CONFAB_EVENT_QUEUE_MAX_BYTES", 4194304) / 120000 + 2;
	for (int i = 0; i < sends; i++) {
		int64_t id = send_direct_message(other, fmt("[%lld]", (long long)u->id), content);
		json_object *events = queue_drain(read);
		REQUIRE(json_object_array_length(events) == 1, "message %d: %s", i, jtext(events));
		EXPECT_INT(jget(json_object_array_get_idx(events, 0), "message"), "id", id);
	}
	expect_bad_queue(api_get(u, fmt("/events?queue_id=%s&last_event_id=-1&dont_block=true", idle->id)), idle->id);
}

/*
 * Redis past its maxmemory (set to 1 byte here) refuses every write that would grow it: POST /register and a blocking
 * GET /events answer 503, a dont_block poll still answers, and a message sent meanwhile is committed (200) and
 * reaches the queue exactly once when Redis takes writes again (the reaper publishes it from the outbox).
 */
static void test_redis_full(void)
{
	struct user *u = new_user("member"), *other = new_user("member");
	struct queue *q = queue_register(u, "event_types=%5B%22message%22%5D");
	char *limit = redis_cli("CONFIG GET maxmemory");
	limit = strchr(limit, '\n') ? strchr(limit, '\n') + 1 : "0";
	REQUIRE(strcmp(redis_cli("CONFIG SET maxmemory 1"), "OK") == 0, "CONFIG SET maxmemory failed");
	/* Nothing fatal until the limit is back. */
	struct resp *reg = api_post(u, "/register", "event_types=%5B%22message%22%5D");
	struct resp *blocking = api_get(u, fmt("/events?queue_id=%s&last_event_id=-1", q->id));
	struct resp *sent = api_post(other, "/messages", fmt("type=direct&to=%%5B%lld%%5D&content=full", (long long)u->id));
	struct resp *read = api_get(u, fmt("/events?queue_id=%s&last_event_id=-1&dont_block=true", q->id));
	REQUIRE(strcmp(redis_cli(fmt("CONFIG SET maxmemory %s", limit)), "OK") == 0, "could not restore maxmemory");
	EXPECT_ERROR(reg, 503, "SERVICE_UNAVAILABLE", "Service temporarily unavailable");
	EXPECT_ERROR(blocking, 503, "SERVICE_UNAVAILABLE", "Service temporarily unavailable");
	EXPECT_SUCCESS(read);
	EXPECT_SUCCESS(sent);
	int64_t id = jint(sent->json, "id");
	/* The reaper publishes the outbox row within seconds: a blocking poll waits for it. */
	q->last = expect_message(http(&(struct request){.path = fmt("/api/v1/events?queue_id=%s&last_event_id=-1", q->id),
	                                                .user = u,
	                                                .timeout = 60}),
	                         id);
	EXPECT_NO_EVENTS(q);
}

/* ---- item 4: held polls ---------------------------------------------------------------------------------------- */

/*
 * A user holding a poll on every one of its event_queues_per_user queues and registering one more loses the oldest
 * queue: that poll answers BAD_EVENT_QUEUE_ID (the client registers again); the others go on and get the next
 * message. So one user never holds more polls than that.
 */
static void test_held_polls_per_user(void)
{
	int cap = queues_per_user();
	struct user *u = new_user("member"), *other = new_user("member");
	const char **q = keep(calloc((size_t)cap + 1, sizeof(*q)));
	int *held = keep(calloc((size_t)cap, sizeof(*held)));
	for (int i = 0; i < cap; i++) {
		q[i] = legacy_queue(u);
		held[i] = poll_start(u, q[i]);
	}
	await_polls(q, cap);
	q[cap] = legacy_queue(u);
	expect_bad_queue(poll_answer(held[0]), q[0]);
	int64_t id = send_direct_message(other, fmt("[%lld]", (long long)u->id), "to the polls held");
	for (int i = 1; i < cap; i++)
		expect_message(poll_answer(held[i]), id);
}

/* The threads that serve requests in the events group: CONFAB_THREADS of each of its workers. */
static int events_threads(void)
{
	pid_t kids[64];
	int n = proc_children(group_supervisor("events"), "confab-worker", kids, 64), total = 0;
	static char env[1 << 16];
	for (int i = 0; i < n; i++) {
		size_t len = 0;
		if (!proc_read(kids[i], "environ", env, sizeof(env), &len))
			continue;
		for (size_t k = 0; k < len; k += strlen(env + k) + 1)
			if (strncmp(env + k, "CONFAB_THREADS=", 15) == 0)
				total += atoi(env + k + 15);
	}
	return total;
}

/*
 * Users holding as many polls as they may, more than the events group has threads, keep another user's dont_block
 * poll from no answer: it runs in the api group. (Before, it waited in the events group's backlog until a held poll
 * ended, at its heartbeat 45-55 s later, or nginx gave up.)
 */
static void test_dont_block_beside_held_polls(void)
{
	int cap = queues_per_user(), threads = events_threads();
	REQUIRE(threads > 0, "no events worker found");
	int nusers = threads / cap + 1, n = nusers * cap;
	struct user *other = new_user("member"), *sender = new_user("member");
	const char **q = keep(calloc((size_t)n, sizeof(*q)));
	int *held = keep(calloc((size_t)n, sizeof(*held)));
	/* The users first: their creation is an event for every queue of the organization (a poll would answer it). */
	struct user **users = keep(calloc((size_t)nusers, sizeof(*users)));
	char *to = fmt("[%lld", (long long)other->id);
	for (int k = 0; k < nusers; k++) {
		users[k] = new_user("member");
		to = fmt("%s,%lld", to, (long long)users[k]->id);
	}
	const char *mine = legacy_queue(other);
	for (int i = 0; i < n; i++)
		q[i] = legacy_queue(users[i / cap]);
	/* Polls other tests left waiting hold threads too: ours fill the others. */
	int others = atoi(redis_cli("ZCARD confab:waiting")), want = threads > others ? threads - others : 1, waiting = 0;
	for (int i = 0; i < n; i++)
		held[i] = poll_start(users[i / cap], q[i]);
	fprintf(stderr, " [%d polls of %d users, %d events threads, %d held before] ", n, nusers, threads, others);
	for (int i = 0; i < 600 && (waiting = waiting_polls(q, n)) < want; i++)
		usleep(100000);
	CHECK(waiting >= want, "%d of our polls waiting, %d threads, %d polls held before", waiting, threads, others);
	struct resp *r = http(&(struct request){
	    .path = fmt("/api/v1/events?queue_id=%s&last_event_id=-1&dont_block=true", mine), .user = other, .timeout = 20});
	/* One message to every user wakes every poll, the ones in the backlog included. */
	int64_t id = send_direct_message(sender, fmt("%s]", to), "wake up");
	for (int i = 0; i < n; i++)
		expect_message(poll_answer(held[i]), id);
	EXPECT_SUCCESS(r);
	json_object *events = jget(r->json, "events");
	CHECK(events != NULL && json_object_array_length(events) == 0, "%s", r->body);
}

void register_queue_limits_tests(void)
{
	static const struct itest_case cases[] = {
	    {"queues_per_user", test_queues_per_user},
	    {"queue_bytes_bound", test_queue_bytes_bound},
	    {"redis_full", test_redis_full},
	    {"held_polls_per_user", test_held_polls_per_user},
	    {"dont_block_beside_held_polls", test_dont_block_beside_held_polls},
	    {NULL, NULL},
	};
	itest_add_suite("queue_limits", cases);
}
