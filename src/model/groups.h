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

struct request;

/* Flags for group_setting_store(): what the setting refuses. */
#define GS_NO_EVERYONE 0x1u     /* "'<setting>' setting cannot be set to 'role:everyone' group." */
#define GS_SYSTEM_ONLY 0x2u     /* SYSTEM_GROUP_REQUIRED unless a system group */

/* The id of system group name (e.g. "role:members") of realm_id; 0 with the error recorded if missing. */
int64_t group_system_id(struct request *req, int64_t realm_id, const char *name);

/* True if user_id is a member of group_id, directly or through subgroups (one query). */
bool group_has_member(struct request *req, int64_t group_id, int64_t user_id);

/*
 * Validates a group-setting value given by a client (an integer group id or an object with direct_members and
 * direct_subgroups) for setting `setting` in the request's realm, and returns the group id to store: the named
 * group itself, or an unnamed group created for the object (an object with no members and one subgroup stores
 * that subgroup; an empty object stores role:nobody). Returns 0 with the reference's error recorded:
 * "Invalid user group ID: N", "User group is deactivated.", "Invalid user ID: N",
 * "'<setting>' setting cannot be set to 'role:everyone' group.", role:internet is never allowed, and
 * SYSTEM_GROUP_REQUIRED where flags ask for it. Runs inside the request's transaction.
 */
int64_t group_setting_store(struct request *req, const char *setting, json_object *value, unsigned flags);

/*
 * The API form of the value stored as group_id: the integer id for a named group, else
 * {"direct_members": [...], "direct_subgroups": [...]} (sorted ids; deactivated users left out). A new object.
 */
json_object *group_setting_json(struct request *req, int64_t group_id);

/*
 * True if the client's value (as for group_setting_store) denotes the same setting as the one stored in
 * group_id: same named group, or the same sets of direct members and subgroups. Used for `old` checks.
 */
bool group_setting_equals(struct request *req, int64_t group_id, json_object *value);

#endif
