/* Marking many messages read at once; see message_read.h. */
#include "model/message_read.h"

#include <time.h>

#include "core/uow.h"
#include "db/db.h"
#include "events/events.h"
#include "model/channels.h"
#include "model/user.h"

#define STR_(x) #x
#define STR(x)  STR_(x)

/* One batch, newest first, by user_messages_unread. */
static struct db_stmt st_read_batch =
    DB_STMT("WITH u AS (UPDATE user_messages SET flags = flags | 1 WHERE user_id = $1 AND message_id IN ("
            "   SELECT message_id FROM user_messages WHERE user_id = $1 AND flags & 1 = 0"
            "    ORDER BY message_id DESC LIMIT " STR(MESSAGE_READ_BATCH) " FOR UPDATE) RETURNING 1)"
                                                                          " SELECT count(*) FROM u");
/* The unread copies of one channel (and topic), by user_messages_unread and the messages' primary key. */
static struct db_stmt st_read_channel =
    DB_STMT("WITH u AS (UPDATE user_messages um SET flags = um.flags | 1 FROM messages m"
            "   WHERE um.user_id = $1 AND um.flags & 1 = 0 AND m.id = um.message_id AND m.channel_id = $2"
            "     AND ($3::text IS NULL OR lower(m.topic) = lower($3)) RETURNING um.message_id)"
            " SELECT message_id FROM u ORDER BY 1");
/* By messages_channel_topic, each message checked against the user's copies by user_messages_pkey. */
static struct db_stmt st_topic_exists =
    DB_STMT("SELECT EXISTS (SELECT 1 FROM messages m WHERE m.channel_id = $2 AND lower(m.topic) = lower($3)"
            " AND EXISTS (SELECT 1 FROM user_messages um WHERE um.user_id = $1 AND um.message_id = m.id))");

static double monotonic_secs(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* The event: ReadMessagesEvent. */
static int read_event(struct uow *uow, json_object *messages, bool all)
{
	json_object *event = events_new(uow, "update_message_flags", NULL);
	json_object_object_add(event, "op", json_object_new_string("add"));
	json_object_object_add(event, "operation", json_object_new_string("add"));
	json_object_object_add(event, "flag", json_object_new_string("read"));
	json_object_object_add(event, "messages", messages);
	json_object_object_add(event, "all", json_object_new_boolean(all));
	return events_add(uow, event, &uow->user->id, 1, 0);
}

int message_read_all(struct uow *uow, bool *complete)
{
	double deadline = monotonic_secs() + MESSAGE_READ_ALL_TIMEOUT;
	const char *user = db_arg_int(uow, uow->user->id);
	*complete = false;
	for (;;) {
		if (monotonic_secs() >= deadline)
			return 0;
		struct db_res *res = DB_EXEC(uow, &st_read_batch, user);
		if (res == NULL)
			return -1;
		if (db_int(res, 0, 0) < MESSAGE_READ_BATCH)
			break;
		if (events_commit_step(uow) < 0)
			return -1;
	}
	*complete = true;
	/* No ids: clients reload their unread data. */
	return read_event(uow, json_object_new_array(), true);
}

int message_read_channel(struct uow *uow, int64_t channel_id, const char *topic)
{
	struct db_res *res =
	    DB_EXEC(uow, &st_read_channel, db_arg_int(uow, uow->user->id), db_arg_int(uow, channel_id), topic);
	if (res == NULL)
		return -1;
	int n;
	int64_t *ids = db_ids(uow, res, 0, &n);
	return n == 0 ? 0 : read_event(uow, ids_json(ids, n), false);
}

bool message_read_topic_exists(struct uow *uow, int64_t channel_id, const char *topic)
{
	struct db_res *res =
	    DB_EXEC(uow, &st_topic_exists, db_arg_int(uow, uow->user->id), db_arg_int(uow, channel_id), topic);
	return res != NULL && db_bool(res, 0, 0);
}
