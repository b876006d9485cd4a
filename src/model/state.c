/*
 * The initial state of POST /register, one builder per fetch type; see state.h.
 * Reference: Zulip zerver/lib/events.py (fetch_initial_state_data, post_process_state), zerver/lib/message.py
 * (unread data, recent direct conversations), zerver/lib/subscription_info.py (gather_subscriptions_helper,
 * get_web_public_subs), zerver/lib/streams.py (do_get_streams).
 */
#include "model/state.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/config.h"
#include "core/jsonx.h"
#include "db/db.h"
#include "core/uow.h"
#include "model/channel_counts.h"
#include "model/channels.h"
#include "model/groups.h"
#include "model/linkifiers.h"
#include "model/messages.h"
#include "model/permissions.h"
#include "model/personal.h"
#include "model/presence.h"
#include "model/profile_fields.h"
#include "model/realm.h"
#include "model/realm_groups.h"
#include "model/realm_users.h"
#include "model/unread.h"
#include "model/realm_domains.h"
#include "model/realm_emoji.h"
#include "model/scheduled_messages.h"
#include "model/user.h"
#include "model/user_settings.h"
#include "model/user_status.h"
#include "model/user_topics.h"

static bool want(const struct state_options *o, const char *type)
{
	if (o->fetch_types == NULL)
		return true;
	for (size_t i = 0; i < json_object_array_length(o->fetch_types); i++)
		if (strcmp(json_object_get_string(json_object_array_get_idx(o->fetch_types, i)), type) == 0)
			return true;
	return false;
}

/* Adds key with the value of JSON text (which the code or the database wrote, so it parses). */
static void add_json_text(json_object *out, const char *key, const char *text)
{
	json_object *v = NULL;
	jsonx_parse(text, strlen(text), &v);
	json_object_object_add(out, key, v);
}

/* Adds every key of the JSON object text to out. */
static void merge_json_text(json_object *out, const char *text)
{
	json_object *obj = NULL;
	if (jsonx_parse(text, strlen(text), &obj) < 0 || obj == NULL)
		return;
	json_object_object_foreach (obj, key, val)
		json_object_object_add(out, key, json_object_get(val));
	json_object_put(obj);
}

static int64_t user_id_or_zero(const struct uow *uow)
{
	return uow->user ? uow->user->id : 0;
}

/* ---- types whose features do not exist yet: their empty values ---------------------------------------------- */

static const struct {
	const char *type, *key, *value;
} empty_state[] = {
    {"alert_words", "alert_words", "[]"},
    {"default_stream_groups", "realm_default_stream_groups", "[]"},
    {"device", "devices", "{}"},
    {"giphy", "giphy_api_key", "\"\""},
    {"klipy", "klipy_api_key", "\"\""},
    {"muted_users", "muted_users", "[]"},
    {"onboarding_steps", "onboarding_steps", "[]"},
    {"onboarding_steps", "navigation_tour_video_url", "null"},
    {"realm_billing", "realm_billing", "{\"has_pending_sponsorship_request\":false}"},
    {"realm_bot", "realm_bots", "[]"},
    /* realm_filters is always [] (its legacy format cannot express URL templates); realm_linkifiers: see
     * add_linkifiers(). */
    {"realm_filters", "realm_filters", "[]"},
    {"realm_playgrounds", "realm_playgrounds", "[]"},
    {"reminders", "reminders", "[]"},
    {"tenor", "tenor_api_key", "\"\""},
    {"video_calls", "has_zoom_token", "false"},
    {"video_calls", "has_webex_token", "false"},
};

static void add_empty_state(struct uow *uow, const struct state_options *o, json_object *out)
{
	for (size_t i = 0; i < sizeof(empty_state) / sizeof(empty_state[0]); i++)
		if (want(o, empty_state[i].type))
			add_json_text(out, empty_state[i].key, empty_state[i].value);
}

/* ---- presence ----------------------------------------------------------------------------------------------- */

/* The modern form for clients that pass slim_presence or declare simplified_presence_events; none for spectators. */
static int add_presence(struct uow *uow, const struct state_options *o, json_object *out)
{
	struct presence_query q = {
	    .slim = o->slim_presence || o->simplified_presence_events,
	    .has_history_days = o->has_presence_history_days,
	    .history_days = o->presence_history_days,
	};
	int64_t last_update_id = -1;
	json_object *presences = uow->user != NULL ? presence_realm(uow, &q, &last_update_id) : NULL;
	if (uow->user != NULL && presences == NULL)
		return -1;
	json_object_object_add(out, "presences", presences ? json_object_get(presences) : json_object_new_object());
	if (uow->user != NULL)
		json_object_object_add(out, "presence_last_update_id", json_object_new_int64(last_update_id));
	struct timespec now;
	clock_gettime(CLOCK_REALTIME, &now);
	json_object_object_add(out, "server_timestamp",
	                       json_object_new_double((double)now.tv_sec + (double)now.tv_nsec / 1e9));
	return 0;
}

/* The organization's linkifiers, to clients that declared linkifier_url_template ([] to the others, whose URL
 * format strings could not express the templates), as the reference's fetch_initial_state_data. */
static int add_linkifiers(struct uow *uow, const struct state_options *o, json_object *out)
{
	json_object *list = o->linkifier_url_template ? linkifiers_json(uow) : json_object_new_array();
	if (list == NULL)
		return -1;
	json_object_object_add(out, "realm_linkifiers", list);
	return 0;
}

/* ---- realm ---------------------------------------------------------------------------------------------------- */

/*
 * The stored organization settings, and every organization permission setting as a group-setting value (the
 * reference's REALM_PERMISSION_GROUP_SETTINGS; the two confab does not store yet hold the reference's defaults).
 * $2: the server's upload_quota_gb, for realm_upload_quota_mib (the quota model/attachment_space.c applies).
 */
static struct db_stmt st_realm = DB_STMT(
    "SELECT jsonb_build_object("
    "  'realm_name', r.name, 'realm_description', r.description,"
    "  'realm_allow_message_editing', r.allow_message_editing,"
    "  'realm_message_content_edit_limit_seconds', r.message_content_edit_limit_seconds,"
    "  'realm_message_content_delete_limit_seconds', r.message_content_delete_limit_seconds,"
    "  'realm_move_messages_within_stream_limit_seconds', r.move_messages_within_stream_limit_seconds,"
    "  'realm_move_messages_between_streams_limit_seconds', r.move_messages_between_streams_limit_seconds,"
    "  'realm_topics_policy', r.topics_policy,"
    "  'realm_mandatory_topics', r.topics_policy = 'disable_empty_topic',"
    "  'realm_waiting_period_threshold', r.waiting_period_threshold,"
    "  'realm_enable_spectator_access', r.enable_spectator_access,"
    "  'realm_emails_restricted_to_domains', r.emails_restricted_to_domains,"
    "  'realm_invite_required', r.invite_required,"
    "  'realm_name_changes_disabled', r.name_changes_disabled,"
    "  'realm_message_retention_days', COALESCE(r.message_retention_days, -1),"
    "  'realm_moderation_request_channel_id', COALESCE(r.moderation_request_channel_id, -1),"
    "  'realm_date_created', floor(extract(epoch FROM r.date_created))::bigint,"
    "  'realm_upload_quota_mib', COALESCE(r.custom_upload_quota_gb, NULLIF($2::int, 0))::bigint << 10)::text,"
    " jsonb_build_object("
    "  'realm_create_multiuse_invite_group', confab_group_setting_api(r.create_multiuse_invite_group_id),"
    "  'realm_can_access_all_users_group', confab_group_setting_api(r.can_access_all_users_group_id),"
    "  'realm_can_add_subscribers_group', confab_group_setting_api(r.can_add_subscribers_group_id),"
    "  'realm_can_add_custom_emoji_group', confab_group_setting_api(r.can_add_custom_emoji_group_id),"
    "  'realm_can_create_bots_group', confab_group_setting_api(r.can_create_bots_group_id),"
    "  'realm_can_create_groups', confab_group_setting_api(r.can_create_groups_id),"
    "  'realm_can_create_public_channel_group', confab_group_setting_api(r.can_create_public_channel_group_id),"
    "  'realm_can_create_private_channel_group', confab_group_setting_api(r.can_create_private_channel_group_id),"
    "  'realm_can_create_web_public_channel_group',"
    "   confab_group_setting_api(r.can_create_web_public_channel_group_id),"
    "  'realm_can_create_write_only_bots_group', confab_group_setting_api(r.can_create_write_only_bots_group_id),"
    "  'realm_can_delete_any_message_group', confab_group_setting_api(r.can_delete_any_message_group_id),"
    "  'realm_can_delete_own_message_group', confab_group_setting_api(r.can_delete_own_message_group_id),"
    "  'realm_can_invite_users_group', confab_group_setting_api(r.can_invite_users_group_id),"
    "  'realm_can_manage_all_groups', confab_group_setting_api(r.can_manage_all_groups_id),"
    "  'realm_can_manage_billing_group', confab_group_setting_api(r.can_manage_billing_group_id),"
    "  'realm_can_mention_many_users_group', confab_group_setting_api(r.can_mention_many_users_group_id),"
    "  'realm_can_move_messages_between_channels_group',"
    "   confab_group_setting_api(r.can_move_messages_between_channels_group_id),"
    "  'realm_can_move_messages_between_topics_group',"
    "   confab_group_setting_api(r.can_move_messages_between_topics_group_id),"
    "  'realm_can_resolve_topics_group', confab_group_setting_api(r.can_resolve_topics_group_id),"
    "  'realm_can_set_delete_message_policy_group',"
    "   confab_group_setting_api(confab_system_group(r.id, 'role:moderators')),"
    "  'realm_can_set_topics_policy_group', confab_group_setting_api(r.can_set_topics_policy_group_id),"
    "  'realm_can_summarize_topics_group', confab_group_setting_api(confab_system_group(r.id, 'role:everyone')),"
    "  'realm_direct_message_initiator_group', confab_group_setting_api(r.direct_message_initiator_group_id),"
    "  'realm_direct_message_permission_group', confab_group_setting_api(r.direct_message_permission_group_id)"
    " )::text"
    " FROM realms r WHERE r.id = $1");

/* Organization properties confab does not store yet (the reference's defaults) and server constants. */
static const struct {
	const char *key, *value;
} realm_constants[] = {
    {"realm_avatar_changes_disabled", "false"},
    {"realm_default_code_block_language", "\"\""},
    {"realm_default_language", "\"en\""},
    {"realm_digest_emails_enabled", "false"},
    {"realm_digest_weekday", "1"},
    {"realm_disallow_disposable_email_addresses", "true"},
    {"realm_email_changes_disabled", "false"},
    {"realm_enable_guest_user_dm_warning", "true"},
    {"realm_enable_guest_user_indicator", "true"},
    {"realm_enable_read_receipts", "false"},
    {"realm_giphy_rating", "2"},
    {"realm_inline_image_preview", "true"},
    {"realm_inline_url_embed_preview", "false"},
    {"realm_jitsi_server_url", "null"},
    {"realm_message_content_allowed_in_email_notifications", "true"},
    {"realm_message_edit_history_visibility_policy", "\"all\""},
    {"realm_allow_edit_history", "true"},
    {"realm_push_notifications_enabled", "false"},
    {"realm_push_notifications_enabled_end_timestamp", "null"},
    {"realm_require_e2ee_push_notifications", "false"},
    {"realm_require_unique_names", "false"},
    {"realm_send_channel_events_messages", "true"},
    {"realm_send_welcome_emails", "true"},
    {"realm_video_chat_provider", "1"},
    {"realm_want_advertise_in_communities_directory", "false"},
    {"realm_welcome_message_custom_text", "\"\""},
    {"realm_new_stream_announcements_stream_id", "-1"},
    {"realm_signup_announcements_stream_id", "-1"},
    {"realm_zulip_update_announcements_stream_id", "-1"},
    {"realm_icon_source", "\"G\""},
    {"realm_logo_source", "\"D\""},
    {"realm_logo_url", "\"/static/images/logo/zulip-org-logo.svg?version=0\""},
    {"realm_night_logo_source", "\"D\""},
    {"realm_night_logo_url", "\"/static/images/logo/zulip-org-logo.svg?version=0\""},
    {"realm_org_type", "0"},
    {"realm_plan_type", "1"},
    {"realm_email_auth_enabled", "true"},
    {"realm_password_auth_enabled", "true"},
    {"realm_empty_topic_display_name", "\"" REALM_EMPTY_TOPIC_DISPLAY_NAME "\""},
    {"zulip_plan_is_not_limited", "true"},
    {"settings_send_digest_emails", "true"},
    {"development_environment", "false"},
    {"password_min_length", "6"},
    {"password_max_length", "100"},
    {"password_min_guesses", "10000"},
    {"max_avatar_file_size_mib", "5"},
    {"max_icon_file_size_mib", "5"},
    {"max_logo_file_size_mib", "5"},
    {"max_stream_name_length", "60"},
    {"max_stream_description_length", "1024"},
    {"max_channel_folder_name_length", "60"},
    {"max_channel_folder_description_length", "1024"},
    {"max_bulk_new_subscription_messages", "100"},
    {"max_reminder_note_length", "1000"},
    {"max_topic_length", "60"},
    {"max_message_length", "10000"},
    {"server_inline_image_preview", "true"},
    {"server_inline_url_embed_preview", "false"},
    {"server_avatar_changes_disabled", "false"},
    {"server_name_changes_disabled", "false"},
    {"server_web_public_streams_enabled", "true"},
    {"server_needs_upgrade", "false"},
    {"server_can_summarize_topics", "false"},
    {"server_jitsi_server_url", "\"https://meet.jit.si\""},
    {"jitsi_server_url", "\"https://meet.jit.si\""},
    {"server_min_deactivated_realm_deletion_days", "14"},
    {"server_max_deactivated_realm_deletion_days", "null"},
    {"event_queue_longpoll_timeout_seconds", "90"},
    {"server_presence_ping_interval_seconds", "60"},
    {"server_presence_offline_threshold_seconds", "200"},
    {"server_typing_started_expiry_period_milliseconds", "45000"},
    {"server_typing_stopped_wait_period_milliseconds", "12000"},
    {"server_typing_started_wait_period_milliseconds", "30000"},
    {"server_report_message_types",
     "[{\"key\":\"spam\",\"name\":\"Spam\"},{\"key\":\"harassment\",\"name\":\"Harassment\"},"
     "{\"key\":\"inappropriate\",\"name\":\"Inappropriate content\"},"
     "{\"key\":\"norms\",\"name\":\"Violates community norms\"},{\"key\":\"other\",\"name\":\"Other reason\"}]"},
};

static int add_realm(struct uow *uow, json_object *out)
{
	const struct realm *realm = uow->realm;
	const struct config *cfg = uow->worker->cfg;
	struct db_res *res = DB_EXEC(uow, &st_realm, db_arg_int(uow, realm->id), db_arg_int(uow, cfg->upload_quota_gb));
	if (res == NULL)
		return -1;
	merge_json_text(out, db_val(res, 0, 0));
	merge_json_text(out, db_val(res, 0, 1));
	for (size_t i = 0; i < sizeof(realm_constants) / sizeof(realm_constants[0]); i++)
		add_json_text(out, realm_constants[i].key, realm_constants[i].value);
	json_object_object_add(out, "max_file_upload_size_mib", json_object_new_int(cfg->max_file_upload_mb));
	/* Spectators cannot edit, and see no presence. */
	if (uow->user == NULL)
		json_object_object_add(out, "realm_allow_message_editing", json_object_new_boolean(false));
	json_object_object_add(out, "realm_presence_disabled",
	                       json_object_new_boolean(uow->user == NULL || realm->presence_disabled));
	const char *url = realm_url(uow, realm);
	json_object_object_add(out, "realm_url", json_object_new_string(url));
	json_object_object_add(out, "realm_uri", json_object_new_string(url));
	json_object_object_add(out, "realm_bot_domain", json_object_new_string(realm_fake_email_domain(uow, realm)));
	json_object_object_add(
	    out, "realm_icon_url",
	    json_object_new_string(
	        arena_printf(&uow->arena, "https://secure.gravatar.com/avatar/%s?d=identicon", realm->subdomain_md5)));
	return 0;
}

/* ---- realm_user ----------------------------------------------------------------------------------------------- */

/* The spectator's own fields: the reference's stand-in user (id 0, a guest, a Gravatar avatar). */
#define SPECTATOR_EMAIL     "username@example.com"
#define SPECTATOR_EMAIL_MD5 "5f0efb20de5ecfedbe0bf5e7c12353fe"

static void add_spectator_fields(json_object *out)
{
	const char *avatar = "https://secure.gravatar.com/avatar/" SPECTATOR_EMAIL_MD5 "?d=identicon&version=1";
	json_object_object_add(out, "user_id", json_object_new_int(0));
	json_object_object_add(out, "email", json_object_new_string(SPECTATOR_EMAIL));
	json_object_object_add(out, "delivery_email", json_object_new_string(SPECTATOR_EMAIL));
	json_object_object_add(out, "full_name", json_object_new_string("Anonymous User"));
	json_object_object_add(out, "avatar_source", json_object_new_string("G"));
	json_object_object_add(out, "avatar_url", json_object_new_string(avatar));
	json_object_object_add(out, "avatar_url_medium",
	                       json_object_new_string("https://secure.gravatar.com/avatar/" SPECTATOR_EMAIL_MD5
	                                              "?d=identicon&version=1&s=500"));
	static const char *const flags[] = {"is_admin",
	                                    "is_owner",
	                                    "is_moderator",
	                                    "can_create_streams",
	                                    "can_create_public_streams",
	                                    "can_create_private_streams",
	                                    "can_create_web_public_streams",
	                                    "can_invite_others_to_realm"};
	for (size_t i = 0; i < sizeof(flags) / sizeof(flags[0]); i++)
		json_object_object_add(out, flags[i], json_object_new_boolean(false));
	json_object_object_add(out, "is_guest", json_object_new_boolean(true));
}

/* The requesting user's own fields (avatar URLs never left to the client's Gravatar). */
static void add_own_fields(struct uow *uow, json_object *out)
{
	const struct user *me = uow->user;
	json_object *o = uow_own_json(uow, user_to_json(uow, me, me, false, NULL));
	static const char *const copied[] = {"user_id", "email", "delivery_email", "full_name", "avatar_url"};
	for (size_t i = 0; i < sizeof(copied) / sizeof(copied[0]); i++)
		json_object_object_add(out, copied[i], json_object_get(json_object_object_get(o, copied[i])));
	const char *medium =
	    me->avatar_source == 'G'
	        ? arena_printf(&uow->arena, "https://secure.gravatar.com/avatar/%s?d=identicon&version=%d&s=500",
	                       me->email_md5, me->avatar_version)
	        : arena_printf(&uow->arena, "/user_avatars/%lld/%lld-medium.png?version=%d", (long long)me->realm_id,
	                       (long long)me->id, me->avatar_version);
	json_object_object_add(out, "avatar_source", json_object_new_string_len(&me->avatar_source, 1));
	json_object_object_add(out, "avatar_url_medium", json_object_new_string(medium));
	json_object_object_add(out, "is_admin", json_object_new_boolean(user_is_admin(me)));
	json_object_object_add(out, "is_owner", json_object_new_boolean(user_is_owner(me)));
	json_object_object_add(out, "is_moderator", json_object_new_boolean(user_is_moderator(me)));
	json_object_object_add(out, "is_guest", json_object_new_boolean(user_is_guest(me)));
	bool public = perm_create_channel(uow, false, false), private = perm_create_channel(uow, true, false),
	     web_public = perm_create_channel(uow, false, true);
	json_object_object_add(out, "can_create_public_streams", json_object_new_boolean(public));
	json_object_object_add(out, "can_create_private_streams", json_object_new_boolean(private));
	json_object_object_add(out, "can_create_web_public_streams", json_object_new_boolean(web_public));
	json_object_object_add(out, "can_create_streams", json_object_new_boolean(public || private || web_public));
	json_object_object_add(out, "can_invite_others_to_realm",
	                       json_object_new_boolean(perm_realm(uow, RS_INVITE_USERS)));
}

static int add_realm_user(struct uow *uow, const struct state_options *o, json_object *out)
{
	if (realm_users_state(uow, o->client_gravatar, o->snapshot, out) < 0)
		return -1;
	json_object_object_add(out, "cross_realm_bots", json_object_new_array());
	if (uow->user != NULL)
		add_own_fields(uow, out);
	else
		add_spectator_fields(out);
	return 0;
}

/* ---- channels: subscription and stream ------------------------------------------------------------------------ */

/* The subscriber counts and the unnamed groups' setting values come from channel_counts_get()
 * (model/channel_counts.h), not from this statement. */
static struct db_stmt st_channels = DB_STMT(CHANNEL_SELECT_WITH(
    "0::bigint", CHANNEL_COUNT_TRAFFIC, CHANNEL_SETTING_NO_VALUE, "") "ORDER BY c.name COLLATE \"C\"");
static struct db_stmt st_web_public_channels =
    DB_STMT(CHANNEL_SELECT "AND c.is_web_public AND NOT c.is_archived ORDER BY c.id");
/* The settings a user kept from subscriptions they left (clients show them again on resubscribing). */
static struct db_stmt st_left =
    DB_STMT("SELECT s.channel_id, s.color, s.pin_to_top, s.is_muted, s.desktop_notifications,"
            "       s.email_notifications, s.push_notifications, s.audible_notifications, s.wildcard_mentions_notify"
            "  FROM subscriptions s WHERE s.user_id = $1 AND NOT s.active");
static struct db_stmt st_all_subscribers =
    DB_STMT("SELECT s.channel_id, json_agg(s.user_id ORDER BY s.user_id)::text"
            "  FROM subscriptions s JOIN users u ON u.id = s.user_id AND u.is_active"
            "  JOIN channels c ON c.id = s.channel_id"
            " WHERE c.realm_id = $1 AND s.active GROUP BY s.channel_id");

/* The colors the reference assigns in turn (zerver/lib/stream_color.py), for a spectator's simulated
 * subscriptions. */
static const char *const palette[] = {"#76ce90", "#fae589", "#a6c7e5", "#e79ab5", "#bfd56f", "#f4ae55",
                                      "#b0a5fd", "#addfe5", "#f5ce6e", "#c2726a", "#94c849", "#bd86e5",
                                      "#ee7e4a", "#a6dcbf", "#95a5fd", "#53a063", "#9987e1", "#e4523d",
                                      "#c2c2c2", "#4f8de4", "#c6a8ad", "#e7cc4d", "#c8bebf", "#a47462"};

/* A spectator is shown every web-public channel as subscribed, with a new subscription's settings. */
static int add_spectator_subscriptions(struct uow *uow, json_object *out)
{
	struct db_res *res = DB_EXEC(uow, &st_web_public_channels, db_arg_int(uow, uow->realm->id), "0");
	if (res == NULL)
		return -1;
	json_object *subs = json_object_new_array();
	json_object_object_add(out, "subscriptions", subs);
	json_object_object_add(out, "unsubscribed", json_object_new_array());
	json_object_object_add(out, "never_subscribed", json_object_new_array());
	static const char *const on[] = {"audible_notifications", "desktop_notifications",    "email_notifications",
	                                 "push_notifications",    "wildcard_mentions_notify", "in_home_view"};
	for (int i = 0; i < db_rows(res); i++) {
		json_object *s = channel_to_json(uow, channel_from_row(uow, res, i, 0));
		json_object_object_add(s, "color",
		                       json_object_new_string(palette[i % (sizeof(palette) / sizeof(*palette))]));
		for (size_t k = 0; k < sizeof(on) / sizeof(on[0]); k++)
			json_object_object_add(s, on[k], json_object_new_boolean(true));
		json_object_object_add(s, "is_muted", json_object_new_boolean(false));
		json_object_object_add(s, "pin_to_top", json_object_new_boolean(false));
		json_object_array_add(subs, s);
	}
	return 0;
}

/* Applies the settings of the user's left subscription (row of st_left) to c. */
static void apply_left_settings(struct channel *c, const struct db_res *res, int row)
{
	c->color = db_val(res, row, 1);
	c->pin_to_top = db_bool(res, row, 2);
	c->is_muted = db_bool(res, row, 3);
	/* desktop, email, push, audible, wildcard_mentions, as struct channel keeps them */
	for (int i = 0; i < 5; i++)
		c->notifications[i] = db_val(res, row, 4 + i);
}

/* Clients without notification_settings_null get the user's defaults (enable_stream_*) instead of null. */
static void notification_defaults(json_object *sub, json_object *defaults)
{
	json_object_object_foreach (defaults, key, val)
		if (json_object_object_get(sub, key) == NULL)
			json_object_object_add(sub, key, json_object_get(val));
}

/* Metadata access through the channel's permission groups (the reference's has_metadata_access_via_groups). */
static bool in_channel_groups(const struct channel *c)
{
	return c->in_setting[CS_ADMINISTER] || c->in_setting[CS_ADD_SUBSCRIBERS] || c->in_setting[CS_SUBSCRIBE];
}

/* The subscriber list of c for the subscription objects: [] where the user may not see it. */
static void add_subscribers(struct uow *uow, const struct state_options *o, json_object *map, const struct channel *c,
                            json_object *sub)
{
	json_object *ids = NULL;
	if (perm_channel_see_subscribers(uow, c))
		json_object_object_get_ex(map, db_arg_int(uow, c->id), &ids);
	bool partial = o->subscribers == SUBSCRIBERS_PARTIAL && c->subscriber_count >= STATE_PARTIAL_SUBSCRIBERS_MIN;
	/* Partial lists hold bots and recently active users; confab does not track activity, so that is everyone. */
	json_object_object_add(sub, partial ? "partial_subscribers" : "subscribers",
	                       ids ? json_object_get(ids) : json_object_new_array());
}

/* Channel id -> its active subscribers (active users), for the whole organization. */
static json_object *subscriber_map(struct uow *uow)
{
	struct db_res *res = DB_EXEC(uow, &st_all_subscribers, db_arg_int(uow, uow->realm->id));
	if (res == NULL)
		return NULL;
	json_object *map = uow_own_json(uow, json_object_new_object());
	for (int i = 0; i < db_rows(res); i++)
		add_json_text(map, db_val(res, i, 0), db_val(res, i, 1));
	return map;
}

/* Channel id -> row of st_left. */
static json_object *left_map(struct uow *uow, const struct db_res *left)
{
	json_object *map = uow_own_json(uow, json_object_new_object());
	for (int i = 0; i < db_rows(left); i++)
		json_object_object_add(map, db_val(left, i, 0), json_object_new_int(i));
	return map;
}

/* The channel of row i of st_channels, with its subscriber count and its unnamed groups' values from counts. */
static struct channel *row_channel(struct uow *uow, const struct db_res *rows, int i,
                                   const struct channel_counts *counts)
{
	struct channel *c = channel_from_row(uow, rows, i, 0);
	c->subscriber_count = channel_counts_of(counts, c->id);
	for (int s = 0; s < CS_COUNT; s++) {
		const char *value = channel_counts_group_value(counts, c->settings[s]);
		if (value != NULL)
			c->setting_json[s] = value;
	}
	return c;
}

/*
 * subscriptions, unsubscribed (left channels the user can still see) and never_subscribed (channels the user can
 * see and never joined), each sorted by name; archived channels only for clients with archived_channels.
 */
static int add_subscriptions(struct uow *uow, const struct state_options *o, const struct db_res *rows,
                             const struct channel_counts *counts, json_object *out)
{
	const struct user *me = uow->user;
	struct db_res *left = DB_EXEC(uow, &st_left, db_arg_int(uow, me->id));
	json_object *subscribers = o->subscribers != SUBSCRIBERS_NONE ? subscriber_map(uow) : NULL;
	if (left == NULL || (o->subscribers != SUBSCRIBERS_NONE && subscribers == NULL))
		return -1;
	json_object *defaults = o->notification_settings_null ? NULL : user_settings_stream_defaults(uow);
	if (!o->notification_settings_null && defaults == NULL)
		return -1;
	json_object *left_rows = left_map(uow, left), *row_index;
	json_object *subs = json_object_new_array(), *unsubs = json_object_new_array(),
	            *never = json_object_new_array();
	json_object_object_add(out, "subscriptions", subs);
	json_object_object_add(out, "unsubscribed", unsubs);
	json_object_object_add(out, "never_subscribed", never);
	for (int i = 0; i < db_rows(rows); i++) {
		struct channel *c = row_channel(uow, rows, i, counts);
		if (c->is_archived && !o->archived_channels)
			continue;
		json_object *obj;
		bool subscription = true;
		bool may_see = c->is_web_public ||
		               (!user_is_guest(me) && (!c->invite_only || user_is_admin(me) || in_channel_groups(c)));
		if (c->is_subscribed) {
			json_object_array_add(subs, obj = channel_subscription_json(uow, c, false));
		} else if (json_object_object_get_ex(left_rows, db_arg_int(uow, c->id), &row_index)) {
			if (!may_see)
				continue;
			apply_left_settings(c, left, json_object_get_int(row_index));
			json_object_array_add(unsubs, obj = channel_subscription_json(uow, c, false));
		} else {
			if (!may_see)
				continue;
			json_object_array_add(never, obj = channel_to_json(uow, c));
			subscription = false;
		}
		if (subscription && !o->notification_settings_null)
			notification_defaults(obj, defaults);
		if (subscribers != NULL)
			add_subscribers(uow, o, subscribers, c, obj);
	}
	return 0;
}

/* streams: every channel the user can see, as GET /streams?include_all=true lists them. */
static void add_streams(struct uow *uow, const struct state_options *o, const struct db_res *rows,
                        const struct channel_counts *counts, json_object *out)
{
	json_object *streams = json_object_new_array();
	json_object_object_add(out, "streams", streams);
	for (int i = 0; i < db_rows(rows); i++) {
		struct channel *c = row_channel(uow, rows, i, counts);
		if ((c->is_archived && !o->archived_channels) || !(c->metadata_access || c->is_web_public))
			continue;
		json_object_array_add(streams, channel_to_json(uow, c));
	}
}

static int add_channels(struct uow *uow, const struct state_options *o, json_object *out)
{
	bool subscription = want(o, "subscription"), stream = want(o, "stream") && uow->user != NULL;
	if (subscription && uow->user == NULL && add_spectator_subscriptions(uow, out) < 0)
		return -1;
	if (uow->user == NULL || !(subscription || stream))
		return 0;
	const struct channel_counts *counts = channel_counts_get(uow, o->snapshot);
	struct db_res *rows = counts == NULL ? NULL
	                                     : DB_EXEC(uow, &st_channels, db_arg_int(uow, uow->realm->id),
	                                               db_arg_int(uow, uow->user->id));
	if (rows == NULL || (subscription && add_subscriptions(uow, o, rows, counts, out) < 0))
		return -1;
	if (stream)
		add_streams(uow, o, rows, counts, out);
	return 0;
}

/* ---- channel_folders ------------------------------------------------------------------------------------------ */

/* Every folder, archived ones included; spectators only see folders holding a web-public channel. */
static struct db_stmt st_folders = DB_STMT(
    "SELECT " CHANNEL_FOLDER_COLUMNS " FROM channel_folders f WHERE f.realm_id = $1"
    "   AND ($2 OR f.id IN (SELECT c.folder_id FROM channels c WHERE c.realm_id = $1 AND c.is_web_public"
    "                                                          AND NOT c.is_archived AND c.folder_id IS NOT NULL))"
    " ORDER BY f.\"order\", f.id");

static int add_channel_folders(struct uow *uow, json_object *out)
{
	struct db_res *res =
	    DB_EXEC(uow, &st_folders, db_arg_int(uow, uow->realm->id), uow->user != NULL ? "true" : "false");
	if (res == NULL)
		return -1;
	json_object *folders = json_object_new_array();
	json_object_object_add(out, "channel_folders", folders);
	for (int i = 0; i < db_rows(res); i++)
		json_object_array_add(folders, channel_folder_json(res, i));
	return 0;
}

/* ---- recent_private_conversations ----------------------------------------------------------------------------- */

/* The conversations of the user's 1000 latest direct messages (is_private, by user_messages_private), latest
 * first; user_ids without the user. */
static struct db_stmt st_recent_dms = DB_STMT(
    "SELECT (SELECT COALESCE(json_agg(x ORDER BY x), '[]') FROM unnest(dc.user_ids) x WHERE x <> $1)::text, max(t.id)"
    "  FROM (SELECT m.id, m.direct_conversation_id FROM user_messages um JOIN messages m ON m.id = um.message_id"
    "         WHERE um.user_id = $1 AND um.flags & 256 <> 0 AND m.direct_conversation_id IS NOT NULL"
    "         ORDER BY um.message_id DESC LIMIT 1000) t"
    "  JOIN direct_conversations dc ON dc.id = t.direct_conversation_id"
    " GROUP BY dc.id ORDER BY 2 DESC");

static int add_recent_private_conversations(struct uow *uow, json_object *out)
{
	json_object *list = json_object_new_array();
	json_object_object_add(out, "recent_private_conversations", list);
	if (uow->user == NULL)
		return 0;
	struct db_res *res = DB_EXEC(uow, &st_recent_dms, db_arg_int(uow, uow->user->id));
	if (res == NULL)
		return -1;
	for (int i = 0; i < db_rows(res); i++) {
		json_object *conv = json_object_new_object();
		add_json_text(conv, "user_ids", db_val(res, i, 0));
		json_object_object_add(conv, "max_message_id", json_object_new_int64(db_int(res, i, 1)));
		json_object_array_add(list, conv);
	}
	return 0;
}

/* ---- message and update_message_flags ------------------------------------------------------------------------- */

static struct db_stmt st_starred =
    DB_STMT("SELECT COALESCE(json_agg(t.message_id ORDER BY t.message_id), '[]')::text"
            "  FROM (SELECT message_id FROM user_messages WHERE user_id = $1 AND flags & 2 <> 0"
            "         ORDER BY message_id LIMIT 10000) t");
static struct db_stmt st_default_channels =
    DB_STMT("SELECT COALESCE(json_agg(id ORDER BY id), '[]')::text FROM channels"
            " WHERE realm_id = $1 AND is_default AND NOT is_archived");

/* A list the query st computes for the user (for spectators and, with guests_empty, guests: []). */
static int add_list(struct uow *uow, struct db_stmt *st, const char *arg, bool guests_empty, const char *key,
                    json_object *out)
{
	if (uow->user == NULL || (guests_empty && user_is_guest(uow->user))) {
		json_object_object_add(out, key, json_object_new_array());
		return 0;
	}
	struct db_res *res = DB_EXEC(uow, st, arg);
	if (res == NULL)
		return -1;
	add_json_text(out, key, db_val(res, 0, 0));
	return 0;
}

static int add_messages(struct uow *uow, const struct state_options *o, struct unread_job *unread, json_object *out)
{
	if (want(o, "message")) {
		int64_t max_id = uow->user ? message_max_id_for_user(uow, uow->user->id) : -1;
		if (uow->error != ERR_NONE)
			return -1;
		json_object_object_add(out, "max_message_id", json_object_new_int64(max_id));
	}
	if (want(o, "message") && want(o, "update_message_flags") &&
	    unread_state(uow, unread, o->empty_topic_name, out) < 0)
		return -1;
	if (want(o, "starred_messages") &&
	    add_list(uow, &st_starred, db_arg_int(uow, user_id_or_zero(uow)), false, "starred_messages", out) < 0)
		return -1;
	return 0;
}

/* drafts, saved_snippets, navigation_views: the user's own objects ([] for spectators, and drafts [] while the
 * user keeps drafts synchronization off, as the reference does). */
static int add_personal(struct uow *uow, const struct state_options *o, json_object *out)
{
	static const char *const keys[] = {"drafts", "saved_snippets", "navigation_views"};
	for (int i = 0; i < 3; i++) {
		if (!want(o, keys[i]))
			continue;
		json_object *list;
		if (uow->user == NULL)
			list = json_object_new_array();
		else if (i == 0)
			list = personal_drafts_json(uow, uow->user->id, true);
		else if (i == 1)
			list = personal_saved_snippets_json(uow, uow->user->id);
		else
			list = personal_navigation_views_json(uow, uow->user->id);
		if (list == NULL)
			return -1;
		json_object_object_add(out, keys[i], list);
	}
	return 0;
}

/* The user's undelivered scheduled messages (none for spectators). */
static int add_scheduled_messages(struct uow *uow, json_object *out)
{
	json_object *list = scheduled_messages_json(uow);
	if (list == NULL)
		return -1;
	json_object_object_add(out, "scheduled_messages", json_object_get(list));
	return 0;
}

/* The organization's allowed domains, for spectators too (as the reference). */
static int add_realm_domains(struct uow *uow, json_object *out)
{
	json_object *list = realm_domains_json(uow, uow->realm->id);
	if (list == NULL)
		return -1;
	json_object_object_add(out, "realm_domains", json_object_get(list));
	return 0;
}

/* ---- user_topic, muted_topics -------------------------------------------------------------------------------- */

/* The user's topic preferences; clients that ask for user_topic get the modern data only ([] for spectators). */
static int add_user_topics(struct uow *uow, const struct state_options *o, json_object *out)
{
	for (int legacy = 0; legacy < 2; legacy++) {
		if (legacy ? !want(o, "muted_topics") || (o->fetch_types != NULL && want(o, "user_topic"))
		           : !want(o, "user_topic"))
			continue;
		json_object *list = json_object_new_array();
		if (uow->user != NULL) {
			json_object_put(list);
			list = legacy ? user_topics_muted_list(uow, uow->user->id, o->empty_topic_name)
			              : user_topics_list(uow, uow->user->id, o->empty_topic_name);
			if (list == NULL)
				return -1;
			json_object_get(list);
		}
		json_object_object_add(out, legacy ? "muted_topics" : "user_topics", list);
	}
	return 0;
}

/* ---- user_status ---------------------------------------------------------------------------------------------- */

static int add_user_status(struct uow *uow, json_object *out)
{
	json_object *statuses = user_status_all(uow);
	if (statuses == NULL)
		return -1;
	json_object_object_add(out, "user_status", json_object_get(statuses));
	return 0;
}

/* Every custom emoji, deactivated ones too (the reference's realm.get_emoji()). */
static int add_realm_emoji(struct uow *uow, json_object *out)
{
	json_object *map = realm_emoji_map(uow);
	if (map == NULL)
		return -1;
	json_object_object_add(out, "realm_emoji", map);
	return 0;
}

int state_fetch(struct uow *uow, const struct state_options *o, json_object *out)
{
	/* The unread messages, the state's largest read, beside the rest (in the same snapshot). */
	struct unread_job *unread = o->snapshot != NULL && want(o, "message") && want(o, "update_message_flags")
	                                ? unread_start(uow, o->empty_topic_name)
	                                : NULL;
	if (uow->error != ERR_NONE)
		return -1;
	add_empty_state(uow, o, out);
	if (want(o, "realm") && add_realm(uow, out) < 0)
		return -1;
	if (want(o, "realm_user") && add_realm_user(uow, o, out) < 0)
		return -1;
	if (want(o, "realm_user_groups") &&
	    realm_groups_state(uow, o->include_deactivated_groups, o->snapshot, out) < 0)
		return -1;
	if (add_channels(uow, o, out) < 0)
		return -1;
	if (want(o, "realm_linkifiers") && add_linkifiers(uow, o, out) < 0)
		return -1;
	if (want(o, "custom_profile_fields") && profile_fields_state(uow, uow->realm->id, out) < 0)
		return -1;
	if (user_settings_state(uow, want(o, "user_settings"),
	                        want(o, "update_display_settings") && !o->user_settings_object,
	                        want(o, "update_global_notifications") && !o->user_settings_object, out) < 0)
		return -1;
	if (want(o, "channel_folders") && add_channel_folders(uow, out) < 0)
		return -1;
	if (want(o, "scheduled_messages") && add_scheduled_messages(uow, out) < 0)
		return -1;
	if (want(o, "recent_private_conversations") && add_recent_private_conversations(uow, out) < 0)
		return -1;
	if (add_personal(uow, o, out) < 0)
		return -1;
	if (want(o, "user_status") && add_user_status(uow, out) < 0)
		return -1;
	if (add_user_topics(uow, o, out) < 0)
		return -1;
	if (want(o, "presence") && add_presence(uow, o, out) < 0)
		return -1;
	if (want(o, "realm_domains") && add_realm_domains(uow, out) < 0)
		return -1;
	if (want(o, "realm_emoji") && add_realm_emoji(uow, out) < 0)
		return -1;
	if (want(o, "default_streams") && add_list(uow, &st_default_channels, db_arg_int(uow, uow->realm->id), true,
	                                           "realm_default_streams", out) < 0)
		return -1;
	return add_messages(uow, o, unread, out);
}
