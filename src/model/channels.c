/* Channels with the requesting user's access, and the Channel object; see channels.h. */
#include "model/channels.h"

#include <string.h>

#include "core/jsonx.h"
#include "db/db.h"
#include "http/request.h"
#include "model/markdown.h"
#include "model/realm.h"
#include "model/user.h"

const char *const channel_setting_names[CS_COUNT] = {
    [CS_ADD_SUBSCRIBERS] = "can_add_subscribers_group",
    [CS_ADMINISTER] = "can_administer_channel_group",
    [CS_CREATE_TOPIC] = "can_create_topic_group",
    [CS_DELETE_ANY] = "can_delete_any_message_group",
    [CS_DELETE_OWN] = "can_delete_own_message_group",
    [CS_MOVE_OUT] = "can_move_messages_out_of_channel_group",
    [CS_MOVE_WITHIN] = "can_move_messages_within_channel_group",
    [CS_REMOVE_SUBSCRIBERS] = "can_remove_subscribers_group",
    [CS_RESOLVE_TOPICS] = "can_resolve_topics_group",
    [CS_SEND_MESSAGE] = "can_send_message_group",
    [CS_SUBSCRIBE] = "can_subscribe_group",
};

struct channel *channel_from_row(struct request *req, const struct db_res *res, int row, int col)
{
	struct channel *c = arena_alloc(&req->arena, sizeof(*c));
	c->id = db_int(res, row, col);
	c->realm_id = db_int(res, row, col + 1);
	c->name = db_val(res, row, col + 2);
	c->description = db_val(res, row, col + 3);
	c->rendered_description = db_val(res, row, col + 4);
	c->invite_only = db_bool(res, row, col + 5);
	c->is_web_public = db_bool(res, row, col + 6);
	c->history_public_to_subscribers = db_bool(res, row, col + 7);
	c->is_archived = db_bool(res, row, col + 8);
	c->is_default = db_bool(res, row, col + 9);
	c->retention_is_null = db_bool(res, row, col + 10);
	c->message_retention_days = (int)db_int(res, row, col + 11);
	c->folder_id = db_int(res, row, col + 12);
	c->topics_policy = db_val(res, row, col + 13);
	c->creator_id = db_int(res, row, col + 14);
	c->date_created = db_int(res, row, col + 15);
	c->is_subscribed = db_bool(res, row, col + 16);
	c->first_message_is_null = db_null(res, row, col + 17);
	c->first_message_id = db_int(res, row, col + 17);
	c->subscriber_count = db_int(res, row, col + 18);
	c->is_recently_active = db_bool(res, row, col + 19);
	c->weekly_traffic_is_null = db_null(res, row, col + 20);
	c->weekly_traffic = db_int(res, row, col + 20);
	c->send_group_system_name = db_val(res, row, col + 21);
	for (int i = 0; i < CS_COUNT; i++) {
		c->settings[i] = db_int(res, row, col + 22 + 3 * i);
		c->in_setting[i] = db_bool(res, row, col + 23 + 3 * i);
		c->setting_json[i] = db_val(res, row, col + 24 + 3 * i);
	}
	int sc = col + 22 + 3 * CS_COUNT;
	c->color = db_val(res, row, sc);
	c->pin_to_top = db_bool(res, row, sc + 1);
	c->is_muted = db_bool(res, row, sc + 2);
	for (int i = 0; i < 5; i++)
		c->notifications[i] = db_val(res, row, sc + 3 + i);
	/* Access as channels.h defines it. */
	const struct user *u = req->user;
	bool guest = u != NULL && user_is_guest(u);
	bool open = c->is_web_public || (!c->invite_only && u != NULL && !guest);
	bool may_subscribe = c->in_setting[CS_ADD_SUBSCRIBERS] || c->in_setting[CS_SUBSCRIBE];
	c->content_access = open || c->is_subscribed || (u != NULL && may_subscribe);
	c->metadata_access = c->content_access || (u != NULL && (user_is_admin(u) || c->in_setting[CS_ADMINISTER]));
	return c;
}

const char *channel_render_description(struct request *req, const char *text)
{
	if (*text == '\0')
		return "";
	struct markdown_lookup none = {0};
	struct markdown_result out;
	markdown_render(req, text, &none, &out);
	return out.html;
}

static struct db_stmt st_by_id = DB_STMT(CHANNEL_SELECT "AND c.id = $3");
static struct db_stmt st_by_name = DB_STMT(CHANNEL_SELECT "AND lower(c.name) = lower($3)");

static struct channel *load(struct request *req, struct db_stmt *st, const char *key)
{
	int64_t uid = req->user ? req->user->id : 0;
	struct db_res *res = DB_EXEC(req, st, db_arg_int(req, req->realm->id), db_arg_int(req, uid), key);
	return res && db_rows(res) ? channel_from_row(req, res, 0, 0) : NULL;
}

struct channel *channel_by_id(struct request *req, int64_t id)
{
	return load(req, &st_by_id, db_arg_int(req, id));
}

struct channel *channel_by_name(struct request *req, const char *name)
{
	return load(req, &st_by_name, name);
}

struct channel *channel_access_by_id(struct request *req, int64_t id, bool content)
{
	struct channel *c = channel_by_id(req, id);
	if (req->error != ERR_NONE)
		return NULL;
	if (c == NULL || !(content ? c->content_access : c->metadata_access)) {
		api_error(req, ERR_BAD_REQUEST, "Invalid channel ID");
		return NULL;
	}
	return c;
}

/* The deprecated stream_post_policy, derived from can_send_message_group when it is a system group. */
static int stream_post_policy(const struct channel *c)
{
	if (strcmp(c->send_group_system_name, "role:administrators") == 0)
		return 2;
	if (strcmp(c->send_group_system_name, "role:fullmembers") == 0)
		return 3;
	if (strcmp(c->send_group_system_name, "role:moderators") == 0)
		return 4;
	return 1;
}

json_object *channel_to_json(struct request *req, const struct channel *c)
{
	json_object *o = json_object_new_object();
	json_object_object_add(o, "stream_id", json_object_new_int64(c->id));
	json_object_object_add(o, "name", json_object_new_string(c->name));
	json_object_object_add(o, "description", json_object_new_string(c->description));
	json_object_object_add(o, "rendered_description", json_object_new_string(c->rendered_description));
	json_object_object_add(o, "date_created", json_object_new_int64(c->date_created));
	json_object_object_add(o, "creator_id", c->creator_id ? json_object_new_int64(c->creator_id) : NULL);
	json_object_object_add(o, "invite_only", json_object_new_boolean(c->invite_only));
	json_object_object_add(o, "is_web_public", json_object_new_boolean(c->is_web_public));
	json_object_object_add(o, "is_archived", json_object_new_boolean(c->is_archived));
	json_object_object_add(o, "history_public_to_subscribers",
	                       json_object_new_boolean(c->history_public_to_subscribers));
	json_object_object_add(o, "message_retention_days",
	                       c->retention_is_null ? NULL : json_object_new_int(c->message_retention_days));
	json_object_object_add(o, "first_message_id",
	                       c->first_message_is_null ? NULL : json_object_new_int64(c->first_message_id));
	json_object_object_add(o, "folder_id", c->folder_id ? json_object_new_int64(c->folder_id) : NULL);
	json_object_object_add(o, "topics_policy", json_object_new_string(c->topics_policy));
	int policy = stream_post_policy(c);
	json_object_object_add(o, "stream_post_policy", json_object_new_int(policy));
	json_object_object_add(o, "is_announcement_only", json_object_new_boolean(policy == 2));
	json_object_object_add(o, "is_recently_active", json_object_new_boolean(c->is_recently_active));
	json_object_object_add(o, "stream_weekly_traffic",
	                       c->weekly_traffic_is_null ? NULL : json_object_new_int64(c->weekly_traffic));
	json_object_object_add(o, "subscriber_count", json_object_new_int64(c->subscriber_count));
	for (int i = 0; i < CS_COUNT; i++) {
		json_object *v = NULL;
		jsonx_parse(c->setting_json[i], strlen(c->setting_json[i]), &v);
		json_object_object_add(o, channel_setting_names[i], v);
	}
	return o;
}

json_object *channel_subscription_json(struct request *req, const struct channel *c, bool subscribers)
{
	static const char *const names[5] = {"desktop_notifications", "email_notifications", "push_notifications",
	                                     "audible_notifications", "wildcard_mentions_notify"};
	json_object *o = channel_to_json(req, c);
	json_object_object_add(o, "color", json_object_new_string(c->color));
	json_object_object_add(o, "pin_to_top", json_object_new_boolean(c->pin_to_top));
	json_object_object_add(o, "is_muted", json_object_new_boolean(c->is_muted));
	json_object_object_add(o, "in_home_view", json_object_new_boolean(!c->is_muted));
	for (int i = 0; i < 5; i++)
		json_object_object_add(
		    o, names[i], *c->notifications[i] ? json_object_new_boolean(c->notifications[i][0] == 't') : NULL);
	if (subscribers)
		json_object_object_add(o, "subscribers", channel_subscriber_ids(req, c->id));
	return o;
}

static struct db_stmt st_subscribers = DB_STMT("SELECT coalesce(json_agg(s.user_id ORDER BY s.user_id), '[]')"
                                               "  FROM subscriptions s JOIN users u ON u.id = s.user_id"
                                               " WHERE s.channel_id = $1 AND s.active AND u.is_active");

json_object *channel_subscriber_ids(struct request *req, int64_t channel_id)
{
	struct db_res *res = DB_EXEC(req, &st_subscribers, db_arg_int(req, channel_id));
	json_object *ids = NULL;
	if (res == NULL || jsonx_parse(db_val(res, 0, 0), strlen(db_val(res, 0, 0)), &ids) < 0)
		return NULL;
	return ids;
}
