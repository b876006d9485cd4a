/* Archiving and unarchiving channels; see channel_archive.h. */
#include "model/channel_archive.h"

#include <json-c/json.h>
#include <string.h>

#include "core/uow.h"
#include "db/db.h"
#include "events/events.h"
#include "model/channels.h"
#include "model/default_channels.h"
#include "model/messages.h"
#include "model/realm.h"
#include "model/user.h"

struct channel *channel_admin_access_by_id(struct uow *uow, int64_t id)
{
	struct channel *c = channel_by_id(uow, id);
	if (uow->error != ERR_NONE)
		return NULL;
	if (c != NULL && (user_is_admin(uow->user) || (c->in_setting[CS_ADMINISTER] && !user_is_guest(uow->user))))
		return c;
	/* Only a user who may read the channel learns that it exists. */
	if (c != NULL && c->content_access)
		uow_error(uow, ERR_BAD_REQUEST, "You do not have permission to administer this channel.");
	else
		uow_error(uow, ERR_BAD_REQUEST, "Invalid channel ID");
	return NULL;
}

int64_t channel_events_notice(struct uow *uow, struct channel *c, const char *content, bool all_read)
{
	/* The reference's channel_events_topic_name. */
	const char *topic = strcmp(c->topics_policy, "empty_topic_only") == 0 ? "" : "channel events";
	return all_read ? message_send_notification_read(uow, c, topic, content)
	                : message_send_notification(uow, c, topic, content);
}

/* ---- archiving ------------------------------------------------------------------------------------------------ */

static struct db_stmt st_set_archived =
    DB_STMT("UPDATE channels SET is_archived = $2,"
            " is_web_public = CASE WHEN $2 THEN is_web_public ELSE is_web_public AND NOT invite_only END"
            " WHERE id = $1 RETURNING is_web_public");
static struct db_stmt st_unset_moderation =
    DB_STMT("UPDATE realms SET moderation_request_channel_id = NULL"
            " WHERE id = $1 AND moderation_request_channel_id = $2 RETURNING id");

/* The reference's maybe_set_moderation_or_announcement_channels_none (confab has only the moderation channel). */
static int leave_moderation_channel(struct uow *uow, const struct channel *c)
{
	struct db_res *res =
	    DB_EXEC(uow, &st_unset_moderation, db_arg_int(uow, uow->realm->id), db_arg_int(uow, c->id));
	if (res == NULL || db_rows(res) == 0)
		return res == NULL ? -1 : 0;
	int n;
	int64_t *users = user_active_ids(uow, uow->realm->id, &n);
	if (users == NULL)
		return -1;
	json_object *event = events_new(uow, "realm", "update_dict"), *data = json_object_new_object();
	json_object_object_add(event, "property", json_object_new_string("default"));
	json_object_object_add(data, "moderation_request_channel_id", json_object_new_int64(-1));
	json_object_object_add(event, "data", data);
	return events_add_some(uow, event, users, n);
}

/* stream update is_archived (to clients with archived_channels: events/events.c). */
static int is_archived_event(struct uow *uow, const struct channel *c, bool value, const int64_t *users, int n)
{
	return channel_events_update(uow, c, "is_archived", json_object_new_boolean(value), users, n);
}

int channel_archive(struct uow *uow, struct channel *c)
{
	if (c->is_archived)
		return uow_error(uow, ERR_BAD_REQUEST, "Channel is already deactivated");
	int n;
	int64_t *users = channel_metadata_user_ids(uow, c->id, true, &n); /* before anything changes */
	if (users == NULL || DB_EXEC(uow, &st_set_archived, db_arg_int(uow, c->id), "true") == NULL)
		return -1;
	c->is_archived = true;
	if (leave_moderation_channel(uow, c) < 0 || (c->is_default && default_channel_set(uow, c, false) < 0))
		return -1;
	c->is_default = false;
	if (is_archived_event(uow, c, true, users, n) < 0)
		return -1;
	/* send_stream_deletion_event(for_archiving=True): for the clients without archived_channels. */
	json_object *event = events_new(uow, "stream", "delete"), *streams = json_object_new_array(),
	            *s = json_object_new_object();
	json_object_object_add(s, "stream_id", json_object_new_int64(c->id));
	json_object_array_add(streams, s);
	json_object_object_add(event, "streams", streams);
	json_object_object_add(event, "stream_ids", ids_json(&c->id, 1));
	json_object_object_add(event, "_for_archiving", json_object_new_boolean(true));
	if (events_add_some(uow, event, users, n) < 0)
		return -1;
	const char *content = arena_printf(&uow->arena, "Channel #**%s** has been archived.", c->name);
	return channel_events_notice(uow, c, content, true) ? 0 : -1;
}

static struct db_stmt st_has_subscribers =
    DB_STMT("SELECT EXISTS (SELECT 1 FROM subscriptions WHERE channel_id = $1 AND active)");

int channel_unarchive(struct uow *uow, struct channel *c)
{
	if (!c->is_archived)
		return uow_error(uow, ERR_BAD_REQUEST, "Channel is not currently deactivated");
	/* Subscriptions of deactivated users count, as the reference's include_deactivated_users=True. */
	struct db_res *res = DB_EXEC(uow, &st_has_subscribers, db_arg_int(uow, c->id));
	if (res == NULL)
		return -1;
	if (c->invite_only && !db_bool(res, 0, 0))
		return uow_error(uow, ERR_BAD_REQUEST, "Channel is private and have no subscribers");
	struct db_res *set = DB_EXEC(uow, &st_set_archived, db_arg_int(uow, c->id), "false");
	if (set == NULL)
		return -1;
	c->is_archived = false;
	c->is_web_public = db_bool(set, 0, 0);
	int n;
	int64_t *users = channel_metadata_user_ids(uow, c->id, true, &n);
	if (users == NULL || is_archived_event(uow, c, false, users, n) < 0)
		return -1;
	/* send_stream_creation_event(for_unarchiving=True): for the clients without archived_channels. */
	json_object *event = events_new(uow, "stream", "create"), *streams = json_object_new_array();
	json_object_array_add(streams, channel_to_json(uow, c));
	json_object_object_add(event, "streams", streams);
	json_object_object_add(event, "_for_unarchiving", json_object_new_boolean(true));
	if (events_add_some(uow, event, users, n) < 0)
		return -1;
	const char *content = arena_printf(&uow->arena, "Channel #**%s** has been unarchived.", c->name);
	return channel_events_notice(uow, c, content, false) ? 0 : -1;
}
