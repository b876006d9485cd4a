/*
 * The Message object as JSON text (see message_objects_text() in messages.h): one statement reads the messages with
 * their senders, channels, edit history and reactions (PostgreSQL builds the nested lists as JSON text), and the
 * objects are written straight into one buffer, the stored texts spliced as they are. GET /messages sends this text
 * without ever building json-c objects; message_objects() parses it for the callers that edit objects (events).
 *
 * Reference: Zulip zerver/lib/message_cache.py (MessageDict: build_message_dict, finalize_payload,
 * set_sender_avatar, hydrate_recipient_info).
 */
#include <stdio.h>
#include <string.h>

#include "core/buf.h"
#include "core/jsonx.h"
#include "core/uow.h"
#include "db/db.h"
#include "model/linkifiers.h"
#include "model/message_json.h"
#include "model/messages.h"
#include "model/realm.h"
#include "model/user.h"

/* The messages ($1) as MESSAGE_DICT_CTES gives them ($2 the placeholder e-mail domain, $3 markdown, $4 search). */
static struct db_stmt st_dicts = DB_STMT_GENERIC("WITH" MESSAGE_DICT_CTES(
    "$1::bigint[]", "$2", "$3", "$4") " SELECT" MESSAGE_DICT_COLUMNS("$2") MESSAGE_DICT_FROM " ORDER BY m.id");

/* ---- writing JSON text ----------------------------------------------------------------------------------------- */

static void put(struct buf *b, const char *s)
{
	buf_add(b, s, strlen(s));
}

static void put_int(struct buf *b, int64_t v)
{
	char tmp[24], *p = tmp + sizeof(tmp);
	uint64_t u = v < 0 ? 0 - (uint64_t)v : (uint64_t)v;
	do
		*--p = (char)('0' + u % 10);
	while ((u /= 10) != 0);
	if (v < 0)
		*--p = '-';
	buf_add(b, p, (size_t)(tmp + sizeof(tmp) - p));
}

/* A JSON string (escaped as json-c does, slashes left alone); html: escaped as Django's escape() first. */
static void put_str_as(struct buf *b, const char *s, bool html)
{
	static const char hex[] = "0123456789abcdef";
	buf_add(b, "\"", 1);
	const char *run = s;
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		const char *esc = NULL;
		char u[7];
		switch (c) {
		case '"': esc = html ? "&quot;" : "\\\""; break;
		case '\\': esc = "\\\\"; break;
		case '\n': esc = "\\n"; break;
		case '\r': esc = "\\r"; break;
		case '\t': esc = "\\t"; break;
		case '\b': esc = "\\b"; break;
		case '\f': esc = "\\f"; break;
		case '&': esc = html ? "&amp;" : NULL; break;
		case '<': esc = html ? "&lt;" : NULL; break;
		case '>': esc = html ? "&gt;" : NULL; break;
		case '\'': esc = html ? "&#x27;" : NULL; break;
		default:
			if (c < 0x20) {
				memcpy(u, "\\u00", 4);
				u[4] = hex[c >> 4], u[5] = hex[c & 15], u[6] = '\0';
				esc = u;
			}
		}
		if (esc == NULL)
			continue;
		buf_add(b, run, (size_t)(s - run));
		put(b, esc);
		run = s + 1;
	}
	buf_add(b, run, (size_t)(s - run));
	buf_add(b, "\"", 1);
}

static void put_str(struct buf *b, const char *s)
{
	put_str_as(b, s, false);
}

static void put_key(struct buf *b, const char *key)
{
	buf_add(b, ",\"", 2);
	put(b, key);
	buf_add(b, "\":", 2);
}

/* ---- one message ------------------------------------------------------------------------------------------------ */

/* The last flags written as JSON text. */
struct flags_memo {
	int flags;
	const char *text;
};

/* The last topic's topic_links (messages of one answer share a few topics), and the last flags. */
struct topic_links_memo {
	const char *topic;
	const char *text;
	struct flags_memo flags;
};

static const char *topic_links(struct uow *uow, const char *topic, struct topic_links_memo *memo)
{
	if (*topic == '\0')
		return "[]";
	if (memo->topic == NULL || strcmp(memo->topic, topic) != 0) {
		json_object *links = linkifiers_topic_links(uow, topic);
		memo->topic = topic;
		memo->text = arena_strdup(&uow->arena, jsonx_string(links));
		json_object_put(links);
	}
	return memo->text;
}

/* sender_* and avatar_url, as user_to_json() gives them to the requesting user; s, row: the message (MD_SENDER_*). */
static void put_sender(struct uow *uow, struct buf *b, const struct db_res *s, int row, const struct message_format *f)
{
	struct user sender = {.id = db_int(s, row, MD_SENDER_ID),
	                      .email_address_visibility = (int)db_int(s, row, MD_EMAIL_VISIBILITY)};
	char source = *db_val(s, row, MD_AVATAR_SOURCE);
	int64_t version = db_int(s, row, MD_AVATAR_VERSION);
	put_key(b, "sender_id");
	put_int(b, sender.id);
	put_key(b, "sender_full_name");
	put_str(b, db_val(s, row, MD_SENDER_NAME));
	put_key(b, "sender_email");
	put_str(b, db_val(s, row, MD_SENDER_EMAIL));
	put_key(b, "sender_realm_str");
	put_str(b, uow->realm->subdomain);
	put_key(b, "avatar_url");
	if (source == 'G' && f->client_gravatar && user_can_see_email(uow->user, &sender)) {
		put(b, "null");
	} else if (source == 'G') {
		put(b, "\"https://secure.gravatar.com/avatar/");
		put(b, db_val(s, row, MD_EMAIL_MD5));
		put(b, "?d=identicon&version=");
		put_int(b, version);
		put(b, "\"");
	} else {
		put(b, "\"/user_avatars/");
		put_int(b, db_int(s, row, MD_SENDER_REALM));
		put(b, "/");
		put_int(b, sender.id);
		put(b, ".png?version=");
		put_int(b, version);
		put(b, "\"");
	}
}

/* Recipient fields: type, display_recipient, stream_id, subject, topic_links, recipient_id. */
static void put_recipient(struct uow *uow, struct buf *b, const struct db_res *res, int row,
                          const struct message_format *f, struct topic_links_memo *memo)
{
	int64_t channel = db_int(res, row, MD_CHANNEL), conversation = db_int(res, row, MD_CONVERSATION);
	const char *topic = db_val(res, row, MD_TOPIC);
	put_key(b, "type");
	put(b, channel ? "\"stream\"" : "\"private\"");
	put_key(b, "recipient_id");
	put_int(b, message_recipient_id(channel, conversation));
	put_key(b, "display_recipient");
	if (channel) {
		put_str(b, db_val(res, row, MD_CHANNEL_NAME));
		put_key(b, "stream_id");
		put_int(b, channel);
		if (*topic == '\0' && !f->allow_empty_topic_name)
			topic = REALM_EMPTY_TOPIC_DISPLAY_NAME;
	} else {
		put(b, db_null(res, row, MD_DM_RECIPIENTS) ? "[]" : db_val(res, row, MD_DM_RECIPIENTS));
	}
	put_key(b, "subject");
	put_str(b, topic);
	put_key(b, "topic_links");
	put(b, channel ? topic_links(uow, topic, memo) : "[]");
	if (f->search_fields) { /* search hits: the matched fields (not highlighted) */
		put_key(b, "match_content");
		put_str(b, db_val(res, row, MD_MATCH_CONTENT));
		put_key(b, "match_subject");
		put_str_as(b, db_val(res, row, MD_TOPIC), true);
	}
}

/* The flags' API names (message_flags_json()) as JSON text, kept for the next message (most of an answer have the
 * same flags). */
static void put_flags(struct uow *uow, struct buf *b, int flags, struct flags_memo *memo)
{
	if (memo->text == NULL || memo->flags != flags) {
		json_object *list = message_flags_json(flags);
		memo->flags = flags;
		memo->text = arena_strdup(&uow->arena, jsonx_string(list));
		json_object_put(list);
	}
	put(b, memo->text);
}

static void put_message(struct uow *uow, struct buf *b, const struct db_res *res, int row, int flags,
                        const struct message_format *f, struct topic_links_memo *memo)
{
	buf_add(b, "{\"id\":", 6);
	put_int(b, db_int(res, row, MD_ID));
	if (!db_null(res, row, MD_SENDER_ID)) /* always: messages.sender_id references users */
		put_sender(uow, b, res, row, f);
	put_key(b, "client");
	put_str(b, db_val(res, row, MD_CLIENT));
	put_key(b, "content");
	put_str(b, db_val(res, row, MD_CONTENT));
	put_key(b, "content_type");
	put(b, f->apply_markdown ? "\"text/html\"" : "\"text/x-markdown\"");
	put_key(b, "is_me_message");
	put(b, db_bool(res, row, MD_IS_ME) ? "true" : "false");
	put_key(b, "timestamp");
	put_int(b, db_int(res, row, MD_TIMESTAMP));
	put_recipient(uow, b, res, row, f, memo);
	put_key(b, "reactions");
	put(b, db_null(res, row, MD_REACTIONS) ? "[]" : db_val(res, row, MD_REACTIONS));
	put_key(b, "submessages");
	put(b, "[]");
	put_key(b, "flags");
	put_flags(uow, b, flags, &memo->flags);
	bool edited = !db_null(res, row, MD_LAST_EDIT), moved = !db_null(res, row, MD_LAST_MOVED);
	if (edited) {
		put_key(b, "last_edit_timestamp");
		put_int(b, db_int(res, row, MD_LAST_EDIT));
	}
	if (moved) {
		put_key(b, "last_moved_timestamp");
		put_int(b, db_int(res, row, MD_LAST_MOVED));
	}
	if ((edited || moved) && !db_null(res, row, MD_EDIT_HISTORY)) {
		put_key(b, "edit_history");
		put(b, db_val(res, row, MD_EDIT_HISTORY));
	}
	buf_add(b, "}", 1);
}

const char *message_objects_write(struct uow *uow, const struct db_res *res, const int *rows, const int *flags, int n,
                                  const struct message_format *f, size_t *len)
{
	struct buf b;
	buf_init(&b, 0);
	size_t size = 2;
	for (int i = 0; i < n; i++) /* the content, and about 600 bytes of the rest */
		size += strlen(db_val(res, rows[i], MD_CONTENT)) + 640;
	buf_reserve(&b, size);
	buf_add(&b, "[", 1);
	struct topic_links_memo memo = {NULL, NULL, {0, NULL}};
	for (int i = 0; i < n; i++) {
		if (i > 0)
			buf_add(&b, ",", 1);
		put_message(uow, &b, res, rows[i], flags[i], f, &memo);
	}
	buf_add(&b, "]", 1);
	char *out = arena_alloc(&uow->arena, b.len + 1);
	memcpy(out, b.data, b.len + 1);
	*len = b.len;
	buf_release(&b);
	return out;
}

const char *message_objects_text(struct uow *uow, const int64_t *ids, const int *flags, int n,
                                 const struct message_format *f, size_t *len)
{
	struct db_res *res = DB_EXEC(uow, &st_dicts, db_arg_ids(uow, ids, n), realm_fake_email_domain(uow, uow->realm),
	                             f->apply_markdown ? "true" : "false", f->search_fields ? "true" : "false");
	if (res == NULL)
		return NULL;
	int *rows = arena_alloc(&uow->arena, (size_t)(n + 1) * sizeof(*rows));
	int *kept_flags = arena_alloc(&uow->arena, (size_t)(n + 1) * sizeof(*kept_flags));
	int kept = 0;
	for (int i = 0, row = 0; i < n && row < db_rows(res); i++) {
		if (db_int(res, row, MD_ID) != ids[i])
			continue; /* deleted meanwhile */
		kept_flags[kept] = flags[i];
		rows[kept++] = row++;
	}
	return message_objects_write(uow, res, rows, kept_flags, kept, f, len);
}

json_object *message_objects(struct uow *uow, const int64_t *ids, const int *flags, int n,
                             const struct message_format *f)
{
	size_t len;
	const char *text = message_objects_text(uow, ids, flags, n, f, &len);
	json_object *list = NULL;
	if (text == NULL)
		return NULL;
	if (jsonx_parse(text, len, &list) < 0 || list == NULL) {
		uow_error(uow, ERR_INTERNAL, NULL);
		return NULL;
	}
	return list;
}
