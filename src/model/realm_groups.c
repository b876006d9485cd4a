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
	struct realm_kept kept; /* first: the blob is the text */
	char *text;
	size_t len;
};

static void free_text(struct cache_blob *b)
{
	struct groups_text *t = (struct groups_text *)b;
	realm_kept_release(&t->kept);
	free(t->text);
	free(t);
}

static void release_text(void *arg)
{
	cache_blob_unref(arg);
}

/* The list read in the calling transaction, as text (realm_kept_get()'s make; arg: include_deactivated); NULL on
 * error. */
static struct realm_kept *build(struct uow *uow, const char *snapshot, void *arg)
{
	json_object *groups = group_list_json(uow, *(const bool *)arg);
	if (groups == NULL)
		return NULL;
	struct groups_text *t = xcalloc(1, sizeof(*t));
	realm_kept_init(uow, &t->kept, snapshot, free_text);
	size_t len = 0;
	t->text = xstrdup(json_object_to_json_string_length(groups, JSON_FLAGS, &len));
	t->len = len;
	json_object_put(groups);
	return &t->kept;
}

int realm_groups_state(struct uow *uow, bool include_deactivated, const char *snapshot, json_object *out)
{
	char key[64];
	snprintf(key, sizeof(key), "realm_groups:%lld:%d", (long long)uow->realm->id, include_deactivated);
	struct groups_text *t = (struct groups_text *)realm_kept_get(uow, key, snapshot, build, &include_deactivated);
	if (t == NULL)
		return -1;
	/* The value holds the caller's reference. */
	json_object_object_add(out, "realm_user_groups",
	                       jsonx_raw((const char *[]){t->text}, (size_t[]){t->len}, 1, release_text, t));
	return 0;
}
