/*
 * The events each mutation publishes: a queue is registered (POST /register) for every user involved, the
 * mutation is made, and each queue must then hold exactly the reference's events (GET /events, dont_block) -- and
 * the queues of users who must not hear of it nothing.
 * Reference: Zulip zerver/actions/message_send.py (do_send_messages), zerver/tornado/event_queue.py
 * (process_message_event), zerver/actions/message_delete.py, zerver/lib/message.py
 * (event_recipient_ids_for_action_on_messages, format_unread_message_details), zerver/actions/message_flags.py,
 * zerver/actions/streams.py and zerver/lib/streams.py (bulk_add_subscriptions, send_peer_subscriber_events,
 * send_subscription_remove_events, do_change_subscription_property, create_stream_if_needed),
 * zerver/actions/create_user.py (notify_created_user, do_create_user), zerver/actions/user_groups.py,
 * zerver/actions/channel_folders.py; event shapes from shared/reference/zulip-openapi.yaml (GET /events).
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "itest.h"

static unsigned counter;

static char *uniq(const char *tag)
{
	return fmt("ev-%s-%u-%ld", tag, ++counter, (long)getpid());
}

static const char *id_list(int64_t a, int64_t b)
{
	return b ? fmt("[%lld,%lld]", (long long)a, (long long)b) : fmt("[%lld]", (long long)a);
}

/* ---- queues ------------------------------------------------------------------------------------------------- */

/* Registers a queue for u receiving types (a JSON list) with extra form fields (or NULL); HTML content and no
 * Gravatar shortcut unless extra says otherwise. */
static struct queue *reg(const struct user *u, const char *types, const char *extra)
{
	return queue_register(u, fmt("event_types=%s&apply_markdown=true&client_gravatar=false%s%s", url_encode(types),
	                             extra ? "&" : "", extra ? extra : ""));
}

/* The events that arrived since the last call (heartbeats left out), each without its id; acknowledges them. */
static const char *text(json_object *o)
{
	return json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE);
}

/* The queue holds exactly one event; returns it. */
static json_object *one_event_at(struct queue *q, const char *file, int line)
{
	json_object *got = queue_drain(q);
	itest_check(json_object_array_length(got) == 1, true, file, line, "user %lld: expected one event, got %s",
	            (long long)q->u->id, text(got));
	return json_object_array_get_idx(got, 0);
}
#define ONE_EVENT(q) one_event_at((q), __FILE__, __LINE__)

/* ---- fixtures ----------------------------------------------------------------------------------------------- */

/* A fresh organization: its owner o (who may create users), members a, b, c and a guest g. */
struct org {
	struct user *o, *a, *b, *c, *g;
};

static struct org new_org(void)
{
	struct org z;
	struct user *first = new_realm();
	z.o = new_user_in(first->realm, "owner", (const char *const[]){"--can-create-users", NULL});
	z.a = new_user_in(first->realm, "member", NULL);
	z.b = new_user_in(first->realm, "member", NULL);
	z.c = new_user_in(first->realm, "member", NULL);
	z.g = new_user_in(first->realm, "guest", NULL);
	return z;
}

static int64_t channel_id(const char *name)
{
	return strtoll(psql_ok("SELECT id FROM channels WHERE name = '%s'", name), NULL, 10);
}

/* u subscribes the users of principals (a JSON list) to channel name (created when missing), with extra fields. */
static void subscribe(const struct user *u, const char *name, const char *principals, const char *extra)
{
	struct resp *r =
	    api_post(u, "/users/me/subscriptions",
	             fmt("subscriptions=%s&principals=%s%s%s", url_encode(fmt("[{\"name\":\"%s\"}]", name)),
	                 url_encode(principals), extra ? "&" : "", extra ? extra : ""));
	REQUIRE(r->status == 200, "subscribing %s to %s: %s", principals, name, r->body);
}

/* The message event u must receive for message id: the Message object as GET /messages shows it to u (HTML, no
 * Gravatar shortcut), its flags beside it instead of inside. */
static char *message_event_for(const struct user *u, int64_t id)
{
	struct resp *r =
	    api_get(u, fmt("/messages?message_ids=[%lld]&apply_markdown=true&client_gravatar=false", (long long)id));
	EXPECT_SUCCESS(r);
	json_object *msg = json_object_array_get_idx(jget(r->json, "messages"), 0);
	REQUIRE(msg != NULL, "message %lld not visible to %lld: %s", (long long)id, (long long)u->id, r->body);
	json_object *flags = json_object_get(jget(msg, "flags"));
	json_object_object_del(msg, "flags");
	char *event = fmt("[{\"type\":\"message\",\"message\":%s,\"flags\":%s}]", text(msg), text(flags));
	json_object_put(flags);
	return event;
}

/* ---- messages ----------------------------------------------------------------------------------------------- */

/* One event per recipient with its own flags; nothing for those who did not receive the message. */
static void test_channel_message(void)
{
	struct org z = new_org();
	char *ch = uniq("chan");
	subscribe(z.o, ch, fmt("[%lld,%lld,%lld]", (long long)z.o->id, (long long)z.a->id, (long long)z.c->id), NULL);
	struct queue *qo = reg(z.o, "[\"message\"]", NULL), *qa = reg(z.a, "[\"message\"]", NULL);
	struct queue *qb = reg(z.b, "[\"message\"]", NULL), *qc = reg(z.c, "[\"message\"]", NULL);
	int64_t id = send_channel_message(z.a, ch, "Lunch", fmt("hello @**|%lld**", (long long)z.c->id));
	EXPECT_EVENTS(qo, message_event_for(z.o, id));
	EXPECT_EVENTS(qa, message_event_for(z.a, id));
	char *want = message_event_for(z.c, id);
	CHECK(strstr(want, "\"flags\":[\"mentioned\"]") != NULL, "c is mentioned: %s", want);
	EXPECT_EVENTS(qc, want);
	EXPECT_NO_EVENTS(qb);
}

/* apply_markdown=false queues get the Markdown source. */
static void test_message_markdown_source(void)
{
	struct org z = new_org();
	char *ch = uniq("raw");
	subscribe(z.o, ch, fmt("[%lld]", (long long)z.o->id), NULL);
	struct queue *q = reg(z.o, "[\"message\"]", "apply_markdown=false");
	send_channel_message(z.o, ch, "t", "**bold**");
	json_object *m = jget(ONE_EVENT(q), "message");
	EXPECT_STR(m, "content", "**bold**");
	EXPECT_STR(m, "content_type", "text/x-markdown");
	EXPECT_ABSENT(m, "flags");
	EXPECT_ABSENT(m, "_raw_content");
}

/* Direct messages go to the participants only. */
static void test_direct_message(void)
{
	struct org z = new_org();
	struct queue *qa = reg(z.a, "[\"message\"]", NULL), *qb = reg(z.b, "[\"message\"]", NULL);
	struct queue *qc = reg(z.c, "[\"message\"]", NULL);
	int64_t id = send_direct_message(z.a, id_list(z.b->id, 0), "psst");
	EXPECT_EVENTS(qa, message_event_for(z.a, id));
	EXPECT_EVENTS(qb, message_event_for(z.b, id));
	EXPECT_NO_EVENTS(qc);
}

/* all_public_streams queues get public channel messages (flags []) but not private ones; a recipient's
 * all_public_streams queue gets the message once, with its flags. */
static void test_all_public_streams(void)
{
	struct org z = new_org();
	char *pub = uniq("pub"), *priv = uniq("priv");
	subscribe(z.o, pub, fmt("[%lld,%lld]", (long long)z.o->id, (long long)z.a->id), NULL);
	subscribe(z.o, priv, fmt("[%lld]", (long long)z.o->id), "invite_only=true");
	struct queue *qb = reg(z.b, "[\"message\"]", "all_public_streams=true");
	struct queue *qa = reg(z.a, "[\"message\"]", "all_public_streams=true");
	int64_t id = send_channel_message(z.o, pub, "t", "for all");
	send_channel_message(z.o, priv, "t", "secret");
	json_object *e = ONE_EVENT(qb);
	EXPECT_INT(jget(e, "message"), "id", id);
	EXPECT_STR_LIST(e, "flags", NULL);
	EXPECT_EVENTS(qa, message_event_for(z.a, id));
	/* Guests may not ask for all public channels. */
	struct resp *r = api_post(z.g, "/register", "all_public_streams=true");
	EXPECT_ERROR(r, 400, "BAD_REQUEST", "User not authorized for this query");
}

/* A narrow limits which messages reach the queue. */
static void test_message_narrow(void)
{
	struct org z = new_org();
	char *one = uniq("one"), *two = uniq("two");
	subscribe(z.o, one, fmt("[%lld]", (long long)z.o->id), NULL);
	subscribe(z.o, two, fmt("[%lld]", (long long)z.o->id), NULL);
	struct queue *q = reg(z.o, "[\"message\"]", fmt("narrow=%s", url_encode(fmt("[[\"channel\",\"%s\"]]", one))));
	int64_t id = send_channel_message(z.o, one, "t", "in");
	send_channel_message(z.o, two, "t", "out");
	send_direct_message(z.o, id_list(z.a->id, 0), "out too");
	EXPECT_EVENTS(q, message_event_for(z.o, id));
}

/* The sending client's queue learns its local_id back as local_message_id; the sender's other queues do not. */
static void test_local_message_id(void)
{
	struct org z = new_org();
	struct queue *q1 = reg(z.a, "[\"message\"]", NULL), *q2 = reg(z.a, "[\"message\"]", NULL);
	struct resp *r = api_post(
	    z.a, "/messages",
	    fmt("type=direct&to=%s&content=hi&queue_id=%s&local_id=42.01", url_encode(id_list(z.b->id, 0)), q1->id));
	EXPECT_SUCCESS(r);
	EXPECT_STR(ONE_EVENT(q1), "local_message_id", "42.01");
	EXPECT_ABSENT(ONE_EVENT(q2), "local_message_id");
}

/* delete_message (bulk form with bulk_message_deletion, else one per message) to who had the message; the
 * topic lowercased; the channel's first message going moves first_message_id first. */
static void test_delete_channel_message(void)
{
	struct org z = new_org();
	char *ch = uniq("del");
	subscribe(z.o, ch, fmt("[%lld,%lld]", (long long)z.o->id, (long long)z.a->id), NULL);
	int64_t sid = channel_id(ch);
	int64_t id = send_channel_message(z.a, ch, "Lunch Plans", "first");
	struct queue *qo =
	    reg(z.o, "[\"delete_message\",\"stream\"]", "client_capabilities={\"bulk_message_deletion\":true}");
	struct queue *qa = reg(z.a, "[\"delete_message\"]", NULL);
	struct queue *qb =
	    reg(z.b, "[\"delete_message\",\"stream\"]", "client_capabilities={\"bulk_message_deletion\":true}");
	EXPECT_SUCCESS(api_method("DELETE", z.o, fmt("/messages/%lld", (long long)id)));
	EXPECT_EVENTS(qo,
	              fmt("[{\"type\":\"stream\",\"op\":\"update\",\"property\":\"first_message_id\",\"value\":null,"
	                  "\"stream_id\":%lld,\"name\":\"%s\"},"
	                  "{\"type\":\"delete_message\",\"message_ids\":[%lld],\"message_type\":\"stream\","
	                  "\"stream_id\":%lld,\"topic\":\"lunch plans\"}]",
	                  (long long)sid, ch, (long long)id, (long long)sid));
	EXPECT_EVENTS(qa, fmt("[{\"type\":\"delete_message\",\"message_id\":%lld,\"message_type\":\"stream\","
	                      "\"stream_id\":%lld,\"topic\":\"lunch plans\"}]",
	                      (long long)id, (long long)sid));
	/* b never had the message and is not subscribed; the first_message_id update is for the same users. */
	EXPECT_NO_EVENTS(qb);
}

static void test_delete_direct_message(void)
{
	struct org z = new_org();
	int64_t id = send_direct_message(z.o, id_list(z.a->id, 0), "oops");
	const char *caps = "client_capabilities={\"bulk_message_deletion\":true}";
	struct queue *qo = reg(z.o, "[\"delete_message\"]", caps), *qa = reg(z.a, "[\"delete_message\"]", caps);
	struct queue *qb = reg(z.b, "[\"delete_message\"]", caps);
	EXPECT_SUCCESS(api_method("DELETE", z.o, fmt("/messages/%lld", (long long)id)));
	char *want =
	    fmt("[{\"type\":\"delete_message\",\"message_ids\":[%lld],\"message_type\":\"private\"}]", (long long)id);
	EXPECT_EVENTS(qo, want);
	EXPECT_EVENTS(qa, want);
	EXPECT_NO_EVENTS(qb);
}

/* update_message_flags to the user alone, with the ids that changed; marking unread adds message_details. */
static void test_message_flags(void)
{
	struct org z = new_org();
	char *ch = uniq("flags");
	subscribe(z.o, ch, fmt("[%lld,%lld]", (long long)z.o->id, (long long)z.a->id), NULL);
	int64_t sid = channel_id(ch);
	int64_t m1 = send_channel_message(z.o, ch, "Topic", "one"),
	        m2 = send_direct_message(z.o, id_list(z.a->id, 0), "two");
	struct queue *qa = reg(z.a, "[\"update_message_flags\"]", NULL),
	             *qo = reg(z.o, "[\"update_message_flags\"]", NULL);
	EXPECT_SUCCESS(api_post(z.a, "/messages/flags", fmt("messages=[%lld]&op=add&flag=starred", (long long)m1)));
	EXPECT_EVENTS(qa, fmt("[{\"type\":\"update_message_flags\",\"op\":\"add\",\"operation\":\"add\","
	                      "\"flag\":\"starred\",\"messages\":[%lld],\"all\":false}]",
	                      (long long)m1));
	/* Nothing changes: the event still comes, with no messages of its own; it merges with the previous
	 * add/starred event (served but not acknowledged yet), as the reference's virtual events do. */
	EXPECT_SUCCESS(api_post(z.a, "/messages/flags", fmt("messages=[%lld]&op=add&flag=starred", (long long)m1)));
	EXPECT_EVENTS(qa, fmt("[{\"type\":\"update_message_flags\",\"op\":\"add\",\"operation\":\"add\","
	                      "\"flag\":\"starred\",\"messages\":[%lld],\"all\":false}]",
	                      (long long)m1));
	EXPECT_SUCCESS(api_post(z.a, "/messages/flags",
	                        fmt("messages=[%lld,%lld]&op=add&flag=read", (long long)m1, (long long)m2)));
	queue_drain(qa);
	EXPECT_SUCCESS(api_post(z.a, "/messages/flags",
	                        fmt("messages=[%lld,%lld]&op=remove&flag=read", (long long)m2, (long long)m1)));
	EXPECT_EVENTS(qa, fmt("[{\"type\":\"update_message_flags\",\"op\":\"remove\",\"operation\":\"remove\","
	                      "\"flag\":\"read\",\"messages\":[%lld,%lld],\"all\":false,\"message_details\":{"
	                      "\"%lld\":{\"type\":\"stream\",\"stream_id\":%lld,\"topic\":\"Topic\","
	                      "\"unmuted_stream_msg\":true},"
	                      "\"%lld\":{\"type\":\"private\",\"user_ids\":[%lld]}}}]",
	                      (long long)m2, (long long)m1, (long long)m1, (long long)sid, (long long)m2,
	                      (long long)z.o->id));
	EXPECT_NO_EVENTS(qo);
}

/* A mention shows in message_details. */
static void test_unread_details_mention(void)
{
	struct org z = new_org();
	int64_t id = send_direct_message(z.o, id_list(z.a->id, z.b->id), fmt("hey @**|%lld**", (long long)z.a->id));
	EXPECT_SUCCESS(api_post(z.a, "/messages/flags", fmt("messages=[%lld]&op=add&flag=read", (long long)id)));
	struct queue *qa = reg(z.a, "[\"update_message_flags\"]", NULL);
	EXPECT_SUCCESS(api_post(z.a, "/messages/flags", fmt("messages=[%lld]&op=remove&flag=read", (long long)id)));
	json_object *d = jget(jget(ONE_EVENT(qa), "message_details"), fmt("%lld", (long long)id));
	EXPECT_STR(d, "type", "private");
	EXPECT_BOOL(d, "mentioned", true);
	CHECK(strcmp(text(jget(d, "user_ids")), fmt("[%lld,%lld]", (long long)z.o->id, (long long)z.b->id)) == 0,
	      "user_ids (sorted, without a): %s", text(d));
}

/* A channel quiet for long (no message for 180 days) becomes recently active again with a message: stream update
 * is_recently_active to who may see it, before the message. */
static void test_message_wakes_channel(void)
{
	struct org z = new_org();
	char *ch = uniq("quiet");
	subscribe(z.o, ch, id_list(z.o->id, 0), NULL);
	int64_t id = channel_id(ch);
	psql_ok("UPDATE channels SET date_created = now() - interval '400 days' WHERE id = %lld", (long long)id);
	struct queue *qa = reg(z.a, "[\"stream\",\"message\"]", NULL), *qg = reg(z.g, "[\"stream\"]", NULL);
	struct queue *qo = reg(z.o, "[\"stream\"]", NULL);
	send_channel_message(z.o, ch, "t", "wake up");
	char *want = fmt("[{\"type\":\"stream\",\"op\":\"update\",\"property\":\"is_recently_active\",\"value\":true,"
	                 "\"stream_id\":%lld,\"name\":\"%s\"}]",
	                 (long long)id, ch);
	EXPECT_EVENTS(qa, want); /* a non-subscriber sees the channel, but gets no message */
	EXPECT_EVENTS(qo, want);
	EXPECT_NO_EVENTS(qg);
	send_channel_message(z.o, ch, "t", "again");
	EXPECT_NO_EVENTS(qo);
}

/*
 * A message to more queues than one push script call takes (events.c pushes an event to up to 128 queues a call):
 * every live queue gets it once, with its own user's flags, in the same place of its stream; a queue deleted before
 * the send (in the middle of a call's keys) and one whose narrow refuses the message get nothing, and do not keep
 * the queues after them from getting it.
 */
static void test_message_many_queues(void)
{
	struct org z = new_org();
	char *ch = uniq("many");
	subscribe(z.o, ch, id_list(z.o->id, z.a->id), NULL);
	/* 135 queues of four users (the owner and a member, twice over): a user keeps at most 50 (docs/LIMITS.md). */
	struct user *a2 = new_user_in(z.o->realm, "member", NULL), *o2 = new_user_in(z.o->realm, "admin", NULL);
	subscribe(z.o, ch, id_list(o2->id, a2->id), NULL);
	struct user *users[4] = {z.o, z.a, o2, a2};
	enum { N = 135 };
	struct queue *q[N];
	for (int i = 0; i < N; i++)
		q[i] = reg(users[i % 4], "[\"message\"]", NULL);
	struct queue *narrowed = reg(z.a, "[\"message\"]", "narrow=[[\"channel\",\"elsewhere\"]]");
	struct resp *r = api_method("DELETE", z.o, fmt("/events?queue_id=%s", q[64]->id));
	EXPECT_SUCCESS(r);
	int64_t id = send_channel_message(z.a, ch, "fan", fmt("hi @**|%lld**", (long long)z.o->id));
	char *for_o = message_event_for(z.o, id), *for_a = message_event_for(z.a, id);
	char *want[4] = {for_o, for_a, message_event_for(o2, id), message_event_for(a2, id)};
	for (int i = 0; i < N; i++)
		if (i != 64)
			EXPECT_EVENTS(q[i], want[i % 4]);
	EXPECT_NO_EVENTS(narrowed);
	CHECK(strstr(for_o, "\"mentioned\"") && !strstr(for_a, "\"mentioned\""), "flags: %s / %s", for_o, for_a);
}

/* ---- subscriptions ------------------------------------------------------------------------------------------ */

/* u's subscription object for channel id as GET /users/me/subscriptions shows it (subscriber_count aside: the
 * reference's event carries the count it held before the change). */
static json_object *subscription_of(const struct user *u, int64_t id)
{
	struct resp *r = api_get(u, "/users/me/subscriptions?include_subscribers=true");
	json_object *subs = jget(r->json, "subscriptions");
	for (size_t i = 0; i < json_object_array_length(subs); i++)
		if (jint(json_object_array_get_idx(subs, i), "stream_id") == id)
			return json_object_array_get_idx(subs, i);
	REQUIRE(false, "user %lld not subscribed to %lld: %s", (long long)u->id, (long long)id, r->body);
	return NULL;
}

static void expect_subscription_add(json_object *e, const struct user *u, int64_t id)
{
	EXPECT_STR(e, "type", "subscription");
	EXPECT_STR(e, "op", "add");
	json_object *subs = jget(e, "subscriptions");
	REQUIRE(json_object_array_length(subs) == 1, "one subscription: %s", text(e));
	json_object *got = json_object_array_get_idx(subs, 0), *want = subscription_of(u, id);
	json_object_object_del(got, "subscriber_count");
	json_object_object_del(want, "subscriber_count");
	CHECK(json_object_equal(got, want), "subscription object\n      got %s\n     want %s", text(got), text(want));
}

/* A new public channel: stream create to every non-guest, subscription add to the subscribers, peer_add to the
 * other non-guests; the guest hears nothing. */
static void test_subscribe_new_public_channel(void)
{
	struct org z = new_org();
	const char *types = "[\"stream\",\"subscription\"]";
	struct queue *qo = reg(z.o, types, NULL), *qa = reg(z.a, types, NULL), *qb = reg(z.b, types, NULL);
	struct queue *qg = reg(z.g, types, NULL);
	char *ch = uniq("new");
	subscribe(z.o, ch, id_list(z.a->id, z.o->id), NULL);
	int64_t id = channel_id(ch);
	for (int k = 0; k < 2; k++) {
		struct queue *q = k ? qa : qo;
		json_object *ev = queue_drain(q);
		REQUIRE(json_object_array_length(ev) == 2, "user %lld: create + add: %s", (long long)q->u->id,
		        text(ev));
		json_object *create = json_object_array_get_idx(ev, 0);
		EXPECT_STR(create, "type", "stream");
		EXPECT_STR(create, "op", "create");
		EXPECT_ABSENT(create, "for_unarchiving");
		json_object *s = json_object_array_get_idx(jget(create, "streams"), 0);
		EXPECT_INT(s, "stream_id", id);
		EXPECT_STR(s, "name", ch);
		EXPECT_INT(s, "subscriber_count", 0);
		EXPECT_ABSENT(s, "subscribers");
		expect_subscription_add(json_object_array_get_idx(ev, 1), q->u, id);
	}
	json_object *ev = queue_drain(qb);
	REQUIRE(json_object_array_length(ev) == 2, "b: create + peer_add: %s", text(ev));
	EXPECT_STR(json_object_array_get_idx(ev, 0), "op", "create");
	json_object *want =
	    json_tokener_parse(fmt("{\"type\":\"subscription\",\"op\":\"peer_add\",\"stream_ids\":[%lld],"
	                           "\"user_ids\":[%lld,%lld]}",
	                           (long long)id, (long long)z.o->id, (long long)z.a->id));
	CHECK(json_object_equal(json_object_array_get_idx(ev, 1), want), "peer_add: %s", text(ev));
	json_object_put(want);
	EXPECT_NO_EVENTS(qg);
}

/* A private channel: only administrators (and the creator, through can_administer_channel_group) hear of its
 * creation, and administrators, who see every private channel's subscribers, get peer_add; other subscribers
 * learn of the channel with their subscription; later subscribers too, and the channel's viewers get peer_add. */
static void test_subscribe_private_channel(void)
{
	struct org z = new_org();
	const char *types = "[\"stream\",\"subscription\"]";
	struct queue *qo = reg(z.o, types, NULL), *qa = reg(z.a, types, NULL), *qb = reg(z.b, types, NULL);
	struct queue *qc = reg(z.c, types, NULL);
	char *ch = uniq("priv");
	subscribe(z.a, ch, id_list(z.a->id, 0), "invite_only=true");
	int64_t id = channel_id(ch);
	json_object *ev = queue_drain(qa);
	REQUIRE(json_object_array_length(ev) == 2, "creator: create + add: %s", text(ev));
	EXPECT_STR(json_object_array_get_idx(ev, 0), "op", "create");
	expect_subscription_add(json_object_array_get_idx(ev, 1), z.a, id);
	ev = queue_drain(qo); /* an administrator: sees every channel and its subscribers */
	REQUIRE(json_object_array_length(ev) == 2, "admin: create + peer_add: %s", text(ev));
	EXPECT_STR(json_object_array_get_idx(ev, 0), "op", "create");
	json_object *want =
	    json_tokener_parse(fmt("{\"type\":\"subscription\",\"op\":\"peer_add\",\"stream_ids\":[%lld],"
	                           "\"user_ids\":[%lld]}",
	                           (long long)id, (long long)z.a->id));
	CHECK(json_object_equal(json_object_array_get_idx(ev, 1), want), "peer_add: %s", text(ev));
	json_object_put(want);
	EXPECT_NO_EVENTS(qb);
	EXPECT_NO_EVENTS(qc);

	subscribe(z.a, ch, id_list(z.c->id, 0), NULL);
	ev = queue_drain(qc);
	REQUIRE(json_object_array_length(ev) == 2, "new subscriber: create + add: %s", text(ev));
	EXPECT_STR(json_object_array_get_idx(ev, 0), "op", "create");
	EXPECT_INT(json_object_array_get_idx(jget(json_object_array_get_idx(ev, 0), "streams"), 0), "stream_id", id);
	expect_subscription_add(json_object_array_get_idx(ev, 1), z.c, id);
	char *peer = fmt("[{\"type\":\"subscription\",\"op\":\"peer_add\",\"stream_ids\":[%lld],\"user_ids\":[%lld]}]",
	                 (long long)id, (long long)z.c->id);
	EXPECT_EVENTS(qa, peer);
	EXPECT_EVENTS(qo, peer);
	EXPECT_NO_EVENTS(qb);
}

/* Several public channels with the same new subscribers: one peer_add naming them all. */
static void test_peer_add_batched(void)
{
	struct org z = new_org();
	char *x = uniq("bx"), *y = uniq("by");
	subscribe(z.o, x, id_list(z.o->id, 0), NULL);
	subscribe(z.o, y, id_list(z.o->id, 0), NULL);
	int64_t ix = channel_id(x), iy = channel_id(y);
	struct queue *qb = reg(z.b, "[\"subscription\"]", NULL), *qg = reg(z.g, "[\"subscription\"]", NULL);
	struct resp *r = api_post(z.o, "/users/me/subscriptions",
	                          fmt("subscriptions=%s&principals=%s",
	                              url_encode(fmt("[{\"name\":\"%s\"},{\"name\":\"%s\"}]", y, x)),
	                              url_encode(id_list(z.a->id, z.c->id))));
	EXPECT_SUCCESS(r);
	EXPECT_EVENTS(qb, fmt("[{\"type\":\"subscription\",\"op\":\"peer_add\",\"stream_ids\":[%lld,%lld],"
	                      "\"user_ids\":[%lld,%lld]}]",
	                      (long long)(ix < iy ? ix : iy), (long long)(ix < iy ? iy : ix), (long long)z.a->id,
	                      (long long)z.c->id));
	EXPECT_NO_EVENTS(qg);
}

/* Unsubscribing: subscription remove to the user, stream delete when the channel is now out of sight, then
 * peer_remove to the remaining viewers. */
static void test_unsubscribe(void)
{
	struct org z = new_org();
	char *pub = uniq("leave"), *priv = uniq("leavep");
	subscribe(z.o, pub, id_list(z.o->id, z.a->id), NULL);
	subscribe(z.o, priv, id_list(z.o->id, z.a->id), "invite_only=true");
	int64_t pid = channel_id(pub), vid = channel_id(priv);
	const char *types = "[\"stream\",\"subscription\"]";
	struct queue *qo = reg(z.o, types, NULL), *qa = reg(z.a, types, NULL), *qb = reg(z.b, types, NULL);
	struct queue *qg = reg(z.g, types, NULL);
	struct resp *r =
	    api_method("DELETE", z.a,
	               fmt("/users/me/subscriptions?subscriptions=%s", url_encode(fmt("[\"%s\",\"%s\"]", pub, priv))));
	EXPECT_SUCCESS(r);
	EXPECT_EVENTS(qa, fmt("[{\"type\":\"subscription\",\"op\":\"remove\",\"subscriptions\":["
	                      "{\"name\":\"%s\",\"stream_id\":%lld},{\"name\":\"%s\",\"stream_id\":%lld}]},"
	                      "{\"type\":\"stream\",\"op\":\"delete\",\"streams\":[{\"stream_id\":%lld}],"
	                      "\"stream_ids\":[%lld]}]",
	                      pub, (long long)pid, priv, (long long)vid, (long long)vid, (long long)vid));
	EXPECT_EVENTS(qo, fmt("[{\"type\":\"subscription\",\"op\":\"peer_remove\",\"stream_ids\":[%lld],"
	                      "\"user_ids\":[%lld]},"
	                      "{\"type\":\"subscription\",\"op\":\"peer_remove\",\"stream_ids\":[%lld],"
	                      "\"user_ids\":[%lld]}]",
	                      (long long)vid, (long long)z.a->id, (long long)pid, (long long)z.a->id));
	EXPECT_EVENTS(qb, fmt("[{\"type\":\"subscription\",\"op\":\"peer_remove\",\"stream_ids\":[%lld],"
	                      "\"user_ids\":[%lld]}]",
	                      (long long)pid, (long long)z.a->id));
	EXPECT_NO_EVENTS(qg);
}

/* Subscription settings: subscription update to the user; muting also sends the legacy in_home_view first. */
static void test_subscription_properties(void)
{
	struct org z = new_org();
	char *ch = uniq("props");
	subscribe(z.o, ch, id_list(z.o->id, z.a->id), NULL);
	int64_t id = channel_id(ch);
	struct queue *qa = reg(z.a, "[\"subscription\"]", NULL), *qo = reg(z.o, "[\"subscription\"]", NULL);
	EXPECT_SUCCESS(api_post(z.a, "/users/me/subscriptions/properties",
	                        fmt("subscription_data=%s",
	                            url_encode(fmt("[{\"stream_id\":%lld,\"property\":\"color\",\"value\":\"#aabbcc\"},"
	                                           "{\"stream_id\":%lld,\"property\":\"in_home_view\",\"value\":false},"
	                                           "{\"stream_id\":%lld,\"property\":\"pin_to_top\",\"value\":true}]",
	                                           (long long)id, (long long)id, (long long)id)))));
	EXPECT_EVENTS(qa,
	              fmt("[{\"type\":\"subscription\",\"op\":\"update\",\"property\":\"color\",\"value\":\"#aabbcc\","
	                  "\"stream_id\":%lld},"
	                  "{\"type\":\"subscription\",\"op\":\"update\",\"property\":\"in_home_view\",\"value\":false,"
	                  "\"stream_id\":%lld},"
	                  "{\"type\":\"subscription\",\"op\":\"update\",\"property\":\"is_muted\",\"value\":true,"
	                  "\"stream_id\":%lld},"
	                  "{\"type\":\"subscription\",\"op\":\"update\",\"property\":\"pin_to_top\",\"value\":true,"
	                  "\"stream_id\":%lld}]",
	                  (long long)id, (long long)id, (long long)id, (long long)id));
	EXPECT_NO_EVENTS(qo);
}

/* ---- users -------------------------------------------------------------------------------------------------- */

/* realm_user add to every active user (the person as each sees it: profile_data empty, no Gravatar shortcut),
 * then add_members of the system groups the account joined. */
static void test_create_user(void)
{
	struct org z = new_org();
	const char *types = "[\"realm_user\",\"user_group\"]";
	struct queue *qo = reg(z.o, types, NULL), *qa = reg(z.a, types, NULL), *qg = reg(z.g, types, NULL);
	char *email = unique_email("evnew");
	struct resp *r = api_post(z.o, "/users",
	                          fmt("email=%s&password=%s&full_name=New+Person", url_encode(email),
	                              url_encode("a-Long-and-Unusual-pw-7731")));
	EXPECT_SUCCESS(r);
	int64_t id = jint(r->json, "user_id");
	REQUIRE(id > 0, "user_id: %s", r->body);
	json_object *groups = jget(api_get(z.o, "/user_groups")->json, "user_groups");
	int64_t members = 0, full = 0;
	for (size_t i = 0; i < json_object_array_length(groups); i++) {
		json_object *g = json_object_array_get_idx(groups, i);
		if (strcmp(jstr(g, "name"), "role:members") == 0)
			members = jint(g, "id");
		if (strcmp(jstr(g, "name"), "role:fullmembers") == 0)
			full = jint(g, "id");
	}
	struct queue *qs[] = {qo, qa, qg};
	for (int k = 0; k < 3; k++) {
		json_object *ev = queue_drain(qs[k]);
		REQUIRE(json_object_array_length(ev) == 3, "user %lld: realm_user add + 2 add_members: %s",
		        (long long)qs[k]->u->id, text(ev));
		json_object *add = json_object_array_get_idx(ev, 0);
		EXPECT_STR(add, "type", "realm_user");
		EXPECT_STR(add, "op", "add");
		json_object *person = jget(add, "person");
		json_object *want =
		    jget(api_get(qs[k]->u, fmt("/users/%lld?client_gravatar=false", (long long)id))->json, "user");
		CHECK(strcmp(text(jget(person, "profile_data")), "{}") == 0, "profile_data: %s", text(person));
		json_object_object_del(person, "profile_data");
		CHECK(json_object_equal(person, want), "person for %lld\n      got %s\n     want %s",
		      (long long)qs[k]->u->id, text(person), text(want));
		char *rest =
		    fmt("[{\"type\":\"user_group\",\"op\":\"add_members\",\"group_id\":%lld,\"user_ids\":[%lld]},"
		        "{\"type\":\"user_group\",\"op\":\"add_members\",\"group_id\":%lld,\"user_ids\":[%lld]}]",
		        (long long)members, (long long)id, (long long)full, (long long)id);
		json_object *w = json_tokener_parse(rest);
		json_object_array_del_idx(ev, 0, 1);
		CHECK(json_object_equal(ev, w), "group events: %s\n     want %s", text(ev), rest);
		json_object_put(w);
	}
}

/* In an organization where guests may not see everyone, a guest learns only of an unknown user. */
static void test_create_user_hidden_from_guests(void)
{
	struct org z = new_org();
	psql_ok("UPDATE realms SET can_access_all_users_group_id = confab_system_group(id, 'role:members')"
	        " WHERE id = (SELECT realm_id FROM users WHERE id = %lld)",
	        (long long)z.o->id);
	struct queue *qg = reg(z.g, "[\"realm_user\"]", NULL), *qa = reg(z.a, "[\"realm_user\"]", NULL);
	struct resp *r = api_post(z.o, "/users",
	                          fmt("email=%s&password=%s&full_name=Hidden+Person", url_encode(unique_email("evhid")),
	                              url_encode("a-Long-and-Unusual-pw-7731")));
	EXPECT_SUCCESS(r);
	int64_t id = jint(r->json, "user_id");
	json_object *person = jget(ONE_EVENT(qa), "person");
	EXPECT_STR(person, "full_name", "Hidden Person");
	json_object *e = ONE_EVENT(qg);
	EXPECT_STR(e, "op", "add");
	EXPECT_ABSENT(e, "_inaccessible_user");
	person = jget(e, "person");
	EXPECT_INT(person, "user_id", id);
	EXPECT_STR(person, "full_name", "Unknown user");
	EXPECT_STR(person, "date_joined", "1970-01-01T00:00:00+00:00");
	EXPECT_NULL(person, "delivery_email");
	EXPECT_INT(person, "role", 400);
}

/* ---- user groups -------------------------------------------------------------------------------------------- */

static json_object *listed_group(const struct user *u, int64_t id)
{
	json_object *groups = jget(api_get(u, "/user_groups?include_deactivated_groups=true")->json, "user_groups");
	for (size_t i = 0; i < json_object_array_length(groups); i++)
		if (jint(json_object_array_get_idx(groups, i), "id") == id)
			return json_object_array_get_idx(groups, i);
	REQUIRE(false, "group %lld not listed", (long long)id);
	return NULL;
}

static int64_t create_group(const struct user *u, const char *name, const char *members, const char *subgroups)
{
	struct resp *r = api_post(u, "/user_groups/create",
	                          fmt("name=%s&description=d&members=%s%s%s", url_encode(name), url_encode(members),
	                              subgroups ? "&subgroups=" : "", subgroups ? url_encode(subgroups) : ""));
	EXPECT_SUCCESS(r);
	REQUIRE(jint(r->json, "group_id") > 0, "group_id: %s", r->body);
	return jint(r->json, "group_id");
}

/* Creation: add with the group as listed (without subgroups), then add_subgroups; to every active user. */
static void test_group_create(void)
{
	struct org z = new_org();
	int64_t sub = create_group(z.o, uniq("sub"), id_list(z.b->id, 0), NULL);
	struct queue *qa = reg(z.a, "[\"user_group\"]", NULL), *qg = reg(z.g, "[\"user_group\"]", NULL);
	int64_t id = create_group(z.o, uniq("grp"), id_list(z.a->id, z.c->id), fmt("[%lld]", (long long)sub));
	json_object *group = listed_group(z.o, id);
	json_object_object_add(group, "direct_subgroup_ids", json_object_new_array());
	char *want = fmt("[{\"type\":\"user_group\",\"op\":\"add\",\"group\":%s,\"for_reactivation\":false},"
	                 "{\"type\":\"user_group\",\"op\":\"add_subgroups\",\"group_id\":%lld,"
	                 "\"direct_subgroup_ids\":[%lld]}]",
	                 text(group), (long long)id, (long long)sub);
	EXPECT_EVENTS(qa, want);
	EXPECT_EVENTS(qg, want);
}

/* PATCH: one update per change, in the reference's order; the setting as its API value. */
static void test_group_update(void)
{
	struct org z = new_org();
	int64_t id = create_group(z.o, uniq("upd"), id_list(z.a->id, 0), NULL);
	struct queue *qb = reg(z.b, "[\"user_group\"]", NULL);
	char *name = uniq("renamed");
	struct resp *r =
	    http(&(struct request){.method = "PATCH",
	                           .path = fmt("/api/v1/user_groups/%lld", (long long)id),
	                           .user = z.o,
	                           .form = fmt("name=%s&description=new&can_mention_group=%s", url_encode(name),
	                                       url_encode(fmt("{\"new\":{\"direct_members\":[%lld],"
	                                                      "\"direct_subgroups\":[]}}",
	                                                      (long long)z.c->id)))});
	EXPECT_SUCCESS(r);
	EXPECT_EVENTS(qb,
	              fmt("[{\"type\":\"user_group\",\"op\":\"update\",\"group_id\":%lld,\"data\":{\"name\":\"%s\"}},"
	                  "{\"type\":\"user_group\",\"op\":\"update\",\"group_id\":%lld,\"data\":{\"description\":"
	                  "\"new\"}},"
	                  "{\"type\":\"user_group\",\"op\":\"update\",\"group_id\":%lld,\"data\":{"
	                  "\"can_mention_group\":{\"direct_members\":[%lld],\"direct_subgroups\":[]}}}]",
	                  (long long)id, name, (long long)id, (long long)id, (long long)z.c->id));
}

static void test_group_members(void)
{
	struct org z = new_org();
	int64_t id = create_group(z.o, uniq("mem"), id_list(z.a->id, 0), NULL);
	int64_t sub = create_group(z.o, uniq("memsub"), "[]", NULL);
	struct queue *qc = reg(z.c, "[\"user_group\"]", NULL);
	EXPECT_SUCCESS(api_post(z.o, fmt("/user_groups/%lld/members", (long long)id),
	                        fmt("add=%s&delete=%s&add_subgroups=[%lld]", url_encode(id_list(z.c->id, z.b->id)),
	                            url_encode(id_list(z.a->id, 0)), (long long)sub)));
	EXPECT_EVENTS(qc,
	              fmt("[{\"type\":\"user_group\",\"op\":\"add_members\",\"group_id\":%lld,"
	                  "\"user_ids\":[%lld,%lld]},"
	                  "{\"type\":\"user_group\",\"op\":\"remove_members\",\"group_id\":%lld,\"user_ids\":[%lld]},"
	                  "{\"type\":\"user_group\",\"op\":\"add_subgroups\",\"group_id\":%lld,"
	                  "\"direct_subgroup_ids\":[%lld]}]",
	                  (long long)id, (long long)z.b->id, (long long)z.c->id, (long long)id, (long long)z.a->id,
	                  (long long)id, (long long)sub));
	EXPECT_SUCCESS(
	    api_post(z.o, fmt("/user_groups/%lld/subgroups", (long long)id), fmt("delete=[%lld]", (long long)sub)));
	EXPECT_EVENTS(qc, fmt("[{\"type\":\"user_group\",\"op\":\"remove_subgroups\",\"group_id\":%lld,"
	                      "\"direct_subgroup_ids\":[%lld]}]",
	                      (long long)id, (long long)sub));
}

/* Deactivation: clients with include_deactivated_groups get update {deactivated: true}, others remove;
 * reactivation: update {deactivated: false} for the former, add (for_reactivation) for all. */
static void test_group_deactivate(void)
{
	struct org z = new_org();
	int64_t id = create_group(z.o, uniq("deact"), id_list(z.a->id, 0), NULL);
	struct queue *with = reg(z.b, "[\"user_group\"]", "client_capabilities={\"include_deactivated_groups\":true}");
	struct queue *without = reg(z.b, "[\"user_group\"]", NULL);
	EXPECT_SUCCESS(api_post(z.o, fmt("/user_groups/%lld/deactivate", (long long)id), ""));
	EXPECT_EVENTS(with, fmt("[{\"type\":\"user_group\",\"op\":\"update\",\"group_id\":%lld,"
	                        "\"data\":{\"deactivated\":true}}]",
	                        (long long)id));
	EXPECT_EVENTS(without, fmt("[{\"type\":\"user_group\",\"op\":\"remove\",\"group_id\":%lld}]", (long long)id));
	struct resp *r = http(&(struct request){.method = "PATCH",
	                                        .path = fmt("/api/v1/user_groups/%lld", (long long)id),
	                                        .user = z.o,
	                                        .form = "deactivated=false"});
	EXPECT_SUCCESS(r);
	char *add = fmt("{\"type\":\"user_group\",\"op\":\"add\",\"group\":%s,\"for_reactivation\":true}",
	                text(listed_group(z.o, id)));
	EXPECT_EVENTS(with, fmt("[{\"type\":\"user_group\",\"op\":\"update\",\"group_id\":%lld,"
	                        "\"data\":{\"deactivated\":false}},%s]",
	                        (long long)id, add));
	EXPECT_EVENTS(without, fmt("[%s]", add));
}

/* Joining a group that may subscribe to a private channel shows the channel (stream create, peer_add with its
 * subscribers); leaving it hides it again (stream delete). */
static void test_group_grants_channel_metadata(void)
{
	struct org z = new_org();
	int64_t gid = create_group(z.o, uniq("gate"), "[]", NULL);
	char *ch = uniq("gated");
	subscribe(z.a, ch, id_list(z.a->id, 0), fmt("invite_only=true&can_subscribe_group=%lld", (long long)gid));
	int64_t id = channel_id(ch);
	struct queue *qb = reg(z.b, "[\"stream\",\"subscription\"]", NULL);
	EXPECT_SUCCESS(
	    api_post(z.o, fmt("/user_groups/%lld/members", (long long)gid), fmt("add=[%lld]", (long long)z.b->id)));
	json_object *ev = queue_drain(qb);
	REQUIRE(json_object_array_length(ev) == 2, "create + peer_add: %s", text(ev));
	json_object *create = json_object_array_get_idx(ev, 0);
	EXPECT_STR(create, "op", "create");
	EXPECT_INT(json_object_array_get_idx(jget(create, "streams"), 0), "stream_id", id);
	json_object *want =
	    json_tokener_parse(fmt("{\"type\":\"subscription\",\"op\":\"peer_add\",\"stream_ids\":[%lld],"
	                           "\"user_ids\":[%lld]}",
	                           (long long)id, (long long)z.a->id));
	CHECK(json_object_equal(json_object_array_get_idx(ev, 1), want), "peer_add: %s", text(ev));
	json_object_put(want);
	EXPECT_SUCCESS(
	    api_post(z.o, fmt("/user_groups/%lld/members", (long long)gid), fmt("delete=[%lld]", (long long)z.b->id)));
	EXPECT_EVENTS(qb, fmt("[{\"type\":\"stream\",\"op\":\"delete\",\"streams\":[{\"stream_id\":%lld}],"
	                      "\"stream_ids\":[%lld]}]",
	                      (long long)id, (long long)id));
}

/* ---- channel folders ---------------------------------------------------------------------------------------- */

static void test_channel_folder_create(void)
{
	struct org z = new_org();
	struct queue *qa = reg(z.a, "[\"channel_folder\"]", NULL), *qg = reg(z.g, "[\"channel_folder\"]", NULL);
	struct resp *r = api_post(z.o, "/channel_folders/create", fmt("name=%s&description=**x**", uniq("folder")));
	EXPECT_SUCCESS(r);
	int64_t id = jint(r->json, "channel_folder_id");
	json_object *folders = jget(api_get(z.o, "/channel_folders")->json, "channel_folders"), *folder = NULL;
	for (size_t i = 0; i < json_object_array_length(folders); i++)
		if (jint(json_object_array_get_idx(folders, i), "id") == id)
			folder = json_object_array_get_idx(folders, i);
	REQUIRE(folder != NULL, "folder %lld not listed", (long long)id);
	char *want = fmt("[{\"type\":\"channel_folder\",\"op\":\"add\",\"channel_folder\":%s}]", text(folder));
	EXPECT_EVENTS(qa, want);
	EXPECT_EVENTS(qg, want);
}

void register_events_tests(void)
{
	static const struct itest_case cases[] = {
	    {"channel_message", test_channel_message},
	    {"message_markdown_source", test_message_markdown_source},
	    {"direct_message", test_direct_message},
	    {"all_public_streams", test_all_public_streams},
	    {"message_narrow", test_message_narrow},
	    {"local_message_id", test_local_message_id},
	    {"message_wakes_channel", test_message_wakes_channel},
	    {"message_many_queues", test_message_many_queues},
	    {"delete_channel_message", test_delete_channel_message},
	    {"delete_direct_message", test_delete_direct_message},
	    {"message_flags", test_message_flags},
	    {"unread_details_mention", test_unread_details_mention},
	    {"subscribe_new_public_channel", test_subscribe_new_public_channel},
	    {"subscribe_private_channel", test_subscribe_private_channel},
	    {"peer_add_batched", test_peer_add_batched},
	    {"unsubscribe", test_unsubscribe},
	    {"subscription_properties", test_subscription_properties},
	    {"create_user", test_create_user},
	    {"create_user_hidden_from_guests", test_create_user_hidden_from_guests},
	    {"group_create", test_group_create},
	    {"group_update", test_group_update},
	    {"group_members", test_group_members},
	    {"group_deactivate", test_group_deactivate},
	    {"group_grants_channel_metadata", test_group_grants_channel_metadata},
	    {"channel_folder_create", test_channel_folder_create},
	    {NULL, NULL},
	};
	itest_add_suite("events", cases);
}
