/* Subscriptions: the user's channels, subscribing (creating channels on the way), unsubscribing, settings. */
#include <ctype.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/api.h"
#include "api/shapes.h"
#include "core/ids.h"
#include "core/jsonx.h"
#include "db/db.h"
#include "http/params.h"
#include "http/request.h"
#include "model/channels.h"
#include "model/groups.h"
#include "model/permissions.h"
#include "model/realm.h"
#include "model/user.h"

static struct db_stmt st_mine = DB_STMT(CHANNEL_SELECT "AND sub.user_id IS NOT NULL ORDER BY c.name COLLATE \"C\"");

/* GET /api/v1/users/me/subscriptions */
int subscriptions_list(struct request *req)
{
	struct db_res *res =
	    DB_EXEC(&req->uow, &st_mine, db_arg_int(&req->uow, req->realm->id), db_arg_int(&req->uow, req->user->id));
	if (res == NULL)
		return -1;
	bool subscribers = param_bool(req, "include_subscribers");
	json_object *subs = json_object_new_array();
	json_object_object_add(request_result(req), "subscriptions", subs);
	for (int i = 0; i < db_rows(res); i++)
		json_object_array_add(
		    subs, channel_subscription_json(&req->uow, channel_from_row(&req->uow, res, i, 0), subscribers));
	return 0;
}

/* One element of the subscriptions parameter. */
struct wanted {
	const char *name;
	const char *description; /* NULL: not given */
	const char *color;       /* NULL: not given */
	struct channel *channel; /* NULL until found or created */
};

/* The subscriptions parameter of POST: its shape (api/shapes.h), then each name as a channel name. */
static int parse_wanted(struct request *req, json_object *list, struct wanted **out, size_t *n)
{
	struct channel_request *c;
	if (shape_subscriptions(req, list, &c, n) < 0)
		return -1;
	*out = arena_alloc(&req->arena, (*n + 1) * sizeof(**out));
	for (size_t i = 0; i < *n; i++) {
		if (channel_check_name(&req->uow, c[i].name) < 0)
			return -1;
		(*out)[i] = (struct wanted){c[i].name, c[i].description, c[i].color, NULL};
	}
	return 0;
}

/* Removes the repeats of ids[0..*n), keeping the first of each in place: sorted copy and binary search. */
static void unique_in_order(struct request *req, int64_t *ids, size_t *n)
{
	int64_t *sorted = arena_alloc(&req->arena, (*n + 1) * sizeof(*sorted));
	memcpy(sorted, ids, *n * sizeof(*sorted));
	qsort(sorted, *n, sizeof(*sorted), ids_cmp);
	bool *taken = arena_alloc(&req->arena, *n + 1);
	size_t kept = 0;
	for (size_t i = 0; i < *n; i++) {
		size_t at = (size_t)((int64_t *)bsearch(&ids[i], sorted, *n, sizeof(*sorted), ids_cmp) - sorted);
		while (at > 0 && sorted[at - 1] == ids[i]) /* bsearch may land on any of the equal ones */
			at--;
		if (!taken[at])
			ids[kept++] = ids[i];
		taken[at] = true;
	}
	*n = kept;
}

/* Active users of the organization by id or by e-mail address; x.i is the position in the array (from 1). */
static struct db_stmt st_principal_ids = DB_STMT("SELECT x.i, u.id FROM unnest($2::bigint[]) WITH ORDINALITY x(v, i)"
                                                 " JOIN users u ON u.id = x.v AND u.realm_id = $1 AND u.is_active");
static struct db_stmt st_principal_emails =
    DB_STMT("SELECT x.i, u.id FROM json_array_elements_text($2::json) WITH ORDINALITY x(e, i)"
            " JOIN users u ON u.realm_id = $1 AND lower(u.delivery_email) = lower(x.e) AND u.is_active");

/* Resolves one kind of principal (st, args as its $2): out[at[k]] receives the user at position k of the array. */
static int resolve_principals(struct request *req, struct db_stmt *st, const char *arg, const size_t *at, int64_t *out)
{
	struct db_res *res = DB_EXEC(&req->uow, st, db_arg_int(&req->uow, req->realm->id), arg);
	if (res == NULL)
		return -1;
	for (int r = 0; r < db_rows(res); r++)
		out[at[db_int(res, r, 0) - 1]] = db_int(res, r, 1);
	return 0;
}

/* Users named by principals (ids or e-mail addresses), repeats removed; defaults to the requesting user. Two
 * statements whatever the number. */
static int parse_principals(struct request *req, int64_t **ids, size_t *n)
{
	json_object *list = param_json(req, "principals");
	struct principal_list p;
	if (shape_principals(req, list, &p) < 0)
		return -1;
	size_t count = p.n;
	*ids = arena_alloc(&req->arena, (count + 1) * sizeof(**ids));
	size_t *at = arena_alloc(&req->arena, (count + 1) * sizeof(*at));
	for (size_t i = 0; i < count; i++)
		at[i] = i;
	if (count > 0 && (p.by_email ? resolve_principals(req, &st_principal_emails, jsonx_string(list), at, *ids)
	                             : resolve_principals(req, &st_principal_ids,
	                                                  db_arg_ids(&req->uow, p.ids, (int)count), at, *ids)) < 0)
		return -1;
	for (size_t i = 0; i < count; i++)
		if ((*ids)[i] == 0)
			return api_error(req, ERR_BAD_REQUEST, "No such user");
	*n = count;
	if (*n == 0)
		(*ids)[(*n)++] = req->user->id;
	unique_in_order(req, *ids, n);
	return 0;
}

static bool others_among(struct request *req, const int64_t *ids, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (ids[i] != req->user->id)
			return true;
	return false;
}

/* Each new subscription is a subscription object (about 1.5 KB) in its user's event: the product of channels and
 * users is bounded. */
#define MAX_SUBSCRIPTION_CHANGES 10000

static int check_changes(struct request *req, size_t nchannels, size_t nusers)
{
	if (nchannels * nusers > MAX_SUBSCRIPTION_CHANGES)
		return api_error(req, ERR_BAD_REQUEST, "Too many subscriptions requested (maximum %d).",
		                 MAX_SUBSCRIPTION_CHANGES);
	return 0;
}

/* The names as a JSON array text, for json_array_elements_text(). */
static const char *names_json(struct request *req, const struct wanted *w, size_t n)
{
	json_object *a = request_own_json(req, json_object_new_array());
	for (size_t i = 0; i < n; i++)
		json_object_array_add(a, json_object_new_string(w[i].name));
	return jsonx_string(a);
}

/* For each name (x.i: its position, from 1), its key as the unique index compares names and the channel with
 * it, if any; the repeats of a key are adjacent, the first asked first. */
static struct db_stmt st_name_keys =
    DB_STMT("SELECT t.i, lower(t.x), c.id FROM json_array_elements_text($2::json) WITH ORDINALITY t(x, i)"
            " LEFT JOIN channels c ON c.realm_id = $1 AND lower(c.name) = lower(t.x)"
            " ORDER BY lower(t.x) COLLATE \"C\", t.i");
static struct db_stmt st_by_ids = DB_STMT(CHANNEL_SELECT "AND c.id = ANY($3::bigint[]) ORDER BY c.id");

/* The channel of id among chans (ascending ids), or NULL. */
static struct channel *channel_among(struct channel **chans, int n, int64_t id)
{
	int lo = 0, hi = n;
	while (lo < hi) {
		int mid = lo + (hi - lo) / 2;
		if (chans[mid]->id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < n && chans[lo]->id == id ? chans[lo] : NULL;
}

/* Drops the names of w that repeat an earlier one (ignoring case, as channel names are unique) and fills
 * w[i].channel for the channels that exist. Two statements whatever the number of names. */
static int find_existing(struct request *req, struct wanted *w, size_t *n)
{
	struct db_res *keys =
	    DB_EXEC(&req->uow, &st_name_keys, db_arg_int(&req->uow, req->realm->id), names_json(req, w, *n));
	if (keys == NULL)
		return -1;
	bool *repeat = arena_alloc(&req->arena, *n + 1);
	int64_t *want = arena_alloc(&req->arena, (*n + 1) * sizeof(*want)),
	        *ids = arena_alloc(&req->arena, (*n + 1) * sizeof(*ids));
	int nids = 0;
	for (int r = 0; r < db_rows(keys); r++) {
		size_t i = (size_t)db_int(keys, r, 0) - 1;
		repeat[i] = r > 0 && strcmp(db_val(keys, r, 1), db_val(keys, r - 1, 1)) == 0;
		want[i] = db_null(keys, r, 2) ? 0 : db_int(keys, r, 2);
		if (want[i] && !repeat[i])
			ids[nids++] = want[i];
	}
	struct db_res *res = DB_EXEC(&req->uow, &st_by_ids, db_arg_int(&req->uow, req->realm->id),
	                             db_arg_int(&req->uow, req->user->id), db_arg_ids(&req->uow, ids, nids));
	if (res == NULL)
		return -1;
	struct channel **chans = arena_alloc(&req->arena, (size_t)(db_rows(res) + 1) * sizeof(*chans));
	for (int r = 0; r < db_rows(res); r++)
		chans[r] = channel_from_row(&req->uow, res, r, 0);
	size_t kept = 0;
	for (size_t i = 0; i < *n; i++) {
		if (repeat[i])
			continue;
		w[i].channel = want[i] ? channel_among(chans, db_rows(res), want[i]) : NULL;
		w[kept++] = w[i];
	}
	*n = kept;
	return 0;
}

/* The permission settings a new channel gets: the request's values, else the reference's defaults. */
static int new_channel_settings(struct request *req, int64_t settings[CS_COUNT])
{
	static const char *const defaults[CS_COUNT] = {
	    [CS_ADD_SUBSCRIBERS] = "role:nobody", [CS_ADMINISTER] = NULL, /* the creator */
	    [CS_CREATE_TOPIC] = "role:everyone",  [CS_DELETE_ANY] = "role:nobody",
	    [CS_DELETE_OWN] = "role:nobody",      [CS_MOVE_OUT] = "role:nobody",
	    [CS_MOVE_WITHIN] = "role:nobody",     [CS_REMOVE_SUBSCRIBERS] = "role:administrators",
	    [CS_RESOLVE_TOPICS] = "role:nobody",  [CS_SEND_MESSAGE] = "role:everyone",
	    [CS_SUBSCRIBE] = "role:nobody",
	};
	static struct db_stmt st_creator_group =
	    DB_STMT("SELECT confab_unnamed_group($1, NULL, ARRAY[$2::bigint], ARRAY[]::bigint[])");
	for (int i = 0; i < CS_COUNT; i++) {
		const struct group_setting_value *value = param_group_setting(req, channel_setting_names[i]);
		if (value != NULL) {
			settings[i] = group_setting_store(&req->uow, channel_setting_names[i], value->json,
			                                  channel_setting_flags[i]);
		} else if (defaults[i] != NULL) {
			settings[i] = group_system_id(&req->uow, req->realm->id, defaults[i]);
		} else {
			struct db_res *res =
			    DB_EXEC(&req->uow, &st_creator_group, db_arg_int(&req->uow, req->realm->id),
			            db_arg_int(&req->uow, req->user->id));
			settings[i] = res ? db_int(res, 0, 0) : 0;
		}
		if (settings[i] == 0)
			return -1;
	}
	return 0;
}

/* message_retention_days: "unlimited" -> -1, "realm_default" (the default) -> NULL (*is_null), a positive number. */
static int parse_retention(struct request *req, bool *is_null, int *days)
{
	enum param_limit_kind kind;
	int64_t value;
	if (param_limit(req, "message_retention_days", &kind, &value) < 0)
		return -1;
	*is_null = kind == LIMIT_NONE || kind == LIMIT_REALM_DEFAULT;
	*days = kind == LIMIT_UNLIMITED ? -1 : (int)value;
	return 0;
}

/* The topics_policy parameter, taken as sent or JSON-quoted; NULL when absent. */
static const char *topics_policy(struct request *req)
{
	const char *p = param_str(req, "topics_policy");
	if (p != NULL && p[0] == '"' && strlen(p) >= 2)
		p = arena_strndup(&req->arena, p + 1, strlen(p) - 2);
	return p;
}

static struct db_stmt st_create = DB_STMT(
    "INSERT INTO channels (realm_id, name, description, rendered_description, invite_only, is_web_public,"
    " history_public_to_subscribers, message_retention_days, folder_id, topics_policy, creator_id, is_default,"
    " can_add_subscribers_group_id, can_administer_channel_group_id, can_create_topic_group_id,"
    " can_delete_any_message_group_id, can_delete_own_message_group_id, can_move_messages_out_of_channel_group_id,"
    " can_move_messages_within_channel_group_id, can_remove_subscribers_group_id, can_resolve_topics_group_id,"
    " can_send_message_group_id, can_subscribe_group_id)"
    " VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12,"
    "         $13, $14, $15, $16, $17, $18, $19, $20, $21, $22, $23) RETURNING id");
static struct db_stmt st_folder = DB_STMT("SELECT 1 FROM channel_folders WHERE realm_id = $1 AND id = $2");

/* Checks the creation permissions once, then creates the channels of w that do not exist. */
static int create_missing(struct request *req, struct wanted *w, size_t n)
{
	bool invite_only = param_bool(req, "invite_only"), web_public = param_bool(req, "is_web_public");
	bool is_default = param_bool(req, "is_default_stream");
	size_t missing = 0;
	for (size_t i = 0; i < n; i++)
		missing += w[i].channel == NULL;
	if (missing == 0)
		return 0;
	if (!perm_create_channel(&req->uow, invite_only, false) || (is_default && !user_is_admin(req->user)))
		return api_error(req, ERR_BAD_REQUEST, "Insufficient permission");
	if (invite_only && is_default)
		return api_error(req, ERR_BAD_REQUEST, "A default channel cannot be private.");
	if (web_public && !req->realm->enable_spectator_access)
		return api_error(req, ERR_BAD_REQUEST, "Web-public channels are not enabled.");
	if (web_public && !perm_create_channel(&req->uow, false, true))
		return api_error(req, ERR_BAD_REQUEST, "Insufficient permission");
	bool retention_null;
	int retention = 0;
	if (parse_retention(req, &retention_null, &retention) < 0)
		return -1;
	if (!retention_null && !user_is_owner(req->user))
		return api_error(req, ERR_UNAUTHORIZED_PRINCIPAL, "Must be an organization owner");
	const char *policy = topics_policy(req);
	if (policy != NULL && strcmp(policy, "inherit") && strcmp(policy, "allow_empty_topic") &&
	    strcmp(policy, "disable_empty_topic") && strcmp(policy, "empty_topic_only"))
		return api_error(req, ERR_BAD_REQUEST, "Invalid topics_policy");
	if (policy != NULL && strcmp(policy, "inherit") != 0 && !perm_realm(&req->uow, RS_SET_TOPICS_POLICY))
		return api_error(req, ERR_BAD_REQUEST, "Insufficient permission");
	const char *folder = NULL;
	if (param_present(req, "folder_id")) {
		folder = db_arg_int(&req->uow, param_int(req, "folder_id"));
		struct db_res *res = DB_EXEC(&req->uow, &st_folder, db_arg_int(&req->uow, req->realm->id), folder);
		if (res == NULL || db_rows(res) == 0)
			return api_error(req, ERR_BAD_REQUEST, "Invalid channel folder ID");
	}
	/* Private channels keep their history from new subscribers unless asked; public ones never do. */
	bool history = !invite_only || (param_present(req, "history_public_to_subscribers") &&
	                                param_bool(req, "history_public_to_subscribers"));
	int64_t settings[CS_COUNT];
	if (new_channel_settings(req, settings) < 0)
		return -1;
	for (size_t i = 0; i < n; i++) {
		if (w[i].channel != NULL)
			continue;
		const char *desc = w[i].description ? w[i].description : "";
		const char *args[23] = {db_arg_int(&req->uow, req->realm->id),
		                        w[i].name,
		                        desc,
		                        channel_render_description(&req->uow, desc),
		                        invite_only ? "true" : "false",
		                        web_public ? "true" : "false",
		                        history ? "true" : "false",
		                        retention_null ? NULL : db_arg_int(&req->uow, retention),
		                        folder,
		                        policy ? policy : "inherit",
		                        db_arg_int(&req->uow, req->user->id),
		                        is_default ? "true" : "false"};
		for (int s = 0; s < CS_COUNT; s++)
			args[12 + s] = db_arg_int(&req->uow, settings[s]);
		struct db_res *res = db_exec(&req->uow, &st_create, args, 23);
		if (res == NULL || (w[i].channel = channel_by_id(&req->uow, db_int(res, 0, 0))) == NULL)
			return -1;
		w[i].channel->is_new = true;
		/* The creation event shows the channel as it is now, before its subscribers. */
		if (channel_complete(&req->uow, w[i].channel) < 0)
			return -1;
	}
	return 0;
}

/* Every pair of users ($1) and channels ($2: [[id, color], ...]) in one statement; the pairs that changed return. */
static struct db_stmt st_subscribe =
    DB_STMT("INSERT INTO subscriptions (user_id, channel_id, color)"
            " SELECT u, (c->>0)::bigint, c->>1 FROM unnest($1::bigint[]) u, json_array_elements($2::json) c"
            " ON CONFLICT (user_id, channel_id) DO UPDATE SET active = true WHERE NOT subscriptions.active"
            " RETURNING user_id, channel_id");

/* The (user_id, channel_id) rows of res, sorted for id_pairs_find(). */
static struct id_pair *pairs_of(struct request *req, const struct db_res *res)
{
	struct id_pair *p = arena_alloc(&req->arena, (size_t)(db_rows(res) + 1) * sizeof(*p));
	for (int r = 0; r < db_rows(res); r++)
		p[r] = (struct id_pair){db_int(res, r, 0), db_int(res, r, 1), r};
	id_pairs_sort(p, db_rows(res));
	return p;
}

/* Adds one name to the list of key user_id in obj (a {"<user id>": [names]} map). */
static void add_name(json_object *obj, int64_t user_id, const char *name)
{
	char key[24];
	snprintf(key, sizeof(key), "%lld", (long long)user_id);
	json_object *list;
	if (!json_object_object_get_ex(obj, key, &list)) {
		list = json_object_new_array();
		json_object_object_add(obj, key, list);
	}
	json_object_array_add(list, json_object_new_string(name));
}

/* Subscribes users to the channels of w; *ch receives what changed (for the events). */
static int subscribe_all(struct request *req, const struct wanted *w, size_t n, const int64_t *users, size_t nusers,
                         struct channel_changes *ch)
{
	ch->created = arena_alloc(&req->arena, (n + 1) * sizeof(*ch->created));
	ch->subs = arena_alloc(&req->arena, (n * nusers + 1) * sizeof(*ch->subs));
	for (size_t i = 0; i < n; i++)
		if (w[i].channel->is_new)
			ch->created[ch->ncreated++] = w[i].channel;
	json_object *subscribed = json_object_new_object(), *already = json_object_new_object();
	json_object_object_add(request_result(req), "subscribed", subscribed);
	json_object_object_add(request_result(req), "already_subscribed", already);
	json_object *channels = request_own_json(req, json_object_new_array());
	for (size_t i = 0; i < n; i++) {
		const struct channel *c = w[i].channel;
		json_object *pair = json_object_new_array();
		json_object_array_add(pair, json_object_new_int64(c->id));
		json_object_array_add(pair,
		                      json_object_new_string(w[i].color ? w[i].color : channel_default_color(c->id)));
		json_object_array_add(channels, pair);
	}
	struct db_res *res = n == 0 ? NULL
	                            : DB_EXEC(&req->uow, &st_subscribe, db_arg_ids(&req->uow, users, (int)nusers),
	                                      jsonx_string(channels));
	if (n > 0 && res == NULL)
		return -1;
	struct id_pair *changed = res ? pairs_of(req, res) : NULL;
	int nchanged = res ? db_rows(res) : 0;
	for (size_t u = 0; u < nusers; u++) {
		for (size_t i = 0; i < n; i++) {
			const struct channel *c = w[i].channel;
			bool is_new = id_pairs_find(changed, nchanged, users[u], c->id) != NULL;
			if (is_new)
				ch->subs[ch->nsubs++] = (struct channel_sub){users[u], c};
			add_name(is_new ? subscribed : already, users[u], c->name);
		}
	}
	return 0;
}

/* Drops the channels the user may not subscribe to (fatal unless authorization_errors_fatal is false). */
static int authorize(struct request *req, struct wanted *w, size_t *n, bool others)
{
	json_object *unauthorized = json_object_new_array();
	json_object_object_add(request_result(req), "unauthorized", unauthorized);
	size_t kept = 0;
	for (size_t i = 0; i < *n; i++) {
		struct channel *c = w[i].channel;
		if (!c->is_new && !perm_channel_subscribe_self(&req->uow, c) &&
		    !perm_channel_add_subscribers(&req->uow, c)) {
			if (param_bool(req, "authorization_errors_fatal"))
				return api_error(req, ERR_BAD_REQUEST, "Unable to access channel (%s).", c->name);
			json_object_array_add(unauthorized, json_object_new_string(c->name));
			continue;
		}
		if (others && !c->is_new && !perm_channel_add_subscribers(&req->uow, c))
			return api_error(req, ERR_BAD_REQUEST, "Insufficient permission");
		w[kept++] = w[i];
	}
	*n = kept;
	if (param_bool(req, "authorization_errors_fatal"))
		json_object_object_del(request_result(req), "unauthorized");
	return 0;
}

/* POST /api/v1/users/me/subscriptions */
int subscriptions_add(struct request *req)
{
	struct wanted *w = NULL;
	size_t n = 0, nusers = 0;
	int64_t *users = NULL;
	if (parse_wanted(req, param_json(req, "subscriptions"), &w, &n) < 0 ||
	    parse_principals(req, &users, &nusers) < 0 || find_existing(req, w, &n) < 0 ||
	    check_changes(req, n, nusers) < 0 || create_missing(req, w, n) < 0)
		return -1;
	bool others = others_among(req, users, nusers);
	struct channel_changes changes = {0};
	if (authorize(req, w, &n, others) < 0 || subscribe_all(req, w, n, users, nusers, &changes) < 0)
		return -1;
	return channel_events_subscribe(&req->uow, &changes);
}

static struct db_stmt st_unsubscribe =
    DB_STMT("UPDATE subscriptions SET active = false"
            " WHERE user_id = ANY($1::bigint[]) AND channel_id = ANY($2::bigint[]) AND active"
            " RETURNING user_id, channel_id");

/* The names of w without a channel the user can see, as "a, b, c", or NULL. */
static const char *missing_names(struct request *req, const struct wanted *w, size_t n)
{
	size_t size = 1;
	for (size_t i = 0; i < n; i++)
		if (w[i].channel == NULL || !w[i].channel->metadata_access)
			size += strlen(w[i].name) + 2;
	if (size == 1)
		return NULL;
	char *out = arena_alloc(&req->arena, size), *p = out;
	for (size_t i = 0; i < n; i++) {
		if (w[i].channel != NULL && w[i].channel->metadata_access)
			continue;
		if (p != out)
			p = stpcpy(p, ", ");
		p = stpcpy(p, w[i].name);
	}
	return out;
}

/* The names of the subscriptions parameter of DELETE, stripped. */
static int parse_names(struct request *req, struct wanted **out, size_t *n)
{
	json_object *list = param_json(req, "subscriptions");
	if (!json_object_is_type(list, json_type_array))
		return api_error(req, ERR_BAD_REQUEST, "subscriptions is not a list");
	*n = json_object_array_length(list);
	struct wanted *w = *out = arena_alloc(&req->arena, (*n + 1) * sizeof(*w));
	for (size_t i = 0; i < *n; i++) {
		json_object *v = json_object_array_get_idx(list, i);
		if (!json_object_is_type(v, json_type_string))
			return api_error(req, ERR_BAD_REQUEST, "subscriptions[%zu] is not a string", i);
		w[i].name = arena_strip(&req->arena, json_object_get_string(v));
	}
	return 0;
}

/* DELETE /api/v1/users/me/subscriptions */
int subscriptions_remove(struct request *req)
{
	struct wanted *w = NULL;
	size_t n = 0, nusers = 0;
	int64_t *users = NULL;
	if (parse_names(req, &w, &n) < 0 || parse_principals(req, &users, &nusers) < 0 ||
	    find_existing(req, w, &n) < 0 || check_changes(req, n, nusers) < 0)
		return -1;
	const char *missing = missing_names(req, w, n);
	if (missing != NULL)
		return api_error(req, ERR_BAD_REQUEST, "Channel(s) (%s) do not exist", missing);
	bool others = others_among(req, users, nusers);
	for (size_t i = 0; i < n && others; i++)
		if (!perm_channel_remove_subscribers(&req->uow, w[i].channel))
			return api_error(req, ERR_BAD_REQUEST, "Insufficient permission");
	int64_t *ids = arena_alloc(&req->arena, (n + 1) * sizeof(*ids));
	for (size_t i = 0; i < n; i++)
		ids[i] = w[i].channel->id;
	struct db_res *res = DB_EXEC(&req->uow, &st_unsubscribe, db_arg_ids(&req->uow, users, (int)nusers),
	                             db_arg_ids(&req->uow, ids, (int)n));
	if (res == NULL)
		return -1;
	struct id_pair *changed = pairs_of(req, res);
	json_object *removed = json_object_new_array(), *not_removed = json_object_new_array();
	json_object_object_add(request_result(req), "removed", removed);
	json_object_object_add(request_result(req), "not_removed", not_removed);
	struct channel_sub *gone = arena_alloc(&req->arena, (n * nusers + 1) * sizeof(*gone));
	int ngone = 0;
	for (size_t u = 0; u < nusers; u++) {
		for (size_t i = 0; i < n; i++) {
			bool was = id_pairs_find(changed, db_rows(res), users[u], w[i].channel->id) != NULL;
			if (was)
				gone[ngone++] = (struct channel_sub){users[u], w[i].channel};
			json_object_array_add(was ? removed : not_removed, json_object_new_string(w[i].name));
		}
	}
	return channel_events_unsubscribe(&req->uow, gone, ngone);
}

static struct db_stmt st_set_color =
    DB_STMT("UPDATE subscriptions SET color = $3 WHERE user_id = $1 AND channel_id = $2");
static struct db_stmt st_set_flag = DB_STMT(
    "UPDATE subscriptions SET"
    " pin_to_top = CASE WHEN $3 = 'pin_to_top' THEN $4::boolean ELSE pin_to_top END,"
    " is_muted = CASE WHEN $3 = 'is_muted' THEN $4::boolean WHEN $3 = 'in_home_view' THEN NOT $4::boolean"
    "            ELSE is_muted END,"
    " desktop_notifications = CASE WHEN $3 = 'desktop_notifications' THEN $4::boolean ELSE desktop_notifications END,"
    " email_notifications = CASE WHEN $3 = 'email_notifications' THEN $4::boolean ELSE email_notifications END,"
    " push_notifications = CASE WHEN $3 = 'push_notifications' THEN $4::boolean ELSE push_notifications END,"
    " audible_notifications = CASE WHEN $3 = 'audible_notifications' THEN $4::boolean ELSE audible_notifications END,"
    " wildcard_mentions_notify = CASE WHEN $3 = 'wildcard_mentions_notify' THEN $4::boolean"
    "                            ELSE wildcard_mentions_notify END"
    " WHERE user_id = $1 AND channel_id = $2");

/* Applies one change whose shape was checked (api/shapes.h). */
static int change_property(struct request *req, const struct property_change *change)
{
	struct channel *c = channel_access_by_id(&req->uow, change->stream_id, false);
	if (c == NULL)
		return -1;
	if (!c->is_subscribed)
		return api_error(req, ERR_BAD_REQUEST, "Not subscribed to channel ID %lld", (long long)c->id);
	const char *uid = db_arg_int(&req->uow, req->user->id), *cid = db_arg_int(&req->uow, c->id);
	struct db_res *res = change->is_color ? DB_EXEC(&req->uow, &st_set_color, uid, cid, change->color)
	                                      : DB_EXEC(&req->uow, &st_set_flag, uid, cid, change->property,
	                                                change->flag ? "true" : "false");
	json_object *value = request_own_json(req, change->is_color ? json_object_new_string(change->color)
	                                                            : json_object_new_boolean(change->flag));
	return res == NULL ? -1 : channel_events_property(&req->uow, c->id, change->property, value);
}

/* PATCH (and POST) /api/v1/users/me/subscriptions/properties */
int subscriptions_update_properties(struct request *req)
{
	struct property_change *changes;
	size_t n;
	if (shape_subscription_data(req, param_json(req, "subscription_data"), &changes, &n) < 0)
		return -1;
	for (size_t i = 0; i < n; i++)
		if (change_property(req, &changes[i]) < 0)
			return -1;
	return 0;
}
