/*
 * Archiving channels: DELETE /streams/{stream_id}, who may do it, what clients see afterwards (events with and
 * without the archived_channels client capability, register, sending), and the Notification Bot message.
 * Reference: Zulip zerver/views/streams.py (deactivate_stream_backend), zerver/lib/streams.py
 * (access_stream_for_delete_or_update_requiring_metadata_access, access_stream_for_send_message,
 * send_stream_deletion_event), zerver/actions/streams.py (do_deactivate_stream, do_unarchive_stream),
 * zerver/tornado/event_queue.py (archived_channels), zerver/tests/test_subs.py; event shapes from
 * shared/reference/zulip-openapi.yaml.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "itest.h"

static unsigned counter;

static char *uniq(const char *tag)
{
	return fmt("arch-%s-%u-%ld", tag, ++counter, (long)getpid());
}

static const char *text(json_object *o)
{
	return json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE);
}

/* A queue of u for types (a JSON list), declaring archived_channels or not. */
static struct queue *reg(const struct user *u, const char *types, bool archived_channels)
{
	return queue_register(
	    u, fmt("event_types=%s&client_capabilities=%s", url_encode(types),
	           url_encode(archived_channels ? "{\"archived_channels\":true}" : "{\"archived_channels\":false}")));
}

/* A fresh organization: owner o, members a and b, a guest g. */
struct org {
	struct user *o, *a, *b, *g;
};

static struct org new_org(void)
{
	struct org z;
	z.o = new_realm();
	z.a = new_user_in(z.o->realm, "member", NULL);
	z.b = new_user_in(z.o->realm, "member", NULL);
	z.g = new_user_in(z.o->realm, "guest", NULL);
	return z;
}

/* u creates channel name (private when asked) with the users of principals (a JSON list); returns its id. */
static int64_t create_channel(const struct user *u, const char *name, const char *principals, bool private)
{
	struct resp *r = api_post(u, "/users/me/subscriptions",
	                          fmt("subscriptions=%s&principals=%s&invite_only=%s",
	                              url_encode(fmt("[{\"name\":\"%s\"}]", name)), url_encode(principals),
	                              private ? "true" : "false"));
	REQUIRE(r->status == 200, "creating %s: %s", name, r->body);
	return strtoll(psql_ok("SELECT id FROM channels WHERE name = '%s'", name), NULL, 10);
}

static struct resp *archive(const struct user *u, int64_t id)
{
	return api_method("DELETE", u, fmt("/streams/%lld", (long long)id));
}

static const char *ids1(int64_t a)
{
	return fmt("[%lld]", (long long)a);
}

/* ---- who may archive ---------------------------------------------------------------------------------------- */

/* A member who may read the channel learns that they may not administer it; others learn nothing. */
static void test_archive_access(void)
{
	struct org z = new_org();
	const char *pub = uniq("pub"), *priv = uniq("priv");
	int64_t pid = create_channel(z.o, pub, ids1(z.o->id), false);
	int64_t vid = create_channel(z.o, priv, ids1(z.o->id), true);
	EXPECT_ERROR(archive(z.a, pid), 400, "BAD_REQUEST", "You do not have permission to administer this channel.");
	EXPECT_ERROR(archive(z.a, vid), 400, "BAD_REQUEST", "Invalid channel ID");
	EXPECT_ERROR(archive(z.g, pid), 400, "BAD_REQUEST", "Invalid channel ID");
	EXPECT_ERROR(archive(z.o, 999999999), 400, "BAD_REQUEST", "Invalid channel ID");
	/* another organization's channel does not exist here */
	struct user *other = new_realm();
	EXPECT_ERROR(archive(other, pid), 400, "BAD_REQUEST", "Invalid channel ID");
	CHECK(strcmp(psql_ok("SELECT is_archived FROM channels WHERE id = %lld", (long long)pid), "f") == 0,
	      "a refused archive changed the channel");
	EXPECT_SUCCESS(archive(z.o, vid)); /* an administrator archives a private channel */
	EXPECT_ERROR(archive(z.o, vid), 400, "BAD_REQUEST", "Channel is already deactivated");
}

/* The channel's creator is in its can_administer_channel_group; a member of the group archives it. */
static void test_archive_by_channel_administrator(void)
{
	struct org z = new_org();
	const char *name = uniq("mine");
	int64_t id = create_channel(z.a, name, ids1(z.a->id), false);
	EXPECT_ERROR(archive(z.b, id), 400, "BAD_REQUEST", "You do not have permission to administer this channel.");
	EXPECT_SUCCESS(archive(z.a, id));
	CHECK(strcmp(psql_ok("SELECT is_archived FROM channels WHERE id = %lld", (long long)id), "t") == 0,
	      "not archived");
}

/* ---- events --------------------------------------------------------------------------------------------------- */

/* archived_channels: stream update is_archived; without it: stream delete (no for_archiving key). Everyone who
 * could see the channel hears of it; a guest who could not hears nothing. */
static void test_archive_events(void)
{
	struct org z = new_org();
	const char *name = uniq("ev");
	int64_t id = create_channel(z.o, name, fmt("[%lld,%lld]", (long long)z.o->id, (long long)z.a->id), false);
	struct queue *qa = reg(z.a, "[\"stream\"]", true), *qa_old = reg(z.a, "[\"stream\"]", false);
	struct queue *qb = reg(z.b, "[\"stream\"]", true), *qb_old = reg(z.b, "[\"stream\"]", false);
	struct queue *qg = reg(z.g, "[\"stream\"]", false);
	EXPECT_SUCCESS(archive(z.o, id));
	const char *update = fmt("[{\"type\":\"stream\",\"op\":\"update\",\"property\":\"is_archived\",\"value\":true,"
	                         "\"stream_id\":%lld,\"name\":\"%s\"}]",
	                         (long long)id, name);
	const char *deleted =
	    fmt("[{\"type\":\"stream\",\"op\":\"delete\",\"streams\":[{\"stream_id\":%lld}],\"stream_ids\":[%lld]}]",
	        (long long)id, (long long)id);
	EXPECT_EVENTS(qa, update);
	EXPECT_EVENTS(qb, update);
	EXPECT_EVENTS(qa_old, deleted);
	EXPECT_EVENTS(qb_old, deleted);
	EXPECT_NO_EVENTS(qg);
}

/* The subscribers get the Notification Bot's message in "channel events", already read; messages stay. */
static void test_archive_notification_and_messages(void)
{
	struct org z = new_org();
	const char *name = uniq("msg");
	int64_t id = create_channel(z.o, name, fmt("[%lld,%lld]", (long long)z.o->id, (long long)z.a->id), false);
	int64_t before = send_channel_message(z.a, name, "kept", "still here");
	struct queue *qa = reg(z.a, "[\"message\"]", false);
	EXPECT_SUCCESS(archive(z.o, id));
	json_object *ev = queue_drain(qa);
	REQUIRE(json_object_array_length(ev) == 1, "expected the notification: %s", text(ev));
	json_object *msg = jget(json_object_array_get_idx(ev, 0), "message");
	EXPECT_STR(msg, "sender_email", "notification-bot@zulip.com");
	EXPECT_STR(msg, "subject", "channel events");
	EXPECT_INT(msg, "stream_id", id);
	json_object *flags = jget(json_object_array_get_idx(ev, 0), "flags");
	CHECK(flags && strstr(text(flags), "\"read\""), "the notice is not read: %s", text(flags));
	struct resp *r = api_get(z.a, fmt("/messages?anchor=newest&num_before=5&num_after=0&narrow=%s&apply_markdown=false",
	                                  url_encode(fmt("[{\"operator\":\"channel\",\"operand\":%lld}]", (long long)id))));
	EXPECT_SUCCESS(r);
	json_object *msgs = jget(r->json, "messages");
	REQUIRE(json_object_array_length(msgs) == 2, "messages: %s", r->body);
	EXPECT_INT(json_object_array_get_idx(msgs, 0), "id", before);
	EXPECT_STR(json_object_array_get_idx(msgs, 1), "content", fmt("Channel #**%s** has been archived.", name));
}

/* ---- after archiving ------------------------------------------------------------------------------------------ */

/* Sending to an archived channel fails as the reference's access_stream_for_send_message. */
static void test_send_to_archived(void)
{
	struct org z = new_org();
	const char *name = uniq("send");
	int64_t id = create_channel(z.o, name, fmt("[%lld,%lld]", (long long)z.o->id, (long long)z.a->id), false);
	EXPECT_SUCCESS(archive(z.o, id));
	struct resp *r = api_post(z.a, "/messages",
	                          fmt("type=stream&to=%lld&topic=t&content=hello", (long long)id));
	EXPECT_ERROR(r, 400, "BAD_REQUEST", fmt("Not authorized to send to channel '%s'", name));
}

/* The index of the channel id in list (of objects with stream_id), or -1. */
static int find_channel(json_object *list, int64_t id)
{
	for (size_t i = 0; list && i < json_object_array_length(list); i++)
		if (jint(json_object_array_get_idx(list, i), "stream_id") == id)
			return (int)i;
	return -1;
}

/* register: the archived channel is in subscriptions only for clients that declare archived_channels. */
static void test_register_archived(void)
{
	struct org z = new_org();
	const char *name = uniq("reg"), *other = uniq("reg-never");
	int64_t id = create_channel(z.o, name, fmt("[%lld,%lld]", (long long)z.o->id, (long long)z.a->id), false);
	int64_t nid = create_channel(z.o, other, ids1(z.o->id), false);
	EXPECT_SUCCESS(archive(z.o, id));
	EXPECT_SUCCESS(archive(z.o, nid));
#define REGISTER_FORM "fetch_event_types=%s&client_capabilities=%s"
	const char *types = url_encode("[\"subscription\",\"stream\"]");
	struct resp *old = api_post(z.a, "/register", fmt(REGISTER_FORM, types, url_encode("{}")));
	EXPECT_SUCCESS(old);
	CHECK(find_channel(jget(old->json, "subscriptions"), id) < 0, "archived subscription shown: %s", old->body);
	CHECK(find_channel(jget(old->json, "never_subscribed"), nid) < 0, "archived channel shown: %s", old->body);
	CHECK(find_channel(jget(old->json, "streams"), id) < 0, "archived channel in streams: %s", old->body);
	struct resp *now = api_post(z.a, "/register", fmt(REGISTER_FORM, types, url_encode("{\"archived_channels\":true}")));
	EXPECT_SUCCESS(now);
	int i = find_channel(jget(now->json, "subscriptions"), id);
	REQUIRE(i >= 0, "archived subscription missing: %s", now->body);
	EXPECT_BOOL(json_object_array_get_idx(jget(now->json, "subscriptions"), (size_t)i), "is_archived", true);
	CHECK(find_channel(jget(now->json, "never_subscribed"), nid) >= 0, "archived channel missing: %s", now->body);
}

/* An archived default channel leaves the default channels (default_streams event), and the moderation request
 * channel is unset (realm update_dict). */
static void test_archive_leaves_defaults(void)
{
	struct org z = new_org();
	const char *name = uniq("def"), *mod = uniq("mod");
	int64_t id = create_channel(z.o, name, ids1(z.o->id), false);
	int64_t mid = create_channel(z.o, mod, ids1(z.o->id), true);
	EXPECT_SUCCESS(api_post(z.o, "/default_streams", fmt("stream_id=%lld", (long long)id)));
	EXPECT_SUCCESS(api_method("PATCH", z.o, fmt("/realm?moderation_request_channel_id=%lld", (long long)mid)));
	struct queue *qa = reg(z.a, "[\"default_streams\",\"realm\"]", true);
	EXPECT_SUCCESS(archive(z.o, id));
	EXPECT_EVENTS(qa, "[{\"type\":\"default_streams\",\"default_streams\":[]}]");
	EXPECT_SUCCESS(archive(z.o, mid));
	EXPECT_EVENTS(qa, "[{\"type\":\"realm\",\"op\":\"update_dict\",\"property\":\"default\","
	                  "\"data\":{\"moderation_request_channel_id\":-1}}]");
	struct resp *r = api_post(z.a, "/register", "fetch_event_types=[\"default_streams\",\"realm\"]");
	EXPECT_SUCCESS(r);
	CHECK(strcmp(text(jget(r->json, "realm_default_streams")), "[]") == 0, "%s", r->body);
	EXPECT_INT(r->json, "realm_moderation_request_channel_id", -1);
}

/* ---- unarchiving: PATCH /streams/{stream_id} is_archived=false ------------------------------------------------ */

static struct resp *set_archived(const struct user *u, int64_t id, const char *value)
{
	return api_method("PATCH", u, fmt("/streams/%lld?is_archived=%s", (long long)id, value));
}

/* archived_channels: stream update is_archived=false; without it: stream create with the channel (no
 * for_unarchiving key). The subscribers get the Notification Bot's notice, unread. */
static void test_unarchive_events(void)
{
	struct org z = new_org();
	const char *name = uniq("un");
	int64_t id = create_channel(z.o, name, fmt("[%lld,%lld]", (long long)z.o->id, (long long)z.a->id), false);
	EXPECT_SUCCESS(archive(z.o, id));
	struct queue *qa = reg(z.a, "[\"stream\",\"message\"]", true), *qb_old = reg(z.b, "[\"stream\"]", false);
	struct queue *qg = reg(z.g, "[\"stream\"]", false);
	EXPECT_SUCCESS(set_archived(z.o, id, "false"));
	CHECK(strcmp(psql_ok("SELECT is_archived FROM channels WHERE id = %lld", (long long)id), "f") == 0,
	      "still archived");
	json_object *ev = queue_drain(qa);
	REQUIRE(json_object_array_length(ev) == 2, "update + notice: %s", text(ev));
	json_object *want = json_tokener_parse(
	    fmt("{\"type\":\"stream\",\"op\":\"update\",\"property\":\"is_archived\",\"value\":false,"
	        "\"stream_id\":%lld,\"name\":\"%s\"}",
	        (long long)id, name));
	CHECK(json_object_equal(json_object_array_get_idx(ev, 0), want), "update: %s", text(ev));
	json_object_put(want);
	json_object *notice = json_object_array_get_idx(ev, 1);
	EXPECT_STR(jget(notice, "message"), "subject", "channel events");
	EXPECT_STR(jget(notice, "message"), "sender_email", "notification-bot@zulip.com");
	CHECK(strcmp(text(jget(notice, "flags")), "[]") == 0, "the notice is read: %s", text(notice));
	json_object *created = queue_drain(qb_old);
	REQUIRE(json_object_array_length(created) == 1, "stream create: %s", text(created));
	json_object *c = json_object_array_get_idx(created, 0);
	EXPECT_STR(c, "type", "stream");
	EXPECT_STR(c, "op", "create");
	EXPECT_ABSENT(c, "for_unarchiving");
	json_object *s = json_object_array_get_idx(jget(c, "streams"), 0);
	EXPECT_INT(s, "stream_id", id);
	EXPECT_STR(s, "name", name);
	EXPECT_BOOL(s, "is_archived", false);
	EXPECT_NO_EVENTS(qg);
	struct resp *r = api_get(z.a, fmt("/messages?anchor=newest&num_before=1&num_after=0&narrow=%s&apply_markdown=false",
	                                  url_encode(fmt("[{\"operator\":\"channel\",\"operand\":%lld}]", (long long)id))));
	EXPECT_SUCCESS(r);
	EXPECT_STR(json_object_array_get_idx(jget(r->json, "messages"), 0), "content",
	           fmt("Channel #**%s** has been unarchived.", name));
	/* messages can be sent again */
	send_channel_message(z.a, name, "back", "hello again");
}

/* is_archived=true is ignored; false on an active channel, or on a private channel nobody is subscribed to, fails
 * with the reference's message; only administrators may unarchive. */
static void test_unarchive_errors(void)
{
	struct org z = new_org();
	const char *name = uniq("unerr"), *priv = uniq("unpriv");
	int64_t id = create_channel(z.o, name, fmt("[%lld,%lld]", (long long)z.o->id, (long long)z.a->id), false);
	int64_t vid = create_channel(z.o, priv, ids1(z.o->id), true);
	struct queue *qa = reg(z.a, "[\"stream\"]", true);
	EXPECT_SUCCESS(set_archived(z.o, id, "true"));
	EXPECT_NO_EVENTS(qa);
	CHECK(strcmp(psql_ok("SELECT is_archived FROM channels WHERE id = %lld", (long long)id), "f") == 0,
	      "is_archived=true archived the channel");
	EXPECT_ERROR(set_archived(z.o, id, "false"), 400, "BAD_REQUEST", "Channel is not currently deactivated");
	EXPECT_SUCCESS(archive(z.o, id));
	queue_drain(qa);
	EXPECT_ERROR(set_archived(z.a, id, "false"), 400, "BAD_REQUEST",
	             "You do not have permission to administer this channel.");
	EXPECT_ERROR(set_archived(z.o, id, "maybe"), 400, "BAD_REQUEST", "is_archived is not valid JSON");
	EXPECT_NO_EVENTS(qa);
	EXPECT_SUCCESS(archive(z.o, vid));
	psql_ok("UPDATE subscriptions SET active = false WHERE channel_id = %lld", (long long)vid);
	EXPECT_ERROR(set_archived(z.o, vid, "false"), 400, "BAD_REQUEST", "Channel is private and have no subscribers");
	CHECK(strcmp(psql_ok("SELECT is_archived FROM channels WHERE id = %lld", (long long)vid), "t") == 0,
	      "unarchived anyway");
}

void register_channel_archive_tests(void)
{
	static const struct itest_case cases[] = {
	    {"archive_access", test_archive_access},
	    {"archive_by_channel_administrator", test_archive_by_channel_administrator},
	    {"archive_events", test_archive_events},
	    {"archive_notification_and_messages", test_archive_notification_and_messages},
	    {"send_to_archived", test_send_to_archived},
	    {"register_archived", test_register_archived},
	    {"archive_leaves_defaults", test_archive_leaves_defaults},
	    {"unarchive_events", test_unarchive_events},
	    {"unarchive_errors", test_unarchive_errors},
	    {NULL, NULL},
	};
	itest_add_suite("channel_archive", cases);
}
