/*
 * Every "may this user ..." question: answered from the user's role, the organization's permission settings
 * (each a user group) and a channel's permission settings. Handlers ask here and never re-derive a rule.
 *
 * The organization settings a user belongs to are read once per request, in one query.
 */
#ifndef CONFAB_PERMISSIONS_H
#define CONFAB_PERMISSIONS_H

#include <stdbool.h>

struct request;
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
bool perm_realm(struct request *req, enum realm_setting s);

/* Channels. */
bool perm_channel_administer(struct request *req, const struct channel *c);
bool perm_channel_send(struct request *req, const struct channel *c);
bool perm_channel_create_topic(struct request *req, const struct channel *c);
/* Subscribe other users to c (or oneself to a channel one cannot otherwise join). */
bool perm_channel_add_subscribers(struct request *req, const struct channel *c);
bool perm_channel_remove_subscribers(struct request *req, const struct channel *c);
/* Subscribe oneself. */
bool perm_channel_subscribe_self(struct request *req, const struct channel *c);
/* See who is subscribed to c (private channels: subscribers, administrators, those with content access). */
bool perm_channel_see_subscribers(struct request *req, const struct channel *c);
/* Delete any message of channel c (NULL: a direct message), or one's own. */
bool perm_delete_any_message(struct request *req, const struct channel *c);
bool perm_delete_own_message(struct request *req, const struct channel *c);
/* Create a channel of the given kind. */
bool perm_create_channel(struct request *req, bool invite_only, bool web_public);

#endif
