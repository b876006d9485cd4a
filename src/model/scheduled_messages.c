/*
 * Scheduled messages: the checks of a message sent now, the rows of migrations/0011_scheduled_messages.sql (whose
 * confab_scheduled_message_json() gives the API object everywhere: responses, register and events), and delivery
 * for confab-reaper (zerver/actions/scheduled_messages.py try_deliver_one_scheduled_message).
 */
#include "model/scheduled_messages.h"

#include <string.h>
#include <time.h>

#include "core/jsonx.h"
#include "core/uow.h"
#include "db/db.h"
#include "events/events.h"
#include "model/channels.h"
#include "model/markdown.h"
#include "model/messages.h"
#include "model/notify.h"
#include "model/realm.h"
#include "model/user.h"

/* ---- checks -------------------------------------------------------------------------------------------------- */

/* Addressee.legacy_build and check_message for a channel message (the order of POST /messages). */
static int check_channel(struct uow *uow, const struct scheduled_target *t, struct message_draft *d)
{
	if (!json_object_is_type(t->to, json_type_int))
		return uow_error(uow, ERR_BAD_REQUEST, "Invalid data type for channel ID");
	if (t->topic == NULL)
		return uow_error(uow, ERR_BAD_REQUEST, "Missing topic");
	if ((d->topic = message_clean_topic(uow, t->topic, t->topic_len)) == NULL ||
	    (d->content = message_normalize_content(uow, t->content, t->content_len)) == NULL)
		return -1;
	d->topic = message_truncate_topic(uow, d->topic);
	const struct channel *c = message_channel_for_send(uow, json_object_get_int64(t->to), NULL);
	if (c == NULL || message_check_channel_send(uow, c, d->topic) < 0)
		return -1;
	d->channel = c;
	return 0;
}

/* The same for a direct message (the topic is ignored). */
static int check_direct(struct uow *uow, const struct scheduled_target *t, struct message_draft *d)
{
	if (!json_object_is_type(t->to, json_type_array))
		return uow_error(uow, ERR_BAD_REQUEST, "Invalid data type for recipients");
	struct message_user *users;
	int n;
	int64_t *participants;
	if (message_resolve_direct(uow, jsonx_string(t->to), &users, &n) < 0 ||
	    (d->content = message_normalize_content(uow, t->content, t->content_len)) == NULL ||
	    message_check_direct(uow, users, n, &participants, &d->n_participants) < 0)
		return -1;
	d->participants = participants;
	d->topic = "";
	return 0;
}

int scheduled_message_check(struct uow *uow, const struct scheduled_target *t, struct message_draft *d,
                            const char **rendered)
{
	memset(d, 0, sizeof(*d));
	d->sender = uow->user;
	if ((t->to_channel ? check_channel(uow, t, d) : check_direct(uow, t, d)) < 0)
		return -1;
	if (rendered == NULL)
		return 0;
	struct markdown_result md;
	if (message_render(uow, d, &md) < 0)
		return -1;
	*rendered = md.html;
	return 0;
}

/* ---- rows and events ----------------------------------------------------------------------------------------- */

static int emit(struct uow *uow, const char *op, const char *key, json_object *value, int64_t user_id)
{
	json_object *event = uow_own_json(uow, json_object_new_object());
	json_object_object_add(event, "type", json_object_new_string("scheduled_messages"));
	json_object_object_add(event, "op", json_object_new_string(op));
	json_object_object_add(event, key, value);
	return events_add(uow, event, &user_id, 1, 0);
}

/* The event carrying the object text obj (confab_scheduled_message_json()): add (in a list) or update. */
static int emit_object(struct uow *uow, const char *op, const char *obj, int64_t user_id)
{
	json_object *o = NULL;
	if (jsonx_parse(obj, strlen(obj), &o) < 0 || o == NULL)
		return uow_error(uow, ERR_INTERNAL, NULL);
	if (strcmp(op, "add") != 0)
		return emit(uow, op, "scheduled_message", o, user_id);
	json_object *list = json_object_new_array();
	json_object_array_add(list, o);
	return emit(uow, op, "scheduled_messages", list, user_id);
}

static const char *participants_arg(struct uow *uow, const struct message_draft *d)
{
	return d->channel ? NULL : db_arg_ids(uow, d->participants, d->n_participants);
}

static const char *channel_arg(struct uow *uow, const struct message_draft *d)
{
	return d->channel ? db_arg_int(uow, d->channel->id) : NULL;
}

static struct db_stmt st_insert =
    DB_STMT("INSERT INTO scheduled_messages AS s (realm_id, sender_id, channel_id, topic, participants, content,"
            " rendered_content, scheduled_at, read_by_sender)"
            " VALUES ($1, $2, $3, $4, $5::bigint[], $6, $7, to_timestamp($8::bigint), $9)"
            " RETURNING s.id, confab_scheduled_message_json(s)::text");

int64_t scheduled_message_create(struct uow *uow, const struct message_draft *d, const char *rendered,
                                 int64_t deliver_at)
{
	struct db_res *res = DB_EXEC(uow, &st_insert, db_arg_int(uow, uow->realm->id), db_arg_int(uow, uow->user->id),
	                             channel_arg(uow, d), d->topic, participants_arg(uow, d), d->content, rendered,
	                             db_arg_int(uow, deliver_at), d->read_by_sender ? "true" : "false");
	if (res == NULL || emit_object(uow, "add", db_val(res, 0, 1), uow->user->id) < 0)
		return 0;
	return db_int(res, 0, 0);
}

/* FOR NO KEY UPDATE: the lock the reaper's claim takes, so an edit waits for a delivery in progress. */
static struct db_stmt st_find = DB_STMT(
    "SELECT s.id, COALESCE(s.channel_id, 0), s.topic, (confab_scheduled_message_json(s) -> 'to')::text, s.content,"
    " s.delivered, s.failed FROM scheduled_messages s WHERE s.id = $1 AND s.sender_id = $2 FOR NO KEY UPDATE");

struct scheduled_message *scheduled_message_find(struct uow *uow, int64_t id)
{
	struct db_res *res = DB_EXEC(uow, &st_find, db_arg_int(uow, id), db_arg_int(uow, uow->user->id));
	if (res == NULL || db_rows(res) == 0)
		return NULL;
	struct scheduled_message *m = arena_alloc(&uow->arena, sizeof(*m));
	*m = (struct scheduled_message){.id = db_int(res, 0, 0),
	                                .channel_id = db_int(res, 0, 1),
	                                .topic = db_val(res, 0, 2),
	                                .content = db_val(res, 0, 4),
	                                .delivered = db_bool(res, 0, 5),
	                                .failed = db_bool(res, 0, 6)};
	if (jsonx_parse(db_val(res, 0, 3), strlen(db_val(res, 0, 3)), &m->to) < 0) {
		uow_error(uow, ERR_INTERNAL, NULL);
		return NULL;
	}
	uow_own_json(uow, m->to);
	return m;
}

struct scheduled_message *scheduled_message_find_or_error(struct uow *uow, int64_t id)
{
	struct scheduled_message *m = scheduled_message_find(uow, id);
	if (m == NULL)
		uow_error(uow, ERR_NOT_FOUND, "Scheduled message does not exist");
	return m;
}

static struct db_stmt st_update =
    DB_STMT("UPDATE scheduled_messages AS s SET"
            " channel_id = CASE WHEN $2 THEN $3::bigint ELSE s.channel_id END,"
            " participants = CASE WHEN $2 THEN $4::bigint[] ELSE s.participants END,"
            " topic = COALESCE($5, s.topic), content = COALESCE($6, s.content),"
            " rendered_content = COALESCE($7, s.rendered_content),"
            " scheduled_at = COALESCE(to_timestamp($8::bigint), s.scheduled_at), failed = false, failure_message = NULL"
            " WHERE s.id = $1 RETURNING confab_scheduled_message_json(s)::text");

int scheduled_message_update(struct uow *uow, const struct scheduled_message *m, const struct scheduled_change *c)
{
	const struct message_draft *d = c->draft;
	const char *topic = c->topic;
	if (c->set_recipient)
		topic = d->channel ? d->topic : "";
	struct db_res *res =
	    DB_EXEC(uow, &st_update, db_arg_int(uow, m->id), c->set_recipient ? "true" : "false",
	            c->set_recipient ? channel_arg(uow, d) : NULL, c->set_recipient ? participants_arg(uow, d) : NULL,
	            topic, c->set_content ? d->content : NULL, c->set_content ? c->rendered : NULL,
	            c->deliver_at ? db_arg_int(uow, c->deliver_at) : NULL);
	if (res == NULL)
		return -1;
	return emit_object(uow, "update", db_val(res, 0, 0), uow->user->id);
}

static struct db_stmt st_delete = DB_STMT("DELETE FROM scheduled_messages WHERE id = $1");

int scheduled_message_delete(struct uow *uow, int64_t id)
{
	if (DB_EXEC(uow, &st_delete, db_arg_int(uow, id)) == NULL)
		return -1;
	return emit(uow, "remove", "scheduled_message_id", json_object_new_int64(id), uow->user->id);
}

static struct db_stmt st_list =
    DB_STMT("SELECT COALESCE(jsonb_agg(confab_scheduled_message_json(s) ORDER BY s.scheduled_at, s.id), '[]')::text"
            " FROM scheduled_messages s WHERE s.sender_id = $1 AND NOT s.delivered");

json_object *scheduled_messages_json(struct uow *uow)
{
	if (uow->user == NULL)
		return uow_own_json(uow, json_object_new_array());
	struct db_res *res = DB_EXEC(uow, &st_list, db_arg_int(uow, uow->user->id));
	json_object *list = NULL;
	if (res == NULL)
		return NULL;
	if (jsonx_parse(db_val(res, 0, 0), strlen(db_val(res, 0, 0)), &list) < 0 || list == NULL) {
		uow_error(uow, ERR_INTERNAL, NULL);
		return NULL;
	}
	return uow_own_json(uow, list);
}

/* ---- delivery ------------------------------------------------------------------------------------------------ */

static struct db_stmt st_realm = DB_STMT("SELECT " REALM_COLUMNS " FROM realms r WHERE r.id = $1");

/* Makes the sender of a claimed row the acting user: the send checks are theirs. */
static int act_as(struct uow *uow, int64_t realm_id, int64_t sender_id)
{
	struct db_res *res = DB_EXEC(uow, &st_realm, db_arg_int(uow, realm_id));
	if (res == NULL)
		return -1;
	uow->realm = db_rows(res) ? realm_from_row(uow, res, 0, 0) : NULL;
	uow->user = uow->realm ? user_by_id(uow, realm_id, sender_id) : NULL;
	return uow->user ? 0 : uow_error(uow, ERR_INTERNAL, NULL);
}

/* The oldest due row no other reaper holds. Its lock lasts until the transaction that sends it ends. */
static struct db_stmt st_claim =
    DB_STMT("SELECT s.id, s.realm_id, s.sender_id, COALESCE(s.channel_id, 0), s.topic,"
            " (confab_scheduled_message_json(s) -> 'to')::text, s.content, s.read_by_sender,"
            " extract(epoch FROM now() - s.scheduled_at) > $1"
            " FROM scheduled_messages s WHERE NOT s.delivered AND NOT s.failed AND s.scheduled_at <= now()"
            " ORDER BY s.scheduled_at, s.id LIMIT 1 FOR NO KEY UPDATE SKIP LOCKED");
static struct db_stmt st_delivered =
    DB_STMT("UPDATE scheduled_messages SET delivered = true, delivered_message_id = $2 WHERE id = $1");

/* send_scheduled_message: the organization and the sender are checked again, then everything a send checks. */
static int send_claimed(struct uow *uow, struct db_res *res)
{
	if (act_as(uow, db_int(res, 0, 1), db_int(res, 0, 2)) < 0)
		return -1;
	if (uow->realm->deactivated)
		return uow_error(uow, ERR_BAD_REQUEST, "This organization has been deactivated");
	if (!uow->user->is_active)
		return uow_error(uow, ERR_BAD_REQUEST, "Account is deactivated");
	if (db_bool(res, 0, 8))
		return uow_error(uow, ERR_BAD_REQUEST, "Message could not be sent at the scheduled time.");
	json_object *to = NULL;
	const char *topic = db_val(res, 0, 4), *content = db_val(res, 0, 6);
	if (jsonx_parse(db_val(res, 0, 5), strlen(db_val(res, 0, 5)), &to) < 0)
		return uow_error(uow, ERR_INTERNAL, NULL);
	struct scheduled_target t = {db_int(res, 0, 3) != 0, uow_own_json(uow, to), topic, strlen(topic), content,
	                             strlen(content)};
	struct message_draft d;
	struct message_sent sent;
	if (scheduled_message_check(uow, &t, &d, NULL) < 0)
		return -1;
	d.read_by_sender = db_bool(res, 0, 7);
	if (message_send(uow, &d, &sent) < 0 || message_events_send(uow, &d, &sent, NULL, NULL) < 0 ||
	    DB_EXEC(uow, &st_delivered, db_arg_int(uow, db_int(res, 0, 0)), db_arg_int(uow, sent.id)) == NULL)
		return -1;
	return emit(uow, "remove", "scheduled_message_id", json_object_new_int64(db_int(res, 0, 0)), uow->user->id);
}

int scheduled_message_deliver_due(struct uow *uow, int64_t *id)
{
	*id = 0;
	struct db_res *res;
	if (db_begin(uow) < 0 ||
	    (res = DB_EXEC(uow, &st_claim, db_arg_int(uow, SCHEDULED_MESSAGE_LATE_CUTOFF_SECS))) == NULL)
		return -1;
	if (db_rows(res) == 0)
		return 0;
	*id = db_int(res, 0, 0);
	return send_claimed(uow, res) < 0 ? -1 : 1;
}

static struct db_stmt st_claim_failed = DB_STMT(
    "SELECT s.realm_id, s.sender_id, floor(extract(epoch FROM s.scheduled_at))::bigint FROM scheduled_messages s"
    " WHERE s.id = $1 AND NOT s.delivered AND NOT s.failed FOR NO KEY UPDATE SKIP LOCKED");
static struct db_stmt st_failed =
    DB_STMT("UPDATE scheduled_messages AS s SET failed = true, failure_message = $2 WHERE s.id = $1"
            " RETURNING confab_scheduled_message_json(s)::text");
/* send_failed_scheduled_message_notification: a direct message from Notification Bot to the sender. */
static int notify_failure(struct uow *uow, int64_t deliver_at, const char *reason)
{
	char when[64];
	time_t t = (time_t)deliver_at;
	struct tm tm;
	strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%S+00:00", gmtime_r(&t, &tm));
	const char *content = arena_printf(&uow->arena,
	                                   "The message you scheduled for <time:%s> was not sent because of the "
	                                   "following error:\n\n> %s\n\n[View scheduled messages](#scheduled)\n\n",
	                                   when, reason);
	return notify_direct(uow, uow->user->id, content) ? 0 : -1;
}

int scheduled_message_fail(struct uow *uow, int64_t id, const char *reason)
{
	struct db_res *res, *upd;
	if (db_begin(uow) < 0 || (res = DB_EXEC(uow, &st_claim_failed, db_arg_int(uow, id))) == NULL)
		return -1;
	if (db_rows(res) == 0) /* delivered, failed or being handled meanwhile */
		return 0;
	if (act_as(uow, db_int(res, 0, 0), db_int(res, 0, 1)) < 0 ||
	    (upd = DB_EXEC(uow, &st_failed, db_arg_int(uow, id), reason)) == NULL)
		return -1;
	/* No one reads a notice to a deactivated account or organization. */
	if (uow->realm->deactivated || !uow->user->is_active)
		return 0;
	if (emit_object(uow, "update", db_val(upd, 0, 0), uow->user->id) < 0)
		return -1;
	return notify_failure(uow, db_int(res, 0, 2), reason);
}

static struct db_stmt st_counts = DB_STMT(
    "SELECT (SELECT count(*) FROM scheduled_messages WHERE NOT delivered AND NOT failed AND scheduled_at < now()),"
    " (SELECT count(*) FROM scheduled_messages WHERE failed)");

int scheduled_messages_counts(struct uow *uow, long long *due, long long *failed)
{
	struct db_res *res = DB_TRY_EXEC(uow, &st_counts);
	if (res == NULL)
		return -1;
	*due = db_int(res, 0, 0);
	*failed = db_int(res, 0, 1);
	return 0;
}
