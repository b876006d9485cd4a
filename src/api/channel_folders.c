/* Channel folders: named, ordered groups of channels in the sidebar. */
#include <json-c/json.h>
#include <string.h>

#include "api/api.h"
#include "core/utf8.h"
#include "db/db.h"
#include "http/params.h"
#include "http/request.h"
#include "model/channels.h"
#include "model/realm.h"
#include "model/user.h"

#define MAX_FOLDER_NAME        60
#define MAX_FOLDER_DESCRIPTION 1024

/*
 * The name parameter, stripped, after the reference's check_channel_folder_name (emptiness, then the first
 * character that is not printable, counted from 1 in the name as sent). NULL with the error recorded.
 */
static const char *checked_name(struct request *req)
{
	size_t len;
	const unsigned char *s = (const unsigned char *)param_str_len(req, "name", &len);
	bool blank = true;
	int length = 0, bad = 0;
	for (size_t i = 0, n; i < len; i += n ? n : 1) {
		uint32_t c;
		n = utf8_decode(s + i, len - i, &c);
		length++;
		blank = blank && n != 0 && utf8_is_space(c);
		if (bad == 0 && (n == 0 || c == 0 || !utf8_is_printable(c)))
			bad = length;
	}
	if (blank) {
		api_error(req, ERR_BAD_REQUEST, "Channel folder name can't be empty.");
		return NULL;
	}
	if (length > MAX_FOLDER_NAME) {
		api_error(req, ERR_BAD_REQUEST, "name is too long (limit: %d characters)", MAX_FOLDER_NAME);
		return NULL;
	}
	if (bad != 0) {
		api_error(req, ERR_BAD_REQUEST, "Invalid character in channel folder name, at position %d.", bad);
		return NULL;
	}
	return arena_strip(&req->arena, (const char *)s);
}

/* Appends the folder unless an active folder has the name (case-insensitively); no row when it does. */
static struct db_stmt st_create = DB_STMT(
    "INSERT INTO channel_folders (realm_id, name, description, rendered_description, creator_id, \"order\")"
    " SELECT $1, $2, $3, $4, $5, (SELECT coalesce(max(\"order\") + 1, 0) FROM channel_folders WHERE realm_id = $1)"
    "  WHERE NOT EXISTS (SELECT 1 FROM channel_folders WHERE realm_id = $1 AND lower(name) = lower($2)"
    "                                                     AND NOT is_archived)"
    " RETURNING id");

/* POST /api/v1/channel_folders/create */
int channel_folders_create(struct request *req)
{
	const char *name = checked_name(req);
	const char *description = param_str(req, "description");
	if (name == NULL)
		return -1;
	struct db_res *res =
	    DB_EXEC(&req->uow, &st_create, db_arg_int(&req->uow, req->realm->id), name, description,
	            channel_render_description(&req->uow, description), db_arg_int(&req->uow, req->user->id));
	if (res == NULL)
		return -1;
	if (db_rows(res) == 0)
		return api_error(req, ERR_BAD_REQUEST, "Channel folder name already in use");
	if (channel_folder_events_created(&req->uow, db_int(res, 0, 0)) < 0)
		return -1;
	json_object_object_add(request_result(req), "channel_folder_id", json_object_new_int64(db_int(res, 0, 0)));
	return 0;
}

static struct db_stmt st_list =
    DB_STMT("SELECT " CHANNEL_FOLDER_COLUMNS " FROM channel_folders f"
            " WHERE f.realm_id = $1 AND ($2 OR NOT f.is_archived) ORDER BY f.\"order\", f.id");

/* GET /api/v1/channel_folders */
int channel_folders_list(struct request *req)
{
	struct db_res *res = DB_EXEC(&req->uow, &st_list, db_arg_int(&req->uow, req->realm->id),
	                             param_bool(req, "include_archived") ? "true" : "false");
	if (res == NULL)
		return -1;
	json_object *folders = json_object_new_array();
	json_object_object_add(request_result(req), "channel_folders", folders);
	for (int i = 0; i < db_rows(res); i++)
		json_object_array_add(folders, channel_folder_json(res, i));
	return 0;
}

/* The folder, locked, if it is one of the organization's. */
static struct db_stmt st_lock = DB_STMT("SELECT " CHANNEL_FOLDER_COLUMNS " FROM channel_folders f"
                                        " WHERE f.id = $1 AND f.realm_id = $2 FOR UPDATE");
/* Renames unless another active folder has the name (case-insensitively); no row when one does. */
static struct db_stmt st_rename =
    DB_STMT("UPDATE channel_folders f SET name = $2 WHERE f.id = $1 AND (f.is_archived OR NOT EXISTS ("
            "  SELECT 1 FROM channel_folders o WHERE o.realm_id = f.realm_id AND o.id <> f.id"
            "   AND lower(o.name) = lower($2) AND NOT o.is_archived)) RETURNING f.id");
static struct db_stmt st_describe =
    DB_STMT("UPDATE channel_folders SET description = $2, rendered_description = $3 WHERE id = $1");
/* Archives ($2 true) or unarchives; unarchiving needs the name free among the active folders. */
static struct db_stmt st_archive =
    DB_STMT("UPDATE channel_folders f SET is_archived = $2 WHERE f.id = $1 AND ($2 OR NOT EXISTS ("
            "  SELECT 1 FROM channel_folders o WHERE o.realm_id = f.realm_id AND o.id <> f.id"
            "   AND lower(o.name) = lower(f.name) AND NOT o.is_archived)) RETURNING f.id");
static struct db_stmt st_in_use = DB_STMT("SELECT EXISTS (SELECT 1 FROM channels WHERE folder_id = $1)");

static int update_name(struct request *req, int64_t id, const char *old)
{
	const char *name = checked_name(req);
	if (name == NULL)
		return -1;
	if (strcmp(name, old) == 0)
		return 0;
	struct db_res *res = DB_EXEC(&req->uow, &st_rename, db_arg_int(&req->uow, id), name);
	if (res == NULL)
		return -1;
	if (db_rows(res) == 0)
		return api_error(req, ERR_BAD_REQUEST, "Channel folder name already in use");
	json_object *data = json_object_new_object();
	json_object_object_add(data, "name", json_object_new_string(name));
	return channel_folder_events_update(&req->uow, id, data);
}

static int update_description(struct request *req, int64_t id, const char *old)
{
	const char *description = param_str(req, "description");
	if (strcmp(description, old) == 0)
		return 0;
	const char *rendered = channel_render_description(&req->uow, description);
	if (DB_EXEC(&req->uow, &st_describe, db_arg_int(&req->uow, id), description, rendered) == NULL)
		return -1;
	json_object *data = json_object_new_object();
	json_object_object_add(data, "description", json_object_new_string(description));
	json_object_object_add(data, "rendered_description", json_object_new_string(rendered));
	return channel_folder_events_update(&req->uow, id, data);
}

static int update_archived(struct request *req, int64_t id, bool was_archived)
{
	bool archive = param_bool(req, "is_archived");
	if (archive == was_archived)
		return 0;
	if (archive) {
		struct db_res *used = DB_EXEC(&req->uow, &st_in_use, db_arg_int(&req->uow, id));
		if (used == NULL)
			return -1;
		if (db_bool(used, 0, 0))
			return api_error(req, ERR_BAD_REQUEST,
			                 "You need to remove all the channels from this folder to archive it.");
	}
	struct db_res *res = DB_EXEC(&req->uow, &st_archive, db_arg_int(&req->uow, id), archive ? "true" : "false");
	if (res == NULL)
		return -1;
	if (db_rows(res) == 0)
		return api_error(req, ERR_BAD_REQUEST, "Channel folder name already in use");
	json_object *data = json_object_new_object();
	json_object_object_add(data, "is_archived", json_object_new_boolean(archive));
	return channel_folder_events_update(&req->uow, id, data);
}

/* PATCH /api/v1/channel_folders/{channel_folder_id}: name, then description, then is_archived, each only when it
 * changes something, each with its own event. */
int channel_folders_update(struct request *req)
{
	int64_t id = param_int(req, "channel_folder_id");
	struct db_res *f =
	    DB_EXEC(&req->uow, &st_lock, db_arg_int(&req->uow, id), db_arg_int(&req->uow, req->realm->id));
	if (f == NULL)
		return -1;
	if (db_rows(f) == 0)
		return api_error(req, ERR_BAD_REQUEST, "Invalid channel folder ID");
	if (param_present(req, "name") && update_name(req, id, db_val(f, 0, 1)) < 0)
		return -1;
	if (param_present(req, "description") && update_description(req, id, db_val(f, 0, 2)) < 0)
		return -1;
	if (param_set(req, "is_archived") && update_archived(req, id, db_bool(f, 0, 7)) < 0)
		return -1;
	return 0;
}

/* Sets each listed folder's order to its position; how many it changed (the organization's folders). */
static struct db_stmt st_reorder =
    DB_STMT("WITH o AS (SELECT id, (pos - 1)::int AS pos FROM unnest($2::bigint[]) WITH ORDINALITY AS x(id, pos))"
            " UPDATE channel_folders f SET \"order\" = o.pos FROM o WHERE f.id = o.id AND f.realm_id = $1"
            " RETURNING f.id");
static struct db_stmt st_count = DB_STMT("SELECT count(*) FROM channel_folders WHERE realm_id = $1");

/* PATCH /api/v1/channel_folders: order lists every folder of the organization (archived ones too), once. */
int channel_folders_reorder(struct request *req)
{
	json_object *list = param_json(req, "order");
	int n = (int)json_object_array_length(list);
	int64_t *ids = arena_alloc(&req->arena, (size_t)(n + 1) * sizeof(*ids));
	for (int i = 0; i < n; i++)
		ids[i] = json_object_get_int64(json_object_array_get_idx(list, i));
	struct db_res *count = DB_EXEC(&req->uow, &st_count, db_arg_int(&req->uow, req->realm->id));
	if (count == NULL)
		return -1;
	/* Duplicates or ids of no folder of the organization leave fewer rows changed than listed. */
	if (db_int(count, 0, 0) != n)
		return api_error(req, ERR_BAD_REQUEST, "Invalid order mapping.");
	struct db_res *res =
	    DB_EXEC(&req->uow, &st_reorder, db_arg_int(&req->uow, req->realm->id), db_arg_ids(&req->uow, ids, n));
	if (res == NULL)
		return -1;
	if (db_rows(res) != n)
		return api_error(req, ERR_BAD_REQUEST, "Invalid order mapping.");
	return channel_folder_events_reorder(&req->uow, ids, n);
}
