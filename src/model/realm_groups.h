/*
 * The realm_user_groups of POST /register, kept as JSON text per organization (and include_deactivated_groups) by
 * each worker process, like the users lists (model/realm_users.h): the groups and their members are the same for
 * every viewer, change rarely, and for 2,000 users hold lists of 2,000 ids that json-c would otherwise parse and
 * write again on every register.
 *
 * Never stale: triggers on user_groups, user_group_members and user_group_subgroups
 * (migrations/0030_register_cache.sql, 0028_message_fetch.sql), like those on users, NOTIFY confab_cache and add a
 * realm_changes row; the kept text is used only by a register whose transaction sees no change since the snapshot it
 * was read under (realm_kept_get()), else it is read again in that transaction (and kept). The race-free
 * register guarantee holds as for the users lists.
 */
#ifndef CONFAB_REALM_GROUPS_H
#define CONFAB_REALM_GROUPS_H

#include <json-c/json.h>
#include <stdbool.h>

struct uow;

/*
 * Adds realm_user_groups to out (deactivated groups too when include_deactivated), in the calling transaction,
 * whose pg_current_snapshot() is snapshot (NULL: nothing is kept or reused). 0, or -1 with the error recorded.
 */
int realm_groups_state(struct uow *uow, bool include_deactivated, const char *snapshot, json_object *out);

#endif
