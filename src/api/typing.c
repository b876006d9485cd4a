/*
 * Typing notifications: POST /typing (composing a direct or channel message) and POST /messages/{id}/typing
 * (editing one). Nothing is stored; a request checks its parameters and the user's rights and publishes typing or
 * typing_edit_message events. Reference: zerver/views/typing.py and zerver/actions/typing.py.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/api.h"
#include "api/shapes.h"
#include "core/ids.h"
#include "core/jsonx.h"
#include "db/db.h"
#include "events/events.h"
#include "http/params.h"
#include "http/request.h"
#include "model/channels.h"
#include "model/messages.h"
#include "model/permissions.h"
#include "model/realm.h"
#include "model/user.h"

/* The reference's MAX_STREAM_SIZE_FOR_TYPING_NOTIFICATIONS: larger channels get no typing events at all. */
#define TYPING_MAX_CHANNEL_SUBSCRIBERS 100

/* The address clients see: the real one when everyone may see it (and for bots), else the placeholder. */
#define TYPING_API_EMAIL                                                                                               \
	"CASE WHEN u.email_address_visibility = 1 OR u.is_bot THEN u.delivery_email "                                  \
	"ELSE 'user' || u.id || '@' || $2 END"

static struct db_stmt st_settings =
    DB_STMT("SELECT send_private_typing_notifications, send_stream_typing_notifications FROM users WHERE id = $1");

/* Refuses when the requesting user turned off their own typing notifications for this kind of conversation. */
static int check_sending_enabled(struct request *req, bool channel)
{
	struct db_res *res = DB_EXEC(&req->uow, &st_settings, db_arg_int(&req->uow, req->user->id));
	if (res == NULL || db_rows(res) == 0)
		return api_error(req, ERR_INTERNAL, NULL);
	if (db_bool(res, 0, channel ? 1 : 0))
		return 0;
	return api_error(req, ERR_BAD_REQUEST, "User has disabled typing notifications for %s",
	                 channel ? "channel messages" : "direct messages");
}

/* The sender object of typing events: {user_id, email}. */
static json_object *user_ref(struct request *req, const struct user *u)
{
	json_object *o = json_object_new_object();
	const char *email = u->delivery_email;
	if (u->email_address_visibility != 1 && !u->is_bot)
		email = arena_printf(&req->arena, "user%lld@%s", (long long)u->id,
		                     realm_fake_email_domain(&req->uow, req->realm));
	json_object_object_add(o, "user_id", json_object_new_int64(u->id));
	json_object_object_add(o, "email", json_object_new_string(email));
	return o;
}

/* An op of both endpoints: "start" or "stop" ("Invalid op"), "Missing 'op' argument" when absent. */
static const char *typing_op(struct request *req)
{
	const char *op = param_str(req, "op");
	if (op == NULL) {
		param_missing(req, "op");
		return NULL;
	}
	if (strcmp(op, "start") != 0 && strcmp(op, "stop") != 0) {
		api_error(req, ERR_BAD_REQUEST, "Invalid op");
		return NULL;
	}
	return op;
}

/* ---- audiences ---------------------------------------------------------------------------------------------- */

/* clang-format off */
static struct db_stmt st_channel_audience =
    DB_STMT("SELECT s.user_id, (SELECT u.receives_typing_notifications FROM users u WHERE u.id = s.user_id)"
            " FROM subscriptions s WHERE s.channel_id = $1 AND s.active AND " USER_ACTIVE_SQL("s.user_id")
            " ORDER BY s.user_id LIMIT $2");
/* clang-format on */

/*
 * Who hears of typing in a channel: its active subscribers who receive typing notifications, nobody at all when
 * the channel has more than TYPING_MAX_CHANNEL_SUBSCRIBERS active subscribers. Arena array or NULL on error.
 */
static int64_t *channel_audience(struct request *req, int64_t channel_id, int *n)
{
	struct db_res *res = DB_EXEC(&req->uow, &st_channel_audience, db_arg_int(&req->uow, channel_id),
	                             db_arg_int(&req->uow, TYPING_MAX_CHANNEL_SUBSCRIBERS + 1));
	if (res == NULL)
		return NULL;
	int rows = db_rows(res);
	int64_t *ids = arena_alloc(&req->arena, (size_t)(rows + 1) * sizeof(*ids));
	*n = 0;
	for (int i = 0; i < rows && rows <= TYPING_MAX_CHANNEL_SUBSCRIBERS; i++)
		if (db_bool(res, i, 1))
			ids[(*n)++] = db_int(res, i, 0);
	return ids;
}

/* A typing event for the users (n of them); an event without listeners is not recorded. */
static int publish(struct request *req, json_object *event, const int64_t *users, int n)
{
	request_own_json(req, event);
	return n > 0 ? events_add(&req->uow, event, users, n, 0) : 0;
}

/* ---- POST /typing -------------------------------------------------------------------------------------------- */

/* `to` as the reference reads it (a JSON list of integers, or absent or null: *to NULL); api/shapes.h. */
static int typing_to(struct request *req, json_object **to)
{
	*to = param_json(req, "to");
	return shape_typing_to(req, *to);
}

/* stream_id as a JSON integer (absent or null: *given false). */
static int typing_stream_id(struct request *req, bool *given, int64_t *id)
{
	const char *s = param_str(req, "stream_id");
	json_object *j = NULL;
	*given = false;
	if (s == NULL)
		return 0;
	int rc = uow_parse_client_json(&req->uow, s, strlen(s), &j);
	if (rc != 0)
		return rc < 0 ? -1 : api_error(req, ERR_BAD_REQUEST, "stream_id is not valid JSON");
	if (j == NULL)
		return 0;
	if (!json_object_is_type(j, json_type_int))
		return api_error(req, ERR_BAD_REQUEST, "stream_id is not an integer");
	*id = json_object_get_int64(j);
	*given = true;
	return 0;
}

/* The reference's access_stream_for_send_message after access_stream_by_id_for_message (content access, not
 * archived): can_send_message_group, and a subscription for private channels and guests. */
static int check_channel_send(struct request *req, const struct channel *c)
{
	if (!perm_channel_send(&req->uow, c))
		return api_error(req, ERR_BAD_REQUEST, "You do not have permission to post in this channel.");
	if ((c->invite_only || user_is_guest(req->user)) && !c->is_subscribed)
		return api_error(req, ERR_BAD_REQUEST, "Not authorized to send to channel '%s'", c->name);
	return 0;
}

static int typing_channel(struct request *req, const char *op, bool has_id, int64_t id, const char *topic)
{
	if (!has_id)
		return api_error(req, ERR_BAD_REQUEST, "Missing 'stream_id' argument");
	if (topic == NULL)
		return api_error(req, ERR_BAD_REQUEST, "Missing topic");
	if (check_sending_enabled(req, true) < 0)
		return -1;
	struct channel *c = channel_access_by_id(&req->uow, id, true);
	if (c == NULL)
		return -1;
	if (c->is_archived)
		return api_error(req, ERR_BAD_REQUEST, "Invalid channel ID");
	if (check_channel_send(req, c) < 0)
		return -1;
	if (strcmp(topic, REALM_EMPTY_TOPIC_DISPLAY_NAME) == 0 || strcmp(topic, "(no topic)") == 0)
		topic = "";
	int n;
	int64_t *users = channel_audience(req, c->id, &n);
	if (users == NULL)
		return -1;
	json_object *event = json_object_new_object();
	json_object_object_add(event, "type", json_object_new_string("typing"));
	json_object_object_add(event, "message_type", json_object_new_string("stream"));
	json_object_object_add(event, "op", json_object_new_string(op));
	json_object_object_add(event, "sender", user_ref(req, req->user));
	json_object_object_add(event, "stream_id", json_object_new_int64(c->id));
	json_object_object_add(event, "topic", json_object_new_string(topic));
	return publish(req, event, users, n);
}

static struct db_stmt st_recipients =
    DB_STMT("SELECT u.id, " TYPING_API_EMAIL ", u.is_active AND u.receives_typing_notifications FROM users u"
            " WHERE u.realm_id = $1 AND u.id = ANY($3::bigint[]) ORDER BY u.id");

/* The row of user id among the rows of res (ascending ids, in *ids), or -1: a binary search, as the list may hold
 * a thousand users. */
static int recipient_row(struct request *req, const struct db_res *res, int64_t **ids, int64_t id)
{
	int rows = db_rows(res);
	if (*ids == NULL) {
		*ids = arena_alloc(&req->arena, (size_t)(rows + 1) * sizeof(**ids));
		for (int r = 0; r < rows; r++)
			(*ids)[r] = db_int(res, r, 0);
	}
	int64_t *at = rows ? bsearch(&id, *ids, (size_t)rows, sizeof(id), ids_cmp) : NULL;
	return at ? (int)(at - *ids) : -1;
}

static int typing_direct(struct request *req, const char *op, json_object *to)
{
	if (to == NULL)
		return api_error(req, ERR_BAD_REQUEST, "Missing 'to' argument");
	size_t len = json_object_array_length(to);
	if (len == 0)
		return api_error(req, ERR_BAD_REQUEST, "Empty 'to' list");
	if (check_sending_enabled(req, false) < 0)
		return -1;
	/* The sender is always among the recipients; duplicates stay, as the reference keeps the list as sent. */
	int64_t *ids = arena_alloc(&req->arena, (len + 2) * sizeof(*ids));
	int n = 0;
	bool has_sender = false;
	for (size_t i = 0; i < len; i++) {
		ids[n] = json_object_get_int64(json_object_array_get_idx(to, i));
		has_sender |= ids[n++] == req->user->id;
	}
	if (!has_sender)
		ids[n++] = req->user->id;
	struct db_res *res = DB_EXEC(&req->uow, &st_recipients, db_arg_int(&req->uow, req->realm->id),
	                             realm_fake_email_domain(&req->uow, req->realm), db_arg_ids(&req->uow, ids, n));
	if (res == NULL)
		return -1;
	json_object *recipients = json_object_new_array();
	int64_t *notify = arena_alloc(&req->arena, (size_t)(n + 1) * sizeof(*notify));
	int nnotify = 0;
	int64_t *row_ids = NULL;
	for (int i = 0; i < n; i++) {
		int row = recipient_row(req, res, &row_ids, ids[i]);
		if (row < 0) {
			json_object_put(recipients);
			return api_error(req, ERR_BAD_REQUEST, "Invalid user ID %lld", (long long)ids[i]);
		}
		json_object *r = json_object_new_object();
		json_object_object_add(r, "user_id", json_object_new_int64(ids[i]));
		json_object_object_add(r, "email", json_object_new_string(db_val(res, row, 1)));
		json_object_array_add(recipients, r);
		if (db_bool(res, row, 2))
			notify[nnotify++] = ids[i];
	}
	json_object *event = json_object_new_object();
	json_object_object_add(event, "type", json_object_new_string("typing"));
	json_object_object_add(event, "message_type", json_object_new_string("direct"));
	json_object_object_add(event, "op", json_object_new_string(op));
	json_object_object_add(event, "sender", user_ref(req, req->user));
	json_object_object_add(event, "recipients", recipients);
	return publish(req, event, notify, nnotify);
}

/* POST /api/v1/typing */
int typing_send(struct request *req)
{
	json_object *to;
	if (typing_to(req, &to) < 0)
		return -1;
	const char *op = typing_op(req);
	if (op == NULL)
		return -1;
	const char *type = param_str(req, "type");
	bool channel = strcmp(type, "stream") == 0 || strcmp(type, "channel") == 0;
	if (!channel && strcmp(type, "direct") != 0)
		return api_error(req, ERR_BAD_REQUEST, "Invalid type");
	bool has_id;
	int64_t id = 0;
	if (typing_stream_id(req, &has_id, &id) < 0)
		return -1;
	/* topic, or its old name subject (not both); white space around it is not part of it. */
	const char *topic = param_str(req, "topic"), *subject = param_str(req, "subject");
	if (topic != NULL && subject != NULL) {
		api_error(req, ERR_REQUEST_CONFUSING_VAR, "Can't decide between 'topic' and 'subject' arguments");
		api_error_field(req, "var_name1", json_object_new_string("topic"));
		api_error_field(req, "var_name2", json_object_new_string("subject"));
		return -1;
	}
	if (topic == NULL)
		topic = subject;
	if (topic != NULL)
		topic = arena_strip(&req->arena, topic);
	if (!channel)
		return typing_direct(req, op, to);
	return typing_channel(req, op, has_id, id, topic);
}

/* ---- POST /messages/{message_id}/typing ---------------------------------------------------------------------- */

static struct db_stmt st_edit_context =
    DB_STMT("SELECT r.allow_message_editing, r.message_content_edit_limit_seconds IS NOT NULL AND"
            "  now() - m.date_sent > make_interval(secs => r.message_content_edit_limit_seconds), m.topic"
            " FROM messages m JOIN realms r ON r.id = m.realm_id WHERE m.id = $1");

/* The reference's validate_user_can_edit_message with no grace period. Sets *topic to the message's topic. */
static int check_can_edit(struct request *req, const struct message_ref *m, const char **topic)
{
	struct db_res *res = DB_EXEC(&req->uow, &st_edit_context, db_arg_int(&req->uow, m->id));
	if (res == NULL || db_rows(res) == 0)
		return api_error(req, ERR_BAD_REQUEST, "Invalid message(s)");
	switch (perm_edit_content(&req->uow, db_bool(res, 0, 0), m->sender_id, db_bool(res, 0, 1))) {
	case PERM_EDIT_DISABLED:
		return api_error(req, ERR_BAD_REQUEST, "Your organization has turned off message editing");
	case PERM_EDIT_NOT_SENDER:
		return api_error(req, ERR_BAD_REQUEST, "You don't have permission to edit this message");
	case PERM_EDIT_TOO_LATE:
		return api_error(req, ERR_BAD_REQUEST, "The time limit for editing this message has passed");
	case PERM_EDIT_OK: break;
	}
	*topic = db_val(res, 0, 2);
	return 0;
}

static struct db_stmt st_participants =
    DB_STMT("SELECT u.id, u.is_active AND u.receives_typing_notifications"
            " FROM messages m JOIN direct_conversations dc ON dc.id = m.direct_conversation_id"
            " JOIN users u ON u.id = ANY(dc.user_ids) WHERE m.id = $1 ORDER BY u.id");

/*
 * The reference's recipient list of a direct message being edited: for a 1:1 conversation the editor, then the
 * other participant (the editor twice for a note to oneself), for a group its members; of those, the active users
 * who receive typing notifications. *n receives their number.
 */
static int64_t *direct_audience(struct request *req, int64_t message_id, int *n)
{
	struct db_res *res = DB_EXEC(&req->uow, &st_participants, db_arg_int(&req->uow, message_id));
	if (res == NULL)
		return NULL;
	int rows = db_rows(res);
	int64_t *ids = arena_alloc(&req->arena, (size_t)(rows + 2) * sizeof(*ids));
	bool *ok = arena_alloc(&req->arena, (size_t)(rows + 2) * sizeof(*ok));
	int m = 0;
	if (rows == 1 || rows == 2) {
		int self = db_int(res, 0, 0) == req->user->id ? 0 : 1, other = rows == 1 ? 0 : 1 - self;
		ids[m] = db_int(res, self, 0);
		ok[m++] = db_bool(res, self, 1);
		ids[m] = db_int(res, other, 0);
		ok[m++] = db_bool(res, other, 1);
	} else {
		for (int i = 0; i < rows; i++) {
			ids[m] = db_int(res, i, 0);
			ok[m++] = db_bool(res, i, 1);
		}
	}
	*n = 0;
	for (int i = 0; i < m; i++)
		if (ok[i])
			ids[(*n)++] = ids[i];
	return ids;
}

/* POST /api/v1/messages/{message_id}/typing */
int typing_edit_send(struct request *req)
{
	const char *op = typing_op(req);
	if (op == NULL)
		return -1;
	struct message_ref *m = message_access_or_error(&req->uow, param_int(req, "message_id"), true);
	if (m == NULL)
		return -1;
	const char *topic = "";
	if (check_can_edit(req, m, &topic) < 0 || check_sending_enabled(req, m->channel_id != 0) < 0)
		return -1;
	int n;
	int64_t *users = m->channel_id ? channel_audience(req, m->channel_id, &n) : direct_audience(req, m->id, &n);
	if (users == NULL)
		return -1;
	json_object *recipient = json_object_new_object();
	if (m->channel_id) {
		json_object_object_add(recipient, "type", json_object_new_string("channel"));
		json_object_object_add(recipient, "channel_id", json_object_new_int64(m->channel_id));
		json_object_object_add(recipient, "topic", json_object_new_string(topic));
	} else {
		json_object *ids = json_object_new_array();
		for (int i = 0; i < n; i++)
			json_object_array_add(ids, json_object_new_int64(users[i]));
		json_object_object_add(recipient, "type", json_object_new_string("direct"));
		json_object_object_add(recipient, "user_ids", ids);
	}
	json_object *event = json_object_new_object();
	json_object_object_add(event, "type", json_object_new_string("typing_edit_message"));
	json_object_object_add(event, "op", json_object_new_string(op));
	json_object_object_add(event, "sender_id", json_object_new_int64(req->user->id));
	json_object_object_add(event, "message_id", json_object_new_int64(m->id));
	json_object_object_add(event, "recipient", recipient);
	return publish(req, event, users, n);
}
