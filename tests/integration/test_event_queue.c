/*
 * The event queue itself: GET /events errors, acknowledgement and pruning, DELETE /events, heartbeats.
 * Reference: digest section a; Zulip zerver/tornado/event_queue.py, zerver/tornado/views.py,
 * zerver/tests/test_event_system.py. Queues here come from the legacy form (GET /events?dont_block=true without a
 * queue_id), so that these tests do not depend on POST /register.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

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
	EXPECT_ERROR(r, 400, "REQUEST_VARIABLE_MISSING", "Missing 'queue_id' argument");
	EXPECT_STR(r->json, "var_name", "queue_id");
	r = api_get(u, fmt("/events?queue_id=%s", new_queue(u)));
	EXPECT_ERROR(r, 400, "REQUEST_VARIABLE_MISSING", "Missing 'last_event_id' argument");
	r = api_get(u, fmt("/events?queue_id=%s&last_event_id=x&dont_block=true", new_queue(u)));
	EXPECT_ERROR(r, 400, "BAD_REQUEST", "last_event_id is not valid JSON");
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

void register_event_queue_tests(void)
{
	static const struct itest_case cases[] = {
	    {"missing_arguments", test_missing_arguments},
	    {"unknown_and_foreign_queue", test_unknown_and_foreign_queue},
	    {"empty_queue_and_acknowledgement", test_empty_queue_and_acknowledgement},
	    {"delete_queue", test_delete_queue},
	    {NULL, NULL},
	};
	itest_add_suite("event_queue", cases);
	static const struct itest_case slow[] = {
	    {"heartbeat", test_heartbeat},
	    {NULL, NULL},
	};
	itest_add_suite("event_queue_slow", slow);
}
