/* Users: the current user, the member list, one user by id or e-mail, and account creation. */
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
#include "model/realm.h"
#include "model/user.h"

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
	json_object *profile = user_profile_data(&req->uow, req->user->id, &max_id);
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
