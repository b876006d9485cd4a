/*
 * Topic preferences: POST /user_topics and the deprecated PATCH /users/me/subscriptions/muted_topics. Reference:
 * zerver/views/user_topics.py (update_user_topic, update_muted_topic), zerver/lib/streams.py (access_stream_by_id,
 * access_stream_to_remove_visibility_policy_by_id, check_for_exactly_one_stream_arg).
 */
#include <json-c/json.h>
#include <string.h>

#include "api/api.h"
#include "http/params.h"
#include "http/request.h"
#include "model/channels.h"
#include "model/realm.h"
#include "model/user_topics.h"

/* The empty topic's display name names the empty topic (maybe_rename_general_chat_to_empty_topic). */
static const char *topic_param(struct request *req)
{
	const char *topic = param_str(req, "topic");
	return strcmp(topic, REALM_EMPTY_TOPIC_DISPLAY_NAME) == 0 ? "" : topic;
}

/* access_stream_to_remove_visibility_policy_*: any channel of the organization, accessible or not, else error. */
static struct channel *channel_to_reset(struct request *req, struct channel *c, const char *error)
{
	if (c == NULL && req->uow.error == ERR_NONE)
		api_error(req, ERR_BAD_REQUEST, "%s", error);
	return c;
}

/* POST /api/v1/user_topics */
int user_topics_update(struct request *req)
{
	int64_t policy = param_int(req, "visibility_policy");
	if (policy < TOPIC_INHERIT || policy > TOPIC_FOLLOWED)
		return api_error(req, ERR_BAD_REQUEST, "Invalid visibility_policy");
	int64_t id = param_int(req, "stream_id");
	struct channel *c = policy == TOPIC_INHERIT
	                        ? channel_to_reset(req, channel_by_id(&req->uow, id), "Invalid channel ID")
	                        : channel_access_by_id(&req->uow, id, true);
	if (c == NULL)
		return -1;
	return user_topics_set(&req->uow, &req->user->id, 1, c, topic_param(req), (int)policy, false);
}

/* check_for_exactly_one_stream_arg. */
static int check_one_channel_arg(struct request *req)
{
	bool by_id = param_present(req, "stream_id"), by_name = param_present(req, "stream");
	if (!by_id && !by_name)
		return api_error(req, ERR_BAD_REQUEST, "Please supply 'stream'.");
	if (by_id && by_name) {
		api_error_field(req, "parameters", json_object_new_string("stream_id, stream"));
		return api_error(req, ERR_BAD_REQUEST, "Unsupported parameter combination: stream_id, stream");
	}
	return 0;
}

/* PATCH /api/v1/users/me/subscriptions/muted_topics */
int user_topics_mute_legacy(struct request *req)
{
	const char *op = param_str(req, "op");
	if (strcmp(op, "add") != 0 && strcmp(op, "remove") != 0)
		return api_error(req, ERR_BAD_REQUEST, "Invalid op");
	if (check_one_channel_arg(req) < 0)
		return -1;
	bool by_id = param_present(req, "stream_id"), add = strcmp(op, "add") == 0;
	struct channel *c;
	if (add)
		c = by_id ? channel_access_by_id(&req->uow, param_int(req, "stream_id"), true)
		          : channel_access_by_name(&req->uow, param_str(req, "stream"));
	else
		c = channel_to_reset(req,
		                     by_id ? channel_by_id(&req->uow, param_int(req, "stream_id"))
		                           : channel_by_name(&req->uow, param_str(req, "stream")),
		                     "Topic is not muted");
	if (c == NULL)
		return -1;
	return user_topics_set(&req->uow, &req->user->id, 1, c, param_str(req, "topic"),
	                       add ? TOPIC_MUTED : TOPIC_INHERIT, false);
}
