/* Channels: listing, one channel, its subscribers, and its topics. */
#include <json-c/json.h>
#include <string.h>

#include "api/api.h"
#include "db/db.h"
#include "http/params.h"
#include "http/request.h"
#include "model/channel_archive.h"
#include "model/channels.h"
#include "model/permissions.h"
#include "model/realm.h"
#include "model/user.h"

static struct db_stmt st_all = DB_STMT(CHANNEL_SELECT "ORDER BY c.name COLLATE \"C\"");

/* Whether the GET /streams parameters select channel c for the requesting user. */
static bool selected(struct request *req, const struct channel *c, bool include_all)
{
	bool guest = user_is_guest(req->user);
	if (c->is_archived && param_bool(req, "exclude_archived"))
		return false;
	return (param_bool(req, "include_subscribed") && c->is_subscribed) ||
	       (param_bool(req, "include_public") && !guest && !c->invite_only) ||
	       (param_bool(req, "include_web_public") && c->is_web_public && !c->invite_only) ||
	       (include_all && c->metadata_access) || (param_bool(req, "include_default") && c->is_default) ||
	       (param_bool(req, "include_can_access_content") && c->content_access);
}

/* GET /api/v1/streams */
int channels_list(struct request *req)
{
	bool include_all = param_bool(req, "include_all") || param_bool(req, "include_all_active");
	if (param_bool(req, "include_all_active") && !user_is_admin(req->user))
		return api_error(req, ERR_BAD_REQUEST, "User not authorized for this query");
	struct db_res *res =
	    DB_EXEC(&req->uow, &st_all, db_arg_int(&req->uow, req->realm->id), db_arg_int(&req->uow, req->user->id));
	if (res == NULL)
		return -1;
	json_object *streams = json_object_new_array();
	json_object_object_add(request_result(req), "streams", streams);
	for (int i = 0; i < db_rows(res); i++) {
		struct channel *c = channel_from_row(&req->uow, res, i, 0);
		if (!selected(req, c, include_all))
			continue;
		json_object *o = channel_to_json(&req->uow, c);
		json_object_object_add(o, "is_default", json_object_new_boolean(c->is_default));
		json_object_array_add(streams, o);
	}
	return 0;
}

/* GET /api/v1/streams/{stream_id} */
int channels_get(struct request *req)
{
	struct channel *c = channel_access_by_id(&req->uow, param_int(req, "stream_id"), false);
	if (c == NULL)
		return -1;
	json_object_object_add(request_result(req), "stream", channel_to_json(&req->uow, c));
	return 0;
}

/* GET /api/v1/get_stream_id?stream=NAME */
int channels_get_id(struct request *req)
{
	struct channel *c = channel_access_by_name(&req->uow, param_str(req, "stream"));
	if (c == NULL)
		return -1;
	json_object_object_add(request_result(req), "stream_id", json_object_new_int64(c->id));
	return 0;
}

/* GET /api/v1/streams/{stream_id}/members */
int channels_members(struct request *req)
{
	struct channel *c = channel_access_by_id(&req->uow, param_int(req, "stream_id"), false);
	if (c == NULL)
		return -1;
	if (!perm_channel_see_subscribers(&req->uow, c))
		return api_error(req, ERR_BAD_REQUEST, "Unable to retrieve subscribers for private channel");
	json_object *ids = channel_subscriber_ids(&req->uow, c->id);
	if (ids == NULL)
		return -1;
	json_object_object_add(request_result(req), "subscribers", ids);
	return 0;
}

/* Topics by latest message; each named as in its latest message. With protected history, only the messages the
 * user received count. */
static struct db_stmt st_topics =
    DB_STMT("SELECT (array_agg(m.topic ORDER BY m.id DESC))[1], max(m.id) FROM messages m"
            " WHERE m.channel_id = $1 AND ($3 OR m.id IN (SELECT um.message_id FROM user_messages um"
            "                                               WHERE um.user_id = $2))"
            " GROUP BY lower(m.topic) ORDER BY 2 DESC");

/* GET /api/v1/users/me/{stream_id}/topics */
int channels_topics(struct request *req)
{
	struct channel *c = channel_access_by_id(&req->uow, param_int(req, "stream_id"), true);
	if (c == NULL)
		return -1;
	struct db_res *res =
	    DB_EXEC(&req->uow, &st_topics, db_arg_int(&req->uow, c->id), db_arg_int(&req->uow, req->user->id),
	            c->history_public_to_subscribers ? "true" : "false");
	if (res == NULL)
		return -1;
	bool empty_ok = param_bool(req, "allow_empty_topic_name");
	json_object *topics = json_object_new_array();
	json_object_object_add(request_result(req), "topics", topics);
	for (int i = 0; i < db_rows(res); i++) {
		const char *name = db_val(res, i, 0);
		json_object *t = json_object_new_object();
		json_object_object_add(
		    t, "name", json_object_new_string(*name || empty_ok ? name : REALM_EMPTY_TOPIC_DISPLAY_NAME));
		json_object_object_add(t, "max_id", json_object_new_int64(db_int(res, i, 1)));
		json_object_array_add(topics, t);
	}
	return 0;
}

/* DELETE /api/v1/streams/{stream_id} */
int channels_archive(struct request *req)
{
	struct channel *c = channel_admin_access_by_id(&req->uow, param_int(req, "stream_id"));
	if (c == NULL)
		return -1;
	return channel_archive(&req->uow, c);
}
