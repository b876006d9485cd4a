/*
 * The unit of work: what one piece of work needs below the transport, whoever started it (an HTTP request, a
 * reaper tick, a confabctl command). It owns an arena, holds the pooled PostgreSQL and Redis connections it took
 * (db/, redis/), its transaction, the one error it recorded and the events it produced (events/), and names the
 * acting organization and user for the model (opaque pointers here). db, redis, events and model take a
 * `struct uow *`; the HTTP request (http/request.h) embeds one and adds only HTTP.
 *
 * Connections are given back through the arena: the first time a unit of work takes one, db/ and redis/ register
 * a cleanup with arena_defer(), as nginx's pool cleanups do, so uow_finish() is just arena_free() and no layer
 * above has to know which connections were taken.
 */
#ifndef CONFAB_UOW_H
#define CONFAB_UOW_H

#include <json-c/json.h>
#include <stdarg.h>
#include <stdbool.h>

#include "core/arena.h"
#include "core/error.h"

struct config;
struct db_pool;
struct db_conn;
struct redis_pool;
struct redis_conn;
struct event_polls;
struct pending_event;
struct realm;
struct user;
struct linkifier_set;
struct cache;
struct metrics;

/* Long-lived state of a process: created by main, shared by its threads. */
struct worker {
	const struct config *cfg;
	struct db_pool *db;
	struct redis_pool *redis;
	struct cache *cache;       /* model/cache.h; NULL: nothing cached (the reaper, confabctl) */
	struct event_polls *polls; /* the long-polls the process holds (events/polls.h); NULL where none are */
	struct metrics *metrics;   /* this process's metrics slot (core/metrics.h); NULL: off */
};

/*
 * The fields of struct uow, as a macro so that struct request can embed them both as a named member (req->uow, to
 * pass down) and as an anonymous one (req->arena, req->user ...), as Linux's struct_group_tagged() does.
 */
#define UOW_FIELDS                                                                                                     \
	struct arena arena;                                                                                            \
	struct worker *worker;                                                                                         \
	unsigned long long id; /* for log lines */                                                                     \
	const char *fault;     /* X-Confab-Fault (builds with --enable-fault-points only), else NULL */                \
                                                                                                                       \
	/* Who acts: set by authentication (or the organization of the host for public routes); NULL for none. */      \
	const struct realm *realm;                                                                                     \
	const struct user *user;                                                                                       \
	bool *realm_perms; /* the user's organization permissions, read once (model/permissions.c) */                  \
	struct linkifier_set                                                                                           \
	    *linkifiers; /* the organization's compiled linkifiers, loaded once (model/linkifiers.c) */                \
                                                                                                                       \
	/* The one recorded error: the first wins, and nothing erases it (uow_error()). */                             \
	enum err error;                                                                                                \
	const char *error_msg;                                                                                         \
	json_object *error_fields;                                                                                     \
                                                                                                                       \
	/* Pooled connections, given back by the arena's cleanups (db_release(), redis_release() may do it early). */  \
	struct db_conn *db;                                                                                            \
	bool in_txn;                                                                                                   \
	bool db_cleanup; /* the release cleanup is registered */                                                       \
	struct redis_conn *redis;                                                                                      \
	bool redis_cleanup;                                                                                            \
                                                                                                                       \
	/* Events produced by the work, written to the outbox before COMMIT, published after (events/events.c). */     \
	struct pending_event *events;                                                                                  \
	int nevents, capevents;

struct uow {
	UOW_FIELDS
};

/* Prepares u for a new piece of work of worker w; id names it in log lines. */
void uow_init(struct uow *u, struct worker *w, unsigned long long id);
/* Gives back its connections (rolling back an open transaction) and frees all its memory. */
void uow_finish(struct uow *u);

/*
 * Records error e on u with a printf-style message (NULL fmt: the table's default message) and returns -1.
 * The first error recorded wins; later calls only return -1.
 */
int uow_error(struct uow *u, enum err e, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
int uow_verror(struct uow *u, enum err e, const char *fmt, va_list ap);
/* Adds an extra field to the recorded error object; takes ownership of value. */
void uow_error_field(struct uow *u, const char *key, json_object *value);
/* Registers a json-c object to be released with the unit of work; returns it. */
json_object *uow_own_json(struct uow *u, json_object *obj);
/*
 * Parses JSON text a client sent, after charging its arena what it costs parsed (jsonx_cost()): every client JSON
 * goes through here or the parameter validator, so that no request grows a worker past its bound. Returns 0 with
 * the value in *out (owned by u; NULL for `null`), 1 for text that is no JSON (nothing recorded), or -1 with 413
 * ERR_TOO_LARGE recorded when the value would cost more than the request may hold.
 */
int uow_parse_client_json(struct uow *u, const char *s, size_t len, json_object **out);

#endif
