/* Channels with the requesting user's access, and the Channel object; see channels.h. */
#include "model/channels.h"

#include <stdlib.h>
#include <string.h>

#include "core/ids.h"
#include "core/jsonx.h"
#include "core/utf8.h"
#include "db/db.h"
#include "events/events.h"
#include "core/uow.h"
#include "model/markdown.h"
#include "model/groups.h"
#include "model/realm.h"
#include "model/user.h"

const char *const channel_setting_names[CS_COUNT] = {
    [CS_ADD_SUBSCRIBERS] = "can_add_subscribers_group",
    [CS_ADMINISTER] = "can_administer_channel_group",
    [CS_CREATE_TOPIC] = "can_create_topic_group",
    [CS_DELETE_ANY] = "can_delete_any_message_group",
    [CS_DELETE_OWN] = "can_delete_own_message_group",
    [CS_MOVE_OUT] = "can_move_messages_out_of_channel_group",
    [CS_MOVE_WITHIN] = "can_move_messages_within_channel_group",
    [CS_REMOVE_SUBSCRIBERS] = "can_remove_subscribers_group",
    [CS_RESOLVE_TOPICS] = "can_resolve_topics_group",
    [CS_SEND_MESSAGE] = "can_send_message_group",
    [CS_SUBSCRIBE] = "can_subscribe_group",
};

/* The settings that grant metadata access refuse role:everyone (the reference's allow_everyone_group False). */
const unsigned channel_setting_flags[CS_COUNT] = {
    [CS_ADD_SUBSCRIBERS] = GS_NO_EVERYONE,
    [CS_ADMINISTER] = GS_NO_EVERYONE,
    [CS_SUBSCRIBE] = GS_NO_EVERYONE,
};

#define CHANNEL_FIELD(member, type, sql) DB_FIELD(struct channel, member, type)
#define CHANNEL_FLAG(member, type)       DB_FIELD(struct channel, member, type)
static const struct db_field channel_fields[] = {
    CHANNEL_FIELDS("", "", CHANNEL_SETTING_NO_VALUE, CHANNEL_FIELD, CHANNEL_FIELD, CHANNEL_FLAG)};

/* The setting values a row left NULL: named groups, whose value is their id. */
static void setting_ids(struct uow *uow, struct channel *c)
{
	for (int i = 0; i < CS_COUNT; i++)
		if (c->setting_json[i] == NULL)
			c->setting_json[i] = arena_printf(&uow->arena, "%lld", (long long)c->settings[i]);
}

struct channel *channel_from_row(struct uow *uow, const struct db_res *res, int row, int col)
{
	struct channel *c = arena_alloc(&uow->arena, sizeof(*c));
	db_read_row(res, row, col, channel_fields, DB_NFIELDS(channel_fields), c);
	setting_ids(uow, c);
	/* Access as channels.h defines it. */
	const struct user *u = uow->user;
	bool guest = u != NULL && user_is_guest(u);
	bool open = c->is_web_public || (!c->invite_only && u != NULL && !guest);
	bool may_subscribe = c->in_setting[CS_ADD_SUBSCRIBERS] || c->in_setting[CS_SUBSCRIBE];
	c->content_access = open || c->is_subscribed || (u != NULL && may_subscribe);
	c->metadata_access = c->content_access || (u != NULL && (user_is_admin(u) || c->in_setting[CS_ADMINISTER]));
	return c;
}

const char *channel_render_description(struct uow *uow, const char *text)
{
	if (*text == '\0')
		return "";
	struct markdown_lookup none = {0};
	struct markdown_result out;
	markdown_render(uow, text, &none, &out); /* a description (1024 characters at most) renders well in time */
	return out.html;
}

static struct db_stmt st_by_id = DB_STMT(CHANNEL_SELECT_LOOKUP "AND c.id = $3");
static struct db_stmt st_by_name = DB_STMT(CHANNEL_SELECT_LOOKUP "AND lower(c.name) = lower($3)");

static struct channel *load(struct uow *uow, struct db_stmt *st, const char *key)
{
	int64_t uid = uow->user ? uow->user->id : 0;
	struct db_res *res = DB_EXEC(uow, st, db_arg_int(uow, uow->realm->id), db_arg_int(uow, uid), key);
	return res && db_rows(res) ? channel_from_row(uow, res, 0, 0) : NULL;
}

int channel_check_name(struct uow *uow, const char *name)
{
	const unsigned char *s = (const unsigned char *)name;
	size_t len = strlen(name), n;
	bool blank = true;
	int length = 0, bad = 0;
	for (size_t i = 0; i < len; i += n ? n : 1) {
		uint32_t c;
		n = utf8_decode(s + i, len - i, &c);
		length++;
		blank = blank && n != 0 && utf8_is_space(c);
		if (bad == 0 && (n == 0 || !utf8_is_printable(c)))
			bad = length;
	}
	if (blank)
		return uow_error(uow, ERR_BAD_REQUEST, "Channel name can't be empty.");
	if (length > CHANNEL_MAX_NAME_LENGTH)
		return uow_error(uow, ERR_BAD_REQUEST, "Channel name too long (limit: %d characters).",
		                 CHANNEL_MAX_NAME_LENGTH);
	if (bad != 0)
		return uow_error(uow, ERR_BAD_REQUEST, "Invalid character in channel name, at position %d.", bad);
	return 0;
}

struct channel *channel_by_id(struct uow *uow, int64_t id)
{
	return load(uow, &st_by_id, db_arg_int(uow, id));
}

struct channel *channel_by_name(struct uow *uow, const char *name)
{
	return load(uow, &st_by_name, name);
}

struct channel *channel_access_by_id(struct uow *uow, int64_t id, bool content)
{
	struct channel *c = channel_by_id(uow, id);
	if (uow->error != ERR_NONE)
		return NULL;
	if (c == NULL || !(content ? c->content_access : c->metadata_access)) {
		uow_error(uow, ERR_BAD_REQUEST, "Invalid channel ID");
		return NULL;
	}
	return c;
}

struct channel *channel_access_by_name(struct uow *uow, const char *name)
{
	struct channel *c = channel_by_name(uow, name);
	if (uow->error != ERR_NONE)
		return NULL;
	if (c == NULL || !c->content_access) {
		uow_error(uow, ERR_BAD_REQUEST, "Invalid channel name '%s'", name);
		return NULL;
	}
	return c;
}

/* The deprecated stream_post_policy, derived from can_send_message_group when it is a system group. */
int channel_stream_post_policy(const struct channel *c)
{
	if (strcmp(c->send_group_system_name, "role:administrators") == 0)
		return 2;
	if (strcmp(c->send_group_system_name, "role:fullmembers") == 0)
		return 3;
	if (strcmp(c->send_group_system_name, "role:moderators") == 0)
		return 4;
	return 1;
}

/* What a lookup left out: the CHANNEL_STATS_FIELDS, then the API value of each setting's group when it is unnamed
 * (for one channel, confab_group_setting_api() on those only; lists use CHANNEL_VALUE_JOINS). */
/* clang-format off */
#define LOOKUP_VALUE(col) \
	"(SELECT confab_group_setting_api(g.id)::text FROM user_groups g WHERE g.id = c." col " AND g.name IS NULL)"
#define VALUE_FIELD(i, col, VALUE, X) X(setting_json[i], DB_STRN, VALUE(col))
#define COMPLETE_FIELDS(X0, X, F) \
	CHANNEL_STATS_FIELDS(CHANNEL_COUNT_SUBSCRIBERS, CHANNEL_COUNT_TRAFFIC, X0, X, F) \
	CHANNEL_SETTINGS(VALUE_FIELD, LOOKUP_VALUE, X)
/* clang-format on */
static struct db_stmt st_complete = DB_STMT(
    "SELECT " COMPLETE_FIELDS(DB_SQL0, DB_SQL, DB_SQL_FLAG) " FROM channels c WHERE c.realm_id = $1 AND c.id = $2");
static const struct db_field complete_fields[] = {COMPLETE_FIELDS(CHANNEL_FIELD, CHANNEL_FIELD, CHANNEL_FLAG)};

int channel_complete(struct uow *uow, struct channel *c)
{
	if (c->complete)
		return 0;
	struct db_res *res = DB_EXEC(uow, &st_complete, db_arg_int(uow, c->realm_id), db_arg_int(uow, c->id));
	if (res == NULL || db_rows(res) != 1)
		return uow_error(uow, ERR_INTERNAL, NULL);
	db_read_row(res, 0, 0, complete_fields, DB_NFIELDS(complete_fields), c);
	setting_ids(uow, c);
	c->complete = true;
	return 0;
}

/* Setting i's API value: a named group's id (most settings, so without a parser for it), or the unnamed group's
 * object. */
static json_object *setting_value(const struct channel *c, int i)
{
	const char *text = c->setting_json[i];
	char *end;
	long long id = strtoll(text, &end, 10);
	if (end != text && *end == '\0')
		return json_object_new_int64(id);
	json_object *v = NULL;
	jsonx_parse(text, strlen(text), &v);
	return v;
}

json_object *channel_to_json(struct uow *uow, const struct channel *c)
{
	struct channel loaded;
	if (!c->complete) {
		loaded = *c;
		channel_complete(uow, &loaded); /* on failure the request fails: the object is not sent */
		c = &loaded;
	}
	json_object *o = json_object_new_object();
	json_object_object_add(o, "stream_id", json_object_new_int64(c->id));
	json_object_object_add(o, "name", json_object_new_string(c->name));
	json_object_object_add(o, "description", json_object_new_string(c->description));
	json_object_object_add(o, "rendered_description", json_object_new_string(c->rendered_description));
	json_object_object_add(o, "date_created", json_object_new_int64(c->date_created));
	json_object_object_add(o, "creator_id", c->creator_id ? json_object_new_int64(c->creator_id) : NULL);
	json_object_object_add(o, "invite_only", json_object_new_boolean(c->invite_only));
	json_object_object_add(o, "is_web_public", json_object_new_boolean(c->is_web_public));
	json_object_object_add(o, "is_archived", json_object_new_boolean(c->is_archived));
	json_object_object_add(o, "history_public_to_subscribers",
	                       json_object_new_boolean(c->history_public_to_subscribers));
	json_object_object_add(o, "message_retention_days",
	                       c->retention_is_null ? NULL : json_object_new_int(c->message_retention_days));
	json_object_object_add(o, "first_message_id",
	                       c->first_message_is_null ? NULL : json_object_new_int64(c->first_message_id));
	json_object_object_add(o, "folder_id", c->folder_id ? json_object_new_int64(c->folder_id) : NULL);
	json_object_object_add(o, "topics_policy", json_object_new_string(c->topics_policy));
	int policy = channel_stream_post_policy(c);
	json_object_object_add(o, "stream_post_policy", json_object_new_int(policy));
	json_object_object_add(o, "is_announcement_only", json_object_new_boolean(policy == 2));
	json_object_object_add(o, "is_recently_active", json_object_new_boolean(c->is_recently_active));
	json_object_object_add(o, "stream_weekly_traffic",
	                       c->weekly_traffic_is_null ? NULL
	                                                 : json_object_new_int64(traffic_round(c->weekly_traffic)));
	json_object_object_add(o, "subscriber_count", json_object_new_int64(c->subscriber_count));
	for (int i = 0; i < CS_COUNT; i++)
		json_object_object_add(o, channel_setting_names[i], setting_value(c, i));
	return o;
}

json_object *channel_subscription_json(struct uow *uow, const struct channel *c, bool subscribers)
{
	static const char *const names[5] = {"desktop_notifications", "email_notifications", "push_notifications",
	                                     "audible_notifications", "wildcard_mentions_notify"};
	json_object *o = channel_to_json(uow, c);
	json_object_object_add(o, "color", json_object_new_string(c->color));
	json_object_object_add(o, "pin_to_top", json_object_new_boolean(c->pin_to_top));
	json_object_object_add(o, "is_muted", json_object_new_boolean(c->is_muted));
	json_object_object_add(o, "in_home_view", json_object_new_boolean(!c->is_muted));
	for (int i = 0; i < 5; i++)
		json_object_object_add(
		    o, names[i], *c->notifications[i] ? json_object_new_boolean(c->notifications[i][0] == 't') : NULL);
	if (subscribers)
		json_object_object_add(o, "subscribers", channel_subscriber_ids(uow, c->id));
	return o;
}

static struct db_stmt st_subscribers = DB_STMT("SELECT coalesce(json_agg(s.user_id ORDER BY s.user_id), '[]')"
                                               "  FROM subscriptions s JOIN users u ON u.id = s.user_id"
                                               " WHERE s.channel_id = $1 AND s.active AND u.is_active");

json_object *channel_subscriber_ids(struct uow *uow, int64_t channel_id)
{
	struct db_res *res = DB_EXEC(uow, &st_subscribers, db_arg_int(uow, channel_id));
	json_object *ids = NULL;
	if (res == NULL || jsonx_parse(db_val(res, 0, 0), strlen(db_val(res, 0, 0)), &ids) < 0)
		return NULL;
	return ids;
}

/* ---- events ------------------------------------------------------------------------------------------------- */

/* The reference's can_access_stream_metadata_user_ids: web-public channels everyone; public channels non-guests
 * and subscribed guests; private channels subscribers, administrators and the non-guest members of the groups
 * granting metadata access. $2 false leaves subscriptions out (a channel nobody has subscribed to yet). */
static struct db_stmt st_metadata_users = DB_STMT(
    "WITH c AS (SELECT * FROM channels WHERE id = $1),"
    /* the granting groups' members once (as a correlated subquery they were computed per user: 0.5 s for 2,000) */
    " granted AS (SELECT g.user_id FROM c, LATERAL (SELECT user_id FROM"
    "   confab_group_members(c.can_administer_channel_group_id) UNION SELECT user_id FROM"
    "   confab_group_members(c.can_add_subscribers_group_id) UNION SELECT user_id FROM"
    "   confab_group_members(c.can_subscribe_group_id)) g WHERE c.invite_only)"
    " SELECT u.id FROM users u JOIN c ON u.realm_id = c.realm_id"
    " WHERE u.is_active AND (c.is_web_public OR (NOT c.invite_only AND u.role <> 600)"
    "   OR ($2 AND EXISTS (SELECT 1 FROM subscriptions s WHERE s.channel_id = c.id AND s.user_id = u.id AND s.active))"
    "   OR (c.invite_only AND u.role <= 200)"
    "   OR (c.invite_only AND u.role <> 600 AND u.id IN (SELECT user_id FROM granted)))"
    " ORDER BY u.id");

int64_t *channel_metadata_user_ids(struct uow *uow, int64_t channel_id, bool with_subscribers, int *n)
{
	struct db_res *res =
	    DB_EXEC(uow, &st_metadata_users, db_arg_int(uow, channel_id), with_subscribers ? "true" : "false");
	return db_ids(uow, res, 0, n);
}

/* The reference's palette for new subscriptions. */
static const char *const palette[] = {"#76ce90", "#fae589", "#a6c7e5", "#e79ab5", "#bfd56f", "#f4ae55",
                                      "#b0a5fd", "#addfe5", "#f5ce6e", "#c2726a", "#94c849", "#bd86e5",
                                      "#ee7e4a", "#a6dcbf", "#95a5fd", "#53a063", "#9987e1", "#e4523d",
                                      "#c2c2c2", "#4f8de4", "#c6a8ad", "#e7cc4d", "#c8bebf", "#a47462"};

const char *channel_default_color(int64_t channel_id)
{
	return palette[channel_id % (int64_t)(sizeof(palette) / sizeof(*palette))];
}

json_object *ids_json(const int64_t *ids, int n)
{
	json_object *a = json_object_new_array_ext(n);
	for (int i = 0; i < n; i++)
		json_object_array_add(a, json_object_new_int64(ids[i]));
	return a;
}

json_object *channel_folder_json(const struct db_res *res, int i)
{
	json_object *f = json_object_new_object();
	json_object_object_add(f, "id", json_object_new_int64(db_int(res, i, 0)));
	json_object_object_add(f, "name", json_object_new_string(db_val(res, i, 1)));
	json_object_object_add(f, "description", json_object_new_string(db_val(res, i, 2)));
	json_object_object_add(f, "rendered_description", json_object_new_string(db_val(res, i, 3)));
	json_object_object_add(f, "order", json_object_new_int64(db_int(res, i, 4)));
	json_object_object_add(f, "date_created", db_null(res, i, 5) ? NULL : json_object_new_int64(db_int(res, i, 5)));
	json_object_object_add(f, "creator_id", db_null(res, i, 6) ? NULL : json_object_new_int64(db_int(res, i, 6)));
	json_object_object_add(f, "is_archived", json_object_new_boolean(db_bool(res, i, 7)));
	return f;
}

int64_t *ids_minus(struct uow *uow, const int64_t *a, int n, const int64_t *b, int m, int *out)
{
	int64_t *r = arena_alloc(&uow->arena, (size_t)(n + 1) * sizeof(*r));
	*out = 0;
	for (int i = 0, j = 0; i < n; i++) {
		while (j < m && b[j] < a[i])
			j++;
		if (j >= m || b[j] != a[i])
			r[(*out)++] = a[i];
	}
	return r;
}

static bool sorted_ids_contain(const int64_t *a, int n, int64_t id)
{
	return n > 0 && bsearch(&id, a, (size_t)n, sizeof(*a), ids_cmp) != NULL;
}

static int cmp_pair(const void *a, const void *b)
{
	const struct id_pair *x = a, *y = b;
	return x->user != y->user ? ids_cmp(&x->user, &y->user) : ids_cmp(&x->channel, &y->channel);
}

void id_pairs_sort(struct id_pair *p, int n)
{
	if (n > 0)
		qsort(p, (size_t)n, sizeof(*p), cmp_pair);
}

const struct id_pair *id_pairs_find(const struct id_pair *p, int n, int64_t user, int64_t channel)
{
	struct id_pair key = {user, channel, 0};
	return n > 0 ? bsearch(&key, p, (size_t)n, sizeof(*p), cmp_pair) : NULL;
}

/* A position, its key and the first position of that key (ids_group_order). */
struct keyed {
	int64_t key;
	int at, first;
};

static int cmp_key_at(const void *a, const void *b)
{
	const struct keyed *x = a, *y = b;
	return x->key != y->key ? ids_cmp(&x->key, &y->key) : (x->at > y->at) - (x->at < y->at);
}

static int cmp_first_at(const void *a, const void *b)
{
	const struct keyed *x = a, *y = b;
	return x->first != y->first ? (x->first > y->first) - (x->first < y->first) : (x->at > y->at) - (x->at < y->at);
}

int *ids_group_order(struct arena *a, const int64_t *keys, int n)
{
	struct keyed *k = arena_alloc(a, (size_t)(n + 1) * sizeof(*k));
	for (int i = 0; i < n; i++)
		k[i] = (struct keyed){keys[i], i, i};
	qsort(k, (size_t)n, sizeof(*k), cmp_key_at);
	for (int i = 1; i < n; i++)
		if (k[i].key == k[i - 1].key)
			k[i].first = k[i - 1].first;
	qsort(k, (size_t)n, sizeof(*k), cmp_first_at);
	int *order = arena_alloc(a, (size_t)(n + 1) * sizeof(*order));
	for (int i = 0; i < n; i++)
		order[i] = k[i].at;
	return order;
}

/* stream create with c as it is in memory (the reference's stream_to_dict of the object it holds). */
static int create_event(struct uow *uow, const struct channel *c, const int64_t *users, int n)
{
	json_object *event = events_new(uow, "stream", "create"), *streams = json_object_new_array();
	json_object_array_add(streams, channel_to_json(uow, c));
	json_object_object_add(event, "streams", streams);
	return events_add_some(uow, event, users, n);
}

static int delete_event(struct uow *uow, const int64_t *channel_ids, int nchannels, const int64_t *users, int n)
{
	json_object *event = events_new(uow, "stream", "delete"), *streams = json_object_new_array();
	for (int i = 0; i < nchannels; i++) {
		json_object *s = json_object_new_object();
		json_object_object_add(s, "stream_id", json_object_new_int64(channel_ids[i]));
		json_object_array_add(streams, s);
	}
	json_object_object_add(event, "streams", streams);
	json_object_object_add(event, "stream_ids", ids_json(channel_ids, nchannels));
	return events_add_some(uow, event, users, n);
}

static int peer_event(struct uow *uow, const char *op, const int64_t *channel_ids, int nchannels,
                      const int64_t *altered, int naltered, const int64_t *users, int n)
{
	json_object *event = events_new(uow, "subscription", op);
	json_object_object_add(event, "stream_ids", ids_json(channel_ids, nchannels));
	json_object_object_add(event, "user_ids", ids_json(altered, naltered));
	return events_add_some(uow, event, users, n);
}

int channel_events_update(struct uow *uow, const struct channel *c, const char *property, json_object *value,
                          const int64_t *users, int n)
{
	json_object *event = events_new(uow, "stream", "update");
	json_object_object_add(event, "property", json_object_new_string(property));
	json_object_object_add(event, "value", value);
	json_object_object_add(event, "stream_id", json_object_new_int64(c->id));
	json_object_object_add(event, "name", json_object_new_string(c->name));
	return events_add_some(uow, event, users, n);
}

int channel_events_gained(struct uow *uow, int64_t channel_id, const int64_t *users, int n)
{
	struct channel *c = channel_by_id(uow, channel_id);
	json_object *subscribers = c ? uow_own_json(uow, channel_subscriber_ids(uow, channel_id)) : NULL;
	if (subscribers == NULL)
		return uow_error(uow, ERR_INTERNAL, NULL);
	if (create_event(uow, c, users, n) < 0)
		return -1;
	json_object *event = events_new(uow, "subscription", "peer_add"), *ids = json_object_new_array();
	json_object_array_add(ids, json_object_new_int64(channel_id));
	json_object_object_add(event, "stream_ids", ids);
	json_object_object_add(event, "user_ids", json_object_get(subscribers));
	return events_add_some(uow, event, users, n);
}

int channel_events_lost(struct uow *uow, int64_t channel_id, const int64_t *users, int n)
{
	return delete_event(uow, &channel_id, 1, users, n);
}

/* The users of one channel whose subscription changed, ascending. */
struct altered {
	const struct channel *c;
	int64_t *users;
	int n;
};

/* The user ids of subs (keys for ids_group_order()). */
static int64_t *user_keys(struct uow *uow, const struct channel_sub *subs, int n)
{
	int64_t *keys = arena_alloc(&uow->arena, (size_t)(n + 1) * sizeof(*keys));
	for (int i = 0; i < n; i++)
		keys[i] = subs[i].user_id;
	return keys;
}

/* Groups changes by channel, in the order the channels first appear. */
static struct altered *by_channel(struct uow *uow, const struct channel_sub *subs, int n, int *na)
{
	int64_t *keys = arena_alloc(&uow->arena, (size_t)(n + 1) * sizeof(*keys));
	for (int i = 0; i < n; i++)
		keys[i] = subs[i].channel->id;
	int *order = ids_group_order(&uow->arena, keys, n);
	struct altered *a = arena_alloc(&uow->arena, (size_t)(n + 1) * sizeof(*a));
	*na = 0;
	for (int i = 0, j; i < n; i = j) {
		struct altered *x = &a[(*na)++];
		x->c = subs[order[i]].channel;
		for (j = i; j < n && keys[order[j]] == keys[order[i]];)
			j++;
		x->users = arena_alloc(&uow->arena, (size_t)(j - i + 1) * sizeof(int64_t));
		for (int k = i; k < j; k++)
			x->users[k - i] = subs[order[k]].user_id;
		qsort(x->users, (size_t)(j - i), sizeof(int64_t), ids_cmp);
		for (int k = 0; k < j - i; k++)
			if (k == 0 || x->users[k] != x->users[k - 1])
				x->users[x->n++] = x->users[k];
	}
	return a;
}

/* The channel ids of a, ascending. */
static int64_t *channel_ids(struct uow *uow, const struct altered *a, int na)
{
	int64_t *ids = arena_alloc(&uow->arena, (size_t)(na + 1) * sizeof(*ids));
	for (int i = 0; i < na; i++)
		ids[i] = a[i].c->id;
	qsort(ids, (size_t)na, sizeof(*ids), ids_cmp);
	return ids;
}

/* The members of the groups granting metadata access to the private channels of CTE ch (channel_id, realm_id,
 * user_id), each group's members computed once (the channels of a request often share their groups; per channel,
 * the three recursive lookups took 1.3 s for 1,000 channels). */
#define GRANTED_CTE                                                                                                    \
	"settings AS (SELECT id AS channel_id, realm_id, unnest(ARRAY[can_administer_channel_group_id,"                \
	"  can_add_subscribers_group_id, can_subscribe_group_id]) AS group_id FROM ch WHERE invite_only),"             \
	" granted AS MATERIALIZED (SELECT s.channel_id, s.realm_id, m.user_id FROM settings s"                         \
	"  JOIN (SELECT g.group_id, gm.user_id FROM (SELECT DISTINCT group_id FROM settings) g,"                       \
	"  LATERAL confab_group_members(g.group_id) gm) m ON m.group_id = s.group_id)"

/* The pairs of subs whose user has no metadata access to the channel (channel_metadata_user_ids() for every pair
 * in one statement; $3 false leaves subscriptions out). */
static struct db_stmt st_no_access = DB_STMT(
    "WITH p AS (SELECT * FROM unnest($1::bigint[], $2::bigint[]) p(user_id, channel_id)),"
    " ch AS MATERIALIZED (SELECT * FROM channels WHERE id IN (SELECT channel_id FROM p)),"
    " " GRANTED_CTE
    /* joins rather than subqueries under OR, which PostgreSQL runs once per pair (or over the whole table) */
    " SELECT p.user_id, p.channel_id FROM p JOIN ch c ON c.id = p.channel_id JOIN users u ON u.id = p.user_id"
    " LEFT JOIN subscriptions s ON $3::boolean AND s.user_id = p.user_id AND s.channel_id = p.channel_id AND s.active"
    " LEFT JOIN (SELECT DISTINCT channel_id, user_id FROM granted) g ON g.channel_id = c.id AND g.user_id = u.id"
    " WHERE NOT (u.is_active AND u.realm_id = c.realm_id AND (c.is_web_public OR (NOT c.invite_only AND u.role <> 600)"
    "   OR s.user_id IS NOT NULL OR (c.invite_only AND u.role <= 200)"
    "   OR (c.invite_only AND u.role <> 600 AND g.user_id IS NOT NULL)))");

/* The (user, channel) pairs of subs whose user does not see the channel, sorted for id_pairs_find(). */
static struct id_pair *no_access(struct uow *uow, const struct channel_sub *subs, int n, bool with_subscribers, int *np)
{
	int64_t *users = user_keys(uow, subs, n),
	        *channels = arena_alloc(&uow->arena, (size_t)(n + 1) * sizeof(int64_t));
	for (int i = 0; i < n; i++)
		channels[i] = subs[i].channel->id;
	struct db_res *res = DB_EXEC(uow, &st_no_access, db_arg_ids(uow, users, n), db_arg_ids(uow, channels, n),
	                             with_subscribers ? "true" : "false");
	if (res == NULL)
		return NULL;
	*np = db_rows(res);
	struct id_pair *p = arena_alloc(&uow->arena, (size_t)(*np + 1) * sizeof(*p));
	for (int r = 0; r < *np; r++)
		p[r] = (struct id_pair){db_int(res, r, 0), db_int(res, r, 1), r};
	id_pairs_sort(p, *np);
	return p;
}

/* The public channels among ids (ascending) that have guest subscribers, ascending. */
static struct db_stmt st_guest_subscribed =
    DB_STMT("SELECT DISTINCT s.channel_id FROM subscriptions s JOIN users u ON u.id = s.user_id"
            "  WHERE s.channel_id = ANY($1::bigint[]) AND s.active AND u.is_active AND u.role = 600 ORDER BY 1");

/* Who sees each channel of $1: channel_metadata_user_ids() with subscribers for many channels in one statement,
 * as the union of its three sources (subscribers; the organization's users by role; the granting groups). */
static struct db_stmt st_viewers =
    DB_STMT("WITH ch AS MATERIALIZED (SELECT * FROM channels WHERE id = ANY($1::bigint[])), " GRANTED_CTE
            " SELECT c.id, s.user_id FROM ch c JOIN subscriptions s ON s.channel_id = c.id AND s.active"
            "   JOIN users u ON u.id = s.user_id AND u.is_active AND u.realm_id = c.realm_id"
            " UNION SELECT c.id, u.id FROM (SELECT * FROM ch WHERE is_web_public OR NOT invite_only) c"
            "   JOIN users u ON u.realm_id = c.realm_id AND u.is_active WHERE c.is_web_public OR u.role <> 600"
            /* a private channel's administrators apart: not every channel against every user */
            " UNION SELECT c.id, u.id FROM (SELECT * FROM ch WHERE invite_only AND NOT is_web_public) c"
            "   JOIN users u ON u.realm_id = c.realm_id AND u.is_active AND u.role <= 200"
            " UNION SELECT g.channel_id, g.user_id FROM granted g"
            "   JOIN users u ON u.id = g.user_id AND u.is_active AND u.role <> 600 AND u.realm_id = g.realm_id"
            " ORDER BY 1, 2");

/* The viewers of some channels: those of channels[k] are users[from[k] .. from[k + 1]), ascending. */
struct viewers {
	const int64_t *channels; /* ascending */
	int *from;
	int64_t *users;
	int n;
};

static int load_viewers(struct uow *uow, const int64_t *ids, int n, struct viewers *v)
{
	struct db_res *res = n ? DB_EXEC(uow, &st_viewers, db_arg_ids(uow, ids, n)) : NULL;
	if (n && res == NULL)
		return -1;
	int rows = res ? db_rows(res) : 0, r = 0;
	*v = (struct viewers){ids, arena_alloc(&uow->arena, (size_t)(n + 1) * sizeof(int)),
	                      arena_alloc(&uow->arena, (size_t)(rows + 1) * sizeof(int64_t)), n};
	for (int k = 0; k < n; k++) {
		v->from[k] = r;
		for (; r < rows && db_int(res, r, 0) == ids[k]; r++)
			v->users[r] = db_int(res, r, 1);
	}
	v->from[n] = r;
	return r == rows ? 0 : uow_error(uow, ERR_INTERNAL, NULL);
}

/* The peers of a channel: who sees it now, except the users whose subscription changed. */
static int64_t *peers(struct uow *uow, const struct viewers *v, const struct altered *a, int *n)
{
	const int64_t *at = bsearch(&a->c->id, v->channels, (size_t)v->n, sizeof(int64_t), ids_cmp);
	if (at == NULL) {
		uow_error(uow, ERR_INTERNAL, NULL);
		return NULL;
	}
	int k = (int)(at - v->channels);
	return ids_minus(uow, v->users + v->from[k], v->from[k + 1] - v->from[k], a->users, a->n, n);
}

/* One peer event on a channel to its peers. */
static int peer_single(struct uow *uow, const char *op, const struct viewers *v, const struct altered *a)
{
	int np;
	int64_t *p = peers(uow, v, a, &np);
	return p ? peer_event(uow, op, &a->c->id, 1, a->users, a->n, p, np) : -1;
}

/* One batch of public channels with the same changed users and the same peers. */
static int peer_batch(struct uow *uow, const char *op, const struct viewers *v, const struct altered *first,
                      const int64_t *ids, int n)
{
	if (n == 0)
		return 0;
	int np;
	int64_t *p = peers(uow, v, first, &np);
	int64_t *sorted = arena_alloc(&uow->arena, (size_t)n * sizeof(*sorted));
	memcpy(sorted, ids, (size_t)n * sizeof(*sorted));
	qsort(sorted, (size_t)n, sizeof(*sorted), ids_cmp);
	return p ? peer_event(uow, op, sorted, n, first->users, first->n, p, np) : -1;
}

static int cmp_altered_users(const void *x, const void *y)
{
	const struct altered *a = *(const struct altered *const *)x, *b = *(const struct altered *const *)y;
	if (a->n != b->n)
		return (a->n > b->n) - (a->n < b->n);
	for (int i = 0; i < a->n; i++)
		if (a->users[i] != b->users[i])
			return ids_cmp(&a->users[i], &b->users[i]);
	return 0;
}

/* For each change of a, a key shared by the public channels with the same changed users (by sorting them), and a
 * key of its own for each private channel. */
static int64_t *user_set_keys(struct uow *uow, struct altered *a, int na)
{
	const struct altered **s = arena_alloc(&uow->arena, (size_t)(na + 1) * sizeof(*s));
	int64_t *keys = arena_alloc(&uow->arena, (size_t)(na + 1) * sizeof(*keys));
	int ns = 0;
	for (int i = 0; i < na; i++) {
		keys[i] = -1 - (int64_t)i;
		if (!a[i].c->invite_only)
			s[ns++] = &a[i];
	}
	qsort(s, (size_t)ns, sizeof(*s), cmp_altered_users);
	for (int k = 0, set = 0; k < ns; k++) {
		set += k > 0 && cmp_altered_users(&s[k - 1], &s[k]) != 0;
		keys[s[k] - a] = set;
	}
	return keys;
}

/* How the peers of a channel learn of its change (the reference's send_peer_subscriber_events): one event per
 * channel for private channels and public ones with guest subscribers; public channels with the same changed users
 * batched, web-public ones together and those without guest subscribers together (their peers are the same:
 * everyone, or every non-guest). */
enum peer_kind { PEER_SINGLE, PEER_WEB, PEER_PUBLIC };

struct peer_plan {
	struct altered *a;
	int na;
	enum peer_kind *kind;
	int64_t *keys; /* user_set_keys() */
	int *order;    /* the changes grouped by keys */
	int64_t *need; /* the channels whose viewers are needed: each one alone, the first of each batch */
	int nneed;
};

static int plan_peers(struct uow *uow, struct altered *a, int na, struct peer_plan *p)
{
	*p = (struct peer_plan){a,
	                        na,
	                        arena_alloc(&uow->arena, (size_t)(na + 1) * sizeof(*p->kind)),
	                        user_set_keys(uow, a, na),
	                        NULL,
	                        arena_alloc(&uow->arena, (size_t)(na + 1) * sizeof(int64_t)),
	                        0};
	p->order = ids_group_order(&uow->arena, p->keys, na);
	struct db_res *res =
	    na ? DB_EXEC(uow, &st_guest_subscribed, db_arg_ids(uow, channel_ids(uow, a, na), na)) : NULL;
	if (na && res == NULL)
		return -1;
	int nguests = res ? db_rows(res) : 0;
	int64_t *guests = arena_alloc(&uow->arena, (size_t)(nguests + 1) * sizeof(*guests));
	for (int r = 0; r < nguests; r++)
		guests[r] = db_int(res, r, 0);
	for (int i = 0, j; i < na; i = j) {
		bool web = false, pub = false;
		for (j = i; j < na && p->keys[p->order[j]] == p->keys[p->order[i]]; j++) {
			const struct channel *c = a[p->order[j]].c;
			p->kind[p->order[j]] = c->invite_only                               ? PEER_SINGLE
			                       : c->is_web_public                           ? PEER_WEB
			                       : sorted_ids_contain(guests, nguests, c->id) ? PEER_SINGLE
			                                                                    : PEER_PUBLIC;
			bool first = p->kind[p->order[j]] == PEER_SINGLE ||
			             (p->kind[p->order[j]] == PEER_WEB && !web) ||
			             (p->kind[p->order[j]] == PEER_PUBLIC && !pub);
			web = web || p->kind[p->order[j]] == PEER_WEB;
			pub = pub || p->kind[p->order[j]] == PEER_PUBLIC;
			if (first)
				p->need[p->nneed++] = c->id;
		}
	}
	qsort(p->need, (size_t)p->nneed, sizeof(int64_t), ids_cmp);
	return 0;
}

/* The public channels of a group of changes with the same users (positions order[from..to) of a): those with guest
 * subscribers one by one, then the web-public ones, then the others. */
static int peer_group(struct uow *uow, const char *op, const struct peer_plan *p, const struct viewers *v, int from,
                      int to)
{
	int nweb = 0, npub = 0, iweb = -1, ipub = -1;
	int64_t *web = arena_alloc(&uow->arena, (size_t)(to - from + 1) * sizeof(*web));
	int64_t *pub = arena_alloc(&uow->arena, (size_t)(to - from + 1) * sizeof(*pub));
	for (int k = from; k < to; k++) {
		int j = p->order[k];
		if (p->kind[j] == PEER_WEB) {
			iweb = iweb < 0 ? j : iweb;
			web[nweb++] = p->a[j].c->id;
		} else if (p->kind[j] == PEER_PUBLIC) {
			ipub = ipub < 0 ? j : ipub;
			pub[npub++] = p->a[j].c->id;
		} else if (peer_single(uow, op, v, &p->a[j]) < 0) {
			return -1;
		}
	}
	return (nweb && peer_batch(uow, op, v, &p->a[iweb], web, nweb) < 0) ||
	               (npub && peer_batch(uow, op, v, &p->a[ipub], pub, npub) < 0)
	           ? -1
	           : 0;
}

/* The peer events: private channels first, then the public ones in groups with the same changed users, the groups
 * in the order they first appear. Two statements whatever the number of channels. */
static int peer_events(struct uow *uow, const char *op, struct altered *a, int na)
{
	struct peer_plan p;
	struct viewers v;
	if (plan_peers(uow, a, na, &p) < 0 || load_viewers(uow, p.need, p.nneed, &v) < 0)
		return -1;
	for (int i = 0; i < na; i++)
		if (a[i].c->invite_only && peer_single(uow, op, &v, &a[i]) < 0)
			return -1;
	for (int i = 0, j; i < na; i = j) {
		for (j = i; j < na && p.keys[p.order[j]] == p.keys[p.order[i]];)
			j++;
		if (!a[p.order[i]].c->invite_only && peer_group(uow, op, &p, &v, i, j) < 0)
			return -1;
	}
	return 0;
}

/* Subscription settings of (user, channel) pairs ($1, $2), and the subscribers of channels ($1). */
static struct db_stmt st_sub_settings =
    DB_STMT("SELECT s.user_id, s.channel_id, s.color, s.pin_to_top, s.is_muted, s.desktop_notifications,"
            " s.email_notifications, s.push_notifications, s.audible_notifications, s.wildcard_mentions_notify"
            " FROM unnest($1::bigint[], $2::bigint[]) p(user_id, channel_id)"
            " JOIN subscriptions s ON s.user_id = p.user_id AND s.channel_id = p.channel_id AND s.active");
static struct db_stmt st_channel_subscribers =
    DB_STMT("SELECT s.channel_id, json_agg(s.user_id ORDER BY s.user_id)"
            "  FROM subscriptions s JOIN users u ON u.id = s.user_id"
            " WHERE s.channel_id = ANY($1::bigint[]) AND s.active AND u.is_active GROUP BY s.channel_id");

/* What the subscription objects of the subscription add events show, read for all of them at once. */
struct sub_state {
	struct db_res *settings;
	struct id_pair *pairs; /* rows of settings */
	int npairs;
	int64_t *channels; /* ascending */
	json_object **subscribers;
	int nchannels;
};

static int load_sub_state(struct uow *uow, const struct channel_sub *subs, int n, const struct altered *a, int na,
                          struct sub_state *st)
{
	int64_t *channels = arena_alloc(&uow->arena, (size_t)(n + 1) * sizeof(*channels));
	for (int i = 0; i < n; i++)
		channels[i] = subs[i].channel->id;
	st->settings =
	    DB_EXEC(uow, &st_sub_settings, db_arg_ids(uow, user_keys(uow, subs, n), n), db_arg_ids(uow, channels, n));
	st->channels = channel_ids(uow, a, na);
	struct db_res *res = DB_EXEC(uow, &st_channel_subscribers, db_arg_ids(uow, st->channels, na));
	if (st->settings == NULL || res == NULL)
		return -1;
	st->npairs = db_rows(st->settings);
	st->pairs = arena_alloc(&uow->arena, (size_t)(st->npairs + 1) * sizeof(*st->pairs));
	for (int r = 0; r < st->npairs; r++)
		st->pairs[r] = (struct id_pair){db_int(st->settings, r, 0), db_int(st->settings, r, 1), r};
	id_pairs_sort(st->pairs, st->npairs);
	st->nchannels = na;
	st->subscribers = arena_alloc(&uow->arena, (size_t)(na + 1) * sizeof(*st->subscribers));
	for (int r = 0; r < db_rows(res); r++) {
		int64_t id = db_int(res, r, 0);
		int64_t *at = bsearch(&id, st->channels, (size_t)na, sizeof(id), ids_cmp);
		json_object *ids = NULL;
		if (at == NULL || jsonx_parse(db_val(res, r, 1), strlen(db_val(res, r, 1)), &ids) < 0)
			return uow_error(uow, ERR_INTERNAL, NULL);
		st->subscribers[at - st->channels] = uow_own_json(uow, ids);
	}
	for (int i = 0; i < na; i++)
		if (st->subscribers[i] == NULL)
			st->subscribers[i] = uow_own_json(uow, json_object_new_array());
	return 0;
}

/* The subscription object user_id now has for c: the user's settings and the subscribers as they are now, the
 * channel's fields as the request loaded them (the reference's in-memory channel). */
static json_object *subscription_of(struct uow *uow, const struct sub_state *st, const struct channel_sub *s)
{
	const struct id_pair *p = id_pairs_find(st->pairs, st->npairs, s->user_id, s->channel->id);
	int64_t *at = bsearch(&s->channel->id, st->channels, (size_t)st->nchannels, sizeof(int64_t), ids_cmp);
	if (at == NULL)
		return NULL;
	struct channel *sub = arena_alloc(&uow->arena, sizeof(*sub));
	*sub = *s->channel;
	/* No active subscription (deactivated meanwhile): the settings read as NULL, as one lookup would show them. */
	sub->color = p ? db_val(st->settings, p->row, 2) : "";
	sub->pin_to_top = p && db_bool(st->settings, p->row, 3);
	sub->is_muted = p && db_bool(st->settings, p->row, 4);
	for (int i = 0; i < 5; i++)
		sub->notifications[i] = p ? db_val(st->settings, p->row, 5 + i) : "";
	json_object *o = channel_subscription_json(uow, sub, false);
	json_object_object_add(o, "subscribers", json_object_get(st->subscribers[at - st->channels]));
	return o;
}

/* subscription add to each user with their new subscriptions, in the order made. */
static int add_events(struct uow *uow, const struct channel_changes *ch, const struct sub_state *st)
{
	int64_t *keys = user_keys(uow, ch->subs, ch->nsubs);
	int *order = ids_group_order(&uow->arena, keys, ch->nsubs);
	for (int i = 0; i < ch->nsubs;) {
		int64_t user = keys[order[i]];
		json_object *event = events_new(uow, "subscription", "add"), *list = json_object_new_array();
		json_object_object_add(event, "subscriptions", list);
		for (; i < ch->nsubs && keys[order[i]] == user; i++) {
			json_object *sub = subscription_of(uow, st, &ch->subs[order[i]]);
			if (sub == NULL)
				return uow_error(uow, ERR_INTERNAL, NULL);
			json_object_array_add(list, sub);
		}
		if (events_add_some(uow, event, &user, 1) < 0)
			return -1;
	}
	return 0;
}

int channel_events_subscribe(struct uow *uow, const struct channel_changes *ch)
{
	for (int i = 0; i < ch->ncreated; i++) {
		int n;
		int64_t *users = channel_metadata_user_ids(uow, ch->created[i]->id, false, &n);
		if (users == NULL || create_event(uow, ch->created[i], users, n) < 0)
			return -1;
	}
	int na, nunseen = 0;
	struct altered *a = by_channel(uow, ch->subs, ch->nsubs, &na);
	/* Subscribers who could not see the channel before learn of it first (private channels, and guests). */
	struct id_pair *unseen = ch->nsubs ? no_access(uow, ch->subs, ch->nsubs, false, &nunseen) : NULL;
	if (ch->nsubs && unseen == NULL)
		return -1;
	for (int i = 0; i < na; i++) {
		int64_t *fresh = arena_alloc(&uow->arena, (size_t)(a[i].n + 1) * sizeof(*fresh));
		int nfresh = 0;
		for (int k = 0; k < a[i].n; k++)
			if (id_pairs_find(unseen, nunseen, a[i].users[k], a[i].c->id))
				fresh[nfresh++] = a[i].users[k];
		if (create_event(uow, a[i].c, fresh, nfresh) < 0)
			return -1;
	}
	struct sub_state st = {0};
	if (ch->nsubs && (load_sub_state(uow, ch->subs, ch->nsubs, a, na, &st) < 0 || add_events(uow, ch, &st) < 0))
		return -1;
	return peer_events(uow, "peer_add", a, na);
}

int channel_events_unsubscribe(struct uow *uow, const struct channel_sub *removed, int n)
{
	int nlost_pairs = 0, na;
	struct id_pair *lost_pairs = n ? no_access(uow, removed, n, true, &nlost_pairs) : NULL;
	if (n && lost_pairs == NULL)
		return -1;
	int64_t *keys = user_keys(uow, removed, n), *lost = arena_alloc(&uow->arena, (size_t)(n + 1) * sizeof(*lost));
	int *order = ids_group_order(&uow->arena, keys, n);
	for (int i = 0; i < n;) {
		int64_t user = keys[order[i]];
		json_object *event = events_new(uow, "subscription", "remove"), *list = json_object_new_array();
		json_object_object_add(event, "subscriptions", list);
		int nlost = 0;
		for (; i < n && keys[order[i]] == user; i++) {
			const struct channel *c = removed[order[i]].channel;
			json_object *s = json_object_new_object();
			json_object_object_add(s, "name", json_object_new_string(c->name));
			json_object_object_add(s, "stream_id", json_object_new_int64(c->id));
			json_object_array_add(list, s);
			if (id_pairs_find(lost_pairs, nlost_pairs, user, c->id))
				lost[nlost++] = c->id;
		}
		/* Unsubscribing from a channel one may not otherwise see removes it (the reference's stream delete). */
		if (events_add_some(uow, event, &user, 1) < 0 ||
		    (nlost && delete_event(uow, lost, nlost, &user, 1) < 0))
			return -1;
	}
	struct altered *a = by_channel(uow, removed, n, &na);
	return peer_events(uow, "peer_remove", a, na);
}

int channel_events_property(struct uow *uow, int64_t channel_id, const char *property, json_object *value)
{
	/* is_muted and its legacy inverse in_home_view: the reference sends in_home_view first, then is_muted. */
	bool muting = strcmp(property, "is_muted") == 0 || strcmp(property, "in_home_view") == 0;
	bool muted = muting && json_object_get_boolean(value) == (strcmp(property, "is_muted") == 0);
	for (int k = muting ? 0 : 1; k < 2; k++) {
		json_object *event = events_new(uow, "subscription", "update");
		json_object_object_add(event, "property",
		                       json_object_new_string(!muting  ? property
		                                              : k == 0 ? "in_home_view"
		                                                       : "is_muted"));
		json_object_object_add(event, "value",
		                       !muting  ? json_object_get(value)
		                       : k == 0 ? json_object_new_boolean(!muted)
		                                : json_object_new_boolean(muted));
		json_object_object_add(event, "stream_id", json_object_new_int64(channel_id));
		if (events_add_some(uow, event, &uow->user->id, 1) < 0)
			return -1;
	}
	return 0;
}

static struct db_stmt st_folder_json =
    DB_STMT("SELECT jsonb_build_object('id', id, 'name', name, 'description', description, 'rendered_description',"
            "  rendered_description, 'order', \"order\", 'date_created', extract(epoch FROM date_created)::bigint,"
            "  'creator_id', creator_id, 'is_archived', is_archived)::text FROM channel_folders WHERE id = $1");

int channel_folder_events_created(struct uow *uow, int64_t folder_id)
{
	struct db_res *res = DB_EXEC(uow, &st_folder_json, db_arg_int(uow, folder_id));
	json_object *folder = NULL;
	if (res == NULL || db_rows(res) != 1 || jsonx_parse(db_val(res, 0, 0), strlen(db_val(res, 0, 0)), &folder) < 0)
		return uow_error(uow, ERR_INTERNAL, NULL);
	json_object *event = events_new(uow, "channel_folder", "add");
	json_object_object_add(event, "channel_folder", folder);
	int n;
	int64_t *users = user_active_ids(uow, uow->realm->id, &n);
	return users ? events_add_some(uow, event, users, n) : -1;
}

int channel_events_peers(struct uow *uow, const char *op, const struct channel_sub *subs, int n)
{
	int na;
	struct altered *a = by_channel(uow, subs, n, &na);
	return peer_events(uow, op, a, na);
}

/* The channels of the user's realm it has metadata access to (st_metadata_users, from the user's side). */
static struct db_stmt st_visible_channels =
    DB_STMT("SELECT c.id FROM users u JOIN channels c ON c.realm_id = u.realm_id"
            " WHERE u.id = $1 AND NOT c.is_archived AND (c.is_web_public OR (NOT c.invite_only AND u.role <> 600)"
            "   OR EXISTS (SELECT 1 FROM subscriptions s WHERE s.channel_id = c.id AND s.user_id = u.id AND s.active)"
            "   OR (c.invite_only AND u.role <= 200)"
            "   OR (c.invite_only AND u.role <> 600 AND (confab_group_contains(c.can_administer_channel_group_id, u.id)"
            "     OR confab_group_contains(c.can_add_subscribers_group_id, u.id)"
            "     OR confab_group_contains(c.can_subscribe_group_id, u.id))))"
            " ORDER BY c.id");

int64_t *channel_visible_ids(struct uow *uow, int64_t user_id, int *n)
{
	struct db_res *res = DB_EXEC(uow, &st_visible_channels, db_arg_int(uow, user_id));
	return db_ids(uow, res, 0, n);
}

int channel_folder_events_update(struct uow *uow, int64_t folder_id, json_object *data)
{
	json_object *event = events_new(uow, "channel_folder", "update");
	json_object_object_add(event, "channel_folder_id", json_object_new_int64(folder_id));
	json_object_object_add(event, "data", data);
	int n;
	int64_t *users = user_active_ids(uow, uow->realm->id, &n);
	return users ? events_add_some(uow, event, users, n) : -1;
}

int channel_folder_events_reorder(struct uow *uow, const int64_t *order, int norder)
{
	json_object *event = events_new(uow, "channel_folder", "reorder");
	json_object_object_add(event, "order", ids_json(order, norder));
	int n;
	int64_t *users = user_active_ids(uow, uow->realm->id, &n);
	return users ? events_add_some(uow, event, users, n) : -1;
}
