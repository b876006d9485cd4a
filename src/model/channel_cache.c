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

/* The members of struct channel kept as they are. */
/* clang-format off */
#define KEPT_FLAGS(X) \
	X(invite_only) X(is_web_public) X(history_public_to_subscribers) X(is_archived) X(is_recently_active) \
	X(is_subscribed) X(content_access) X(metadata_access)
/* clang-format on */
#define KEPT_DECLARE(f) bool f;
#define KEPT_FROM(f)    c->f = k->f;
#define KEPT_TO(f)      k->f = c->f;

/* What is kept of a lookup that found a channel (strings as fixed arrays: the cache copies values whole). */
struct kept_channel {
	int64_t id;
	int64_t kept_at; /* CLOCK_MONOTONIC seconds */
	int64_t settings[CS_COUNT];
	bool in_setting[CS_COUNT];
	KEPT_FLAGS(KEPT_DECLARE)
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
	struct channel *c = arena_alloc(&uow->arena, sizeof(*c)); /* zeroed */
	c->id = k->id;
	c->realm_id = uow->realm->id;
	c->name = arena_strdup(&uow->arena, k->name);
	c->description = c->rendered_description = c->send_group_system_name = "";
	c->topics_policy = arena_strdup(&uow->arena, k->topics_policy);
	memcpy(c->settings, k->settings, sizeof(c->settings));
	memcpy(c->in_setting, k->in_setting, sizeof(c->in_setting));
	KEPT_FLAGS(KEPT_FROM)
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
	KEPT_FLAGS(KEPT_TO)
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
