/*
 * The realm_users and realm_non_active_users of POST /register. For 2,000 users they are most of a 1 MB answer and
 * most of its cost, and they change rarely: a worker process keeps them as JSON text per organization and kind of
 * viewer (model/cache.h), spliced into answers without building or parsing them again.
 *
 * Race-free register (DESIGN.md "Events") holds: the kept text was read under a snapshot S that is stored with it,
 * and it is used only by a transaction that sees no realm_changes row of the organization invisible to S (one
 * indexed statement), i.e. when the users, profile values and organization the text came from read the same in
 * the register's own snapshot; else the lists are read again in that snapshot (and kept).
 */
#ifndef CONFAB_REALM_USERS_H
#define CONFAB_REALM_USERS_H

#include <json-c/json.h>
#include <stdbool.h>

#include "model/cache.h"

struct uow;

/*
 * Adds realm_users and realm_non_active_users to out, as uow->user sees them (uow->user NULL: a spectator), in the
 * calling transaction, whose pg_current_snapshot() is snapshot (NULL: nothing is kept or reused). 0, or -1 with the
 * error recorded.
 */
int realm_users_state(struct uow *uow, bool client_gravatar, const char *snapshot, json_object *out);

/*
 * What every value kept this way starts with (these lists, model/realm_groups.h, model/channel_counts.h): its cache
 * blob, the snapshot its rows were read under (NULL: read for one request, not kept) and when (for the age bound).
 */
struct realm_kept {
	struct cache_blob blob;
	char *pg_snapshot;
	long made;
};

/* Sets the header of a value of uow's organization read now under snapshot (NULL: not to be kept), freed by free_fn,
 * which calls realm_kept_release(). */
void realm_kept_init(struct uow *uow, struct realm_kept *k, const char *snapshot, void (*free_fn)(struct cache_blob *));
/* Frees what realm_kept_init() allocated. */
void realm_kept_release(struct realm_kept *k);
/*
 * The value kept under key if it may stand for what the calling transaction reads (no change of the organization
 * recorded in realm_changes that its snapshot does not see, not too old for the rows still kept there), else the one
 * make(uow, snapshot, arg) reads in the calling transaction, kept under key unless snapshot is NULL. The caller holds
 * a reference (cache_blob_unref). NULL on error.
 */
struct realm_kept *realm_kept_get(struct uow *uow, const char *key, const char *snapshot,
                                  struct realm_kept *(*make)(struct uow *uow, const char *snapshot, void *arg),
                                  void *arg);

/* Deletes realm_changes rows older than any kept list can be (the reaper, every round). 0, or -1. */
int realm_users_prune(struct uow *uow);

#endif
