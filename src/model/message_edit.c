/*
 * Editing messages; see message_edit.h.
 *
 * Reference: Zulip zerver/actions/message_edit.py (check_update_message, validate_message_edit_payload,
 * build_message_edit_request, check_time_limit_for_change_all_propagate_mode, do_update_message,
 * maybe_send_resolve_topic_notifications, send_message_moved_breadcrumbs), zerver/lib/topic.py
 * (update_messages_for_topic_edit), zerver/lib/topic_link_util.py and zerver/lib/url_encoding.py.
 */
#include "model/message_edit.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db/db.h"
#include "events/events.h"
#include "core/uow.h"
#include "model/attachment_space.h"
#include "model/attachments.h"
#include "model/channels.h"
#include "model/linkifiers.h"
#include "model/markdown.h"
#include "model/messages.h"
#include "model/notify.h"
#include "model/permissions.h"
#include "model/realm.h"
#include "model/user.h"
#include "model/user_topics.h"

/* The reference's MESSAGE_EDIT_TIME_LIMIT_BUFFER_SECONDS: every edit and move limit has this much grace. */
#define GRACE_SECONDS 20
#define STR_(x)       #x
#define STR(x)        STR_(x)
/* RESOLVE_TOPIC_UNDO_GRACE_PERIOD_SECONDS: a resolve notice this young is deleted by the opposite toggle. */
#define RESOLVE_UNDO_SECONDS "60"
/* Stream.LAST_ACTIVITY_DAYS_BEFORE_FOR_ACTIVE. */
#define RECENT_ACTIVITY_DAYS "180"
/* "✔ " (U+2714 and a space), the mark of a resolved topic. */
#define RESOLVED_PREFIX     "\xe2\x9c\x94 "
#define RESOLVED_PREFIX_LEN 4

/* The organization's edit settings and the message's row, as the checks need them. */
struct edit_facts {
	bool editing_allowed;
	bool content_late, topic_late, channel_late; /* each limit (with its grace) has passed */
	bool within_unlimited, between_unlimited;
	int64_t within_limit, between_limit;
	const char *realm_topics_policy;
	const char *topic;
	const char *rendered_content;
	const char *content_sha256;
	int64_t now;
};

struct message_edit {
	struct message_ref *m;
	const struct message_edit_input *in;
	struct edit_facts f;
	const char *content; /* normalized new content, or NULL */
	struct markdown_result md;
	/* Channel messages. */
	struct channel *orig, *target;
	const char *orig_topic, *target_topic;
	bool topic_edited, stream_edited, case_only, resolved, unresolved;
	/* Who followed the original topic, when the move took all of it (read before its preferences moved). */
	bool followers_known;
	int64_t *followers;
	int nfollowers;
};

/* ---- small helpers ------------------------------------------------------------------------------------------- */

static bool is_resolved_name(const char *topic)
{
	return strncmp(topic, RESOLVED_PREFIX, RESOLVED_PREFIX_LEN) == 0;
}

/* Python's topic.lstrip("✔ "): every leading check mark and space removed. */
static const char *strip_resolved_marks(const char *topic)
{
	for (;;) {
		if (*topic == ' ')
			topic++;
		else if (strncmp(topic, "\xe2\x9c\x94", 3) == 0)
			topic += 3;
		else
			return topic;
	}
}

static bool is_empty_topic(const char *topic)
{
	return *topic == '\0' || strcmp(topic, "(no topic)") == 0;
}

static const char *str_or_null(bool set, const char *s)
{
	return set ? s : NULL;
}

static const char *bool_arg(bool b)
{
	return b ? "true" : "false";
}

/* ---- the checks ---------------------------------------------------------------------------------------------- */

/* The limits are integers: the grace is added as bigint, or a limit of 2^31 - 1 overflows (SQLSTATE 22003). */
static struct db_stmt st_facts = DB_STMT(
    "SELECT r.allow_message_editing,"
    " r.message_content_edit_limit_seconds IS NOT NULL AND now() - m.date_sent >"
    "   make_interval(secs => r.message_content_edit_limit_seconds::bigint + " STR(
        GRACE_SECONDS) "),"
                       " r.move_messages_within_stream_limit_seconds IS NOT NULL AND now() - m.date_sent >"
                       "   make_interval(secs => r.move_messages_within_stream_limit_seconds::bigint + " STR(
                           GRACE_SECONDS) "),"
                                          " r.move_messages_between_streams_limit_seconds IS NOT NULL AND now() - "
                                          "m.date_sent >"
                                          "   make_interval(secs => "
                                          "r.move_messages_between_streams_limit_seconds::bigint "
                                          "+ " STR(
                                              GRACE_SECONDS) "),"
                                                             " r.move_messages_within_stream_limit_seconds IS NULL, "
                                                             "COALESCE(r.move_messages_within_stream_limit_seconds, 0),"
                                                             " r.move_messages_between_streams_limit_seconds IS NULL,"
                                                             " COALESCE(r.move_messages_between_streams_limit_seconds, "
                                                             "0), r.topics_policy, m.topic, m.rendered_content,"
                                                             " encode(sha256(convert_to(m.content, 'UTF8')), 'hex'), "
                                                             "extract(epoch FROM now())::bigint"
                                                             " FROM messages m JOIN realms r ON r.id = m.realm_id "
                                                             "WHERE m.id = $1");

static int load_facts(struct uow *uow, struct message_edit *e)
{
	struct db_res *res = DB_EXEC(uow, &st_facts, db_arg_int(uow, e->m->id));
	if (res == NULL || db_rows(res) != 1)
		return uow_error(uow, ERR_INTERNAL, NULL);
	struct edit_facts *f = &e->f;
	f->editing_allowed = db_bool(res, 0, 0);
	f->content_late = db_bool(res, 0, 1);
	f->topic_late = db_bool(res, 0, 2);
	f->channel_late = db_bool(res, 0, 3);
	f->within_unlimited = db_bool(res, 0, 4);
	f->within_limit = db_int(res, 0, 5);
	f->between_unlimited = db_bool(res, 0, 6);
	f->between_limit = db_int(res, 0, 7);
	f->realm_topics_policy = db_val(res, 0, 8);
	f->topic = db_val(res, 0, 9);
	f->rendered_content = db_val(res, 0, 10);
	f->content_sha256 = db_val(res, 0, 11);
	f->now = db_int(res, 0, 12);
	return 0;
}

/* validate_user_can_edit_message. */
static int check_content_permission(struct uow *uow, const struct message_edit *e)
{
	switch (perm_edit_content(uow, e->f.editing_allowed, e->m->sender_id, e->f.content_late)) {
	case PERM_EDIT_OK: return 0;
	case PERM_EDIT_DISABLED:
		return uow_error(uow, ERR_BAD_REQUEST, "Your organization has turned off message editing");
	case PERM_EDIT_NOT_SENDER:
		return uow_error(uow, ERR_BAD_REQUEST, "You don't have permission to edit this message");
	case PERM_EDIT_TOO_LATE:
		return uow_error(uow, ERR_BAD_REQUEST, "The time limit for editing this message has passed");
	}
	return -1;
}

/* validate_message_edit_payload; topic is NULL when it was not sent or names the current topic. */
static int check_payload(struct uow *uow, const struct message_edit *e, const char *topic)
{
	const struct message_edit_input *in = e->in;
	bool direct = e->m->channel == NULL;
	if (topic == NULL && in->content == NULL && !in->has_stream_id)
		return uow_error(uow, ERR_BAD_REQUEST, "Nothing to change");
	if (direct && in->has_stream_id)
		return uow_error(uow, ERR_BAD_REQUEST, "Direct messages cannot be moved to channels.");
	if (direct && topic != NULL)
		return uow_error(uow, ERR_BAD_REQUEST, "Direct messages cannot have topics.");
	if (in->mode != PROPAGATE_ONE && topic == NULL && !in->has_stream_id)
		return uow_error(uow, ERR_BAD_REQUEST, "Invalid propagate_mode without topic edit");
	if (topic != NULL &&
	    (strcmp(topic, "\xe2\x9c\x94") == 0 || strcmp(topic, RESOLVED_PREFIX REALM_EMPTY_TOPIC_DISPLAY_NAME) == 0))
		return uow_error(uow, ERR_BAD_REQUEST, "General chat cannot be marked as resolved");
	if (topic != NULL && in->topic_bad_position > 0)
		return uow_error(uow, ERR_BAD_REQUEST, "Invalid character in topic, at position %d!",
		                 in->topic_bad_position);
	if (in->has_stream_id && in->content != NULL)
		return uow_error(uow, ERR_BAD_REQUEST, "Cannot change message content while changing channel");
	/* Widgets cannot be edited: confab stores no widget (submessage) messages. */
	if (in->prev_content_sha256 != NULL && strcmp(in->prev_content_sha256, e->f.content_sha256) != 0)
		return uow_error(uow, ERR_BAD_REQUEST,
		                 "'prev_content_sha256' value does not match the expected value.");
	return 0;
}

static struct db_stmt st_same_lower = DB_STMT("SELECT lower($1) = lower($2)");

/* The new topic (truncated) and whether it resolves, unresolves or only changes case. */
static int read_new_topic(struct uow *uow, struct message_edit *e, const char *topic)
{
	const char *old = e->orig_topic;
	e->topic_edited = true;
	e->target_topic = message_truncate_topic(uow, topic);
	struct db_res *res = DB_EXEC(uow, &st_same_lower, old, e->target_topic);
	if (res == NULL)
		return -1;
	e->case_only = db_bool(res, 0, 0);
	e->resolved = is_resolved_name(e->target_topic) && !is_resolved_name(old) &&
	              strcmp(topic + RESOLVED_PREFIX_LEN, old) == 0;
	e->unresolved = is_resolved_name(old) && !is_resolved_name(e->target_topic) &&
	                strcmp(strip_resolved_marks(old), e->target_topic) == 0;
	return 0;
}

/* The target channel's (or the organization's) topics_policy, as get_stream_topics_policy reads it. */
static int check_topics_policy(struct uow *uow, const struct message_edit *e)
{
	const char *policy = e->target->topics_policy;
	if (strcmp(policy, "inherit") == 0)
		policy = e->f.realm_topics_policy;
	bool empty = is_empty_topic(e->target_topic);
	if (empty && (e->topic_edited || e->stream_edited) && strcmp(policy, "disable_empty_topic") == 0)
		return uow_error(uow, ERR_BAD_REQUEST, "Sending messages to the %s is not allowed in this channel.",
		                 REALM_EMPTY_TOPIC_DISPLAY_NAME);
	if (!empty && strcmp(policy, "empty_topic_only") == 0)
		return uow_error(uow, ERR_BAD_REQUEST, "Only the %s topic is allowed in this channel.",
		                 REALM_EMPTY_TOPIC_DISPLAY_NAME);
	return 0;
}

/* build_message_edit_request: the new content, the new topic and the target channel. */
static int build_request(struct uow *uow, struct message_edit *e, const char *topic)
{
	const struct message_edit_input *in = e->in;
	if (in->content != NULL) {
		e->content = message_is_blank(in->content, in->content_len)
		                 ? "(deleted)"
		                 : message_normalize_content(uow, in->content, in->content_len);
		if (e->content == NULL)
			return -1;
	}
	if (e->m->channel == NULL)
		return 0;
	e->orig = e->target = e->m->channel;
	e->orig_topic = e->target_topic = e->f.topic;
	if (topic != NULL && read_new_topic(uow, e, topic) < 0)
		return -1;
	if (in->has_stream_id) {
		e->target = channel_access_by_id(uow, in->stream_id, true);
		if (e->target == NULL)
			return -1;
		if (e->target->is_archived)
			return uow_error(uow, ERR_BAD_REQUEST, "Invalid channel ID");
		e->stream_edited = true;
	}
	return check_topics_policy(uow, e);
}

/* check_stream_topic_edit_permissions. */
static int check_topic_permission(struct uow *uow, const struct message_edit *e)
{
	if (e->resolved || e->unresolved) {
		if (perm_resolve(uow, e->orig, e->target))
			return 0;
		return uow_error(uow, ERR_BAD_REQUEST, "You don't have permission to resolve topics in this channel.");
	}
	if (!perm_edit_topic(uow, e->orig, e->target))
		return uow_error(uow, ERR_BAD_REQUEST, "You don't have permission to edit this message");
	if (perm_move_time_limited(uow) && e->f.topic_late)
		return uow_error(uow, ERR_BAD_REQUEST, "The time limit for editing this message's topic has passed.");
	return 0;
}

/* The new content rendered with the sender's mentions, and the send path's wildcard and group mention checks
 * against the message's channel and current topic. */
static int render_content(struct uow *uow, struct message_edit *e)
{
	struct message_draft d = {
	    .sender = uow->user, .channel = e->m->channel, .topic = e->f.topic, .content = e->content};
	return message_render(uow, &d, &e->md);
}

/* Of the messages of the topic the user may see (all of them, or those they received when the history is
 * protected): how many there are, how many were sent within the deadline (seconds), and the oldest of those. */
static struct db_stmt st_topic_ages = DB_STMT(
    "SELECT count(*), count(*) FILTER (WHERE m.date_sent > now() - make_interval(secs => $3)),"
    " (array_agg(m.id ORDER BY m.date_sent, m.id) FILTER (WHERE m.date_sent > now() - make_interval(secs => $3)))[1]"
    " FROM messages m WHERE m.channel_id = $1 AND lower(m.topic) = lower($2)"
    " AND ($4 OR EXISTS (SELECT 1 FROM user_messages um WHERE um.user_id = $5 AND um.message_id = m.id))");

/* check_time_limit_for_change_all_propagate_mode: the stricter of the applicable move limits, with the grace. */
static int check_topic_time_limit(struct uow *uow, const struct message_edit *e)
{
	int64_t deadline = -1;
	if (e->topic_edited && !e->f.within_unlimited)
		deadline = e->f.within_limit + GRACE_SECONDS;
	if (e->stream_edited && !e->f.between_unlimited) {
		int64_t d = e->f.between_limit + GRACE_SECONDS;
		deadline = deadline < 0 || d < deadline ? d : deadline;
	}
	if (deadline < 0)
		return 0;
	struct db_res *res =
	    DB_EXEC(uow, &st_topic_ages, db_arg_int(uow, e->orig->id), e->orig_topic, db_arg_int(uow, deadline),
	            bool_arg(perm_channel_history(uow, e->orig)), db_arg_int(uow, uow->user->id));
	if (res == NULL)
		return -1;
	int64_t total = db_int(res, 0, 0), allowed = db_int(res, 0, 1);
	if (total == allowed)
		return 0;
	uow_error(uow, ERR_MOVE_MESSAGES_TIME_LIMIT_EXCEEDED,
	          "You only have permission to move the %lld/%lld most recent messages in this topic.",
	          (long long)allowed, (long long)total);
	uow_error_field(uow, "first_message_id_allowed_to_move",
	                db_null(res, 0, 2) ? NULL : json_object_new_int64(db_int(res, 0, 2)));
	uow_error_field(uow, "total_messages_in_topic", json_object_new_int64(total));
	uow_error_field(uow, "total_messages_allowed_to_move", json_object_new_int64(allowed));
	return -1;
}

static struct db_stmt st_topic_exists =
    DB_STMT("SELECT EXISTS (SELECT 1 FROM messages WHERE channel_id = $1 AND lower(topic) = lower($2))");

/* check_for_can_create_topic_group_violation: a move may start a topic only for can_create_topic_group. */
static int check_create_topic(struct uow *uow, const struct message_edit *e)
{
	if (perm_create_topic(uow, e->target))
		return 0;
	struct db_res *res = DB_EXEC(uow, &st_topic_exists, db_arg_int(uow, e->target->id), e->target_topic);
	if (res == NULL)
		return -1;
	if (db_bool(res, 0, 0))
		return 0;
	return uow_error(uow, ERR_BAD_REQUEST, "You do not have permission to create new topics in this channel.");
}

/* The channel move permissions, then the whole-topic time limit and topic creation for moves. */
static int check_move(struct uow *uow, const struct message_edit *e)
{
	if (e->stream_edited) {
		if (!perm_move_out(uow, e->orig))
			return uow->error
			           ? -1
			           : uow_error(uow, ERR_BAD_REQUEST, "You don't have permission to move this message");
		if (!perm_channel_send(uow, e->target))
			return uow_error(uow, ERR_BAD_REQUEST, "You do not have permission to post in this channel.");
		if (perm_move_time_limited(uow) && e->f.channel_late)
			return uow_error(uow, ERR_BAD_REQUEST,
			                 "The time limit for editing this message's channel has passed");
	}
	bool moved = e->topic_edited || e->stream_edited, toggled = e->resolved || e->unresolved;
	if (e->in->mode == PROPAGATE_ALL && perm_move_time_limited(uow) && moved && !toggled &&
	    check_topic_time_limit(uow, e) < 0)
		return -1;
	if (moved && !toggled && check_create_topic(uow, e) < 0)
		return -1;
	return 0;
}

struct message_edit *message_edit_check(struct uow *uow, struct message_ref *m, const struct message_edit_input *in)
{
	struct message_edit *e = arena_alloc(&uow->arena, sizeof(*e));
	memset(e, 0, sizeof(*e));
	e->m = m;
	e->in = in;
	if (load_facts(uow, e) < 0)
		return NULL;
	if (in->content != NULL && check_content_permission(uow, e) < 0)
		return NULL;
	/* A topic equal to the current one is no topic change. */
	const char *topic = in->topic != NULL && strcmp(in->topic, e->f.topic) != 0 ? in->topic : NULL;
	if (check_payload(uow, e, topic) < 0 || build_request(uow, e, topic) < 0)
		return NULL;
	if (e->topic_edited && check_topic_permission(uow, e) < 0)
		return NULL;
	if (e->content != NULL && render_content(uow, e) < 0)
		return NULL;
	if (m->channel != NULL && check_move(uow, e) < 0)
		return NULL;
	return e;
}

/* ---- applying: content --------------------------------------------------------------------------------------- */

static struct db_stmt st_update_content =
    DB_STMT("UPDATE messages SET content = $2, rendered_content = $3, last_edit_time = now(), has_attachment = $4,"
            " has_image = $5, has_link = $6 WHERE id = $1");
/* The mention flags of every copy, recomputed from the new rendering (update_user_message_flags): $2 mentioned
 * users, $3 mentioned groups (their members), $4 channel wildcard, $5 topic wildcard for the participants of topic
 * $7 of channel $6 (who sent to it) and the sender $8. */
static struct db_stmt st_mention_flags =
    DB_STMT("WITH mentioned AS (SELECT unnest($2::bigint[]) AS id UNION"
            " SELECT gm.user_id FROM unnest($3::bigint[]) AS g (id), LATERAL confab_group_members(g.id) gm)"
            " UPDATE user_messages um SET flags = (um.flags & ~(8 | 16 | 32))"
            " | CASE WHEN um.user_id IN (SELECT id FROM mentioned) THEN 8 ELSE 0 END"
            " | CASE WHEN $4 THEN 16 ELSE 0 END"
            " | CASE WHEN $5 AND (um.user_id = $8 OR EXISTS (SELECT 1 FROM messages pm WHERE pm.channel_id = $6"
            "   AND lower(pm.topic) = lower($7) AND pm.sender_id = um.user_id)) THEN 32 ELSE 0 END"
            " WHERE um.message_id = $1");

/* The new content: the row, attachment links, mention flags and the event's content fields. Returns the
 * detached uploads (owned by the request) or NULL. */
static json_object *apply_content(struct uow *uow, struct message_edit *e, json_object *event)
{
	const struct message_ref *m = e->m;
	const char *id = db_arg_int(uow, m->id);
	int64_t *previous = NULL;
	int nprevious = attachments_of_message(uow, m->id, &previous);
	int linked = nprevious < 0 ? -1 : attachments_link_message(uow, m->id, m->sender_id, e->content, false);
	if (linked < 0 || DB_EXEC(uow, &st_update_content, id, e->content, e->md.html, bool_arg(linked > 0),
	                          bool_arg(e->md.has_image), bool_arg(e->md.has_link)) == NULL)
		return NULL;
	if (linked > 0 && attachment_space_claimed(uow, m->id, m->sender_id, previous, nprevious) < 0)
		return NULL;
	bool topic_wildcard = e->md.topic_wildcard && m->channel != NULL;
	if (DB_EXEC(uow, &st_mention_flags, id, db_arg_ids(uow, e->md.mentioned_users.v, e->md.mentioned_users.n),
	            db_arg_ids(uow, e->md.mentioned_groups.v, e->md.mentioned_groups.n),
	            bool_arg(e->md.stream_wildcard), bool_arg(topic_wildcard),
	            m->channel ? db_arg_int(uow, m->channel->id) : NULL, e->target_topic ? e->target_topic : "",
	            db_arg_int(uow, m->sender_id)) == NULL)
		return NULL;
	json_object_object_add(event, "orig_content", json_object_new_string(m->content));
	json_object_object_add(event, "orig_rendered_content", json_object_new_string(e->f.rendered_content));
	json_object_object_add(event, "content", json_object_new_string(e->content));
	json_object_object_add(event, "rendered_content", json_object_new_string(e->md.html));
	json_object_object_add(event, "is_me_message", json_object_new_boolean(e->md.is_me_message));
	json_object *detached = attachments_detached(uow, uow->user->id, previous, nprevious);
	return detached ? uow_own_json(uow, detached) : NULL;
}

static struct db_stmt st_content_history =
    DB_STMT("INSERT INTO message_edits (message_id, user_id, prev_content, prev_rendered_content)"
            " VALUES ($1, $2, $3, $4)");

/* ---- applying: moves ----------------------------------------------------------------------------------------- */

/*
 * The move itself, for the whole set at once: every message of channel $1 whose topic is $2 (ignoring case) with an
 * id in [$5, $6] (the message alone, the later ones, or all), limited for channel moves out of a protected history
 * to the messages the acting user $10 received ($7 false), gets channel $3 and topic $4 (and last_moved_time unless
 * the move only resolves or unresolves, $9); each gets one message_edits row in the same statement, the edited
 * message ($8) with its previous content when that changed too ($11, $12), the topics when the topic changed ($13)
 * and the channels when the channel changed ($14). Returns the moved ids, ascending.
 *
 * EXPLAIN (ANALYZE, TIMING OFF) of the generic plan (plan_cache_mode=force_generic_plan) for a change_all move of
 * a 10,000-message topic to another channel, next to 100,000 messages of other topics (PostgreSQL 15; see
 * docs/PERFORMANCE.md): one range scan of messages_channel_topic finds the set, the UPDATE feeds the history
 * INSERT, and the only per-row work left is the foreign-key checks of the changed channel_id and the new
 * message_edits rows.
 *
 *   Sort (actual rows=10005 loops=1)
 *     Sort Key: moved.id
 *     CTE moved
 *       ->  Update on messages m (actual rows=10005 loops=1)
 *             ->  Index Scan using messages_channel_topic on messages m (actual rows=10005 loops=1)
 *                   Index Cond: ((channel_id = $1) AND (lower(topic) = lower($2)) AND (id >= $5) AND (id <= $6))
 *                   Filter: ($7 OR (id = $8) OR (SubPlan 1))
 *                   SubPlan 1
 *                     ->  Index Only Scan using user_messages_pkey on user_messages um (never executed)
 *                           Index Cond: ((user_id = $10) AND (message_id = m.id))
 *     CTE hist
 *       ->  Insert on message_edits (actual rows=0 loops=1)
 *             ->  CTE Scan on moved moved_1 (actual rows=10005 loops=1)
 *     ->  CTE Scan on moved (actual rows=10005 loops=1)
 *   Trigger for constraint messages_channel_id_fkey on messages: calls=10005
 *   Trigger for constraint message_edits_message_id_fkey on message_edits: calls=10005
 *   Trigger for constraint message_edits_user_id_fkey on message_edits: calls=10005
 *   Execution Time: 283.682 ms
 *
 * With a protected history ($7 false) the SubPlan runs once per row, by user_messages_pkey.
 */
static struct db_stmt st_move = DB_STMT(
    "WITH moved AS (UPDATE messages m SET channel_id = $3, topic = $4,"
    "   last_moved_time = CASE WHEN $9 THEN now() ELSE m.last_moved_time END"
    "   WHERE m.channel_id = $1 AND lower(m.topic) = lower($2) AND m.id >= $5 AND m.id <= $6"
    "   AND ($7 OR m.id = $8 OR EXISTS (SELECT 1 FROM user_messages um WHERE um.user_id = $10"
    "     AND um.message_id = m.id))"
    "   RETURNING m.id),"
    " hist AS (INSERT INTO message_edits (message_id, user_id, prev_content, prev_rendered_content, prev_topic, topic,"
    "   prev_channel_id, channel_id)"
    "   SELECT moved.id, $10, CASE WHEN moved.id = $8 THEN $11::text END, CASE WHEN moved.id = $8 THEN $12::text END,"
    "   CASE WHEN $13 THEN $2 END, CASE WHEN $13 THEN $4 END, CASE WHEN $14 THEN $1::bigint END,"
    "   CASE WHEN $14 THEN $3::bigint END FROM moved)"
    " SELECT id FROM moved ORDER BY id");

/* Who loses the moved messages on a move out of channel $1 into channel $2: everyone ever subscribed to $1 (the
 * reference keeps unsubscribed users' copies) who is not subscribed to $2; and whether each is a guest. */
static struct db_stmt st_losers =
    DB_STMT("SELECT s.user_id, u.role = 600 FROM subscriptions s JOIN users u ON u.id = s.user_id"
            " WHERE s.channel_id = $1 AND NOT EXISTS (SELECT 1 FROM subscriptions n WHERE n.channel_id = $2"
            "   AND n.user_id = s.user_id AND n.active) ORDER BY s.user_id");
/* A protected history's subscribers get a (read) copy of every moved message, as if they had received it. */
static struct db_stmt st_gain =
    DB_STMT("INSERT INTO user_messages (user_id, message_id, flags) SELECT s.user_id, x.id, 1"
            " FROM subscriptions s CROSS JOIN unnest($2::bigint[]) AS x (id) WHERE s.channel_id = $1 AND s.active"
            " ON CONFLICT DO NOTHING");
/* By user_messages_pkey on the few losing users, the moved ids as a hashed array filter (15 ms for 10,000). */
static struct db_stmt st_drop =
    DB_STMT("DELETE FROM user_messages WHERE user_id = ANY($1::bigint[]) AND message_id = ANY($2::bigint[])");

/* A set of moved or affected users or messages. */
struct idset {
	int64_t *v;
	int n;
};

/* The moved messages, in one UPDATE (with its history rows). */
static int move_messages(struct uow *uow, const struct message_edit *e, struct idset *moved)
{
	int64_t lo = e->in->mode == PROPAGATE_ALL ? 0 : e->m->id;
	int64_t hi = e->in->mode == PROPAGATE_ONE ? e->m->id : INT64_MAX;
	/* Topic renames move everything; channel moves what the user can see (bulk_access_stream_messages_query). */
	bool all = !e->stream_edited || perm_channel_history(uow, e->orig);
	bool moves = !(e->resolved || e->unresolved);
	struct db_res *res =
	    DB_EXEC(uow, &st_move, db_arg_int(uow, e->orig->id), e->orig_topic, db_arg_int(uow, e->target->id),
	            e->target_topic, db_arg_int(uow, lo), db_arg_int(uow, hi), bool_arg(all), db_arg_int(uow, e->m->id),
	            bool_arg(moves), db_arg_int(uow, uow->user->id), str_or_null(e->content != NULL, e->m->content),
	            str_or_null(e->content != NULL, e->f.rendered_content), bool_arg(e->topic_edited),
	            bool_arg(e->stream_edited));
	if (res == NULL)
		return -1;
	moved->v = db_ids(uow, res, 0, &moved->n);
	return 0;
}

/* A channel move's user_messages: copies for a protected history's subscribers, none for those losing access
 * (who hear of it as a deletion). *losing_access receives the users told so. */
static int move_copies(struct uow *uow, const struct message_edit *e, const struct idset *moved,
                       struct idset *losing_access)
{
	struct db_res *res = DB_EXEC(uow, &st_losers, db_arg_int(uow, e->orig->id), db_arg_int(uow, e->target->id));
	if (res == NULL)
		return -1;
	int n = db_rows(res);
	struct idset losing = {arena_alloc(&uow->arena, (size_t)(n + 1) * sizeof(int64_t)), 0};
	losing_access->v = arena_alloc(&uow->arena, (size_t)(n + 1) * sizeof(int64_t));
	losing_access->n = 0;
	for (int i = 0; i < n; i++) {
		losing.v[losing.n++] = db_int(res, i, 0);
		/* Into a public channel only guests lose access; into a private one everyone not subscribed. */
		if (e->target->invite_only || db_bool(res, i, 1))
			losing_access->v[losing_access->n++] = db_int(res, i, 0);
	}
	const char *ids = db_arg_ids(uow, moved->v, moved->n);
	if (!e->target->history_public_to_subscribers &&
	    DB_EXEC(uow, &st_gain, db_arg_int(uow, e->target->id), ids) == NULL)
		return -1;
	if (losing.n > 0 && DB_EXEC(uow, &st_drop, db_arg_ids(uow, losing.v, losing.n), ids) == NULL)
		return -1;
	return 0;
}

/* delete_message to the users who can no longer see the moved messages. */
static int event_lost(struct uow *uow, const struct message_edit *e, const struct idset *moved,
                      const struct idset *users)
{
	if (users->n == 0)
		return 0;
	json_object *event = uow_own_json(uow, json_object_new_object());
	json_object_object_add(event, "type", json_object_new_string("delete_message"));
	json_object_object_add(event, "message_ids", ids_json(moved->v, moved->n));
	json_object_object_add(event, "message_type", json_object_new_string("stream"));
	json_object_object_add(event, "stream_id", json_object_new_int64(e->orig->id));
	json_object_object_add(event, "topic", json_object_new_string(e->orig_topic));
	return events_add(uow, event, users->v, users->n, 0);
}

/* ---- applying: the update_message event ---------------------------------------------------------------------- */

/*
 * Who hears of the edit, with their flags for the edited message $1: its copies' holders (after the move's
 * changes); and when the original channel $2's history is public ($4), the active subscribers of the target
 * channel $3 -- and on a channel move ($5) of the original one -- who hold no copy, with flags read, leaving out
 * users losing access ($6) and guests newly in the target channel. Ordered by flags for grouping.
 */
static struct db_stmt st_audience =
    DB_STMT("WITH held AS (SELECT um.user_id, um.flags FROM user_messages um WHERE um.message_id = $1),"
            " new_subs AS (SELECT s.user_id FROM subscriptions s JOIN users u ON u.id = s.user_id"
            "   WHERE s.channel_id = $3 AND s.active AND u.is_active),"
            " old_subs AS (SELECT s.user_id FROM subscriptions s JOIN users u ON u.id = s.user_id"
            "   WHERE s.channel_id = $2 AND s.active AND u.is_active),"
            " new_guests AS (SELECT s.user_id FROM subscriptions s JOIN users u ON u.id = s.user_id"
            "   WHERE s.channel_id = $3 AND s.active AND u.role = 600 AND NOT EXISTS (SELECT 1 FROM subscriptions o"
            "     WHERE o.channel_id = $2 AND o.active AND o.user_id = s.user_id))"
            " SELECT user_id, flags FROM held"
            " UNION ALL SELECT x.user_id, 1 FROM ("
            "   SELECT user_id FROM new_subs WHERE NOT ($5 AND user_id IN (SELECT user_id FROM new_guests))"
            "   UNION SELECT user_id FROM old_subs WHERE $5 AND user_id NOT IN (SELECT user_id FROM new_subs)) x"
            "   WHERE $4 AND x.user_id NOT IN (SELECT user_id FROM held) AND NOT ($5 AND x.user_id = ANY($6::bigint[]))"
            " ORDER BY 2, 1");

/* The update_message event, once per set of recipients with the same flags. */
static int event_update(struct uow *uow, const struct message_edit *e, json_object *event, const struct idset *moved,
                        const struct idset *losing_access)
{
	const struct channel *orig = e->orig;
	struct db_res *res = DB_EXEC(uow, &st_audience, db_arg_int(uow, e->m->id), db_arg_int(uow, orig ? orig->id : 0),
	                             db_arg_int(uow, e->target ? e->target->id : 0),
	                             bool_arg(orig != NULL && orig->history_public_to_subscribers),
	                             bool_arg(e->stream_edited), db_arg_ids(uow, losing_access->v, losing_access->n));
	if (res == NULL)
		return -1;
	json_object_object_add(event, "message_ids", ids_json(moved->v, moved->n));
	int n = db_rows(res);
	int64_t *users = arena_alloc(&uow->arena, (size_t)(n + 1) * sizeof(int64_t));
	for (int i = 0, k; i < n; i = k) {
		for (k = i; k < n && db_int(res, k, 1) == db_int(res, i, 1); k++)
			users[k - i] = db_int(res, k, 0);
		json_object_object_add(event, "flags", message_flags_json((int)db_int(res, i, 1)));
		if (events_add(uow, event, users, k - i, 0) < 0)
			return -1;
	}
	return 0;
}

/* ---- applying: Notification Bot messages --------------------------------------------------------------------- */

static struct db_stmt st_notification_bot = DB_STMT("SELECT confab_notification_bot($1)");
static struct db_stmt st_mark_read =
    DB_STMT("UPDATE user_messages SET flags = flags | 1 WHERE message_id = $1 AND ($2 OR user_id = $3)"
            " AND (user_id = $3 OR user_id <> ALL($4::bigint[]))");

/* Whether id is in s (ascending). */
static bool idset_has(const struct idset *s, int64_t id)
{
	int lo = 0, hi = s != NULL ? s->n : 0;
	while (lo < hi) {
		int mid = lo + (hi - lo) / 2;
		if (s->v[mid] == id)
			return true;
		if (s->v[mid] < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return false;
}

/*
 * Sends content to channel c's topic as the organization's Notification Bot (internal_send_stream_message), read
 * for the acting user (mark_as_read_for_acting_user) and, given unread (limit_unread_user_ids, ascending), for
 * everyone but the users in unread. Records its message events. Returns its id, or 0 on error.
 */
static int64_t send_bot_message(struct uow *uow, struct channel *c, const char *topic, const char *content,
                                const struct idset *unread)
{
	bool all_read = unread != NULL;
	struct db_res *res = DB_EXEC(uow, &st_notification_bot, db_arg_int(uow, uow->realm->id));
	struct user *bot = res && db_rows(res) ? user_by_id(uow, uow->realm->id, db_int(res, 0, 0)) : NULL;
	if (bot == NULL) {
		uow_error(uow, ERR_INTERNAL, NULL); /* keeps a database error recorded first */
		return 0;
	}
	struct message_draft d = {
	    .sender = bot, .channel = c, .topic = topic, .content = content, .skip_mention_checks = true};
	struct message_sent sent;
	if (message_send(uow, &d, &sent) < 0 ||
	    DB_EXEC(uow, &st_mark_read, db_arg_int(uow, sent.id), bool_arg(all_read), db_arg_int(uow, uow->user->id),
	            db_arg_ids(uow, all_read ? unread->v : NULL, all_read ? unread->n : 0)) == NULL)
		return 0;
	for (int i = 0; i < sent.n_recipients; i++)
		if (sent.recipients[i].user_id == uow->user->id ||
		    (all_read && !idset_has(unread, sent.recipients[i].user_id)))
			sent.recipients[i].flags |= MF_READ;
	if (message_events_send(uow, &d, &sent, NULL, NULL) < 0)
		return 0;
	c->is_recently_active = true; /* message_events_send told the channel's viewers */
	return sent.id;
}

/* encode_hash_component: urllib's quote (safe "*"), then '%' as '.' and '.' as ".2E". */
static const char *hash_encode(struct uow *uow, const char *s)
{
	char *out = arena_alloc(&uow->arena, 4 * strlen(s) + 1), *p = out;
	for (const unsigned char *c = (const unsigned char *)s; *c; c++) {
		if (isalnum(*c) || *c == '_' || *c == '-' || *c == '~' || *c == '*')
			*p++ = (char)*c;
		else if (*c == '.')
			p = stpcpy(p, ".2E");
		else
			p += sprintf(p, ".%02X", *c);
	}
	*p = '\0';
	return out;
}

/* encode_channel: "<id>-<name with '-' for spaces, hash-encoded>". */
static const char *channel_slug(struct uow *uow, const struct channel *c)
{
	char *name = arena_strdup(&uow->arena, c->name);
	for (char *p = name; *p; p++)
		if (*p == ' ')
			*p = '-';
	return arena_printf(&uow->arena, "%lld-%s", (long long)c->id, hash_encode(uow, name));
}

/* will_produce_broken_stream_topic_link. */
static bool breaks_link(const char *s)
{
	return strpbrk(s, "`>*&[]") != NULL || strstr(s, "$$") != NULL;
}

/* escape_invalid_stream_topic_characters. */
static const char *escape_link_text(struct uow *uow, const char *s)
{
	char *out = arena_alloc(&uow->arena, 10 * strlen(s) + 1), *p = out;
	for (; *s; s++) {
		switch (*s) {
		case '`': p = stpcpy(p, "&#96;"); break;
		case '>': p = stpcpy(p, "&gt;"); break;
		case '*': p = stpcpy(p, "&#42;"); break;
		case '&': p = stpcpy(p, "&amp;"); break;
		case '[': p = stpcpy(p, "&#91;"); break;
		case ']': p = stpcpy(p, "&#93;"); break;
		case '$':
			if (s[1] == '$') {
				p = stpcpy(p, "&#36;&#36;");
				s++;
				break;
			}
			/* fall through */
		default: *p++ = *s;
		}
	}
	*p = '\0';
	return out;
}

/* get_stream_topic_link_syntax: #**channel>topic**, or a plain Markdown link when the names would break it. */
static const char *topic_link(struct uow *uow, const struct channel *c, const char *topic)
{
	if (!breaks_link(topic) && !breaks_link(c->name))
		return arena_printf(&uow->arena, "#**%s>%s**", c->name, topic);
	return arena_printf(&uow->arena, "[#%s > %s](#narrow/channel/%s/topic/%s)", escape_link_text(uow, c->name),
	                    escape_link_text(uow, *topic ? topic : REALM_EMPTY_TOPIC_DISPLAY_NAME),
	                    channel_slug(uow, c), hash_encode(uow, topic));
}

/* stream_message_url of the edited message in its new place. */
static const char *message_link(struct uow *uow, const struct message_edit *e)
{
	return arena_printf(&uow->arena, "%s/#narrow/channel/%s/topic/%s/near/%lld", realm_url(uow, uow->realm),
	                    channel_slug(uow, e->target), hash_encode(uow, e->target_topic), (long long)e->m->id);
}

/* The active human users following the topic of channel c. */
static struct db_stmt st_followers =
    DB_STMT("SELECT ut.user_id FROM user_topics ut JOIN users u ON u.id = ut.user_id WHERE ut.channel_id = $1"
            " AND lower(ut.topic_name) = lower($2) AND ut.visibility_policy = 3 AND u.is_active AND NOT u.is_bot"
            " ORDER BY 1");

static int topic_followers(struct uow *uow, struct message_edit *e, const struct channel *c, const char *topic)
{
	struct db_res *res = DB_EXEC(uow, &st_followers, db_arg_int(uow, c->id), topic);
	if (res == NULL)
		return -1;
	e->followers = db_ids(uow, res, 0, &e->nfollowers);
	e->followers_known = true;
	return 0;
}

/* The topic's newest message, and whether it is a resolve notice young enough to be undone. */
static struct db_stmt st_last_notice =
    DB_STMT("SELECT m.id, m.sender_id = confab_notification_bot($3) AND m.content ~ ' has marked this topic as "
            "(un)?resolved\\.$'"
            " AND now() - m.date_sent <= interval '" RESOLVE_UNDO_SECONDS " seconds'"
            " FROM messages m WHERE m.channel_id = $1 AND lower(m.topic) = lower($2) ORDER BY m.id DESC LIMIT 1");

/*
 * maybe_send_resolve_topic_notifications: a resolve or unresolve right after the opposite toggle (its notice still
 * the topic's newest message, under 60 seconds old) deletes that notice instead of posting a new one.
 */
static int notify_resolve(struct uow *uow, struct message_edit *e)
{
	struct db_res *res = DB_EXEC(uow, &st_last_notice, db_arg_int(uow, e->orig->id), e->target_topic,
	                             db_arg_int(uow, uow->realm->id));
	if (res == NULL)
		return -1;
	if (db_rows(res) == 1 && db_bool(res, 0, 1)) {
		struct message_ref notice = {.id = db_int(res, 0, 0), .channel = e->orig};
		return message_events_delete(uow, &notice) < 0 ? -1 : message_delete(uow, notice.id);
	}
	const char *text = arena_printf(&uow->arena, "%s has marked this topic as %s.", notify_mention(uow, uow->user),
	                                e->resolved ? "resolved" : "unresolved");
	/* get_unread_user_ids_for_resolved_topic_notifications, for the default resolved_topic_notice_auto_read_policy
	 * (except_followed, which confab does not store): unread for the topic's followers. */
	if (!e->followers_known && topic_followers(uow, e, e->orig, e->target_topic) < 0)
		return -1;
	struct idset unread = {e->followers, e->nfollowers};
	return send_bot_message(uow, e->orig, e->target_topic, text, &unread) ? 0 : -1;
}

/* Whether the user can still see messages in topic of channel c, leaving out the moved ones (when given). */
static struct db_stmt st_visible_left =
    DB_STMT("SELECT EXISTS (SELECT 1 FROM messages m WHERE m.channel_id = $1 AND lower(m.topic) = lower($2)"
            " AND ($3 OR EXISTS (SELECT 1 FROM user_messages um WHERE um.user_id = $4 AND um.message_id = m.id))"
            " AND m.id NOT IN (SELECT unnest($5::bigint[])))");

static int visible_left(struct uow *uow, const struct channel *c, const char *topic, const struct idset *skip,
                        bool *out)
{
	struct db_res *res =
	    DB_EXEC(uow, &st_visible_left, db_arg_int(uow, c->id), topic, bool_arg(perm_channel_history(uow, c)),
	            db_arg_int(uow, uow->user->id), db_arg_ids(uow, skip->v, skip->n));
	if (res == NULL)
		return -1;
	*out = db_bool(res, 0, 0);
	return 0;
}

/* send_message_moved_breadcrumbs: the new topic's notice (unless the move only resolves or unresolves), then the
 * old topic's when asked. */
static int notify_move(struct uow *uow, struct message_edit *e, const struct idset *moved, bool moved_all)
{
	const char *user = notify_mention(uow, uow->user);
	int n = moved->n;
	if (e->in->notify_new_thread && (e->stream_edited || (e->topic_edited && !e->resolved && !e->unresolved))) {
		const char *from = topic_link(uow, e->orig, e->orig_topic), *text;
		bool preexisting;
		if (visible_left(uow, e->target, e->target_topic, moved, &preexisting) < 0)
			return -1;
		if (!preexisting && moved_all)
			text = arena_printf(&uow->arena, "This topic was moved here from %s by %s.", from, user);
		else if (n == 1)
			text = arena_printf(&uow->arena, "[A message](%s) was moved here from %s by %s.",
			                    message_link(uow, e), from, user);
		else
			text = arena_printf(&uow->arena, "%d messages were moved here from %s by %s.", n, from, user);
		if (send_bot_message(uow, e->target, e->target_topic, text, NULL) == 0)
			return -1;
	}
	if (e->in->notify_old_thread) {
		const char *to = topic_link(uow, e->target, e->target_topic), *text;
		if (moved_all)
			text = arena_printf(&uow->arena, "This topic was moved to %s by %s.", to, user);
		else if (n == 1)
			text = arena_printf(&uow->arena, "A message was moved from this topic to %s by %s.", to, user);
		else
			text = arena_printf(&uow->arena, "%d messages were moved from this topic to %s by %s.", n, to,
			                    user);
		if (send_bot_message(uow, e->orig, e->orig_topic, text, NULL) == 0)
			return -1;
	}
	return 0;
}

static struct db_stmt st_recent = DB_STMT("SELECT EXISTS (SELECT 1 FROM messages WHERE channel_id = $1"
                                          " AND date_sent >= now() - interval '" RECENT_ACTIVITY_DAYS " days')");

/* A channel that received recent messages becomes recently active (stream update to who may see it). */
static int refresh_activity(struct uow *uow, struct channel *c)
{
	if (c->is_recently_active)
		return 0;
	struct db_res *res = DB_EXEC(uow, &st_recent, db_arg_int(uow, c->id));
	if (res == NULL)
		return -1;
	if (!db_bool(res, 0, 0))
		return 0;
	int n;
	int64_t *users = channel_metadata_user_ids(uow, c->id, true, &n);
	if (users == NULL ||
	    channel_events_update(uow, c, "is_recently_active", json_object_new_boolean(true), users, n) < 0)
		return -1;
	c->is_recently_active = true;
	return 0;
}

/* ---- applying ------------------------------------------------------------------------------------------------ */

static json_object *new_event(struct uow *uow, const struct message_edit *e)
{
	json_object *event = uow_own_json(uow, json_object_new_object());
	json_object_object_add(event, "type", json_object_new_string("update_message"));
	json_object_object_add(event, "user_id", json_object_new_int64(uow->user->id));
	json_object_object_add(event, "edit_timestamp", json_object_new_int64(e->f.now));
	json_object_object_add(event, "message_id", json_object_new_int64(e->m->id));
	json_object_object_add(event, "rendering_only", json_object_new_boolean(false));
	return event;
}

/* The channel and topic fields of the event. */
static void event_move_fields(struct uow *uow, const struct message_edit *e, json_object *event)
{
	static const char *const modes[] = {"change_one", "change_later", "change_all"};
	json_object_object_add(event, "stream_name", json_object_new_string(e->orig->name));
	json_object_object_add(event, "stream_id", json_object_new_int64(e->orig->id));
	if (e->topic_edited || e->stream_edited)
		json_object_object_add(event, "propagate_mode", json_object_new_string(modes[e->in->mode]));
	if (e->stream_edited) {
		json_object_object_add(event, "new_stream_id", json_object_new_int64(e->target->id));
		json_object_object_add(event, "orig_subject", json_object_new_string(e->orig_topic));
	}
	if (e->topic_edited) {
		/* The legacy names, as the reference sends them. */
		json_object_object_add(event, "orig_subject", json_object_new_string(e->orig_topic));
		json_object_object_add(event, "subject", json_object_new_string(e->target_topic));
		json_object_object_add(event, "topic_links", linkifiers_topic_links(uow, e->target_topic));
	}
}

/* The rows of the move (or of a content edit alone), and the users who lose the messages. */
static int apply_rows(struct uow *uow, const struct message_edit *e, struct idset *moved, struct idset *losing)
{
	if (!e->topic_edited && !e->stream_edited) {
		moved->v = arena_alloc(&uow->arena, sizeof(int64_t));
		moved->v[0] = e->m->id;
		moved->n = 1;
		return DB_EXEC(uow, &st_content_history, db_arg_int(uow, e->m->id), db_arg_int(uow, uow->user->id),
		               e->m->content, e->f.rendered_content) != NULL
		           ? 0
		           : -1;
	}
	if (move_messages(uow, e, moved) < 0)
		return -1;
	if (e->stream_edited && move_copies(uow, e, moved, losing) < 0)
		return -1;
	return event_lost(uow, e, moved, losing);
}

/* Whether the move took every message of the old topic the user could see (change_all always does). */
static int moved_everything(struct uow *uow, const struct message_edit *e, bool *out)
{
	struct idset none = {NULL, 0};
	bool left = false;
	if (e->in->mode != PROPAGATE_ALL && visible_left(uow, e->orig, e->orig_topic, &none, &left) < 0)
		return -1;
	*out = !left;
	return 0;
}

static struct db_stmt st_had_messages =
    DB_STMT("SELECT EXISTS (SELECT 1 FROM messages WHERE channel_id = $1 AND lower(topic) = lower($2))");

/* Whether the target topic has messages, before the move. */
static int target_had_messages(struct uow *uow, const struct message_edit *e, bool *out)
{
	struct db_res *res = DB_EXEC(uow, &st_had_messages, db_arg_int(uow, e->target->id), e->target_topic);
	if (res == NULL)
		return -1;
	*out = db_bool(res, 0, 0);
	return 0;
}

/*
 * The users' topic preferences go with a move that took every message of the topic the user could see, into a topic
 * that had messages before the move or not (had). A change of case alone keeps the rows as they are (they match the
 * topic ignoring case already).
 */
static int move_preferences(struct uow *uow, struct message_edit *e, bool moved_all, bool had,
                            const struct idset *losing)
{
	if (!moved_all)
		return 0;
	if (topic_followers(uow, e, e->orig, e->orig_topic) < 0)
		return -1;
	if (!e->stream_edited && e->case_only)
		return 0;
	return user_topics_move(uow, e->orig, e->orig_topic, e->target, e->target_topic, had, losing->v, losing->n);
}

json_object *message_edit_apply(struct uow *uow, struct message_edit *e)
{
	json_object *event = new_event(uow, e), *detached = NULL;
	if (e->content != NULL && (detached = apply_content(uow, e, event)) == NULL)
		return NULL;
	if (detached == NULL)
		detached = uow_own_json(uow, json_object_new_array());
	struct idset moved = {NULL, 0}, losing = {NULL, 0};
	bool is_move = e->orig != NULL && (e->topic_edited || e->stream_edited), moved_all = false, had = false;
	if (e->orig != NULL)
		event_move_fields(uow, e, event);
	if (is_move && target_had_messages(uow, e, &had) < 0)
		return NULL;
	if (apply_rows(uow, e, &moved, &losing) < 0 ||
	    (is_move &&
	     (moved_everything(uow, e, &moved_all) < 0 || move_preferences(uow, e, moved_all, had, &losing) < 0)) ||
	    event_update(uow, e, event, &moved, &losing) < 0)
		return NULL;
	if (!is_move)
		return detached;
	/* Resolve notices come with topic edits alone; breadcrumbs with moves beyond a change of case. */
	if (e->topic_edited && e->content == NULL && !e->stream_edited && (e->resolved || e->unresolved) &&
	    notify_resolve(uow, e) < 0)
		return NULL;
	if ((e->stream_edited || (e->topic_edited && !e->case_only)) && notify_move(uow, e, &moved, moved_all) < 0)
		return NULL;
	if (e->stream_edited && refresh_activity(uow, e->target) < 0)
		return NULL;
	return detached;
}
