/*
 * The channel a request names (a GET /messages narrow, a message's destination), as the requesting user may read
 * and post to it, from the process's cache (model/cache.h) instead of a lookup with the user's groups at every
 * request. Kept per organization, user, role and operand (a channel id, or a name as written: names longer than the
 * cache's keys, and channels that do not exist, are always read) for at most CHANNEL_CACHE_SECS; dropped with the
 * organization's other copies whenever its channels, subscriptions (joining, leaving), user groups or users change,
 * by the triggers of migrations/0028_message_fetch.sql, whoever changes them.
 */
#ifndef CONFAB_CHANNEL_CACHE_H
#define CONFAB_CHANNEL_CACHE_H

#include <stdint.h>

struct uow;
struct channel;

/* is_recently_active follows from the clock as well as from rows: a copy is used for this long at most. */
#define CHANNEL_CACHE_SECS 600

/*
 * The channel of the request's organization with that id (name NULL) or name, as channel_by_id() or
 * channel_by_name() reads it, with only these members set: id, realm_id, name, invite_only, is_web_public,
 * history_public_to_subscribers, is_archived, topics_policy, is_recently_active, settings, in_setting,
 * is_subscribed, content_access, metadata_access (the strings description, rendered_description and
 * send_group_system_name are ""; complete is false). NULL if there is none (check uow->error).
 */
const struct channel *channel_cache_lookup(struct uow *uow, int64_t id, const char *name);

#endif
