/*
 * Fetching the messages of a narrow around an anchor (GET /messages); see message_fetch() in messages.h. The
 * narrow's SQL parameters come from narrow.c; this file holds the statements that take them and their plans.
 *
 * Reference: Zulip zerver/views/message_fetch.py and zerver/lib/narrow.py (fetch_messages,
 * limit_query_to_range, post_process_limited_query).
 */
#include <string.h>

#include "core/uow.h"
#include "db/db.h"
#include "model/message_json.h"
#include "model/messages.h"
#include "model/narrow.h"
#include "model/realm.h"
#include "model/user_topics.h"

/* in:home and is:muted (the reference's exclude_muting_conditions without a channel): whether a channel message is
 * muted for the user $1, by its channel's subscription and its topic's visibility policy. */
#define NARROW_MUTED                                                                                                   \
	USER_TOPICS_MUTED_SQL("EXISTS (SELECT 1 FROM subscriptions ms WHERE ms.user_id = $1"                           \
	                      " AND ms.channel_id = m.channel_id AND ms.is_muted)",                                    \
	                      "(SELECT mt.visibility_policy FROM user_topics mt WHERE mt.user_id = $1"                 \
	                      " AND mt.channel_id = m.channel_id AND lower(mt.topic_name) = lower(m.topic))")

/*
 * The narrow as one WHERE fragment over messages m, parameterized ($1 user, $2 realm, $3..$28: the fields of
 * struct narrow_sql, narrow.h): every operator is a fixed condition that is true when its parameter is empty, so one
 * prepared statement serves every narrow and no operand is ever spliced into SQL. f: the user's flags.
 */
#define NARROW_FILTER(f)                                                                                               \
	" AND CASE WHEN m.channel_id = ALL($3::bigint[]) AND COALESCE(m.channel_id <> ALL($4::bigint[]), true)"        \
	" AND (cardinality($5::text[]) = 0 OR (m.channel_id IS NOT NULL AND NOT EXISTS"                                \
	"   (SELECT 1 FROM unnest($5::text[]) t WHERE lower(t) <> lower(m.topic))))"                                   \
	" AND NOT (m.channel_id IS NOT NULL AND EXISTS (SELECT 1 FROM unnest($6::text[]) t"                            \
	"   WHERE lower(t) = lower(m.topic)))"                                                                         \
	" AND m.sender_id = ALL($7::bigint[]) AND m.sender_id <> ALL($8::bigint[])"                                    \
	" AND m.id = ALL($9::bigint[]) AND m.id <> ALL($10::bigint[])"                                                 \
	" AND COALESCE(m.direct_conversation_id = ALL($11::bigint[]), false)"                                          \
	" AND COALESCE(m.direct_conversation_id <> ALL($12::bigint[]), true)"                                          \
	" AND (cardinality($13::bigint[]) = 0 OR EXISTS (SELECT 1 FROM direct_conversations dc"                        \
	"   WHERE dc.id = m.direct_conversation_id AND dc.user_ids @> $13::bigint[]))"                                 \
	" AND (cardinality($14::bigint[]) = 0 OR NOT EXISTS (SELECT 1 FROM direct_conversations dc"                    \
	"   WHERE dc.id = m.direct_conversation_id AND dc.user_ids && $14::bigint[]))"                                 \
	" AND (cardinality($15::bigint[]) = 0 OR EXISTS (SELECT 1 FROM direct_conversations dc"                        \
	"   WHERE dc.id = m.direct_conversation_id AND dc.user_ids @> $15::bigint[] AND cardinality(dc.user_ids) > "   \
	"2))"                                                                                                          \
	" AND (" f " & $16::int) = $16::int AND (" f " & $17::int) = 0 AND ($18::int = 0 OR (" f " & $18::int) <> 0)"  \
	" AND ($19::int < 0 OR (m.channel_id IS NOT NULL AND m.topic LIKE '\xe2\x9c\x94 %') = ($19::int = 1))"         \
	" AND ($20::int < 0 OR m.has_attachment = ($20::int = 1))"                                                     \
	" AND ($21::int < 0 OR m.has_image = ($21::int = 1))"                                                          \
	" AND ($22::int < 0 OR m.has_link = ($22::int = 1))"                                                           \
	" AND ($23::int < 0 OR (m.channel_id IS NOT NULL AND " NARROW_MUTED ") = ($23::int = 0))"                      \
	" AND ($24::int < 0 OR COALESCE(m.channel_id IN (SELECT pc.id FROM channels pc"                                \
	"   WHERE pc.realm_id = $2 AND NOT pc.invite_only), false) = ($24::int = 1))"                                  \
	" AND ($25::int < 0 OR COALESCE(m.channel_id IN (SELECT pc.id FROM channels pc"                                \
	"   WHERE pc.realm_id = $2 AND pc.is_web_public), false) = ($25::int = 1))"                                    \
	" AND NOT EXISTS (SELECT 1 FROM unnest($26::text[]) w WHERE NOT (m.content ILIKE w OR m.topic ILIKE w))"       \
	" AND NOT $27::boolean AND ($28::bigint[] IS NULL OR m.id = ANY($28::bigint[]))"                               \
	" AND ($29::int < 0 OR EXISTS (SELECT 1 FROM reactions r WHERE r.message_id = m.id) = ($29::int = 1))"         \
	" THEN true ELSE false END"

/*
 * Each fetch is two index-ordered halves around the anchor ($30 highest id and $31 count before it; $32..$33
 * the id range and $34 count after it), as the reference's limit_query_to_range builds them.
 *
 * The user's own copies, driven by user_messages' primary key (user_id, message_id): no narrow, DMs, is:*, and
 * channels whose history the user may not read.
 */
#define RECEIVED_SIDE(cmp, order, limit)                                                                               \
	"(SELECT um.message_id AS id, um.flags, true AS received FROM user_messages um CROSS JOIN LATERAL"             \
	" (SELECT 1 FROM messages m WHERE m.id = um.message_id" NARROW_FILTER(                                         \
	    "um.flags") " OFFSET 0) hit"                                                                               \
	                " WHERE um.user_id = $1 AND " cmp " ORDER BY um.message_id " order " LIMIT " limit ")"
static struct db_stmt st_fetch_received = DB_STMT_GENERIC("SELECT id, flags, received FROM (" RECEIVED_SIDE(
    "um.message_id <= $30", "DESC", "$31") " UNION ALL " RECEIVED_SIDE("um.message_id >= $32 AND um.message_id <= $33",
                                                                       "ASC", "$34") ") hits ORDER BY id");

/*
 * A channel's history ($35; $36 the topic), driven by messages_channel (channel_id, id) or messages_channel_topic
 * (channel_id, lower(topic), id); the user's flags come from a per-row lookup in user_messages, so no join can
 * turn the index-ordered scan into a sort. The flag conditions are idle here (an is: term never reads history).
 *
 * Why the shapes look the way they do: one CASE holds the whole narrow filter, so that the planner estimates it
 * as one condition of default selectivity instead of multiplying thirty guesses into "almost nothing matches"
 * (which made it prefer a sequential scan and a sort); the lateral OFFSET 0 subquery above pins the received
 * shape to a nested loop over user_messages' index. EXPLAIN EXECUTE of this statement for a channel narrow, the
 * 50 newest of a channel of 100,000 messages (PostgreSQL 15; generic plan, plan_cache_mode=force_generic_plan;
 * filter lines left out):
 *
 *   Merge Append (actual rows=50 loops=1)
 *     Sort Key: m.id
 *     ->  Sort (actual rows=50 loops=1)
 *           ->  Limit (actual rows=50 loops=1)
 *                 ->  Index Scan Backward using messages_channel on messages m (actual rows=50 loops=1)
 *                       Index Cond: ((channel_id = $35) AND (id <= $30))
 *                         ->  Index Scan using user_messages_message on user_messages um (actual rows=1 loops=50)
 *                               Index Cond: (message_id = m.id)
 *     ->  Limit (actual rows=0 loops=1)
 *           ->  Index Scan using messages_channel on messages m_1 (never executed)
 *                 Index Cond: ((channel_id = $35) AND (id >= $32) AND (id <= $33))
 *   Execution Time: 1.048 ms
 *
 * The custom plans (the first executions) use the same indexes or messages_pkey backwards; the received shape is
 * "Nested Loop -> Index Scan Backward using user_messages_pkey on user_messages um -> Index Scan using
 * messages_pkey on messages m"; the topic shape "Index Scan Backward using messages_channel_topic". None has a
 * sequential scan; tests/integration/test_messages.c (big_channel) fetches from such a channel and checks plans.
 */
#define HISTORY_SIDE(where, cmp, order, limit)                                                                         \
	"(SELECT m.id, (SELECT um.flags FROM user_messages um WHERE um.user_id = $1 AND um.message_id = m.id)"         \
	" AS flags FROM messages m WHERE " where NARROW_FILTER("129") " AND " cmp " ORDER BY m.id " order              \
	                                                              " LIMIT " limit ")"
#define HISTORY_FETCH(where)                                                                                           \
	"SELECT id, COALESCE(flags, 129), flags IS NOT NULL FROM (" HISTORY_SIDE(                                      \
	    where, "m.id <= $30", "DESC", "$31") " UNION ALL " HISTORY_SIDE(where, "m.id >= $32 AND m.id <= $33",      \
	                                                                    "ASC", "$34") ") hits ORDER BY id"
static struct db_stmt st_fetch_channel = DB_STMT_GENERIC(HISTORY_FETCH("m.channel_id = $35"));
static struct db_stmt st_fetch_topic =
    DB_STMT_GENERIC(HISTORY_FETCH("m.channel_id = $35 AND lower(m.topic) = lower($36)"));
/* channels:public: the organization's messages by primary key, filtered to public channels. */
static struct db_stmt st_fetch_public = DB_STMT_GENERIC(HISTORY_FETCH("m.realm_id = $2 AND m.channel_id IS NOT NULL"));

/*
 * The same for a narrow of nothing but its channel (and one topic), the common case: no filter left to evaluate,
 * so a small plan ($1 user, $2 channel, $3..$7 the halves as $30..$34 above). The halves read only the ids (an
 * index-only scan of messages_channel): read with the messages' columns, the generic plan walks messages_pkey
 * backwards through the other channels' messages instead.
 */
#define PLAIN_SIDE(where, cmp, order, limit)                                                                           \
	"(SELECT m.id, (SELECT um.flags FROM user_messages um WHERE um.user_id = $1 AND um.message_id = m.id)"         \
	" AS flags FROM messages m WHERE " where " AND " cmp " ORDER BY m.id " order " LIMIT " limit ")"
#define PLAIN_FETCH(where)                                                                                             \
	"SELECT id, COALESCE(flags, 129), flags IS NOT NULL FROM (" PLAIN_SIDE(                                        \
	    where, "m.id <= $3", "DESC", "$4") " UNION ALL " PLAIN_SIDE(where, "m.id >= $5 AND m.id <= $6", "ASC",     \
	                                                                "$7") ") hits ORDER BY id"
/*
 * With the Message objects of the rows found, in the same round trip (message_json.h): $8 the placeholder e-mail
 * domain, $9 markdown, $10 search, $11 the topic. Rows: the objects' columns, then the flags
 * (PLAIN_FLAGS) and whether received.
 */
/* clang-format off */
#define PLAIN_OBJECTS(where) \
	"WITH hits (id, flags, received) AS MATERIALIZED (" PLAIN_FETCH(where) ")," \
	MESSAGE_DICT_CTES("ARRAY(SELECT id FROM hits)", "$8", "$9", "$10") \
	" SELECT" MESSAGE_DICT_COLUMNS("$8") ", hits.flags, hits.received" \
	MESSAGE_DICT_FROM " JOIN hits ON hits.id = m.id ORDER BY m.id"
/* clang-format on */
#define PLAIN_FLAGS MD_COUNT
static struct db_stmt st_objects_channel_plain = DB_STMT_GENERIC(PLAIN_OBJECTS("m.channel_id = $2"));
static struct db_stmt st_objects_topic_plain =
    DB_STMT_GENERIC(PLAIN_OBJECTS("m.channel_id = $2 AND lower(m.topic) = lower($11)"));

/* Whether nw is one channel's history and nothing else (but one topic): every NARROW_FILTER condition is idle. */
static bool plain_history(const struct narrow *nw)
{
	const struct ids *none[] = {&nw->ch_neg, &nw->sender_pos, &nw->sender_neg, &nw->id_pos,  &nw->id_neg,
	                            &nw->dm_pos, &nw->dm_neg,     &nw->dmi_pos,    &nw->dmi_neg, &nw->gpm};
	for (size_t i = 0; i < sizeof(none) / sizeof(none[0]); i++)
		if (none[i]->n)
			return false;
	const int conditions[] = {nw->resolved,     nw->has_attachment, nw->has_image,   nw->has_link,
	                          nw->has_reaction, nw->in_home,        nw->public_only, nw->web_public_only};
	for (size_t i = 0; i < sizeof(conditions) / sizeof(conditions[0]); i++)
		if (conditions[i] != -1)
			return false;
	return nw->include_history && nw->history_channel != NULL && nw->ch_pos.n == 1 && nw->topic_pos.n <= 1 &&
	       nw->topic_neg.n == 0 && nw->search.n == 0 && nw->set == 0 && nw->unset == 0 && nw->any == 0 &&
	       !nw->impossible && !nw->public_history;
}

/* The first unread message of the narrow, by user_messages_unread, muted messages skipped (the reference's
 * exclude_stream_and_topic_mutes): muted topics, and unless narrowed to a channel, muted channels' topics that are
 * not unmuted or followed. */
#define FIRST_UNREAD_CHANNEL_MUTED                                                                                     \
	"(cardinality($3::bigint[]) = 0 AND EXISTS (SELECT 1 FROM subscriptions fs"                                    \
	" WHERE fs.user_id = $1 AND fs.channel_id = m.channel_id AND fs.is_muted))"
#define FIRST_UNREAD_POLICY                                                                                            \
	"(SELECT ut.visibility_policy FROM user_topics ut WHERE ut.user_id = $1 AND ut.channel_id = m.channel_id"      \
	" AND lower(ut.topic_name) = lower(m.topic))"
static struct db_stmt st_first_unread = DB_STMT(
    "SELECT um.message_id FROM user_messages um CROSS JOIN LATERAL (SELECT 1 FROM messages m"
    " WHERE m.id = um.message_id" NARROW_FILTER("um.flags") " AND (m.channel_id IS NULL OR NOT " USER_TOPICS_MUTED_SQL(
        FIRST_UNREAD_CHANNEL_MUTED,
        FIRST_UNREAD_POLICY) ") OFFSET 0) hit"
                             " WHERE um.user_id = $1 AND (um.flags & 1) = 0 ORDER BY um.message_id LIMIT 1");

/* The rows around the anchor (the reference's post_process_limited_query): ids and flags (column flag_col) of
 * rows[out->n]. */
static void limit_rows(const struct db_res *res, int flag_col, int64_t anchor, int before, int after, int *rows,
                       struct message_page *out)
{
	bool left = anchor == 0, right = anchor >= MESSAGE_ANCHOR_NEWEST;
	int n = db_rows(res), first_anchor = n, first_after = n;
	if (right)
		after = 0;
	for (int i = n - 1; i >= 0 && !right; i--) {
		if (db_int(res, i, 0) > anchor)
			first_after = i;
		if (db_int(res, i, 0) >= anchor)
			first_anchor = i;
	}
	int n_before = first_anchor, n_anchor = first_after - first_anchor, n_after = n - first_after;
	int skip = before && n_before > before ? n_before - before : 0;
	int keep_after = after && n_after > after ? after : n_after;
	out->n = 0;
	for (int i = skip; i < first_after + keep_after; i++) {
		rows[out->n] = i;
		out->ids[out->n] = db_int(res, i, 0);
		out->flags[out->n++] = (int)db_int(res, i, flag_col);
	}
	out->found_anchor = n_anchor == 1;
	out->found_oldest = left || n_before - skip < before;
	out->found_newest = right || keep_after < after;
	out->history_limited = false;
}

static struct db_stmt *fetch_statement(const struct narrow *nw, int *nparams)
{
	*nparams = NARROW_SQL_FILTER_PARAMS + 5;
	if (nw->include_history && nw->history_channel != NULL) {
		*nparams += nw->topic_pos.n ? 2 : 1;
		return nw->topic_pos.n ? &st_fetch_topic : &st_fetch_channel;
	}
	return nw->public_history ? &st_fetch_public : &st_fetch_received;
}

/* A plain history fetch (plain_history()) with its objects, in one statement. 0 or -1. */
static int fetch_plain_objects(struct uow *uow, const struct narrow *nw, const struct narrow_sql *sql, int64_t anchor,
                               int before, int after, const struct message_format *f, struct message_page *out)
{
	const char *p[] = {sql->user_id,
	                   sql->history_channel,
	                   sql->before_anchor,
	                   sql->before_limit,
	                   sql->after_anchor,
	                   sql->after_max,
	                   sql->after_limit,
	                   realm_fake_email_domain(uow, uow->realm),
	                   f->apply_markdown ? "true" : "false",
	                   f->search_fields ? "true" : "false",
	                   sql->history_topic};
	bool topic = nw->topic_pos.n > 0;
	struct db_res *res =
	    db_exec(uow, topic ? &st_objects_topic_plain : &st_objects_channel_plain, p, topic ? 11 : 10);
	if (res == NULL)
		return -1;
	int *rows = arena_alloc(&uow->arena, (size_t)(db_rows(res) + 1) * sizeof(*rows));
	out->ids = arena_alloc(&uow->arena, (size_t)(db_rows(res) + 1) * sizeof(*out->ids));
	out->flags = arena_alloc(&uow->arena, (size_t)(db_rows(res) + 1) * sizeof(*out->flags));
	limit_rows(res, PLAIN_FLAGS, anchor, before, after, rows, out);
	out->objects = message_objects_write(uow, res, rows, out->flags, out->n, f, &out->objects_len);
	return 0;
}

int message_fetch(struct uow *uow, struct narrow *nw, int64_t anchor, bool include_anchor, int num_before,
                  int num_after, const int64_t *ids, int n_ids, const struct message_format *f,
                  struct message_page *out)
{
	struct narrow_sql sql;
	const char *p[NARROW_SQL_PARAMS];
	narrow_sql_filter(uow, nw, ids, n_ids, &sql);
	if (ids == NULL && anchor == MESSAGE_ANCHOR_FIRST_UNREAD) {
		narrow_sql_positional(&sql, p);
		struct db_res *res = db_exec(uow, &st_first_unread, p, NARROW_SQL_FILTER_PARAMS);
		if (res == NULL)
			return -1;
		anchor = db_rows(res) ? db_int(res, 0, 0) : MESSAGE_ANCHOR_NEWEST;
	}
	if (ids != NULL) /* every requested message that matches, ascending */
		narrow_sql_range(uow, 0, false, 0, n_ids, &sql);
	else
		narrow_sql_range(uow, anchor, include_anchor, num_before, num_after, &sql);
	memset(out, 0, sizeof(*out));
	out->anchor = anchor;
	out->is_search = nw->is_search;
	if (ids == NULL && f != NULL && plain_history(nw))
		return fetch_plain_objects(uow, nw, &sql, anchor, num_before, num_after, f, out);
	int nparams;
	struct db_stmt *st = fetch_statement(nw, &nparams);
	narrow_sql_positional(&sql, p);
	struct db_res *res = db_exec(uow, st, p, nparams);
	if (res == NULL)
		return -1;
	out->ids = arena_alloc(&uow->arena, (size_t)(db_rows(res) + 1) * sizeof(*out->ids));
	out->flags = arena_alloc(&uow->arena, (size_t)(db_rows(res) + 1) * sizeof(*out->flags));
	if (ids == NULL) {
		int *rows = arena_alloc(&uow->arena, (size_t)(db_rows(res) + 1) * sizeof(*rows));
		limit_rows(res, 1, anchor, num_before, num_after, rows, out);
		return 0;
	}
	for (int i = 0; i < db_rows(res); i++) {
		out->ids[out->n] = db_int(res, i, 0);
		out->flags[out->n++] = (int)db_int(res, i, 1);
	}
	return 0;
}
