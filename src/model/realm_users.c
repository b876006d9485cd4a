/* POST /register's lists of users, kept as JSON text per organization; see realm_users.h. */
#include "model/realm_users.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/buf.h"
#include "core/jsonx.h"
#include "core/uow.h"
#include "core/xalloc.h"
#include "db/db.h"
#include "model/cache.h"
#include "model/realm.h"
#include "model/user.h"

/* A kept list older than this is read again, so realm_changes rows older than twice that can go. */
#define MAX_AGE_SECS 300
#define JSON_FLAGS   (JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE)

/* Both lists as one kind of viewer sees them. */
struct users_text {
	struct realm_kept kept; /* first: the blob is the text */
	struct buf active, inactive;
	int n; /* the active users' objects, ascending by id: where each one is in active */
	int64_t *ids;
	size_t *start, *end;
};

/* What the lists kept per role are built for. */
struct users_build {
	struct user viewer;
	bool client_gravatar;
};

static struct db_stmt st_users =
    DB_STMT("SELECT " USER_COLUMNS " FROM users u WHERE u.realm_id = $1 AND NOT u.is_system_bot ORDER BY u.id");
/*
 * Whether the rows read under snapshot $2 are what the calling transaction sees: no change to the organization (or an
 * unknown one) committed that $2 does not see, and $2 sees nothing the caller does not (a list kept by a register
 * whose snapshot is newer than the caller's would show changes whose events the caller's queue receives too).
 */
static struct db_stmt st_current =
    DB_STMT("SELECT pg_snapshot_xmax($2::pg_snapshot) <= pg_snapshot_xmax(pg_current_snapshot())"
            "  AND NOT EXISTS (SELECT 1 FROM pg_snapshot_xip(pg_current_snapshot()) x"
            "    WHERE pg_visible_in_snapshot(x, $2::pg_snapshot))"
            "  AND NOT EXISTS (SELECT 1 FROM realm_changes WHERE realm_id IN ($1, 0)"
            "    AND xid >= pg_snapshot_xmin($2::pg_snapshot) AND NOT pg_visible_in_snapshot(xid, $2::pg_snapshot))");
/*
 * Records the oldest running transaction, then deletes the changes older than the horizon recorded at least
 * 2 x MAX_AGE_SECS ago, and the horizons before that one (migrations/0032_realm_changes_horizon.sql). One statement:
 * its parts share one snapshot, so the horizon recorded now is not among those it reads.
 */
static struct db_stmt st_prune =
    DB_STMT("WITH h AS (INSERT INTO realm_changes_horizons DEFAULT VALUES),"
            " old AS (SELECT taken_at, horizon FROM realm_changes_horizons"
            "   WHERE taken_at < now() - interval '600 seconds' ORDER BY taken_at DESC LIMIT 1),"
            " c AS (DELETE FROM realm_changes WHERE xid < (SELECT horizon FROM old))"
            " DELETE FROM realm_changes_horizons WHERE taken_at < (SELECT taken_at FROM old)");

static time_t now_secs(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec;
}

static void free_text(struct cache_blob *b)
{
	struct users_text *t = (struct users_text *)b;
	realm_kept_release(&t->kept);
	buf_release(&t->active);
	buf_release(&t->inactive);
	free(t->ids);
	free(t->start);
	free(t->end);
	free(t);
}

/* Guests may be limited to some users (can_access_all_users_group), as in GET /users; spectators see everyone. */
static bool can_access_user(struct uow *uow, const struct user *target)
{
	const struct user *me = uow->user;
	return me == NULL || uow->realm->everyone_can_access_all_users || !user_is_guest(me) || target->is_bot ||
	       target->id == me->id;
}

static struct users_text *new_text(struct uow *uow, int rows, const char *snapshot)
{
	struct users_text *t = xcalloc(1, sizeof(*t));
	realm_kept_init(uow, &t->kept, snapshot, free_text);
	buf_init(&t->active, 0);
	buf_init(&t->inactive, 0);
	buf_adds(&t->active, "[");
	buf_adds(&t->inactive, "[");
	size_t n = rows > 0 ? (size_t)rows : 1;
	t->ids = xmalloc(n * sizeof(*t->ids));
	t->start = xmalloc(n * sizeof(*t->start));
	t->end = xmalloc(n * sizeof(*t->end));
	return t;
}

/* Appends one user's object (without is_active) to the list it belongs to. */
static void add_person(struct users_text *t, const struct user *u, json_object *person)
{
	json_object_object_del(person, "is_active");
	struct buf *b = u->is_active ? &t->active : &t->inactive;
	if (b->len > 1)
		buf_add(b, ",", 1);
	if (u->is_active) {
		t->ids[t->n] = u->id;
		t->start[t->n] = b->len;
	}
	buf_adds(b, json_object_to_json_string_ext(person, JSON_FLAGS));
	if (u->is_active)
		t->end[t->n++] = b->len;
}

/*
 * Both lists as viewer sees them (NULL: a spectator, who gets no custom profile fields), leaving out the users
 * uow->user may not see when filter is set. NULL on error.
 */
static struct users_text *build(struct uow *uow, const struct user *viewer, bool client_gravatar, bool filter,
                                const char *snapshot)
{
	struct db_res *res = DB_EXEC(uow, &st_users, db_arg_int(uow, uow->realm->id));
	if (res == NULL)
		return NULL;
	json_object *profiles = NULL, *none = uow_own_json(uow, json_object_new_object());
	if (uow->user != NULL && (profiles = user_profile_data_all(uow, uow->realm->id)) == NULL)
		return NULL;
	struct users_text *t = new_text(uow, db_rows(res), snapshot);
	for (int i = 0; i < db_rows(res); i++) {
		struct user *u = user_from_row(uow, res, i, 0);
		if (filter && !can_access_user(uow, u))
			continue;
		json_object *profile = NULL;
		if (profiles != NULL && !json_object_object_get_ex(profiles, db_val(res, i, 0), &profile))
			profile = none;
		/* avatar_url stays even with user_avatar_url_field_optional: the reference leaves it out only for
		 * long-idle users, which confab does not track. */
		json_object *person = user_to_json(uow, u, viewer, client_gravatar, profile);
		add_person(t, u, person);
		json_object_put(person);
	}
	buf_adds(&t->active, "]");
	buf_adds(&t->inactive, "]");
	return t;
}

void realm_kept_init(struct uow *uow, struct realm_kept *k, const char *snapshot, void (*free_fn)(struct cache_blob *))
{
	k->blob.refs = 1;
	k->blob.realm_id = uow->realm->id;
	k->blob.free_fn = free_fn;
	k->pg_snapshot = snapshot != NULL ? xstrdup(snapshot) : NULL;
	k->made = (long)now_secs();
}

void realm_kept_release(struct realm_kept *k)
{
	free(k->pg_snapshot);
}

/* 1 if k may stand for what the calling transaction reads, 0 if not, -1 on error. */
static int is_current(struct uow *uow, const struct realm_kept *k)
{
	if ((long)now_secs() - k->made > MAX_AGE_SECS)
		return 0;
	struct db_res *res = DB_EXEC(uow, &st_current, db_arg_int(uow, uow->realm->id), k->pg_snapshot);
	return res == NULL ? -1 : db_bool(res, 0, 0);
}

struct realm_kept *realm_kept_get(struct uow *uow, const char *key, const char *snapshot,
                                  struct realm_kept *(*make)(struct uow *uow, const char *snapshot, void *arg),
                                  void *arg)
{
	struct cache *cache = uow->worker->cache;
	struct realm_kept *k = snapshot != NULL ? (struct realm_kept *)cache_blob_get(cache, key) : NULL;
	int current = k != NULL ? is_current(uow, k) : 0;
	if (current == 1)
		return k;
	cache_blob_unref(k ? &k->blob : NULL);
	if (current < 0 || (k = make(uow, snapshot, arg)) == NULL)
		return NULL;
	if (snapshot != NULL)
		cache_blob_put(cache, key, &k->blob);
	return k;
}

/* The position of user id among t's active users, or -1. */
static int find_user(const struct users_text *t, int64_t id)
{
	int lo = 0, hi = t->n - 1;
	while (lo <= hi) {
		int mid = lo + (hi - lo) / 2;
		if (t->ids[mid] == id)
			return mid;
		if (t->ids[mid] < id)
			lo = mid + 1;
		else
			hi = mid - 1;
	}
	return -1;
}

/*
 * The requesting user's own object, as it sees itself (its real address), from its row in the calling
 * transaction and the custom profile fields of its object in t (entry i). An arena string, or NULL on error.
 */
static const char *own_object(struct uow *uow, const struct users_text *t, int i, bool client_gravatar)
{
	struct user *me = user_by_id(uow, uow->realm->id, uow->user->id);
	json_object *generic = NULL;
	if (me == NULL || jsonx_parse(t->active.data + t->start[i], t->end[i] - t->start[i], &generic) < 0) {
		uow_error(uow, ERR_INTERNAL, NULL);
		return NULL;
	}
	json_object *person =
	    user_to_json(uow, me, me, client_gravatar, json_object_object_get(generic, "profile_data"));
	json_object_object_del(person, "is_active");
	const char *text = arena_strdup(&uow->arena, json_object_to_json_string_ext(person, JSON_FLAGS));
	json_object_put(person);
	json_object_put(generic);
	return text;
}

static void release_text(void *arg)
{
	cache_blob_unref(arg);
}

/* Adds both lists of t to out, the active user i (if i >= 0) replaced by own. */
static void add_lists(json_object *out, struct users_text *t, int i, const char *own)
{
	const char *pieces[3] = {t->active.data, own, i >= 0 ? t->active.data + t->end[i] : NULL};
	size_t lens[3] = {t->active.len, 0, 0};
	if (i >= 0) {
		lens[0] = t->start[i];
		lens[1] = strlen(own);
		lens[2] = t->active.len - t->end[i];
	}
	__atomic_add_fetch(&t->kept.blob.refs, 2, __ATOMIC_ACQ_REL); /* one for each value */
	json_object_object_add(out, "realm_users", jsonx_raw(pieces, lens, i >= 0 ? 3 : 1, release_text, t));
	json_object_object_add(
	    out, "realm_non_active_users",
	    jsonx_raw((const char *[]){t->inactive.data}, (size_t[]){t->inactive.len}, 1, release_text, t));
}

/* The role that decides which addresses a viewer sees (user_can_see_email()), its own aside. */
static int viewer_role(const struct user *me)
{
	if (user_is_admin(me))
		return ROLE_ADMIN;
	if (user_is_moderator(me))
		return ROLE_MODERATOR;
	return user_is_guest(me) ? ROLE_GUEST : ROLE_MEMBER;
}

/* Builds the lists everyone of a role sees (realm_kept_get()'s make; arg: the viewer). */
static struct realm_kept *build_for_role(struct uow *uow, const char *snapshot, void *arg)
{
	const struct users_build *b = arg;
	struct users_text *t = build(uow, &b->viewer, b->client_gravatar, false, snapshot);
	return t != NULL ? &t->kept : NULL;
}

int realm_users_state(struct uow *uow, bool client_gravatar, const char *snapshot, json_object *out)
{
	const struct user *me = uow->user;
	/* Spectators, and guests limited to some users, get lists of their own. */
	if (me == NULL || snapshot == NULL || (user_is_guest(me) && !uow->realm->everyone_can_access_all_users)) {
		struct users_text *t = build(uow, me, client_gravatar, true, NULL);
		if (t == NULL)
			return -1;
		add_lists(out, t, -1, NULL);
		cache_blob_unref(&t->kept.blob);
		return 0;
	}
	int role = viewer_role(me);
	char key[64];
	snprintf(key, sizeof(key), "realm_users:%lld:%d:%d", (long long)uow->realm->id, role, client_gravatar);
	/* No user has id 0: everyone's object as others of that role see it. */
	struct users_build b = {{.id = 0, .role = role}, client_gravatar};
	struct users_text *t = (struct users_text *)realm_kept_get(uow, key, snapshot, build_for_role, &b);
	if (t == NULL)
		return -1;
	int i = find_user(t, me->id);
	const char *own = i >= 0 ? own_object(uow, t, i, client_gravatar) : NULL;
	if (i < 0 || own != NULL)
		add_lists(out, t, i, own);
	cache_blob_unref(&t->kept.blob);
	return i >= 0 && own == NULL ? -1 : 0;
}

int realm_users_prune(struct uow *uow)
{
	return DB_EXEC(uow, &st_prune) == NULL ? -1 : 0;
}
