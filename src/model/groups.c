/* User groups: lookup, membership, group-setting values and permission checks; see groups.h. */
#include "model/groups.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/ids.h"
#include "core/jsonx.h"
#include "core/log.h"
#include "core/utf8.h"
#include "db/db.h"
#include "events/events.h"
#include "core/uow.h"
#include "model/channels.h"
#include "model/notify.h"
#include "model/realm.h"
#include "model/user.h"

const char *const group_permission_names[GP_COUNT] = {
    [GP_ADD_MEMBERS] = "can_add_members_group",
    [GP_JOIN] = "can_join_group",
    [GP_LEAVE] = "can_leave_group",
    [GP_MANAGE] = "can_manage_group",
    [GP_MENTION] = "can_mention_group",
    [GP_REMOVE_MEMBERS] = "can_remove_members_group",
};

/* The reference's allow_everyone_group of each setting (zerver/models/groups.py). */
const unsigned group_permission_flags[GP_COUNT] = {
    [GP_ADD_MEMBERS] = GS_NO_EVERYONE, [GP_JOIN] = GS_NO_EVERYONE, [GP_LEAVE] = 0,
    [GP_MANAGE] = GS_NO_EVERYONE,      [GP_MENTION] = 0,           [GP_REMOVE_MEMBERS] = GS_NO_EVERYONE,
};

/* A JSON integer list as a PostgreSQL array literal, e.g. "{1,2}" (an arena string). */
static const char *id_array(struct uow *uow, json_object *ids)
{
	size_t n = json_object_array_length(ids);
	char *out = arena_alloc(&uow->arena, n * 21 + 3);
	char *p = out;
	*p++ = '{';
	for (size_t i = 0; i < n; i++)
		p += sprintf(p, "%s%lld", i ? "," : "",
		             (long long)json_object_get_int64(json_object_array_get_idx(ids, i)));
	*p++ = '}';
	*p = '\0';
	return out;
}

static struct db_stmt st_system_id = DB_STMT("SELECT confab_system_group($1, $2)");

int64_t group_system_id(struct uow *uow, int64_t realm_id, const char *name)
{
	struct db_res *res = DB_EXEC(uow, &st_system_id, db_arg_int(uow, realm_id), name);
	if (res == NULL)
		return 0;
	if (db_null(res, 0, 0)) {
		log_msg(LOG_ERROR, "request %llu: realm %lld has no system group %s", uow->id, (long long)realm_id,
		        name);
		uow_error(uow, ERR_INTERNAL, NULL);
		return 0;
	}
	return db_int(res, 0, 0);
}

static struct db_stmt st_has_member =
    DB_STMT("SELECT EXISTS (SELECT 1 FROM confab_group_members($1) m JOIN users u ON u.id = m.user_id"
            "  WHERE m.user_id = $2 AND u.is_active)");

bool group_has_member(struct uow *uow, int64_t group_id, int64_t user_id)
{
	struct db_res *res = DB_EXEC(uow, &st_has_member, db_arg_int(uow, group_id), db_arg_int(uow, user_id));
	return res != NULL && db_bool(res, 0, 0);
}

#define GROUP_COLUMNS                                                                                                  \
	"g.id, g.name, g.description, g.is_system_group, g.deactivated, g.can_add_members_group_id, "                  \
	"g.can_join_group_id, g.can_leave_group_id, g.can_manage_group_id, g.can_mention_group_id, "                   \
	"g.can_remove_members_group_id FROM user_groups g WHERE g.id = $1 AND g.realm_id = $2 AND g.name IS NOT NULL"
static struct db_stmt st_group = DB_STMT("SELECT " GROUP_COLUMNS);
static struct db_stmt st_group_locked = DB_STMT("SELECT " GROUP_COLUMNS " FOR UPDATE");

struct group *group_by_id(struct uow *uow, int64_t id, bool for_update)
{
	struct db_res *res = DB_EXEC(uow, for_update ? &st_group_locked : &st_group, db_arg_int(uow, id),
	                             db_arg_int(uow, uow->realm->id));
	if (res == NULL || db_rows(res) == 0)
		return NULL;
	struct group *g = arena_alloc(&uow->arena, sizeof(*g));
	g->id = db_int(res, 0, 0);
	g->name = db_val(res, 0, 1);
	g->description = db_val(res, 0, 2);
	g->is_system_group = db_bool(res, 0, 3);
	g->deactivated = db_bool(res, 0, 4);
	for (int i = 0; i < GP_COUNT; i++)
		g->setting[i] = db_int(res, 0, 5 + i);
	return g;
}

struct group *group_by_id_or_error(struct uow *uow, int64_t id, bool for_update)
{
	struct group *g = group_by_id(uow, id, for_update);
	if (g == NULL)
		uow_error(uow, ERR_BAD_REQUEST, "Invalid user group"); /* a failure recorded first wins */
	return g;
}

bool group_setting_allows(struct uow *uow, int64_t group_id, unsigned flags)
{
	if ((flags & GS_NO_EVERYONE) && user_is_guest(uow->user))
		return false;
	return group_has_member(uow, group_id, uow->user->id);
}

int group_check_name(struct uow *uow, const char *name)
{
	static const char *const reserved[] = {"@", "role:", "user:", "stream:", "channel:"};
	/* Python's str.strip() also takes the ASCII separators 0x1c..0x1f. */
	if (name[strspn(name, " \t\n\v\f\r\x1c\x1d\x1e\x1f")] == '\0')
		return uow_error(uow, ERR_BAD_REQUEST, "User group name can't be empty!");
	if (utf8_length(name) > 100)
		return uow_error(uow, ERR_BAD_REQUEST, "User group name cannot exceed 100 characters.");
	for (size_t i = 0; i < sizeof(reserved) / sizeof(reserved[0]); i++)
		if (strncmp(name, reserved[i], strlen(reserved[i])) == 0)
			return uow_error(uow, ERR_BAD_REQUEST, "User group name cannot start with '%s'.", reserved[i]);
	return 0;
}

static struct db_stmt st_bad_user =
    DB_STMT("SELECT t.x FROM unnest($2::bigint[]) WITH ORDINALITY AS t (x, i)"
            " WHERE NOT EXISTS (SELECT 1 FROM users u WHERE u.id = t.x AND u.realm_id = $1 AND u.is_active)"
            " ORDER BY t.i LIMIT 1");

int group_check_users(struct uow *uow, json_object *ids)
{
	struct db_res *res = DB_EXEC(uow, &st_bad_user, db_arg_int(uow, uow->realm->id), id_array(uow, ids));
	if (res == NULL)
		return -1;
	if (db_rows(res) > 0)
		return uow_error(uow, ERR_BAD_REQUEST, "Invalid user ID: %s", db_val(res, 0, 0));
	return 0;
}

/* Unknown groups first (in list order), then deactivated ones. */
static struct db_stmt st_bad_subgroup =
    DB_STMT("SELECT t.x, g.id IS NULL FROM unnest($2::bigint[]) WITH ORDINALITY AS t (x, i)"
            "  LEFT JOIN user_groups g ON g.id = t.x AND g.realm_id = $1 AND g.name IS NOT NULL"
            " WHERE g.id IS NULL OR g.deactivated ORDER BY g.id IS NOT NULL, t.i LIMIT 1");

int group_check_subgroups(struct uow *uow, json_object *ids)
{
	struct db_res *res = DB_EXEC(uow, &st_bad_subgroup, db_arg_int(uow, uow->realm->id), id_array(uow, ids));
	if (res == NULL)
		return -1;
	if (db_rows(res) == 0)
		return 0;
	if (db_bool(res, 0, 1))
		return uow_error(uow, ERR_BAD_REQUEST, "Invalid user group ID: %s", db_val(res, 0, 0));
	return uow_error(uow, ERR_BAD_REQUEST, "User group is deactivated.");
}

/* ---- group-setting values ----------------------------------------------------------------------------------- */

/*
 * The reference's parse_group_setting_value: an object with no members and one subgroup means that group, an
 * empty object role:nobody. Sets *id to the group id (*object NULL), or *object to a value that stays an object.
 * A client's id is taken as sent (a negative or unknown one is refused by the lookup, not mistaken for an error
 * here); -1 on error.
 */
static int normalize(struct uow *uow, json_object *value, int64_t *id, json_object **object)
{
	*object = NULL;
	*id = 0;
	if (json_object_is_type(value, json_type_int)) {
		*id = json_object_get_int64(value);
		return 0;
	}
	json_object *members = json_object_object_get(value, "direct_members");
	json_object *subgroups = json_object_object_get(value, "direct_subgroups");
	size_t nmembers = json_object_array_length(members), nsubgroups = json_object_array_length(subgroups);
	if (nmembers == 0 && nsubgroups == 1) {
		*id = json_object_get_int64(json_object_array_get_idx(subgroups, 0));
		return 0;
	}
	if (nmembers == 0 && nsubgroups == 0) {
		*id = group_system_id(uow, uow->realm->id, "role:nobody");
		return *id ? 0 : -1;
	}
	*object = value;
	return 0;
}

/* A named group as the value of `setting` (the reference's check_setting_configuration_for_system_groups). */
static int64_t store_named(struct uow *uow, const char *setting, int64_t id, unsigned flags)
{
	struct group *g = group_by_id(uow, id, false);
	if (g == NULL) {
		if (uow->error == ERR_NONE)
			uow_error(uow, ERR_BAD_REQUEST, "Invalid user group");
		return 0;
	}
	const char *refused = NULL;
	if (g->deactivated) {
		uow_error(uow, ERR_BAD_REQUEST, "User group is deactivated.");
		return 0;
	}
	if ((flags & GS_SYSTEM_ONLY) && !g->is_system_group) {
		uow_error(uow, ERR_SYSTEM_GROUP_REQUIRED, "'%s' must be a system user group.", setting);
		return 0;
	}
	if (g->is_system_group && strcmp(g->name, "role:internet") == 0)
		refused = g->name;
	else if ((flags & GS_NO_NOBODY) && g->is_system_group && strcmp(g->name, "role:nobody") == 0)
		refused = g->name;
	else if ((flags & GS_NO_EVERYONE) && g->is_system_group && strcmp(g->name, "role:everyone") == 0)
		refused = g->name;
	if (refused != NULL) {
		uow_error(uow, ERR_BAD_REQUEST, "'%s' setting cannot be set to '%s' group.", setting, refused);
		return 0;
	}
	return g->id;
}

static struct db_stmt st_unnamed = DB_STMT("SELECT confab_unnamed_group($1, $2, $3, $4)");

int64_t group_setting_update(struct uow *uow, const char *setting, json_object *value, unsigned flags,
                             int64_t current_id)
{
	json_object *object;
	int64_t id;
	if (normalize(uow, value, &id, &object) < 0)
		return 0;
	if (object == NULL)
		return store_named(uow, setting, id, flags);
	if (flags & GS_SYSTEM_ONLY) {
		uow_error(uow, ERR_SYSTEM_GROUP_REQUIRED, "'%s' must be a system user group.", setting);
		return 0;
	}
	json_object *members = json_object_object_get(object, "direct_members");
	json_object *subgroups = json_object_object_get(object, "direct_subgroups");
	if (group_check_users(uow, members) < 0 || group_check_subgroups(uow, subgroups) < 0)
		return 0;
	struct db_res *res =
	    DB_EXEC(uow, &st_unnamed, db_arg_int(uow, uow->realm->id), current_id ? db_arg_int(uow, current_id) : NULL,
	            id_array(uow, members), id_array(uow, subgroups));
	return res == NULL ? 0 : db_int(res, 0, 0);
}

int64_t group_setting_store(struct uow *uow, const char *setting, json_object *value, unsigned flags)
{
	return group_setting_update(uow, setting, value, flags, 0);
}

static struct db_stmt st_setting_api = DB_STMT("SELECT confab_group_setting_api($1)::text");

json_object *group_setting_json(struct uow *uow, int64_t group_id)
{
	struct db_res *res = DB_EXEC(uow, &st_setting_api, db_arg_int(uow, group_id));
	if (res == NULL)
		return NULL;
	json_object *value;
	if (db_rows(res) == 0 || db_null(res, 0, 0) ||
	    jsonx_parse(db_val(res, 0, 0), strlen(db_val(res, 0, 0)), &value) < 0) {
		log_msg(LOG_ERROR, "request %llu: no group-setting value for group %lld", uow->id, (long long)group_id);
		uow_error(uow, ERR_INTERNAL, NULL);
		return NULL;
	}
	return value;
}

/* The distinct ids of a JSON integer list, sorted, in the arena; *n receives their number. */
static int64_t *id_set(struct uow *uow, json_object *list, size_t *n)
{
	size_t len = json_object_array_length(list);
	int64_t *ids = arena_alloc(&uow->arena, (len + 1) * sizeof(*ids));
	for (size_t i = 0; i < len; i++)
		ids[i] = json_object_get_int64(json_object_array_get_idx(list, i));
	qsort(ids, len, sizeof(*ids), ids_cmp);
	size_t out = 0;
	for (size_t i = 0; i < len; i++)
		if (out == 0 || ids[out - 1] != ids[i])
			ids[out++] = ids[i];
	*n = out;
	return ids;
}

static bool same_ids(struct uow *uow, json_object *a, json_object *b)
{
	size_t na, nb;
	int64_t *x = id_set(uow, a, &na), *y = id_set(uow, b, &nb);
	return na == nb && memcmp(x, y, na * sizeof(*x)) == 0;
}

bool group_setting_equals(struct uow *uow, int64_t group_id, json_object *value)
{
	json_object *object;
	int64_t id;
	json_object *current =
	    normalize(uow, value, &id, &object) < 0 ? NULL : uow_own_json(uow, group_setting_json(uow, group_id));
	if (current == NULL)
		return false;
	if (object == NULL)
		return json_object_is_type(current, json_type_int) && json_object_get_int64(current) == id;
	return json_object_is_type(current, json_type_object) &&
	       same_ids(uow, json_object_object_get(object, "direct_members"),
	                json_object_object_get(current, "direct_members")) &&
	       same_ids(uow, json_object_object_get(object, "direct_subgroups"),
	                json_object_object_get(current, "direct_subgroups"));
}

/* ---- named groups ------------------------------------------------------------------------------------------- */

/* The defaults are the reference's GROUP_PERMISSION_SETTINGS default_group_name ("group_creator" for two). */
static struct db_stmt st_create =
    DB_STMT("INSERT INTO user_groups (realm_id, name, description, creator_id, can_add_members_group_id, "
            "  can_join_group_id, can_leave_group_id, can_manage_group_id, can_mention_group_id, "
            "  can_remove_members_group_id)"
            " SELECT $1, $2, $3, $4,"
            "  COALESCE($5::bigint, confab_unnamed_group($1, NULL, ARRAY[$4::bigint], '{}')),"
            "  COALESCE($6::bigint, confab_system_group($1, 'role:nobody')),"
            "  COALESCE($7::bigint, confab_system_group($1, 'role:everyone')),"
            "  COALESCE($8::bigint, confab_unnamed_group($1, NULL, ARRAY[$4::bigint], '{}')),"
            "  COALESCE($9::bigint, confab_system_group($1, 'role:everyone')),"
            "  COALESCE($10::bigint, confab_system_group($1, 'role:nobody'))"
            " ON CONFLICT (realm_id, name) DO NOTHING RETURNING id");

int64_t group_create(struct uow *uow, const char *name, const char *description, const int64_t *settings)
{
	const char *args[GP_COUNT];
	for (int i = 0; i < GP_COUNT; i++)
		args[i] = settings[i] ? db_arg_int(uow, settings[i]) : NULL;
	struct db_res *res =
	    DB_EXEC(uow, &st_create, db_arg_int(uow, uow->realm->id), name, description, db_arg_int(uow, uow->user->id),
	            args[0], args[1], args[2], args[3], args[4], args[5]);
	if (res == NULL)
		return 0;
	if (db_rows(res) == 0) {
		uow_error(uow, ERR_BAD_REQUEST, "User group '%s' already exists.", name);
		return 0;
	}
	return db_int(res, 0, 0);
}

static struct db_stmt st_rename =
    DB_STMT("UPDATE user_groups SET name = $2 WHERE id = $1"
            "   AND NOT EXISTS (SELECT 1 FROM user_groups o WHERE o.realm_id = user_groups.realm_id AND o.name = $2)"
            " RETURNING id");

int group_rename(struct uow *uow, int64_t id, const char *name)
{
	struct db_res *res = DB_EXEC(uow, &st_rename, db_arg_int(uow, id), name);
	if (res == NULL)
		return -1;
	if (db_rows(res) == 0)
		return uow_error(uow, ERR_BAD_REQUEST, "User group '%s' already exists.", name);
	return 0;
}

static struct db_stmt st_describe = DB_STMT("UPDATE user_groups SET description = $2 WHERE id = $1");

int group_set_description(struct uow *uow, int64_t id, const char *description)
{
	return DB_EXEC(uow, &st_describe, db_arg_int(uow, id), description) ? 0 : -1;
}

static struct db_stmt st_deactivate = DB_STMT("UPDATE user_groups SET deactivated = $2 WHERE id = $1");

int group_set_deactivated(struct uow *uow, int64_t id, bool deactivated)
{
	return DB_EXEC(uow, &st_deactivate, db_arg_int(uow, id), deactivated ? "true" : "false") ? 0 : -1;
}

static struct db_stmt st_set_permission =
    DB_STMT("UPDATE user_groups SET"
            " can_add_members_group_id = CASE WHEN $2 = 0 THEN $3::bigint ELSE can_add_members_group_id END,"
            " can_join_group_id = CASE WHEN $2 = 1 THEN $3::bigint ELSE can_join_group_id END,"
            " can_leave_group_id = CASE WHEN $2 = 2 THEN $3::bigint ELSE can_leave_group_id END,"
            " can_manage_group_id = CASE WHEN $2 = 3 THEN $3::bigint ELSE can_manage_group_id END,"
            " can_mention_group_id = CASE WHEN $2 = 4 THEN $3::bigint ELSE can_mention_group_id END,"
            " can_remove_members_group_id = CASE WHEN $2 = 5 THEN $3::bigint ELSE can_remove_members_group_id END"
            " WHERE id = $1");

int group_set_permission(struct uow *uow, int64_t id, enum group_permission p, int64_t value_id)
{
	_Static_assert(GP_ADD_MEMBERS == 0 && GP_REMOVE_MEMBERS == 5, "st_set_permission numbers the settings");
	return DB_EXEC(uow, &st_set_permission, db_arg_int(uow, id), db_arg_int(uow, p), db_arg_int(uow, value_id))
	           ? 0
	           : -1;
}

/* ---- membership --------------------------------------------------------------------------------------------- */

static struct db_stmt st_add_members =
    DB_STMT("INSERT INTO user_group_members (group_id, user_id) SELECT DISTINCT $1::bigint, unnest($2::bigint[])"
            "  WHERE EXISTS (SELECT 1 FROM user_groups WHERE id = $1 AND NOT is_system_group)"
            " ON CONFLICT DO NOTHING");
static struct db_stmt st_remove_members =
    DB_STMT("DELETE FROM user_group_members WHERE group_id = $1 AND user_id = ANY ($2::bigint[])"
            "   AND EXISTS (SELECT 1 FROM user_groups WHERE id = $1 AND NOT is_system_group)");
static struct db_stmt st_add_subgroups =
    DB_STMT("INSERT INTO user_group_subgroups (group_id, subgroup_id)"
            " SELECT DISTINCT $1::bigint, unnest($2::bigint[]) ON CONFLICT DO NOTHING");
static struct db_stmt st_remove_subgroups =
    DB_STMT("DELETE FROM user_group_subgroups WHERE group_id = $1 AND subgroup_id = ANY ($2::bigint[])");

static int change(struct uow *uow, struct db_stmt *st, int64_t id, json_object *ids)
{
	return DB_EXEC(uow, st, db_arg_int(uow, id), id_array(uow, ids)) ? 0 : -1;
}

int group_add_members(struct uow *uow, int64_t id, json_object *ids)
{
	return change(uow, &st_add_members, id, ids);
}

int group_remove_members(struct uow *uow, int64_t id, json_object *ids)
{
	return change(uow, &st_remove_members, id, ids);
}

int group_add_subgroups(struct uow *uow, int64_t id, json_object *ids)
{
	return change(uow, &st_add_subgroups, id, ids);
}

int group_remove_subgroups(struct uow *uow, int64_t id, json_object *ids)
{
	return change(uow, &st_remove_subgroups, id, ids);
}

static struct db_stmt st_first_member =
    DB_STMT("SELECT t.x FROM unnest($2::bigint[]) WITH ORDINALITY AS t (x, i)"
            " WHERE EXISTS (SELECT 1 FROM user_group_members m WHERE m.group_id = $1 AND m.user_id = t.x) = $3"
            " ORDER BY t.i LIMIT 1");
static struct db_stmt st_first_subgroup =
    DB_STMT("SELECT t.x FROM unnest($2::bigint[]) WITH ORDINALITY AS t (x, i)"
            " WHERE EXISTS (SELECT 1 FROM user_group_subgroups s WHERE s.group_id = $1 AND s.subgroup_id = t.x) = $3"
            " ORDER BY t.i LIMIT 1");

static int64_t first(struct uow *uow, struct db_stmt *st, int64_t id, json_object *ids, bool is)
{
	struct db_res *res = DB_EXEC(uow, st, db_arg_int(uow, id), id_array(uow, ids), is ? "true" : "false");
	if (res == NULL)
		return -1;
	return db_rows(res) ? db_int(res, 0, 0) : 0;
}

int64_t group_first_member(struct uow *uow, int64_t id, json_object *ids, bool is_member)
{
	return first(uow, &st_first_member, id, ids, is_member);
}

int64_t group_first_subgroup(struct uow *uow, int64_t id, json_object *ids, bool is_subgroup)
{
	return first(uow, &st_first_subgroup, id, ids, is_subgroup);
}

/* ---- reading membership ------------------------------------------------------------------------------------- */

static struct db_stmt st_member_ids =
    DB_STMT("SELECT COALESCE(json_agg(u.id ORDER BY u.id), '[]')::text FROM users u WHERE u.is_active AND u.id IN"
            " (SELECT m.user_id FROM user_group_members m WHERE $2 AND m.group_id = $1"
            "  UNION ALL SELECT r.user_id FROM confab_group_members($1) r WHERE NOT $2)");
static struct db_stmt st_subgroup_ids =
    DB_STMT("WITH RECURSIVE s (id) AS (SELECT subgroup_id FROM user_group_subgroups WHERE group_id = $1 UNION"
            "  SELECT gs.subgroup_id FROM user_group_subgroups gs JOIN s ON gs.group_id = s.id WHERE NOT $2)"
            " SELECT COALESCE(json_agg(id ORDER BY id), '[]')::text FROM s");
static struct db_stmt st_is_member =
    DB_STMT("SELECT u.is_system_bot, u.is_active, CASE WHEN $3"
            " THEN EXISTS (SELECT 1 FROM user_group_members m WHERE m.group_id = $1 AND m.user_id = u.id)"
            " ELSE EXISTS (SELECT 1 FROM confab_group_members($1) r WHERE r.user_id = u.id) END"
            " FROM users u WHERE u.id = $2 AND u.realm_id = $4");

/* The JSON text of column 0 of a one-row result, parsed; NULL on a failure. */
static json_object *json_result(struct uow *uow, struct db_res *res)
{
	json_object *value = NULL;
	if (res == NULL)
		return NULL;
	if (jsonx_parse(db_val(res, 0, 0), strlen(db_val(res, 0, 0)), &value) < 0 || value == NULL) {
		uow_error(uow, ERR_INTERNAL, NULL);
		return NULL;
	}
	return value;
}

json_object *group_member_ids_json(struct uow *uow, int64_t id, bool direct_only)
{
	return json_result(uow, DB_EXEC(uow, &st_member_ids, db_arg_int(uow, id), direct_only ? "true" : "false"));
}

json_object *group_subgroup_ids_json(struct uow *uow, int64_t id, bool direct_only)
{
	return json_result(uow, DB_EXEC(uow, &st_subgroup_ids, db_arg_int(uow, id), direct_only ? "true" : "false"));
}

int group_is_member(struct uow *uow, int64_t id, int64_t user_id, bool direct_only)
{
	struct db_res *res = DB_EXEC(uow, &st_is_member, db_arg_int(uow, id), db_arg_int(uow, user_id),
	                             direct_only ? "true" : "false", db_arg_int(uow, uow->realm->id));
	if (res == NULL)
		return -1;
	/* Bots are users here since FL 458; the system bots belong to no organization as clients see it. */
	if (db_rows(res) == 0 || db_bool(res, 0, 0))
		return uow_error(uow, ERR_BAD_REQUEST, "No such user");
	if (!db_bool(res, 0, 1))
		return uow_error(uow, ERR_BAD_REQUEST, "User is deactivated");
	return db_bool(res, 0, 2);
}

static struct db_stmt st_reaches =
    DB_STMT("WITH RECURSIVE s (id) AS (SELECT unnest($1::bigint[]) UNION"
            "  SELECT gs.subgroup_id FROM user_group_subgroups gs JOIN s ON gs.group_id = s.id)"
            " SELECT EXISTS (SELECT 1 FROM s WHERE id = $2)");

int group_reaches(struct uow *uow, json_object *ids, int64_t id)
{
	struct db_res *res = DB_EXEC(uow, &st_reaches, id_array(uow, ids), db_arg_int(uow, id));
	return res == NULL ? -1 : db_bool(res, 0, 0);
}

/* Two transactions adding subgroups concurrently could each pass the cycle check and together close a cycle. */
static struct db_stmt st_lock_subgroups =
    DB_STMT("SELECT pg_advisory_xact_lock(hashtext('confab_user_group_subgroups'), $1::integer)");

int group_lock_subgroups(struct uow *uow)
{
	return DB_EXEC(uow, &st_lock_subgroups, db_arg_int(uow, uow->realm->id)) ? 0 : -1;
}

static struct db_stmt st_objections = DB_STMT("SELECT confab_group_objections($1)::text");

json_object *group_objections(struct uow *uow, int64_t id)
{
	struct db_res *res = DB_EXEC(uow, &st_objections, db_arg_int(uow, id));
	if (res == NULL)
		return NULL;
	json_object *list;
	if (jsonx_parse(db_val(res, 0, 0), strlen(db_val(res, 0, 0)), &list) < 0 ||
	    !json_object_is_type(list, json_type_array)) {
		json_object_put(list);
		uow_error(uow, ERR_INTERNAL, NULL);
		return NULL;
	}
	return list;
}

/* ---- the group list ---------------------------------------------------------------------------------------- */

/* The columns group_row_json() reads. */
#define GROUP_ROW_SELECT                                                                                               \
	"SELECT g.id, g.name, g.description, g.is_system_group, floor(extract(epoch FROM g.date_created))::bigint,"    \
	"  g.creator_id, g.deactivated,"                                                                               \
	"  COALESCE((SELECT json_agg(m.user_id ORDER BY m.user_id) FROM user_group_members m"                          \
	"    JOIN users u ON u.id = m.user_id AND u.is_active WHERE m.group_id = g.id), '[]')::text,"                  \
	"  COALESCE((SELECT json_agg(s.subgroup_id ORDER BY s.subgroup_id) FROM user_group_subgroups s"                \
	"    WHERE s.group_id = g.id), '[]')::text,"                                                                   \
	"  confab_group_setting_api(g.can_add_members_group_id)::text, "                                               \
	"confab_group_setting_api(g.can_join_group_id)::text,"                                                         \
	"  confab_group_setting_api(g.can_leave_group_id)::text, "                                                     \
	"confab_group_setting_api(g.can_manage_group_id)::text,"                                                       \
	"  confab_group_setting_api(g.can_mention_group_id)::text,"                                                    \
	"  confab_group_setting_api(g.can_remove_members_group_id)::text FROM user_groups g "
static struct db_stmt st_named_groups = DB_STMT(
    GROUP_ROW_SELECT "WHERE g.realm_id = $1 AND g.name IS NOT NULL AND ($2 OR NOT g.deactivated) ORDER BY g.id");

/* Column col of row as parsed JSON (the query builds it), added to o as key. */
static void add_json_column(json_object *o, const char *key, const struct db_res *res, int row, int col)
{
	json_object *value = NULL;
	jsonx_parse(db_val(res, row, col), strlen(db_val(res, row, col)), &value);
	json_object_object_add(o, key, value);
}

static json_object *group_row_json(const struct db_res *res, int i)
{
	json_object *g = json_object_new_object();
	json_object_object_add(g, "id", json_object_new_int64(db_int(res, i, 0)));
	json_object_object_add(g, "name", json_object_new_string(db_val(res, i, 1)));
	json_object_object_add(g, "description", json_object_new_string(db_val(res, i, 2)));
	add_json_column(g, "members", res, i, 7);
	add_json_column(g, "direct_subgroup_ids", res, i, 8);
	json_object_object_add(g, "is_system_group", json_object_new_boolean(db_bool(res, i, 3)));
	json_object_object_add(g, "date_created", db_null(res, i, 4) ? NULL : json_object_new_int64(db_int(res, i, 4)));
	json_object_object_add(g, "creator_id", db_null(res, i, 5) ? NULL : json_object_new_int64(db_int(res, i, 5)));
	for (int p = 0; p < GP_COUNT; p++)
		add_json_column(g, group_permission_names[p], res, i, 9 + p);
	json_object_object_add(g, "deactivated", json_object_new_boolean(db_bool(res, i, 6)));
	return g;
}

json_object *group_list_json(struct uow *uow, bool include_deactivated)
{
	struct db_res *res =
	    DB_EXEC(uow, &st_named_groups, db_arg_int(uow, uow->realm->id), include_deactivated ? "true" : "false");
	if (res == NULL)
		return NULL;
	json_object *groups = json_object_new_array_ext(db_rows(res));
	for (int i = 0; i < db_rows(res); i++)
		json_object_array_add(groups, group_row_json(res, i));
	return groups;
}

/* ---- events ------------------------------------------------------------------------------------------------- */

/* One group as GET /user_groups lists it. */
static struct db_stmt st_group_row = DB_STMT(GROUP_ROW_SELECT "WHERE g.id = $1");

static json_object *new_event(struct uow *uow, const char *op, int64_t group_id)
{
	json_object *event = uow_own_json(uow, json_object_new_object());
	json_object_object_add(event, "type", json_object_new_string("user_group"));
	json_object_object_add(event, "op", json_object_new_string(op));
	if (group_id)
		json_object_object_add(event, "group_id", json_object_new_int64(group_id));
	return event;
}

/* Every user group event goes to all active users of the organization. */
static int to_everyone(struct uow *uow, json_object *event)
{
	int n;
	int64_t *users = user_active_ids(uow, uow->realm->id, &n);
	return users ? events_add(uow, event, users, n, 0) : -1;
}

/* user_group add with the group as it is now; for_reactivation: a deactivated group came back. A new group is
 * announced without subgroups (the reference adds them with add_subgroups afterwards). */
static int add_event(struct uow *uow, int64_t id, bool for_reactivation)
{
	struct db_res *res = DB_EXEC(uow, &st_group_row, db_arg_int(uow, id));
	if (res == NULL || db_rows(res) != 1)
		return uow_error(uow, ERR_INTERNAL, NULL);
	json_object *group = group_row_json(res, 0);
	if (!for_reactivation)
		json_object_object_add(group, "direct_subgroup_ids", json_object_new_array());
	json_object *event = new_event(uow, "add", 0);
	json_object_object_add(event, "group", group);
	json_object_object_add(event, "for_reactivation", json_object_new_boolean(for_reactivation));
	return to_everyone(uow, event);
}

int group_events_created(struct uow *uow, int64_t id, json_object *subgroups)
{
	if (add_event(uow, id, false) < 0)
		return -1;
	return subgroups && json_object_array_length(subgroups) > 0
	           ? group_events_members(uow, id, "add_subgroups", subgroups, NULL)
	           : 0;
}

int group_events_update(struct uow *uow, const struct group *g, const char *key, json_object *value)
{
	json_object *event = new_event(uow, "update", g->id);
	json_object *data = json_object_new_object();
	json_object_object_add(data, key, value);
	json_object_object_add(event, "data", data);
	/* The reference keeps a renamed deactivated group from clients without include_deactivated_groups. */
	if (strcmp(key, "name") == 0 && g->deactivated)
		json_object_object_add(event, "_group_deactivated", json_object_new_boolean(true));
	return to_everyone(uow, event);
}

int group_events_setting(struct uow *uow, const struct group *g, enum group_permission p)
{
	struct group *now = group_by_id(uow, g->id, false);
	json_object *value = now ? group_setting_json(uow, now->setting[p]) : NULL;
	if (value == NULL)
		return uow_error(uow, ERR_INTERNAL, NULL);
	return group_events_update(uow, g, group_permission_names[p], value);
}

int group_events_deactivated(struct uow *uow, const struct group *g, bool deactivated)
{
	if (group_events_update(uow, g, "deactivated", json_object_new_boolean(deactivated)) < 0)
		return -1;
	return deactivated ? to_everyone(uow, new_event(uow, "remove", g->id)) : add_event(uow, g->id, true);
}

/* ---- channel metadata reached through a group --------------------------------------------------------------- */

/* Private channels whose can_administer_channel_group, can_add_subscribers_group or can_subscribe_group is the
 * group or one of its supergroups: who may see them changes with the group's members. */
static struct db_stmt st_access_channels =
    DB_STMT("WITH RECURSIVE sup (id) AS (SELECT $1::bigint UNION"
            "  SELECT s.group_id FROM user_group_subgroups s JOIN sup ON s.subgroup_id = sup.id)"
            " SELECT c.id FROM channels c WHERE c.realm_id = $2 AND c.invite_only"
            "   AND (c.can_administer_channel_group_id IN (SELECT id FROM sup)"
            "     OR c.can_add_subscribers_group_id IN (SELECT id FROM sup) OR c.can_subscribe_group_id IN (SELECT id "
            "FROM sup))"
            " ORDER BY c.id");

struct group_access {
	int n;
	int64_t *channels;
	int64_t **users; /* per channel: who had metadata access before the change */
	int *nusers;
};

struct group_access *group_access_before(struct uow *uow, int64_t id)
{
	struct db_res *res = DB_EXEC(uow, &st_access_channels, db_arg_int(uow, id), db_arg_int(uow, uow->realm->id));
	if (res == NULL)
		return NULL;
	struct group_access *a = arena_alloc(&uow->arena, sizeof(*a));
	a->n = db_rows(res);
	a->channels = arena_alloc(&uow->arena, (size_t)(a->n + 1) * sizeof(*a->channels));
	a->users = arena_alloc(&uow->arena, (size_t)(a->n + 1) * sizeof(*a->users));
	a->nusers = arena_alloc(&uow->arena, (size_t)(a->n + 1) * sizeof(*a->nusers));
	for (int i = 0; i < a->n; i++) {
		a->channels[i] = db_int(res, i, 0);
		if ((a->users[i] = channel_metadata_user_ids(uow, a->channels[i], true, &a->nusers[i])) == NULL)
			return NULL;
	}
	return a;
}

/* Channels that appeared for users now reaching them through the group (stream create, then peer_add with the
 * subscribers), or disappeared for those who no longer do (stream delete). */
static int access_events(struct uow *uow, const struct group_access *before)
{
	for (int i = 0; before && i < before->n; i++) {
		int n, ngain, nlose;
		int64_t *now = channel_metadata_user_ids(uow, before->channels[i], true, &n);
		if (now == NULL)
			return -1;
		int64_t *gain = ids_minus(uow, now, n, before->users[i], before->nusers[i], &ngain);
		int64_t *lose = ids_minus(uow, before->users[i], before->nusers[i], now, n, &nlose);
		if (ngain > 0 && channel_events_gained(uow, before->channels[i], gain, ngain) < 0)
			return -1;
		if (nlose > 0 && channel_events_lost(uow, before->channels[i], lose, nlose) < 0)
			return -1;
	}
	return 0;
}

int group_events_members(struct uow *uow, int64_t id, const char *op, json_object *ids,
                         const struct group_access *before)
{
	size_t n;
	int64_t *set = id_set(uow, ids, &n);
	json_object *list = json_object_new_array_ext((int)n);
	for (size_t i = 0; i < n; i++)
		json_object_array_add(list, json_object_new_int64(set[i]));
	json_object *event = new_event(uow, op, id);
	json_object_object_add(event, strstr(op, "subgroups") ? "direct_subgroup_ids" : "user_ids", list);
	if (to_everyone(uow, event) < 0)
		return -1;
	return access_events(uow, before);
}

/* ---- Notification Bot --------------------------------------------------------------------------------------- */

static struct db_stmt st_notified =
    DB_STMT("SELECT u.id FROM users u WHERE u.id = ANY ($1::bigint[]) AND u.id <> $2 AND NOT u.is_bot ORDER BY u.id");

int group_notify_members(struct uow *uow, const struct group *g, json_object *ids, bool added)
{
	/* Nobody is told of their own joining or leaving, and bots are not told at all. */
	struct db_res *res = DB_EXEC(uow, &st_notified, id_array(uow, ids), db_arg_int(uow, uow->user->id));
	if (res == NULL)
		return -1;
	const char *content = arena_printf(&uow->arena, "%s %s the group @_*%s*.", notify_mention(uow, uow->user),
	                                   added ? "added you to" : "removed you from", g->name);
	for (int i = 0; i < db_rows(res); i++)
		if (notify_direct(uow, db_int(res, i, 0), content) == 0)
			return -1;
	return 0;
}
