/*
 * User statuses: POST /users/me/status, POST /users/{user_id}/status (administrators and bot owners) and GET
 * /users/{user_id}/status. Both POST routes refuse bots as callers (R_HUMAN). Reference: zerver/views/presence.py
 * (update_user_status_backend, update_user_status_admin, get_status_backend) and zerver/lib/users.py
 * (access_user_by_id).
 */
#include <json-c/json.h>
#include <stdbool.h>

#include "api/api.h"
#include "http/params.h"
#include "http/request.h"
#include "model/realm.h"
#include "model/user.h"
#include "model/user_status.h"

/* The change as sent (away only where the route declares it). */
static struct user_status_change change_from_params(struct request *req, bool with_away)
{
	struct user_status_change c = {
	    .away = -1,
	    .status_text = param_str(req, "status_text"),
	    .emoji_name = param_str(req, "emoji_name"),
	    .emoji_code = param_str(req, "emoji_code"),
	    .reaction_type = param_str(req, "reaction_type"),
	};
	if (with_away && param_present(req, "away"))
		c.away = param_bool(req, "away");
	return c;
}

/*
 * The reference's access_user_by_id: "No such user" for another organization's or an unknown id, "User is
 * deactivated"; then, for administration, can_admin_user (an administrator, or the bot's owner), else reading
 * access (guests limited by can_access_all_users_group). Bots are allowed targets (statuses for bots, FL 473).
 */
static struct user *access_user(struct request *req, int64_t id, bool for_admin)
{
	struct user *target = user_by_id_or_error(&req->uow, req->realm->id, id);
	if (target == NULL)
		return NULL;
	if (!target->is_active) {
		api_error(req, ERR_BAD_REQUEST, "User is deactivated");
		return NULL;
	}
	bool allowed = for_admin ? user_is_admin(req->user) || (target->is_bot && target->bot_owner_id == req->user->id)
	                         : req->realm->everyone_can_access_all_users || !user_is_guest(req->user) ||
	                               target->is_bot || target->id == req->user->id;
	if (!allowed) {
		api_error(req, ERR_BAD_REQUEST, "Insufficient permission");
		return NULL;
	}
	return target;
}

/* POST /api/v1/users/me/status */
int user_status_update_own(struct request *req)
{
	if (user_status_text_too_long(&req->uow, param_str(req, "status_text")))
		return -1;
	struct user_status_change c = change_from_params(req, true);
	if (user_status_check(&req->uow, &c) < 0)
		return -1;
	return user_status_apply(&req->uow, req->user, &c);
}

/* POST /api/v1/users/{user_id}/status */
int user_status_update_for_user(struct request *req)
{
	if (user_status_text_too_long(&req->uow, param_str(req, "status_text")))
		return -1;
	struct user *target = access_user(req, param_int(req, "user_id"), true);
	if (target == NULL)
		return -1;
	struct user_status_change c = change_from_params(req, false);
	if (user_status_check(&req->uow, &c) < 0)
		return -1;
	return user_status_apply(&req->uow, target, &c);
}

/* GET /api/v1/users/{user_id}/status */
int user_status_get(struct request *req)
{
	struct user *target = access_user(req, param_int(req, "user_id"), false);
	if (target == NULL)
		return -1;
	json_object *status = user_status_of(&req->uow, target->id);
	if (status == NULL)
		return -1;
	json_object_object_add(request_result(req), "status", json_object_get(status));
	return 0;
}
