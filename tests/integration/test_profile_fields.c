/*
 * Custom profile fields: GET and POST /realm/profile_fields and PATCH /users/me/profile_data
 * (zerver/views/custom_profile_fields.py, zerver/lib/users.py validate_user_custom_profile_data,
 * zerver/models/custom_profile_fields.py for the value checks).
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "itest.h"

static unsigned counter;

static const char *unique_label(const char *tag)
{
	return fmt("%s %u %ld", tag, ++counter, (long)getpid());
}

static struct resp *create(const struct user *u, const char *form)
{
	return api_post(u, "/realm/profile_fields", form);
}

/* Creates a field that must succeed; its id. */
static int64_t field(const struct user *admin, int type, const char *extra)
{
	struct resp *r = create(admin, fmt("name=%s&field_type=%d%s", url_encode(unique_label("Field")), type,
	                                   extra ? extra : ""));
	EXPECT_SUCCESS(r);
	REQUIRE(jint(r->json, "id") > 0, "no id: %s", r->body);
	return jint(r->json, "id");
}

static struct resp *set_data(const struct user *u, const char *data)
{
	return http(&(struct request){
	    .method = "PATCH", .user = u, .path = "/api/v1/users/me/profile_data", .form = fmt("data=%s", url_encode(data))});
}

static const char *text(json_object *o)
{
	return json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE);
}

/* The element of list whose "id" is id. */
static json_object *by_id(json_object *list, int64_t id)
{
	for (size_t i = 0; list && i < json_object_array_length(list); i++)
		if (jint(json_object_array_get_idx(list, i), "id") == id)
			return json_object_array_get_idx(list, i);
	return NULL;
}

static void test_create_and_list(void)
{
	/* A fresh organization: at most two fields may be in the profile summary. */
	struct user *admin = new_realm(), *member = new_user_in(admin->realm, "member", NULL);
	struct queue *q = queue_register(member, "event_types=%5B%22custom_profile_fields%22%5D");
	const char *name = unique_label("Favorite editor");
	struct resp *r = create(admin, fmt("name=%s&hint=Pick%%20one&field_type=3&display_in_profile_summary=true"
	                                   "&field_data=%s",
	                                   url_encode(name),
	                                   url_encode("{\"vim\":{\"text\":\"Vim\",\"order\":\"1\"},"
	                                              "\"emacs\":{\"text\":\"Emacs\",\"order\":\"2\"}}")));
	EXPECT_SUCCESS(r);
	EXPECT_KEYS(r->json, "result", "msg", "id");
	int64_t id = jint(r->json, "id");
	r = api_get(member, "/realm/profile_fields");
	EXPECT_SUCCESS(r);
	EXPECT_KEYS(r->json, "result", "msg", "custom_fields");
	json_object *f = by_id(jget(r->json, "custom_fields"), id);
	REQUIRE(f != NULL, "field %lld not listed: %s", (long long)id, r->body);
	EXPECT_KEYS(f, "id", "name", "type", "hint", "field_data", "order", "required", "editable_by_user",
	            "display_in_profile_summary");
	EXPECT_STR(f, "name", name);
	EXPECT_STR(f, "hint", "Pick one");
	EXPECT_INT(f, "type", 3);
	EXPECT_INT(f, "order", id);
	EXPECT_BOOL(f, "required", false);
	EXPECT_BOOL(f, "editable_by_user", true);
	EXPECT_BOOL(f, "display_in_profile_summary", true);
	CHECK(strstr(jstr(f, "field_data"), "\"Emacs\"") != NULL, "field_data: %s", jtext(f));
	/* custom_profile_fields with every field of the organization, to every user. */
	json_object *events = queue_drain(q);
	REQUIRE(json_object_array_length(events) == 1, "one event: %s", text(events));
	json_object *e = json_object_array_get_idx(events, 0);
	EXPECT_KEYS(e, "type", "fields");
	EXPECT_STR(e, "type", "custom_profile_fields");
	CHECK(json_object_equal(jget(e, "fields"), jget(r->json, "custom_fields")), "event fields %s\n   list %s",
	      jtext(jget(e, "fields")), jtext(jget(r->json, "custom_fields")));
	/* Fields without display_in_profile_summary leave the key out. */
	int64_t plain = field(admin, 1, NULL);
	EXPECT_ABSENT(by_id(jget(api_get(member, "/realm/profile_fields")->json, "custom_fields"), plain),
	              "display_in_profile_summary");
}

static void test_create_errors(void)
{
	struct user *admin = new_user("admin");
	EXPECT_ERROR(create(new_user("member"), "name=X&field_type=1"), 400, "UNAUTHORIZED_PRINCIPAL",
	             "Must be an organization administrator");
	EXPECT_ERROR(create(admin, "name=%20%20&field_type=1"), 400, "BAD_REQUEST", "Label cannot be blank.");
	EXPECT_ERROR(create(admin, "name=Xyz&field_type=9"), 400, "BAD_REQUEST", "Invalid field type.");
	EXPECT_ERROR(create(admin, "name=Xyz"), 400, "REQUEST_VARIABLE_MISSING", "Missing 'field_type' argument");
	EXPECT_ERROR(create(admin, fmt("name=%s&field_type=1", repeat('n', 41))), 400, "BAD_REQUEST",
	             "name is too long (limit: 40 characters)");
	EXPECT_ERROR(create(admin, fmt("name=Xyz&field_type=1&hint=%s", repeat('h', 81))), 400, "BAD_REQUEST",
	             "hint is too long (limit: 80 characters)");
	EXPECT_ERROR(create(admin, "name=Choice&field_type=3"), 400, "BAD_REQUEST", "Field must have at least one choice.");
	EXPECT_ERROR(create(admin, fmt("name=Choice&field_type=3&field_data=%s",
	                               url_encode("{\"a\":{\"text\":\"A\",\"order\":\"1\"},"
	                                          "\"b\":{\"text\":\"A\",\"order\":\"2\"}}"))),
	             400, "BAD_REQUEST", "Field must not have duplicate choices.");
	EXPECT_ERROR(create(new_realm(), "name=Bio&field_type=2&display_in_profile_summary=true"), 400, "BAD_REQUEST",
	             "Field type not supported for display in profile summary.");
	const char *name = unique_label("Dup");
	EXPECT_SUCCESS(create(admin, fmt("name=%s&field_type=1", url_encode(name))));
	EXPECT_ERROR(create(admin, fmt("name=%s&field_type=2", url_encode(name))), 400, "BAD_REQUEST",
	             "A field with that label already exists.");
}

/* A custom external account's URL pattern is a link clients build: "%(username)s" once, in an http(s) or ftp(s)
 * URL, as the reference's check_external_account_url_pattern requires. */
static void test_external_account_url_pattern(void)
{
	struct user *admin = new_user("admin");
	static const struct {
		const char *pattern, *msg;
	} bad[] = {
	    {"javascript:alert(%(username)s)", "field_data[\"url_pattern\"] is not a URL"},
	    {"data:text/html,%(username)s", "field_data[\"url_pattern\"] is not a URL"},
	    {"https://x.example/%(username)s/%(username)s", "URL pattern must contain '%(username)s'."},
	    {"https://x.example/", "URL pattern must contain '%(username)s'."},
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		const char *data = fmt("{\"subtype\":\"custom\",\"url_pattern\":\"%s\"}", bad[i].pattern);
		EXPECT_ERROR(create(admin, fmt("name=%s&field_type=7&field_data=%s", url_encode(unique_label("Acct")),
		                               url_encode(data))),
		             400, "BAD_REQUEST", bad[i].msg);
	}
	field(admin, 7,
	      fmt("&field_data=%s", url_encode("{\"subtype\":\"custom\",\"url_pattern\":"
	                                       "\"https://x.example/u/%(username)s\"}")));
}

static void test_summary_limit(void)
{
	struct user *owner = new_realm();
	EXPECT_SUCCESS(create(owner, "name=One&field_type=1&display_in_profile_summary=true"));
	EXPECT_SUCCESS(create(owner, "name=Two&field_type=1&display_in_profile_summary=true"));
	EXPECT_ERROR(create(owner, "name=Three&field_type=1&display_in_profile_summary=true"), 400, "BAD_REQUEST",
	             "Only 2 custom profile fields can be displayed in the profile summary.");
	EXPECT_SUCCESS(create(owner, "name=Three&field_type=1"));
}

static void test_set_own_values(void)
{
	struct user *admin = new_user("admin"), *u = new_user("member"), *other = new_user("member");
	int64_t text_field = field(admin, 1, NULL), people = field(admin, 6, NULL);
	struct queue *q = queue_register(other, "event_types=%5B%22realm_user%22%5D");
	EXPECT_SUCCESS(set_data(u, fmt("[{\"id\":%lld,\"value\":\"**Hi**\"},{\"id\":%lld,\"value\":[%lld]}]",
	                               (long long)text_field, (long long)people, (long long)admin->id)));
	json_object *profile =
	    jget(jget(api_get(u, fmt("/users/%lld?include_custom_profile_fields=true", (long long)u->id))->json, "user"),
	         "profile_data");
	EXPECT_STR(jget(profile, fmt("%lld", (long long)text_field)), "value", "**Hi**");
	EXPECT_STR(jget(profile, fmt("%lld", (long long)text_field)), "rendered_value", "<p><strong>Hi</strong></p>");
	EXPECT_STR(jget(profile, fmt("%lld", (long long)people)), "value", fmt("[%lld]", (long long)admin->id));
	EXPECT_ABSENT(jget(profile, fmt("%lld", (long long)people)), "rendered_value");
	json_object *events = queue_drain(q),
	            *want = json_tokener_parse(fmt(
	                "[{\"type\":\"realm_user\",\"op\":\"update\",\"person\":{\"user_id\":%lld,\"custom_profile_field\":"
	                "{\"id\":%lld,\"value\":\"**Hi**\",\"rendered_value\":\"<p><strong>Hi</strong></p>\"}}},"
	                "{\"type\":\"realm_user\",\"op\":\"update\",\"person\":{\"user_id\":%lld,\"custom_profile_field\":"
	                "{\"id\":%lld,\"value\":\"[%lld]\"}}}]",
	                (long long)u->id, (long long)text_field, (long long)u->id, (long long)people,
	                (long long)admin->id));
	CHECK(json_object_equal(events, want), "events %s", text(events));
	json_object_put(want);
	/* The same values again: nothing changes, no event. */
	EXPECT_SUCCESS(set_data(u, fmt("[{\"id\":%lld,\"value\":\"**Hi**\"}]", (long long)text_field)));
	CHECK(json_object_array_length(queue_drain(q)) == 0, "no event for an unchanged value");
}

static void test_value_errors(void)
{
	struct user *admin = new_user("admin"), *u = new_user("member");
	const char *date_name = unique_label("Birthday");
	struct resp *r = create(admin, fmt("name=%s&field_type=4", url_encode(date_name)));
	EXPECT_SUCCESS(r);
	long long date = (long long)jint(r->json, "id");
	EXPECT_ERROR(set_data(u, fmt("[{\"id\":%lld,\"value\":\"2020-02-30\"}]", date)), 400, "BAD_REQUEST",
	             fmt("%s is not a date", date_name));
	EXPECT_SUCCESS(set_data(u, fmt("[{\"id\":%lld,\"value\":\"2020-02-29\"}]", date)));
	const char *url_name = unique_label("Website");
	r = create(admin, fmt("name=%s&field_type=5", url_encode(url_name)));
	long long url = (long long)jint(r->json, "id");
	EXPECT_ERROR(set_data(u, fmt("[{\"id\":%lld,\"value\":\"not a url\"}]", url)), 400, "BAD_REQUEST",
	             fmt("%s is not a URL", url_name));
	EXPECT_SUCCESS(set_data(u, fmt("[{\"id\":%lld,\"value\":\"https://zulip.com/x\"}]", url)));
	const char *short_name = unique_label("Short");
	r = create(admin, fmt("name=%s&field_type=1", url_encode(short_name)));
	long long shortf = (long long)jint(r->json, "id");
	EXPECT_ERROR(set_data(u, fmt("[{\"id\":%lld,\"value\":\"%s\"}]", shortf, repeat('s', 51))), 400, "BAD_REQUEST",
	             fmt("%s is too long (limit: 50 characters)", short_name));
	const char *choice_name = unique_label("Editor");
	r = create(admin, fmt("name=%s&field_type=3&field_data=%s", url_encode(choice_name),
	                      url_encode("{\"vim\":{\"text\":\"Vim\",\"order\":\"1\"}}")));
	long long choice = (long long)jint(r->json, "id");
	EXPECT_ERROR(set_data(u, fmt("[{\"id\":%lld,\"value\":\"nano\"}]", choice)), 400, "BAD_REQUEST",
	             fmt("'nano' is not a valid choice for '%s'.", choice_name));
	EXPECT_SUCCESS(set_data(u, fmt("[{\"id\":%lld,\"value\":\"vim\"}]", choice)));
	EXPECT_ERROR(set_data(u, "[{\"id\":9001,\"value\":\"x\"}]"), 400, "BAD_REQUEST", "Field id 9001 not found.");
}

static void test_user_values(void)
{
	struct user *admin = new_user("admin"), *u = new_user("member");
	long long people = (long long)field(admin, 6, NULL);
	struct user *gone = new_user("member"), *bot = new_bot();
	deactivate_user(gone);
	EXPECT_ERROR(set_data(u, fmt("[{\"id\":%lld,\"value\":[999999999]}]", people)), 400, "BAD_REQUEST",
	             "Invalid user ID: 999999999");
	EXPECT_ERROR(set_data(u, fmt("[{\"id\":%lld,\"value\":[%lld]}]", people, (long long)gone->id)), 400, "BAD_REQUEST",
	             fmt("User with ID %lld is deactivated", (long long)gone->id));
	EXPECT_ERROR(set_data(u, fmt("[{\"id\":%lld,\"value\":[%lld]}]", people, (long long)bot->id)), 400, "BAD_REQUEST",
	             fmt("User with ID %lld is a bot", (long long)bot->id));
	EXPECT_ERROR(set_data(u, fmt("[{\"id\":%lld,\"value\":\"x\"}]", people)), 400, "BAD_REQUEST",
	             "User IDs is not a list");
	EXPECT_ERROR(set_data(u, fmt("[{\"id\":%lld,\"value\":%s}]", people, json_list(1001, "1"))), 400, "BAD_REQUEST",
	             "User IDs is too long (limit: 1000 items)");
	/* The same check from an administrator's PATCH /users/{id}. */
	EXPECT_ERROR(http(&(struct request){.method = "PATCH",
	                                    .user = admin,
	                                    .path = fmt("/api/v1/users/%lld", (long long)u->id),
	                                    .form = fmt("profile_data=%s",
	                                                url_encode(fmt("[{\"id\":%lld,\"value\":[999999999]}]", people)))}),
	             400, "BAD_REQUEST", "Invalid user ID: 999999999");
}

static void test_not_editable_and_bots(void)
{
	struct user *admin = new_user("admin"), *u = new_user("member");
	long long locked = (long long)field(admin, 1, "&editable_by_user=false");
	EXPECT_ERROR(set_data(u, fmt("[{\"id\":%lld,\"value\":\"x\"}]", locked)), 400, "BAD_REQUEST",
	             "You are not allowed to change this field. Contact an administrator to update it.");
	EXPECT_SUCCESS(set_data(admin, fmt("[{\"id\":%lld,\"value\":\"x\"}]", locked)));
	EXPECT_ERROR(set_data(new_bot(), fmt("[{\"id\":%lld,\"value\":\"x\"}]", locked)), 400, "BAD_REQUEST",
	             "This endpoint does not accept bot requests.");
	EXPECT_ERROR(http(&(struct request){.method = "PATCH", .user = u, .path = "/api/v1/users/me/profile_data"}), 400,
	             "REQUEST_VARIABLE_MISSING", "Missing 'data' argument");
}

static void test_register_state(void)
{
	struct user *admin = new_user("admin");
	int64_t id = field(admin, 5, NULL);
	struct resp *r = api_post(admin, "/register", "fetch_event_types=%5B%22custom_profile_fields%22%5D");
	EXPECT_SUCCESS(r);
	json_object *f = by_id(jget(r->json, "custom_profile_fields"), id);
	REQUIRE(f != NULL, "field %lld not in register: %s", (long long)id, r->body);
	EXPECT_INT(f, "type", 5);
	json_object *types = jget(r->json, "custom_profile_field_types");
	EXPECT_INT(jget(types, "URL"), "id", 5);
	EXPECT_STR(jget(types, "USER"), "name", "Users");
	CHECK(json_object_object_length(types) == 8, "eight types: %s", jtext(types));
}

void register_profile_fields_tests(void)
{
	static const struct itest_case cases[] = {
	    {"create_and_list", test_create_and_list},
	    {"create_errors", test_create_errors},
	    {"external_account_url_pattern", test_external_account_url_pattern},
	    {"summary_limit", test_summary_limit},
	    {"set_own_values", test_set_own_values},
	    {"value_errors", test_value_errors},
	    {"user_values", test_user_values},
	    {"not_editable_and_bots", test_not_editable_and_bots},
	    {"register_state", test_register_state},
	    {NULL, NULL},
	};
	itest_add_suite("profile_fields", cases);
}
