/*
 * Drafts: messages a user is composing, kept on the server so that the user's other clients see them. Each draft
 * is its owner's alone (another user's id is "Draft does not exist", 404), and every route refuses while the user
 * keeps enable_drafts_synchronization off. Reference: zerver/lib/drafts.py, zerver/views/drafts.py; the syntax
 * errors are the reference's typed_endpoint words for its DraftData model (zerver/lib/typed_endpoint.py), checked
 * in api/shapes.c.
 */
#include <json-c/json.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "api/api.h"
#include "api/shapes.h"
#include "db/db.h"
#include "http/params.h"
#include "http/request.h"
#include "model/channels.h"
#include "model/messages.h"
#include "model/personal.h"
#include "model/realm.h"
#include "model/user.h"

/* The latest timestamp a draft may carry (9999-12-31T23:59:59Z, as far as the reference's datetime reaches). */
#define MAX_DRAFT_TIMESTAMP 253402300799.0

/* A draft ready for the database. */
struct draft_row {
	const char *type;
	const char *recipients; /* "{1,2}" */
	const char *topic;
	const char *content;
	const char *timestamp; /* seconds, %.6f */
};

/* The timestamp rounded to microseconds, now when none was sent: "Timestamp must not be negative.". */
static const char *draft_timestamp(struct request *req, const char *var, json_object *ts)
{
	double t;
	if (ts == NULL) {
		struct timespec now;
		clock_gettime(CLOCK_REALTIME, &now);
		t = (double)now.tv_sec + (double)now.tv_nsec / 1e9;
	} else {
		t = json_object_get_double(ts);
		/* Python's round(t, 6), for the values that can pass (no libm) */
		if (t > -1 && t <= MAX_DRAFT_TIMESTAMP) {
			double us = t * 1e6;
			t = (double)(int64_t)(us + (us >= 0 ? 0.5 : -0.5)) / 1e6;
		}
	}
	if (t < 0) {
		api_error(req, ERR_BAD_REQUEST, "Timestamp must not be negative.");
		return NULL;
	}
	if (t > MAX_DRAFT_TIMESTAMP) {
		api_error(req, ERR_BAD_REQUEST, "%s[\"timestamp\"] is too large", var);
		return NULL;
	}
	return arena_printf(&req->arena, "%.6f", t);
}

/*
 * The other participants of a direct-message draft, sorted (the user alone for a note to self), as the
 * reference's recipient_for_user_profiles finds them: "Invalid user ID N" for an id that is not a user of the
 * organization, "'x' is no longer using Zulip." for a deactivated one. NULL with the error recorded.
 */
static const char *direct_recipients(struct request *req, json_object *to)
{
	struct message_user *users;
	int n;
	const char *refusal = NULL;
	int rc = message_lookup_direct(&req->uow, json_object_to_json_string(to), &users, &n, &refusal);
	if (rc != 0) {
		if (rc > 0)
			api_error(req, ERR_BAD_REQUEST, "%s", refusal);
		return NULL;
	}
	int64_t *ids = arena_alloc(&req->arena, (size_t)(n + 1) * sizeof(*ids));
	int k = 0;
	for (int i = 0; i < n; i++) {
		if (!users[i].is_active) {
			api_error(req, ERR_BAD_REQUEST, "'%s' is no longer using Zulip.", users[i].api_email);
			return NULL;
		}
		if (users[i].id != req->user->id)
			ids[k++] = users[i].id;
	}
	if (k == 0)
		ids[k++] = req->user->id;
	return db_arg_ids(&req->uow, ids, k);
}

/* The reference's further_validated_draft_dict: the draft as stored, or -1 with its error recorded. */
static int draft_row(struct request *req, const char *var, const struct draft *d, struct draft_row *row)
{
	*row = (struct draft_row){"", "{}", "", NULL, NULL};
	row->content = message_normalize_content(&req->uow, json_object_get_string(d->content),
	                                         (size_t)json_object_get_string_len(d->content));
	if (row->content == NULL || (row->timestamp = draft_timestamp(req, var, d->timestamp)) == NULL)
		return -1;
	size_t nto = json_object_array_length(d->to);
	if (strcmp(d->type, "stream") == 0) {
		const char *topic = json_object_get_string(d->topic);
		if (memchr(topic, '\0', (size_t)json_object_get_string_len(d->topic)) != NULL)
			return api_error(req, ERR_BAD_REQUEST, "Topic must not contain null bytes");
		if (nto != 1)
			return api_error(req, ERR_BAD_REQUEST,
			                 "Must specify exactly 1 channel ID for channel messages");
		int64_t channel_id = json_object_get_int64(json_object_array_get_idx(d->to, 0));
		if (channel_access_by_id(&req->uow, channel_id, true) == NULL)
			return -1;
		*row = (struct draft_row){"stream", db_arg_ids(&req->uow, &channel_id, 1),
		                          message_truncate_topic(&req->uow, topic), row->content, row->timestamp};
	} else if (strcmp(d->type, "private") == 0 && nto > 0) {
		row->type = "private";
		if ((row->recipients = direct_recipients(req, d->to)) == NULL)
			return -1;
	}
	return 0;
}

/* GET /api/v1/drafts */
int drafts_list(struct request *req)
{
	if (personal_check_drafts_enabled(&req->uow, req->user->id) < 0)
		return -1;
	json_object *list = personal_drafts_json(&req->uow, req->user->id, false);
	if (list == NULL)
		return -1;
	json_object_object_add(request_result(req), "count",
	                       json_object_new_int64((int64_t)json_object_array_length(list)));
	json_object_object_add(request_result(req), "drafts", list);
	return 0;
}

static struct db_stmt st_create =
    DB_STMT("INSERT INTO drafts AS d (user_id, type, recipients, topic, content, last_edit_time)"
            " VALUES ($1, $2, $3::bigint[], $4, $5, $6::double precision) RETURNING d.id, " DRAFT_JSON);

/* POST /api/v1/drafts: every draft is checked before any is written, and all are written in one transaction. */
int drafts_create(struct request *req)
{
	if (personal_check_drafts_enabled(&req->uow, req->user->id) < 0)
		return -1;
	struct draft *drafts;
	size_t n;
	if (shape_drafts(req, param_json(req, "drafts"), &drafts, &n) < 0)
		return -1;
	struct draft_row *rows = arena_alloc(&req->arena, (n + 1) * sizeof(*rows));
	for (size_t i = 0; i < n; i++)
		if (draft_row(req, arena_printf(&req->arena, "drafts[%zu]", i), &drafts[i], &rows[i]) < 0)
			return -1;
	json_object *ids = json_object_new_array(), *created = json_object_new_array();
	json_object_object_add(request_result(req), "ids", ids);
	json_object *event = personal_new_event(&req->uow, "drafts", "add");
	json_object_object_add(event, "drafts", created);
	for (size_t i = 0; i < n; i++) {
		struct db_res *res = DB_EXEC(&req->uow, &st_create, db_arg_int(&req->uow, req->user->id), rows[i].type,
		                             rows[i].recipients, rows[i].topic, rows[i].content, rows[i].timestamp);
		if (res == NULL)
			return -1;
		json_object_array_add(ids, json_object_new_int64(db_int(res, 0, 0)));
		json_object_array_add(created, personal_parse(db_val(res, 0, 1)));
	}
	return personal_event(&req->uow, event, req->user->id);
}

static struct db_stmt st_own = DB_STMT("SELECT 1 FROM drafts WHERE id = $1 AND user_id = $2 FOR UPDATE");
static struct db_stmt st_edit =
    DB_STMT("UPDATE drafts AS d SET type = $3, recipients = $4::bigint[], topic = $5, content = $6,"
            " last_edit_time = $7::double precision WHERE d.id = $1 AND d.user_id = $2 RETURNING " DRAFT_JSON);

/* PATCH /api/v1/drafts/{draft_id} */
int drafts_edit(struct request *req)
{
	if (personal_check_drafts_enabled(&req->uow, req->user->id) < 0)
		return -1;
	struct draft d;
	struct draft_row row;
	if (shape_draft(req, "draft", param_json(req, "draft"), &d) < 0)
		return -1;
	const char *id = db_arg_int(&req->uow, param_int(req, "draft_id"));
	const char *uid = db_arg_int(&req->uow, req->user->id);
	struct db_res *res = DB_EXEC(&req->uow, &st_own, id, uid);
	if (res == NULL)
		return -1;
	if (db_rows(res) == 0)
		return api_error(req, ERR_NOT_FOUND, "Draft does not exist");
	if (draft_row(req, "draft", &d, &row) < 0)
		return -1;
	res = DB_EXEC(&req->uow, &st_edit, id, uid, row.type, row.recipients, row.topic, row.content, row.timestamp);
	if (res == NULL)
		return -1;
	json_object *event = personal_new_event(&req->uow, "drafts", "update");
	json_object_object_add(event, "draft", personal_parse(db_val(res, 0, 0)));
	return personal_event(&req->uow, event, req->user->id);
}

static struct db_stmt st_delete = DB_STMT("DELETE FROM drafts WHERE id = $1 AND user_id = $2 RETURNING id");

/* DELETE /api/v1/drafts/{draft_id} */
int drafts_delete(struct request *req)
{
	if (personal_check_drafts_enabled(&req->uow, req->user->id) < 0)
		return -1;
	int64_t id = param_int(req, "draft_id");
	struct db_res *res =
	    DB_EXEC(&req->uow, &st_delete, db_arg_int(&req->uow, id), db_arg_int(&req->uow, req->user->id));
	if (res == NULL)
		return -1;
	if (db_rows(res) == 0)
		return api_error(req, ERR_NOT_FOUND, "Draft does not exist");
	json_object *event = personal_new_event(&req->uow, "drafts", "remove");
	json_object_object_add(event, "draft_id", json_object_new_int64(id));
	return personal_event(&req->uow, event, req->user->id);
}
