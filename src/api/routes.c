/*
 * The route table: every path the worker serves, the endpoints of /api/v1 and (R_ROOT, at the end) the few
 * outside it, with their flags and parameters. Read this first. Every list parameter
 * holds at most PARAM_MAX_ITEMS items unless its row says otherwise, and every integer fits a bigint unless its
 * flags narrow it (src/http/params.h, docs/LIMITS.md).
 */
#include <string.h>

#include "api/api.h"
#include "core/hash.h"
#include "http/route.h"
#include "model/messages.h"
#include "model/user_settings.h"

#define END                                                                                                            \
	{                                                                                                              \
		NULL, 0, 0, 0, NULL                                                                                    \
	}

static const struct param_spec no_params[] = {END};

static const struct param_spec fetch_api_key_params[] = {
    {"username", PT_STR, P_REQUIRED, 0, NULL},
    {"password", PT_STR, P_REQUIRED, 0, NULL},
    END,
};

static const struct param_spec users_list_params[] = {
    {"client_gravatar", PT_BOOL, 0, 0, "true"},
    {"include_custom_profile_fields", PT_BOOL, 0, 0, "false"},
    END,
};

static const struct param_spec user_by_id_params[] = {
    {"user_id", PT_INT, P_PATH, 0, NULL},
    {"client_gravatar", PT_BOOL, 0, 0, "true"},
    {"include_custom_profile_fields", PT_BOOL, 0, 0, "false"},
    END,
};

static const struct param_spec user_by_email_params[] = {
    {"email", PT_STR, P_PATH, 0, NULL},
    {"client_gravatar", PT_BOOL, 0, 0, "true"},
    {"include_custom_profile_fields", PT_BOOL, 0, 0, "false"},
    END,
};

static const struct param_spec users_create_params[] = {
    {"email", PT_STR, P_REQUIRED, 0, NULL},
    {"password", PT_STR, P_REQUIRED, 0, NULL},
    {"full_name", PT_STR, P_REQUIRED, 0, NULL},
    END,
};

static const struct param_spec user_update_params[] = {
    {"user_id", PT_INT, P_PATH, 0, NULL},       {"full_name", PT_STR, 0, 0, NULL}, {"role", PT_INT, P_NULL, 0, NULL},
    {"profile_data", PT_JSON, P_NULL, 0, NULL}, {"new_email", PT_STR, 0, 0, NULL}, END,
};

static const struct param_spec user_update_by_email_params[] = {
    {"email", PT_STR, P_PATH, 0, NULL},         {"full_name", PT_STR, 0, 0, NULL}, {"role", PT_INT, P_NULL, 0, NULL},
    {"profile_data", PT_JSON, P_NULL, 0, NULL}, {"new_email", PT_STR, 0, 0, NULL}, END,
};

static const struct param_spec user_deactivate_params[] = {
    {"user_id", PT_INT, P_PATH, 0, NULL},
    {"deactivation_notification_comment", PT_STR, 0, 2000, NULL},
    END,
};

/* Every user setting (model/user_settings.h), a JSON null counting as not sent for the JSON-encoded ones. */
#define SETTING_PARAM(n, k, d, v, l) {#n, USER_SETTING_PT(k), USER_SETTING_PT(k) == PT_STR ? 0u : P_NULL, 0, NULL},
static const struct param_spec settings_params[] = {
    USER_SETTINGS(SETTING_PARAM){"full_name", PT_STR, 0, 0, NULL},
    END,
};

static const struct param_spec user_status_own_params[] = {
    {"status_text", PT_STR, 0, 0, NULL}, {"away", PT_BOOL, 0, 0, NULL},         {"emoji_name", PT_STR, 0, 0, NULL},
    {"emoji_code", PT_STR, 0, 0, NULL},  {"reaction_type", PT_STR, 0, 0, NULL}, END,
};

static const struct param_spec user_status_for_user_params[] = {
    {"user_id", PT_INT, P_PATH, 0, NULL}, {"status_text", PT_STR, 0, 0, NULL},   {"emoji_name", PT_STR, 0, 0, NULL},
    {"emoji_code", PT_STR, 0, 0, NULL},   {"reaction_type", PT_STR, 0, 0, NULL}, END,
};

static const struct param_spec user_id_params[] = {
    {"user_id", PT_INT, P_PATH, 0, NULL},
    END,
};

static const struct param_spec profile_fields_create_params[] = {
    {"name", PT_STR, 0, 0, ""},
    {"hint", PT_STR, 0, 0, ""},
    {"field_type", PT_INT, P_REQUIRED, 0, NULL},
    {"field_data", PT_DICT, P_NULL, 0, NULL},
    {"display_in_profile_summary", PT_BOOL, 0, 0, "false"},
    {"required", PT_BOOL, 0, 0, "false"},
    {"editable_by_user", PT_BOOL, 0, 0, "true"},
    END,
};

static const struct param_spec profile_data_params[] = {
    {"data", PT_JSON, P_REQUIRED, 0, NULL},
    END,
};

static const struct param_spec apns_token_add_params[] = {
    {"token", PT_STR, P_REQUIRED, 0, NULL},
    {"appid", PT_STR, P_REQUIRED, 0, NULL},
    END,
};

static const struct param_spec apns_token_remove_params[] = {
    {"token", PT_STR, P_REQUIRED, 0, NULL},
    END,
};

static const struct param_spec channels_list_params[] = {
    {"include_public", PT_BOOL, 0, 0, "true"},
    {"include_web_public", PT_BOOL, 0, 0, "false"},
    {"include_subscribed", PT_BOOL, 0, 0, "true"},
    {"exclude_archived", PT_BOOL, 0, 0, "true"},
    {"include_all_active", PT_BOOL, 0, 0, "false"},
    {"include_all", PT_BOOL, 0, 0, "false"},
    {"include_default", PT_BOOL, 0, 0, "false"},
    {"include_owner_subscribed", PT_BOOL, 0, 0, "false"},
    {"include_can_access_content", PT_BOOL, 0, 0, "false"},
    END,
};

static const struct param_spec default_stream_params[] = {
    {"stream_id", PT_INT, P_REQUIRED, 0, NULL},
    END,
};

static const struct param_spec channel_update_params[] = {
    {"stream_id", PT_INT, P_PATH, 0, NULL},
    {"description", PT_STR, 0, 1024, NULL},
    {"new_name", PT_STR, 0, 0, NULL},
    {"is_private", PT_BOOL, P_NULL, 0, NULL},
    {"is_web_public", PT_BOOL, P_NULL, 0, NULL},
    {"history_public_to_subscribers", PT_BOOL, P_NULL, 0, NULL},
    {"is_default_stream", PT_BOOL, P_NULL, 0, NULL},
    {"message_retention_days", PT_LIMIT, P_NULL | P_UNLIMITED | P_REALM_DEFAULT, 0, NULL},
    {"is_archived", PT_BOOL, P_NULL, 0, NULL},
    {"topics_policy", PT_STR, 0, 0, NULL},
    {"folder_id", PT_JSON, 0, 0, NULL},
    {"can_add_subscribers_group", PT_GROUP_UPDATE, P_NULL, 0, NULL},
    {"can_administer_channel_group", PT_GROUP_UPDATE, P_NULL, 0, NULL},
    {"can_create_topic_group", PT_GROUP_UPDATE, P_NULL, 0, NULL},
    {"can_delete_any_message_group", PT_GROUP_UPDATE, P_NULL, 0, NULL},
    {"can_delete_own_message_group", PT_GROUP_UPDATE, P_NULL, 0, NULL},
    {"can_move_messages_out_of_channel_group", PT_GROUP_UPDATE, P_NULL, 0, NULL},
    {"can_move_messages_within_channel_group", PT_GROUP_UPDATE, P_NULL, 0, NULL},
    {"can_remove_subscribers_group", PT_GROUP_UPDATE, P_NULL, 0, NULL},
    {"can_resolve_topics_group", PT_GROUP_UPDATE, P_NULL, 0, NULL},
    {"can_send_message_group", PT_GROUP_UPDATE, P_NULL, 0, NULL},
    {"can_subscribe_group", PT_GROUP_UPDATE, P_NULL, 0, NULL},
    END,
};

static const struct param_spec channel_id_params[] = {
    {"stream_id", PT_INT, P_PATH, 0, NULL},
    END,
};

static const struct param_spec channel_topics_params[] = {
    {"stream_id", PT_INT, P_PATH, 0, NULL},
    {"allow_empty_topic_name", PT_BOOL, 0, 0, "false"},
    END,
};

static const struct param_spec subscriptions_list_params[] = {
    {"include_subscribers", PT_BOOL, 0, 0, "false"},
    END,
};

static const struct param_spec subscriptions_add_params[] = {
    {"subscriptions", PT_JSON, P_REQUIRED, 0, NULL},
    {"principals", PT_JSON, 0, 0, NULL},
    {"authorization_errors_fatal", PT_BOOL, 0, 0, "true"},
    {"announce", PT_BOOL, 0, 0, "false"},
    {"invite_only", PT_BOOL, 0, 0, "false"},
    {"is_web_public", PT_BOOL, 0, 0, "false"},
    {"is_default_stream", PT_BOOL, 0, 0, "false"},
    {"history_public_to_subscribers", PT_BOOL, 0, 0, NULL},
    {"message_retention_days", PT_LIMIT, P_NULL | P_UNLIMITED | P_REALM_DEFAULT, 0, NULL},
    {"is_archived", PT_BOOL, P_NULL, 0, NULL},
    {"topics_policy", PT_STR, 0, 0, NULL},
    {"folder_id", PT_INT, 0, 0, NULL},
    {"can_add_subscribers_group", PT_GROUP_SETTING, P_NULL, 0, NULL},
    {"can_administer_channel_group", PT_GROUP_SETTING, P_NULL, 0, NULL},
    {"can_create_topic_group", PT_GROUP_SETTING, P_NULL, 0, NULL},
    {"can_delete_any_message_group", PT_GROUP_SETTING, P_NULL, 0, NULL},
    {"can_delete_own_message_group", PT_GROUP_SETTING, P_NULL, 0, NULL},
    {"can_move_messages_out_of_channel_group", PT_GROUP_SETTING, P_NULL, 0, NULL},
    {"can_move_messages_within_channel_group", PT_GROUP_SETTING, P_NULL, 0, NULL},
    {"can_remove_subscribers_group", PT_GROUP_SETTING, P_NULL, 0, NULL},
    {"can_resolve_topics_group", PT_GROUP_SETTING, P_NULL, 0, NULL},
    {"can_send_message_group", PT_GROUP_SETTING, P_NULL, 0, NULL},
    {"can_subscribe_group", PT_GROUP_SETTING, P_NULL, 0, NULL},
    END,
};

static const struct param_spec subscriptions_remove_params[] = {
    {"subscriptions", PT_JSON, P_REQUIRED, 0, NULL},
    {"principals", PT_JSON, 0, 0, NULL},
    END,
};

static const struct param_spec subscription_properties_params[] = {
    {"subscription_data", PT_JSON, P_REQUIRED, 0, NULL},
    END,
};

static const struct param_spec channel_folders_create_params[] = {
    {"name", PT_STR, P_REQUIRED | P_RAW, 60, NULL},
    {"description", PT_STR, 0, 1024, ""},
    END,
};

static const struct param_spec channel_folders_update_params[] = {
    {"channel_folder_id", PT_INT, P_PATH, 0, NULL},
    {"name", PT_STR, P_RAW, 60, NULL},
    {"description", PT_STR, 0, 1024, NULL},
    {"is_archived", PT_BOOL, P_NULL, 0, NULL},
    END,
};

static const struct param_spec channel_folders_reorder_params[] = {
    {"order", PT_INT_LIST, P_REQUIRED, 0, NULL},
    END,
};

static const struct param_spec channel_folders_list_params[] = {
    {"include_archived", PT_BOOL, 0, 0, "false"},
    END,
};

static const struct param_spec user_groups_create_params[] = {
    {"can_add_members_group", PT_GROUP_SETTING, P_NULL, 0, NULL},
    {"can_join_group", PT_GROUP_SETTING, P_NULL, 0, NULL},
    {"can_leave_group", PT_GROUP_SETTING, P_NULL, 0, NULL},
    {"can_manage_group", PT_GROUP_SETTING, P_NULL, 0, NULL},
    {"can_mention_group", PT_GROUP_SETTING, P_NULL, 0, NULL},
    {"can_remove_members_group", PT_GROUP_SETTING, P_NULL, 0, NULL},
    {"description", PT_STR, P_REQUIRED, 0, NULL},
    {"members", PT_INT_LIST, P_REQUIRED, 0, NULL},
    {"name", PT_STR, P_REQUIRED, 0, NULL},
    {"subgroups", PT_INT_LIST, 0, 0, NULL},
    END,
};

static const struct param_spec user_groups_list_params[] = {
    {"include_deactivated_groups", PT_BOOL, 0, 0, "false"},
    END,
};

static const struct param_spec user_groups_update_params[] = {
    {"user_group_id", PT_INT, P_PATH, 0, NULL},
    {"can_add_members_group", PT_GROUP_UPDATE, P_NULL, 0, NULL},
    {"can_join_group", PT_GROUP_UPDATE, P_NULL, 0, NULL},
    {"can_leave_group", PT_GROUP_UPDATE, P_NULL, 0, NULL},
    {"can_manage_group", PT_GROUP_UPDATE, P_NULL, 0, NULL},
    {"can_mention_group", PT_GROUP_UPDATE, P_NULL, 0, NULL},
    {"can_remove_members_group", PT_GROUP_UPDATE, P_NULL, 0, NULL},
    {"deactivated", PT_BOOL, 0, 0, NULL},
    {"description", PT_STR, 0, 0, NULL},
    {"name", PT_STR, 0, 0, NULL},
    END,
};

static const struct param_spec user_group_id_params[] = {
    {"user_group_id", PT_INT, P_PATH, 0, NULL},
    END,
};

static const struct param_spec user_group_members_params[] = {
    {"user_group_id", PT_INT, P_PATH, 0, NULL},    {"add", PT_INT_LIST, 0, 0, NULL},
    {"add_subgroups", PT_INT_LIST, 0, 0, NULL},    {"delete", PT_INT_LIST, 0, 0, NULL},
    {"delete_subgroups", PT_INT_LIST, 0, 0, NULL}, END,
};

static const struct param_spec user_group_members_list_params[] = {
    {"user_group_id", PT_INT, P_PATH, 0, NULL},
    {"direct_member_only", PT_BOOL, 0, 0, "false"},
    END,
};

static const struct param_spec user_group_member_get_params[] = {
    {"user_group_id", PT_INT, P_PATH, 0, NULL},
    {"user_id", PT_INT, P_PATH, 0, NULL},
    {"direct_member_only", PT_BOOL, 0, 0, "false"},
    END,
};

static const struct param_spec user_group_subgroups_list_params[] = {
    {"user_group_id", PT_INT, P_PATH, 0, NULL},
    {"direct_subgroup_only", PT_BOOL, 0, 0, "false"},
    END,
};

static const struct param_spec user_group_subgroups_params[] = {
    {"user_group_id", PT_INT, P_PATH, 0, NULL},
    {"add", PT_INT_LIST, 0, 0, NULL},
    {"delete", PT_INT_LIST, 0, 0, NULL},
    END,
};

/* The reference's {filename} is the rest of the path_id: <directory>/<random>/<name>. */
static const struct param_spec user_upload_params[] = {
    {"realm_id_str", PT_STR, P_PATH, 0, NULL},
    {"directory", PT_STR, P_PATH, 0, NULL},
    {"random", PT_STR, P_PATH, 0, NULL},
    {"filename", PT_STR, P_PATH, 0, NULL},
    END,
};

/* The name is the rest of the path (the reference strips it and makes spaces '_' for uploads). */
static const struct param_spec realm_emoji_params[] = {
    {"emoji_name", PT_STR, P_PATH, 0, NULL},
    END,
};

/* The files themselves, outside /api/v1: the rest of the path after {realm_id_str} is the file's (uploads.c). */
static const struct param_spec uploaded_file_params[] = {
    {"realm_id_str", PT_STR, P_PATH, 0, NULL},
    END,
};

static const struct param_spec temporary_file_params[] = {
    {"token", PT_STR, P_PATH, 0, NULL},
    {"filename", PT_STR, P_PATH, 0, NULL},
    END,
};

/* content, topic and subject are read raw by the handler (see src/api/messages.c). */
static const struct param_spec messages_send_params[] = {
    {"type", PT_STR, P_REQUIRED, 0, NULL}, /* stream, channel, private or direct */
    {"to", PT_STR, 0, 0, NULL},
    {"topic", PT_STR, P_RAW, 0, NULL},
    {"subject", PT_STR, P_RAW, 0, NULL},
    {"content", PT_STR, P_RAW | P_REQUIRED, 0, NULL},
    {"queue_id", PT_STR, 0, 0, NULL},
    {"local_id", PT_STR, 0, 0, NULL},
    {"read_by_sender", PT_BOOL, 0, 0, "false"},
    END,
};

static const struct param_spec messages_list_params[] = {
    {"anchor", PT_ANCHOR, 0, 0, NULL},
    {"include_anchor", PT_BOOL, 0, 0, "true"},
    {"num_before", PT_INT, P_INT4 | P_NONNEG, 0, "0"},
    {"num_after", PT_INT, P_INT4 | P_NONNEG, 0, "0"},
    {"narrow", PT_JSON, 0, 0, NULL},
    {"client_gravatar", PT_BOOL, 0, 0, "true"},
    {"apply_markdown", PT_BOOL, 0, 0, "true"},
    {"use_first_unread_anchor", PT_BOOL, 0, 0, "false"},
    /* Above MESSAGE_MAX_FETCH the handler answers the reference's "Too many messages requested". */
    {"message_ids", PT_INT_LIST, 0, 2 * MESSAGE_MAX_FETCH, NULL},
    {"allow_empty_topic_name", PT_BOOL, 0, 0, "false"},
    END,
};

static const struct param_spec message_get_params[] = {
    {"message_id", PT_INT, P_PATH, 0, NULL},
    {"apply_markdown", PT_BOOL, 0, 0, "true"},
    {"allow_empty_topic_name", PT_BOOL, 0, 0, "false"},
    END,
};

static const struct param_spec message_id_params[] = {
    {"message_id", PT_INT, P_PATH, 0, NULL},
    END,
};

/* topic, subject and content are read raw by the handler; propagate_mode is checked there (message_edit.c). */
static const struct param_spec message_update_params[] = {
    {"message_id", PT_INT, P_PATH, 0, NULL},
    {"stream_id", PT_INT, 0, 0, NULL},
    {"topic", PT_STR, P_RAW, 0, NULL},
    {"subject", PT_STR, P_RAW, 0, NULL},
    {"propagate_mode", PT_STR, 0, 0, "change_one"},
    {"send_notification_to_old_thread", PT_BOOL, 0, 0, "false"},
    {"send_notification_to_new_thread", PT_BOOL, 0, 0, "true"},
    {"content", PT_STR, P_RAW, 0, NULL},
    {"prev_content_sha256", PT_STR, 0, 0, NULL},
    END,
};

static const struct param_spec scheduled_messages_create_params[] = {
    {"type", PT_STR, P_REQUIRED, 0, NULL}, /* stream, channel, private or direct */
    {"to", PT_JSON, P_REQUIRED, 0, NULL},  /* a channel id or a list of user ids */
    {"content", PT_STR, P_RAW | P_REQUIRED, 0, NULL},
    {"topic", PT_STR, P_RAW, 0, NULL},
    {"scheduled_delivery_timestamp", PT_INT, P_REQUIRED, 0, NULL},
    {"read_by_sender", PT_BOOL, P_NULL, 0, "false"},
    END,
};

static const struct param_spec scheduled_message_update_params[] = {
    {"scheduled_message_id", PT_INT, P_PATH, 0, NULL},
    {"type", PT_STR, 0, 0, NULL},
    {"to", PT_JSON, 0, 0, NULL},
    {"content", PT_STR, P_RAW, 0, NULL},
    {"topic", PT_STR, P_RAW, 0, NULL},
    {"scheduled_delivery_timestamp", PT_INT, 0, 0, NULL},
    END,
};

static const struct param_spec scheduled_message_id_params[] = {
    {"scheduled_message_id", PT_INT, P_PATH, 0, NULL},
    END,
};

static const struct param_spec message_report_params[] = {
    {"message_id", PT_INT, P_PATH, 0, NULL},
    {"report_type", PT_STR, P_REQUIRED, 0, NULL},
    {"description", PT_STR, 0, 0, ""}, /* its limit is checked after report_type, as the reference does */
    END,
};

static const struct param_spec reactions_add_params[] = {
    {"message_id", PT_INT, P_PATH, 0, NULL},
    {"emoji_name", PT_STR, P_REQUIRED, 0, NULL},
    {"emoji_code", PT_STR, 0, 0, NULL},
    {"reaction_type", PT_STR, 0, 0, NULL},
    END,
};

static const struct param_spec reactions_remove_params[] = {
    {"message_id", PT_INT, P_PATH, 0, NULL},
    {"emoji_name", PT_STR, 0, 0, NULL},
    {"emoji_code", PT_STR, 0, 0, NULL},
    {"reaction_type", PT_STR, 0, 0, "unicode_emoji"},
    END,
};

/* op, to and stream_id are checked by the handler, in the reference's parameter order (src/api/typing.c). */
static const struct param_spec typing_params[] = {
    {"to", PT_JSON, 0, 0, NULL},
    {"op", PT_STR, 0, 0, NULL},
    {"type", PT_STR, 0, 0, "direct"},
    {"stream_id", PT_STR, 0, 0, NULL},
    {"topic", PT_STR, 0, 0, NULL},
    {"subject", PT_STR, 0, 0, NULL},
    END,
};

static const struct param_spec typing_edit_params[] = {
    {"message_id", PT_INT, P_PATH, 0, NULL},
    {"op", PT_STR, 0, 0, NULL},
    END,
};

/* In the reference's parameter order. */
static const struct param_spec realm_update_params[] = {
    {"allow_message_editing", PT_BOOL, 0, 0, NULL},
    {"can_mention_many_users_group", PT_GROUP_UPDATE, P_NULL, 0, NULL},
    {"can_move_messages_between_channels_group", PT_GROUP_UPDATE, P_NULL, 0, NULL},
    {"can_move_messages_between_topics_group", PT_GROUP_UPDATE, P_NULL, 0, NULL},
    {"can_resolve_topics_group", PT_GROUP_UPDATE, P_NULL, 0, NULL},
    {"description", PT_STR, 0, 1000, NULL},
    {"emails_restricted_to_domains", PT_BOOL, P_NULL, 0, NULL},
    {"message_content_delete_limit_seconds", PT_LIMIT, P_NULL | P_UNLIMITED, 0, NULL},
    {"message_content_edit_limit_seconds", PT_LIMIT, P_NULL | P_UNLIMITED, 0, NULL},
    {"moderation_request_channel_id", PT_INT, 0, 0, NULL},
    {"move_messages_between_streams_limit_seconds", PT_LIMIT, P_NULL | P_UNLIMITED, 0, NULL},
    {"move_messages_within_stream_limit_seconds", PT_LIMIT, P_NULL | P_UNLIMITED, 0, NULL},
    {"name", PT_STR, P_NONBLANK, 40, NULL},
    {"topics_policy", PT_STR, 0, 0, NULL},
    {"waiting_period_threshold", PT_INT, P_INT4 | P_NONNEG, 0, NULL},
    END,
};

/* allow_subdomains first: the reference's typed_endpoint reports the first missing one in signature order. */
static const struct param_spec invites_create_params[] = {
    {"invitee_emails", PT_STR, P_REQUIRED, 0, NULL},
    {"invite_expires_in_minutes", PT_JSON, 0, 0, NULL}, /* an integer, or null: never */
    {"invite_as", PT_INT, P_INT4, 0, "400"},
    {"stream_ids", PT_INT_LIST, P_REQUIRED, 0, NULL},
    {"group_ids", PT_INT_LIST, P_NULL, 0, NULL},
    {"include_realm_default_subscriptions", PT_BOOL, 0, 0, "false"},
    {"notify_referrer_on_join", PT_BOOL, 0, 0, "true"},
    {"welcome_message_custom_text", PT_STR, 0, 8000,
     NULL}, /* the reference's MAX_REALM_WELCOME_MESSAGE_CUSTOM_TEXT_LENGTH */
    END,
};

static const struct param_spec invites_multiuse_params[] = {
    {"invite_expires_in_minutes", PT_JSON, 0, 0, NULL},
    {"invite_as", PT_INT, P_INT4, 0, "400"},
    {"stream_ids", PT_INT_LIST, P_NULL, 0, NULL},
    {"group_ids", PT_INT_LIST, P_NULL, 0, NULL},
    {"include_realm_default_subscriptions", PT_BOOL, 0, 0, "false"},
    {"welcome_message_custom_text", PT_STR, 0, 8000, NULL},
    END,
};

static const struct param_spec invite_id_params[] = {
    {"invite_id", PT_INT, P_PATH, 0, NULL},
    END,
};

static const struct param_spec realm_domains_create_params[] = {
    {"allow_subdomains", PT_BOOL, P_REQUIRED, 0, NULL},
    {"domain", PT_STR, P_REQUIRED, 0, NULL},
    END,
};

static const struct param_spec realm_domain_update_params[] = {
    {"allow_subdomains", PT_BOOL, P_REQUIRED, 0, NULL},
    {"domain", PT_STR, P_PATH, 0, NULL},
    END,
};

static const struct param_spec realm_domain_params[] = {
    {"domain", PT_STR, P_PATH, 0, NULL},
    END,
};

static const struct param_spec messages_flags_params[] = {
    {"messages", PT_INT_LIST, P_REQUIRED, MESSAGE_MAX_FLAGS_UPDATE, NULL},
    {"op", PT_STR, P_REQUIRED, 0, NULL},
    {"flag", PT_STR, P_REQUIRED, 0, NULL},
    END,
};

static const struct param_spec mark_stream_params[] = {
    {"stream_id", PT_INT, P_REQUIRED, 0, NULL},
    END,
};

static const struct param_spec mark_topic_params[] = {
    {"stream_id", PT_INT, P_REQUIRED, 0, NULL},
    {"topic_name", PT_STR, P_REQUIRED, 0, NULL},
    END,
};

/* visibility_policy's values (0-3) are checked by the handler (src/api/user_topics.c). */
static const struct param_spec user_topics_params[] = {
    {"stream_id", PT_INT, P_REQUIRED, 0, NULL},
    {"topic", PT_STR, P_REQUIRED, 60, NULL},
    {"visibility_policy", PT_INT, P_REQUIRED, 0, NULL},
    END,
};

static const struct param_spec get_stream_id_params[] = {
    {"stream", PT_STR, P_REQUIRED, 0, NULL},
    END,
};

static const struct param_spec muted_topics_params[] = {
    {"stream_id", PT_INT, 0, 0, NULL},
    {"stream", PT_STR, 0, 0, NULL},
    {"topic", PT_STR, P_REQUIRED, 60, NULL},
    {"op", PT_STR, P_REQUIRED, 0, NULL},
    END,
};

/* status is checked by the handler (src/api/presence.c). */
static const struct param_spec presence_update_params[] = {
    {"history_limit_days", PT_INT, P_NULL, 0, NULL},
    {"last_update_id", PT_INT, P_NULL, 0, NULL},
    {"new_user_input", PT_BOOL, 0, 0, "false"},
    {"ping_only", PT_BOOL, 0, 0, "false"},
    {"slim_presence", PT_BOOL, 0, 0, "false"},
    {"status", PT_STR, P_REQUIRED, 0, NULL},
    END,
};

static const struct param_spec presence_user_params[] = {
    {"user_id_or_email", PT_STR, P_PATH, 0, NULL},
    {"slim_presence", PT_BOOL, 0, 0, "false"},
    END,
};

static const struct param_spec events_get_params[] = {
    {"queue_id", PT_STR, 0, 0, NULL},
    {"last_event_id", PT_INT, 0, 0, NULL},
    {"dont_block", PT_BOOL, 0, 0, "false"},
    END,
};

/* include_subscribers and idle_queue_timeout (seconds or "mobile", quoted or not) are checked by the handler
 * (src/api/register.c). */
static const struct param_spec register_params[] = {
    {"all_public_streams", PT_BOOL, P_NULL, 0, NULL},
    {"apply_markdown", PT_BOOL, 0, 0, "false"},
    {"client_capabilities", PT_DICT, 0, 0, NULL},
    {"client_gravatar", PT_BOOL, P_NULL, 0, NULL},
    {"event_types", PT_STR_LIST, P_NULL, 0, NULL},
    {"fetch_event_types", PT_STR_LIST, P_NULL, 0, NULL},
    {"idle_queue_timeout", PT_STR, 0, 0, NULL},
    {"include_subscribers", PT_STR, 0, 0, "false"},
    {"narrow", PT_STR_PAIRS, P_NULL, 0, NULL},
    {"presence_history_limit_days", PT_INT, P_NULL, 0, NULL},
    {"queue_lifespan_secs", PT_INT, 0, 0, "0"},
    {"slim_presence", PT_BOOL, 0, 0, "false"},
    END,
};

static const struct param_spec events_delete_params[] = {
    {"queue_id", PT_STR, P_REQUIRED, 0, NULL},
    END,
};

/* The invitation page's form (src/api/join.c): every field optional here, the page words its own errors. */
static const struct param_spec join_params[] = {
    {"key", PT_STR, P_PATH, 0, NULL}, {"csrf_token", PT_STR, 0, 0, ""}, {"email", PT_STR, 0, 0, ""},
    {"full_name", PT_STR, 0, 0, ""},  {"password", PT_STR, 0, 0, ""},   END,
};

/* At most 100 drafts a request, each with at most 1000 recipients (src/api/drafts.c; docs/LIMITS.md). */
static const struct param_spec drafts_create_params[] = {
    {"drafts", PT_JSON, P_RAW, 100, "[]"}, /* P_RAW: NUL in content or topic, in the reference's words */
    END,
};

static const struct param_spec draft_edit_params[] = {
    {"draft_id", PT_INT, P_PATH, 0, NULL},
    {"draft", PT_JSON, P_REQUIRED | P_RAW, 0, NULL},
    END,
};

static const struct param_spec draft_id_params[] = {
    {"draft_id", PT_INT, P_PATH, 0, NULL},
    END,
};

/* title and content are stripped before their bounds are checked (src/api/saved_snippets.c). */
static const struct param_spec saved_snippets_create_params[] = {
    {"title", PT_STR, P_REQUIRED, 0, NULL},
    {"content", PT_STR, P_REQUIRED, 0, NULL},
    END,
};

static const struct param_spec saved_snippet_edit_params[] = {
    {"saved_snippet_id", PT_INT, P_PATH, 0, NULL},
    {"title", PT_STR, 0, 0, NULL},
    {"content", PT_STR, 0, 0, NULL},
    END,
};

static const struct param_spec attachment_id_params[] = {
    {"attachment_id", PT_INT, P_PATH, 0, NULL},
    END,
};

static const struct param_spec saved_snippet_id_params[] = {
    {"saved_snippet_id", PT_INT, P_PATH, 0, NULL},
    END,
};

/* The reference bounds neither fragment nor name (TextField); confab's bounds: docs/LIMITS.md, "Stored texts". */
#define NAVIGATION_FRAGMENT_MAX 2000
#define NAVIGATION_NAME_MAX     100

static const struct param_spec navigation_views_create_params[] = {
    {"fragment", PT_STR, P_REQUIRED, NAVIGATION_FRAGMENT_MAX, NULL},
    {"is_pinned", PT_BOOL, P_REQUIRED, 0, NULL},
    {"name", PT_STR, 0, NAVIGATION_NAME_MAX, NULL},
    END,
};

/* The fragment is the whole rest of the path, slashes included (src/api/navigation_views.c). */
static const struct param_spec navigation_view_update_params[] = {
    {"is_pinned", PT_BOOL, P_NULL, 0, NULL},
    {"name", PT_STR, 0, NAVIGATION_NAME_MAX, NULL},
    END,
};

/* The reference bounds none of a linkifier's texts (TextField); confab's bound: docs/LIMITS.md, "Stored texts". */
#define LINKIFIER_TEXT_MAX 1000

/* Linkifiers (src/api/linkifiers.c): pattern and url_template are stripped, then validated as the reference's
 * RealmFilter.full_clean(); a reverse template needs example_input ("" sets either to none). */
static const struct param_spec linkifier_create_params[] = {
    {"pattern", PT_STR, P_REQUIRED, LINKIFIER_TEXT_MAX, NULL},
    {"url_template", PT_STR, P_REQUIRED, LINKIFIER_TEXT_MAX, NULL},
    {"example_input", PT_STR, 0, LINKIFIER_TEXT_MAX, NULL},
    {"reverse_template", PT_STR, 0, LINKIFIER_TEXT_MAX, NULL},
    {"alternative_url_templates", PT_STR_LIST, 0, 0, NULL},
    END,
};

static const struct param_spec linkifier_update_params[] = {
    {"filter_id", PT_INT, P_PATH, 0, NULL},
    {"pattern", PT_STR, P_REQUIRED, LINKIFIER_TEXT_MAX, NULL},
    {"url_template", PT_STR, P_REQUIRED, LINKIFIER_TEXT_MAX, NULL},
    {"example_input", PT_STR, 0, LINKIFIER_TEXT_MAX, NULL},
    {"reverse_template", PT_STR, 0, LINKIFIER_TEXT_MAX, NULL},
    {"alternative_url_templates", PT_STR_LIST, 0, 0, NULL},
    END,
};

static const struct param_spec linkifier_id_params[] = {
    {"filter_id", PT_INT, P_PATH, 0, NULL},
    END,
};

static const struct param_spec linkifiers_order_params[] = {
    {"ordered_linkifier_ids", PT_INT_LIST, P_REQUIRED, 0, NULL},
    END,
};

const struct route routes[] = {
    {"GET", "/server_settings", server_settings_get, R_PUBLIC, no_params},
    {"POST", "/fetch_api_key", api_key_fetch, R_PUBLIC, fetch_api_key_params},
    /* Spectators may register (the handler tells what they may ask for). */
    {"POST", "/register", events_register, R_AUTH_OPTIONAL, register_params},
    {"GET", "/events", events_get, 0, events_get_params},
    {"DELETE", "/events", events_delete, 0, events_delete_params},
    {"GET", "/users/me", users_me_get, 0, no_params},
    {"DELETE", "/users/me", users_deactivate_own, R_TXN, no_params},
    {"PATCH", "/users/me/profile_data", profile_data_update, R_HUMAN | R_TXN, profile_data_params},
    {"GET", "/realm/linkifiers", linkifiers_list, 0, no_params},
    {"PATCH", "/realm/linkifiers", linkifiers_order, R_ADMIN | R_TXN, linkifiers_order_params},
    {"POST", "/realm/filters", linkifiers_create, R_ADMIN | R_TXN, linkifier_create_params},
    {"PATCH", "/realm/filters/{filter_id}", linkifiers_update, R_ADMIN | R_TXN, linkifier_update_params},
    {"DELETE", "/realm/filters/{filter_id}", linkifiers_delete, R_ADMIN | R_TXN, linkifier_id_params},
    {"GET", "/realm/profile_fields", profile_fields_list, 0, no_params},
    {"POST", "/realm/profile_fields", profile_fields_create, R_ADMIN | R_TXN, profile_fields_create_params},
    {"PATCH", "/settings", settings_update, R_HUMAN | R_TXN, settings_params},
    /* The deprecated aliases of feature level 80. */
    {"PATCH", "/settings/display", settings_update, R_HUMAN | R_TXN, settings_params},
    {"PATCH", "/settings/notifications", settings_update, R_HUMAN | R_TXN, settings_params},
    {"GET", "/users", users_list, 0, users_list_params},
    {"POST", "/users", users_create, R_ADMIN | R_TXN, users_create_params},
    {"GET", "/users/me/subscriptions", subscriptions_list, 0, subscriptions_list_params},
    {"POST", "/users/me/subscriptions", subscriptions_add, R_NO_GUEST | R_TXN, subscriptions_add_params},
    {"DELETE", "/users/me/subscriptions", subscriptions_remove, R_TXN, subscriptions_remove_params},
    {"POST", "/users/me/subscriptions/properties", subscriptions_update_properties, R_TXN,
     subscription_properties_params},
    {"PATCH", "/users/me/subscriptions/properties", subscriptions_update_properties, R_TXN,
     subscription_properties_params},
    {"PATCH", "/users/me/subscriptions/muted_topics", user_topics_mute_legacy, R_TXN, muted_topics_params},
    {"GET", "/users/me/{stream_id}/topics", channels_topics, 0, channel_topics_params},
    {"POST", "/users/me/status", user_status_update_own, R_HUMAN | R_TXN, user_status_own_params},
    {"POST", "/users/me/presence", presence_update, R_HUMAN, presence_update_params},
    {"POST", "/users/me/apns_device_token", apns_token_add, R_HUMAN | R_TXN, apns_token_add_params},
    {"DELETE", "/users/me/apns_device_token", apns_token_remove, R_HUMAN | R_TXN, apns_token_remove_params},
    {"GET", "/streams", channels_list, 0, channels_list_params},
    {"GET", "/streams/{stream_id}", channels_get, 0, channel_id_params},
    {"GET", "/get_stream_id", channels_get_id, 0, get_stream_id_params},
    {"PATCH", "/streams/{stream_id}", channel_update, R_TXN, channel_update_params},
    {"GET", "/streams/{stream_id}/members", channels_members, 0, channel_id_params},
    {"DELETE", "/streams/{stream_id}", channels_archive, R_TXN, channel_id_params},
    {"POST", "/default_streams", default_streams_add, R_ADMIN | R_TXN, default_stream_params},
    {"DELETE", "/default_streams", default_streams_remove, R_ADMIN | R_TXN, default_stream_params},
    {"POST", "/channel_folders/create", channel_folders_create, R_ADMIN | R_TXN, channel_folders_create_params},
    {"GET", "/channel_folders", channel_folders_list, 0, channel_folders_list_params},
    {"PATCH", "/channel_folders", channel_folders_reorder, R_ADMIN | R_TXN, channel_folders_reorder_params},
    {"PATCH", "/channel_folders/{channel_folder_id}", channel_folders_update, R_ADMIN | R_TXN,
     channel_folders_update_params},
    {"POST", "/user_groups/create", user_groups_create, R_NO_GUEST | R_TXN, user_groups_create_params},
    {"GET", "/user_groups", user_groups_list, R_NO_GUEST, user_groups_list_params},
    {"PATCH", "/user_groups/{user_group_id}", user_groups_update, R_NO_GUEST | R_TXN, user_groups_update_params},
    {"POST", "/user_groups/{user_group_id}/deactivate", user_groups_deactivate, R_TXN, user_group_id_params},
    {"POST", "/user_groups/{user_group_id}/members", user_group_members_update, R_NO_GUEST | R_TXN,
     user_group_members_params},
    {"POST", "/user_groups/{user_group_id}/subgroups", user_group_subgroups_update, R_NO_GUEST | R_TXN,
     user_group_subgroups_params},
    {"GET", "/user_groups/{user_group_id}/members", user_group_members_list, R_NO_GUEST,
     user_group_members_list_params},
    {"GET", "/user_groups/{user_group_id}/members/{user_id}", user_group_member_get, R_NO_GUEST,
     user_group_member_get_params},
    {"GET", "/user_groups/{user_group_id}/subgroups", user_group_subgroups_list, R_NO_GUEST,
     user_group_subgroups_list_params},
    {"POST", "/user_uploads", uploads_create, R_TXN | R_UPLOAD, no_params},
    {"GET", "/attachments", attachments_list, 0, no_params},
    {"DELETE", "/attachments/{attachment_id}", attachments_delete, R_TXN, attachment_id_params},
    {"GET", "/user_uploads/{realm_id_str}/{directory}/{random}/{filename}", uploads_temporary_url, 0,
     user_upload_params},
    {"GET", "/messages", messages_list, 0, messages_list_params},
    {"POST", "/messages", messages_send, R_TXN, messages_send_params},
    {"POST", "/messages/flags", messages_flags_update, R_TXN, messages_flags_params},
    {"POST", "/mark_all_as_read", mark_all_as_read, R_TXN, no_params},
    {"POST", "/mark_stream_as_read", mark_stream_as_read, R_TXN, mark_stream_params},
    {"POST", "/mark_topic_as_read", mark_topic_as_read, R_TXN, mark_topic_params},
    {"POST", "/user_topics", user_topics_update, R_TXN, user_topics_params},
    {"GET", "/messages/{message_id}", messages_get, 0, message_get_params},
    {"DELETE", "/messages/{message_id}", messages_delete, R_TXN, message_id_params},
    {"PATCH", "/messages/{message_id}", messages_update, R_TXN, message_update_params},
    {"POST", "/messages/{message_id}/typing", typing_edit_send, 0, typing_edit_params},
    {"POST", "/typing", typing_send, 0, typing_params},
    {"GET", "/realm/presence", presence_realm_get, 0, no_params},
    {"PATCH", "/realm", realm_update, R_ADMIN | R_TXN, realm_update_params},
    {"GET", "/realm/domains", realm_domains_list, 0, no_params},
    {"POST", "/realm/domains", realm_domains_create, R_OWNER | R_TXN, realm_domains_create_params},
    {"PATCH", "/realm/domains/{domain}", realm_domains_update, R_OWNER | R_TXN, realm_domain_update_params},
    {"DELETE", "/realm/domains/{domain}", realm_domains_delete, R_OWNER | R_TXN, realm_domain_params},
    {"GET", "/invites", invites_list, R_NO_GUEST | R_HUMAN, no_params},
    {"POST", "/invites", invites_create, R_NO_GUEST | R_HUMAN | R_TXN, invites_create_params},
    {"POST", "/invites/multiuse", invites_multiuse_create, R_NO_GUEST | R_HUMAN | R_TXN, invites_multiuse_params},
    {"DELETE", "/invites/multiuse/{invite_id}", invites_multiuse_revoke, R_NO_GUEST | R_HUMAN | R_TXN,
     invite_id_params},
    {"DELETE", "/invites/{invite_id}", invites_revoke, R_NO_GUEST | R_HUMAN | R_TXN, invite_id_params},
    {"POST", "/invites/{invite_id}/resend", invites_resend, R_NO_GUEST | R_HUMAN | R_TXN, invite_id_params},
    {"POST", "/messages/{message_id}/report", message_report_create, R_TXN, message_report_params},
    {"POST", "/messages/{message_id}/reactions", reactions_add, R_TXN, reactions_add_params},
    {"DELETE", "/messages/{message_id}/reactions", reactions_remove, R_TXN, reactions_remove_params},
    {"GET", "/drafts", drafts_list, 0, no_params},
    {"POST", "/drafts", drafts_create, R_TXN, drafts_create_params},
    {"PATCH", "/drafts/{draft_id}", drafts_edit, R_TXN, draft_edit_params},
    {"DELETE", "/drafts/{draft_id}", drafts_delete, R_TXN, draft_id_params},
    {"GET", "/realm/emoji", realm_emoji_list, 0, no_params},
    {"POST", "/realm/emoji/{emoji_name}", realm_emoji_upload, R_NO_GUEST | R_TXN | R_UPLOAD, realm_emoji_params},
    {"DELETE", "/realm/emoji/{emoji_name}", realm_emoji_delete, R_TXN, realm_emoji_params},
    /* A name with a '/' (the reference's <path:emoji_name>). */
    {"POST", "/realm/emoji/*", realm_emoji_upload_nested, R_NO_GUEST | R_UPLOAD, no_params},
    {"DELETE", "/realm/emoji/*", realm_emoji_delete_nested, R_TXN, no_params},
    {"GET", "/saved_snippets", saved_snippets_list, 0, no_params},
    {"POST", "/saved_snippets", saved_snippets_create, R_TXN, saved_snippets_create_params},
    {"PATCH", "/saved_snippets/{saved_snippet_id}", saved_snippets_edit, R_TXN, saved_snippet_edit_params},
    {"DELETE", "/saved_snippets/{saved_snippet_id}", saved_snippets_delete, R_TXN, saved_snippet_id_params},
    {"GET", "/navigation_views", navigation_views_list, 0, no_params},
    {"POST", "/navigation_views", navigation_views_create, R_TXN, navigation_views_create_params},
    {"PATCH", "/navigation_views/*", navigation_views_update, R_TXN, navigation_view_update_params},
    {"DELETE", "/navigation_views/*", navigation_views_delete, R_TXN, no_params},
    {"GET", "/scheduled_messages", scheduled_messages_list, 0, no_params},
    {"POST", "/scheduled_messages", scheduled_messages_create, R_TXN, scheduled_messages_create_params},
    {"PATCH", "/scheduled_messages/{scheduled_message_id}", scheduled_messages_update, R_TXN,
     scheduled_message_update_params},
    {"DELETE", "/scheduled_messages/{scheduled_message_id}", scheduled_messages_delete, R_TXN,
     scheduled_message_id_params},
    {"GET", "/users/{user_id}", users_get_by_id, 0, user_by_id_params},
    {"GET", "/users/{user_id}/status", user_status_get, 0, user_id_params},
    {"POST", "/users/{user_id}/status", user_status_update_for_user, R_HUMAN | R_TXN, user_status_for_user_params},
    {"GET", "/users/{user_id_or_email}/presence", presence_user_get, 0, presence_user_params},
    {"GET", "/users/{email}", users_get_by_email, 0, user_by_email_params},
    {"PATCH", "/users/{user_id}", users_update, R_TXN, user_update_params},
    {"PATCH", "/users/{email}", users_update_by_email, R_TXN, user_update_by_email_params},
    {"DELETE", "/users/{user_id}", users_deactivate, R_TXN, user_deactivate_params},
    {"POST", "/users/{user_id}/reactivate", users_reactivate, R_TXN, user_id_params},

    /* Outside /api/v1. /health must answer while PostgreSQL is down: no organization lookup. */
    /* The page that accepts an invitation (src/api/join.c), with and without the reference's trailing slash. */
    {"GET", "/join/{key}/", join_get, R_ROOT | R_PUBLIC, join_params},
    {"POST", "/join/{key}/", join_post, R_ROOT | R_PUBLIC | R_TXN, join_params},
    {"GET", "/join/{key}", join_get, R_ROOT | R_PUBLIC, join_params},
    {"POST", "/join/{key}", join_post, R_ROOT | R_PUBLIC | R_TXN, join_params},
    {"GET", "/health", health_get, R_ROOT | R_PUBLIC | R_NO_REALM, no_params},
    /* Prometheus metrics, on the internal address only (nginx's metrics server): 404 on the public one. */
    {"GET", "/metrics", prometheus_get, R_ROOT | R_PUBLIC | R_NO_REALM | R_INTERNAL, no_params},
    /* The FastCGI ceiling of scripts/bench: {"result":"success","msg":""}, no database, no Redis. */
    {"GET", "/bench/noop", bench_noop, R_ROOT | R_PUBLIC | R_NO_REALM, no_params},
    /* The uploaded files, sent by nginx (X-Accel-Redirect); a temporary URL's token is its credential. */
    {"GET", "/user_uploads/temporary/{token}/{filename}", uploads_serve_temporary, R_ROOT | R_PUBLIC,
     temporary_file_params},
    {"GET", "/user_uploads/{realm_id_str}/*", uploads_serve, R_ROOT | R_AUTH_OPTIONAL, uploaded_file_params},
    /* Custom emoji images: public, as the reference's avatar directory. */
    {"GET", "/user_avatars/*", realm_emoji_serve, R_ROOT | R_PUBLIC, no_params},
};

const size_t nroutes = sizeof(routes) / sizeof(routes[0]);

uint64_t routes_layout(void)
{
	uint64_t h = HASH_FNV64_INIT;
	for (size_t i = 0; i < nroutes; i++) {
		const char *parts[] = {routes[i].method, " ", routes[i].pattern, "\n"};
		for (size_t p = 0; p < 4; p++)
			h = hash_fnv1a64(h, parts[p], strlen(parts[p]));
	}
	return h;
}
