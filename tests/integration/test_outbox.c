/*
 * The event outbox (DESIGN.md "Events": no gap between COMMIT and publish). A worker killed right after COMMIT, or
 * after publishing but before marking its outbox row done, loses no event and doubles none: the reaper publishes
 * the row left behind, and a row published again is dropped (events.c push_script: whole, or queue by queue).
 *
 * Needs a stack built with --enable-fault-points (./scripts/test): the request header "X-Confab-Fault: NAME" ends
 * the worker at fault point NAME (src/http/router.c), and confab-supervise starts a new one. Without it the faulty
 * request succeeds and the tests fail, saying so.
 */
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "itest.h"
#include "procs.h"

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
	return strncmp(redis_cli(fmt("SISMEMBER confab:outbox:done %s", id)), "1", 1) == 0;
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

/* The reaper process (SIGSTOP and SIGCONT pause it: its supervisor sees it alive). */
static pid_t reaper_pid(void)
{
	pid_t kids[4];
	int n = proc_children(group_supervisor("reaper"), "confab-reaper", kids, 4);
	REQUIRE(n == 1, "%d reaper processes", n);
	return kids[0];
}

/*
 * Publishes a message's rows again as if the first publish had never marked them done: with the reaper paused, the
 * worker publishes and marks the rows of message content; the marks are taken back and the rows aged past two
 * seconds; the reaper, let go, publishes them again. Returns the rows' ids.
 */
static char *publish_again(const struct user *a, const char *to, const char *content, int64_t channel)
{
	const char *form = channel != 0 ? fmt("type=stream&to=%lld&topic=t&content=%s", (long long)channel,
	                                      url_encode(content))
	                                : fmt("type=direct&to=%s&content=%s", url_encode(to), url_encode(content));
	pid_t reaper = reaper_pid();
	REQUIRE(kill(reaper, SIGSTOP) == 0, "could not pause the reaper");
	/* Nothing fatal until the reaper goes on. */
	struct resp *r = api_post(a, "/messages", form);
	/* Every row of the message: a public channel's has a second one, for all_public_streams queues. */
	char *ids = psql_ok("SELECT COALESCE(string_agg(id::text, ' '), '') FROM event_outbox WHERE payload LIKE '%%%s%%'",
	                    content);
	bool marked = *ids != '\0';
	for (char *id = ids, *end; marked && *id; id = *end ? end + 1 : end) {
		end = id + strcspn(id, " ");
		marked = marked_done(fmt("%.*s", (int)(end - id), id));
	}
	if (marked)
		redis_cli(fmt("SREM confab:outbox:done %s", ids));
	psql_ok("UPDATE event_outbox SET created_at = now() - interval '10 seconds' WHERE payload LIKE '%%%s%%'", content);
	kill(reaper, SIGCONT);
	EXPECT_SUCCESS(r);
	REQUIRE(marked, "outbox rows %s of the message were not all marked done", ids);
	return ids;
}

/* A row published whole (one script call) and published again: the queue gets it once. */
static void test_republished_whole(void)
{
	struct user *a = new_user("member"), *b = new_user("member");
	struct queue *q = queue_register(b, fmt("event_types=%s&apply_markdown=false", url_encode("[\"message\"]")));
	char *content = uniq("again");
	publish_again(a, fmt("[%lld]", (long long)b->id), content, 0);
	wait_outbox_empty(content);
	int n = message_events(q, content, 3, 3);
	CHECK(n == 1, "a message published again arrived %d times, not once", n);
}

/*
 * A row pushed to more queues than one script call takes (135: two calls, events.c PUSH_CHUNK) and published
 * again: every queue gets it once.
 */
static void test_republished_chunked(void)
{
	/* 135 queues of three users: a user keeps at most 50 (docs/LIMITS.md). */
	struct user *a = new_user("member"), *b[3] = {new_user("member"), new_user("member"), new_user("member")};
	char *channel = uniq("chunked");
	EXPECT_SUCCESS(api_post(a, "/users/me/subscriptions",
	                        fmt("subscriptions=%s&principals=%s", url_encode(fmt("[{\"name\":\"%s\"}]", channel)),
	                            url_encode(fmt("[%lld,%lld,%lld,%lld]", (long long)a->id, (long long)b[0]->id,
	                                           (long long)b[1]->id, (long long)b[2]->id)))));
	int64_t channel_id = atoll(psql_ok("SELECT id FROM channels WHERE name = '%s'", channel));
	enum { N = 135 };
	struct queue *q[N];
	for (int i = 0; i < N; i++)
		q[i] = queue_register(b[i % 3], fmt("event_types=%s&apply_markdown=false", url_encode("[\"message\"]")));
	char *content = uniq("chunks");
	publish_again(a, NULL, content, channel_id);
	wait_outbox_empty(content);
	for (int i = 0; i < N; i++) {
		int n = message_events(q[i], content, i == 0 ? 3 : 1, i == 0 ? 3 : 0);
		CHECK(n == 1, "queue %d: a message published again arrived %d times, not once", i, n);
	}
}

void register_outbox_tests(void)
{
	static const struct itest_case cases[] = {
	    {"row_deleted_after_publish", test_row_deleted_after_publish},
	    {"exit_after_commit", test_exit_after_commit},
	    {"exit_after_publish", test_exit_after_publish},
	    {"republished_whole", test_republished_whole},
	    {"republished_chunked", test_republished_chunked},
	    {NULL, NULL},
	};
	itest_add_suite("outbox", cases);
}
