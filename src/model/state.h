/*
 * The initial state of POST /register: for each fetch type a client asks for, the keys the reference's
 * fetch_initial_state_data and post_process_state produce, as the requesting user (or a spectator, when
 * uow->user is NULL) sees them. Every query runs in the calling request's transaction, so a caller that opened a
 * REPEATABLE READ transaction gets one consistent snapshot.
 */
#ifndef CONFAB_STATE_H
#define CONFAB_STATE_H

#include <json-c/json.h>
#include <stdbool.h>
#include <stdint.h>

struct uow;

/* include_subscribers of POST /register. */
enum state_subscribers { SUBSCRIBERS_NONE, SUBSCRIBERS_ALL, SUBSCRIBERS_PARTIAL };

/* Channels with at least this many subscribers get partial_subscribers when SUBSCRIBERS_PARTIAL is asked. */
#define STATE_PARTIAL_SUBSCRIBERS_MIN 250

struct state_options {
	json_object *fetch_types; /* array of strings; NULL: every type */
	const char *snapshot;     /* pg_current_snapshot() of the calling transaction, or NULL (model/realm_users.h) */
	bool client_gravatar;
	enum state_subscribers subscribers;
	/* client_capabilities */
	bool notification_settings_null;
	bool user_avatar_url_field_optional;
	bool linkifier_url_template;
	bool user_list_incomplete;
	bool include_deactivated_groups;
	bool archived_channels;
	bool empty_topic_name;
	bool user_settings_object;
	bool simplified_presence_events;
	/* presences: slim_presence, and presence_history_limit_days when sent */
	bool slim_presence;
	bool has_presence_history_days;
	int64_t presence_history_days;
};

/*
 * Adds to out the keys of every fetch type named in o->fetch_types (unknown types are ignored): realm, realm_user,
 * realm_user_groups, subscription, stream, channel_folders, message, update_message_flags (with message),
 * recent_private_conversations, realm_linkifiers, realm_filters, navigation_views, saved_snippets, scheduled_messages,
 * user_settings (and the legacy update_display_settings, update_global_notifications), and the types whose features do
 * not exist yet with their empty values. Returns 0, or -1 with the error recorded.
 */
int state_fetch(struct uow *uow, const struct state_options *o, json_object *out);

#endif
