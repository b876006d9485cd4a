/*
 * Saved snippets: a user's reusable message texts. Each is its owner's alone: another user's id is "Saved snippet
 * does not exist." (404), as an unknown one. Reference: zerver/views/saved_snippets.py,
 * zerver/actions/saved_snippets.py.
 */
#include <json-c/json.h>

#include "api/api.h"
#include "db/db.h"
#include "http/params.h"
#include "http/request.h"
#include "model/personal.h"
#include "model/user.h"

#define MAX_TITLE_LENGTH   60
#define MAX_CONTENT_LENGTH 10000

/*
 * The value of name stripped as the reference's StringConstraints(strip_whitespace=True, min_length=1, max_length)
 * leaves it: "name cannot be blank", "name is too long (limit: N characters)". NULL with the error recorded.
 */
static const char *stripped_param(struct request *req, const char *name, int max)
{
	const char *s = personal_strip(&req->uow, param_str(req, name));
	if (*s == '\0') {
		api_error(req, ERR_BAD_REQUEST, "%s cannot be blank", name);
		return NULL;
	}
	if (utf8_length(s) > (size_t)max) {
		api_error(req, ERR_BAD_REQUEST, "%s is too long (limit: %d characters)", name, max);
		return NULL;
	}
	return s;
}

static const char *not_found = "Saved snippet does not exist.";

/* The saved_snippets event of op with the snippet JSON text. */
static int snippet_event(struct request *req, const char *op, const char *json)
{
	json_object *event = personal_new_event(&req->uow, "saved_snippets", op);
	json_object_object_add(event, "saved_snippet", personal_parse(json));
	return personal_event(&req->uow, event, req->user->id);
}

static struct db_stmt st_create =
    DB_STMT("INSERT INTO saved_snippets AS s (user_id, title, content) VALUES ($1, $2, $3)"
            " RETURNING s.id, " SAVED_SNIPPET_JSON);

/* POST /api/v1/saved_snippets */
int saved_snippets_create(struct request *req)
{
	const char *title = stripped_param(req, "title", MAX_TITLE_LENGTH);
	if (title == NULL)
		return -1;
	const char *content = stripped_param(req, "content", MAX_CONTENT_LENGTH);
	if (content == NULL)
		return -1;
	struct db_res *res = DB_EXEC(&req->uow, &st_create, db_arg_int(&req->uow, req->user->id), title, content);
	if (res == NULL || snippet_event(req, "add", db_val(res, 0, 1)) < 0)
		return -1;
	json_object_object_add(request_result(req), "saved_snippet_id", json_object_new_int64(db_int(res, 0, 0)));
	return 0;
}

/* GET /api/v1/saved_snippets */
int saved_snippets_list(struct request *req)
{
	json_object *list = personal_saved_snippets_json(&req->uow, req->user->id);
	if (list == NULL)
		return -1;
	json_object_object_add(request_result(req), "saved_snippets", list);
	return 0;
}

static struct db_stmt st_edit =
    DB_STMT("UPDATE saved_snippets AS s SET title = COALESCE($3, s.title), content = COALESCE($4, s.content)"
            " WHERE s.id = $1 AND s.user_id = $2 RETURNING " SAVED_SNIPPET_JSON);

/* PATCH /api/v1/saved_snippets/{saved_snippet_id} */
int saved_snippets_edit(struct request *req)
{
	const char *title = NULL, *content = NULL;
	if (param_present(req, "title") && (title = stripped_param(req, "title", MAX_TITLE_LENGTH)) == NULL)
		return -1;
	if (param_present(req, "content") && (content = stripped_param(req, "content", MAX_CONTENT_LENGTH)) == NULL)
		return -1;
	/* Nothing to change: success without looking, and without an event, as the reference does. */
	if (title == NULL && content == NULL)
		return 0;
	struct db_res *res = DB_EXEC(&req->uow, &st_edit, db_arg_int(&req->uow, param_int(req, "saved_snippet_id")),
	                             db_arg_int(&req->uow, req->user->id), title, content);
	if (res == NULL)
		return -1;
	if (db_rows(res) == 0)
		return api_error(req, ERR_NOT_FOUND, "%s", not_found);
	return snippet_event(req, "update", db_val(res, 0, 0));
}

static struct db_stmt st_delete = DB_STMT("DELETE FROM saved_snippets WHERE id = $1 AND user_id = $2 RETURNING id");

/* DELETE /api/v1/saved_snippets/{saved_snippet_id} */
int saved_snippets_delete(struct request *req)
{
	int64_t id = param_int(req, "saved_snippet_id");
	struct db_res *res =
	    DB_EXEC(&req->uow, &st_delete, db_arg_int(&req->uow, id), db_arg_int(&req->uow, req->user->id));
	if (res == NULL)
		return -1;
	if (db_rows(res) == 0)
		return api_error(req, ERR_NOT_FOUND, "%s", not_found);
	json_object *event = personal_new_event(&req->uow, "saved_snippets", "remove");
	json_object_object_add(event, "saved_snippet_id", json_object_new_int64(id));
	return personal_event(&req->uow, event, req->user->id);
}
