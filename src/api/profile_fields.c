/* Custom profile fields: the organization's fields (/realm/profile_fields) and a user's own values. */
#include <json-c/json.h>

#include "api/api.h"
#include "http/params.h"
#include "http/request.h"
#include "model/profile_fields.h"
#include "model/realm.h"
#include "model/user.h"

/* GET /api/v1/realm/profile_fields */
int profile_fields_list(struct request *req)
{
	json_object *fields = profile_fields_json(&req->uow, req->realm->id);
	if (fields == NULL)
		return -1;
	json_object_object_add(request_result(req), "custom_fields", fields);
	return 0;
}

/* POST /api/v1/realm/profile_fields */
int profile_fields_create(struct request *req)
{
	struct profile_field_new spec = {
	    .name = arena_strip(&req->arena, param_str(req, "name")),
	    .hint = param_str(req, "hint"),
	    .type = (int)param_int(req, "field_type"),
	    .field_data = param_present(req, "field_data") ? param_json(req, "field_data") : NULL,
	    .display_in_profile_summary = param_bool(req, "display_in_profile_summary"),
	    .required = param_bool(req, "required"),
	    .editable_by_user = param_bool(req, "editable_by_user"),
	};
	int64_t id = profile_field_create(&req->uow, &spec);
	if (id == 0)
		return -1;
	json_object_object_add(request_result(req), "id", json_object_new_int64(id));
	return 0;
}

/* PATCH /api/v1/users/me/profile_data */
int profile_data_update(struct request *req)
{
	json_object *data = param_json(req, "data");
	if (profile_data_check(&req->uow, data, req->user, false) < 0)
		return -1;
	return profile_data_apply(&req->uow, req->user, data, false);
}
