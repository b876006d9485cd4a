/* The channel lookups of narrows and sends, cached; see channel_cache.h. */
#include "model/channel_cache.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "core/uow.h"
#include "model/cache.h"
#include "model/channels.h"
#include "model/realm.h"
#include "model/user.h"

/* What is kept of a lookup that found a channel (strings as fixed arrays: the cache copies values whole). */
struct kept_channel {
	int64_t id;
	int64_t kept_at; /* CLOCK_MONOTONIC seconds */
	int64_t settings[CS_COUNT];
	bool in_setting[CS_COUNT];
	bool invite_only, is_web_public, history_public_to_subscribers, is_archived, is_recently_active, is_subscribed,
	    content_access, metadata_access;
	char name[4 * CHANNEL_MAX_NAME_LENGTH + 1];
	char topics_policy[32];
};

static int64_t now_mono(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec;
}

static struct channel *from_kept(struct uow *uow, const struct kept_channel *k)
{
	struct channel *c = arena_alloc(&uow->arena, sizeof(*c));
	memset(c, 0, sizeof(*c));
	c->id = k->id;
	c->realm_id = uow->realm->id;
	c->name = arena_strdup(&uow->arena, k->name);
	c->description = c->rendered_description = c->send_group_system_name = "";
	c->topics_policy = arena_strdup(&uow->arena, k->topics_policy);
	memcpy(c->settings, k->settings, sizeof(c->settings));
	memcpy(c->in_setting, k->in_setting, sizeof(c->in_setting));
	c->invite_only = k->invite_only;
	c->is_web_public = k->is_web_public;
	c->history_public_to_subscribers = k->history_public_to_subscribers;
	c->is_archived = k->is_archived;
	c->is_recently_active = k->is_recently_active;
	c->is_subscribed = k->is_subscribed;
	c->content_access = k->content_access;
	c->metadata_access = k->metadata_access;
	return c;
}

/* c as kept; false when a string does not fit (such a channel is read every time). */
static bool to_kept(const struct channel *c, struct kept_channel *k)
{
	memset(k, 0, sizeof(*k)); /* padding too: the copy is kept whole */
	if (strlen(c->name) >= sizeof(k->name) || strlen(c->topics_policy) >= sizeof(k->topics_policy))
		return false;
	k->id = c->id;
	k->kept_at = now_mono();
	memcpy(k->settings, c->settings, sizeof(k->settings));
	memcpy(k->in_setting, c->in_setting, sizeof(k->in_setting));
	k->invite_only = c->invite_only;
	k->is_web_public = c->is_web_public;
	k->history_public_to_subscribers = c->history_public_to_subscribers;
	k->is_archived = c->is_archived;
	k->is_recently_active = c->is_recently_active;
	k->is_subscribed = c->is_subscribed;
	k->content_access = c->content_access;
	k->metadata_access = c->metadata_access;
	strcpy(k->name, c->name);
	strcpy(k->topics_policy, c->topics_policy);
	return true;
}

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
	if (keyed && cache_value_get(cache, key, &k, sizeof(k)) && now_mono() - k.kept_at < CHANNEL_CACHE_SECS)
		return from_kept(uow, &k);
	uint64_t ticket = cache_ticket(cache);
	struct channel *c = name ? channel_by_name(uow, name) : channel_by_id(uow, id);
	/* Channels that do not exist are not kept (any name a client makes up would take a slot), nor failures. */
	if (c != NULL && keyed && to_kept(c, &k))
		cache_value_put(cache, ticket, uow->realm->id, key, &k, sizeof(k));
	return c;
}
