/* The narrow's channel lookups, cached; see channel_cache.h. */
#include "model/channel_cache.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "core/uow.h"
#include "model/cache.h"
#include "model/channels.h"
#include "model/realm.h"
#include "model/user.h"

/* What is kept of a lookup that found a channel. */
struct kept_channel {
	int64_t id;
	bool invite_only, is_web_public, history_public_to_subscribers, is_subscribed, content_access, metadata_access;
};

const struct channel *channel_cache_lookup(struct uow *uow, int64_t id, const char *name)
{
	struct cache *cache = uow->worker->cache;
	char key[128];
	/* The role is part of the key: access follows from it (a guest's differs), and a role change that this process
	 * hears of between the request's authentication and the put below must not leave the old role's answer. */
	int64_t uid = uow->user ? uow->user->id : 0;
	int role = uow->user ? uow->user->role : 0;
	int n = name ? snprintf(key, sizeof(key), "c%lld:%lld:%d:n%s", (long long)uow->realm->id, (long long)uid, role,
	                        name)
	             : snprintf(key, sizeof(key), "c%lld:%lld:%d:i%lld", (long long)uow->realm->id, (long long)uid,
	                        role, (long long)id);
	bool keyed = n > 0 && (size_t)n < sizeof(key); /* cache_value_*() ignore keys too long for them */
	struct kept_channel k;
	struct channel *c;
	if (keyed && cache_value_get(cache, key, &k, sizeof(k))) {
		c = arena_alloc(&uow->arena, sizeof(*c));
		memset(c, 0, sizeof(*c));
		*c = (struct channel){.id = k.id,
		                      .realm_id = uow->realm->id,
		                      .invite_only = k.invite_only,
		                      .is_web_public = k.is_web_public,
		                      .history_public_to_subscribers = k.history_public_to_subscribers,
		                      .is_subscribed = k.is_subscribed,
		                      .content_access = k.content_access,
		                      .metadata_access = k.metadata_access};
		return c;
	}
	uint64_t ticket = cache_ticket(cache);
	c = name ? channel_by_name(uow, name) : channel_by_id(uow, id);
	/* Channels that do not exist are not kept (any name a client makes up would take a slot), nor failures. */
	if (c == NULL)
		return NULL;
	memset(&k, 0, sizeof(k)); /* padding too: the copy is compared by nobody, but kept whole */
	k = (struct kept_channel){c->id,
	                          c->invite_only,
	                          c->is_web_public,
	                          c->history_public_to_subscribers,
	                          c->is_subscribed,
	                          c->content_access,
	                          c->metadata_access};
	if (keyed)
		cache_value_put(cache, ticket, uow->realm->id, key, &k, sizeof(k));
	return c;
}
