/* The user's uploads as files to manage: the list with the organization's upload_space_used, and deletion. */
#include <json-c/json.h>

#include "api/api.h"
#include "http/params.h"
#include "http/request.h"
#include "model/attachment_space.h"
#include "model/realm.h"

/* GET /api/v1/attachments */
int attachments_list(struct request *req)
{
	json_object *list = attachment_space_list(&req->uow);
	if (list == NULL)
		return -1;
	int64_t used = attachment_space_used(&req->uow, req->realm->id);
	if (used < 0) {
		json_object_put(list);
		return -1;
	}
	json_object *out = request_result(req);
	json_object_object_add(out, "attachments", list);
	json_object_object_add(out, "upload_space_used", json_object_new_int64(used));
	return 0;
}

/* DELETE /api/v1/attachments/{attachment_id} */
int attachments_delete(struct request *req)
{
	return attachment_space_delete(&req->uow, param_int(req, "attachment_id"));
}
