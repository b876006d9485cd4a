/*
 * Event queues in Redis, their side of events.h: creating a queue, serving GET /events (waiting, rendering for the
 * client, pruning what it acknowledged), deleting queues and the reaper's heartbeats and idle expiry. Publishing
 * into queues is events.c's.
 */
#include "events/queues.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "core/config.h"
#include "core/crypto.h"
#include "core/jsonx.h"
#include "core/metrics.h"
#include "core/uow.h"
#include "db/db.h"
#include "events/events.h"
#include "events/polls.h"
#include "events/snapshot.h"
#include "model/realm.h"
#include "model/user.h"
#include "redis/redis.h"

#define HEARTBEAT_MIN_SECS    45
#define HEARTBEAT_SPREAD_SECS 10
#define POLL_MAX_SECS         60 /* a poll ends by itself if no heartbeat came (no reaper running) */

static long long now_secs(void)
{
	return (long long)time(NULL);
}

/* confab:q:{QID}:WHAT, put together without printf: a publish makes three per queue it pushes to. */
const char *queue_key(struct uow *uow, const char *qid, const char *what)
{
	static const char head[] = "confab:q:{", mid[] = "}:";
	size_t nh = sizeof(head) - 1, nq = strlen(qid), nm = sizeof(mid) - 1, nw = strlen(what);
	char *key = arena_alloc(&uow->arena, nh + nq + nm + nw + 1);
	memcpy(key, head, nh);
	memcpy(key + nh, qid, nq);
	memcpy(key + nh + nq, mid, nm);
	memcpy(key + nh + nq + nm, what, nw + 1);
	return key;
}

bool queue_capability(json_object *caps, const char *name)
{
	json_object *v;
	return caps && json_object_object_get_ex(caps, name, &v) && json_object_get_boolean(v);
}

/* ---- queues -------------------------------------------------------------------------------------------- */

/*
 * Creates a queue (KEYS[1] its meta, KEYS[2] its user's set) in one script, so that Redis past maxmemory refuses it
 * whole (its first write), then discards the user's least recently used queues past ARGV[5] (0: no bound): first
 * those no poll waits on, by last_access (the idle clock: a poll's start) then by creation; then, when every queue
 * has a poll waiting (all in use), the oldest by creation. ARGV: the queue id, its expiry time, "1" to join the
 * organization's all_public_streams set ARGV[4], the bound, then the meta fields and their values. Returns how many
 * queues were discarded.
 */
static const char create_script[] = QUEUE_DISCARD_LUA
    "redis.call('HSET', KEYS[1], unpack(ARGV, 6)) "
    "redis.call('SADD', KEYS[2], ARGV[1]) "
    "redis.call('ZADD', 'confab:expiry', ARGV[2], ARGV[1]) "
    "if ARGV[3] == '1' then redis.call('SADD', ARGV[4], ARGV[1]) end "
    "local cap, ids = tonumber(ARGV[5]), redis.call('SMEMBERS', KEYS[2]) "
    "if cap <= 0 or #ids <= cap then return 0 end "
    "local q = {} "
    "for _, id in ipairs(ids) do if id ~= ARGV[1] then "
    "  local m = redis.call('HMGET', 'confab:q:{' .. id .. '}:meta', 'waiter', 'last_access', 'created') "
    "  q[#q + 1] = {id, m[1] and 1 or 0, m[1] and 0 or tonumber(m[2]) or 0, tonumber(m[3]) or 0} "
    "end end "
    "table.sort(q, function(a, b) "
    "  if a[2] ~= b[2] then return a[2] < b[2] end "
    "  if a[3] ~= b[3] then return a[3] < b[3] end "
    "  return a[4] < b[4] end) "
    "for i = 1, #ids - cap do "
    "  discard('confab:q:{' .. q[i][1] .. '}:meta', q[i][1]) redis.call('SREM', KEYS[2], q[i][1]) "
    "end "
    "return #ids - cap";

static long long now_usecs(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (long long)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

const char *events_queue_create(struct uow *uow, const struct queue_spec *spec)
{
	char qid[37];
	crypto_uuid4(qid);
	const char *id = arena_strdup(&uow->arena, qid);
	long long now = now_secs();
	const char *argv[] = {"EVAL",
	                      create_script,
	                      "2",
	                      queue_key(uow, id, "meta"),
	                      arena_printf(&uow->arena, "confab:u:{%lld}:queues", (long long)uow->user->id),
	                      id,
	                      arena_printf(&uow->arena, "%lld", now + spec->timeout_secs),
	                      spec->all_public_streams ? "1" : "",
	                      arena_printf(&uow->arena, "confab:r:{%lld}:allpublic", (long long)uow->realm->id),
	                      arena_printf(&uow->arena, "%d", uow->worker->cfg->event_queues_per_user),
	                      "user",
	                      db_arg_int(uow, uow->user->id),
	                      "realm",
	                      db_arg_int(uow, uow->realm->id),
	                      "event_types",
	                      spec->event_types ? jsonx_string(spec->event_types) : "",
	                      "narrow",
	                      spec->narrow ? jsonx_string(spec->narrow) : "",
	                      "capabilities",
	                      spec->capabilities ? jsonx_string(spec->capabilities) : "",
	                      "apply_markdown",
	                      spec->apply_markdown ? "1" : "0",
	                      "client_gravatar",
	                      spec->client_gravatar ? "1" : "0",
	                      "slim_presence",
	                      spec->slim_presence ? "1" : "0",
	                      "timeout",
	                      arena_printf(&uow->arena, "%d", spec->timeout_secs),
	                      "last_access",
	                      arena_printf(&uow->arena, "%lld", now),
	                      "created",
	                      arena_printf(&uow->arena, "%lld", now_usecs()),
	                      "next_id",
	                      "0",
	                      "pruned",
	                      "-1",
	                      "bytes",
	                      "0",
	                      "snapshot",
	                      ""};
	return redis_cmd(uow, (int)(sizeof(argv) / sizeof(*argv)), argv, NULL) ? id : NULL;
}

/* Sets the snapshot of a queue that still exists: a queue discarded meanwhile (its user registering more queues
 * than the bound at once) stays gone, rather than come back as a meta key of one field that nothing deletes. */
static const char snapshot_script[] = "if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end "
                                      "redis.call('HSET', KEYS[1], 'snapshot', ARGV[1]) return 1";

int events_queue_set_snapshot(struct uow *uow, const char *queue_id, const char *snapshot)
{
	return REDIS_CMD(uow, "EVAL", snapshot_script, "1", queue_key(uow, queue_id, "meta"), snapshot) ? 0 : -1;
}

/* The queue's settings, or NULL with BAD_EVENT_QUEUE_ID recorded when it does not exist or is someone else's. */
static const char *meta_fields[] = {
    "HMGET", NULL, "user", "capabilities", "apply_markdown", "snapshot", "waiter", "client_gravatar", "slim_presence"};
#define META_FIELDS_N ((int)(sizeof(meta_fields) / sizeof(*meta_fields)))

static const char **meta_cmd(struct uow *uow, const char *qid)
{
	const char **argv = arena_alloc(&uow->arena, sizeof(meta_fields));
	memcpy(argv, meta_fields, sizeof(meta_fields));
	argv[1] = queue_key(uow, qid, "meta");
	return argv;
}

/* Records BAD_EVENT_QUEUE_ID for queue qid (gone, or not the user's). */
static void bad_queue(struct uow *uow, const char *qid)
{
	uow_error(uow, ERR_BAD_EVENT_QUEUE_ID, "Bad event queue ID: %s", qid);
	uow_error_field(uow, "queue_id", json_object_new_string(qid));
}

/* The HMGET reply of meta_cmd() checked: NULL with BAD_EVENT_QUEUE_ID recorded if the queue is not the user's. */
static struct rreply *checked_meta(struct uow *uow, const char *qid, struct rreply *r)
{
	if (r->n != 7 || r->elem[0]->type != RR_STR || strtoll(r->elem[0]->str, NULL, 10) != uow->user->id) {
		bad_queue(uow, qid);
		return NULL;
	}
	return r;
}

static struct rreply *load_meta(struct uow *uow, const char *qid)
{
	struct rreply *r = redis_cmd(uow, META_FIELDS_N, meta_cmd(uow, qid), NULL);
	return r ? checked_meta(uow, qid, r) : NULL;
}

/* Acknowledges through last (atomically) and returns the remaining entries: {"ok", entries...}, or
 * {"newer", pruned} / {"notin", pruned} for the reference's two errors, or {"gone"} for a queue deleted meanwhile.
 * The queue's bytes count what its entries hold; its first write is an LTRIM, which Redis allows past maxmemory, so
 * that a client can always acknowledge, and so free, its events. */
static const char prune_script[] =
    "local pruned = tonumber(redis.call('HGET', KEYS[1], 'pruned')) "
    "if not pruned then return {'gone'} end "
    "local last = tonumber(ARGV[1]) "
    "if last < pruned then return {'newer', tostring(pruned)} end "
    "local items = redis.call('LRANGE', KEYS[2], 0, -1) "
    "local n, freed = 0, 0 "
    "for i, item in ipairs(items) do "
    "  local id = tonumber(string.match(item, '^(%d+)')) "
    "  if id <= last then n = i pruned = id freed = freed + #item else break end "
    "end "
    "if n > 0 then "
    "  redis.call('LTRIM', KEYS[2], n, -1) "
    "  redis.call('HSET', KEYS[1], 'pruned', pruned) redis.call('HINCRBY', KEYS[1], 'bytes', -freed) "
    "end "
    "if pruned ~= last then return {'notin', tostring(pruned)} end "
    "local out = {'ok'} "
    "for i = n + 1, #items do out[#out + 1] = items[i] end "
    "return out";

struct client {
	const char *queue_id;
	json_object *caps;
	bool apply_markdown;
	bool client_gravatar;
	bool slim_presence;
};

/* Shows an empty topic as the display name to clients without the empty_topic_name capability. */
static void topic_for_client(json_object *o, const char *key_name, const struct client *c)
{
	json_object *v;
	if (!queue_capability(c->caps, "empty_topic_name") && json_object_object_get_ex(o, key_name, &v) &&
	    json_object_is_type(v, json_type_string) && *json_object_get_string(v) == '\0')
		json_object_object_add(o, key_name, json_object_new_string(REALM_EMPTY_TOPIC_DISPLAY_NAME));
}

/*
 * Presence events (model/presence.c) hold the legacy form and the modern one under "_presences": clients declaring
 * simplified_presence_events get only {"presences": ...}; the others the legacy fields, without "email" for queues
 * registered with slim_presence (the reference's process_presence_event).
 */
static void presence_for_client(json_object *event, const struct client *c)
{
	json_object *modern;
	if (queue_capability(c->caps, "simplified_presence_events") &&
	    json_object_object_get_ex(event, "_presences", &modern)) {
		json_object_object_add(event, "presences", json_object_get(modern));
		static const char *const legacy[] = {"user_id", "email", "server_timestamp", "presence"};
		for (size_t i = 0; i < sizeof(legacy) / sizeof(legacy[0]); i++)
			json_object_object_del(event, legacy[i]);
	} else if (c->slim_presence) {
		json_object_object_del(event, "email");
	}
}

/* Removes the private keys and applies what the client declared (apply_markdown, empty_topic_name, ...). */
static void render(json_object *event, const struct client *c)
{
	json_object *caps = c->caps;
	bool apply_markdown = c->apply_markdown;
	const char *type = json_object_get_string(json_object_object_get(event, "type"));
	json_object *msg, *raw, *v;
	if (strcmp(type, "message") == 0 && json_object_object_get_ex(event, "message", &msg)) {
		if (!apply_markdown && json_object_object_get_ex(event, "_raw_content", &raw)) {
			json_object_object_add(msg, "content", json_object_get(raw));
			json_object_object_add(msg, "content_type", json_object_new_string("text/x-markdown"));
		}
		if (json_object_object_get_ex(msg, "stream_id", &v))
			topic_for_client(msg, "subject", c);
		if (c->client_gravatar && json_object_object_get_ex(event, "_gravatar", &v) &&
		    json_object_get_boolean(v))
			json_object_object_add(msg, "avatar_url", NULL);
		json_object *sender_queue, *local_id;
		if (json_object_object_get_ex(event, "_sender_queue_id", &sender_queue) &&
		    json_object_object_get_ex(event, "_local_id", &local_id) &&
		    strcmp(json_object_get_string(sender_queue), c->queue_id) == 0)
			json_object_object_add(event, "local_message_id", json_object_get(local_id));
	}
	if (strcmp(type, "delete_message") == 0 || strcmp(type, "typing") == 0)
		topic_for_client(event, "topic", c);
	if (strcmp(type, "user_topic") == 0)
		topic_for_client(event, "topic_name", c);
	if (strcmp(type, "update_message") == 0) {
		topic_for_client(event, "orig_subject", c);
		topic_for_client(event, "subject", c);
		topic_for_client(event, "topic", c);
	}
	json_object *details;
	if (strcmp(type, "update_message_flags") == 0 &&
	    json_object_object_get_ex(event, "message_details", &details)) {
		json_object_object_foreach (details, id, detail) {
			(void)id;
			topic_for_client(detail, "topic", c);
		}
	}
	if (strcmp(type, "presence") == 0)
		presence_for_client(event, c);
	if (strcmp(type, "delete_message") == 0 && !queue_capability(caps, "bulk_message_deletion") &&
	    json_object_object_get_ex(event, "message_ids", &v) && json_object_array_length(v) > 0) {
		json_object_object_add(event, "message_id", json_object_get(json_object_array_get_idx(v, 0)));
		json_object_object_del(event, "message_ids");
	}
	/* Private keys never leave the server. */
	const char *drop[8];
	int ndrop = 0;
	json_object_object_foreach (event, k, val) {
		(void)val;
		if (k[0] == '_' && ndrop < 8)
			drop[ndrop++] = k;
	}
	for (int i = 0; i < ndrop; i++)
		json_object_object_del(event, drop[i]);
}

/* Parses "<id> <txid> <json>" entries into rendered events, leaving out those already in the snapshot. */
static json_object *render_entries(struct uow *uow, const char *qid, struct rreply *r, size_t from,
                                   const struct rreply *meta)
{
	struct client c = {.queue_id = qid};
	const char *caps_json = meta->elem[1]->str ? meta->elem[1]->str : "";
	if (*caps_json)
		jsonx_parse(caps_json, strlen(caps_json), &c.caps);
	uow_own_json(uow, c.caps);
	c.apply_markdown = meta->elem[2]->str && meta->elem[2]->str[0] == '1';
	c.client_gravatar = meta->elem[5]->str && meta->elem[5]->str[0] == '1';
	c.slim_presence = meta->elem[6]->str && meta->elem[6]->str[0] == '1';
	const char *snapshot = meta->elem[3]->str;
	json_object *events = json_object_new_array();
	for (size_t i = from; i < r->n; i++) {
		char *end;
		const char *s = r->elem[i]->str;
		long long id = strtoll(s, &end, 10);
		unsigned long long txid = strtoull(end + 1, &end, 10);
		json_object *event;
		if (snapshot_txid_visible(snapshot, txid) || jsonx_parse(end + 1, strlen(end + 1), &event) < 0 ||
		    event == NULL)
			continue;
		render(event, &c);
		json_object_object_add(event, "id", json_object_new_int64(id));
		json_object_array_add(events, event);
	}
	return events;
}

/*
 * Marks this poll as the queue's waiter (ending the previous one) and refreshes the idle clock. Returns 0 when the
 * queue is gone, 1 when the poll may wait, 2 when an event came after the poll's last read of the queue (ARGV[6],
 * the id of the newest entry it read) and is not acknowledged yet (by another poll of the client: without that
 * condition the poll would read nothing new and come back here in a loop), 3 when the poll registers again (ARGV[7]
 * "1") and a newer poll of the queue has taken its place.
 *
 * The check of ARGV[6] closes the window between the read and this registration: a publication in that window finds
 * no waiter (or the previous poll) and wakes nobody, and without the check the poll would then sleep until its
 * heartbeat (45-55 s). A script is atomic: a push runs before it (next_id has moved past what the poll read:
 * 2, read again without waiting) or after it (it finds this poll as the waiter and wakes it). Registering again (after
 * a wake-up that brought nothing to serve), a poll never takes the queue back from a newer poll: that one's client
 * would be answered empty, and its wake-ups would go to a poll whose client may be gone.
 */
static const char wait_script[] =
    "if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end "
    "local old = redis.call('HGET', KEYS[1], 'waiter') "
    "if old and ARGV[7] == '1' then return 3 end "
    "if old then redis.call('RPUSH', ARGV[1] .. old, 'superseded') redis.call('EXPIRE', ARGV[1] .. old, 120) end "
    "redis.call('HSET', KEYS[1], 'waiter', ARGV[2], 'last_access', ARGV[3]) "
    "local t = tonumber(redis.call('HGET', KEYS[1], 'timeout')) "
    "redis.call('ZADD', 'confab:expiry', tonumber(ARGV[3]) + t, ARGV[4]) "
    "redis.call('ZADD', 'confab:waiting', ARGV[5], ARGV[4]) "
    "local newest = tonumber(redis.call('HGET', KEYS[1], 'next_id')) - 1 "
    "if newest > tonumber(ARGV[6]) and newest > tonumber(redis.call('HGET', KEYS[1], 'pruned')) then return 2 end "
    "return 1";
/* Clears the waiter if it is still this poll. */
static const char unwait_script[] =
    "if redis.call('HGET', KEYS[1], 'waiter') == ARGV[1] then redis.call('HDEL', KEYS[1], 'waiter') "
    "redis.call('ZREM', 'confab:waiting', ARGV[2]) end "
    "redis.call('DEL', KEYS[2]) return 1";

/* The id of the newest of the entries r->elem[from..] ("<id> <txid> <event>", oldest first), else seen. */
static long long newest_entry_id(const struct rreply *r, size_t from, long long seen)
{
	return r->n > from && r->elem[r->n - 1]->str ? strtoll(r->elem[r->n - 1]->str, NULL, 10) : seen;
}

#ifdef CONFAB_FAULT_POINTS
/* Test-only (see router.c): "X-Confab-Fault: pause-before-wait" holds a poll 20 ms between its read of the queue
 * and its registration as the waiter, so that a test's publications land in that window. */
static void fault_pause(const struct uow *uow)
{
	if (uow->fault != NULL && strcmp(uow->fault, "pause-before-wait") == 0)
		usleep(20000);
}
#else
#define fault_pause(uow) ((void)0)
#endif

/* Waits on the wake-up list, holding no database connection and no pooled Redis connection meanwhile. */
static const char *park(struct uow *uow, const char *wake)
{
	db_release(uow);
	redis_release(uow);
	/* A stopping worker answers its polls (polls_release()) and waits for no new one. */
	struct held_poll held;
	const char *woken = "stopping";
	if (polls_hold(uow->worker->polls, &held, wake)) {
		metrics_add(uow->worker->metrics, M_POLLS_HELD, 1);
		woken = redis_blpop(uow, wake, POLL_MAX_SECS);
		metrics_add(uow->worker->metrics, M_POLLS_HELD, -1);
		polls_unhold(uow->worker->polls, &held);
	}
	return woken;
}

/*
 * Registers the poll as the queue's waiter (again: not the poll's first registration) and waits for an event unless one
 * came after *seen, the newest entry id the poll has read. Returns "event", "superseded", "stopping" (the worker
 * stops), "" on timeout, or NULL on error; and, read in the same round trip as the end of the wait, the queue's
 * entries (*entries, *seen moved to the newest of them) and settings (*meta, checked as load_meta() does).
 */
static const char *wait_for_event(struct uow *uow, const char *qid, const char *poll, long long *seen, bool again,
                                  struct rreply **entries, struct rreply **meta)
{
	long long now = now_secs();
	long long beat = now + HEARTBEAT_MIN_SECS + crypto_random_below(HEARTBEAT_SPREAD_SECS + 1);
	const char *wake = arena_printf(&uow->arena, "confab:q:{%s}:wake:%s", qid, poll);
	fault_pause(uow);
	struct rreply *r = REDIS_CMD(
	    uow, "EVAL", wait_script, "1", queue_key(uow, qid, "meta"),
	    arena_printf(&uow->arena, "confab:q:{%s}:wake:", qid), poll, arena_printf(&uow->arena, "%lld", now), qid,
	    arena_printf(&uow->arena, "%lld", beat), arena_printf(&uow->arena, "%lld", *seen), again ? "1" : "");
	*entries = NULL;
	if (r == NULL)
		return NULL;
	if (r->integer == 0) /* deleted meanwhile: load_meta() records the error */
		return (*meta = load_meta(uow, qid)) != NULL ? "superseded" : NULL;
	const char *woken = r->integer == 2 ? "event" : r->integer == 3 ? "superseded" : park(uow, wake);
	if (woken == NULL) { /* best effort: the poll no longer waits */
		REDIS_TRY_CMD(uow, "EVAL", unwait_script, "2", queue_key(uow, qid, "meta"), wake, poll, qid);
		return NULL;
	}
	const char *unwait[] = {"EVAL", unwait_script, "2", queue_key(uow, qid, "meta"), wake, poll, qid};
	const char *lrange[] = {"LRANGE", queue_key(uow, qid, "events"), "0", "-1"};
	const char *const *cmds[] = {unwait, lrange, meta_cmd(uow, qid)};
	int argcs[] = {7, 4, META_FIELDS_N};
	struct rreply *replies[3];
	if (redis_pipeline(uow, 3, argcs, cmds, replies) < 0 || (*meta = checked_meta(uow, qid, replies[2])) == NULL)
		return NULL;
	*entries = replies[1];
	*seen = newest_entry_id(replies[1], 0, *seen);
	return woken;
}

json_object *events_fetch(struct uow *uow, const char *queue_id, int64_t last_event_id, bool dont_block)
{
	struct rreply *meta = load_meta(uow, queue_id);
	if (meta == NULL)
		return NULL;
	struct rreply *r = REDIS_CMD(uow, "EVAL", prune_script, "2", queue_key(uow, queue_id, "meta"),
	                             queue_key(uow, queue_id, "events"), db_arg_int(uow, last_event_id));
	if (r == NULL)
		return NULL;
	if (strcmp(r->elem[0]->str, "gone") == 0) { /* discarded since load_meta() */
		bad_queue(uow, queue_id);
		return NULL;
	}
	if (strcmp(r->elem[0]->str, "newer") == 0) {
		uow_error(uow, ERR_BAD_REQUEST, "An event newer than %lld has already been pruned!",
		          (long long)last_event_id);
		return NULL;
	}
	if (strcmp(r->elem[0]->str, "notin") == 0) {
		uow_error(uow, ERR_BAD_REQUEST, "Event %lld was not in this queue", (long long)last_event_id);
		return NULL;
	}
	json_object *events = render_entries(uow, queue_id, r, 1, meta);
	/* What the poll has read: every entry up to last_event_id was pruned, the others are in r (rendered or not). */
	long long seen = newest_entry_id(r, 1, (long long)last_event_id);
	char poll[37];
	crypto_uuid4(poll);
	long long deadline = now_secs() + POLL_MAX_SECS;
	for (bool again = false; json_object_array_length(events) == 0 && !dont_block && now_secs() < deadline;
	     again = true) {
		const char *woken = wait_for_event(uow, queue_id, poll, &seen, again, &r, &meta);
		if (woken == NULL) {
			json_object_put(events);
			return NULL;
		}
		if (r != NULL) {
			json_object_put(events);
			events = render_entries(uow, queue_id, r, 0, meta);
		}
		if (strcmp(woken, "superseded") == 0 || strcmp(woken, "stopping") == 0)
			break;
	}
	metrics_add(uow->worker->metrics, M_EVENTS_SERVED, (int64_t)json_object_array_length(events));
	return events;
}

/* Deletes the queue ARGV[1] (KEYS[1] its meta), waking its poll. */
static const char delete_script[] = QUEUE_DISCARD_LUA "discard(KEYS[1], ARGV[1]) return 1";

static int delete_queue(struct uow *uow, const char *qid)
{
	return REDIS_CMD(uow, "EVAL", delete_script, "1", queue_key(uow, qid, "meta"), qid) ? 0 : -1;
}

/* EV_DELETE_QUEUES: deletes the queues (after COMMIT, so a failure is logged and left to the queues' expiry). */
int queues_delete(struct uow *uow, const char **queues, int nq)
{
	const char *const **cmds = arena_alloc(&uow->arena, (size_t)nq * sizeof(*cmds));
	int *argcs = arena_alloc(&uow->arena, (size_t)nq * sizeof(*argcs));
	struct rreply **replies = arena_alloc(&uow->arena, (size_t)nq * sizeof(*replies));
	for (int i = 0; i < nq; i++) {
		const char **argv = arena_alloc(&uow->arena, 5 * sizeof(*argv));
		argv[0] = "EVAL";
		argv[1] = delete_script;
		argv[2] = "1";
		argv[3] = queue_key(uow, queues[i], "meta");
		argv[4] = queues[i];
		cmds[i] = argv;
		argcs[i] = 5;
	}
	return redis_try_pipeline(uow, nq, argcs, cmds, replies);
}

int events_queue_delete(struct uow *uow, const char *queue_id)
{
	if (load_meta(uow, queue_id) == NULL)
		return -1;
	return delete_queue(uow, queue_id);
}

/* ---- reaping ------------------------------------------------------------------------------------------- */

/* Claims a poll due for a heartbeat (only one reaper wins it) and pushes the heartbeat. */
static const char heartbeat_script[] =
    "if redis.call('ZREM', 'confab:waiting', ARGV[1]) == 0 then return 0 end "
    "if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end "
    "local id = redis.call('HINCRBY', KEYS[1], 'next_id', 1) - 1 "
    "local entry = id .. ' 0 {\"type\":\"heartbeat\"}' "
    "redis.call('RPUSH', KEYS[2], entry) redis.call('HINCRBY', KEYS[1], 'bytes', #entry) "
    "local w = redis.call('HGET', KEYS[1], 'waiter') "
    "if w then redis.call('RPUSH', ARGV[2] .. w, 'event') redis.call('EXPIRE', ARGV[2] .. w, 120) end "
    "return 1";
/* Deletes a queue whose idle time ran out, unless a poll is waiting on it (then its clock restarts). */
static const char expire_script[] =
    QUEUE_DISCARD_LUA "local score = redis.call('ZSCORE', 'confab:expiry', ARGV[1]) "
                      "if not score or tonumber(score) > tonumber(ARGV[2]) then return 0 end "
                      "if redis.call('HEXISTS', KEYS[1], 'waiter') == 1 then "
                      "  local t = tonumber(redis.call('HGET', KEYS[1], 'timeout')) "
                      "  redis.call('ZADD', 'confab:expiry', tonumber(ARGV[2]) + t, ARGV[1]) return 0 end "
                      "discard(KEYS[1], ARGV[1]) "
                      "return 1";

int events_reap(struct uow *uow)
{
	const char *now = arena_printf(&uow->arena, "%lld", now_secs());
	int touched = 0;
	struct rreply *due = REDIS_CMD(uow, "ZRANGEBYSCORE", "confab:waiting", "-inf", now, "LIMIT", "0", "1000");
	if (due == NULL)
		return -1;
	for (size_t i = 0; i < due->n; i++) {
		const char *qid = due->elem[i]->str;
		struct rreply *r = REDIS_CMD(uow, "EVAL", heartbeat_script, "2", queue_key(uow, qid, "meta"),
		                             queue_key(uow, qid, "events"), qid,
		                             arena_printf(&uow->arena, "confab:q:{%s}:wake:", qid));
		if (r == NULL)
			return -1;
		touched += (int)r->integer;
	}
	struct rreply *expired = REDIS_CMD(uow, "ZRANGEBYSCORE", "confab:expiry", "-inf", now, "LIMIT", "0", "1000");
	if (expired == NULL)
		return -1;
	for (size_t i = 0; i < expired->n; i++) {
		const char *qid = expired->elem[i]->str;
		struct rreply *r = REDIS_CMD(uow, "EVAL", expire_script, "1", queue_key(uow, qid, "meta"), qid, now);
		if (r == NULL)
			return -1;
		touched += (int)r->integer;
	}
	return touched;
}

int events_queue_counts(struct uow *uow, long long *queues, long long *waiting)
{
	const char *expiry[] = {"ZCARD", "confab:expiry"}, *polls[] = {"ZCARD", "confab:waiting"};
	const char *const *cmds[] = {expiry, polls};
	const int argcs[] = {2, 2};
	struct rreply *r[2];
	if (redis_try_pipeline(uow, 2, argcs, cmds, r) < 0)
		return -1;
	*queues = r[0]->integer;
	*waiting = r[1]->integer;
	return 0;
}
