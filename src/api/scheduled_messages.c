/* Scheduled messages: messages to be sent later by confab-reaper (zerver/views/scheduled_messages.py). */
#include <json-c/json.h>
#include <string.h>
#include <time.h>

#include "api/api.h"
#include "api/shapes.h"
#include "http/params.h"
#include "http/request.h"
#include "model/messages.h"
#include "model/scheduled_messages.h"

/* The latest second PostgreSQL's timestamps hold comfortably (9999-12-31T23:59:59Z). */
#define MAX_TIMESTAMP 253402300799LL

/* Message.API_RECIPIENT_TYPES, "channel" read as "stream" and "direct" as "private"; 1 channel, 0 direct, -1. */
static int channel_type(const char *type)
{
	if (strcmp(type, "stream") == 0 || strcmp(type, "channel") == 0)
		return 1;
	return strcmp(type, "private") == 0 || strcmp(type, "direct") == 0 ? 0 : -1;
}

/* A delivery time must be in the future (DeliveryTimeNotInFutureError). */
static int check_time(struct request *req, int64_t ts)
{
	if (ts > MAX_TIMESTAMP)
		return api_error(req, ERR_BAD_REQUEST, "scheduled_delivery_timestamp is too large");
	if (ts <= (int64_t)time(NULL))
		return api_error(req, ERR_BAD_REQUEST, "Scheduled delivery time must be in the future.");
	return 0;
}

/* GET /api/v1/scheduled_messages */
int scheduled_messages_list(struct request *req)
{
	json_object *list = scheduled_messages_json(&req->uow);
	if (list == NULL)
		return -1;
	json_object_object_add(request_result(req), "scheduled_messages", json_object_get(list));
	return 0;
}

/* POST /api/v1/scheduled_messages */
int scheduled_messages_create(struct request *req)
{
	struct scheduled_target t = {.to = param_json(req, "to")};
	/* The reference validates to before type (the order of its parameters). */
	if (shape_scheduled_to(req, t.to) < 0)
		return -1;
	int kind = channel_type(param_str(req, "type"));
	if (kind < 0)
		return api_error(req, ERR_BAD_REQUEST, "Invalid type");
	if (check_time(req, param_int(req, "scheduled_delivery_timestamp")) < 0)
		return -1;
	t.to_channel = kind == 1;
	t.topic = param_str_len(req, "topic", &t.topic_len);
	t.content = param_str_len(req, "content", &t.content_len);
	struct message_draft d;
	const char *rendered;
	if (scheduled_message_check(&req->uow, &t, &d, &rendered) < 0)
		return -1;
	d.read_by_sender = param_bool(req, "read_by_sender");
	int64_t id = scheduled_message_create(&req->uow, &d, rendered, param_int(req, "scheduled_delivery_timestamp"));
	if (id == 0)
		return -1;
	json_object_object_add(request_result(req), "scheduled_message_id", json_object_new_int64(id));
	return 0;
}

/* The view's checks before the message is looked up. */
static int check_edit_params(struct request *req, int *kind)
{
	const char *names[] = {"type", "to", "topic", "content", "scheduled_delivery_timestamp"};
	bool any = false;
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		any = any || param_present(req, names[i]);
	if (!any)
		return api_error(req, ERR_BAD_REQUEST, "Nothing to change");
	*kind = param_present(req, "type") ? channel_type(param_str(req, "type")) : -1;
	if (param_present(req, "type") && *kind < 0)
		return api_error(req, ERR_BAD_REQUEST, "Invalid type");
	if (param_present(req, "to") && shape_scheduled_to(req, param_json(req, "to")) < 0)
		return -1;
	if (*kind >= 0 && !param_present(req, "to"))
		return api_error(req, ERR_BAD_REQUEST, "Recipient required when updating type of scheduled message.");
	if (*kind == 1 && !param_present(req, "topic"))
		return api_error(req, ERR_BAD_REQUEST,
		                 "Topic required when updating scheduled message type to channel.");
	if (param_present(req, "scheduled_delivery_timestamp"))
		return check_time(req, param_int(req, "scheduled_delivery_timestamp"));
	return 0;
}

/* The recipient and content as changed (the rest as they are), checked again as check_message does. */
static int check_changed(struct request *req, const struct scheduled_message *m, int kind, struct scheduled_change *c,
                         struct message_draft *d)
{
	struct scheduled_target t = {.to_channel = kind >= 0 ? kind == 1 : m->channel_id != 0,
	                             .to = param_present(req, "to") ? param_json(req, "to") : m->to,
	                             .topic = m->topic,
	                             .content = m->content};
	t.topic_len = strlen(t.topic);
	t.content_len = strlen(t.content);
	if (param_present(req, "topic"))
		t.topic = param_str_len(req, "topic", &t.topic_len);
	if (param_present(req, "content"))
		t.content = param_str_len(req, "content", &t.content_len);
	if (scheduled_message_check(&req->uow, &t, d, &c->rendered) < 0)
		return -1;
	c->draft = d;
	c->set_recipient = kind >= 0 || param_present(req, "to");
	c->set_content = param_present(req, "content");
	if (!c->set_recipient && t.to_channel && param_present(req, "topic"))
		c->topic = d->topic;
	return 0;
}

/* A new topic alone: ignored for a direct message (check_stream_topic and truncate_topic otherwise). */
static int change_topic(struct request *req, const struct scheduled_message *m, struct scheduled_change *c)
{
	if (m->channel_id == 0)
		return 0;
	size_t len;
	const char *raw = param_str_len(req, "topic", &len);
	const char *topic = message_clean_topic(&req->uow, raw, len);
	if (topic == NULL)
		return -1;
	c->topic = message_truncate_topic(&req->uow, topic);
	return 0;
}

/* PATCH /api/v1/scheduled_messages/{scheduled_message_id} */
int scheduled_messages_update(struct request *req)
{
	int kind = -1;
	if (check_edit_params(req, &kind) < 0)
		return -1;
	struct scheduled_message *m =
	    scheduled_message_find_or_error(&req->uow, param_int(req, "scheduled_message_id"));
	if (m == NULL)
		return -1;
	if (m->delivered)
		return api_error(req, ERR_BAD_REQUEST, "Scheduled message was already sent");
	if (m->failed && !param_present(req, "scheduled_delivery_timestamp"))
		return api_error(req, ERR_BAD_REQUEST, "Scheduled delivery time must be in the future.");
	struct scheduled_change c = {0};
	struct message_draft d;
	if (kind >= 0 || param_present(req, "to") || param_present(req, "content")) {
		if (check_changed(req, m, kind, &c, &d) < 0)
			return -1;
	} else if (param_present(req, "topic") && change_topic(req, m, &c) < 0) {
		return -1;
	}
	if (param_present(req, "scheduled_delivery_timestamp"))
		c.deliver_at = param_int(req, "scheduled_delivery_timestamp");
	return scheduled_message_update(&req->uow, m, &c);
}

/* DELETE /api/v1/scheduled_messages/{scheduled_message_id} */
int scheduled_messages_delete(struct request *req)
{
	struct scheduled_message *m =
	    scheduled_message_find_or_error(&req->uow, param_int(req, "scheduled_message_id"));
	if (m == NULL)
		return -1;
	return scheduled_message_delete(&req->uow, m->id);
}
