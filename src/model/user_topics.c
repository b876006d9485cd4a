/*
 * Users' topic preferences; see user_topics.h. Reference: zerver/lib/user_topics.py
 * (bulk_set_user_topic_visibility_policy_in_database, get_user_topics, get_topic_mutes), zerver/actions/user_topics.py
 * (bulk_do_set_user_topic_visibility_policy) and the user topic part of zerver/actions/message_edit.py
 * (do_update_message, get_visibility_policy_after_merge).
 */
#include "model/user_topics.h"

#include <string.h>

#include "core/jsonx.h"
#include "core/uow.h"
#include "db/db.h"
#include "events/events.h"
#include "model/channels.h"
#include "model/realm.h"

/* Inherit: the users' rows of the topic go; who had one changed. */
static struct db_stmt st_delete =
    DB_STMT("DELETE FROM user_topics WHERE user_id = ANY($1::bigint[]) AND channel_id = $2"
            " AND lower(topic_name) = lower($3) RETURNING user_id, floor(extract(epoch FROM now()))::bigint");
/* Another policy: created or updated for the users whose row does not hold it already (the row keeps the spelling
 * of the topic it was created with, as the reference's ON CONFLICT ... DO UPDATE does). */
static struct db_stmt st_upsert =
    DB_STMT("WITH cur AS (SELECT user_id FROM user_topics WHERE user_id = ANY($1::bigint[]) AND channel_id = $2"
            "   AND lower(topic_name) = lower($3) AND visibility_policy = $4)"
            " INSERT INTO user_topics (user_id, channel_id, topic_name, last_updated, visibility_policy)"
            " SELECT DISTINCT u, $2::bigint, $3, now(), $4::smallint FROM unnest($1::bigint[]) u"
            "  WHERE u NOT IN (SELECT user_id FROM cur)"
            " ON CONFLICT (user_id, channel_id, lower(topic_name)) DO UPDATE"
            "   SET last_updated = EXCLUDED.last_updated, visibility_policy = EXCLUDED.visibility_policy"
            " RETURNING user_id, floor(extract(epoch FROM last_updated))::bigint");
/* get_topic_mutes: [channel name, topic, timestamp] of the user's muted topics in channels not archived. */
static struct db_stmt st_muted = DB_STMT(
    "SELECT COALESCE(json_agg(json_build_array(c.name, CASE WHEN ut.topic_name = '' AND NOT $2 THEN $3"
    "   ELSE ut.topic_name END, floor(extract(epoch FROM ut.last_updated))::bigint) ORDER BY ut.id), '[]')::text"
    "  FROM user_topics ut JOIN channels c ON c.id = ut.channel_id"
    " WHERE ut.user_id = $1 AND ut.visibility_policy = 1 AND NOT c.is_archived");
/* get_user_topics: every preference of the user in channels not archived. */
static struct db_stmt st_list = DB_STMT(
    "SELECT COALESCE(json_agg(json_build_object('stream_id', ut.channel_id, 'topic_name',"
    "   CASE WHEN ut.topic_name = '' AND NOT $2 THEN $3 ELSE ut.topic_name END, 'visibility_policy',"
    "   ut.visibility_policy, 'last_updated', floor(extract(epoch FROM ut.last_updated))::bigint) ORDER BY ut.id),"
    "   '[]')::text"
    "  FROM user_topics ut JOIN channels c ON c.id = ut.channel_id WHERE ut.user_id = $1 AND NOT c.is_archived");

static json_object *json_list(struct uow *uow, struct db_stmt *st, int64_t user_id, bool empty_topic_name)
{
	struct db_res *res = DB_EXEC(uow, st, db_arg_int(uow, user_id), empty_topic_name ? "true" : "false",
	                             REALM_EMPTY_TOPIC_DISPLAY_NAME);
	if (res == NULL)
		return NULL;
	json_object *list = NULL;
	const char *text = db_val(res, 0, 0);
	if (jsonx_parse(text, strlen(text), &list) < 0 || list == NULL)
		list = json_object_new_array();
	return uow_own_json(uow, list);
}

json_object *user_topics_list(struct uow *uow, int64_t user_id, bool empty_topic_name)
{
	return json_list(uow, &st_list, user_id, empty_topic_name);
}

json_object *user_topics_muted_list(struct uow *uow, int64_t user_id, bool empty_topic_name)
{
	return json_list(uow, &st_muted, user_id, empty_topic_name);
}

/* The events of a change for the users whose rows changed: each one's muted_topics, then one user_topic. */
static int record_events(struct uow *uow, const int64_t *users, int n, const struct channel *c, const char *topic,
                         int policy, int64_t last_updated, bool skip_muted_topics_event)
{
	for (int i = 0; i < n && !skip_muted_topics_event; i++) {
		/* The reference's muted_topics events carry the stored topic names as they are. */
		json_object *muted = user_topics_muted_list(uow, users[i], true);
		if (muted == NULL)
			return -1;
		json_object *event = events_new(uow, "muted_topics", NULL);
		json_object_object_add(event, "muted_topics", json_object_get(muted));
		events_add(uow, event, &users[i], 1, 0);
	}
	json_object *event = events_new(uow, "user_topic", NULL);
	json_object_object_add(event, "stream_id", json_object_new_int64(c->id));
	json_object_object_add(event, "topic_name", json_object_new_string(topic));
	json_object_object_add(event, "last_updated", json_object_new_int64(last_updated));
	json_object_object_add(event, "visibility_policy", json_object_new_int(policy));
	return events_add_some(uow, event, users, n);
}

int user_topics_set(struct uow *uow, const int64_t *users, int n, const struct channel *c, const char *topic,
                    int policy, bool skip_muted_topics_event)
{
	if (n == 0)
		return 0;
	const char *ids = db_arg_ids(uow, users, n), *channel = db_arg_int(uow, c->id);
	struct db_res *res = policy == TOPIC_INHERIT
	                         ? DB_EXEC(uow, &st_delete, ids, channel, topic)
	                         : DB_EXEC(uow, &st_upsert, ids, channel, topic, db_arg_int(uow, policy));
	if (res == NULL)
		return -1;
	int changed;
	int64_t *who = db_ids(uow, res, 0, &changed);
	if (changed == 0)
		return 0;
	return record_events(uow, who, changed, c, topic, policy, db_int(res, 0, 1), skip_muted_topics_event);
}

/* ---- moves ---------------------------------------------------------------------------------------------------- */

/* Every user's policy for the two topics, by user: their policy for the original topic and for the target one (0
 * for none). */
static struct db_stmt st_pairs = DB_STMT("SELECT user_id, COALESCE(max(visibility_policy) FILTER (WHERE NOT t), 0),"
                                         "       COALESCE(max(visibility_policy) FILTER (WHERE t), 0)"
                                         "  FROM (SELECT user_id, visibility_policy, false AS t FROM user_topics"
                                         "         WHERE channel_id = $1 AND lower(topic_name) = lower($2)"
                                         "        UNION ALL SELECT user_id, visibility_policy, true FROM user_topics"
                                         "         WHERE channel_id = $3 AND lower(topic_name) = lower($4)) x"
                                         " GROUP BY user_id ORDER BY user_id");

/* get_visibility_policy_after_merge: whichever of the two shows more. */
static int merged_policy(int orig, int target)
{
	if (orig == TOPIC_FOLLOWED || target == TOPIC_FOLLOWED)
		return TOPIC_FOLLOWED;
	if (orig == TOPIC_UNMUTED || target == TOPIC_UNMUTED)
		return TOPIC_UNMUTED;
	if (orig == TOPIC_INHERIT || target == TOPIC_INHERIT)
		return TOPIC_INHERIT;
	return TOPIC_MUTED;
}

/* Whether x is in v (ascending). */
static bool contains(const int64_t *v, int n, int64_t x)
{
	int lo = 0, hi = n;
	while (lo < hi) {
		int mid = lo + (hi - lo) / 2;
		if (v[mid] == x)
			return true;
		if (v[mid] < x)
			lo = mid + 1;
		else
			hi = mid;
	}
	return false;
}

/* The users of one (original, target) pair of policies move together: the original row goes, and the target topic
 * gets the original policy (merged with its own when it had messages), unless it holds that one already. */
static int move_pair(struct uow *uow, const int64_t *users, int n, int orig_policy, int target_policy,
                     const struct channel *orig, const char *orig_topic, const struct channel *target,
                     const char *target_topic, bool target_had_messages)
{
	if (n == 0)
		return 0;
	if (orig_policy != TOPIC_INHERIT && user_topics_set(uow, users, n, orig, orig_topic, TOPIC_INHERIT, true) < 0)
		return -1;
	int policy = target_had_messages ? merged_policy(orig_policy, target_policy) : orig_policy;
	if (policy == target_policy)
		return 0;
	return user_topics_set(uow, users, n, target, target_topic, policy, false);
}

int user_topics_move(struct uow *uow, const struct channel *orig, const char *orig_topic, const struct channel *target,
                     const char *target_topic, bool target_had_messages, const int64_t *losing, int nlosing)
{
	struct db_res *res =
	    DB_EXEC(uow, &st_pairs, db_arg_int(uow, orig->id), orig_topic, db_arg_int(uow, target->id), target_topic);
	if (res == NULL)
		return -1;
	int n = db_rows(res), nlost = 0;
	int64_t *lost = arena_alloc(&uow->arena, (size_t)(n + 1) * sizeof(int64_t));
	int64_t *group = arena_alloc(&uow->arena, (size_t)(n + 1) * sizeof(int64_t));
	/* Users losing access lose their preference for the old topic; their target ones are handled as anyone's. */
	for (int i = 0; i < n; i++)
		if (db_int(res, i, 1) != TOPIC_INHERIT && contains(losing, nlosing, db_int(res, i, 0)))
			lost[nlost++] = db_int(res, i, 0);
	if (user_topics_set(uow, lost, nlost, orig, orig_topic, TOPIC_INHERIT, false) < 0)
		return -1;
	for (int o = TOPIC_INHERIT; o <= TOPIC_FOLLOWED; o++) {
		for (int t = TOPIC_INHERIT; t <= TOPIC_FOLLOWED; t++) {
			int k = 0;
			for (int i = 0; i < n; i++) {
				int64_t user = db_int(res, i, 0);
				int op = contains(lost, nlost, user) ? TOPIC_INHERIT : (int)db_int(res, i, 1);
				if (op == o && db_int(res, i, 2) == t && !(op == TOPIC_INHERIT && t == TOPIC_INHERIT))
					group[k++] = user;
			}
			if (move_pair(uow, group, k, o, t, orig, orig_topic, target, target_topic,
			              target_had_messages) < 0)
				return -1;
		}
	}
	return 0;
}
