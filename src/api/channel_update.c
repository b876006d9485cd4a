/*
 * Updating a channel: PATCH /streams/{stream_id}. Reference: zerver/views/streams.py update_stream_backend; the
 * changes themselves are model/channel_update.c's. As in the reference, the settings apply one after another, each
 * in its own transaction with its events: a later error leaves the earlier changes in place.
 */
#include <json-c/json.h>
#include <string.h>

#include "api/api.h"
#include "db/db.h"
#include "events/events.h"
#include "http/params.h"
#include "http/request.h"
#include "model/channel_archive.h"
#include "model/channel_update.h"
#include "model/channels.h"
#include "model/default_channels.h"
#include "model/groups.h"
#include "model/permissions.h"
#include "model/realm.h"
#include "model/user.h"

/* The privacy the request asks for, filled in from the channel (the reference's proposed_* values). */
struct privacy {
	bool invite_only, history_public, web_public, is_default;
};

static struct db_stmt st_moderation_channel =
    DB_STMT("SELECT COALESCE(moderation_request_channel_id, 0) FROM realms WHERE id = $1");

/* access_stream_for_delete_or_update_requiring_metadata_access (shared with DELETE /streams/{stream_id}). */
static struct channel *channel_for_update(struct request *req)
{
	return channel_admin_access_by_id(&req->uow, param_int(req, "stream_id"));
}

static bool param_or(struct request *req, const char *name, bool current)
{
	return param_present(req, name) ? param_bool(req, name) : current;
}

/* A protected history needs can_create_topic_group to be role:everyone (the request's new value, if any). */
static int check_protected_history(struct request *req, const struct channel *c, const struct privacy *p)
{
	if (p->history_public ||
	    (!param_present(req, "is_private") && !param_present(req, "history_public_to_subscribers")))
		return 0;
	int64_t everyone = group_system_id(&req->uow, req->realm->id, "role:everyone");
	if (everyone == 0)
		return -1;
	const struct group_setting_update *u = param_group_update(req, "can_create_topic_group");
	bool ok = u != NULL ? !u->new_value.is_anonymous && u->new_value.group_id == everyone
	                    : c->settings[CS_CREATE_TOPIC] == everyone;
	if (ok)
		return 0;
	api_error(req, ERR_BAD_REQUEST,
	          "Unsupported parameter combination: history_public_to_subscribers, can_create_topic_group");
	api_error_field(req, "parameters",
	                json_object_new_string("history_public_to_subscribers, can_create_topic_group"));
	return -1;
}

/* The privacy checks, in the reference's order. */
static int check_privacy(struct request *req, const struct channel *c, struct privacy *p)
{
	bool to_private = param_present(req, "is_private");
	p->invite_only = param_or(req, "is_private", c->invite_only);
	p->web_public = param_or(req, "is_web_public", c->is_web_public);
	p->is_default = param_or(req, "is_default_stream", c->is_default);
	p->history_public = param_present(req, "history_public_to_subscribers")
	                        ? param_bool(req, "history_public_to_subscribers")
	                        : (to_private ? !p->invite_only : c->history_public_to_subscribers);
	if ((p->web_public && (!p->history_public || p->invite_only)) || (!p->invite_only && !p->history_public))
		return api_error(req, ERR_BAD_REQUEST, "Invalid parameters");
	if (check_protected_history(req, c, p) < 0)
		return -1;
	if (p->invite_only && p->is_default)
		return api_error(req, ERR_BAD_REQUEST, "A default channel cannot be private.");
	struct db_res *res = DB_EXEC(&req->uow, &st_moderation_channel, db_arg_int(&req->uow, req->realm->id));
	if (res == NULL)
		return -1;
	if (!p->invite_only && db_int(res, 0, 0) == c->id)
		return api_error(req, ERR_BAD_REQUEST, "Moderation request channel must be private.");
	if (to_private && !c->content_access)
		return api_error(req, ERR_BAD_REQUEST, "Channel content access is required.");
	if (to_private && !perm_create_channel(&req->uow, p->invite_only, false))
		return api_error(req, ERR_BAD_REQUEST, "Insufficient permission");
	if (param_or(req, "is_web_public", false)) {
		if (!req->realm->enable_spectator_access)
			return api_error(req, ERR_BAD_REQUEST, "Web-public channels are not enabled.");
		if (!perm_create_channel(&req->uow, false, true))
			return api_error(req, ERR_BAD_REQUEST, "Insufficient permission");
	}
	return 0;
}

static int apply_privacy(struct request *req, struct channel *c, const struct privacy *p)
{
	if (!param_present(req, "is_private") && !param_present(req, "is_web_public") &&
	    !param_present(req, "history_public_to_subscribers"))
		return 0;
	if (channel_set_privacy(&req->uow, c, p->invite_only, p->history_public, p->web_public) < 0)
		return -1;
	c->invite_only = p->invite_only;
	return events_commit_step(&req->uow);
}

static int apply_default(struct request *req, struct channel *c)
{
	if (!param_present(req, "is_default_stream"))
		return 0;
	if (!user_is_admin(req->user))
		return api_error(req, ERR_BAD_REQUEST, "You do not have permission to change default channels.");
	bool is_default = param_bool(req, "is_default_stream");
	if (default_channel_set(&req->uow, c, is_default) < 0)
		return -1;
	c->is_default = is_default;
	return events_commit_step(&req->uow);
}

static int apply_retention(struct request *req, struct channel *c)
{
	if (!param_present(req, "message_retention_days"))
		return 0;
	if (!user_is_owner(req->user))
		return api_error(req, ERR_UNAUTHORIZED_PRINCIPAL, "Must be an organization owner");
	enum param_limit_kind kind;
	int64_t days;
	if (param_limit(req, "message_retention_days", &kind, &days) < 0)
		return -1;
	if (channel_set_retention(&req->uow, c, kind == LIMIT_REALM_DEFAULT, kind == LIMIT_UNLIMITED ? -1 : (int)days) <
	    0)
		return -1;
	return events_commit_step(&req->uow);
}

/* is_archived: false unarchives the channel; true changes nothing (archiving is DELETE /streams/{stream_id}). */
static int apply_unarchive(struct request *req, struct channel *c)
{
	if (!param_set(req, "is_archived") || param_bool(req, "is_archived"))
		return 0;
	if (channel_unarchive(&req->uow, c) < 0)
		return -1;
	return events_commit_step(&req->uow);
}

/* The topics_policy parameter, or NULL; "Invalid topics_policy" (checked with the parameters, as the reference's
 * validator does) for a value that is not one of the four. */
static int read_topics_policy(struct request *req, const char **policy)
{
	static const char *const names[] = {"inherit", "allow_empty_topic", "disable_empty_topic", "empty_topic_only"};
	*policy = param_str(req, "topics_policy");
	if (*policy == NULL)
		return 0;
	for (size_t i = 0; i < sizeof(names) / sizeof(*names); i++)
		if (strcmp(*policy, names[i]) == 0)
			return 0;
	return api_error(req, ERR_BAD_REQUEST, "Invalid topics_policy");
}

static int apply_topics_policy(struct request *req, struct channel *c, const char *policy)
{
	if (policy == NULL)
		return 0;
	if (strcmp(policy, "inherit") != 0 && !perm_realm(&req->uow, RS_SET_TOPICS_POLICY))
		return api_error(req, ERR_BAD_REQUEST, "Insufficient permission");
	int named = strcmp(policy, "empty_topic_only") == 0 ? channel_has_named_topics(&req->uow, c) : 0;
	if (named < 0)
		return -1;
	if (named)
		return api_error(req, ERR_BAD_REQUEST,
		                 "To enable this configuration, all messages in this channel must be in the "
		                 "%s topic. Consider renaming other topics to %s.",
		                 REALM_EMPTY_TOPIC_DISPLAY_NAME, REALM_EMPTY_TOPIC_DISPLAY_NAME);
	if (channel_set_topics_policy(&req->uow, c, policy) < 0)
		return -1;
	return events_commit_step(&req->uow);
}

static int apply_description(struct request *req, struct channel *c)
{
	const char *sent = param_str(req, "description");
	if (sent == NULL)
		return 0;
	char *description = arena_strdup(&req->arena, sent);
	for (char *p = description; *p; p++)
		if (*p == '\n')
			*p = ' ';
	if (channel_set_description(&req->uow, c, description) < 0)
		return -1;
	return events_commit_step(&req->uow);
}

static int apply_name(struct request *req, struct channel *c)
{
	const char *sent = param_str(req, "new_name");
	if (sent == NULL)
		return 0;
	const char *name = arena_strip(&req->arena, sent);
	if (strcmp(name, c->name) == 0)
		return api_error(req, ERR_BAD_REQUEST, "Channel already has that name.");
	/* Only the case changes: no other check (check_stream_name_available is skipped). */
	const struct channel *same = channel_by_name(&req->uow, name);
	if (req->error)
		return -1;
	if (same == NULL || same->id != c->id) {
		if (channel_check_name(&req->uow, name) < 0)
			return -1;
		if (same != NULL)
			return api_error(req, ERR_BAD_REQUEST, "Channel name is already in use.");
	}
	if (channel_rename(&req->uow, c, name) < 0)
		return -1;
	return events_commit_step(&req->uow);
}

static struct db_stmt st_folder = DB_STMT("SELECT 1 FROM channel_folders WHERE realm_id = $1 AND id = $2");

/* folder_id: omitted changes nothing, null removes the channel from its folder. */
static int apply_folder(struct request *req, struct channel *c)
{
	if (!param_present(req, "folder_id"))
		return 0;
	json_object *v = param_json(req, "folder_id");
	if (v != NULL && !json_object_is_type(v, json_type_int))
		return api_error(req, ERR_BAD_REQUEST, "folder_id is not an integer");
	int64_t id = v ? json_object_get_int64(v) : 0;
	if (v != NULL) {
		struct db_res *res =
		    DB_EXEC(&req->uow, &st_folder, db_arg_int(&req->uow, req->realm->id), db_arg_int(&req->uow, id));
		if (res == NULL || db_rows(res) == 0)
			return api_error(req, ERR_BAD_REQUEST, "Invalid channel folder ID");
	}
	if (channel_set_folder(&req->uow, c, id) < 0)
		return -1;
	return events_commit_step(&req->uow);
}

/* One {new, old} permission update: `old`, when given, must be the current value (EXPECTATION_MISMATCH); a new
 * value equal to the current one changes nothing; two settings need content access. */
static int apply_setting(struct request *req, struct channel *c, enum channel_setting s)
{
	const struct group_setting_update *u = param_group_update(req, channel_setting_names[s]);
	if (u == NULL)
		return 0;
	if (u->has_old && !group_setting_equals(&req->uow, c->settings[s], u->old.json))
		return api_error(req, ERR_EXPECTATION_MISMATCH, NULL);
	if (group_setting_equals(&req->uow, c->settings[s], u->new_value.json))
		return req->error ? -1 : 0;
	if ((s == CS_ADD_SUBSCRIBERS || s == CS_SUBSCRIBE) && !c->content_access)
		return api_error(req, ERR_BAD_REQUEST, "Channel content access is required.");
	if (channel_set_setting(&req->uow, c, s, u->new_value.json) < 0)
		return -1;
	return events_commit_step(&req->uow);
}

/* PATCH /api/v1/streams/{stream_id} */
int channel_update(struct request *req)
{
	const char *policy;
	struct privacy p;
	if (read_topics_policy(req, &policy) < 0)
		return -1;
	struct channel *c = channel_for_update(req);
	if (c == NULL || check_privacy(req, c, &p) < 0 || apply_privacy(req, c, &p) < 0 || apply_default(req, c) < 0 ||
	    apply_retention(req, c) < 0)
		return -1;
	if (apply_unarchive(req, c) < 0 || apply_topics_policy(req, c, policy) < 0 || apply_description(req, c) < 0 ||
	    apply_name(req, c) < 0 || apply_folder(req, c) < 0)
		return -1;
	for (int s = 0; s < CS_COUNT; s++)
		if (apply_setting(req, c, (enum channel_setting)s) < 0)
			return -1;
	return 0;
}
