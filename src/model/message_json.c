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
#include "model/messages.h"
#include "model/realm.h"
#include "model/user.h"

#ifndef REALM_EMPTY_TOPIC_DISPLAY_NAME
#define REALM_EMPTY_TOPIC_DISPLAY_NAME "general chat"
#endif

/* Columns of st_dicts. */
enum {
	C_ID,
	C_CHANNEL,
	C_CONVERSATION,
	C_TOPIC,
	C_CONTENT, /* rendered or Markdown, as asked ($3) */
	C_IS_ME,
	C_TIMESTAMP,
	C_CLIENT,
	C_LAST_EDIT,
	C_LAST_MOVED,
	C_CHANNEL_NAME,
	C_DM_RECIPIENTS, /* JSON text */
	C_EDIT_HISTORY,  /* JSON text, only when edited or moved */
	C_REACTIONS,     /* JSON text, NULL for none */
	C_SENDER,
	C_MATCH_CONTENT, /* search narrows only ($4) */
};

/* Columns of st_senders. */
enum { S_ID, S_NAME, S_EMAIL, S_AVATAR_SOURCE, S_AVATAR_VERSION, S_REALM, S_EMAIL_VISIBILITY, S_EMAIL_MD5 };

/* $2: the organization's placeholder e-mail domain (API_EMAIL in messages.c words the same rule). */
#define DICT_API_EMAIL(u)                                                                                              \
	"CASE WHEN " u ".email_address_visibility = 1 OR " u ".is_bot THEN " u ".delivery_email "                      \
	"ELSE 'user' || " u ".id || '@' || $2 END"

/*
 * The messages ($1), then their channels and reactions once each (a join or a per-row subquery would look them up
 * or hash their whole tables for every message); DM recipients and edit history only where there are.
 */
/* clang-format off */
static struct db_stmt st_dicts = DB_STMT_GENERIC(
    "WITH m AS MATERIALIZED (SELECT m.id, m.channel_id, m.direct_conversation_id, m.topic,"
    "   CASE WHEN $3::boolean THEN m.rendered_content ELSE m.content END AS shown, left(m.content, 4) = '/me ' AS me,"
    "   m.date_sent, m.client, m.last_edit_time, m.last_moved_time, m.sender_id,"
    "   CASE WHEN $4::boolean THEN m.rendered_content END AS match"
    "   FROM messages m WHERE m.id = ANY($1::bigint[])),"
    " c AS MATERIALIZED (SELECT c.id, c.name FROM channels c"
    "   WHERE c.id = ANY(ARRAY(SELECT DISTINCT channel_id FROM m WHERE channel_id IS NOT NULL))),"
    /* reactions, oldest first as the reference orders them, by the UNIQUE index of reactions (message_id first) */
    " r AS MATERIALIZED (SELECT r.message_id, json_agg(json_build_object('emoji_name', r.emoji_name,"
    "   'emoji_code', r.emoji_code, 'reaction_type', r.reaction_type, 'user_id', r.user_id) ORDER BY r.id)::text"
    "   AS list FROM reactions r WHERE r.message_id = ANY($1::bigint[]) GROUP BY r.message_id)"
    " SELECT m.id, COALESCE(m.channel_id, 0), COALESCE(m.direct_conversation_id, 0), m.topic, m.shown, m.me,"
    " extract(epoch FROM m.date_sent)::bigint, m.client,"
    " extract(epoch FROM m.last_edit_time)::bigint, extract(epoch FROM m.last_moved_time)::bigint, c.name,"
    /* display_recipient of a direct message: a 1:1 conversation ordered by address as the reference does, others
     * by id */
    " CASE WHEN m.direct_conversation_id IS NOT NULL THEN (SELECT json_agg(json_build_object('id', du.id,"
    "   'email', du.email, 'full_name', du.full_name, 'is_mirror_dummy', false)"
    "   ORDER BY (CASE WHEN cardinality(dc.user_ids) = 2 THEN du.email END) COLLATE \"C\", du.id)"
    "   FROM direct_conversations dc CROSS JOIN LATERAL unnest(dc.user_ids) AS p (id) CROSS JOIN LATERAL"
    "   (SELECT du.id, du.full_name, " DICT_API_EMAIL("du") " AS email FROM users du WHERE du.id = p.id OFFSET 0) du"
    "   WHERE dc.id = m.direct_conversation_id)::text END,"
    " CASE WHEN m.last_edit_time IS NOT NULL OR m.last_moved_time IS NOT NULL THEN"
    " (SELECT json_agg(json_strip_nulls(json_build_object('user_id', e.user_id,"
    "   'timestamp', extract(epoch FROM e.edit_time)::bigint, 'prev_content', e.prev_content,"
    "   'prev_rendered_content', e.prev_rendered_content, 'prev_topic', e.prev_topic,"
    "   'topic', CASE WHEN e.prev_topic IS NOT NULL THEN e.topic END, 'prev_stream', e.prev_channel_id,"
    "   'stream', CASE WHEN e.prev_channel_id IS NOT NULL THEN e.channel_id END)) ORDER BY e.id DESC)"
    "   FROM message_edits e WHERE e.message_id = m.id)::text END,"
    " r.list, m.sender_id, m.match"
    " FROM m LEFT JOIN c ON c.id = m.channel_id LEFT JOIN r ON r.message_id = m.id ORDER BY m.id");
/* The senders ($1, distinct), in a statement of their own: joined above, they cost more than this round trip. */
static struct db_stmt st_senders = DB_STMT(
    "SELECT u.id, u.full_name, " DICT_API_EMAIL("u") ", u.avatar_source, u.avatar_version, u.realm_id,"
    " u.email_address_visibility, CASE WHEN u.avatar_source = 'G' THEN md5(lower(u.delivery_email)) END"
    " FROM users u WHERE u.id = ANY($1::bigint[])");
/* clang-format on */

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

/* The last topic's topic_links: messages of one answer share a few topics. */
struct topic_links_memo {
	const char *topic;
	const char *text;
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

/* sender_* and avatar_url, as user_to_json() gives them to the requesting user; s: the sender's st_senders row. */
static void put_sender(struct uow *uow, struct buf *b, const struct db_res *s, int row, const struct message_format *f)
{
	struct user sender = {.id = db_int(s, row, S_ID),
	                      .email_address_visibility = (int)db_int(s, row, S_EMAIL_VISIBILITY)};
	char source = *db_val(s, row, S_AVATAR_SOURCE);
	int64_t version = db_int(s, row, S_AVATAR_VERSION);
	put_key(b, "sender_id");
	put_int(b, sender.id);
	put_key(b, "sender_full_name");
	put_str(b, db_val(s, row, S_NAME));
	put_key(b, "sender_email");
	put_str(b, db_val(s, row, S_EMAIL));
	put_key(b, "sender_realm_str");
	put_str(b, uow->realm->subdomain);
	put_key(b, "avatar_url");
	if (source == 'G' && f->client_gravatar && user_can_see_email(uow->user, &sender)) {
		put(b, "null");
	} else if (source == 'G') {
		put(b, "\"https://secure.gravatar.com/avatar/");
		put(b, db_val(s, row, S_EMAIL_MD5));
		put(b, "?d=identicon&version=");
		put_int(b, version);
		put(b, "\"");
	} else {
		put(b, "\"/user_avatars/");
		put_int(b, db_int(s, row, S_REALM));
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
	int64_t channel = db_int(res, row, C_CHANNEL), conversation = db_int(res, row, C_CONVERSATION);
	const char *topic = db_val(res, row, C_TOPIC);
	put_key(b, "type");
	put(b, channel ? "\"stream\"" : "\"private\"");
	put_key(b, "recipient_id");
	put_int(b, message_recipient_id(channel, conversation));
	put_key(b, "display_recipient");
	if (channel) {
		put_str(b, db_val(res, row, C_CHANNEL_NAME));
		put_key(b, "stream_id");
		put_int(b, channel);
		if (*topic == '\0' && !f->allow_empty_topic_name)
			topic = REALM_EMPTY_TOPIC_DISPLAY_NAME;
	} else {
		put(b, db_null(res, row, C_DM_RECIPIENTS) ? "[]" : db_val(res, row, C_DM_RECIPIENTS));
	}
	put_key(b, "subject");
	put_str(b, topic);
	put_key(b, "topic_links");
	put(b, channel ? topic_links(uow, topic, memo) : "[]");
	if (f->search_fields) { /* search hits: the matched fields (not highlighted) */
		put_key(b, "match_content");
		put_str(b, db_val(res, row, C_MATCH_CONTENT));
		put_key(b, "match_subject");
		put_str_as(b, db_val(res, row, C_TOPIC), true);
	}
}

/* The flags' API names (message_flags_json()) as JSON text. */
static void put_flags(struct buf *b, int flags)
{
	json_object *list = message_flags_json(flags);
	put(b, jsonx_string(list));
	json_object_put(list);
}

/* The row of st_senders for sender (senders come back in no particular order; an answer has few). */
static int sender_row(const struct db_res *senders, int64_t sender)
{
	for (int i = 0; i < db_rows(senders); i++)
		if (db_int(senders, i, S_ID) == sender)
			return i;
	return -1;
}

static void put_message(struct uow *uow, struct buf *b, const struct db_res *res, int row, int flags,
                        const struct message_format *f, const struct db_res *senders, struct topic_links_memo *memo)
{
	buf_add(b, "{\"id\":", 6);
	put_int(b, db_int(res, row, C_ID));
	int s = sender_row(senders, db_int(res, row, C_SENDER));
	if (s >= 0) /* always: messages.sender_id references users */
		put_sender(uow, b, senders, s, f);
	put_key(b, "client");
	put_str(b, db_val(res, row, C_CLIENT));
	put_key(b, "content");
	put_str(b, db_val(res, row, C_CONTENT));
	put_key(b, "content_type");
	put(b, f->apply_markdown ? "\"text/html\"" : "\"text/x-markdown\"");
	put_key(b, "is_me_message");
	put(b, db_bool(res, row, C_IS_ME) ? "true" : "false");
	put_key(b, "timestamp");
	put_int(b, db_int(res, row, C_TIMESTAMP));
	put_recipient(uow, b, res, row, f, memo);
	put_key(b, "reactions");
	put(b, db_null(res, row, C_REACTIONS) ? "[]" : db_val(res, row, C_REACTIONS));
	put_key(b, "submessages");
	put(b, "[]");
	put_key(b, "flags");
	put_flags(b, flags);
	bool edited = !db_null(res, row, C_LAST_EDIT), moved = !db_null(res, row, C_LAST_MOVED);
	if (edited) {
		put_key(b, "last_edit_timestamp");
		put_int(b, db_int(res, row, C_LAST_EDIT));
	}
	if (moved) {
		put_key(b, "last_moved_timestamp");
		put_int(b, db_int(res, row, C_LAST_MOVED));
	}
	if ((edited || moved) && !db_null(res, row, C_EDIT_HISTORY)) {
		put_key(b, "edit_history");
		put(b, db_val(res, row, C_EDIT_HISTORY));
	}
	buf_add(b, "}", 1);
}

const char *message_objects_text(struct uow *uow, const int64_t *ids, const int *flags, int n,
                                 const struct message_format *f, size_t *len)
{
	struct db_res *res = DB_EXEC(uow, &st_dicts, db_arg_ids(uow, ids, n), realm_fake_email_domain(uow, uow->realm),
	                             f->apply_markdown ? "true" : "false", f->search_fields ? "true" : "false");
	if (res == NULL)
		return NULL;
	int64_t *sender_ids = arena_alloc(&uow->arena, (size_t)(db_rows(res) + 1) * sizeof(*sender_ids));
	int n_senders = 0;
	for (int row = 0; row < db_rows(res); row++) {
		int64_t id = db_int(res, row, C_SENDER);
		bool seen = false;
		for (int i = n_senders - 1; i >= 0 && !seen; i--)
			seen = sender_ids[i] == id;
		if (!seen)
			sender_ids[n_senders++] = id;
	}
	struct db_res *senders =
	    DB_EXEC(uow, &st_senders, db_arg_ids(uow, sender_ids, n_senders), realm_fake_email_domain(uow, uow->realm));
	if (senders == NULL)
		return NULL;
	struct buf b;
	buf_init(&b, 0);
	buf_add(&b, "[", 1);
	struct topic_links_memo memo = {NULL, NULL};
	for (int i = 0, row = 0; i < n && row < db_rows(res); i++) {
		if (db_int(res, row, C_ID) != ids[i])
			continue; /* deleted meanwhile */
		if (row > 0)
			buf_add(&b, ",", 1);
		put_message(uow, &b, res, row++, flags[i], f, senders, &memo);
	}
	buf_add(&b, "]", 1);
	char *out = arena_alloc(&uow->arena, b.len + 1);
	memcpy(out, b.data, b.len + 1);
	*len = b.len;
	buf_release(&b);
	return out;
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
