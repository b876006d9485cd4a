/*
 * Personal user settings (the reference's UserBaseSettings at feature level 496, plus timezone): one table,
 * USER_SETTINGS, gives each setting's name (the API's and the users column's), type, allowed values and default.
 * From it come the parameters of PATCH /settings (routes.c), the validation, the UPDATE of one column, the
 * user_settings object of POST /register and its legacy top-level keys, and the events of a change.
 * Schema: migrations/0012_user_settings.sql (and 0001, 0007 for the older columns).
 */
#ifndef CONFAB_USER_SETTINGS_H
#define CONFAB_USER_SETTINGS_H

#include <json-c/json.h>
#include <stdbool.h>
#include <stdint.h>

struct uow;

/* Kinds of setting; each has its parameter type (bool: PT_BOOL; int kinds: PT_INT; the rest: PT_STR). */
enum user_setting_kind {
	US_BOOL,
	US_INT_IN,    /* an integer among values ("1 2 3") */
	US_INT_RANGE, /* an integer within values ("min max") */
	US_STR_IN,    /* a string among values ("a b c") */
	US_LANGUAGE,  /* a language code the reference has translations for */
	US_SOUND,     /* a notification sound of the reference, or "none" */
	US_TIMEZONE,  /* an IANA time zone name of the system's tzdata */
	US_BATCHING,  /* email_notifications_batching_period_seconds: 1 s to a week */
};

/* The legacy register keys and events a setting also appears in (for clients without user_settings_object). */
#define US_LEGACY_DISPLAY      1 /* update_display_settings */
#define US_LEGACY_NOTIFICATION 2 /* update_global_notifications */

/*
 * X(name, kind, default, values, legacy), in the reference's parameter order (alphabetical). default is the JSON
 * text of the default value; values as the kind says (NULL when it needs none).
 */
#define USER_SETTINGS(X)                                                                                               \
	X(allow_private_data_export, US_BOOL, "false", NULL, 0)                                                        \
	X(automatically_follow_topics_policy, US_INT_IN, "3", "1 2 3 4", 0)                                            \
	X(automatically_follow_topics_where_mentioned, US_BOOL, "true", NULL, 0)                                       \
	X(automatically_unmute_topics_in_muted_streams_policy, US_INT_IN, "2", "1 2 3 4", 0)                           \
	X(color_scheme, US_INT_IN, "1", "1 2 3", US_LEGACY_DISPLAY)                                                    \
	X(default_language, US_LANGUAGE, "\"en\"", NULL, US_LEGACY_DISPLAY)                                            \
	X(demote_inactive_streams, US_INT_IN, "1", "1 2 3", US_LEGACY_DISPLAY)                                         \
	X(desktop_icon_count_display, US_INT_IN, "1", "1 2 3 4", US_LEGACY_NOTIFICATION)                               \
	X(display_emoji_reaction_users, US_BOOL, "true", NULL, 0)                                                      \
	X(email_address_visibility, US_INT_IN, "1", "1 2 3 4 5", 0)                                                    \
	X(email_notifications_batching_period_seconds, US_BATCHING, "120", NULL, US_LEGACY_NOTIFICATION)               \
	X(emojiset, US_STR_IN, "\"google\"", "google google-blob twitter text", US_LEGACY_DISPLAY)                     \
	X(enable_desktop_notifications, US_BOOL, "true", NULL, US_LEGACY_NOTIFICATION)                                 \
	X(enable_digest_emails, US_BOOL, "true", NULL, US_LEGACY_NOTIFICATION)                                         \
	X(enable_drafts_synchronization, US_BOOL, "true", NULL, US_LEGACY_DISPLAY)                                     \
	X(enable_followed_topic_audible_notifications, US_BOOL, "true", NULL, 0)                                       \
	X(enable_followed_topic_desktop_notifications, US_BOOL, "true", NULL, 0)                                       \
	X(enable_followed_topic_email_notifications, US_BOOL, "true", NULL, 0)                                         \
	X(enable_followed_topic_push_notifications, US_BOOL, "true", NULL, 0)                                          \
	X(enable_followed_topic_wildcard_mentions_notify, US_BOOL, "true", NULL, 0)                                    \
	X(enable_login_emails, US_BOOL, "true", NULL, US_LEGACY_NOTIFICATION)                                          \
	X(enable_marketing_emails, US_BOOL, "true", NULL, US_LEGACY_NOTIFICATION)                                      \
	X(enable_offline_email_notifications, US_BOOL, "true", NULL, US_LEGACY_NOTIFICATION)                           \
	X(enable_offline_push_notifications, US_BOOL, "true", NULL, US_LEGACY_NOTIFICATION)                            \
	X(enable_online_push_notifications, US_BOOL, "true", NULL, US_LEGACY_NOTIFICATION)                             \
	X(enable_sounds, US_BOOL, "true", NULL, US_LEGACY_NOTIFICATION)                                                \
	X(enable_stream_audible_notifications, US_BOOL, "false", NULL, US_LEGACY_NOTIFICATION)                         \
	X(enable_stream_desktop_notifications, US_BOOL, "false", NULL, US_LEGACY_NOTIFICATION)                         \
	X(enable_stream_email_notifications, US_BOOL, "false", NULL, US_LEGACY_NOTIFICATION)                           \
	X(enable_stream_push_notifications, US_BOOL, "false", NULL, US_LEGACY_NOTIFICATION)                            \
	X(enter_sends, US_BOOL, "false", NULL, US_LEGACY_DISPLAY)                                                      \
	X(fluid_layout_width, US_BOOL, "false", NULL, US_LEGACY_DISPLAY)                                               \
	X(high_contrast_mode, US_BOOL, "false", NULL, US_LEGACY_DISPLAY)                                               \
	X(hide_ai_features, US_BOOL, "false", NULL, 0)                                                                 \
	X(left_side_userlist, US_BOOL, "false", NULL, US_LEGACY_DISPLAY)                                               \
	X(message_content_in_email_notifications, US_BOOL, "true", NULL, US_LEGACY_NOTIFICATION)                       \
	X(notification_sound, US_SOUND, "\"zulip\"", NULL, US_LEGACY_NOTIFICATION)                                     \
	X(pm_content_in_desktop_notifications, US_BOOL, "true", NULL, US_LEGACY_NOTIFICATION)                          \
	X(presence_enabled, US_BOOL, "true", NULL, US_LEGACY_NOTIFICATION)                                             \
	X(realm_name_in_email_notifications_policy, US_INT_IN, "1", "1 2 3", US_LEGACY_NOTIFICATION)                   \
	X(receives_typing_notifications, US_BOOL, "true", NULL, 0)                                                     \
	X(send_private_typing_notifications, US_BOOL, "true", NULL, 0)                                                 \
	X(send_read_receipts, US_BOOL, "true", NULL, 0)                                                                \
	X(send_stream_typing_notifications, US_BOOL, "true", NULL, 0)                                                  \
	X(starred_message_counts, US_BOOL, "true", NULL, US_LEGACY_DISPLAY)                                            \
	X(timezone, US_TIMEZONE, "\"\"", NULL, US_LEGACY_DISPLAY)                                                      \
	X(translate_emoticons, US_BOOL, "false", NULL, US_LEGACY_DISPLAY)                                              \
	X(twenty_four_hour_time, US_BOOL, "false", NULL, US_LEGACY_DISPLAY)                                            \
	X(user_list_style, US_INT_IN, "3", "1 2 3", 0)                                                                 \
	X(web_animate_image_previews, US_STR_IN, "\"on_hover\"", "always on_hover never", 0)                           \
	X(web_channel_default_view, US_INT_IN, "1", "1 2", 0)                                                          \
	X(web_escape_navigates_to_home_view, US_BOOL, "true", NULL, 0)                                                 \
	X(web_font_size_px, US_INT_RANGE, "16", "0 32767", 0)                                                          \
	X(web_home_view, US_STR_IN, "\"inbox\"", "recent_topics inbox all_messages", US_LEGACY_DISPLAY)                \
	X(web_line_height_percent, US_INT_RANGE, "140", "0 32767", 0)                                                  \
	X(web_mark_read_on_scroll_policy, US_INT_IN, "1", "1 2 3", 0)                                                  \
	X(web_navigate_to_sent_message, US_BOOL, "true", NULL, 0)                                                      \
	X(web_stream_unreads_count_display_policy, US_INT_IN, "2", "1 2 3", 0)                                         \
	X(web_suggest_update_timezone, US_BOOL, "true", NULL, 0)                                                       \
	X(wildcard_mentions_notify, US_BOOL, "true", NULL, US_LEGACY_NOTIFICATION)

/* The parameter type of a kind, for routes.c's table (PT_* of http/params.h). */
#define USER_SETTING_PT(kind)                                                                                          \
	((kind) == US_BOOL ? PT_BOOL : (kind) <= US_INT_RANGE || (kind) == US_BATCHING ? PT_INT : PT_STR)

/* One requested value: the setting's index in USER_SETTINGS and the value as its kind holds it. */
struct user_setting_value {
	int index;
	bool b;
	int64_t i;
	const char *s;
};

/*
 * Checks a requested value as the reference does, in its order (types were checked by the parameter validator):
 * "Invalid color_scheme: Value error, Not in the list of possible values", "Invalid timezone: Value error, Not a
 * recognized time zone", "web_font_size_px is too large"... Returns 0 or -1 with the error recorded.
 */
int user_settings_check(struct uow *uow, const struct user_setting_value *v);
/* Then, after every value passed: the reference's check_settings_values ("Invalid default_language", "Invalid
 * notification sound 'x'", "Invalid email batching period: N seconds"), for the values of vals (n). */
int user_settings_check_values(struct uow *uow, const struct user_setting_value *vals, int n);
/* The number of settings, and the name and kind of the one at index. */
int user_settings_count(void);
const char *user_settings_name(int index);
enum user_setting_kind user_settings_kind(int index);

/*
 * Applies the values (n) to the acting user (uow->user), in the reference's order: each one that differs from the
 * stored value is written and announced (user_settings update to the user, the legacy event of its kind, and the
 * effects on others of timezone and email_address_visibility); unchanged values do nothing. 0 or -1.
 */
int user_settings_apply(struct uow *uow, const struct user_setting_value *vals, int n);

/*
 * Changes the acting user's full name as PATCH /settings does: nothing when it equals the stored one, nothing
 * (silently) when the organization disables name changes and the user is not an administrator; otherwise the
 * reference's checks on the stripped name, the UPDATE and a realm_user update event. 0 or -1.
 */
int user_settings_change_full_name(struct uow *uow, const char *full_name);

/*
 * The acting user's defaults for a subscription's null notification settings, keyed as the subscription's
 * ({"desktop_notifications": enable_stream_desktop_notifications, ...audible, push, email}); owned by the unit of
 * work; NULL on error.
 */
json_object *user_settings_stream_defaults(struct uow *uow);

/*
 * Adds the register keys: with user_settings, the user_settings object (every setting, emojiset_choices,
 * available_notification_sounds); without the user_settings_object capability, the legacy top-level keys of
 * update_display_settings and update_global_notifications when those are asked. Spectators (uow->user NULL) get
 * the defaults. 0 or -1.
 */
int user_settings_state(struct uow *uow, bool user_settings, bool display_legacy, bool notification_legacy,
                        json_object *out);

#endif
