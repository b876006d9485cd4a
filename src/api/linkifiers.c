/*
 * Linkifiers: the organization's patterns that turn matching text of messages and topics into links. Everyone
 * may list them; administrators change them. Reference: zerver/views/realm_linkifiers.py.
 */
#include <json-c/json.h>

#include "api/api.h"
#include "http/params.h"
#include "http/request.h"
#include "model/linkifiers.h"

/* GET /api/v1/realm/linkifiers */
int linkifiers_list(struct request *req)
{
	json_object *list = linkifiers_json(&req->uow);
	if (list == NULL)
		return -1;
	json_object_object_add(request_result(req), "linkifiers", list);
	return 0;
}

/* An optional string where "" means none. */
static const char *optional_str(struct request *req, const char *name)
{
	const char *s = param_present(req, name) ? param_str(req, name) : NULL;
	return s != NULL && *s != '\0' ? s : NULL;
}

static struct linkifier_input input(struct request *req)
{
	return (struct linkifier_input){
	    .pattern = param_str(req, "pattern"),
	    .url_template = param_str(req, "url_template"),
	    .example_input = optional_str(req, "example_input"),
	    .reverse_template = optional_str(req, "reverse_template"),
	    .alternative_url_templates =
	        param_present(req, "alternative_url_templates") ? param_json(req, "alternative_url_templates") : NULL,
	};
}

/* POST /api/v1/realm/filters */
int linkifiers_create(struct request *req)
{
	struct linkifier_input in = input(req);
	int64_t id = linkifiers_save(&req->uow, 0, &in);
	if (id < 0)
		return -1;
	json_object_object_add(request_result(req), "id", json_object_new_int64(id));
	return 0;
}

/* PATCH /api/v1/realm/filters/{filter_id} */
int linkifiers_update(struct request *req)
{
	struct linkifier_input in = input(req);
	return linkifiers_save(&req->uow, param_int(req, "filter_id"), &in) < 0 ? -1 : 0;
}

/* DELETE /api/v1/realm/filters/{filter_id} */
int linkifiers_delete(struct request *req)
{
	return linkifiers_remove(&req->uow, param_int(req, "filter_id"));
}

/* PATCH /api/v1/realm/linkifiers */
int linkifiers_order(struct request *req)
{
	return linkifiers_reorder(&req->uow, param_json(req, "ordered_linkifier_ids"));
}
