/*
 * Presence: POST /users/me/presence, GET /realm/presence, GET /users/{user_id_or_email}/presence, presences and
 * presence_last_update_id in register (slim and legacy), the presence events in both forms, the organization's
 * and the users' presence switches, and guests' visibility. Each test has an organization of its own, so that
 * the answers hold only its users. Reference: zerver/views/presence.py, zerver/lib/presence.py,
 * zerver/actions/presence.py, zerver/tornado/event_queue.py (process_presence_event), zerver/tests/test_presence.py.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "itest.h"

/* A fresh organization: owner o, members a and b, guest g, bot t. */
struct org {
	struct user *o, *a, *b, *g, *t;
};

/* The organization of u (struct user leaves realm_id unset). */
static long long realm_of(const struct user *u)
{
	return atoll(psql_ok("SELECT realm_id FROM users WHERE id = %lld", (long long)u->id));
}

static struct org new_org(void)
{
	struct org z;
	z.o = new_realm();
	z.a = new_user_in(z.o->realm, "member", NULL);
	z.b = new_user_in(z.o->realm, "member", NULL);
	z.g = new_user_in(z.o->realm, "guest", NULL);
	z.t = new_user_in(z.o->realm, "member", (const char *const[]){"--bot", NULL});
	/* Joined long ago: a time never set shows as date_joined, which must not look recent. */
	psql_ok("UPDATE users SET date_joined = date_joined - interval '10 days' WHERE realm_id = %lld",
	        realm_of(z.o));
	return z;
}

static struct resp *ping(const struct user *u, const char *form)
{
	return api_post(u, "/users/me/presence", form);
}

/* A ping that must succeed; its answer. */
static json_object *ping_ok(const struct user *u, const char *form)
{
	struct resp *r = ping(u, form);
	EXPECT_SUCCESS(r);
	return r->json;
}

static const char *id_key(const struct user *u)
{
	return fmt("%lld", (long long)u->id);
}

/* Moves u's stored presence times back by secs (as if the pings had come that long ago). */
static void age_presence(const struct user *u, int secs)
{
	psql_ok("UPDATE user_presences SET last_active_time = last_active_time - interval '%d seconds',"
	        " last_connected_time = last_connected_time - interval '%d seconds' WHERE user_id = %lld",
	        secs, secs, (long long)u->id);
}

static int64_t joined_of(const struct user *u)
{
	return atoll(psql_ok("SELECT floor(extract(epoch FROM date_joined))::bigint FROM users WHERE id = %lld",
	                     (long long)u->id));
}

static int64_t update_id_of(const struct user *u)
{
	return atoll(psql_ok("SELECT last_update_id FROM user_presences WHERE user_id = %lld", (long long)u->id));
}

/* A timestamp taken during the test: between its start and now. */
static void expect_recent(json_object *o, const char *key, int64_t since, const char *file, int line)
{
	int64_t v = jint(o, key), now = (int64_t)time(NULL);
	itest_check(v >= since - 1 && v <= now + 1, false, file, line, "%s: expected a time in [%lld, %lld]: %s", key,
	            (long long)since, (long long)now, jtext(o));
}
#define EXPECT_RECENT(o, key, since) expect_recent((o), (key), (since), __FILE__, __LINE__)

/* The legacy per-client object {client: website, status, timestamp, pushable: false} (full) or the aggregated
 * one (no pushable). */
static void expect_legacy(json_object *o, const char *status, int64_t since, bool full, const char *file, int line)
{
	if (full)
		expect_keys(o, (const char *const[]){"client", "status", "timestamp", "pushable", NULL}, file, line);
	else
		expect_keys(o, (const char *const[]){"client", "status", "timestamp", NULL}, file, line);
	expect_str(o, "client", "website", file, line);
	expect_str(o, "status", status, file, line);
	expect_recent(o, "timestamp", since, file, line);
	if (full)
		expect_bool(o, "pushable", false, file, line);
}
#define EXPECT_LEGACY(o, status, since, full) expect_legacy((o), (status), (since), (full), __FILE__, __LINE__)

/* POST /users/me/presence without last_update_id: the legacy form, keyed by API e-mail, users seen so far. */
static void test_presence_ping_legacy(void)
{
	struct org z = new_org();
	int64_t t0 = (int64_t)time(NULL);
	json_object *j = ping_ok(z.a, "status=active");
	EXPECT_KEYS(j, "result", "msg", "presences", "server_timestamp", "presence_last_update_id");
	CHECK(json_object_is_type(jget(j, "server_timestamp"), json_type_double), "server_timestamp a number: %s",
	      jtext(j));
	CHECK(jint(j, "presence_last_update_id") >= 1, "an update id: %s", jtext(j));
	json_object *p = jget(j, "presences");
	REQUIRE(json_object_object_length(p) == 1, "only a has presence: %s", jtext(p));
	json_object *mine = jget(p, z.a->email);
	REQUIRE(mine != NULL, "keyed by e-mail: %s", jtext(p));
	EXPECT_KEYS(mine, "aggregated", "website");
	EXPECT_LEGACY(jget(mine, "aggregated"), "active", t0, false);
	EXPECT_LEGACY(jget(mine, "website"), "active", t0, true);
	/* An idle-only user: status idle, timestamp of the connection. */
	j = ping_ok(z.b, "status=idle");
	EXPECT_LEGACY(jget(jget(jget(j, "presences"), z.b->email), "website"), "idle", t0, true);
	CHECK(json_object_object_length(jget(j, "presences")) == 2, "a and b: %s", jtext(j));
	/* ping_only: nothing but the success. */
	j = ping_ok(z.o, "status=active&ping_only=true");
	EXPECT_KEYS(j, "result", "msg");
	/* GET /realm/presence: the legacy form without the update id; bots and deactivated users are left out. */
	deactivate_user(z.b);
	struct resp *r = api_get(z.a, "/realm/presence");
	EXPECT_SUCCESS(r);
	EXPECT_KEYS(r->json, "result", "msg", "presences", "server_timestamp");
	p = jget(r->json, "presences");
	CHECK(json_object_object_length(p) == 2 && jget(p, z.a->email) && jget(p, z.o->email), "a and o: %s", jtext(p));
	EXPECT_LEGACY(jget(jget(p, z.o->email), "aggregated"), "active", t0, false);
}

/* slim_presence and last_update_id: the modern form keyed by user id; incremental answers. */
static void test_presence_incremental(void)
{
	struct org z = new_org();
	int64_t t0 = (int64_t)time(NULL);
	json_object *j = ping_ok(z.a, "status=idle&slim_presence=true");
	json_object *mine = jget(jget(j, "presences"), id_key(z.a));
	REQUIRE(mine != NULL, "keyed by id: %s", jtext(j));
	EXPECT_KEYS(mine, "active_timestamp", "idle_timestamp");
	EXPECT_RECENT(mine, "idle_timestamp", t0);
	/* Never active: the time the account was created. */
	EXPECT_INT(mine, "active_timestamp", joined_of(z.a));
	j = ping_ok(z.b, "status=active&last_update_id=-1");
	json_object *p = jget(j, "presences");
	CHECK(json_object_object_length(p) == 2 && jget(p, id_key(z.a)) && jget(p, id_key(z.b)), "a and b: %s",
	      jtext(p));
	int64_t last = jint(j, "presence_last_update_id");
	CHECK(last == update_id_of(z.b) && last > update_id_of(z.a), "the newest id, b's: %s", jtext(j));
	/* A ping within a minute moves nothing: no write, no new id, an empty answer. */
	j = ping_ok(z.b, fmt("status=active&last_update_id=%lld", (long long)last));
	CHECK(json_object_object_length(jget(j, "presences")) == 0, "nothing new: %s", jtext(j));
	EXPECT_INT(j, "presence_last_update_id", last);
	CHECK(update_id_of(z.b) == last, "b's row not written again");
	/* a's next ping two minutes later moves its times: only a comes back, under a newer id. */
	age_presence(z.a, 120);
	ping_ok(z.a, "status=active&ping_only=true");
	j = ping_ok(z.b, fmt("status=active&last_update_id=%lld", (long long)last));
	p = jget(j, "presences");
	REQUIRE(json_object_object_length(p) == 1 && jget(p, id_key(z.a)), "only a: %s", jtext(p));
	EXPECT_RECENT(jget(p, id_key(z.a)), "active_timestamp", t0);
	EXPECT_RECENT(jget(p, id_key(z.a)), "idle_timestamp", t0);
	CHECK(jint(j, "presence_last_update_id") == update_id_of(z.a) && update_id_of(z.a) > last, "a's new id: %s",
	      jtext(j));
}

/* history_limit_days: rows connected in the last N days (14 by default, 0 for none); ignored by incremental
 * fetches. */
static void test_presence_history_limit(void)
{
	struct org z = new_org();
	ping_ok(z.b, "status=active&ping_only=true");
	ping_ok(z.a, "status=active&ping_only=true");
	age_presence(z.a, 20 * 86400);
	json_object *j = ping_ok(z.b, "status=active&last_update_id=-1");
	json_object *p = jget(j, "presences");
	CHECK(json_object_object_length(p) == 1 && jget(p, id_key(z.b)), "a is 20 days old: %s", jtext(p));
	j = ping_ok(z.b, "status=active&last_update_id=-1&history_limit_days=30");
	CHECK(json_object_object_length(jget(j, "presences")) == 2, "30 days: %s", jtext(j));
	j = ping_ok(z.b, "status=active&history_limit_days=0");
	CHECK(json_object_object_length(jget(j, "presences")) == 0, "0 days: %s", jtext(j));
	EXPECT_INT(j, "presence_last_update_id", -1);
	/* last_update_id > 0: the client has data, no time limit (b's row has id 1, a's 2). */
	j = ping_ok(z.b, "status=active&last_update_id=1&history_limit_days=1");
	CHECK(jget(jget(j, "presences"), id_key(z.a)) != NULL, "incremental: %s", jtext(j));
	/* register: presence_history_limit_days. */
	struct resp *r = api_post(z.b, "/register", "fetch_event_types=%5B%22presence%22%5D&slim_presence=true");
	CHECK(json_object_object_length(jget(r->json, "presences")) == 1, "register, 14 days: %s", r->body);
	r = api_post(z.b, "/register",
	             "fetch_event_types=%5B%22presence%22%5D&slim_presence=true&presence_history_limit_days=30");
	CHECK(json_object_object_length(jget(r->json, "presences")) == 2, "register, 30 days: %s", r->body);
	r = api_post(z.b, "/register", "fetch_event_types=%5B%22presence%22%5D&presence_history_limit_days=0");
	CHECK(json_object_object_length(jget(r->json, "presences")) == 0, "register, 0 days: %s", r->body);
	EXPECT_INT(r->json, "presence_last_update_id", -1);
}

/* register: legacy form by default, modern with slim_presence or simplified_presence_events. */
static void test_presence_register_forms(void)
{
	struct org z = new_org();
	int64_t t0 = (int64_t)time(NULL);
	ping_ok(z.a, "status=active&ping_only=true");
	const char *fetch = "fetch_event_types=%5B%22presence%22%5D";
	struct resp *r = api_post(z.b, "/register", fetch);
	EXPECT_SUCCESS(r);
	CHECK(json_object_is_type(jget(r->json, "server_timestamp"), json_type_double), "server_timestamp: %s", r->body);
	EXPECT_INT(r->json, "presence_last_update_id", update_id_of(z.a));
	json_object *p = jget(r->json, "presences");
	REQUIRE(json_object_object_length(p) == 1 && jget(p, z.a->email), "legacy: %s", jtext(p));
	EXPECT_LEGACY(jget(jget(p, z.a->email), "website"), "active", t0, true);
	r = api_post(z.b, "/register", fmt("%s&slim_presence=true", fetch));
	p = jget(r->json, "presences");
	REQUIRE(json_object_object_length(p) == 1 && jget(p, id_key(z.a)), "slim: %s", jtext(p));
	EXPECT_RECENT(jget(p, id_key(z.a)), "active_timestamp", t0);
	r = api_post(z.b, "/register",
	             fmt("%s&client_capabilities=%%7B%%22simplified_presence_events%%22%%3Atrue%%7D", fetch));
	p = jget(r->json, "presences");
	CHECK(json_object_object_length(p) == 1 && jget(p, id_key(z.a)), "simplified_presence_events: %s", jtext(p));
	/* The organization's switch is in the realm data. */
	r = api_post(z.b, "/register", "fetch_event_types=%5B%22realm%22%5D");
	EXPECT_BOOL(r->json, "realm_presence_disabled", false);
	EXPECT_INT(r->json, "server_presence_offline_threshold_seconds", 200);
	EXPECT_INT(r->json, "server_presence_ping_interval_seconds", 60);
}

/* Queues of the three kinds: legacy, legacy without e-mail (slim_presence), modern (simplified_presence_events). */
struct queues {
	struct queue *legacy, *slim, *modern;
};

static struct queues presence_queues(const struct user *u)
{
	const char *types = "event_types=%5B%22presence%22%5D";
	struct queues q = {
	    queue_register(u, types),
	    queue_register(u, fmt("%s&slim_presence=true", types)),
	    queue_register(u, fmt("%s&client_capabilities=%%7B%%22simplified_presence_events%%22%%3Atrue%%7D", types)),
	};
	return q;
}

/* The one event each queue must hold about u: status (legacy) at a time since t0. */
static void expect_presence_events(struct queues *q, const struct user *u, const char *status, int64_t t0)
{
	json_object *e = queue_drain(q->legacy);
	REQUIRE(json_object_array_length(e) == 1, "legacy: one event: %s", jtext(e));
	json_object *ev = json_object_array_get_idx(e, 0);
	EXPECT_KEYS(ev, "type", "user_id", "email", "server_timestamp", "presence");
	EXPECT_STR(ev, "type", "presence");
	EXPECT_INT(ev, "user_id", u->id);
	EXPECT_STR(ev, "email", u->email);
	EXPECT_KEYS(jget(ev, "presence"), "website");
	EXPECT_LEGACY(jget(jget(ev, "presence"), "website"), status, t0, true);
	e = queue_drain(q->slim);
	REQUIRE(json_object_array_length(e) == 1, "slim: one event: %s", jtext(e));
	ev = json_object_array_get_idx(e, 0);
	EXPECT_KEYS(ev, "type", "user_id", "server_timestamp", "presence");
	EXPECT_LEGACY(jget(jget(ev, "presence"), "website"), status, t0, true);
	e = queue_drain(q->modern);
	REQUIRE(json_object_array_length(e) == 1, "modern: one event: %s", jtext(e));
	ev = json_object_array_get_idx(e, 0);
	EXPECT_KEYS(ev, "type", "presences");
	json_object *mine = jget(jget(ev, "presences"), id_key(u));
	REQUIRE(mine != NULL && json_object_object_length(jget(ev, "presences")) == 1, "keyed by id: %s", jtext(ev));
	EXPECT_KEYS(mine, "active_timestamp", "idle_timestamp");
	EXPECT_RECENT(mine, "idle_timestamp", t0);
}

/* Events when a user first appears and when they come back online; none for pings that move nothing. */
static void test_presence_events(void)
{
	struct org z = new_org();
	struct queues q = presence_queues(z.b);
	int64_t t0 = (int64_t)time(NULL);
	ping_ok(z.a, "status=active&ping_only=true");
	expect_presence_events(&q, z.a, "active", t0);
	ping_ok(z.a, "status=active&ping_only=true");
	ping_ok(z.a, "status=idle&ping_only=true");
	EXPECT_NO_EVENTS(q.legacy);
	EXPECT_NO_EVENTS(q.modern);
	/* Two minutes without a ping moves the times but is not "back online" yet: no event. */
	age_presence(z.a, 120);
	ping_ok(z.a, "status=active&ping_only=true");
	EXPECT_NO_EVENTS(q.legacy);
	/* Away for five minutes, then active again: back online. */
	age_presence(z.a, 300);
	ping_ok(z.a, "status=active&ping_only=true");
	expect_presence_events(&q, z.a, "active", t0);
	/* Coming back idle is no event. */
	age_presence(z.a, 300);
	ping_ok(z.a, "status=idle&ping_only=true");
	EXPECT_NO_EVENTS(q.legacy);
	EXPECT_NO_EVENTS(q.slim);
}

/* The organization's switch: no presence data, no events; pings still succeed. */
static void test_presence_realm_disabled(void)
{
	struct org z = new_org();
	ping_ok(z.a, "status=active&ping_only=true");
	psql_ok("UPDATE realms SET presence_disabled = true WHERE id = %lld", realm_of(z.o));
	struct queues q = presence_queues(z.b);
	json_object *j = ping_ok(z.b, "status=active&last_update_id=-1");
	CHECK(json_object_object_length(jget(j, "presences")) == 0, "no presences: %s", jtext(j));
	EXPECT_INT(j, "presence_last_update_id", -1);
	struct resp *r = api_get(z.b, "/realm/presence");
	CHECK(json_object_object_length(jget(r->json, "presences")) == 0, "GET /realm/presence: %s", r->body);
	r = api_post(z.a, "/register", "fetch_event_types=%5B%22presence%22%2C%22realm%22%5D");
	CHECK(json_object_object_length(jget(r->json, "presences")) == 0, "register: %s", r->body);
	EXPECT_INT(r->json, "presence_last_update_id", -1);
	EXPECT_BOOL(r->json, "realm_presence_disabled", true);
	EXPECT_NO_EVENTS(q.legacy);
	EXPECT_NO_EVENTS(q.modern);
}

/* A user's presence_enabled off: others see them offline for good (a forced event); on: active at once. */
static void test_presence_user_disabled(void)
{
	struct org z = new_org();
	ping_ok(z.a, "status=active&ping_only=true");
	ping_ok(z.b, "status=active&ping_only=true");
	struct queues q = presence_queues(z.b);
	int64_t t0 = (int64_t)time(NULL);
	struct resp *r = api_method("PATCH", z.a, "/settings?presence_enabled=false");
	EXPECT_SUCCESS(r);
	/* Last online 320 s before the change: past the offline threshold. */
	expect_presence_events(&q, z.a, "idle", t0 - 320);
	json_object *e = jget(jget(ping_ok(z.b, "status=active&last_update_id=-1"), "presences"), id_key(z.a));
	REQUIRE(e != NULL, "a's presence: %s", jtext(e));
	CHECK(jint(e, "idle_timestamp") <= (int64_t)time(NULL) - 300, "offline: %s", jtext(e));
	/* While it is off, pings change nothing. */
	ping_ok(z.a, "status=active&ping_only=true");
	r = api_get(z.b, fmt("/users/%lld/presence", (long long)z.a->id));
	EXPECT_STR(jget(jget(r->json, "presence"), "aggregated"), "status", "offline");
	EXPECT_NO_EVENTS(q.legacy);
	/* Back on: active now, told to everyone. */
	r = api_method("PATCH", z.a, "/settings?presence_enabled=true");
	EXPECT_SUCCESS(r);
	expect_presence_events(&q, z.a, "active", t0);
	/* The deprecated away flag of POST /users/me/status is the same switch. */
	EXPECT_SUCCESS(api_post(z.a, "/users/me/status", "away=true"));
	expect_presence_events(&q, z.a, "idle", t0 - 320);
}

/* Guests of an organization limiting them see only their own presence, and get no events about others. */
static void test_presence_guests(void)
{
	struct org z = new_org();
	psql_ok("UPDATE realms SET can_access_all_users_group_id = confab_system_group(id, 'role:members')"
	        " WHERE id = %lld",
	        realm_of(z.o));
	struct queue *gq = queue_register(z.g, "event_types=%5B%22presence%22%5D");
	struct queue *aq = queue_register(z.a, "event_types=%5B%22presence%22%5D");
	ping_ok(z.b, "status=active&ping_only=true");
	EXPECT_NO_EVENTS(gq);
	CHECK(json_object_array_length(queue_drain(aq)) == 1, "a member gets the event");
	json_object *j = ping_ok(z.g, "status=active&last_update_id=-1");
	json_object *p = jget(j, "presences");
	CHECK(json_object_object_length(p) == 1 && jget(p, id_key(z.g)), "only the guest: %s", jtext(p));
	CHECK(jint(j, "presence_last_update_id") == update_id_of(z.g), "the guest's own id: %s", jtext(j));
	/* The guest's own first ping reaches members, and the guest's own queue. */
	CHECK(json_object_array_length(queue_drain(aq)) == 1, "a member sees the guest come online");
	CHECK(json_object_array_length(queue_drain(gq)) == 1, "the guest sees itself");
	struct resp *r = api_get(z.g, "/realm/presence");
	p = jget(r->json, "presences");
	CHECK(json_object_object_length(p) == 1 && jget(p, z.g->email), "GET /realm/presence: %s", jtext(p));
	r = api_post(z.g, "/register", "fetch_event_types=%5B%22presence%22%5D&slim_presence=true");
	p = jget(r->json, "presences");
	CHECK(json_object_object_length(p) == 1 && jget(p, id_key(z.g)), "register: %s", jtext(p));
	r = api_get(z.g, fmt("/users/%lld/presence", (long long)z.b->id));
	EXPECT_ERROR(r, 400, "BAD_REQUEST", "Insufficient permission");
	EXPECT_SUCCESS(api_get(z.g, fmt("/users/%lld/presence", (long long)z.g->id)));
	/* Members see everyone. */
	j = ping_ok(z.a, "status=active&last_update_id=-1");
	CHECK(json_object_object_length(jget(j, "presences")) == 3, "b, g and a: %s", jtext(j));
}

/* GET /users/{user_id_or_email}/presence: by id or e-mail, both forms, and its errors. */
static void test_presence_user_get(void)
{
	struct org z = new_org();
	int64_t t0 = (int64_t)time(NULL);
	ping_ok(z.a, "status=active&ping_only=true");
	struct resp *r = api_get(z.b, fmt("/users/%lld/presence", (long long)z.a->id));
	EXPECT_SUCCESS(r);
	EXPECT_KEYS(r->json, "result", "msg", "presence");
	json_object *p = jget(r->json, "presence");
	EXPECT_KEYS(p, "website", "aggregated");
	EXPECT_KEYS(jget(p, "website"), "status", "timestamp");
	EXPECT_STR(jget(p, "website"), "status", "active");
	EXPECT_RECENT(jget(p, "website"), "timestamp", t0);
	EXPECT_STR(jget(p, "aggregated"), "status", "active");
	r = api_get(z.b, fmt("/users/%s/presence", z.a->email));
	EXPECT_SUCCESS(r);
	EXPECT_STR(jget(jget(r->json, "presence"), "aggregated"), "status", "active");
	r = api_get(z.b, fmt("/users/%lld/presence?slim_presence=true", (long long)z.a->id));
	EXPECT_KEYS(jget(r->json, "presence"), "active_timestamp", "idle_timestamp");
	EXPECT_RECENT(jget(r->json, "presence"), "active_timestamp", t0);
	/* Offline past the threshold (the aggregated status only). */
	age_presence(z.a, 600);
	r = api_get(z.b, fmt("/users/%lld/presence", (long long)z.a->id));
	EXPECT_STR(jget(jget(r->json, "presence"), "aggregated"), "status", "offline");
	EXPECT_STR(jget(jget(r->json, "presence"), "website"), "status", "active");
	r = api_get(z.b, fmt("/users/%lld/presence", (long long)z.b->id));
	EXPECT_ERROR(r, 400, "BAD_REQUEST", fmt("No presence data for %lld", (long long)z.b->id));
	r = api_get(z.a, fmt("/users/%s/presence", z.b->email));
	EXPECT_ERROR(r, 400, "BAD_REQUEST", fmt("No presence data for %s", z.b->email));
	r = api_get(z.b, fmt("/users/%lld/presence", (long long)z.t->id));
	EXPECT_ERROR(r, 400, "BAD_REQUEST", "Presence is not supported for bot users.");
	EXPECT_ERROR(api_get(z.b, "/users/999999999/presence"), 400, "BAD_REQUEST", "No such user");
	EXPECT_ERROR(api_get(z.b, "/users/nobody@example.com/presence"), 400, "BAD_REQUEST", "No such user");
	/* Another organization's user. */
	EXPECT_ERROR(api_get(z.b, fmt("/users/%lld/presence", (long long)itest_owner.id)), 400, "BAD_REQUEST",
	             "No such user");
	deactivate_user(z.a);
	EXPECT_ERROR(api_get(z.b, fmt("/users/%lld/presence", (long long)z.a->id)), 400, "BAD_REQUEST",
	             "No such user");
}

/* POST /users/me/presence errors: nothing is stored. */
static void test_presence_errors(void)
{
	struct org z = new_org();
	EXPECT_ERROR(ping(z.a, "status=bogus"), 400, "BAD_REQUEST", "Invalid status: bogus");
	EXPECT_ERROR(ping(z.a, ""), 400, "REQUEST_VARIABLE_MISSING", "Missing 'status' argument");
	EXPECT_ERROR(ping(z.a, "status=active&ping_only=1"), 400, "BAD_REQUEST", "ping_only is not a boolean");
	EXPECT_ERROR(ping(z.a, "status=active&last_update_id=x"), 400, "BAD_REQUEST", "last_update_id is not valid JSON");
	EXPECT_ERROR(ping(z.t, "status=active"), 400, "BAD_REQUEST", "This endpoint does not accept bot requests.");
	CHECK(strcmp(psql_ok("SELECT count(*) FROM user_presences WHERE realm_id = %lld", realm_of(z.o)),
	             "0") == 0,
	      "nothing stored");
}

void register_presence_tests(void)
{
	static const struct itest_case cases[] = {
	    {"presence_ping_legacy", test_presence_ping_legacy},
	    {"presence_incremental", test_presence_incremental},
	    {"presence_history_limit", test_presence_history_limit},
	    {"presence_register_forms", test_presence_register_forms},
	    {"presence_events", test_presence_events},
	    {"presence_realm_disabled", test_presence_realm_disabled},
	    {"presence_user_disabled", test_presence_user_disabled},
	    {"presence_guests", test_presence_guests},
	    {"presence_user_get", test_presence_user_get},
	    {"presence_errors", test_presence_errors},
	    {NULL, NULL},
	};
	itest_add_suite("presence", cases);
}
