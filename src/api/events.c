/* The event queue: fetching events (long-polling) and deleting a queue. Registering is in register.c. */
#include <json-c/json.h>

#include "api/api.h"
#include "core/config.h"
#include "events/events.h"
#include "http/params.h"
#include "http/request.h"

#define DEFAULT_QUEUE_TIMEOUT_SECS 600

/* GET /api/v1/events */
int events_get(struct request *req)
{
	bool dont_block = param_bool(req, "dont_block");
	const char *queue_id = param_str(req, "queue_id");
	/* The reference's own checks (fetch_events), not its validator's: plain BAD_REQUEST, no var_name. */
	if (queue_id == NULL && !dont_block)
		return api_error(req, ERR_BAD_REQUEST, "Missing 'queue_id' argument");
	if (queue_id == NULL) {
		/* The legacy form: a non-blocking call without a queue makes one. */
		struct queue_spec spec = {.apply_markdown = true, .timeout_secs = DEFAULT_QUEUE_TIMEOUT_SECS};
		if ((queue_id = events_queue_create(&req->uow, &spec)) == NULL)
			return -1;
		json_object_object_add(request_result(req), "events", json_object_new_array());
		json_object_object_add(request_result(req), "queue_id", json_object_new_string(queue_id));
		return 0;
	}
	if (!param_present(req, "last_event_id"))
		return api_error(req, ERR_BAD_REQUEST, "Missing 'last_event_id' argument");
	/* A process holding no long-polls (the api group, given the dont_block polls by nginx) answers at once. */
	bool answer_now = dont_block || !req->uow.worker->cfg->long_polls;
	json_object *events = events_fetch(&req->uow, queue_id, param_int(req, "last_event_id"), answer_now);
	if (events == NULL)
		return -1;
	json_object_object_add(request_result(req), "events", events);
	json_object_object_add(request_result(req), "queue_id", json_object_new_string(queue_id));
	return 0;
}

/* DELETE /api/v1/events */
int events_delete(struct request *req)
{
	return events_queue_delete(&req->uow, param_str(req, "queue_id"));
}
