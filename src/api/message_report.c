/*
 * Message reports: a user reports a message they can read, and the Notification Bot posts the report to the
 * organization's moderation request channel, in a topic per reported user. Reference: zerver/views/message_report.py
 * and zerver/lib/message_report.py (the format with "- Reason:" and "- Notes:").
 */
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "api/api.h"
#include "core/utf8.h"
#include "db/db.h"
#include "http/params.h"
#include "http/request.h"
#include "model/channels.h"
#include "model/messages.h"
#include "model/realm.h"
#include "model/user.h"

/* The reference's Realm.MAX_REPORT_MESSAGE_EXPLANATION_LENGTH. */
#define REPORT_MAX_DESCRIPTION 1000
/* The quoted message leaves room for the description and the report's own text (500) within a message. */
#define REPORT_MAX_SNIPPET (MESSAGE_MAX_LENGTH - REPORT_MAX_DESCRIPTION - 500)
#define REPORT_TRUNCATED   "\n[message truncated]"

/* The keys of the reference's Realm.REPORT_MESSAGE_REASONS (server_report_message_types of POST /register). */
static const char *const report_types[] = {"spam", "harassment", "inappropriate", "norms", "other"};

static bool is_report_type(const char *s)
{
	for (size_t i = 0; i < sizeof(report_types) / sizeof(report_types[0]); i++)
		if (strcmp(s, report_types[i]) == 0)
			return true;
	return false;
}

/* The reference's silent_mention_syntax_for_user. */
static const char *mention(struct request *req, const char *full_name, int64_t id)
{
	return arena_printf(&req->arena, "@_**%s|%lld**", full_name, (long long)id);
}

/* The reference's truncate_content(content, REPORT_MAX_SNIPPET, REPORT_TRUNCATED), in code points. */
static const char *snippet(struct request *req, const char *content)
{
	if (utf8_length(content) <= REPORT_MAX_SNIPPET)
		return content;
	size_t keep = REPORT_MAX_SNIPPET - strlen(REPORT_TRUNCATED), i = 0, len = strlen(content);
	for (size_t n = 0; n < keep && i < len; n++) {
		uint32_t cp;
		size_t step = utf8_decode((const unsigned char *)content + i, len - i, &cp);
		i += step ? step : 1;
	}
	return arena_printf(&req->arena, "%.*s%s", (int)i, content, REPORT_TRUNCATED);
}

/* The reference's get_unused_fence: one backtick more than the longest fence (up to 3 spaces, then 3 or more
 * backticks at the start of a line) in s, at least 3. */
static const char *unused_fence(struct request *req, const char *s)
{
	size_t n = 3;
	for (const char *line = s; line != NULL; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL) {
		size_t indent = strspn(line, " "), run = indent <= 3 ? strspn(line + indent, "`") : 0;
		if (run >= 3 && run + 1 > n)
			n = run + 1;
	}
	char *fence = arena_alloc(&req->arena, n + 1);
	memset(fence, '`', n);
	fence[n] = '\0';
	return fence;
}

/* The reported message as the report describes it. */
struct reported {
	const struct message_ref *m;
	const char *sender_name;
	const char *topic;
	int n_participants; /* direct messages: 1 (to oneself) or 2 for a 1:1 conversation, more for a group */
};

static struct db_stmt st_reported =
    DB_STMT("SELECT u.full_name, m.topic, COALESCE(cardinality(dc.user_ids), 0) FROM messages m"
            " JOIN users u ON u.id = m.sender_id LEFT JOIN direct_conversations dc ON dc.id = m.direct_conversation_id"
            " WHERE m.id = $1");
/* The reference's display recipient of a group direct message: every participant, the sender too, by id. */
static struct db_stmt st_participants =
    DB_STMT("SELECT p.id, p.full_name FROM messages m JOIN direct_conversations dc ON dc.id = m.direct_conversation_id"
            " JOIN users p ON p.id = ANY (dc.user_ids) WHERE m.id = $1 ORDER BY p.id");

/* "a, b, and c": the participants of a group direct message, the last one after ", and". */
static const char *group_mentions(struct request *req, int64_t message_id)
{
	struct db_res *res = DB_EXEC(&req->uow, &st_participants, db_arg_int(&req->uow, message_id));
	if (res == NULL || db_rows(res) < 2)
		return NULL;
	/* Measured, then copied once: appending one by one would copy the list so far each time (quadratic). */
	int n = db_rows(res);
	const char **m = arena_alloc(&req->arena, (size_t)n * sizeof(*m));
	size_t size = 1;
	for (int i = 0; i < n; i++)
		size += strlen(m[i] = mention(req, db_val(res, i, 1), db_int(res, i, 0))) + strlen(", and ");
	char *list = arena_alloc(&req->arena, size), *p = list;
	for (int i = 0; i < n; i++)
		p = stpcpy(i == 0 ? p : stpcpy(p, i == n - 1 ? ", and " : ", "), m[i]);
	return list;
}

/* The first line: who reported which message, sent by whom. */
static const char *report_header(struct request *req, const struct reported *r)
{
	const char *reporter = mention(req, req->user->full_name, req->user->id);
	const char *sender = mention(req, r->sender_name, r->m->sender_id);
	if (r->m->channel != NULL)
		return arena_printf(&req->arena, "%s reported #**%s>%s@%lld** sent by %s.", reporter,
		                    r->m->channel->name, r->topic, (long long)r->m->id, sender);
	if (r->n_participants <= 2)
		return arena_printf(&req->arena, "%s reported a DM sent by %s.", reporter, sender);
	const char *to = group_mentions(req, r->m->id);
	return to ? arena_printf(&req->arena, "%s reported a DM sent by %s to %s.", reporter, sender, to) : NULL;
}

/* The whole report as the Notification Bot posts it (before the usual normalization of message content). */
static const char *report_content(struct request *req, const struct reported *r, const char *type,
                                  const char *description)
{
	const char *header = report_header(req, r);
	if (header == NULL)
		return NULL;
	const char *quoted = snippet(req, r->m->content), *fence = unused_fence(req, quoted);
	return arena_printf(
	    &req->arena,
	    "%s\n- Reason: **%s**\n- Notes:\n```quote\n%s\n```\n%s spoiler **Message sent by %s**\n%s\n%s\n", header,
	    type, description, fence, mention(req, r->sender_name, r->m->sender_id), quoted, fence);
}

static struct db_stmt st_moderation_channel =
    DB_STMT("SELECT COALESCE(moderation_request_channel_id, 0) FROM realms WHERE id = $1");
/* Posts content as the Notification Bot to the channel, like the reference's internal_send_stream_message. */
static int post_report(struct request *req, int64_t channel_id, const char *topic, const char *content)
{
	const struct channel *c = channel_by_id(&req->uow, channel_id);
	if (c == NULL)
		return api_error(req, ERR_INTERNAL, NULL);
	return message_send_notification(&req->uow, c, topic, content) == 0 ? -1 : 0;
}

/* POST /api/v1/messages/{message_id}/report */
int message_report_create(struct request *req)
{
	const char *type = param_str(req, "report_type"), *description = param_str(req, "description");
	/* The reference validates both parameters (in this order) before its own checks. */
	if (!is_report_type(type))
		return api_error(req, ERR_BAD_REQUEST,
		                 "Invalid report_type: Value error, Not in the list of possible values");
	if (utf8_length(description) > REPORT_MAX_DESCRIPTION)
		return api_error(req, ERR_BAD_REQUEST, "description is too long (limit: %d characters)",
		                 REPORT_MAX_DESCRIPTION);
	if (strcmp(type, "other") == 0 && *description == '\0')
		return api_error(req, ERR_BAD_REQUEST, "An explanation is required.");
	struct db_res *res = DB_EXEC(&req->uow, &st_moderation_channel, db_arg_int(&req->uow, req->realm->id));
	if (res == NULL)
		return -1;
	int64_t channel_id = db_int(res, 0, 0);
	if (channel_id == 0)
		return api_error(req, ERR_BAD_REQUEST, "Message reporting is not enabled in this organization.");
	struct reported r = {.m = message_access_or_error(&req->uow, param_int(req, "message_id"), false)};
	if (r.m == NULL || (res = DB_EXEC(&req->uow, &st_reported, db_arg_int(&req->uow, r.m->id))) == NULL)
		return -1;
	r.sender_name = db_val(res, 0, 0);
	r.topic = db_val(res, 0, 1);
	r.n_participants = (int)db_int(res, 0, 2);
	const char *content = report_content(req, &r, type, description);
	if (content == NULL)
		return api_error(req, ERR_INTERNAL, NULL);
	return post_report(req, channel_id, arena_printf(&req->arena, "%s's moderation requests", r.sender_name),
	                   content);
}
