/* Subscriber counts per channel, kept per organization; see channel_counts.h. */
#include "model/channel_counts.h"

#include <stdio.h>
#include <stdlib.h>

#include "core/uow.h"
#include "core/xalloc.h"
#include "db/db.h"
#include "model/cache.h"
#include "model/channels.h"
#include "model/realm.h"
#include "model/realm_users.h"
#include "model/user.h"

struct channel_counts {
	struct realm_kept kept; /* first: the blob is the counts */
	int n;                  /* channels with subscribers, ascending by id */
	int64_t *ids, *counts;
	int n_groups; /* unnamed groups, ascending by id, and their setting values */
	int64_t *group_ids;
	char **values;
};

static struct db_stmt st_counts =
    DB_STMT("SELECT s.channel_id, count(*) FROM subscriptions s JOIN channels c ON c.id = s.channel_id"
            " WHERE c.realm_id = $1 AND s.active AND " USER_ACTIVE_SQL("s.user_id") " GROUP BY s.channel_id"
                                                                                    " ORDER BY s.channel_id");
/* The setting value of every unnamed group of the organization, as register's channel statement would join it. */
static struct db_stmt st_values = DB_STMT("WITH " CHANNEL_UNNAMED_VALUES "SELECT id, v FROM unnamed ORDER BY id");

static void free_counts(struct cache_blob *b)
{
	struct channel_counts *k = (struct channel_counts *)b;
	realm_kept_release(&k->kept);
	free(k->ids);
	free(k->counts);
	for (int i = 0; i < k->n_groups; i++)
		free(k->values[i]);
	free(k->group_ids);
	free(k->values);
	free(k);
}

static void release_counts(void *arg)
{
	cache_blob_unref(arg);
}

/* Reads the unnamed groups' values into k. */
static void read_values(struct channel_counts *k, const struct db_res *res)
{
	k->n_groups = db_rows(res);
	k->group_ids = xmalloc((size_t)(k->n_groups + 1) * sizeof(*k->group_ids));
	k->values = xmalloc((size_t)(k->n_groups + 1) * sizeof(*k->values));
	for (int i = 0; i < k->n_groups; i++) {
		k->group_ids[i] = db_int(res, i, 0);
		k->values[i] = xstrdup(db_val(res, i, 1));
	}
}

/* The counts and values read in the calling transaction (realm_kept_get()'s make); NULL on error. */
static struct realm_kept *build(struct uow *uow, const char *snapshot, void *arg)
{
	(void)arg;
	struct db_res *res = DB_EXEC(uow, &st_counts, db_arg_int(uow, uow->realm->id));
	struct db_res *values = res != NULL ? DB_EXEC(uow, &st_values, db_arg_int(uow, uow->realm->id)) : NULL;
	if (values == NULL)
		return NULL;
	struct channel_counts *k = xcalloc(1, sizeof(*k));
	realm_kept_init(uow, &k->kept, snapshot, free_counts);
	k->n = db_rows(res);
	k->ids = xmalloc((size_t)(k->n + 1) * sizeof(*k->ids));
	k->counts = xmalloc((size_t)(k->n + 1) * sizeof(*k->counts));
	for (int i = 0; i < k->n; i++) {
		k->ids[i] = db_int(res, i, 0);
		k->counts[i] = db_int(res, i, 1);
	}
	read_values(k, values);
	return &k->kept;
}

const struct channel_counts *channel_counts_get(struct uow *uow, const char *snapshot)
{
	char key[64];
	snprintf(key, sizeof(key), "channel_counts:%lld", (long long)uow->realm->id);
	struct channel_counts *k = (struct channel_counts *)realm_kept_get(uow, key, snapshot, build, NULL);
	if (k == NULL)
		return NULL;
	/* The caller's reference goes with the arena. */
	arena_defer(&uow->arena, release_counts, &k->kept.blob);
	return k;
}

/* The position of id in the n ascending ids, or -1. */
static int find(const int64_t *ids, int n, int64_t id)
{
	int lo = 0, hi = n - 1;
	while (lo <= hi) {
		int mid = lo + (hi - lo) / 2;
		if (ids[mid] == id)
			return mid;
		if (ids[mid] < id)
			lo = mid + 1;
		else
			hi = mid - 1;
	}
	return -1;
}

int64_t channel_counts_of(const struct channel_counts *k, int64_t channel_id)
{
	int i = find(k->ids, k->n, channel_id);
	return i >= 0 ? k->counts[i] : 0;
}

const char *channel_counts_group_value(const struct channel_counts *k, int64_t group_id)
{
	int i = find(k->group_ids, k->n_groups, group_id);
	return i >= 0 ? k->values[i] : NULL;
}
