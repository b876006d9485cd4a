/* The disk space of uploads: quota, lists, deletion, attachment events, the reaper's cleanup (attachment_space.h). */
#include "model/attachment_space.h"

#include <string.h>

#include "core/config.h"
#include "core/jsonx.h"
#include "core/uow.h"
#include "db/db.h"
#include "events/events.h"
#include "model/attachments.h"
#include "model/realm.h"
#include "model/user.h"

/* The sizes of the uploads of organization r (an SQL expression on `realms r`): an index-only scan of
 * attachments_realm_size. */
#define SPACE_USED "(SELECT COALESCE(sum(s.size), 0) FROM attachments s WHERE s.realm_id = r.id)"

/* Whether $3 more bytes fit the quota of organization $1 ($2: the server's upload_quota_gb); the sum only when
 * there is a quota (a CASE branch not taken is not evaluated). */
static struct db_stmt st_within_quota =
    DB_STMT("SELECT CASE WHEN q.quota IS NULL THEN true ELSE " SPACE_USED " + $3 <= q.quota END FROM realms r,"
            " LATERAL (SELECT COALESCE(r.custom_upload_quota_gb, NULLIF($2::int, 0))::bigint << 30 AS quota) q"
            " WHERE r.id = $1");

int attachment_space_check_quota(struct uow *uow, int64_t size)
{
	struct db_res *res = DB_EXEC(uow, &st_within_quota, db_arg_int(uow, uow->realm->id),
	                             db_arg_int(uow, uow->worker->cfg->upload_quota_gb), db_arg_int(uow, size));
	if (res == NULL)
		return -1;
	if (db_rows(res) == 0 || !db_bool(res, 0, 0))
		return uow_error(uow, ERR_REALM_UPLOAD_QUOTA, NULL);
	return 0;
}

/*
 * The lock that makes the quota exact: taken, when the organization has a quota, by an upload whose row is inserted,
 * and held until its COMMIT, so that the uploads of one organization pass their last check one at a time. A
 * statement of its own: the check after it takes its snapshot once the lock is held, and so sees every upload the
 * previous holder committed.
 */
static struct db_stmt st_quota_lock =
    DB_STMT("SELECT pg_advisory_xact_lock((7261029::bigint << 32) + r.id) FROM realms r WHERE r.id = $1"
            " AND COALESCE(r.custom_upload_quota_gb, NULLIF($2::int, 0)) IS NOT NULL");

int attachment_space_hold_quota(struct uow *uow)
{
	if (DB_EXEC(uow, &st_quota_lock, db_arg_int(uow, uow->realm->id),
	            db_arg_int(uow, uow->worker->cfg->upload_quota_gb)) == NULL)
		return -1;
	return attachment_space_check_quota(uow, 0);
}

static struct db_stmt st_space_used = DB_STMT("SELECT " SPACE_USED " FROM realms r WHERE r.id = $1");

int64_t attachment_space_used(struct uow *uow, int64_t realm_id)
{
	struct db_res *res = DB_EXEC(uow, &st_space_used, db_arg_int(uow, realm_id));
	return res == NULL ? -1 : db_rows(res) == 0 ? 0 : db_int(res, 0, 0);
}

/* The JSON text in column 0 of row of res, parsed: a new value, or NULL. */
static json_object *parse_cell(const struct db_res *res, int row)
{
	json_object *out = NULL;
	if (res == NULL || jsonx_parse(db_val(res, row, 0), strlen(db_val(res, row, 0)), &out) < 0)
		return NULL;
	return out;
}

static struct db_stmt st_list = DB_STMT("SELECT COALESCE(json_agg(" ATTACHMENT_JSON " ORDER BY a.id), '[]')::text "
                                        "FROM attachments a WHERE a.owner_id = $1");

json_object *attachment_space_list(struct uow *uow)
{
	return parse_cell(DB_EXEC(uow, &st_list, db_arg_int(uow, uow->user->id)), 0);
}

/* Records {"type": "attachment", "op": op, "attachment": attachment, "upload_space_used": used} for user_id's
 * queues; takes attachment. */
static int add_event(struct uow *uow, int64_t user_id, const char *op, json_object *attachment, int64_t used)
{
	json_object *event = events_new(uow, "attachment", op);
	json_object_object_add(event, "attachment", attachment);
	json_object_object_add(event, "upload_space_used", json_object_new_int64(used));
	return events_add(uow, event, &user_id, 1, 0);
}

/* One "op" event for user_id per row of res: ATTACHMENT_JSON text, the organization's upload_space_used. */
static int events_of_rows(struct uow *uow, struct db_res *res, int64_t user_id, const char *op)
{
	if (res == NULL)
		return -1;
	for (int i = 0; i < db_rows(res); i++)
		add_event(uow, user_id, op, parse_cell(res, i), db_int(res, i, 1));
	return 0;
}

/* The columns events_of_rows() reads, on `attachments a JOIN realms r`. */
#define EVENT_COLUMNS ATTACHMENT_JSON "::text, " SPACE_USED

static struct db_stmt st_one = DB_STMT("SELECT " EVENT_COLUMNS " FROM attachments a JOIN realms r ON r.id = a.realm_id "
                                       "WHERE a.id = $1");

int attachment_space_added(struct uow *uow, int64_t attachment_id)
{
	return events_of_rows(uow, DB_EXEC(uow, &st_one, db_arg_int(uow, attachment_id)), uow->user->id, "add");
}

static struct db_stmt st_claimed =
    DB_STMT("SELECT " EVENT_COLUMNS " FROM attachments a JOIN realms r ON r.id = a.realm_id "
            "JOIN attachment_messages l ON l.attachment_id = a.id "
            "WHERE l.message_id = $1 AND a.id <> ALL ($2::bigint[]) ORDER BY a.id");

int attachment_space_claimed(struct uow *uow, int64_t message_id, int64_t sender_id, const int64_t *previous_ids, int n)
{
	struct db_res *res = DB_EXEC(uow, &st_claimed, db_arg_int(uow, message_id), db_arg_ids(uow, previous_ids, n));
	return events_of_rows(uow, res, sender_id, "update");
}

static struct db_stmt st_delete =
    DB_STMT("DELETE FROM attachments WHERE id = $1 AND owner_id = $2 RETURNING path_id, realm_id");

int attachment_space_delete(struct uow *uow, int64_t attachment_id)
{
	struct db_res *res = DB_EXEC(uow, &st_delete, db_arg_int(uow, attachment_id), db_arg_int(uow, uow->user->id));
	if (res == NULL)
		return -1;
	if (db_rows(res) == 0)
		return uow_error(uow, ERR_BAD_REQUEST, "Invalid attachment");
	attachments_remove_file_at_commit(uow, db_val(res, 0, 0));
	int64_t used = attachment_space_used(uow, db_int(res, 0, 1));
	if (used < 0)
		return -1;
	json_object *removed = json_object_new_object();
	json_object_object_add(removed, "id", json_object_new_int64(attachment_id));
	return add_event(uow, uow->user->id, "remove", removed, used);
}

/*
 * The oldest unclaimed uploads past the grace period ($1 days): linked by no message, and named by no scheduled
 * message still to be sent (those are linked only when sent; the reference links them at once). Rows a request is
 * linking or deleting hold a lock and are skipped.
 */
static struct db_stmt st_reap_claim =
    DB_STMT("SELECT a.id, a.path_id FROM attachments a WHERE a.create_time < now() - make_interval(days => $1::int) "
            "AND NOT EXISTS (SELECT 1 FROM attachment_messages am WHERE am.attachment_id = a.id) "
            "AND NOT EXISTS (SELECT 1 FROM scheduled_messages s WHERE s.realm_id = a.realm_id AND NOT s.delivered "
            "AND strpos(s.content, a.path_id) > 0) "
            "ORDER BY a.create_time LIMIT $2 FOR UPDATE OF a SKIP LOCKED");
static struct db_stmt st_reap_delete = DB_STMT("DELETE FROM attachments WHERE id = ANY ($1::bigint[])");

int attachment_space_reap(struct uow *uow, int days)
{
	struct db_res *res = NULL;
	if (db_begin(uow) < 0 ||
	    (res = DB_EXEC(uow, &st_reap_claim, db_arg_int(uow, days), db_arg_int(uow, ATTACHMENT_REAP_BATCH))) == NULL)
		return -1;
	int n = db_rows(res);
	if (n == 0)
		return db_commit(uow) < 0 ? -1 : 0;
	for (int i = 0; i < n; i++)
		attachments_remove_file_at_commit(uow, db_val(res, i, 1));
	int64_t *ids = db_ids(uow, res, 0, &n);
	if (DB_EXEC_COMMIT(uow, &st_reap_delete, db_arg_ids(uow, ids, n)) == NULL)
		return -1;
	return n;
}
