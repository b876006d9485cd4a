/* The authentication and organization cache; see cache.h. */
#include "model/cache.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/hash.h"
#include "core/log.h"
#include "core/uow.h"
#include "core/xalloc.h"
#include "db/listen.h"
#include "model/realm.h"
#include "model/user.h"

#define NBUCKETS 1024
/* Then the oldest is dropped. An organization keeps up to 11 (8 kinds of user lists, 2 group lists, the channel
 * counts): room for about a dozen active organizations per process. */
#define MAX_BLOBS 128
/* Bounds on memory, not eviction policies: past one, the entries of that kind are dropped and filled again. */
#define MAX_ENTRIES 20000 /* API keys and subdomains */
#define MAX_VALUES  20000 /* small values (cache_value_put()) */
#define KEY_MAX     64

/* One API key hash (user and realm), one subdomain (realm only) or one small value (cache_value_put()). */
struct entry {
	struct entry *next;
	bool has_user;
	char key[KEY_MAX + 2]; /* 'k' + hash, 's' + subdomain, or 'v' + the value's key, 'p' + user id */
	struct user user;
	struct realm realm; /* a value's: only the id */
	void *value;
	size_t value_size;
};

struct blob_slot {
	char key[KEY_MAX + 1];
	struct cache_blob *blob;
};

struct cache {
	pthread_mutex_t lock;
	struct blob_slot blobs[MAX_BLOBS]; /* in the order kept, oldest first */
	int nblobs;
	pthread_cond_t heard_cond;
	bool up;         /* the listener listens: copies may be used and kept */
	uint64_t ticket; /* moves on at every invalidation; a put with an older ticket is dropped */
	uint64_t heard;  /* notifications handled */
	int count[2];    /* entries: [0] API keys and subdomains, [1] small values */
	struct entry *buckets[NBUCKETS];
};

/* The string members of a user and of a realm, to copy them one by one. */
#define USER_STRINGS(u)                                                                                                \
	{                                                                                                              \
		&(u)->delivery_email, &(u)->full_name, &(u)->timezone, &(u)->date_joined, &(u)->email_md5              \
	}
#define REALM_STRINGS(r)                                                                                               \
	{                                                                                                              \
		&(r)->subdomain, &(r)->name, &(r)->description, &(r)->subdomain_md5, &(r)->topics_policy               \
	}

static void free_entry(struct entry *e)
{
	const char **us[] = USER_STRINGS(&e->user), **rs[] = REALM_STRINGS(&e->realm);
	for (size_t i = 0; e->has_user && i < sizeof(us) / sizeof(us[0]); i++)
		free((char *)*us[i]);
	for (size_t i = 0; i < sizeof(rs) / sizeof(rs[0]); i++)
		free((char *)*rs[i]);
	free(e->value);
	free(e);
}

/* Replaces each string member by a copy: malloc'ed (a == NULL) or in the arena a. */
static void copy_strings(const char **fields[], size_t n, struct arena *a)
{
	for (size_t i = 0; i < n; i++) {
		const char *s = *fields[i] != NULL ? *fields[i] : "";
		*fields[i] = a != NULL ? arena_strdup(a, s) : xstrdup(s);
	}
}

static void copy_user(struct user *dst, const struct user *src, struct arena *a)
{
	*dst = *src;
	const char **s[] = USER_STRINGS(dst);
	copy_strings(s, sizeof(s) / sizeof(s[0]), a);
}

static void copy_realm(struct realm *dst, const struct realm *src, struct arena *a)
{
	*dst = *src;
	const char **s[] = REALM_STRINGS(dst);
	copy_strings(s, sizeof(s) / sizeof(s[0]), a);
}

static unsigned bucket_of(const char *key)
{
	return hash_fnv1a32(HASH_FNV32_INIT, key, strlen(key)) % NBUCKETS;
}

/* Frees the entries of realm_id (all of them for 0). Lock held. */
/* Drops the entries of realm_id (0: all) of one kind (0: API keys and subdomains, 1: small values; -1: both). */
static void clear(struct cache *c, int64_t realm_id, int kind)
{
	for (int b = 0; b < NBUCKETS; b++) {
		struct entry **p = &c->buckets[b];
		while (*p != NULL) {
			struct entry *e = *p;
			bool is_value = e->value != NULL;
			if ((realm_id == 0 || e->realm.id == realm_id) && (kind < 0 || kind == is_value)) {
				*p = e->next;
				free_entry(e);
				c->count[is_value]--;
			} else {
				p = &e->next;
			}
		}
	}
}

static void drop_blobs(struct cache *c, int64_t realm_id)
{
	int kept = 0;
	for (int i = 0; i < c->nblobs; i++) {
		if (realm_id == 0 || c->blobs[i].blob->realm_id == realm_id)
			cache_blob_unref(c->blobs[i].blob);
		else
			c->blobs[kept++] = c->blobs[i];
	}
	c->nblobs = kept;
}

/* An invalidation: drops the entries of realm_id (0: all) and moves the ticket on, so fills in flight are dropped. */
static void drop(struct cache *c, int64_t realm_id)
{
	clear(c, realm_id, -1);
	drop_blobs(c, realm_id);
	c->ticket++;
}

static void on_up(void *arg)
{
	struct cache *c = arg;
	pthread_mutex_lock(&c->lock);
	drop(c, 0); /* whatever changed while nobody listened */
	c->up = true;
	pthread_mutex_unlock(&c->lock);
}

static void on_down(void *arg)
{
	struct cache *c = arg;
	pthread_mutex_lock(&c->lock);
	c->up = false;
	drop(c, 0);
	pthread_cond_broadcast(&c->heard_cond);
	pthread_mutex_unlock(&c->lock);
}

static void on_notify(void *arg, const char *payload)
{
	struct cache *c = arg;
	char *end;
	long long id = strtoll(payload, &end, 10);
	pthread_mutex_lock(&c->lock);
	drop(c, *end == '\0' && id > 0 ? id : 0);
	c->heard++;
	pthread_cond_broadcast(&c->heard_cond);
	pthread_mutex_unlock(&c->lock);
}

struct cache *cache_new(void)
{
	struct cache *c = xcalloc(1, sizeof(*c));
	pthread_mutex_init(&c->lock, NULL);
	pthread_condattr_t attr;
	pthread_condattr_init(&attr);
	pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
	pthread_cond_init(&c->heard_cond, &attr);
	pthread_condattr_destroy(&attr);
	c->ticket = 1;
	return c;
}

int cache_listen(struct cache *c, const char *conninfo)
{
	struct db_listener_ops ops = {.on_up = on_up, .on_down = on_down, .on_notify = on_notify, .arg = c};
	if (db_listener_start(conninfo, "confab_cache", &ops) < 0) {
		log_msg(LOG_WARNING, "could not start the cache listener: the cache stays off");
		return -1;
	}
	return 0;
}

uint64_t cache_ticket(struct cache *c)
{
	if (c == NULL)
		return 0;
	pthread_mutex_lock(&c->lock);
	uint64_t t = c->up ? c->ticket : 0;
	pthread_mutex_unlock(&c->lock);
	return t;
}

/* The entry of key, or NULL. Lock held. */
static struct entry *find(struct cache *c, const char *key)
{
	for (struct entry *e = c->buckets[bucket_of(key)]; e != NULL; e = e->next)
		if (strcmp(e->key, key) == 0)
			return e;
	return NULL;
}

/* Looks key up and copies what it holds into uow's arena; false on a miss or while the cache is off. */
static bool get(struct cache *c, struct uow *uow, const char *key, struct user **user, struct realm **realm)
{
	if (c == NULL)
		return false;
	pthread_mutex_lock(&c->lock);
	struct entry *e = c->up ? find(c, key) : NULL;
	if (e != NULL) {
		*realm = arena_alloc(&uow->arena, sizeof(**realm));
		copy_realm(*realm, &e->realm, &uow->arena);
		if (user != NULL) {
			*user = arena_alloc(&uow->arena, sizeof(**user));
			copy_user(*user, &e->user, &uow->arena);
		}
	}
	pthread_mutex_unlock(&c->lock);
	return e != NULL;
}

static void insert(struct cache *c, uint64_t ticket, struct entry *e);

/* Keeps a copy under key unless the ticket is stale or the key is kept already. */
static void put(struct cache *c, uint64_t ticket, const char *key, const struct user *user, const struct realm *realm)
{
	if (c == NULL || ticket == 0 || strlen(key) > KEY_MAX + 1)
		return;
	struct entry *e = xcalloc(1, sizeof(*e));
	strcpy(e->key, key);
	e->has_user = user != NULL;
	if (user != NULL)
		copy_user(&e->user, user, NULL);
	copy_realm(&e->realm, realm, NULL);
	insert(c, ticket, e);
}

/* Keeps e unless the ticket is stale or its key is kept already (then frees it). */
static void insert(struct cache *c, uint64_t ticket, struct entry *e)
{
	const char *key = e->key;
	pthread_mutex_lock(&c->lock);
	if (!c->up || ticket != c->ticket || find(c, key) != NULL) {
		pthread_mutex_unlock(&c->lock);
		free_entry(e);
		return;
	}
	bool is_value = e->value != NULL;
	if (c->count[is_value] >= (is_value ? MAX_VALUES : MAX_ENTRIES))
		clear(c, 0, is_value); /* a bound on memory, not an invalidation: the ticket stays */
	unsigned b = bucket_of(key);
	e->next = c->buckets[b];
	c->buckets[b] = e;
	c->count[is_value]++;
	pthread_mutex_unlock(&c->lock);
}

bool cache_auth_get(struct cache *c, struct uow *uow, const char *key_hash, struct user **user, struct realm **realm)
{
	char key[KEY_MAX + 2];
	if (strlen(key_hash) > KEY_MAX)
		return false;
	key[0] = 'k';
	strcpy(key + 1, key_hash);
	return get(c, uow, key, user, realm);
}

void cache_auth_put(struct cache *c, uint64_t ticket, const char *key_hash, const struct user *user,
                    const struct realm *realm)
{
	char key[KEY_MAX + 2];
	if (strlen(key_hash) > KEY_MAX)
		return;
	key[0] = 'k';
	strcpy(key + 1, key_hash);
	put(c, ticket, key, user, realm);
}

struct realm *cache_realm_get(struct cache *c, struct uow *uow, const char *subdomain)
{
	char key[KEY_MAX + 2];
	struct realm *r = NULL;
	if (strlen(subdomain) > KEY_MAX)
		return NULL;
	key[0] = 's';
	strcpy(key + 1, subdomain);
	return get(c, uow, key, NULL, &r) ? r : NULL;
}

void cache_realm_put(struct cache *c, uint64_t ticket, const char *subdomain, const struct realm *realm)
{
	char key[KEY_MAX + 2];
	if (strlen(subdomain) > KEY_MAX)
		return;
	key[0] = 's';
	strcpy(key + 1, subdomain);
	put(c, ticket, key, NULL, realm);
}

bool cache_value_get(struct cache *c, const char *key, void *out, size_t size)
{
	char k[KEY_MAX + 2];
	if (c == NULL || strlen(key) > KEY_MAX)
		return false;
	k[0] = 'v';
	strcpy(k + 1, key);
	pthread_mutex_lock(&c->lock);
	struct entry *e = c->up ? find(c, k) : NULL;
	bool hit = e != NULL && e->value_size == size;
	if (hit)
		memcpy(out, e->value, size);
	pthread_mutex_unlock(&c->lock);
	return hit;
}

void cache_value_put(struct cache *c, uint64_t ticket, int64_t realm_id, const char *key, const void *value,
                     size_t size)
{
	if (c == NULL || ticket == 0 || strlen(key) > KEY_MAX)
		return;
	struct entry *e = xcalloc(1, sizeof(*e));
	e->key[0] = 'v';
	strcpy(e->key + 1, key);
	e->realm.id = realm_id;
	e->value = xmalloc(size);
	memcpy(e->value, value, size);
	e->value_size = size;
	insert(c, ticket, e);
}

const char *cache_profile_get(struct cache *c, struct uow *uow, int64_t user_id)
{
	char key[KEY_MAX + 2];
	if (c == NULL)
		return NULL;
	snprintf(key, sizeof(key), "p%lld", (long long)user_id);
	pthread_mutex_lock(&c->lock);
	struct entry *e = c->up ? find(c, key) : NULL;
	const char *text = e != NULL ? arena_strdup(&uow->arena, e->value) : NULL;
	pthread_mutex_unlock(&c->lock);
	return text;
}

void cache_profile_put(struct cache *c, uint64_t ticket, int64_t realm_id, int64_t user_id, const char *text)
{
	if (c == NULL || ticket == 0)
		return;
	struct entry *e = xcalloc(1, sizeof(*e));
	snprintf(e->key, sizeof(e->key), "p%lld", (long long)user_id);
	e->realm.id = realm_id;
	e->value = xstrdup(text); /* counted with the small values */
	e->value_size = strlen(text) + 1;
	insert(c, ticket, e);
}

uint64_t cache_heard(struct cache *c)
{
	if (c == NULL)
		return 0;
	pthread_mutex_lock(&c->lock);
	uint64_t n = c->heard;
	pthread_mutex_unlock(&c->lock);
	return n;
}

void cache_await(struct cache *c, uint64_t since)
{
	if (c == NULL)
		return;
	struct timespec deadline;
	clock_gettime(CLOCK_MONOTONIC, &deadline);
	deadline.tv_sec += 1;
	pthread_mutex_lock(&c->lock);
	int rc = 0;
	while (c->up && c->heard <= since && rc != ETIMEDOUT)
		rc = pthread_cond_timedwait(&c->heard_cond, &c->lock, &deadline);
	pthread_mutex_unlock(&c->lock);
}

void cache_blob_unref(struct cache_blob *b)
{
	if (b != NULL && __atomic_sub_fetch(&b->refs, 1, __ATOMIC_ACQ_REL) == 0)
		b->free_fn(b);
}

struct cache_blob *cache_blob_get(struct cache *c, const char *key)
{
	if (c == NULL)
		return NULL;
	struct cache_blob *b = NULL;
	pthread_mutex_lock(&c->lock);
	for (int i = 0; c->up && i < c->nblobs && b == NULL; i++)
		if (strcmp(c->blobs[i].key, key) == 0) {
			b = c->blobs[i].blob;
			__atomic_add_fetch(&b->refs, 1, __ATOMIC_ACQ_REL);
		}
	pthread_mutex_unlock(&c->lock);
	return b;
}

void cache_blob_put(struct cache *c, const char *key, struct cache_blob *b)
{
	if (c == NULL || strlen(key) > KEY_MAX)
		return;
	struct cache_blob *old = NULL;
	pthread_mutex_lock(&c->lock);
	if (!c->up) {
		pthread_mutex_unlock(&c->lock);
		return;
	}
	int i = 0;
	while (i < c->nblobs && strcmp(c->blobs[i].key, key) != 0)
		i++;
	if (i == c->nblobs && c->nblobs == MAX_BLOBS)
		i = 0;       /* the oldest makes room */
	if (i < c->nblobs) { /* out of the list, which stays in the order kept */
		old = c->blobs[i].blob;
		memmove(&c->blobs[i], &c->blobs[i + 1], (size_t)(c->nblobs - i - 1) * sizeof(c->blobs[0]));
		c->nblobs--;
	}
	strcpy(c->blobs[c->nblobs].key, key);
	__atomic_add_fetch(&b->refs, 1, __ATOMIC_ACQ_REL);
	c->blobs[c->nblobs++].blob = b;
	pthread_mutex_unlock(&c->lock);
	cache_blob_unref(old);
}
