/*
 * User statuses: POST /users/me/status, POST /users/{user_id}/status (administrators, bot owners), GET
 * /users/{user_id}/status, the user_status events and the register response's user_status. Reference:
 * zerver/views/presence.py, zerver/lib/user_status.py, zerver/actions/user_status.py, zerver/lib/emoji.py,
 * zerver/tests/test_user_status.py.
 */
#include <stdlib.h>
#include <string.h>

#include "itest.h"

/* A fresh organization: owner o, admin d, members a and b, guest g, bot t. */
struct org {
	struct user *o, *d, *a, *b, *g, *t;
};

static struct org new_org(void)
{
	struct org z;
	z.o = new_realm();
	z.d = new_user_in(z.o->realm, "admin", NULL);
	z.a = new_user_in(z.o->realm, "member", NULL);
	z.b = new_user_in(z.o->realm, "member", NULL);
	z.g = new_user_in(z.o->realm, "guest", NULL);
	z.t = new_user_in(z.o->realm, "member", (const char *const[]){"--bot", NULL});
	return z;
}

/* Guests of z may see only themselves and bots (can_access_all_users_group = role:members). */
static void restrict_guests(const struct org *z)
{
	psql_ok("UPDATE realms SET can_access_all_users_group_id = confab_system_group(id, 'role:members')"
	        " WHERE id = (SELECT realm_id FROM users WHERE id = %lld)",
	        (long long)z->o->id);
}

static struct resp *set_own(const struct user *u, const char *form)
{
	return api_post(u, "/users/me/status", form);
}

static struct resp *set_for(const struct user *u, const struct user *target, const char *form)
{
	return api_post(u, fmt("/users/%lld/status", (long long)target->id), form);
}

/* u's status as viewer reads it (GET /users/{id}/status), which must succeed with exactly the keys result, msg,
 * status. */
static json_object *status_of(const struct user *viewer, const struct user *u)
{
	struct resp *r = api_get(viewer, fmt("/users/%lld/status", (long long)u->id));
	EXPECT_STATUS(r, 200);
	EXPECT_KEYS(r->json, "result", "msg", "status");
	return jget(r->json, "status");
}

static void expect_json_at(json_object *got, const char *want, const char *file, int line)
{
	json_object *w = json_tokener_parse(want);
	itest_check(w != NULL, true, file, line, "bad expected JSON: %s", want);
	itest_check(json_object_equal(got, w), false, file, line, "expected %s\n      got %s", want, jtext(got));
	json_object_put(w);
}
#define EXPECT_JSON(got, want) expect_json_at((got), (want), __FILE__, __LINE__)

#define CAR "\"emoji_name\":\"car\",\"emoji_code\":\"1f697\",\"reaction_type\":\"unicode_emoji\""

static void test_status_set_and_get(void)
{
	struct org z = new_org();
	EXPECT_JSON(status_of(z.b, z.a), "{}");
	EXPECT_SUCCESS(set_own(z.a, "status_text=+%20on+vacation%20+&emoji_name=car"));
	EXPECT_JSON(status_of(z.b, z.a), "{\"status_text\":\"on vacation\"," CAR "}");
	/* Explicit code and type, as the reference's documentation example sends them. */
	EXPECT_SUCCESS(set_own(z.b, "status_text=x&emoji_name=car&emoji_code=1f697&reaction_type=unicode_emoji"));
	EXPECT_JSON(status_of(z.a, z.b), "{\"status_text\":\"x\"," CAR "}");
	/* The emoji of the web app's suggested statuses, by the reference's names. */
	static const char *const suggested[][2] = {
	    {"working_on_it", "1f6e0"}, {"calendar", "1f4c5"}, {"bus", "1f68c"},   {"hurt", "1f915"},
	    {"palm_tree", "1f334"},     {"house", "1f3e0"},    {"office", "1f3e2"}};
	for (size_t i = 0; i < sizeof(suggested) / sizeof(suggested[0]); i++) {
		EXPECT_SUCCESS(set_own(z.b, fmt("emoji_name=%s", suggested[i][0])));
		EXPECT_STR(status_of(z.b, z.b), "emoji_code", suggested[i][1]);
	}
	/* Zulip's extra emoji. */
	EXPECT_SUCCESS(set_own(z.b, "emoji_name=zulip"));
	EXPECT_JSON(status_of(z.a, z.b),
	            "{\"status_text\":\"x\",\"emoji_name\":\"zulip\",\"emoji_code\":\"zulip\","
	            "\"reaction_type\":\"zulip_extra_emoji\"}");
}

/* Only what is sent changes; an empty text or emoji name clears that part. */
static void test_status_partial_and_clear(void)
{
	struct org z = new_org();
	EXPECT_SUCCESS(set_own(z.a, "status_text=busy"));
	EXPECT_SUCCESS(set_own(z.a, "emoji_name=car"));
	EXPECT_JSON(status_of(z.a, z.a), "{\"status_text\":\"busy\"," CAR "}");
	EXPECT_SUCCESS(set_own(z.a, "status_text=lunch"));
	EXPECT_JSON(status_of(z.a, z.a), "{\"status_text\":\"lunch\"," CAR "}");
	EXPECT_SUCCESS(set_own(z.a, "emoji_name="));
	EXPECT_JSON(status_of(z.a, z.a), "{\"status_text\":\"lunch\"}");
	EXPECT_SUCCESS(set_own(z.a, "status_text="));
	EXPECT_JSON(status_of(z.a, z.a), "{}");
	/* Blank text is stripped to nothing. */
	EXPECT_SUCCESS(set_own(z.a, "status_text=x"));
	EXPECT_SUCCESS(set_own(z.a, "status_text=%20%20"));
	EXPECT_JSON(status_of(z.a, z.a), "{}");
	/* Unicode white space too (Python's str.strip()): a no-break space and an ideographic space. */
	EXPECT_SUCCESS(set_own(z.a, "status_text=%C2%A0x%E3%80%80"));
	EXPECT_JSON(status_of(z.a, z.a), "{\"status_text\":\"x\"}");
}

/* 60 code points after stripping. */
static void test_status_text_length(void)
{
	struct org z = new_org();
	EXPECT_ERROR(set_own(z.a, fmt("status_text=%s", repeat('a', 61))), 400, "BAD_REQUEST",
	             "status_text is too long (limit: 60 characters)");
	EXPECT_JSON(status_of(z.a, z.a), "{}");
	EXPECT_SUCCESS(set_own(z.a, fmt("status_text=%%20%s%%20", repeat('a', 60))));
	EXPECT_STR(status_of(z.a, z.a), "status_text", repeat('a', 60));
	/* Code points, not bytes: 60 x U+00E9 (120 bytes). */
	char *e = keep(calloc(1, 6 * 61 + 1));
	for (int i = 0; i < 60; i++)
		strcat(e, "%C3%A9");
	EXPECT_SUCCESS(set_own(z.a, fmt("status_text=%s", e)));
	EXPECT_ERROR(set_own(z.a, fmt("status_text=%s%%C3%%A9", e)), 400, "BAD_REQUEST",
	             "status_text is too long (limit: 60 characters)");
	/* The length is checked first, also on the administrators' route and before the target is looked up. */
	EXPECT_ERROR(api_post(z.d, "/users/99999999/status", fmt("status_text=%s", repeat('a', 61))), 400,
	             "BAD_REQUEST", "status_text is too long (limit: 60 characters)");
}

static void test_status_errors(void)
{
	struct org z = new_org();
	EXPECT_SUCCESS(set_own(z.a, "status_text=before&emoji_name=car"));
	EXPECT_ERROR(set_own(z.a, ""), 400, "BAD_REQUEST", "Client did not pass any new values.");
	/* Without text, emoji name or away, nothing counts as sent. */
	EXPECT_ERROR(set_own(z.a, "emoji_code=1f697"), 400, "BAD_REQUEST", "Client did not pass any new values.");
	EXPECT_ERROR(set_own(z.a, "status_text=x&emoji_code=1f697"), 400, "BAD_REQUEST",
	             "Client must pass emoji_name if they pass either emoji_code or reaction_type.");
	EXPECT_ERROR(set_own(z.a, "status_text=x&reaction_type=unicode_emoji"), 400, "BAD_REQUEST",
	             "Client must pass emoji_name if they pass either emoji_code or reaction_type.");
	EXPECT_ERROR(set_own(z.a, "emoji_name=invalid"), 400, "BAD_REQUEST", "Emoji 'invalid' does not exist");
	EXPECT_ERROR(set_own(z.a, "emoji_name=car&emoji_code=1f600"), 400, "BAD_REQUEST", "Invalid emoji name.");
	EXPECT_ERROR(set_own(z.a, "emoji_name=car&emoji_code=fffff"), 400, "BAD_REQUEST", "Invalid emoji code.");
	EXPECT_ERROR(set_own(z.a, "emoji_name=car&emoji_code="), 400, "BAD_REQUEST", "Invalid emoji code.");
	EXPECT_ERROR(set_own(z.a, "emoji_name=car&reaction_type=realm_emoji"), 400, "BAD_REQUEST",
	             "Invalid custom emoji.");
	EXPECT_ERROR(set_own(z.a, "emoji_name=zulip&emoji_code=car&reaction_type=zulip_extra_emoji"), 400,
	             "BAD_REQUEST", "Invalid emoji code.");
	EXPECT_ERROR(set_own(z.a, "emoji_name=car&emoji_code=zulip&reaction_type=zulip_extra_emoji"), 400,
	             "BAD_REQUEST", "Invalid emoji name.");
	EXPECT_ERROR(set_own(z.a, "emoji_name=car&reaction_type=other"), 400, "BAD_REQUEST", "Invalid emoji type.");
	EXPECT_ERROR(set_own(z.a, "away=maybe"), 400, "BAD_REQUEST", "away is not valid JSON");
	/* Nothing changed. */
	EXPECT_JSON(status_of(z.a, z.a), "{\"status_text\":\"before\"," CAR "}");
}

static void test_status_bots_refused(void)
{
	struct org z = new_org();
	EXPECT_ERROR(set_own(z.t, "status_text=x"), 400, "BAD_REQUEST", "This endpoint does not accept bot requests.");
	/* Before the parameters are read. */
	EXPECT_ERROR(set_own(z.t, "away=maybe"), 400, "BAD_REQUEST", "This endpoint does not accept bot requests.");
	psql_ok("UPDATE users SET role = 200 WHERE id = %lld", (long long)z.t->id);
	EXPECT_ERROR(set_for(z.t, z.a, "status_text=x"), 400, "BAD_REQUEST",
	             "This endpoint does not accept bot requests.");
	EXPECT_JSON(status_of(z.a, z.a), "{}");
}

/* POST /users/{id}/status: administrators (and a bot's owner), for humans and, from FL 473, bots. */
static void test_status_for_user(void)
{
	struct org z = new_org();
	EXPECT_ERROR(set_for(z.b, z.a, "status_text=x"), 400, "BAD_REQUEST", "Insufficient permission");
	EXPECT_ERROR(set_for(z.g, z.a, "status_text=x"), 400, "BAD_REQUEST", "Insufficient permission");
	EXPECT_JSON(status_of(z.a, z.a), "{}");
	EXPECT_SUCCESS(set_for(z.d, z.a, "status_text=set+by+admin&emoji_name=car"));
	EXPECT_JSON(status_of(z.b, z.a), "{\"status_text\":\"set by admin\"," CAR "}");
	EXPECT_SUCCESS(set_for(z.o, z.t, "status_text=a+bot"));
	EXPECT_JSON(status_of(z.b, z.t), "{\"status_text\":\"a bot\"}");
	/* The owner of a bot may set its status. */
	psql_ok("UPDATE users SET bot_owner_id = %lld WHERE id = %lld", (long long)z.b->id, (long long)z.t->id);
	EXPECT_SUCCESS(set_for(z.b, z.t, "status_text=mine"));
	EXPECT_JSON(status_of(z.b, z.t), "{\"status_text\":\"mine\"}");
	EXPECT_ERROR(set_for(z.d, z.a, ""), 400, "BAD_REQUEST", "Client did not pass any new values.");
	/* away is not a parameter of this route. */
	struct resp *r = set_for(z.d, z.a, "status_text=y&away=true");
	EXPECT_STATUS(r, 200);
	EXPECT_JSON(jget(r->json, "ignored_parameters_unsupported"), "[\"away\"]");
	EXPECT_JSON(status_of(z.a, z.a), "{\"status_text\":\"y\"," CAR "}");
	EXPECT_ERROR(api_post(z.d, "/users/99999999/status", "status_text=x"), 400, "BAD_REQUEST", "No such user");
	struct user *other = new_realm();
	EXPECT_ERROR(set_for(z.d, other, "status_text=x"), 400, "BAD_REQUEST", "No such user");
	deactivate_user(z.b);
	EXPECT_ERROR(set_for(z.d, z.b, "status_text=x"), 400, "BAD_REQUEST", "User is deactivated");
}

static void test_status_get_errors(void)
{
	struct org z = new_org();
	EXPECT_ERROR(api_get(z.a, "/users/99999999/status"), 400, "BAD_REQUEST", "No such user");
	struct user *other = new_realm();
	EXPECT_ERROR(api_get(z.a, fmt("/users/%lld/status", (long long)other->id)), 400, "BAD_REQUEST",
	             "No such user");
	restrict_guests(&z);
	EXPECT_ERROR(api_get(z.g, fmt("/users/%lld/status", (long long)z.a->id)), 400, "BAD_REQUEST",
	             "Insufficient permission");
	EXPECT_JSON(status_of(z.g, z.g), "{}");
	EXPECT_JSON(status_of(z.g, z.t), "{}");
	deactivate_user(z.b);
	EXPECT_ERROR(api_get(z.a, fmt("/users/%lld/status", (long long)z.b->id)), 400, "BAD_REQUEST",
	             "User is deactivated");
}

static struct queue *reg(const struct user *u, const char *types)
{
	return queue_register(u, fmt("event_types=%s", url_encode(types)));
}

/* user_status events carry the fields sent, to everyone who can see the user. */
static void test_status_events(void)
{
	struct org z = new_org();
	restrict_guests(&z);
	struct queue *qa = reg(z.a, "[\"user_status\"]"), *qb = reg(z.b, "[\"user_status\"]"),
	             *qg = reg(z.g, "[\"user_status\"]"), *qt = reg(z.t, "[\"user_status\"]");
	EXPECT_SUCCESS(set_own(z.a, "status_text=+out+"));
	const char *want = fmt("[{\"type\":\"user_status\",\"user_id\":%lld,\"status_text\":\"out\"}]", (long long)z.a->id);
	EXPECT_JSON(queue_drain(qa), want);
	EXPECT_JSON(queue_drain(qb), want);
	EXPECT_JSON(queue_drain(qt), want);
	EXPECT_JSON(queue_drain(qg), "[]");
	EXPECT_SUCCESS(set_own(z.a, "emoji_name=car"));
	EXPECT_JSON(queue_drain(qb), fmt("[{\"type\":\"user_status\",\"user_id\":%lld," CAR "}]", (long long)z.a->id));
	EXPECT_SUCCESS(set_own(z.a, "emoji_name=&status_text="));
	EXPECT_JSON(queue_drain(qb), fmt("[{\"type\":\"user_status\",\"user_id\":%lld,\"status_text\":\"\","
	                                 "\"emoji_name\":\"\",\"emoji_code\":\"\",\"reaction_type\":\"unicode_emoji\"}]",
	                                 (long long)z.a->id));
	/* A guest hears of its own status, and of a bot's. */
	EXPECT_SUCCESS(set_own(z.g, "status_text=g"));
	EXPECT_JSON(queue_drain(qg), fmt("[{\"type\":\"user_status\",\"user_id\":%lld,\"status_text\":\"g\"}]",
	                                 (long long)z.g->id));
	EXPECT_SUCCESS(set_for(z.o, z.t, "status_text=t"));
	EXPECT_JSON(queue_drain(qg), fmt("[{\"type\":\"user_status\",\"user_id\":%lld,\"status_text\":\"t\"}]",
	                                 (long long)z.t->id));
	CHECK(json_object_array_length(queue_drain(qb)) == 2, "b hears of the guest and the bot");
	/* A failed request sends nothing. */
	EXPECT_ERROR(set_own(z.a, "emoji_name=invalid"), 400, "BAD_REQUEST", "Emoji 'invalid' does not exist");
	EXPECT_JSON(queue_drain(qb), "[]");
}

/* away (deprecated): presence_enabled inverted, with the user's own user_settings event. */
static void test_status_away(void)
{
	struct org z = new_org();
	struct queue *qa = reg(z.a, "[\"user_status\",\"user_settings\"]"), *qb = reg(z.b, "[\"user_status\"]");
	EXPECT_SUCCESS(set_own(z.a, "away=true"));
	EXPECT_JSON(queue_drain(qa),
	            fmt("[{\"type\":\"user_settings\",\"op\":\"update\",\"property\":\"presence_enabled\",\"value\":false},"
	                "{\"type\":\"user_status\",\"user_id\":%lld,\"away\":true}]",
	                (long long)z.a->id));
	EXPECT_JSON(queue_drain(qb), fmt("[{\"type\":\"user_status\",\"user_id\":%lld,\"away\":true}]", (long long)z.a->id));
	EXPECT_JSON(status_of(z.b, z.a), "{\"away\":true}");
	CHECK(strcmp(psql_ok("SELECT presence_enabled FROM users WHERE id = %lld", (long long)z.a->id), "f") == 0,
	      "presence_enabled is false");
	EXPECT_SUCCESS(set_own(z.a, "away=false&status_text=back"));
	EXPECT_JSON(status_of(z.b, z.a), "{\"status_text\":\"back\"}");
}

/* The register response: non-empty statuses of active users the user may see, keyed by user id. */
static void test_status_register(void)
{
	struct org z = new_org();
	EXPECT_SUCCESS(set_own(z.a, "status_text=a&emoji_name=car"));
	EXPECT_SUCCESS(set_own(z.b, "status_text=b"));
	EXPECT_SUCCESS(set_own(z.b, "status_text="));
	EXPECT_SUCCESS(set_own(z.d, "away=true"));
	EXPECT_SUCCESS(set_own(z.g, "status_text=g"));
	EXPECT_SUCCESS(set_for(z.o, z.t, "status_text=t"));
	struct resp *r = api_post(z.o, "/register", "fetch_event_types=%5B%22user_status%22%5D");
	EXPECT_STATUS(r, 200);
	EXPECT_JSON(jget(r->json, "user_status"),
	            fmt("{\"%lld\":{\"away\":true},\"%lld\":{\"status_text\":\"a\"," CAR "},"
	                "\"%lld\":{\"status_text\":\"g\"},\"%lld\":{\"status_text\":\"t\"}}",
	                (long long)z.d->id, (long long)z.a->id, (long long)z.g->id, (long long)z.t->id));
	restrict_guests(&z);
	r = api_post(z.g, "/register", "fetch_event_types=%5B%22user_status%22%5D");
	EXPECT_JSON(jget(r->json, "user_status"),
	            fmt("{\"%lld\":{\"status_text\":\"g\"},\"%lld\":{\"status_text\":\"t\"}}", (long long)z.g->id,
	                (long long)z.t->id));
	/* Deactivated users' statuses are left out. */
	deactivate_user(z.a);
	r = api_post(z.b, "/register", "fetch_event_types=%5B%22user_status%22%5D");
	CHECK(jget(jget(r->json, "user_status"), fmt("%lld", (long long)z.a->id)) == NULL, "deactivated user left out: %s",
	      jtext(jget(r->json, "user_status")));
}

void register_user_status_tests(void)
{
	static const struct itest_case cases[] = {
	    {"status_set_and_get", test_status_set_and_get},
	    {"status_partial_and_clear", test_status_partial_and_clear},
	    {"status_text_length", test_status_text_length},
	    {"status_errors", test_status_errors},
	    {"status_bots_refused", test_status_bots_refused},
	    {"status_for_user", test_status_for_user},
	    {"status_get_errors", test_status_get_errors},
	    {"status_events", test_status_events},
	    {"status_away", test_status_away},
	    {"status_register", test_status_register},
	    {NULL, NULL},
	};
	itest_add_suite("user_status", cases);
}
