/* Channel folders: named, ordered groups of channels in the sidebar. */
#include <json-c/json.h>

#include "api/api.h"
#include "db/db.h"
#include "http/params.h"
#include "http/request.h"
#include "model/channels.h"
#include "model/realm.h"
#include "model/user.h"

#define MAX_FOLDER_NAME        60
#define MAX_FOLDER_DESCRIPTION 1024

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
	const char *name = arena_strip(&req->arena, param_str(req, "name"));
	const char *description = param_str(req, "description");
	if (*name == '\0')
		return api_error(req, ERR_BAD_REQUEST, "Channel folder name can't be empty.");
	if (utf8_length(name) > MAX_FOLDER_NAME)
		return api_error(req, ERR_BAD_REQUEST, "name is too long (limit: %d characters)", MAX_FOLDER_NAME);
	for (const unsigned char *p = (const unsigned char *)name; *p; p++)
		if (*p < 0x20 || *p == 0x7f)
			return api_error(req, ERR_BAD_REQUEST, "Invalid character in channel folder name.");
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
