/*
 * Every "may this user ..." question: answered from the user's role, the organization's permission settings
 * (each a user group) and a channel's permission settings. Handlers ask here and never re-derive a rule.
 *
 * The organization settings a user belongs to are read once per request, in one query.
 */
#ifndef CONFAB_PERMISSIONS_H
#define CONFAB_PERMISSIONS_H

#include <stdbool.h>
#include <stdint.h>

struct uow;
struct channel;

/* Organization permission settings (columns <name>_id of realms). */
enum realm_setting {
	RS_ACCESS_ALL_USERS,
	RS_ADD_CUSTOM_EMOJI,
	RS_ADD_SUBSCRIBERS,
	RS_CREATE_BOTS,
	RS_CREATE_GROUPS,
	RS_CREATE_PRIVATE_CHANNEL,
	RS_CREATE_PUBLIC_CHANNEL,
	RS_CREATE_WEB_PUBLIC_CHANNEL,
	RS_CREATE_WRITE_ONLY_BOTS,
	RS_DELETE_ANY_MESSAGE,
	RS_DELETE_OWN_MESSAGE,
	RS_INVITE_USERS,
	RS_MANAGE_ALL_GROUPS,
	RS_MANAGE_BILLING,
	RS_MENTION_MANY_USERS,
	RS_MOVE_BETWEEN_CHANNELS,
	RS_MOVE_BETWEEN_TOPICS,
	RS_RESOLVE_TOPICS,
	RS_SET_TOPICS_POLICY,
	RS_CREATE_MULTIUSE_INVITE,
	RS_DM_INITIATOR,
	RS_DM_PERMISSION,
	RS_COUNT
};

/* The realms column of each setting, e.g. "can_create_groups_id"; indexed by enum realm_setting. */
extern const char *const realm_setting_columns[RS_COUNT];

/* True if the requesting user belongs to the group of organization setting s. On a database failure the error
 * is recorded and the answer is false. */
bool perm_realm(struct uow *uow, enum realm_setting s);

/* Channels. */
bool perm_channel_administer(struct uow *uow, const struct channel *c);
bool perm_channel_send(struct uow *uow, const struct channel *c);
bool perm_channel_create_topic(struct uow *uow, const struct channel *c);
/* Subscribe other users to c (or oneself to a channel one cannot otherwise join). */
bool perm_channel_add_subscribers(struct uow *uow, const struct channel *c);
bool perm_channel_remove_subscribers(struct uow *uow, const struct channel *c);
/* Subscribe oneself. */
bool perm_channel_subscribe_self(struct uow *uow, const struct channel *c);
/* See who is subscribed to c (private channels: subscribers, administrators, those with content access). */
bool perm_channel_see_subscribers(struct uow *uow, const struct channel *c);
/* Delete any message of channel c (NULL: a direct message), or one's own. */
bool perm_delete_any_message(struct uow *uow, const struct channel *c);
bool perm_delete_own_message(struct uow *uow, const struct channel *c);
/* Create a channel of the given kind. */
bool perm_create_channel(struct uow *uow, bool invite_only, bool web_public);

/* ---- editing and moving messages (the reference's zerver/actions/message_edit.py, zerver/lib/streams.py) ---- */

/* Why the user may not edit a message's content, in the reference's order (validate_user_can_edit_message). */
enum perm_edit {
	PERM_EDIT_OK,
	PERM_EDIT_DISABLED,   /* the organization's allow_message_editing is off */
	PERM_EDIT_NOT_SENDER, /* only the sender edits content; no role is exempt */
	PERM_EDIT_TOO_LATE,   /* past message_content_edit_limit_seconds and its grace period */
};
/* The content rule, given the organization's allow_message_editing, the message's sender and whether the
 * content edit limit has passed for it. */
enum perm_edit perm_edit_content(struct uow *uow, bool editing_allowed, int64_t sender_id, bool limit_passed);
/* Move messages to another topic within channel c (can_move_messages_within_channel): organization
 * administrators, channel administrators and can_move_messages_within_channel_group. */
bool perm_move_within(struct uow *uow, const struct channel *c);
/* Rename a topic moving messages from orig to target (can_edit_topic): the organization's
 * can_move_messages_between_topics_group, or perm_move_within() on either channel. */
bool perm_edit_topic(struct uow *uow, const struct channel *orig, const struct channel *target);
/* Move messages out of channel c: organization administrators, can_move_messages_between_channels_group,
 * channel administrators and can_move_messages_out_of_channel_group. */
bool perm_move_out(struct uow *uow, const struct channel *c);
/* Resolve or unresolve a topic: the organization's can_resolve_topics_group, or can_resolve_topics_group of
 * either channel. */
bool perm_resolve(struct uow *uow, const struct channel *orig, const struct channel *target);
/* Whether the move time limits (move_messages_within_stream_limit_seconds, ..._between_streams_...) bind the user:
 * they do not bind moderators, administrators and owners. */
bool perm_move_time_limited(struct uow *uow);
/* Start a new topic in c (can_create_topic_group alone, as moves check it). */
bool perm_create_topic(struct uow *uow, const struct channel *c);
/* Read all of c's history (can_access_stream_history): history public to subscribers and content access. */
bool perm_channel_history(struct uow *uow, const struct channel *c);

#endif
