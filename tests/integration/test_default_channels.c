/*
 * Default channels: POST and DELETE /default_streams, the default_streams event, register's realm_default_streams,
 * and new users (POST /users, confabctl create-user) joining the default channels.
 * Reference: Zulip zerver/views/streams.py (add_default_stream, remove_default_stream), zerver/decorator.py
 * (check_if_user_can_manage_default_streams), zerver/actions/default_streams.py (do_add_default_stream,
 * do_remove_default_stream, notify_default_streams), zerver/actions/create_user.py (do_create_user); shapes from
 * shared/reference/zulip-openapi.yaml (add-default-stream, remove-default-stream, default_streams event).
 * Every test uses an organization of its own: a default channel of the root organization would subscribe the users
 * other suites create there.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "itest.h"

static unsigned counter;

static char *uniq(const char *tag)
{
	return fmt("defch-%s-%u-%ld", tag, ++counter, (long)getpid());
}

static const char *text(json_object *o)
{
	return json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE);
}

/* A fresh organization: owner o (who may create users), an administrator d, a member a, a guest g. */
struct org {
	struct user *o, *d, *a, *g;
};

static struct org new_org(void)
{
	struct org z;
	struct user *first = new_realm();
	z.o = new_user_in(first->realm, "owner", (const char *const[]){"--can-create-users", NULL});
	z.d = new_user_in(first->realm, "admin", NULL);
	z.a = new_user_in(first->realm, "member", NULL);
	z.g = new_user_in(first->realm, "guest", NULL);
	return z;
}

static int64_t create_channel(const struct user *u, const char *name, bool private)
{
	struct resp *r = api_post(u, "/users/me/subscriptions",
	                          fmt("subscriptions=%s&invite_only=%s", url_encode(fmt("[{\"name\":\"%s\"}]", name)),
	                              private ? "true" : "false"));
	REQUIRE(r->status == 200, "creating %s: %s", name, r->body);
	return strtoll(psql_ok("SELECT id FROM channels WHERE name = '%s'", name), NULL, 10);
}

static struct resp *add_default(const struct user *u, int64_t id)
{
	return api_post(u, "/default_streams", fmt("stream_id=%lld", (long long)id));
}

static struct resp *remove_default(const struct user *u, int64_t id)
{
	return api_method("DELETE", u, fmt("/default_streams?stream_id=%lld", (long long)id));
}

static const char *defaults_of(const struct user *u)
{
	struct resp *r = api_post(u, "/register", "fetch_event_types=[\"default_streams\"]");
	EXPECT_SUCCESS(r);
	return text(jget(r->json, "realm_default_streams"));
}

/* Adding and removing: the default_streams event with every default channel to non-guests, and register. */
static void test_add_and_remove(void)
{
	struct org z = new_org();
	int64_t one = create_channel(z.o, uniq("one"), false), two = create_channel(z.o, uniq("two"), false);
	struct queue *qa = queue_register(z.a, "event_types=[\"default_streams\"]");
	struct queue *qg = queue_register(z.g, "event_types=[\"default_streams\"]");
	EXPECT_SUCCESS(add_default(z.d, two));
	EXPECT_SUCCESS(add_default(z.o, one));
	EXPECT_EVENTS(qa, fmt("[{\"type\":\"default_streams\",\"default_streams\":[%lld]},"
	                      "{\"type\":\"default_streams\",\"default_streams\":[%lld,%lld]}]",
	                      (long long)two, (long long)one, (long long)two));
	CHECK(strcmp(defaults_of(z.a), fmt("[%lld,%lld]", (long long)one, (long long)two)) == 0, "register: %s",
	      defaults_of(z.a));
	/* already a default channel: nothing changes, no event */
	EXPECT_SUCCESS(add_default(z.o, one));
	EXPECT_NO_EVENTS(qa);
	EXPECT_SUCCESS(remove_default(z.o, one));
	EXPECT_EVENTS(qa, fmt("[{\"type\":\"default_streams\",\"default_streams\":[%lld]}]", (long long)two));
	CHECK(strcmp(defaults_of(z.a), fmt("[%lld]", (long long)two)) == 0, "register: %s", defaults_of(z.a));
	EXPECT_NO_EVENTS(qg);
}

/* The reference's messages, and nothing changes. */
static void test_errors(void)
{
	struct org z = new_org();
	int64_t pub = create_channel(z.o, uniq("pub"), false), priv = create_channel(z.o, uniq("priv"), true);
	int64_t hidden = create_channel(z.a, uniq("hidden"), true); /* the owner is not subscribed */
	EXPECT_ERROR(add_default(z.a, pub), 400, "UNAUTHORIZED_PRINCIPAL", "Must be an organization administrator");
	EXPECT_ERROR(remove_default(z.a, pub), 400, "UNAUTHORIZED_PRINCIPAL", "Must be an organization administrator");
	EXPECT_ERROR(add_default(z.o, priv), 400, "BAD_REQUEST", "Private channels cannot be made default.");
	EXPECT_ERROR(add_default(z.o, hidden), 400, "BAD_REQUEST", "Invalid channel ID");
	EXPECT_ERROR(add_default(z.o, 999999999), 400, "BAD_REQUEST", "Invalid channel ID");
	EXPECT_ERROR(remove_default(z.o, 999999999), 400, "BAD_REQUEST", "Invalid channel ID");
	EXPECT_ERROR(api_post(z.o, "/default_streams", ""), 400, "REQUEST_VARIABLE_MISSING",
	             "Missing 'stream_id' argument");
	EXPECT_ERROR(api_post(z.o, "/default_streams", "stream_id=abc"), 400, "BAD_REQUEST",
	             "stream_id is not valid JSON");
	/* another organization's channel */
	struct org y = new_org();
	EXPECT_ERROR(add_default(y.o, pub), 400, "BAD_REQUEST", "Invalid channel ID");
	/* an archived channel */
	EXPECT_SUCCESS(api_method("DELETE", z.o, fmt("/streams/%lld", (long long)pub)));
	EXPECT_ERROR(add_default(z.o, pub), 400, "BAD_REQUEST", "Invalid channel ID");
	CHECK(strcmp(defaults_of(z.a), "[]") == 0, "a refused request changed the defaults: %s", defaults_of(z.a));
}

/* New humans join the default channels (not archived ones); the channels' viewers get peer_add. */
static void test_new_users_subscribed(void)
{
	struct org z = new_org();
	const char *name = uniq("welcome");
	int64_t id = create_channel(z.o, name, false), other = create_channel(z.o, uniq("other"), false);
	EXPECT_SUCCESS(add_default(z.o, id));
	struct queue *qa = queue_register(z.a, "event_types=[\"subscription\"]");
	const char *email = unique_email("defch");
	struct resp *r = api_post(z.o, "/users",
	                          fmt("email=%s&password=%s&full_name=Newcomer", url_encode(email),
	                              url_encode("a-Long-and-Unusual-pw-7731")));
	EXPECT_SUCCESS(r);
	int64_t uid = jint(r->json, "user_id");
	EXPECT_EVENTS(qa, fmt("[{\"type\":\"subscription\",\"op\":\"peer_add\",\"stream_ids\":[%lld],"
	                      "\"user_ids\":[%lld]}]",
	                      (long long)id, (long long)uid));
	struct resp *m = api_get(z.o, fmt("/streams/%lld/members", (long long)id));
	EXPECT_SUCCESS(m);
	CHECK(strstr(text(jget(m->json, "subscribers")), fmt("%lld", (long long)uid)) != NULL, "not subscribed: %s",
	      m->body);
	CHECK(strcmp(psql_ok("SELECT count(*) FROM subscriptions WHERE user_id = %lld AND channel_id = %lld",
	                     (long long)uid, (long long)other),
	             "0") == 0,
	      "subscribed to a channel that is not default");
	/* confabctl create-user: a human joins, a bot does not */
	struct user *human = new_user_in(z.o->realm, "member", NULL);
	struct user *bot = new_user_in(z.o->realm, "member", (const char *const[]){"--bot", NULL});
	CHECK(strcmp(psql_ok("SELECT count(*) FROM subscriptions WHERE user_id = %lld AND channel_id = %lld AND active",
	                     (long long)human->id, (long long)id),
	             "1") == 0,
	      "confabctl user not subscribed");
	CHECK(strcmp(psql_ok("SELECT count(*) FROM subscriptions WHERE user_id = %lld", (long long)bot->id), "0") == 0,
	      "bot subscribed");
	struct resp *subs = api_get(human, "/users/me/subscriptions");
	EXPECT_SUCCESS(subs);
	json_object *list = jget(subs->json, "subscriptions");
	REQUIRE(json_object_array_length(list) == 1, "subscriptions: %s", subs->body);
	EXPECT_STR(json_object_array_get_idx(list, 0), "name", name);
	/* archived default channels are left out */
	EXPECT_SUCCESS(api_method("DELETE", z.o, fmt("/streams/%lld", (long long)id)));
	struct user *later = new_user_in(z.o->realm, "member", NULL);
	CHECK(strcmp(psql_ok("SELECT count(*) FROM subscriptions WHERE user_id = %lld", (long long)later->id), "0") == 0,
	      "subscribed to an archived channel");
}

void register_default_channels_tests(void)
{
	static const struct itest_case cases[] = {
	    {"add_and_remove", test_add_and_remove},
	    {"errors", test_errors},
	    {"new_users_subscribed", test_new_users_subscribed},
	    {NULL, NULL},
	};
	itest_add_suite("default_channels", cases);
}
