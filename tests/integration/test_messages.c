/*
 * Messages: POST /messages (channel and direct messages, mentions, permissions), GET /messages (narrows, anchors,
 * history), GET and DELETE /messages/{id}, POST /messages/flags, and max_message_id of GET /users/me.
 * Reference: Zulip zerver/actions/message_send.py, zerver/lib/message.py, zerver/lib/narrow.py,
 * zerver/views/message_fetch.py, zerver/views/message_edit.py, zerver/actions/message_flags.py and their tests
 * (test_message_send.py, test_message_fetch.py, test_message_flags.py); messages are the reference's 12.x wording.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "itest.h"

static unsigned counter;

static char *name_of(const char *tag)
{
	return fmt("msg-%s-%u-%ld", tag, ++counter, (long)getpid());
}

static const char *id_text(int64_t id)
{
	return fmt("%lld", (long long)id);
}

/* Creates a channel with u and the users of others (a comma-separated id list or NULL) subscribed, and extra form
 * fields; returns its id. */
static int64_t make_channel(const struct user *u, const char *name, const char *others, const char *extra)
{
	char *form = fmt("subscriptions=%s&principals=%s", url_encode(fmt("[{\"name\":\"%s\"}]", name)),
	                 url_encode(fmt("[%lld%s%s]", (long long)u->id, others ? "," : "", others ? others : "")));
	if (extra)
		form = fmt("%s&%s", form, extra);
	struct resp *r = api_post(u, "/users/me/subscriptions", form);
	REQUIRE(r->status == 200, "creating channel %s: %s", name, r->body);
	return strtoll(psql_ok("SELECT id FROM channels WHERE name = '%s'", name), NULL, 10);
}

static void subscribe(const struct user *u, int64_t channel)
{
	psql_ok("INSERT INTO subscriptions (user_id, channel_id) VALUES (%lld, %lld)"
	        " ON CONFLICT (user_id, channel_id) DO UPDATE SET active = true",
	        (long long)u->id, (long long)channel);
}

static struct resp *send_form(const struct user *u, const char *form)
{
	return api_post(u, "/messages", form);
}

static json_object *get_message(const struct user *u, int64_t id, const char *query)
{
	struct resp *r = api_get(u, fmt("/messages/%lld%s%s", (long long)id, query ? "?" : "", query ? query : ""));
	EXPECT_SUCCESS(r);
	return jget(r->json, "message");
}

/* GET /messages with a narrow (JSON, may be NULL) and other query parameters. */
static struct resp *fetch(const struct user *u, const char *narrow, const char *query)
{
	return api_get(u, fmt("/messages?%s%s%s", query, narrow ? "&narrow=" : "", narrow ? url_encode(narrow) : ""));
}

/* The ids of a GET /messages response, "1,2,3". */
static const char *ids_of(const struct resp *r)
{
	json_object *list = jget(r->json, "messages");
	char *s = fmt("%s", "");
	for (size_t i = 0; list && i < json_object_array_length(list); i++)
		s = fmt("%s%s%lld", s, i ? "," : "", (long long)jint(json_object_array_get_idx(list, i), "id"));
	return s;
}

static const char *flags_of(json_object *msg)
{
	return jtext(jget(msg, "flags"));
}

static bool contains(const char *hay, const char *needle)
{
	return hay != NULL && strstr(hay, needle) != NULL;
}

/* ---- POST /messages ------------------------------------------------------------------------------------------ */

static void test_send_channel_message(void)
{
	struct user *u = new_user("member");
	char *ch = name_of("send");
	int64_t cid = make_channel(u, ch, NULL, NULL);
	struct resp *r = send_form(
	    u, fmt("type=channel&to=%s&topic=greetings&content=%s", url_encode(ch), url_encode("hello **world**")));
	EXPECT_SUCCESS(r);
	EXPECT_KEYS(r->json, "result", "msg", "id");
	int64_t id = jint(r->json, "id");
	r = api_get(u, fmt("/messages/%lld", (long long)id));
	EXPECT_SUCCESS(r);
	EXPECT_KEYS(r->json, "result", "msg", "message", "raw_content");
	EXPECT_STR(r->json, "raw_content", "hello **world**");
	json_object *m = jget(r->json, "message");
	EXPECT_KEYS(m, "id", "sender_id", "sender_full_name", "sender_email", "sender_realm_str", "avatar_url",
	            "client", "content", "content_type", "display_recipient", "recipient_id", "is_me_message",
	            "reactions", "submessages", "subject", "topic_links", "timestamp", "type", "stream_id", "flags");
	EXPECT_INT(m, "id", id);
	EXPECT_INT(m, "sender_id", u->id);
	EXPECT_STR(m, "sender_email", u->email);
	EXPECT_STR(m, "sender_realm_str", "");
	EXPECT_STR(m, "content", "<p>hello <strong>world</strong></p>");
	EXPECT_STR(m, "content_type", "text/html");
	EXPECT_STR(m, "display_recipient", ch);
	EXPECT_STR(m, "subject", "greetings");
	EXPECT_STR(m, "type", "stream");
	EXPECT_INT(m, "stream_id", cid);
	EXPECT_BOOL(m, "is_me_message", false);
	/* The sender's address is visible to them and client_gravatar is on: the client computes the avatar. */
	EXPECT_NULL(m, "avatar_url");
	CHECK(llabs(jint(m, "timestamp") - (int64_t)time(NULL)) < 600, "timestamp: %s", jtext(m));
	/* Sent through the API: not marked read for the sender. */
	CHECK(strcmp(flags_of(m), "[]") == 0, "flags: %s", jtext(m));
	m = get_message(u, id, "apply_markdown=false");
	EXPECT_STR(m, "content", "hello **world**");
	EXPECT_STR(m, "content_type", "text/x-markdown");
	/* By channel id, JSON-encoded name, a list of one; subject as an alias; read_by_sender. */
	r = send_form(u, fmt("type=stream&to=%lld&subject=x&content=a&read_by_sender=true", (long long)cid));
	EXPECT_SUCCESS(r);
	CHECK(strcmp(flags_of(get_message(u, jint(r->json, "id"), NULL)), "[\"read\"]") == 0, "read_by_sender");
	EXPECT_SUCCESS(send_form(u, fmt("type=stream&to=%s&topic=x&content=a", url_encode(fmt("\"%s\"", ch)))));
	EXPECT_SUCCESS(
	    send_form(u, fmt("type=stream&to=%s&topic=x&content=a", url_encode(fmt("[%lld]", (long long)cid)))));
	EXPECT_STR(get_message(u, id, NULL), "sender_full_name",
	           psql_ok("SELECT full_name FROM users WHERE id = %lld", (long long)u->id));
}

static void test_send_errors(void)
{
	struct user *u = new_user("member");
	char *ch = name_of("errors");
	int64_t cid = make_channel(u, ch, NULL, NULL);
	const char *to = url_encode(ch);
	struct resp *r = send_form(u, fmt("type=stream&to=%s&topic=t", to));
	EXPECT_ERROR(r, 400, "REQUEST_VARIABLE_MISSING", "Missing 'content' argument");
	EXPECT_STR(r->json, "var_name", "content");
	EXPECT_ERROR(send_form(u, fmt("type=stream&to=%s&topic=t&content=%%20%%0A", to)), 400, "BAD_REQUEST",
	             "Message must not be empty");
	EXPECT_ERROR(send_form(u, fmt("type=stream&to=%s&topic=t&content=a%%00b", to)), 400, "BAD_REQUEST",
	             "Message must not contain null bytes");
	EXPECT_ERROR(send_form(u, fmt("type=invalid&to=%s&topic=t&content=a", to)), 400, "BAD_REQUEST", "Invalid type");
	EXPECT_ERROR(send_form(u, fmt("type=stream&to=%s&content=a", to)), 400, "BAD_REQUEST", "Missing topic");
	EXPECT_ERROR(send_form(u, "type=stream&topic=t&content=a"), 400, "BAD_REQUEST", "Missing channel");
	EXPECT_ERROR(send_form(u, fmt("type=stream&to=%s&topic=Test%%0A%%0DTopic&content=a", to)), 400, "BAD_REQUEST",
	             "Invalid character in topic, at position 5!");
	EXPECT_ERROR(send_form(u, fmt("type=stream&to=%s&topic=t&content=a", url_encode("[1,2]"))), 400, "BAD_REQUEST",
	             "Expected exactly one channel");
	EXPECT_ERROR(send_form(u, fmt("type=stream&to=%s&topic=t&content=a", url_encode("{}"))), 400, "BAD_REQUEST",
	             "Invalid data type for channel");
	r = send_form(u, "type=stream&to=no-such-channel%3Cb%3E&topic=t&content=a");
	EXPECT_ERROR(r, 400, "STREAM_DOES_NOT_EXIST", "Channel 'no-such-channel&lt;b&gt;' does not exist");
	EXPECT_STR(r->json, "stream", "no-such-channel&lt;b&gt;");
	r = send_form(u, "type=stream&to=999999999&topic=t&content=a");
	EXPECT_ERROR(r, 400, "STREAM_DOES_NOT_EXIST", "Channel with ID '999999999' does not exist");
	EXPECT_INT(r->json, "stream_id", 999999999);
	EXPECT_ERROR(
	    send_form(u, fmt("type=stream&to=%s&topic=t&content=a", url_encode(fmt("[\"%s\"]", repeat('x', 61))))), 400,
	    "BAD_REQUEST", "Channel name too long (limit: 60 characters).");
	/* Nothing was stored. */
	CHECK(strcmp(psql_ok("SELECT count(*) FROM messages WHERE channel_id = %lld", (long long)cid), "0") == 0,
	      "messages stored despite errors");
}

static void test_truncation_and_empty_topic(void)
{
	struct user *u = new_user("member");
	char *ch = name_of("trunc");
	make_channel(u, ch, NULL, NULL);
	char *long_content = fmt("%s  \n\n", repeat('a', 10001));
	int64_t id = send_channel_message(u, ch, repeat('t', 61), long_content);
	json_object *m = get_message(u, id, "apply_markdown=false");
	const char *content = jstr(m, "content");
	CHECK(content && strlen(content) == 10000 && strcmp(content + 9980, "\n[message truncated]") == 0 &&
	          content[9979] == 'a',
	      "content should be cut to 10000 characters ending in \\n[message truncated]");
	EXPECT_STR(m, "subject", fmt("%s...", repeat('t', 57)));
	/* "(no topic)" and "general chat" are the empty topic, shown as "general chat" without the capability. */
	int64_t e1 = send_channel_message(u, ch, "(no topic)", "a");
	int64_t e2 = send_channel_message(u, ch, "  general chat ", "b");
	EXPECT_STR(get_message(u, e1, NULL), "subject", "general chat");
	EXPECT_STR(get_message(u, e2, "allow_empty_topic_name=true"), "subject", "");
	CHECK(strcmp(psql_ok("SELECT '[' || topic || ']' FROM messages WHERE id = %lld", (long long)e2), "[]") == 0,
	      "the empty topic is stored as \"\"");
}

static void test_topics_policy(void)
{
	struct user *u = new_user("member");
	char *ch = name_of("policy");
	int64_t cid = make_channel(u, ch, NULL, NULL);
	const char *to = url_encode(ch);
	psql_ok("UPDATE channels SET topics_policy = 'disable_empty_topic' WHERE id = %lld", (long long)cid);
	EXPECT_ERROR(send_form(u, fmt("type=stream&to=%s&topic=&content=a", to)), 400, "BAD_REQUEST",
	             "Sending messages to the general chat is not allowed in this channel.");
	EXPECT_ERROR(send_form(u, fmt("type=stream&to=%s&topic=%%28no+topic%%29&content=a", to)), 400, "BAD_REQUEST",
	             "Sending messages to the general chat is not allowed in this channel.");
	send_channel_message(u, ch, "real topic", "fine");
	psql_ok("UPDATE channels SET topics_policy = 'empty_topic_only' WHERE id = %lld", (long long)cid);
	EXPECT_ERROR(send_form(u, fmt("type=stream&to=%s&topic=x&content=a", to)), 400, "BAD_REQUEST",
	             "Only the general chat topic is allowed in this channel.");
	send_channel_message(u, ch, "", "fine");
	/* inherit: the organization's policy (a separate organization, so other tests are unaffected). */
	struct user *o = new_realm();
	char *ch2 = name_of("inherit");
	make_channel(o, ch2, NULL, NULL);
	psql_ok("UPDATE realms SET topics_policy = 'disable_empty_topic' WHERE subdomain = '%s'", o->realm);
	/* Every process sees the change within a second (model/cache.h), and then keeps refusing. */
	const char *empty = fmt("type=stream&to=%s&topic=&content=a", url_encode(ch2));
	for (double deadline = now_secs() + 1.0; send_form(o, empty)->status == 200 && now_secs() < deadline;)
		usleep(20000);
	for (int i = 0; i < 4; i++)
		EXPECT_ERROR(send_form(o, empty), 400, "BAD_REQUEST",
		             "Sending messages to the general chat is not allowed in this channel.");
}

static const char *group_id(const struct user *u, const char *name)
{
	return psql_ok("SELECT id FROM user_groups WHERE realm_id = (SELECT realm_id FROM users WHERE id = %lld)"
	               " AND name = '%s' AND is_system_group",
	               (long long)u->id, name);
}

static void test_channel_permissions(void)
{
	struct user *owner = new_user("member"), *m = new_user("member"), *admin = new_user("admin");
	char *ch = name_of("perm");
	int64_t cid = make_channel(owner, ch, fmt("%lld,%lld", (long long)m->id, (long long)admin->id), NULL);
	const char *to = url_encode(ch);
	psql_ok("UPDATE channels SET can_send_message_group_id = %s WHERE id = %lld",
	        group_id(m, "role:administrators"), (long long)cid);
	EXPECT_ERROR(send_form(m, fmt("type=stream&to=%s&topic=t&content=a", to)), 400, "BAD_REQUEST",
	             "You do not have permission to post in this channel.");
	send_channel_message(admin, ch, "t", "admins may");
	psql_ok("UPDATE channels SET can_send_message_group_id = %s, can_create_topic_group_id = %s WHERE id = %lld",
	        group_id(m, "role:everyone"), group_id(m, "role:nobody"), (long long)cid);
	EXPECT_ERROR(send_form(m, fmt("type=stream&to=%s&topic=brand+new&content=a", to)), 400, "BAD_REQUEST",
	             "You do not have permission to create new topics in this channel.");
	send_channel_message(m, ch, "T", "an existing topic (compared ignoring case) is fine");
	/* Private channel the sender is not subscribed to; archived channel. */
	struct user *outsider = new_user("member");
	char *priv = name_of("priv");
	make_channel(owner, priv, NULL, "invite_only=true");
	EXPECT_ERROR(send_form(outsider, fmt("type=stream&to=%s&topic=t&content=a", url_encode(priv))), 400,
	             "BAD_REQUEST", fmt("Not authorized to send to channel '%s'", priv));
	psql_ok("UPDATE channels SET is_archived = true WHERE id = %lld", (long long)cid);
	EXPECT_ERROR(send_form(admin, fmt("type=stream&to=%s&topic=t&content=a", to)), 400, "BAD_REQUEST",
	             fmt("Not authorized to send to channel '%s'", ch));
}

static void test_send_direct_message(void)
{
	struct user *a = new_user("member"), *b = new_user("member"), *c = new_user("member");
	int64_t id = send_direct_message(a, fmt("[%lld]", (long long)b->id), "hi b");
	json_object *m = get_message(b, id, NULL);
	EXPECT_STR(m, "type", "private");
	EXPECT_STR(m, "subject", "");
	EXPECT_ABSENT(m, "stream_id");
	CHECK(strcmp(flags_of(m), "[]") == 0, "recipient flags: %s", jtext(m));
	json_object *dr = jget(m, "display_recipient");
	REQUIRE(dr && json_object_array_length(dr) == 2, "display_recipient: %s", jtext(m));
	for (int i = 0; i < 2; i++)
		EXPECT_KEYS(json_object_array_get_idx(dr, i), "id", "email", "full_name", "is_mirror_dummy");
	/* By e-mail (comma-separated or a list), a group conversation, oneself. */
	int64_t g = send_direct_message(a, fmt("%s,%s", b->email, c->email), "group");
	m = get_message(c, g, NULL);
	dr = jget(m, "display_recipient");
	CHECK(dr && json_object_array_length(dr) == 3 && jint(json_object_array_get_idx(dr, 0), "id") == a->id &&
	          jint(json_object_array_get_idx(dr, 2), "id") == c->id,
	      "group display_recipient ordered by id: %s", jtext(m));
	CHECK(jint(get_message(a, g, NULL), "recipient_id") == jint(m, "recipient_id") &&
	          jint(m, "recipient_id") != jint(get_message(a, id, NULL), "recipient_id"),
	      "recipient_id identifies the conversation");
	int64_t self = send_direct_message(a, fmt("[\"%s\"]", a->email), "note to self");
	dr = jget(get_message(a, self, NULL), "display_recipient");
	CHECK(dr && json_object_array_length(dr) == 1, "self: %s", jtext(dr));
	EXPECT_ERROR(api_get(c, fmt("/messages/%lld", (long long)id)), 400, "BAD_REQUEST", "Invalid message(s)");
}

static void test_direct_message_errors(void)
{
	struct user *a = new_user("member"), *b = new_user("member");
	EXPECT_ERROR(send_form(a, "type=direct&to=999999999&content=x"), 400, "BAD_REQUEST",
	             "Invalid data type for recipients");
	EXPECT_ERROR(send_form(a, fmt("type=direct&to=%s&content=x", url_encode("[999999999]"))), 400, "BAD_REQUEST",
	             "Invalid user ID 999999999");
	EXPECT_ERROR(send_form(a, "type=direct&to=nonexistent&content=x"), 400, "BAD_REQUEST",
	             "Invalid email 'nonexistent'");
	EXPECT_ERROR(send_form(a, "type=direct&to=&content=x"), 400, "BAD_REQUEST", "Message must have recipients");
	EXPECT_ERROR(
	    send_form(a, fmt("type=direct&to=%s&content=x", url_encode(fmt("[%lld, \"x@y.z\"]", (long long)b->id)))),
	    400, "BAD_REQUEST", "Recipient lists may contain emails or user IDs, but not both.");
	deactivate_user(b);
	EXPECT_ERROR(send_form(a, fmt("type=direct&to=%s&content=x", url_encode(fmt("[%lld]", (long long)b->id)))), 400,
	             "BAD_REQUEST", fmt("'%s' is no longer using Zulip.", b->email));
	/* The organization's direct message permission groups. */
	struct user *o = new_realm();
	struct user *m1 = new_user_in(o->realm, "member", NULL), *m2 = new_user_in(o->realm, "member", NULL);
	const char *realm = fmt("(SELECT id FROM realms WHERE subdomain = '%s')", o->realm);
	psql_ok("UPDATE realms SET direct_message_permission_group_id = confab_system_group(id, 'role:nobody')"
	        " WHERE id = %s",
	        realm);
	const char *to = url_encode(fmt("[%lld]", (long long)m2->id));
	EXPECT_ERROR(send_form(m1, fmt("type=direct&to=%s&content=x", to)), 400, "BAD_REQUEST",
	             "Direct messages are disabled in this organization.");
	psql_ok("UPDATE realms SET direct_message_permission_group_id = confab_system_group(id, 'role:administrators')"
	        " WHERE id = %s",
	        realm);
	EXPECT_ERROR(send_form(m1, fmt("type=direct&to=%s&content=x", to)), 400, "BAD_REQUEST",
	             "This conversation does not include any users who can authorize it.");
	send_direct_message(m1, fmt("[%lld]", (long long)o->id), "the owner can authorize");
	psql_ok("UPDATE realms SET direct_message_permission_group_id = confab_system_group(id, 'role:everyone'),"
	        " direct_message_initiator_group_id = confab_system_group(id, 'role:administrators') WHERE id = %s",
	        realm);
	EXPECT_ERROR(send_form(m1, fmt("type=direct&to=%s&content=x", to)), 400, "BAD_REQUEST",
	             "You do not have permission to initiate direct message conversations.");
	send_direct_message(o, fmt("[%lld]", (long long)m2->id), "initiators may start");
	send_direct_message(m2, fmt("[%lld]", (long long)o->id), "and anyone may answer");
}

/* ---- mentions ------------------------------------------------------------------------------------------------ */

static const char *full_name(const struct user *u)
{
	return psql_ok("SELECT full_name FROM users WHERE id = %lld", (long long)u->id);
}

/* n active users of u's organization subscribed to channel, created in SQL (they never log in). */
static void add_subscribers(const struct user *u, int64_t channel, int n)
{
	psql_ok("WITH nu AS (INSERT INTO users (realm_id, delivery_email, full_name)"
	        " SELECT realm_id, 'filler-%lld-' || g || '-%ld@example.com', 'Filler ' || g"
	        " FROM users, generate_series(1, %d) g WHERE id = %lld RETURNING id)"
	        " INSERT INTO subscriptions (user_id, channel_id) SELECT id, %lld FROM nu",
	        (long long)channel, (long)getpid(), n, (long long)u->id, (long long)channel);
}

static void test_user_mention(void)
{
	struct user *a = new_user("member"), *b = new_user("member"), *c = new_user("member");
	psql_ok("UPDATE users SET full_name = '%s' WHERE id = %lld", name_of("Mention Target"), (long long)b->id);
	char *ch = name_of("mention");
	make_channel(a, ch, fmt("%lld,%lld", (long long)b->id, (long long)c->id), NULL);
	int64_t id = send_channel_message(a, ch, "t", fmt("hello @**%s**", full_name(b)));
	json_object *mb = get_message(b, id, NULL);
	CHECK(contains(jstr(mb, "content"), fmt("<span class=\"user-mention\" data-user-id=\"%lld\">@%s</span>",
	                                        (long long)b->id, full_name(b))),
	      "mention rendering: %s", jstr(mb, "content"));
	CHECK(strcmp(flags_of(mb), "[\"mentioned\"]") == 0, "b is mentioned: %s", flags_of(mb));
	CHECK(strcmp(flags_of(get_message(c, id, NULL)), "[]") == 0, "c is not mentioned");
	/* Silent mentions render but do not notify. */
	id = send_channel_message(a, ch, "t", fmt("@_**%s**", full_name(b)));
	CHECK(strcmp(flags_of(get_message(b, id, NULL)), "[]") == 0, "silent mention sets no flag");
	/* is:mentioned finds the first one only. */
	struct resp *r = fetch(b, "[{\"operator\":\"is\",\"operand\":\"mentioned\"}]", "anchor=newest&num_before=10");
	EXPECT_SUCCESS(r);
	CHECK(json_object_array_length(jget(r->json, "messages")) == 1, "is:mentioned: %s", ids_of(r));
}

/* Every mentioned user is flagged, however many a message names (the reference has no bound below its length). */
static void test_many_mentions_all_flagged(void)
{
	enum { N = 70 };
	struct user *a = new_user("member"), *m[N];
	char *ids = "", *content = "";
	for (int i = 0; i < N; i++) {
		m[i] = new_bot();
		ids = fmt("%s%s%lld", ids, i ? "," : "", (long long)m[i]->id);
		content = fmt("%s @**|%lld**", content, (long long)m[i]->id);
	}
	char *ch = name_of("many-mentions");
	make_channel(a, ch, ids, NULL);
	int64_t id = send_channel_message(a, ch, "t", content);
	for (int i = 0; i < N; i++)
		CHECK(strcmp(flags_of(get_message(m[i], id, NULL)), "[\"mentioned\"]") == 0, "user %d of %d: %s", i + 1,
		      N, flags_of(get_message(m[i], id, NULL)));
}

/* The reference's Markdown dialect, as a client sees it in the rendered content (unit tests cover each rule). */
static void test_markdown_dialect(void)
{
	struct user *u = new_user("member");
	char *ch = name_of("dialect");
	make_channel(u, ch, NULL, NULL);
	int64_t id = send_channel_message(u, ch, "md",
	                                  "` spaced ` :octopus:\n1. one\n  3. three\n  4. four\n2. two\n\n- a\n+ b");
	EXPECT_STR(get_message(u, id, NULL), "content",
	           "<p><code> spaced </code> <span aria-label=\"octopus\" class=\"emoji emoji-1f419\" role=\"img\" "
	           "title=\"octopus\">:octopus:</span></p>\n<ol>\n<li>one<ol start=\"3\">\n<li>three</li>\n"
	           "<li>four</li>\n</ol>\n</li>\n<li>two</li>\n</ol>\n<ul>\n<li>a</li>\n<li>b</li>\n</ul>");
	id = send_channel_message(u, ch, "md", "> quoted\nstill quoted\n\n[ref]: https://example.org\n```c x`\ny");
	EXPECT_STR(get_message(u, id, NULL), "content",
	           "<blockquote>\n<p>quoted<br>\nstill quoted</p>\n</blockquote>\n<p>[ref]: <a "
	           "href=\"https://example.org\">https://example.org</a><br>\n```c x`<br>\ny</p>");
	/* An edit renders the same way. */
	struct resp *r = http(&(struct request){.method = "PATCH",
	                                        .path = fmt("/api/v1/messages/%lld", (long long)id),
	                                        .user = u,
	                                        .form = fmt("content=%s", url_encode(">\n>\nlater :octopus:"))});
	EXPECT_SUCCESS(r);
	EXPECT_STR(get_message(u, id, NULL), "content",
	           "<blockquote>\n<p>later <span aria-label=\"octopus\" class=\"emoji emoji-1f419\" role=\"img\" "
	           "title=\"octopus\">:octopus:</span></p>\n</blockquote>");
}

static void test_wildcard_mentions(void)
{
	struct user *m = new_user("member"), *admin = new_user("admin");
	char *small = name_of("small"), *big = name_of("big");
	make_channel(m, small, NULL, NULL);
	int64_t id = send_channel_message(m, small, "t", "@**all** hello");
	json_object *msg = get_message(m, id, NULL);
	CHECK(strcmp(flags_of(msg), "[\"stream_wildcard_mentioned\",\"wildcard_mentioned\"]") == 0, "flags: %s",
	      flags_of(msg));
	int64_t bid = make_channel(m, big, id_text(admin->id), NULL);
	add_subscribers(m, bid, 15); /* 17 subscribers */
	EXPECT_ERROR(send_form(m, fmt("type=stream&to=%s&topic=t&content=%s", url_encode(big), url_encode("@**all**"))),
	             400, "STREAM_WILDCARD_MENTION_NOT_ALLOWED",
	             "You do not have permission to use channel wildcard mentions in this channel.");
	EXPECT_ERROR(
	    send_form(m, fmt("type=stream&to=%s&topic=t&content=%s", url_encode(big), url_encode("@**channel**"))), 400,
	    "STREAM_WILDCARD_MENTION_NOT_ALLOWED",
	    "You do not have permission to use channel wildcard mentions in this channel.");
	send_channel_message(admin, big, "t", "@**everyone** from an administrator");
	send_channel_message(m, big, "t", "`@**all**` in code is no mention");
	/* Topic wildcard: a topic with 16 participants besides the sender. */
	psql_ok("INSERT INTO messages (realm_id, sender_id, channel_id, topic, content, rendered_content)"
	        " SELECT c.realm_id, s.user_id, c.id, 'crowded', 'x', '<p>x</p>' FROM channels c"
	        " JOIN subscriptions s ON s.channel_id = c.id WHERE c.id = %lld",
	        (long long)bid);
	EXPECT_ERROR(
	    send_form(m, fmt("type=stream&to=%s&topic=crowded&content=%s", url_encode(big), url_encode("@**topic**"))),
	    400, "TOPIC_WILDCARD_MENTION_NOT_ALLOWED",
	    "You do not have permission to use topic wildcard mentions in this topic.");
	id = send_channel_message(m, big, "quiet", "@**topic**");
	CHECK(strcmp(flags_of(get_message(m, id, NULL)), "[\"topic_wildcard_mentioned\",\"wildcard_mentioned\"]") == 0,
	      "topic wildcard flags: %s", flags_of(get_message(m, id, NULL)));
}

static void test_group_mention(void)
{
	struct user *o = new_realm();
	struct user *a = new_user_in(o->realm, "member", NULL), *b = new_user_in(o->realm, "member", NULL);
	char *ch = name_of("groups");
	make_channel(o, ch, fmt("%lld,%lld", (long long)a->id, (long long)b->id), NULL);
	const char *realm = fmt("(SELECT id FROM realms WHERE subdomain = '%s')", o->realm);
	char *g = psql_ok("INSERT INTO user_groups (realm_id, name, can_mention_group_id)"
	                  " VALUES (%s, 'support', confab_system_group(%s, 'role:administrators')) RETURNING id",
	                  realm, realm);
	psql_ok("INSERT INTO user_group_members (group_id, user_id) VALUES (%s, %lld)", g, (long long)b->id);
	EXPECT_ERROR(
	    send_form(a, fmt("type=stream&to=%s&topic=t&content=%s", url_encode(ch), url_encode("@*support*"))), 400,
	    "BAD_REQUEST", "You are not allowed to mention user group 'support'.");
	int64_t id = send_channel_message(o, ch, "t", "@*support* please");
	json_object *mb = get_message(b, id, NULL);
	CHECK(contains(jstr(mb, "content"), fmt("data-user-group-id=\"%s\"", g)), "group mention: %s",
	      jstr(mb, "content"));
	CHECK(strcmp(flags_of(mb), "[\"mentioned\"]") == 0, "group members are mentioned: %s", flags_of(mb));
	CHECK(strcmp(flags_of(get_message(a, id, NULL)), "[]") == 0, "others are not");
	psql_ok("UPDATE user_groups SET can_mention_group_id = confab_system_group(%s, 'role:everyone') WHERE id = %s",
	        realm, g);
	send_channel_message(a, ch, "t", "@*support* now anyone may");
}

/* ---- GET /messages ------------------------------------------------------------------------------------------- */

static void test_fetch_anchors(void)
{
	struct user *u = new_user("member");
	char *ch = name_of("anchors");
	int64_t cid = make_channel(u, ch, NULL, NULL);
	int64_t ids[5];
	for (int i = 0; i < 5; i++)
		ids[i] = send_channel_message(u, ch, i < 3 ? "one" : "two", fmt("m%d", i));
	const char *narrow = fmt("[{\"operator\":\"channel\",\"operand\":%lld}]", (long long)cid);
	struct resp *r = fetch(u, narrow, "anchor=newest&num_before=3&num_after=0");
	EXPECT_SUCCESS(r);
	EXPECT_KEYS(r->json, "result", "msg", "messages", "found_anchor", "found_oldest", "found_newest",
	            "history_limited", "anchor");
	CHECK(strcmp(ids_of(r), fmt("%lld,%lld,%lld", (long long)ids[2], (long long)ids[3], (long long)ids[4])) == 0,
	      "newest 3: %s", ids_of(r));
	EXPECT_BOOL(r->json, "found_anchor", false);
	EXPECT_BOOL(r->json, "found_oldest", false);
	EXPECT_BOOL(r->json, "found_newest", true);
	EXPECT_BOOL(r->json, "history_limited", false);
	EXPECT_INT(r->json, "anchor", 10000000000000000LL);
	r = fetch(u, narrow, "anchor=oldest&num_before=0&num_after=2");
	CHECK(strcmp(ids_of(r), fmt("%lld,%lld", (long long)ids[0], (long long)ids[1])) == 0, "oldest: %s", ids_of(r));
	EXPECT_BOOL(r->json, "found_oldest", true);
	EXPECT_BOOL(r->json, "found_newest", false);
	EXPECT_INT(r->json, "anchor", 0);
	r = fetch(u, narrow, fmt("anchor=%lld&num_before=1&num_after=1", (long long)ids[2]));
	CHECK(strcmp(ids_of(r), fmt("%lld,%lld,%lld", (long long)ids[1], (long long)ids[2], (long long)ids[3])) == 0,
	      "around: %s", ids_of(r));
	EXPECT_BOOL(r->json, "found_anchor", true);
	r = fetch(u, narrow, fmt("anchor=%lld&num_before=0&num_after=10&include_anchor=false", (long long)ids[2]));
	CHECK(strcmp(ids_of(r), fmt("%lld,%lld", (long long)ids[3], (long long)ids[4])) == 0, "after: %s", ids_of(r));
	EXPECT_BOOL(r->json, "found_anchor", false);
	EXPECT_BOOL(r->json, "found_newest", true);
	/* first_unread: all unread (sent through the API); then mark the first two read. */
	r = fetch(u, narrow, "anchor=first_unread&num_before=0&num_after=1");
	EXPECT_INT(r->json, "anchor", ids[0]);
	EXPECT_SUCCESS(api_post(
	    u, "/messages/flags",
	    fmt("op=add&flag=read&messages=%s", url_encode(fmt("[%lld,%lld]", (long long)ids[0], (long long)ids[1])))));
	r = fetch(u, narrow, "anchor=first_unread&num_before=0&num_after=1");
	EXPECT_INT(r->json, "anchor", ids[2]);
	/* topic narrow, topics compared ignoring case; message_ids. */
	r = fetch(u, fmt("[[\"stream\",\"%s\"],[\"topic\",\"TWO\"]]", ch), "anchor=newest&num_before=10");
	CHECK(strcmp(ids_of(r), fmt("%lld,%lld", (long long)ids[3], (long long)ids[4])) == 0, "topic: %s", ids_of(r));
	r = fetch(
	    u, narrow,
	    fmt("message_ids=%s", url_encode(fmt("[%lld,%lld,999999999]", (long long)ids[4], (long long)ids[1]))));
	EXPECT_SUCCESS(r);
	CHECK(strcmp(ids_of(r), fmt("%lld,%lld", (long long)ids[1], (long long)ids[4])) == 0, "message_ids: %s",
	      ids_of(r));
	EXPECT_ABSENT(r->json, "anchor");
	EXPECT_BOOL(r->json, "found_anchor", false);
}

static void test_fetch_errors(void)
{
	struct user *u = new_user("member");
	EXPECT_ERROR(api_get(u, "/messages?num_before=1"), 400, "BAD_REQUEST", "Missing 'anchor' argument.");
	EXPECT_ERROR(api_get(u, "/messages?anchor=sideways&num_before=1"), 400, "BAD_REQUEST", "Invalid anchor");
	EXPECT_ERROR(api_get(u, "/messages?anchor=newest&num_before=4000&num_after=1001"), 400, "BAD_REQUEST",
	             "Too many messages requested (maximum 5000).");
	EXPECT_ERROR(api_get(u, "/messages?anchor=5&num_before=1&num_after=1&include_anchor=false"), 400, "BAD_REQUEST",
	             "The anchor can only be excluded at an end of the range");
	EXPECT_ERROR(api_get(u, "/messages?anchor=5&message_ids=%5B1%5D"), 400, "BAD_REQUEST",
	             "Unsupported parameter combination: num_before, num_after, anchor, message_ids, include_anchor, "
	             "use_first_unread_anchor");
	struct resp *r = fetch(u, "[{\"operator\":\"foo\",\"operand\":\"bar\"}]", "anchor=newest&num_before=1");
	EXPECT_ERROR(r, 400, "BAD_NARROW", "Invalid narrow operator: unknown operator foo");
	EXPECT_STR(r->json, "desc", "unknown operator foo");
	EXPECT_ERROR(fetch(u, "[[\"channel\",\"no such channel\"]]", "anchor=newest&num_before=1"), 400, "BAD_NARROW",
	             "Invalid narrow operator: unknown channel no such channel");
	EXPECT_ERROR(fetch(u, "[[\"is\",\"sleepy\"]]", "anchor=newest&num_before=1"), 400, "BAD_NARROW",
	             "Invalid narrow operator: unknown 'is' operand sleepy");
	EXPECT_ERROR(fetch(u, "[[\"sender\",\"nobody@nowhere.invalid\"]]", "anchor=newest&num_before=1"), 400,
	             "BAD_NARROW", "Invalid narrow operator: unknown user nobody@nowhere.invalid");
	EXPECT_ERROR(fetch(u, "[{\"operator\":\"dm\",\"operand\":[999999999]}]", "anchor=newest&num_before=1"), 400,
	             "BAD_NARROW", "Invalid narrow operator: unknown user in [999999999]");
	EXPECT_ERROR(fetch(u, fmt("[[\"is\",\"dm\"],[\"stream\",\"x\"]]"), "anchor=newest&num_before=1"), 400,
	             "BAD_NARROW",
	             "Invalid narrow operator: No message can be both a channel message and direct message");
	EXPECT_ERROR(fetch(u, "[[\"id\",\"abc\"]]", "anchor=newest&num_before=1"), 400, "BAD_NARROW",
	             "Invalid narrow operator: Invalid message ID");
	EXPECT_ERROR(fetch(u, "[[\"channel\"]]", "anchor=newest&num_before=1"), 400, "BAD_REQUEST",
	             "Invalid narrow[0]: Value error, element is not a string pair");
}

static void test_fetch_narrows(void)
{
	struct user *a = new_user("member"), *b = new_user("member");
	char *ch = name_of("narrows");
	make_channel(a, ch, id_text(b->id), NULL);
	int64_t c1 = send_channel_message(a, ch, "t", "from a");
	int64_t c2 = send_channel_message(b, ch, "t", "from b, see https://example.com");
	int64_t d1 = send_direct_message(a, fmt("[%lld]", (long long)b->id), "dm to b");
	int64_t d2 = send_direct_message(b, fmt("[%lld]", (long long)a->id), "dm back");
	const char *q = "anchor=newest&num_before=100";
	struct resp *r = fetch(a, fmt("[{\"operator\":\"dm\",\"operand\":[%lld]}]", (long long)b->id), q);
	CHECK(strcmp(ids_of(r), fmt("%lld,%lld", (long long)d1, (long long)d2)) == 0, "dm: %s", ids_of(r));
	r = fetch(a, fmt("[[\"dm\",\"%s\"]]", b->email), q);
	CHECK(strcmp(ids_of(r), fmt("%lld,%lld", (long long)d1, (long long)d2)) == 0, "dm by e-mail: %s", ids_of(r));
	r = fetch(a,
	          fmt("[{\"operator\":\"sender\",\"operand\":%lld},{\"operator\":\"channel\",\"operand\":\"%s\"}]",
	              (long long)b->id, ch),
	          q);
	CHECK(strcmp(ids_of(r), fmt("%lld", (long long)c2)) == 0, "sender: %s", ids_of(r));
	r = fetch(a,
	          fmt("[{\"operator\":\"sender\",\"operand\":%lld,\"negated\":true},[\"stream\",\"%s\"]]",
	              (long long)b->id, ch),
	          q);
	CHECK(strcmp(ids_of(r), fmt("%lld", (long long)c1)) == 0, "not sender: %s", ids_of(r));
	r = fetch(a, "[[\"is\",\"dm\"]]", q);
	CHECK(contains(ids_of(r), fmt("%lld,%lld", (long long)d1, (long long)d2)) && !contains(ids_of(r), id_text(c1)),
	      "is:dm: %s", ids_of(r));
	r = fetch(a, fmt("[[\"has\",\"link\"],[\"channel\",\"%s\"]]", ch), q);
	CHECK(strcmp(ids_of(r), id_text(c2)) == 0, "has:link: %s", ids_of(r));
	r = fetch(a, fmt("[[\"id\",\"%lld\"]]", (long long)c1), q);
	CHECK(strcmp(ids_of(r), id_text(c1)) == 0, "id: %s", ids_of(r));
	r = fetch(a, fmt("[{\"operator\":\"dm-including\",\"operand\":%lld}]", (long long)b->id), q);
	CHECK(strcmp(ids_of(r), fmt("%lld,%lld", (long long)d1, (long long)d2)) == 0, "dm-including: %s", ids_of(r));
	r = fetch(a, fmt("[[\"with\",\"%lld\"]]", (long long)c1), q);
	CHECK(strcmp(ids_of(r), fmt("%lld,%lld", (long long)c1, (long long)c2)) == 0, "with: %s", ids_of(r));
	r = fetch(a, fmt("[{\"operator\":\"with\",\"operand\":%lld},[\"is\",\"dm\"]]", (long long)d1), q);
	CHECK(strcmp(ids_of(r), fmt("%lld,%lld", (long long)d1, (long long)d2)) == 0, "with dm: %s", ids_of(r));
	r = fetch(a, fmt("[[\"search\",\"SEE\"],[\"channel\",\"%s\"]]", ch), q);
	CHECK(strcmp(ids_of(r), id_text(c2)) == 0, "search: %s", ids_of(r));
	EXPECT_SUCCESS(api_post(a, "/messages/flags",
	                        fmt("op=add&flag=starred&messages=%s", url_encode(fmt("[%lld]", (long long)c2)))));
	r = fetch(a, "[[\"is\",\"starred\"]]", q);
	CHECK(strcmp(ids_of(r), id_text(c2)) == 0, "is:starred: %s", ids_of(r));
	r = fetch(a, fmt("[[\"is\",\"unread\"],[\"channel\",\"%s\"]]", ch), q);
	CHECK(strcmp(ids_of(r), fmt("%lld,%lld", (long long)c1, (long long)c2)) == 0, "is:unread: %s", ids_of(r));
	/* Without a narrow: everything the user received, newest last. */
	r = fetch(b, NULL, "anchor=newest&num_before=4");
	CHECK(strcmp(ids_of(r),
	             fmt("%lld,%lld,%lld,%lld", (long long)c1, (long long)c2, (long long)d1, (long long)d2)) == 0,
	      "all: %s", ids_of(r));
}

static void test_public_history(void)
{
	struct user *a = new_user("member"), *late = new_user("member");
	char *ch = name_of("public");
	int64_t cid = make_channel(a, ch, NULL, NULL);
	int64_t id = send_channel_message(a, ch, "t", "before you came");
	/* Not subscribed: the channel narrow reads its history, flagged read and historical. */
	struct resp *r = fetch(late, fmt("[[\"channel\",\"%s\"]]", ch), "anchor=newest&num_before=10");
	EXPECT_SUCCESS(r);
	CHECK(strcmp(ids_of(r), id_text(id)) == 0, "history: %s", ids_of(r));
	json_object *m = json_object_array_get_idx(jget(r->json, "messages"), 0);
	CHECK(strcmp(flags_of(m), "[\"read\",\"historical\"]") == 0, "historical flags: %s", flags_of(m));
	EXPECT_STR(get_message(late, id, NULL), "content", "<p>before you came</p>");
	/* Without a narrow only the user's own copies. */
	r = fetch(late, NULL, "anchor=newest&num_before=10");
	CHECK(!contains(ids_of(r), id_text(id)), "no narrow: %s", ids_of(r));
	/* Starring it creates a historical copy. */
	EXPECT_SUCCESS(api_post(late, "/messages/flags",
	                        fmt("op=add&flag=starred&messages=%s", url_encode(fmt("[%lld]", (long long)id)))));
	CHECK(strcmp(flags_of(get_message(late, id, NULL)), "[\"read\",\"starred\",\"historical\"]") == 0,
	      "starred historical: %s", flags_of(get_message(late, id, NULL)));
	(void)cid;
}

static void test_private_protected_history(void)
{
	struct user *a = new_user("member"), *b = new_user("member"), *c = new_user("member");
	char *ch = name_of("protected");
	int64_t cid = make_channel(a, ch, id_text(b->id), "invite_only=true");
	int64_t before = send_channel_message(a, ch, "t", "before c");
	subscribe(c, cid);
	int64_t after = send_channel_message(a, ch, "t", "after c");
	struct resp *r = fetch(c, fmt("[[\"channel\",\"%s\"]]", ch), "anchor=newest&num_before=10");
	CHECK(strcmp(ids_of(r), id_text(after)) == 0, "protected history: %s", ids_of(r));
	EXPECT_ERROR(api_get(c, fmt("/messages/%lld", (long long)before)), 400, "BAD_REQUEST", "Invalid message(s)");
	r = fetch(b, fmt("[[\"channel\",\"%s\"]]", ch), "anchor=newest&num_before=10");
	CHECK(strcmp(ids_of(r), fmt("%lld,%lld", (long long)before, (long long)after)) == 0, "b: %s", ids_of(r));
	struct user *outsider = new_user("member");
	r = fetch(outsider, fmt("[[\"channel\",\"%s\"]]", ch), "anchor=newest&num_before=10");
	EXPECT_SUCCESS(r);
	CHECK(strcmp(ids_of(r), "") == 0, "outsider: %s", ids_of(r));
	EXPECT_ERROR(api_get(outsider, fmt("/messages/%lld", (long long)after)), 400, "BAD_REQUEST",
	             "Invalid message(s)");
	/* Shared history: a later subscriber reads it all. */
	char *shared = name_of("shared");
	int64_t sid = make_channel(a, shared, NULL, "invite_only=true&history_public_to_subscribers=true");
	int64_t old = send_channel_message(a, shared, "t", "old");
	subscribe(c, sid);
	r = fetch(c, fmt("[{\"operator\":\"channel\",\"operand\":%lld}]", (long long)sid),
	          "anchor=newest&num_before=10");
	CHECK(strcmp(ids_of(r), id_text(old)) == 0, "shared history: %s", ids_of(r));
}

static void test_guests(void)
{
	struct user *m = new_user("member"), *g = new_user("guest");
	char *ch = name_of("guests");
	make_channel(m, ch, NULL, NULL);
	int64_t id = send_channel_message(m, ch, "t", "public, but not for guests");
	EXPECT_ERROR(api_get(g, fmt("/messages/%lld", (long long)id)), 400, "BAD_REQUEST", "Invalid message(s)");
	struct resp *r = fetch(g, fmt("[[\"channel\",\"%s\"]]", ch), "anchor=newest&num_before=10");
	EXPECT_SUCCESS(r);
	CHECK(strcmp(ids_of(r), "") == 0, "guest history: %s", ids_of(r));
	EXPECT_ERROR(send_form(g, fmt("type=stream&to=%s&topic=t&content=x", url_encode(ch))), 400, "BAD_REQUEST",
	             fmt("Not authorized to send to channel '%s'", ch));
	int64_t dm = send_direct_message(g, fmt("[%lld]", (long long)m->id), "hello from a guest");
	EXPECT_STR(get_message(m, dm, NULL), "content", "<p>hello from a guest</p>");
}

/* ---- DELETE /messages/{id} ----------------------------------------------------------------------------------- */

static void test_delete(void)
{
	struct user *a = new_user("member"), *b = new_user("member"), *admin = new_user("admin");
	char *ch = name_of("delete");
	make_channel(a, ch, id_text(b->id), NULL);
	int64_t mine = send_channel_message(a, ch, "t", "mine");
	int64_t theirs = send_channel_message(b, ch, "t", "theirs");
	EXPECT_ERROR(api_method("DELETE", a, fmt("/messages/%lld", (long long)theirs)), 400, "BAD_REQUEST",
	             "You don't have permission to delete this message");
	struct resp *r = api_method("DELETE", a, fmt("/messages/%lld", (long long)mine));
	EXPECT_SUCCESS(r);
	EXPECT_KEYS(r->json, "result", "msg");
	EXPECT_ERROR(api_get(b, fmt("/messages/%lld", (long long)mine)), 400, "BAD_REQUEST", "Invalid message(s)");
	EXPECT_ERROR(api_method("DELETE", a, fmt("/messages/%lld", (long long)mine)), 400, "BAD_REQUEST",
	             "Invalid message(s)");
	EXPECT_SUCCESS(api_method("DELETE", admin, fmt("/messages/%lld", (long long)theirs)));
	int64_t old = send_channel_message(a, ch, "t", "too old to delete");
	psql_ok("UPDATE messages SET date_sent = now() - interval '11 minutes' WHERE id = %lld", (long long)old);
	EXPECT_ERROR(api_method("DELETE", a, fmt("/messages/%lld", (long long)old)), 400, "BAD_REQUEST",
	             "The time limit for deleting this message has passed");
	int64_t dm = send_direct_message(a, fmt("[%lld]", (long long)b->id), "private");
	EXPECT_ERROR(api_method("DELETE", admin, fmt("/messages/%lld", (long long)dm)), 400, "BAD_REQUEST",
	             "Invalid message(s)");
}

/* Deleting a message deletes every recipient's copy, and so does deleting a user (user_messages has no foreign keys
 * since migrations/0025_message_send.sql: triggers do what their ON DELETE CASCADE did). */
static void test_delete_copies(void)
{
	struct user *a = new_user("member"), *b = new_user("member"), *c = new_user("member");
	char *ch = name_of("copies");
	make_channel(a, ch, fmt("%lld,%lld", (long long)b->id, (long long)c->id), NULL);
	int64_t gone = send_channel_message(a, ch, "t", "deleted");
	int64_t kept = send_channel_message(a, ch, "t", "kept");
	char *n = psql_ok("SELECT count(*) FROM user_messages WHERE message_id = %lld", (long long)gone);
	CHECK(strcmp(n, "3") == 0, "three copies before: %s", n);
	EXPECT_SUCCESS(api_method("DELETE", a, fmt("/messages/%lld", (long long)gone)));
	n = psql_ok("SELECT count(*) FROM user_messages WHERE message_id = %lld", (long long)gone);
	CHECK(strcmp(n, "0") == 0, "no copy after: %s", n);
	n = psql_ok("SELECT count(*) FROM user_messages WHERE message_id = %lld", (long long)kept);
	CHECK(strcmp(n, "3") == 0, "the other message keeps its copies: %s", n);
	psql_ok("DELETE FROM users WHERE id = %lld", (long long)c->id);
	n = psql_ok("SELECT count(*) FROM user_messages WHERE user_id = %lld", (long long)c->id);
	CHECK(strcmp(n, "0") == 0, "a deleted user's copies go: %s", n);
	n = psql_ok("SELECT count(*) FROM user_messages WHERE message_id = %lld", (long long)kept);
	CHECK(strcmp(n, "2") == 0, "the others' copies stay: %s", n);
}

/* ---- POST /messages/flags ------------------------------------------------------------------------------------ */

static void test_flags(void)
{
	struct user *a = new_user("member"), *b = new_user("member");
	int64_t dm = send_direct_message(a, fmt("[%lld]", (long long)b->id), "flag me");
	const char *list = url_encode(fmt("[%lld]", (long long)dm));
	struct resp *r = api_post(b, "/messages/flags", fmt("op=add&flag=starred&messages=%s", list));
	EXPECT_SUCCESS(r);
	EXPECT_KEYS(r->json, "result", "msg", "messages", "ignored_because_not_subscribed_channels");
	CHECK(strcmp(jtext(jget(r->json, "messages")), fmt("[%lld]", (long long)dm)) == 0, "%s", r->body);
	CHECK(strcmp(flags_of(get_message(b, dm, NULL)), "[\"starred\"]") == 0, "starred");
	EXPECT_SUCCESS(api_post(b, "/messages/flags", fmt("op=add&flag=read&messages=%s", list)));
	EXPECT_SUCCESS(api_post(b, "/messages/flags", fmt("op=remove&flag=starred&messages=%s", list)));
	CHECK(strcmp(flags_of(get_message(b, dm, NULL)), "[\"read\"]") == 0, "read, not starred: %s",
	      flags_of(get_message(b, dm, NULL)));
	EXPECT_ERROR(api_post(b, "/messages/flags", fmt("op=add&flag=bogus&messages=%s", list)), 400, "BAD_REQUEST",
	             "Invalid flag: 'bogus'");
	EXPECT_ERROR(api_post(b, "/messages/flags", fmt("op=add&flag=mentioned&messages=%s", list)), 400, "BAD_REQUEST",
	             "Flag not editable: 'mentioned'");
	EXPECT_ERROR(api_post(b, "/messages/flags", fmt("op=toggle&flag=read&messages=%s", list)), 400, "BAD_REQUEST",
	             "Invalid message flag operation: 'toggle'");
	struct user *c = new_user("member");
	EXPECT_ERROR(api_post(c, "/messages/flags", fmt("op=add&flag=starred&messages=%s", list)), 400, "BAD_REQUEST",
	             "Invalid message(s)");
	/* Marking unread in a channel one is not subscribed to is skipped and reported. */
	char *ch = name_of("flags");
	int64_t cid = make_channel(a, ch, NULL, NULL);
	int64_t cm = send_channel_message(a, ch, "t", "x");
	r = api_post(c, "/messages/flags",
	             fmt("op=remove&flag=read&messages=%s", url_encode(fmt("[%lld]", (long long)cm))));
	EXPECT_SUCCESS(r);
	CHECK(strcmp(jtext(jget(r->json, "ignored_because_not_subscribed_channels")), fmt("[%lld]", (long long)cid)) ==
	          0,
	      "ignored: %s", r->body);
}

/* Recipients, flag updates and integers are bounded: the largest list allowed is answered for what it holds
 * (repeats are one recipient), one more is refused before any lookup. */
static void test_recipient_bounds(void)
{
	struct user *a = new_user("member"), *b = new_user("member");
	struct resp *r = send_form(
	    a, fmt("type=direct&content=hi&to=%s", url_encode(json_list(1000, fmt("%lld", (long long)b->id)))));
	EXPECT_SUCCESS(r);
	json_object *m = get_message(b, jint(r->json, "id"), NULL);
	CHECK(json_object_array_length(jget(m, "display_recipient")) == 2, "two participants: %s", jtext(m));
	r = send_form(a, fmt("type=direct&content=hi&to=%s", url_encode(json_list(1000, "9%zu0000000"))));
	EXPECT_ERROR(r, 400, "BAD_REQUEST", "Invalid user ID 900000000");
	r = send_form(a, fmt("type=direct&content=hi&to=%s", url_encode(json_list(1001, "9%zu0000000"))));
	EXPECT_ERROR(r, 400, "BAD_REQUEST", "Too many recipients (limit: 1000)");
	/* The same bound for addresses, as a list or comma-separated. */
	const char *emails = json_list(1000, fmt("\"%s\"", b->email));
	EXPECT_SUCCESS(send_form(a, fmt("type=direct&content=hi&to=%s", url_encode(emails))));
	char *csv = keep(strdup(json_list(1001, "u%zu@example.invalid") + 1));
	csv[strlen(csv) - 1] = '\0';
	EXPECT_ERROR(send_form(a, fmt("type=direct&content=hi&to=%s", url_encode(csv))), 400, "BAD_REQUEST",
	             "Too many recipients (limit: 1000)");
}

static void test_flags_bounds(void)
{
	struct user *a = new_user("member"), *b = new_user("member");
	int64_t dm = send_direct_message(a, fmt("[%lld]", (long long)b->id), "many");
	struct resp *r = api_post(b, "/messages/flags",
	                          fmt("op=add&flag=starred&messages=%s", url_encode(json_list(5000, id_text(dm)))));
	EXPECT_SUCCESS(r);
	CHECK(strcmp(flags_of(get_message(b, dm, NULL)), "[\"starred\"]") == 0, "starred");
	r = api_post(b, "/messages/flags",
	             fmt("op=add&flag=starred&messages=%s", url_encode(json_list(5001, id_text(dm)))));
	EXPECT_ERROR(r, 400, "BAD_REQUEST", "messages is too long (limit: 5000 items)");
	r = api_post(b, "/messages/flags",
	             fmt("op=add&flag=starred&messages=%s", url_encode("[99999999999999999999]")));
	EXPECT_ERROR(r, 400, "BAD_REQUEST", "messages[0] is too large");
}

static void test_fetch_integer_bounds(void)
{
	struct user *a = new_user("member");
	EXPECT_ERROR(fetch(a, NULL, "anchor=newest&num_before=2147483648"), 400, "BAD_REQUEST",
	             "num_before is too large");
	/* Once a signed overflow in num_before + num_after. */
	EXPECT_ERROR(fetch(a, NULL, "anchor=newest&num_before=9223372036854775807&num_after=1"), 400, "BAD_REQUEST",
	             "num_before is too large");
	EXPECT_ERROR(fetch(a, NULL, "anchor=newest&num_after=-1"), 400, "BAD_REQUEST", "num_after is too small");
	EXPECT_ERROR(fetch(a, NULL, "anchor=newest&num_before=3000&num_after=2001"), 400, "BAD_REQUEST",
	             "Too many messages requested (maximum 5000).");
	EXPECT_ERROR(api_get(a, "/messages/99999999999999999999"), 400, "BAD_REQUEST", "message_id is too large");
	/* Search words are bounded too: each is an ILIKE on every row scanned. */
	char *words = keep(strdup(""));
	for (int i = 0; i < 100; i++)
		words = fmt("%s w%d", words, i);
	EXPECT_SUCCESS(fetch(a, fmt("[[\"search\",\"%s\"]]", words), "anchor=newest"));
	struct resp *r = fetch(a, fmt("[[\"search\",\"%s x\"]]", words), "anchor=newest");
	EXPECT_ERROR(r, 400, "BAD_NARROW", "Invalid narrow operator: search has too many words (limit: 100)");
	/* A narrow that long does not fit a URL; POST /register takes the same parameter. */
	EXPECT_ERROR(api_post(a, "/register", fmt("narrow=%s", url_encode(json_list(1001, "[\"is\",\"starred\"]")))),
	             400, "BAD_REQUEST", "narrow is too long (limit: 1000 items)");
}

static void test_max_message_id(void)
{
	struct user *a = new_user("member"), *b = new_user("member");
	EXPECT_INT(api_get(b, "/users/me")->json, "max_message_id", -1);
	int64_t id = send_direct_message(a, fmt("[%lld]", (long long)b->id), "count me");
	EXPECT_INT(api_get(b, "/users/me")->json, "max_message_id", id);
}

/* ---- a channel with 100,000 messages ------------------------------------------------------------------------- */

/* A public channel without subscribers: the message is stored with no recipient row, and its id answered. */
static void test_send_no_recipients(void)
{
	struct user *u = new_user("member");
	char *ch = name_of("empty");
	int64_t cid = make_channel(u, ch, NULL, NULL);
	psql_ok("UPDATE subscriptions SET active = false WHERE channel_id = %lld", (long long)cid);
	struct resp *r = send_form(u, fmt("type=channel&to=%lld&topic=t&content=nobody", (long long)cid));
	EXPECT_SUCCESS(r);
	int64_t id = jint(r->json, "id");
	CHECK(id > 0, "id: %s", r->body);
	char *copies = psql_ok("SELECT count(*) FROM user_messages WHERE message_id = %lld", (long long)id);
	CHECK(strcmp(copies, "0") == 0, "copies: %s", copies);
	json_object *m = get_message(u, id, NULL);
	EXPECT_INT(m, "stream_id", cid);
	EXPECT_STR(m, "content", "<p>nobody</p>");
}

static void test_big_channel(void)
{
	struct user *u = new_user("member"), *reader = new_user("member");
	char *ch = name_of("big");
	int64_t cid = make_channel(u, ch, NULL, NULL);
	psql_ok("WITH m AS (INSERT INTO messages (realm_id, sender_id, channel_id, topic, content, rendered_content)"
	        " SELECT realm_id, id, %lld, 'topic ' || (g %% 100), 'message ' || g, '<p>message ' || g || '</p>'"
	        " FROM users, generate_series(1, 100000) g WHERE id = %lld RETURNING id)"
	        " INSERT INTO user_messages (user_id, message_id, flags) SELECT %lld, id, 0 FROM m",
	        (long long)cid, (long long)u->id, (long long)u->id);
	psql_ok("ANALYZE messages");
	psql_ok("ANALYZE user_messages");
	char *last = psql_ok("SELECT max(id) FROM messages WHERE channel_id = %lld", (long long)cid);
	char *first50 = psql_ok("SELECT min(id) FROM (SELECT id FROM messages WHERE channel_id = %lld"
	                        " ORDER BY id DESC LIMIT 50) s",
	                        (long long)cid);
	const char *narrow = fmt("[{\"operator\":\"channel\",\"operand\":%lld}]", (long long)cid);
	/* A subscriber (user_messages) and a reader of the public history (messages). */
	for (int i = 0; i < 2; i++) {
		struct resp *r = fetch(i ? reader : u, narrow, "anchor=newest&num_before=50&num_after=0");
		EXPECT_SUCCESS(r);
		json_object *msgs = jget(r->json, "messages");
		REQUIRE(msgs && json_object_array_length(msgs) == 50, "50 messages: %zu",
		        msgs ? json_object_array_length(msgs) : 0);
		EXPECT_INT(json_object_array_get_idx(msgs, 0), "id", strtoll(first50, NULL, 10));
		EXPECT_INT(json_object_array_get_idx(msgs, 49), "id", strtoll(last, NULL, 10));
		EXPECT_BOOL(r->json, "found_newest", true);
		EXPECT_BOOL(r->json, "found_oldest", false);
	}
	/* The plan of the channel-history fetch shape: index scans, never a sequential scan of messages. */
	char *plan = psql_ok("EXPLAIN SELECT id FROM ((SELECT m.id FROM messages m LEFT JOIN user_messages um"
	                     " ON um.user_id = %lld AND um.message_id = m.id WHERE m.channel_id = %lld"
	                     " AND m.id <= 9223372036854775807 ORDER BY m.id DESC LIMIT 51) UNION ALL"
	                     " (SELECT m.id FROM messages m LEFT JOIN user_messages um ON um.user_id = %lld"
	                     " AND um.message_id = m.id WHERE m.channel_id = %lld AND m.id >= 0"
	                     " ORDER BY m.id LIMIT 0)) hits ORDER BY id",
	                     (long long)reader->id, (long long)cid, (long long)reader->id, (long long)cid);
	CHECK(contains(plan, "Index") && !contains(plan, "Seq Scan on messages"), "plan:\n%s", plan);
	plan = psql_ok("EXPLAIN SELECT um.message_id FROM user_messages um JOIN messages m ON m.id = um.message_id"
	               " WHERE um.user_id = %lld AND m.channel_id = %lld ORDER BY um.message_id DESC LIMIT 51",
	               (long long)u->id, (long long)cid);
	CHECK(!contains(plan, "Seq Scan on messages") && !contains(plan, "Seq Scan on user_messages"), "plan:\n%s",
	      plan);
}

void register_messages_tests(void)
{
	static const struct itest_case cases[] = {
	    {"recipient_bounds", test_recipient_bounds},
	    {"flags_bounds", test_flags_bounds},
	    {"fetch_integer_bounds", test_fetch_integer_bounds},
	    {"send_channel_message", test_send_channel_message},
	    {"send_no_recipients", test_send_no_recipients},
	    {"send_errors", test_send_errors},
	    {"truncation_and_empty_topic", test_truncation_and_empty_topic},
	    {"topics_policy", test_topics_policy},
	    {"channel_permissions", test_channel_permissions},
	    {"send_direct_message", test_send_direct_message},
	    {"direct_message_errors", test_direct_message_errors},
	    {"user_mention", test_user_mention},
	    {"many_mentions_all_flagged", test_many_mentions_all_flagged},
	    {"markdown_dialect", test_markdown_dialect},
	    {"wildcard_mentions", test_wildcard_mentions},
	    {"group_mention", test_group_mention},
	    {"fetch_anchors", test_fetch_anchors},
	    {"fetch_errors", test_fetch_errors},
	    {"fetch_narrows", test_fetch_narrows},
	    {"public_history", test_public_history},
	    {"private_protected_history", test_private_protected_history},
	    {"guests", test_guests},
	    {"delete", test_delete},
	    {"delete_copies", test_delete_copies},
	    {"flags", test_flags},
	    {"max_message_id", test_max_message_id},
	    {"big_channel", test_big_channel},
	    {NULL, NULL},
	};
	itest_add_suite("messages", cases);
}
