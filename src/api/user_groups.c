/*
 * User groups: create, list, update, deactivate, and change members and subgroups.
 * Reference: Zulip zerver/views/user_groups.py, zerver/lib/user_groups.py (access_user_group_for_update,
 * access_user_group_for_deactivation, lock_subgroups_with_respect_to_supergroup).
 */
#include <json-c/json.h>
#include <string.h>

#include "api/api.h"
#include "db/db.h"
#include "http/params.h"
#include "http/request.h"
#include "model/groups.h"
#include "model/permissions.h"
#include "model/realm.h"
#include "model/user.h"

#define GP_BIT(p) (1u << (p))

/*
 * The named group `id` for a change by the requesting user, its row locked (the reference's
 * access_user_group_for_update): system groups are never changed here; members of the organization's
 * can_manage_all_groups and of the group's can_manage_group may do everything; otherwise one of the group's
 * settings named in `also` (GP_BIT()s) must include the user. NULL with the reference's error recorded.
 */
static struct group *group_for_change(struct request *req, int64_t id, unsigned also, bool allow_deactivated)
{
	struct group *g = group_by_id_or_error(&req->uow, id, true);
	if (g == NULL)
		return NULL;
	if (g->deactivated && !allow_deactivated) {
		api_error(req, ERR_BAD_REQUEST, "User group is deactivated.");
		return NULL;
	}
	if (g->is_system_group) {
		api_error(req, ERR_BAD_REQUEST, "Insufficient permission");
		return NULL;
	}
	if (perm_realm(&req->uow, RS_MANAGE_ALL_GROUPS))
		return g;
	also |= GP_BIT(GP_MANAGE);
	for (int p = GP_MANAGE; p < GP_MANAGE + GP_COUNT; p++) {
		int i = p % GP_COUNT; /* can_manage_group first, as the reference asks */
		if ((also & GP_BIT(i)) && group_setting_allows(&req->uow, g->setting[i], group_permission_flags[i]))
			return g;
	}
	if (req->error == ERR_NONE)
		api_error(req, ERR_BAD_REQUEST, "Insufficient permission");
	return NULL;
}

static bool is_empty(json_object *list)
{
	return list == NULL || json_object_array_length(list) == 0;
}

/* True if ids is exactly the requesting user: joining or leaving needs less than adding or removing others. */
static bool is_only_self(struct request *req, json_object *ids)
{
	return json_object_array_length(ids) == 1 &&
	       json_object_get_int64(json_object_array_get_idx(ids, 0)) == req->user->id;
}

/* Adding subgroups to group id would make it a subgroup of itself. */
static int cycle_error(struct request *req, int64_t id)
{
	return api_error(req, ERR_BAD_REQUEST, "User group %lld is already a subgroup of one of the passed subgroups.",
	                 (long long)id);
}

/*
 * The subgroups of a group being created need no permission beyond creating it. No group contains the new one
 * yet, so the only possible cycle is a client naming the new group's own id.
 */
static int add_initial_subgroups(struct request *req, int64_t id, json_object *ids)
{
	if (is_empty(ids))
		return 0;
	if (group_check_subgroups(&req->uow, ids) < 0)
		return -1;
	int cycle = group_reaches(&req->uow, ids, id);
	if (cycle != 0)
		return cycle < 0 ? -1 : cycle_error(req, id);
	return group_add_subgroups(&req->uow, id, ids);
}

/* POST /api/v1/user_groups/create */
int user_groups_create(struct request *req)
{
	if (!perm_realm(&req->uow, RS_CREATE_GROUPS))
		return api_error(req, ERR_BAD_REQUEST, "Insufficient permission");
	json_object *members = param_json(req, "members");
	const char *name = param_str(req, "name");
	if (group_check_users(&req->uow, members) < 0 || group_check_name(&req->uow, name) < 0)
		return -1;
	int64_t settings[GP_COUNT] = {0};
	for (int i = 0; i < GP_COUNT; i++) {
		const struct group_setting_value *value = param_group_setting(req, group_permission_names[i]);
		if (value != NULL && (settings[i] = group_setting_store(&req->uow, group_permission_names[i],
		                                                        value->json, group_permission_flags[i])) == 0)
			return -1;
	}
	int64_t id = group_create(&req->uow, name, param_str(req, "description"), settings);
	if (id == 0 || group_add_members(&req->uow, id, members) < 0)
		return -1;
	if (add_initial_subgroups(req, id, param_json(req, "subgroups")) < 0 ||
	    group_events_created(&req->uow, id, param_json(req, "subgroups")) < 0)
		return -1;
	json_object_object_add(request_result(req), "group_id", json_object_new_int64(id));
	return 0;
}

/* GET /api/v1/user_groups */
int user_groups_list(struct request *req)
{
	json_object *groups = group_list_json(&req->uow, param_bool(req, "include_deactivated_groups"));
	if (groups == NULL)
		return -1;
	json_object_object_add(request_result(req), "user_groups", groups);
	return 0;
}

/*
 * Applies the update {"new": value, "old": value?} sent for setting p of g: `old`, when given, must be the current
 * value (EXPECTATION_MISMATCH); a new value equal to the current one changes nothing.
 */
static int update_permission(struct request *req, const struct group *g, enum group_permission p)
{
	const char *name = group_permission_names[p];
	const struct group_setting_update *u = param_group_update(req, name);
	if (u == NULL)
		return 0;
	if (u->has_old && !group_setting_equals(&req->uow, g->setting[p], u->old.json))
		return api_error(req, ERR_EXPECTATION_MISMATCH, NULL);
	if (group_setting_equals(&req->uow, g->setting[p], u->new_value.json))
		return req->error ? -1 : 0;
	int64_t id = group_setting_update(&req->uow, name, u->new_value.json, group_permission_flags[p], g->setting[p]);
	if (id == 0 || (id != g->setting[p] && group_set_permission(&req->uow, g->id, p, id) < 0))
		return -1;
	return group_events_setting(&req->uow, g, p);
}

/* True if the PATCH names something to change (a JSON null counts as not sent, as in the reference). */
static bool has_update(struct request *req)
{
	if (param_present(req, "name") || param_present(req, "description") || param_present(req, "deactivated"))
		return true;
	for (int p = 0; p < GP_COUNT; p++)
		if (param_present(req, group_permission_names[p]))
			return true;
	return false;
}

/* PATCH /api/v1/user_groups/{user_group_id} */
int user_groups_update(struct request *req)
{
	if (!has_update(req))
		return api_error(req, ERR_BAD_REQUEST, "No new data supplied");
	struct group *g = group_for_change(req, param_int(req, "user_group_id"), 0, true);
	if (g == NULL)
		return -1;
	const char *name = param_str(req, "name");
	if (name != NULL && strcmp(name, g->name) != 0 &&
	    (group_check_name(&req->uow, name) < 0 || group_rename(&req->uow, g->id, name) < 0 ||
	     group_events_update(&req->uow, g, "name", json_object_new_string(name)) < 0))
		return -1;
	const char *description = param_str(req, "description");
	if (description != NULL && strcmp(description, g->description) != 0 &&
	    (group_set_description(&req->uow, g->id, description) < 0 ||
	     group_events_update(&req->uow, g, "description", json_object_new_string(description)) < 0))
		return -1;
	/* deactivated=false reactivates; true is accepted and ignored (deactivation has its own endpoint). */
	if (param_present(req, "deactivated") && !param_bool(req, "deactivated") && g->deactivated &&
	    (group_set_deactivated(&req->uow, g->id, false) < 0 || group_events_deactivated(&req->uow, g, false) < 0))
		return -1;
	for (int p = 0; p < GP_COUNT; p++)
		if (update_permission(req, g, p) < 0)
			return -1;
	return 0;
}

/* POST /api/v1/user_groups/{user_group_id}/deactivate */
int user_groups_deactivate(struct request *req)
{
	struct group *g = group_for_change(req, param_int(req, "user_group_id"), 0, false);
	if (g == NULL)
		return -1;
	json_object *objections = group_objections(&req->uow, g->id);
	if (objections == NULL)
		return -1;
	if (json_object_array_length(objections) > 0) {
		api_error(req, ERR_GROUP_IN_USE, NULL);
		api_error_field(req, "objections", objections);
		return -1;
	}
	json_object_put(objections);
	if (group_set_deactivated(&req->uow, g->id, true) < 0)
		return -1;
	return group_events_deactivated(&req->uow, g, true);
}

/* Adds users to group id: oneself alone needs can_join_group (or can_add_members_group), others the latter. */
static int add_members(struct request *req, int64_t id, json_object *ids)
{
	unsigned also = GP_BIT(GP_ADD_MEMBERS) | (is_only_self(req, ids) ? GP_BIT(GP_JOIN) : 0);
	struct group *g = group_for_change(req, id, also, true);
	if (g == NULL || group_check_users(&req->uow, ids) < 0)
		return -1;
	int64_t member = group_first_member(&req->uow, g->id, ids, true);
	if (member != 0)
		return member < 0 ? -1
		                  : api_error(req, ERR_BAD_REQUEST, "User %lld is already a member of this group",
		                              (long long)member);
	struct group_access *before = group_access_before(&req->uow, g->id);
	if (before == NULL || group_add_members(&req->uow, g->id, ids) < 0 ||
	    group_events_members(&req->uow, g->id, "add_members", ids, before) < 0)
		return -1;
	return group_notify_members(&req->uow, g, ids, true);
}

/* Removes users: oneself alone needs can_leave_group (or can_remove_members_group), others the latter. */
static int remove_members(struct request *req, int64_t id, json_object *ids)
{
	if (group_check_users(&req->uow, ids) < 0)
		return -1;
	unsigned also = GP_BIT(GP_REMOVE_MEMBERS) | (is_only_self(req, ids) ? GP_BIT(GP_LEAVE) : 0);
	struct group *g = group_for_change(req, id, also, true);
	if (g == NULL)
		return -1;
	int64_t stranger = group_first_member(&req->uow, g->id, ids, false);
	if (stranger != 0)
		return stranger < 0 ? -1
		                    : api_error(req, ERR_BAD_REQUEST, "There is no member '%lld' in this user group",
		                                (long long)stranger);
	struct group_access *before = group_access_before(&req->uow, g->id);
	if (before == NULL || group_remove_members(&req->uow, g->id, ids) < 0 ||
	    group_events_members(&req->uow, g->id, "remove_members", ids, before) < 0)
		return -1;
	return group_notify_members(&req->uow, g, ids, false);
}

/* Adds subgroups (can_add_members_group); the caller holds group_lock_subgroups(). */
static int add_subgroups(struct request *req, int64_t id, json_object *ids)
{
	struct group *g = group_for_change(req, id, GP_BIT(GP_ADD_MEMBERS), true);
	if (g == NULL || group_check_subgroups(&req->uow, ids) < 0)
		return -1;
	int64_t present = group_first_subgroup(&req->uow, g->id, ids, true);
	if (present != 0)
		return present < 0
		           ? -1
		           : api_error(req, ERR_BAD_REQUEST, "User group %lld is already a subgroup of this group.",
		                       (long long)present);
	int cycle = group_reaches(&req->uow, ids, g->id);
	if (cycle != 0)
		return cycle < 0 ? -1 : cycle_error(req, g->id);
	struct group_access *before = group_access_before(&req->uow, g->id);
	if (before == NULL || group_add_subgroups(&req->uow, g->id, ids) < 0)
		return -1;
	return group_events_members(&req->uow, g->id, "add_subgroups", ids, before);
}

/* Removes subgroups (can_manage_group). */
static int remove_subgroups(struct request *req, int64_t id, json_object *ids)
{
	struct group *g = group_for_change(req, id, 0, true);
	if (g == NULL || group_check_subgroups(&req->uow, ids) < 0)
		return -1;
	int64_t absent = group_first_subgroup(&req->uow, g->id, ids, false);
	if (absent != 0)
		return absent < 0 ? -1
		                  : api_error(req, ERR_BAD_REQUEST, "User group %lld is not a subgroup of this group.",
		                              (long long)absent);
	struct group_access *before = group_access_before(&req->uow, g->id);
	if (before == NULL || group_remove_subgroups(&req->uow, g->id, ids) < 0)
		return -1;
	return group_events_members(&req->uow, g->id, "remove_subgroups", ids, before);
}

/* POST /api/v1/user_groups/{user_group_id}/members */
int user_group_members_update(struct request *req)
{
	int64_t id = param_int(req, "user_group_id");
	json_object *add = param_json(req, "add"), *del = param_json(req, "delete");
	json_object *add_sub = param_json(req, "add_subgroups"), *del_sub = param_json(req, "delete_subgroups");
	if (is_empty(add) && is_empty(del) && is_empty(add_sub) && is_empty(del_sub))
		return api_error(req, ERR_BAD_REQUEST,
		                 "Nothing to do. Specify at least one of \"add\", \"delete\", "
		                 "\"add_subgroups\" or \"delete_subgroups\".");
	if (!is_empty(add_sub) && group_lock_subgroups(&req->uow) < 0)
		return -1;
	if ((!is_empty(add) && add_members(req, id, add) < 0) || (!is_empty(del) && remove_members(req, id, del) < 0) ||
	    (!is_empty(add_sub) && add_subgroups(req, id, add_sub) < 0) ||
	    (!is_empty(del_sub) && remove_subgroups(req, id, del_sub) < 0))
		return -1;
	return 0;
}

/* POST /api/v1/user_groups/{user_group_id}/subgroups */
int user_group_subgroups_update(struct request *req)
{
	int64_t id = param_int(req, "user_group_id");
	json_object *add = param_json(req, "add"), *del = param_json(req, "delete");
	if (is_empty(add) && is_empty(del))
		return api_error(req, ERR_BAD_REQUEST, "Nothing to do. Specify at least one of \"add\" or \"delete\".");
	if (!is_empty(add) && (group_lock_subgroups(&req->uow) < 0 || add_subgroups(req, id, add) < 0))
		return -1;
	if (!is_empty(del) && remove_subgroups(req, id, del) < 0)
		return -1;
	return 0;
}

/* The group whose membership is read (access_user_group_to_read_membership): system groups included, deactivated
 * ones refused. NULL with the reference's error recorded. */
static struct group *group_to_read(struct request *req)
{
	struct group *g = group_by_id_or_error(&req->uow, param_int(req, "user_group_id"), false);
	if (g != NULL && g->deactivated) {
		api_error(req, ERR_BAD_REQUEST, "User group is deactivated.");
		return NULL;
	}
	return g;
}

/* GET /api/v1/user_groups/{user_group_id}/members */
int user_group_members_list(struct request *req)
{
	struct group *g = group_to_read(req);
	json_object *ids = g ? group_member_ids_json(&req->uow, g->id, param_bool(req, "direct_member_only")) : NULL;
	if (ids == NULL)
		return -1;
	json_object_object_add(request_result(req), "members", ids);
	return 0;
}

/* GET /api/v1/user_groups/{user_group_id}/members/{user_id} */
int user_group_member_get(struct request *req)
{
	struct group *g = group_to_read(req);
	if (g == NULL)
		return -1;
	int is_member =
	    group_is_member(&req->uow, g->id, param_int(req, "user_id"), param_bool(req, "direct_member_only"));
	if (is_member < 0)
		return -1;
	json_object_object_add(request_result(req), "is_user_group_member", json_object_new_boolean(is_member));
	return 0;
}

/* GET /api/v1/user_groups/{user_group_id}/subgroups */
int user_group_subgroups_list(struct request *req)
{
	struct group *g = group_to_read(req);
	json_object *ids =
	    g ? group_subgroup_ids_json(&req->uow, g->id, param_bool(req, "direct_subgroup_only")) : NULL;
	if (ids == NULL)
		return -1;
	json_object_object_add(request_result(req), "subgroups", ids);
	return 0;
}
