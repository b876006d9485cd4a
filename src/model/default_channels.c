/* Default channels; see default_channels.h. */
#include "model/default_channels.h"

#include <json-c/json.h>

#include "core/jsonx.h"
#include "core/uow.h"
#include "db/db.h"
#include "events/events.h"
#include "model/channels.h"
#include "model/realm.h"

/* Returns a row only when the flag changed. */
static struct db_stmt st_set =
    DB_STMT("UPDATE channels SET is_default = $3 WHERE realm_id = $1 AND id = $2 AND is_default <> $3 RETURNING id");
/* The event's list and its recipients (the reference's active_non_guest_user_ids), in one statement. */
static struct db_stmt st_event = DB_STMT("SELECT (SELECT COALESCE(json_agg(id ORDER BY id), '[]')::text FROM channels"
                                         "        WHERE realm_id = $1 AND is_default AND NOT is_archived),"
                                         "       (SELECT COALESCE(json_agg(id ORDER BY id), '[]')::text FROM users"
                                         "        WHERE realm_id = $1 AND is_active AND role <> 600)");

/* Records the default_streams event. */
static int notify(struct uow *uow)
{
	struct db_res *res = DB_EXEC(uow, &st_event, db_arg_int(uow, uow->realm->id));
	if (res == NULL)
		return -1;
	json_object *list = uow_own_json(uow, json_tokener_parse(db_val(res, 0, 0)));
	json_object *users = uow_own_json(uow, json_tokener_parse(db_val(res, 0, 1)));
	if (list == NULL || users == NULL)
		return uow_error(uow, ERR_INTERNAL, NULL);
	int n = (int)json_object_array_length(users);
	int64_t *ids = arena_alloc(&uow->arena, (size_t)(n + 1) * sizeof(*ids));
	for (int i = 0; i < n; i++)
		ids[i] = json_object_get_int64(json_object_array_get_idx(users, i));
	json_object *event = uow_own_json(uow, json_object_new_object());
	json_object_object_add(event, "type", json_object_new_string("default_streams"));
	json_object_object_add(event, "default_streams", json_object_get(list));
	return n > 0 ? events_add(uow, event, ids, n, 0) : 0;
}

int default_channel_set(struct uow *uow, const struct channel *c, bool is_default)
{
	struct db_res *res = DB_EXEC(uow, &st_set, db_arg_int(uow, uow->realm->id), db_arg_int(uow, c->id),
	                             is_default ? "true" : "false");
	if (res == NULL)
		return -1;
	if (is_default && db_rows(res) == 0)
		return 0;
	return notify(uow);
}

/* ---- new users ---------------------------------------------------------------------------------------------- */

static struct db_stmt st_defaults =
    DB_STMT("SELECT id FROM channels WHERE realm_id = $1 AND is_default AND NOT is_archived ORDER BY id");
static struct db_stmt st_subscribe =
    DB_STMT("INSERT INTO subscriptions (user_id, channel_id, color)"
            " SELECT $1, (c->>0)::bigint, c->>1 FROM json_array_elements($2::json) c ON CONFLICT DO NOTHING");

int default_channels_subscribe(struct uow *uow, int64_t realm_id, int64_t user_id)
{
	struct db_res *res = DB_EXEC(uow, &st_defaults, db_arg_int(uow, realm_id));
	if (res == NULL)
		return -1;
	if (db_rows(res) == 0)
		return 0;
	json_object *pairs = uow_own_json(uow, json_object_new_array());
	for (int i = 0; i < db_rows(res); i++) {
		json_object *pair = json_object_new_array();
		json_object_array_add(pair, json_object_new_int64(db_int(res, i, 0)));
		json_object_array_add(pair, json_object_new_string(channel_default_color(db_int(res, i, 0))));
		json_object_array_add(pairs, pair);
	}
	return DB_EXEC(uow, &st_subscribe, db_arg_int(uow, user_id), jsonx_string(pairs)) ? 0 : -1;
}

int default_channels_events_subscribed(struct uow *uow, int64_t user_id)
{
	struct db_res *res = DB_EXEC(uow, &st_defaults, db_arg_int(uow, uow->realm->id));
	if (res == NULL)
		return -1;
	struct channel_changes ch = {.subs = arena_alloc(&uow->arena, (size_t)(db_rows(res) + 1) * sizeof(*ch.subs))};
	for (int i = 0; i < db_rows(res); i++) {
		const struct channel *c = channel_by_id(uow, db_int(res, i, 0));
		if (c == NULL)
			return uow_error(uow, ERR_INTERNAL, NULL);
		ch.subs[ch.nsubs++] = (struct channel_sub){user_id, c};
	}
	return channel_events_subscribe(uow, &ch);
}
