/*
 * Scheduled messages: POST/GET/PATCH/DELETE /scheduled_messages with every check and message of the reference,
 * the objects in register and their scheduled_messages events (add, update, remove) to the owner's queues only,
 * and delivery by confab-reaper: on time in a registered queue and exactly once, with a second reaper running, and
 * across a kill -9 of the reaper in the middle of a delivery; a message that cannot be sent becomes failed with
 * Notification Bot's notice to its sender.
 * Reference: Zulip zerver/views/scheduled_messages.py, zerver/actions/scheduled_messages.py
 * (try_deliver_one_scheduled_message, send_failed_scheduled_message_notification), zerver/lib/scheduled_messages.py,
 * zerver/lib/recipient_parsing.py and zerver/tests/test_scheduled_messages.py. The process helpers need
 * CONFAB_RUN_DIR (reaper.pid names the reaper's confab-supervise) and the right to signal the reaper (root).
 */
#include <dirent.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "itest.h"

static unsigned counter;

static const char *name_of(const char *tag)
{
	return fmt("sched-%s-%u-%ld", tag, ++counter, (long)getpid());
}

/* Creates a channel as u with u subscribed; returns its id. */
static int64_t make_channel(const struct user *u, const char *name)
{
	struct resp *r = api_post(u, "/users/me/subscriptions",
	                          fmt("subscriptions=%s", url_encode(fmt("[{\"name\":\"%s\"}]", name))));
	REQUIRE(r->status == 200, "creating channel %s: %s", name, r->body);
	return atoll(psql_ok("SELECT c.id FROM channels c JOIN users u ON u.realm_id = c.realm_id WHERE u.id = %lld"
	                     " AND c.name = '%s'",
	                     (long long)u->id, name));
}

static struct resp *schedule(const struct user *u, const char *form)
{
	return api_post(u, "/scheduled_messages", form);
}

/* A scheduled message that must be accepted; its id. */
static int64_t schedule_ok(const struct user *u, const char *form)
{
	struct resp *r = schedule(u, form);
	REQUIRE(r->status == 200, "POST /scheduled_messages %s: %s", form, r->body);
	EXPECT_KEYS(r->json, "result", "msg", "scheduled_message_id");
	return jint(r->json, "scheduled_message_id");
}

static const char *channel_form(int64_t channel, const char *topic, const char *content, long long at)
{
	return fmt("type=channel&to=%lld&topic=%s&content=%s&scheduled_delivery_timestamp=%lld", (long long)channel,
	           url_encode(topic), url_encode(content), at);
}

static const char *direct_form(const char *to, const char *content, long long at)
{
	return fmt("type=direct&to=%s&content=%s&scheduled_delivery_timestamp=%lld", url_encode(to), url_encode(content),
	           at);
}

static struct resp *edit(const struct user *u, int64_t id, const char *form)
{
	return http(&(struct request){.method = "PATCH",
	                              .path = fmt("/api/v1/scheduled_messages/%lld", (long long)id),
	                              .user = u,
	                              .form = form});
}

static struct resp *delete_scheduled(const struct user *u, int64_t id)
{
	return api_method("DELETE", u, fmt("/scheduled_messages/%lld", (long long)id));
}

static json_object *list_of(const struct user *u)
{
	struct resp *r = api_get(u, "/scheduled_messages");
	EXPECT_STATUS(r, 200);
	EXPECT_KEYS(r->json, "result", "msg", "scheduled_messages");
	json_object *list = jget(r->json, "scheduled_messages");
	REQUIRE(json_object_is_type(list, json_type_array), "scheduled_messages: %s", r->body);
	return list;
}

/* The ScheduledMessage object of the OpenAPI file: exactly its keys, topic only for channel messages. */
static void expect_object(json_object *o, int64_t id, const char *type, const char *to, const char *topic,
                          const char *content, const char *rendered, long long at, bool failed)
{
	if (topic)
		EXPECT_KEYS(o, "scheduled_message_id", "type", "to", "topic", "content", "rendered_content",
		            "scheduled_delivery_timestamp", "failed");
	else
		EXPECT_KEYS(o, "scheduled_message_id", "type", "to", "content", "rendered_content",
		            "scheduled_delivery_timestamp", "failed");
	EXPECT_INT(o, "scheduled_message_id", id);
	EXPECT_STR(o, "type", type);
	CHECK(strcmp(jtext(jget(o, "to")), to) == 0, "to is %s, expected %s", jtext(jget(o, "to")), to);
	if (topic)
		EXPECT_STR(o, "topic", topic);
	EXPECT_STR(o, "content", content);
	EXPECT_STR(o, "rendered_content", rendered);
	EXPECT_INT(o, "scheduled_delivery_timestamp", at);
	EXPECT_BOOL(o, "failed", failed);
}

static struct queue *sched_queue(const struct user *u)
{
	return queue_register(u, "event_types=%5B%22scheduled_messages%22%5D");
}

static long long later(int secs)
{
	return (long long)time(NULL) + secs;
}

/* ---- create, list, register, events ------------------------------------------------------------------------- */

static void test_create_and_list(void)
{
	struct user *a = new_user("member"), *b = new_user("member");
	int64_t channel = make_channel(a, name_of("create"));
	struct queue *qa = sched_queue(a), *qb = sched_queue(b);
	long long t1 = later(3600), t2 = later(1800);
	int64_t s1 = schedule_ok(a, channel_form(channel, "greetings", "hello **world**", t1));
	int64_t s2 = schedule_ok(a, direct_form(fmt("[%lld]", (long long)b->id), "psst", t2));
	json_object *list = list_of(a);
	REQUIRE(json_object_array_length(list) == 2, "two scheduled messages: %s", jtext(list));
	/* Ordered by delivery time. */
	expect_object(json_object_array_get_idx(list, 0), s2, "private", fmt("[%lld]", (long long)b->id), NULL, "psst",
	              "<p>psst</p>", t2, false);
	expect_object(json_object_array_get_idx(list, 1), s1, "stream", fmt("%lld", (long long)channel), "greetings",
	              "hello **world**", "<p>hello <strong>world</strong></p>", t1, false);
	json_object *events = queue_drain(qa);
	REQUIRE(json_object_array_length(events) == 2, "two add events: %s", jtext(events));
	json_object *e = json_object_array_get_idx(events, 0);
	EXPECT_KEYS(e, "type", "op", "scheduled_messages");
	EXPECT_STR(e, "type", "scheduled_messages");
	EXPECT_STR(e, "op", "add");
	REQUIRE(json_object_array_length(jget(e, "scheduled_messages")) == 1, "one object: %s", jtext(e));
	expect_object(json_object_array_get_idx(jget(e, "scheduled_messages"), 0), s1, "stream",
	              fmt("%lld", (long long)channel), "greetings", "hello **world**",
	              "<p>hello <strong>world</strong></p>", t1, false);
	CHECK(json_object_array_length(queue_drain(qb)) == 0, "the recipient hears nothing of it");
	CHECK(json_object_array_length(list_of(b)) == 0, "b has no scheduled messages");
	/* register */
	struct resp *r = api_post(a, "/register", "fetch_event_types=%5B%22scheduled_messages%22%5D");
	EXPECT_STATUS(r, 200);
	CHECK(strcmp(jtext(jget(r->json, "scheduled_messages")), jtext(list)) == 0, "register: %s, GET: %s",
	      jtext(jget(r->json, "scheduled_messages")), jtext(list));
}

/* "channel" and "stream" are channel messages, "direct" and "private" direct ones; a message to oneself. */
static void test_type_mapping(void)
{
	struct user *a = new_user("member");
	int64_t channel = make_channel(a, name_of("types"));
	long long t = later(600);
	schedule_ok(a, fmt("type=stream&to=%lld&topic=x&content=s&scheduled_delivery_timestamp=%lld", (long long)channel,
	                   t));
	schedule_ok(a, fmt("type=private&to=%s&content=p&scheduled_delivery_timestamp=%lld",
	                   url_encode(fmt("[%lld]", (long long)a->id)), t + 1));
	json_object *list = list_of(a);
	REQUIRE(json_object_array_length(list) == 2, "%s", jtext(list));
	EXPECT_STR(json_object_array_get_idx(list, 0), "type", "stream");
	EXPECT_STR(json_object_array_get_idx(list, 1), "type", "private");
	CHECK(strcmp(jtext(jget(json_object_array_get_idx(list, 1), "to")), fmt("[%lld]", (long long)a->id)) == 0,
	      "to oneself: %s", jtext(list));
}

static void test_create_errors(void)
{
	struct user *a = new_user("member"), *b = new_user("member");
	int64_t channel = make_channel(a, name_of("errors"));
	long long t = later(600);
	const char *to_b = fmt("[%lld]", (long long)b->id);
	EXPECT_ERROR(schedule(a, fmt("type=bogus&to=1&content=x&scheduled_delivery_timestamp=%lld", t)), 400,
	             "BAD_REQUEST", "Invalid type");
	EXPECT_ERROR(schedule(a, channel_form(channel, "t", "x", later(-5))), 400, "BAD_REQUEST",
	             "Scheduled delivery time must be in the future.");
	EXPECT_ERROR(schedule(a, channel_form(channel, "t", "x", later(0))), 400, "BAD_REQUEST",
	             "Scheduled delivery time must be in the future.");
	EXPECT_ERROR(schedule(a, fmt("type=channel&to=%s&topic=t&content=x&scheduled_delivery_timestamp=%lld",
	                             url_encode(fmt("[%lld]", (long long)channel)), t)),
	             400, "BAD_REQUEST", "Invalid data type for channel ID");
	EXPECT_ERROR(schedule(a, direct_form(fmt("%lld", (long long)b->id), "x", t)), 400, "BAD_REQUEST",
	             "Invalid data type for recipients");
	EXPECT_ERROR(schedule(a, direct_form("[\"x\"]", "x", t)), 400, "BAD_REQUEST", "to[\"int\"] is not an integer");
	EXPECT_ERROR(schedule(a, fmt("type=channel&to=%lld&content=x&scheduled_delivery_timestamp=%lld",
	                             (long long)channel, t)),
	             400, "BAD_REQUEST", "Missing topic");
	struct resp *r = schedule(a, channel_form(999999999, "t", "x", t));
	EXPECT_ERROR(r, 400, "STREAM_DOES_NOT_EXIST", "Channel with ID '999999999' does not exist");
	EXPECT_INT(r->json, "stream_id", 999999999);
	EXPECT_ERROR(schedule(a, direct_form("[999999999]", "x", t)), 400, "BAD_REQUEST", "Invalid user ID 999999999");
	EXPECT_ERROR(schedule(a, direct_form("[]", "x", t)), 400, "BAD_REQUEST", "Message must have recipients");
	EXPECT_ERROR(schedule(a, direct_form(to_b, "  ", t)), 400, "BAD_REQUEST", "Message must not be empty");
	EXPECT_ERROR(schedule(a, channel_form(channel, "a\x01", "x", t)), 400, "BAD_REQUEST",
	             "Invalid character in topic, at position 2!");
	EXPECT_ERROR(schedule(a, fmt("type=direct&to=%s&content=x", url_encode(to_b))), 400,
	             "REQUEST_VARIABLE_MISSING", "Missing 'scheduled_delivery_timestamp' argument");
	CHECK(json_object_array_length(list_of(a)) == 0, "nothing stored: %s", jtext(list_of(a)));
}

/* The send checks of the channel: an archived one refuses, as sending now would. */
static void test_create_send_checks(void)
{
	struct user *a = new_user("member");
	const char *name = name_of("archived");
	int64_t channel = make_channel(a, name);
	psql_ok("UPDATE channels SET is_archived = true WHERE id = %lld", (long long)channel);
	struct resp *r = schedule(a, channel_form(channel, "t", "x", later(600)));
	struct resp *now = api_post(a, "/messages", fmt("type=channel&to=%lld&topic=t&content=x", (long long)channel));
	EXPECT_STATUS(r, 400);
	CHECK(r->status == now->status && strcmp(r->body, now->body) == 0, "scheduled: %s, sent now: %s", r->body,
	      now->body);
	CHECK(json_object_array_length(list_of(a)) == 0, "nothing stored");
}

/* ---- edit --------------------------------------------------------------------------------------------------- */

static void test_edit_errors(void)
{
	struct user *a = new_user("member"), *b = new_user("member");
	int64_t channel = make_channel(a, name_of("edit"));
	int64_t id = schedule_ok(a, channel_form(channel, "t", "x", later(600)));
	EXPECT_ERROR(edit(a, id, ""), 400, "BAD_REQUEST", "Nothing to change");
	EXPECT_ERROR(edit(a, id, "type=direct"), 400, "BAD_REQUEST",
	             "Recipient required when updating type of scheduled message.");
	EXPECT_ERROR(edit(a, id, fmt("type=channel&to=%lld", (long long)channel)), 400, "BAD_REQUEST",
	             "Topic required when updating scheduled message type to channel.");
	EXPECT_ERROR(edit(a, id, fmt("scheduled_delivery_timestamp=%lld", later(-1))), 400, "BAD_REQUEST",
	             "Scheduled delivery time must be in the future.");
	EXPECT_ERROR(edit(a, 999999999, "content=y"), 404, "BAD_REQUEST", "Scheduled message does not exist");
	struct resp *r = edit(a, id, "to=999999999");
	EXPECT_ERROR(r, 400, "STREAM_DOES_NOT_EXIST", "Channel with ID '999999999' does not exist");
	EXPECT_INT(r->json, "stream_id", 999999999);
	EXPECT_ERROR(edit(a, id, "type=direct&to=%5B999999999%5D"), 400, "BAD_REQUEST", "Invalid user ID 999999999");
	EXPECT_ERROR(edit(a, id, "to=%5B%22x%22%5D"), 400, "BAD_REQUEST", "to[\"int\"] is not an integer");
	EXPECT_ERROR(edit(a, id, "content=%20"), 400, "BAD_REQUEST", "Message must not be empty");
	/* Another user's message does not exist for them, and stays as it is. */
	EXPECT_ERROR(edit(b, id, "content=y"), 404, "BAD_REQUEST", "Scheduled message does not exist");
	EXPECT_ERROR(delete_scheduled(b, id), 404, "BAD_REQUEST", "Scheduled message does not exist");
	json_object *list = list_of(a);
	REQUIRE(json_object_array_length(list) == 1, "%s", jtext(list));
	EXPECT_STR(json_object_array_get_idx(list, 0), "content", "x");
	EXPECT_STR(json_object_array_get_idx(list, 0), "topic", "t");
}

/* The update event after each successful edit carries the whole object. */
static json_object *update_event(struct queue *q)
{
	json_object *events = queue_drain(q);
	REQUIRE(json_object_array_length(events) == 1, "one update event: %s", jtext(events));
	json_object *e = json_object_array_get_idx(events, 0);
	EXPECT_KEYS(e, "type", "op", "scheduled_message");
	EXPECT_STR(e, "type", "scheduled_messages");
	EXPECT_STR(e, "op", "update");
	return jget(e, "scheduled_message");
}

static void test_edit(void)
{
	struct user *a = new_user("member"), *b = new_user("member");
	int64_t channel = make_channel(a, name_of("edit")), other = make_channel(a, name_of("other"));
	long long t = later(600), t2 = later(900);
	int64_t id = schedule_ok(a, channel_form(channel, "t", "x", t));
	struct queue *q = sched_queue(a), *qb = sched_queue(b);
	const char *ch = fmt("%lld", (long long)channel), *ch2 = fmt("%lld", (long long)other);
	const char *to_b = fmt("[%lld]", (long long)b->id);
	EXPECT_SUCCESS(edit(a, id, "content=*new*"));
	expect_object(update_event(q), id, "stream", ch, "t", "*new*", "<p><em>new</em></p>", t, false);
	EXPECT_SUCCESS(edit(a, id, "topic=moved"));
	expect_object(update_event(q), id, "stream", ch, "moved", "*new*", "<p><em>new</em></p>", t, false);
	EXPECT_SUCCESS(edit(a, id, fmt("to=%lld", (long long)other)));
	expect_object(update_event(q), id, "stream", ch2, "moved", "*new*", "<p><em>new</em></p>", t, false);
	EXPECT_SUCCESS(edit(a, id, fmt("scheduled_delivery_timestamp=%lld", t2)));
	expect_object(update_event(q), id, "stream", ch2, "moved", "*new*", "<p><em>new</em></p>", t2, false);
	EXPECT_SUCCESS(edit(a, id, fmt("type=direct&to=%s", url_encode(to_b))));
	expect_object(update_event(q), id, "private", to_b, NULL, "*new*", "<p><em>new</em></p>", t2, false);
	/* A topic for a direct message is ignored (the edit succeeds). */
	EXPECT_SUCCESS(edit(a, id, "topic=ignored"));
	expect_object(update_event(q), id, "private", to_b, NULL, "*new*", "<p><em>new</em></p>", t2, false);
	EXPECT_SUCCESS(edit(a, id, fmt("type=stream&to=%lld&topic=back", (long long)channel)));
	expect_object(update_event(q), id, "stream", ch, "back", "*new*", "<p><em>new</em></p>", t2, false);
	CHECK(json_object_array_length(queue_drain(qb)) == 0, "only the owner's queues");
	expect_object(json_object_array_get_idx(list_of(a), 0), id, "stream", ch, "back", "*new*", "<p><em>new</em></p>",
	              t2, false);
}

static void test_delete(void)
{
	struct user *a = new_user("member"), *b = new_user("member");
	int64_t id = schedule_ok(a, direct_form(fmt("[%lld]", (long long)b->id), "bye", later(600)));
	struct queue *q = sched_queue(a), *qb = sched_queue(b);
	EXPECT_SUCCESS(delete_scheduled(a, id));
	json_object *events = queue_drain(q);
	REQUIRE(json_object_array_length(events) == 1, "one remove event: %s", jtext(events));
	json_object *e = json_object_array_get_idx(events, 0);
	EXPECT_KEYS(e, "type", "op", "scheduled_message_id");
	EXPECT_STR(e, "type", "scheduled_messages");
	EXPECT_STR(e, "op", "remove");
	EXPECT_INT(e, "scheduled_message_id", id);
	CHECK(json_object_array_length(queue_drain(qb)) == 0, "only the owner's queues");
	CHECK(json_object_array_length(list_of(a)) == 0, "gone");
	EXPECT_ERROR(delete_scheduled(a, id), 404, "BAD_REQUEST", "Scheduled message does not exist");
	EXPECT_ERROR(edit(a, id, "content=y"), 404, "BAD_REQUEST", "Scheduled message does not exist");
}

/* ---- delivery ----------------------------------------------------------------------------------------------- */

/* The events of one queue drained but not yet taken by await_event(); owned by a response of the current test. */
static struct {
	char queue_id[64]; /* queue ids are UUIDs: never the same in two tests */
	json_object *events;
} backlog;

/* Takes (marks) the first event of type (and op) not taken yet from the backlog; NULL if there is none. */
static json_object *take(const char *type, const char *op)
{
	for (size_t k = 0; k < json_object_array_length(backlog.events); k++) {
		json_object *e = json_object_array_get_idx(backlog.events, k);
		if (!jhas(e, "_taken") && strcmp(jstr(e, "type"), type) == 0 &&
		    (op == NULL || (jstr(e, "op") && !strcmp(jstr(e, "op"), op)))) {
			json_object_object_add(e, "_taken", json_object_new_boolean(true));
			return e;
		}
	}
	return NULL;
}

/* Drains q until an event of type (and op) arrives, for up to secs seconds; the event, or NULL. Events of other
 * types stay for later calls. */
static json_object *await_event(struct queue *q, const char *type, const char *op, int secs)
{
	if (strcmp(backlog.queue_id, q->id) != 0) {
		struct resp *holder = api_get(q->u, "/users/me");
		REQUIRE(holder->json != NULL, "GET /users/me: %s", holder->body);
		snprintf(backlog.queue_id, sizeof(backlog.queue_id), "%s", q->id);
		backlog.events = json_object_new_array();
		json_object_object_add(holder->json, "_backlog", backlog.events);
	}
	for (int i = 0; i <= secs * 10; i++) {
		json_object *events = queue_drain(q), *e;
		for (size_t k = 0; k < json_object_array_length(events); k++)
			json_object_array_add(backlog.events, json_object_get(json_object_array_get_idx(events, k)));
		if ((e = take(type, op)) != NULL)
			return e;
		usleep(100000);
	}
	return NULL;
}

/* How many messages u received with this exact content. */
static int count_received(const struct user *u, const char *content)
{
	return atoi(psql_ok("SELECT count(*) FROM user_messages um JOIN messages m ON m.id = um.message_id"
	                    " WHERE um.user_id = %lld AND m.content = '%s'",
	                    (long long)u->id, content));
}

/* Waits up to secs seconds until scheduled message id is delivered or failed. */
static bool await_handled(int64_t id, int secs)
{
	for (int i = 0; i < secs * 10; i++) {
		if (strcmp(psql_ok("SELECT delivered OR failed FROM scheduled_messages WHERE id = %lld", (long long)id),
		           "t") == 0)
			return true;
		usleep(100000);
	}
	return false;
}

static void test_delivery_on_time(void)
{
	struct user *a = new_user("member"), *b = new_user("member");
	struct queue *qa = queue_register(a, "apply_markdown=false"), *qb = queue_register(b, "apply_markdown=false");
	const char *content = name_of("on-time");
	long long t = later(2);
	int64_t id = schedule_ok(a, direct_form(fmt("[%lld]", (long long)b->id), content, t));
	json_object *e = await_event(qb, "message", NULL, 15);
	REQUIRE(e != NULL, "no message within 15 s of scheduling it");
	json_object *m = jget(e, "message");
	EXPECT_STR(m, "content", content);
	EXPECT_INT(m, "sender_id", a->id);
	int64_t sent_at = jint(m, "timestamp");
	CHECK(sent_at >= t && sent_at <= t + 2, "sent at %lld, scheduled for %lld", (long long)sent_at, t);
	/* The sender's queues: the message itself, then the scheduled message's removal. */
	json_object *removed = await_event(qa, "scheduled_messages", "remove", 5);
	REQUIRE(removed != NULL, "no remove event for the sender");
	EXPECT_INT(removed, "scheduled_message_id", id);
	CHECK(json_object_array_length(list_of(a)) == 0, "delivered messages are not listed");
	EXPECT_ERROR(edit(a, id, "content=late"), 400, "BAD_REQUEST", "Scheduled message was already sent");
	usleep(2500000);
	CHECK(json_object_array_length(queue_drain(qb)) == 0, "delivered once in the queue");
	CHECK(count_received(b, content) == 1, "received %d times", count_received(b, content));
}

/* Drains q until it holds a message event, up to secs seconds; returns how many message events it saw. */
static int count_message_events(struct queue *q, int secs)
{
	int n = 0;
	for (int i = 0; i < secs * 10; i++) {
		json_object *events = queue_drain(q);
		for (size_t k = 0; k < json_object_array_length(events); k++)
			n += strcmp(jstr(json_object_array_get_idx(events, k), "type"), "message") == 0;
		usleep(100000);
	}
	return n;
}

/* ---- the reaper's processes --------------------------------------------------------------------------------- */

static const char *run_dir(void)
{
	const char *d = getenv("CONFAB_RUN_DIR");
	REQUIRE(d != NULL && *d != '\0', "CONFAB_RUN_DIR is not set");
	return d;
}

/* Contents of /proc/<pid>/<what> (NUL bytes kept; *len the length), or NULL. */
static char *proc_file(pid_t pid, const char *what, size_t *len)
{
	FILE *f = fopen(fmt("/proc/%d/%s", (int)pid, what), "r");
	if (f == NULL)
		return NULL;
	char *buf = keep(calloc(1, 65536));
	*len = fread(buf, 1, 65535, f);
	fclose(f);
	return buf;
}

/* The confab-reaper child of the reaper's supervisor (RUN_DIR/reaper.pid), or 0. */
static pid_t stack_reaper(void)
{
	size_t len;
	char *pidtext = keep(calloc(1, 64));
	FILE *f = fopen(fmt("%s/reaper.pid", run_dir()), "r");
	REQUIRE(f != NULL && fgets(pidtext, 64, f) != NULL, "cannot read %s/reaper.pid", run_dir());
	fclose(f);
	long sup = atol(pidtext);
	DIR *d = opendir("/proc");
	REQUIRE(d != NULL, "cannot read /proc");
	pid_t found = 0;
	for (struct dirent *e; found == 0 && (e = readdir(d)) != NULL;) {
		long pid = atol(e->d_name);
		char *stat = pid > 0 ? proc_file((pid_t)pid, "stat", &len) : NULL;
		char *cmd = stat ? proc_file((pid_t)pid, "cmdline", &len) : NULL;
		const char *p = stat ? strrchr(stat, ')') : NULL;
		char state;
		long ppid;
		if (p && sscanf(p + 1, " %c %ld", &state, &ppid) == 2 && ppid == sup && state != 'Z' && cmd &&
		    strstr(cmd, "confab-reaper"))
			found = (pid_t)pid;
	}
	closedir(d);
	return found;
}

/* Starts a second reaper: the stack's binary with its configuration. */
static pid_t start_second_reaper(void)
{
	pid_t reaper = stack_reaper();
	REQUIRE(reaper > 0, "no reaper runs under %s/reaper.pid", run_dir());
	char exe[1024];
	ssize_t n = readlink(fmt("/proc/%d/exe", (int)reaper), exe, sizeof(exe) - 1);
	REQUIRE(n > 0, "cannot read /proc/%d/exe", (int)reaper);
	exe[n] = '\0';
	size_t len;
	const char *env = proc_file(reaper, "environ", &len), *config = NULL;
	for (size_t i = 0; env && i < len; i += strlen(env + i) + 1)
		if (strncmp(env + i, "CONFAB_CONFIG=", 14) == 0)
			config = env + i + 14;
	REQUIRE(config != NULL, "the reaper has no CONFAB_CONFIG");
	fflush(NULL);
	pid_t pid = fork();
	REQUIRE(pid >= 0, "fork failed");
	if (pid == 0) {
		setenv("CONFAB_CONFIG", config, 1);
		setenv("CONFAB_LOG_FILE", "/dev/null", 1);
		execl(exe, "confab-reaper", (char *)NULL);
		_exit(127);
	}
	return pid;
}

/* Many messages due in the same second, two reapers claiming at once: each is sent exactly once. */
static void test_two_reapers(void)
{
	enum { N = 12 };
	struct user *a = new_user("member"), *b = new_user("member");
	pid_t second = start_second_reaper();
	struct queue *qb = queue_register(b, "event_types=%5B%22message%22%5D");
	const char *tag = name_of("two");
	long long t = later(3);
	int64_t ids[N];
	for (int i = 0; i < N; i++)
		ids[i] = schedule_ok(a, direct_form(fmt("[%lld]", (long long)b->id), fmt("%s-%d", tag, i), t));
	bool all = true;
	for (int i = 0; i < N; i++)
		all = all && await_handled(ids[i], 15);
	int events = count_message_events(qb, 3);
	kill(second, SIGTERM);
	int status = 0;
	waitpid(second, &status, 0);
	CHECK(all, "not every message was delivered within 15 s");
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0, "the second reaper ended with status %d", status);
	for (int i = 0; i < N; i++)
		CHECK(count_received(b, fmt("%s-%d", tag, i)) == 1, "message %d received %d times", i,
		      count_received(b, fmt("%s-%d", tag, i)));
	CHECK(events == N, "%d message events in the queue, expected %d", events, N);
	CHECK(strcmp(psql_ok("SELECT count(*) FROM scheduled_messages WHERE id BETWEEN %lld AND %lld AND delivered"
	                     " AND NOT failed",
	                     (long long)ids[0], (long long)ids[N - 1]),
	             fmt("%d", N)) == 0,
	      "every one delivered, none failed");
}

/*
 * The reaper is killed (SIGKILL) in the middle of a delivery: it has claimed the message and waits to insert it
 * (a test session holds a lock on messages). Its transaction never commits; the reaper the supervisor starts sends the
 * message once, after the lock is gone.
 */
static void test_kill_reaper_mid_delivery(void)
{
	struct user *a = new_user("member"), *b = new_user("member");
	struct queue *qb = queue_register(b, "event_types=%5B%22message%22%5D");
	const char *content = name_of("killed");
	int64_t id = schedule_ok(a, direct_form(fmt("[%lld]", (long long)b->id), content, later(2)));
	pid_t locker = psql_in_background("BEGIN; LOCK TABLE messages IN EXCLUSIVE MODE; SELECT pg_sleep(8); COMMIT");
	bool waiting = await_lock_wait("INSERT INTO messages", 10);
	pid_t reaper = stack_reaper();
	if (waiting && reaper > 0)
		kill(reaper, SIGKILL);
	waitpid(locker, NULL, 0);
	REQUIRE(waiting, "the reaper never waited to insert the message");
	REQUIRE(reaper > 0, "no reaper to kill");
	CHECK(await_handled(id, 20), "not delivered within 20 s after the kill");
	CHECK(stack_reaper() != reaper && stack_reaper() > 0, "the supervisor started a new reaper");
	CHECK(count_message_events(qb, 3) == 1, "one message event");
	CHECK(count_received(b, content) == 1, "received %d times", count_received(b, content));
}

/* A recipient deactivated before the delivery: failed, with the update event and Notification Bot's notice. */
static void test_failed_with_notice(void)
{
	struct user *a = new_user("member"), *b = new_user("member");
	struct queue *qa = queue_register(a, "apply_markdown=false");
	const char *content = name_of("failing");
	long long t = later(2);
	int64_t id = schedule_ok(a, direct_form(fmt("[%lld]", (long long)b->id), content, t));
	deactivate_user(b);
	json_object *e = await_event(qa, "scheduled_messages", "update", 15);
	REQUIRE(e != NULL, "no update event within 15 s");
	json_object *o = jget(e, "scheduled_message");
	expect_object(o, id, "private", fmt("[%lld]", (long long)b->id), NULL, content, fmt("<p>%s</p>", content), t,
	              true);
	json_object *notice = await_event(qa, "message", NULL, 5);
	REQUIRE(notice != NULL, "no notice");
	json_object *m = jget(notice, "message");
	EXPECT_STR(m, "sender_full_name", "Notification Bot");
	EXPECT_STR(m, "type", "private");
	char when[64];
	time_t tt = (time_t)t;
	strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%S+00:00", gmtime(&tt));
	const char *refusal = psql_ok("SELECT failure_message FROM scheduled_messages WHERE id = %lld", (long long)id);
	CHECK(strstr(refusal, "is no longer using Zulip.") != NULL, "failure: %s", refusal);
	EXPECT_STR(m, "content",
	           fmt("The message you scheduled for <time:%s> was not sent because of the following error:\n\n> %s\n\n"
	               "[View scheduled messages](#scheduled)",
	               when, refusal));
	CHECK(count_received(b, content) == 0, "not sent");
	json_object *list = list_of(a);
	REQUIRE(json_object_array_length(list) == 1, "a failed message is still listed: %s", jtext(list));
	EXPECT_BOOL(json_object_array_get_idx(list, 0), "failed", true);
	/* An edit needs a new time, and clears failed. */
	EXPECT_ERROR(edit(a, id, "content=again"), 400, "BAD_REQUEST", "Scheduled delivery time must be in the future.");
	EXPECT_SUCCESS(edit(a, id, fmt("scheduled_delivery_timestamp=%lld", later(600))));
	json_object *u = await_event(qa, "scheduled_messages", "update", 2);
	REQUIRE(u != NULL, "no update event for the edit");
	EXPECT_BOOL(jget(u, "scheduled_message"), "failed", false);
	EXPECT_BOOL(json_object_array_get_idx(list_of(a), 0), "failed", false);
}

/* A channel archived before the delivery: failed too. */
static void test_failed_archived_channel(void)
{
	struct user *a = new_user("member");
	const char *name = name_of("gone");
	int64_t channel = make_channel(a, name);
	struct queue *qa = queue_register(a, "apply_markdown=false");
	int64_t id = schedule_ok(a, channel_form(channel, "t", "archived later", later(2)));
	psql_ok("UPDATE channels SET is_archived = true WHERE id = %lld", (long long)channel);
	json_object *e = await_event(qa, "scheduled_messages", "update", 15);
	REQUIRE(e != NULL, "no update event within 15 s");
	EXPECT_INT(jget(e, "scheduled_message"), "scheduled_message_id", id);
	EXPECT_BOOL(jget(e, "scheduled_message"), "failed", true);
	json_object *notice = await_event(qa, "message", NULL, 5);
	REQUIRE(notice != NULL, "no notice");
	EXPECT_STR(jget(notice, "message"), "sender_full_name", "Notification Bot");
	CHECK(strcmp(psql_ok("SELECT count(*) FROM messages WHERE channel_id = %lld", (long long)channel), "0") == 0,
	      "nothing sent to the channel");
}

void register_scheduled_messages_tests(void)
{
	static const struct itest_case cases[] = {
	    {"create_and_list", test_create_and_list},
	    {"type_mapping", test_type_mapping},
	    {"create_errors", test_create_errors},
	    {"create_send_checks", test_create_send_checks},
	    {"edit_errors", test_edit_errors},
	    {"edit", test_edit},
	    {"delete", test_delete},
	    {"delivery_on_time", test_delivery_on_time},
	    {"two_reapers", test_two_reapers},
	    {"kill_reaper_mid_delivery", test_kill_reaper_mid_delivery},
	    {"failed_with_notice", test_failed_with_notice},
	    {"failed_archived_channel", test_failed_archived_channel},
	    {NULL, NULL},
	};
	itest_add_suite("scheduled_messages", cases);
}
