/*
 * Message retention (the reference's zerver/lib/retention.py, which archives what confab deletes): the reaper runs
 * it every retention_interval seconds, confabctl retention-run on demand.
 */
#include "model/retention.h"

#include "core/log.h"
#include "core/uow.h"
#include "db/db.h"
#include "events/events.h"
#include "model/channels.h"
#include "model/messages.h"
#include "model/realm.h"

/* The channel's retention, else the organization's; a positive number of days, else forever. Locked, and rows
 * another run holds skipped, so that two runs at once delete each message once. */
static struct db_stmt st_expired =
    DB_STMT("SELECT m.id, COALESCE(m.channel_id, 0), " REALM_COLUMNS " FROM messages m"
            " JOIN realms r ON r.id = m.realm_id LEFT JOIN channels c ON c.id = m.channel_id"
            " WHERE COALESCE(c.message_retention_days, r.message_retention_days, -1) > 0"
            "   AND m.date_sent < now() - make_interval(days => COALESCE(c.message_retention_days,"
            "                                                               r.message_retention_days))"
            " ORDER BY m.id LIMIT $1 FOR UPDATE OF m SKIP LOCKED");

/* One expired message: its events, then the row (user_messages and attachment links cascade). The channel is
 * loaded again for each message: deleting its first message moves its first_message_id on. */
static int delete_one(struct uow *uow, const struct db_res *res, int i)
{
	uow->realm = realm_from_row(uow, res, i, 2);
	struct message_ref m = {.id = db_int(res, i, 0), .channel_id = db_int(res, i, 1)};
	if (m.channel_id != 0 && (m.channel = channel_by_id(uow, m.channel_id)) == NULL)
		return uow_error(uow, ERR_INTERNAL, NULL); /* keeps a failure recorded first */
	return message_events_delete(uow, &m) < 0 ? -1 : message_delete(uow, m.id);
}

int retention_delete_batch(struct uow *uow, int limit)
{
	if (db_begin(uow) < 0)
		return -1;
	struct db_res *res = DB_EXEC(uow, &st_expired, db_arg_int(uow, limit));
	if (res == NULL)
		return -1;
	for (int i = 0; i < db_rows(res); i++)
		if (delete_one(uow, res, i) < 0)
			return -1;
	if (events_outbox_write(uow) < 0 || db_commit(uow) < 0)
		return -1;
	events_publish(uow);
	events_outbox_clear(uow);
	return db_rows(res);
}

long retention_run(struct worker *w, unsigned long long id)
{
	long total = 0;
	for (int n = RETENTION_BATCH; n == RETENTION_BATCH;) {
		struct uow uow;
		uow_init(&uow, w, id);
		n = retention_delete_batch(&uow, RETENTION_BATCH);
		if (n < 0)
			log_msg(LOG_WARNING, "message retention failed: %s", uow.error_msg ? uow.error_msg : "?");
		uow_finish(&uow);
		if (n < 0)
			return -1;
		total += n;
	}
	if (total > 0)
		log_msg(LOG_INFO, "message retention: deleted %ld messages", total);
	return total;
}
