/* Changing a channel's properties; see channel_update.h. */
#include "model/channel_update.h"

#include <stdio.h>
#include <string.h>

#include "core/uow.h"
#include "db/db.h"
#include "events/events.h"
#include "model/groups.h"
#include "model/messages.h"
#include "model/notify.h"
#include "model/realm.h"
#include "model/user.h"

/* ---- events and notices ------------------------------------------------------------------------------------ */

/* stream update {property, value (taken), stream_id, name} plus the keys of extra (taken, may be NULL). */
static int update_event(struct uow *uow, const struct channel *c, const char *property, json_object *value,
                        json_object *extra, const int64_t *users, int n)
{
	json_object *event = uow_own_json(uow, json_object_new_object());
	json_object_object_add(event, "type", json_object_new_string("stream"));
	json_object_object_add(event, "op", json_object_new_string("update"));
	json_object_object_add(event, "property", json_object_new_string(property));
	json_object_object_add(event, "value", value);
	json_object_object_add(event, "stream_id", json_object_new_int64(c->id));
	json_object_object_add(event, "name", json_object_new_string(c->name));
	if (extra != NULL) {
		json_object_object_foreach (extra, key, v)
			json_object_object_add(event, key, json_object_get(v));
		json_object_put(extra);
	}
	return n > 0 ? events_add(uow, event, users, n, 0) : 0;
}

/* The same to everyone who may see c now. */
static int update_all(struct uow *uow, const struct channel *c, const char *property, json_object *value,
                      json_object *extra)
{
	int n = 0;
	int64_t *users = channel_metadata_user_ids(uow, c->id, true, &n);
	if (users == NULL) {
		json_object_put(value);
		json_object_put(extra);
		return -1;
	}
	return update_event(uow, c, property, value, extra, users, n);
}

/* maybe_send_channel_events_notice: the Notification Bot's message in the channel events topic (the empty topic
 * in an empty_topic_only channel). */
static int notice(struct uow *uow, struct channel *c, const char *content)
{
	const char *topic = strcmp(c->topics_policy, "empty_topic_only") == 0 ? "" : "channel events";
	if (message_send_notification(uow, c, topic, content) == 0)
		return -1;
	c->is_recently_active = true;
	return 0;
}

/* ---- access changes ----------------------------------------------------------------------------------------- */

struct access_change {
	int64_t *gained, *lost, *rest; /* rest: who saw the channel before and still does */
	int ngained, nlost, nrest;
};

/* Who gained and lost sight of c since before (the viewers then, ascending). */
static int access_after(struct uow *uow, const struct channel *c, const int64_t *before, int nbefore,
                        struct access_change *a)
{
	int nafter = 0;
	int64_t *after = channel_metadata_user_ids(uow, c->id, true, &nafter);
	if (after == NULL)
		return -1;
	a->gained = ids_minus(uow, after, nafter, before, nbefore, &a->ngained);
	a->lost = ids_minus(uow, before, nbefore, after, nafter, &a->nlost);
	a->rest = ids_minus(uow, after, nafter, a->gained, a->ngained, &a->nrest);
	return 0;
}

static const char *policy_name(bool invite_only, bool history_public, bool web_public)
{
	if (web_public)
		return "Web-public";
	if (!invite_only)
		return history_public ? "Public" : "Public, protected history";
	return history_public ? "Private, shared history" : "Private, protected history";
}

static struct db_stmt st_privacy = DB_STMT(
    "UPDATE channels SET invite_only = $2, history_public_to_subscribers = $3, is_web_public = $4 WHERE id = $1");

int channel_set_privacy(struct uow *uow, struct channel *c, bool invite_only, bool history_public, bool web_public)
{
	const char *old = policy_name(c->invite_only, c->history_public_to_subscribers, c->is_web_public);
	int nbefore = 0;
	int64_t *before = channel_metadata_user_ids(uow, c->id, true, &nbefore);
	if (before == NULL || DB_EXEC(uow, &st_privacy, db_arg_int(uow, c->id), invite_only ? "true" : "false",
	                              history_public ? "true" : "false", web_public ? "true" : "false") == NULL)
		return -1;
	c->invite_only = invite_only;
	c->history_public_to_subscribers = history_public;
	c->is_web_public = web_public;
	struct access_change a;
	if (access_after(uow, c, before, nbefore, &a) < 0 || channel_events_gained(uow, c->id, a.gained, a.ngained) < 0)
		return -1;
	json_object *extra = json_object_new_object();
	json_object_object_add(extra, "history_public_to_subscribers", json_object_new_boolean(history_public));
	json_object_object_add(extra, "is_web_public", json_object_new_boolean(web_public));
	if (update_event(uow, c, "invite_only", json_object_new_boolean(invite_only), extra, a.rest, a.nrest) < 0 ||
	    channel_events_lost(uow, c->id, a.lost, a.nlost) < 0)
		return -1;
	return notice(uow, c,
	              arena_printf(&uow->arena,
	                           "%s changed the [access permissions](/help/channel-permissions) for this channel "
	                           "from **%s** to **%s**.",
	                           notify_mention(uow, uow->user), old,
	                           policy_name(invite_only, history_public, web_public)));
}

/* ---- retention ---------------------------------------------------------------------------------------------- */

static struct db_stmt st_retention = DB_STMT("UPDATE channels SET message_retention_days = $2 WHERE id = $1");
static struct db_stmt st_realm_retention =
    DB_STMT("SELECT COALESCE(message_retention_days, -1) FROM realms WHERE id = $1");

static const char *period(struct uow *uow, int days)
{
	return days == -1 ? "Forever" : arena_printf(&uow->arena, "%d days", days);
}

/* send_change_stream_message_retention_days_notification; NULL values stand for the organization's. */
static int retention_notice(struct uow *uow, struct channel *c, bool old_null, int old, bool new_null, int days)
{
	struct db_res *res = DB_EXEC(uow, &st_realm_retention, db_arg_int(uow, uow->realm->id));
	if (res == NULL)
		return -1;
	int realm_days = (int)db_int(res, 0, 0);
	old = old_null ? realm_days : old;
	days = new_null ? realm_days : days;
	const char *summary =
	    old != -1 && days == -1
	        ? "Messages in this channel will now be retained forever."
	        : arena_printf(
	              &uow->arena,
	              "Messages in this channel will now be automatically deleted %d days after they are sent.", days);
	/* From "Forever", the reference words the new period in days whatever it is. */
	const char *new_period = old == -1 ? arena_printf(&uow->arena, "%d days", days) : period(uow, days);
	return notice(
	    uow, c,
	    arena_printf(&uow->arena,
	                 "%s has changed the [message retention period](/help/message-retention-policy) for "
	                 "this channel:\n* **Old retention period**: %s\n* **New retention period**: %s\n\n%s",
	                 notify_mention(uow, uow->user), period(uow, old), new_period, summary));
}

int channel_set_retention(struct uow *uow, struct channel *c, bool is_null, int days)
{
	bool old_null = c->retention_is_null;
	int old = c->message_retention_days;
	if (DB_EXEC(uow, &st_retention, db_arg_int(uow, c->id), is_null ? NULL : db_arg_int(uow, days)) == NULL)
		return -1;
	c->retention_is_null = is_null;
	c->message_retention_days = is_null ? 0 : days;
	if (update_all(uow, c, "message_retention_days", is_null ? NULL : json_object_new_int(days), NULL) < 0)
		return -1;
	return retention_notice(uow, c, old_null, old, is_null, days);
}

/* ---- topics policy, description, name, folder -------------------------------------------------------------- */

static struct db_stmt st_topics_policy = DB_STMT("UPDATE channels SET topics_policy = $2 WHERE id = $1");

/* TOPICS_POLICY_DISPLAY_NAME_MAP, with the empty topic's display name. */
static const char *topics_policy_name(const char *policy)
{
	if (strcmp(policy, "allow_empty_topic") == 0)
		return "*" REALM_EMPTY_TOPIC_DISPLAY_NAME "* topic allowed";
	if (strcmp(policy, "disable_empty_topic") == 0)
		return "No *" REALM_EMPTY_TOPIC_DISPLAY_NAME "* topic";
	if (strcmp(policy, "empty_topic_only") == 0)
		return "Only *" REALM_EMPTY_TOPIC_DISPLAY_NAME "* topic allowed";
	return "Automatic";
}

int channel_set_topics_policy(struct uow *uow, struct channel *c, const char *policy)
{
	const char *old = c->topics_policy;
	if (strcmp(old, policy) == 0)
		return 0;
	if (DB_EXEC(uow, &st_topics_policy, db_arg_int(uow, c->id), policy) == NULL)
		return -1;
	c->topics_policy = arena_strdup(&uow->arena, policy);
	if (update_all(uow, c, "topics_policy", json_object_new_string(policy), NULL) < 0)
		return -1;
	return notice(uow, c,
	              arena_printf(&uow->arena,
	                           "%s changed the \"Allow posting to the *general chat* topic?\" setting from **%s** "
	                           "to **%s**.",
	                           notify_mention(uow, uow->user), topics_policy_name(old),
	                           topics_policy_name(policy)));
}

static struct db_stmt st_description =
    DB_STMT("UPDATE channels SET description = $2, rendered_description = $3 WHERE id = $1");

int channel_set_description(struct uow *uow, struct channel *c, const char *description)
{
	const char *old = c->description, *rendered = channel_render_description(uow, description);
	if (DB_EXEC(uow, &st_description, db_arg_int(uow, c->id), description, rendered) == NULL)
		return -1;
	c->description = description;
	c->rendered_description = rendered;
	json_object *extra = json_object_new_object();
	json_object_object_add(extra, "rendered_description", json_object_new_string(rendered));
	if (update_all(uow, c, "description", json_object_new_string(description), extra) < 0)
		return -1;
	return notice(uow, c,
	              arena_printf(&uow->arena,
	                           "%s changed the description for this channel.\n\n* **Old description:**\n"
	                           "```` quote\n%s\n````\n* **New description:**\n```` quote\n%s\n````",
	                           notify_mention(uow, uow->user), *old ? old : "*No description.*",
	                           *description ? description : "*No description.*"));
}

static struct db_stmt st_rename = DB_STMT("UPDATE channels SET name = $2 WHERE id = $1");

int channel_rename(struct uow *uow, struct channel *c, const char *name)
{
	const char *old = c->name;
	if (DB_EXEC(uow, &st_rename, db_arg_int(uow, c->id), name) == NULL ||
	    update_all(uow, c, "name", json_object_new_string(name), NULL) < 0)
		return -1;
	c->name = name;
	return notice(uow, c,
	              arena_printf(&uow->arena, "%s renamed channel **%s** to **%s**.", notify_mention(uow, uow->user),
	                           old, name));
}

static struct db_stmt st_folder = DB_STMT("UPDATE channels SET folder_id = $2 WHERE id = $1");

int channel_set_folder(struct uow *uow, struct channel *c, int64_t folder_id)
{
	if (DB_EXEC(uow, &st_folder, db_arg_int(uow, c->id), folder_id ? db_arg_int(uow, folder_id) : NULL) == NULL)
		return -1;
	c->folder_id = folder_id;
	return update_all(uow, c, "folder_id", folder_id ? json_object_new_int64(folder_id) : NULL, NULL);
}

/* ---- permission settings ------------------------------------------------------------------------------------ */

/* clang-format off */
#define SET_COLUMN(setting) \
	" " setting "_id = CASE WHEN $2 = '" setting "' THEN $3::bigint ELSE " setting "_id END"
static struct db_stmt st_setting = DB_STMT(
    "UPDATE channels SET" SET_COLUMN("can_add_subscribers_group") "," SET_COLUMN("can_administer_channel_group") ","
    SET_COLUMN("can_create_topic_group") "," SET_COLUMN("can_delete_any_message_group") ","
    SET_COLUMN("can_delete_own_message_group") "," SET_COLUMN("can_move_messages_out_of_channel_group") ","
    SET_COLUMN("can_move_messages_within_channel_group") "," SET_COLUMN("can_remove_subscribers_group") ","
    SET_COLUMN("can_resolve_topics_group") "," SET_COLUMN("can_send_message_group") ","
    SET_COLUMN("can_subscribe_group") " WHERE id = $1");
/* clang-format on */

/* get_users_string_with_permission: a named group's silent mention, else the mentions of the subgroups, then of
 * the users, each by id. */
static struct db_stmt st_permission_string =
    DB_STMT("SELECT CASE WHEN g.name IS NOT NULL THEN '@_*' || g.name || '*' ELSE concat_ws(', ',"
            "  (SELECT string_agg('@_*' || sg.name || '*', ', ' ORDER BY sg.id) FROM user_group_subgroups s"
            "   JOIN user_groups sg ON sg.id = s.subgroup_id WHERE s.group_id = g.id),"
            "  (SELECT string_agg('@_**' || u.full_name || '|' || u.id || '**', ', ' ORDER BY u.id)"
            "   FROM user_group_members m JOIN users u ON u.id = m.user_id WHERE m.group_id = g.id)) END"
            " FROM user_groups g WHERE g.id = $1");

static const char *permission_string(struct uow *uow, int64_t group_id)
{
	struct db_res *res = DB_EXEC(uow, &st_permission_string, db_arg_int(uow, group_id));
	return res == NULL || db_rows(res) == 0 ? NULL : arena_strdup(&uow->arena, db_val(res, 0, 0));
}

/* can_send_message_group changed from the group described by old: the legacy stream_post_policy and
 * is_announcement_only events when the policy changes, then the "posting permissions" notice. */
static int send_group_changed(struct uow *uow, struct channel *c, int old_policy, const char *old)
{
	struct channel *now = channel_by_id(uow, c->id);
	const char *new_desc = now ? permission_string(uow, c->settings[CS_SEND_MESSAGE]) : NULL;
	if (new_desc == NULL)
		return uow_error(uow, ERR_INTERNAL, NULL);
	c->send_group_system_name = now->send_group_system_name;
	int policy = channel_stream_post_policy(c);
	if (policy != old_policy &&
	    (update_all(uow, c, "stream_post_policy", json_object_new_int(policy), NULL) < 0 ||
	     update_all(uow, c, "is_announcement_only", json_object_new_boolean(policy == 2), NULL) < 0))
		return -1;
	return notice(uow, c,
	              arena_printf(&uow->arena,
	                           "%s changed the [posting permissions](/help/channel-posting-policy) for this "
	                           "channel:\n\n* **Old**: %s\n* **New**: %s\n",
	                           notify_mention(uow, uow->user), old, new_desc));
}

/* The update event of a setting that grants metadata access, with create + peer_add for who gains it and delete
 * for who loses it. */
static int access_setting_events(struct uow *uow, const struct channel *c, const char *name, json_object *value,
                                 const int64_t *before, int nbefore)
{
	struct access_change a;
	if (access_after(uow, c, before, nbefore, &a) < 0) {
		json_object_put(value);
		return -1;
	}
	if (update_event(uow, c, name, value, NULL, a.rest, a.nrest) < 0 ||
	    channel_events_gained(uow, c->id, a.gained, a.ngained) < 0)
		return -1;
	return channel_events_lost(uow, c->id, a.lost, a.nlost);
}

int channel_set_setting(struct uow *uow, struct channel *c, enum channel_setting s, json_object *value)
{
	const char *name = channel_setting_names[s];
	bool grants = s == CS_ADMINISTER || s == CS_ADD_SUBSCRIBERS || s == CS_SUBSCRIBE;
	int nbefore = 0, old_policy = channel_stream_post_policy(c);
	int64_t *before = grants ? channel_metadata_user_ids(uow, c->id, true, &nbefore) : NULL;
	/* Described before the change: an unnamed group is updated in place. */
	const char *old = s == CS_SEND_MESSAGE ? permission_string(uow, c->settings[s]) : "";
	if ((grants && before == NULL) || old == NULL)
		return uow_error(uow, ERR_INTERNAL, NULL);
	int64_t id = group_setting_update(uow, name, value, channel_setting_flags[s], c->settings[s]);
	if (id == 0 || (id != c->settings[s] &&
	                DB_EXEC(uow, &st_setting, db_arg_int(uow, c->id), name, db_arg_int(uow, id)) == NULL))
		return -1;
	c->settings[s] = id;
	json_object *api = group_setting_json(uow, id);
	if (api == NULL)
		return uow_error(uow, ERR_INTERNAL, NULL);
	if (grants ? access_setting_events(uow, c, name, api, before, nbefore) < 0
	           : update_all(uow, c, name, api, NULL) < 0)
		return -1;
	return s == CS_SEND_MESSAGE ? send_group_changed(uow, c, old_policy, old) : 0;
}

static struct db_stmt st_named_topics =
    DB_STMT("SELECT EXISTS (SELECT 1 FROM messages WHERE channel_id = $1 AND topic <> '')");

int channel_has_named_topics(struct uow *uow, const struct channel *c)
{
	struct db_res *res = DB_EXEC(uow, &st_named_topics, db_arg_int(uow, c->id));
	return res == NULL ? -1 : db_bool(res, 0, 0);
}
