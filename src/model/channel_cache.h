/*
 * The channels a narrow names (GET /messages), as the requesting user may read them, from the process's cache
 * (model/cache.h) instead of a lookup with the user's groups at every request. Kept per organization, user, role and
 * operand (a channel id, or a name as written: names longer than the cache's keys, and channels that do not exist,
 * are always read); dropped with
 * the organization's other copies whenever its channels, subscriptions (joining, leaving), user groups or users
 * change, by the triggers of migrations/0028_message_fetch.sql, whoever changes them.
 */
#ifndef CONFAB_CHANNEL_CACHE_H
#define CONFAB_CHANNEL_CACHE_H

#include <stdint.h>

struct uow;
struct channel;

/*
 * The channel of the request's organization with that id (name NULL) or name, as channel_by_id() or
 * channel_by_name() reads it, with only these members set: id, realm_id, invite_only, is_web_public,
 * history_public_to_subscribers, is_subscribed, content_access, metadata_access. NULL if there is none (check
 * uow->error).
 */
const struct channel *channel_cache_lookup(struct uow *uow, int64_t id, const char *name);

#endif
