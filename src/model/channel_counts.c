/* Subscriber counts per channel, kept per organization; see channel_counts.h. */
#include "model/channel_counts.h"

#include <stdio.h>
#include <stdlib.h>

#include "core/uow.h"
#include "core/xalloc.h"
#include "db/db.h"
#include "model/cache.h"
#include "model/realm.h"
#include "model/realm_users.h"
#include "model/user.h"

struct channel_counts {
	struct cache_blob blob;
	char *pg_snapshot; /* the snapshot the rows were read under */
	long made;         /* realm_kept_made() */
	int n;             /* channels with subscribers, ascending by id */
	int64_t *ids, *counts;
};

static struct db_stmt st_counts =
    DB_STMT("SELECT s.channel_id, count(*) FROM subscriptions s JOIN channels c ON c.id = s.channel_id"
            " WHERE c.realm_id = $1 AND s.active AND " USER_ACTIVE_SQL("s.user_id") " GROUP BY s.channel_id"
            " ORDER BY s.channel_id");

static void free_counts(struct cache_blob *b)
{
	struct channel_counts *k = (struct channel_counts *)b;
	free(k->pg_snapshot);
	free(k->ids);
	free(k->counts);
	free(k);
}

static void release_counts(void *arg)
{
	cache_blob_unref(arg);
}

static struct channel_counts *build(struct uow *uow, const char *snapshot)
{
	struct db_res *res = DB_EXEC(uow, &st_counts, db_arg_int(uow, uow->realm->id));
	if (res == NULL)
		return NULL;
	struct channel_counts *k = xcalloc(1, sizeof(*k));
	k->blob.refs = 1;
	k->blob.realm_id = uow->realm->id;
	k->blob.free_fn = free_counts;
	k->made = realm_kept_made();
	k->pg_snapshot = snapshot != NULL ? xstrdup(snapshot) : NULL;
	k->n = db_rows(res);
	k->ids = xmalloc((size_t)(k->n + 1) * sizeof(*k->ids));
	k->counts = xmalloc((size_t)(k->n + 1) * sizeof(*k->counts));
	for (int i = 0; i < k->n; i++) {
		k->ids[i] = db_int(res, i, 0);
		k->counts[i] = db_int(res, i, 1);
	}
	return k;
}

const struct channel_counts *channel_counts_get(struct uow *uow, const char *snapshot)
{
	struct cache *cache = uow->worker->cache;
	char key[64];
	snprintf(key, sizeof(key), "channel_counts:%lld", (long long)uow->realm->id);
	struct channel_counts *k = snapshot != NULL ? (struct channel_counts *)cache_blob_get(cache, key) : NULL;
	int current = k != NULL ? realm_kept_is_current(uow, k->pg_snapshot, k->made) : 0;
	if (current != 1) {
		cache_blob_unref(k ? &k->blob : NULL);
		if (current < 0 || (k = build(uow, snapshot)) == NULL)
			return NULL;
		if (snapshot != NULL)
			cache_blob_put(cache, key, &k->blob);
	}
	/* The caller's reference goes with the arena. */
	arena_defer(&uow->arena, release_counts, &k->blob);
	return k;
}

int64_t channel_counts_of(const struct channel_counts *k, int64_t channel_id)
{
	int lo = 0, hi = k->n - 1;
	while (lo <= hi) {
		int mid = lo + (hi - lo) / 2;
		if (k->ids[mid] == channel_id)
			return k->counts[mid];
		if (k->ids[mid] < channel_id)
			lo = mid + 1;
		else
			hi = mid - 1;
	}
	return 0;
}
