/* Administration of accounts: role, name, e-mail, deactivation and reactivation; see user_admin.h. */
#include "model/user_admin.h"

#include <json-c/json.h>
#include <string.h>

#include "core/uow.h"
#include "db/db.h"
#include "events/events.h"
#include "model/channels.h"
#include "model/groups.h"
#include "model/realm.h"
#include "model/user.h"

bool user_can_admin(const struct user *acting, const struct user *target)
{
	return (target->is_bot && target->bot_owner_id == acting->id) || user_is_admin(acting);
}

static struct db_stmt st_human_owners =
    DB_STMT("SELECT count(*) FROM users WHERE realm_id = $1 AND role = 100 AND is_active AND NOT is_bot");
static struct db_stmt st_active_count =
    DB_STMT("SELECT count(*) FROM users WHERE realm_id = $1 AND is_active AND NOT is_system_bot");

int user_is_last_owner(struct uow *uow, const struct user *target)
{
	if (!user_is_owner(target) || target->is_bot)
		return 0;
	struct db_res *res = DB_EXEC(uow, &st_human_owners, db_arg_int(uow, target->realm_id));
	return res == NULL ? -1 : db_int(res, 0, 0) == 1;
}

int64_t user_active_count(struct uow *uow, int64_t realm_id)
{
	struct db_res *res = DB_EXEC(uow, &st_active_count, db_arg_int(uow, realm_id));
	return res == NULL ? -1 : db_int(res, 0, 0);
}

static struct db_stmt st_audience =
    DB_STMT("SELECT id FROM users WHERE realm_id = $1 AND is_active AND ($2 OR role <> 600 OR id = $3) ORDER BY id");

int64_t *user_access_audience(struct uow *uow, const struct user *target, int *n)
{
	const char *all = uow->realm->everyone_can_access_all_users ? "true" : "false";
	return db_ids(
	    uow, DB_EXEC(uow, &st_audience, db_arg_int(uow, target->realm_id), all, db_arg_int(uow, target->id)), 0, n);
}

/* realm_user update {user_id, key: value} (value taken) to users. */
static int person_update(struct uow *uow, int64_t user_id, const char *key, json_object *value, const int64_t *users,
                         int n)
{
	json_object *event = uow_own_json(uow, json_object_new_object()), *person = json_object_new_object();
	json_object_object_add(event, "type", json_object_new_string("realm_user"));
	json_object_object_add(event, "op", json_object_new_string("update"));
	json_object_object_add(person, "user_id", json_object_new_int64(user_id));
	json_object_object_add(person, key, value);
	json_object_object_add(event, "person", person);
	return events_add(uow, event, users, n, 0);
}

/* realm_user update to the users who may see target. */
static int person_update_all(struct uow *uow, const struct user *target, const char *key, json_object *value)
{
	int n;
	int64_t *users = user_access_audience(uow, target, &n);
	if (users == NULL) {
		json_object_put(value);
		return -1;
	}
	return person_update(uow, target->id, key, value, users, n);
}

/* ---- role ---------------------------------------------------------------------------------------------------- */

static struct db_stmt st_set_role = DB_STMT("UPDATE users SET role = $2 WHERE id = $1");
/* The system groups the user is a direct member of: the role's group first, then role:fullmembers. */
static struct db_stmt st_system_groups =
    DB_STMT("SELECT g.id, g.name = 'role:fullmembers' FROM user_group_members m JOIN user_groups g ON g.id = m.group_id"
            " WHERE m.user_id = $1 AND g.is_system_group ORDER BY g.name = 'role:fullmembers', g.id");

static bool has_row_id(struct db_res *res, int64_t id)
{
	for (int i = 0; i < db_rows(res); i++)
		if (db_int(res, i, 0) == id)
			return true;
	return false;
}

/* op for the rows of from (of which only fullmembers or only the others) missing from to. */
static int group_diff_events(struct uow *uow, int64_t user_id, struct db_res *from, struct db_res *to, const char *op,
                             bool fullmembers)
{
	json_object *ids = uow_own_json(uow, json_object_new_array());
	json_object_array_add(ids, json_object_new_int64(user_id));
	for (int i = 0; i < db_rows(from); i++)
		if (db_bool(from, i, 1) == fullmembers && !has_row_id(to, db_int(from, i, 0)) &&
		    group_events_members(uow, db_int(from, i, 0), op, ids, NULL) < 0)
			return -1;
	return 0;
}

/* The reference's send_stream_events_for_role_update: channels gained (create, peer_add) and lost (delete). */
static int role_channel_events(struct uow *uow, int64_t user_id, const int64_t *before, int nbefore)
{
	int nafter;
	int64_t *after = channel_visible_ids(uow, user_id, &nafter);
	if (after == NULL)
		return -1;
	int i = 0, j = 0;
	while (i < nbefore || j < nafter) {
		if (j == nafter || (i < nbefore && before[i] < after[j])) {
			if (channel_events_lost(uow, before[i++], &user_id, 1) < 0)
				return -1;
		} else if (i == nbefore || after[j] < before[i]) {
			if (channel_events_gained(uow, after[j++], &user_id, 1) < 0)
				return -1;
		} else {
			i++, j++;
		}
	}
	return 0;
}

int user_change_role(struct uow *uow, const struct user *target, int role)
{
	int nbefore;
	int64_t *before_channels = channel_visible_ids(uow, target->id, &nbefore);
	struct db_res *before = before_channels ? DB_EXEC(uow, &st_system_groups, db_arg_int(uow, target->id)) : NULL;
	if (before == NULL || DB_EXEC(uow, &st_set_role, db_arg_int(uow, target->id), db_arg_int(uow, role)) == NULL)
		return -1;
	struct db_res *after = DB_EXEC(uow, &st_system_groups, db_arg_int(uow, target->id));
	if (after == NULL || person_update_all(uow, target, "role", json_object_new_int(role)) < 0)
		return -1;
	if (group_diff_events(uow, target->id, before, after, "remove_members", false) < 0 ||
	    group_diff_events(uow, target->id, after, before, "add_members", false) < 0 ||
	    group_diff_events(uow, target->id, before, after, "remove_members", true) < 0 ||
	    group_diff_events(uow, target->id, after, before, "add_members", true) < 0)
		return -1;
	return role_channel_events(uow, target->id, before_channels, nbefore);
}

/* ---- name and e-mail ----------------------------------------------------------------------------------------- */

static struct db_stmt st_set_name = DB_STMT("UPDATE users SET full_name = $2 WHERE id = $1");
static struct db_stmt st_set_email = DB_STMT("UPDATE users SET delivery_email = $2 WHERE id = $1");
static struct db_stmt st_active_users_roles =
    DB_STMT("SELECT id, role FROM users WHERE realm_id = $1 AND is_active ORDER BY id");

int user_change_full_name(struct uow *uow, const struct user *target, const char *name)
{
	if (DB_EXEC(uow, &st_set_name, db_arg_int(uow, target->id), name) == NULL)
		return -1;
	return person_update_all(uow, target, "full_name", json_object_new_string(name));
}

static struct db_stmt st_md5 = DB_STMT("SELECT md5(lower($1))");

/* realm_user update with the avatar fields of a Gravatar user whose address is now email. */
static int avatar_event(struct uow *uow, const struct user *target, const char *email)
{
	int n;
	struct db_res *res = DB_EXEC(uow, &st_md5, email);
	int64_t *users = res ? user_access_audience(uow, target, &n) : NULL;
	if (users == NULL)
		return -1;
	const char *url = "https://secure.gravatar.com/avatar/";
	json_object *event = uow_own_json(uow, json_object_new_object()), *person = json_object_new_object();
	json_object_object_add(event, "type", json_object_new_string("realm_user"));
	json_object_object_add(event, "op", json_object_new_string("update"));
	json_object_object_add(person, "user_id", json_object_new_int64(target->id));
	json_object_object_add(person, "avatar_source", json_object_new_string("G"));
	json_object_object_add(person, "avatar_url",
	                       json_object_new_string(arena_printf(&uow->arena, "%s%s?d=identicon&version=%d", url,
	                                                           db_val(res, 0, 0), target->avatar_version)));
	json_object_object_add(person, "avatar_url_medium",
	                       json_object_new_string(arena_printf(&uow->arena, "%s%s?d=identicon&s=500&version=%d",
	                                                           url, db_val(res, 0, 0), target->avatar_version)));
	json_object_object_add(person, "avatar_version", json_object_new_int(target->avatar_version));
	json_object_object_add(event, "person", person);
	return events_add(uow, event, users, n, 0);
}

int user_change_email(struct uow *uow, const struct user *target, const char *email)
{
	if (DB_EXEC(uow, &st_set_email, db_arg_int(uow, target->id), email) == NULL)
		return -1;
	struct db_res *res = DB_EXEC(uow, &st_active_users_roles, db_arg_int(uow, target->realm_id));
	if (res == NULL)
		return -1;
	int n = 0;
	int64_t *see = arena_alloc(&uow->arena, (size_t)(db_rows(res) + 1) * sizeof(*see));
	for (int i = 0; i < db_rows(res); i++) {
		struct user viewer = {.id = db_int(res, i, 0), .role = (int)db_int(res, i, 1)};
		if (user_can_see_email(&viewer, target))
			see[n++] = viewer.id;
	}
	if (person_update(uow, target->id, "delivery_email", json_object_new_string(email), see, n) < 0)
		return -1;
	/* A Gravatar follows the address (the reference's notify_avatar_url_change). */
	if (target->avatar_source == 'G' && avatar_event(uow, target, email) < 0)
		return -1;
	if (target->email_address_visibility == 1 || target->is_bot)
		return person_update_all(uow, target, "new_email", json_object_new_string(email));
	return 0;
}

/* ---- deactivation -------------------------------------------------------------------------------------------- */

static struct db_stmt st_set_active = DB_STMT("UPDATE users SET is_active = $2 WHERE id = $1");
static struct db_stmt st_active_bots =
    DB_STMT("SELECT id FROM users WHERE bot_owner_id = $1 AND is_bot AND is_active ORDER BY id");
static struct db_stmt st_subscribed =
    DB_STMT("SELECT channel_id FROM subscriptions WHERE user_id = $1 AND active ORDER BY channel_id");
/* The named groups (system groups included) the user is a direct member of. */
static struct db_stmt st_named_groups =
    DB_STMT("SELECT g.id FROM user_group_members m JOIN user_groups g ON g.id = m.group_id"
            " WHERE m.user_id = $1 AND g.name IS NOT NULL ORDER BY g.id");
static struct db_stmt st_guests =
    DB_STMT("SELECT id FROM users WHERE realm_id = $1 AND is_active AND role = 600 AND id <> $2 ORDER BY id");

/* peer_add or peer_remove for the channels the user is subscribed to. */
static int peer_events_of(struct uow *uow, int64_t user_id, const char *op)
{
	int n;
	int64_t *ids = db_ids(uow, DB_EXEC(uow, &st_subscribed, db_arg_int(uow, user_id)), 0, &n);
	if (ids == NULL)
		return -1;
	struct channel_sub *subs = arena_alloc(&uow->arena, (size_t)(n + 1) * sizeof(*subs));
	for (int i = 0; i < n; i++) {
		subs[i].user_id = user_id;
		if ((subs[i].channel = channel_by_id(uow, ids[i])) == NULL)
			return uow_error(uow, ERR_INTERNAL, NULL);
	}
	return n ? channel_events_peers(uow, op, subs, n) : 0;
}

/* user_group remove_members of the user for each named group it is a direct member of, to users. */
static int leave_groups_events(struct uow *uow, int64_t user_id, const int64_t *users, int nusers)
{
	int n;
	int64_t *groups = db_ids(uow, DB_EXEC(uow, &st_named_groups, db_arg_int(uow, user_id)), 0, &n);
	if (groups == NULL)
		return -1;
	for (int i = 0; i < n && nusers > 0; i++) {
		json_object *event = uow_own_json(uow, json_object_new_object()), *ids = json_object_new_array();
		json_object_object_add(event, "type", json_object_new_string("user_group"));
		json_object_object_add(event, "op", json_object_new_string("remove_members"));
		json_object_object_add(event, "group_id", json_object_new_int64(groups[i]));
		json_object_array_add(ids, json_object_new_int64(user_id));
		json_object_object_add(event, "user_ids", ids);
		events_add(uow, event, users, nusers, 0);
	}
	return 0;
}

/* The reference's send_events_for_user_deactivation, then the deletion of the account's queues. */
static int deactivation_events(struct uow *uow, const struct user *target)
{
	if (peer_events_of(uow, target->id, "peer_remove") < 0 ||
	    person_update_all(uow, target, "is_active", json_object_new_boolean(false)) < 0)
		return -1;
	if (!uow->realm->everyone_can_access_all_users) {
		/* Guests who may not see the account learn only that it left its groups. */
		int n;
		int64_t *guests = db_ids(
		    uow, DB_EXEC(uow, &st_guests, db_arg_int(uow, target->realm_id), db_arg_int(uow, target->id)), 0,
		    &n);
		if (guests == NULL || leave_groups_events(uow, target->id, guests, n) < 0)
			return -1;
	}
	json_object *del = uow_own_json(uow, json_object_new_object());
	json_object_object_add(del, "type", json_object_new_string("_delete_queues"));
	return events_add(uow, del, &target->id, 1, EV_DELETE_QUEUES);
}

static int set_inactive(struct uow *uow, const struct user *target)
{
	if (DB_EXEC(uow, &st_set_active, db_arg_int(uow, target->id), "false") == NULL)
		return -1;
	return deactivation_events(uow, target);
}

int user_deactivate(struct uow *uow, const struct user *target)
{
	if (!target->is_active)
		return 0;
	/* Bots first, as the reference does. */
	int n;
	int64_t *bots = db_ids(uow, DB_EXEC(uow, &st_active_bots, db_arg_int(uow, target->id)), 0, &n);
	if (bots == NULL)
		return -1;
	for (int i = 0; i < n; i++) {
		struct user *bot = user_by_id(uow, target->realm_id, bots[i]);
		if (bot == NULL || set_inactive(uow, bot) < 0)
			return uow_error(uow, ERR_INTERNAL, NULL);
	}
	return set_inactive(uow, target);
}

int user_reactivate(struct uow *uow, const struct user *target)
{
	if (DB_EXEC(uow, &st_set_active, db_arg_int(uow, target->id), "true") == NULL)
		return -1;
	if (person_update_all(uow, target, "is_active", json_object_new_boolean(true)) < 0 ||
	    peer_events_of(uow, target->id, "peer_add") < 0)
		return -1;
	int n;
	int64_t *groups = db_ids(uow, DB_EXEC(uow, &st_named_groups, db_arg_int(uow, target->id)), 0, &n);
	if (groups == NULL)
		return -1;
	json_object *ids = uow_own_json(uow, json_object_new_array());
	json_object_array_add(ids, json_object_new_int64(target->id));
	for (int i = 0; i < n; i++)
		if (group_events_members(uow, groups[i], "add_members", ids, NULL) < 0)
			return -1;
	return 0;
}
