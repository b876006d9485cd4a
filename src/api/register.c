/*
 * POST /register: an event queue and the initial state, race-free (DESIGN.md "Events"): the queue exists before
 * the state is read, the state is read in one REPEATABLE READ transaction, and the queue keeps that transaction's
 * snapshot so that it never serves an event the state already contains. Also the unauthenticated (spectator)
 * form, which makes no queue.
 * Reference: Zulip zerver/views/events_register.py, zerver/lib/events.py (do_events_register),
 * zerver/lib/narrow_predicate.py (check_narrow_for_events).
 */
#include <json-c/json.h>
#include <stdio.h>
#include <string.h>

#include "api/api.h"
#include "api/version.h"
#include "core/config.h"
#include "core/jsonx.h"
#include "db/db.h"
#include "events/events.h"
#include "http/params.h"
#include "http/request.h"
#include "model/realm.h"
#include "model/state.h"
#include "model/user.h"

#define DEFAULT_QUEUE_TIMEOUT_SECS 600
#define MOBILE_QUEUE_TIMEOUT_SECS  (12 * 3600)
#define MAX_QUEUE_TIMEOUT_SECS     (7 * 24 * 3600)

/* The client capabilities the reference knows; each must be a boolean when given. */
static const char *const capability_names[] = {
    "notification_settings_null",
    "bulk_message_deletion",
    "user_avatar_url_field_optional",
    "stream_typing_notifications",
    "user_settings_object",
    "linkifier_url_template",
    "user_list_incomplete",
    "include_deactivated_groups",
    "archived_channels",
    "empty_topic_name",
    "simplified_presence_events",
    "individual_emoji_changes",
};

static struct db_stmt st_web_public =
    DB_STMT("SELECT 1 FROM channels WHERE realm_id = $1 AND is_web_public AND NOT is_archived LIMIT 1");
static struct db_stmt st_snapshot = DB_STMT("SELECT pg_current_snapshot()::text");

/* Without credentials the request is a spectator's: allowed only where the organization lets spectators in and has
 * a web-public channel to show. */
static int check_spectator_access(struct request *req)
{
	if (req->realm == NULL || !req->realm->enable_spectator_access)
		return api_error(req, ERR_UNAUTHORIZED, NULL);
	struct db_res *res = DB_EXEC(&req->uow, &st_web_public, db_arg_int(&req->uow, req->realm->id));
	if (res == NULL)
		return -1;
	return db_rows(res) > 0 ? 0 : api_error(req, ERR_UNAUTHORIZED, NULL);
}

/* The reference's check_narrow_for_events: the operators a queue can filter on. */
static int check_narrow(struct request *req, json_object *narrow)
{
	static const char *const supported[] = {"channel", "stream", "topic", "sender", "is"};
	for (size_t i = 0; narrow != NULL && i < json_object_array_length(narrow); i++) {
		json_object *term = json_object_array_get_idx(narrow, i);
		const char *op = json_object_get_string(json_object_array_get_idx(term, 0));
		const char *operand = json_object_get_string(json_object_array_get_idx(term, 1));
		bool known = false;
		for (size_t k = 0; k < sizeof(supported) / sizeof(supported[0]); k++)
			known = known || strcmp(op, supported[k]) == 0;
		if (!known)
			return api_error(req, ERR_BAD_REQUEST, "Operator %s not supported.", op);
		if (strcmp(op, "is") == 0 && strcmp(operand, "followed") == 0)
			return api_error(req, ERR_BAD_REQUEST, "Operand %s not supported.", operand);
	}
	return 0;
}

/* client_capabilities: each known capability a boolean; sets the ones the initial state depends on. */
static int read_capabilities(struct request *req, struct state_options *o, json_object **out)
{
	json_object *caps = *out = param_json(req, "client_capabilities");
	bool value[sizeof(capability_names) / sizeof(capability_names[0])] = {false};
	for (size_t i = 0; caps != NULL && i < sizeof(capability_names) / sizeof(capability_names[0]); i++) {
		json_object *v;
		if (!json_object_object_get_ex(caps, capability_names[i], &v))
			continue;
		if (!json_object_is_type(v, json_type_boolean))
			return api_error(req, ERR_BAD_REQUEST, "client_capabilities[\"%s\"] is not a boolean",
			                 capability_names[i]);
		value[i] = json_object_get_boolean(v);
	}
	o->notification_settings_null = value[0];
	o->user_avatar_url_field_optional = value[2];
	o->user_settings_object = value[4];
	o->linkifier_url_template = value[5];
	o->user_list_incomplete = value[6];
	o->include_deactivated_groups = value[7];
	o->archived_channels = value[8];
	o->empty_topic_name = value[9];
	o->simplified_presence_events = value[10];
	return 0;
}

/* idle_queue_timeout: seconds or "mobile"; else the legacy queue_lifespan_secs; 0 means the default. */
static int read_timeout(struct request *req, int *secs)
{
	const char *raw = param_str(req, "idle_queue_timeout");
	int64_t v = param_int(req, "queue_lifespan_secs");
	if (raw != NULL && (strcmp(raw, "mobile") == 0 || strcmp(raw, "\"mobile\"") == 0)) {
		v = MOBILE_QUEUE_TIMEOUT_SECS;
	} else if (raw != NULL) {
		json_object *j = NULL;
		int rc = uow_parse_client_json(&req->uow, raw, strlen(raw), &j);
		if (rc < 0)
			return -1;
		if (rc > 0 || (j != NULL && !json_object_is_type(j, json_type_int)) ||
		    (j != NULL && json_object_get_int64(j) < 0))
			return api_error(req, ERR_BAD_REQUEST, "Invalid idle_queue_timeout");
		v = j != NULL ? json_object_get_int64(j) : 0;
	}
	/* The reference's min(v, MAX_QUEUE_TIMEOUT_SECS), with the bound an operator may lower. */
	int max = req->uow.worker->cfg->event_queue_max_idle_secs;
	if (max <= 0 || max > MAX_QUEUE_TIMEOUT_SECS)
		max = MAX_QUEUE_TIMEOUT_SECS;
	if (v <= 0)
		v = DEFAULT_QUEUE_TIMEOUT_SECS;
	*secs = v > max ? max : (int)v;
	return 0;
}

/* The parameters into the queue's and the state's options, in the reference's order. */
static int read_params(struct request *req, struct queue_spec *spec, struct state_options *o)
{
	const char *subscribers = param_str(req, "include_subscribers");
	spec->apply_markdown = param_bool(req, "apply_markdown");
	/* A null counts as not sent (P_NULL): client_gravatar then defaults to whether a user asks. */
	spec->all_public_streams = param_present(req, "all_public_streams") && param_bool(req, "all_public_streams");
	spec->client_gravatar =
	    param_present(req, "client_gravatar") ? param_bool(req, "client_gravatar") : req->user != NULL;
	spec->event_types = param_json(req, "event_types");
	json_object *fetch_types = param_json(req, "fetch_event_types");
	if (read_capabilities(req, o, &spec->capabilities) < 0 || read_timeout(req, &spec->timeout_secs) < 0)
		return -1;
	if (strcmp(subscribers, "true") != 0 && strcmp(subscribers, "false") != 0 &&
	    strcmp(subscribers, "partial") != 0)
		return api_error(req, ERR_BAD_REQUEST, "Invalid include_subscribers");
	/* An empty narrow is none. */
	json_object *narrow = param_json(req, "narrow");
	spec->narrow = narrow != NULL && json_object_array_length(narrow) > 0 ? narrow : NULL;
	/* fetch_event_types picks the initial data, else event_types; only event_types filters the queue. */
	o->fetch_types = fetch_types ? fetch_types : spec->event_types;
	o->client_gravatar = spec->client_gravatar;
	spec->slim_presence = o->slim_presence = param_bool(req, "slim_presence");
	o->has_presence_history_days = param_present(req, "presence_history_limit_days");
	o->presence_history_days = param_int(req, "presence_history_limit_days");
	o->subscribers = strcmp(subscribers, "true") == 0      ? SUBSCRIBERS_ALL
	                 : strcmp(subscribers, "partial") == 0 ? SUBSCRIBERS_PARTIAL
	                                                       : SUBSCRIBERS_NONE;
	return 0;
}

/* What only a user, or only a spectator, may ask for. */
static int check_requester(struct request *req, struct queue_spec *spec, const struct state_options *o)
{
	if (req->user != NULL) {
		if (spec->all_public_streams && user_is_guest(req->user))
			return api_error(req, ERR_BAD_REQUEST, "User not authorized for this query");
		return 0;
	}
	if (check_spectator_access(req) < 0)
		return -1;
	if (spec->client_gravatar)
		return api_error(req, ERR_BAD_REQUEST, "Invalid 'client_gravatar' parameter for anonymous request");
	if (o->subscribers != SUBSCRIBERS_NONE)
		return api_error(req, ERR_BAD_REQUEST, "Invalid 'include_subscribers' parameter for anonymous request");
	spec->all_public_streams = false;
	return 0;
}

/* POST /api/v1/register */
int events_register(struct request *req)
{
	struct queue_spec spec = {0};
	struct state_options o = {0};
	if (read_params(req, &spec, &o) < 0 || check_requester(req, &spec, &o) < 0 ||
	    check_narrow(req, spec.narrow) < 0)
		return -1;
	/* The queue first: every event from now on reaches it, and the snapshot below tells which are in the state. */
	const char *queue_id = NULL;
	if (req->user != NULL && (queue_id = events_queue_create(&req->uow, &spec)) == NULL)
		return -1;
	if (db_begin_repeatable_read(&req->uow) < 0)
		return -1;
	struct db_res *snapshot = db_exec(&req->uow, &st_snapshot, NULL, 0);
	json_object *out = request_result(req);
	if (snapshot == NULL)
		return -1;
	o.snapshot = db_val(snapshot, 0, 0);
	if (state_fetch(&req->uow, &o, out) < 0)
		return -1;
	if (queue_id != NULL && events_queue_set_snapshot(&req->uow, queue_id, db_val(snapshot, 0, 0)) < 0)
		return -1;
	json_object_object_add(out, "queue_id", queue_id ? json_object_new_string(queue_id) : NULL);
	json_object_object_add(out, "zulip_version", json_object_new_string(ZULIP_VERSION));
	json_object_object_add(out, "zulip_feature_level", json_object_new_int(ZULIP_FEATURE_LEVEL));
	json_object_object_add(out, "zulip_merge_base", json_object_new_string(ZULIP_MERGE_BASE));
	/* Spectators get neither: there is no queue to read from (as the reference). */
	if (queue_id != NULL) {
		json_object_object_add(out, "last_event_id", json_object_new_int(-1));
		json_object_object_add(out, "idle_queue_timeout_secs", json_object_new_int(spec.timeout_secs));
	}
	return 0;
}
