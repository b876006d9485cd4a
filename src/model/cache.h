/*
 * In-process copies of the rows every request reads: the user and organization an API key authenticates (by the
 * key's hash) and the organization of a host name (by subdomain). One per worker process (struct worker), shared by
 * its threads.
 *
 * Never stale, by PostgreSQL itself: triggers on users, realms and api_keys (migrations/0024_caches.sql) send
 * NOTIFY confab_cache with the organization's id at COMMIT, whoever changed the rows (a worker, confabctl, psql), and
 * a LISTEN connection on a thread of its own (db/listen.h, pg_listen_conninfo) drops that organization's copies
 * when the notification arrives. While that connection is down the cache is bypassed (every lookup reads
 * PostgreSQL), and it starts empty whenever it is up again. A copy read from the database is kept only if no
 * notification arrived while it was read (the ticket), so a fill racing a change never outlives it.
 * A process whose own transaction changed such rows waits (cache_await) until its listener has heard of it before
 * answering, so a client's next request, to whichever process, finds the change.
 *
 * A NULL cache (the reaper, confabctl) keeps nothing: every get misses and every put is dropped.
 */
#ifndef CONFAB_CACHE_H
#define CONFAB_CACHE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct uow;
struct user;
struct realm;
struct cache;

/* An empty cache that keeps nothing until cache_listen()'s connection listens. Never NULL. */
struct cache *cache_new(void);
/* Starts listening on conninfo; 0, or -1 (logged) if the thread could not start (then nothing is ever kept). */
int cache_listen(struct cache *c, const char *conninfo);

/* Taken before reading what a put will keep: 0 while the cache is off. */
uint64_t cache_ticket(struct cache *c);

/*
 * The user and organization of an API key hash (64 hex digits), copied into uow's arena; false on a miss.
 * cache_auth_put() keeps copies (dropped if ticket is 0 or older than the last invalidation).
 */
bool cache_auth_get(struct cache *c, struct uow *uow, const char *key_hash, struct user **user, struct realm **realm);
void cache_auth_put(struct cache *c, uint64_t ticket, const char *key_hash, const struct user *user,
                    const struct realm *realm);
/* The organization with that subdomain, copied into uow's arena; NULL on a miss. Same rules for the put. */
struct realm *cache_realm_get(struct cache *c, struct uow *uow, const char *subdomain);
void cache_realm_put(struct cache *c, uint64_t ticket, const char *subdomain, const struct realm *realm);

/*
 * Small values of fixed size (channel_cache.h) under a key (at most 64 bytes) for one organization, dropped with
 * its rows: cache_value_get() copies the value kept under key into out (size bytes) and returns true, or false on
 * a miss; cache_value_put() keeps a copy (same rules as cache_auth_put()).
 */
bool cache_value_get(struct cache *c, const char *key, void *out, size_t size);
void cache_value_put(struct cache *c, uint64_t ticket, int64_t realm_id, const char *key, const void *value,
                     size_t size);

/*
 * The profile_data object of a user as JSON text (GET /users/me), copied into uow's arena; NULL on a miss. Kept
 * under the user's organization and dropped with it (custom_profile_field_values has the triggers). Same rules
 * for the put.
 */
const char *cache_profile_get(struct cache *c, struct uow *uow, int64_t user_id);
void cache_profile_put(struct cache *c, uint64_t ticket, int64_t realm_id, int64_t user_id, const char *text);

/*
 * Larger shared values (POST /register's realm users, model/realm_users.h): immutable once kept, reference counted
 * so that a request can go on using one that an invalidation dropped. A value is kept under a key (at most 64
 * bytes) for one organization and dropped with it; the owner embeds struct cache_blob first and sets free_fn.
 * Unlike the rows above, the cache does not vouch for these: whoever uses one checks it is current (realm_changes).
 */
struct cache_blob {
	int refs; /* atomic; 1 when made */
	int64_t realm_id;
	void (*free_fn)(struct cache_blob *);
};
/* The value kept under key with a reference for the caller, or NULL (also while the cache is off). */
struct cache_blob *cache_blob_get(struct cache *c, const char *key);
/* Keeps b under key (replacing any), with a reference of its own; nothing while the cache is off. */
void cache_blob_put(struct cache *c, const char *key, struct cache_blob *b);
/* Drops a reference; the last one frees the value. NULL is ignored. */
void cache_blob_unref(struct cache_blob *b);

/* How many notifications the listener has handled so far (for cache_await()). */
uint64_t cache_heard(struct cache *c);
/* Waits, up to 1 s, until the listener has handled a notification after the count since (0 at once when off). */
void cache_await(struct cache *c, uint64_t since);

#endif
