/* Users: the current user, the member list, one user by id or e-mail, account creation and administration
 * (updates, deactivation, reactivation). */
#include <ctype.h>
#include <json-c/json.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "api/api.h"
#include "db/db.h"
#include "http/params.h"
#include "http/request.h"
#include "model/default_channels.h"
#include "model/profile_fields.h"
#include "model/realm.h"
#include "model/realm_domains.h"
#include "model/user.h"
#include "model/user_admin.h"

/* Guests may be limited to the users they share a channel or conversation with (can_access_all_users_group). */
static bool can_access_user(struct request *req, const struct user *target)
{
	return req->realm->everyone_can_access_all_users || !user_is_guest(req->user) || target->is_bot ||
	       target->id == req->user->id;
}

/* The User object of target with the optional custom profile fields, as the request's parameters ask. */
static int reply_user(struct request *req, const struct user *target)
{
	if (!can_access_user(req, target))
		return api_error(req, ERR_BAD_REQUEST, "Insufficient permission");
	json_object *profile = NULL;
	if (param_bool(req, "include_custom_profile_fields") &&
	    (profile = user_profile_data(&req->uow, target->id, NULL)) == NULL)
		return -1;
	json_object *u = user_to_json(&req->uow, target, req->user, param_bool(req, "client_gravatar"), profile);
	json_object_object_add(request_result(req), "user", u);
	return 0;
}

/* GET /api/v1/users/me */
int users_me_get(struct request *req)
{
	/* max_message_id: the highest message id the user has a copy of, -1 if none. */
	int64_t max_id;
	json_object *profile = user_own_profile_data(&req->uow, req->user, &max_id);
	if (profile == NULL)
		return -1;
	json_object *me = user_to_json(&req->uow, req->user, req->user, false, profile);
	json_object *out = request_result(req);
	json_object_object_foreach (me, key, val)
		json_object_object_add(out, key, json_object_get(val));
	json_object_put(me);
	json_object_object_add(out, "max_message_id", json_object_new_int64(max_id));
	return 0;
}

static struct db_stmt st_realm_users =
    DB_STMT("SELECT " USER_COLUMNS " FROM users u WHERE u.realm_id = $1 AND NOT u.is_system_bot ORDER BY u.id");

/* GET /api/v1/users */
int users_list(struct request *req)
{
	struct db_res *res = DB_EXEC(&req->uow, &st_realm_users, db_arg_int(&req->uow, req->realm->id));
	if (res == NULL)
		return -1;
	json_object *profiles = NULL;
	if (param_bool(req, "include_custom_profile_fields") &&
	    (profiles = user_profile_data_all(&req->uow, req->realm->id)) == NULL)
		return -1;
	bool gravatar = param_bool(req, "client_gravatar");
	json_object *members = json_object_new_array_ext(db_rows(res));
	json_object_object_add(request_result(req), "members", members);
	for (int i = 0; i < db_rows(res); i++) {
		struct user *u = user_from_row(&req->uow, res, i, 0);
		if (!can_access_user(req, u))
			continue;
		json_object *profile = NULL;
		if (profiles != NULL && !json_object_object_get_ex(profiles, db_val(res, i, 0), &profile))
			profile = request_own_json(req, json_object_new_object());
		json_object_array_add(members, user_to_json(&req->uow, u, req->user, gravatar, profile));
	}
	return 0;
}

/* GET /api/v1/users/{user_id} */
int users_get_by_id(struct request *req)
{
	struct user *target = user_by_id_or_error(&req->uow, req->realm->id, param_int(req, "user_id"));
	if (target == NULL)
		return -1;
	return reply_user(req, target);
}

/* GET /api/v1/users/{email} */
int users_get_by_email(struct request *req)
{
	const char *email = param_str(req, "email");
	int64_t id = user_placeholder_email_id(&req->uow, email);
	struct user *target = id ? user_by_id_or_error(&req->uow, req->realm->id, id)
	                         : user_by_email_or_error(&req->uow, req->realm->id, email);
	if (target == NULL)
		return -1;
	/* A real address only finds users whose visibility setting shows it to the requester. */
	if (id == 0 && !user_can_see_email(req->user, target))
		return api_error(req, ERR_BAD_REQUEST, "No such user");
	return reply_user(req, target);
}

/* POST /api/v1/users */
int users_create(struct request *req)
{
	if (!req->user->can_create_users)
		return api_error(req, ERR_BAD_REQUEST, "User not authorized to create users");
	struct user_new spec = {
	    .email = param_str(req, "email"),
	    .full_name = arena_strip(&req->arena, param_str(req, "full_name")),
	    .password = param_str(req, "password"),
	    .role = ROLE_MEMBER,
	};
	if (user_check_full_name(&req->uow, spec.full_name) < 0)
		return -1;
	if (!user_email_is_valid(spec.email))
		return api_error(req, ERR_BAD_REQUEST, "Bad name or username");
	int verdict = realm_email_check(&req->uow, req->realm, spec.email);
	if (verdict < 0)
		return -1;
	if (verdict == REALM_EMAIL_DOMAIN_NOT_ALLOWED)
		return api_error(req, ERR_BAD_REQUEST, "Email '%s' not allowed in this organization", spec.email);
	if (verdict == REALM_EMAIL_CONTAINS_PLUS)
		return api_error(req, ERR_BAD_REQUEST, "Email addresses containing + are not allowed.");
	if (user_by_email(&req->uow, req->realm->id, spec.email) != NULL)
		return api_error(req, ERR_BAD_REQUEST, "Email '%s' already in use", spec.email);
	if (req->error)
		return -1;
	if (!user_password_is_strong(spec.password))
		return api_error(req, ERR_BAD_REQUEST, "The password is too weak.");
	int64_t id = user_create(&req->uow, req->realm->id, &spec);
	if (id == 0 || user_events_created(&req->uow, id) < 0 || default_channels_events_subscribed(&req->uow, id) < 0)
		return -1;
	json_object_object_add(request_result(req), "user_id", json_object_new_int64(id));
	return 0;
}

/* ---- administration ------------------------------------------------------------------------------------------ */

static struct db_stmt st_is_system_bot = DB_STMT("SELECT is_system_bot FROM users WHERE id = $1");

/* The reference's access_user_by_id(..., for_admin=True) checks on a target found (NULL: "No such user" is
 * recorded already). System bots belong to no organization as clients see it. 0 or -1. */
static int admin_access(struct request *req, const struct user *target, bool allow_deactivated, bool allow_bots)
{
	if (target == NULL)
		return -1;
	struct db_res *res = DB_EXEC(&req->uow, &st_is_system_bot, db_arg_int(&req->uow, target->id));
	if (res == NULL)
		return -1;
	if (db_bool(res, 0, 0) || (target->is_bot && !allow_bots))
		return api_error(req, ERR_BAD_REQUEST, "No such user");
	if (!target->is_active && !allow_deactivated)
		return api_error(req, ERR_BAD_REQUEST, "User is deactivated");
	if (!user_can_admin(req->user, target))
		return api_error(req, ERR_BAD_REQUEST, "Insufficient permission");
	return 0;
}

static bool is_role(int64_t role)
{
	return role == ROLE_OWNER || role == ROLE_ADMIN || role == ROLE_MODERATOR || role == ROLE_MEMBER ||
	       role == ROLE_GUEST;
}

/* The role part of the reference's update_user_backend. */
static int update_role(struct request *req, const struct user *target)
{
	int64_t role = param_int(req, "role");
	if (role == target->role)
		return 0;
	if ((role == ROLE_OWNER || user_is_owner(target)) && !user_is_owner(req->user))
		return api_error(req, ERR_UNAUTHORIZED_PRINCIPAL, "Must be an organization owner");
	if (!user_is_admin(req->user))
		return api_error(req, ERR_UNAUTHORIZED_PRINCIPAL, "Must be an organization administrator");
	int last = user_is_last_owner(&req->uow, target);
	if (last < 0)
		return -1;
	if (last)
		return api_error(req, ERR_BAD_REQUEST,
		                 "The owner permission cannot be removed from the only organization owner.");
	return user_change_role(&req->uow, target, (int)role);
}

/* A blank or unchanged name is ignored; administrators are not bound by name_changes_disabled. */
static int update_full_name(struct request *req, const struct user *target)
{
	const char *raw = param_str(req, "full_name");
	const char *name = arena_strip(&req->arena, raw);
	if (strcmp(raw, target->full_name) == 0 || name[0] == '\0')
		return 0;
	if (user_check_full_name(&req->uow, name) < 0)
		return -1;
	return strcmp(name, target->full_name) == 0 ? 0 : user_change_full_name(&req->uow, target, name);
}

static int update_email(struct request *req, const struct user *target, const char *email)
{
	if (strcmp(email, target->delivery_email) == 0)
		return 0;
	if (!user_email_is_valid(email))
		return api_error(req, ERR_BAD_REQUEST, "Invalid new email address.");
	struct user *holder = user_by_email(&req->uow, req->realm->id, email);
	if (holder != NULL)
		return api_error(req, ERR_BAD_REQUEST, "New email value error: %s",
		                 holder->is_active ? "Already has an account." : "Account has been deactivated.");
	if (req->error)
		return -1;
	return user_change_email(&req->uow, target, email);
}

/* The reference's update_user_backend on a target the requester may administer. */
static int update_user(struct request *req, const struct user *target)
{
	const char *new_email = param_present(req, "new_email") ? param_str(req, "new_email") : NULL;
	if (new_email != NULL && (!req->user->can_change_user_emails || !user_is_admin(req->user)))
		return api_error(req, ERR_BAD_REQUEST, "User not authorized to change user emails");
	if (param_present(req, "role") && update_role(req, target) < 0)
		return -1;
	if (param_present(req, "full_name") && update_full_name(req, target) < 0)
		return -1;
	json_object *profile = param_present(req, "profile_data") ? param_json(req, "profile_data") : NULL;
	if (profile != NULL && (profile_data_check(&req->uow, profile, req->user, true) < 0 ||
	                        profile_data_apply(&req->uow, target, profile, true) < 0))
		return -1;
	return new_email != NULL ? update_email(req, target, new_email) : 0;
}

/* The reference validates role with the parameters, before it looks the target up. */
static int check_role_param(struct request *req)
{
	if (param_present(req, "role") && !is_role(param_int(req, "role")))
		return api_error(req, ERR_BAD_REQUEST, "Invalid role: Value error, Not in the list of possible values");
	return 0;
}

/* PATCH /api/v1/users/{user_id} */
int users_update(struct request *req)
{
	if (check_role_param(req) < 0)
		return -1;
	struct user *target = user_by_id_or_error(&req->uow, req->realm->id, param_int(req, "user_id"));
	if (admin_access(req, target, true, true) < 0)
		return -1;
	return update_user(req, target);
}

/* PATCH /api/v1/users/{email} */
int users_update_by_email(struct request *req)
{
	if (check_role_param(req) < 0)
		return -1;
	const char *email = param_str(req, "email");
	int64_t id = user_placeholder_email_id(&req->uow, email);
	struct user *target = id ? user_by_id_or_error(&req->uow, req->realm->id, id)
	                         : user_by_email_or_error(&req->uow, req->realm->id, email);
	/* A real address only finds users whose visibility setting shows it to the requester. */
	if (target != NULL && id == 0 && !user_can_see_email(req->user, target))
		return api_error(req, ERR_BAD_REQUEST, "No such user");
	if (admin_access(req, target, true, true) < 0)
		return -1;
	return update_user(req, target);
}

/* DELETE /api/v1/users/{user_id} */
int users_deactivate(struct request *req)
{
	struct user *target = user_by_id_or_error(&req->uow, req->realm->id, param_int(req, "user_id"));
	if (admin_access(req, target, false, false) < 0)
		return -1;
	if (user_is_owner(target) && !user_is_owner(req->user))
		return api_error(req, ERR_UNAUTHORIZED_PRINCIPAL, "Must be an organization owner");
	int last = user_is_last_owner(&req->uow, target);
	if (last < 0)
		return -1;
	if (last)
		return api_error(req, ERR_BAD_REQUEST, "Cannot deactivate the only organization owner");
	return user_deactivate(&req->uow, target);
}

/* CANNOT_DEACTIVATE_LAST_USER, with the reference's entity and is_last_owner. */
static int last_user_error(struct request *req, bool is_last_owner)
{
	const char *entity = is_last_owner ? "organization owner" : "user";
	api_error(req, ERR_CANNOT_DEACTIVATE_LAST_USER, "Cannot deactivate the only %s.", entity);
	api_error_field(req, "entity", json_object_new_string(entity));
	api_error_field(req, "is_last_owner", json_object_new_boolean(is_last_owner));
	return -1;
}

/* DELETE /api/v1/users/me */
int users_deactivate_own(struct request *req)
{
	int64_t active = user_active_count(&req->uow, req->realm->id);
	if (active < 0)
		return -1;
	if (active == 1)
		return last_user_error(req, false);
	int last = user_is_last_owner(&req->uow, req->user);
	if (last < 0)
		return -1;
	if (last)
		return last_user_error(req, true);
	return user_deactivate(&req->uow, req->user);
}

/* POST /api/v1/users/{user_id}/reactivate */
int users_reactivate(struct request *req)
{
	struct user *target = user_by_id_or_error(&req->uow, req->realm->id, param_int(req, "user_id"));
	if (admin_access(req, target, true, true) < 0)
		return -1;
	return user_reactivate(&req->uow, target);
}
