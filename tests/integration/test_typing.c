/*
 * Typing notifications: POST /typing and POST /messages/{message_id}/typing, their errors and the events each
 * user's queue receives (registered with POST /register, read with GET /events?dont_block=true).
 * Reference: Zulip zerver/views/typing.py, zerver/actions/typing.py, zerver/tests/test_typing.py,
 * zerver/actions/message_edit.py (validate_user_can_edit_message), zerver/lib/typed_endpoint.py (the parameter
 * order and messages), zerver/tornado/event_queue.py (stream_typing_notifications); event shapes from
 * shared/reference/zulip-openapi.yaml (GET /events: typing, typing_edit_message).
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "itest.h"

static unsigned counter;

static char *uniq(const char *tag)
{
	return fmt("ty-%s-%u-%ld", tag, ++counter, (long)getpid());
}

/* ---- queues ------------------------------------------------------------------------------------------------- */

/* A queue for u's typing events; caps: client_capabilities JSON or NULL. */
static struct queue *reg_caps(const struct user *u, const char *types, const char *caps)
{
	return queue_register(u, fmt("event_types=%s%s%s", url_encode(types), caps ? "&client_capabilities=" : "",
	                             caps ? url_encode(caps) : ""));
}

static struct queue *reg(const struct user *u, const char *caps)
{
	return reg_caps(u, "[\"typing\",\"typing_edit_message\"]", caps);
}

#define STREAM_TYPING "{\"stream_typing_notifications\":true,\"empty_topic_name\":true}"

/* ---- fixtures ----------------------------------------------------------------------------------------------- */

/* A fresh organization: owner o, members a, b, c. */
struct org {
	struct user *o, *a, *b, *c;
};

static struct org new_org(void)
{
	struct org z;
	z.o = new_realm();
	z.a = new_user_in(z.o->realm, "member", NULL);
	z.b = new_user_in(z.o->realm, "member", NULL);
	z.c = new_user_in(z.o->realm, "member", NULL);
	return z;
}

/* {"user_id":N,"email":"..."} as typing events describe a user. */
static char *ref(const struct user *u)
{
	return fmt("{\"user_id\":%lld,\"email\":\"%s\"}", (long long)u->id, u->email);
}

/* Channel name, created by a with the users of principals (a JSON list) subscribed; extra: more form fields. */
static int64_t channel(const struct user *a, const char *name, const char *principals, const char *extra)
{
	struct resp *r =
	    api_post(a, "/users/me/subscriptions",
	             fmt("subscriptions=%s&principals=%s%s%s", url_encode(fmt("[{\"name\":\"%s\"}]", name)),
	                 url_encode(principals), extra ? "&" : "", extra ? extra : ""));
	REQUIRE(r->status == 200, "creating %s: %s", name, r->body);
	return strtoll(psql_ok("SELECT id FROM channels WHERE name = '%s'", name), NULL, 10);
}

static struct resp *typing(const struct user *u, const char *form)
{
	return api_post(u, "/typing", form);
}

static struct resp *edit_typing(const struct user *u, int64_t id, const char *form)
{
	return api_post(u, fmt("/messages/%lld/typing", (long long)id), form);
}

static int64_t send_channel(const struct user *u, const char *name, const char *topic)
{
	struct resp *r =
	    api_post(u, "/messages", fmt("type=stream&to=%s&topic=%s&content=hi", url_encode(name), url_encode(topic)));
	EXPECT_SUCCESS(r);
	REQUIRE(jint(r->json, "id") > 0, "no id: %s", r->body);
	return jint(r->json, "id");
}

static int64_t send_dm(const struct user *u, const char *to)
{
	struct resp *r = api_post(u, "/messages", fmt("type=direct&to=%s&content=hi", url_encode(to)));
	EXPECT_SUCCESS(r);
	REQUIRE(jint(r->json, "id") > 0, "no id: %s", r->body);
	return jint(r->json, "id");
}

/* ---- POST /typing: parameters ------------------------------------------------------------------------------- */

static void test_typing_op(void)
{
	struct user *a = new_user("member");
	struct resp *r = typing(a, fmt("to=[%lld]", (long long)a->id));
	EXPECT_ERROR(r, 400, "REQUEST_VARIABLE_MISSING", "Missing 'op' argument");
	EXPECT_STR(r->json, "var_name", "op");
	EXPECT_ERROR(typing(a, fmt("to=[%lld]&op=foo", (long long)a->id)), 400, "BAD_REQUEST", "Invalid op");
	/* `to` is read before op, as the reference's parameters are. */
	EXPECT_ERROR(typing(a, "to=2&op=foo"), 400, "BAD_REQUEST", "to is not a list");
	EXPECT_SUCCESS(typing(a, fmt("to=[%lld]&op=start", (long long)a->id)));
	EXPECT_SUCCESS(typing(a, fmt("to=[%lld]&op=stop", (long long)a->id)));
}

/* type is direct, stream or channel; "private" is no longer accepted. */
static void test_typing_type(void)
{
	struct user *a = new_user("member");
	const char *to = fmt("to=[%lld]", (long long)a->id);
	EXPECT_ERROR(typing(a, fmt("%s&op=start&type=foo", to)), 400, "BAD_REQUEST", "Invalid type");
	EXPECT_ERROR(typing(a, fmt("%s&op=start&type=private", to)), 400, "BAD_REQUEST", "Invalid type");
	EXPECT_SUCCESS(typing(a, fmt("%s&op=start&type=direct", to)));
}

static void test_typing_to_errors(void)
{
	struct user *a = new_user("member");
	EXPECT_ERROR(typing(a, "op=start&to=2"), 400, "BAD_REQUEST", "to is not a list");
	EXPECT_ERROR(typing(a, "op=start&to=%5B1%2C%22a%22%5D"), 400, "BAD_REQUEST", "to[1] is not an integer");
	EXPECT_ERROR(typing(a, "op=start&to=%5B%5D"), 400, "BAD_REQUEST", "Empty 'to' list");
	struct resp *r = typing(a, "op=start");
	EXPECT_ERROR(r, 400, "BAD_REQUEST", "Missing 'to' argument");
	EXPECT_ABSENT(r->json, "var_name");
	EXPECT_ERROR(typing(a, "op=start&to=%5B9999999%5D"), 400, "BAD_REQUEST", "Invalid user ID 9999999");
	/* The whole request fails on the first unknown id, even after good ones. */
	EXPECT_ERROR(typing(a, fmt("op=start&to=[%lld,9999998,9999999]", (long long)a->id)), 400, "BAD_REQUEST",
	             "Invalid user ID 9999998");
	/* A user of another organization is unknown here. */
	struct user *other = new_realm();
	EXPECT_ERROR(typing(a, fmt("op=start&to=[%lld]", (long long)other->id)), 400, "BAD_REQUEST",
	             fmt("Invalid user ID %lld", (long long)other->id));
	/* For channel typing `to` is ignored, but still has to be a list. */
	EXPECT_ERROR(typing(a, "op=start&type=stream&to=2&stream_id=1&topic=x"), 400, "BAD_REQUEST",
	             "to is not a list");
}

static void test_typing_channel_errors(void)
{
	struct org z = new_org();
	int64_t ch = channel(z.a, uniq("c"), fmt("[%lld]", (long long)z.a->id), NULL);
	EXPECT_ERROR(typing(z.a, "op=start&type=stream&topic=x"), 400, "BAD_REQUEST", "Missing 'stream_id' argument");
	EXPECT_ERROR(typing(z.a, "op=start&type=channel&topic=x"), 400, "BAD_REQUEST", "Missing 'stream_id' argument");
	EXPECT_ERROR(typing(z.a, "op=start&type=stream&stream_id=invalid&topic=x"), 400, "BAD_REQUEST",
	             "stream_id is not valid JSON");
	EXPECT_ERROR(typing(z.a, fmt("op=start&type=stream&stream_id=%lld", (long long)ch)), 400, "BAD_REQUEST",
	             "Missing topic");
	EXPECT_ERROR(typing(z.a, "op=start&type=stream&stream_id=99999999&topic=x"), 400, "BAD_REQUEST",
	             "Invalid channel ID");
	struct resp *r = typing(z.a, fmt("op=start&type=stream&stream_id=%lld&topic=x&subject=y", (long long)ch));
	EXPECT_ERROR(r, 400, "REQUEST_CONFUSING_VAR", "Can't decide between 'topic' and 'subject' arguments");
	EXPECT_SUCCESS(typing(z.a, fmt("op=start&type=stream&stream_id=%lld&subject=y", (long long)ch)));
	/* An archived channel is no channel. */
	psql_ok("UPDATE channels SET is_archived = true WHERE id = %lld", (long long)ch);
	EXPECT_ERROR(typing(z.a, fmt("op=start&type=stream&stream_id=%lld&topic=x", (long long)ch)), 400, "BAD_REQUEST",
	             "Invalid channel ID");
	/* A private channel one is not subscribed to neither. */
	int64_t priv = channel(z.b, uniq("p"), fmt("[%lld]", (long long)z.b->id), "invite_only=true");
	EXPECT_ERROR(typing(z.a, fmt("op=start&type=stream&stream_id=%lld&topic=x", (long long)priv)), 400,
	             "BAD_REQUEST", "Invalid channel ID");
	/* One must be allowed to post there. */
	int64_t ro = channel(z.o, uniq("ro"), fmt("[%lld]", (long long)z.a->id), NULL);
	psql_ok("UPDATE channels SET can_send_message_group_id = confab_system_group(realm_id, 'role:administrators')"
	        " WHERE id = %lld",
	        (long long)ro);
	EXPECT_ERROR(typing(z.a, fmt("op=start&type=stream&stream_id=%lld&topic=x", (long long)ro)), 400, "BAD_REQUEST",
	             "You do not have permission to post in this channel.");
	EXPECT_SUCCESS(typing(z.o, fmt("op=start&type=stream&stream_id=%lld&topic=x", (long long)ro)));
}

/* The user settings send_private_typing_notifications and send_stream_typing_notifications. */
static void test_typing_settings_off(void)
{
	struct org z = new_org();
	int64_t ch = channel(z.a, uniq("c"), fmt("[%lld]", (long long)z.a->id), NULL);
	psql_ok("UPDATE users SET send_private_typing_notifications = false WHERE id = %lld", (long long)z.a->id);
	EXPECT_ERROR(typing(z.a, fmt("op=start&to=[%lld]", (long long)z.b->id)), 400, "BAD_REQUEST",
	             "User has disabled typing notifications for direct messages");
	EXPECT_SUCCESS(typing(z.a, fmt("op=start&type=stream&stream_id=%lld&topic=x", (long long)ch)));
	psql_ok("UPDATE users SET send_private_typing_notifications = true, send_stream_typing_notifications = false"
	        " WHERE id = %lld",
	        (long long)z.a->id);
	EXPECT_ERROR(typing(z.a, fmt("op=start&type=stream&stream_id=%lld&topic=x", (long long)ch)), 400, "BAD_REQUEST",
	             "User has disabled typing notifications for channel messages");
	EXPECT_SUCCESS(typing(z.a, fmt("op=start&to=[%lld]", (long long)z.b->id)));
}

/* ---- POST /typing: events ----------------------------------------------------------------------------------- */

/* Direct typing reaches the recipients and the sender, who is added to the recipients. */
static void test_typing_direct_events(void)
{
	struct org z = new_org();
	struct queue *qa = reg(z.a, NULL), *qb = reg(z.b, NULL), *qc = reg(z.c, NULL), *qo = reg(z.o, NULL);
	EXPECT_SUCCESS(typing(z.a, fmt("op=start&to=[%lld]", (long long)z.b->id)));
	char *want = fmt("[{\"type\":\"typing\",\"message_type\":\"direct\",\"op\":\"start\",\"sender\":%s,"
	                 "\"recipients\":[%s,%s]}]",
	                 ref(z.a), ref(z.b), ref(z.a));
	EXPECT_EVENTS(qa, want);
	EXPECT_EVENTS(qb, want);
	EXPECT_NO_EVENTS(qc);
	EXPECT_NO_EVENTS(qo);
	/* A group: the list as sent, the sender where it was given. */
	EXPECT_SUCCESS(typing(
	    z.b, fmt("op=stop&to=[%lld,%lld,%lld]", (long long)z.c->id, (long long)z.b->id, (long long)z.a->id)));
	want = fmt("[{\"type\":\"typing\",\"message_type\":\"direct\",\"op\":\"stop\",\"sender\":%s,"
	           "\"recipients\":[%s,%s,%s]}]",
	           ref(z.b), ref(z.c), ref(z.b), ref(z.a));
	EXPECT_EVENTS(qa, want);
	EXPECT_EVENTS(qb, want);
	EXPECT_EVENTS(qc, want);
	EXPECT_NO_EVENTS(qo);
	/* Typing to oneself. */
	EXPECT_SUCCESS(typing(z.c, fmt("op=start&to=[%lld]", (long long)z.c->id)));
	EXPECT_EVENTS(qc, fmt("[{\"type\":\"typing\",\"message_type\":\"direct\",\"op\":\"start\",\"sender\":%s,"
	                      "\"recipients\":[%s]}]",
	                      ref(z.c), ref(z.c)));
	EXPECT_NO_EVENTS(qa);
}

/* Hidden addresses appear as the placeholder clients know; users who turned typing notifications off and
 * deactivated users are listed but not notified. */
static void test_typing_direct_audience(void)
{
	struct org z = new_org();
	struct queue *qa = reg(z.a, NULL), *qb = reg(z.b, NULL);
	psql_ok("UPDATE users SET email_address_visibility = 4 WHERE id = %lld", (long long)z.b->id);
	struct resp *r = api_get(z.a, fmt("/users/%lld", (long long)z.b->id));
	EXPECT_SUCCESS(r);
	const char *b_email = jstr(jget(r->json, "user"), "email");
	REQUIRE(b_email != NULL && strncmp(b_email, "user", 4) == 0, "placeholder address: %s", r->body);
	psql_ok("UPDATE users SET receives_typing_notifications = false WHERE id = %lld", (long long)z.b->id);
	deactivate_user(z.c);
	EXPECT_SUCCESS(typing(z.a, fmt("op=start&to=[%lld,%lld]", (long long)z.b->id, (long long)z.c->id)));
	EXPECT_EVENTS(qa, fmt("[{\"type\":\"typing\",\"message_type\":\"direct\",\"op\":\"start\",\"sender\":%s,"
	                      "\"recipients\":[{\"user_id\":%lld,\"email\":\"%s\"},%s,%s]}]",
	                      ref(z.a), (long long)z.b->id, b_email, ref(z.c), ref(z.a)));
	EXPECT_NO_EVENTS(qb);
}

/* Channel typing goes to the subscribers (the sender too when subscribed), only to queues that declared
 * stream_typing_notifications; "general chat" and "(no topic)" are the empty topic. */
static void test_typing_channel_events(void)
{
	struct org z = new_org();
	char *name = uniq("c");
	int64_t ch = channel(z.a, name, fmt("[%lld,%lld]", (long long)z.a->id, (long long)z.b->id), NULL);
	struct queue *qa = reg(z.a, STREAM_TYPING), *qb = reg(z.b, STREAM_TYPING);
	struct queue *qb_old = reg(z.b, "{\"stream_typing_notifications\":false}"), *qc = reg(z.c, STREAM_TYPING);
	EXPECT_SUCCESS(typing(z.a, fmt("op=start&type=stream&stream_id=%lld&topic=%%20Lunch%%20", (long long)ch)));
	char *want = fmt("[{\"type\":\"typing\",\"message_type\":\"stream\",\"op\":\"start\",\"sender\":%s,"
	                 "\"stream_id\":%lld,\"topic\":\"Lunch\"}]",
	                 ref(z.a), (long long)ch);
	EXPECT_EVENTS(qa, want);
	EXPECT_EVENTS(qb, want);
	EXPECT_NO_EVENTS(qb_old);
	EXPECT_NO_EVENTS(qc);
	/* A public channel's non-subscriber may type there; only the subscribers hear of it. */
	EXPECT_SUCCESS(typing(z.c, fmt("op=stop&type=channel&stream_id=%lld&topic=general%%20chat", (long long)ch)));
	want = fmt("[{\"type\":\"typing\",\"message_type\":\"stream\",\"op\":\"stop\",\"sender\":%s,"
	           "\"stream_id\":%lld,\"topic\":\"\"}]",
	           ref(z.c), (long long)ch);
	EXPECT_EVENTS(qa, want);
	EXPECT_EVENTS(qb, want);
	EXPECT_NO_EVENTS(qc);
	/* Clients without empty_topic_name see the display name. */
	struct queue *qa_old = reg(z.a, "{\"stream_typing_notifications\":true}");
	EXPECT_SUCCESS(typing(z.b, fmt("op=start&type=stream&stream_id=%lld&topic=(no%%20topic)", (long long)ch)));
	EXPECT_EVENTS(qa_old, fmt("[{\"type\":\"typing\",\"message_type\":\"stream\",\"op\":\"start\",\"sender\":%s,"
	                          "\"stream_id\":%lld,\"topic\":\"general chat\"}]",
	                          ref(z.b), (long long)ch));
	want = fmt("[{\"type\":\"typing\",\"message_type\":\"stream\",\"op\":\"start\",\"sender\":%s,"
	           "\"stream_id\":%lld,\"topic\":\"\"}]",
	           ref(z.b), (long long)ch);
	EXPECT_EVENTS(qa, want);
	EXPECT_EVENTS(qb, want);
	/* Subscribers who turned typing notifications off hear nothing. */
	psql_ok("UPDATE users SET receives_typing_notifications = false WHERE id = %lld", (long long)z.b->id);
	EXPECT_SUCCESS(typing(z.a, fmt("op=start&type=stream&stream_id=%lld&topic=x", (long long)ch)));
	EXPECT_NO_EVENTS(qb);
	CHECK(json_object_array_length(queue_drain(qa)) == 1, "a still hears of typing");
}

/* MAX_STREAM_SIZE_FOR_TYPING_NOTIFICATIONS: with more than 100 active subscribers nobody hears of typing. */
static void test_typing_channel_size_limit(void)
{
	struct org z = new_org();
	int64_t ch = channel(z.a, uniq("big"), fmt("[%lld,%lld]", (long long)z.a->id, (long long)z.b->id), NULL);
	struct queue *qb = reg(z.b, STREAM_TYPING);
	/* 98 more subscribers: 100 in all. */
	psql_ok("WITH u AS (INSERT INTO users (realm_id, delivery_email, full_name)"
	        " SELECT c.realm_id, 'typing-filler-' || i || '-' || c.id || '@example.com', 'Filler ' || i"
	        " FROM generate_series(1, 99) i, channels c WHERE c.id = %lld RETURNING id)"
	        " INSERT INTO subscriptions (user_id, channel_id) SELECT id, %lld FROM u",
	        (long long)ch, (long long)ch);
	psql_ok("UPDATE subscriptions SET active = false WHERE channel_id = %lld AND user_id ="
	        " (SELECT max(user_id) FROM subscriptions WHERE channel_id = %lld)",
	        (long long)ch, (long long)ch);
	const char *form = fmt("op=start&type=stream&stream_id=%lld&topic=x", (long long)ch);
	EXPECT_SUCCESS(typing(z.a, form));
	CHECK(json_object_array_length(queue_drain(qb)) == 1, "100 subscribers still hear of typing");
	/* A deactivated subscriber does not count. */
	psql_ok("UPDATE users SET is_active = false WHERE id = (SELECT max(user_id) FROM subscriptions"
	        " WHERE channel_id = %lld)",
	        (long long)ch);
	psql_ok("UPDATE subscriptions SET active = true WHERE channel_id = %lld", (long long)ch);
	EXPECT_SUCCESS(typing(z.a, form));
	CHECK(json_object_array_length(queue_drain(qb)) == 1, "a deactivated subscriber does not count");
	psql_ok("UPDATE users SET is_active = true WHERE id = (SELECT max(user_id) FROM subscriptions"
	        " WHERE channel_id = %lld)",
	        (long long)ch);
	EXPECT_SUCCESS(typing(z.a, form));
	EXPECT_NO_EVENTS(qb);
}

/* ---- POST /messages/{message_id}/typing --------------------------------------------------------------------- */

static void test_edit_typing_errors(void)
{
	struct org z = new_org();
	char *name = uniq("c");
	channel(z.a, name, fmt("[%lld,%lld]", (long long)z.a->id, (long long)z.b->id), NULL);
	int64_t mine = send_channel(z.a, name, "t"), theirs = send_channel(z.b, name, "t");
	struct resp *r = edit_typing(z.a, mine, NULL);
	EXPECT_ERROR(r, 400, "REQUEST_VARIABLE_MISSING", "Missing 'op' argument");
	EXPECT_ERROR(edit_typing(z.a, mine, "op=go"), 400, "BAD_REQUEST", "Invalid op");
	EXPECT_ERROR(edit_typing(z.a, theirs, "op=start"), 400, "BAD_REQUEST",
	             "You don't have permission to edit this message");
	/* Administrators are no exception. */
	EXPECT_ERROR(edit_typing(z.o, mine, "op=start"), 400, "BAD_REQUEST",
	             "You don't have permission to edit this message");
	EXPECT_ERROR(edit_typing(z.a, 999999999, "op=start"), 400, "BAD_REQUEST", "Invalid message(s)");
	int64_t dm = send_dm(z.b, fmt("[%lld]", (long long)z.c->id));
	EXPECT_ERROR(edit_typing(z.a, dm, "op=start"), 400, "BAD_REQUEST", "Invalid message(s)");
	char *priv = uniq("p");
	channel(z.b, priv, fmt("[%lld]", (long long)z.b->id), "invite_only=true");
	EXPECT_ERROR(edit_typing(z.a, send_channel(z.b, priv, "t"), "op=start"), 400, "BAD_REQUEST",
	             "Invalid message(s)");
	EXPECT_SUCCESS(edit_typing(z.a, mine, "op=start"));
	/* The content edit limit applies with no grace period. */
	psql_ok("UPDATE messages SET date_sent = now() - interval '610 seconds' WHERE id = %lld", (long long)mine);
	EXPECT_ERROR(edit_typing(z.a, mine, "op=start"), 400, "BAD_REQUEST",
	             "The time limit for editing this message has passed");
	psql_ok("UPDATE realms SET message_content_edit_limit_seconds = NULL"
	        " WHERE id = (SELECT realm_id FROM users WHERE id = %lld)",
	        (long long)z.o->id);
	EXPECT_SUCCESS(edit_typing(z.a, mine, "op=stop"));
	psql_ok(
	    "UPDATE realms SET allow_message_editing = false WHERE id = (SELECT realm_id FROM users WHERE id = %lld)",
	    (long long)z.o->id);
	EXPECT_ERROR(edit_typing(z.a, mine, "op=start"), 400, "BAD_REQUEST",
	             "Your organization has turned off message editing");
}

static void test_edit_typing_settings_off(void)
{
	struct org z = new_org();
	char *name = uniq("c");
	channel(z.a, name, fmt("[%lld]", (long long)z.a->id), NULL);
	int64_t ch_msg = send_channel(z.a, name, "t"), dm = send_dm(z.a, fmt("[%lld]", (long long)z.b->id));
	psql_ok("UPDATE users SET send_stream_typing_notifications = false WHERE id = %lld", (long long)z.a->id);
	EXPECT_ERROR(edit_typing(z.a, ch_msg, "op=start"), 400, "BAD_REQUEST",
	             "User has disabled typing notifications for channel messages");
	EXPECT_SUCCESS(edit_typing(z.a, dm, "op=start"));
	psql_ok("UPDATE users SET send_private_typing_notifications = false WHERE id = %lld", (long long)z.a->id);
	EXPECT_ERROR(edit_typing(z.a, dm, "op=start"), 400, "BAD_REQUEST",
	             "User has disabled typing notifications for direct messages");
}

/* Channel messages: the channel's subscribers, whatever their stream_typing_notifications. */
static void test_edit_typing_channel_events(void)
{
	struct org z = new_org();
	char *name = uniq("c");
	int64_t ch = channel(z.a, name, fmt("[%lld,%lld]", (long long)z.a->id, (long long)z.b->id), NULL);
	int64_t id = send_channel(z.a, name, "Plans");
	struct queue *qa = reg(z.a, NULL), *qb = reg(z.b, NULL), *qc = reg(z.c, NULL);
	struct queue *qb_msg = reg_caps(z.b, "[\"message\"]", NULL);
	EXPECT_SUCCESS(edit_typing(z.a, id, "op=start"));
	char *want = fmt("[{\"type\":\"typing_edit_message\",\"op\":\"start\",\"sender_id\":%lld,\"message_id\":%lld,"
	                 "\"recipient\":{\"type\":\"channel\",\"channel_id\":%lld,\"topic\":\"Plans\"}}]",
	                 (long long)z.a->id, (long long)id, (long long)ch);
	EXPECT_EVENTS(qa, want);
	EXPECT_EVENTS(qb, want);
	EXPECT_NO_EVENTS(qc);
	EXPECT_NO_EVENTS(qb_msg);
}

/* Direct messages: user_ids are the users notified -- the editor first, then the other participant. */
static void test_edit_typing_direct_events(void)
{
	struct org z = new_org();
	struct queue *qa = reg(z.a, NULL), *qb = reg(z.b, NULL), *qc = reg(z.c, NULL);
	int64_t id = send_dm(z.b, fmt("[%lld]", (long long)z.a->id));
	EXPECT_SUCCESS(edit_typing(z.b, id, "op=stop"));
	char *want = fmt("[{\"type\":\"typing_edit_message\",\"op\":\"stop\",\"sender_id\":%lld,\"message_id\":%lld,"
	                 "\"recipient\":{\"type\":\"direct\",\"user_ids\":[%lld,%lld]}}]",
	                 (long long)z.b->id, (long long)id, (long long)z.b->id, (long long)z.a->id);
	EXPECT_EVENTS(qa, want);
	EXPECT_EVENTS(qb, want);
	EXPECT_NO_EVENTS(qc);
	/* A group conversation, one member of which turned typing notifications off: left out of user_ids. */
	int64_t group = send_dm(z.c, fmt("[%lld,%lld]", (long long)z.a->id, (long long)z.b->id));
	psql_ok("UPDATE users SET receives_typing_notifications = false WHERE id = %lld", (long long)z.b->id);
	EXPECT_SUCCESS(edit_typing(z.c, group, "op=start"));
	want = fmt("[{\"type\":\"typing_edit_message\",\"op\":\"start\",\"sender_id\":%lld,\"message_id\":%lld,"
	           "\"recipient\":{\"type\":\"direct\",\"user_ids\":[%lld,%lld]}}]",
	           (long long)z.c->id, (long long)group, (long long)z.a->id, (long long)z.c->id);
	EXPECT_EVENTS(qa, want);
	EXPECT_EVENTS(qc, want);
	EXPECT_NO_EVENTS(qb);
	/* A note to oneself names the editor twice; the editor's queue gets the event once. */
	int64_t note = send_dm(z.a, fmt("[%lld]", (long long)z.a->id));
	EXPECT_SUCCESS(edit_typing(z.a, note, "op=start"));
	EXPECT_EVENTS(qa, fmt("[{\"type\":\"typing_edit_message\",\"op\":\"start\",\"sender_id\":%lld,"
	                      "\"message_id\":%lld,\"recipient\":{\"type\":\"direct\",\"user_ids\":[%lld,%lld]}}]",
	                      (long long)z.a->id, (long long)note, (long long)z.a->id, (long long)z.a->id));
	EXPECT_NO_EVENTS(qc);
}

void register_typing_tests(void)
{
	static const struct itest_case cases[] = {
	    {"typing_op", test_typing_op},
	    {"typing_type", test_typing_type},
	    {"typing_to_errors", test_typing_to_errors},
	    {"typing_channel_errors", test_typing_channel_errors},
	    {"typing_settings_off", test_typing_settings_off},
	    {"typing_direct_events", test_typing_direct_events},
	    {"typing_direct_audience", test_typing_direct_audience},
	    {"typing_channel_events", test_typing_channel_events},
	    {"typing_channel_size_limit", test_typing_channel_size_limit},
	    {"edit_typing_errors", test_edit_typing_errors},
	    {"edit_typing_settings_off", test_edit_typing_settings_off},
	    {"edit_typing_channel_events", test_edit_typing_channel_events},
	    {"edit_typing_direct_events", test_edit_typing_direct_events},
	    {NULL, NULL},
	};
	itest_add_suite("typing", cases);
}
