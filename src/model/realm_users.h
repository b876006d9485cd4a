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

struct uow;

/*
 * Adds realm_users and realm_non_active_users to out, as uow->user sees them (uow->user NULL: a spectator), in the
 * calling transaction, whose pg_current_snapshot() is snapshot (NULL: nothing is kept or reused). 0, or -1 with the
 * error recorded.
 */
int realm_users_state(struct uow *uow, bool client_gravatar, const char *snapshot, json_object *out);

/*
 * For other values kept the same way (model/realm_groups.h): 1 if a value of uow's organization read under
 * pg_snapshot at realm_kept_made() time made may stand for what the calling transaction reads (no change recorded in
 * realm_changes since, not too old for the rows still kept there), 0 if not, -1 on error.
 */
long realm_kept_made(void);
int realm_kept_is_current(struct uow *uow, const char *pg_snapshot, long made);

/* Deletes realm_changes rows older than any kept list can be (the reaper, every round). 0, or -1. */
int realm_users_prune(struct uow *uow);

#endif
