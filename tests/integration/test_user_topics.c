/*
 * Topic preferences and the bulk read markers: POST /user_topics, the deprecated PATCH
 * /users/me/subscriptions/muted_topics, the user_topic and muted_topics events, user_topics and muted_topics in the
 * register response, what muted topics do to unread_msgs, the first unread anchor and the unread details of
 * update_message_flags events, the preferences carried by message moves; and POST /mark_all_as_read,
 * /mark_stream_as_read, /mark_topic_as_read with their events. Reference: zerver/views/user_topics.py,
 * zerver/actions/user_topics.py, zerver/lib/user_topics.py, zerver/actions/message_edit.py (do_update_message),
 * zerver/lib/message.py (get_raw_unread_data), zerver/views/message_flags.py, zerver/actions/message_flags.py and
 * their tests (test_muted_topics.py, test_user_topics.py, test_message_flags.py, test_message_move_topic.py).
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "itest.h"

static unsigned counter;

static char *uniq(const char *tag)
{
	return fmt("ut-%s-%u-%ld", tag, ++counter, (long)getpid());
}

/* A fresh organization: owner o, members a and b, guest g. */
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

/* o creates channel name with the users a and b subscribed (and o), extra form fields; its id. */
static long long make_channel(const struct org *z, const char *name, const char *extra)
{
	const char *principals = fmt("[%lld,%lld]", (long long)z->a->id, (long long)z->b->id);
	struct resp *r =
	    api_post(z->o, "/users/me/subscriptions",
	             fmt("subscriptions=%s&principals=%s%s%s", url_encode(fmt("[{\"name\":\"%s\"}]", name)),
	                 url_encode(principals), extra ? "&" : "", extra ? extra : ""));
	REQUIRE(r->status == 200, "creating channel %s: %s", name, r->body);
	return atoll(psql_ok("SELECT id FROM channels WHERE name = '%s'", name));
}

static struct resp *set_policy(const struct user *u, long long channel, const char *topic, int policy)
{
	return api_post(u, "/user_topics",
	                fmt("stream_id=%lld&topic=%s&visibility_policy=%d", channel, url_encode(topic), policy));
}

static struct queue *listen(const struct user *u, const char *types, const char *extra)
{
	return queue_register(u, fmt("event_types=%s%s", url_encode(types), extra ? extra : ""));
}

static json_object *state(const struct user *u, const char *types, const char *extra)
{
	struct resp *r = api_post(u, "/register", fmt("fetch_event_types=%s%s", url_encode(types), extra ? extra : ""));
	EXPECT_STATUS(r, 200);
	return r->json;
}

/* A timestamp of now: within a few minutes of this machine's clock. */
static bool is_now(json_object *v)
{
	if (v == NULL || !json_object_is_type(v, json_type_int))
		return false;
	long long t = json_object_get_int64(v), now = (long long)time(NULL);
	return t > now - 300 && t < now + 300;
}

/* The timestamps of user_topic objects (last_updated) and muted_topics tuples (third item) checked to be now, then
 * replaced by 0, so that the rest compares exactly. */
static void zero_times(json_object *list)
{
	for (size_t i = 0; list != NULL && i < json_object_array_length(list); i++) {
		json_object *o = json_object_array_get_idx(list, i), *v;
		if (json_object_is_type(o, json_type_array) && json_object_array_length(o) == 3) {
			CHECK(is_now(json_object_array_get_idx(o, 2)), "muted topic time: %s", jtext(o));
			json_object_array_put_idx(o, 2, json_object_new_int(0));
			continue;
		}
		if (json_object_object_get_ex(o, "last_updated", &v)) {
			CHECK(is_now(v), "last_updated: %s", jtext(o));
			json_object_object_add(o, "last_updated", json_object_new_int(0));
		}
		if (json_object_object_get_ex(o, "muted_topics", &v))
			zero_times(v);
	}
}

/* The queue's events, timestamps zeroed, are exactly want. */
static void expect_events_timed_at(struct queue *q, const char *want, const char *file, int line)
{
	json_object *got = queue_drain(q);
	zero_times(got);
	expect_events_json_at(got, want, q->u, file, line);
}
#define EXPECT_EVENTS_T(q, want) expect_events_timed_at((q), (want), __FILE__, __LINE__)

static json_object *user_topics_of(const struct user *u, const char *extra)
{
	json_object *list = jget(state(u, "[\"user_topic\"]", extra), "user_topics");
	zero_times(list);
	return list;
}

#define UT_EVENT(stream, topic, policy)                                                                                \
	"{\"type\":\"user_topic\",\"stream_id\":" stream ",\"topic_name\":\"" topic "\",\"last_updated\":0,"             \
	"\"visibility_policy\":" policy "}"

/* ---- POST /user_topics ------------------------------------------------------------------------------------ */

static void test_user_topics_set_events_and_register(void)
{
	struct org z = new_org();
	char *name = uniq("set");
	long long c = make_channel(&z, name, NULL);
	const char *cs = fmt("%lld", c);
	struct queue *modern = listen(z.a, "[\"user_topic\",\"muted_topics\"]", NULL);
	struct queue *legacy = listen(z.a, "[\"muted_topics\"]", NULL);
	struct queue *all = queue_register(z.a, "");

	EXPECT_SUCCESS(set_policy(z.a, c, "Lunch", 1));
	const char *ev = fmt("[" UT_EVENT("%s", "Lunch", "1") "]", cs);
	EXPECT_EVENTS_T(modern, ev);
	EXPECT_EVENTS_T(legacy, fmt("[{\"type\":\"muted_topics\",\"muted_topics\":[[\"%s\",\"Lunch\",0]]}]", name));
	EXPECT_EVENTS_T(all, fmt("[{\"type\":\"muted_topics\",\"muted_topics\":[[\"%s\",\"Lunch\",0]]}," UT_EVENT(
	                             "%s", "Lunch", "1") "]",
	                         name, cs));
	EXPECT_JSON_IS(user_topics_of(z.a, NULL),
	            fmt("[{\"stream_id\":%s,\"topic_name\":\"Lunch\",\"visibility_policy\":1,\"last_updated\":0}]", cs));
	/* The legacy form only for clients that do not ask for user_topic; everyone else's are their own. */
	json_object *s = state(z.a, "[\"muted_topics\"]", NULL);
	EXPECT_ABSENT(s, "user_topics");
	zero_times(jget(s, "muted_topics"));
	EXPECT_JSON_IS(jget(s, "muted_topics"), fmt("[[\"%s\",\"Lunch\",0]]", name));
	EXPECT_ABSENT(state(z.a, "[\"muted_topics\",\"user_topic\"]", NULL), "muted_topics");
	EXPECT_JSON_IS(user_topics_of(z.b, NULL), "[]");

	/* The same policy again (any case of the topic) changes nothing and sends nothing. */
	EXPECT_SUCCESS(set_policy(z.a, c, "LUNCH", 1));
	EXPECT_NO_EVENTS(modern);
	/* Following keeps the row's spelling; the event names the topic as sent. */
	EXPECT_SUCCESS(set_policy(z.a, c, "lunch", 3));
	EXPECT_EVENTS_T(modern, fmt("[" UT_EVENT("%s", "lunch", "3") "]", cs));
	EXPECT_EVENTS_T(legacy, "[{\"type\":\"muted_topics\",\"muted_topics\":[]}]");
	EXPECT_JSON_IS(user_topics_of(z.a, NULL),
	            fmt("[{\"stream_id\":%s,\"topic_name\":\"Lunch\",\"visibility_policy\":3,\"last_updated\":0}]", cs));
	/* Inherit removes it; removing nothing sends nothing. */
	EXPECT_SUCCESS(set_policy(z.a, c, "Lunch", 0));
	EXPECT_EVENTS_T(modern, fmt("[" UT_EVENT("%s", "Lunch", "0") "]", cs));
	EXPECT_JSON_IS(user_topics_of(z.a, NULL), "[]");
	EXPECT_SUCCESS(set_policy(z.a, c, "Lunch", 0));
	EXPECT_NO_EVENTS(modern);
	EXPECT_SUCCESS(set_policy(z.a, c, "Other", 2));
	EXPECT_EVENTS_T(modern, fmt("[" UT_EVENT("%s", "Other", "2") "]", cs));
}

static void test_user_topics_errors(void)
{
	struct org z = new_org();
	long long c = make_channel(&z, uniq("err"), NULL);
	long long priv = make_channel(&z, uniq("priv"), "invite_only=true");
	struct queue *q = listen(z.g, "[\"user_topic\"]", NULL);
	EXPECT_ERROR(set_policy(z.a, c, "x", 4), 400, "BAD_REQUEST", "Invalid visibility_policy");
	EXPECT_ERROR(set_policy(z.a, c, "x", -1), 400, "BAD_REQUEST", "Invalid visibility_policy");
	EXPECT_ERROR(set_policy(z.a, c, repeat('t', 61), 1), 400, "BAD_REQUEST",
	             "topic is too long (limit: 60 characters)");
	EXPECT_SUCCESS(set_policy(z.a, c, repeat('t', 60), 1));
	EXPECT_ERROR(set_policy(z.a, 99999999, "x", 1), 400, "BAD_REQUEST", "Invalid channel ID");
	EXPECT_ERROR(set_policy(z.a, 99999999, "x", 0), 400, "BAD_REQUEST", "Invalid channel ID");
	/* A guest not subscribed to a channel has no access to it: only inherit is accepted there. */
	EXPECT_ERROR(set_policy(z.g, priv, "x", 1), 400, "BAD_REQUEST", "Invalid channel ID");
	EXPECT_ERROR(set_policy(z.g, c, "x", 3), 400, "BAD_REQUEST", "Invalid channel ID");
	EXPECT_SUCCESS(set_policy(z.g, priv, "x", 0));
	EXPECT_NO_EVENTS(q);
	EXPECT_ERROR(api_post(z.a, "/user_topics", fmt("stream_id=%lld&topic=x", c)), 400, "REQUEST_VARIABLE_MISSING",
	             "Missing 'visibility_policy' argument");
	EXPECT_ERROR(api_post(z.a, "/user_topics", fmt("stream_id=%lld&visibility_policy=1", c)), 400,
	             "REQUEST_VARIABLE_MISSING", "Missing 'topic' argument");
	/* Another organization's channel does not exist here. */
	struct user *other = new_realm();
	EXPECT_ERROR(set_policy(other, c, "x", 0), 400, "BAD_REQUEST", "Invalid channel ID");
	EXPECT_ERROR(set_policy(other, c, "x", 1), 400, "BAD_REQUEST", "Invalid channel ID");
}

/* The empty topic: named by the display name, shown as it to clients without empty_topic_name. */
static void test_user_topics_empty_topic(void)
{
	struct org z = new_org();
	long long c = make_channel(&z, uniq("empty"), NULL);
	const char *cs = fmt("%lld", c);
	struct queue *old = listen(z.a, "[\"user_topic\"]", NULL);
	struct queue *modern =
	    listen(z.a, "[\"user_topic\"]", "&client_capabilities=" "%7B%22empty_topic_name%22%3Atrue%7D");
	EXPECT_SUCCESS(set_policy(z.a, c, "general chat", 1));
	EXPECT_EVENTS_T(old, fmt("[" UT_EVENT("%s", "general chat", "1") "]", cs));
	EXPECT_EVENTS_T(modern, fmt("[" UT_EVENT("%s", "", "1") "]", cs));
	EXPECT_JSON_IS(user_topics_of(z.a, NULL),
	            fmt("[{\"stream_id\":%s,\"topic_name\":\"general chat\",\"visibility_policy\":1,\"last_updated\":0}]",
	                cs));
	EXPECT_JSON_IS(
	    user_topics_of(z.a, "&client_capabilities=%7B%22empty_topic_name%22%3Atrue%7D"),
	    fmt("[{\"stream_id\":%s,\"topic_name\":\"\",\"visibility_policy\":1,\"last_updated\":0}]", cs));
	CHECK(strcmp(psql_ok("SELECT topic_name FROM user_topics WHERE user_id = %lld", (long long)z.a->id), "") == 0,
	      "stored topic is not empty");
}

/* ---- PATCH /users/me/subscriptions/muted_topics (deprecated) ---------------------------------------------- */

static struct resp *patch_muted(const struct user *u, const char *form)
{
	return http(&(struct request){
	    .method = "PATCH", .path = "/api/v1/users/me/subscriptions/muted_topics", .user = u, .form = form});
}

static void test_muted_topics_legacy(void)
{
	struct org z = new_org();
	char *name = uniq("legacy");
	long long c = make_channel(&z, name, NULL);
	const char *cs = fmt("%lld", c);
	struct queue *q = listen(z.a, "[\"user_topic\"]", NULL);
	EXPECT_SUCCESS(patch_muted(z.a, fmt("stream=%s&topic=Tea&op=add", name)));
	EXPECT_EVENTS_T(q, fmt("[" UT_EVENT("%s", "Tea", "1") "]", cs));
	EXPECT_SUCCESS(patch_muted(z.a, fmt("stream_id=%lld&topic=Tea&op=remove", c)));
	EXPECT_EVENTS_T(q, fmt("[" UT_EVENT("%s", "Tea", "0") "]", cs));
	static const char *const bad[][2] = {
	    {"stream_id=1&topic=Tea&op=mute", "Invalid op"},
	    {"topic=Tea&op=add", "Please supply 'stream'."},
	    {"stream=nowhere-at-all&topic=Tea&op=add", "Invalid channel name 'nowhere-at-all'"},
	    {"stream=nowhere-at-all&topic=Tea&op=remove", "Topic is not muted"},
	    {"stream_id=99999999&topic=Tea&op=remove", "Topic is not muted"},
	    {"stream_id=99999999&topic=Tea&op=add", "Invalid channel ID"},
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		EXPECT_ERROR(patch_muted(z.a, bad[i][0]), 400, "BAD_REQUEST", bad[i][1]);
	struct resp *r = patch_muted(z.a, fmt("stream_id=%lld&stream=%s&topic=Tea&op=add", c, name));
	EXPECT_STATUS(r, 400);
	EXPECT_STR(r->json, "msg", "Unsupported parameter combination: stream_id, stream");
	EXPECT_STR(r->json, "parameters", "stream_id, stream");
	EXPECT_NO_EVENTS(q);
}

/* ---- unread_msgs, first unread, unread details ------------------------------------------------------------- */

static json_object *unread_of(const struct user *u)
{
	return jget(state(u, "[\"message\",\"update_message_flags\"]", NULL), "unread_msgs");
}

static void mute_channel(const struct user *u, long long c)
{
	EXPECT_SUCCESS(api_post(u, "/users/me/subscriptions/properties",
	                        fmt("subscription_data=%s",
	                            url_encode(fmt("[{\"stream_id\":%lld,\"property\":\"is_muted\",\"value\":true}]", c)))));
}

/* The ids of the messages sender sent that u finds in narrow (a JSON list text), oldest first. */
static json_object *fetch_ids(const struct user *u, const struct user *sender, const char *narrow)
{
	struct resp *r = api_get(u, fmt("/messages?anchor=newest&num_before=100&num_after=0&narrow=%s", url_encode(narrow)));
	EXPECT_STATUS(r, 200);
	json_object *out = json_object_new_array();
	json_object_object_add(r->json, "_ids", out); /* freed with the response */
	json_object *msgs = jget(r->json, "messages");
	for (size_t i = 0; msgs != NULL && i < json_object_array_length(msgs); i++) {
		json_object *m = json_object_array_get_idx(msgs, i);
		if (jint(m, "sender_id") == sender->id)
			json_object_array_add(out, json_object_new_int64(jint(m, "id")));
	}
	return out;
}

static void test_unread_muted_topics(void)
{
	struct org z = new_org();
	char *name = uniq("unread"), *quiet = uniq("quiet");
	long long c = make_channel(&z, name, NULL), m = make_channel(&z, quiet, NULL);
	long long m1 = send_channel_message(z.b, name, "muted", "hello");
	long long m2 = send_channel_message(z.b, name, "muted", "@**all** hello");
	long long m3 = send_channel_message(z.b, name, "open", "hi");
	long long m4 = send_channel_message(z.b, quiet, "plain", "@**all** hi");
	long long m5 = send_channel_message(z.b, quiet, "unmuted", "hi");
	long long m6 = send_channel_message(z.b, quiet, "followed", "hi");
	EXPECT_INT(unread_of(z.a), "count", 6);
	EXPECT_SUCCESS(set_policy(z.a, c, "MUTED", 1));
	mute_channel(z.a, m);
	EXPECT_SUCCESS(set_policy(z.a, m, "unmuted", 2));
	EXPECT_SUCCESS(set_policy(z.a, m, "followed", 3));
	json_object *u = unread_of(z.a);
	/* Muted: m1 and m2 (muted topic), m4 (muted channel); an unmuted or followed topic counts in a muted one. */
	EXPECT_INT(u, "count", 3);
	/* Wildcard mentions in muted conversations are not mentions; the streams list keeps every message. */
	EXPECT_JSON_IS(jget(u, "mentions"), "[]");
	json_object *streams = jget(u, "streams");
	CHECK(json_object_array_length(streams) == 5, "streams: %s", jtext(streams));
	/* The first unread message skips muted ones: m3 in the unmuted channel. */
	struct resp *r = api_get(z.a, "/messages?anchor=first_unread&num_before=0&num_after=0");
	EXPECT_STATUS(r, 200);
	EXPECT_INT(r->json, "anchor", m3);
	/* Narrowed to the muted channel, only its muted topics are skipped: m4 first. */
	r = api_get(z.a, fmt("/messages?anchor=first_unread&num_before=0&num_after=0&narrow=%s",
	                     url_encode(fmt("[{\"operator\":\"channel\",\"operand\":%lld}]", m))));
	EXPECT_STATUS(r, 200);
	EXPECT_INT(r->json, "anchor", m4);
	/* Narrowed to the channel of the muted topic: the muted topic is skipped. */
	r = api_get(z.a, fmt("/messages?anchor=first_unread&num_before=0&num_after=0&narrow=%s",
	                     url_encode(fmt("[{\"operator\":\"channel\",\"operand\":%lld}]", c))));
	EXPECT_STATUS(r, 200);
	EXPECT_INT(r->json, "anchor", m3);
	/* in:home leaves muted messages out; is:muted is the rest. */
	EXPECT_JSON_IS(fetch_ids(z.a, z.b, "[{\"operator\":\"in\",\"operand\":\"home\"}]"),
	            fmt("[%lld,%lld,%lld]", m3, m5, m6));
	EXPECT_JSON_IS(fetch_ids(z.a, z.b, "[{\"operator\":\"is\",\"operand\":\"muted\"}]"),
	            fmt("[%lld,%lld,%lld]", m1, m2, m4));
	EXPECT_JSON_IS(fetch_ids(z.a, z.b, "[{\"operator\":\"is\",\"operand\":\"muted\",\"negated\":true}]"),
	            fmt("[%lld,%lld,%lld]", m3, m5, m6));
	/* Unmuting the topic counts it again. */
	EXPECT_SUCCESS(set_policy(z.a, c, "muted", 0));
	EXPECT_INT(unread_of(z.a), "count", 5);
}

/* Marking messages unread tells whether each is in an unmuted conversation, by the topic's policy too. */
static void test_unread_details_muted_topic(void)
{
	struct org z = new_org();
	char *name = uniq("details");
	long long c = make_channel(&z, name, NULL);
	long long m1 = send_channel_message(z.b, name, "Muted", "one");
	long long m2 = send_channel_message(z.b, name, "open", "two");
	EXPECT_SUCCESS(set_policy(z.a, c, "muted", 1));
	EXPECT_SUCCESS(api_post(z.a, "/messages/flags", fmt("messages=[%lld,%lld]&op=add&flag=read", m1, m2)));
	struct queue *q = listen(z.a, "[\"update_message_flags\"]", NULL);
	EXPECT_SUCCESS(api_post(z.a, "/messages/flags", fmt("messages=[%lld,%lld]&op=remove&flag=read", m1, m2)));
	EXPECT_EVENTS(q, fmt("[{\"type\":\"update_message_flags\",\"op\":\"remove\",\"operation\":\"remove\","
	                     "\"flag\":\"read\",\"messages\":[%lld,%lld],\"all\":false,\"message_details\":{"
	                     "\"%lld\":{\"type\":\"stream\",\"stream_id\":%lld,\"topic\":\"Muted\","
	                     "\"unmuted_stream_msg\":false},"
	                     "\"%lld\":{\"type\":\"stream\",\"stream_id\":%lld,\"topic\":\"open\","
	                     "\"unmuted_stream_msg\":true}}}]",
	                     m1, m2, m1, c, m2, c));
}

/* ---- moves carry the preferences --------------------------------------------------------------------------- */

static struct resp *move(const struct user *u, long long id, const char *form)
{
	return http(&(struct request){
	    .method = "PATCH", .path = fmt("/api/v1/messages/%lld", id), .user = u, .form = form});
}

static void test_move_whole_topic_carries_preferences(void)
{
	struct org z = new_org();
	char *name = uniq("move");
	long long c = make_channel(&z, name, NULL);
	const char *cs = fmt("%lld", c);
	long long m1 = send_channel_message(z.b, name, "Plans", "one");
	send_channel_message(z.b, name, "Plans", "two");
	EXPECT_SUCCESS(set_policy(z.a, c, "plans", 3));
	EXPECT_SUCCESS(set_policy(z.b, c, "Plans", 1));
	struct queue *qa = listen(z.a, "[\"user_topic\",\"muted_topics\"]", NULL);
	struct queue *qb = listen(z.b, "[\"muted_topics\",\"user_topic\"]", NULL);
	struct queue *legacy = listen(z.b, "[\"muted_topics\"]", NULL);
	/* change_one of one message of two: the topic stays, and so do the preferences. */
	EXPECT_SUCCESS(move(z.o, m1, "topic=Elsewhere&propagate_mode=change_one&send_notification_to_old_thread=false"
	                             "&send_notification_to_new_thread=false"));
	EXPECT_NO_EVENTS(qa);
	EXPECT_NO_EVENTS(legacy);
	/* change_all: the whole topic moves, the preferences with it (old topic's row removed, then the new one). */
	long long m2 = atoll(psql_ok("SELECT max(id) FROM messages WHERE channel_id = %lld AND topic = 'Plans'", c));
	EXPECT_SUCCESS(move(z.o, m2, "topic=Later&propagate_mode=change_all&send_notification_to_old_thread=false"
	                             "&send_notification_to_new_thread=false"));
	EXPECT_EVENTS_T(qa, fmt("[" UT_EVENT("%s", "Plans", "0") "," UT_EVENT("%s", "Later", "3") "]", cs, cs));
	EXPECT_EVENTS_T(qb, fmt("[" UT_EVENT("%s", "Plans", "0") "," UT_EVENT("%s", "Later", "1") "]", cs, cs));
	EXPECT_EVENTS_T(legacy, fmt("[{\"type\":\"muted_topics\",\"muted_topics\":[[\"%s\",\"Later\",0]]}]", name));
	EXPECT_JSON_IS(user_topics_of(z.a, NULL),
	            fmt("[{\"stream_id\":%s,\"topic_name\":\"Later\",\"visibility_policy\":3,\"last_updated\":0}]", cs));
	/* change_later from the first message of a topic moves all of it too. */
	EXPECT_SUCCESS(move(z.o, m1, "topic=Later&propagate_mode=change_later&send_notification_to_old_thread=false"
	                             "&send_notification_to_new_thread=false"));
	/* Into a topic with messages: a keeps following it (followed wins); b's mute gives way to Elsewhere's
	 * inherit (the more visible). */
	EXPECT_NO_EVENTS(qa);
	EXPECT_EVENTS_T(qb, fmt("[" UT_EVENT("%s", "Later", "0") "]", cs));
	EXPECT_EVENTS_T(legacy, "[{\"type\":\"muted_topics\",\"muted_topics\":[]}]");
}

/* Into a topic with messages the two policies merge (the more visible wins); without messages the moved one
 * replaces the target's. */
static void test_move_merges_preferences(void)
{
	struct org z = new_org();
	char *name = uniq("merge");
	long long c = make_channel(&z, name, NULL);
	const char *cs = fmt("%lld", c);
	long long m1 = send_channel_message(z.b, name, "from", "one");
	send_channel_message(z.b, name, "into", "two");
	EXPECT_SUCCESS(set_policy(z.a, c, "from", 1));
	EXPECT_SUCCESS(set_policy(z.a, c, "into", 2));
	EXPECT_SUCCESS(set_policy(z.b, c, "from", 1));
	EXPECT_SUCCESS(set_policy(z.b, c, "into", 1));
	struct queue *qa = listen(z.a, "[\"user_topic\"]", NULL);
	struct queue *qb = listen(z.b, "[\"user_topic\"]", NULL);
	EXPECT_SUCCESS(move(z.o, m1, "topic=into&propagate_mode=change_all&send_notification_to_old_thread=false"
	                             "&send_notification_to_new_thread=false"));
	/* a: muted + unmuted -> unmuted, already the target's: only the old row goes. b: muted + muted -> muted. */
	EXPECT_EVENTS_T(qa, fmt("[" UT_EVENT("%s", "from", "0") "]", cs));
	EXPECT_EVENTS_T(qb, fmt("[" UT_EVENT("%s", "from", "0") "]", cs));
	EXPECT_JSON_IS(user_topics_of(z.a, NULL),
	            fmt("[{\"stream_id\":%s,\"topic_name\":\"into\",\"visibility_policy\":2,\"last_updated\":0}]", cs));
	/* A topic without messages: a stale preference of the target is replaced (here removed: b had none). */
	long long m3 = send_channel_message(z.b, name, "fresh", "three");
	EXPECT_SUCCESS(set_policy(z.b, c, "empty", 3));
	qb = listen(z.b, "[\"user_topic\"]", NULL);
	EXPECT_SUCCESS(move(z.o, m3, "topic=empty&propagate_mode=change_all&send_notification_to_old_thread=false"
	                             "&send_notification_to_new_thread=false"));
	EXPECT_EVENTS_T(qb, fmt("[" UT_EVENT("%s", "empty", "0") "]", cs));
}

/* A move to another channel carries the preferences, and removes them for users who lose access. */
static void test_move_to_channel(void)
{
	struct org z = new_org();
	char *name = uniq("src"), *pub = uniq("pub"), *priv = uniq("priv");
	long long c = make_channel(&z, name, NULL), p = make_channel(&z, pub, NULL);
	/* A private channel only o and a are in. */
	struct resp *r = api_post(z.o, "/users/me/subscriptions",
	                          fmt("subscriptions=%s&principals=%s&invite_only=true",
	                              url_encode(fmt("[{\"name\":\"%s\"}]", priv)),
	                              url_encode(fmt("[%lld,%lld]", (long long)z.o->id, (long long)z.a->id))));
	EXPECT_STATUS(r, 200);
	long long s = atoll(psql_ok("SELECT id FROM channels WHERE name = '%s'", priv));
	long long m1 = send_channel_message(z.b, name, "Trip", "one");
	EXPECT_SUCCESS(set_policy(z.a, c, "Trip", 3));
	EXPECT_SUCCESS(set_policy(z.b, c, "Trip", 1));
	struct queue *qa = listen(z.a, "[\"user_topic\"]", NULL);
	struct queue *qb = listen(z.b, "[\"user_topic\",\"muted_topics\"]", NULL);
	EXPECT_SUCCESS(move(z.o, m1, fmt("stream_id=%lld&propagate_mode=change_all&send_notification_to_old_thread=false"
	                                 "&send_notification_to_new_thread=false",
	                                 p)));
	EXPECT_EVENTS_T(qa, fmt("[" UT_EVENT("%lld", "Trip", "0") "," UT_EVENT("%lld", "Trip", "3") "]", c, p));
	EXPECT_EVENTS_T(qb, fmt("[" UT_EVENT("%lld", "Trip", "0") "," UT_EVENT("%lld", "Trip", "1") "]", c, p));
	/* Into the private channel: b loses access and the preference; a keeps it. */
	EXPECT_SUCCESS(move(z.o, m1, fmt("stream_id=%lld&propagate_mode=change_all&send_notification_to_old_thread=false"
	                                 "&send_notification_to_new_thread=false",
	                                 s)));
	EXPECT_EVENTS_T(qa, fmt("[" UT_EVENT("%lld", "Trip", "0") "," UT_EVENT("%lld", "Trip", "3") "]", p, s));
	EXPECT_EVENTS_T(qb, fmt("[" UT_EVENT("%lld", "Trip", "0") "]", p));
	EXPECT_JSON_IS(user_topics_of(z.b, NULL), "[]");
}

/* A resolve notice stays unread for the users following the topic (the default resolved_topic_notice_auto_read_policy,
 * except_followed), whose preference moves to the resolved topic. */
static void test_resolve_notice_unread_for_followers(void)
{
	struct org z = new_org();
	char *name = uniq("resolve");
	long long c = make_channel(&z, name, NULL);
	long long m1 = send_channel_message(z.b, name, "Bug", "one");
	EXPECT_SUCCESS(set_policy(z.a, c, "Bug", 3));
	EXPECT_SUCCESS(move(z.o, m1, "topic=%E2%9C%94%20Bug&propagate_mode=change_all"));
	const char *read_by = psql_ok("SELECT string_agg(um.user_id || ':' || (um.flags & 1), ',' ORDER BY um.user_id)"
	                              " FROM user_messages um JOIN messages m ON m.id = um.message_id"
	                              " WHERE m.channel_id = %lld AND um.user_id IN (%lld, %lld)"
	                              " AND m.content LIKE '%%has marked this topic as resolved.'",
	                              c, (long long)z.a->id, (long long)z.b->id);
	CHECK(strcmp(read_by, fmt("%lld:0,%lld:1", (long long)z.a->id, (long long)z.b->id)) == 0,
	      "notice read flags (user:read): %s", read_by);
	EXPECT_JSON_IS(user_topics_of(z.a, NULL),
	            fmt("[{\"stream_id\":%lld,\"topic_name\":\"\u2714 Bug\",\"visibility_policy\":3,"
	                "\"last_updated\":0}]",
	                c));
}

/* ---- mark as read ------------------------------------------------------------------------------------------ */

#define READ_EVENT(messages, all)                                                                                      \
	"{\"type\":\"update_message_flags\",\"op\":\"add\",\"operation\":\"add\",\"flag\":\"read\",\"messages\":"      \
	messages ",\"all\":" all "}"

static void test_mark_all_as_read(void)
{
	struct org z = new_org();
	char *name = uniq("all");
	make_channel(&z, name, NULL);
	send_channel_message(z.b, name, "t1", "one");
	send_channel_message(z.b, name, "t2", "two");
	send_direct_message(z.b, fmt("[%lld]", (long long)z.a->id), "dm");
	EXPECT_INT(unread_of(z.a), "count", 3);
	struct queue *q = listen(z.a, "[\"update_message_flags\"]", NULL);
	struct resp *r = api_post(z.a, "/mark_all_as_read", NULL);
	EXPECT_STATUS(r, 200);
	EXPECT_KEYS(r->json, "result", "msg", "complete");
	EXPECT_BOOL(r->json, "complete", true);
	EXPECT_EVENTS(q, "[" READ_EVENT("[]", "true") "]");
	EXPECT_INT(unread_of(z.a), "count", 0);
	/* Nothing left: complete again, and the event again. */
	EXPECT_BOOL(api_post(z.a, "/mark_all_as_read", NULL)->json, "complete", true);
	EXPECT_EVENTS(q, "[" READ_EVENT("[]", "true") "]");
	/* Only the user's own copies: b's (sent through the API, so unread for b too, as the reference's
	 * sent_by_human() decides) stay. */
	EXPECT_INT(unread_of(z.b), "count", 3);
}

static void test_mark_stream_as_read(void)
{
	struct org z = new_org();
	char *name = uniq("stream"), *other = uniq("other");
	long long c = make_channel(&z, name, NULL);
	make_channel(&z, other, NULL);
	long long m1 = send_channel_message(z.b, name, "t1", "one");
	long long m2 = send_channel_message(z.b, name, "t2", "two");
	send_channel_message(z.b, other, "t1", "three");
	struct queue *q = listen(z.a, "[\"update_message_flags\"]", NULL);
	EXPECT_SUCCESS(api_post(z.a, "/mark_stream_as_read", fmt("stream_id=%lld", c)));
	EXPECT_EVENTS(q, fmt("[" READ_EVENT("[%lld,%lld]", "false") "]", m1, m2));
	EXPECT_INT(unread_of(z.a), "count", 1);
	/* Nothing unread there: no event. */
	EXPECT_SUCCESS(api_post(z.a, "/mark_stream_as_read", fmt("stream_id=%lld", c)));
	EXPECT_NO_EVENTS(q);
	EXPECT_ERROR(api_post(z.a, "/mark_stream_as_read", "stream_id=99999999"), 400, "BAD_REQUEST",
	             "Invalid channel ID");
	EXPECT_ERROR(api_post(z.a, "/mark_stream_as_read", ""), 400, "REQUEST_VARIABLE_MISSING",
	             "Missing 'stream_id' argument");
	long long priv = make_channel(&z, uniq("priv"), "invite_only=true");
	EXPECT_ERROR(api_post(z.g, "/mark_stream_as_read", fmt("stream_id=%lld", priv)), 400, "BAD_REQUEST",
	             "Invalid channel ID");
}

static void test_mark_topic_as_read(void)
{
	struct org z = new_org();
	char *name = uniq("topic");
	long long c = make_channel(&z, name, NULL);
	long long m1 = send_channel_message(z.b, name, "Soup", "one");
	long long m2 = send_channel_message(z.b, name, "soup", "two");
	send_channel_message(z.b, name, "salad", "three");
	struct queue *q = listen(z.a, "[\"update_message_flags\"]", NULL);
	EXPECT_SUCCESS(api_post(z.a, "/mark_topic_as_read", fmt("stream_id=%lld&topic_name=SOUP", c)));
	EXPECT_EVENTS(q, fmt("[" READ_EVENT("[%lld,%lld]", "false") "]", m1, m2));
	json_object *u = unread_of(z.a);
	EXPECT_INT(u, "count", 1);
	EXPECT_STR(json_object_array_get_idx(jget(u, "streams"), 0), "topic", "salad");
	EXPECT_ERROR(api_post(z.a, "/mark_topic_as_read", fmt("stream_id=%lld&topic_name=Nothing", c)), 400,
	             "BAD_REQUEST", "No such topic 'Nothing'");
	/* The display name of the empty topic names the empty topic, which has no messages here. */
	EXPECT_ERROR(api_post(z.a, "/mark_topic_as_read", fmt("stream_id=%lld&topic_name=general+chat", c)), 400,
	             "BAD_REQUEST", "No such topic ''");
	EXPECT_ERROR(api_post(z.a, "/mark_topic_as_read", fmt("stream_id=%lld", c)), 400, "REQUEST_VARIABLE_MISSING",
	             "Missing 'topic_name' argument");
	EXPECT_ERROR(api_post(z.a, "/mark_topic_as_read", "stream_id=99999999&topic_name=Soup"), 400, "BAD_REQUEST",
	             "Invalid channel ID");
	EXPECT_NO_EVENTS(q);
}

void register_user_topics_tests(void)
{
	static const struct itest_case cases[] = {
	    {"test_user_topics_set_events_and_register", test_user_topics_set_events_and_register},
	    {"test_user_topics_errors", test_user_topics_errors},
	    {"test_user_topics_empty_topic", test_user_topics_empty_topic},
	    {"test_muted_topics_legacy", test_muted_topics_legacy},
	    {"test_unread_muted_topics", test_unread_muted_topics},
	    {"test_unread_details_muted_topic", test_unread_details_muted_topic},
	    {"test_move_whole_topic_carries_preferences", test_move_whole_topic_carries_preferences},
	    {"test_move_merges_preferences", test_move_merges_preferences},
	    {"test_move_to_channel", test_move_to_channel},
	    {"test_resolve_notice_unread_for_followers", test_resolve_notice_unread_for_followers},
	    {NULL, NULL},
	};
	itest_add_suite("user_topics", cases);
	static const struct itest_case read_cases[] = {
	    {"test_mark_all_as_read", test_mark_all_as_read},
	    {"test_mark_stream_as_read", test_mark_stream_as_read},
	    {"test_mark_topic_as_read", test_mark_topic_as_read},
	    {NULL, NULL},
	};
	itest_add_suite("mark_read", read_cases);
}
