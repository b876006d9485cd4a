/*
 * The subscriber_count of every channel of an organization and the setting value of every unnamed group (the
 * {"direct_members": [...], "direct_subgroups": [...]} of channel permission settings), for POST /register's channel
 * lists: read once per organization by each worker process and kept (counting the active subscribers of 200 channels
 * took a third of register's channel statement), like the users lists (model/realm_users.h).
 *
 * Never stale: triggers on subscriptions and on groups, their members and subgroups
 * (migrations/0028_message_fetch.sql, 0030_register_cache.sql), like those on users (whose deactivation changes the
 * counts and the members too), NOTIFY confab_cache and add a realm_changes row; kept counts are used only by a register
 * whose transaction sees no change since the snapshot they were read under (realm_kept_get()), else they are
 * read again in that transaction (and kept).
 */
#ifndef CONFAB_CHANNEL_COUNTS_H
#define CONFAB_CHANNEL_COUNTS_H

#include <stdint.h>

struct uow;
struct channel_counts;

/*
 * The counts of uow's organization as the calling transaction sees them, whose pg_current_snapshot() is snapshot
 * (NULL: read, not kept). Valid until uow's arena is released. NULL on error (recorded).
 */
const struct channel_counts *channel_counts_get(struct uow *uow, const char *snapshot);
/* The number of active subscribers (active users) of channel id. */
int64_t channel_counts_of(const struct channel_counts *k, int64_t channel_id);
/* The setting value (JSON text) of group id if it is an unnamed group of the organization, else NULL. */
const char *channel_counts_group_value(const struct channel_counts *k, int64_t group_id);

#endif
