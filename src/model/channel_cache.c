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

/* What is kept of a lookup (found false: no such channel). */
struct kept_channel {
	bool found;
	int64_t id;
	bool invite_only, is_web_public, history_public_to_subscribers, is_subscribed, content_access, metadata_access;
};

const struct channel *channel_cache_lookup(struct uow *uow, int64_t id, const char *name)
{
	struct cache *cache = uow->worker->cache;
	char key[128];
	int64_t uid = uow->user ? uow->user->id : 0;
	int n = name ? snprintf(key, sizeof(key), "c%lld:%lld:n%s", (long long)uow->realm->id, (long long)uid, name)
	             : snprintf(key, sizeof(key), "c%lld:%lld:i%lld", (long long)uow->realm->id, (long long)uid,
	                        (long long)id);
	bool keyed = n > 0 && (size_t)n < sizeof(key); /* cache_value_*() ignore keys too long for them */
	struct kept_channel k;
	struct channel *c;
	if (keyed && cache_value_get(cache, key, &k, sizeof(k))) {
		if (!k.found)
			return NULL;
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
	if (c == NULL && uow->error != ERR_NONE)
		return NULL;
	memset(&k, 0, sizeof(k)); /* padding too: the copy is compared by nobody, but kept whole */
	if (c != NULL)
		k = (struct kept_channel){true,
		                          c->id,
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
