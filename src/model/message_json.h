/*
 * The statement parts of the Message object as JSON text (message_json.c), for statements that fetch messages and
 * their objects in one round trip (message_fetch.c). A statement is
 *
 *   WITH <its own CTEs, if any>, MESSAGE_DICT_CTES(ids, domain, markdown, search)
 *   SELECT MESSAGE_DICT_COLUMNS(domain) <its own columns> MESSAGE_DICT_FROM <its own joins> ORDER BY m.id
 *
 * (or its own CTE m with MESSAGE_DICT_M_COLUMNS, then MESSAGE_DICT_MORE_CTES) with ids a bigint[] expression of the
 * messages, domain the organization's placeholder e-mail domain (realm_fake_email_domain()), markdown and search
 * booleans (struct message_format apply_markdown and search_fields): each a parameter ("$3") or an SQL expression.
 * Its rows are the messages, one each, in the columns enum message_dict_column names; message_objects_write()
 * writes the objects of some of them.
 */
#ifndef CONFAB_MESSAGE_JSON_H
#define CONFAB_MESSAGE_JSON_H

#include <stddef.h>

struct uow;
struct db_res;
struct message_format;

/* The columns of MESSAGE_DICT_COLUMNS; a statement's own columns start at MD_COUNT. */
enum message_dict_column {
	MD_ID,
	MD_CHANNEL,
	MD_CONVERSATION,
	MD_TOPIC,
	MD_CONTENT, /* rendered or Markdown, as asked */
	MD_IS_ME,
	MD_TIMESTAMP,
	MD_CLIENT,
	MD_LAST_EDIT,
	MD_LAST_MOVED,
	MD_CHANNEL_NAME,
	MD_DM_RECIPIENTS, /* JSON text */
	MD_EDIT_HISTORY,  /* JSON text, only when edited or moved */
	MD_REACTIONS,     /* JSON text, NULL for none */
	MD_MATCH_CONTENT, /* search narrows only */
	MD_SENDER_ID,     /* NULL if the sender's row is gone */
	MD_SENDER_NAME,
	MD_SENDER_EMAIL,
	MD_AVATAR_SOURCE,
	MD_AVATAR_VERSION,
	MD_SENDER_REALM,
	MD_EMAIL_VISIBILITY,
	MD_EMAIL_MD5,
	MD_COUNT
};

/* The API e-mail address of users row u, with domain the placeholder domain (API_EMAIL in messages.c). */
#define MESSAGE_DICT_API_EMAIL(u, domain)                                                                              \
	"CASE WHEN " u ".email_address_visibility = 1 OR " u ".is_bot THEN " u ".delivery_email "                      \
	"ELSE 'user' || " u ".id || '@' || " domain " END"

/*
 * The messages, then their channels, reactions and senders once each (a join or a per-row subquery would look them
 * up or hash their whole tables for every message).
 */
/* clang-format off */
#define MESSAGE_DICT_CTES(ids, domain, markdown, search) \
	" m AS MATERIALIZED (SELECT " MESSAGE_DICT_M_COLUMNS(markdown, search) " FROM messages m" \
	"   WHERE m.id = ANY(" ids "))," MESSAGE_DICT_MORE_CTES("ARRAY(SELECT id FROM m)", domain)
/* The columns of CTE m, from messages m: a statement that reads the messages itself names them so. */
#define MESSAGE_DICT_M_COLUMNS(markdown, search) \
	"m.id, m.channel_id, m.direct_conversation_id, m.topic," \
	" CASE WHEN " markdown "::boolean THEN m.rendered_content ELSE m.content END AS shown," \
	" left(m.content, 4) = '/me ' AS me, m.date_sent, m.client, m.last_edit_time, m.last_moved_time, m.sender_id," \
	" CASE WHEN " search "::boolean THEN m.rendered_content END AS match"
/* The CTEs after m (ids: the bigint[] of m's ids). */
#define MESSAGE_DICT_MORE_CTES(ids, domain) \
	" c AS MATERIALIZED (SELECT c.id, c.name FROM channels c" \
	"   WHERE c.id = ANY(ARRAY(SELECT DISTINCT channel_id FROM m WHERE channel_id IS NOT NULL)))," \
	/* reactions, oldest first as the reference orders them, by the UNIQUE index of reactions (message_id first) */ \
	" r AS MATERIALIZED (SELECT r.message_id, json_agg(json_build_object('emoji_name', r.emoji_name," \
	"   'emoji_code', r.emoji_code, 'reaction_type', r.reaction_type, 'user_id', r.user_id) ORDER BY r.id)::text" \
	"   AS list FROM reactions r WHERE r.message_id = ANY(" ids ") GROUP BY r.message_id)," \
	" s AS MATERIALIZED (SELECT u.id, u.full_name, " MESSAGE_DICT_API_EMAIL("u", domain) " AS email," \
	"   u.avatar_source, u.avatar_version, u.realm_id, u.email_address_visibility," \
	"   CASE WHEN u.avatar_source = 'G' THEN u.email_md5 END AS md5" \
	"   FROM users u WHERE u.id = ANY(ARRAY(SELECT DISTINCT sender_id FROM m)))"
#define MESSAGE_DICT_COLUMNS(domain) \
	" m.id, COALESCE(m.channel_id, 0), COALESCE(m.direct_conversation_id, 0), m.topic, m.shown, m.me," \
	" extract(epoch FROM m.date_sent)::bigint, m.client," \
	" extract(epoch FROM m.last_edit_time)::bigint, extract(epoch FROM m.last_moved_time)::bigint, c.name," \
	/* display_recipient of a direct message: a 1:1 conversation ordered by address as the reference does, others \
	 * by id */ \
	" CASE WHEN m.direct_conversation_id IS NOT NULL THEN (SELECT json_agg(json_build_object('id', du.id," \
	"   'email', du.email, 'full_name', du.full_name, 'is_mirror_dummy', false)" \
	"   ORDER BY (CASE WHEN cardinality(dc.user_ids) = 2 THEN du.email END) COLLATE \"C\", du.id)" \
	"   FROM direct_conversations dc CROSS JOIN LATERAL unnest(dc.user_ids) AS p (id) CROSS JOIN LATERAL" \
	"   (SELECT du.id, du.full_name, " MESSAGE_DICT_API_EMAIL("du", domain) " AS email FROM users du" \
	"   WHERE du.id = p.id OFFSET 0) du WHERE dc.id = m.direct_conversation_id)::text END," \
	" CASE WHEN m.last_edit_time IS NOT NULL OR m.last_moved_time IS NOT NULL THEN" \
	" (SELECT json_agg(json_strip_nulls(json_build_object('user_id', e.user_id," \
	"   'timestamp', extract(epoch FROM e.edit_time)::bigint, 'prev_content', e.prev_content," \
	"   'prev_rendered_content', e.prev_rendered_content, 'prev_topic', e.prev_topic," \
	"   'topic', CASE WHEN e.prev_topic IS NOT NULL THEN e.topic END, 'prev_stream', e.prev_channel_id," \
	"   'stream', CASE WHEN e.prev_channel_id IS NOT NULL THEN e.channel_id END)) ORDER BY e.id DESC)" \
	"   FROM message_edits e WHERE e.message_id = m.id)::text END," \
	" r.list, m.match, s.id, s.full_name, s.email, s.avatar_source, s.avatar_version, s.realm_id," \
	" s.email_address_visibility, s.md5"
#define MESSAGE_DICT_FROM \
	" FROM m LEFT JOIN c ON c.id = m.channel_id LEFT JOIN r ON r.message_id = m.id LEFT JOIN s ON s.id = m.sender_id"
/* clang-format on */

/*
 * Writes the Message objects of rows[0..n) of res (a MESSAGE_DICT statement's result) with the user's flags[i],
 * as one JSON array, in the arena; *len its length.
 */
const char *message_objects_write(struct uow *uow, const struct db_res *res, const int *rows, const int *flags, int n,
                                  const struct message_format *f, size_t *len);

#endif
