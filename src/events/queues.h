/*
 * What events.c (publishing) and queues.c (the queues themselves) share; private to src/events. A queue's keys are
 * "confab:q:{<queue id>}:<what>" (meta, events, applied; wake:<poll>): each queue in a hash slot of its own.
 */
#ifndef CONFAB_EVENTS_QUEUES_H
#define CONFAB_EVENTS_QUEUES_H

#include <json-c/json.h>
#include <stdbool.h>

struct uow;

/*
 * Lua defining discard(km, qid): deletes the queue qid whose meta key is km, with its events, its applied set and its
 * entries in its user's and organization's sets and in confab:expiry and confab:waiting, then wakes the poll waiting
 * on it ("superseded"), which finds the queue gone and answers BAD_EVENT_QUEUE_ID. Its first write is a DEL, which
 * Redis allows past maxmemory, so that a script discarding a queue runs whole there too.
 */
#define QUEUE_DISCARD_LUA                                                                                              \
	"local function discard(km, qid) "                                                                             \
	"  local base = string.sub(km, 1, -5) "                                                                        \
	"  local m = redis.call('HMGET', km, 'user', 'realm', 'waiter') "                                              \
	"  redis.call('DEL', km, base .. 'events', base .. 'applied') "                                                \
	"  if m[1] then redis.call('SREM', 'confab:u:{' .. m[1] .. '}:queues', qid) end "                              \
	"  if m[2] then redis.call('SREM', 'confab:r:{' .. m[2] .. '}:allpublic', qid) end "                           \
	"  redis.call('ZREM', 'confab:expiry', qid) "                                                                  \
	"  redis.call('ZREM', 'confab:waiting', qid) "                                                                 \
	"  if m[3] then "                                                                                              \
	"    local wk = base .. 'wake:' .. m[3] "                                                                      \
	"    redis.call('RPUSH', wk, 'superseded') redis.call('EXPIRE', wk, 120) "                                     \
	"  end "                                                                                                       \
	"end "

/* The key of a queue's part `what` (an arena string). */
const char *queue_key(struct uow *uow, const char *qid, const char *what);
/* Whether a queue's client_capabilities (caps, NULL: none) has capability name set. */
bool queue_capability(json_object *caps, const char *name);
/* Deletes the queues (all their keys, and their entries in the user and organization sets). 0, or -1. */
int queues_delete(struct uow *uow, const char **queues, int nq);

#endif
