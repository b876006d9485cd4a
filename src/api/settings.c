/*
 * The user's own settings: PATCH /settings. The settings themselves (names, types, values, effects) are the table
 * of model/user_settings.h; e-mail and password changes through this route are not implemented (their parameters
 * come back in ignored_parameters_unsupported), nor target_users (administrators changing others' settings).
 * Reference: Zulip zerver/views/user_settings.py json_change_settings.
 */
#include <json-c/json.h>

#include "api/api.h"
#include "http/params.h"
#include "http/request.h"
#include "model/user_settings.h"

/* The settings the request sends (a JSON null counts as not sent), in the table's order; their number in *n. */
static struct user_setting_value *requested(struct request *req, int *n)
{
	int count = user_settings_count();
	struct user_setting_value *vals = arena_alloc(&req->arena, (size_t)count * sizeof(*vals));
	*n = 0;
	for (int i = 0; i < count; i++) {
		const char *name = user_settings_name(i);
		if (!param_present(req, name))
			continue;
		struct user_setting_value *v = &vals[(*n)++];
		*v = (struct user_setting_value){.index = i};
		enum user_setting_kind k = user_settings_kind(i);
		if (k == US_BOOL)
			v->b = param_bool(req, name);
		else if (k == US_INT_IN || k == US_INT_RANGE || k == US_BATCHING)
			v->i = param_int(req, name);
		else
			v->s = param_str(req, name);
	}
	return vals;
}

/* PATCH /api/v1/settings */
int settings_update(struct request *req)
{
	int n;
	struct user_setting_value *vals = requested(req, &n);
	for (int i = 0; i < n; i++)
		if (user_settings_check(&req->uow, &vals[i]) < 0)
			return -1;
	if (user_settings_check_values(&req->uow, vals, n) < 0)
		return -1;
	if (param_present(req, "full_name") &&
	    user_settings_change_full_name(&req->uow, param_str(req, "full_name")) < 0)
		return -1;
	return user_settings_apply(&req->uow, vals, n);
}
