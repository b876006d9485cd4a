/*
 * User groups: membership (direct and through subgroups, resolved in SQL), system groups, and group-setting
 * values. A group-setting value is what a permission setting holds: the id of a named group (system groups
 * included), or an unnamed group holding {direct_members, direct_subgroups}. It is stored as a group id
 * either way; group_setting_store() creates the unnamed group when needed.
 */
#ifndef CONFAB_GROUPS_H
#define CONFAB_GROUPS_H

#include <json-c/json.h>
#include <stdbool.h>
#include <stdint.h>

struct uow;

/* Flags for group_setting_store(): what the setting refuses. */
#define GS_NO_EVERYONE 0x1u /* "'<setting>' setting cannot be set to 'role:everyone' group." */
#define GS_SYSTEM_ONLY 0x2u /* SYSTEM_GROUP_REQUIRED unless a system group */
#define GS_NO_NOBODY   0x4u /* "'<setting>' setting cannot be set to 'role:nobody' group." */

/* The id of system group name (e.g. "role:members") of realm_id; 0 with the error recorded if missing. */
int64_t group_system_id(struct uow *uow, int64_t realm_id, const char *name);

/* True if user_id is a member of group_id, directly or through subgroups (one query). */
bool group_has_member(struct uow *uow, int64_t group_id, int64_t user_id);

/*
 * Checks a group-setting value given by a client (an integer group id or an object with direct_members and
 * direct_subgroups, as the PT_GROUP_SETTING parameter type accepted it: its json) for setting `setting` in the
 * request's realm, and returns the group id to store: the named
 * group itself, or an unnamed group created for the object (an object with no members and one subgroup stores
 * that subgroup; an empty object stores role:nobody). Returns 0 with the reference's error recorded:
 * "Invalid user group ID: N", "User group is deactivated.", "Invalid user ID: N",
 * "'<setting>' setting cannot be set to 'role:everyone' group.", role:internet is never allowed, and
 * SYSTEM_GROUP_REQUIRED where flags ask for it. Runs inside the request's transaction.
 */
int64_t group_setting_store(struct uow *uow, const char *setting, json_object *value, unsigned flags);

/*
 * The API form of the value stored as group_id: the integer id for a named group, else
 * {"direct_members": [...], "direct_subgroups": [...]} (sorted ids; deactivated users left out). A new object.
 */
json_object *group_setting_json(struct uow *uow, int64_t group_id);

/*
 * True if the client's value (as for group_setting_store) denotes the same setting as the one stored in
 * group_id: same named group, or the same sets of direct members and subgroups. Used for `old` checks.
 */
bool group_setting_equals(struct uow *uow, int64_t group_id, json_object *value);

/* ---- named groups ------------------------------------------------------------------------------------------- */

/* The permission settings of a named group, in the reference's order (columns <name>_id of user_groups). */
enum group_permission { GP_ADD_MEMBERS, GP_JOIN, GP_LEAVE, GP_MANAGE, GP_MENTION, GP_REMOVE_MEMBERS, GP_COUNT };
/* "can_add_members_group", ...; indexed by enum group_permission. */
extern const char *const group_permission_names[GP_COUNT];
/* What each setting refuses (GS_NO_EVERYONE where the reference disallows role:everyone, which also means that
 * guests never hold the permission); indexed by enum group_permission. */
extern const unsigned group_permission_flags[GP_COUNT];

struct group {
	int64_t id;
	const char *name;
	const char *description;
	bool is_system_group;
	bool deactivated;
	int64_t setting[GP_COUNT]; /* the group ids holding its permission settings */
};

/*
 * The named group id of the request's realm (system groups included; unnamed setting groups never), in the arena,
 * its row locked until the end of the transaction when for_update. NULL if there is none (uow->error is set only
 * on a database failure).
 */
struct group *group_by_id(struct uow *uow, int64_t id, bool for_update);
/* The same, recording the reference's "Invalid user group" when there is none. */
struct group *group_by_id_or_error(struct uow *uow, int64_t id, bool for_update);

/* True if the requesting user holds the setting stored as group_id; with GS_NO_EVERYONE in flags guests never do
 * (the reference's user_has_permission_for_group_setting). False with the error recorded on a database failure. */
bool group_setting_allows(struct uow *uow, int64_t group_id, unsigned flags);

/* Checks a group name as the reference does ("User group name can't be empty!" and kin); 0 or -1. */
int group_check_name(struct uow *uow, const char *name);
/* Checks that every id of the JSON integer list ids is an active user of the request's realm: 0, or -1 with
 * "Invalid user ID: N" for the first that is not. */
int group_check_users(struct uow *uow, json_object *ids);
/* Checks that every id of ids is a named group of the request's realm: 0, or -1 with "Invalid user group ID: N"
 * for the first that is not, else "User group is deactivated." if one is. */
int group_check_subgroups(struct uow *uow, json_object *ids);

/*
 * Creates named group `name` in the request's realm, created by the requesting user. settings[i] is the group id
 * to store for setting i (from group_setting_store()), or 0 for the reference's default: can_add_members_group and
 * can_manage_group an unnamed group holding the creator, can_join_group and can_remove_members_group role:nobody,
 * can_leave_group and can_mention_group role:everyone. Returns the new id, or 0 with the error recorded
 * ("User group 'x' already exists." when a group of the realm, deactivated or not, has the name).
 */
int64_t group_create(struct uow *uow, const char *name, const char *description, const int64_t *settings);
/* Renames group id; 0, or -1 with "User group 'x' already exists.". */
int group_rename(struct uow *uow, int64_t id, const char *name);
int group_set_description(struct uow *uow, int64_t id, const char *description);
int group_set_deactivated(struct uow *uow, int64_t id, bool deactivated);
/* Stores value_id (from group_setting_update()) as setting p of group id. 0 or -1. */
int group_set_permission(struct uow *uow, int64_t id, enum group_permission p, int64_t value_id);

/*
 * Like group_setting_store(), for a setting that currently holds current_id: an unnamed current group is
 * updated in place when the new value is an object too (as the reference does), and its id returned.
 */
int64_t group_setting_update(struct uow *uow, const char *setting, json_object *value, unsigned flags,
                             int64_t current_id);

/*
 * Membership changes of named group id; ids is a JSON integer list checked beforehand (group_check_users(),
 * group_check_subgroups()). Members of system groups follow from roles only (the users trigger), so adding or
 * removing members of a system group changes nothing. 0 or -1.
 */
int group_add_members(struct uow *uow, int64_t id, json_object *ids);
int group_remove_members(struct uow *uow, int64_t id, json_object *ids);
int group_add_subgroups(struct uow *uow, int64_t id, json_object *ids);
int group_remove_subgroups(struct uow *uow, int64_t id, json_object *ids);
/* The first id of ids (in list order) that is (is_member true) or is not a direct member of group id; 0 if none,
 * -1 on error. */
int64_t group_first_member(struct uow *uow, int64_t id, json_object *ids, bool is_member);
/* The same for direct subgroups. */
int64_t group_first_subgroup(struct uow *uow, int64_t id, json_object *ids, bool is_subgroup);
/* 1 if group id is one of ids or a subgroup of one of them at any depth (adding ids to id would make a cycle),
 * 0 if not, -1 on error. Call with group_lock_subgroups() held so that the answer stays true. */
int group_reaches(struct uow *uow, json_object *ids, int64_t id);
/* Serializes changes to the subgroups of the request's realm's groups until the transaction ends. 0 or -1. */
int group_lock_subgroups(struct uow *uow);

/* The ids of the active users in group id, direct members only or through subgroups at any depth too, sorted
 * (the reference's get_user_group_member_ids). A new array, or NULL with the error recorded. */
json_object *group_member_ids_json(struct uow *uow, int64_t id, bool direct_only);
/* The ids of the subgroups of group id, direct only or at any depth (get_subgroup_ids), sorted. A new array, or
 * NULL with the error recorded. */
json_object *group_subgroup_ids_json(struct uow *uow, int64_t id, bool direct_only);
/* 1 if user_id is a member of group id (directly, or through subgroups unless direct_only), 0 if not (the
 * reference's is_user_in_group); -1 with the error of its access_user_by_id(allow_bots=True) recorded: "No such
 * user" (unknown, of another organization, a system bot), "User is deactivated". */
int group_is_member(struct uow *uow, int64_t id, int64_t user_id, bool direct_only);

/*
 * The named groups of the request's realm as GET /user_groups lists them, sorted by id: id, name, description,
 * members, direct_subgroup_ids, is_system_group, date_created, creator_id, the six permission settings and
 * deactivated; deactivated groups only when include_deactivated. A new array, or NULL on error.
 */
json_object *group_list_json(struct uow *uow, bool include_deactivated);

/*
 * Why named group id cannot be deactivated, as the reference's `objections` list: {"type": "subgroup",
 * "supergroup_ids"}, {"type": "channel", "channel_id", "settings"}, {"type": "user_group", "group_id", "settings"},
 * {"type": "realm", "settings"}; empty when nothing objects. A new array, or NULL on error.
 */
json_object *group_objections(struct uow *uow, int64_t id);

/* ---- events ------------------------------------------------------------------------------------------------- */
/* Every user group event goes to all active users of the organization (zerver/actions/user_groups.py). */

/* user_group add for a group just created (members, no subgroups), then add_subgroups when subgroups (a JSON
 * integer list or NULL) is not empty. 0 or -1. */
int group_events_created(struct uow *uow, int64_t id, json_object *subgroups);
/* user_group update with data {key: value} (value: a new object the event takes). A rename of a deactivated group
 * is marked for events.c (private key _group_deactivated), as the reference keeps it from clients without
 * include_deactivated_groups. 0 or -1. */
int group_events_update(struct uow *uow, const struct group *g, const char *key, json_object *value);
/* user_group update with the current value of setting p (an id or {direct_members, direct_subgroups}). */
int group_events_setting(struct uow *uow, const struct group *g, enum group_permission p);
/* Deactivation: update {deactivated: true}, then remove. Reactivation: update {deactivated: false}, then add with
 * for_reactivation. 0 or -1. */
int group_events_deactivated(struct uow *uow, const struct group *g, bool deactivated);

/* Who could see the private channels whose metadata the group's members reach (through can_administer_channel_group,
 * can_add_subscribers_group or can_subscribe_group), before a membership change. NULL on error. */
struct group_access;
struct group_access *group_access_before(struct uow *uow, int64_t id);
/*
 * op ("add_members", "remove_members", "add_subgroups", "remove_subgroups") of the ids (a JSON integer list; sent
 * sorted, without duplicates), then, when before is not NULL, stream create and peer_add for the users who now see
 * such a channel and stream delete for those who no longer do. 0 or -1.
 */
int group_events_members(struct uow *uow, int64_t id, const char *op, json_object *ids,
                         const struct group_access *before);

/*
 * The Notification Bot's direct message to each user of ids (a JSON integer list of active users, just added to
 * or removed from g) other than the acting user and bots: "@_**Actor|id** added you to the group @_*name*." or
 * "... removed you from the group @_*name*." (the reference's notify_for_user_group_subscription_changes), with
 * their message events. 0 or -1.
 */
int group_notify_members(struct uow *uow, const struct group *g, json_object *ids, bool added);

#endif
