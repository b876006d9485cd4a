/*
 * Editing messages: PATCH /api/v1/messages/{message_id} -- content, topic and channel changes, every check in the
 * reference's order, the edit history, detached_uploads, the events each edit sends, and the Notification Bot's
 * messages (breadcrumbs of moves, resolve notices and their quick undo).
 * Reference: Zulip zerver/actions/message_edit.py, zerver/views/message_edit.py, zerver/lib/topic.py,
 * zerver/lib/streams.py and their tests (test_message_edit.py, test_message_move_topic.py,
 * test_message_move_stream.py, test_message_topics.py); messages are the reference's 12.x wording.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "itest.h"

static unsigned counter;

static char *uniq(const char *tag)
{
	return fmt("me-%s-%u-%ld", tag, ++counter, (long)getpid());
}

/* ---- fixtures ----------------------------------------------------------------------------------------------- */

/* A fresh organization (its settings are the tests' to change): owner o, members a, b, c, moderator m, guest g. */
struct org {
	struct user *o, *a, *b, *c, *m, *g;
	long long realm;
};

static struct org new_org(void)
{
	struct org z;
	z.o = new_realm();
	z.a = new_user_in(z.o->realm, "member", NULL);
	z.b = new_user_in(z.o->realm, "member", NULL);
	z.c = new_user_in(z.o->realm, "member", NULL);
	z.m = new_user_in(z.o->realm, "moderator", NULL);
	z.g = new_user_in(z.o->realm, "guest", NULL);
	z.realm = atoll(psql_ok("SELECT realm_id FROM users WHERE id = %lld", (long long)z.o->id));
	return z;
}

static const char *ids(const struct user *u1, const struct user *u2, const struct user *u3)
{
	char *s = fmt("[%lld", (long long)u1->id);
	if (u2)
		s = fmt("%s,%lld", s, (long long)u2->id);
	if (u3)
		s = fmt("%s,%lld", s, (long long)u3->id);
	return fmt("%s]", s);
}

/* o creates channel name with the users of principals (a JSON list) subscribed and extra form fields; its id. */
static long long make_channel(const struct org *z, const char *name, const char *principals, const char *extra)
{
	struct resp *r =
	    api_post(z->o, "/users/me/subscriptions",
	             fmt("subscriptions=%s&principals=%s%s%s", url_encode(fmt("[{\"name\":\"%s\"}]", name)),
	                 url_encode(principals), extra ? "&" : "", extra ? extra : ""));
	REQUIRE(r->status == 200, "creating channel %s: %s", name, r->body);
	return atoll(psql_ok("SELECT id FROM channels WHERE name = '%s'", name));
}

static long long send_to(const struct user *u, const char *channel, const char *topic, const char *content)
{
	struct resp *r = api_post(
	    u, "/messages",
	    fmt("type=stream&to=%s&topic=%s&content=%s", url_encode(channel), url_encode(topic), url_encode(content)));
	EXPECT_SUCCESS(r);
	REQUIRE(jint(r->json, "id") > 0, "no id: %s", r->body);
	return jint(r->json, "id");
}

static long long send_dm(const struct user *u, const struct user *to, const char *content)
{
	struct resp *r = api_post(
	    u, "/messages", fmt("type=direct&to=%s&content=%s", url_encode(ids(to, NULL, NULL)), url_encode(content)));
	EXPECT_SUCCESS(r);
	return jint(r->json, "id");
}

/* PATCH /messages/{id} with a form (values already URL-encoded). */
static struct resp *edit(const struct user *u, long long id, const char *form)
{
	return http(
	    &(struct request){.method = "PATCH", .path = fmt("/api/v1/messages/%lld", id), .user = u, .form = form});
}

static void edit_ok(const struct user *u, long long id, const char *form)
{
	struct resp *r = edit(u, id, form);
	EXPECT_SUCCESS(r);
	EXPECT_KEYS(r->json, "result", "msg", "detached_uploads");
}

static void age(long long id, int seconds)
{
	psql_ok("UPDATE messages SET date_sent = now() - make_interval(secs => %d) WHERE id = %lld", seconds, id);
}

static void set_realm(const struct org *z, const char *assignment)
{
	psql_ok("UPDATE realms SET %s WHERE id = %lld", assignment, z->realm);
}

/* Sets a group setting (realm column or channel column) to a system group. */
static void set_realm_group(const struct org *z, const char *column, const char *group)
{
	psql_ok("UPDATE realms SET %s = confab_system_group(%lld, '%s') WHERE id = %lld", column, z->realm, group,
	        z->realm);
}

static void set_channel_group(const struct org *z, long long channel, const char *column, const char *group)
{
	psql_ok("UPDATE channels SET %s = confab_system_group(%lld, '%s') WHERE id = %lld", column, z->realm, group,
	        channel);
}

static const char *topic_of(long long id)
{
	return psql_ok("SELECT topic FROM messages WHERE id = %lld", id);
}

static long long channel_of(long long id)
{
	return atoll(psql_ok("SELECT channel_id FROM messages WHERE id = %lld", id));
}

static const char *raw_content(const struct user *u, long long id)
{
	struct resp *r = api_get(u, fmt("/messages/%lld", id));
	EXPECT_SUCCESS(r);
	return jstr(r->json, "raw_content");
}

static const char *full_name(const struct user *u)
{
	return psql_ok("SELECT full_name FROM users WHERE id = %lld", (long long)u->id);
}

static const char *mention(const struct user *u)
{
	return fmt("@_**%s|%lld**", full_name(u), (long long)u->id);
}

/* The Notification Bot's messages of the organization, "channel|topic|content" lines, oldest first. */
static const char *bot_messages(const struct org *z)
{
	return psql_ok("SELECT coalesce(string_agg(channel_id || '|' || topic || '|' || content, E'\\n' ORDER BY id),"
	               " '') FROM messages WHERE sender_id = confab_notification_bot(%lld)",
	               z->realm);
}

static long long last_bot_message(const struct org *z)
{
	return atoll(psql_ok(
	    "SELECT coalesce(max(id), 0) FROM messages WHERE sender_id = confab_notification_bot(%lld)", z->realm));
}

/* The user's flags on the message, as GET /messages/{id} shows them (JSON text). */
static const char *flags_of(const struct user *u, long long id)
{
	struct resp *r = api_get(u, fmt("/messages/%lld", id));
	EXPECT_SUCCESS(r);
	return jtext(jget(jget(r->json, "message"), "flags"));
}

#define EXPECT_EDIT_ERROR(r, msg) EXPECT_ERROR((r), 400, "BAD_REQUEST", (msg))

/* ---- the checks, in the reference's order ------------------------------------------------------------------- */

static void test_nothing_to_change(void)
{
	struct org z = new_org();
	char *ch = uniq("nothing");
	make_channel(&z, ch, ids(z.a, NULL, NULL), NULL);
	long long id = send_to(z.a, ch, "same", "text");
	EXPECT_EDIT_ERROR(edit(z.a, id, ""), "Nothing to change");
	/* The current topic (after stripping) is no change. */
	EXPECT_EDIT_ERROR(edit(z.a, id, "topic=%20same%20"), "Nothing to change");
	/* Parameters are checked before the message. */
	EXPECT_EDIT_ERROR(edit(z.a, id, "propagate_mode=foo"), "Invalid propagate_mode");
	EXPECT_EDIT_ERROR(edit(z.a, id, "propagate_mode=change_later&content=x"),
	                  "Invalid propagate_mode without topic edit");
	EXPECT_EDIT_ERROR(edit(z.a, 999999999, "content=x"), "Invalid message(s)");
	struct resp *r = edit(z.a, id, "topic=x&subject=y");
	EXPECT_ERROR(r, 400, "REQUEST_CONFUSING_VAR", "Can't decide between 'topic' and 'subject' arguments");
	/* subject is the deprecated name of topic. */
	edit_ok(z.a, id, "subject=renamed");
	CHECK(strcmp(topic_of(id), "renamed") == 0, "topic %s", topic_of(id));
}

static void test_direct_message_rules(void)
{
	struct org z = new_org();
	long long id = send_dm(z.a, z.b, "psst");
	EXPECT_EDIT_ERROR(edit(z.a, id, "topic=x"), "Direct messages cannot have topics.");
	EXPECT_EDIT_ERROR(edit(z.a, id, "stream_id=1"), "Direct messages cannot be moved to channels.");
	/* Someone else's direct message is no message at all. */
	EXPECT_EDIT_ERROR(edit(z.c, id, "content=x"), "Invalid message(s)");
	EXPECT_EDIT_ERROR(edit(z.b, id, "content=x"), "You don't have permission to edit this message");
	edit_ok(z.a, id, "content=edited");
	CHECK(strcmp(raw_content(z.b, id), "edited") == 0, "content %s", raw_content(z.b, id));
}

static void test_content_and_channel(void)
{
	struct org z = new_org();
	char *one = uniq("one"), *two = uniq("two");
	make_channel(&z, one, ids(z.a, NULL, NULL), NULL);
	long long two_id = make_channel(&z, two, ids(z.a, NULL, NULL), NULL);
	long long id = send_to(z.a, one, "t", "text");
	EXPECT_EDIT_ERROR(edit(z.a, id, fmt("content=x&stream_id=%lld", two_id)),
	                  "Cannot change message content while changing channel");
}

static void test_editing_disabled(void)
{
	struct org z = new_org();
	char *ch = uniq("off");
	make_channel(&z, ch, ids(z.a, NULL, NULL), NULL);
	long long id = send_to(z.a, ch, "t", "text");
	set_realm(&z, "allow_message_editing = false");
	EXPECT_EDIT_ERROR(edit(z.a, id, "content=x"), "Your organization has turned off message editing");
	/* The setting is about content: topics still move. */
	edit_ok(z.a, id, "topic=moved");
}

/* Only the sender edits content, whatever their role. */
static void test_not_the_sender(void)
{
	struct org z = new_org();
	char *ch = uniq("sender");
	make_channel(&z, ch, ids(z.a, z.b, NULL), NULL);
	long long id = send_to(z.a, ch, "t", "text");
	EXPECT_EDIT_ERROR(edit(z.b, id, "content=x"), "You don't have permission to edit this message");
	EXPECT_EDIT_ERROR(edit(z.o, id, "content=x"), "You don't have permission to edit this message");
}

/* message_content_edit_limit_seconds plus 20 seconds of grace; topic edits are not bound by it. */
static void test_content_time_limit(void)
{
	struct org z = new_org();
	char *ch = uniq("limit");
	make_channel(&z, ch, ids(z.a, NULL, NULL), NULL);
	long long id = send_to(z.a, ch, "t", "text");
	age(id, 180);
	set_realm(&z, "message_content_edit_limit_seconds = 120");
	EXPECT_EDIT_ERROR(edit(z.a, id, "content=x"), "The time limit for editing this message has passed");
	edit_ok(z.a, id, "topic=later");
	set_realm(&z, "message_content_edit_limit_seconds = 165"); /* 180 < 165 + 20 */
	edit_ok(z.a, id, "content=within%20grace");
	set_realm(&z, "message_content_edit_limit_seconds = NULL");
	age(id, 1000000);
	edit_ok(z.a, id, "content=unlimited");
}

static void test_topic_characters(void)
{
	struct org z = new_org();
	char *ch = uniq("chars");
	make_channel(&z, ch, ids(z.a, NULL, NULL), NULL);
	long long id = send_to(z.a, ch, "t", "text");
	EXPECT_EDIT_ERROR(edit(z.a, id, "topic=general%07x"), "Invalid character in topic, at position 8!");
	/* "general chat" is the empty topic; "(no topic)" is taken as written. */
	edit_ok(z.a, id, "topic=general%20chat");
	CHECK(strcmp(topic_of(id), "") == 0, "topic '%s'", topic_of(id));
	edit_ok(z.a, id, "topic=(no%20topic)");
	CHECK(strcmp(topic_of(id), "(no topic)") == 0, "topic '%s'", topic_of(id));
	/* Topics are truncated to 60 characters, not refused. */
	edit_ok(z.a, id, fmt("topic=%s", repeat('x', 70)));
	CHECK(strcmp(topic_of(id), fmt("%s...", repeat('x', 57))) == 0, "topic '%s'", topic_of(id));
}

static void test_general_chat_cannot_be_resolved(void)
{
	struct org z = new_org();
	char *ch = uniq("gc");
	make_channel(&z, ch, ids(z.a, NULL, NULL), NULL);
	long long id = send_to(z.a, ch, "", "in general chat");
	EXPECT_EDIT_ERROR(edit(z.a, id, fmt("topic=%s", url_encode("\xe2\x9c\x94 "))),
	                  "General chat cannot be marked as resolved");
	EXPECT_EDIT_ERROR(edit(z.a, id, fmt("topic=%s", url_encode("\xe2\x9c\x94 general chat"))),
	                  "General chat cannot be marked as resolved");
}

/* Blank content is "(deleted)"; long content is truncated; null bytes are refused. */
static void test_content_normalized(void)
{
	struct org z = new_org();
	char *ch = uniq("norm");
	make_channel(&z, ch, ids(z.a, NULL, NULL), NULL);
	long long id = send_to(z.a, ch, "t", "text");
	edit_ok(z.a, id, "content=%20%20%0A");
	CHECK(strcmp(raw_content(z.a, id), "(deleted)") == 0, "content %s", raw_content(z.a, id));
	edit_ok(z.a, id, fmt("content=%s", repeat('y', 10010)));
	const char *raw = raw_content(z.a, id);
	CHECK(raw && strlen(raw) == 10000 && strcmp(raw + 10000 - 20, "\n[message truncated]") == 0,
	      "content of %zu characters", raw ? strlen(raw) : 0);
	EXPECT_EDIT_ERROR(edit(z.a, id, "content=a%00b"), "Message must not contain null bytes");
}

static void test_prev_content_sha256(void)
{
	struct org z = new_org();
	char *ch = uniq("sha");
	make_channel(&z, ch, ids(z.a, NULL, NULL), NULL);
	long long id = send_to(z.a, ch, "t", "First version");
	const char *sha = psql_ok("SELECT encode(sha256('First version'::bytea), 'hex')");
	edit_ok(z.a, id, fmt("content=Second&prev_content_sha256=%s", sha));
	EXPECT_EDIT_ERROR(edit(z.a, id, fmt("content=Third&prev_content_sha256=%s", sha)),
	                  "'prev_content_sha256' value does not match the expected value.");
	/* The check applies to moves too. */
	EXPECT_EDIT_ERROR(edit(z.a, id, fmt("topic=elsewhere&prev_content_sha256=%s", sha)),
	                  "'prev_content_sha256' value does not match the expected value.");
	CHECK(strcmp(raw_content(z.a, id), "Second") == 0, "content %s", raw_content(z.a, id));
}

/* ---- topic and channel permissions ---------------------------------------------------------------------------- */

static void test_topic_permission(void)
{
	struct org z = new_org();
	char *ch = uniq("topicperm");
	long long cid = make_channel(&z, ch, ids(z.a, z.b, NULL), NULL);
	long long id = send_to(z.a, ch, "t", "text");
	set_realm_group(&z, "can_move_messages_between_topics_group_id", "role:nobody");
	EXPECT_EDIT_ERROR(edit(z.b, id, "topic=u"), "You don't have permission to edit this message");
	EXPECT_EDIT_ERROR(edit(z.a, id, "topic=u"), "You don't have permission to edit this message");
	/* Organization administrators may move within any channel; so may the channel's own group. */
	edit_ok(z.o, id, "topic=by%20admin");
	set_channel_group(&z, cid, "can_move_messages_within_channel_group_id", "role:members");
	edit_ok(z.b, id, "topic=by%20member");
	CHECK(strcmp(topic_of(id), "by member") == 0, "topic %s", topic_of(id));
}

/* move_messages_within_stream_limit_seconds binds members, not moderators. */
static void test_topic_time_limit(void)
{
	struct org z = new_org();
	char *ch = uniq("topiclimit");
	make_channel(&z, ch, ids(z.a, NULL, NULL), NULL);
	long long id = send_to(z.a, ch, "t", "text");
	set_realm(&z, "move_messages_within_stream_limit_seconds = 100");
	age(id, 200);
	EXPECT_EDIT_ERROR(edit(z.a, id, "topic=u"), "The time limit for editing this message's topic has passed.");
	edit_ok(z.m, id, "topic=by%20moderator");
	/* Resolving has no time limit. */
	edit_ok(z.a, id, fmt("topic=%s", url_encode("\xe2\x9c\x94 by moderator")));
}

static void test_resolve_permission(void)
{
	struct org z = new_org();
	char *ch = uniq("resolveperm");
	long long cid = make_channel(&z, ch, ids(z.a, NULL, NULL), NULL);
	long long id = send_to(z.a, ch, "bug", "text");
	set_realm_group(&z, "can_resolve_topics_group_id", "role:nobody");
	const char *resolve = fmt("topic=%s&propagate_mode=change_all", url_encode("\xe2\x9c\x94 bug"));
	EXPECT_EDIT_ERROR(edit(z.a, id, resolve), "You don't have permission to resolve topics in this channel.");
	/* A rename that merely looks resolved is an ordinary topic edit. */
	edit_ok(z.a, id, fmt("topic=%s", url_encode("\xe2\x9c\x94 other")));
	edit_ok(z.a, id, "topic=bug");
	set_channel_group(&z, cid, "can_resolve_topics_group_id", "role:members");
	edit_ok(z.a, id, resolve);
	CHECK(strcmp(topic_of(id), "\xe2\x9c\x94 bug") == 0, "topic %s", topic_of(id));
}

static void test_channel_move_permission(void)
{
	struct org z = new_org();
	char *one = uniq("from"), *two = uniq("to");
	long long from = make_channel(&z, one, ids(z.a, z.m, NULL), NULL);
	long long to = make_channel(&z, two, ids(z.a, z.m, NULL), NULL);
	long long id = send_to(z.a, one, "t", "text");
	const char *move = fmt("stream_id=%lld", to);
	set_realm_group(&z, "can_move_messages_between_channels_group_id", "role:nobody");
	EXPECT_EDIT_ERROR(edit(z.a, id, move), "You don't have permission to move this message");
	set_channel_group(&z, from, "can_move_messages_out_of_channel_group_id", "role:members");
	set_channel_group(&z, to, "can_send_message_group_id", "role:nobody");
	EXPECT_EDIT_ERROR(edit(z.a, id, move), "You do not have permission to post in this channel.");
	set_channel_group(&z, to, "can_send_message_group_id", "role:everyone");
	set_realm(&z, "move_messages_between_streams_limit_seconds = 100");
	age(id, 200);
	EXPECT_EDIT_ERROR(edit(z.a, id, move), "The time limit for editing this message's channel has passed");
	edit_ok(z.m, id, move);
	CHECK(channel_of(id) == to, "channel %lld", channel_of(id));
}

/* The target must be a channel of the organization whose content the user may read, and not archived. */
static void test_invalid_channel(void)
{
	struct org z = new_org(), y = new_org();
	char *one = uniq("src"), *secret = uniq("secret"), *foreign = uniq("foreign"), *old = uniq("archived");
	make_channel(&z, one, ids(z.a, NULL, NULL), NULL);
	long long priv = make_channel(&z, secret, ids(z.b, NULL, NULL), "invite_only=true");
	long long other = make_channel(&y, foreign, ids(y.a, NULL, NULL), NULL);
	long long archived = make_channel(&z, old, ids(z.a, NULL, NULL), NULL);
	psql_ok("UPDATE channels SET is_archived = true WHERE id = %lld", archived);
	long long id = send_to(z.a, one, "t", "text");
	EXPECT_EDIT_ERROR(edit(z.a, id, fmt("stream_id=%lld", priv)), "Invalid channel ID");
	EXPECT_EDIT_ERROR(edit(z.a, id, fmt("stream_id=%lld", other)), "Invalid channel ID");
	EXPECT_EDIT_ERROR(edit(z.a, id, fmt("stream_id=%lld", archived)), "Invalid channel ID");
	EXPECT_EDIT_ERROR(edit(z.a, id, "stream_id=999999999"), "Invalid channel ID");
	EXPECT_EDIT_ERROR(edit(z.a, id, "stream_id=-1"), "stream_id is too small");
}

static void test_topics_policy(void)
{
	struct org z = new_org();
	char *ch = uniq("policy"), *only = uniq("emptyonly");
	long long cid = make_channel(&z, ch, ids(z.a, NULL, NULL), NULL);
	long long oid = make_channel(&z, only, ids(z.a, NULL, NULL), NULL);
	long long id = send_to(z.a, ch, "t", "text");
	psql_ok("UPDATE channels SET topics_policy = 'disable_empty_topic' WHERE id = %lld", cid);
	EXPECT_EDIT_ERROR(edit(z.a, id, "topic=general%20chat"),
	                  "Sending messages to the general chat is not allowed in this channel.");
	EXPECT_EDIT_ERROR(edit(z.a, id, "topic=(no%20topic)"),
	                  "Sending messages to the general chat is not allowed in this channel.");
	psql_ok("UPDATE channels SET topics_policy = 'empty_topic_only' WHERE id = %lld", oid);
	EXPECT_EDIT_ERROR(edit(z.a, id, fmt("stream_id=%lld", oid)),
	                  "Only the general chat topic is allowed in this channel.");
	edit_ok(z.a, id, fmt("stream_id=%lld&topic=general%%20chat", oid));
	/* The organization's policy applies to channels that inherit it. */
	long long id2 = send_to(z.a, ch, "t2", "text");
	psql_ok("UPDATE channels SET topics_policy = 'inherit' WHERE id = %lld", cid);
	set_realm(&z, "topics_policy = 'disable_empty_topic'");
	EXPECT_EDIT_ERROR(edit(z.a, id2, "topic=general%20chat"),
	                  "Sending messages to the general chat is not allowed in this channel.");
}

/* A move may only start a topic for can_create_topic_group; joining an existing topic is fine. */
static void test_create_topic_permission(void)
{
	struct org z = new_org();
	char *ch = uniq("newtopic");
	long long cid = make_channel(&z, ch, ids(z.a, NULL, NULL), NULL);
	long long id = send_to(z.a, ch, "t", "text");
	send_to(z.a, ch, "Existing", "there");
	set_channel_group(&z, cid, "can_create_topic_group_id", "role:nobody");
	EXPECT_EDIT_ERROR(edit(z.a, id, "topic=brand%20new"),
	                  "You do not have permission to create new topics in this channel.");
	edit_ok(z.a, id, "topic=existing");
	/* Resolving is no new topic. */
	edit_ok(z.a, id, fmt("topic=%s", url_encode("\xe2\x9c\x94 existing")));
}

/* ---- wildcard mentions ---------------------------------------------------------------------------------------- */

static void test_wildcard_mentions(void)
{
	struct org z = new_org();
	char *ch = uniq("crowd");
	make_channel(&z, ch, ids(z.a, z.b, z.c), NULL);
	long long id = send_to(z.a, ch, "t", "text");
	/* 15 subscribers or participants are few enough. */
	edit_ok(z.a, id, "content=%40**all**%20hi");
	edit_ok(z.a, id, "content=%40**topic**%20hi");
	long long cid = atoll(psql_ok("SELECT id FROM channels WHERE name = '%s'", ch));
	for (int i = 0; i < 13; i++) {
		struct user *u = new_user_in(z.o->realm, "member", NULL);
		psql_ok("INSERT INTO subscriptions (user_id, channel_id) VALUES (%lld, %lld)", (long long)u->id, cid);
		psql_ok("INSERT INTO messages (realm_id, sender_id, channel_id, topic, content, rendered_content)"
		        " VALUES (%lld, %lld, %lld, 't', 'x', '<p>x</p>')",
		        z.realm, (long long)u->id, cid);
	}
	/* 17 subscribers, 14 participants: channel wildcards need can_mention_many_users_group. */
	struct resp *r = edit(z.a, id, "content=%40**everyone**");
	EXPECT_ERROR(r, 400, "STREAM_WILDCARD_MENTION_NOT_ALLOWED",
	             "You do not have permission to use channel wildcard mentions in this channel.");
	edit_ok(z.a, id, "content=%40**topic**%20still%20fine");
	for (int i = 0; i < 2; i++) {
		struct user *u = new_user_in(z.o->realm, "member", NULL);
		psql_ok("INSERT INTO messages (realm_id, sender_id, channel_id, topic, content, rendered_content)"
		        " VALUES (%lld, %lld, %lld, 'T', 'x', '<p>x</p>')",
		        z.realm, (long long)u->id, cid);
	}
	r = edit(z.a, id, "content=%40**topic**");
	EXPECT_ERROR(r, 400, "TOPIC_WILDCARD_MENTION_NOT_ALLOWED",
	             "You do not have permission to use topic wildcard mentions in this topic.");
	set_realm_group(&z, "can_mention_many_users_group_id", "role:members");
	edit_ok(z.a, id, "content=%40**all**%20and%20%40**topic**");
}

/* ---- the whole-topic time limit ----------------------------------------------------------------------------- */

/* change_all with part of the topic past the limit: the reference's counts, the oldest message allowed. */
static void test_move_time_limit_exceeded(void)
{
	struct org z = new_org();
	char *ch = uniq("old");
	make_channel(&z, ch, ids(z.a, NULL, NULL), NULL);
	long long m[5];
	for (int i = 0; i < 5; i++)
		m[i] = send_to(z.a, ch, i % 2 ? "Topic" : "topic", fmt("message %d", i));
	set_realm(&z, "move_messages_within_stream_limit_seconds = 1000");
	age(m[0], 3000);
	age(m[1], 2000);
	struct resp *r = edit(z.a, m[4], "topic=new&propagate_mode=change_all");
	EXPECT_ERROR(r, 400, "MOVE_MESSAGES_TIME_LIMIT_EXCEEDED",
	             "You only have permission to move the 3/5 most recent messages in this topic.");
	EXPECT_INT(r->json, "first_message_id_allowed_to_move", m[2]);
	EXPECT_INT(r->json, "total_messages_in_topic", 5);
	EXPECT_INT(r->json, "total_messages_allowed_to_move", 3);
	EXPECT_KEYS(r->json, "result", "msg", "code", "first_message_id_allowed_to_move", "total_messages_in_topic",
	            "total_messages_allowed_to_move");
	/* change_later is not checked beyond the message itself; moderators are not bound. */
	edit_ok(z.a, m[3], "topic=later&propagate_mode=change_later");
	edit_ok(z.m, m[2], "topic=new&propagate_mode=change_all");
	CHECK(strcmp(psql_ok("SELECT string_agg(topic, ',' ORDER BY id) FROM messages WHERE id IN (%lld,%lld,%lld,"
	                     "%lld,%lld)",
	                     m[0], m[1], m[2], m[3], m[4]),
	             "new,new,new,later,later") == 0,
	      "topics");
}

/* In a protected history only the messages the user received count. */
static void test_move_time_limit_protected_history(void)
{
	struct org z = new_org();
	char *ch = uniq("protected");
	make_channel(&z, ch, ids(z.a, z.b, NULL), "invite_only=true&history_public_to_subscribers=false");
	long long m[5];
	for (int i = 0; i < 5; i++)
		m[i] = send_to(z.b, ch, "t", fmt("message %d", i));
	/* a joined late: no copy of the two oldest. */
	psql_ok("DELETE FROM user_messages WHERE user_id = %lld AND message_id IN (%lld, %lld)", (long long)z.a->id,
	        m[0], m[1]);
	set_realm(&z, "move_messages_within_stream_limit_seconds = 1000");
	age(m[0], 3000);
	age(m[1], 3000);
	age(m[2], 3000);
	struct resp *r = edit(z.a, m[4], "topic=new&propagate_mode=change_all");
	EXPECT_ERROR(r, 400, "MOVE_MESSAGES_TIME_LIMIT_EXCEEDED",
	             "You only have permission to move the 2/3 most recent messages in this topic.");
	EXPECT_INT(r->json, "first_message_id_allowed_to_move", m[3]);
	EXPECT_INT(r->json, "total_messages_in_topic", 3);
	EXPECT_INT(r->json, "total_messages_allowed_to_move", 2);
}

/* Moving to another topic of another channel: the stricter of the two limits applies. */
static void test_move_time_limit_both(void)
{
	struct org z = new_org();
	char *one = uniq("both1"), *two = uniq("both2");
	make_channel(&z, one, ids(z.a, NULL, NULL), NULL);
	long long to = make_channel(&z, two, ids(z.a, NULL, NULL), NULL);
	long long old = send_to(z.a, one, "t", "old"), id = send_to(z.a, one, "t", "new");
	set_realm(
	    &z, "move_messages_within_stream_limit_seconds = 1000, move_messages_between_streams_limit_seconds = 500");
	age(old, 700);
	struct resp *r = edit(z.a, id, fmt("topic=u&stream_id=%lld&propagate_mode=change_all", to));
	EXPECT_ERROR(r, 400, "MOVE_MESSAGES_TIME_LIMIT_EXCEEDED",
	             "You only have permission to move the 1/2 most recent messages in this topic.");
	EXPECT_INT(r->json, "first_message_id_allowed_to_move", id);
	edit_ok(z.a, id, "topic=u&propagate_mode=change_all");
	CHECK(strcmp(topic_of(old), "u") == 0, "topic %s", topic_of(old));
}

/* ---- which messages move ------------------------------------------------------------------------------------ */

/* Topics match ignoring case; change_one moves the message, change_later the later ones, change_all all. */
static void test_propagate_modes(void)
{
	struct org z = new_org();
	char *ch = uniq("modes");
	make_channel(&z, ch, ids(z.a, NULL, NULL), NULL);
	long long m1 = send_to(z.a, ch, "Lunch", "1"), m2 = send_to(z.a, ch, "lunch", "2");
	long long m3 = send_to(z.a, ch, "LUNCH", "3"), other = send_to(z.a, ch, "dinner", "4");
	const char *sql =
	    fmt("SELECT string_agg(topic, ',' ORDER BY id) FROM messages WHERE id IN (%lld,%lld,%lld,%lld)", m1, m2, m3,
	        other);
	edit_ok(z.a, m2, "topic=one&propagate_mode=change_one");
	CHECK(strcmp(psql_ok("%s", sql), "Lunch,one,LUNCH,dinner") == 0, "change_one: %s", psql_ok("%s", sql));
	edit_ok(z.a, m2, "topic=lunch");
	edit_ok(z.a, m2, "topic=later&propagate_mode=change_later");
	CHECK(strcmp(psql_ok("%s", sql), "Lunch,later,later,dinner") == 0, "change_later: %s", psql_ok("%s", sql));
	edit_ok(z.a, m2, "topic=LUNCH&propagate_mode=change_later");
	edit_ok(z.a, m3, "topic=All&propagate_mode=change_all");
	CHECK(strcmp(psql_ok("%s", sql), "All,All,All,dinner") == 0, "change_all: %s", psql_ok("%s", sql));
}

/* One message_edits row per changed message; last_edit_time for content, last_moved_time for moves (not for
 * resolving), as GET /messages shows them. */
static void test_edit_history(void)
{
	struct org z = new_org();
	char *ch = uniq("history"), *two = uniq("hist2");
	long long cid = make_channel(&z, ch, ids(z.a, NULL, NULL), NULL);
	long long cid2 = make_channel(&z, two, ids(z.a, NULL, NULL), NULL);
	long long id = send_to(z.a, ch, "t", "v1"), id2 = send_to(z.a, ch, "t", "other");
	edit_ok(z.a, id, "content=v2");
	CHECK(strcmp(psql_ok("SELECT concat_ws('|', user_id, prev_content, prev_rendered_content, prev_topic, topic,"
	                     " prev_channel_id, channel_id) FROM message_edits WHERE message_id = %lld",
	                     id),
	             fmt("%lld|v1|<p>v1</p>", (long long)z.a->id)) == 0,
	      "content history");
	struct resp *r = api_get(z.a, fmt("/messages/%lld", id));
	json_object *msg = jget(r->json, "message");
	CHECK(jint(msg, "last_edit_timestamp") > 0, "last_edit_timestamp: %s", r->body);
	EXPECT_ABSENT(msg, "last_moved_timestamp");
	edit_ok(z.a, id2, fmt("topic=%s", url_encode("\xe2\x9c\x94 t")));
	CHECK(strcmp(psql_ok("SELECT last_moved_time IS NULL FROM messages WHERE id = %lld", id2), "t") == 0,
	      "resolving is no move");
	edit_ok(z.a, id, fmt("topic=u&stream_id=%lld", cid2));
	CHECK(strcmp(psql_ok("SELECT concat_ws('|', prev_content, prev_topic, topic, prev_channel_id, channel_id)"
	                     " FROM message_edits WHERE message_id = %lld ORDER BY id DESC LIMIT 1",
	                     id),
	             fmt("t|u|%lld|%lld", cid, cid2)) == 0,
	      "move history");
	r = api_get(z.a, fmt("/messages/%lld", id));
	msg = jget(r->json, "message");
	CHECK(jint(msg, "last_moved_timestamp") > 0, "last_moved_timestamp: %s", r->body);
	json_object *h = jget(msg, "edit_history");
	REQUIRE(h != NULL && json_object_array_length(h) == 2, "edit_history: %s", r->body);
	json_object *newest = json_object_array_get_idx(h, 0);
	EXPECT_STR(newest, "prev_topic", "t");
	EXPECT_STR(newest, "topic", "u");
	EXPECT_INT(newest, "prev_stream", cid);
	EXPECT_INT(newest, "stream", cid2);
	EXPECT_STR(json_object_array_get_idx(h, 1), "prev_content", "v1");
}

/* ---- detached uploads --------------------------------------------------------------------------------------- */

#define BOUNDARY "----confabEditBoundary"

static const char *upload(const struct user *u, const char *name)
{
	char *body = fmt("--" BOUNDARY "\r\nContent-Disposition: form-data; name=\"file\"; filename=\"%s\"\r\n"
	                 "Content-Type: text/plain\r\n\r\nzulip!\r\n--" BOUNDARY "--\r\n",
	                 name);
	struct resp *r = http(&(struct request){.method = "POST",
	                                        .path = "/api/v1/user_uploads",
	                                        .user = u,
	                                        .body = body,
	                                        .body_len = strlen(body),
	                                        .content_type = "multipart/form-data; boundary=" BOUNDARY});
	EXPECT_SUCCESS(r);
	REQUIRE(jstr(r->json, "url") != NULL, "upload: %s", r->body);
	return fmt("%s", jstr(r->json, "url"));
}

static void test_detached_uploads(void)
{
	struct org z = new_org();
	char *ch = uniq("files");
	make_channel(&z, ch, ids(z.a, NULL, NULL), NULL);
	const char *url = upload(z.a, "notes.txt"), *kept = upload(z.a, "kept.txt");
	long long id = send_to(z.a, ch, "t", fmt("[notes](%s) [kept](%s)", url, kept));
	send_to(z.a, ch, "t", fmt("[kept again](%s)", kept));
	/* Content that keeps its links detaches nothing. */
	struct resp *r = edit(z.a, id, fmt("content=%s", url_encode(fmt("[notes](%s) [kept](%s) edited", url, kept))));
	EXPECT_SUCCESS(r);
	CHECK(strcmp(jtext(jget(r->json, "detached_uploads")), "[]") == 0, "detached %s", r->body);
	/* Dropping both links: only the upload no other message links is detached. */
	r = edit(z.a, id, "content=no%20files");
	EXPECT_SUCCESS(r);
	json_object *list = jget(r->json, "detached_uploads");
	REQUIRE(list && json_object_array_length(list) == 1, "detached %s", r->body);
	json_object *a = json_object_array_get_idx(list, 0);
	EXPECT_KEYS(a, "id", "name", "path_id", "size", "create_time", "message_ids");
	EXPECT_STR(a, "name", "notes.txt");
	EXPECT_STR(a, "path_id", url + strlen("/user_uploads/"));
	EXPECT_INT(a, "size", 6);
	CHECK(strcmp(jtext(jget(a, "message_ids")), "[]") == 0, "message_ids %s", jtext(a));
	CHECK(jint(a, "create_time") > 1600000000 && jint(a, "create_time") < 4000000000LL, "create_time in seconds");
	edit_ok(z.a, id, "topic=moved");
}

/* ---- events ------------------------------------------------------------------------------------------------- */

static struct queue *reg(const struct user *u, const char *types, const char *extra)
{
	return queue_register(u, fmt("event_types=%s&apply_markdown=true&client_gravatar=false%s%s", url_encode(types),
	                             extra ? "&" : "", extra ? extra : ""));
}

/* The queue holds exactly the events of want (JSON text); edit_timestamp must be recent and is left out. */
static void expect_edit_events_at(struct queue *q, const char *want, const char *file, int line)
{
	json_object *got = queue_drain(q);
	for (size_t i = 0; i < json_object_array_length(got); i++) {
		json_object *e = json_object_array_get_idx(got, i);
		if (jhas(e, "edit_timestamp")) {
			long long t = jint(e, "edit_timestamp");
			itest_check(llabs(t - (long long)time(NULL)) < 30, false, file, line, "edit_timestamp %lld", t);
			json_object_object_del(e, "edit_timestamp");
		}
	}
	expect_events_json_at(got, want, q->u, file, line);
}
#define EXPECT_EDIT_EVENTS(q, want) expect_edit_events_at((q), (want), __FILE__, __LINE__)

/* A content edit: to who received the message, with their flags (a new mention shows). */
static void test_event_content_edit(void)
{
	struct org z = new_org();
	char *ch = uniq("evcontent");
	long long cid = make_channel(&z, ch, ids(z.a, z.b, NULL), NULL);
	long long id = send_to(z.a, ch, "t", "hello");
	struct queue *qa = reg(z.a, "[\"update_message\"]", NULL), *qb = reg(z.b, "[\"update_message\"]", NULL);
	struct queue *qc = reg(z.c, "[\"update_message\"]", NULL);
	edit_ok(z.a, id, fmt("content=%s", url_encode(fmt("bye @**|%lld**", (long long)z.b->id))));
	const char *name = full_name(z.b);
	const char *common =
	    fmt("\"type\":\"update_message\",\"user_id\":%lld,\"message_id\":%lld,\"message_ids\":[%lld],"
	        "\"rendering_only\":false,\"orig_content\":\"hello\",\"orig_rendered_content\":\"<p>hello</p>\","
	        "\"content\":\"bye @**|%lld**\",\"rendered_content\":\"<p>bye <span class=\\\"user-mention\\\" "
	        "data-user-id=\\\"%lld\\\">@%s</span></p>\",\"is_me_message\":false,\"stream_name\":\"%s\","
	        "\"stream_id\":%lld",
	        (long long)z.a->id, id, id, (long long)z.b->id, (long long)z.b->id, name, ch, cid);
	EXPECT_EDIT_EVENTS(qa, fmt("[{%s,\"flags\":%s}]", common, flags_of(z.a, id)));
	EXPECT_EDIT_EVENTS(qb, fmt("[{%s,\"flags\":[\"mentioned\"]}]", common));
	EXPECT_NO_EVENTS(qc);
	CHECK(strcmp(psql_ok("SELECT flags FROM user_messages WHERE message_id = %lld AND user_id = %lld", id,
	                     (long long)z.b->id),
	             "8") == 0,
	      "b's copy is mentioned");
}

static void test_event_direct_message_edit(void)
{
	struct org z = new_org();
	long long id = send_dm(z.a, z.b, "psst");
	struct queue *qa = reg(z.a, "[\"update_message\"]", NULL), *qb = reg(z.b, "[\"update_message\"]", NULL);
	struct queue *qc = reg(z.c, "[\"update_message\"]", NULL);
	edit_ok(z.a, id, "content=%2Fme%20waves");
	const char *common =
	    fmt("\"type\":\"update_message\",\"user_id\":%lld,\"message_id\":%lld,\"message_ids\":[%lld],"
	        "\"rendering_only\":false,\"orig_content\":\"psst\",\"orig_rendered_content\":"
	        "\"<p>psst</p>\",\"content\":\"/me waves\",\"is_me_message\":true",
	        (long long)z.a->id, id, id);
	json_object *ea = json_object_array_get_idx(queue_drain(qa), 0), *eb = json_object_array_get_idx(queue_drain(qb), 0);
	REQUIRE(ea && eb, "both participants hear of it");
	json_object_object_del(ea, "edit_timestamp");
	json_object_object_del(eb, "edit_timestamp");
	json_object_object_del(ea, "rendered_content");
	json_object_object_del(eb, "rendered_content");
	json_object *wa = json_tokener_parse(fmt("{%s,\"flags\":%s}", common, flags_of(z.a, id)));
	json_object *wb = json_tokener_parse(fmt("{%s,\"flags\":%s}", common, flags_of(z.b, id)));
	CHECK(json_object_equal(ea, wa), "a got %s", jtext(ea));
	CHECK(json_object_equal(eb, wb), "b got %s", jtext(eb));
	json_object_put(wa);
	json_object_put(wb);
	EXPECT_NO_EVENTS(qc);
}

/* A topic move: the legacy field names, every moved id, and subscribers of a public history hear of it. A client
 * narrowed to the topic gets it too, and learns where the topic went. */
static void test_event_topic_move(void)
{
	struct org z = new_org();
	char *ch = uniq("evtopic");
	long long cid = make_channel(&z, ch, ids(z.a, NULL, NULL), NULL);
	long long m1 = send_to(z.a, ch, "t", "one"), m2 = send_to(z.a, ch, "T", "two");
	/* b subscribes after the messages were sent: no copy, but a public history. */
	psql_ok("INSERT INTO subscriptions (user_id, channel_id) VALUES (%lld, %lld)", (long long)z.b->id, cid);
	struct queue *qa = reg(z.a, "[\"update_message\"]", NULL), *qb = reg(z.b, "[\"update_message\"]", NULL);
	struct queue *qn = reg(z.a, "[\"update_message\"]",
	                       fmt("narrow=%s", url_encode(fmt("[[\"channel\",\"%s\"],[\"topic\",\"t\"]]", ch))));
	struct queue *qc = reg(z.c, "[\"update_message\"]", NULL);
	edit_ok(z.a, m2, "topic=u&propagate_mode=change_all");
	const char *common = fmt("\"type\":\"update_message\",\"user_id\":%lld,\"message_id\":%lld,"
	                         "\"message_ids\":[%lld,%lld],\"rendering_only\":false,\"stream_name\":\"%s\","
	                         "\"stream_id\":%lld,\"propagate_mode\":\"change_all\",\"orig_subject\":\"T\","
	                         "\"subject\":\"u\",\"topic_links\":[]",
	                         (long long)z.a->id, m2, m1, m2, ch, cid);
	EXPECT_EDIT_EVENTS(qa, fmt("[{%s,\"flags\":%s}]", common, flags_of(z.a, m2)));
	EXPECT_EDIT_EVENTS(qn, fmt("[{%s,\"flags\":%s}]", common, flags_of(z.a, m2)));
	EXPECT_EDIT_EVENTS(qb, fmt("[{%s,\"flags\":[\"read\"]}]", common));
	EXPECT_NO_EVENTS(qc);
}

/* A move to a private channel: users who lose the messages get delete_message; the target's subscribers gain
 * them; the others get update_message with new_stream_id. */
static void test_event_channel_move(void)
{
	struct org z = new_org();
	char *pub = uniq("evpub"), *priv = uniq("evpriv");
	long long from = make_channel(&z, pub, ids(z.a, z.b, NULL), NULL);
	long long to =
	    make_channel(&z, priv, ids(z.a, z.c, NULL), "invite_only=true&history_public_to_subscribers=false");
	long long m1 = send_to(z.a, pub, "t", "one"), m2 = send_to(z.a, pub, "t", "two");
	const char *bulk = "client_capabilities={\"bulk_message_deletion\":true}";
	struct queue *qa = reg(z.a, "[\"update_message\",\"delete_message\"]", bulk);
	struct queue *qb = reg(z.b, "[\"update_message\",\"delete_message\"]", bulk);
	struct queue *qc = reg(z.c, "[\"update_message\",\"delete_message\"]", bulk);
	struct queue *qo = reg(z.o, "[\"update_message\",\"delete_message\"]", bulk);
	edit_ok(z.a, m1, fmt("stream_id=%lld&propagate_mode=change_all&send_notification_to_new_thread=false", to));
	EXPECT_EDIT_EVENTS(qb, fmt("[{\"type\":\"delete_message\",\"message_ids\":[%lld,%lld],\"message_type\":\"stream\","
	                      "\"stream_id\":%lld,\"topic\":\"t\"}]",
	                      m1, m2, from));
	const char *common = fmt("\"type\":\"update_message\",\"user_id\":%lld,\"message_id\":%lld,"
	                         "\"message_ids\":[%lld,%lld],\"rendering_only\":false,\"stream_name\":\"%s\","
	                         "\"stream_id\":%lld,\"propagate_mode\":\"change_all\",\"new_stream_id\":%lld,"
	                         "\"orig_subject\":\"t\"",
	                         (long long)z.a->id, m1, m1, m2, pub, from, to);
	EXPECT_EDIT_EVENTS(qa, fmt("[{%s,\"flags\":%s}]", common, flags_of(z.a, m1)));
	/* c now holds read copies of the moved messages (a protected history). */
	EXPECT_EDIT_EVENTS(qc, fmt("[{%s,\"flags\":[\"read\"]}]", common));
	EXPECT_NO_EVENTS(qo);
	CHECK(strcmp(psql_ok("SELECT count(*) FROM user_messages WHERE user_id = %lld AND message_id IN (%lld, %lld)",
	                     (long long)z.c->id, m1, m2),
	             "2") == 0,
	      "c gained copies");
	CHECK(strcmp(psql_ok("SELECT count(*) FROM user_messages WHERE user_id = %lld AND message_id IN (%lld, %lld)",
	                     (long long)z.b->id, m1, m2),
	             "0") == 0,
	      "b lost its copies");
	EXPECT_EDIT_ERROR(edit(z.b, m1, "content=x"), "Invalid message(s)");
}

/* Into a public channel only guests lose access (delete_message); members not subscribed to it lose their copies
 * but still hear of the move as the old channel's subscribers. */
static void test_event_move_to_public_channel(void)
{
	struct org z = new_org();
	char *one = uniq("pub1"), *two = uniq("pub2");
	long long from = make_channel(&z, one, ids(z.a, z.b, z.g), NULL);
	long long to = make_channel(&z, two, ids(z.a, NULL, NULL), NULL);
	long long id = send_to(z.a, one, "t", "hi");
	const char *bulk = "client_capabilities={\"bulk_message_deletion\":true}";
	struct queue *qb = reg(z.b, "[\"update_message\",\"delete_message\"]", bulk);
	struct queue *qg = reg(z.g, "[\"update_message\",\"delete_message\"]", bulk);
	edit_ok(z.a, id, fmt("stream_id=%lld&send_notification_to_new_thread=false", to));
	EXPECT_EDIT_EVENTS(qg, fmt("[{\"type\":\"delete_message\",\"message_ids\":[%lld],\"message_type\":\"stream\","
	                      "\"stream_id\":%lld,\"topic\":\"t\"}]",
	                      id, from));
	EXPECT_EDIT_EVENTS(qb,
	              fmt("[{\"type\":\"update_message\",\"user_id\":%lld,\"message_id\":%lld,\"message_ids\":[%lld],"
	                  "\"rendering_only\":false,\"stream_name\":\"%s\",\"stream_id\":%lld,"
	                  "\"propagate_mode\":\"change_one\",\"new_stream_id\":%lld,\"orig_subject\":\"t\","
	                  "\"flags\":[\"read\"]}]",
	                  (long long)z.a->id, id, id, one, from, to));
	CHECK(strcmp(psql_ok("SELECT count(*) FROM user_messages WHERE message_id = %lld", id), "1") == 0,
	      "only the sender keeps a copy");
	/* b still reads it: the channel is public. */
	EXPECT_SUCCESS(api_get(z.b, fmt("/messages/%lld", id)));
}

/* ---- Notification Bot messages ------------------------------------------------------------------------------ */

/* A whole topic moved to another channel: the breadcrumbs on both sides, and their message events. */
static void test_topic_move_notifications(void)
{
	struct org z = new_org();
	char *one = uniq("bc1"), *two = uniq("bc2");
	long long from = make_channel(&z, one, ids(z.a, z.b, NULL), NULL);
	long long to = make_channel(&z, two, ids(z.a, z.b, NULL), NULL);
	long long m1 = send_to(z.a, one, "plans", "one");
	send_to(z.b, one, "plans", "two");
	struct queue *qb = reg(z.b, "[\"message\"]", NULL), *qa = reg(z.a, "[\"message\"]", NULL);
	edit_ok(z.a, m1,
	        fmt("stream_id=%lld&topic=done&propagate_mode=change_all&send_notification_to_old_thread=true", to));
	const char *who = mention(z.a);
	CHECK(strcmp(bot_messages(&z), fmt("%lld|done|This topic was moved here from #**%s>plans** by %s.\n"
	                                   "%lld|plans|This topic was moved to #**%s>done** by %s.",
	                                   to, one, who, from, two, who)) == 0,
	      "breadcrumbs:\n%s", bot_messages(&z));
	json_object *got = queue_drain(qb);
	REQUIRE(json_object_array_length(got) == 2, "b: %s", jtext(got));
	json_object *e1 = json_object_array_get_idx(got, 0), *e2 = json_object_array_get_idx(got, 1);
	EXPECT_STR(jget(e1, "message"), "sender_full_name", "Notification Bot");
	EXPECT_STR(jget(e1, "message"), "subject", "done");
	EXPECT_INT(jget(e1, "message"), "stream_id", to);
	EXPECT_STR_LIST(e1, "flags", NULL);
	EXPECT_STR(jget(e2, "message"), "subject", "plans");
	EXPECT_INT(jget(e2, "message"), "stream_id", from);
	/* The mover's own copies are read. */
	got = queue_drain(qa);
	REQUIRE(json_object_array_length(got) == 2, "a: %s", jtext(got));
	EXPECT_STR_LIST(json_object_array_get_idx(got, 0), "flags", "read");
	EXPECT_STR_LIST(json_object_array_get_idx(got, 1), "flags", "read");
}

/* Part of a topic: the counts, and the link to the one message moved. */
static void test_partial_move_notifications(void)
{
	struct org z = new_org();
	char *ch = uniq("partial");
	long long cid = make_channel(&z, ch, ids(z.a, NULL, NULL), NULL);
	send_to(z.a, ch, "a b", "1");
	long long m2 = send_to(z.a, ch, "a b", "2");
	send_to(z.a, ch, "a b", "3");
	long long m4 = send_to(z.a, ch, "a b", "4");
	const char *who = mention(z.a);
	edit_ok(z.a, m4, "topic=c.d&send_notification_to_old_thread=true");
	const char *bots = bot_messages(&z);
	CHECK(strstr(bots, fmt("|c.d|[A message](http://%s.%s/#narrow/channel/%lld-%s/topic/c.2Ed/near/%lld) was moved "
	                       "here from #**%s>a b** by %s.",
	                       z.o->realm, itest_hostport, cid, ch, m4, ch, who)) != NULL &&
	          strstr(bots, fmt("|a b|A message was moved from this topic to #**%s>c.d** by %s.", ch, who)) != NULL,
	      "one message:\n%s", bots);
	psql_ok("DELETE FROM messages WHERE sender_id = confab_notification_bot(%lld)", z.realm);
	edit_ok(z.a, m2, "topic=e&propagate_mode=change_later&send_notification_to_old_thread=true");
	bots = bot_messages(&z);
	CHECK(strstr(bots, fmt("|e|2 messages were moved here from #**%s>a b** by %s.", ch, who)) != NULL &&
	          strstr(bots, fmt("|a b|2 messages were moved from this topic to #**%s>e** by %s.", ch, who)) != NULL,
	      "two messages:\n%s", bots);
	/* No notifications when asked for none; none for a change of case. */
	psql_ok("DELETE FROM messages WHERE sender_id = confab_notification_bot(%lld)", z.realm);
	edit_ok(z.a, m2, "topic=E&propagate_mode=change_all&send_notification_to_old_thread=true");
	edit_ok(z.a, m2, "topic=f&send_notification_to_new_thread=false");
	CHECK(strcmp(bot_messages(&z), "") == 0, "no breadcrumbs:\n%s", bot_messages(&z));
}

/* Resolving posts a notice (read for everyone); unresolving within 60 seconds deletes it instead; later it posts
 * the unresolve notice. Resolving sends no breadcrumb. */
static void test_resolve_and_undo(void)
{
	struct org z = new_org();
	char *ch = uniq("resolve");
	make_channel(&z, ch, ids(z.a, z.b, NULL), NULL);
	long long id = send_to(z.a, ch, "bug", "it broke");
	send_to(z.b, ch, "bug", "indeed");
	const char *resolve = fmt("topic=%s&propagate_mode=change_all", url_encode("\xe2\x9c\x94 bug"));
	struct queue *qb =
	    reg(z.b, "[\"message\",\"delete_message\"]", "client_capabilities={\"bulk_message_deletion\":true}");
	edit_ok(z.a, id, resolve);
	const char *bots = bot_messages(&z);
	long long notice = last_bot_message(&z);
	CHECK(strcmp(bots, fmt("%lld|\xe2\x9c\x94 bug|%s has marked this topic as resolved.", channel_of(id),
	                       mention(z.a))) == 0,
	      "resolve notice:\n%s", bots);
	json_object *got = queue_drain(qb);
	REQUIRE(json_object_array_length(got) == 1, "b: %s", jtext(got));
	EXPECT_STR_LIST(json_object_array_get_idx(got, 0), "flags", "read");
	/* The quick undo deletes the notice (moved back along with the topic) and posts nothing. */
	edit_ok(z.a, id, "topic=bug&propagate_mode=change_all");
	CHECK(strcmp(bot_messages(&z), "") == 0, "after undo:\n%s", bot_messages(&z));
	EXPECT_EDIT_EVENTS(qb, fmt("[{\"type\":\"delete_message\",\"message_ids\":[%lld],\"message_type\":\"stream\","
	                      "\"stream_id\":%lld,\"topic\":\"bug\"}]",
	                      notice, channel_of(id)));
	/* Past 60 seconds the notice stays and the unresolve notice follows. */
	edit_ok(z.a, id, resolve);
	age(last_bot_message(&z), 61);
	edit_ok(z.a, id, "topic=bug&propagate_mode=change_all");
	bots = bot_messages(&z);
	CHECK(strstr(bots, fmt("%lld|bug|%s has marked this topic as resolved.", channel_of(id), mention(z.a))) !=
	              NULL &&
	          strstr(bots, fmt("|bug|%s has marked this topic as unresolved.", mention(z.a))) != NULL,
	      "unresolve notice:\n%s", bots);
}

static const struct itest_case cases[] = {
    {"nothing_to_change", test_nothing_to_change},
    {"direct_message_rules", test_direct_message_rules},
    {"content_and_channel", test_content_and_channel},
    {"editing_disabled", test_editing_disabled},
    {"not_the_sender", test_not_the_sender},
    {"content_time_limit", test_content_time_limit},
    {"topic_characters", test_topic_characters},
    {"general_chat_cannot_be_resolved", test_general_chat_cannot_be_resolved},
    {"content_normalized", test_content_normalized},
    {"prev_content_sha256", test_prev_content_sha256},
    {"topic_permission", test_topic_permission},
    {"topic_time_limit", test_topic_time_limit},
    {"resolve_permission", test_resolve_permission},
    {"channel_move_permission", test_channel_move_permission},
    {"invalid_channel", test_invalid_channel},
    {"topics_policy", test_topics_policy},
    {"create_topic_permission", test_create_topic_permission},
    {"wildcard_mentions", test_wildcard_mentions},
    {"move_time_limit_exceeded", test_move_time_limit_exceeded},
    {"move_time_limit_protected_history", test_move_time_limit_protected_history},
    {"move_time_limit_both", test_move_time_limit_both},
    {"propagate_modes", test_propagate_modes},
    {"edit_history", test_edit_history},
    {"detached_uploads", test_detached_uploads},
    {"event_content_edit", test_event_content_edit},
    {"event_direct_message_edit", test_event_direct_message_edit},
    {"event_topic_move", test_event_topic_move},
    {"event_channel_move", test_event_channel_move},
    {"event_move_to_public_channel", test_event_move_to_public_channel},
    {"topic_move_notifications", test_topic_move_notifications},
    {"partial_move_notifications", test_partial_move_notifications},
    {"resolve_and_undo", test_resolve_and_undo},
    {NULL, NULL},
};

void register_message_edit_tests(void)
{
	itest_add_suite("message_edit", cases);
}
