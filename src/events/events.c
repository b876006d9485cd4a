/*
 * Event queues in Redis; see events.h.
 *
 * Private keys an event may carry for routing (stripped before a client sees the event):
 *   _raw_content   message events: the Markdown source, served instead of the HTML to apply_markdown=false queues
 *   _channel_id    message events: the channel, for narrows ("channel"/"stream" operators)
 *   _topic         message events: the topic, for narrows ("topic")
 *   _dm_user_ids   message events: the participants of a direct message, for narrows ("dm", "is:dm")
 *   _exclude_user_ids  all_public_streams copies: users who get their own copy (so no queue gets two)
 *   _sender_queue_id, _local_id  the sending client's queue gets "local_message_id" (local echo)
 *   _gravatar      message events: the sender uses Gravatar, so client_gravatar queues get avatar_url null
 *   _group_deactivated  user_group update of a deactivated group: only for include_deactivated_groups clients
 *   _inaccessible_user  realm_user add of a placeholder user: not for user_list_incomplete clients
 */
#include "events/events.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "core/config.h"
#include "core/hash.h"
#include "core/jsonx.h"
#include "core/log.h"
#include "core/metrics.h"
#include "db/db.h"
#include "events/queues.h"
#include "core/uow.h"
#include "model/realm.h"
#include "model/user.h"
#include "redis/redis.h"

/*
 * A queue's applied set (see push_script: events pushed in several calls) is pruned of ids older than APPLIED_SECS
 * and beyond the newest APPLIED_MAX when it holds more than APPLIED_PRUNE_AT ids, looked at every 64th event of the
 * queue. APPLIED_SECS is also how long a row published whole is remembered.
 */
#define APPLIED_PRUNE_AT "1000"
#define APPLIED_SECS     "600"
#define APPLIED_MAX      "10000"

struct pending_event {
	const char *json;
	int64_t *user_ids;
	int n;
	unsigned flags;
	int64_t realm_id; /* for EV_ALL_PUBLIC; 0 without an organization */
	const char *txid; /* of the transaction that caused it; "0" outside one (visible in no snapshot) */
	const char *oid;  /* its outbox row's id, or NULL when it has none (published directly) */
	bool published;
	bool done; /* oid is in OUTBOX_DONE already: put there by the push script, or with the pushes */
};

static long long now_secs(void)
{
	return (long long)time(NULL);
}

/* ---- producing ----------------------------------------------------------------------------------------- */

int events_add(struct uow *uow, json_object *event, const int64_t *user_ids, int n, unsigned flags)
{
	if (uow->nevents == uow->capevents) {
		int cap = uow->capevents ? uow->capevents * 2 : 8;
		struct pending_event *e = arena_alloc(&uow->arena, (size_t)cap * sizeof(*e));
		if (uow->nevents)
			memcpy(e, uow->events, (size_t)uow->nevents * sizeof(*e));
		uow->events = e;
		uow->capevents = cap;
	}
	struct pending_event *e = &uow->events[uow->nevents++];
	e->json = arena_strdup(&uow->arena, jsonx_string(event));
	e->user_ids = arena_alloc(&uow->arena, (size_t)(n + 1) * sizeof(*e->user_ids));
	memcpy(e->user_ids, user_ids, (size_t)n * sizeof(*user_ids));
	e->n = n;
	e->flags = flags;
	e->realm_id = uow->realm ? uow->realm->id : 0;
	e->txid = "0";
	e->oid = NULL;
	e->published = false;
	e->done = false;
	return 0;
}

json_object *events_new(struct uow *uow, const char *type, const char *op)
{
	json_object *event = uow_own_json(uow, json_object_new_object());
	json_object_object_add(event, "type", json_object_new_string(type));
	if (op != NULL)
		json_object_object_add(event, "op", json_object_new_string(op));
	return event;
}

int events_add_some(struct uow *uow, json_object *event, const int64_t *user_ids, int n)
{
	return n > 0 ? events_add(uow, event, user_ids, n, 0) : 0;
}

/*
 * One statement for all the events of a request, in their order: nextval() runs in the order of the SELECT, so
 * the ids ascend with the events, and the outer ORDER BY returns them that way (RETURNING promises no order).
 */
static struct db_stmt st_outbox_insert =
    DB_STMT("WITH ins AS (INSERT INTO event_outbox (realm_id, flags, user_ids, payload)"
            " SELECT NULLIF((e->>'r')::bigint, 0), (e->>'f')::integer, (e->>'u')::bigint[], e->>'p'"
            " FROM json_array_elements($1::json) WITH ORDINALITY AS t(e, n) ORDER BY n RETURNING id, txid)"
            " SELECT id, txid::text FROM ins ORDER BY id");

/* Writes the outbox rows, committing in the same round trip when commit is set. */
static int outbox_write(struct uow *uow, bool commit)
{
	if (!uow->in_txn || uow->nevents == 0)
		return commit ? db_commit(uow) : 0;
	json_object *rows = uow_own_json(uow, json_object_new_array());
	for (int i = 0; i < uow->nevents; i++) {
		const struct pending_event *e = &uow->events[i];
		json_object *row = json_object_new_object();
		json_object_object_add(row, "r", json_object_new_int64(e->realm_id));
		json_object_object_add(row, "f", json_object_new_int((int)e->flags));
		json_object_object_add(row, "u", json_object_new_string(db_arg_ids(uow, e->user_ids, e->n)));
		json_object_object_add(row, "p", json_object_new_string(e->json));
		json_object_array_add(rows, row);
	}
	struct db_res *res = commit ? DB_EXEC_COMMIT(uow, &st_outbox_insert, jsonx_string(rows))
	                            : DB_EXEC(uow, &st_outbox_insert, jsonx_string(rows));
	if (res == NULL)
		return -1;
	if (db_rows(res) != uow->nevents) {
		/* Not reached once committed: the statement returns a row per event. */
		log_msg(LOG_ERROR, "request %llu: outbox returned %d rows for %d events", uow->id, db_rows(res),
		        uow->nevents);
		return uow_error(uow, ERR_INTERNAL, NULL);
	}
	for (int i = 0; i < uow->nevents; i++) {
		uow->events[i].oid = db_val(res, i, 0);
		uow->events[i].txid = db_val(res, i, 1);
	}
	return 0;
}

int events_outbox_write(struct uow *uow)
{
	return outbox_write(uow, false);
}

int events_outbox_commit(struct uow *uow)
{
	return outbox_write(uow, true);
}

/*
 * Published outbox rows are not deleted on the request's path (a second statement and a second COMMIT, some 15% of
 * a POST /messages): their ids go to the Redis set OUTBOX_DONE, and the reaper deletes them in batches
 * (events_outbox_reap). An id lost on the way (Redis failing here, a reaper stopping between its SPOP and its DELETE)
 * only means that the row is published once more after two seconds, and the queues drop it (push_script).
 */
#define OUTBOX_DONE            "confab:outbox:done"
#define OUTBOX_DONE_BATCH      1000
#define OUTBOX_DONE_BATCH_TEXT "1000"
/* Prefix of the key that says an outbox row was published whole, by one script call (push_script). */
#define OUTBOX_PUBLISHED "confab:outbox:published:"

/*
 * Appends an event to each of the queues named by KEYS (three keys a queue: meta, events, applied) that still
 * exists, and wakes its waiting poll: one script call for all the queues of an event (up to PUSH_CHUNK of them),
 * not one per queue. Returns an array with, per queue, the new id, -1 when the queue is gone, or -2 when the queue
 * has already applied this outbox row.
 * update_message_flags events other than remove/read are merged, as the reference's virtual events: the messages
 * of an earlier unacknowledged event of the same op and flag join the new event, which takes the new id; the
 * earlier entry keeps its id (so that acknowledging it still works) with "-" for a body, which is never served
 * (ARGV[3] is "<op>/<flag>" for merged kinds, else "").
 *
 * ARGV[1] is the transaction id, ARGV[2] the event, ARGV[4] its outbox id ("" for an event published directly),
 * ARGV[5] the time, ARGV[6] "1" when this call has all the event's queues ("whole"), else "", and ARGV[7] and ARGV[8]
 * the bounds of a queue (event_queue_max_events, event_queue_max_bytes; 0: none): a queue that would pass one is
 * discarded (-1, as a queue gone), and its poll answers BAD_EVENT_QUEUE_ID. A queue's "bytes" is the length of its
 * entries, kept by every script that adds or removes one.
 * A row is published again when its worker died after publishing it, when a reaper died after publishing and before
 * its DELETE committed, or when a worker comes to publish it after a reaper did (more than two seconds after its
 * COMMIT). Such a publish is dropped, exactly, for at least APPLIED_SECS after the first:
 *  - A whole call is atomic (a script runs alone, and a legacy script that has written once is not stopped by
 *    maxmemory): at its end it sets OUTBOX_PUBLISHED<id> (for APPLIED_SECS) and puts the id in OUTBOX_DONE. Every
 *    later call of that row finds the key and pushes nothing.
 *  - An event of more queues is pushed in several calls, which a worker's death can split. There each queue's
 *    applied set records the outbox ids it has taken (scored by the time, at least the last APPLIED_SECS of them, up
 *    to APPLIED_MAX), once the event is in the queue, and every call skips the queues whose set holds the id. A set
 *    rather than a "last id applied": ids are drawn at INSERT, so two transactions can commit, and publish, in the
 *    opposite order of their ids, and a high-water mark would drop the lower id that comes second.
 * Only a row published again more than APPLIED_SECS after its first publish (the database unreachable that long
 * between a publish and its DELETE) could land twice. A queue's wake keys are its meta key's prefix with
 * "wake:<poll>".
 */
static const char push_script[] = QUEUE_DISCARD_LUA
    "local oid, whole = ARGV[4], ARGV[6] == '1' "
    "local max_events, max_bytes = tonumber(ARGV[7]), tonumber(ARGV[8]) "
    "local published = '" OUTBOX_PUBLISHED "' .. oid "
    "if oid ~= '' and redis.call('EXISTS', published) == 1 then "
    "  local out = {} "
    "  for q = 1, #KEYS, 3 do out[#out + 1] = -2 end "
    "  return out "
    "end "
    "local function push(km, ke, ka) "
    "  local meta = redis.call('HMGET', km, 'next_id', 'waiter', 'bytes') "
    "  if not meta[1] then return -1 end "
    "  if oid ~= '' and redis.call('ZSCORE', ka, oid) then return -2 end "
    "  local body, freed = ARGV[2], 0 "
    "  if ARGV[3] ~= '' then "
    "    local items = redis.call('LRANGE', ke, 0, -1) "
    "    for i = #items, 1, -1 do "
    "      local item = items[i] "
    "      local a = string.find(item, ' ', 1, true) "
    "      local b = string.find(item, ' ', a + 1, true) "
    "      local old = string.sub(item, b + 1) "
    "      if string.find(old, '\"update_message_flags\"', 1, true) then "
    "        local ev = cjson.decode(old) "
    "        if tostring(ev.op) .. '/' .. tostring(ev.flag) == ARGV[3] then "
    "          local new = cjson.decode(body) "
    "          for _, m in ipairs(new.messages) do table.insert(ev.messages, m) end "
    "          body = cjson.encode(ev) "
    /* cjson writes an empty table as an object: merged read markers with no ids (all) keep their list. */
    "          if #ev.messages == 0 then body = string.gsub(body, '\"messages\":{}', '\"messages\":[]', 1) end "
    "          redis.call('LSET', ke, i - 1, string.sub(item, 1, a) .. '0 -') "
    "          freed = #item - a - 3 "
    "          break "
    "        end "
    "      end "
    "    end "
    "  end "
    /* The id as Redis keeps it (a string): no number formatting. */
    "  local entry = meta[1] .. ' ' .. ARGV[1] .. ' ' .. body "
    "  local bytes = (tonumber(meta[3]) or 0) - freed + #entry "
    /* Past its bounds the queue is discarded rather than cut: its client registers again, as after a restart. */
    "  if (max_events > 0 and redis.call('LLEN', ke) >= max_events) or (max_bytes > 0 and bytes > max_bytes) then "
    "    discard(km, string.sub(km, 11, -7)) return -1 "
    "  end "
    "  redis.call('HINCRBY', km, 'next_id', 1) "
    "  redis.call('RPUSH', ke, entry) redis.call('HSET', km, 'bytes', bytes) "
    "  if oid ~= '' and not whole then "
    "    if tonumber(meta[1]) % 64 == 63 and redis.call('ZCARD', ka) > " APPLIED_PRUNE_AT " then "
    "      redis.call('ZREMRANGEBYSCORE', ka, '-inf', tonumber(ARGV[5]) - " APPLIED_SECS ") "
    "      redis.call('ZREMRANGEBYRANK', ka, 0, -" APPLIED_MAX " - 1) "
    "    end "
    "    redis.call('ZADD', ka, ARGV[5], oid) "
    "  end "
    "  local w = meta[2] "
    "  if w then "
    "    local wk = string.sub(km, 1, -5) .. 'wake:' .. w "
    "    redis.call('RPUSH', wk, 'event') redis.call('EXPIRE', wk, 120) "
    "  end "
    "  return tonumber(meta[1]) "
    "end "
    "local out = {} "
    "for q = 1, #KEYS, 3 do out[#out + 1] = push(KEYS[q], KEYS[q + 1], KEYS[q + 2]) end "
    "if oid ~= '' and whole then "
    "  redis.call('SET', published, '1', 'EX', " APPLIED_SECS ") "
    "  redis.call('SADD', '" OUTBOX_DONE "', oid) "
    "end "
    "return out";

/* "<op>/<flag>" for update_message_flags events the reference merges, else "". */
static const char *merge_key(struct uow *uow, json_object *event)
{
	json_object *type, *op, *flag;
	if (!json_object_object_get_ex(event, "type", &type) ||
	    strcmp(json_object_get_string(type), "update_message_flags") != 0 ||
	    !json_object_object_get_ex(event, "op", &op) || !json_object_object_get_ex(event, "flag", &flag))
		return "";
	if (strcmp(json_object_get_string(op), "remove") == 0 && strcmp(json_object_get_string(flag), "read") == 0)
		return "";
	return arena_printf(&uow->arena, "%s/%s", json_object_get_string(op), json_object_get_string(flag));
}

/* A queue id and where it was found, for removing repeats in n log n (a big channel has thousands of queues). */
struct found {
	const char *id;
	int at;
};

static int cmp_found(const void *a, const void *b)
{
	const struct found *x = a, *y = b;
	int c = strcmp(x->id, y->id);
	return c ? c : (x->at > y->at) - (x->at < y->at);
}

/* Removes the repeats of q[0..n), keeping the first of each in place; returns how many remain. */
static int unique_in_order(struct uow *uow, const char **q, int n)
{
	struct found *sorted = arena_alloc(&uow->arena, (size_t)(n + 1) * sizeof(*sorted));
	for (int i = 0; i < n; i++)
		sorted[i] = (struct found){q[i], i};
	qsort(sorted, (size_t)n, sizeof(*sorted), cmp_found);
	bool *repeat = arena_alloc(&uow->arena, (size_t)n + 1);
	for (int k = 1; k < n; k++)
		repeat[sorted[k].at] = strcmp(sorted[k].id, sorted[k - 1].id) == 0;
	int kept = 0;
	for (int i = 0; i < n; i++)
		if (!repeat[i])
			q[kept++] = q[i];
	return kept;
}

/* The SMEMBERS commands that list an event's candidate queues: its users' sets, and the organization's
 * all_public_streams set when asked. Returns how many it wrote at cmds. */
static int queue_set_cmds(struct uow *uow, const struct pending_event *e, const char *const **cmds, int *argcs)
{
	int ncmds = e->n + ((e->flags & EV_ALL_PUBLIC) && e->realm_id ? 1 : 0);
	for (int i = 0; i < ncmds; i++) {
		const char **argv = arena_alloc(&uow->arena, 2 * sizeof(*argv));
		argv[0] = "SMEMBERS";
		argv[1] = i < e->n ? arena_printf(&uow->arena, "confab:u:{%lld}:queues", (long long)e->user_ids[i])
		                   : arena_printf(&uow->arena, "confab:r:{%lld}:allpublic", (long long)e->realm_id);
		cmds[i] = argv;
		argcs[i] = 2;
	}
	return ncmds;
}

/* The queues named in replies[0..n), without duplicates, into *out. */
static int queues_of_replies(struct uow *uow, struct rreply *const *replies, int n, const char ***out)
{
	size_t total = 0;
	for (int i = 0; i < n; i++)
		total += replies[i]->n;
	const char **q = arena_alloc(&uow->arena, (total + 1) * sizeof(*q));
	int nq = 0;
	for (int i = 0; i < n; i++)
		for (size_t k = 0; k < replies[i]->n; k++)
			q[nq++] = replies[i]->elem[k]->str;
	*out = q;
	return unique_in_order(uow, q, nq);
}

/* ---- the settings of queues, cached ------------------------------------------------------------------------ */

/*
 * What publishing reads of a queue (its user, event_types, narrow and capabilities) never changes once POST /register
 * made it, and a queue id (a random UUID) is never given again; so each process keeps the settings of the queues it
 * published to lately, and a publish asks Redis only for those it has not seen (the push script still finds out
 * that a queue was deleted). Direct-mapped by the id's hash, under one mutex held only to copy the strings.
 */
#define SETTINGS_SLOTS 8192
#define QID_MAX        40

struct queue_settings {
	const char *user, *types, *narrow, *caps; /* "" where Redis has nothing; user NULL: not known */
};

static struct settings_slot {
	char qid[QID_MAX];
	char *block; /* user, types, narrow and caps, each NUL-terminated, one after the other */
} settings_cache[SETTINGS_SLOTS];
static pthread_mutex_t settings_lock = PTHREAD_MUTEX_INITIALIZER;

static struct settings_slot *settings_slot(const char *qid)
{
	return &settings_cache[hash_fnv1a32(HASH_FNV32_INIT, qid, strlen(qid)) % SETTINGS_SLOTS];
}

/* The cached settings of queue qid into *out (arena copies); false when they are not cached. */
static bool settings_get(struct uow *uow, const char *qid, struct queue_settings *out)
{
	struct settings_slot *slot = settings_slot(qid);
	const char *parts[4] = {NULL};
	pthread_mutex_lock(&settings_lock);
	if (slot->block != NULL && strcmp(slot->qid, qid) == 0) {
		const char *p = slot->block;
		for (int i = 0; i < 4; i++, p += strlen(p) + 1)
			parts[i] = arena_strdup(&uow->arena, p);
	}
	pthread_mutex_unlock(&settings_lock);
	*out = (struct queue_settings){parts[0], parts[1], parts[2], parts[3]};
	return parts[0] != NULL;
}

static void settings_put(const char *qid, const struct queue_settings *s)
{
	size_t lens[4] = {strlen(s->user), strlen(s->types), strlen(s->narrow), strlen(s->caps)};
	if (strlen(qid) >= QID_MAX)
		return;
	char *block = malloc(lens[0] + lens[1] + lens[2] + lens[3] + 4), *p = block;
	if (block == NULL)
		return;
	const char *parts[4] = {s->user, s->types, s->narrow, s->caps};
	for (int i = 0; i < 4; p += lens[i] + 1, i++)
		memcpy(p, parts[i], lens[i] + 1);
	struct settings_slot *slot = settings_slot(qid);
	pthread_mutex_lock(&settings_lock);
	char *old = slot->block;
	strcpy(slot->qid, qid);
	slot->block = block;
	pthread_mutex_unlock(&settings_lock);
	free(old);
}

/* A queue whose settings are being read from Redis, and where they go. */
struct settings_miss {
	const char *qid;
	struct queue_settings *out;
};

/* Fills in the settings of the queues not cached (one pipeline of HMGET) and caches them; a queue deleted
 * meanwhile keeps user NULL. 0, or -1 when Redis failed. */
static int settings_fetch(struct uow *uow, const struct settings_miss *miss, int n)
{
	if (n == 0)
		return 0;
	const char *const **cmds = arena_alloc(&uow->arena, (size_t)n * sizeof(*cmds));
	int *argcs = arena_alloc(&uow->arena, (size_t)n * sizeof(*argcs));
	struct rreply **replies = arena_alloc(&uow->arena, (size_t)n * sizeof(*replies));
	for (int i = 0; i < n; i++) {
		const char **argv = arena_alloc(&uow->arena, 6 * sizeof(*argv));
		argv[0] = "HMGET";
		argv[1] = queue_key(uow, miss[i].qid, "meta");
		argv[2] = "user";
		argv[3] = "event_types";
		argv[4] = "narrow";
		argv[5] = "capabilities";
		cmds[i] = argv;
		argcs[i] = 6;
	}
	if (redis_try_pipeline(uow, n, argcs, cmds, replies) < 0)
		return -1;
	for (int i = 0; i < n; i++) {
		struct rreply *m = replies[i];
		if (m->n != 4 || m->elem[0]->str == NULL || m->elem[1]->str == NULL)
			continue; /* the queue was deleted meanwhile (every queue has event_types, "" for all) */
		const char *v[4];
		for (int k = 0; k < 4; k++)
			v[k] = m->elem[k]->str ? m->elem[k]->str : "";
		*miss[i].out = (struct queue_settings){v[0], v[1], v[2], v[3]};
		settings_put(miss[i].qid, miss[i].out);
	}
	return 0;
}

/* Whether a message event matches one [operator, operand] narrow term. */
static bool narrow_term_matches(json_object *event, const char *op, const char *operand)
{
	json_object *v;
	if (strcmp(op, "channel") == 0 || strcmp(op, "stream") == 0) {
		if (!json_object_object_get_ex(event, "_channel_id", &v))
			return false;
		json_object *msg, *name;
		bool by_name = json_object_object_get_ex(event, "message", &msg) &&
		               json_object_object_get_ex(msg, "display_recipient", &name) &&
		               json_object_is_type(name, json_type_string) &&
		               strcasecmp(json_object_get_string(name), operand) == 0;
		return by_name || json_object_get_int64(v) == strtoll(operand, NULL, 10);
	}
	if (strcmp(op, "topic") == 0)
		return json_object_object_get_ex(event, "_topic", &v) &&
		       strcasecmp(json_object_get_string(v), operand) == 0;
	if (strcmp(op, "is") == 0 && (strcmp(operand, "dm") == 0 || strcmp(operand, "private") == 0))
		return json_object_object_get_ex(event, "_dm_user_ids", &v);
	/* Other operators are not applied to the live stream (as the reference, which filters only these). */
	return true;
}

static bool narrow_matches(json_object *event, json_object *narrow)
{
	for (size_t i = 0; narrow && i < json_object_array_length(narrow); i++) {
		json_object *term = json_object_array_get_idx(narrow, i);
		if (json_object_array_length(term) != 2)
			continue;
		const char *op = json_object_get_string(json_object_array_get_idx(term, 0));
		const char *operand = json_object_get_string(json_object_array_get_idx(term, 1));
		if (!narrow_term_matches(event, op, operand))
			return false;
	}
	return true;
}

static bool in_id_list(json_object *list, int64_t id)
{
	for (size_t i = 0; list && i < json_object_array_length(list); i++)
		if (json_object_get_int64(json_object_array_get_idx(list, i)) == id)
			return true;
	return false;
}

/*
 * Archived channels (model/channel_archive.h): a client with archived_channels keeps the channel and gets its
 * is_archived updates; the others get it deleted on archiving (_for_archiving) and created on unarchiving
 * (_for_unarchiving) instead.
 */
static bool stream_accepted(json_object *event, bool archived_channels)
{
	json_object *v;
	if (json_object_object_get_ex(event, "property", &v) && strcmp(json_object_get_string(v), "is_archived") == 0)
		return archived_channels;
	if (json_object_object_get_ex(event, "_for_archiving", &v) ||
	    json_object_object_get_ex(event, "_for_unarchiving", &v))
		return !archived_channels;
	return true;
}

/* The reference's accepts_event: event_types, narrow, and the capability-dependent kinds. */
static bool accepts(json_object *event, const char *types_json, const char *narrow_json, const char *caps_json)
{
	const char *type = json_object_get_string(json_object_object_get(event, "type"));
	json_object *types = NULL, *narrow = NULL, *caps = NULL;
	bool ok = true;
	if (*types_json && jsonx_parse(types_json, strlen(types_json), &types) == 0 && types != NULL) {
		ok = false;
		for (size_t i = 0; i < json_object_array_length(types) && !ok; i++)
			ok = strcmp(json_object_get_string(json_object_array_get_idx(types, i)), type) == 0;
	}
	/* The legacy muted_topics event goes only to queues that did not ask for its replacement user_topic. */
	for (size_t i = 0; ok && types && strcmp(type, "muted_topics") == 0 && i < json_object_array_length(types); i++)
		ok = strcmp(json_object_get_string(json_object_array_get_idx(types, i)), "user_topic") != 0;
	/* Only these kinds depend on the capabilities: the others (messages first) need not parse them. */
	static const char *const with_caps[] = {"typing",
	                                        "update_display_settings",
	                                        "update_global_notifications",
	                                        "realm_emoji",
	                                        "realm_linkifiers",
	                                        "user_group",
	                                        "stream",
	                                        "realm_user"};
	bool needs_caps = false;
	for (size_t i = 0; i < sizeof(with_caps) / sizeof(*with_caps) && !needs_caps; i++)
		needs_caps = strcmp(type, with_caps[i]) == 0;
	if (ok && needs_caps && *caps_json)
		jsonx_parse(caps_json, strlen(caps_json), &caps);
	json_object *v;
	if (ok && strcmp(type, "message") == 0 && *narrow_json &&
	    jsonx_parse(narrow_json, strlen(narrow_json), &narrow) == 0)
		ok = narrow_matches(event, narrow);
	if (ok && strcmp(type, "typing") == 0 && json_object_object_get_ex(event, "stream_id", &v))
		ok = queue_capability(caps, "stream_typing_notifications");
	/* The legacy settings events go only to clients without user_settings_object (which get user_settings). */
	if (ok && (strcmp(type, "update_display_settings") == 0 || strcmp(type, "update_global_notifications") == 0))
		ok = !queue_capability(caps, "user_settings_object");
	/* Custom emoji changes come twice: op update (every emoji) for the clients without individual_emoji_changes,
	 * op add or update_one for those with it. */
	if (ok && strcmp(type, "realm_emoji") == 0)
		ok = (strcmp(json_object_get_string(json_object_object_get(event, "op")), "update") == 0) !=
		     queue_capability(caps, "individual_emoji_changes");
	if (ok && strcmp(type, "realm_linkifiers") == 0)
		ok = queue_capability(caps, "linkifier_url_template");
	if (ok && strcmp(type, "user_group") == 0) {
		const char *op = json_object_get_string(json_object_object_get(event, "op"));
		json_object *data;
		if (strcmp(op, "remove") == 0)
			ok = !queue_capability(caps, "include_deactivated_groups");
		else if (strcmp(op, "update") == 0 && ((json_object_object_get_ex(event, "data", &data) &&
		                                        json_object_object_get_ex(data, "deactivated", &v)) ||
		                                       json_object_object_get_ex(event, "_group_deactivated", &v)))
			ok = queue_capability(caps, "include_deactivated_groups");
	}
	if (ok && strcmp(type, "stream") == 0)
		ok = stream_accepted(event, queue_capability(caps, "archived_channels"));
	if (ok && strcmp(type, "realm_user") == 0 && json_object_object_get_ex(event, "_inaccessible_user", &v))
		ok = !queue_capability(caps, "user_list_incomplete");
	json_object_put(types);
	json_object_put(narrow);
	json_object_put(caps);
	return ok;
}

/* EV_DELETE_QUEUES: deletes the queues of the event's users. */
static int publish_deletion(struct uow *uow, const struct pending_event *e)
{
	int ncmds = e->n + 1;
	const char *const **cmds = arena_alloc(&uow->arena, (size_t)ncmds * sizeof(*cmds));
	int *argcs = arena_alloc(&uow->arena, (size_t)ncmds * sizeof(*argcs));
	struct rreply **replies = arena_alloc(&uow->arena, (size_t)ncmds * sizeof(*replies));
	const char **queues;
	ncmds = queue_set_cmds(uow, e, cmds, argcs);
	if (ncmds > 0 && redis_try_pipeline(uow, ncmds, argcs, cmds, replies) < 0)
		return -1;
	int nq = ncmds > 0 ? queues_of_replies(uow, replies, ncmds, &queues) : 0;
	return nq > 0 ? queues_delete(uow, queues, nq) : 0;
}

/* An event being published: its candidate queues and their settings. */
struct fanout {
	const struct pending_event *e;
	const char **queues;
	struct queue_settings *settings;
	int nq;
};

/* Finds the candidate queues of the n events (one pipeline of SMEMBERS for all) and their settings (from the cache,
 * else one pipeline of HMGET). */
static int find_queues(struct uow *uow, const struct pending_event *events, int n, struct fanout *out)
{
	int total = 0;
	for (int i = 0; i < n; i++)
		total += events[i].n + 1;
	const char *const **cmds = arena_alloc(&uow->arena, (size_t)(total + 1) * sizeof(*cmds));
	int *argcs = arena_alloc(&uow->arena, (size_t)(total + 1) * sizeof(*argcs));
	struct rreply **replies = arena_alloc(&uow->arena, (size_t)(total + 1) * sizeof(*replies));
	int *first = arena_alloc(&uow->arena, (size_t)(n + 1) * sizeof(*first));
	int ncmds = 0;
	for (int i = 0; i < n; i++) {
		first[i] = ncmds;
		ncmds += queue_set_cmds(uow, &events[i], cmds + ncmds, argcs + ncmds);
	}
	first[n] = ncmds;
	if (ncmds > 0 && redis_try_pipeline(uow, ncmds, argcs, cmds, replies) < 0)
		return -1;
	int nmiss = 0, cap = 0;
	for (int i = 0; i < n; i++) {
		out[i].e = &events[i];
		out[i].nq = queues_of_replies(uow, replies + first[i], first[i + 1] - first[i], &out[i].queues);
		out[i].settings = arena_alloc(&uow->arena, (size_t)(out[i].nq + 1) * sizeof(*out[i].settings));
		cap += out[i].nq;
	}
	struct settings_miss *miss = arena_alloc(&uow->arena, (size_t)(cap + 1) * sizeof(*miss));
	for (int i = 0; i < n; i++)
		for (int k = 0; k < out[i].nq; k++)
			if (!settings_get(uow, out[i].queues[k], &out[i].settings[k]))
				miss[nmiss++] = (struct settings_miss){out[i].queues[k], &out[i].settings[k]};
	return settings_fetch(uow, miss, nmiss);
}

/*
 * Queues per push script call: a call holds Redis for all of its queues (some 5 us each), so a channel of
 * thousands of queues takes a few calls, each short, and other clients' commands run between them.
 */
#define PUSH_CHUNK 128

/* The push of one event to the queues qids[0..n) (push_script); n <= PUSH_CHUNK. */
static const char **push_cmd(struct uow *uow, const struct pending_event *e, const char *const *qids, int n,
                             const char *merge, const char *now, bool whole, int *argc)
{
	const struct config *cfg = uow->worker->cfg;
	const char **argv = arena_alloc(&uow->arena, (size_t)(3 * n + 11) * sizeof(*argv));
	int k = 0;
	argv[k++] = "EVAL";
	argv[k++] = push_script;
	argv[k++] = arena_printf(&uow->arena, "%d", 3 * n);
	for (int i = 0; i < n; i++) {
		argv[k++] = queue_key(uow, qids[i], "meta");
		argv[k++] = queue_key(uow, qids[i], "events");
		argv[k++] = queue_key(uow, qids[i], "applied");
	}
	argv[k++] = e->txid;
	argv[k++] = e->json;
	argv[k++] = merge;
	argv[k++] = e->oid ? e->oid : "";
	argv[k++] = now;
	argv[k++] = whole ? "1" : "";
	argv[k++] = arena_printf(&uow->arena, "%d", cfg->event_queue_max_events);
	argv[k++] = arena_printf(&uow->arena, "%d", cfg->event_queue_max_bytes);
	*argc = k;
	return argv;
}

/* The queues of f that accept its event, into an arena array; returns how many. */
static int accepting_queues(struct uow *uow, const struct fanout *f, json_object *event, const char ***out)
{
	json_object *exclude = NULL;
	json_object_object_get_ex(event, "_exclude_user_ids", &exclude);
	const char **q = arena_alloc(&uow->arena, (size_t)(f->nq + 1) * sizeof(*q));
	int n = 0;
	for (int k = 0; k < f->nq; k++) {
		const struct queue_settings *qs = &f->settings[k];
		if (qs->user == NULL)
			continue; /* deleted meanwhile */
		if (exclude != NULL && in_id_list(exclude, strtoll(qs->user, NULL, 10)))
			continue; /* that user's queues get the user's own copy */
		if (accepts(event, qs->types, qs->narrow, qs->caps))
			q[n++] = f->queues[k];
	}
	*out = q;
	return n;
}

/*
 * Pushes n events (none of them EV_DELETE_QUEUES) to the queues that accept them, in their order, in three round
 * trips for all of them: the queues, the settings of those not cached, the pushes (one script call per event and
 * PUSH_CHUNK queues). The outbox ids of events pushed in one call go to OUTBOX_DONE from the script, those of events
 * that reach no queue with the pushes: both are done (events_outbox_clear() leaves them).
 */
static int publish_events(struct uow *uow, struct pending_event *events, int n)
{
	struct fanout *f = arena_alloc(&uow->arena, (size_t)(n + 1) * sizeof(*f));
	if (find_queues(uow, events, n, f) < 0)
		return -1;
	int total = 1;
	for (int i = 0; i < n; i++)
		total += f[i].nq / PUSH_CHUNK + 1;
	const char *const **cmds = arena_alloc(&uow->arena, (size_t)total * sizeof(*cmds));
	int *argcs = arena_alloc(&uow->arena, (size_t)total * sizeof(*argcs));
	struct rreply **replies = arena_alloc(&uow->arena, (size_t)total * sizeof(*replies));
	const char **unheard = arena_alloc(&uow->arena, (size_t)(n + 2) * sizeof(*unheard));
	bool *whole = arena_alloc(&uow->arena, (size_t)n + 1);
	const char *now = arena_printf(&uow->arena, "%lld", now_secs());
	int ncmds = 0, npush = 0, nunheard = 2;
	unheard[0] = "SADD";
	unheard[1] = OUTBOX_DONE;
	for (int i = 0; i < n; i++) {
		const char **q = NULL;
		int nq = 0;
		if (f[i].nq > 0) {
			json_object *event = NULL;
			jsonx_parse(events[i].json, strlen(events[i].json), &event);
			uow_own_json(uow, event);
			const char *merge = merge_key(uow, event);
			nq = accepting_queues(uow, &f[i], event, &q);
			for (int k = 0; k < nq; k += PUSH_CHUNK) {
				int chunk = nq - k < PUSH_CHUNK ? nq - k : PUSH_CHUNK;
				cmds[ncmds] = push_cmd(uow, &events[i], q + k, chunk, merge, now, nq <= PUSH_CHUNK,
				                       &argcs[ncmds]);
				ncmds++;
			}
		}
		if (nq == 0 && events[i].oid != NULL)
			unheard[nunheard++] = events[i].oid;
		whole[i] = nq <= PUSH_CHUNK;
		npush += nq;
	}
	if (nunheard > 2) {
		cmds[ncmds] = unheard;
		argcs[ncmds++] = nunheard;
	}
	if (ncmds > 0 && redis_try_pipeline(uow, ncmds, argcs, cmds, replies) < 0)
		return -1;
	for (int i = 0; i < n; i++)
		events[i].done = whole[i] && events[i].oid != NULL;
	metrics_add(uow->worker->metrics, M_EVENT_PUSHES, npush);
	return 0;
}

/* Publishes one outbox row's event (the reaper's). */
static int publish_one(struct uow *uow, struct pending_event *e)
{
	return (e->flags & EV_DELETE_QUEUES) ? publish_deletion(uow, e) : publish_events(uow, e, 1);
}

/*
 * Logs a failure to publish: the change is committed, so the request succeeds. The attempts (redis_try_pipeline(),
 * DB_TRY_EXEC()) recorded nothing, and logged their cause.
 */
static void log_publish_failure(struct uow *uow, const char *what)
{
	log_msg(LOG_ERROR, "request %llu: could not %s", uow->id, what);
}

/* The request's events in runs: the events up to the next EV_DELETE_QUEUES go together, that one alone. */
void events_publish(struct uow *uow)
{
	for (int i = 0, k; i < uow->nevents; i = k) {
		struct pending_event *e = &uow->events[i];
		for (k = i + 1; !(e->flags & EV_DELETE_QUEUES) && k < uow->nevents; k++)
			if (uow->events[k].flags & EV_DELETE_QUEUES)
				break;
		int rc = (e->flags & EV_DELETE_QUEUES) ? publish_deletion(uow, e) : publish_events(uow, e, k - i);
		if (rc == 0) {
			for (int j = i; j < k; j++)
				uow->events[j].published = true;
			metrics_add(uow->worker->metrics, M_EVENTS_PUBLISHED, k - i);
			continue;
		}
		log_publish_failure(uow, "publish an event");
		/* The reaper publishes the rest from the outbox, in order, once Redis answers again. */
		if (e->oid != NULL)
			break;
	}
}

void events_outbox_clear(struct uow *uow)
{
	const char **argv = arena_alloc(&uow->arena, (size_t)(uow->nevents + 2) * sizeof(*argv));
	int argc = 0;
	argv[argc++] = "SADD";
	argv[argc++] = OUTBOX_DONE;
	for (int i = 0; i < uow->nevents; i++)
		if (uow->events[i].published && uow->events[i].oid != NULL && !uow->events[i].done)
			argv[argc++] = uow->events[i].oid;
	uow->nevents = 0;
	if (argc > 2 && redis_try_cmd(uow, argc, argv) == NULL)
		log_publish_failure(uow, "mark published events in the outbox");
}

int events_commit(struct uow *uow)
{
	if (events_outbox_commit(uow) < 0)
		return -1;
	events_publish(uow);
	events_outbox_clear(uow);
	return 0;
}

int events_commit_step(struct uow *uow)
{
	if (!uow->in_txn)
		return 0;
	return events_commit(uow) < 0 ? -1 : db_begin(uow);
}

static struct db_stmt st_outbox_delete = DB_STMT("DELETE FROM event_outbox WHERE id = ANY($1::bigint[])");

/* Deletes the rows whose ids the workers put in OUTBOX_DONE, a batch at a time; returns how many, or -1. */
static int outbox_delete_done(struct uow *uow)
{
	int deleted = 0;
	for (;;) {
		struct rreply *r = REDIS_CMD(uow, "SPOP", OUTBOX_DONE, OUTBOX_DONE_BATCH_TEXT);
		if (r == NULL)
			return -1;
		int64_t *ids = arena_alloc(&uow->arena, (r->n + 1) * sizeof(*ids));
		for (size_t i = 0; i < r->n; i++)
			ids[i] = r->elem[i]->str ? strtoll(r->elem[i]->str, NULL, 10) : 0;
		if (r->n > 0 && DB_EXEC(uow, &st_outbox_delete, db_arg_ids(uow, ids, (int)r->n)) == NULL)
			return -1;
		deleted += (int)r->n;
		if (r->n < OUTBOX_DONE_BATCH)
			return deleted;
	}
}

/* Rows old enough that their worker is not publishing them any more (it publishes right after COMMIT). */
static struct db_stmt st_outbox_claim =
    DB_STMT("SELECT id, txid::text, COALESCE(realm_id, 0), flags, user_ids::text, payload FROM event_outbox"
            " WHERE created_at < clock_timestamp() - interval '2 seconds' ORDER BY id LIMIT 100"
            " FOR UPDATE SKIP LOCKED");

/* The ids of a bigint[] as PostgreSQL prints it ("{1,2,3}"), into an arena array; returns how many. */
static int parse_ids(struct uow *uow, const char *text, int64_t **out)
{
	int64_t *ids = arena_alloc(&uow->arena, (strlen(text) / 2 + 1) * sizeof(*ids));
	int n = 0;
	for (const char *p = text; *p;) {
		char *end;
		long long v = strtoll(p, &end, 10);
		if (end == p) {
			p++;
			continue;
		}
		ids[n++] = v;
		p = end;
	}
	*out = ids;
	return n;
}

int events_outbox_reap(struct uow *uow)
{
	/* First the rows already published, so that only the others are published again. */
	if (outbox_delete_done(uow) < 0)
		return -1;
	struct db_res *res;
	if (db_begin(uow) < 0 || (res = DB_EXEC(uow, &st_outbox_claim)) == NULL)
		return -1;
	int n = db_rows(res);
	int64_t *ids = arena_alloc(&uow->arena, (size_t)(n + 1) * sizeof(*ids));
	for (int i = 0; i < n; i++) {
		struct pending_event e = {.json = db_val(res, i, 5),
		                          .flags = (unsigned)db_int(res, i, 3),
		                          .realm_id = db_int(res, i, 2),
		                          .txid = db_val(res, i, 1),
		                          .oid = db_val(res, i, 0)};
		e.n = parse_ids(uow, db_val(res, i, 4), &e.user_ids);
		/* On failure the claim is rolled back; what was pushed already is dropped when pushed again. */
		if (publish_one(uow, &e) < 0)
			return uow_error(uow, ERR_UNAVAILABLE, "could not publish outbox row %s", e.oid);
		metrics_add(uow->worker->metrics, M_EVENTS_PUBLISHED, 1);
		ids[i] = db_int(res, i, 0);
	}
	if ((n > 0 && DB_EXEC(uow, &st_outbox_delete, db_arg_ids(uow, ids, n)) == NULL) || db_commit(uow) < 0)
		return -1;
	if (n > 0)
		log_msg(LOG_WARNING, "published %d events left in the outbox (a worker stopped after COMMIT?)", n);
	return n;
}
