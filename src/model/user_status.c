/* User statuses; see user_status.h. Reference: zerver/lib/user_status.py, zerver/actions/user_status.py. */
#include "model/user_status.h"

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "core/uow.h"
#include "core/utf8.h"
#include "db/db.h"
#include "events/events.h"
#include "model/emoji.h"
#include "model/realm.h"
#include "model/presence.h"
#include "model/user.h"

/* Python's str.strip(): s without the Unicode white space at either end, in the arena. */
static const char *strip(struct uow *uow, const char *s)
{
	size_t len = strlen(s), start = 0, end = 0, i = 0;
	bool leading = true;
	while (i < len) {
		uint32_t cp;
		size_t n = utf8_decode((const unsigned char *)s + i, len - i, &cp);
		bool space = n > 0 && utf8_is_space(cp);
		i += n ? n : 1;
		if (leading && space)
			start = i;
		else
			leading = false;
		if (!space)
			end = i;
	}
	return arena_strndup(&uow->arena, s + start, end > start ? end - start : 0);
}

bool user_status_text_too_long(struct uow *uow, const char *status_text)
{
	if (status_text == NULL || utf8_length(strip(uow, status_text)) <= USER_STATUS_TEXT_MAX)
		return false;
	uow_error(uow, ERR_BAD_REQUEST, "status_text is too long (limit: %d characters)", USER_STATUS_TEXT_MAX);
	return true;
}

int user_status_check(struct uow *uow, struct user_status_change *c)
{
	if (c->status_text != NULL)
		c->status_text = strip(uow, c->status_text);
	if (c->away < 0 && c->status_text == NULL && c->emoji_name == NULL)
		return uow_error(uow, ERR_BAD_REQUEST, "Client did not pass any new values.");
	if (c->emoji_name == NULL) {
		/* An empty code or type counts as not sent, as in the reference. */
		if ((c->emoji_code && *c->emoji_code) || (c->reaction_type && *c->reaction_type))
			return uow_error(uow, ERR_BAD_REQUEST,
			                 "Client must pass emoji_name if they pass either "
			                 "emoji_code or reaction_type.");
		return 0;
	}
	if (*c->emoji_name == '\0') { /* clears the emoji */
		c->emoji_code = "";
		c->reaction_type = "unicode_emoji";
		return 0;
	}
	if (c->emoji_code == NULL || c->reaction_type == NULL) {
		const char *code, *type;
		if (emoji_data_for_name(uow, c->emoji_name, &code, &type) < 0)
			return -1;
		c->emoji_code = c->emoji_code ? c->emoji_code : code;
		c->reaction_type = c->reaction_type ? c->reaction_type : type;
	}
	return emoji_check(uow, c->emoji_name, c->emoji_code, c->reaction_type);
}

/* ---- storing ------------------------------------------------------------------------------------------------ */

/* clang-format off */
static struct db_stmt st_upsert = DB_STMT(
    "INSERT INTO user_statuses AS s (user_id, status_text, emoji_name, emoji_code, reaction_type)"
    " VALUES ($1, COALESCE($2::text, ''), COALESCE($3::text, ''), COALESCE($4::text, ''),"
    "         COALESCE($5::text, 'unicode_emoji'))"
    " ON CONFLICT (user_id) DO UPDATE SET status_text = COALESCE($2::text, s.status_text),"
    "   emoji_name = COALESCE($3::text, s.emoji_name),"
    "   emoji_code = CASE WHEN $3::text IS NULL THEN s.emoji_code ELSE $4::text END,"
    "   reaction_type = CASE WHEN $3::text IS NULL THEN s.reaction_type ELSE $5::text END,"
    "   updated_at = now()");
/* clang-format on */
static struct db_stmt st_presence = DB_STMT("UPDATE users SET presence_enabled = NOT $2::boolean WHERE id = $1");
static struct db_stmt st_active_users =
    DB_STMT("SELECT id, role FROM users WHERE realm_id = $1 AND is_active AND NOT is_system_bot ORDER BY id");

/* The deprecated away flag: the user's presence_enabled setting, changed as the user's own setting change. */
static int apply_away(struct uow *uow, const struct user *target, bool away)
{
	if (DB_EXEC(uow, &st_presence, db_arg_int(uow, target->id), away ? "true" : "false") == NULL)
		return -1;
	json_object *event = uow_own_json(uow, json_object_new_object());
	json_object_object_add(event, "type", json_object_new_string("user_settings"));
	json_object_object_add(event, "op", json_object_new_string("update"));
	json_object_object_add(event, "property", json_object_new_string("presence_enabled"));
	json_object_object_add(event, "value", json_object_new_boolean(!away));
	if (events_add(uow, event, &target->id, 1, 0) < 0)
		return -1;
	/* As the setting's own change does (model/user_settings.c). */
	return presence_setting_changed(uow, target, !away);
}

/* The reference's get_user_ids_who_can_access_user, with confab's rule for guests (as GET /users applies it). */
static int64_t *audience(struct uow *uow, const struct user *target, int *n)
{
	struct db_res *res = DB_EXEC(uow, &st_active_users, db_arg_int(uow, target->realm_id));
	if (res == NULL)
		return NULL;
	int64_t *ids = arena_alloc(&uow->arena, (size_t)(db_rows(res) + 1) * sizeof(*ids));
	bool everyone = uow->realm->everyone_can_access_all_users || target->is_bot;
	*n = 0;
	for (int i = 0; i < db_rows(res); i++) {
		int64_t id = db_int(res, i, 0);
		if (everyone || db_int(res, i, 1) != ROLE_GUEST || id == target->id)
			ids[(*n)++] = id;
	}
	return ids;
}

int user_status_apply(struct uow *uow, const struct user *target, const struct user_status_change *c)
{
	if (c->away >= 0 && apply_away(uow, target, c->away) < 0)
		return -1;
	if (DB_EXEC(uow, &st_upsert, db_arg_int(uow, target->id), c->status_text, c->emoji_name,
	            c->emoji_name ? c->emoji_code : NULL, c->emoji_name ? c->reaction_type : NULL) == NULL)
		return -1;
	json_object *event = uow_own_json(uow, json_object_new_object());
	json_object_object_add(event, "type", json_object_new_string("user_status"));
	json_object_object_add(event, "user_id", json_object_new_int64(target->id));
	if (c->away >= 0)
		json_object_object_add(event, "away", json_object_new_boolean(c->away));
	if (c->status_text != NULL)
		json_object_object_add(event, "status_text", json_object_new_string(c->status_text));
	if (c->emoji_name != NULL) {
		json_object_object_add(event, "emoji_name", json_object_new_string(c->emoji_name));
		json_object_object_add(event, "emoji_code", json_object_new_string(c->emoji_code));
		json_object_object_add(event, "reaction_type", json_object_new_string(c->reaction_type));
	}
	int n;
	int64_t *ids = audience(uow, target, &n);
	return ids == NULL ? -1 : events_add(uow, event, ids, n, 0);
}

/* ---- reading ------------------------------------------------------------------------------------------------ */

#define STATUS_COLUMNS "s.user_id, u.presence_enabled, s.status_text, s.emoji_name, s.emoji_code, s.reaction_type"

static struct db_stmt st_one =
    DB_STMT("SELECT " STATUS_COLUMNS " FROM user_statuses s JOIN users u ON u.id = s.user_id WHERE s.user_id = $1");
/* clang-format off */
static struct db_stmt st_realm = DB_STMT(
    "SELECT " STATUS_COLUMNS ", u.is_bot FROM user_statuses s JOIN users u ON u.id = s.user_id"
    " WHERE u.realm_id = $1 AND u.is_active"
    " AND NOT (u.presence_enabled AND s.status_text = '' AND s.emoji_name = '' AND s.emoji_code = ''"
    "          AND s.reaction_type = 'unicode_emoji')"
    " ORDER BY s.user_id");
/* clang-format on */

/* The reference's format_user_status: only what is set (away only when true). */
static json_object *format_row(const struct db_res *res, int row)
{
	json_object *o = json_object_new_object();
	if (!db_bool(res, row, 1))
		json_object_object_add(o, "away", json_object_new_boolean(true));
	if (*db_val(res, row, 2))
		json_object_object_add(o, "status_text", json_object_new_string(db_val(res, row, 2)));
	if (*db_val(res, row, 3)) {
		json_object_object_add(o, "emoji_name", json_object_new_string(db_val(res, row, 3)));
		json_object_object_add(o, "emoji_code", json_object_new_string(db_val(res, row, 4)));
		json_object_object_add(o, "reaction_type", json_object_new_string(db_val(res, row, 5)));
	}
	return o;
}

json_object *user_status_of(struct uow *uow, int64_t user_id)
{
	struct db_res *res = DB_EXEC(uow, &st_one, db_arg_int(uow, user_id));
	if (res == NULL)
		return NULL;
	return uow_own_json(uow, db_rows(res) ? format_row(res, 0) : json_object_new_object());
}

json_object *user_status_all(struct uow *uow)
{
	json_object *out = uow_own_json(uow, json_object_new_object());
	const struct user *me = uow->user;
	if (me == NULL)
		return out;
	struct db_res *res = DB_EXEC(uow, &st_realm, db_arg_int(uow, uow->realm->id));
	if (res == NULL)
		return NULL;
	bool all = uow->realm->everyone_can_access_all_users || !user_is_guest(me);
	for (int i = 0; i < db_rows(res); i++)
		if (all || db_bool(res, i, 6) || db_int(res, i, 0) == me->id)
			json_object_object_add(out, db_val(res, i, 0), format_row(res, i));
	return out;
}
