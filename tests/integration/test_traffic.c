/*
 * stream_weekly_traffic (model/traffic.h): the reaper counts every channel's messages per completed UTC day (every
 * traffic_interval seconds; scripts/test sets 1) and the Channel object reads those counts with the reference's
 * formula (zerver/lib/stream_traffic.py: the counts of the days ending in the last 28 days; null under 7 days of
 * age; /4 from 28 days of age on, else *7/age; 1 rather than 0; 2 significant digits, ties to even). Channels are
 * aged and messages dated through psql; the fill is asked for again by forgetting which days were counted.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "itest.h"

/* A channel of u's organization, created age_sql ago (an interval: "40 days"). */
static int64_t aged_channel(const struct user *u, const char *tag, const char *age_sql)
{
	int64_t id = create_channel_with(u, unique_channel_name(tag), NULL);
	psql_ok("UPDATE channels SET date_created = now() - interval '%s' WHERE id = %lld", age_sql, (long long)id);
	return id;
}

/* n messages from u in channel id, spread over the UTC days `first` to `first + spread - 1` before today (0:
 * today, at the current time), at 01:00 UTC. */
static void messages(const struct user *u, int64_t id, int n, int first, int spread)
{
	const char *date = first == 0 ? "now()"
	                              : fmt("(date_trunc('day', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC')"
	                                    " - make_interval(days => %d + g %% %d) + interval '1 hour'",
	                                    first, spread);
	psql_ok(
	    "INSERT INTO messages (realm_id, sender_id, channel_id, topic, content, rendered_content, date_sent)"
	    " SELECT c.realm_id, %lld, c.id, 'traffic', 'x', '<p>x</p>', %s FROM channels c, generate_series(0, %d) g"
	    " WHERE c.id = %lld",
	    (long long)u->id, date, n - 1, (long long)id);
}

/* Waits (up to 30 s) until the reaper counted the days through yesterday. */
static void await_counted(void)
{
	for (int i = 0; i < 300; i++) {
		if (strcmp(psql_ok("SELECT through = (now() AT TIME ZONE 'UTC')::date - 1 FROM channel_traffic_filled"),
		           "t") == 0)
			return;
		usleep(100000);
	}
	REQUIRE(false, "the reaper did not count the days within 30 s");
}

/* Forgets which days were counted and waits for the reaper to count them again. */
static void refill(void)
{
	psql_ok("UPDATE channel_traffic_filled SET through = NULL");
	await_counted();
}

/* stream_weekly_traffic of GET /streams/{id}: its value, or -1 for null. */
static int64_t traffic(const struct user *u, int64_t id)
{
	struct resp *r = api_get(u, fmt("/streams/%lld", (long long)id));
	EXPECT_SUCCESS(r);
	json_object *s = jget(r->json, "stream");
	REQUIRE(jhas(s, "stream_weekly_traffic"), "no stream_weekly_traffic: %s", r->body);
	return jget(s, "stream_weekly_traffic") == NULL ? -1 : jint(s, "stream_weekly_traffic");
}

#define CHECK_TRAFFIC(u, id, want) check_traffic((u), (id), (want), __LINE__)
static void check_traffic(const struct user *u, int64_t id, int64_t want, int line)
{
	int64_t got = traffic(u, id);
	CHECK(got == want, "line %d: channel %lld: stream_weekly_traffic %lld, want %lld (-1: null)", line,
	      (long long)id, (long long)got, (long long)want);
}

/* The formula on channels 40, 10, 7 and 0 days old. */
static void test_traffic_formula(void)
{
	struct user *owner = new_realm();
	int64_t a = aged_channel(owner, "tr-a", "40 days"), b = aged_channel(owner, "tr-b", "40 days"),
	        c = aged_channel(owner, "tr-c", "10 days"), one = aged_channel(owner, "tr-one", "40 days"),
	        none = aged_channel(owner, "tr-none", "40 days"),
	        week = aged_channel(owner, "tr-week", "7 days 1 hour"),
	        young = aged_channel(owner, "tr-young", "6 days 23 hours"),
	        fresh = aged_channel(owner, "tr-new", "0 days");
	messages(owner, a, 123, 1, 27);
	messages(owner, a, 5, 0, 1);      /* today's: not a completed day */
	messages(owner, a, 7, 30, 3);     /* days ending more than 28 days ago */
	messages(owner, b, 1234, 1, 28);  /* day 28 ends within the last 28 days */
	messages(owner, c, 45, 1, 9);     /* 45 * 7 // 10 = 31 */
	messages(owner, c, 6, 11, 2);     /* dated before the day the channel was created: not counted */
	messages(owner, one, 1, 3, 1);    /* 1 // 4 = 0 -> 1 */
	messages(owner, week, 10, 1, 6);  /* 10 * 7 // 7 */
	messages(owner, young, 10, 1, 6); /* under 7 days: null */
	messages(owner, fresh, 3, 0, 1);
	refill();
	CHECK_TRAFFIC(owner, a, 30);  /* 123 // 4 */
	CHECK_TRAFFIC(owner, b, 310); /* 1234 // 4 = 308, 2 significant digits */
	CHECK_TRAFFIC(owner, c, 31);
	CHECK_TRAFFIC(owner, one, 1);
	CHECK_TRAFFIC(owner, none, 0);
	CHECK_TRAFFIC(owner, week, 10);
	CHECK_TRAFFIC(owner, young, -1);
	CHECK_TRAFFIC(owner, fresh, -1);
	/* GET /streams shows the same. */
	struct resp *r = api_get(owner, "/streams");
	EXPECT_SUCCESS(r);
	json_object *list = jget(r->json, "streams");
	int seen = 0;
	for (size_t i = 0; i < json_object_array_length(list); i++) {
		json_object *s = json_object_array_get_idx(list, i);
		if (jint(s, "stream_id") == b && ++seen)
			CHECK(jint(s, "stream_weekly_traffic") == 310, "GET /streams: %s",
			      json_object_to_json_string(s));
		if (jint(s, "stream_id") == fresh && ++seen)
			CHECK(jhas(s, "stream_weekly_traffic") && jget(s, "stream_weekly_traffic") == NULL,
			      "new: null");
	}
	CHECK(seen == 2, "GET /streams lists both channels: %d", seen);
}

/* Ties round to even like Python's round(): 500 // 4 = 125 -> 120, 540 // 4 = 135 -> 140; counting the days again gives
 * the same; today's messages wait for the day's end. */
static void test_traffic_rounding_and_refill(void)
{
	struct user *owner = new_realm();
	int64_t even = aged_channel(owner, "tr-even", "30 days"), odd = aged_channel(owner, "tr-odd", "30 days");
	messages(owner, even, 500, 1, 20);
	messages(owner, odd, 540, 2, 20);
	refill();
	CHECK_TRAFFIC(owner, even, 120);
	CHECK_TRAFFIC(owner, odd, 140);
	messages(owner, even, 40, 0, 1);
	refill();
	CHECK_TRAFFIC(owner, even, 120);
	CHECK_TRAFFIC(owner, odd, 140);
	const char *days =
	    psql_ok("SELECT count(*) FROM channel_traffic_days WHERE channel_id = %lld", (long long)even);
	CHECK(strcmp(days, "20") == 0, "one row per day with messages, today's not counted: %s", days);
}

/*
 * A run that waited for the days' lock counts what was committed while it waited: a session forgets the counted
 * days and holds the lock for 3 s, the reaper's run waits for it, and messages are added meanwhile.
 */
static void test_traffic_counts_after_waiting(void)
{
	struct user *owner = new_realm();
	int64_t id = aged_channel(owner, "tr-wait", "40 days");
	pid_t holder =
	    psql_in_background("BEGIN; UPDATE channel_traffic_filled SET through = NULL; SELECT pg_sleep(3); COMMIT");
	bool waited = await_lock_wait("channel_traffic_filled", 3);
	if (waited)
		messages(owner, id, 48, 1, 12);
	waitpid(holder, NULL, 0);
	REQUIRE(waited, "no run of the reaper waited for the lock");
	await_counted();
	CHECK_TRAFFIC(owner, id, 12); /* 48 // 4 */
}

void register_traffic_tests(void)
{
	static const struct itest_case cases[] = {
	    {"formula", test_traffic_formula},
	    {"rounding_and_refill", test_traffic_rounding_and_refill},
	    {"counts_after_waiting", test_traffic_counts_after_waiting},
	    {NULL, NULL},
	};
	itest_add_suite("traffic", cases);
}
