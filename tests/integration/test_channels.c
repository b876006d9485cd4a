/*
 * Channels and subscriptions: POST/GET/DELETE /users/me/subscriptions (creating channels), subscription
 * properties, GET /streams, /streams/{id}, /streams/{id}/members, /users/me/{id}/topics, channel folders.
 * Reference: digest section e; Zulip zerver/views/streams.py (add_subscriptions_backend, list_to_streams,
 * update_subscription_properties_backend), zerver/lib/streams.py.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "itest.h"

static int64_t system_group(const struct user *u, const char *name)
{
	(void)u;
	return strtoll(
	    psql_ok("SELECT id FROM user_groups WHERE realm_id = (SELECT realm_id FROM users WHERE id = %lld)"
	            " AND name = '%s'",
	            (long long)u->id, name),
	    NULL, 10);
}

static json_object *find_by(json_object *list, const char *key, int64_t id)
{
	for (size_t i = 0; list != NULL && i < json_object_array_length(list); i++)
		if (jint(json_object_array_get_idx(list, i), key) == id)
			return json_object_array_get_idx(list, i);
	return NULL;
}

/* Every list parameter has a bound; the largest list allowed is answered for what it holds, one more is refused
 * before any work. 1000 unknown names once took seconds and hundreds of megabytes (a quadratic message). */
static void test_subscription_list_bounds(void)
{
	struct user *a = new_user("admin");
	char *tag = unique_channel_name("gone");
	const char *names = json_list(1000, fmt("\"%s-%%zu\"", tag));
	struct resp *r = http(&(struct request){.method = "DELETE", .path = "/api/v1/users/me/subscriptions", .user = a,
	                                        .form = fmt("subscriptions=%s", url_encode(names))});
	EXPECT_STATUS(r, 400);
	const char *msg = jstr(r->json, "msg"), *head = fmt("Channel(s) (%s-0, %s-1, ", tag, tag);
	CHECK(msg != NULL && strncmp(msg, head, strlen(head)) == 0 && strstr(msg, fmt(", %s-999) do not exist", tag)),
	      "every unknown name listed once: %.200s", msg ? msg : r->body);
	r = http(&(struct request){.method = "DELETE", .path = "/api/v1/users/me/subscriptions", .user = a,
	                           .form = fmt("subscriptions=%s", url_encode(json_list(1001, "\"x%zu\"")))});
	EXPECT_ERROR(r, 400, "BAD_REQUEST", "subscriptions is too long (limit: 1000 items)");
	r = api_post(a, "/users/me/subscriptions",
	             fmt("subscriptions=%s", url_encode(json_list(1001, "{\"name\":\"x%zu\"}"))));
	EXPECT_ERROR(r, 400, "BAD_REQUEST", "subscriptions is too long (limit: 1000 items)");
	r = api_post(a, "/users/me/subscriptions",
	             fmt("subscriptions=%s&principals=%s", url_encode("[{\"name\":\"x\"}]"),
	                 url_encode(json_list(1001, fmt("%lld", (long long)a->id)))));
	EXPECT_ERROR(r, 400, "BAD_REQUEST", "principals is too long (limit: 1000 items)");
	/* Channels times users is bounded too: 1000 names for 11 users would be 11,000 subscriptions. */
	char *users = fmt("%lld", (long long)a->id);
	for (int i = 0; i < 10; i++)
		users = fmt("%s,%lld", users, (long long)new_user("member")->id);
	r = api_post(a, "/users/me/subscriptions",
	             fmt("subscriptions=%s&principals=%s",
	                 url_encode(json_list(1000, fmt("{\"name\":\"%s-%%zu\"}", tag))), url_encode(fmt("[%s]", users))));
	EXPECT_ERROR(r, 400, "BAD_REQUEST", "Too many subscriptions requested (maximum 10000).");
	CHECK(strcmp(psql_ok("SELECT count(*) FROM channels WHERE name LIKE '%s-%%'", tag), "0") == 0,
	      "nothing was created");
}

/* A name asked twice (in any case) is one channel: created once (not a unique violation), subscribed and removed
 * once; a repeated principal is one user. */
static void test_subscription_repeated_names(void)
{
	struct user *a = new_user("member");
	char *name = unique_channel_name("Twice");
	char *lower = keep(strdup(name));
	for (char *p = lower; *p; p++)
		*p = (char)(*p >= 'A' && *p <= 'Z' ? *p - 'A' + 'a' : *p);
	const char *me = fmt("%lld", (long long)a->id);
	struct resp *r = api_post(
	    a, "/users/me/subscriptions",
	    fmt("subscriptions=%s&principals=%s",
	        url_encode(fmt("[{\"name\":\"%s\"},{\"name\":\"%s\"},{\"name\":\"%s\"}]", name, lower, name)),
	        url_encode(fmt("[%s,%s]", me, me))));
	EXPECT_SUCCESS(r);
	EXPECT_STR_LIST(jget(r->json, "subscribed"), me, name);
	CHECK(strcmp(jtext(jget(r->json, "already_subscribed")), "{}") == 0, "nothing already subscribed: %s", r->body);
	CHECK(strcmp(psql_ok("SELECT count(*) FROM channels WHERE lower(name) = '%s'", lower), "1") == 0,
	      "one channel");
	/* The largest list allowed, of one existing name. */
	r = api_post(a, "/users/me/subscriptions",
	             fmt("subscriptions=%s", url_encode(json_list(1000, fmt("{\"name\":\"%s\"}", lower)))));
	EXPECT_SUCCESS(r);
	EXPECT_STR_LIST(jget(r->json, "already_subscribed"), me, name);
	r = http(&(struct request){.method = "DELETE", .path = "/api/v1/users/me/subscriptions", .user = a,
	                           .form = fmt("subscriptions=%s", url_encode(fmt("[\"%s\",\"%s\"]", lower, name)))});
	EXPECT_SUCCESS(r);
	EXPECT_STR_LIST(r->json, "removed", lower);
	EXPECT_STR_LIST(r->json, "not_removed", NULL);
	r = http(&(struct request){.method = "DELETE", .path = "/api/v1/users/me/subscriptions", .user = a,
	                           .form = fmt("subscriptions=%s", url_encode(json_list(1000, "\"no-such\"")))});
	EXPECT_ERROR(r, 400, "BAD_REQUEST", "Channel(s) (no-such) do not exist");
}

static void test_create_and_subscribe(void)
{
	struct user *u = new_user("member");
	char *name = unique_channel_name("create");
	struct resp *r = api_post(u, "/users/me/subscriptions",
	                          fmt("subscriptions=%s", url_encode(fmt("[{\"name\":\"%s\"}]", name))));
	EXPECT_SUCCESS(r);
	json_object *sub = jget(r->json, "subscribed");
	json_object *mine = jget(sub, fmt("%lld", (long long)u->id));
	REQUIRE(mine != NULL && json_object_array_length(mine) == 1, "subscribed: %s", r->body);
	CHECK(strcmp(json_object_get_string(json_object_array_get_idx(mine, 0)), name) == 0, "%s", r->body);
	CHECK(json_object_object_length(jget(r->json, "already_subscribed")) == 0, "%s", r->body);
	CHECK(!jhas(r->json, "unauthorized"), "unauthorized only when not fatal: %s", r->body);
	/* Again: already subscribed, case-insensitive name. */
	r = api_post(u, "/users/me/subscriptions",
	             fmt("subscriptions=%s", url_encode(fmt("[{\"name\":\"  %s  \"}]", name))));
	EXPECT_SUCCESS(r);
	CHECK(jget(jget(r->json, "already_subscribed"), fmt("%lld", (long long)u->id)) != NULL, "%s", r->body);
	CHECK(json_object_object_length(jget(r->json, "subscribed")) == 0, "%s", r->body);
}

static void test_subscription_object(void)
{
	struct user *u = new_user("member");
	char *name = unique_channel_name("object");
	int64_t id = create_channel_with(u, name, NULL);
	struct resp *r = api_get(u, "/users/me/subscriptions?include_subscribers=true");
	EXPECT_SUCCESS(r);
	json_object *s = find_by(jget(r->json, "subscriptions"), "stream_id", id);
	REQUIRE(s != NULL, "channel %lld missing: %s", (long long)id, r->body);
	EXPECT_STR(s, "name", name);
	EXPECT_STR(s, "description", "");
	EXPECT_STR(s, "rendered_description", "");
	EXPECT_BOOL(s, "invite_only", false);
	EXPECT_BOOL(s, "is_web_public", false);
	EXPECT_BOOL(s, "is_archived", false);
	EXPECT_BOOL(s, "history_public_to_subscribers", true);
	EXPECT_BOOL(s, "is_muted", false);
	EXPECT_BOOL(s, "in_home_view", true);
	EXPECT_BOOL(s, "pin_to_top", false);
	EXPECT_NULL(s, "desktop_notifications");
	EXPECT_NULL(s, "message_retention_days");
	EXPECT_NULL(s, "first_message_id");
	EXPECT_NULL(s, "folder_id");
	EXPECT_STR(s, "topics_policy", "inherit");
	EXPECT_INT(s, "creator_id", u->id);
	EXPECT_INT(s, "subscriber_count", 1);
	EXPECT_INT(s, "stream_post_policy", 1);
	CHECK(jstr(s, "color") != NULL && jstr(s, "color")[0] == '#', "color: %s", jtext(s));
	CHECK(strcmp(jtext(jget(s, "subscribers")), fmt("[%lld]", (long long)u->id)) == 0, "subscribers: %s", jtext(s));
	/* Reference defaults of the permission settings. */
	EXPECT_INT(s, "can_send_message_group", system_group(u, "role:everyone"));
	EXPECT_INT(s, "can_remove_subscribers_group", system_group(u, "role:administrators"));
	EXPECT_INT(s, "can_add_subscribers_group", system_group(u, "role:nobody"));
	EXPECT_INT(s, "can_subscribe_group", system_group(u, "role:nobody"));
	EXPECT_INT(s, "can_create_topic_group", system_group(u, "role:everyone"));
	CHECK(strcmp(jtext(jget(s, "can_administer_channel_group")),
	             fmt("{\"direct_members\":[%lld],\"direct_subgroups\":[]}", (long long)u->id)) == 0,
	      "can_administer_channel_group: %s", jtext(s));
	/* Without include_subscribers there is no subscribers key. */
	r = api_get(u, "/users/me/subscriptions");
	CHECK(!jhas(find_by(jget(r->json, "subscriptions"), "stream_id", id), "subscribers"), "%s", r->body);
}

static void test_channel_name_errors(void)
{
	struct user *u = new_user("member");
	struct resp *r =
	    api_post(u, "/users/me/subscriptions", fmt("subscriptions=%s", url_encode("[{\"name\":\"  \"}]")));
	EXPECT_ERROR(r, 400, "BAD_REQUEST", "Channel name can't be empty.");
	r = api_post(u, "/users/me/subscriptions",
	             fmt("subscriptions=%s", url_encode(fmt("[{\"name\":\"%s\"}]", repeat('x', 61)))));
	EXPECT_ERROR(r, 400, "BAD_REQUEST", "Channel name too long (limit: 60 characters).");
	r = api_post(u, "/users/me/subscriptions", fmt("subscriptions=%s", url_encode("[{\"name\":\"ab\\u0007c\"}]")));
	EXPECT_ERROR(r, 400, "BAD_REQUEST", "Invalid character in channel name, at position 3.");
	r = api_post(u, "/users/me/subscriptions", "");
	EXPECT_ERROR(r, 400, "REQUEST_VARIABLE_MISSING", "Missing 'subscriptions' argument");
}

static void test_guest_cannot_subscribe(void)
{
	struct user *g = new_user("guest");
	struct resp *r = api_post(g, "/users/me/subscriptions",
	                          fmt("subscriptions=%s", url_encode(fmt("[{\"name\":\"%s\"}]", unique_channel_name("g")))));
	EXPECT_ERROR(r, 400, "BAD_REQUEST", "Not allowed for guest users");
}

static void test_private_channel_access(void)
{
	struct user *owner = new_user("member"), *other = new_user("member"), *admin = new_user("admin");
	char *name = unique_channel_name("private");
	int64_t id = create_channel_with(owner, name, "invite_only=true");
	/* Not visible to a member who is not subscribed. */
	struct resp *r = api_get(other, fmt("/streams/%lld", (long long)id));
	EXPECT_ERROR(r, 400, "BAD_REQUEST", "Invalid channel ID");
	r = api_get(other, "/streams");
	EXPECT_SUCCESS(r);
	CHECK(find_by(jget(r->json, "streams"), "stream_id", id) == NULL, "private channel listed: %s", r->body);
	/* Subscribing oneself is refused; not fatal lists it. */
	const char *sub = fmt("subscriptions=%s", url_encode(fmt("[{\"name\":\"%s\"}]", name)));
	r = api_post(other, "/users/me/subscriptions", sub);
	EXPECT_ERROR(r, 400, "BAD_REQUEST", fmt("Unable to access channel (%s).", name));
	r = api_post(other, "/users/me/subscriptions", fmt("%s&authorization_errors_fatal=false", sub));
	EXPECT_SUCCESS(r);
	EXPECT_STR_LIST(r->json, "unauthorized", name);
	/* Protected history by default; administrators see it with include_all. */
	r = api_get(owner, fmt("/streams/%lld", (long long)id));
	EXPECT_SUCCESS(r);
	EXPECT_BOOL(jget(r->json, "stream"), "history_public_to_subscribers", false);
	EXPECT_BOOL(jget(r->json, "stream"), "invite_only", true);
	r = api_get(admin, "/streams?include_all=true");
	CHECK(find_by(jget(r->json, "streams"), "stream_id", id) != NULL, "admin include_all: %s", r->body);
	r = api_get(other, fmt("/streams/%lld/members", (long long)id));
	EXPECT_ERROR(r, 400, "BAD_REQUEST", "Invalid channel ID");
}

static void test_subscribe_others(void)
{
	struct user *a = new_user("member"), *b = new_user("member");
	char *name = unique_channel_name("others");
	int64_t id = create_channel_with(a, name, NULL);
	struct resp *r = api_post(a, "/users/me/subscriptions",
	                          fmt("subscriptions=%s&principals=%s", url_encode(fmt("[{\"name\":\"%s\"}]", name)),
	                              url_encode(fmt("[%lld]", (long long)b->id))));
	EXPECT_SUCCESS(r);
	CHECK(jget(jget(r->json, "subscribed"), fmt("%lld", (long long)b->id)) != NULL, "%s", r->body);
	r = api_get(a, fmt("/streams/%lld/members", (long long)id));
	EXPECT_SUCCESS(r);
	CHECK(strcmp(jtext(jget(r->json, "subscribers")), fmt("[%lld,%lld]", (long long)a->id, (long long)b->id)) == 0,
	      "subscribers: %s", r->body);
	r = api_post(a, "/users/me/subscriptions",
	             fmt("subscriptions=%s&principals=%s", url_encode(fmt("[{\"name\":\"%s\"}]", name)),
	                 url_encode("[999999999]")));
	EXPECT_ERROR(r, 400, "BAD_REQUEST", "No such user");
}

static void test_creation_permissions(void)
{
	struct user *m = new_user("member"), *owner = new_user("owner");
	const char *sub = fmt("subscriptions=%s", url_encode(fmt("[{\"name\":\"%s\"}]", unique_channel_name("perm"))));
	struct resp *r = api_post(m, "/users/me/subscriptions", fmt("%s&message_retention_days=30", sub));
	EXPECT_ERROR(r, 400, "UNAUTHORIZED_PRINCIPAL", "Must be an organization owner");
	r = api_post(owner, "/users/me/subscriptions", fmt("%s&message_retention_days=%s", sub, url_encode("\"x\"")));
	EXPECT_ERROR(r, 400, "REQUEST_VARIABLE_INVALID", "Bad value for 'message_retention_days': x");
	r = api_post(m, "/users/me/subscriptions", fmt("%s&is_web_public=true", sub));
	EXPECT_ERROR(r, 400, "BAD_REQUEST", "Web-public channels are not enabled.");
	r = api_post(m, "/users/me/subscriptions", fmt("%s&is_default_stream=true", sub));
	EXPECT_ERROR(r, 400, "BAD_REQUEST", "Insufficient permission");
	r = api_post(owner, "/users/me/subscriptions", fmt("%s&is_default_stream=true&invite_only=true", sub));
	EXPECT_ERROR(r, 400, "BAD_REQUEST", "A default channel cannot be private.");
	r = api_post(m, "/users/me/subscriptions", fmt("%s&topics_policy=bogus", sub));
	EXPECT_ERROR(r, 400, "BAD_REQUEST", "Invalid topics_policy");
	/* Nothing was created by the failures. */
	CHECK(strcmp(psql_ok("SELECT count(*) FROM channels WHERE name LIKE 'perm-%%-%ld'", (long)getpid()), "0") == 0,
	      "a failed request created a channel");
	/* Members may not create channels once the setting is administrators. */
	psql_ok("UPDATE realms SET can_create_public_channel_group_id = confab_system_group(id, 'role:administrators')"
	        " WHERE subdomain = ''");
	r = api_post(m, "/users/me/subscriptions", sub);
	psql_ok("UPDATE realms SET can_create_public_channel_group_id = confab_system_group(id, 'role:members')"
	        " WHERE subdomain = ''");
	EXPECT_ERROR(r, 400, "BAD_REQUEST", "Insufficient permission");
	r = api_post(owner, "/users/me/subscriptions",
	             fmt("%s&message_retention_days=%s", sub, url_encode("\"unlimited\"")));
	EXPECT_SUCCESS(r);
}

static void test_group_setting_on_create(void)
{
	struct user *u = new_user("member"), *v = new_user("member");
	char *name = unique_channel_name("settings");
	int64_t members = system_group(u, "role:members");
	int64_t id = create_channel_with(
	    u, name,
	    fmt("can_send_message_group=%lld&can_remove_subscribers_group=%s", (long long)members,
	        url_encode(fmt("{\"direct_members\":[%lld],\"direct_subgroups\":[]}", (long long)v->id))));
	struct resp *r = api_get(u, fmt("/streams/%lld", (long long)id));
	json_object *s = jget(r->json, "stream");
	EXPECT_INT(s, "can_send_message_group", members);
	CHECK(strcmp(jtext(jget(s, "can_remove_subscribers_group")),
	             fmt("{\"direct_members\":[%lld],\"direct_subgroups\":[]}", (long long)v->id)) == 0,
	      "%s", jtext(s));
	r = api_post(u, "/users/me/subscriptions",
	             fmt("subscriptions=%s&can_add_subscribers_group=%lld",
	                 url_encode(fmt("[{\"name\":\"%s\"}]", unique_channel_name("everyone"))),
	                 (long long)system_group(u, "role:everyone")));
	EXPECT_ERROR(r, 400, "BAD_REQUEST",
	             "'can_add_subscribers_group' setting cannot be set to 'role:everyone' group.");
}

static void test_unsubscribe(void)
{
	struct user *a = new_user("member"), *b = new_user("member");
	char *name = unique_channel_name("unsub");
	create_channel_with(a, name,
	               fmt("principals=%s", url_encode(fmt("[%lld,%lld]", (long long)a->id, (long long)b->id))));
	const char *subs = fmt("subscriptions=%s", url_encode(fmt("[\"%s\"]", name)));
	struct resp *r = api_method("DELETE", a, fmt("/users/me/subscriptions?%s", subs));
	EXPECT_SUCCESS(r);
	EXPECT_STR_LIST(r->json, "removed", name);
	EXPECT_STR_LIST(r->json, "not_removed", NULL);
	r = api_method("DELETE", a, fmt("/users/me/subscriptions?%s", subs));
	EXPECT_SUCCESS(r);
	EXPECT_STR_LIST(r->json, "removed", NULL);
	EXPECT_STR_LIST(r->json, "not_removed", name);
	r = api_method("DELETE", a,
	               fmt("/users/me/subscriptions?subscriptions=%s", url_encode("[\"no-such-channel-x\"]")));
	EXPECT_ERROR(r, 400, "BAD_REQUEST", "Channel(s) (no-such-channel-x) do not exist");
	/* Removing someone else needs can_remove_subscribers_group (administrators by default). */
	r = api_method(
	    "DELETE", a,
	    fmt("/users/me/subscriptions?%s&principals=%s", subs, url_encode(fmt("[%lld]", (long long)b->id))));
	EXPECT_ERROR(r, 400, "BAD_REQUEST", "Insufficient permission");
	struct user *admin = new_user("admin");
	r = api_method(
	    "DELETE", admin,
	    fmt("/users/me/subscriptions?%s&principals=%s", subs, url_encode(fmt("[%lld]", (long long)b->id))));
	EXPECT_SUCCESS(r);
	EXPECT_STR_LIST(r->json, "removed", name);
}

/* Bulk subscription changes by an administrator (principals and many channels at once), public and private
 * channels interleaved, one public channel with a guest subscriber. */
#define BULK_CHANNELS 12
struct bulk {
	struct user *admin, *b, *c, *d, *g;
	const char *names[BULK_CHANNELS];
	int64_t ids[BULK_CHANNELS];
	bool private[BULK_CHANNELS];
	int guest_channel; /* the public channel g is subscribed to */
};

static void bulk_setup(struct bulk *k)
{
	k->admin = new_realm();
	k->b = new_user_in(k->admin->realm, "member", NULL);
	k->c = new_user_in(k->admin->realm, "member", NULL);
	k->d = new_user_in(k->admin->realm, "member", NULL);
	k->g = new_user_in(k->admin->realm, "guest", NULL);
	k->guest_channel = 5;
	for (int i = 0; i < BULK_CHANNELS; i++) {
		k->private[i] = i == 1 || i == 4 || i == 8;
		k->names[i] = unique_channel_name(k->private[i] ? "bulkv" : "bulkp");
		k->ids[i] = create_channel_with(k->admin, k->names[i], k->private[i] ? "invite_only=true" : NULL);
	}
	EXPECT_SUCCESS(api_post(k->admin, "/users/me/subscriptions",
	                        fmt("subscriptions=%s&principals=%s",
	                            url_encode(fmt("[{\"name\":\"%s\"}]", k->names[k->guest_channel])),
	                            url_encode(fmt("[%lld]", (long long)k->g->id)))));
}

/* The peer events of a change of b and c (op), as the viewers other than b and c receive them: one per private
 * channel (only admin sees those), then the public channel with a guest subscriber, then the other public ones in
 * one event. */
static char *bulk_peer_events(const struct bulk *k, const char *op, bool admin)
{
	char *out = "[", *batch = "";
	for (int i = 0; i < BULK_CHANNELS; i++)
		if (k->private[i] && admin)
			out = fmt("%s{\"type\":\"subscription\",\"op\":\"%s\",\"stream_ids\":[%lld],\"user_ids\":[%lld,%lld]},",
			          out, op, (long long)k->ids[i], (long long)k->b->id, (long long)k->c->id);
	out = fmt("%s{\"type\":\"subscription\",\"op\":\"%s\",\"stream_ids\":[%lld],\"user_ids\":[%lld,%lld]},", out,
	          op, (long long)k->ids[k->guest_channel], (long long)k->b->id, (long long)k->c->id);
	for (int i = 0; i < BULK_CHANNELS; i++) /* created in order: ascending ids */
		if (!k->private[i] && i != k->guest_channel)
			batch = fmt("%s%s%lld", batch, *batch ? "," : "", (long long)k->ids[i]);
	return fmt("%s{\"type\":\"subscription\",\"op\":\"%s\",\"stream_ids\":[%s],\"user_ids\":[%lld,%lld]}]", out, op,
	           batch, (long long)k->b->id, (long long)k->c->id);
}

static void expect_queue(struct queue *q, const char *want)
{
	json_object *got = queue_drain(q), *w = json_tokener_parse(want);
	REQUIRE(w != NULL, "bad expected JSON: %s", want);
	CHECK(json_object_equal(got, w), "user %lld: expected %s\n      got %s", (long long)q->u->id, want, jtext(got));
	json_object_put(w);
}

/* A subscribed user's events: stream create for each private channel (in the order asked), then one subscription
 * add with every channel in the order asked. */
static void expect_bulk_add(const struct bulk *k, struct queue *q)
{
	json_object *got = queue_drain(q);
	REQUIRE(json_object_array_length(got) == 4, "user %lld: %s", (long long)q->u->id, jtext(got));
	for (int i = 0, n = 0; i < BULK_CHANNELS; i++) {
		if (!k->private[i])
			continue;
		json_object *e = json_object_array_get_idx(got, (size_t)n++), *streams;
		CHECK(strcmp(jstr(e, "type"), "stream") == 0 && strcmp(jstr(e, "op"), "create") == 0, "%s", jtext(e));
		json_object_object_get_ex(e, "streams", &streams);
		CHECK(json_object_array_length(streams) == 1 &&
		          jint(json_object_array_get_idx(streams, 0), "stream_id") == k->ids[i],
		      "%s", jtext(e));
	}
	json_object *add = json_object_array_get_idx(got, 3), *subs;
	CHECK(strcmp(jstr(add, "op"), "add") == 0, "%s", jtext(add));
	REQUIRE(json_object_object_get_ex(add, "subscriptions", &subs) && json_object_array_length(subs) == BULK_CHANNELS,
	        "%s", jtext(add));
	for (int i = 0; i < BULK_CHANNELS; i++) {
		json_object *s = json_object_array_get_idx(subs, (size_t)i), *members;
		CHECK(jint(s, "stream_id") == k->ids[i], "%d: %s", i, jtext(s));
		json_object_object_get_ex(s, "subscribers", &members);
		size_t want = i == k->guest_channel ? 4 : 3;
		CHECK(json_object_array_length(members) == want, "%d: %s", i, jtext(s));
	}
}

/* An administrator subscribes two users to twelve channels, then unsubscribes them: each user gets their events
 * once, the viewers get the peer events once each, batched as the reference batches them. */
static void test_bulk_subscription_events(void)
{
	struct bulk k = {0};
	bulk_setup(&k);
	const char *types = "event_types=[\"stream\",\"subscription\"]";
	struct queue *qa = queue_register(k.admin, types), *qb = queue_register(k.b, types),
	             *qc = queue_register(k.c, types), *qd = queue_register(k.d, types), *qg = queue_register(k.g, types);
	char *subs = "", *names = "", *removed = "", *deleted = "", *deleted_ids = "";
	for (int i = 0; i < BULK_CHANNELS; i++) {
		subs = fmt("%s%s{\"name\":\"%s\"}", subs, i ? "," : "", k.names[i]);
		names = fmt("%s%s\"%s\"", names, i ? "," : "", k.names[i]);
		removed = fmt("%s%s{\"name\":\"%s\",\"stream_id\":%lld}", removed, i ? "," : "", k.names[i],
		              (long long)k.ids[i]);
		if (k.private[i]) {
			deleted = fmt("%s%s{\"stream_id\":%lld}", deleted, *deleted ? "," : "", (long long)k.ids[i]);
			deleted_ids = fmt("%s%s%lld", deleted_ids, *deleted_ids ? "," : "", (long long)k.ids[i]);
		}
	}
	const char *principals = url_encode(fmt("[%lld,%lld]", (long long)k.b->id, (long long)k.c->id));
	EXPECT_SUCCESS(api_post(k.admin, "/users/me/subscriptions",
	                        fmt("subscriptions=%s&principals=%s", url_encode(fmt("[%s]", subs)), principals)));
	expect_bulk_add(&k, qb);
	expect_bulk_add(&k, qc);
	expect_queue(qa, bulk_peer_events(&k, "peer_add", true));
	expect_queue(qd, bulk_peer_events(&k, "peer_add", false));
	expect_queue(qg, fmt("[{\"type\":\"subscription\",\"op\":\"peer_add\",\"stream_ids\":[%lld],"
	                     "\"user_ids\":[%lld,%lld]}]",
	                     (long long)k.ids[k.guest_channel], (long long)k.b->id, (long long)k.c->id));
	struct resp *r =
	    api_method("DELETE", k.admin,
	               fmt("/users/me/subscriptions?subscriptions=%s&principals=%s", url_encode(fmt("[%s]", names)),
	                   principals));
	EXPECT_SUCCESS(r);
	CHECK(json_object_array_length(json_object_object_get(r->json, "removed")) == 2 * BULK_CHANNELS, "%s",
	      r->body);
	const char *own = fmt("[{\"type\":\"subscription\",\"op\":\"remove\",\"subscriptions\":[%s]},"
	                      "{\"type\":\"stream\",\"op\":\"delete\",\"streams\":[%s],\"stream_ids\":[%s]}]",
	                      removed, deleted, deleted_ids);
	expect_queue(qb, own);
	expect_queue(qc, own);
	expect_queue(qa, bulk_peer_events(&k, "peer_remove", true));
	expect_queue(qd, bulk_peer_events(&k, "peer_remove", false));
	expect_queue(qg, fmt("[{\"type\":\"subscription\",\"op\":\"peer_remove\",\"stream_ids\":[%lld],"
	                     "\"user_ids\":[%lld,%lld]}]",
	                     (long long)k.ids[k.guest_channel], (long long)k.b->id, (long long)k.c->id));
}

static void test_subscription_properties(void)
{
	struct user *u = new_user("member"), *other = new_user("member");
	int64_t id = create_channel_with(u, unique_channel_name("props"), NULL);
	const char *data = url_encode(fmt("[{\"stream_id\":%lld,\"property\":\"color\",\"value\":\"#aabbcc\"},"
	                                  "{\"stream_id\":%lld,\"property\":\"in_home_view\",\"value\":false},"
	                                  "{\"stream_id\":%lld,\"property\":\"pin_to_top\",\"value\":true},"
	                                  "{\"stream_id\":%lld,\"property\":\"desktop_notifications\",\"value\":true}]",
	                                  (long long)id, (long long)id, (long long)id, (long long)id));
	struct resp *r = api_post(u, "/users/me/subscriptions/properties", fmt("subscription_data=%s", data));
	EXPECT_SUCCESS(r);
	r = api_get(u, "/users/me/subscriptions");
	json_object *s = find_by(jget(r->json, "subscriptions"), "stream_id", id);
	EXPECT_STR(s, "color", "#aabbcc");
	EXPECT_BOOL(s, "is_muted", true);
	EXPECT_BOOL(s, "in_home_view", false);
	EXPECT_BOOL(s, "pin_to_top", true);
	EXPECT_BOOL(s, "desktop_notifications", true);
	/* PATCH works too. */
	r = http(&(struct request){
	    .method = "PATCH",
	    .path = "/api/v1/users/me/subscriptions/properties",
	    .user = u,
	    .form = fmt("subscription_data=%s", url_encode(fmt("[{\"stream_id\":%lld,\"property\":\"is_muted\","
	                                                       "\"value\":false}]",
	                                                       (long long)id)))});
	EXPECT_SUCCESS(r);
	r = api_post(
	    u, "/users/me/subscriptions/properties",
	    fmt("subscription_data=%s",
	        url_encode(fmt("[{\"stream_id\":%lld,\"property\":\"color\",\"value\":\"red\"}]", (long long)id))));
	EXPECT_ERROR(r, 400, "BAD_REQUEST", "color is not a valid hex color code");
	r = api_post(
	    u, "/users/me/subscriptions/properties",
	    fmt("subscription_data=%s",
	        url_encode(fmt("[{\"stream_id\":%lld,\"property\":\"bogus\",\"value\":true}]", (long long)id))));
	EXPECT_ERROR(r, 400, "BAD_REQUEST", "Unknown subscription property: bogus");
	r = api_post(
	    u, "/users/me/subscriptions/properties",
	    fmt("subscription_data=%s",
	        url_encode(fmt("[{\"stream_id\":%lld,\"property\":\"pin_to_top\",\"value\":\"x\"}]", (long long)id))));
	EXPECT_ERROR(r, 400, "BAD_REQUEST", "pin_to_top is not a boolean");
	/* 1 is neither member of the value's union (bool | str): pydantic's words for its first member. */
	r = api_post(
	    u, "/users/me/subscriptions/properties",
	    fmt("subscription_data=%s",
	        url_encode(fmt("[{\"stream_id\":%lld,\"property\":\"pin_to_top\",\"value\":1}]", (long long)id))));
	EXPECT_ERROR(r, 400, "BAD_REQUEST", "subscription_data[0][\"value\"][\"bool\"] is not a boolean");
	r = api_post(
	    other, "/users/me/subscriptions/properties",
	    fmt("subscription_data=%s",
	        url_encode(fmt("[{\"stream_id\":%lld,\"property\":\"pin_to_top\",\"value\":true}]", (long long)id))));
	EXPECT_ERROR(r, 400, "BAD_REQUEST", fmt("Not subscribed to channel ID %lld", (long long)id));
}

static void test_streams_list(void)
{
	struct user *u = new_user("member"), *g = new_user("guest");
	int64_t pub = create_channel_with(u, unique_channel_name("list"), NULL);
	struct resp *r = api_get(u, "/streams");
	EXPECT_SUCCESS(r);
	json_object *s = find_by(jget(r->json, "streams"), "stream_id", pub);
	REQUIRE(s != NULL, "public channel missing: %s", r->body);
	EXPECT_BOOL(s, "is_default", false);
	CHECK(!jhas(s, "color"), "no subscription fields in /streams: %s", jtext(s));
	/* Guests only see what they are subscribed to. */
	r = api_get(g, "/streams");
	EXPECT_SUCCESS(r);
	CHECK(find_by(jget(r->json, "streams"), "stream_id", pub) == NULL, "guest sees a public channel: %s", r->body);
	r = api_get(u, "/streams?include_all_active=true");
	EXPECT_ERROR(r, 400, "BAD_REQUEST", "User not authorized for this query");
	r = api_get(u, "/streams?include_public=false&include_subscribed=false");
	EXPECT_SUCCESS(r);
	CHECK(json_object_array_length(jget(r->json, "streams")) == 0, "%s", r->body);
	r = api_get(u, "/streams/999999999");
	EXPECT_ERROR(r, 400, "BAD_REQUEST", "Invalid channel ID");
}

static void test_topics(void)
{
	struct user *u = new_user("member");
	int64_t id = create_channel_with(u, unique_channel_name("topics"), NULL);
	psql_ok(
	    "INSERT INTO messages (realm_id, sender_id, channel_id, topic, content, rendered_content)"
	    " SELECT realm_id, id, %lld, t, 'x', '<p>x</p>' FROM users, unnest(ARRAY['alpha', 'beta', 'Alpha', '']) t"
	    " WHERE id = %lld",
	    (long long)id, (long long)u->id);
	struct resp *r = api_get(u, fmt("/users/me/%lld/topics", (long long)id));
	EXPECT_SUCCESS(r);
	json_object *t = jget(r->json, "topics");
	REQUIRE(t != NULL && json_object_array_length(t) == 3, "three topics (alpha merged ignoring case): %s",
	        r->body);
	EXPECT_STR(json_object_array_get_idx(t, 0), "name", "general chat");
	EXPECT_STR(json_object_array_get_idx(t, 1), "name", "Alpha");
	EXPECT_STR(json_object_array_get_idx(t, 2), "name", "beta");
	r = api_get(u, fmt("/users/me/%lld/topics?allow_empty_topic_name=true", (long long)id));
	EXPECT_STR(json_object_array_get_idx(jget(r->json, "topics"), 0), "name", "");
	int64_t max = strtoll(psql_ok("SELECT max(id) FROM messages WHERE channel_id = %lld", (long long)id), NULL, 10);
	EXPECT_INT(json_object_array_get_idx(jget(r->json, "topics"), 0), "max_id", max);
}

static void test_channel_folders(void)
{
	struct user *admin = new_user("admin"), *m = new_user("member");
	char *name = unique_channel_name("folder");
	struct resp *r = api_post(admin, "/channel_folders/create",
	                          fmt("name=%s&description=%s", url_encode(name), url_encode("Some *words*")));
	EXPECT_SUCCESS(r);
	int64_t id = jint(r->json, "channel_folder_id");
	CHECK(id > 0, "%s", r->body);
	r = api_post(m, "/channel_folders/create", fmt("name=%s", url_encode(unique_channel_name("folder"))));
	EXPECT_ERROR(r, 400, "UNAUTHORIZED_PRINCIPAL", "Must be an organization administrator");
	r = api_post(admin, "/channel_folders/create", fmt("name=%s", url_encode(name)));
	EXPECT_ERROR(r, 400, "BAD_REQUEST", "Channel folder name already in use");
	r = api_post(admin, "/channel_folders/create", "name=%20");
	EXPECT_ERROR(r, 400, "BAD_REQUEST", "Channel folder name can't be empty.");
	r = api_get(m, "/channel_folders");
	EXPECT_SUCCESS(r);
	json_object *f = find_by(jget(r->json, "channel_folders"), "id", id);
	REQUIRE(f != NULL, "%s", r->body);
	EXPECT_STR(f, "name", name);
	EXPECT_STR(f, "description", "Some *words*");
	CHECK(strstr(jstr(f, "rendered_description"), "<em>words</em>") != NULL, "%s", jtext(f));
	EXPECT_INT(f, "creator_id", admin->id);
	EXPECT_BOOL(f, "is_archived", false);
	/* A channel can be created in it. */
	int64_t c = create_channel_with(admin, unique_channel_name("infolder"), fmt("folder_id=%lld", (long long)id));
	r = api_get(admin, fmt("/streams/%lld", (long long)c));
	EXPECT_INT(jget(r->json, "stream"), "folder_id", id);
	r = api_post(
	    admin, "/users/me/subscriptions",
	    fmt("subscriptions=%s&folder_id=999999999", url_encode(fmt("[{\"name\":\"%s\"}]", unique_channel_name("nf")))));
	EXPECT_ERROR(r, 400, "BAD_REQUEST", "Invalid channel folder ID");
}

/* A web-public channel, once spectators are allowed, makes server_settings report web-public access. */
static void test_web_public_channel(void)
{
	struct user *owner = new_realm();
	struct resp *r = http(&(struct request){.path = "/api/v1/server_settings", .host = realm_host(owner->realm)});
	EXPECT_BOOL(r->json, "realm_web_public_access_enabled", false);
	psql_ok("UPDATE realms SET enable_spectator_access = true WHERE subdomain = '%s'", owner->realm);
	r = http(&(struct request){.path = "/api/v1/server_settings", .host = realm_host(owner->realm)});
	EXPECT_BOOL(r->json, "realm_web_public_access_enabled", false);
	struct user *member = new_user_in(owner->realm, "member", NULL);
	const char *sub = fmt("subscriptions=%s&is_web_public=true",
	                      url_encode(fmt("[{\"name\":\"%s\"}]", unique_channel_name("web"))));
	r = api_post(member, "/users/me/subscriptions", sub);
	EXPECT_ERROR(r, 400, "BAD_REQUEST", "Insufficient permission");
	r = api_post(owner, "/users/me/subscriptions", sub);
	EXPECT_SUCCESS(r);
	r = http(&(struct request){.path = "/api/v1/server_settings", .host = realm_host(owner->realm)});
	EXPECT_BOOL(r->json, "realm_web_public_access_enabled", true);
}

/* GET /get_stream_id: the id of a channel the user can read, by name; the reference's access_stream_by_name errors. */
static void test_get_stream_id(void)
{
	struct user *owner = new_user("owner"), *member = new_user("member");
	char *public_name = unique_channel_name("id-public"), *private_name = unique_channel_name("id-private");
	int64_t public_id = create_channel_with(owner, public_name, NULL);
	create_channel_with(owner, private_name, "invite_only=true");
	struct resp *r = api_get(member, fmt("/get_stream_id?stream=%s", url_encode(public_name)));
	EXPECT_SUCCESS(r);
	EXPECT_INT(r->json, "stream_id", public_id);
	EXPECT_KEYS(r->json, "result", "msg", "stream_id");
	r = api_get(member, fmt("/get_stream_id?stream=%s", url_encode(private_name)));
	EXPECT_ERROR(r, 400, "BAD_REQUEST", fmt("Invalid channel name '%s'", private_name));
	EXPECT_SUCCESS(api_get(owner, fmt("/get_stream_id?stream=%s", url_encode(private_name))));
	r = api_get(member, "/get_stream_id?stream=no-such-channel");
	EXPECT_ERROR(r, 400, "BAD_REQUEST", "Invalid channel name 'no-such-channel'");
	r = api_get(member, "/get_stream_id");
	EXPECT_ERROR(r, 400, "REQUEST_VARIABLE_MISSING", "Missing 'stream' argument");
}

void register_channels_tests(void)
{
	static const struct itest_case cases[] = {
	    {"subscription_list_bounds", test_subscription_list_bounds},
	    {"subscription_repeated_names", test_subscription_repeated_names},
	    {"create_and_subscribe", test_create_and_subscribe},
	    {"subscription_object", test_subscription_object},
	    {"channel_name_errors", test_channel_name_errors},
	    {"guest_cannot_subscribe", test_guest_cannot_subscribe},
	    {"private_channel_access", test_private_channel_access},
	    {"subscribe_others", test_subscribe_others},
	    {"creation_permissions", test_creation_permissions},
	    {"group_setting_on_create", test_group_setting_on_create},
	    {"unsubscribe", test_unsubscribe},
	    {"bulk_subscription_events", test_bulk_subscription_events},
	    {"subscription_properties", test_subscription_properties},
	    {"streams_list", test_streams_list},
	    {"topics", test_topics},
	    {"channel_folders", test_channel_folders},
	    {"web_public_channel", test_web_public_channel},
	    {"get_stream_id", test_get_stream_id},
	    {NULL, NULL},
	};
	itest_add_suite("channels", cases);
}
