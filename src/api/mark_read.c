/*
 * The deprecated bulk read markers: POST /mark_all_as_read, /mark_stream_as_read and /mark_topic_as_read.
 * Reference: zerver/views/message_flags.py (mark_all_as_read, mark_stream_as_read, mark_topic_as_read).
 */
#include <json-c/json.h>
#include <string.h>

#include "api/api.h"
#include "http/params.h"
#include "http/request.h"
#include "model/channels.h"
#include "model/message_read.h"
#include "model/realm.h"

/* POST /api/v1/mark_all_as_read */
int mark_all_as_read(struct request *req)
{
	bool complete;
	if (message_read_all(&req->uow, &complete) < 0)
		return -1;
	json_object_object_add(request_result(req), "complete", json_object_new_boolean(complete));
	return 0;
}

/* POST /api/v1/mark_stream_as_read */
int mark_stream_as_read(struct request *req)
{
	struct channel *c = channel_access_by_id(&req->uow, param_int(req, "stream_id"), true);
	if (c == NULL)
		return -1;
	return message_read_channel(&req->uow, c->id, NULL);
}

/* POST /api/v1/mark_topic_as_read */
int mark_topic_as_read(struct request *req)
{
	struct channel *c = channel_access_by_id(&req->uow, param_int(req, "stream_id"), true);
	if (c == NULL)
		return -1;
	const char *topic = param_str(req, "topic_name");
	if (*topic != '\0') {
		/* maybe_rename_general_chat_to_empty_topic */
		if (strcmp(topic, REALM_EMPTY_TOPIC_DISPLAY_NAME) == 0)
			topic = "";
		if (!message_read_topic_exists(&req->uow, c->id, topic))
			return req->uow.error != ERR_NONE
			           ? -1
			           : api_error(req, ERR_BAD_REQUEST, "No such topic '%s'", topic);
	}
	return message_read_channel(&req->uow, c->id, topic);
}
