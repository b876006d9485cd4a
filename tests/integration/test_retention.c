/*
 * Message retention (confabctl retention-run, the code the reaper runs every retention_interval seconds): messages
 * older than their channel's message_retention_days, or the organization's for channels without one and for
 * direct messages, are deleted with delete_message events; newer ones and those of unlimited channels stay.
 * Ages are set by backdating date_sent through psql; each test has an organization of its own.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "itest.h"

static unsigned counter;

static char *uniq(const char *tag)
{
	return fmt("ret-%s-%u-%ld", tag, ++counter, (long)getpid());
}

/* A channel of u's organization that u creates and is subscribed to, with retention days (NULL: the
 * organization's; "-1": unlimited) set in the database. Its id. */
static int64_t channel(const struct user *u, const char *name, const char *days)
{
	EXPECT_SUCCESS(api_post(u, "/users/me/subscriptions",
	                        fmt("subscriptions=%s", url_encode(fmt("[{\"name\":\"%s\"}]", name)))));
	int64_t id = strtoll(psql_ok("SELECT id FROM channels WHERE name = '%s'", name), NULL, 10);
	REQUIRE(id > 0, "channel %s", name);
	psql_ok("UPDATE channels SET message_retention_days = %s WHERE id = %lld", days ? days : "NULL", (long long)id);
	return id;
}

static void backdate(int64_t message_id, int days)
{
	psql_ok("UPDATE messages SET date_sent = now() - interval '%d days' - interval '1 hour' WHERE id = %lld", days,
	        (long long)message_id);
}

static bool exists(int64_t message_id)
{
	return strcmp(psql_ok("SELECT count(*) FROM messages WHERE id = %lld", (long long)message_id), "1") == 0;
}

static void retention_run(void)
{
	json_object *j = ctl((const char *const[]){"retention-run", NULL});
	REQUIRE(j != NULL && jint(j, "deleted") >= 0, "confabctl retention-run failed: %s", jtext(j));
}

static struct queue *delete_queue(const struct user *u, bool bulk)
{
	return queue_register(u, fmt("event_types=%s%s", url_encode("[\"delete_message\"]"),
	                             bulk ? "&client_capabilities=%7B%22bulk_message_deletion%22%3Atrue%7D" : ""));
}

/* Channel retention and the organization's (for channels without one and direct messages). */
static void test_retention_deletes_expired(void)
{
	struct user *owner = new_realm();
	struct user *member = new_user_in(owner->realm, "member", NULL);
	psql_ok("UPDATE realms SET message_retention_days = 10 WHERE subdomain = '%s'", owner->realm);
	char *five = uniq("five"), *inherit = uniq("inherit"), *forever = uniq("forever");
	int64_t c5 = channel(owner, five, "5"), ci = channel(owner, inherit, NULL);
	channel(owner, forever, "-1");
	EXPECT_SUCCESS(
	    api_post(member, "/users/me/subscriptions",
	             fmt("subscriptions=%s", url_encode(fmt("[{\"name\":\"%s\"},{\"name\":\"%s\"}]", five, inherit)))));
	int64_t old5 = send_channel_message(owner, five, "Old Topic", "six days"),
	        new5 = send_channel_message(owner, five, "t", "four days");
	int64_t oldi = send_channel_message(owner, inherit, "Inherited", "eleven days");
	int64_t newi = send_channel_message(owner, inherit, "t", "nine days");
	int64_t oldf = send_channel_message(owner, forever, "t", "a thousand days");
	int64_t olddm = send_direct_message(owner, fmt("[%lld]", (long long)member->id), "eleven days");
	int64_t newdm = send_direct_message(owner, fmt("[%lld]", (long long)member->id), "nine days");
	backdate(old5, 6);
	backdate(new5, 4);
	backdate(oldi, 11);
	backdate(newi, 9);
	backdate(oldf, 1000);
	backdate(olddm, 11);
	backdate(newdm, 9);
	struct queue *qo = delete_queue(owner, true), *qm = delete_queue(member, false);
	retention_run();
	CHECK(!exists(old5) && !exists(oldi) && !exists(olddm), "expired messages are gone");
	CHECK(exists(new5) && exists(newi) && exists(newdm) && exists(oldf), "the others stay");
	EXPECT_ERROR(api_get(owner, fmt("/messages/%lld", (long long)old5)), 400, "BAD_REQUEST", "Invalid message(s)");
	EXPECT_SUCCESS(api_get(owner, fmt("/messages/%lld", (long long)new5)));
	/* Oldest first, each as DELETE /messages/{id} sends it. */
	EXPECT_EVENTS(qo, fmt("[{\"type\":\"delete_message\",\"message_ids\":[%lld],\"message_type\":\"stream\","
	                      "\"stream_id\":%lld,\"topic\":\"old topic\"},"
	                      "{\"type\":\"delete_message\",\"message_ids\":[%lld],\"message_type\":\"stream\","
	                      "\"stream_id\":%lld,\"topic\":\"inherited\"},"
	                      "{\"type\":\"delete_message\",\"message_ids\":[%lld],\"message_type\":\"private\"}]",
	                      (long long)old5, (long long)c5, (long long)oldi, (long long)ci, (long long)olddm));
	EXPECT_EVENTS(qm, fmt("[{\"type\":\"delete_message\",\"message_id\":%lld,\"message_type\":\"stream\","
	                      "\"stream_id\":%lld,\"topic\":\"old topic\"},"
	                      "{\"type\":\"delete_message\",\"message_id\":%lld,\"message_type\":\"stream\","
	                      "\"stream_id\":%lld,\"topic\":\"inherited\"},"
	                      "{\"type\":\"delete_message\",\"message_id\":%lld,\"message_type\":\"private\"}]",
	                      (long long)old5, (long long)c5, (long long)oldi, (long long)ci, (long long)olddm));
	/* A second run finds nothing more. */
	retention_run();
	EXPECT_EVENTS(qo, "[]");
	CHECK(exists(new5) && exists(newi) && exists(newdm) && exists(oldf), "the others still stay");
}

/* An organization without retention (NULL, or -1) keeps everything its channels do not limit themselves. */
static void test_retention_unlimited(void)
{
	struct user *owner = new_realm();
	char *plain = uniq("plain"), *limited = uniq("limited");
	channel(owner, plain, NULL);
	channel(owner, limited, "30");
	int64_t a = send_channel_message(owner, plain, "t", "old"),
	        b = send_channel_message(owner, limited, "t", "old");
	int64_t dm = send_direct_message(owner, fmt("[%lld]", (long long)owner->id), "old");
	backdate(a, 3000);
	backdate(b, 31);
	backdate(dm, 3000);
	retention_run();
	CHECK(exists(a) && exists(dm), "unlimited organization: kept");
	CHECK(!exists(b), "a channel's own retention applies");
	psql_ok("UPDATE realms SET message_retention_days = -1 WHERE subdomain = '%s'", owner->realm);
	retention_run();
	CHECK(exists(a) && exists(dm), "organization retention -1: kept");
}

void register_retention_tests(void)
{
	static const struct itest_case cases[] = {
	    {"deletes_expired", test_retention_deletes_expired},
	    {"unlimited", test_retention_unlimited},
	    {NULL, NULL},
	};
	itest_add_suite("retention", cases);
}
