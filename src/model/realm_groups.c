/* POST /register's realm_user_groups, kept as JSON text per organization; see realm_groups.h. */
#include "model/realm_groups.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/jsonx.h"
#include "core/uow.h"
#include "core/xalloc.h"
#include "model/cache.h"
#include "model/groups.h"
#include "model/realm.h"
#include "model/realm_users.h"

#define JSON_FLAGS (JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE)

struct groups_text {
	struct cache_blob blob;
	char *pg_snapshot; /* the snapshot the rows were read under */
	long made;         /* realm_kept_made() */
	char *text;
	size_t len;
};

static void free_text(struct cache_blob *b)
{
	struct groups_text *t = (struct groups_text *)b;
	free(t->pg_snapshot);
	free(t->text);
	free(t);
}

static void release_text(void *arg)
{
	cache_blob_unref(arg);
}

/* The list read in the calling transaction, as text; NULL on error. */
static struct groups_text *build(struct uow *uow, bool include_deactivated, const char *snapshot)
{
	json_object *groups = group_list_json(uow, include_deactivated);
	if (groups == NULL)
		return NULL;
	struct groups_text *t = xcalloc(1, sizeof(*t));
	t->blob.refs = 1;
	t->blob.realm_id = uow->realm->id;
	t->blob.free_fn = free_text;
	t->made = realm_kept_made();
	t->pg_snapshot = snapshot != NULL ? xstrdup(snapshot) : NULL;
	size_t len = 0;
	t->text = xstrdup(json_object_to_json_string_length(groups, JSON_FLAGS, &len));
	t->len = len;
	json_object_put(groups);
	return t;
}

/* The kept list of key if current, else one read in the calling transaction (kept when snapshot is known). */
static struct groups_text *kept_or_built(struct uow *uow, const char *key, bool include_deactivated,
                                         const char *snapshot)
{
	struct cache *cache = uow->worker->cache;
	struct groups_text *t = snapshot != NULL ? (struct groups_text *)cache_blob_get(cache, key) : NULL;
	int current = t != NULL ? realm_kept_is_current(uow, t->pg_snapshot, t->made) : 0;
	if (current == 1)
		return t;
	cache_blob_unref(t ? &t->blob : NULL);
	if (current < 0 || (t = build(uow, include_deactivated, snapshot)) == NULL)
		return NULL;
	if (snapshot != NULL)
		cache_blob_put(cache, key, &t->blob);
	return t;
}

int realm_groups_state(struct uow *uow, bool include_deactivated, const char *snapshot, json_object *out)
{
	char key[64];
	snprintf(key, sizeof(key), "realm_groups:%lld:%d", (long long)uow->realm->id, include_deactivated);
	struct groups_text *t = kept_or_built(uow, key, include_deactivated, snapshot);
	if (t == NULL)
		return -1;
	/* The value holds the caller's reference. */
	json_object_object_add(out, "realm_user_groups",
	                       jsonx_raw((const char *[]){t->text}, (size_t[]){t->len}, 1, release_text, t));
	return 0;
}
