/*
 * POST /register: parameters and their errors, the queue (queue_id, last_event_id, idle_queue_timeout_secs, a
 * working GET /events), fetch_event_types against event_types, the keys and shapes of each fetch type with data
 * made through the API, and the unauthenticated (spectator) form.
 * Reference: zulip-digest.md sections a and b; Zulip zerver/views/events_register.py, zerver/lib/events.py
 * (fetch_initial_state_data, post_process_state), zerver/lib/subscription_info.py, zerver/lib/message.py (unread
 * data, recent conversations), zerver/lib/narrow_predicate.py, zerver/lib/typed_endpoint.py (parameter errors),
 * zerver/tests/test_events.py and test_event_system.py.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "itest.h"

static unsigned counter;

static char *name_of(const char *tag)
{
	return fmt("reg-%s-%u-%ld", tag, ++counter, (long)getpid());
}

/* A channel name starting with c (names sort by it), unique in this run; next starts a new set. */
static char *letter(char c, bool next)
{
	if (next)
		counter++;
	return fmt("%c-%u-%ld", c, counter, (long)getpid());
}

static struct resp *reg(const struct user *u, const char *form)
{
	return api_post(u, "/register", form ? form : "");
}

static json_object *reg_ok(const struct user *u, const char *form)
{
	struct resp *r = reg(u, form);
	REQUIRE(r->status == 200 && r->json != NULL, "register %s: %ld %s", form ? form : "", r->status, r->body);
	EXPECT_STR(r->json, "result", "success");
	return r->json;
}

/* POST /register without credentials, at the organization of realm. */
static struct resp *reg_anon(const char *realm, const char *form)
{
	return http(&(struct request){
	    .method = "POST", .path = "/api/v1/register", .host = realm_host(realm), .form = form ? form : ""});
}

/* "fetch_event_types=<json>" */
static char *fetch(const char *types)
{
	return fmt("fetch_event_types=%s", url_encode(types));
}

static int64_t realm_of(const struct user *u)
{
	return atoll(psql_ok("SELECT id FROM realms WHERE subdomain = '%s'", u->realm));
}

static int64_t sysgroup(int64_t realm_id, const char *name)
{
	return atoll(psql_ok("SELECT id FROM user_groups WHERE realm_id = %lld AND name = '%s' AND is_system_group",
	                     (long long)realm_id, name));
}

static const char *id_list(int64_t a, int64_t b)
{
	return b ? fmt("[%lld,%lld]", (long long)a, (long long)b) : fmt("[%lld]", (long long)a);
}

/* Creates channel name with u subscribed (and the users of the JSON id list others), plus extra form fields. */
static int64_t make_channel(const struct user *u, const char *name, const char *others, const char *extra)
{
	char *form = fmt("subscriptions=%s", url_encode(fmt("[{\"name\":\"%s\"}]", name)));
	if (others)
		form = fmt("%s&principals=%s", form, url_encode(others));
	if (extra)
		form = fmt("%s&%s", form, extra);
	struct resp *r = api_post(u, "/users/me/subscriptions", form);
	REQUIRE(r->status == 200, "creating channel %s: %s", name, r->body);
	return atoll(psql_ok("SELECT c.id FROM channels c JOIN realms r ON r.id = c.realm_id"
	                     " WHERE c.name = '%s' AND r.subdomain = '%s'",
	                     name, u->realm));
}

/* The element of list whose key has integer value id, or NULL. */
static json_object *find_by(json_object *list, const char *key, int64_t id)
{
	for (size_t i = 0; list && i < json_object_array_length(list); i++)
		if (jint(json_object_array_get_idx(list, i), key) == id)
			return json_object_array_get_idx(list, i);
	return NULL;
}

static bool same_json(json_object *value, const char *want)
{
	return value != NULL && strcmp(jtext(value), want) == 0;
}

/* a and b have the same keys with the same values (reports each difference). */
static void expect_same(json_object *a, json_object *b, const char *what, int line)
{
	itest_check(a != NULL && b != NULL, false, __FILE__, line, "%s: missing object", what);
	json_object_object_foreach (a, key, val) {
		json_object *other = NULL;
		bool has = json_object_object_get_ex(b, key, &other);
		itest_check(has && strcmp(jtext(val), jtext(other)) == 0, false, __FILE__, line, "%s[%s]: %s vs %s",
		            what, key, jtext(val), has ? jtext(other) : "(absent)");
	}
	json_object_object_foreach (b, key2, val2) {
		(void)val2;
		itest_check(json_object_object_get_ex(a, key2, NULL), false, __FILE__, line,
		            "%s: %s only in the second", what, key2);
	}
}
#define EXPECT_SAME(a, b, what) expect_same((a), (b), (what), __LINE__)

#define EXPECT_JSON(o, key, want)                                                                                      \
	CHECK(same_json(jget((o), (key)), (want)), "%s: want %s, got %s", (key), (want), jtext(jget((o), (key))))

static bool is_uuid4(const char *s)
{
	if (s == NULL || strlen(s) != 36)
		return false;
	for (int i = 0; i < 36; i++) {
		bool dash = i == 8 || i == 13 || i == 18 || i == 23;
		if (dash ? s[i] != '-' : !(isdigit((unsigned char)s[i]) || (s[i] >= 'a' && s[i] <= 'f')))
			return false;
	}
	return s[14] == '4';
}

/* ---- the queue ----------------------------------------------------------------------------------------------- */

static void test_queue_and_versions(void)
{
	struct user *u = new_user("member");
	json_object *j = reg_ok(u, fetch("[]"));
	EXPECT_KEYS(j, "result", "msg", "queue_id", "last_event_id", "zulip_version", "zulip_feature_level",
	            "zulip_merge_base", "idle_queue_timeout_secs");
	CHECK(is_uuid4(jstr(j, "queue_id")), "queue_id is not a UUID4: %s", jtext(j));
	EXPECT_INT(j, "last_event_id", -1);
	EXPECT_INT(j, "zulip_feature_level", 496);
	EXPECT_INT(j, "idle_queue_timeout_secs", 600);
	struct resp *s = http(&(struct request){.path = "/api/v1/server_settings"});
	EXPECT_STR(j, "zulip_version", jstr(s->json, "zulip_version"));
	EXPECT_STR(j, "zulip_merge_base", jstr(s->json, "zulip_merge_base"));
	/* Two registrations, two queues. */
	const char *first = fmt("%s", jstr(j, "queue_id"));
	CHECK(strcmp(first, jstr(reg_ok(u, fetch("[]")), "queue_id")) != 0, "queue ids repeat");
}

/* The queue serves GET /events: nothing at first, then what happened after registering. */
static void test_events_after_register(void)
{
	struct user *u = new_user("member"), *v = new_user("member");
	send_direct_message(v, id_list(u->id, 0), "before");
	json_object *j = reg_ok(u, fmt("event_types=%s&%s", url_encode("[\"message\"]"), fetch("[\"message\"]")));
	const char *qid = fmt("%s", jstr(j, "queue_id"));
	int64_t max_id = jint(j, "max_message_id");
	struct resp *r = api_get(
	    u, fmt("/events?queue_id=%s&last_event_id=%lld&dont_block=true", qid, (long long)jint(j, "last_event_id")));
	EXPECT_SUCCESS(r);
	/* The message sent before registering is in the state (max_message_id), not in the queue. */
	EXPECT_JSON(r->json, "events", "[]");
	int64_t id = send_direct_message(v, id_list(u->id, 0), "after");
	CHECK(id > max_id, "max_message_id %lld, new message %lld", (long long)max_id, (long long)id);
	r = api_get(u, fmt("/events?queue_id=%s&last_event_id=-1&dont_block=true", qid));
	EXPECT_SUCCESS(r);
	json_object *events = jget(r->json, "events");
	REQUIRE(events && json_object_array_length(events) == 1, "one message event: %s", r->body);
	json_object *e = json_object_array_get_idx(events, 0);
	EXPECT_STR(e, "type", "message");
	EXPECT_INT(jget(e, "message"), "id", id);
	/* Another user's queue id is unknown to this user. */
	r = api_get(v, fmt("/events?queue_id=%s&last_event_id=-1&dont_block=true", qid));
	EXPECT_ERROR(r, 400, "BAD_EVENT_QUEUE_ID", fmt("Bad event queue ID: %s", qid));
}

static void test_idle_queue_timeout(void)
{
	struct user *u = new_user("member");
	static const struct {
		const char *form;
		int secs;
	} cases[] = {
	    {"", 600},
	    {"idle_queue_timeout=0", 600},
	    {"idle_queue_timeout=120", 120},
	    {"idle_queue_timeout=mobile", 43200},
	    {"idle_queue_timeout=%22mobile%22", 43200},
	    {"idle_queue_timeout=604800", 604800},
	    {"idle_queue_timeout=99999999", 604800},
	    {"idle_queue_timeout=null", 600},
	    {"queue_lifespan_secs=300", 300},
	    {"queue_lifespan_secs=300&idle_queue_timeout=mobile", 43200},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		json_object *j = reg_ok(u, fmt("%s&%s", fetch("[]"), cases[i].form));
		CHECK(jint(j, "idle_queue_timeout_secs") == cases[i].secs, "%s: want %d, got %s", cases[i].form,
		      cases[i].secs, jtext(j));
	}
	static const char *const bad[] = {"idle_queue_timeout=abc", "idle_queue_timeout=-5", "idle_queue_timeout=1.5",
	                                  "idle_queue_timeout=%22desktop%22", "idle_queue_timeout=%5B%5D"};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		EXPECT_ERROR(reg(u, bad[i]), 400, "BAD_REQUEST", "Invalid idle_queue_timeout");
	EXPECT_ERROR(reg(u, "queue_lifespan_secs=x"), 400, "BAD_REQUEST", "queue_lifespan_secs is not valid JSON");
}

/* ---- parameters ---------------------------------------------------------------------------------------------- */

static void test_parameter_errors(void)
{
	struct user *u = new_user("member");
	static const struct {
		const char *form, *msg;
	} cases[] = {
	    {"apply_markdown=5", "apply_markdown is not a boolean"},
	    {"apply_markdown=yes", "apply_markdown is not valid JSON"},
	    {"client_gravatar=5", "client_gravatar is not a boolean"},
	    {"client_gravatar=%22true%22", "client_gravatar is not a boolean"},
	    {"slim_presence=1", "slim_presence is not a boolean"},
	    {"all_public_streams=%5B%5D", "all_public_streams is not a boolean"},
	    {"include_subscribers=maybe", "Invalid include_subscribers"},
	    {"include_subscribers=%22true%22", "Invalid include_subscribers"},
	    {"presence_history_limit_days=1.5", "presence_history_limit_days is not an integer"},
	    {"presence_history_limit_days=x", "presence_history_limit_days is not valid JSON"},
	    {"event_types=%7B%7D", "event_types is not a list"},
	    {"event_types=message", "event_types is not valid JSON"},
	    {"event_types=%5B%22message%22%2C1%5D", "event_types[1] is not a string"},
	    {"fetch_event_types=%22realm%22", "fetch_event_types is not a list"},
	    {"fetch_event_types=%5B2%5D", "fetch_event_types[0] is not a string"},
	    {"client_capabilities=%5B%5D", "client_capabilities is not a dict"},
	    {"client_capabilities=%7B", "client_capabilities is not valid JSON"},
	    {"client_capabilities=%7B%22bulk_message_deletion%22%3A1%7D",
	     "client_capabilities[\"bulk_message_deletion\"] is not a boolean"},
	    {"client_capabilities=%7B%22empty_topic_name%22%3Anull%7D",
	     "client_capabilities[\"empty_topic_name\"] is not a boolean"},
	    {"narrow=%7B%7D", "narrow is not a list"},
	    {"narrow=%5B%22stream%22%5D", "narrow[0] is not a list"},
	    {"narrow=%5B%5B%22stream%22%5D%5D", "narrow[0] should have exactly 2 items"},
	    {"narrow=%5B%5B%22stream%22%2C%22a%22%2C%22b%22%5D%5D", "narrow[0] should have exactly 2 items"},
	    {"narrow=%5B%5B%22stream%22%2C1%5D%5D", "narrow[0][1] is not a string"},
	    {"narrow=%5B%5B%22search%22%2C%22x%22%5D%5D", "Operator search not supported."},
	    {"narrow=%5B%5B%22is%22%2C%22followed%22%5D%5D", "Operand followed not supported."},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		EXPECT_ERROR(reg(u, cases[i].form), 400, "BAD_REQUEST", cases[i].msg);
	/* Accepted forms: JSON null for the optional ones, the operators a queue filters on, unknown capabilities. */
	static const char *const good[] = {
	    "client_gravatar=null&all_public_streams=null&event_types=null&fetch_event_types=null&narrow=null"
	    "&presence_history_limit_days=null",
	    "include_subscribers=partial&apply_markdown=true&slim_presence=true&presence_history_limit_days=7",
	    "narrow=%5B%5B%22stream%22%2C%22x%22%5D%2C%5B%22topic%22%2C%22y%22%5D%2C%5B%22sender%22%2C%22a%40b.c%22%5D%"
	    "2C%5B%22is%22%2C%22dm%22%5D%2C%5B%22channel%22%2C%22z%22%5D%5D",
	    "narrow=%5B%5D&client_capabilities=%7B%22notification_settings_null%22%3Atrue%2C%22whatever%22%3A5%7D",
	};
	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		struct resp *r = reg(u, fmt("%s&%s", fetch("[]"), good[i]));
		CHECK(r->status == 200, "%s: %s", good[i], r->body);
		EXPECT_ABSENT(r->json, "ignored_parameters_unsupported");
	}
	/* Unknown parameters are reported, as everywhere. */
	EXPECT_JSON(reg_ok(u, fmt("%s&bogus=1", fetch("[]"))), "ignored_parameters_unsupported", "[\"bogus\"]");
}

static void test_all_public_streams(void)
{
	struct user *guest = new_user("guest"), *member = new_user("member");
	EXPECT_ERROR(reg(guest, "all_public_streams=true"), 400, "BAD_REQUEST", "User not authorized for this query");
	CHECK(reg(guest, fmt("all_public_streams=false&%s", fetch("[]")))->status == 200, "guest, false");
	CHECK(reg(member, fmt("all_public_streams=true&%s", fetch("[]")))->status == 200, "member, true");
}

/* ---- which types are fetched --------------------------------------------------------------------------------- */

static void test_fetch_types_select_keys(void)
{
	struct user *u = new_user("member");
	/* event_types alone picks the data; fetch_event_types wins over it; unknown types are ignored. */
	json_object *j = reg_ok(u, fmt("event_types=%s", url_encode("[\"message\"]")));
	EXPECT_KEYS(j, "result", "msg", "queue_id", "last_event_id", "zulip_version", "zulip_feature_level",
	            "zulip_merge_base", "idle_queue_timeout_secs", "max_message_id");
	j = reg_ok(u,
	           fmt("event_types=%s&%s", url_encode("[\"message\"]"), fetch("[\"channel_folders\",\"nonsense\"]")));
	EXPECT_KEYS(j, "result", "msg", "queue_id", "last_event_id", "zulip_version", "zulip_feature_level",
	            "zulip_merge_base", "idle_queue_timeout_secs", "channel_folders");
	/* update_message_flags adds unread_msgs only together with message. */
	j = reg_ok(u, fetch("[\"update_message_flags\"]"));
	EXPECT_ABSENT(j, "unread_msgs");
	EXPECT_ABSENT(j, "max_message_id");
	j = reg_ok(u, fetch("[\"update_message_flags\",\"message\"]"));
	EXPECT_JSON(
	    j, "unread_msgs",
	    "{\"pms\":[],\"streams\":[],\"huddles\":[],\"mentions\":[],\"count\":0,\"old_unreads_missing\":false}");
	EXPECT_INT(j, "max_message_id", -1);
	/* Everything when neither is given. */
	j = reg_ok(u, NULL);
	static const char *const all[] = {
	    "max_message_id",    "unread_msgs",       "subscriptions",    "unsubscribed",
	    "never_subscribed",  "streams",           "realm_users",      "realm_non_active_users",
	    "cross_realm_bots",  "realm_user_groups", "channel_folders",  "recent_private_conversations",
	    "navigation_views",  "saved_snippets",    "realm_linkifiers", "realm_filters",
	    "max_topic_length",  "realm_name",        "user_id",          "is_admin",
	    "can_create_streams"};
	for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++)
		CHECK(jhas(j, all[i]), "register without types lacks %s", all[i]);
}

/* event_types filters the queue, fetch_event_types does not. */
static void test_event_types_filter_queue(void)
{
	struct user *u = new_user("member"), *v = new_user("member");
	json_object *j = reg_ok(u, fmt("event_types=%s&%s", url_encode("[\"realm_user\"]"), fetch("[\"message\"]")));
	const char *qid = fmt("%s", jstr(j, "queue_id"));
	EXPECT_INT(j, "max_message_id", -1);
	send_direct_message(v, id_list(u->id, 0), "not for this queue");
	struct resp *r = api_get(u, fmt("/events?queue_id=%s&last_event_id=-1&dont_block=true", qid));
	EXPECT_SUCCESS(r);
	EXPECT_JSON(r->json, "events", "[]");
}

static void test_empty_types(void)
{
	struct user *u = new_user("member");
	json_object *j = reg_ok(
	    u, fetch("[\"navigation_views\",\"saved_snippets\",\"realm_linkifiers\",\"realm_filters\",\"drafts\"]"));
	EXPECT_JSON(j, "navigation_views", "[]");
	EXPECT_JSON(j, "saved_snippets", "[]");
	EXPECT_JSON(j, "realm_linkifiers", "[]");
	EXPECT_JSON(j, "realm_filters", "[]");
	EXPECT_JSON(j, "drafts", "[]");
	j = reg_ok(u, fmt("%s&client_capabilities=%s", fetch("[\"realm_linkifiers\"]"),
	                  url_encode("{\"notification_settings_null\":false,\"linkifier_url_template\":true}")));
	EXPECT_JSON(j, "realm_linkifiers", "[]");
}

/* ---- realm --------------------------------------------------------------------------------------------------- */

static void test_realm(void)
{
	struct user *o = new_realm();
	int64_t rid = realm_of(o);
	json_object *j = reg_ok(o, fetch("[\"realm\"]"));
	EXPECT_INT(j, "max_topic_length", 60);
	EXPECT_INT(j, "max_message_length", 10000);
	EXPECT_INT(j, "max_stream_name_length", 60);
	EXPECT_INT(j, "max_stream_description_length", 1024);
	EXPECT_INT(j, "server_typing_started_expiry_period_milliseconds", 45000);
	EXPECT_INT(j, "server_typing_stopped_wait_period_milliseconds", 12000);
	EXPECT_INT(j, "server_typing_started_wait_period_milliseconds", 30000);
	EXPECT_INT(j, "event_queue_longpoll_timeout_seconds", 90);
	EXPECT_STR(j, "realm_empty_topic_display_name", "general chat");
	EXPECT_JSON(j, "server_report_message_types",
	            "[{\"key\":\"spam\",\"name\":\"Spam\"},{\"key\":\"harassment\",\"name\":\"Harassment\"},"
	            "{\"key\":\"inappropriate\",\"name\":\"Inappropriate content\"},"
	            "{\"key\":\"norms\",\"name\":\"Violates community norms\"},"
	            "{\"key\":\"other\",\"name\":\"Other reason\"}]");
	EXPECT_STR(j, "realm_name", psql_ok("SELECT name FROM realms WHERE id = %lld", (long long)rid));
	EXPECT_STR(j, "realm_description", "");
	struct resp *s = http(&(struct request){.path = "/api/v1/server_settings", .host = realm_host(o->realm)});
	EXPECT_STR(j, "realm_url", jstr(s->json, "realm_url"));
	EXPECT_STR(j, "realm_uri", jstr(s->json, "realm_url"));
	EXPECT_INT(j, "zulip_feature_level", 496);
	EXPECT_BOOL(j, "realm_allow_message_editing", true);
	EXPECT_INT(j, "realm_message_content_edit_limit_seconds", 600);
	EXPECT_INT(j, "realm_move_messages_within_stream_limit_seconds", 604800);
	EXPECT_INT(j, "realm_move_messages_between_streams_limit_seconds", 604800);
	EXPECT_INT(j, "realm_moderation_request_channel_id", -1);
	EXPECT_STR(j, "realm_topics_policy", "allow_empty_topic");
	EXPECT_BOOL(j, "realm_mandatory_topics", false);
	EXPECT_INT(j, "realm_can_create_groups", sysgroup(rid, "role:members"));
	EXPECT_INT(j, "realm_can_manage_all_groups", sysgroup(rid, "role:owners"));
	EXPECT_INT(j, "realm_can_access_all_users_group", sysgroup(rid, "role:everyone"));
	EXPECT_INT(j, "realm_create_multiuse_invite_group", sysgroup(rid, "role:administrators"));
	EXPECT_INT(j, "realm_direct_message_permission_group", sysgroup(rid, "role:everyone"));
	CHECK(!jhas(j, "realm_users") && !jhas(j, "subscriptions"), "only the realm type was asked for");
	/* Changed settings, and a setting held by an unnamed group. */
	int64_t ch = make_channel(o, name_of("moderation"), NULL, "invite_only=true");
	int64_t group =
	    atoll(psql_ok("SELECT confab_unnamed_group(%lld, NULL, ARRAY[%lld]::bigint[], ARRAY[%lld]::bigint[])",
	                  (long long)rid, (long long)o->id, (long long)sysgroup(rid, "role:moderators")));
	psql_ok("UPDATE realms SET allow_message_editing = false, message_content_edit_limit_seconds = NULL,"
	        " topics_policy = 'disable_empty_topic', moderation_request_channel_id = %lld,"
	        " can_create_groups_id = %lld, description = 'About **us**' WHERE id = %lld",
	        (long long)ch, (long long)group, (long long)rid);
	j = reg_ok(o, fetch("[\"realm\"]"));
	EXPECT_BOOL(j, "realm_allow_message_editing", false);
	EXPECT_NULL(j, "realm_message_content_edit_limit_seconds");
	EXPECT_STR(j, "realm_topics_policy", "disable_empty_topic");
	EXPECT_BOOL(j, "realm_mandatory_topics", true);
	EXPECT_INT(j, "realm_moderation_request_channel_id", ch);
	EXPECT_STR(j, "realm_description", "About **us**");
	EXPECT_JSON(j, "realm_can_create_groups",
	            fmt("{\"direct_members\":[%lld],\"direct_subgroups\":[%lld]}", (long long)o->id,
	                (long long)sysgroup(rid, "role:moderators")));
}

/* ---- realm_user ---------------------------------------------------------------------------------------------- */

static void test_realm_user(void)
{
	struct user *o = new_realm();
	struct user *m = new_user_in(o->realm, "member", NULL), *gone = new_user_in(o->realm, "member", NULL);
	struct user *g = new_user_in(o->realm, "guest", NULL);
	struct user *bot = new_user_in(o->realm, "member", (const char *const[]){"--bot", NULL});
	deactivate_user(gone);
	json_object *j = reg_ok(m, fetch("[\"realm_user\"]"));
	json_object *users = jget(j, "realm_users"), *inactive = jget(j, "realm_non_active_users");
	REQUIRE(users && inactive, "lists: %s", jtext(j));
	CHECK(json_object_array_length(users) == 4, "4 active users: %s", jtext(users));
	int64_t last = 0;
	for (size_t i = 0; i < json_object_array_length(users); i++) {
		json_object *p = json_object_array_get_idx(users, i);
		CHECK(jint(p, "user_id") > last, "realm_users sorted by user_id: %s", jtext(users));
		last = jint(p, "user_id");
		EXPECT_ABSENT(p, "is_active");
		CHECK(jhas(p, "profile_data") == (p != NULL && jbool(p, "is_bot") == 0),
		      "profile_data for humans only: %s", jtext(p));
	}
	CHECK(find_by(users, "user_id", g->id) && find_by(users, "user_id", bot->id), "guest and bot listed");
	REQUIRE(json_object_array_length(inactive) == 1, "one deactivated user: %s", jtext(inactive));
	EXPECT_INT(json_object_array_get_idx(inactive, 0), "user_id", gone->id);
	EXPECT_ABSENT(json_object_array_get_idx(inactive, 0), "is_active");
	EXPECT_JSON(j, "cross_realm_bots", "[]");
	/* The same objects as GET /users, but for is_active. */
	struct resp *r = api_get(m, "/users?include_custom_profile_fields=true");
	json_object *listed = find_member(jget(r->json, "members"), o->id);
	json_object_object_del(listed, "is_active");
	EXPECT_SAME(find_by(users, "user_id", o->id), listed, "owner");
	/* client_gravatar defaults to true: Gravatar users' avatar_url is left to the client. */
	EXPECT_NULL(find_by(users, "user_id", o->id), "avatar_url");
	json_object *p =
	    find_by(jget(reg_ok(m, fmt("%s&client_gravatar=false", fetch("[\"realm_user\"]"))), "realm_users"),
	            "user_id", o->id);
	CHECK(jstr(p, "avatar_url") && strncmp(jstr(p, "avatar_url"), "https://secure.gravatar.com/avatar/", 35) == 0,
	      "client_gravatar=false: %s", jtext(p));
	/* The requester's own fields. */
	EXPECT_INT(j, "user_id", m->id);
	EXPECT_STR(j, "email", m->email);
	EXPECT_STR(j, "delivery_email", m->email);
	EXPECT_STR(j, "full_name", jstr(find_by(users, "user_id", m->id), "full_name"));
	EXPECT_BOOL(j, "is_admin", false);
	EXPECT_BOOL(j, "is_owner", false);
	EXPECT_BOOL(j, "is_moderator", false);
	EXPECT_BOOL(j, "is_guest", false);
	EXPECT_STR(j, "avatar_source", "G");
	const char *avatar = jstr(j, "avatar_url");
	CHECK(avatar && strncmp(avatar, "https://secure.gravatar.com/avatar/", 35) == 0, "own avatar_url: %s",
	      jtext(j));
	EXPECT_STR(j, "avatar_url_medium", fmt("%s&s=500", avatar ? avatar : ""));
	EXPECT_BOOL(j, "can_create_public_streams", true);
	EXPECT_BOOL(j, "can_create_private_streams", true);
	EXPECT_BOOL(j, "can_create_web_public_streams", false);
	EXPECT_BOOL(j, "can_create_streams", true);
	EXPECT_BOOL(j, "can_invite_others_to_realm", true);
	j = reg_ok(g, fetch("[\"realm_user\"]"));
	EXPECT_BOOL(j, "is_guest", true);
	EXPECT_BOOL(j, "can_create_streams", false);
	EXPECT_BOOL(j, "can_invite_others_to_realm", false);
	j = reg_ok(o, fetch("[\"realm_user\"]"));
	EXPECT_BOOL(j, "is_owner", true);
	EXPECT_BOOL(j, "is_admin", true);
	EXPECT_BOOL(j, "is_moderator", true);
	EXPECT_BOOL(j, "can_create_web_public_streams", true);
}

/* ---- realm_user_groups --------------------------------------------------------------------------------------- */

static void test_realm_user_groups(void)
{
	struct user *o = new_realm();
	struct user *m = new_user_in(o->realm, "member", NULL);
	const char *members = id_list(m->id, 0);
	struct resp *r =
	    api_post(o, "/user_groups/create",
	             fmt("name=%s&description=d&members=%s", url_encode(name_of("kept")), url_encode(members)));
	EXPECT_SUCCESS(r);
	r = api_post(o, "/user_groups/create",
	             fmt("name=%s&description=d&members=%s", url_encode(name_of("gone")), url_encode(members)));
	EXPECT_SUCCESS(r);
	int64_t gone = jint(r->json, "group_id");
	EXPECT_SUCCESS(api_post(o, fmt("/user_groups/%lld/deactivate", (long long)gone), ""));
	/* Exactly GET /user_groups, sorted by id, deactivated groups only with include_deactivated_groups. */
	json_object *j = reg_ok(m, fetch("[\"realm_user_groups\"]"));
	r = api_get(m, "/user_groups");
	EXPECT_JSON(j, "realm_user_groups", jtext(jget(r->json, "user_groups")));
	CHECK(find_by(jget(j, "realm_user_groups"), "id", gone) == NULL, "deactivated group listed");
	j = reg_ok(m, fmt("%s&client_capabilities=%s", fetch("[\"realm_user_groups\"]"),
	                  url_encode("{\"notification_settings_null\":false,\"include_deactivated_groups\":true}")));
	r = api_get(m, "/user_groups?include_deactivated_groups=true");
	EXPECT_JSON(j, "realm_user_groups", jtext(jget(r->json, "user_groups")));
	EXPECT_BOOL(find_by(jget(j, "realm_user_groups"), "id", gone), "deactivated", true);
	json_object *list = jget(j, "realm_user_groups");
	for (size_t i = 1; list && i < json_object_array_length(list); i++)
		CHECK(jint(json_object_array_get_idx(list, i - 1), "id") <
		          jint(json_object_array_get_idx(list, i), "id"),
		      "sorted by id: %s", jtext(list));
	/* Guests see them too (unlike GET /user_groups). */
	struct user *g = new_user_in(o->realm, "guest", NULL);
	CHECK(json_object_array_length(jget(reg_ok(g, fetch("[\"realm_user_groups\"]")), "realm_user_groups")) ==
	          json_object_array_length(jget(api_get(m, "/user_groups")->json, "user_groups")),
	      "guest's groups");
}

/* ---- subscription and stream --------------------------------------------------------------------------------- */

static const char *names_of(json_object *list)
{
	char *s = fmt("%s", "");
	for (size_t i = 0; list && i < json_object_array_length(list); i++)
		s = fmt("%s%s%s", s, i ? "," : "", jstr(json_object_array_get_idx(list, i), "name"));
	return s;
}

static void test_subscription_lists(void)
{
	struct user *o = new_realm();
	struct user *m = new_user_in(o->realm, "member", NULL);
	/* Names sort as b, c, d, e, f. */
	const char *sub = letter('b', true), *never = letter('c', false), *hidden = letter('d', false);
	const char *left = letter('e', false), *archived = letter('f', false);
	int64_t sub_id = make_channel(o, sub, id_list(o->id, m->id), NULL);
	make_channel(o, never, NULL, NULL);
	make_channel(o, hidden, NULL, "invite_only=true");
	int64_t left_id = make_channel(o, left, id_list(o->id, m->id), NULL);
	int64_t arch_id = make_channel(o, archived, id_list(o->id, m->id), NULL);
	psql_ok("UPDATE channels SET is_archived = true WHERE id = %lld", (long long)arch_id);
	EXPECT_SUCCESS(
	    api_post(m, "/users/me/subscriptions/properties",
	             fmt("subscription_data=%s",
	                 url_encode(fmt("[{\"stream_id\":%lld,\"property\":\"color\",\"value\":\"#123456\"}]",
	                                (long long)left_id)))));
	struct resp *r =
	    api_method("DELETE", m, fmt("/users/me/subscriptions?subscriptions=%s", url_encode(fmt("[\"%s\"]", left))));
	EXPECT_SUCCESS(r);
	json_object *j = reg_ok(m, fetch("[\"subscription\"]"));
	EXPECT_KEYS(j, "result", "msg", "queue_id", "last_event_id", "zulip_version", "zulip_feature_level",
	            "zulip_merge_base", "idle_queue_timeout_secs", "subscriptions", "unsubscribed", "never_subscribed");
	CHECK(strcmp(names_of(jget(j, "subscriptions")), sub) == 0, "subscriptions: %s",
	      names_of(jget(j, "subscriptions")));
	CHECK(strcmp(names_of(jget(j, "unsubscribed")), left) == 0, "unsubscribed: %s",
	      names_of(jget(j, "unsubscribed")));
	CHECK(strcmp(names_of(jget(j, "never_subscribed")), never) == 0, "never_subscribed: %s",
	      names_of(jget(j, "never_subscribed")));
	/* The subscription object is GET /users/me/subscriptions' (no subscribers asked for); the old color stays. */
	json_object *s = json_object_array_get_idx(jget(j, "subscriptions"), 0);
	r = api_get(m, "/users/me/subscriptions");
	json_object *listed = find_by(jget(r->json, "subscriptions"), "stream_id", sub_id);
	/* Without notification_settings_null, the notification settings left to the user's defaults are false. */
	static const char *const notif[] = {"desktop_notifications", "audible_notifications", "push_notifications",
	                                    "email_notifications"};
	for (size_t i = 0; i < 4; i++) {
		EXPECT_BOOL(s, notif[i], false);
		json_object_object_add(listed, notif[i], json_object_new_boolean(false));
	}
	EXPECT_NULL(s, "wildcard_mentions_notify");
	EXPECT_SAME(s, listed, "subscription");
	json_object *u = json_object_array_get_idx(jget(j, "unsubscribed"), 0);
	EXPECT_STR(u, "color", "#123456");
	EXPECT_INT(u, "stream_id", left_id);
	json_object *n = json_object_array_get_idx(jget(j, "never_subscribed"), 0);
	CHECK(!jhas(n, "color") && !jhas(n, "subscribers") && jhas(n, "stream_weekly_traffic"), "never_subscribed: %s",
	      jtext(n));
	/* notification_settings_null: nulls stay. */
	j = reg_ok(m, fmt("%s&client_capabilities=%s", fetch("[\"subscription\"]"),
	                  url_encode("{\"notification_settings_null\":true}")));
	EXPECT_NULL(json_object_array_get_idx(jget(j, "subscriptions"), 0), "desktop_notifications");
	/* archived_channels: archived channels too. */
	j = reg_ok(m, fmt("%s&client_capabilities=%s", fetch("[\"subscription\"]"),
	                  url_encode("{\"notification_settings_null\":false,\"archived_channels\":true}")));
	CHECK(strcmp(names_of(jget(j, "subscriptions")), fmt("%s,%s", sub, archived)) == 0, "archived: %s",
	      names_of(jget(j, "subscriptions")));
	EXPECT_BOOL(json_object_array_get_idx(jget(j, "subscriptions"), 1), "is_archived", true);
	/* An administrator sees the private channel among never_subscribed; a guest sees none of them. */
	j = reg_ok(new_user_in(o->realm, "admin", NULL), fetch("[\"subscription\"]"));
	CHECK(strcmp(names_of(jget(j, "never_subscribed")), fmt("%s,%s,%s,%s", sub, never, hidden, left)) == 0,
	      "admin's never_subscribed: %s", names_of(jget(j, "never_subscribed")));
	j = reg_ok(new_user_in(o->realm, "guest", NULL), fetch("[\"subscription\"]"));
	EXPECT_JSON(j, "never_subscribed", "[]");
}

static void test_subscribers(void)
{
	struct user *o = new_realm();
	struct user *m = new_user_in(o->realm, "member", NULL), *other = new_user_in(o->realm, "member", NULL);
	const char *pub = letter('a', true), *priv = letter('b', false);
	int64_t pub_id = make_channel(o, pub, id_list(o->id, m->id), NULL);
	int64_t priv_id = make_channel(o, priv, id_list(o->id, other->id), "invite_only=true");
	json_object *j = reg_ok(m, fmt("%s&include_subscribers=true", fetch("[\"subscription\"]")));
	json_object *s = find_by(jget(j, "subscriptions"), "stream_id", pub_id);
	EXPECT_JSON(s, "subscribers", id_list(o->id, m->id));
	EXPECT_ABSENT(s, "partial_subscribers");
	/* An administrator sees the subscribers of channels among never_subscribed, private ones included. */
	j = reg_ok(new_user_in(o->realm, "admin", NULL),
	           fmt("%s&include_subscribers=true", fetch("[\"subscription\"]")));
	EXPECT_JSON(find_by(jget(j, "never_subscribed"), "stream_id", priv_id), "subscribers",
	            id_list(o->id, other->id));
	EXPECT_JSON(find_by(jget(j, "never_subscribed"), "stream_id", pub_id), "subscribers", id_list(o->id, m->id));
	/* Without the parameter, no subscriber lists. */
	j = reg_ok(m, fetch("[\"subscription\"]"));
	EXPECT_ABSENT(find_by(jget(j, "subscriptions"), "stream_id", pub_id), "subscribers");
	/* partial: channels with 250 or more subscribers get partial_subscribers, smaller ones the full list. */
	const char *big = letter('c', false);
	int64_t big_id = make_channel(o, big, id_list(o->id, m->id), NULL);
	int64_t rid = realm_of(o);
	psql_ok(
	    "INSERT INTO users (realm_id, delivery_email, full_name) SELECT %lld, 'bulk-%lld-' || g || '@example.com',"
	    " 'Bulk ' || g FROM generate_series(1, 248) g",
	    (long long)rid, (long long)rid);
	psql_ok("INSERT INTO subscriptions (user_id, channel_id) SELECT id, %lld FROM users"
	        " WHERE realm_id = %lld AND delivery_email LIKE 'bulk-%%'",
	        (long long)big_id, (long long)rid);
	j = reg_ok(m, fmt("%s&include_subscribers=partial", fetch("[\"subscription\"]")));
	json_object *b = find_by(jget(j, "subscriptions"), "stream_id", big_id);
	EXPECT_ABSENT(b, "subscribers");
	CHECK(json_object_array_length(jget(b, "partial_subscribers")) == 250, "partial_subscribers: %zu",
	      json_object_array_length(jget(b, "partial_subscribers")));
	EXPECT_INT(b, "subscriber_count", 250);
	EXPECT_JSON(find_by(jget(j, "subscriptions"), "stream_id", pub_id), "subscribers", id_list(o->id, m->id));
	j = reg_ok(m, fmt("%s&include_subscribers=true", fetch("[\"subscription\"]")));
	CHECK(json_object_array_length(jget(find_by(jget(j, "subscriptions"), "stream_id", big_id), "subscribers")) ==
	          250,
	      "include_subscribers=true: full list");
}

static void test_streams(void)
{
	struct user *o = new_realm();
	struct user *m = new_user_in(o->realm, "member", NULL), *g = new_user_in(o->realm, "guest", NULL);
	const char *a = letter('a', true), *b = letter('b', false), *c = letter('c', false);
	int64_t a_id = make_channel(o, a, NULL, NULL);
	make_channel(o, b, id_list(o->id, g->id), "invite_only=true");
	make_channel(o, c, NULL, "invite_only=true");
	json_object *j = reg_ok(m, fetch("[\"stream\"]"));
	CHECK(strcmp(names_of(jget(j, "streams")), a) == 0, "member's streams: %s", names_of(jget(j, "streams")));
	/* The channel object of GET /streams/{id}. */
	struct resp *r = api_get(m, fmt("/streams/%lld", (long long)a_id));
	REQUIRE(json_object_array_length(jget(j, "streams")) == 1, "one stream");
	EXPECT_SAME(json_object_array_get_idx(jget(j, "streams"), 0), jget(r->json, "stream"), "stream");
	j = reg_ok(g, fetch("[\"stream\"]"));
	CHECK(strcmp(names_of(jget(j, "streams")), b) == 0, "guest's streams: %s", names_of(jget(j, "streams")));
	j = reg_ok(o, fetch("[\"stream\"]"));
	CHECK(strcmp(names_of(jget(j, "streams")), fmt("%s,%s,%s", a, b, c)) == 0, "owner's streams: %s",
	      names_of(jget(j, "streams")));
}

static void test_channel_folders(void)
{
	struct user *o = new_realm();
	struct resp *r = api_post(o, "/channel_folders/create", "name=Projects&description=Work%20*stuff*");
	EXPECT_SUCCESS(r);
	int64_t id = jint(r->json, "channel_folder_id");
	json_object *j = reg_ok(new_user_in(o->realm, "member", NULL), fetch("[\"channel_folders\"]"));
	r = api_get(o, "/channel_folders");
	EXPECT_JSON(j, "channel_folders", jtext(jget(r->json, "channel_folders")));
	EXPECT_INT(json_object_array_get_idx(jget(j, "channel_folders"), 0), "id", id);
	/* Archived folders too. */
	psql_ok("UPDATE channel_folders SET is_archived = true WHERE id = %lld", (long long)id);
	j = reg_ok(o, fetch("[\"channel_folders\"]"));
	EXPECT_BOOL(json_object_array_get_idx(jget(j, "channel_folders"), 0), "is_archived", true);
}

/* ---- messages ------------------------------------------------------------------------------------------------ */

static void test_unread_msgs(void)
{
	struct user *o = new_realm();
	struct user *me = new_user_in(o->realm, "member", NULL), *a = new_user_in(o->realm, "member", NULL);
	struct user *b = new_user_in(o->realm, "member", NULL);
	const char *ch = name_of("unread"), *muted = name_of("muted");
	int64_t ch_id = make_channel(o, ch, id_list(me->id, a->id), NULL);
	int64_t muted_id = make_channel(o, muted, id_list(me->id, 0), NULL);
	psql_ok("UPDATE subscriptions SET is_muted = true WHERE user_id = %lld AND channel_id = %lld",
	        (long long)me->id, (long long)muted_id);
	const char *my_name = jstr(api_get(me, "/users/me")->json, "full_name");
	int64_t t1 = send_channel_message(a, ch, "Topic", "one");
	int64_t t2 = send_channel_message(a, ch, "topic", fmt("@**%s** two", my_name));
	int64_t t3 = send_channel_message(a, ch, "Topic", "two and a half");
	int64_t empty = send_channel_message(a, ch, "general chat", "three");
	int64_t mw = send_channel_message(o, muted, "x", "@**all** muted wildcard");
	int64_t dm1 = send_direct_message(a, id_list(me->id, 0), "dm");
	int64_t dm2 = send_direct_message(b, id_list(me->id, 0), "dm");
	int64_t grp = send_direct_message(a, fmt("[%lld,%lld]", (long long)me->id, (long long)b->id), "group");
	struct resp *r = api_post(
	    me, "/messages", fmt("type=direct&to=%s&content=mine&read_by_sender=true", url_encode(id_list(a->id, 0))));
	EXPECT_SUCCESS(r);
	int64_t mine = jint(r->json, "id");
	json_object *j = reg_ok(me, fetch("[\"message\",\"update_message_flags\"]"));
	EXPECT_INT(j, "max_message_id", mine);
	json_object *u = jget(j, "unread_msgs");
	EXPECT_KEYS(u, "pms", "streams", "huddles", "mentions", "count", "old_unreads_missing");
	EXPECT_JSON(u, "pms",
	            fmt("[{\"other_user_id\":%lld,\"sender_id\":%lld,\"unread_message_ids\":[%lld]},"
	                "{\"other_user_id\":%lld,\"sender_id\":%lld,\"unread_message_ids\":[%lld]}]",
	                (long long)a->id, (long long)a->id, (long long)dm1, (long long)b->id, (long long)b->id,
	                (long long)dm2));
	/* Topics group ignoring case (their ids in order), named as the first unread message; the empty topic as
	 * "general chat". */
	EXPECT_JSON(u, "streams",
	            fmt("[{\"stream_id\":%lld,\"topic\":\"general chat\",\"unread_message_ids\":[%lld]},"
	                "{\"stream_id\":%lld,\"topic\":\"Topic\",\"unread_message_ids\":[%lld,%lld,%lld]},"
	                "{\"stream_id\":%lld,\"topic\":\"x\",\"unread_message_ids\":[%lld]}]",
	                (long long)ch_id, (long long)empty, (long long)ch_id, (long long)t1, (long long)t2,
	                (long long)t3, (long long)muted_id, (long long)mw));
	int64_t lo = me->id < b->id ? me->id : b->id, hi = me->id < b->id ? b->id : me->id;
	int64_t ids[3] = {a->id, lo, hi};
	if (ids[0] > ids[1]) {
		int64_t t = ids[0];
		ids[0] = ids[1], ids[1] = t;
	}
	if (ids[1] > ids[2]) {
		int64_t t = ids[1];
		ids[1] = ids[2], ids[2] = t;
	}
	EXPECT_JSON(u, "huddles",
	            fmt("[{\"user_ids_string\":\"%lld,%lld,%lld\",\"unread_message_ids\":[%lld]}]", (long long)ids[0],
	                (long long)ids[1], (long long)ids[2], (long long)grp));
	/* A direct mention counts; a wildcard mention in a muted channel does not, and muted messages are not counted.
	 */
	EXPECT_JSON(u, "mentions", fmt("[%lld]", (long long)t2));
	EXPECT_INT(u, "count", 7);
	EXPECT_BOOL(u, "old_unreads_missing", false);
	/* empty_topic_name: the empty topic as it is. */
	j = reg_ok(me, fmt("%s&client_capabilities=%s", fetch("[\"message\",\"update_message_flags\"]"),
	                   url_encode("{\"notification_settings_null\":false,\"empty_topic_name\":true}")));
	CHECK(strstr(jtext(jget(jget(j, "unread_msgs"), "streams")), "\"topic\":\"\"") != NULL, "empty topic: %s",
	      jtext(jget(j, "unread_msgs")));
	/* Messages read, or of a channel left, are not unread. */
	EXPECT_SUCCESS(api_post(
	    me, "/messages/flags",
	    fmt("messages=%s&op=add&flag=read", url_encode(fmt("[%lld,%lld]", (long long)dm1, (long long)dm2)))));
	EXPECT_SUCCESS(
	    api_method("DELETE", me, fmt("/users/me/subscriptions?subscriptions=%s", url_encode(fmt("[\"%s\"]", ch)))));
	u = jget(reg_ok(me, fetch("[\"message\",\"update_message_flags\"]")), "unread_msgs");
	EXPECT_JSON(u, "pms", "[]");
	CHECK(strstr(jtext(jget(u, "streams")), fmt("\"stream_id\":%lld,", (long long)ch_id)) == NULL,
	      "left channel still unread: %s", jtext(u));
	EXPECT_INT(u, "count", 1);
}

static void test_recent_private_conversations(void)
{
	struct user *o = new_realm();
	struct user *me = new_user_in(o->realm, "member", NULL), *a = new_user_in(o->realm, "member", NULL);
	struct user *b = new_user_in(o->realm, "member", NULL);
	json_object *j = reg_ok(me, fetch("[\"recent_private_conversations\"]"));
	EXPECT_JSON(j, "recent_private_conversations", "[]");
	send_direct_message(a, id_list(me->id, 0), "1");
	int64_t to_self = send_direct_message(me, id_list(me->id, 0), "2");
	int64_t group = send_direct_message(b, fmt("[%lld,%lld]", (long long)me->id, (long long)a->id), "3");
	int64_t with_a = send_direct_message(me, id_list(a->id, 0), "4");
	const char *ch = name_of("ignored");
	make_channel(o, ch, id_list(o->id, me->id), NULL);
	send_channel_message(o, ch, "t", "x");
	j = reg_ok(me, fetch("[\"recent_private_conversations\"]"));
	int64_t lo = a->id < b->id ? a->id : b->id, hi = a->id < b->id ? b->id : a->id;
	EXPECT_JSON(
	    j, "recent_private_conversations",
	    fmt("[{\"user_ids\":[%lld],\"max_message_id\":%lld},{\"user_ids\":[%lld,%lld],\"max_message_id\":%lld},"
	        "{\"user_ids\":[],\"max_message_id\":%lld}]",
	        (long long)a->id, (long long)with_a, (long long)lo, (long long)hi, (long long)group,
	        (long long)to_self));
}

/* ---- spectators ---------------------------------------------------------------------------------------------- */

static void test_spectator(void)
{
	struct user *o = new_realm();
	const char *msg = "Not logged in: API authentication or user session required";
	EXPECT_ERROR(reg_anon(o->realm, NULL), 401, "UNAUTHORIZED", msg);
	/* Parameters are checked first (as the reference's typed_endpoint), then access. */
	EXPECT_ERROR(reg_anon(o->realm, "client_gravatar=5"), 400, "BAD_REQUEST", "client_gravatar is not a boolean");
	EXPECT_ERROR(reg_anon(o->realm, "client_gravatar=true"), 401, "UNAUTHORIZED", msg);
	psql_ok("UPDATE realms SET enable_spectator_access = true WHERE subdomain = '%s'", o->realm);
	/* Spectator access needs a web-public channel too. */
	EXPECT_ERROR(reg_anon(o->realm, NULL), 401, "UNAUTHORIZED", msg);
	const char *web = letter('a', true), *pub = letter('b', false);
	int64_t web_id = make_channel(o, web, NULL, "is_web_public=true");
	make_channel(o, pub, NULL, NULL);
	struct resp *r = reg_anon(o->realm, NULL);
	REQUIRE(r->status == 200, "spectator register: %s", r->body);
	json_object *j = r->json;
	EXPECT_NULL(j, "queue_id");
	EXPECT_ABSENT(j, "last_event_id");
	EXPECT_ABSENT(j, "idle_queue_timeout_secs");
	EXPECT_ABSENT(j, "streams");
	EXPECT_INT(j, "zulip_feature_level", 496);
	EXPECT_BOOL(j, "realm_allow_message_editing", false);
	EXPECT_INT(j, "max_message_id", -1);
	EXPECT_JSON(j, "recent_private_conversations", "[]");
	EXPECT_INT(j, "user_id", 0);
	EXPECT_STR(j, "full_name", "Anonymous User");
	EXPECT_BOOL(j, "is_guest", true);
	CHECK(find_by(jget(j, "realm_users"), "user_id", o->id) != NULL, "spectators see the users: %s",
	      jtext(jget(j, "realm_users")));
	CHECK(!jhas(find_by(jget(j, "realm_users"), "user_id", o->id), "profile_data"), "no profile data");
	/* Web-public channels only, shown as a new subscription. */
	json_object *subs = jget(j, "subscriptions");
	REQUIRE(subs && json_object_array_length(subs) == 1, "subscriptions: %s", jtext(subs));
	json_object *s = json_object_array_get_idx(subs, 0);
	EXPECT_INT(s, "stream_id", web_id);
	EXPECT_STR(s, "color", "#76ce90");
	EXPECT_BOOL(s, "desktop_notifications", true);
	EXPECT_BOOL(s, "is_muted", false);
	EXPECT_BOOL(s, "in_home_view", true);
	EXPECT_ABSENT(s, "subscribers");
	EXPECT_JSON(j, "unsubscribed", "[]");
	EXPECT_JSON(j, "never_subscribed", "[]");
	/* Parameters a spectator may not set. */
	EXPECT_SUCCESS(reg_anon(o->realm, fmt("client_gravatar=false&%s", fetch("[]"))));
	EXPECT_ERROR(reg_anon(o->realm, "client_gravatar=true"), 400, "BAD_REQUEST",
	             "Invalid 'client_gravatar' parameter for anonymous request");
	EXPECT_ERROR(reg_anon(o->realm, "include_subscribers=true"), 400, "BAD_REQUEST",
	             "Invalid 'include_subscribers' parameter for anonymous request");
	EXPECT_ERROR(reg_anon(o->realm, "include_subscribers=partial"), 400, "BAD_REQUEST",
	             "Invalid 'include_subscribers' parameter for anonymous request");
	/* all_public_streams is simply off for spectators. */
	CHECK(reg_anon(o->realm, fmt("all_public_streams=true&%s", fetch("[]")))->status == 200, "all_public_streams");
	/* Credentials are still checked when sent. */
	r = http(&(struct request){.method = "POST",
	                           .path = "/api/v1/register",
	                           .host = realm_host(o->realm),
	                           .auth_email = o->email,
	                           .auth_key = "0123456789abcdef0123456789abcdef"});
	EXPECT_ERROR(r, 401, "UNAUTHORIZED", "Invalid API key");
	/* Without spectator access again: 401. */
	psql_ok("UPDATE realms SET enable_spectator_access = false WHERE subdomain = '%s'", o->realm);
	EXPECT_ERROR(reg_anon(o->realm, NULL), 401, "UNAUTHORIZED", msg);
}

/*
 * The pipeline's order for a route open to spectators (R_AUTH_OPTIONAL), as the reference's rest_dispatch: sent
 * credentials are checked before any parameter; without them, a spectator of an organization that lets them in
 * gets the parameter errors of an anonymous request, and a registration without a queue.
 */
static void test_spectator_pipeline(void)
{
	struct user *o = new_realm();
	psql_ok("UPDATE realms SET enable_spectator_access = true WHERE subdomain = '%s'", o->realm);
	make_channel(o, letter('a', true), NULL, "is_web_public=true");
	EXPECT_ERROR(reg_anon(o->realm, "client_gravatar=true"), 400, "BAD_REQUEST",
	             "Invalid 'client_gravatar' parameter for anonymous request");
	EXPECT_ERROR(reg_anon(o->realm, "include_subscribers=true"), 400, "BAD_REQUEST",
	             "Invalid 'include_subscribers' parameter for anonymous request");
	struct resp *r = reg_anon(o->realm, fetch("[\"realm\"]"));
	EXPECT_SUCCESS(r);
	EXPECT_NULL(r->json, "queue_id");
	/* A wrong key is refused before a parameter is looked at. */
	r = http(&(struct request){.method = "POST",
	                           .path = "/api/v1/register",
	                           .host = realm_host(o->realm),
	                           .form = "apply_markdown=maybe",
	                           .auth_email = o->email,
	                           .auth_key = "0123456789abcdef0123456789abcdef"});
	EXPECT_ERROR(r, 401, "UNAUTHORIZED", "Invalid API key");
	/* A right one registers a queue as usual. */
	r = api_post(o, "/register", fetch("[\"realm\"]"));
	EXPECT_SUCCESS(r);
	CHECK(jstr(r->json, "queue_id") != NULL, "%s", r->body);
}

void register_register_tests(void)
{
	static const struct itest_case cases[] = {
	    {"queue_and_versions", test_queue_and_versions},
	    {"events_after_register", test_events_after_register},
	    {"idle_queue_timeout", test_idle_queue_timeout},
	    {"parameter_errors", test_parameter_errors},
	    {"all_public_streams", test_all_public_streams},
	    {"fetch_types_select_keys", test_fetch_types_select_keys},
	    {"event_types_filter_queue", test_event_types_filter_queue},
	    {"empty_types", test_empty_types},
	    {"realm", test_realm},
	    {"realm_user", test_realm_user},
	    {"realm_user_groups", test_realm_user_groups},
	    {"subscription_lists", test_subscription_lists},
	    {"subscribers", test_subscribers},
	    {"streams", test_streams},
	    {"channel_folders", test_channel_folders},
	    {"unread_msgs", test_unread_msgs},
	    {"recent_private_conversations", test_recent_private_conversations},
	    {"spectator", test_spectator},
	    {"spectator_pipeline", test_spectator_pipeline},
	    {NULL, NULL},
	};
	itest_add_suite("register", cases);
}
