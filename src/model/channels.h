/*
 * Channels as a user sees them: lookup with the requesting user's access and permissions computed in the same
 * query, the Channel object clients see, and the channel permission settings (group-setting values).
 *
 * Access, as the reference defines it:
 * - metadata access (the channel is visible): public channels for non-guests; web-public channels for everyone;
 *   private channels for subscribers, organization administrators, and members of can_administer_channel_group,
 *   can_add_subscribers_group or can_subscribe_group;
 * - content access (messages can be read): public channels for non-guests, web-public channels for everyone,
 *   subscribers, and members of can_add_subscribers_group or can_subscribe_group (who may subscribe themselves).
 *   Private channels with protected history only show subscribers the messages they received.
 */
#ifndef CONFAB_CHANNELS_H
#define CONFAB_CHANNELS_H

#include <json-c/json.h>
#include <stdbool.h>
#include <stdint.h>

#include "model/traffic.h" /* TRAFFIC_SQL */
#include "model/user.h"    /* USER_ACTIVE_SQL */

struct arena;
struct uow;
struct db_res;

enum channel_setting {
	CS_ADD_SUBSCRIBERS,
	CS_ADMINISTER,
	CS_CREATE_TOPIC,
	CS_DELETE_ANY,
	CS_DELETE_OWN,
	CS_MOVE_OUT,
	CS_MOVE_WITHIN,
	CS_REMOVE_SUBSCRIBERS,
	CS_RESOLVE_TOPICS,
	CS_SEND_MESSAGE,
	CS_SUBSCRIBE,
	CS_COUNT
};

/* The API names of the settings ("can_add_subscribers_group", ...), indexed by enum channel_setting. */
extern const char *const channel_setting_names[CS_COUNT];
/* What each setting refuses (model/groups.h GS_* flags for group_setting_store()), indexed by enum channel_setting. */
extern const unsigned channel_setting_flags[CS_COUNT];

struct channel {
	int64_t id;
	int64_t realm_id;
	const char *name;
	const char *description;
	const char *rendered_description;
	bool invite_only;
	bool is_web_public;
	bool history_public_to_subscribers;
	bool is_archived;
	bool is_default;
	bool retention_is_null;
	int message_retention_days;
	int64_t folder_id; /* 0: none */
	const char *topics_policy;
	int64_t creator_id; /* 0: none */
	int64_t date_created;
	int64_t settings[CS_COUNT];         /* group ids */
	const char *setting_json[CS_COUNT]; /* their API values as JSON text */
	bool complete; /* false (CHANNEL_SELECT_LOOKUP): subscriber_count, weekly_traffic and the setting_json of
	                  unnamed groups are not loaded */
	bool first_message_is_null;
	int64_t first_message_id;
	int64_t subscriber_count;
	bool is_recently_active;
	bool weekly_traffic_is_null;
	int64_t weekly_traffic;
	const char *send_group_system_name; /* "" unless can_send_message_group is a system group */
	/* The requesting user's relation to the channel. */
	bool is_subscribed;
	bool metadata_access;
	bool content_access;
	bool in_setting[CS_COUNT]; /* member of each setting's group */
	/* The user's subscription settings (when subscribed). */
	const char *color;
	bool pin_to_top;
	bool is_muted;
	const char *notifications[5]; /* desktop, email, push, audible, wildcard_mentions: "t", "f" or "" (inherit) */
	bool is_new;                  /* created by this request */
};

#define CHANNEL_MAX_NAME_LENGTH 60 /* code points */

/*
 * The reference's check_stream_name, for a name its caller has stripped: 0, or -1 with "Channel name can't be
 * empty." (nothing but white space), "Channel name too long (limit: 60 characters)." or "Invalid character in
 * channel name, at position N." (N counts code points from 1; bytes that are not UTF-8 are invalid characters).
 */
int channel_check_name(struct uow *uow, const char *name);

/* A channel or folder description as HTML (Markdown, with channel links). An arena string. */
const char *channel_render_description(struct uow *uow, const char *text);

/* Loads a channel of the request's realm by id or by name (case-insensitive); NULL if there is none (check
 * uow->error for a database failure). No access check. */
struct channel *channel_by_id(struct uow *uow, int64_t id);
struct channel *channel_by_name(struct uow *uow, const char *name);
/* Like channel_by_id, but records "Invalid channel ID" (400) unless the user has metadata access (or content
 * access when content is set). */
struct channel *channel_access_by_id(struct uow *uow, int64_t id, bool content);
/* The reference's access_stream_by_name: the channel called name if the user has content access, else NULL with
 * "Invalid channel name 'name'" recorded. */
struct channel *channel_access_by_name(struct uow *uow, const char *name);

/*
 * A channel query is CHANNEL_SELECT followed by its own WHERE (and ORDER BY) clause on `channels c`, with $1 the
 * realm id and $2 the requesting user's id; channel_from_row() reads its columns.
 */
/* clang-format off */
#define CHANNEL_SELECT \
	CHANNEL_SELECT_WITH(CHANNEL_COUNT_SUBSCRIBERS, CHANNEL_COUNT_TRAFFIC, CHANNEL_SETTING_VALUE, CHANNEL_VALUE_JOINS)
/* The same without what only the Channel object shows (subscriber_count, stream_weekly_traffic, the values of
 * unnamed groups), for lookups: channel_to_json() reads those when it needs them (struct channel.complete). */
#define CHANNEL_SELECT_LOOKUP \
	CHANNEL_SELECT_WITH("NULL::bigint", "NULL::bigint", CHANNEL_SETTING_NO_VALUE, "")
#define CHANNEL_SELECT_WITH(subscribers, traffic, VALUE, joins) \
	"WITH RECURSIVE mine (id) AS (SELECT group_id FROM user_group_members WHERE user_id = $2 UNION " \
	"SELECT s.group_id FROM user_group_subgroups s JOIN mine ON s.subgroup_id = mine.id), " \
	CHANNEL_UNNAMED_VALUES \
	"SELECT " CHANNEL_FIELDS(subscribers, traffic, VALUE, DB_SQL0, DB_SQL, DB_SQL_FLAG) " FROM channels c " \
	"CROSS JOIN (SELECT COALESCE(array_agg(id), '{}') AS ids FROM mine) my " \
	"LEFT JOIN subscriptions sub ON sub.channel_id = c.id AND sub.user_id = $2 AND sub.active " \
	"LEFT JOIN user_groups sg ON sg.id = c.can_send_message_group_id AND sg.is_system_group " joins \
	"WHERE c.realm_id = $1 "
/* The API value of every unnamed group of the organization (confab_group_setting_api() for a set: a list of 200
 * channels would call it 200 times or more), joined to the channels by CHANNEL_VALUE_JOINS. */
#define CHANNEL_UNNAMED_VALUES \
	"unnamed (id, v) AS (SELECT g.id, jsonb_build_object('direct_members', COALESCE((SELECT jsonb_agg(m.user_id " \
	"  ORDER BY m.user_id) FROM user_group_members m WHERE m.group_id = g.id AND " USER_ACTIVE_SQL("m.user_id") \
	"  ), '[]'), 'direct_subgroups', COALESCE((SELECT jsonb_agg(s.subgroup_id ORDER BY s.subgroup_id)" \
	"  FROM user_group_subgroups s WHERE s.group_id = g.id), '[]'))::text" \
	"  FROM user_groups g WHERE g.realm_id = $1 AND g.name IS NULL) "
#define CHANNEL_VALUE_JOIN(col) "LEFT JOIN unnamed v_" col " ON v_" col ".id = c." col " "
#define CHANNEL_VALUE_JOINS \
	CHANNEL_VALUE_JOIN("can_add_subscribers_group_id") CHANNEL_VALUE_JOIN("can_administer_channel_group_id") \
	CHANNEL_VALUE_JOIN("can_create_topic_group_id") CHANNEL_VALUE_JOIN("can_delete_any_message_group_id") \
	CHANNEL_VALUE_JOIN("can_delete_own_message_group_id") \
	CHANNEL_VALUE_JOIN("can_move_messages_out_of_channel_group_id") \
	CHANNEL_VALUE_JOIN("can_move_messages_within_channel_group_id") \
	CHANNEL_VALUE_JOIN("can_remove_subscribers_group_id") CHANNEL_VALUE_JOIN("can_resolve_topics_group_id") \
	CHANNEL_VALUE_JOIN("can_send_message_group_id") CHANNEL_VALUE_JOIN("can_subscribe_group_id")
/*
 * The columns channel_from_row() reads (see "Rows read by name" in db/db.h). SUBSCRIBERS and TRAFFIC: the
 * subscriber count and stream_weekly_traffic expressions (CHANNEL_STATS_FIELDS); VALUE(column): a setting's value.
 */
#define CHANNEL_FIELDS(SUBSCRIBERS, TRAFFIC, VALUE, X0, X, F) \
	X0(id, DB_I64, "c.id") X(realm_id, DB_I64, "c.realm_id") X(name, DB_STR, "c.name") \
	X(description, DB_STR, "c.description") X(rendered_description, DB_STR, "c.rendered_description") \
	X(invite_only, DB_BOOL, "c.invite_only") X(is_web_public, DB_BOOL, "c.is_web_public") \
	X(history_public_to_subscribers, DB_BOOL, "c.history_public_to_subscribers") \
	X(is_archived, DB_BOOL, "c.is_archived") X(is_default, DB_BOOL, "c.is_default") \
	X(retention_is_null, DB_BOOL, "c.message_retention_days IS NULL") \
	X(message_retention_days, DB_INT, "COALESCE(c.message_retention_days, 0)") \
	X(folder_id, DB_I64, "COALESCE(c.folder_id, 0)") X(topics_policy, DB_STR, "c.topics_policy") \
	X(creator_id, DB_I64, "COALESCE(c.creator_id, 0)") \
	X(date_created, DB_I64, "extract(epoch FROM c.date_created)::bigint") \
	X(is_subscribed, DB_BOOL, "sub.user_id IS NOT NULL") \
	CHANNEL_STATS_FIELDS(SUBSCRIBERS, TRAFFIC, X, X, F) X(send_group_system_name, DB_STR, "sg.name") \
	CHANNEL_SETTINGS(CHANNEL_SETTING_FIELDS, VALUE, X) \
	X(color, DB_STR, "sub.color") X(pin_to_top, DB_BOOL, "sub.pin_to_top") X(is_muted, DB_BOOL, "sub.is_muted") \
	X(notifications[0], DB_STR, "sub.desktop_notifications") \
	X(notifications[1], DB_STR, "sub.email_notifications") X(notifications[2], DB_STR, "sub.push_notifications") \
	X(notifications[3], DB_STR, "sub.audible_notifications") \
	X(notifications[4], DB_STR, "sub.wildcard_mentions_notify")
/* Per setting: the group id, whether the user is in it (my.ids: the user's groups, as an array rather than a
 * subquery, which would build a hashed subplan per setting), and VALUE(column) (NULL: a named group, whose value
 * is its id: channel_from_row() writes that). */
#define CHANNEL_SETTING_FIELDS(i, col, VALUE, X) \
	X(settings[i], DB_I64, "c." col) X(in_setting[i], DB_BOOL, "c." col " = ANY(my.ids)") \
	X(setting_json[i], DB_STRN, VALUE(col))
/* S(setting, column, VALUE, X) for each setting, in the order of enum channel_setting. */
#define CHANNEL_SETTINGS(S, VALUE, X) \
	S(CS_ADD_SUBSCRIBERS, "can_add_subscribers_group_id", VALUE, X) \
	S(CS_ADMINISTER, "can_administer_channel_group_id", VALUE, X) \
	S(CS_CREATE_TOPIC, "can_create_topic_group_id", VALUE, X) \
	S(CS_DELETE_ANY, "can_delete_any_message_group_id", VALUE, X) \
	S(CS_DELETE_OWN, "can_delete_own_message_group_id", VALUE, X) \
	S(CS_MOVE_OUT, "can_move_messages_out_of_channel_group_id", VALUE, X) \
	S(CS_MOVE_WITHIN, "can_move_messages_within_channel_group_id", VALUE, X) \
	S(CS_REMOVE_SUBSCRIBERS, "can_remove_subscribers_group_id", VALUE, X) \
	S(CS_RESOLVE_TOPICS, "can_resolve_topics_group_id", VALUE, X) \
	S(CS_SEND_MESSAGE, "can_send_message_group_id", VALUE, X) \
	S(CS_SUBSCRIBE, "can_subscribe_group_id", VALUE, X)
/* The API value of an unnamed group (CHANNEL_VALUE_JOINS); NULL for a named group, whose value is its id
 * (channel_from_row() writes that). */
#define CHANNEL_SETTING_VALUE(col) "v_" col ".v"
#define CHANNEL_SETTING_NO_VALUE(col) "NULL::text"
/* First message id, subscriber count, is_recently_active, stream_weekly_traffic of channel c. The first and last
 * messages are read from the index messages_channel by a row comparison: written as min(id) (or ORDER BY id LIMIT
 * 1), a prepared statement's generic plan walks messages_pkey instead, through every message older than the
 * channel's first. The traffic is read from the daily counts the reaper keeps (model/traffic.h). */
#define CHANNEL_STATS_FIELDS(SUBSCRIBERS, TRAFFIC, X0, X, F) \
	F(first_message_is_null, DB_ISNULL) X0(first_message_id, DB_I64, CHANNEL_FIRST_MESSAGE) \
	F(complete, DB_NOTNULL) X(subscriber_count, DB_I64, SUBSCRIBERS) \
	X(is_recently_active, DB_BOOL, CHANNEL_RECENTLY_ACTIVE) \
	F(weekly_traffic_is_null, DB_ISNULL) X(weekly_traffic, DB_I64, TRAFFIC)
#define CHANNEL_FIRST_MESSAGE \
	"(SELECT x.id FROM (SELECT m.channel_id, m.id FROM messages m WHERE m.channel_id IS NOT NULL" \
	"  AND (m.channel_id, m.id) > (c.id, 0) ORDER BY m.channel_id, m.id LIMIT 1) x WHERE x.channel_id = c.id)"
#define CHANNEL_RECENTLY_ACTIVE \
	"c.date_created > now() - interval '180 days' OR (SELECT x.date_sent FROM (SELECT m.channel_id, m.date_sent" \
	"  FROM messages m WHERE m.channel_id IS NOT NULL AND (m.channel_id, m.id) < (c.id + 1, 0)" \
	"  ORDER BY m.channel_id DESC, m.id DESC LIMIT 1) x WHERE x.channel_id = c.id) > now() - interval '180 days'"
#define CHANNEL_COUNT_SUBSCRIBERS \
	"(SELECT count(*) FROM subscriptions s2 WHERE s2.channel_id = c.id AND s2.active AND " \
	USER_ACTIVE_SQL("s2.user_id") ")"
#define CHANNEL_COUNT_TRAFFIC TRAFFIC_SQL
/* clang-format on */

struct channel *channel_from_row(struct uow *uow, const struct db_res *res, int row, int col);

/*
 * The basic Channel object (stream_id, name, description, rendered_description, date_created, creator_id,
 * invite_only, is_web_public, is_archived, history_public_to_subscribers, message_retention_days,
 * first_message_id, folder_id, topics_policy, stream_post_policy, is_announcement_only, is_recently_active,
 * stream_weekly_traffic, subscriber_count and the eleven group settings). A new object.
 */
json_object *channel_to_json(struct uow *uow, const struct channel *c);
/* The deprecated stream_post_policy (1-4) derived from can_send_message_group when it is a system group. */
int channel_stream_post_policy(const struct channel *c);
/* Reads what a lookup (CHANNEL_SELECT_LOOKUP) left out; channel_to_json() does it for a copy when needed. 0 or -1. */
int channel_complete(struct uow *uow, struct channel *c);

/* The subscription object: channel_to_json() plus the user's settings, and subscribers when asked. */
json_object *channel_subscription_json(struct uow *uow, const struct channel *c, bool subscribers);

/* The columns of a folder row (table channel_folders as f) that channel_folder_json() reads. */
#define CHANNEL_FOLDER_COLUMNS                                                                                         \
	"f.id, f.name, f.description, f.rendered_description, f.\"order\", "                                           \
	"extract(epoch FROM f.date_created)::bigint, f.creator_id, f.is_archived"
/* The channel folder object of row `row`. A new object. */
json_object *channel_folder_json(const struct db_res *res, int row);

/* A (user, channel) pair; row: where it came from (a result row, when it came from one). */
struct id_pair {
	int64_t user, channel;
	int row;
};
/* Sorts n pairs for id_pairs_find(). */
void id_pairs_sort(struct id_pair *p, int n);
/* The pair (user, channel) among p (sorted), or NULL. */
const struct id_pair *id_pairs_find(const struct id_pair *p, int n, int64_t user, int64_t channel);

/* The positions 0..n-1 grouped by key: the groups in the order their keys first appear, each group's positions
 * ascending (the order of a loop over the distinct keys, each over its positions, in n log n rather than n^2).
 * An arena array of n. */
int *ids_group_order(struct arena *a, const int64_t *keys, int n);

/* The color of a new subscription to a channel when none is asked for (the reference's palette). A constant. */
const char *channel_default_color(int64_t channel_id);

/* A JSON array of n ids. A new object. */
json_object *ids_json(const int64_t *ids, int n);
/* The ids of a (n of them) that are not in b (m); both ascending. An arena array of *out ids. */
int64_t *ids_minus(struct uow *uow, const int64_t *a, int n, const int64_t *b, int m, int *out);

/* The active subscribers of a channel (active users), sorted by id; a new array. */
json_object *channel_subscriber_ids(struct uow *uow, int64_t channel_id);

/* ---- events (zerver/actions/streams.py, zerver/lib/streams.py, zerver/actions/channel_folders.py) ---------- */

/*
 * Who may see the channel (the reference's can_access_stream_metadata_user_ids): everyone for web-public channels,
 * non-guests and subscribed guests for public ones, subscribers, administrators and the non-guest members of
 * can_administer_channel_group, can_add_subscribers_group and can_subscribe_group for private ones. Active users,
 * ascending, in the arena; with_subscribers false leaves subscriptions out. NULL on error.
 */
int64_t *channel_metadata_user_ids(struct uow *uow, int64_t channel_id, bool with_subscribers, int *n);

/* A subscription that changed. */
struct channel_sub {
	int64_t user_id;
	const struct channel *channel; /* as loaded before the change */
};

/* What POST /users/me/subscriptions changed. */
struct channel_changes {
	const struct channel **created; /* channels created by the request, as loaded before anyone subscribed */
	int ncreated;
	struct channel_sub *subs; /* subscriptions added or reactivated, in the order made */
	int nsubs;
};

/*
 * The events of POST /users/me/subscriptions, in the reference's order: stream create for each new channel (to
 * who may see it), stream create for subscribers who could not see their channel before, subscription add to each
 * subscriber (their subscription objects), then peer_add to the channels' other viewers. 0 or -1.
 */
int channel_events_subscribe(struct uow *uow, const struct channel_changes *ch);
/* The events of DELETE /users/me/subscriptions: subscription remove to each user (and stream delete for channels
 * they no longer see), then peer_remove to the channels' remaining viewers. 0 or -1. */
int channel_events_unsubscribe(struct uow *uow, const struct channel_sub *removed, int n);
/* subscription update {stream_id, property, value} to the requesting user; is_muted and in_home_view send both
 * (in_home_view first). value is borrowed. 0 or -1. */
int channel_events_property(struct uow *uow, int64_t channel_id, const char *property, json_object *value);
/* stream update {property, value (taken), stream_id, name} to users. 0 or -1. */
int channel_events_update(struct uow *uow, const struct channel *c, const char *property, json_object *value,
                          const int64_t *users, int n);
/* op ("peer_add" or "peer_remove") for the subscriptions subs (n of them) to the channels' viewers, as after a
 * subscription change (used when an account is deactivated or reactivated). 0 or -1. */
int channel_events_peers(struct uow *uow, const char *op, const struct channel_sub *subs, int n);
/* The ids of the unarchived channels of the user's organization it has metadata access to, ascending, in the
 * arena; NULL on error. */
int64_t *channel_visible_ids(struct uow *uow, int64_t user_id, int *n);
/* Users who now see a private channel: stream create, then peer_add with its subscribers. 0 or -1. */
int channel_events_gained(struct uow *uow, int64_t channel_id, const int64_t *users, int n);
/* Users who no longer see a channel: stream delete. 0 or -1. */
int channel_events_lost(struct uow *uow, int64_t channel_id, const int64_t *users, int n);
/* channel_folder add with the folder to every active user. 0 or -1. */
int channel_folder_events_created(struct uow *uow, int64_t folder_id);
/* channel_folder update {channel_folder_id, data (taken)} to every active user. 0 or -1. */
int channel_folder_events_update(struct uow *uow, int64_t folder_id, json_object *data);
/* channel_folder reorder {order: the folder ids, first shown first} to every active user. 0 or -1. */
int channel_folder_events_reorder(struct uow *uow, const int64_t *order, int norder);

#endif
