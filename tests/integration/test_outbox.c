/*
 * The event outbox (DESIGN.md "Events": no gap between COMMIT and publish). A worker killed right after COMMIT, or
 * after publishing but before marking its outbox row done, loses no event and doubles none: the reaper publishes
 * the row left behind, and the queue drops an outbox id it has already applied.
 *
 * Needs a stack built with --enable-fault-points (./scripts/test): the request header "X-Confab-Fault: NAME" ends
 * the worker at fault point NAME (src/http/router.c), and multiwatch starts a new one. Without it the faulty
 * request succeeds and the tests fail, saying so.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "itest.h"

/* How long the reaper may take to publish a row left behind (rows count after 2 s, a round a second). */
#define REAPER_SECS 15

static unsigned counter;

static char *uniq(const char *tag)
{
	return fmt("outbox-%s-%u-%ld-%ld", tag, ++counter, (long)getpid(), (long)time(NULL));
}

/* u sends a direct message of content to user to, with "X-Confab-Fault: fault"; the worker must die on it. */
static void send_with_fault(const struct user *u, const struct user *to, const char *content, const char *fault)
{
	struct request rq = {
	    .method = "POST",
	    .path = "/api/v1/messages",
	    .user = u,
	    .form =
	        fmt("type=direct&to=%s&content=%s", url_encode(fmt("[%lld]", (long long)to->id)), url_encode(content)),
	    .headers = (const char *const[]){fmt("X-Confab-Fault: %s", fault), NULL},
	};
	struct resp *r = http(&rq);
	REQUIRE(r->status != 200, "fault point %s did not end the worker (a build without --enable-fault-points?): %s",
	        fault, r->body);
	/* The change itself committed. */
	char *n = psql_ok("SELECT count(*) FROM messages WHERE content = '%s'", content);
	REQUIRE(strcmp(n, "1") == 0, "the message of the failed request is stored %s times", n);
}

/*
 * The number of message events with content that arrive in q (drained as they come) within secs seconds; once
 * one has come, only settle seconds more are waited (a second copy would come from the reaper's next rounds).
 */
static int message_events(struct queue *q, const char *content, int secs, int settle)
{
	int found = 0;
	for (time_t end = time(NULL) + secs; time(NULL) < end; usleep(200000)) {
		json_object *events = queue_drain(q);
		for (size_t i = 0; i < json_object_array_length(events); i++) {
			json_object *m = jget(json_object_array_get_idx(events, i), "message");
			const char *c = jstr(m, "content");
			found += c != NULL && strstr(c, content) != NULL;
		}
		if (found > 0 && end > time(NULL) + settle)
			end = time(NULL) + settle;
	}
	return found;
}

/* Waits until the outbox holds no row of content (the reaper has published and deleted it). */
static void wait_outbox_empty(const char *content)
{
	for (time_t end = time(NULL) + REAPER_SECS; time(NULL) < end; usleep(200000))
		if (strcmp(psql_ok("SELECT count(*) FROM event_outbox WHERE payload LIKE '%%%s%%'", content), "0") == 0)
			return;
	REQUIRE(false, "the outbox row of %s is still there after %d s", content, REAPER_SECS);
}

/* Whether outbox row id is in the set of published rows that the reaper has not deleted yet. */
static bool marked_done(const char *id)
{
	const char *cli = getenv("CONFAB_REDIS_CLI");
	REQUIRE(cli != NULL && *cli != '\0', "CONFAB_REDIS_CLI is not set");
	FILE *f = popen(fmt("%s SISMEMBER confab:outbox:done %s", cli, id), "r");
	REQUIRE(f != NULL, "popen failed");
	char out[32] = "";
	if (fgets(out, sizeof(out), f) == NULL)
		out[0] = '\0';
	pclose(f);
	return strncmp(out, "1", 1) == 0;
}

/*
 * The normal path: when the response comes, the worker has published the event and marked its row done: the row is
 * in the done set, or the reaper has already taken it from there and deleted it. A row that is neither must not be
 * left for the reaper to publish again: until the row is two seconds old (the age at which the reaper republishes
 * rows left behind) only the done path can delete it, so the row is watched until then.
 */
static void test_row_deleted_after_publish(void)
{
	struct user *a = new_user("member"), *b = new_user("member");
	struct queue *q = queue_register(b, fmt("event_types=%s&apply_markdown=false", url_encode("[\"message\"]")));
	char *content = uniq("plain");
	send_direct_message(a, fmt("[%lld]", (long long)b->id), content);
	char *id = psql_ok("SELECT COALESCE(max(id)::text, '') FROM event_outbox WHERE payload LIKE '%%%s%%'", content);
	bool done = *id == '\0';
	while (!done) {
		if (marked_done(id))
			break;
		/* Gone (deleted by the done path), or still there and younger than two seconds. */
		char *state =
		    psql_ok("SELECT CASE WHEN count(*) = 0 THEN 'gone' WHEN bool_and(clock_timestamp() - created_at"
		            " < interval '2 seconds') THEN 'young' ELSE 'old' END FROM event_outbox WHERE id = %s",
		            id);
		done = strcmp(state, "gone") == 0;
		if (!done && strcmp(state, "young") != 0) {
			CHECK(false, "outbox row %s of a successful request is not marked done", id);
			break;
		}
		usleep(20000);
	}
	wait_outbox_empty(content);
	int n = message_events(q, content, 5, 1);
	CHECK(n == 1, "the message event arrived %d times, not once", n);
}

/* A worker that dies right after COMMIT: the reaper publishes the event, once. */
static void test_exit_after_commit(void)
{
	struct user *a = new_user("member"), *b = new_user("member");
	struct queue *q = queue_register(b, fmt("event_types=%s&apply_markdown=false", url_encode("[\"message\"]")));
	char *content = uniq("commit");
	send_with_fault(a, b, content, "exit-after-commit");
	/* Three more reaper rounds after it came: nothing more may come. */
	int n = message_events(q, content, REAPER_SECS, 3);
	CHECK(n == 1, "the message event of a worker killed after COMMIT arrived %d times in %d s, not once", n,
	      REAPER_SECS);
	wait_outbox_empty(content);
}

/* A worker that dies after publishing, before marking its row done: the reaper publishes the row again, and the
 * queue drops it, so the event still arrives once. */
static void test_exit_after_publish(void)
{
	struct user *a = new_user("member"), *b = new_user("member");
	struct queue *q = queue_register(b, fmt("event_types=%s&apply_markdown=false", url_encode("[\"message\"]")));
	char *content = uniq("publish");
	send_with_fault(a, b, content, "exit-after-publish");
	wait_outbox_empty(content);
	int n = message_events(q, content, 3, 3);
	CHECK(n == 1, "the message event of a worker killed after publishing arrived %d times, not once", n);
}

void register_outbox_tests(void)
{
	static const struct itest_case cases[] = {
	    {"row_deleted_after_publish", test_row_deleted_after_publish},
	    {"exit_after_commit", test_exit_after_commit},
	    {"exit_after_publish", test_exit_after_publish},
	    {NULL, NULL},
	};
	itest_add_suite("outbox", cases);
}
