/*
 * Presence: the ping (update), the presence events and the realm-wide and per-user answers; see presence.h for why
 * the data lives in PostgreSQL and how pings avoid writing.
 * Reference: Zulip zerver/actions/presence.py (do_update_user_presence, send_presence_changed),
 * zerver/lib/presence.py (get_presence_dict_by_realm, format_legacy_presence_dict), zerver/views/presence.py,
 * zerver/actions/user_settings.py (the presence_enabled setting).
 */
#include "model/presence.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

#include "core/uow.h"
#include "db/db.h"
#include "events/events.h"
#include "model/realm.h"
#include "model/user.h"

/* The stored presence of one user (times in UNIX seconds). */
struct presence_row {
	bool enabled; /* the user's presence_enabled setting */
	bool exists;
	bool has_active; /* last_active_time is set */
	int64_t active, connected;
	int64_t joined; /* date_joined: what the API shows for a missing time */
};

#define EPOCH(expr) "floor(extract(epoch FROM " expr "))::bigint"

/* clang-format off */
/* The stored presence of the user $N (struct presence_row, 6 columns). */
#define READ_ROW(N)                                                                                                    \
	"SELECT u.presence_enabled, p.user_id IS NOT NULL, p.last_active_time IS NOT NULL, "                          \
	EPOCH("p.last_active_time") ", " EPOCH("p.last_connected_time") ", " EPOCH("u.date_joined")                   \
	" FROM users u LEFT JOIN user_presences p ON p.user_id = u.id WHERE u.id = " N
/* clang-format on */
static struct db_stmt st_read = DB_STMT(READ_ROW("$1"));

/* The next value of the organization's counter; its row lock orders the writes of one organization. */
#define NEXT_UPDATE_ID                                                                                                 \
	"WITH seq AS (INSERT INTO presence_sequences AS s (realm_id, last_update_id) VALUES ($2, 1)"                   \
	" ON CONFLICT (realm_id) DO UPDATE SET last_update_id = s.last_update_id + 1 RETURNING last_update_id) "
/* A concurrent ping that created the row first wins (no row returned): the reference's ON CONFLICT DO NOTHING. */
static struct db_stmt st_create = DB_STMT(
    NEXT_UPDATE_ID "INSERT INTO user_presences (user_id, realm_id, last_active_time, last_connected_time,"
                   " last_update_id) SELECT $1, $2, to_timestamp($3::bigint), to_timestamp($4::bigint), last_update_id"
                   " FROM seq ON CONFLICT (user_id) DO NOTHING RETURNING last_update_id");
static struct db_stmt st_update =
    DB_STMT(NEXT_UPDATE_ID "UPDATE user_presences SET last_active_time = to_timestamp($3::bigint),"
                           " last_connected_time = to_timestamp($4::bigint),"
                           " last_update_id = (SELECT last_update_id FROM seq) WHERE user_id = $1");
static struct db_stmt st_delete = DB_STMT("DELETE FROM user_presences WHERE user_id = $1");
/* Who may see the user: everyone active, but guests of an organization limiting them only themselves. */
static struct db_stmt st_audience =
    DB_STMT("SELECT id FROM users WHERE realm_id = $1 AND is_active AND NOT is_system_bot"
            " AND ($2::boolean OR role <> 600 OR id = $3) ORDER BY id");

/* The row of READ_ROW in the first 6 columns of res's first row. */
static int row_of(struct uow *uow, const struct db_res *res, struct presence_row *r)
{
	if (db_rows(res) == 0)
		return uow_error(uow, ERR_INTERNAL, NULL);
	*r = (struct presence_row){.enabled = db_bool(res, 0, 0),
	                           .exists = db_bool(res, 0, 1),
	                           .has_active = db_bool(res, 0, 2),
	                           .active = db_int(res, 0, 3),
	                           .connected = db_int(res, 0, 4),
	                           .joined = db_int(res, 0, 5)};
	return 0;
}

static int read_row(struct uow *uow, int64_t user_id, struct presence_row *r)
{
	struct db_res *res = DB_EXEC(uow, &st_read, db_arg_int(uow, user_id));
	return res == NULL ? -1 : row_of(uow, res, r);
}

static const char *api_email(struct uow *uow, const struct user *u)
{
	if (u->email_address_visibility == 1 || u->is_bot)
		return u->delivery_email;
	return arena_printf(&uow->arena, "user%lld@%s", (long long)u->id, realm_fake_email_domain(uow, uow->realm));
}

/* The reference's format_legacy_presence_dict: active while the last activity is recent enough. */
static json_object *legacy_info(int64_t active, int64_t connected, bool full)
{
	bool is_active = active + PRESENCE_LEGACY_ACTIVE_SECS >= connected;
	json_object *o = json_object_new_object();
	if (full)
		json_object_object_add(o, "client", json_object_new_string("website"));
	json_object_object_add(o, "status", json_object_new_string(is_active ? "active" : "idle"));
	json_object_object_add(o, "timestamp", json_object_new_int64(is_active ? active : connected));
	if (full)
		json_object_object_add(o, "pushable", json_object_new_boolean(false));
	return o;
}

static json_object *modern_info(int64_t active, int64_t connected)
{
	json_object *o = json_object_new_object();
	json_object_object_add(o, "active_timestamp", json_object_new_int64(active));
	json_object_object_add(o, "idle_timestamp", json_object_new_int64(connected));
	return o;
}

static double now_double(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/*
 * The reference's send_presence_changed: one event in its legacy form, with the modern form under a private key;
 * events.c serves one of them by the client's capabilities. Beyond PRESENCE_EVENT_USER_LIMIT recipients only a
 * forced update (a settings change) is sent.
 */
static int send_changed(struct uow *uow, const struct user *u, const struct presence_row *r, bool force)
{
	bool everyone = uow->realm->everyone_can_access_all_users || u->is_bot;
	struct db_res *res = DB_EXEC(uow, &st_audience, db_arg_int(uow, u->realm_id), everyone ? "true" : "false",
	                             db_arg_int(uow, u->id));
	int n;
	int64_t *ids = db_ids(uow, res, 0, &n);
	if (ids == NULL)
		return -1;
	if (n > PRESENCE_EVENT_USER_LIMIT && !force)
		return 0;
	int64_t active = r->has_active ? r->active : r->joined, connected = r->connected;
	json_object *e = events_new(uow, "presence", NULL);
	json_object_object_add(e, "user_id", json_object_new_int64(u->id));
	json_object_object_add(e, "email", json_object_new_string(api_email(uow, u)));
	json_object_object_add(e, "server_timestamp", json_object_new_double(now_double()));
	json_object *legacy = json_object_new_object();
	json_object_object_add(legacy, "website", legacy_info(active, connected, true));
	json_object_object_add(e, "presence", legacy);
	json_object *modern = json_object_new_object();
	json_object_object_add(modern, arena_printf(&uow->arena, "%lld", (long long)u->id),
	                       modern_info(active, connected));
	json_object_object_add(e, "_presences", modern);
	return events_add_some(uow, e, ids, n);
}

/* Writes the new times (row created, or updated) under the next update id; 1 if written, 0 if a concurrent ping
 * created the row first, -1 on failure. */
static int write_row(struct uow *uow, const struct user *u, const struct presence_row *r, bool creating)
{
	const char *active = r->has_active ? db_arg_int(uow, r->active) : NULL;
	struct db_res *res = DB_EXEC(uow, creating ? &st_create : &st_update, db_arg_int(uow, u->id),
	                             db_arg_int(uow, u->realm_id), active, db_arg_int(uow, r->connected));
	if (res == NULL)
		return -1;
	return creating ? db_rows(res) > 0 : 1;
}

/* The reference's do_update_user_presence, from the stored row old: log_time t, active or idle. */
static int update(struct uow *uow, const struct user *u, const struct presence_row *old, bool active, int64_t t,
                  bool force, bool *wrote)
{
	struct presence_row r = *old;
	bool creating = !old->exists, changed = false;
	int64_t since_active = old->exists && old->has_active ? t - old->active : 86400;
	int64_t since_connected = old->exists ? t - old->connected : 86400;
	/* Newly online: missed a couple of pings and about to look offline. */
	bool became_online =
	    active && since_active > PRESENCE_OFFLINE_THRESHOLD_SECS - PRESENCE_PING_INTERVAL_SECS - 10;
	if (creating) {
		r.connected = t;
		r.has_active = active;
		r.active = t;
	} else {
		if (since_connected > PRESENCE_UPDATE_MIN_FREQ_SECS)
			r.connected = t, changed = true;
		if (active && since_active > PRESENCE_UPDATE_MIN_FREQ_SECS) {
			r.has_active = true, r.active = t, changed = true;
			if (t > r.connected)
				r.connected = t;
		}
	}
	/* A ping that moves no time writes nothing. */
	if (!creating && !changed)
		return force ? send_changed(uow, u, &r, true) : 0;
	int written = write_row(uow, u, &r, creating);
	/* Written, or created meanwhile by a concurrent ping: the answer is read again either way. */
	*wrote = written >= 0;
	if (written <= 0)
		return written;
	if (force || (!uow->realm->presence_disabled && (creating || became_online)))
		return send_changed(uow, u, &r, force);
	return 0;
}

int presence_setting_changed(struct uow *uow, const struct user *u, bool enabled)
{
	struct presence_row r;
	int64_t now = (int64_t)time(NULL);
	bool wrote = false;
	if (read_row(uow, u->id, &r) < 0)
		return -1;
	if (enabled)
		return update(uow, u, &r, true, now, true, &wrote);
	/* Invisible: the user looks last online a while before the change, past the offline threshold. */
	if (DB_EXEC(uow, &st_delete, db_arg_int(uow, u->id)) == NULL)
		return -1;
	r.exists = false;
	return update(uow, u, &r, false, now - (PRESENCE_OFFLINE_THRESHOLD_SECS + 120), true, &wrote);
}

/* ---- answers ------------------------------------------------------------------------------------------------ */

/* clang-format off */
#define ACTIVE_SECS    EPOCH("COALESCE(p.last_active_time, u.date_joined)")
#define CONNECTED_SECS EPOCH("p.last_connected_time")
/* Rows updated after $2 and connected since $3 (UNIX seconds); $4 = 0, or the only user a guest may see. */
#define REALM_ROWS                                                                                                     \
    "SELECT p.user_id, CASE WHEN u.email_address_visibility = 1 OR u.is_bot THEN u.delivery_email"                    \
    "  ELSE 'user' || u.id || '@' || $5 END, " ACTIVE_SECS ", " CONNECTED_SECS ", p.last_update_id"                  \
    " FROM user_presences p JOIN users u ON u.id = p.user_id"                                                        \
    " WHERE p.realm_id = $1 AND p.last_update_id > $2 AND p.last_connected_time >= to_timestamp($3::bigint)"         \
    " AND ($4 = 0 OR p.user_id = $4) AND u.is_active AND NOT u.is_bot"
static struct db_stmt st_realm = DB_STMT(REALM_ROWS " ORDER BY p.user_id");
/*
 * A ping's read and, when $7, the realm-wide answer in the same statement: the row of user $6 (columns 0-5) beside
 * each row of st_realm (columns 6-10; NULL when there is none).
 */
static struct db_stmt st_ping = DB_STMT(
    "SELECT me.*, r.* FROM (" READ_ROW("$6") ") me LEFT JOIN LATERAL (" REALM_ROWS " AND $7) r ON true"
    " ORDER BY r.user_id");
static struct db_stmt st_one = DB_STMT(
    "SELECT " ACTIVE_SECS ", " CONNECTED_SECS
    " FROM user_presences p JOIN users u ON u.id = p.user_id WHERE p.user_id = $1");
/* clang-format on */

/* The oldest time a realm-wide answer looks at (UNIX seconds): the history limit, none for incremental fetches. */
static int64_t history_cutoff(const struct presence_query *q, int64_t now)
{
	const int64_t none = -100000000000LL, max_days = 1000000;
	if (q->has_last_update_id && q->last_update_id > 0)
		return none;
	int64_t days = q->has_history_days ? q->history_days : PRESENCE_DEFAULT_HISTORY_DAYS;
	if (days > max_days)
		return none;
	return now - (days < -max_days ? -max_days : days) * 86400;
}

/* Whether q asks for rows at all (history_limit_days 0: the client wants no data). */
static bool wants_rows(const struct uow *uow, const struct presence_query *q)
{
	return !uow->realm->presence_disabled && !(q->has_history_days && q->history_days == 0);
}

/* The 5 parameters of REALM_ROWS for q and the acting user. */
static void realm_args(struct uow *uow, const struct presence_query *q, const char *args[5])
{
	const struct user *me = uow->user;
	bool limited = !uow->realm->everyone_can_access_all_users && user_is_guest(me);
	args[0] = db_arg_int(uow, uow->realm->id);
	args[1] = db_arg_int(uow, q->has_last_update_id ? q->last_update_id : -1);
	args[2] = db_arg_int(uow, history_cutoff(q, (int64_t)time(NULL)));
	args[3] = db_arg_int(uow, limited ? me->id : 0);
	args[4] = realm_fake_email_domain(uow, uow->realm);
}

/*
 * Adds to out the presences of res's rows in REALM_ROWS's columns from col (rows NULL there skipped); returns the
 * answer's presence_last_update_id.
 */
static int64_t add_rows(const struct db_res *res, int col, const struct presence_query *q, json_object *out)
{
	int64_t max = -1;
	for (int i = 0; res != NULL && i < db_rows(res); i++) {
		if (db_null(res, i, col))
			continue;
		int64_t active = db_int(res, i, col + 2), connected = db_int(res, i, col + 3),
		        id = db_int(res, i, col + 4);
		max = id > max ? id : max;
		if (q->slim) {
			json_object_object_add(out, db_val(res, i, col), modern_info(active, connected));
			continue;
		}
		json_object *o = json_object_new_object();
		json_object_object_add(o, "aggregated", legacy_info(active, connected, false));
		json_object_object_add(json_object_object_get(o, "aggregated"), "client",
		                       json_object_new_string("website"));
		json_object_object_add(o, "website", legacy_info(active, connected, true));
		json_object_object_add(out, db_val(res, i, col + 1), o);
	}
	return max >= 0 ? max : q->has_last_update_id ? q->last_update_id : -1;
}

json_object *presence_realm(struct uow *uow, const struct presence_query *q, int64_t *last_update_id)
{
	json_object *out = uow_own_json(uow, json_object_new_object());
	*last_update_id = -1;
	if (uow->realm->presence_disabled)
		return out;
	struct db_res *res = NULL;
	const char *args[5];
	realm_args(uow, q, args);
	if (wants_rows(uow, q) && (res = db_exec(uow, &st_realm, args, 5)) == NULL)
		return NULL;
	*last_update_id = add_rows(res, 0, q, out);
	return out;
}

int presence_ping(struct uow *uow, const struct user *u, bool active, int64_t now, const struct presence_query *q,
                  json_object **answer, int64_t *last_update_id)
{
	const char *args[7];
	if (q != NULL)
		realm_args(uow, q, args);
	else
		args[0] = args[1] = args[2] = args[3] = "0", args[4] = "";
	args[5] = db_arg_int(uow, u->id);
	args[6] = q != NULL && wants_rows(uow, q) ? "true" : "false";
	struct db_res *res = db_exec(uow, &st_ping, args, 7);
	struct presence_row r;
	bool wrote = false;
	if (res == NULL || row_of(uow, res, &r) < 0 ||
	    (r.enabled && update(uow, u, &r, active, now, false, &wrote) < 0))
		return -1;
	if (q == NULL)
		return 0;
	/* A write moved the user's own update id: the answer is read again, after it. */
	if (wrote)
		return (*answer = presence_realm(uow, q, last_update_id)) != NULL ? 0 : -1;
	*answer = uow_own_json(uow, json_object_new_object());
	*last_update_id = uow->realm->presence_disabled ? -1 : add_rows(res, 6, q, *answer);
	return 0;
}

json_object *presence_of_user(struct uow *uow, const struct user *target, bool slim, int64_t now)
{
	struct db_res *res = DB_EXEC(uow, &st_one, db_arg_int(uow, target->id));
	if (res == NULL || db_rows(res) == 0)
		return NULL;
	int64_t active = db_int(res, 0, 0), connected = db_int(res, 0, 1);
	if (slim)
		return uow_own_json(uow, modern_info(active, connected));
	json_object *o = uow_own_json(uow, json_object_new_object());
	json_object *aggregated = legacy_info(active, connected, false);
	if (now - json_object_get_int64(json_object_object_get(aggregated, "timestamp")) >
	    PRESENCE_OFFLINE_THRESHOLD_SECS)
		json_object_object_add(aggregated, "status", json_object_new_string("offline"));
	json_object_object_add(o, "website", legacy_info(active, connected, false));
	json_object_object_add(o, "aggregated", aggregated);
	return o;
}
