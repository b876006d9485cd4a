/* The per-user objects: their lists, the drafts setting and their events; see personal.h. */
#include "model/personal.h"

#include <string.h>

#include "core/jsonx.h"
#include "core/utf8.h"
#include "core/uow.h"
#include "db/db.h"
#include "events/events.h"

static struct db_stmt st_drafts_enabled = DB_STMT("SELECT enable_drafts_synchronization FROM users WHERE id = $1");

int personal_check_drafts_enabled(struct uow *uow, int64_t user_id)
{
	struct db_res *res = DB_EXEC(uow, &st_drafts_enabled, db_arg_int(uow, user_id));
	if (res == NULL)
		return -1;
	if (db_rows(res) != 1 || !db_bool(res, 0, 0))
		return uow_error(uow, ERR_BAD_REQUEST, "User has disabled synchronizing drafts.");
	return 0;
}

json_object *personal_parse(const char *text)
{
	json_object *v = NULL;
	jsonx_parse(text, strlen(text), &v);
	return v;
}

/* The JSON array text a list query returns in its one row, as a new array. */
static json_object *list_json(struct db_res *res)
{
	return res == NULL ? NULL : personal_parse(db_val(res, 0, 0));
}

/* GET /drafts: oldest first; POST /register: the newest PERSONAL_MAX_DRAFTS_IN_REGISTER, none while the user keeps
 * synchronization off. */
static struct db_stmt st_drafts =
    DB_STMT("SELECT COALESCE(json_agg(t.j::json ORDER BY t.last_edit_time, t.id), '[]')::text"
            "  FROM (SELECT d.id, d.last_edit_time, " DRAFT_JSON " AS j FROM drafts d WHERE d.user_id = $1) t");
static struct db_stmt st_drafts_register =
    DB_STMT("SELECT COALESCE(json_agg(t.j::json ORDER BY t.last_edit_time DESC, t.id DESC), '[]')::text"
            "  FROM (SELECT d.id, d.last_edit_time, " DRAFT_JSON " AS j FROM drafts d WHERE d.user_id = $1"
            "           AND (SELECT enable_drafts_synchronization FROM users WHERE id = $1)"
            "         ORDER BY d.last_edit_time DESC, d.id DESC LIMIT $2) t");

json_object *personal_drafts_json(struct uow *uow, int64_t user_id, bool for_register)
{
	if (for_register)
		return list_json(DB_EXEC(uow, &st_drafts_register, db_arg_int(uow, user_id),
		                         db_arg_int(uow, PERSONAL_MAX_DRAFTS_IN_REGISTER)));
	return list_json(DB_EXEC(uow, &st_drafts, db_arg_int(uow, user_id)));
}

static struct db_stmt st_snippets =
    DB_STMT("SELECT COALESCE(json_agg(t.j::json ORDER BY t.id), '[]')::text"
            "  FROM (SELECT s.id, " SAVED_SNIPPET_JSON " AS j FROM saved_snippets s WHERE s.user_id = $1) t");

json_object *personal_saved_snippets_json(struct uow *uow, int64_t user_id)
{
	return list_json(DB_EXEC(uow, &st_snippets, db_arg_int(uow, user_id)));
}

static struct db_stmt st_views =
    DB_STMT("SELECT COALESCE(json_agg(t.j::json ORDER BY t.id), '[]')::text"
            "  FROM (SELECT v.id, " NAVIGATION_VIEW_JSON " AS j FROM navigation_views v WHERE v.user_id = $1) t");

json_object *personal_navigation_views_json(struct uow *uow, int64_t user_id)
{
	return list_json(DB_EXEC(uow, &st_views, db_arg_int(uow, user_id)));
}

json_object *personal_new_event(struct uow *uow, const char *type, const char *op)
{
	return events_new(uow, type, op);
}

int personal_event(struct uow *uow, json_object *event, int64_t user_id)
{
	return events_add(uow, event, &user_id, 1, 0);
}

const char *personal_strip(struct uow *uow, const char *s)
{
	size_t n = strlen(s), start = 0, end = 0;
	bool seen = false;
	for (size_t i = 0; i < n;) {
		uint32_t cp;
		size_t k = utf8_decode((const unsigned char *)s + i, n - i, &cp);
		if (k == 0)
			k = 1;
		if (!utf8_is_space(cp)) {
			if (!seen)
				start = i;
			seen = true;
			end = i + k;
		}
		i += k;
	}
	return seen ? arena_strndup(&uow->arena, s + start, end - start) : "";
}
