/* Messages: sending, fetching by narrow, one message, deleting, and the user's message flags. */
#include <json-c/json.h>
#include <stdlib.h>
#include <string.h>

#include "api/api.h"
#include "core/jsonx.h"
#include "http/params.h"
#include "http/request.h"
#include "model/channels.h"
#include "model/messages.h"
#include "model/narrow.h"
#include "model/permissions.h"
#include "model/user.h"

/* The channel and topic of a channel message, as far as the reference checks them before the content. */
static int channel_target(struct request *req, int64_t *id, const char **name, const char **topic)
{
	size_t len = 0, sublen = 0;
	const char *raw = param_str_len(req, "topic", &len), *subject = param_str_len(req, "subject", &sublen);
	if (param_present(req, "to") && message_channel_indicator(&req->uow, param_str(req, "to"), id, name) < 0)
		return -1;
	if (!param_present(req, "to"))
		return api_error(req, ERR_BAD_REQUEST, "Missing channel");
	if (raw == NULL && (raw = subject) != NULL)
		len = sublen;
	if (raw == NULL)
		return api_error(req, ERR_BAD_REQUEST, "Missing topic");
	*topic = message_clean_topic(&req->uow, raw, len);
	return *topic ? 0 : -1;
}

/* The recipients of a direct message ("to" is optional in the reference: none means no recipients). */
static int direct_target(struct request *req, struct message_user **users, int *n)
{
	/* topic is ignored for direct messages. */
	return message_resolve_direct(&req->uow, param_present(req, "to") ? param_str(req, "to") : "", users, n);
}

/* The checks the reference makes after normalizing the content, for a channel message. */
static int channel_draft(struct request *req, struct message_draft *d, int64_t id, const char *name)
{
	d->topic = message_truncate_topic(&req->uow, d->topic);
	const struct channel *c = message_channel_for_send(&req->uow, id, name);
	if (c == NULL || message_check_channel_send(&req->uow, c, d->topic) < 0)
		return -1;
	d->channel = c;
	return 0;
}

/* POST /api/v1/messages */
int messages_send(struct request *req)
{
	/* content, topic and subject may hold NUL bytes (P_RAW): the reference reports them in its own words. */
	size_t len;
	const char *content = param_str_len(req, "content", &len);
	const char *type = param_str(req, "type");
	bool to_channel = strcmp(type, "stream") == 0 || strcmp(type, "channel") == 0;
	if (!to_channel && strcmp(type, "direct") != 0 && strcmp(type, "private") != 0)
		return api_error(req, ERR_BAD_REQUEST, "Invalid type");
	/* API clients do not mark their own messages read unless asked (the reference's default_read_by_sender). */
	struct message_draft d = {.sender = req->user, .read_by_sender = param_bool(req, "read_by_sender")};
	int64_t channel_id = 0;
	const char *channel_name = NULL;
	struct message_user *users = NULL;
	int n = 0;
	int64_t *participants = NULL;
	if ((to_channel ? channel_target(req, &channel_id, &channel_name, &d.topic) : direct_target(req, &users, &n)) <
	    0)
		return -1;
	if ((d.content = message_normalize_content(&req->uow, content, len)) == NULL)
		return -1;
	if (to_channel && channel_draft(req, &d, channel_id, channel_name) < 0)
		return -1;
	if (!to_channel && message_check_direct(&req->uow, users, n, &participants, &d.n_participants) < 0)
		return -1;
	d.participants = participants;
	struct message_sent sent;
	if (message_send(&req->uow, &d, &sent) < 0 ||
	    message_events_send(&req->uow, &d, &sent, param_str(req, "queue_id"), param_str(req, "local_id")) < 0)
		return -1;
	json_object_object_add(request_result(req), "id", json_object_new_int64(sent.id));
	return 0;
}

_Static_assert(PARAM_ANCHOR_OLDEST == 0 && PARAM_ANCHOR_NEWEST == MESSAGE_ANCHOR_NEWEST &&
                   PARAM_ANCHOR_FIRST_UNREAD == MESSAGE_ANCHOR_FIRST_UNREAD,
               "PT_ANCHOR gives message_fetch()'s anchors");

/* The reference's parse_anchor_value: use_first_unread_anchor wins over the anchor, which params.c parsed. */
static int parse_anchor(struct request *req, int64_t *anchor)
{
	if (param_bool(req, "use_first_unread_anchor")) {
		*anchor = MESSAGE_ANCHOR_FIRST_UNREAD;
		return 0;
	}
	if (!param_present(req, "anchor"))
		return api_error(req, ERR_BAD_REQUEST, "Missing 'anchor' argument.");
	return param_anchor(req, "anchor", anchor);
}

/* The GET /messages limits, in the reference's order. */
static int check_range(struct request *req, bool by_ids, int64_t *anchor, bool *include_anchor)
{
	int64_t before = param_int(req, "num_before"), after = param_int(req, "num_after");
	if (before < 0 || after < 0)
		return api_error(req, ERR_BAD_REQUEST, "%s is too small", before < 0 ? "num_before" : "num_after");
	if (by_ids && (before || after || param_present(req, "anchor") || param_bool(req, "use_first_unread_anchor")))
		return api_error(req, ERR_BAD_REQUEST,
		                 "Unsupported parameter combination: num_before, num_after, anchor, message_ids, "
		                 "include_anchor, use_first_unread_anchor");
	if (!by_ids && parse_anchor(req, anchor) < 0)
		return -1;
	int64_t requested = by_ids ? (int64_t)json_object_array_length(param_json(req, "message_ids")) : before + after;
	if (requested > MESSAGE_MAX_FETCH)
		return api_error(req, ERR_BAD_REQUEST, "Too many messages requested (maximum %d).", MESSAGE_MAX_FETCH);
	*include_anchor = !by_ids && param_bool(req, "include_anchor");
	if (before > 0 && after > 0 && !*include_anchor)
		return api_error(req, ERR_BAD_REQUEST, "The anchor can only be excluded at an end of the range");
	return 0;
}

/* The ids of an integer-list parameter (an arena array). */
static int64_t *list_ids(struct request *req, const char *name, int *n)
{
	json_object *list = param_json(req, name);
	*n = list ? (int)json_object_array_length(list) : 0;
	int64_t *ids = arena_alloc(&req->arena, (size_t)(*n + 1) * sizeof(*ids));
	for (int i = 0; i < *n; i++)
		ids[i] = json_object_get_int64(json_object_array_get_idx(list, i));
	return ids;
}

/* GET /api/v1/messages */
int messages_list(struct request *req)
{
	bool by_ids = param_present(req, "message_ids");
	int64_t anchor = 0;
	bool include_anchor;
	if (check_range(req, by_ids, &anchor, &include_anchor) < 0)
		return -1;
	struct narrow *narrow = narrow_parse(&req->uow, param_json(req, "narrow"));
	if (narrow == NULL)
		return -1;
	int n_ids;
	int64_t *ids = by_ids ? list_ids(req, "message_ids", &n_ids) : NULL;
	struct message_page page;
	struct message_format f = {param_bool(req, "apply_markdown"), param_bool(req, "client_gravatar"),
	                           param_bool(req, "allow_empty_topic_name"), narrow->is_search};
	if (message_fetch(&req->uow, narrow, anchor, include_anchor, (int)param_int(req, "num_before"),
	                  (int)param_int(req, "num_after"), ids, by_ids ? n_ids : 0, &f, &page) < 0)
		return -1;
	size_t len = page.objects_len;
	const char *messages = page.objects;
	if (messages == NULL &&
	    (messages = message_objects_text(&req->uow, page.ids, page.flags, page.n, &f, &len)) == NULL)
		return -1;
	json_object *out = request_result(req);
	json_object_object_add(out, "messages", jsonx_raw((const char *[]){messages}, (size_t[]){len}, 1, NULL, NULL));
	json_object_object_add(out, "found_anchor", json_object_new_boolean(page.found_anchor));
	json_object_object_add(out, "found_oldest", json_object_new_boolean(page.found_oldest));
	json_object_object_add(out, "found_newest", json_object_new_boolean(page.found_newest));
	json_object_object_add(out, "history_limited", json_object_new_boolean(page.history_limited));
	if (!by_ids)
		json_object_object_add(out, "anchor", json_object_new_int64(page.anchor));
	return 0;
}

/* GET /api/v1/messages/{message_id} */
int messages_get(struct request *req)
{
	struct message_ref *m = message_access_or_error(&req->uow, param_int(req, "message_id"), false);
	if (m == NULL)
		return -1;
	struct message_format f = {param_bool(req, "apply_markdown"), true, param_bool(req, "allow_empty_topic_name"),
	                           false};
	json_object *list = message_objects(&req->uow, &m->id, &m->flags, 1, &f);
	if (list == NULL)
		return -1;
	request_own_json(req, list);
	json_object *out = request_result(req);
	json_object_object_add(out, "message", json_object_get(json_object_array_get_idx(list, 0)));
	json_object_object_add(out, "raw_content", json_object_new_string(m->content));
	return 0;
}

/* The reference's validate_can_delete_message. */
static int check_delete(struct request *req, const struct message_ref *m)
{
	const struct channel *c = m->channel;
	if (perm_delete_any_message(&req->uow, c))
		return req->error ? -1 : 0;
	if (req->error)
		return -1;
	if (m->sender_id != req->user->id && m->sender_bot_owner_id != req->user->id)
		return api_error(req, ERR_BAD_REQUEST, "You don't have permission to delete this message");
	if (!perm_delete_own_message(&req->uow, c))
		return api_error(req, ERR_BAD_REQUEST, "You don't have permission to delete this message");
	if (message_delete_time_passed(&req->uow, m))
		return api_error(req, ERR_BAD_REQUEST, "The time limit for deleting this message has passed");
	return req->error ? -1 : 0;
}

/* DELETE /api/v1/messages/{message_id} */
int messages_delete(struct request *req)
{
	struct message_ref *m = message_access_or_error(&req->uow, param_int(req, "message_id"), true);
	if (m == NULL || check_delete(req, m) < 0 || message_events_delete(&req->uow, m) < 0)
		return -1;
	return message_delete(&req->uow, m->id);
}

/* POST /api/v1/messages/flags */
int messages_flags_update(struct request *req)
{
	int n, nchanged;
	int64_t *ids = list_ids(req, "messages", &n), *changed;
	json_object *ignored;
	const char *op = param_str(req, "op"), *flag = param_str(req, "flag");
	if (message_update_flags(&req->uow, op, flag, ids, n, &ignored, &changed, &nchanged) < 0 ||
	    message_events_flags(&req->uow, op, flag, changed, nchanged) < 0)
		return -1;
	json_object *out = request_result(req);
	/* The reference returns the ids as requested, whatever changed. */
	json_object_object_add(out, "messages", json_object_get(param_json(req, "messages")));
	json_object_object_add(out, "ignored_because_not_subscribed_channels", json_object_get(ignored));
	return 0;
}
