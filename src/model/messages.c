/*
 * Messages: checks before sending, sending, access, flags, the database side of narrows (the narrow itself is
 * narrow.c, fetching message_fetch.c) and the Message object; see messages.h.
 *
 * Reference: Zulip zerver/actions/message_send.py (check_message, do_send_messages), zerver/lib/message.py
 * (normalize_body, has_message_access), zerver/lib/streams.py (access_stream_for_send_message),
 * zerver/lib/addressee.py, zerver/lib/recipient_users.py, zerver/lib/narrow.py, zerver/actions/message_flags.py
 * and zerver/lib/message_cache.py (MessageDict).
 */
#include "model/messages.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/html.h"
#include "core/ids.h"
#include "core/jsonx.h"
#include "core/log.h"
#include "core/utf8.h"
#include "db/db.h"
#include "events/events.h"
#include "core/uow.h"
#include "model/attachment_space.h"
#include "model/attachments.h"
#include "model/channel_cache.h"
#include "model/channels.h"
#include "model/linkifiers.h"
#include "model/markdown.h"
#include "model/message_json.h"
#include "model/narrow.h"
#include "model/permissions.h"
#include "model/realm.h"
#include "model/realm_emoji.h"
#include "model/user.h"
#include "model/user_topics.h"

/* ---- small helpers ------------------------------------------------------------------------------------------- */

/* A growable array of ids in the request's arena. */

/* Decodes the UTF-8 code point at s[*i] (len bytes) and advances *i; a malformed byte reads as U+D800. */
static uint32_t utf8_next(const char *s, size_t len, size_t *i)
{
	const unsigned char *u = (const unsigned char *)s + *i;
	size_t left = len - *i;
	int n = u[0] < 0x80 ? 1 : (u[0] & 0xe0) == 0xc0 ? 2 : (u[0] & 0xf0) == 0xe0 ? 3 : (u[0] & 0xf8) == 0xf0 ? 4 : 0;
	if (n == 0 || (size_t)n > left) {
		(*i)++;
		return 0xd800;
	}
	uint32_t cp = n == 1 ? u[0] : u[0] & (0x7f >> n);
	for (int k = 1; k < n; k++) {
		if ((u[k] & 0xc0) != 0x80) {
			(*i)++;
			return 0xd800;
		}
		cp = (cp << 6) | (u[k] & 0x3f);
	}
	*i += (size_t)n;
	return cp;
}

/* Python's str.isspace(). */
/* Narrows s[*start, *end) to drop white space at the end (and at the start when both). */
static void strip_space(const char *s, size_t *start, size_t *end, bool both)
{
	size_t i = *start, last = *start;
	bool leading = both;
	while (i < *end) {
		bool sp = utf8_is_space(utf8_next(s, *end, &i));
		if (leading && sp)
			*start = i;
		else
			leading = false;
		if (!sp)
			last = i;
	}
	*end = last > *start ? last : *start;
}

/* s (len bytes) cut to max code points, the last ones replaced by suffix when it was longer. */
static const char *truncate_cp(struct uow *uow, const char *s, size_t len, size_t max, const char *suffix)
{
	if (utf8_length(arena_strndup(&uow->arena, s, len)) <= max)
		return arena_strndup(&uow->arena, s, len);
	size_t keep = max - utf8_length(suffix), i = 0;
	for (size_t n = 0; n < keep && i < len; n++)
		utf8_next(s, len, &i);
	return arena_printf(&uow->arena, "%.*s%s", (int)i, s, suffix);
}

/* ---- checks before sending ----------------------------------------------------------------------------------- */

const char *message_normalize_content(struct uow *uow, const char *raw, size_t len)
{
	/* body.rstrip().lstrip("\n") */
	size_t start = 0, end = len;
	strip_space(raw, &start, &end, false);
	while (start < end && raw[start] == '\n')
		start++;
	if (start == end) {
		uow_error(uow, ERR_BAD_REQUEST, "Message must not be empty");
		return NULL;
	}
	if (memchr(raw + start, '\0', end - start) != NULL) {
		uow_error(uow, ERR_BAD_REQUEST, "Message must not contain null bytes");
		return NULL;
	}
	return truncate_cp(uow, raw + start, end - start, MESSAGE_MAX_LENGTH, "\n[message truncated]");
}

const char *message_clean_topic(struct uow *uow, const char *raw, size_t len)
{
	size_t start = 0, end = len;
	strip_space(raw, &start, &end, true);
	const char *topic = arena_strndup(&uow->arena, raw + start, end - start);
	if (end - start == strlen(topic) &&
	    (strcmp(topic, "(no topic)") == 0 || strcmp(topic, REALM_EMPTY_TOPIC_DISPLAY_NAME) == 0))
		return "";
	size_t i = start;
	for (int pos = 1; i < end; pos++) {
		if (!utf8_is_printable(utf8_next(raw, end, &i))) {
			uow_error(uow, ERR_BAD_REQUEST, "Invalid character in topic, at position %d!", pos);
			return NULL;
		}
	}
	return topic;
}

const char *message_truncate_topic(struct uow *uow, const char *topic)
{
	return truncate_cp(uow, topic, strlen(topic), MESSAGE_MAX_TOPIC_LENGTH, "...");
}

const char *message_edit_topic(struct uow *uow, const char *raw, size_t len, int *bad_position)
{
	size_t start = 0, end = len, i;
	strip_space(raw, &start, &end, true);
	*bad_position = 0;
	i = start;
	for (int pos = 1; i < end && *bad_position == 0; pos++)
		if (!utf8_is_printable(utf8_next(raw, end, &i)))
			*bad_position = pos;
	const char *topic = arena_strndup(&uow->arena, raw + start, end - start);
	return strcmp(topic, REALM_EMPTY_TOPIC_DISPLAY_NAME) == 0 ? "" : topic;
}

bool message_is_blank(const char *raw, size_t len)
{
	size_t start = 0, end = len;
	strip_space(raw, &start, &end, false);
	return end == 0;
}

static struct db_stmt st_topic_exists =
    DB_STMT("SELECT EXISTS (SELECT 1 FROM messages WHERE channel_id = $1 AND lower(topic) = lower($2))");
/* A bot may post wherever its owner may: in the owner's can_send_message_group, or subscribed. */
static struct db_stmt st_owner_may = DB_STMT("SELECT confab_group_contains($1, $2), EXISTS (SELECT 1 FROM subscriptions"
                                             "  WHERE user_id = $2 AND channel_id = $3 AND active)");

/* For a bot sender: whether its owner is in the send group (column 0) and subscribed (column 1). */
static bool owner_may(struct uow *uow, const struct channel *c, int column)
{
	const struct user *u = uow->user;
	if (!u->is_bot || u->bot_owner_id == 0)
		return false;
	struct db_res *res = DB_EXEC(uow, &st_owner_may, db_arg_int(uow, c->settings[CS_SEND_MESSAGE]),
	                             db_arg_int(uow, u->bot_owner_id), db_arg_int(uow, c->id));
	return res != NULL && db_bool(res, 0, column);
}

/* The reference's access_stream_for_send_message. */
static int check_channel_access(struct uow *uow, const struct channel *c)
{
	if (!perm_channel_send(uow, c) && !owner_may(uow, c, 0))
		return uow->error
		           ? -1
		           : uow_error(uow, ERR_BAD_REQUEST, "You do not have permission to post in this channel.");
	if (!c->is_archived && ((!c->invite_only && !user_is_guest(uow->user)) || c->is_subscribed))
		return 0;
	if (!c->is_archived && owner_may(uow, c, 1))
		return 0;
	return uow_error(uow, ERR_BAD_REQUEST, "Not authorized to send to channel '%s'", c->name);
}

/* The channel's topics_policy, or the organization's (read with it, model/cache.h) when the channel inherits it. */
static const char *topics_policy(struct uow *uow, const struct channel *c)
{
	return strcmp(c->topics_policy, "inherit") != 0 ? c->topics_policy : uow->realm->topics_policy;
}

int message_check_channel_send(struct uow *uow, const struct channel *c, const char *topic)
{
	if (check_channel_access(uow, c) < 0)
		return -1;
	if (!perm_channel_create_topic(uow, c)) {
		struct db_res *res = DB_EXEC(uow, &st_topic_exists, db_arg_int(uow, c->id), topic);
		if (res == NULL)
			return -1;
		if (!db_bool(res, 0, 0))
			return uow_error(uow, ERR_BAD_REQUEST,
			                 "You do not have permission to create new topics in this channel.");
	}
	const char *policy = topics_policy(uow, c);
	if (strcmp(policy, "disable_empty_topic") == 0 && *topic == '\0')
		return uow_error(uow, ERR_BAD_REQUEST, "Sending messages to the %s is not allowed in this channel.",
		                 REALM_EMPTY_TOPIC_DISPLAY_NAME);
	if (strcmp(policy, "empty_topic_only") == 0 && *topic != '\0')
		return uow_error(uow, ERR_BAD_REQUEST, "Only the %s topic is allowed in this channel.",
		                 REALM_EMPTY_TOPIC_DISPLAY_NAME);
	return 0;
}

int message_channel_indicator(struct uow *uow, const char *to, int64_t *id, const char **name)
{
	json_object *data = NULL;
	*id = 0;
	*name = NULL;
	int rc = uow_parse_client_json(uow, to, strlen(to), &data);
	if (rc < 0)
		return -1;
	if (rc > 0) {
		*name = to;
		return 0;
	}
	if (json_object_is_type(data, json_type_array)) {
		if (json_object_array_length(data) != 1)
			return uow_error(uow, ERR_BAD_REQUEST, "Expected exactly one channel");
		data = json_object_array_get_idx(data, 0);
	}
	if (json_object_is_type(data, json_type_string))
		*name = arena_strdup(&uow->arena, json_object_get_string(data));
	else if (json_object_is_type(data, json_type_int))
		*id = json_object_get_int64(data);
	else
		return uow_error(uow, ERR_BAD_REQUEST, "Invalid data type for channel");
	return 0;
}

const struct channel *message_channel_for_send(struct uow *uow, int64_t id, const char *name)
{
	if (name != NULL) {
		size_t start = 0, end = strlen(name);
		strip_space(name, &start, &end, true);
		name = arena_strndup(&uow->arena, name + start, end - start);
		if (channel_check_name(uow, name) < 0)
			return NULL;
	}
	const struct channel *c = channel_cache_lookup(uow, id, name);
	/* The first message in 180 days announces is_recently_active (message_events_send()): read, not kept. */
	if (c != NULL && !c->is_recently_active)
		c = name ? channel_by_name(uow, name) : channel_by_id(uow, id);
	if (c != NULL || uow->error)
		return c;
	if (name != NULL) {
		const char *escaped = html_escape(&uow->arena, name);
		uow_error(uow, ERR_STREAM_DOES_NOT_EXIST, "Channel '%s' does not exist", escaped);
		uow_error_field(uow, "stream", json_object_new_string(escaped));
	} else {
		uow_error(uow, ERR_STREAM_DOES_NOT_EXIST, "Channel with ID '%lld' does not exist", (long long)id);
		uow_error_field(uow, "stream_id", json_object_new_int64(id));
	}
	return NULL;
}

/* ---- sending ------------------------------------------------------------------------------------------------- */

/* What Markdown may resolve: users of the organization, its named groups, the channels the sender may link. */
struct md_ctx {
	struct uow *uow;
	int64_t sender_id;
};

static struct db_stmt st_md_user =
    DB_STMT("SELECT id, full_name FROM users WHERE realm_id = $1 AND is_active AND ($2::bigint = 0 OR id = $2)"
            " AND ($3::text IS NULL OR lower(full_name) = lower($3)) ORDER BY id LIMIT 1");
static struct db_stmt st_md_group =
    DB_STMT("SELECT id, name FROM user_groups WHERE realm_id = $1 AND name = $2 AND NOT deactivated");
static struct db_stmt st_md_channel =
    DB_STMT("SELECT c.id, c.name FROM channels c WHERE c.realm_id = $1 AND lower(c.name) = lower($2)"
            " AND (NOT c.invite_only OR EXISTS (SELECT 1 FROM subscriptions s"
            "   WHERE s.channel_id = c.id AND s.user_id = $3 AND s.active))");

static bool md_found(struct db_res *res, int64_t *out_id, const char **out_name)
{
	if (res == NULL || db_rows(res) == 0)
		return false;
	*out_id = db_int(res, 0, 0);
	*out_name = db_val(res, 0, 1);
	return true;
}

static bool md_user(void *ctx, const char *name, int64_t id, int64_t *out_id, const char **out_name)
{
	struct md_ctx *c = ctx;
	return md_found(DB_EXEC(c->uow, &st_md_user, db_arg_int(c->uow, c->uow->realm->id),
	                        db_arg_int(c->uow, id > 0 ? id : 0), name),
	                out_id, out_name);
}

static bool md_group(void *ctx, const char *name, int64_t *out_id, const char **out_name)
{
	struct md_ctx *c = ctx;
	return md_found(DB_EXEC(c->uow, &st_md_group, db_arg_int(c->uow, c->uow->realm->id), name), out_id, out_name);
}

static bool md_channel(void *ctx, const char *name, int64_t *out_id, const char **out_name)
{
	struct md_ctx *c = ctx;
	return md_found(DB_EXEC(c->uow, &st_md_channel, db_arg_int(c->uow, c->uow->realm->id), name,
	                        db_arg_int(c->uow, c->sender_id)),
	                out_id, out_name);
}

/* An active custom emoji of the organization: its image URL (the reference renders realm emoji before Unicode ones). */
static bool md_custom_emoji(void *ctx, const char *name, const char **out_url)
{
	struct md_ctx *c = ctx;
	struct realm_emoji *e = realm_emoji_active(c->uow, name);
	if (e == NULL)
		return false;
	*out_url = e->source_url;
	return true;
}

/* Subscribers (active users), topic participants counting the sender, and whether the sender may mention many. */
static struct db_stmt st_wildcard_facts =
    DB_STMT("SELECT (SELECT count(*) FROM subscriptions s JOIN users u ON u.id = s.user_id"
            "   WHERE s.channel_id = $1 AND s.active AND u.is_active),"
            " (SELECT count(*) FROM (SELECT sender_id FROM messages WHERE channel_id = $1 AND lower(topic) = lower($2)"
            "   UNION SELECT $3::bigint) p),"
            " (SELECT confab_group_contains(r.can_mention_many_users_group_id, $3) FROM realms r WHERE r.id = $4)");
/* The first mentioned group whose can_mention_group the sender is not in. */
static struct db_stmt st_group_mention_refused = DB_STMT(
    "SELECT g.name FROM user_groups g LEFT JOIN user_groups cm ON cm.id = g.can_mention_group_id"
    " WHERE g.id = ANY($1::bigint[]) AND NOT (cm.id IS NULL OR (cm.is_system_group AND cm.name = 'role:everyone')"
    "   OR confab_group_contains(cm.id, $2)) ORDER BY g.id LIMIT 1");

/* The reference's wildcard and group mention permissions (check_message, after rendering). */
static int check_mentions(struct uow *uow, const struct message_draft *d, const struct markdown_result *md)
{
	if (d->channel != NULL && (md->stream_wildcard || md->topic_wildcard)) {
		struct db_res *res = DB_EXEC(uow, &st_wildcard_facts, db_arg_int(uow, d->channel->id), d->topic,
		                             db_arg_int(uow, d->sender->id), db_arg_int(uow, uow->realm->id));
		if (res == NULL)
			return -1;
		bool may = db_bool(res, 0, 2);
		if (md->stream_wildcard && db_int(res, 0, 0) > MESSAGE_WILDCARD_THRESHOLD && !may)
			return uow_error(uow, ERR_STREAM_WILDCARD_MENTION_NOT_ALLOWED, NULL);
		if (md->topic_wildcard && db_int(res, 0, 1) > MESSAGE_WILDCARD_THRESHOLD && !may)
			return uow_error(uow, ERR_TOPIC_WILDCARD_MENTION_NOT_ALLOWED, NULL);
	}
	if (md->mentioned_groups.n == 0)
		return 0;
	struct db_res *res =
	    DB_EXEC(uow, &st_group_mention_refused, db_arg_ids(uow, md->mentioned_groups.v, md->mentioned_groups.n),
	            db_arg_int(uow, d->sender->id));
	if (res == NULL)
		return -1;
	if (db_rows(res) > 0)
		return uow_error(uow, ERR_BAD_REQUEST, "You are not allowed to mention user group '%s'.",
		                 db_val(res, 0, 0));
	return 0;
}

static struct db_stmt st_set_has_attachment = DB_STMT("UPDATE messages SET has_attachment = true WHERE id = $1");

/*
 * The message row and every recipient's row in one statement (one round trip): the messages INSERT feeds the
 * user_messages INSERT ... SELECT, and the answer is the new id with each recipient's (user_id, flags), or the id
 * alone with NULLs when there is no recipient. $1 realm, $2 sender, $4 base flags, $5 read by sender, $6 mentioned
 * users, $7 mentioned groups (their members count as mentioned). Channel messages ($3 the channel) go to the active
 * subscribers (and to generic bots mentioned by name); $8 topic wildcard: flags the topic's participants (who sent
 * to it before, and the sender). Direct messages ($3 the sorted participants) create their conversation's row
 * with their first message.
 */
/* The group members are looked up only when a group is mentioned: their hashed subplan (a hash table sized for the
 * planner's guess of the groups' members, some 400 kB) is built when first evaluated. */
#define RECIPIENT_FLAGS                                                                                                \
	"$4::int | CASE WHEN r.id = $2 AND $5 THEN 1 ELSE 0 END"                                                       \
	" | CASE WHEN r.id = ANY($6::bigint[]) OR (cardinality($7::bigint[]) > 0 AND r.id IN (SELECT gm.user_id"       \
	"   FROM unnest($7::bigint[]) AS g (id), LATERAL confab_group_members(g.id) gm)) THEN 8 ELSE 0 END"
#define SEND_ANSWER " SELECT msg.id, ins.user_id, ins.flags FROM msg LEFT JOIN ins ON true"
/* Generic plans: PostgreSQL estimated its custom plans cheaper, and so planned each send anew (0.6 ms a plan under the
 * bench's load, a fifth of its CPU); the generic plan is the same plan. */
/* clang-format off */
static struct db_stmt st_send_channel = DB_STMT_GENERIC(
    "WITH msg AS (INSERT INTO messages (realm_id, sender_id, channel_id, topic, content, rendered_content, client,"
    "   has_image, has_link) VALUES ($1, $2, $3, $9, $10, $11, $12, $13, $14) RETURNING id),"
    " rcpt AS ("
                  " SELECT s.user_id AS id FROM subscriptions s"
                  "   WHERE s.channel_id = $3 AND s.active AND " USER_ACTIVE_SQL("s.user_id")
                  " UNION SELECT u.id FROM users u WHERE u.id = ANY($6::bigint[]) AND u.realm_id = $1 AND u.is_active"
                  "   AND u.is_bot AND u.bot_type = 1),"
                  " ins AS (INSERT INTO user_messages (user_id, message_id, flags) SELECT r.id, msg.id, " RECIPIENT_FLAGS
                  " | CASE WHEN $8 AND (r.id = $2 OR EXISTS (SELECT 1 FROM messages pm WHERE pm.channel_id = $3"
                  "   AND lower(pm.topic) = lower($9) AND pm.sender_id = r.id)) THEN 32 ELSE 0 END"
                  " FROM rcpt r, msg RETURNING user_id, flags)" SEND_ANSWER);
static struct db_stmt st_send_direct = DB_STMT_GENERIC(
    "WITH dc AS (INSERT INTO direct_conversations (realm_id, user_ids) VALUES ($1, $3::bigint[])"
    "   ON CONFLICT (realm_id, user_ids) DO UPDATE SET realm_id = EXCLUDED.realm_id RETURNING id),"
    " msg AS (INSERT INTO messages (realm_id, sender_id, direct_conversation_id, topic, content, rendered_content,"
    "   client, has_image, has_link) SELECT $1, $2, dc.id, $8, $9, $10, $11, $12, $13 FROM dc RETURNING id),"
    " ins AS (INSERT INTO user_messages (user_id, message_id, flags) SELECT r.id, msg.id, " RECIPIENT_FLAGS
    "   FROM unnest($3::bigint[]) AS r (id), msg RETURNING user_id, flags)" SEND_ANSWER);
/* clang-format on */

/*
 * The Message object of the message the transaction inserted last (currval() of the ids' sequence, a subquery so
 * that the index is used), as every recipient gets it (event_message()), pipelined after the insert. $1 the
 * placeholder e-mail domain.
 */
static struct db_stmt st_sent_object =
    DB_STMT_GENERIC("WITH" MESSAGE_DICT_CTES("ARRAY(SELECT currval('messages_id_seq'))", "$1", "true",
                                             "false") " SELECT" MESSAGE_DICT_COLUMNS("$1") MESSAGE_DICT_FROM);

/* Stores the message and its recipients' rows (st_send_channel or st_send_direct) and reads its Message object:
 * out->id, recipients and object. */
static int insert_message(struct uow *uow, const struct message_draft *d, const struct markdown_result *md,
                          struct message_sent *out)
{
	int base = (md->stream_wildcard ? MF_STREAM_WILDCARD_MENTIONED : 0) | (d->channel ? 0 : MF_IS_PRIVATE);
	const char *realm = db_arg_int(uow, uow->realm->id), *sender = db_arg_int(uow, d->sender->id);
	const char *users = db_arg_ids(uow, md->mentioned_users.v, md->mentioned_users.n);
	const char *groups = db_arg_ids(uow, md->mentioned_groups.v, md->mentioned_groups.n);
	const char *read = d->read_by_sender ? "true" : "false", *flags = db_arg_int(uow, base);
	const char *client = d->client ? d->client : "API";
	const char *image = md->has_image ? "true" : "false", *link = md->has_link ? "true" : "false";
	const char *wildcard = md->topic_wildcard ? "true" : "false";
	const char *channel = d->channel ? db_arg_int(uow, d->channel->id) : NULL;
	const char *participants = db_arg_ids(uow, d->participants, d->n_participants);
	const char *channel_args[] = {realm,    sender,   channel,    flags,    read,   users, groups,
	                              wildcard, d->topic, d->content, md->html, client, image, link};
	const char *direct_args[] = {realm, sender,     participants, flags,  read,  users, groups,
	                             "",    d->content, md->html,     client, image, link};
	const char *object_args[] = {realm_fake_email_domain(uow, uow->realm)};
	struct db_res *res = d->channel
	                         ? db_exec_pair(uow, &st_send_channel, channel_args, DB_NFIELDS(channel_args),
	                                        &st_sent_object, object_args, DB_NFIELDS(object_args), &out->object)
	                         : db_exec_pair(uow, &st_send_direct, direct_args, DB_NFIELDS(direct_args),
	                                        &st_sent_object, object_args, DB_NFIELDS(object_args), &out->object);
	if (res == NULL)
		return -1;
	int rows = db_rows(res);
	if (rows == 0)
		return uow_error(uow, ERR_INTERNAL, NULL);
	out->id = db_int(res, 0, 0);
	out->n_recipients = db_null(res, 0, 1) ? 0 : rows;
	out->recipients = arena_alloc(&uow->arena, (size_t)(out->n_recipients + 1) * sizeof(*out->recipients));
	for (int i = 0; i < out->n_recipients; i++) {
		out->recipients[i].user_id = db_int(res, i, 1);
		out->recipients[i].flags = (int)db_int(res, i, 2);
	}
	return 0;
}

int message_render(struct uow *uow, const struct message_draft *d, struct markdown_result *md)
{
	struct md_ctx ctx = {uow, d->sender->id};
	struct markdown_lookup lookup = {&ctx, md_user, md_group, md_channel, md_custom_emoji, linkifiers_linkify, uow};
	memset(md, 0, sizeof(*md));
	if (linkifiers_load(uow) < 0)
		return -1;
	int rendered = markdown_render(uow, d->content, &lookup, md);
	if (uow->error)
		return -1;
	if (rendered < 0) { /* the reference's MarkdownRenderingError */
		log_msg(LOG_WARNING, "request %llu: could not render a message of %zu bytes in time or size", uow->id,
		        strlen(d->content));
		return uow_error(uow, ERR_BAD_REQUEST, "Unable to render message");
	}
	if (!d->skip_mention_checks && check_mentions(uow, d, md) < 0)
		return -1;
	return 0;
}

int message_send(struct uow *uow, const struct message_draft *d, struct message_sent *out)
{
	struct markdown_result md;
	if (message_render(uow, d, &md) < 0)
		return -1;
	memset(out, 0, sizeof(*out));
	if (insert_message(uow, d, &md, out) < 0)
		return -1;
	int attached = attachments_link_message(uow, out->id, d->sender->id, d->content, true);
	if (attached < 0)
		return -1;
	if (attached > 0 && (DB_EXEC(uow, &st_set_has_attachment, db_arg_int(uow, out->id)) == NULL ||
	                     attachment_space_claimed(uow, out->id, d->sender->id, NULL, 0) < 0))
		return -1;
	return 0;
}

/* ---- access -------------------------------------------------------------------------------------------------- */

#define REF_SELECT                                                                                                     \
	"SELECT m.id, m.sender_id, COALESCE(u.bot_owner_id, 0), COALESCE(m.channel_id, 0),"                            \
	" extract(epoch FROM m.date_sent)::bigint, m.content, um.flags IS NOT NULL, COALESCE(um.flags, 129)"           \
	" FROM messages m JOIN users u ON u.id = m.sender_id"                                                          \
	" LEFT JOIN user_messages um ON um.message_id = m.id AND um.user_id = $2"                                      \
	" WHERE m.id = $1 AND m.realm_id = $3"
static struct db_stmt st_ref = DB_STMT(REF_SELECT);
static struct db_stmt st_ref_locked = DB_STMT(REF_SELECT " FOR UPDATE OF m");

/* The reference's has_message_access, given the message's channel as the user sees it. */
static bool may_read(struct uow *uow, const struct message_ref *m, bool modifying)
{
	const struct channel *c = m->channel;
	if (c == NULL)
		return m->has_user_message;
	if (c->is_archived && modifying)
		return false;
	if (!c->invite_only && !user_is_guest(uow->user))
		return true;
	if (!c->history_public_to_subscribers)
		return m->has_user_message && c->is_subscribed;
	return c->content_access;
}

struct message_ref *message_find(struct uow *uow, int64_t id, bool modifying)
{
	struct db_res *res = DB_EXEC(uow, modifying ? &st_ref_locked : &st_ref, db_arg_int(uow, id),
	                             db_arg_int(uow, uow->user->id), db_arg_int(uow, uow->realm->id));
	if (res == NULL)
		return NULL;
	struct message_ref *m = NULL;
	if (db_rows(res) == 1) {
		m = arena_alloc(&uow->arena, sizeof(*m));
		m->id = db_int(res, 0, 0);
		m->sender_id = db_int(res, 0, 1);
		m->sender_bot_owner_id = db_int(res, 0, 2);
		m->channel_id = db_int(res, 0, 3);
		m->date_sent = db_int(res, 0, 4);
		m->content = db_val(res, 0, 5);
		m->has_user_message = db_bool(res, 0, 6);
		m->flags = (int)db_int(res, 0, 7);
		if (m->channel_id && (m->channel = channel_by_id(uow, m->channel_id)) == NULL)
			m = NULL;
	}
	return m != NULL && may_read(uow, m, modifying) ? m : NULL;
}

struct message_ref *message_access_or_error(struct uow *uow, int64_t id, bool modifying)
{
	struct message_ref *m = message_find(uow, id, modifying);
	if (m == NULL)
		uow_error(uow, ERR_BAD_REQUEST, "Invalid message(s)"); /* kept: a failure recorded first wins */
	return m;
}

static struct db_stmt st_max_id = DB_STMT("SELECT COALESCE(max(message_id), -1) FROM user_messages WHERE user_id = $1");

int64_t message_max_id_for_user(struct uow *uow, int64_t user_id)
{
	struct db_res *res = DB_EXEC(uow, &st_max_id, db_arg_int(uow, user_id));
	return res != NULL ? db_int(res, 0, 0) : 0;
}

static struct db_stmt st_delete_limit =
    DB_STMT("SELECT r.message_content_delete_limit_seconds IS NOT NULL"
            " AND now() - to_timestamp($2) > make_interval(secs => r.message_content_delete_limit_seconds)"
            " FROM realms r WHERE r.id = $1");

bool message_delete_time_passed(struct uow *uow, const struct message_ref *m)
{
	struct db_res *res =
	    DB_EXEC(uow, &st_delete_limit, db_arg_int(uow, uow->realm->id), db_arg_int(uow, m->date_sent));
	return res != NULL && db_rows(res) == 1 && db_bool(res, 0, 0);
}

static struct db_stmt st_delete = DB_STMT("DELETE FROM messages WHERE id = $1");

int message_delete(struct uow *uow, int64_t id)
{
	return DB_EXEC(uow, &st_delete, db_arg_int(uow, id)) != NULL ? 0 : -1;
}

/* ---- flags --------------------------------------------------------------------------------------------------- */

/* The reference's UserMessage flags as the API names them, in its order; bit 0: a flag confab never sets. */
static const struct {
	const char *name;
	int bit;
	bool editable;
} flag_table[] = {
    {"read", MF_READ, true},
    {"starred", MF_STARRED, true},
    {"collapsed", MF_COLLAPSED, true},
    {"mentioned", MF_MENTIONED, false},
    {"stream_wildcard_mentioned", MF_STREAM_WILDCARD_MENTIONED, false},
    {"topic_wildcard_mentioned", MF_TOPIC_WILDCARD_MENTIONED, false},
    {"group_mentioned", 0, false},
    {"force_expand", 0, false},
    {"force_collapse", 0, false},
    {"has_alert_word", MF_HAS_ALERT_WORD, false},
    {"historical", MF_HISTORICAL, false},
};
#define N_FLAGS ((int)(sizeof(flag_table) / sizeof(flag_table[0])))

json_object *message_flags_json(int flags)
{
	json_object *a = json_object_new_array();
	for (int i = 0; i < N_FLAGS; i++)
		if (flag_table[i].bit && (flags & flag_table[i].bit))
			json_object_array_add(a, json_object_new_string(flag_table[i].name));
	if (flags & (MF_STREAM_WILDCARD_MENTIONED | MF_TOPIC_WILDCARD_MENTIONED))
		json_object_array_add(a, json_object_new_string("wildcard_mentioned"));
	return a;
}

/* Channel messages of ids in channels the user is not subscribed to: marking them unread is skipped. */
static struct db_stmt st_unsubscribed =
    DB_STMT("SELECT m.id, m.channel_id FROM messages m WHERE m.id = ANY($1::bigint[]) AND m.realm_id = $3"
            " AND m.channel_id IS NOT NULL AND NOT EXISTS (SELECT 1 FROM subscriptions s"
            "   WHERE s.user_id = $2 AND s.channel_id = m.channel_id AND s.active) ORDER BY m.channel_id");
static struct db_stmt st_lock_rows =
    DB_STMT("SELECT message_id, flags FROM user_messages WHERE user_id = $1 AND message_id = ANY($2::bigint[])"
            " ORDER BY message_id FOR UPDATE");
static struct db_stmt st_messages_of = DB_STMT("SELECT id, COALESCE(channel_id, 0) FROM messages"
                                               " WHERE id = ANY($1::bigint[]) AND realm_id = $2 ORDER BY 2");
static struct db_stmt st_insert_historical =
    DB_STMT("INSERT INTO user_messages (user_id, message_id, flags) SELECT $1, m.id, $3 FROM messages m"
            " WHERE m.id = ANY($2::bigint[]) FOR KEY SHARE OF m");
static struct db_stmt st_update_flags =
    DB_STMT("UPDATE user_messages SET flags = CASE WHEN $3 THEN flags | $4 ELSE flags & ~$4::int END"
            " WHERE user_id = $1 AND message_id = ANY($2::bigint[])");

/* Removes from *ids the messages in unsubscribed channels; their channels go to *ignored. */
static int drop_unsubscribed(struct uow *uow, struct ids *ids, json_object **ignored)
{
	struct db_res *res = DB_EXEC(uow, &st_unsubscribed, db_arg_ids(uow, ids->v, ids->n),
	                             db_arg_int(uow, uow->user->id), db_arg_int(uow, uow->realm->id));
	if (res == NULL)
		return -1;
	struct ids skip = {0};
	for (int r = 0; r < db_rows(res); r++) {
		ids_push(&uow->arena, &skip, db_int(res, r, 0));
		size_t n = json_object_array_length(*ignored);
		if (n == 0 || json_object_get_int64(json_object_array_get_idx(*ignored, n - 1)) != db_int(res, r, 1))
			json_object_array_add(*ignored, json_object_new_int64(db_int(res, r, 1)));
	}
	if (skip.n > 1) /* qsort needs a non-NULL array even for 0 elements */
		qsort(skip.v, (size_t)skip.n, sizeof(*skip.v), ids_cmp);
	int k = 0;
	for (int i = 0; i < ids->n; i++)
		if (skip.n == 0 || bsearch(&ids->v[i], skip.v, (size_t)skip.n, sizeof(*skip.v), ids_cmp) == NULL)
			ids->v[k++] = ids->v[i];
	ids->n = k;
	return 0;
}

/* The reference's bulk_access_messages for messages the user has no row for: all of them must be readable. */
static int check_historical_access(struct uow *uow, const struct ids *ids)
{
	struct db_res *res =
	    DB_EXEC(uow, &st_messages_of, db_arg_ids(uow, ids->v, ids->n), db_arg_int(uow, uow->realm->id));
	if (res == NULL)
		return -1;
	bool ok = db_rows(res) == ids->n;
	struct channel *c = NULL; /* the rows come by channel: each is loaded once */
	for (int r = 0; r < db_rows(res) && ok; r++) {
		struct message_ref m = {.id = db_int(res, r, 0), .channel_id = db_int(res, r, 1)};
		if (m.channel_id && (c == NULL || c->id != m.channel_id) &&
		    (c = channel_by_id(uow, m.channel_id)) == NULL)
			return uow_error(uow, ERR_BAD_REQUEST, "Invalid message(s)");
		m.channel = m.channel_id ? c : NULL;
		ok = may_read(uow, &m, false);
	}
	return ok ? 0 : uow_error(uow, ERR_BAD_REQUEST, "Invalid message(s)");
}

static int flag_bit(struct uow *uow, const char *op, const char *flag)
{
	for (int i = 0; i < N_FLAGS; i++) {
		if (strcmp(flag_table[i].name, flag) != 0)
			continue;
		if (!flag_table[i].editable)
			return uow_error(uow, ERR_BAD_REQUEST, "Flag not editable: '%s'", flag);
		if (strcmp(op, "add") != 0 && strcmp(op, "remove") != 0)
			return uow_error(uow, ERR_BAD_REQUEST, "Invalid message flag operation: '%s'", op);
		return flag_table[i].bit;
	}
	return uow_error(uow, ERR_BAD_REQUEST, "Invalid flag: '%s'", flag);
}

/* ids sorted, duplicates removed (arena). */
static struct ids sorted_unique(struct uow *uow, const int64_t *ids, int n)
{
	struct ids out = {arena_alloc(&uow->arena, (size_t)(n + 1) * sizeof(int64_t)), 0, n + 1};
	memcpy(out.v, ids, (size_t)n * sizeof(int64_t));
	qsort(out.v, (size_t)n, sizeof(int64_t), ids_cmp);
	for (int i = 0; i < n; i++)
		if (out.n == 0 || out.v[out.n - 1] != out.v[i])
			out.v[out.n++] = out.v[i];
	return out;
}

/* Splits todo (sorted) into messages whose flag must change: with a row (rows, sorted), and without one (a message
 * without a row reads as read and historical). */
static void split_changes(struct uow *uow, const struct ids *todo, const struct db_res *rows, int bit, int target,
                          struct ids *existing, struct ids *historical)
{
	int r = 0;
	for (int i = 0; i < todo->n; i++) {
		while (r < db_rows(rows) && db_int(rows, r, 0) < todo->v[i])
			r++;
		bool has_row = r < db_rows(rows) && db_int(rows, r, 0) == todo->v[i];
		int flags = has_row ? (int)db_int(rows, r, 1) : MF_DEFAULT_HISTORICAL;
		if ((flags & bit) != target)
			ids_push(&uow->arena, has_row ? existing : historical, todo->v[i]);
	}
}

/* The ids of ids (in request order, repeats kept, as the reference's event lists them) found in a or b (sorted). */
static int64_t *in_request_order(struct uow *uow, const int64_t *ids, int n, const struct ids *a, const struct ids *b,
                                 int *out)
{
	int64_t *r = arena_alloc(&uow->arena, (size_t)(n + 1) * sizeof(*r));
	*out = 0;
	for (int i = 0; i < n; i++)
		if ((a->n && bsearch(&ids[i], a->v, (size_t)a->n, sizeof(*a->v), ids_cmp)) ||
		    (b->n && bsearch(&ids[i], b->v, (size_t)b->n, sizeof(*b->v), ids_cmp)))
			r[(*out)++] = ids[i];
	return r;
}

int message_update_flags(struct uow *uow, const char *op, const char *flag, const int64_t *ids, int n,
                         json_object **ignored, int64_t **changed, int *nchanged)
{
	*ignored = uow_own_json(uow, json_object_new_array());
	*changed = NULL;
	*nchanged = 0;
	int bit = flag_bit(uow, op, flag);
	if (bit < 0)
		return -1;
	bool add = strcmp(op, "add") == 0;
	int target = add ? bit : 0;
	struct ids todo = sorted_unique(uow, ids, n);
	if (bit == MF_READ && !add && todo.n > 0 && drop_unsubscribed(uow, &todo, ignored) < 0)
		return -1;
	struct db_res *rows =
	    DB_EXEC(uow, &st_lock_rows, db_arg_int(uow, uow->user->id), db_arg_ids(uow, todo.v, todo.n));
	if (rows == NULL)
		return -1;
	struct ids existing = {0}, historical = {0};
	split_changes(uow, &todo, rows, bit, target, &existing, &historical);
	*changed = in_request_order(uow, ids, n, &existing, &historical, nchanged);
	if (historical.n > 0) {
		if (check_historical_access(uow, &historical) < 0)
			return -1;
		int flags = (MF_DEFAULT_HISTORICAL & ~bit) | target;
		if (DB_EXEC(uow, &st_insert_historical, db_arg_int(uow, uow->user->id),
		            db_arg_ids(uow, historical.v, historical.n), db_arg_int(uow, flags)) == NULL)
			return -1;
	}
	if (existing.n > 0 &&
	    DB_EXEC(uow, &st_update_flags, db_arg_int(uow, uow->user->id), db_arg_ids(uow, existing.v, existing.n),
	            add ? "true" : "false", db_arg_int(uow, bit)) == NULL)
		return -1;
	return existing.n + historical.n;
}

/* ---- narrows: the database side of narrow.c ---------------------------------------------------------------- */

static struct db_stmt st_narrow_user_by_id = DB_STMT("SELECT id FROM users WHERE realm_id = $1 AND id = $2");
static struct db_stmt st_conversation =
    DB_STMT("SELECT id FROM direct_conversations WHERE realm_id = $1 AND user_ids = $2::bigint[]");
static struct db_stmt st_with_target =
    DB_STMT("SELECT COALESCE(m.channel_id, 0), m.topic, array_to_json(dc.user_ids)::text FROM messages m"
            " LEFT JOIN direct_conversations dc ON dc.id = m.direct_conversation_id WHERE m.id = $1");

static const struct channel *narrow_channel(struct uow *uow, json_object *operand)
{
	return json_object_is_type(operand, json_type_int)
	           ? channel_cache_lookup(uow, json_object_get_int64(operand), NULL)
	           : channel_cache_lookup(uow, 0, json_object_get_string(operand));
}

/* A user of the realm by API e-mail address or id; 0 if there is none (check uow->error). */
static int64_t narrow_user(struct uow *uow, json_object *operand)
{
	if (json_object_is_type(operand, json_type_int)) {
		struct db_res *res = DB_EXEC(uow, &st_narrow_user_by_id, db_arg_int(uow, uow->realm->id),
		                             db_arg_int(uow, json_object_get_int64(operand)));
		return res != NULL && db_rows(res) ? db_int(res, 0, 0) : 0;
	}
	const char *email = arena_strip(&uow->arena, json_object_get_string(operand));
	struct message_user u;
	return message_users_find(uow, &email, 1, &u) < 0 ? 0 : u.id; /* 0 for none: the caller words the error */
}

static int narrow_dm_users(struct uow *uow, json_object *operand, int64_t **ids, int *n)
{
	struct message_user *users = NULL;
	const char *to =
	    json_object_is_type(operand, json_type_string) ? json_object_get_string(operand) : jsonx_string(operand);
	const char *refusal = NULL;
	int rc = message_lookup_direct(uow, to, &users, n, &refusal);
	if (rc != 0) /* any refusal of the recipients: the narrow words it its own way */
		return rc;
	*ids = arena_alloc(&uow->arena, (size_t)(*n + 1) * sizeof(**ids));
	for (int i = 0; i < *n; i++)
		(*ids)[i] = users[i].id;
	return 0;
}

static int64_t narrow_conversation(struct uow *uow, const int64_t *ids, int n)
{
	struct db_res *res = DB_EXEC(uow, &st_conversation, db_arg_int(uow, uow->realm->id), db_arg_ids(uow, ids, n));
	if (res == NULL)
		return -1;
	return db_rows(res) ? db_int(res, 0, 0) : 0;
}

static int narrow_with_target(struct uow *uow, int64_t id, struct narrow_conversation *out)
{
	if (message_find(uow, id, false) == NULL)
		return uow->error != ERR_NONE ? -1 : 0;
	struct db_res *res = DB_EXEC(uow, &st_with_target, db_arg_int(uow, id));
	if (res == NULL || db_rows(res) == 0)
		return narrow_bad(uow, "Invalid 'with' operator");
	out->channel_id = db_int(res, 0, 0);
	out->topic = db_val(res, 0, 1);
	out->dm_user_ids = NULL;
	if (out->channel_id == 0)
		jsonx_parse(db_val(res, 0, 2), strlen(db_val(res, 0, 2)), &out->dm_user_ids);
	uow_own_json(uow, out->dm_user_ids);
	return 1;
}

static const struct narrow_lookup db_lookup = {
    narrow_channel, narrow_user, narrow_dm_users, narrow_conversation, narrow_with_target,
};

struct narrow *narrow_parse(struct uow *uow, json_object *narrow)
{
	return narrow_parse_with(uow, narrow, &db_lookup);
}

/* ---- the Message object: message_json.c ----------------------------------------------------------------------- */

static void add_json_text(struct uow *uow, json_object *o, const char *key, const char *text)
{
	json_object *v = NULL;
	if (jsonx_parse(text, strlen(text), &v) == 0 && v != NULL)
		json_object_object_add(o, key, v);
	(void)uow;
}

/* ---- events -------------------------------------------------------------------------------------------------- */

static int cmp_recipient(const void *a, const void *b)
{
	const struct message_recipient *x = a, *y = b;
	if (x->flags != y->flags)
		return x->flags < y->flags ? -1 : 1;
	return (x->user_id > y->user_id) - (x->user_id < y->user_id);
}

/* The Message object every recipient gets: HTML content, the topic as stored, no flags (they go beside it). */
static json_object *event_message(struct uow *uow, const struct message_sent *sent)
{
	struct message_format f = {.apply_markdown = true, .allow_empty_topic_name = true};
	int row = 0, flags = 0;
	size_t len = 0;
	const char *text = NULL;
	json_object *list = NULL;
	if (sent->object != NULL && db_rows(sent->object) == 1 && db_int(sent->object, 0, MD_ID) == sent->id)
		text = message_objects_write(uow, sent->object, &row, &flags, 1, &f, &len);
	if (text == NULL || jsonx_parse(text, len, &list) < 0 || uow_own_json(uow, list) == NULL ||
	    json_object_array_length(list) != 1) {
		log_msg(LOG_ERROR, "request %llu: no Message object for message %lld", uow->id, (long long)sent->id);
		uow_error(uow, ERR_INTERNAL, NULL);
		return NULL;
	}
	json_object *msg = json_object_array_get_idx(list, 0);
	json_object_object_del(msg, "flags");
	return json_object_get(msg);
}

int message_events_send(struct uow *uow, const struct message_draft *d, const struct message_sent *sent,
                        const char *queue_id, const char *local_id)
{
	const struct channel *c = d->channel;
	if (c != NULL && !c->is_recently_active) {
		int n;
		int64_t *users = channel_metadata_user_ids(uow, c->id, true, &n);
		if (users == NULL ||
		    channel_events_update(uow, c, "is_recently_active", json_object_new_boolean(true), users, n) < 0)
			return -1;
	}
	json_object *msg = event_message(uow, sent);
	if (msg == NULL)
		return -1;
	json_object *event = uow_own_json(uow, json_object_new_object());
	json_object_object_add(event, "type", json_object_new_string("message"));
	json_object_object_add(event, "message", msg);
	/* For events.c: the source for apply_markdown=false queues, and the conversation for narrows. */
	json_object_object_add(event, "_raw_content", json_object_new_string(d->content));
	if (c != NULL) {
		json_object_object_add(event, "_channel_id", json_object_new_int64(c->id));
		json_object_object_add(event, "_topic", json_object_new_string(d->topic));
	} else {
		json_object_object_add(event, "_dm_user_ids", ids_json(d->participants, d->n_participants));
	}
	/* client_gravatar queues get avatar_url null when it is a Gravatar anyone may compute (the reference's
	 * finalize_payload: Gravatar avatar, address visible to everyone). */
	if (d->sender->avatar_source == 'G' && d->sender->email_address_visibility == 1)
		json_object_object_add(event, "_gravatar", json_object_new_boolean(true));
	/* The sender's queue that sent it gets local_message_id (the reference's sender_queue_id and local_id). */
	if (queue_id != NULL)
		json_object_object_add(event, "_sender_queue_id", json_object_new_string(queue_id));
	if (local_id != NULL)
		json_object_object_add(event, "_local_id", json_object_new_string(local_id));
	int n = sent->n_recipients;
	struct message_recipient *r = arena_alloc(&uow->arena, (size_t)(n + 1) * sizeof(*r));
	int64_t *users = arena_alloc(&uow->arena, (size_t)(n + 1) * sizeof(*users));
	memcpy(r, sent->recipients, (size_t)n * sizeof(*r));
	qsort(r, (size_t)n, sizeof(*r), cmp_recipient);
	for (int i = 0, k; i < n; i = k) {
		for (k = i; k < n && r[k].flags == r[i].flags; k++)
			users[k - i] = r[k].user_id;
		json_object_object_add(event, "flags", message_flags_json(r[i].flags));
		if (events_add(uow, event, users, k - i, 0) < 0)
			return -1;
	}
	if (c == NULL || c->invite_only)
		return 0;
	/* all_public_streams queues get it without flags, unless their user is a recipient (events.c). */
	for (int i = 0; i < n; i++)
		users[i] = sent->recipients[i].user_id;
	json_object_object_add(event, "flags", json_object_new_array());
	json_object_object_add(event, "_exclude_user_ids", ids_json(users, n));
	return events_add(uow, event, users, 0, EV_ALL_PUBLIC);
}

/* Who hears of an action on a message (a deletion, a reaction): direct messages, those who received it; protected
 * history, subscribers who received it; private channels, the subscribers; public channels, the subscribers and the
 * non-guests who have a copy. $2: 0 direct, 1 protected, 2 private, 3 public. And $4 (0 for none). */
static struct db_stmt st_audience = DB_STMT(
    "WITH subs AS (SELECT s.user_id FROM subscriptions s JOIN users u ON u.id = s.user_id"
    "   WHERE s.channel_id = $3 AND s.active AND u.is_active),"
    " copies AS (SELECT um.user_id FROM user_messages um JOIN users u ON u.id = um.user_id"
    "   WHERE um.message_id = $1 AND ($2 <> 3 OR u.role <> 600))"
    " SELECT id FROM (SELECT user_id AS id FROM copies WHERE $2 IN (0, 3) OR ($2 = 1 AND user_id IN (SELECT "
    "user_id FROM subs))"
    "   UNION SELECT user_id FROM subs WHERE $2 >= 2 UNION SELECT $4::bigint WHERE $4::bigint <> 0) x ORDER BY id");
static struct db_stmt st_delete_topic = DB_STMT(
    "SELECT lower(m.topic), (SELECT min(x.id) FROM messages x WHERE x.channel_id = m.channel_id AND x.id <> m.id)"
    " FROM messages m WHERE m.id = $1");

int64_t *message_event_audience(struct uow *uow, const struct message_ref *m, int64_t extra_user_id, int *n)
{
	const struct channel *c = m->channel;
	int kind = c == NULL ? 0 : !c->history_public_to_subscribers ? 1 : c->invite_only ? 2 : 3;
	struct db_res *res = DB_EXEC(uow, &st_audience, db_arg_int(uow, m->id), db_arg_int(uow, kind),
	                             db_arg_int(uow, c ? c->id : 0), db_arg_int(uow, extra_user_id));
	return res != NULL ? db_ids(uow, res, 0, n) : NULL;
}

int message_events_delete(struct uow *uow, const struct message_ref *m)
{
	const struct channel *c = m->channel;
	int n;
	int64_t *users = message_event_audience(uow, m, uow->user ? uow->user->id : 0, &n);
	struct db_res *topic = users ? DB_EXEC(uow, &st_delete_topic, db_arg_int(uow, m->id)) : NULL;
	if (topic == NULL || db_rows(topic) != 1)
		return uow_error(uow, ERR_INTERNAL, NULL);
	/* The reference moves first_message_id on when the channel's first message goes. */
	if (c != NULL && !c->first_message_is_null && c->first_message_id == m->id &&
	    channel_events_update(uow, c, "first_message_id",
	                          db_null(topic, 0, 1) ? NULL : json_object_new_int64(db_int(topic, 0, 1)), users,
	                          n) < 0)
		return -1;
	json_object *event = uow_own_json(uow, json_object_new_object());
	json_object_object_add(event, "type", json_object_new_string("delete_message"));
	json_object_object_add(event, "message_ids", ids_json(&m->id, 1));
	json_object_object_add(event, "message_type", json_object_new_string(c ? "stream" : "private"));
	if (c != NULL) {
		json_object_object_add(event, "stream_id", json_object_new_int64(c->id));
		json_object_object_add(event, "topic", json_object_new_string(db_val(topic, 0, 0)));
	}
	return events_add(uow, event, users, n, 0);
}

/* What a client needs to count messages marked unread (the reference's format_unread_message_details): messages
 * the user has a copy of, outside channels they left; unmuted_stream_msg by the topic's visibility policy too. */
static struct db_stmt st_unread_details =
    DB_STMT("SELECT um.message_id, um.flags, COALESCE(m.channel_id, 0), m.topic," USER_TOPICS_MUTED_SQL(
        "s.is_muted",
        "ut.visibility_policy") ","
                                " (SELECT COALESCE(json_agg(x ORDER BY x), '[]') FROM unnest(dc.user_ids) x WHERE x <> "
                                "$1)::text"
                                " FROM user_messages um JOIN messages m ON m.id = um.message_id"
                                " LEFT JOIN subscriptions s ON s.user_id = um.user_id AND s.channel_id = m.channel_id"
                                " LEFT JOIN user_topics ut ON ut.user_id = um.user_id AND ut.channel_id = m.channel_id"
                                "   AND lower(ut.topic_name) = lower(m.topic)"
                                " LEFT JOIN direct_conversations dc ON dc.id = m.direct_conversation_id"
                                " WHERE um.user_id = $1 AND um.message_id = ANY($2::bigint[]) AND (m.channel_id IS "
                                "NULL OR s.active)"
                                " ORDER BY um.message_id");

static json_object *unread_details(struct uow *uow, const int64_t *ids, int n)
{
	struct db_res *res = DB_EXEC(uow, &st_unread_details, db_arg_int(uow, uow->user->id), db_arg_ids(uow, ids, n));
	if (res == NULL)
		return NULL;
	json_object *out = json_object_new_object();
	for (int i = 0; i < db_rows(res); i++) {
		int flags = (int)db_int(res, i, 1);
		int64_t channel = db_int(res, i, 2);
		bool unmuted = channel && !db_bool(res, i, 4);
		json_object *d = json_object_new_object();
		json_object_object_add(d, "type", json_object_new_string(channel ? "stream" : "private"));
		if (channel) {
			json_object_object_add(d, "stream_id", json_object_new_int64(channel));
			json_object_object_add(d, "topic", json_object_new_string(db_val(res, i, 3)));
			json_object_object_add(d, "unmuted_stream_msg", json_object_new_boolean(unmuted));
		} else {
			add_json_text(uow, d, "user_ids", db_val(res, i, 5));
		}
		if ((flags & MF_MENTIONED) ||
		    (unmuted && (flags & (MF_STREAM_WILDCARD_MENTIONED | MF_TOPIC_WILDCARD_MENTIONED))))
			json_object_object_add(d, "mentioned", json_object_new_boolean(true));
		json_object_object_add(out, db_val(res, i, 0), d);
	}
	return out;
}

int message_events_flags(struct uow *uow, const char *op, const char *flag, const int64_t *ids, int n)
{
	json_object *event = uow_own_json(uow, json_object_new_object());
	json_object_object_add(event, "type", json_object_new_string("update_message_flags"));
	json_object_object_add(event, "op", json_object_new_string(op));
	json_object_object_add(event, "operation", json_object_new_string(op));
	json_object_object_add(event, "flag", json_object_new_string(flag));
	json_object_object_add(event, "messages", ids_json(ids, n));
	json_object_object_add(event, "all", json_object_new_boolean(false));
	if (strcmp(flag, "read") == 0 && strcmp(op, "remove") == 0) {
		json_object *details = unread_details(uow, ids, n);
		if (details == NULL)
			return -1;
		json_object_object_add(event, "message_details", details);
	}
	return events_add(uow, event, &uow->user->id, 1, 0);
}

static struct db_stmt st_notification_bot = DB_STMT("SELECT confab_notification_bot($1)");

static struct db_stmt st_notification_read =
    DB_STMT("UPDATE user_messages SET flags = flags | 1 WHERE message_id = $1");

/* message_send_notification(), read by every recipient when all_read (limit_unread_user_ids=set()). */
static int64_t send_notification(struct uow *uow, const struct channel *c, const char *topic, const char *content,
                                 bool all_read)
{
	struct db_res *res = DB_EXEC(uow, &st_notification_bot, db_arg_int(uow, uow->realm->id));
	const struct user *bot = res && db_rows(res) ? user_by_id(uow, uow->realm->id, db_int(res, 0, 0)) : NULL;
	if (bot == NULL) {
		uow_error(uow, ERR_INTERNAL, NULL); /* keeps a database error recorded first */
		return 0;
	}
	struct message_draft d = {
	    .sender = bot,
	    .channel = c,
	    .topic = message_truncate_topic(uow, topic),
	    .client = "Internal",
	    .skip_mention_checks = true,
	};
	struct message_sent sent;
	if ((d.content = message_normalize_content(uow, content, strlen(content))) == NULL ||
	    message_send(uow, &d, &sent) < 0 ||
	    (all_read && DB_EXEC(uow, &st_notification_read, db_arg_int(uow, sent.id)) == NULL))
		return 0;
	for (int i = 0; all_read && i < sent.n_recipients; i++)
		sent.recipients[i].flags |= MF_READ;
	if (message_events_send(uow, &d, &sent, NULL, NULL) < 0)
		return 0;
	return sent.id;
}

int64_t message_send_notification(struct uow *uow, const struct channel *c, const char *topic, const char *content)
{
	return send_notification(uow, c, topic, content, false);
}

int64_t message_send_notification_read(struct uow *uow, const struct channel *c, const char *topic, const char *content)
{
	return send_notification(uow, c, topic, content, true);
}
