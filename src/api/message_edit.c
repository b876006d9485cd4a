/* Editing a message: its content, its topic or its channel (src/model/message_edit.c does the work). */
#include <json-c/json.h>
#include <string.h>

#include "api/api.h"
#include "http/params.h"
#include "http/request.h"
#include "model/message_edit.h"
#include "model/messages.h"

/* propagate_mode, one of the reference's three values. */
static int read_propagate_mode(struct request *req, enum propagate_mode *mode)
{
	const char *s = param_str(req, "propagate_mode");
	if (strcmp(s, "change_one") == 0)
		*mode = PROPAGATE_ONE;
	else if (strcmp(s, "change_later") == 0)
		*mode = PROPAGATE_LATER;
	else if (strcmp(s, "change_all") == 0)
		*mode = PROPAGATE_ALL;
	else
		return api_error(req, ERR_BAD_REQUEST, "Invalid propagate_mode");
	return 0;
}

/* topic, or its deprecated alias subject (not both), stripped; "general chat" is the empty topic. */
static int read_topic(struct request *req, struct message_edit_input *in)
{
	size_t len = 0, sublen = 0;
	const char *raw = param_str_len(req, "topic", &len), *subject = param_str_len(req, "subject", &sublen);
	if (raw != NULL && subject != NULL) {
		api_error(req, ERR_REQUEST_CONFUSING_VAR, "Can't decide between 'topic' and 'subject' arguments");
		api_error_field(req, "var_name1", json_object_new_string("topic"));
		api_error_field(req, "var_name2", json_object_new_string("subject"));
		return -1;
	}
	if (raw == NULL && (raw = subject) != NULL)
		len = sublen;
	if (raw != NULL)
		in->topic = message_edit_topic(&req->uow, raw, len, &in->topic_bad_position);
	return 0;
}

/* PATCH /api/v1/messages/{message_id} */
int messages_update(struct request *req)
{
	struct message_edit_input in = {
	    .prev_content_sha256 = param_str(req, "prev_content_sha256"),
	    .has_stream_id = param_present(req, "stream_id"),
	    .stream_id = param_present(req, "stream_id") ? param_int(req, "stream_id") : 0,
	    .notify_old_thread = param_bool(req, "send_notification_to_old_thread"),
	    .notify_new_thread = param_bool(req, "send_notification_to_new_thread"),
	};
	in.content = param_str_len(req, "content", &in.content_len);
	if (in.has_stream_id && in.stream_id < 0)
		return api_error(req, ERR_BAD_REQUEST, "stream_id is too small");
	if (read_topic(req, &in) < 0 || read_propagate_mode(req, &in.mode) < 0)
		return -1;
	struct message_ref *m = message_access_or_error(&req->uow, param_int(req, "message_id"), true);
	if (m == NULL)
		return -1;
	struct message_edit *e = message_edit_check(&req->uow, m, &in);
	json_object *detached = e ? message_edit_apply(&req->uow, e) : NULL;
	if (detached == NULL)
		return -1;
	json_object_object_add(request_result(req), "detached_uploads", json_object_get(detached));
	return 0;
}
