/*
 * Event queues (see DESIGN.md "Events"). A queue lives in Redis under keys sharing the hash tag {QID}:
 *   confab:q:{QID}:events   list of "<id> <txid> <event JSON>" entries, oldest first
 *   confab:q:{QID}:meta     hash: user, realm, event_types, narrow, all_public_streams, capabilities, apply_markdown,
 *                           client_gravatar, slim_presence, snapshot, timeout, last_access, created (us), next_id,
 *                           pruned, bytes (the length of the events' entries), waiter
 *   confab:q:{QID}:wake:{P} list a waiting poll P blocks on
 *   confab:q:{QID}:applied  sorted set: the outbox ids the queue has taken lately (a row published twice lands once)
 * plus, per user, the set confab:u:{UID}:queues (at most event_queues_per_user: a new queue discards the least
 * recently used past it), per organization the set confab:r:{RID}:allpublic of queues
 * registered with all_public_streams, and the sorted set confab:expiry of queues by expiry time.
 *
 * Handlers produce events with events_add() while they run. The pipeline writes a transaction's events to the
 * outbox table (migrations/0009_event_outbox.sql) before COMMIT, publishes them after and marks the rows done
 * (the Redis set confab:outbox:done); confab-reaper deletes the rows marked done and publishes those a worker left
 * behind. Events of requests without a transaction (typing) have no
 * commit to be atomic with and are published directly. Each event is stored once in its modern form and rendered
 * per client when served (capabilities, apply_markdown, empty topic).
 */
#ifndef CONFAB_EVENTS_H
#define CONFAB_EVENTS_H

#include <json-c/json.h>
#include <stdbool.h>
#include <stdint.h>

struct uow;

/* Flags for events_add(). */
#define EV_ALL_PUBLIC 0x1u /* also to the organization's queues registered with all_public_streams */
/* Not an event: when published, deletes every queue of the users (a deactivated account's), waking their polls,
 * which then answer BAD_EVENT_QUEUE_ID. Recorded like an event, so that it happens after COMMIT and only then. */
#define EV_DELETE_QUEUES 0x2u

/*
 * Records event (a JSON object with at least "type"; the function takes a reference of its own) for the queues of
 * users user_ids (n of them), to be published when the request's transaction has committed. Events of one request
 * are published in the order they were added. Returns 0 (the int is kept for callers that chain it).
 */
int events_add(struct uow *uow, json_object *event, const int64_t *user_ids, int n, unsigned flags);
/* A new event {"type": type, "op": op} (no "op" for a NULL op), owned by the uow. */
json_object *events_new(struct uow *uow, const char *type, const char *op);
/* events_add(uow, event, user_ids, n, 0) when n > 0; nothing is recorded for no users. Returns 0. */
int events_add_some(struct uow *uow, json_object *event, const int64_t *user_ids, int n);
/*
 * Writes the recorded events to the outbox in the request's open transaction (one statement, one row per event),
 * with the transaction's id; call it just before COMMIT. Does nothing outside a transaction. Returns 0, or -1 with
 * the error recorded (then the transaction must not commit).
 */
int events_outbox_write(struct uow *uow);
/*
 * events_outbox_write() and db_commit() in one round trip (the outbox INSERT and COMMIT pipelined); without
 * events, db_commit(). Returns 0, or -1 with the error recorded (nothing committed, or the COMMIT failed).
 */
int events_outbox_commit(struct uow *uow);
/*
 * Publishes the request's recorded events (after COMMIT). Failures are logged, not fatal: the change is already
 * committed, and an event that has an outbox row (with the ones after it) is left to the reaper.
 */
void events_publish(struct uow *uow);
/* Marks the outbox rows of the events events_publish() delivered as done (the reaper deletes them) and forgets the
 * recorded events. A failure is logged (the reaper publishes the rows again, and the queues drop them). */
void events_outbox_clear(struct uow *uow);
/*
 * For handlers that are not atomic, as the reference's (PATCH /streams/{id}: each setting is its own durable
 * transaction): writes the events recorded so far to the outbox, commits the open transaction, publishes and
 * clears them as the pipeline does after a handler, then begins a new transaction. A later error rolls back only
 * what follows. Does nothing outside a transaction. 0 or -1 (error recorded).
 */
int events_commit_step(struct uow *uow);
/*
 * What the pipeline does after a handler, for work that runs its own transaction (the reaper's scheduled messages):
 * writes the recorded events to the outbox, commits, publishes them and marks their rows done. Returns 0, or -1
 * with the error recorded (nothing committed).
 */
int events_commit(struct uow *uow);
/*
 * For the reaper: deletes the outbox rows marked done, then publishes the rows older than two seconds (left by a
 * worker that stopped between COMMIT and marking them), claimed with FOR UPDATE SKIP LOCKED, in id order, and
 * deletes them, in one transaction of uow. Returns how many it published, or -1. Safe with several reapers and
 * with workers at once.
 */
int events_outbox_reap(struct uow *uow);

/* What POST /register asked for, stored with the queue. */
struct queue_spec {
	json_object *event_types;  /* array of strings, or NULL for all */
	json_object *narrow;       /* array of [operator, operand] pairs, or NULL */
	json_object *capabilities; /* client_capabilities object, or NULL */
	bool all_public_streams;
	bool apply_markdown;
	bool client_gravatar;
	bool slim_presence; /* legacy presence events without the e-mail address */
	int timeout_secs;   /* idle expiry */
};

/*
 * Creates a queue for the requesting user, discarding the user's least recently used queues past
 * event_queues_per_user (their polls answer BAD_EVENT_QUEUE_ID); returns its id (an arena string, a UUID) or NULL
 * with the error recorded (ERR_UNAVAILABLE when Redis is past its maxmemory). Call before reading the initial state.
 */
const char *events_queue_create(struct uow *uow, const struct queue_spec *spec);
/*
 * Records the snapshot (pg_current_snapshot() text) of the transaction that read the initial state: events of
 * transactions visible in it are already part of that state and are never served from this queue.
 */
int events_queue_set_snapshot(struct uow *uow, const char *queue_id, const char *snapshot);

/*
 * GET /events semantics: acknowledges events up to last_event_id, then returns the remaining events rendered for
 * the client (a new array), waiting up to the heartbeat period for one unless dont_block. Records
 * BAD_EVENT_QUEUE_ID, "An event newer than N has already been pruned!" or "Event N was not in this queue".
 */
json_object *events_fetch(struct uow *uow, const char *queue_id, int64_t last_event_id, bool dont_block);
/* DELETE /events: ends a waiting poll and removes the queue. */
int events_queue_delete(struct uow *uow, const char *queue_id);

/* For the reaper: pushes a heartbeat to every queue whose poll has waited 45-55 s, and deletes queues idle past
 * their timeout. Returns the number of queues touched, or -1. Safe with several reapers at once. */
int events_reap(struct uow *uow);

/* For /metrics: the number of event queues (the reaper's expiry set) and of queues with a poll waiting on them, in
 * one round trip. Returns 0, or -1 with nothing recorded (logged). */
int events_queue_counts(struct uow *uow, long long *queues, long long *waiting);

#endif
