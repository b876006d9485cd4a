/* POST /register's unread_msgs; see unread.h. */
#include "model/unread.h"

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/buf.h"
#include "core/ids.h"
#include "core/jsonx.h"
#include "core/uow.h"
#include "db/db.h"
#include "model/realm.h"
#include "model/user.h"
#include "model/user_topics.h"

#define STR_(x) #x
#define STR(x)  STR_(x)

/*
 * One row per conversation of the user's latest unread messages (messages of channels the user left do not count),
 * a topic's spellings apart (grouped by the topic itself, not lowercased: a text sort key per message costs more
 * than the join; sort_and_merge() puts the spellings together): channel id (0 for direct messages), the topic, the
 * topic lowercased, the number of messages, their ids ascending ("1,2,3"), the conversation's sorted participants
 * ("1,2,3") and their number, whether the topic is muted (its channel, unless the topic is unmuted or followed, or
 * the topic itself), the ids of the mentions that count (personal mentions; wildcard ones unless muted), and the
 * oldest message's id.
 */
/* clang-format off */
static struct db_stmt st_unread = DB_STMT(
    "WITH r AS (SELECT m.id, um.flags, m.channel_id, m.topic, m.direct_conversation_id"
    "  FROM user_messages um JOIN messages m ON m.id = um.message_id"
    " WHERE um.user_id = $1 AND um.flags & 1 = 0 AND (m.channel_id IS NULL OR m.channel_id <> ALL (ARRAY("
    "   SELECT l.channel_id FROM subscriptions l WHERE l.user_id = $1 AND NOT l.active)))"
    " ORDER BY um.message_id DESC LIMIT " STR(UNREAD_MAX_MESSAGES) "),"
    " g AS (SELECT r.channel_id, r.topic, lower(r.topic) AS lt, r.direct_conversation_id, min(r.id) AS first,"
    "   count(*) AS n, array_to_string(array_agg(r.id ORDER BY r.id), ',') AS ids,"
    "   array_agg(r.id) FILTER (WHERE r.flags & 8 <> 0) AS mentioned,"
    "   array_agg(r.id) FILTER (WHERE r.flags & 8 = 0 AND r.flags & 48 <> 0) AS wildcard"
    "  FROM r GROUP BY r.channel_id, r.topic, r.direct_conversation_id)"
    " SELECT COALESCE(g.channel_id, 0), g.topic, g.lt, g.n, g.ids,"
    "   COALESCE(array_to_string(dc.user_ids, ','), ''), COALESCE(cardinality(dc.user_ids), 0), x.muted,"
    "   COALESCE(array_to_string(CASE WHEN x.muted THEN g.mentioned ELSE array_cat(g.mentioned, g.wildcard) END,"
    "     ','), ''), g.first"
    "  FROM g LEFT JOIN direct_conversations dc ON dc.id = g.direct_conversation_id"
    "  LEFT JOIN subscriptions s ON s.channel_id = g.channel_id AND s.user_id = $1"
    "  LEFT JOIN user_topics ut ON ut.user_id = $1 AND ut.channel_id = g.channel_id AND lower(ut.topic_name) = g.lt"
    "  CROSS JOIN LATERAL (SELECT " USER_TOPICS_MUTED_SQL("s.is_muted", "ut.visibility_policy") " AS muted) x");
/* clang-format on */

enum kind { K_STREAM, K_PM, K_HUDDLE, K_COUNT };

/* One bucket: a conversation (several rows: its topic's spellings, and the empty topic shown as "general chat" beside
 * that topic). */
struct bucket {
	int64_t num;       /* stream id; other user id */
	const char *key;   /* the lowercased topic (streams), user_ids_string (huddles) */
	const char *topic; /* streams: the oldest message's topic (spelling) */
	int64_t first;     /* the oldest message */
	const char *ids;   /* ascending, comma-separated */
};

struct unread {
	struct bucket *b[K_COUNT];
	int n[K_COUNT];
	struct int_list {
		int64_t *v;
		size_t n, cap;
	} mentions;
	int count, total;
};

static int cmp_buckets(const void *a, const void *b)
{
	const struct bucket *x = a, *y = b;
	if (x->num != y->num)
		return x->num < y->num ? -1 : 1;
	return strcmp(x->key, y->key);
}

/* Appends the comma-separated ids of text to l. */
static void parse_ids(struct uow *uow, const char *text, struct int_list *l)
{
	for (const char *p = text; *p != '\0';) {
		if (l->n == l->cap) {
			size_t cap = l->cap ? 2 * l->cap : 64;
			int64_t *v = arena_alloc(&uow->arena, cap * sizeof(*v));
			if (l->n > 0)
				memcpy(v, l->v, l->n * sizeof(*v));
			l->v = v;
			l->cap = cap;
		}
		char *end;
		l->v[l->n++] = strtoll(p, &end, 10);
		p = *end == ',' ? end + 1 : end;
	}
}

/* The ids of l, ascending, as comma-separated text (an arena string). */
static const char *ids_text(struct uow *uow, struct int_list *l)
{
	if (l->n == 0)
		return "";
	qsort(l->v, l->n, sizeof(*l->v), ids_cmp);
	char *text = arena_alloc(&uow->arena, l->n * 21 + 1), *p = text;
	*p = '\0';
	for (size_t i = 0; i < l->n; i++)
		p += snprintf(p, 22, i ? ",%lld" : "%lld", (long long)l->v[i]);
	return text;
}

/* Files conversation row i of st_unread as a bucket of u. */
static void file_row(struct uow *uow, bool empty_topic_name, const struct db_res *res, int i, struct unread *u)
{
	int64_t channel_id = db_int(res, i, 0);
	int participants = (int)db_int(res, i, 6);
	bool muted = channel_id != 0 && db_bool(res, i, 7);
	enum kind k = channel_id != 0 ? K_STREAM : participants <= 2 ? K_PM : K_HUDDLE;
	struct bucket *b = &u->b[k][u->n[k]++];
	*b = (struct bucket){.num = channel_id, .key = "", .first = db_int(res, i, 9), .ids = db_val(res, i, 4)};
	if (k == K_STREAM) {
		bool fallback = *db_val(res, i, 2) == '\0' && !empty_topic_name;
		b->topic = fallback ? REALM_EMPTY_TOPIC_DISPLAY_NAME : db_val(res, i, 1);
		b->key = fallback ? REALM_EMPTY_TOPIC_DISPLAY_NAME : db_val(res, i, 2);
	} else if (k == K_PM) {
		/* One-on-one (or with oneself): keyed by the other participant. */
		long long a, c;
		b->num = uow->user->id;
		if (participants == 2 && sscanf(db_val(res, i, 5), "%lld,%lld", &a, &c) == 2)
			b->num = a == uow->user->id ? c : a;
	} else {
		b->key = db_val(res, i, 5);
	}
	int n = (int)db_int(res, i, 3);
	u->total += n;
	u->count += muted ? 0 : n;
	parse_ids(uow, db_val(res, i, 8), &u->mentions);
}

/* Sorts the buckets of kind k and merges those of one key (their ids merged, the oldest one's topic kept). */
static void sort_and_merge(struct uow *uow, struct unread *u, enum kind k)
{
	struct bucket *b = u->b[k];
	qsort(b, u->n[k], sizeof(*b), cmp_buckets);
	int out = 0;
	for (int i = 0; i < u->n[k]; i++) {
		if (out == 0 || cmp_buckets(&b[out - 1], &b[i]) != 0) {
			b[out++] = b[i];
			continue;
		}
		struct bucket *m = &b[out - 1];
		struct int_list l = {0};
		parse_ids(uow, m->ids, &l);
		parse_ids(uow, b[i].ids, &l);
		m->ids = ids_text(uow, &l);
		if (b[i].first < m->first) {
			m->first = b[i].first;
			m->topic = b[i].topic;
		}
	}
	u->n[k] = out;
}

/* A raw JSON array of the comma-separated ids text. */
static json_object *raw_ids(const char *ids)
{
	return jsonx_raw((const char *[]){"[", ids, "]"}, (size_t[]){1, strlen(ids), 1}, 3, NULL, NULL);
}

static json_object *bucket_json(enum kind k, const struct bucket *b)
{
	json_object *o = json_object_new_object();
	if (k == K_STREAM) {
		json_object_object_add(o, "stream_id", json_object_new_int64(b->num));
		json_object_object_add(o, "topic", json_object_new_string(b->topic));
	} else if (k == K_PM) {
		json_object_object_add(o, "other_user_id", json_object_new_int64(b->num));
		json_object_object_add(o, "sender_id", json_object_new_int64(b->num));
	} else {
		json_object_object_add(o, "user_ids_string", json_object_new_string(b->key));
	}
	json_object_object_add(o, "unread_message_ids", raw_ids(b->ids));
	return o;
}

static int read_buckets(struct uow *uow, bool empty_topic_name, struct unread *u)
{
	struct db_res *res = DB_EXEC(uow, &st_unread, db_arg_int(uow, uow->user->id));
	if (res == NULL)
		return -1;
	for (int k = 0; k < K_COUNT; k++)
		u->b[k] = arena_alloc(&uow->arena, (size_t)(db_rows(res) + 1) * sizeof(struct bucket));
	for (int i = 0; i < db_rows(res); i++)
		file_row(uow, empty_topic_name, res, i, u);
	for (int k = 0; k < K_COUNT; k++)
		sort_and_merge(uow, u, k);
	return 0;
}

/* unread_msgs of uow->user (empty for a spectator); NULL with the error recorded. */
static json_object *unread_json(struct uow *uow, bool empty_topic_name)
{
	struct unread u = {0};
	if (uow->user != NULL && read_buckets(uow, empty_topic_name, &u) < 0)
		return NULL;
	json_object *unread = json_object_new_object(), *lists[K_COUNT];
	for (int k = 0; k < K_COUNT; k++) {
		lists[k] = json_object_new_array_ext(u.n[k]);
		for (int i = 0; i < u.n[k]; i++)
			json_object_array_add(lists[k], bucket_json(k, &u.b[k][i]));
	}
	/* The reference's order of keys. */
	json_object_object_add(unread, "pms", lists[K_PM]);
	json_object_object_add(unread, "streams", lists[K_STREAM]);
	json_object_object_add(unread, "huddles", lists[K_HUDDLE]);
	json_object_object_add(unread, "mentions", raw_ids(ids_text(uow, &u.mentions)));
	json_object_object_add(unread, "count", json_object_new_int(u.count));
	json_object_object_add(unread, "old_unreads_missing", json_object_new_boolean(u.total == UNREAD_MAX_MESSAGES));
	return unread;
}

/* ---- read beside the request ---------------------------------------------------------------------------------- */

struct unread_job {
	struct uow side; /* a connection of its own, in the request's snapshot; its memory holds the result's text */
	bool empty_topic_name;
	char snapshot[64]; /* pg_export_snapshot() of the request's transaction */
	pthread_t thread;
	bool joined;
	json_object *unread; /* the result; NULL if the side failed */
};

static struct db_stmt st_export = DB_STMT("SELECT pg_export_snapshot()");

static void *job_main(void *arg)
{
	struct unread_job *j = arg;
	struct uow *side = &j->side;
	if (db_begin_repeatable_read(side) == 0 &&
	    db_exec_script(side, arena_printf(&side->arena, "SET TRANSACTION SNAPSHOT '%s'", j->snapshot)) == 0)
		j->unread = unread_json(side, j->empty_topic_name);
	db_release(side); /* ends the transaction: the result is read */
	return NULL;
}

/* The request's cleanup (its response is written): the thread waited for, its memory freed. */
static void job_end(void *arg)
{
	struct unread_job *j = arg;
	if (!j->joined)
		pthread_join(j->thread, NULL);
	json_object_put(j->unread);
	uow_finish(&j->side);
}

/* Whether text is a snapshot identifier as pg_export_snapshot() writes them ("00000003-0000001B-1"). */
static bool snapshot_id(const char *text)
{
	size_t n = strlen(text);
	return n > 0 && n < 64 && strspn(text, "0123456789ABCDEF-") == n;
}

struct unread_job *unread_start(struct uow *uow, bool empty_topic_name)
{
	if (uow->user == NULL)
		return NULL;
	struct unread_job *j = arena_alloc(&uow->arena, sizeof(*j));
	j->empty_topic_name = empty_topic_name;
	uow_init(&j->side, uow->worker, uow->id);
	j->side.realm = uow->realm;
	j->side.user = uow->user;
	struct db_res *res = NULL;
	if (db_acquire_if_free(&j->side) < 0 || (res = DB_EXEC(uow, &st_export)) == NULL ||
	    !snapshot_id(db_val(res, 0, 0))) {
		uow_finish(&j->side);
		return NULL;
	}
	strcpy(j->snapshot, db_val(res, 0, 0));
	if (pthread_create(&j->thread, NULL, job_main, j) != 0) {
		uow_finish(&j->side);
		return NULL;
	}
	arena_defer(&uow->arena, job_end, j);
	return j;
}

int unread_state(struct uow *uow, struct unread_job *job, bool empty_topic_name, json_object *out)
{
	json_object *unread = NULL;
	if (job != NULL) {
		pthread_join(job->thread, NULL);
		job->joined = true;
		unread = job->unread;
		job->unread = NULL;
	}
	if (unread == NULL && (unread = unread_json(uow, empty_topic_name)) == NULL)
		return -1;
	json_object_object_add(out, "unread_msgs", unread);
	return 0;
}
