/*
 * GET /messages as written by src/model/message_json.c (Message objects as JSON text from one statement, senders
 * from a statement of their own) and the fetch statements of src/model/message_fetch.c (the small statement for a
 * narrow of one channel and topic, the generic plans): the objects follow every change of what they show, and the
 * small statement answers exactly what the narrow filter answers.
 *
 * Reference: Zulip zerver/lib/message_cache.py (MessageDict), zerver/views/message_fetch.py.
 */
#include <stdlib.h>
#include <string.h>

#include "itest.h"

static struct resp *patch(const struct user *u, const char *path, const char *form)
{
	return http(&(struct request){.method = "PATCH", .path = fmt("/api/v1%s", path), .user = u, .form = form});
}

/* GET /messages with a narrow (JSON) and other query parameters. */
static struct resp *fetch(const struct user *u, const char *narrow, const char *query)
{
	return api_get(u, fmt("/messages?%s&narrow=%s", query, url_encode(narrow)));
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

/*
 * Message id as reader sees it in its channel's history (the small statement) and by message_ids (the filtered
 * one): both must be the same object. Owned by the current test.
 */
static json_object *fetched(const struct user *reader, const char *channel, int64_t id)
{
	const char *q = "client_gravatar=false&apply_markdown=true";
	struct resp *r = fetch(reader, fmt("[[\"channel\",\"%s\"]]", channel),
	                       fmt("%s&anchor=%lld&num_before=0&num_after=0&include_anchor=true", q, (long long)id));
	EXPECT_SUCCESS(r);
	json_object *list = jget(r->json, "messages");
	REQUIRE(list && json_object_array_length(list) == 1, "one message: %s", r->body);
	json_object *m = json_object_array_get_idx(list, 0);
	struct resp *by_id =
	    fetch(reader, fmt("[[\"channel\",\"%s\"]]", channel), fmt("%s&message_ids=[%lld]", q, (long long)id));
	EXPECT_SUCCESS(by_id);
	json_object *other = json_object_array_get_idx(jget(by_id->json, "messages"), 0);
	CHECK(json_object_equal(m, other), "by narrow %s\nby id %s", jtext(m), jtext(other));
	return m;
}

/* The first edit_history entry's key, or NULL. */
static json_object *last_edit(json_object *m)
{
	json_object *h = jget(m, "edit_history");
	return h && json_object_array_length(h) ? json_object_array_get_idx(h, 0) : NULL;
}

static void test_follows_changes(void)
{
	struct user *a = new_user("member"), *b = new_user("member");
	char *ch = unique_channel_name("fetch");
	create_channel_with(a, ch, NULL);
	int64_t id = send_channel_message(a, ch, "one", "first");
	json_object *m = fetched(b, ch, id);
	EXPECT_STR(m, "sender_full_name", psql_ok("SELECT full_name FROM users WHERE id = %lld", (long long)a->id));
	EXPECT_STR(m, "sender_email", a->email); /* visible to everyone here */
	EXPECT_SUCCESS(patch(a, "/settings", "email_address_visibility=4"));
	m = fetched(b, ch, id);
	struct resp *who = api_get(b, fmt("/users/%lld", (long long)a->id));
	EXPECT_SUCCESS(who);
	EXPECT_STR(m, "sender_email", jstr(jget(who->json, "user"), "email"));
	CHECK(strncmp(jstr(m, "sender_email"), "user", 4) == 0, "a placeholder address: %s", jtext(m));
	EXPECT_STR(m, "content", "<p>first</p>");
	EXPECT_STR(m, "subject", "one");
	EXPECT_JSON_IS(jget(m, "reactions"), "[]");
	EXPECT_ABSENT(m, "last_edit_timestamp");
	EXPECT_ABSENT(m, "edit_history");

	/* an edit of the content */
	EXPECT_SUCCESS(patch(a, fmt("/messages/%lld", (long long)id), "content=second"));
	m = fetched(b, ch, id);
	EXPECT_STR(m, "content", "<p>second</p>");
	CHECK(jint(m, "last_edit_timestamp") > 0, "%s", jtext(m));
	EXPECT_STR(last_edit(m), "prev_content", "first");
	EXPECT_STR(last_edit(m), "prev_rendered_content", "<p>first</p>");

	/* a topic move */
	EXPECT_SUCCESS(patch(a, fmt("/messages/%lld", (long long)id), "topic=two&propagate_mode=change_one"));
	m = fetched(b, ch, id);
	EXPECT_STR(m, "subject", "two");
	CHECK(jint(m, "last_moved_timestamp") > 0, "%s", jtext(m));
	EXPECT_STR(last_edit(m), "prev_topic", "one");
	EXPECT_STR(last_edit(m), "topic", "two");
	EXPECT_INT(m, "stream_id", atoll(psql_ok("SELECT id FROM channels WHERE name = '%s'", ch)));

	/* a reaction added and removed */
	EXPECT_SUCCESS(api_post(b, fmt("/messages/%lld/reactions", (long long)id), "emoji_name=octopus"));
	m = fetched(b, ch, id);
	EXPECT_JSON_IS(jget(m, "reactions"),
	               fmt("[{\"emoji_name\":\"octopus\",\"emoji_code\":\"1f419\",\"reaction_type\":\"unicode_emoji\","
	                   "\"user_id\":%lld}]",
	                   (long long)b->id));
	EXPECT_SUCCESS(http(&(struct request){.method = "DELETE",
	                                      .path = fmt("/api/v1/messages/%lld/reactions", (long long)id),
	                                      .user = b,
	                                      .form = "emoji_name=octopus"}));
	m = fetched(b, ch, id);
	EXPECT_JSON_IS(jget(m, "reactions"), "[]");

	/* the sender's name, address visibility and avatar */
	EXPECT_SUCCESS(patch(a, "/settings", "full_name=Renamed%20Sender"));
	EXPECT_SUCCESS(patch(a, "/settings", "email_address_visibility=1"));
	m = fetched(b, ch, id);
	EXPECT_STR(m, "sender_full_name", "Renamed Sender");
	EXPECT_STR(m, "sender_email", a->email);
	psql_ok("UPDATE users SET avatar_source = 'U', avatar_version = 7 WHERE id = %lld", (long long)a->id);
	m = fetched(b, ch, id);
	EXPECT_STR(m, "avatar_url",
	           fmt("/user_avatars/%s/%lld.png?version=7",
	               psql_ok("SELECT realm_id FROM users WHERE id = %lld", (long long)a->id), (long long)a->id));
	EXPECT_STR(m, "content", "<p>second</p>");
	EXPECT_STR(m, "subject", "two");
}

/* The small statement of a channel (and topic) narrow against the narrow filter, on the same messages. */
static void test_plain_narrow_matches_filter(void)
{
	struct user *a = new_user("member"), *b = new_user("member");
	char *ch = unique_channel_name("plain");
	create_channel_with(a, ch, NULL);
	send_channel_message(a, ch, "Alpha", "1");
	send_channel_message(b, ch, "alpha", "2");
	send_channel_message(a, ch, "beta", "3");
	send_channel_message(b, ch, "ALPHA", "4");
	send_channel_message(a, ch, "beta", "5");
	/* a negated topic that matches nothing keeps every message but sends the narrow through the filter */
	const char *other_topic = ",{\"operator\":\"topic\",\"operand\":\"no such topic\",\"negated\":true}";
	const char *narrows[][2] = {
	    {fmt("[{\"operator\":\"channel\",\"operand\":\"%s\"}]", ch),
	     fmt("[{\"operator\":\"channel\",\"operand\":\"%s\"}%s]", ch, other_topic)},
	    {fmt("[{\"operator\":\"channel\",\"operand\":\"%s\"},{\"operator\":\"topic\",\"operand\":\"alpha\"}]", ch),
	     fmt("[{\"operator\":\"channel\",\"operand\":\"%s\"},{\"operator\":\"topic\",\"operand\":\"alpha\"}%s]", ch,
	         other_topic)},
	};
	const char *ranges[] = {"anchor=newest&num_before=2&num_after=0", "anchor=oldest&num_before=0&num_after=2",
	                        "anchor=newest&num_before=10&num_after=0"};
	for (size_t i = 0; i < 2; i++) {
		for (size_t k = 0; k < 3; k++) {
			struct resp *plain = fetch(b, narrows[i][0], ranges[k]),
			            *filtered = fetch(b, narrows[i][1], ranges[k]);
			EXPECT_SUCCESS(plain);
			EXPECT_SUCCESS(filtered);
			CHECK(strcmp(ids_of(plain), ids_of(filtered)) == 0, "%s %s: %s against %s", narrows[i][0],
			      ranges[k], ids_of(plain), ids_of(filtered));
			const char *keys[] = {"found_anchor", "found_oldest", "found_newest", "history_limited"};
			for (size_t j = 0; j < 4; j++)
				CHECK(jbool(plain->json, keys[j]) == jbool(filtered->json, keys[j]), "%s %s: %s",
				      narrows[i][0], ranges[k], keys[j]);
		}
	}
	struct resp *r = fetch(b, narrows[1][0], "anchor=newest&num_before=10&num_after=0");
	json_object *list = jget(r->json, "messages");
	REQUIRE(list && json_object_array_length(list) == 3, "three in topic alpha: %s", r->body);
	EXPECT_STR(json_object_array_get_idx(list, 0), "subject", "Alpha");
	EXPECT_STR(json_object_array_get_idx(list, 2), "subject", "ALPHA");
	EXPECT_BOOL(r->json, "found_oldest", true);
	EXPECT_BOOL(r->json, "found_newest", true);
}

void register_message_fetch_tests(void)
{
	static const struct itest_case cases[] = {
	    {"follows_changes", test_follows_changes},
	    {"plain_narrow_matches_filter", test_plain_narrow_matches_filter},
	    {NULL, NULL},
	};
	itest_add_suite("message_fetch", cases);
}
