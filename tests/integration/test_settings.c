/*
 * User settings: PATCH /settings (every setting type and message), the user_settings events and their legacy
 * forms, the user_settings object of POST /register, and what the settings change elsewhere (typing, what others
 * see of an e-mail address, full_name).
 * Reference: Zulip zerver/views/user_settings.py (json_change_settings, check_settings_values),
 * zerver/models/users.py (UserBaseSettings), zerver/actions/user_settings.py (do_change_user_setting,
 * send_delivery_email_update_events, do_change_full_name), zerver/lib/events.py (user_settings in register),
 * zerver/lib/typed_endpoint_validators.py (the choice and time zone messages), zerver/decorator.py
 * (human_users_only); shapes from shared/reference/zulip-openapi.yaml (update-settings, register's user_settings,
 * the user_settings and realm_user update events).
 */
#include <stdlib.h>
#include <string.h>

#include "itest.h"

/* Every setting of the reference's user_settings object at feature level 496, with its default. */
static const struct {
	const char *name;
	bool def;
} bools[] = {
    {"allow_private_data_export", false},
    {"automatically_follow_topics_where_mentioned", true},
    {"display_emoji_reaction_users", true},
    {"enable_desktop_notifications", true},
    {"enable_digest_emails", true},
    {"enable_drafts_synchronization", true},
    {"enable_followed_topic_audible_notifications", true},
    {"enable_followed_topic_desktop_notifications", true},
    {"enable_followed_topic_email_notifications", true},
    {"enable_followed_topic_push_notifications", true},
    {"enable_followed_topic_wildcard_mentions_notify", true},
    {"enable_login_emails", true},
    {"enable_marketing_emails", true},
    {"enable_offline_email_notifications", true},
    {"enable_offline_push_notifications", true},
    {"enable_online_push_notifications", true},
    {"enable_sounds", true},
    {"enable_stream_audible_notifications", false},
    {"enable_stream_desktop_notifications", false},
    {"enable_stream_email_notifications", false},
    {"enable_stream_push_notifications", false},
    {"enter_sends", false},
    {"fluid_layout_width", false},
    {"high_contrast_mode", false},
    {"hide_ai_features", false},
    {"left_side_userlist", false},
    {"message_content_in_email_notifications", true},
    {"pm_content_in_desktop_notifications", true},
    {"presence_enabled", true},
    {"receives_typing_notifications", true},
    {"send_private_typing_notifications", true},
    {"send_read_receipts", true},
    {"send_stream_typing_notifications", true},
    {"starred_message_counts", true},
    {"translate_emoticons", false},
    {"twenty_four_hour_time", false},
    {"web_escape_navigates_to_home_view", true},
    {"web_navigate_to_sent_message", true},
    {"web_suggest_update_timezone", true},
    {"wildcard_mentions_notify", true},
};

static const struct {
	const char *name;
	int def, max; /* allowed: 1..max */
} ints[] = {
    {"automatically_follow_topics_policy", 3, 4},
    {"automatically_unmute_topics_in_muted_streams_policy", 2, 4},
    {"color_scheme", 1, 3},
    {"demote_inactive_streams", 1, 3},
    {"desktop_icon_count_display", 1, 4},
    {"email_address_visibility", 1, 5},
    {"realm_name_in_email_notifications_policy", 1, 3},
    {"user_list_style", 3, 3},
    {"web_channel_default_view", 1, 2},
    {"web_mark_read_on_scroll_policy", 1, 3},
    {"web_stream_unreads_count_display_policy", 2, 3},
};

#define NELEM(a) (sizeof(a) / sizeof((a)[0]))

static struct resp *patch(const struct user *u, const char *form)
{
	return http(&(struct request){.method = "PATCH", .path = "/api/v1/settings", .user = u, .form = form});
}

#define CAPS "&client_capabilities=" "%7B%22user_settings_object%22%3Atrue%7D"

/* The register response of u for fetch_event_types (a JSON list), with or without user_settings_object. */
static json_object *state(const struct user *u, const char *types, bool modern)
{
	struct resp *r = api_post(u, "/register", fmt("fetch_event_types=%s%s", url_encode(types), modern ? CAPS : ""));
	EXPECT_SUCCESS(r);
	REQUIRE(r->json != NULL, "register: %s", r->body);
	return r->json;
}

static json_object *settings_of(const struct user *u)
{
	json_object *s = jget(state(u, "[\"user_settings\"]", true), "user_settings");
	REQUIRE(s != NULL, "no user_settings");
	return s;
}

/* Whether got equals the JSON text want. */
static bool same(json_object *got, const char *want)
{
	json_object *w = json_tokener_parse(want);
	bool eq = w != NULL && json_object_equal(got, w);
	json_object_put(w);
	return eq;
}

/* A queue of u for the settings events (modern: with user_settings_object). */
static struct queue *settings_queue(const struct user *u, bool modern)
{
	const char *types = "[\"user_settings\",\"update_display_settings\",\"update_global_notifications\",\"realm_user\"]";
	return queue_register(u, fmt("event_types=%s%s", url_encode(types), modern ? CAPS : ""));
}

static char *setting_event(const char *property, const char *value)
{
	return fmt("{\"type\":\"user_settings\",\"op\":\"update\",\"property\":\"%s\",\"value\":%s}", property, value);
}

/* ---- register ----------------------------------------------------------------------------------------------- */

/* The user_settings object has exactly the reference's keys with their defaults, and the two choice lists. */
static void test_settings_register_object(void)
{
	struct user *u = new_user("member");
	json_object *s = settings_of(u);
	CHECK(json_object_object_length(s) == 62, "62 keys: %s", jtext(s));
	for (size_t i = 0; i < NELEM(bools); i++)
		EXPECT_BOOL(s, bools[i].name, bools[i].def);
	for (size_t i = 0; i < NELEM(ints); i++)
		EXPECT_INT(s, ints[i].name, ints[i].def);
	EXPECT_STR(s, "default_language", "en");
	EXPECT_STR(s, "emojiset", "google");
	EXPECT_STR(s, "notification_sound", "zulip");
	EXPECT_STR(s, "timezone", "");
	EXPECT_STR(s, "web_animate_image_previews", "on_hover");
	EXPECT_STR(s, "web_home_view", "inbox");
	EXPECT_INT(s, "email_notifications_batching_period_seconds", 120);
	EXPECT_INT(s, "web_font_size_px", 16);
	EXPECT_INT(s, "web_line_height_percent", 140);
	json_object *want = json_tokener_parse("[{\"key\":\"google\",\"text\":\"Google\"},{\"key\":\"twitter\",\"text\":"
	                                       "\"Twitter\"},{\"key\":\"text\",\"text\":\"Plain text\"},{\"key\":"
	                                       "\"google-blob\",\"text\":\"Google blobs\"}]");
	CHECK(json_object_equal(jget(s, "emojiset_choices"), want), "emojiset_choices: %s",
	      jtext(jget(s, "emojiset_choices")));
	json_object_put(want);
	json_object *sounds = jget(s, "available_notification_sounds");
	REQUIRE(json_object_is_type(sounds, json_type_array) && json_object_array_length(sounds) > 1, "sounds");
	CHECK(strcmp(json_object_get_string(json_object_array_get_idx(sounds, 0)), "ascend") == 0, "sorted sounds");
	/* Not asked for: no object. */
	EXPECT_ABSENT(state(u, "[\"realm_user\"]", true), "user_settings");
}

/* Without user_settings_object, update_display_settings and update_global_notifications give the legacy
 * top-level keys; with it, none. */
static void test_settings_register_legacy(void)
{
	struct user *u = new_user("member");
	EXPECT_SUCCESS(patch(u, "twenty_four_hour_time=true&enable_sounds=false"));
	json_object *s = state(u, "[\"update_display_settings\",\"update_global_notifications\"]", false);
	EXPECT_BOOL(s, "twenty_four_hour_time", true);
	EXPECT_BOOL(s, "enable_sounds", false);
	EXPECT_STR(s, "timezone", "");
	EXPECT_STR(s, "default_language", "en");
	EXPECT_INT(s, "email_notifications_batching_period_seconds", 120);
	CHECK(jhas(s, "emojiset_choices") && jhas(s, "available_notification_sounds"), "choice lists: %s", jtext(s));
	EXPECT_ABSENT(s, "user_settings");
	/* Settings newer than feature level 89 are not legacy keys. */
	EXPECT_ABSENT(s, "send_read_receipts");
	EXPECT_ABSENT(s, "email_address_visibility");
	s = state(u, "[\"update_display_settings\",\"update_global_notifications\"]", true);
	EXPECT_ABSENT(s, "twenty_four_hour_time");
	EXPECT_ABSENT(s, "enable_sounds");
	EXPECT_ABSENT(s, "emojiset_choices");
}

/* ---- PATCH /settings: values ---------------------------------------------------------------------------------- */

/* Every boolean setting takes both values; a non-boolean is the validator's error. */
static void test_settings_booleans(void)
{
	struct user *u = new_user("member");
	char *form = fmt("%s", "");
	for (size_t i = 0; i < NELEM(bools); i++)
		form = fmt("%s%s%s=%s", form, i ? "&" : "", bools[i].name, bools[i].def ? "false" : "true");
	EXPECT_SUCCESS(patch(u, form));
	json_object *s = settings_of(u);
	for (size_t i = 0; i < NELEM(bools); i++)
		EXPECT_BOOL(s, bools[i].name, !bools[i].def);
	EXPECT_ERROR(patch(u, "enter_sends=1"), 400, "BAD_REQUEST", "enter_sends is not a boolean");
	EXPECT_ERROR(patch(u, "enter_sends=yes"), 400, "BAD_REQUEST", "enter_sends is not valid JSON");
	/* A JSON null counts as not sent. */
	EXPECT_SUCCESS(patch(u, "enter_sends=null"));
	EXPECT_BOOL(settings_of(u), "enter_sends", true);
}

/* Every integer choice takes its values and refuses the others with the reference's words. */
static void test_settings_int_choices(void)
{
	struct user *u = new_user("member");
	for (size_t i = 0; i < NELEM(ints); i++) {
		EXPECT_ERROR(patch(u, fmt("%s=%d", ints[i].name, ints[i].max + 1)), 400, "BAD_REQUEST",
		             fmt("Invalid %s: Value error, Not in the list of possible values", ints[i].name));
		EXPECT_ERROR(patch(u, fmt("%s=0", ints[i].name)), 400, "BAD_REQUEST",
		             fmt("Invalid %s: Value error, Not in the list of possible values", ints[i].name));
		EXPECT_ERROR(patch(u, fmt("%s=%%221%%22", ints[i].name)), 400, "BAD_REQUEST",
		             fmt("%s is not an integer", ints[i].name));
		EXPECT_SUCCESS(patch(u, fmt("%s=%d", ints[i].name, ints[i].max)));
	}
	json_object *s = settings_of(u);
	for (size_t i = 0; i < NELEM(ints); i++)
		EXPECT_INT(s, ints[i].name, ints[i].max);
}

/* The string choices: emojiset, web_home_view, web_animate_image_previews. */
static void test_settings_string_choices(void)
{
	struct user *u = new_user("member");
	static const char *const bad[][2] = {
	    {"emojiset", "apple"}, {"web_home_view", "recent"}, {"web_animate_image_previews", "sometimes"}};
	for (size_t i = 0; i < NELEM(bad); i++)
		EXPECT_ERROR(patch(u, fmt("%s=%s", bad[i][0], bad[i][1])), 400, "BAD_REQUEST",
		             fmt("Invalid %s: Value error, Not in the list of possible values", bad[i][0]));
	EXPECT_SUCCESS(patch(u, "emojiset=google-blob&web_home_view=recent_topics&web_animate_image_previews=never"));
	json_object *s = settings_of(u);
	EXPECT_STR(s, "emojiset", "google-blob");
	EXPECT_STR(s, "web_home_view", "recent_topics");
	EXPECT_STR(s, "web_animate_image_previews", "never");
}

/* default_language, notification_sound and the batching period: check_settings_values's messages. */
static void test_settings_checked_values(void)
{
	struct user *u = new_user("member");
	EXPECT_ERROR(patch(u, "default_language=xx"), 400, "BAD_REQUEST", "Invalid default_language");
	EXPECT_ERROR(patch(u, "notification_sound=bogus"), 400, "BAD_REQUEST", "Invalid notification sound 'bogus'");
	EXPECT_ERROR(patch(u, "email_notifications_batching_period_seconds=0"), 400, "BAD_REQUEST",
	             "Invalid email batching period: 0 seconds");
	EXPECT_ERROR(patch(u, "email_notifications_batching_period_seconds=604801"), 400, "BAD_REQUEST",
	             "Invalid email batching period: 604801 seconds");
	/* The language is checked first. */
	EXPECT_ERROR(patch(u, "notification_sound=bogus&default_language=xx"), 400, "BAD_REQUEST",
	             "Invalid default_language");
	EXPECT_SUCCESS(patch(u, "default_language=de&notification_sound=ding"
	                        "&email_notifications_batching_period_seconds=604800"));
	json_object *s = settings_of(u);
	EXPECT_STR(s, "default_language", "de");
	EXPECT_STR(s, "notification_sound", "ding");
	EXPECT_INT(s, "email_notifications_batching_period_seconds", 604800);
	EXPECT_SUCCESS(patch(u, "notification_sound=none"));
	EXPECT_STR(settings_of(u), "notification_sound", "none");
}

/* timezone: names of the time zone database only; web_font_size_px, web_line_height_percent: column bounds. */
static void test_settings_timezone_and_sizes(void)
{
	struct user *u = new_user("member");
	static const char *const bad[] = {"Mars/Olympus", "..%2F..%2Fetc%2Fpasswd", "", "Europe", "zone.tab"};
	for (size_t i = 0; i < NELEM(bad); i++)
		EXPECT_ERROR(patch(u, fmt("timezone=%s", bad[i])), 400, "BAD_REQUEST",
		             "Invalid timezone: Value error, Not a recognized time zone");
	EXPECT_SUCCESS(patch(u, "timezone=America%2FArgentina%2FBuenos_Aires"));
	EXPECT_STR(settings_of(u), "timezone", "America/Argentina/Buenos_Aires");
	/* Stored under the name the database's Link lines make canonical. */
	EXPECT_SUCCESS(patch(u, "timezone=Asia%2FCalcutta"));
	EXPECT_STR(settings_of(u), "timezone", "Asia/Kolkata");
	EXPECT_ERROR(patch(u, "web_font_size_px=-1"), 400, "BAD_REQUEST", "web_font_size_px is too small");
	EXPECT_ERROR(patch(u, "web_line_height_percent=40000"), 400, "BAD_REQUEST",
	             "web_line_height_percent is too large");
	EXPECT_SUCCESS(patch(u, "web_font_size_px=14&web_line_height_percent=122"));
	json_object *s = settings_of(u);
	EXPECT_INT(s, "web_font_size_px", 14);
	EXPECT_INT(s, "web_line_height_percent", 122);
}

/* A request with one bad value changes nothing, not even its good values. */
static void test_settings_error_changes_nothing(void)
{
	struct user *u = new_user("member");
	struct queue *q = settings_queue(u, true);
	EXPECT_ERROR(patch(u, "enter_sends=true&color_scheme=7&full_name=Someone%20Else"), 400, "BAD_REQUEST",
	             "Invalid color_scheme: Value error, Not in the list of possible values");
	EXPECT_ERROR(patch(u, "enter_sends=true&default_language=xx"), 400, "BAD_REQUEST", "Invalid default_language");
	EXPECT_ERROR(patch(u, "enter_sends=true&full_name=A"), 400, "BAD_REQUEST", "Name too short!");
	json_object *s = settings_of(u);
	EXPECT_BOOL(s, "enter_sends", false);
	EXPECT_INT(s, "color_scheme", 1);
	EXPECT_NO_EVENTS(q);
}

/* Bots are refused before their parameters are looked at; e-mail and password changes are not supported. */
static void test_settings_bots_and_unsupported(void)
{
	struct user *bot = new_bot();
	EXPECT_ERROR(patch(bot, "enter_sends=true"), 400, "BAD_REQUEST", "This endpoint does not accept bot requests.");
	EXPECT_ERROR(patch(bot, "color_scheme=9"), 400, "BAD_REQUEST", "This endpoint does not accept bot requests.");
	struct user *u = new_user("member");
	struct resp *r = patch(u, "email=new%40example.com&new_password=x&old_password=y");
	EXPECT_STATUS(r, 200);
	EXPECT_STR_LIST(r->json, "ignored_parameters_unsupported", "email", "new_password", "old_password");
	r = patch(u, "");
	EXPECT_SUCCESS(r);
	EXPECT_ABSENT(r->json, "ignored_parameters_unsupported");
}

/* PATCH /settings/display and /settings/notifications: the deprecated aliases (feature level 80). */
static void test_settings_aliases(void)
{
	struct user *u = new_user("member");
	EXPECT_SUCCESS(http(&(struct request){
	    .method = "PATCH", .path = "/api/v1/settings/display", .user = u, .form = "color_scheme=3"}));
	EXPECT_SUCCESS(http(&(struct request){
	    .method = "PATCH", .path = "/api/v1/settings/notifications", .user = u, .form = "enable_sounds=false"}));
	json_object *s = settings_of(u);
	EXPECT_INT(s, "color_scheme", 3);
	EXPECT_BOOL(s, "enable_sounds", false);
}

/* Clients without notification_settings_null see the user's enable_stream_* defaults in place of a subscription's
 * null notification settings (the reference's handle_stream_notifications_compatibility). */
static void test_settings_subscription_defaults(void)
{
	struct user *o = new_realm(), *a = new_user_in(o->realm, "member", NULL);
	char *name = fmt("settings-defaults-%lld", (long long)a->id);
	EXPECT_SUCCESS(api_post(a, "/users/me/subscriptions", fmt("subscriptions=%s", url_encode(fmt("[{\"name\":\"%s\"}]", name)))));
	EXPECT_SUCCESS(patch(a, "enable_stream_desktop_notifications=true&enable_stream_email_notifications=true"));
	for (int caps = 0; caps < 2; caps++) {
		struct resp *r = api_post(a, "/register",
		                          fmt("fetch_event_types=%%5B%%22subscription%%22%%5D&client_capabilities=%s",
		                              url_encode(caps ? "{\"notification_settings_null\":true}" : "{}")));
		EXPECT_SUCCESS(r);
		json_object *subs = jget(r->json, "subscriptions"), *sub = NULL;
		for (size_t i = 0; subs != NULL && i < json_object_array_length(subs); i++)
			if (strcmp(jstr(json_object_array_get_idx(subs, i), "name"), name) == 0)
				sub = json_object_array_get_idx(subs, i);
		REQUIRE(sub != NULL, "subscription %s: %s", name, r->body);
		if (caps) {
			EXPECT_NULL(sub, "desktop_notifications");
			EXPECT_NULL(sub, "email_notifications");
		} else {
			EXPECT_BOOL(sub, "desktop_notifications", true);
			EXPECT_BOOL(sub, "email_notifications", true);
			EXPECT_BOOL(sub, "audible_notifications", false);
			EXPECT_BOOL(sub, "push_notifications", false);
		}
	}
}

/* ---- events ------------------------------------------------------------------------------------------------- */

/* One user_settings event per changed setting, in the reference's order, to the user's own queues only; an
 * unchanged value sends nothing; default_language adds language_name. */
static void test_settings_events(void)
{
	struct user *o = new_realm(), *a = new_user_in(o->realm, "member", NULL);
	struct queue *qa = settings_queue(a, true), *qo = settings_queue(o, true);
	EXPECT_SUCCESS(patch(a, "twenty_four_hour_time=true&color_scheme=2&enter_sends=false&web_home_view=inbox"
	                        "&default_language=de&web_animate_image_previews=always"));
	/* In the reference's order (its parameters', alphabetical). */
	EXPECT_EVENTS(qa, fmt("[%s,{\"type\":\"user_settings\",\"op\":\"update\",\"property\":\"default_language\","
	                      "\"value\":\"de\",\"language_name\":\"Deutsch\"},%s,%s]",
	                      setting_event("color_scheme", "2"), setting_event("twenty_four_hour_time", "true"),
	                      setting_event("web_animate_image_previews", "\"always\"")));
	EXPECT_NO_EVENTS(qo);
	EXPECT_SUCCESS(patch(a, "twenty_four_hour_time=true&color_scheme=2&default_language=de"));
	EXPECT_NO_EVENTS(qa);
}

/* Clients without user_settings_object also get update_display_settings / update_global_notifications. */
static void test_settings_legacy_events(void)
{
	struct user *o = new_realm(), *a = new_user_in(o->realm, "member", NULL);
	struct queue *legacy = settings_queue(a, false), *modern = settings_queue(a, true);
	EXPECT_SUCCESS(patch(a, "enable_sounds=false&high_contrast_mode=true&send_read_receipts=false"));
	char *email = fmt("\"%s\"", a->email);
	char *sounds = setting_event("enable_sounds", "false"), *contrast = setting_event("high_contrast_mode", "true"),
	     *receipts = setting_event("send_read_receipts", "false");
	EXPECT_EVENTS(modern, fmt("[%s,%s,%s]", sounds, contrast, receipts));
	EXPECT_EVENTS(legacy,
	              fmt("[%s,{\"type\":\"update_global_notifications\",\"user\":%s,\"notification_name\":"
	                  "\"enable_sounds\",\"setting\":false},%s,{\"type\":\"update_display_settings\",\"user\":%s,"
	                  "\"setting_name\":\"high_contrast_mode\",\"setting\":true},%s]",
	                  sounds, email, contrast, email, receipts));
	EXPECT_SUCCESS(patch(a, "default_language=fr"));
	EXPECT_EVENTS(legacy, fmt("[{\"type\":\"user_settings\",\"op\":\"update\",\"property\":\"default_language\","
	                          "\"value\":\"fr\",\"language_name\":\"Français\"},{\"type\":\"update_display_settings\","
	                          "\"user\":%s,\"setting_name\":\"default_language\",\"setting\":\"fr\","
	                          "\"language_name\":\"Français\"}]",
	                          email));
}

/* A time zone change also tells everyone who can see the user (realm_user update), after the other settings. */
static void test_settings_timezone_event(void)
{
	struct user *o = new_realm(), *a = new_user_in(o->realm, "member", NULL), *b = new_user_in(o->realm, "member", NULL);
	struct queue *qa = settings_queue(a, true), *qb = settings_queue(b, true);
	EXPECT_SUCCESS(patch(a, "timezone=Asia%2FKolkata&enter_sends=true"));
	char *person = fmt("{\"type\":\"realm_user\",\"op\":\"update\",\"person\":{\"user_id\":%lld,\"email\":\"%s\","
	                   "\"timezone\":\"Asia/Kolkata\"}}",
	                   (long long)a->id, a->email);
	EXPECT_EVENTS(qa, fmt("[%s,%s,%s]", setting_event("enter_sends", "true"),
	                      setting_event("timezone", "\"Asia/Kolkata\""), person));
	EXPECT_EVENTS(qb, fmt("[%s]", person));
	struct resp *r = api_get(b, fmt("/users/%lld", (long long)a->id));
	EXPECT_STR(jget(r->json, "user"), "timezone", "Asia/Kolkata");
}

/* ---- effects ------------------------------------------------------------------------------------------------ */

/* The typing settings decide what POST /typing does. */
static void test_settings_typing(void)
{
	struct user *o = new_realm(), *a = new_user_in(o->realm, "member", NULL), *b = new_user_in(o->realm, "member", NULL);
	char *to_b = fmt("op=start&to=[%lld]", (long long)b->id);
	EXPECT_SUCCESS(patch(a, "send_private_typing_notifications=false"));
	EXPECT_ERROR(api_post(a, "/typing", to_b), 400, "BAD_REQUEST",
	             "User has disabled typing notifications for direct messages");
	EXPECT_SUCCESS(patch(a, "send_private_typing_notifications=true"));
	struct queue *qb = queue_register(b, "event_types=%5B%22typing%22%5D");
	EXPECT_SUCCESS(api_post(a, "/typing", to_b));
	CHECK(json_object_array_length(queue_drain(qb)) == 1, "b hears of typing");
	EXPECT_SUCCESS(patch(b, "receives_typing_notifications=false"));
	EXPECT_SUCCESS(api_post(a, "/typing", to_b));
	EXPECT_NO_EVENTS(qb);
}

/* email_address_visibility: what others see of the address, and the events that tell them. */
static void test_settings_email_visibility(void)
{
	struct user *o = new_realm(), *a = new_user_in(o->realm, "member", NULL), *b = new_user_in(o->realm, "member", NULL);
	struct queue *qb = settings_queue(b, true), *qo = settings_queue(o, true);
	EXPECT_SUCCESS(patch(a, "email_address_visibility=3"));
	struct resp *r = api_get(b, fmt("/users/%lld", (long long)a->id));
	json_object *seen = jget(r->json, "user");
	EXPECT_NULL(seen, "delivery_email");
	const char *fake = jstr(seen, "email");
	REQUIRE(fake != NULL && strncmp(fake, fmt("user%lld@", (long long)a->id), strlen(fmt("user%lld@", (long long)a->id))) == 0,
	        "placeholder: %s", r->body);
	EXPECT_STR(jget(api_get(o, fmt("/users/%lld", (long long)a->id))->json, "user"), "delivery_email", a->email);
	char *new_email = fmt("{\"type\":\"realm_user\",\"op\":\"update\",\"person\":{\"user_id\":%lld,\"new_email\":\"%s\"}}",
	                      (long long)a->id, fake);
	json_object *events = queue_drain(qb);
	REQUIRE(json_object_array_length(events) == 3, "b: 3 events: %s", jtext(events));
	char *hidden = fmt("{\"type\":\"realm_user\",\"op\":\"update\",\"person\":{\"user_id\":%lld,\"delivery_email\":null}}",
	                   (long long)a->id);
	CHECK(same(json_object_array_get_idx(events, 0), hidden), "delivery_email hidden: %s", jtext(events));
	CHECK(same(json_object_array_get_idx(events, 1), new_email), "new_email: %s", jtext(events));
	json_object *avatar = jget(json_object_array_get_idx(events, 2), "person");
	EXPECT_KEYS(avatar, "user_id", "avatar_source", "avatar_url", "avatar_url_medium", "avatar_version");
	/* The owner still sees the address: only the placeholder and avatar events. */
	events = queue_drain(qo);
	CHECK(json_object_array_length(events) == 2 && same(json_object_array_get_idx(events, 0), new_email), "owner: %s",
	      jtext(events));
	/* Members again: b sees the address again, and nothing else changes. */
	EXPECT_SUCCESS(patch(a, "email_address_visibility=2"));
	EXPECT_EVENTS(qb, fmt("[{\"type\":\"realm_user\",\"op\":\"update\",\"person\":{\"user_id\":%lld,"
	                      "\"delivery_email\":\"%s\"}}]",
	                      (long long)a->id, a->email));
	EXPECT_NO_EVENTS(qo);
	EXPECT_STR(jget(api_get(b, fmt("/users/%lld", (long long)a->id))->json, "user"), "delivery_email", a->email);
	EXPECT_STR(jget(api_get(b, fmt("/users/%lld", (long long)a->id))->json, "user"), "email", fake);
	/* Everyone: the real address is the API address again. */
	EXPECT_SUCCESS(patch(a, "email_address_visibility=1"));
	events = queue_drain(qb);
	CHECK(json_object_array_length(events) == 2 &&
	          strcmp(jstr(jget(json_object_array_get_idx(events, 0), "person"), "new_email"), a->email) == 0,
	      "b: %s", jtext(events));
	EXPECT_STR(jget(api_get(b, fmt("/users/%lld", (long long)a->id))->json, "user"), "email", a->email);
}

/* full_name: the reference's checks on the stripped name, a realm_user event; ignored silently where the
 * organization disables name changes, except for administrators. */
static void test_settings_full_name(void)
{
	struct user *o = new_realm(), *a = new_user_in(o->realm, "member", NULL);
	struct queue *qo = settings_queue(o, true);
	EXPECT_BOOL(state(a, "[\"realm\"]", true), "realm_name_changes_disabled", false);
	EXPECT_ERROR(patch(a, "full_name=A"), 400, "BAD_REQUEST", "Name too short!");
	EXPECT_ERROR(patch(a, fmt("full_name=%s", repeat('x', 101))), 400, "BAD_REQUEST", "Name too long!");
	EXPECT_ERROR(patch(a, "full_name=a%2Ab"), 400, "BAD_REQUEST", "Invalid characters in name!");
	EXPECT_SUCCESS(patch(a, "full_name=%20%20New%20Name%20"));
	EXPECT_STR(jget(api_get(o, fmt("/users/%lld", (long long)a->id))->json, "user"), "full_name", "New Name");
	EXPECT_EVENTS(qo, fmt("[{\"type\":\"realm_user\",\"op\":\"update\",\"person\":{\"user_id\":%lld,"
	                      "\"full_name\":\"New Name\"}}]",
	                      (long long)a->id));
	psql_ok("UPDATE realms SET name_changes_disabled = true WHERE subdomain = '%s'", o->realm);
	EXPECT_BOOL(state(a, "[\"realm\"]", true), "realm_name_changes_disabled", true);
	EXPECT_SUCCESS(patch(a, "full_name=Other%20Name"));
	EXPECT_STR(jget(api_get(o, fmt("/users/%lld", (long long)a->id))->json, "user"), "full_name", "New Name");
	EXPECT_NO_EVENTS(qo);
	EXPECT_SUCCESS(patch(o, "full_name=Owner%20Renamed"));
	EXPECT_STR(jget(api_get(a, fmt("/users/%lld", (long long)o->id))->json, "user"), "full_name", "Owner Renamed");
}

void register_settings_tests(void)
{
	static const struct itest_case cases[] = {
	    {"register_object", test_settings_register_object},
	    {"register_legacy", test_settings_register_legacy},
	    {"booleans", test_settings_booleans},
	    {"int_choices", test_settings_int_choices},
	    {"string_choices", test_settings_string_choices},
	    {"checked_values", test_settings_checked_values},
	    {"timezone_and_sizes", test_settings_timezone_and_sizes},
	    {"error_changes_nothing", test_settings_error_changes_nothing},
	    {"bots_and_unsupported", test_settings_bots_and_unsupported},
	    {"aliases", test_settings_aliases},
	    {"subscription_defaults", test_settings_subscription_defaults},
	    {"events", test_settings_events},
	    {"legacy_events", test_settings_legacy_events},
	    {"timezone_event", test_settings_timezone_event},
	    {"typing", test_settings_typing},
	    {"email_visibility", test_settings_email_visibility},
	    {"full_name", test_settings_full_name},
	    {NULL, NULL},
	};
	itest_add_suite("settings", cases);
}
