/*
 * Navigation views: the views of a user's left sidebar, pinned there or kept in the "More views" menu. A view is
 * named by its URL fragment, which may contain slashes: the routes take the whole rest of the path. Built-in
 * views have no row until the user changes one and cannot be named; custom views must be. Each row is its owner's
 * alone (another user's fragment is as unknown as any). Reference: zerver/views/navigation_views.py,
 * zerver/actions/navigation_views.py, zerver/lib/navigation_views.py.
 */
#include <json-c/json.h>
#include <string.h>

#include "api/api.h"
#include "db/db.h"
#include "http/form.h"
#include "http/params.h"
#include "http/request.h"
#include "model/personal.h"
#include "model/user.h"

#define PATH_PREFIX "/navigation_views/"

/* The reference's BUILT_IN_VIEW_FRAGMENTS. */
static const char *const built_in[] = {
    "inbox",
    "recent",
    "feed",
    "drafts",
    "narrow/has/reaction/sender/me",
    "narrow/is/mentioned",
    "narrow/is/starred",
    "scheduled",
    "reminders",
};

static bool is_built_in(const char *fragment)
{
	for (size_t i = 0; i < sizeof(built_in) / sizeof(built_in[0]); i++)
		if (strcmp(fragment, built_in[i]) == 0)
			return true;
	return false;
}

/* A string stripped as the reference's StringConstraints(strip_whitespace=True, min_length=1) leaves it ("x cannot
 * be blank"); NULL with the error recorded. */
static const char *nonblank(struct request *req, const char *name, const char *value)
{
	const char *s = personal_strip(&req->uow, value);
	if (*s == '\0')
		api_error(req, ERR_BAD_REQUEST, "%s cannot be blank", name);
	return *s ? s : NULL;
}

/* The fragment of a PATCH or DELETE: the whole rest of the path, stripped. NULL with the error recorded. */
static const char *path_fragment(struct request *req)
{
	const char *rest = req->path + strlen(PATH_PREFIX);
	size_t len;
	return nonblank(req, "fragment", form_repair_utf8(req, rest, strlen(rest), &len));
}

static const char *not_found = "Navigation view does not exist.";

/* GET /api/v1/navigation_views */
int navigation_views_list(struct request *req)
{
	json_object *list = personal_navigation_views_json(&req->uow, req->user->id);
	if (list == NULL)
		return -1;
	json_object_object_add(request_result(req), "navigation_views", list);
	return 0;
}

/* The navigation_view add event with the view's JSON text. */
static int add_event(struct request *req, const char *json)
{
	json_object *event = personal_new_event(&req->uow, "navigation_view", "add");
	json_object_object_add(event, "navigation_view", personal_parse(json));
	return personal_event(&req->uow, event, req->user->id);
}

/* Adds the view unless the user has one with the fragment or (when name is set) the name: no row then. */
static struct db_stmt st_add = DB_STMT("INSERT INTO navigation_views AS v (user_id, fragment, is_pinned, name) SELECT "
                                       "$1::bigint, $2::text, $3::boolean, $4::text"
                                       "  WHERE NOT EXISTS (SELECT 1 FROM navigation_views WHERE user_id = $1 AND "
                                       "(fragment = $2::text OR name = $4::text))"
                                       " ON CONFLICT DO NOTHING RETURNING " NAVIGATION_VIEW_JSON);

static int add_view(struct request *req, const char *fragment, bool is_pinned, const char *name)
{
	struct db_res *res = DB_EXEC(&req->uow, &st_add, db_arg_int(&req->uow, req->user->id), fragment,
	                             is_pinned ? "true" : "false", name);
	if (res == NULL)
		return -1;
	if (db_rows(res) == 0)
		return api_error(req, ERR_BAD_REQUEST, "Navigation view already exists.");
	return add_event(req, db_val(res, 0, 0));
}

/* The optional name parameter (NULL when absent); -1 when it is blank, or given for a built-in view. */
static int name_param(struct request *req, const char *fragment, const char **name)
{
	*name = NULL;
	if (param_present(req, "name") && (*name = nonblank(req, "name", param_str(req, "name"))) == NULL)
		return -1;
	if (is_built_in(fragment) && *name != NULL)
		return api_error(req, ERR_BAD_REQUEST, "Built-in views cannot have a custom name.");
	return 0;
}

/* POST /api/v1/navigation_views */
int navigation_views_create(struct request *req)
{
	const char *fragment = nonblank(req, "fragment", param_str(req, "fragment"));
	if (fragment == NULL)
		return -1;
	const char *name;
	if (name_param(req, fragment, &name) < 0)
		return -1;
	if (!is_built_in(fragment) && name == NULL)
		return api_error(req, ERR_BAD_REQUEST, "Custom views must have a valid name.");
	return add_view(req, fragment, param_bool(req, "is_pinned"), name);
}

static struct db_stmt st_name_used = DB_STMT("SELECT 1 FROM navigation_views WHERE user_id = $1 AND name = $2");
static struct db_stmt st_update =
    DB_STMT("UPDATE navigation_views v SET is_pinned = COALESCE($3::boolean, v.is_pinned), name = COALESCE($4, v.name)"
            " WHERE v.user_id = $1 AND v.fragment = $2 RETURNING v.fragment");

/* The update event: {fragment, data} with the fields that were sent. */
static int update_event(struct request *req, const char *fragment, const char *name)
{
	json_object *event = personal_new_event(&req->uow, "navigation_view", "update");
	json_object *data = json_object_new_object();
	json_object_object_add(event, "fragment", json_object_new_string(fragment));
	if (name != NULL)
		json_object_object_add(data, "name", json_object_new_string(name));
	if (param_present(req, "is_pinned"))
		json_object_object_add(data, "is_pinned", json_object_new_boolean(param_bool(req, "is_pinned")));
	json_object_object_add(event, "data", data);
	return personal_event(&req->uow, event, req->user->id);
}

/* PATCH /api/v1/navigation_views/{fragment} */
int navigation_views_update(struct request *req)
{
	const char *fragment = path_fragment(req);
	if (fragment == NULL)
		return -1;
	const char *name;
	if (name_param(req, fragment, &name) < 0)
		return -1;
	const char *uid = db_arg_int(&req->uow, req->user->id);
	struct db_res *res = name ? DB_EXEC(&req->uow, &st_name_used, uid, name) : NULL;
	if (name != NULL && res == NULL)
		return -1;
	if (res != NULL && db_rows(res) > 0)
		return api_error(req, ERR_BAD_REQUEST, "Navigation view already exists.");
	bool pinned = param_present(req, "is_pinned");
	res = DB_EXEC(&req->uow, &st_update, uid, fragment,
	              pinned ? (param_bool(req, "is_pinned") ? "true" : "false") : NULL, name);
	if (res == NULL)
		return -1;
	if (db_rows(res) > 0)
		return update_event(req, fragment, name);
	/* A built-in view the user has not changed yet has no row: this change creates it (pinned unless told). */
	if (is_built_in(fragment))
		return add_view(req, fragment, !pinned || param_bool(req, "is_pinned"), NULL);
	return api_error(req, ERR_NOT_FOUND_CODE, "%s", not_found);
}

static struct db_stmt st_delete =
    DB_STMT("DELETE FROM navigation_views WHERE user_id = $1 AND fragment = $2 RETURNING id");

/* DELETE /api/v1/navigation_views/{fragment} */
int navigation_views_delete(struct request *req)
{
	const char *fragment = path_fragment(req);
	if (fragment == NULL)
		return -1;
	struct db_res *res = DB_EXEC(&req->uow, &st_delete, db_arg_int(&req->uow, req->user->id), fragment);
	if (res == NULL)
		return -1;
	if (db_rows(res) == 0)
		return api_error(req, ERR_NOT_FOUND_CODE, "%s", not_found);
	json_object *event = personal_new_event(&req->uow, "navigation_view", "remove");
	json_object_object_add(event, "fragment", json_object_new_string(fragment));
	return personal_event(&req->uow, event, req->user->id);
}
