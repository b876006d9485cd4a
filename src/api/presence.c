/*
 * Presence: POST /users/me/presence (the ping every client sends each minute, with the other users' presence),
 * GET /realm/presence and GET /users/{user_id_or_email}/presence. The data and its rules are in
 * src/model/presence.h. Reference: zerver/views/presence.py (update_active_status_backend, get_statuses_for_realm,
 * get_presence_backend).
 */
#include <json-c/json.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "api/api.h"
#include "http/params.h"
#include "http/request.h"
#include "model/presence.h"
#include "model/realm.h"
#include "model/user.h"

/* The realm-wide answer's keys: presences, server_timestamp and (unless without_id) presence_last_update_id. */
static int reply(struct request *req, const struct timespec now, json_object *presences, int64_t last_update_id,
                 bool without_id)
{
	json_object *out = request_result(req);
	json_object_object_add(out, "presences", json_object_get(presences));
	json_object_object_add(out, "server_timestamp",
	                       json_object_new_double((double)now.tv_sec + (double)now.tv_nsec / 1e9));
	if (!without_id)
		json_object_object_add(out, "presence_last_update_id", json_object_new_int64(last_update_id));
	return 0;
}

/* POST /api/v1/users/me/presence */
int presence_update(struct request *req)
{
	struct presence_query q = {
	    .slim = param_bool(req, "slim_presence"),
	    .has_last_update_id = param_present(req, "last_update_id"),
	    .last_update_id = param_int(req, "last_update_id"),
	    .has_history_days = param_present(req, "history_limit_days"),
	    .history_days = param_int(req, "history_limit_days"),
	};
	/* Passing last_update_id asks for the modern API. */
	q.slim = q.slim || q.has_last_update_id;
	const char *status = param_str(req, "status");
	if (strcmp(status, "active") != 0 && strcmp(status, "idle") != 0)
		return api_error(req, ERR_BAD_REQUEST, "Invalid status: %s", status);
	bool ping_only = param_bool(req, "ping_only");
	struct timespec now;
	clock_gettime(CLOCK_REALTIME, &now);
	json_object *presences;
	int64_t last_update_id;
	if (presence_ping(&req->uow, req->user, strcmp(status, "active") == 0, (int64_t)time(NULL),
	                  ping_only ? NULL : &q, &presences, &last_update_id) < 0)
		return -1;
	return ping_only ? 0 : reply(req, now, presences, last_update_id, false);
}

/* GET /api/v1/realm/presence */
int presence_realm_get(struct request *req)
{
	/* The legacy form, without the id of incremental fetches (the reference's get_statuses_for_realm). */
	struct presence_query q = {.slim = false};
	struct timespec now;
	clock_gettime(CLOCK_REALTIME, &now);
	int64_t last_update_id;
	json_object *presences = presence_realm(&req->uow, &q, &last_update_id);
	return presences == NULL ? -1 : reply(req, now, presences, last_update_id, true);
}

/* The reference's lookup: an integer is a user id, anything else the API e-mail address; active users only. */
static struct user *target_of(struct request *req, const char *key)
{
	char *end;
	long long id = strtoll(key, &end, 10);
	bool by_id = *key != '\0' && *end == '\0';
	if (!by_id && (id = user_placeholder_email_id(&req->uow, key)) != 0)
		by_id = true;
	struct user *target =
	    by_id ? user_by_id(&req->uow, req->realm->id, id) : user_by_email(&req->uow, req->realm->id, key);
	/* A real address names only users whose API e-mail it is (visible to everyone, or a bot). */
	if (target != NULL && !by_id && target->email_address_visibility != 1 && !target->is_bot)
		target = NULL;
	if (target == NULL || !target->is_active) {
		api_error(req, ERR_BAD_REQUEST, "No such user");
		return NULL;
	}
	return target;
}

/* GET /api/v1/users/{user_id_or_email}/presence */
int presence_user_get(struct request *req)
{
	const char *key = param_str(req, "user_id_or_email");
	struct user *target = target_of(req, key);
	if (target == NULL)
		return -1;
	if (target->is_bot)
		return api_error(req, ERR_BAD_REQUEST, "Presence is not supported for bot users.");
	if (!req->realm->everyone_can_access_all_users && user_is_guest(req->user) && target->id != req->user->id)
		return api_error(req, ERR_BAD_REQUEST, "Insufficient permission");
	json_object *presence = presence_of_user(&req->uow, target, param_bool(req, "slim_presence"), time(NULL));
	if (presence == NULL)
		return req->uow.error ? -1 : api_error(req, ERR_BAD_REQUEST, "No presence data for %s", key);
	json_object_object_add(request_result(req), "presence", json_object_get(presence));
	return 0;
}
