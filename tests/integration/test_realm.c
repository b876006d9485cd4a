/*
 * PATCH /realm: who may change the organization's settings, each setting's validation, the response (the settings
 * that changed, as the reference's json_success(request, data)), the stored value (POST /register's realm state)
 * and the realm events every active user of the organization receives.
 * Reference: Zulip zerver/views/realm.py (update_realm), zerver/actions/realm_settings.py (do_set_realm_property,
 * do_change_realm_permission_group_setting, do_set_realm_stream, parse_and_set_setting_value_if_required),
 * zerver/lib/message.py (parse_message_time_limit_setting), zerver/actions/user_groups.py
 * (update_users_in_full_members_system_group), zerver/tests/test_realm.py.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "itest.h"

static unsigned counter;

static char *uniq(const char *tag)
{
	return fmt("re-%s-%u-%ld", tag, ++counter, (long)getpid());
}

static struct resp *patch(const struct user *u, const char *form)
{
	return http(&(struct request){.method = "PATCH", .path = "/api/v1/realm", .user = u, .form = form});
}

/* The whole response body is exactly want (a JSON object text). */
static void expect_body_at(const struct resp *r, const char *want, const char *file, int line)
{
	json_object *w = json_tokener_parse(want);
	itest_check(w != NULL, true, file, line, "bad expected JSON: %s", want);
	itest_check(r->status == 200 && r->json != NULL && json_object_equal(r->json, w), false, file, line,
	            "expected 200 %s\n      got %ld %s", want, r->status, r->body);
	json_object_put(w);
}
#define EXPECT_BODY(r, want) expect_body_at((r), (want), __FILE__, __LINE__)

/* ---- queues ------------------------------------------------------------------------------------------------- */

static struct queue *reg(const struct user *u)
{
	return queue_register(u, fmt("event_types=%s", url_encode("[\"realm\",\"user_group\"]")));
}

/* The organization's state as a fresh POST /register shows it to u. */
static json_object *realm_state(const struct user *u)
{
	struct resp *r = api_post(u, "/register", fmt("fetch_event_types=%s", url_encode("[\"realm\"]")));
	EXPECT_SUCCESS(r);
	return r->json;
}

/* A fresh organization: owner o, administrator d, member m. */
struct org {
	struct user *o, *d, *m;
};

static struct org new_org(void)
{
	struct org z;
	z.o = new_realm();
	z.d = new_user_in(z.o->realm, "admin", NULL);
	z.m = new_user_in(z.o->realm, "member", NULL);
	return z;
}

static int64_t system_group(const struct user *u, const char *name)
{
	return strtoll(
	    psql_ok("SELECT confab_system_group(realm_id, '%s') FROM users WHERE id = %lld", name, (long long)u->id),
	    NULL, 10);
}

/* ---- who may ------------------------------------------------------------------------------------------------ */

static void test_realm_permissions(void)
{
	struct org z = new_org();
	EXPECT_ERROR(patch(z.m, "name=Mice"), 400, "UNAUTHORIZED_PRINCIPAL", "Must be an organization administrator");
	struct user *mod = new_user_in(z.o->realm, "moderator", NULL);
	EXPECT_ERROR(patch(mod, "allow_message_editing=false"), 400, "UNAUTHORIZED_PRINCIPAL",
	             "Must be an organization administrator");
	/* waiting_period_threshold is for owners only. */
	EXPECT_ERROR(patch(z.d, "waiting_period_threshold=3"), 400, "UNAUTHORIZED_PRINCIPAL",
	             "Must be an organization owner");
	EXPECT_BODY(patch(z.d, "name=Mice"), "{\"result\":\"success\",\"msg\":\"\",\"name\":\"updated\"}");
	EXPECT_BODY(patch(z.o, "waiting_period_threshold=3"),
	            "{\"result\":\"success\",\"msg\":\"\",\"waiting_period_threshold\":3}");
	/* Nothing to change is no error. */
	EXPECT_BODY(patch(z.d, NULL), "{\"result\":\"success\",\"msg\":\"\"}");
}

/* ---- name and description ------------------------------------------------------------------------------------ */

static void test_realm_name_description(void)
{
	struct org z = new_org();
	struct user *other = new_realm();
	struct queue *qo = reg(z.o), *qm = reg(z.m), *qx = reg(other);
	EXPECT_ERROR(patch(z.d, fmt("name=%s", repeat('A', 41))), 400, "BAD_REQUEST",
	             "name is too long (limit: 40 characters)");
	EXPECT_ERROR(patch(z.d, fmt("description=%s", repeat('A', 1001))), 400, "BAD_REQUEST",
	             "description is too long (limit: 1000 characters)");
	EXPECT_NO_EVENTS(qo);
	EXPECT_BODY(patch(z.d, "name=Puliz&description=zulip%20dev%20group"),
	            "{\"result\":\"success\",\"msg\":\"\",\"description\":\"updated\",\"name\":\"updated\"}");
	const char *want = "[{\"type\":\"realm\",\"op\":\"update\",\"property\":\"description\","
	                   "\"value\":\"zulip dev group\"},"
	                   "{\"type\":\"realm\",\"op\":\"update\",\"property\":\"name\",\"value\":\"Puliz\"}]";
	EXPECT_EVENTS(qo, want);
	EXPECT_EVENTS(qm, want);
	EXPECT_NO_EVENTS(qx);
	json_object *state = realm_state(z.m);
	EXPECT_STR(state, "realm_name", "Puliz");
	EXPECT_STR(state, "realm_description", "zulip dev group");
	/* The same value again changes nothing. */
	EXPECT_BODY(patch(z.d, "name=Puliz"), "{\"result\":\"success\",\"msg\":\"\"}");
	EXPECT_NO_EVENTS(qm);
}

/* ---- message editing and the time limits --------------------------------------------------------------------- */

static void test_realm_allow_message_editing(void)
{
	struct org z = new_org();
	struct queue *qm = reg(z.m);
	EXPECT_ERROR(patch(z.d, "allow_message_editing=no"), 400, "BAD_REQUEST",
	             "allow_message_editing is not valid JSON");
	EXPECT_BODY(patch(z.d, "allow_message_editing=false"),
	            "{\"result\":\"success\",\"msg\":\"\",\"allow_message_editing\":false}");
	EXPECT_EVENTS(qm, "[{\"type\":\"realm\",\"op\":\"update_dict\",\"property\":\"default\","
	                  "\"data\":{\"allow_message_editing\":false}}]");
	EXPECT_BOOL(realm_state(z.m), "realm_allow_message_editing", false);
	EXPECT_BODY(patch(z.d, "allow_message_editing=false"), "{\"result\":\"success\",\"msg\":\"\"}");
	EXPECT_NO_EVENTS(qm);
}

/* The content edit limit has the update_dict form; the other limits the plain update form. */
static void test_realm_time_limits(void)
{
	struct org z = new_org();
	struct queue *qm = reg(z.m);
	EXPECT_BODY(patch(z.d, "message_content_edit_limit_seconds=300&message_content_delete_limit_seconds=120"),
	            "{\"result\":\"success\",\"msg\":\"\",\"message_content_delete_limit_seconds\":120,"
	            "\"message_content_edit_limit_seconds\":300}");
	EXPECT_EVENTS(qm,
	              "[{\"type\":\"realm\",\"op\":\"update\",\"property\":\"message_content_delete_limit_seconds\","
	              "\"value\":120},"
	              "{\"type\":\"realm\",\"op\":\"update_dict\",\"property\":\"default\","
	              "\"data\":{\"message_content_edit_limit_seconds\":300}}]");
	/* "unlimited" is null, and comes before the other changes. */
	EXPECT_BODY(patch(z.d, "move_messages_within_stream_limit_seconds=50"
	                       "&message_content_edit_limit_seconds=%22unlimited%22"
	                       "&move_messages_between_streams_limit_seconds=%22unlimited%22"),
	            "{\"result\":\"success\",\"msg\":\"\",\"message_content_edit_limit_seconds\":null,"
	            "\"move_messages_between_streams_limit_seconds\":null,"
	            "\"move_messages_within_stream_limit_seconds\":50}");
	EXPECT_EVENTS(qm, "[{\"type\":\"realm\",\"op\":\"update_dict\",\"property\":\"default\","
	                  "\"data\":{\"message_content_edit_limit_seconds\":null}},"
	                  "{\"type\":\"realm\",\"op\":\"update\","
	                  "\"property\":\"move_messages_between_streams_limit_seconds\",\"value\":null},"
	                  "{\"type\":\"realm\",\"op\":\"update\","
	                  "\"property\":\"move_messages_within_stream_limit_seconds\",\"value\":50}]");
	json_object *state = realm_state(z.m);
	EXPECT_NULL(state, "realm_message_content_edit_limit_seconds");
	EXPECT_INT(state, "realm_message_content_delete_limit_seconds", 120);
	EXPECT_INT(state, "realm_move_messages_within_stream_limit_seconds", 50);
	EXPECT_NULL(state, "realm_move_messages_between_streams_limit_seconds");
	/* Unlimited again changes nothing. */
	EXPECT_BODY(patch(z.d, "message_content_edit_limit_seconds=%22unlimited%22"),
	            "{\"result\":\"success\",\"msg\":\"\"}");
	EXPECT_NO_EVENTS(qm);
}

static void test_realm_time_limit_errors(void)
{
	struct org z = new_org();
	struct resp *r = patch(z.d, "message_content_delete_limit_seconds=%22foo%22");
	EXPECT_ERROR(r, 400, "REQUEST_VARIABLE_INVALID", "Bad value for 'message_content_delete_limit_seconds': foo");
	EXPECT_STR(r->json, "var_name", "message_content_delete_limit_seconds");
	EXPECT_STR(r->json, "bad_value", "foo");
	r = patch(z.d, "message_content_edit_limit_seconds=0");
	EXPECT_ERROR(r, 400, "REQUEST_VARIABLE_INVALID", "Bad value for 'message_content_edit_limit_seconds': 0");
	EXPECT_INT(r->json, "bad_value", 0);
	EXPECT_ERROR(patch(z.d, "move_messages_within_stream_limit_seconds=-5"), 400, "REQUEST_VARIABLE_INVALID",
	             "Bad value for 'move_messages_within_stream_limit_seconds': -5");
	EXPECT_ERROR(patch(z.d, "move_messages_between_streams_limit_seconds=unlimited"), 400, "BAD_REQUEST",
	             "move_messages_between_streams_limit_seconds is not valid JSON");
	/* A failed request changes nothing, also what it would have changed before the error. */
	EXPECT_ERROR(patch(z.d, "name=Changed&message_content_edit_limit_seconds=%22never%22"), 400,
	             "REQUEST_VARIABLE_INVALID", "Bad value for 'message_content_edit_limit_seconds': never");
	json_object *state = realm_state(z.m);
	EXPECT_INT(state, "realm_message_content_edit_limit_seconds", 600);
	CHECK(strcmp(jstr(state, "realm_name") ? jstr(state, "realm_name") : "", "Changed") != 0, "name unchanged");
}

/* ---- topics_policy -------------------------------------------------------------------------------------------- */

static void test_realm_topics_policy(void)
{
	struct org z = new_org();
	struct queue *qm = reg(z.m);
	EXPECT_ERROR(patch(z.d, "topics_policy=invalid"), 400, "BAD_REQUEST", "Invalid topics_policy");
	/* The organization setting has two values; empty_topic_only is a channel setting. */
	EXPECT_ERROR(patch(z.d, "topics_policy=empty_topic_only"), 400, "BAD_REQUEST", "Invalid topics_policy");
	EXPECT_BODY(patch(z.d, "topics_policy=disable_empty_topic"),
	            "{\"result\":\"success\",\"msg\":\"\",\"topics_policy\":3}");
	EXPECT_EVENTS(qm, "[{\"type\":\"realm\",\"op\":\"update_dict\",\"property\":\"default\","
	                  "\"data\":{\"topics_policy\":\"disable_empty_topic\",\"mandatory_topics\":true}}]");
	json_object *state = realm_state(z.m);
	EXPECT_STR(state, "realm_topics_policy", "disable_empty_topic");
	EXPECT_BOOL(state, "realm_mandatory_topics", true);
	/* The reference reports the value whenever it is sent, but announces only a change. */
	EXPECT_BODY(patch(z.d, "topics_policy=disable_empty_topic"),
	            "{\"result\":\"success\",\"msg\":\"\",\"topics_policy\":3}");
	EXPECT_NO_EVENTS(qm);
	EXPECT_BODY(patch(z.d, "topics_policy=allow_empty_topic"),
	            "{\"result\":\"success\",\"msg\":\"\",\"topics_policy\":2}");
	EXPECT_EVENTS(qm, "[{\"type\":\"realm\",\"op\":\"update_dict\",\"property\":\"default\","
	                  "\"data\":{\"topics_policy\":\"allow_empty_topic\",\"mandatory_topics\":false}}]");
}

/* ---- waiting_period_threshold ------------------------------------------------------------------------------- */

/* Members younger than the threshold leave role:fullmembers, and join it again when it is lowered. */
static void test_realm_waiting_period(void)
{
	struct org z = new_org();
	struct user *m2 = new_user_in(z.o->realm, "member", NULL);
	int64_t full = system_group(z.o, "role:fullmembers");
	psql_ok("UPDATE users SET date_joined = now() - interval '5 days' WHERE id = %lld", (long long)m2->id);
	struct queue *qd = reg(z.d);
	EXPECT_BODY(patch(z.o, "waiting_period_threshold=3"),
	            "{\"result\":\"success\",\"msg\":\"\",\"waiting_period_threshold\":3}");
	EXPECT_EVENTS(qd,
	              fmt("[{\"type\":\"realm\",\"op\":\"update\",\"property\":\"waiting_period_threshold\","
	                  "\"value\":3},"
	                  "{\"type\":\"user_group\",\"op\":\"remove_members\",\"group_id\":%lld,\"user_ids\":[%lld]}]",
	                  (long long)full, (long long)z.m->id));
	CHECK(strcmp(psql_ok("SELECT count(*) FROM user_group_members WHERE group_id = %lld AND user_id = %lld",
	                     (long long)full, (long long)z.m->id),
	             "0") == 0,
	      "the new member left role:fullmembers");
	EXPECT_INT(realm_state(z.m), "realm_waiting_period_threshold", 3);
	EXPECT_BODY(patch(z.o, "waiting_period_threshold=10"),
	            "{\"result\":\"success\",\"msg\":\"\",\"waiting_period_threshold\":10}");
	EXPECT_EVENTS(qd,
	              fmt("[{\"type\":\"realm\",\"op\":\"update\",\"property\":\"waiting_period_threshold\","
	                  "\"value\":10},"
	                  "{\"type\":\"user_group\",\"op\":\"remove_members\",\"group_id\":%lld,\"user_ids\":[%lld]}]",
	                  (long long)full, (long long)m2->id));
	EXPECT_BODY(patch(z.o, "waiting_period_threshold=0"),
	            "{\"result\":\"success\",\"msg\":\"\",\"waiting_period_threshold\":0}");
	EXPECT_EVENTS(
	    qd, fmt("[{\"type\":\"realm\",\"op\":\"update\",\"property\":\"waiting_period_threshold\","
	            "\"value\":0},"
	            "{\"type\":\"user_group\",\"op\":\"add_members\",\"group_id\":%lld,\"user_ids\":[%lld,%lld]}]",
	            (long long)full, (long long)z.m->id, (long long)m2->id));
}

/* An integer that does not fit its column is a 400, not a 500 (SQLSTATE 22003), and changes nothing; the largest
 * that fits works (the full-member ages are compared as intervals: now() - 2^31 days is no timestamp). */
static void test_realm_integer_bounds(void)
{
	struct org z = new_org();
	EXPECT_BODY(patch(z.o, "waiting_period_threshold=7"),
	            "{\"result\":\"success\",\"msg\":\"\",\"waiting_period_threshold\":7}");
	EXPECT_ERROR(patch(z.o, "waiting_period_threshold=2147483648"), 400, "BAD_REQUEST",
	             "waiting_period_threshold is too large");
	EXPECT_ERROR(patch(z.o, "waiting_period_threshold=99999999999999999999999"), 400, "BAD_REQUEST",
	             "waiting_period_threshold is too large");
	EXPECT_ERROR(patch(z.o, "waiting_period_threshold=-2147483649"), 400, "BAD_REQUEST",
	             "waiting_period_threshold is too small");
	EXPECT_ERROR(patch(z.o, "waiting_period_threshold=-1"), 400, "BAD_REQUEST",
	             "waiting_period_threshold is too small");
	EXPECT_INT(realm_state(z.m), "realm_waiting_period_threshold", 7);
	EXPECT_BODY(patch(z.o, "waiting_period_threshold=2147483647"),
	            "{\"result\":\"success\",\"msg\":\"\",\"waiting_period_threshold\":2147483647}");
	EXPECT_INT(realm_state(z.m), "realm_waiting_period_threshold", 2147483647);
	EXPECT_BODY(patch(z.o, "waiting_period_threshold=0"),
	            "{\"result\":\"success\",\"msg\":\"\",\"waiting_period_threshold\":0}");
	/* The same for the ids, which are bigints: past them, a 400 before any lookup. */
	EXPECT_ERROR(patch(z.o, "moderation_request_channel_id=9223372036854775808"), 400, "BAD_REQUEST",
	             "moderation_request_channel_id is too large");
	/* The largest time limits work where they are used: the grace period added to them overflowed an integer. */
	EXPECT_SUCCESS(patch(z.o, "message_content_edit_limit_seconds=2147483647&move_messages_within_stream_limit_seconds="
	                          "2147483647&move_messages_between_streams_limit_seconds=2147483647"));
	const char *ch = fmt("limits-%lld", (long long)z.m->id);
	EXPECT_SUCCESS(
	    api_post(z.m, "/users/me/subscriptions", fmt("subscriptions=%s", url_encode(fmt("[{\"name\":\"%s\"}]", ch)))));
	int64_t id = send_channel_message(z.m, ch, "t", "before");
	EXPECT_SUCCESS(http(&(struct request){
	    .method = "PATCH", .path = fmt("/api/v1/messages/%lld", (long long)id), .user = z.m, .form = "content=after"}));
}

/* ---- permission groups ---------------------------------------------------------------------------------------- */

static void test_realm_group_settings(void)
{
	struct org z = new_org();
	struct queue *qm = reg(z.m);
	int64_t mods = system_group(z.o, "role:moderators"), admins = system_group(z.o, "role:administrators");
	int64_t everyone = system_group(z.o, "role:everyone");
	EXPECT_BODY(
	    patch(z.d, fmt("can_mention_many_users_group=%s", url_encode(fmt("{\"new\":%lld}", (long long)mods)))),
	    fmt("{\"result\":\"success\",\"msg\":\"\",\"can_mention_many_users_group\":%lld}", (long long)mods));
	EXPECT_EVENTS(qm, fmt("[{\"type\":\"realm\",\"op\":\"update_dict\",\"property\":\"default\","
	                      "\"data\":{\"can_mention_many_users_group\":%lld}}]",
	                      (long long)mods));
	EXPECT_INT(realm_state(z.m), "realm_can_mention_many_users_group", mods);
	/* `old` must be the current value. */
	struct resp *r =
	    patch(z.d, fmt("can_mention_many_users_group=%s",
	                   url_encode(fmt("{\"new\":%lld,\"old\":%lld}", (long long)admins, (long long)admins))));
	EXPECT_ERROR(r, 400, "EXPECTATION_MISMATCH", "'old' value does not match the expected value.");
	EXPECT_BODY(
	    patch(z.d, fmt("can_mention_many_users_group=%s",
	                   url_encode(fmt("{\"new\":%lld,\"old\":%lld}", (long long)admins, (long long)mods)))),
	    fmt("{\"result\":\"success\",\"msg\":\"\",\"can_mention_many_users_group\":%lld}", (long long)admins));
	EXPECT_EVENTS(qm, fmt("[{\"type\":\"realm\",\"op\":\"update_dict\",\"property\":\"default\","
	                      "\"data\":{\"can_mention_many_users_group\":%lld}}]",
	                      (long long)admins));
	/* Moving between channels cannot be everyone's; moving between topics can. */
	EXPECT_ERROR(patch(z.d, fmt("can_move_messages_between_channels_group=%s",
	                            url_encode(fmt("{\"new\":%lld}", (long long)everyone)))),
	             400, "BAD_REQUEST",
	             "'can_move_messages_between_channels_group' setting cannot be set to 'role:everyone' group.");
	EXPECT_BODY(patch(z.d, fmt("can_move_messages_between_topics_group=%s",
	                           url_encode(fmt("{\"new\":%lld}", (long long)everyone)))),
	            "{\"result\":\"success\",\"msg\":\"\"}"); /* everyone already */
	EXPECT_NO_EVENTS(qm);
	EXPECT_ERROR(patch(z.d, "can_resolve_topics_group=5"), 400, "BAD_REQUEST",
	             "can_resolve_topics_group is not a dict");
	/* An anonymous group: the event carries its value, the response the value as sent. */
	const char *anon =
	    fmt("{\"direct_members\":[%lld],\"direct_subgroups\":[%lld]}", (long long)z.m->id, (long long)admins);
	EXPECT_BODY(patch(z.d, fmt("can_resolve_topics_group=%s&can_move_messages_between_channels_group=%s",
	                           url_encode(fmt("{\"new\":%s}", anon)),
	                           url_encode(fmt("{\"new\":{\"direct_members\":[],\"direct_subgroups\":[%lld]}}",
	                                          (long long)mods)))),
	            fmt("{\"result\":\"success\",\"msg\":\"\",\"can_move_messages_between_channels_group\":%lld,"
	                "\"can_resolve_topics_group\":%s}",
	                (long long)mods, anon));
	/* In the reference's order of the settings; a group alone in an object is that group. */
	EXPECT_EVENTS(qm, fmt("[{\"type\":\"realm\",\"op\":\"update_dict\",\"property\":\"default\","
	                      "\"data\":{\"can_move_messages_between_channels_group\":%lld}},"
	                      "{\"type\":\"realm\",\"op\":\"update_dict\",\"property\":\"default\","
	                      "\"data\":{\"can_resolve_topics_group\":%s}}]",
	                      (long long)mods, anon));
	/* The same members again: no change. */
	EXPECT_BODY(patch(z.d, fmt("can_move_messages_between_channels_group=%s",
	                           url_encode(fmt("{\"new\":%lld}", (long long)mods)))),
	            "{\"result\":\"success\",\"msg\":\"\"}");
	EXPECT_NO_EVENTS(qm);
	json_object *state = realm_state(z.m), *want = json_tokener_parse(anon);
	CHECK(json_object_equal(jget(state, "realm_can_resolve_topics_group"), want), "stored: %s",
	      jtext(jget(state, "realm_can_resolve_topics_group")));
	json_object_put(want);
}

/* ---- moderation_request_channel_id --------------------------------------------------------------------------- */

static void test_realm_moderation_channel(void)
{
	struct org z = new_org();
	char *pub = uniq("pub"), *priv = uniq("priv");
	struct resp *r = api_post(z.d, "/users/me/subscriptions",
	                          fmt("subscriptions=%s", url_encode(fmt("[{\"name\":\"%s\"}]", pub))));
	EXPECT_STATUS(r, 200);
	r = api_post(z.d, "/users/me/subscriptions",
	             fmt("subscriptions=%s&invite_only=true", url_encode(fmt("[{\"name\":\"%s\"}]", priv))));
	EXPECT_STATUS(r, 200);
	int64_t pub_id = strtoll(psql_ok("SELECT id FROM channels WHERE name = '%s'", pub), NULL, 10);
	int64_t priv_id = strtoll(psql_ok("SELECT id FROM channels WHERE name = '%s'", priv), NULL, 10);
	struct queue *qm = reg(z.m);
	EXPECT_ERROR(patch(z.d, fmt("moderation_request_channel_id=%lld", (long long)pub_id)), 400, "BAD_REQUEST",
	             "Moderation request channel must be private.");
	EXPECT_ERROR(patch(z.d, "moderation_request_channel_id=99999999"), 400, "BAD_REQUEST", "Invalid channel ID");
	EXPECT_BODY(
	    patch(z.d, fmt("moderation_request_channel_id=%lld", (long long)priv_id)),
	    fmt("{\"result\":\"success\",\"msg\":\"\",\"moderation_request_channel_id\":%lld}", (long long)priv_id));
	EXPECT_EVENTS(qm, fmt("[{\"type\":\"realm\",\"op\":\"update\",\"property\":\"moderation_request_channel_id\","
	                      "\"value\":%lld}]",
	                      (long long)priv_id));
	EXPECT_INT(realm_state(z.m), "realm_moderation_request_channel_id", priv_id);
	EXPECT_BODY(patch(z.d, fmt("moderation_request_channel_id=%lld", (long long)priv_id)),
	            "{\"result\":\"success\",\"msg\":\"\"}");
	EXPECT_NO_EVENTS(qm);
	EXPECT_BODY(patch(z.d, "moderation_request_channel_id=-1"),
	            "{\"result\":\"success\",\"msg\":\"\",\"moderation_request_channel_id\":-1}");
	EXPECT_EVENTS(qm, "[{\"type\":\"realm\",\"op\":\"update\",\"property\":\"moderation_request_channel_id\","
	                  "\"value\":-1}]");
	EXPECT_INT(realm_state(z.m), "realm_moderation_request_channel_id", -1);
	/* An archived channel is no channel. */
	psql_ok("UPDATE channels SET is_archived = true WHERE id = %lld", (long long)priv_id);
	EXPECT_ERROR(patch(z.d, fmt("moderation_request_channel_id=%lld", (long long)priv_id)), 400, "BAD_REQUEST",
	             "Invalid channel ID");
}

void register_realm_tests(void)
{
	static const struct itest_case cases[] = {
	    {"realm_permissions", test_realm_permissions},
	    {"realm_name_description", test_realm_name_description},
	    {"realm_allow_message_editing", test_realm_allow_message_editing},
	    {"realm_time_limits", test_realm_time_limits},
	    {"realm_time_limit_errors", test_realm_time_limit_errors},
	    {"realm_topics_policy", test_realm_topics_policy},
	    {"realm_waiting_period", test_realm_waiting_period},
	    {"realm_integer_bounds", test_realm_integer_bounds},
	    {"realm_group_settings", test_realm_group_settings},
	    {"realm_moderation_channel", test_realm_moderation_channel},
	    {NULL, NULL},
	};
	itest_add_suite("realm", cases);
}
