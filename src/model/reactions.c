/* Emoji reactions to messages; see reactions.h. */
#include "model/reactions.h"

#include <json-c/json.h>
#include <stdbool.h>
#include <string.h>

#include "core/uow.h"
#include "db/db.h"
#include "events/events.h"
#include "model/emoji.h"
#include "model/messages.h"
#include "model/realm.h"
#include "model/user.h"

/* Whether the user has this reaction already, and the name of the message's oldest reaction with the same emoji
 * (by anyone), if any: one look at the message's reactions by the UNIQUE index. */
static struct db_stmt st_existing =
    DB_STMT("SELECT COALESCE(bool_or(user_id = $2), false), (array_agg(emoji_name ORDER BY id))[1] FROM reactions"
            " WHERE message_id = $1 AND emoji_code = $3 AND reaction_type = $4");
/* The reference's create_historical_user_messages: a copy of a message the user never received, read. */
static struct db_stmt st_historical =
    DB_STMT("INSERT INTO user_messages (user_id, message_id, flags) SELECT $1, m.id, $3 FROM messages m"
            " WHERE m.id = $2 FOR KEY SHARE OF m ON CONFLICT DO NOTHING");
static struct db_stmt st_insert = DB_STMT("INSERT INTO reactions (message_id, user_id, emoji_name, emoji_code,"
                                          " reaction_type) VALUES ($1, $2, $3, $4, $5)");
static struct db_stmt st_delete =
    DB_STMT("DELETE FROM reactions WHERE message_id = $1 AND user_id = $2 AND emoji_code = $3 AND reaction_type = $4"
            " RETURNING emoji_name");

/* The reference's notify_reaction_update: the event, with the deprecated user object, to the message's audience. */
static int notify(struct uow *uow, const struct message_ref *m, const char *op, const char *name, const char *code,
                  const char *type)
{
	const struct user *u = uow->user;
	const char *email = u->delivery_email;
	if (u->email_address_visibility != 1 && !u->is_bot) /* the API address, as user_to_json() gives it */
		email = arena_printf(&uow->arena, "user%lld@%s", (long long)u->id,
		                     realm_fake_email_domain(uow, uow->realm));
	json_object *user = json_object_new_object();
	json_object_object_add(user, "user_id", json_object_new_int64(u->id));
	json_object_object_add(user, "email", json_object_new_string(email));
	json_object_object_add(user, "full_name", json_object_new_string(u->full_name));
	json_object *event = events_new(uow, "reaction", op);
	json_object_object_add(event, "user_id", json_object_new_int64(u->id));
	json_object_object_add(event, "user", user);
	json_object_object_add(event, "message_id", json_object_new_int64(m->id));
	json_object_object_add(event, "emoji_name", json_object_new_string(name));
	json_object_object_add(event, "emoji_code", json_object_new_string(code));
	json_object_object_add(event, "reaction_type", json_object_new_string(type));
	int n;
	int64_t *users = message_event_audience(uow, m, 0, &n);
	return users != NULL ? events_add_some(uow, event, users, n) : -1;
}

int reaction_add(struct uow *uow, int64_t message_id, const struct reaction_emoji *e)
{
	struct message_ref *m = message_access_or_error(uow, message_id, true);
	if (m == NULL)
		return -1;
	const char *name = e->name, *code = e->code, *type = e->type;
	if (code == NULL || type == NULL) { /* simple clients name the emoji only */
		const char *named_code, *named_type;
		if (emoji_data_for_name(uow, name, &named_code, &named_type) < 0)
			return -1;
		code = code ? code : named_code;
		type = type ? type : named_type;
	}
	struct db_res *res =
	    DB_EXEC(uow, &st_existing, db_arg_int(uow, m->id), db_arg_int(uow, uow->user->id), code, type);
	if (res == NULL)
		return -1;
	if (db_bool(res, 0, 0))
		return uow_error(uow, ERR_REACTION_ALREADY_EXISTS, NULL);
	/* A vote for an existing reaction keeps its name, even one that would no longer pass the checks (a custom
	 * emoji deactivated since): one emoji, one name on a message. */
	if (!db_null(res, 0, 1))
		name = db_val(res, 0, 1);
	else if (emoji_check(uow, name, code, type) < 0)
		return -1;
	if (!m->has_user_message && DB_EXEC(uow, &st_historical, db_arg_int(uow, uow->user->id), db_arg_int(uow, m->id),
	                                    db_arg_int(uow, MF_DEFAULT_HISTORICAL)) == NULL)
		return -1;
	if (DB_EXEC(uow, &st_insert, db_arg_int(uow, m->id), db_arg_int(uow, uow->user->id), name, code, type) == NULL)
		return -1;
	return notify(uow, m, "add", name, code, type);
}

int reaction_remove(struct uow *uow, int64_t message_id, const struct reaction_emoji *e)
{
	struct message_ref *m = message_access_or_error(uow, message_id, true);
	if (m == NULL)
		return -1;
	const char *code = e->code, *type = e->type ? e->type : "unicode_emoji";
	if (code == NULL) {
		const char *named_type; /* the name gives the code only; the type stays as sent or defaulted */
		if (e->name == NULL)
			return uow_error(
			    uow, ERR_BAD_REQUEST,
			    "At least one of the following arguments must be present: emoji_name, emoji_code");
		if (emoji_data_for_name(uow, e->name, &code, &named_type) < 0)
			return -1;
	}
	/* Removed unchecked: the row shows the emoji was valid when added (a custom emoji may be deactivated since). */
	struct db_res *res =
	    DB_EXEC(uow, &st_delete, db_arg_int(uow, m->id), db_arg_int(uow, uow->user->id), code, type);
	if (res == NULL)
		return -1;
	if (db_rows(res) == 0)
		return uow_error(uow, ERR_REACTION_DOES_NOT_EXIST, NULL);
	return notify(uow, m, "remove", db_val(res, 0, 0), code, type);
}
