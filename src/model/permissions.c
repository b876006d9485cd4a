/* The permission rules; see permissions.h. */
#include "model/permissions.h"

#include "db/db.h"
#include "core/uow.h"
#include "model/channels.h"
#include "model/realm.h"
#include "model/user.h"

const char *const realm_setting_columns[RS_COUNT] = {
    [RS_ACCESS_ALL_USERS] = "can_access_all_users_group_id",
    [RS_ADD_CUSTOM_EMOJI] = "can_add_custom_emoji_group_id",
    [RS_ADD_SUBSCRIBERS] = "can_add_subscribers_group_id",
    [RS_CREATE_BOTS] = "can_create_bots_group_id",
    [RS_CREATE_GROUPS] = "can_create_groups_id",
    [RS_CREATE_PRIVATE_CHANNEL] = "can_create_private_channel_group_id",
    [RS_CREATE_PUBLIC_CHANNEL] = "can_create_public_channel_group_id",
    [RS_CREATE_WEB_PUBLIC_CHANNEL] = "can_create_web_public_channel_group_id",
    [RS_CREATE_WRITE_ONLY_BOTS] = "can_create_write_only_bots_group_id",
    [RS_DELETE_ANY_MESSAGE] = "can_delete_any_message_group_id",
    [RS_DELETE_OWN_MESSAGE] = "can_delete_own_message_group_id",
    [RS_INVITE_USERS] = "can_invite_users_group_id",
    [RS_MANAGE_ALL_GROUPS] = "can_manage_all_groups_id",
    [RS_MANAGE_BILLING] = "can_manage_billing_group_id",
    [RS_MENTION_MANY_USERS] = "can_mention_many_users_group_id",
    [RS_MOVE_BETWEEN_CHANNELS] = "can_move_messages_between_channels_group_id",
    [RS_MOVE_BETWEEN_TOPICS] = "can_move_messages_between_topics_group_id",
    [RS_RESOLVE_TOPICS] = "can_resolve_topics_group_id",
    [RS_SET_TOPICS_POLICY] = "can_set_topics_policy_group_id",
    [RS_CREATE_MULTIUSE_INVITE] = "create_multiuse_invite_group_id",
    [RS_DM_INITIATOR] = "direct_message_initiator_group_id",
    [RS_DM_PERMISSION] = "direct_message_permission_group_id",
};

/* One row: for each setting in enum order, whether the user is in its group (directly or by subgroups). The
 * user's groups as one array: "IN (SELECT id FROM mine)" would build a hashed subplan per setting (5x slower). */
static struct db_stmt st_realm_perms =
    DB_STMT("WITH RECURSIVE mine (id) AS (SELECT group_id FROM user_group_members WHERE user_id = $2 UNION "
            "SELECT s.group_id FROM user_group_subgroups s JOIN mine ON s.subgroup_id = mine.id) "
            "SELECT r.can_access_all_users_group_id = ANY(my.ids), "
            "r.can_add_custom_emoji_group_id = ANY(my.ids), "
            "r.can_add_subscribers_group_id = ANY(my.ids), "
            "r.can_create_bots_group_id = ANY(my.ids), "
            "r.can_create_groups_id = ANY(my.ids), "
            "r.can_create_private_channel_group_id = ANY(my.ids), "
            "r.can_create_public_channel_group_id = ANY(my.ids), "
            "r.can_create_web_public_channel_group_id = ANY(my.ids), "
            "r.can_create_write_only_bots_group_id = ANY(my.ids), "
            "r.can_delete_any_message_group_id = ANY(my.ids), "
            "r.can_delete_own_message_group_id = ANY(my.ids), "
            "r.can_invite_users_group_id = ANY(my.ids), "
            "r.can_manage_all_groups_id = ANY(my.ids), "
            "r.can_manage_billing_group_id = ANY(my.ids), "
            "r.can_mention_many_users_group_id = ANY(my.ids), "
            "r.can_move_messages_between_channels_group_id = ANY(my.ids), "
            "r.can_move_messages_between_topics_group_id = ANY(my.ids), "
            "r.can_resolve_topics_group_id = ANY(my.ids), "
            "r.can_set_topics_policy_group_id = ANY(my.ids), "
            "r.create_multiuse_invite_group_id = ANY(my.ids), "
            "r.direct_message_initiator_group_id = ANY(my.ids), "
            "r.direct_message_permission_group_id = ANY(my.ids) "
            "FROM realms r, (SELECT COALESCE(array_agg(id), '{}') AS ids FROM mine) my WHERE r.id = $1");

/*
 * The settings whose group may be role:everyone. For the others the reference refuses role:everyone, and guests
 * never hold them even when a group they belong to is named.
 */
static bool guests_may_hold(enum realm_setting s)
{
	switch (s) {
	case RS_ACCESS_ALL_USERS:
	case RS_DELETE_ANY_MESSAGE:
	case RS_DELETE_OWN_MESSAGE:
	case RS_MENTION_MANY_USERS:
	case RS_MOVE_BETWEEN_TOPICS:
	case RS_RESOLVE_TOPICS:
	case RS_DM_INITIATOR:
	case RS_DM_PERMISSION: return true;
	default: return false;
	}
}

bool perm_realm(struct uow *uow, enum realm_setting s)
{
	if (user_is_guest(uow->user) && !guests_may_hold(s))
		return false;
	if (uow->realm_perms == NULL) {
		struct db_res *res =
		    DB_EXEC(uow, &st_realm_perms, db_arg_int(uow, uow->realm->id), db_arg_int(uow, uow->user->id));
		if (res == NULL || db_rows(res) == 0)
			return false;
		bool *perms = arena_alloc(&uow->arena, RS_COUNT * sizeof(*perms));
		for (int i = 0; i < RS_COUNT; i++)
			perms[i] = db_bool(res, 0, i);
		uow->realm_perms = perms;
	}
	return uow->realm_perms[s];
}

bool perm_channel_administer(struct uow *uow, const struct channel *c)
{
	/* can_administer_channel_group refuses role:everyone, so guests never hold it (even as direct members). */
	return user_is_admin(uow->user) || (c->in_setting[CS_ADMINISTER] && !user_is_guest(uow->user));
}

bool perm_channel_send(struct uow *uow, const struct channel *c)
{
	(void)uow;
	return c->in_setting[CS_SEND_MESSAGE];
}

bool perm_channel_create_topic(struct uow *uow, const struct channel *c)
{
	return perm_channel_send(uow, c) && c->in_setting[CS_CREATE_TOPIC];
}

bool perm_channel_add_subscribers(struct uow *uow, const struct channel *c)
{
	if (c->is_archived)
		return false;
	if (c->in_setting[CS_ADD_SUBSCRIBERS] || perm_channel_administer(uow, c))
		return true;
	/* The organization setting covers public channels, and private ones one is subscribed to. */
	return (!c->invite_only || c->is_subscribed) && !user_is_guest(uow->user) &&
	       perm_realm(uow, RS_ADD_SUBSCRIBERS);
}

bool perm_channel_remove_subscribers(struct uow *uow, const struct channel *c)
{
	if (!c->metadata_access)
		return false;
	return user_is_admin(uow->user) || c->in_setting[CS_REMOVE_SUBSCRIBERS];
}

bool perm_channel_subscribe_self(struct uow *uow, const struct channel *c)
{
	if (c->is_archived)
		return false;
	if (c->is_subscribed || c->is_web_public || (!c->invite_only && !user_is_guest(uow->user)))
		return true;
	return c->in_setting[CS_SUBSCRIBE] || c->in_setting[CS_ADD_SUBSCRIBERS];
}

bool perm_channel_see_subscribers(struct uow *uow, const struct channel *c)
{
	return !c->invite_only || c->is_subscribed || user_is_admin(uow->user) || c->content_access;
}

bool perm_delete_any_message(struct uow *uow, const struct channel *c)
{
	return perm_realm(uow, RS_DELETE_ANY_MESSAGE) || (c != NULL && c->in_setting[CS_DELETE_ANY]);
}

bool perm_delete_own_message(struct uow *uow, const struct channel *c)
{
	return perm_realm(uow, RS_DELETE_OWN_MESSAGE) || (c != NULL && c->in_setting[CS_DELETE_OWN]) ||
	       perm_delete_any_message(uow, c);
}

bool perm_create_channel(struct uow *uow, bool invite_only, bool web_public)
{
	if (web_public)
		return perm_realm(uow, RS_CREATE_WEB_PUBLIC_CHANNEL);
	return perm_realm(uow, invite_only ? RS_CREATE_PRIVATE_CHANNEL : RS_CREATE_PUBLIC_CHANNEL);
}

enum perm_edit perm_edit_content(struct uow *uow, bool editing_allowed, int64_t sender_id, bool limit_passed)
{
	if (!editing_allowed)
		return PERM_EDIT_DISABLED;
	if (sender_id != uow->user->id)
		return PERM_EDIT_NOT_SENDER;
	return limit_passed ? PERM_EDIT_TOO_LATE : PERM_EDIT_OK;
}

bool perm_move_within(struct uow *uow, const struct channel *c)
{
	return perm_channel_administer(uow, c) || c->in_setting[CS_MOVE_WITHIN];
}

bool perm_edit_topic(struct uow *uow, const struct channel *orig, const struct channel *target)
{
	return perm_realm(uow, RS_MOVE_BETWEEN_TOPICS) || perm_move_within(uow, orig) ||
	       (orig->id != target->id && perm_move_within(uow, target));
}

bool perm_move_out(struct uow *uow, const struct channel *c)
{
	return user_is_admin(uow->user) || perm_realm(uow, RS_MOVE_BETWEEN_CHANNELS) ||
	       perm_channel_administer(uow, c) || c->in_setting[CS_MOVE_OUT];
}

bool perm_resolve(struct uow *uow, const struct channel *orig, const struct channel *target)
{
	return perm_realm(uow, RS_RESOLVE_TOPICS) || orig->in_setting[CS_RESOLVE_TOPICS] ||
	       (orig->id != target->id && target->in_setting[CS_RESOLVE_TOPICS]);
}

bool perm_move_time_limited(struct uow *uow)
{
	return !user_is_moderator(uow->user);
}

bool perm_create_topic(struct uow *uow, const struct channel *c)
{
	(void)uow;
	return c->in_setting[CS_CREATE_TOPIC];
}

bool perm_channel_history(struct uow *uow, const struct channel *c)
{
	(void)uow;
	return c->history_public_to_subscribers && c->content_access;
}
