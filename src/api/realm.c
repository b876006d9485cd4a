/*
 * The organization's settings: PATCH /realm for the message editing and moving settings, the permission groups
 * that go with them, the moderation request channel, topics_policy, waiting_period_threshold, name,
 * description and emails_restricted_to_domains. Reference: zerver/views/realm.py (update_realm) and
 * zerver/actions/realm_settings.py (do_set_realm_property, do_change_realm_permission_group_setting,
 * do_set_realm_stream).
 */
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "api/api.h"
#include "db/db.h"
#include "events/events.h"
#include "http/params.h"
#include "http/request.h"
#include "model/channels.h"
#include "model/groups.h"
#include "model/realm.h"
#include "model/user.h"

/* The time limits: an integer number of seconds, or "unlimited" (NULL); columns and parameters share names. */
enum limit { L_DELETE, L_EDIT, L_WITHIN, L_BETWEEN, L_COUNT };
static const char *const limit_names[L_COUNT] = {
    [L_DELETE] = "message_content_delete_limit_seconds",
    [L_EDIT] = "message_content_edit_limit_seconds",
    [L_WITHIN] = "move_messages_within_stream_limit_seconds",
    [L_BETWEEN] = "move_messages_between_streams_limit_seconds",
};

/* The permission group settings this endpoint changes, in the reference's REALM_PERMISSION_GROUP_SETTINGS order. */
enum setting { S_MENTION_MANY, S_MOVE_CHANNELS, S_MOVE_TOPICS, S_RESOLVE, S_COUNT };
static const char *const setting_names[S_COUNT] = {
    [S_MENTION_MANY] = "can_mention_many_users_group",
    [S_MOVE_CHANNELS] = "can_move_messages_between_channels_group",
    [S_MOVE_TOPICS] = "can_move_messages_between_topics_group",
    [S_RESOLVE] = "can_resolve_topics_group",
};
/* Only moving between channels refuses role:everyone (allow_everyone_group in the reference). */
static const unsigned setting_flags[S_COUNT] = {[S_MOVE_CHANNELS] = GS_NO_EVERYONE};

/* The values of realm_topics_policy (the reference's RealmTopicsPolicyEnum: name, value). */
static const struct {
	const char *name;
	int value;
} topics_policies[] = {{"allow_empty_topic", 2}, {"disable_empty_topic", 3}};

/* The settings as stored, then as they will be. */
struct settings {
	bool allow_message_editing;
	bool limit_null[L_COUNT];
	int64_t limit[L_COUNT];
	const char *name;
	const char *description;
	bool emails_restricted_to_domains;
	const char *topics_policy;
	int64_t waiting_period_threshold;
	int64_t moderation_channel; /* 0: none */
	int64_t group[S_COUNT];
};

static struct db_stmt st_load = DB_STMT(
    "SELECT allow_message_editing, message_content_delete_limit_seconds, message_content_edit_limit_seconds,"
    " move_messages_within_stream_limit_seconds, move_messages_between_streams_limit_seconds, name, description,"
    " topics_policy, waiting_period_threshold, COALESCE(moderation_request_channel_id, 0),"
    " can_mention_many_users_group_id, can_move_messages_between_channels_group_id,"
    " can_move_messages_between_topics_group_id, can_resolve_topics_group_id, emails_restricted_to_domains"
    " FROM realms WHERE id = $1 FOR UPDATE");

static int load(struct request *req, struct settings *s)
{
	struct db_res *res = DB_EXEC(&req->uow, &st_load, db_arg_int(&req->uow, req->realm->id));
	if (res == NULL || db_rows(res) != 1)
		return api_error(req, ERR_INTERNAL, NULL);
	s->allow_message_editing = db_bool(res, 0, 0);
	for (int l = 0; l < L_COUNT; l++) {
		s->limit_null[l] = db_null(res, 0, 1 + l);
		s->limit[l] = s->limit_null[l] ? 0 : db_int(res, 0, 1 + l);
	}
	s->name = db_val(res, 0, 5);
	s->description = db_val(res, 0, 6);
	s->topics_policy = db_val(res, 0, 7);
	s->waiting_period_threshold = db_int(res, 0, 8);
	s->moderation_channel = db_int(res, 0, 9);
	for (int i = 0; i < S_COUNT; i++)
		s->group[i] = db_int(res, 0, 10 + i);
	s->emails_restricted_to_domains = db_bool(res, 0, 10 + S_COUNT);
	return 0;
}

static struct db_stmt st_store = DB_STMT(
    "UPDATE realms SET allow_message_editing = $2, message_content_delete_limit_seconds = $3,"
    " message_content_edit_limit_seconds = $4, move_messages_within_stream_limit_seconds = $5,"
    " move_messages_between_streams_limit_seconds = $6, name = $7, description = $8, topics_policy = $9,"
    " waiting_period_threshold = $10, moderation_request_channel_id = $11, can_mention_many_users_group_id = $12,"
    " can_move_messages_between_channels_group_id = $13, can_move_messages_between_topics_group_id = $14,"
    " can_resolve_topics_group_id = $15, emails_restricted_to_domains = $16 WHERE id = $1");

static int store(struct request *req, const struct settings *s)
{
	const char *limit[L_COUNT];
	for (int l = 0; l < L_COUNT; l++)
		limit[l] = s->limit_null[l] ? NULL : db_arg_int(&req->uow, s->limit[l]);
	struct db_res *res = DB_EXEC(
	    &req->uow, &st_store, db_arg_int(&req->uow, req->realm->id), s->allow_message_editing ? "true" : "false",
	    limit[L_DELETE], limit[L_EDIT], limit[L_WITHIN], limit[L_BETWEEN], s->name, s->description,
	    s->topics_policy, db_arg_int(&req->uow, s->waiting_period_threshold),
	    s->moderation_channel ? db_arg_int(&req->uow, s->moderation_channel) : NULL,
	    db_arg_int(&req->uow, s->group[S_MENTION_MANY]), db_arg_int(&req->uow, s->group[S_MOVE_CHANNELS]),
	    db_arg_int(&req->uow, s->group[S_MOVE_TOPICS]), db_arg_int(&req->uow, s->group[S_RESOLVE]),
	    s->emails_restricted_to_domains ? "true" : "false");
	return res == NULL ? -1 : 0;
}

/* ---- events ------------------------------------------------------------------------------------------------- */

/* Records event (taken) for every active user of the organization. */
static int to_everyone(struct request *req, json_object *event)
{
	request_own_json(req, event);
	int n;
	int64_t *users = user_active_ids(&req->uow, req->realm->id, &n);
	return users ? events_add(&req->uow, event, users, n, 0) : -1;
}

/* realm update {property, value}: the reference's event for most settings. value is taken. */
static int event_update(struct request *req, const char *property, json_object *value)
{
	json_object *event = json_object_new_object();
	json_object_object_add(event, "type", json_object_new_string("realm"));
	json_object_object_add(event, "op", json_object_new_string("update"));
	json_object_object_add(event, "property", json_object_new_string(property));
	json_object_object_add(event, "value", value);
	return to_everyone(req, event);
}

/* realm update_dict {property: "default", data} (data taken): message editing, topics_policy, group settings. */
static int event_update_dict(struct request *req, json_object *data)
{
	json_object *event = json_object_new_object();
	json_object_object_add(event, "type", json_object_new_string("realm"));
	json_object_object_add(event, "op", json_object_new_string("update_dict"));
	json_object_object_add(event, "property", json_object_new_string("default"));
	json_object_object_add(event, "data", data);
	return to_everyone(req, event);
}

static json_object *one(const char *key, json_object *value)
{
	json_object *o = json_object_new_object();
	json_object_object_add(o, key, value);
	return o;
}

/* The event of a time limit (null: unlimited): the content edit limit has the update_dict form. */
static int event_limit(struct request *req, enum limit l, const struct settings *s)
{
	json_object *value = s->limit_null[l] ? NULL : json_object_new_int64(s->limit[l]);
	if (l == L_EDIT)
		return event_update_dict(req, one(limit_names[l], value));
	return event_update(req, limit_names[l], value);
}

/* ---- role:fullmembers after a waiting_period_threshold change (update_users_in_full_members_system_group) ---- */

/* The age is compared as an interval: now() minus 2^31 days is out of the timestamp range (SQLSTATE 22008). */
static struct db_stmt st_fullmembers_remove =
    DB_STMT("DELETE FROM user_group_members m USING users u WHERE m.group_id = $1 AND u.id = m.user_id"
            " AND (u.role <> 400 OR now() - u.date_joined < make_interval(days => $2::int)) RETURNING m.user_id");
static struct db_stmt st_fullmembers_add =
    DB_STMT("INSERT INTO user_group_members (group_id, user_id)"
            " SELECT $1, m.user_id FROM user_group_members m JOIN users u ON u.id = m.user_id"
            " WHERE m.group_id = $3 AND now() - u.date_joined >= make_interval(days => $2::int)"
            "   AND NOT EXISTS (SELECT 1 FROM user_group_members f WHERE f.group_id = $1 AND f.user_id = m.user_id)"
            " RETURNING user_id");

/* The user_group event of a membership change of role:fullmembers (res: the user ids it returned), if any. */
static int fullmembers_event(struct request *req, int64_t full, const char *op, struct db_res *res,
                             const struct group_access *before)
{
	if (res == NULL)
		return -1;
	if (db_rows(res) == 0)
		return 0;
	json_object *ids = request_own_json(req, json_object_new_array());
	for (int i = 0; i < db_rows(res); i++)
		json_object_array_add(ids, json_object_new_int64(db_int(res, i, 0)));
	return group_events_members(&req->uow, full, op, ids, before);
}

/* Members who joined at least threshold days ago are full members; others leave the group. */
static int update_fullmembers(struct request *req, int64_t threshold)
{
	int64_t full = group_system_id(&req->uow, req->realm->id, "role:fullmembers");
	int64_t members = full ? group_system_id(&req->uow, req->realm->id, "role:members") : 0;
	if (members == 0)
		return -1;
	struct group_access *before = group_access_before(&req->uow, full);
	if (before == NULL || fullmembers_event(req, full, "remove_members",
	                                        DB_EXEC(&req->uow, &st_fullmembers_remove, db_arg_int(&req->uow, full),
	                                                db_arg_int(&req->uow, threshold)),
	                                        before) < 0)
		return -1;
	if ((before = group_access_before(&req->uow, full)) == NULL)
		return -1;
	return fullmembers_event(req, full, "add_members",
	                         DB_EXEC(&req->uow, &st_fullmembers_add, db_arg_int(&req->uow, full),
	                                 db_arg_int(&req->uow, threshold), db_arg_int(&req->uow, members)),
	                         before);
}

/* ---- parameters --------------------------------------------------------------------------------------------- */

/* What the request asks for. */
struct wanted {
	enum param_limit_kind limit_kind[L_COUNT]; /* read by apply_unlimited(), where the reference parses them */
	int64_t limit[L_COUNT];                    /* LIMIT_VALUE */
	const struct group_setting_update *group[S_COUNT];
	const char *topics_policy;
	int topics_policy_value;
};

static int read_params(struct request *req, struct wanted *w)
{
	memset(w, 0, sizeof(*w));
	for (int i = 0; i < S_COUNT; i++)
		w->group[i] = param_group_update(req, setting_names[i]);
	if ((w->topics_policy = param_str(req, "topics_policy")) != NULL) {
		size_t i = 0;
		while (i < sizeof(topics_policies) / sizeof(topics_policies[0]) &&
		       strcmp(topics_policies[i].name, w->topics_policy) != 0)
			i++;
		if (i == sizeof(topics_policies) / sizeof(topics_policies[0]))
			return api_error(req, ERR_BAD_REQUEST, "Invalid topics_policy");
		w->topics_policy_value = topics_policies[i].value;
	}
	if ((param_present(req, "emails_restricted_to_domains") || param_present(req, "waiting_period_threshold")) &&
	    !user_is_owner(req->user))
		return api_error(req, ERR_UNAUTHORIZED_PRINCIPAL, "Must be an organization owner");
	return 0;
}

/* ---- the changes, in the reference's order ------------------------------------------------------------------ */

/* Limits set to "unlimited" come first (parse_and_set_setting_value_if_required); the integers follow the other
 * properties. Reads every given limit into w. */
static int apply_unlimited(struct request *req, struct wanted *w, struct settings *s, json_object *data)
{
	for (int l = 0; l < L_COUNT; l++) {
		if (param_limit(req, limit_names[l], &w->limit_kind[l], &w->limit[l]) < 0)
			return -1;
		if (w->limit_kind[l] == LIMIT_UNLIMITED && !s->limit_null[l]) {
			s->limit_null[l] = true;
			json_object_object_add(data, limit_names[l], NULL);
			if (event_limit(req, l, s) < 0)
				return -1;
		}
	}
	return 0;
}

/* A text property (description, name): the value and "updated" in the response. */
static int apply_text(struct request *req, const char *key, const char **field, json_object *data)
{
	const char *v = param_str(req, key);
	if (v == NULL || strcmp(v, *field) == 0)
		return 0;
	*field = v;
	json_object_object_add(data, key, json_object_new_string("updated"));
	return event_update(req, key, json_object_new_string(v));
}

/* emails_restricted_to_domains (owners only: read_params()); with no domains it is allowed and has no effect. */
static int apply_restricted(struct request *req, struct settings *s, json_object *data)
{
	if (!param_present(req, "emails_restricted_to_domains") ||
	    param_bool(req, "emails_restricted_to_domains") == s->emails_restricted_to_domains)
		return 0;
	s->emails_restricted_to_domains = param_bool(req, "emails_restricted_to_domains");
	json_object *value = json_object_new_boolean(s->emails_restricted_to_domains);
	json_object_object_add(data, "emails_restricted_to_domains", json_object_get(value));
	return event_update(req, "emails_restricted_to_domains", value);
}

static int apply_properties(struct request *req, const struct wanted *w, struct settings *s, json_object *data)
{
	if (param_present(req, "allow_message_editing") &&
	    param_bool(req, "allow_message_editing") != s->allow_message_editing) {
		s->allow_message_editing = param_bool(req, "allow_message_editing");
		json_object_object_add(data, "allow_message_editing",
		                       json_object_new_boolean(s->allow_message_editing));
		if (event_update_dict(
		        req, one("allow_message_editing", json_object_new_boolean(s->allow_message_editing))) < 0)
			return -1;
	}
	/* In the order of the reference's parameters. */
	if (apply_text(req, "description", &s->description, data) < 0 || apply_restricted(req, s, data) < 0 ||
	    apply_text(req, "name", &s->name, data) < 0)
		return -1;
	if (w->topics_policy != NULL) {
		/* The reference compares the stored number with the enum member, which always differs: the value is in
		 * the response whenever it is sent, as its number. */
		json_object_object_add(data, "topics_policy", json_object_new_int(w->topics_policy_value));
		if (strcmp(w->topics_policy, s->topics_policy) != 0) {
			s->topics_policy = w->topics_policy;
			json_object *d = one("topics_policy", json_object_new_string(s->topics_policy));
			json_object_object_add(
			    d, "mandatory_topics",
			    json_object_new_boolean(strcmp(s->topics_policy, "disable_empty_topic") == 0));
			if (event_update_dict(req, d) < 0)
				return -1;
		}
	}
	if (param_present(req, "waiting_period_threshold") &&
	    param_int(req, "waiting_period_threshold") != s->waiting_period_threshold) {
		s->waiting_period_threshold = param_int(req, "waiting_period_threshold");
		json_object_object_add(data, "waiting_period_threshold",
		                       json_object_new_int64(s->waiting_period_threshold));
		if (event_update(req, "waiting_period_threshold", json_object_new_int64(s->waiting_period_threshold)) <
		        0 ||
		    store(req, s) < 0 || update_fullmembers(req, s->waiting_period_threshold) < 0)
			return -1;
	}
	for (int l = 0; l < L_COUNT; l++) {
		if (w->limit_kind[l] != LIMIT_VALUE || (!s->limit_null[l] && s->limit[l] == w->limit[l]))
			continue;
		s->limit_null[l] = false;
		s->limit[l] = w->limit[l];
		json_object_object_add(data, limit_names[l], json_object_new_int64(w->limit[l]));
		if (event_limit(req, l, s) < 0)
			return -1;
	}
	return 0;
}

static json_object *id_array(const int64_t *ids, size_t n)
{
	json_object *a = json_object_new_array();
	for (size_t i = 0; i < n; i++)
		json_object_array_add(a, json_object_new_int64(ids[i]));
	return a;
}

/* The reference's parse_group_setting_value, as the response shows the new value. */
static json_object *group_value_json(struct request *req, const struct group_setting_value *v)
{
	if (!v->is_anonymous)
		return json_object_new_int64(v->group_id);
	if (v->nmembers == 0 && v->nsubgroups == 1)
		return json_object_new_int64(v->subgroups[0]);
	if (v->nmembers == 0 && v->nsubgroups == 0)
		return json_object_new_int64(group_system_id(&req->uow, req->realm->id, "role:nobody"));
	json_object *o = json_object_new_object();
	json_object_object_add(o, "direct_members", id_array(v->members, v->nmembers));
	json_object_object_add(o, "direct_subgroups", id_array(v->subgroups, v->nsubgroups));
	return o;
}

static int apply_groups(struct request *req, const struct wanted *w, struct settings *s, json_object *data)
{
	for (int i = 0; i < S_COUNT; i++) {
		const char *name = setting_names[i];
		const struct group_setting_update *u = w->group[i];
		if (u == NULL)
			continue;
		if (u->has_old && !group_setting_equals(&req->uow, s->group[i], u->old.json))
			return api_error(req, ERR_EXPECTATION_MISMATCH, NULL);
		if (group_setting_equals(&req->uow, s->group[i], u->new_value.json))
			continue;
		if (req->error)
			return -1;
		int64_t id = group_setting_update(&req->uow, name, u->new_value.json, setting_flags[i], s->group[i]);
		if (id == 0)
			return -1;
		s->group[i] = id;
		json_object *value = group_setting_json(&req->uow, id);
		if (value == NULL)
			return -1;
		json_object_object_add(data, name, group_value_json(req, &u->new_value));
		if (event_update_dict(req, one(name, value)) < 0)
			return -1;
	}
	return 0;
}

/* moderation_request_channel_id: a private channel the user can see, or a negative number for none. */
static int apply_moderation_channel(struct request *req, struct settings *s, json_object *data)
{
	if (!param_present(req, "moderation_request_channel_id"))
		return 0;
	int64_t id = param_int(req, "moderation_request_channel_id");
	/* As the reference: "no channel" asked while none is set still counts as a change. */
	if (s->moderation_channel != 0 && s->moderation_channel == id)
		return 0;
	if (id >= 0) {
		struct channel *c = channel_access_by_id(&req->uow, id, false);
		if (c == NULL)
			return -1;
		if (c->is_archived)
			return api_error(req, ERR_BAD_REQUEST, "Invalid channel ID");
		if (!c->invite_only)
			return api_error(req, ERR_BAD_REQUEST, "Moderation request channel must be private.");
	}
	s->moderation_channel = id >= 0 ? id : 0;
	json_object_object_add(data, "moderation_request_channel_id", json_object_new_int64(id));
	return event_update(req, "moderation_request_channel_id", json_object_new_int64(id));
}

/* PATCH /api/v1/realm */
int realm_update(struct request *req)
{
	struct wanted w;
	struct settings s;
	if (read_params(req, &w) < 0 || load(req, &s) < 0)
		return -1;
	/* The response lists what changed, as the reference's json_success(request, data). */
	json_object *data = request_result(req);
	if (apply_unlimited(req, &w, &s, data) < 0 || apply_properties(req, &w, &s, data) < 0 ||
	    apply_groups(req, &w, &s, data) < 0 || apply_moderation_channel(req, &s, data) < 0)
		return -1;
	return store(req, &s);
}
