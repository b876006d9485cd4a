/*
 * Updating a channel: PATCH /streams/{stream_id} (every parameter but is_archived), its access rules, checks,
 * events and Notification Bot notices. Reference: digest section e; Zulip zerver/views/streams.py
 * (update_stream_backend), zerver/actions/streams.py (do_change_stream_permission, do_rename_stream,
 * do_change_stream_description, do_change_stream_message_retention_days, do_set_stream_property,
 * do_change_stream_group_based_setting, do_change_stream_folder, send_change_stream_*_notification),
 * zerver/actions/default_streams.py; event shapes from shared/reference/zulip-openapi.yaml (GET /events: stream
 * update, default_streams; update-stream: SimpleSuccess).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "itest.h"

static void subscribe(const struct user *u, const char *name)
{
	EXPECT_SUCCESS(api_post(u, "/users/me/subscriptions", fmt("subscriptions=%s", url_encode(fmt("[{\"name\":\"%s\"}]", name)))));
}

static int64_t system_group(const struct user *u, const char *name)
{
	return strtoll(psql_ok("SELECT id FROM user_groups WHERE name = '%s' AND realm_id ="
	                       " (SELECT realm_id FROM users WHERE id = %lld)",
	                       name, (long long)u->id),
	               NULL, 10);
}

/* The organization id of u, as SQL. */
static char *realm_of(const struct user *u)
{
	return fmt("(SELECT realm_id FROM users WHERE id = %lld)", (long long)u->id);
}

static struct resp *patch(const struct user *u, int64_t id, const char *form)
{
	return http(&(struct request){
	    .method = "PATCH", .path = fmt("/api/v1/streams/%lld", (long long)id), .user = u, .form = form});
}

/* A successful PATCH: the update-stream success body is SimpleSuccess, exactly {result, msg}. */
static void patch_ok(const struct user *u, int64_t id, const char *form)
{
	struct resp *r = patch(u, id, form);
	EXPECT_SUCCESS(r);
	EXPECT_KEYS(r->json, "result", "msg");
}

static json_object *get_channel(const struct user *u, int64_t id)
{
	struct resp *r = api_get(u, fmt("/streams/%lld", (long long)id));
	EXPECT_SUCCESS(r);
	return jget(r->json, "stream");
}

static char *full_name(const struct user *u)
{
	return psql_ok("SELECT full_name FROM users WHERE id = %lld", (long long)u->id);
}

/* silent_mention_syntax_for_user. */
static char *mention(const struct user *u)
{
	return fmt("@_**%s|%lld**", full_name(u), (long long)u->id);
}

/* The content of the latest Notification Bot message in the channel's topic, or "" if none. */
static char *last_notice(int64_t channel, const char *topic)
{
	return psql_ok("SELECT COALESCE((SELECT content FROM messages m JOIN channels c ON c.id = m.channel_id"
	               " WHERE m.channel_id = %lld AND m.topic = '%s' AND m.sender_id = confab_notification_bot(c.realm_id)"
	               " ORDER BY m.id DESC LIMIT 1), '')",
	               (long long)channel, topic);
}

static int notice_count(int64_t channel)
{
	return atoi(psql_ok("SELECT count(*) FROM messages m JOIN channels c ON c.id = m.channel_id WHERE"
	                    " m.channel_id = %lld AND m.sender_id = confab_notification_bot(c.realm_id)",
	                    (long long)channel));
}

/* The events of type (and op, and property, when not NULL) among events, as an array owned by events. */
static json_object *events_of(json_object *events, const char *type, const char *op, const char *property)
{
	json_object *out = json_object_new_array();
	for (size_t i = 0; i < json_object_array_length(events); i++) {
		json_object *e = json_object_array_get_idx(events, i);
		if (strcmp(jstr(e, "type") ? jstr(e, "type") : "", type) != 0 ||
		    (op && strcmp(jstr(e, "op") ? jstr(e, "op") : "", op) != 0) ||
		    (property && strcmp(jstr(e, "property") ? jstr(e, "property") : "", property) != 0))
			continue;
		json_object_array_add(out, json_object_get(e));
	}
	json_object_array_add(events, out); /* freed with events; not an event, so never matched */
	return out;
}

/* The one stream update event of property among events, checked against the OpenAPI schema: exactly type, op,
 * stream_id (integer), name (string), property (string), value (object of two integer lists, integer, boolean,
 * string; null where the feature levels after the yaml allow it) and the extra keys of its property. */
static json_object *update_event(json_object *events, const char *property, int64_t channel, const char *name)
{
	json_object *list = events_of(events, "stream", "update", property);
	REQUIRE(json_object_array_length(list) == 1, "one stream update %s expected: %s", property, jtext(events));
	json_object *e = json_object_array_get_idx(list, 0);
	if (strcmp(property, "description") == 0)
		EXPECT_KEYS(e, "type", "op", "property", "value", "stream_id", "name", "rendered_description");
	else if (strcmp(property, "invite_only") == 0)
		EXPECT_KEYS(e, "type", "op", "property", "value", "stream_id", "name", "history_public_to_subscribers",
		            "is_web_public");
	else
		EXPECT_KEYS(e, "type", "op", "property", "value", "stream_id", "name");
	EXPECT_INT(e, "stream_id", channel);
	EXPECT_STR(e, "name", name);
	json_object *v = jget(e, "value");
	bool nullable = strcmp(property, "message_retention_days") == 0 || strcmp(property, "folder_id") == 0;
	CHECK((v == NULL && nullable) || json_object_is_type(v, json_type_int) ||
	          json_object_is_type(v, json_type_boolean) || json_object_is_type(v, json_type_string) ||
	          (json_object_is_type(v, json_type_object) && json_object_object_length(v) == 2 &&
	           json_object_is_type(jget(v, "direct_members"), json_type_array) &&
	           json_object_is_type(jget(v, "direct_subgroups"), json_type_array)),
	      "value of %s: %s", property, jtext(e));
	return e;
}

/* ---- access ------------------------------------------------------------------------------------------------- */

static void test_access_rules(void)
{
	struct user *owner = new_realm();
	struct user *admin = new_user_in(owner->realm, "admin", NULL), *member = new_user_in(owner->realm, "member", NULL);
	struct user *chadmin = new_user_in(owner->realm, "member", NULL), *guest = new_user_in(owner->realm, "guest", NULL);
	char *name = unique_channel_name("acc");
	int64_t pub = create_channel_with(owner, name, NULL);
	int64_t priv = create_channel_with(owner, unique_channel_name("accp"), "invite_only=true");
	/* An organization administrator administers any channel it can see. */
	patch_ok(admin, pub, "description=by%20admin");
	/* A non-administrator may not. */
	EXPECT_ERROR(patch(member, pub, "description=x"), 400, "BAD_REQUEST",
	             "You do not have permission to administer this channel.");
	/* A guest: a public channel it is not subscribed to is invisible; subscribed, still not administrable. */
	EXPECT_ERROR(patch(guest, pub, "description=x"), 400, "BAD_REQUEST", "Invalid channel ID");
	EXPECT_SUCCESS(api_post(owner, "/users/me/subscriptions",
	                        fmt("subscriptions=%s&principals=%s", url_encode(fmt("[{\"name\":\"%s\"}]", name)),
	                            url_encode(fmt("[%lld]", (long long)guest->id)))));
	EXPECT_ERROR(patch(guest, pub, "description=x"), 400, "BAD_REQUEST",
	             "You do not have permission to administer this channel.");
	/* Not even as a direct member of can_administer_channel_group, which refuses role:everyone. */
	patch_ok(owner, pub,
	         fmt("can_administer_channel_group=%s",
	             url_encode(fmt("{\"new\":{\"direct_members\":[%lld,%lld],\"direct_subgroups\":[]}}",
	                            (long long)owner->id, (long long)guest->id))));
	EXPECT_ERROR(patch(guest, pub, "description=x"), 400, "BAD_REQUEST",
	             "You do not have permission to administer this channel.");
	/* A user without metadata access to a private channel, and a channel that does not exist. */
	EXPECT_ERROR(patch(member, priv, "description=x"), 400, "BAD_REQUEST", "Invalid channel ID");
	EXPECT_ERROR(patch(member, 999999999, "description=x"), 400, "BAD_REQUEST", "Invalid channel ID");
	/* A channel administrator by group (can_administer_channel_group), also of a private channel it is not
	 * subscribed to (metadata access comes with the group). */
	patch_ok(owner, priv,
	         fmt("can_administer_channel_group=%s",
	             url_encode(fmt("{\"new\":{\"direct_members\":[%lld],\"direct_subgroups\":[]}}", (long long)chadmin->id))));
	patch_ok(chadmin, priv, "description=by%20channel%20admin");
	EXPECT_STR(get_channel(owner, priv), "description", "by channel admin");
	EXPECT_ERROR(patch(chadmin, pub, "description=x"), 400, "BAD_REQUEST",
	             "You do not have permission to administer this channel.");
	/* Default channels are the organization administrators' alone. */
	EXPECT_ERROR(patch(chadmin, priv, "is_default_stream=false"), 400, "BAD_REQUEST",
	             "You do not have permission to change default channels.");
	EXPECT_STR(get_channel(admin, pub), "description", "by admin");
}

/* ---- description and name ------------------------------------------------------------------------------------ */

static void test_description(void)
{
	struct user *owner = new_realm();
	char *name = unique_channel_name("desc");
	int64_t id = create_channel_with(owner, name, NULL);
	struct queue *q = queue_register(owner, "event_types=%5B%22stream%22%5D");
	patch_ok(owner, id, fmt("description=%s", url_encode("first *line*\nsecond")));
	json_object *c = get_channel(owner, id);
	EXPECT_STR(c, "description", "first *line* second");
	CHECK(strstr(jstr(c, "rendered_description"), "<em>line</em>") != NULL, "%s", jtext(c));
	json_object *e = update_event(queue_drain(q), "description", id, name);
	EXPECT_STR(e, "value", "first *line* second");
	EXPECT_STR(e, "rendered_description", jstr(c, "rendered_description"));
	char *want = fmt("%s changed the description for this channel.\n\n* **Old description:**\n```` quote\n"
	                 "*No description.*\n````\n* **New description:**\n```` quote\nfirst *line* second\n````",
	                 mention(owner));
	CHECK(strcmp(last_notice(id, "channel events"), want) == 0, "notice: %s", last_notice(id, "channel events"));
	patch_ok(owner, id, "description=");
	CHECK(strstr(last_notice(id, "channel events"), "```` quote\n*No description.*\n````") != NULL, "%s",
	      last_notice(id, "channel events"));
	/* 1024 characters at most, counted in code points. */
	EXPECT_ERROR(patch(owner, id, fmt("description=%s", repeat('d', 1025))), 400, "BAD_REQUEST",
	             "description is too long (limit: 1024 characters)");
	patch_ok(owner, id, fmt("description=%s", repeat('d', 1024)));
}

static void test_rename(void)
{
	struct user *owner = new_realm();
	char *name = unique_channel_name("old"), *taken = unique_channel_name("taken"), *new_name = unique_channel_name("new");
	int64_t id = create_channel_with(owner, name, NULL);
	create_channel_with(owner, taken, NULL);
	EXPECT_ERROR(patch(owner, id, fmt("new_name=%s", url_encode(fmt(" %s ", name)))), 400, "BAD_REQUEST",
	             "Channel already has that name.");
	EXPECT_ERROR(patch(owner, id, fmt("new_name=%s", url_encode(taken))), 400, "BAD_REQUEST",
	             "Channel name is already in use.");
	char *upper = fmt("%s", taken);
	upper[0] = 'T';
	EXPECT_ERROR(patch(owner, id, fmt("new_name=%s", url_encode(upper))), 400, "BAD_REQUEST",
	             "Channel name is already in use.");
	EXPECT_ERROR(patch(owner, id, "new_name=%20%20"), 400, "BAD_REQUEST", "Channel name can't be empty.");
	EXPECT_ERROR(patch(owner, id, fmt("new_name=%s", repeat('n', 61))), 400, "BAD_REQUEST",
	             "Channel name too long (limit: 60 characters).");
	EXPECT_ERROR(patch(owner, id, "new_name=ab%01c"), 400, "BAD_REQUEST",
	             "Invalid character in channel name, at position 3.");
	struct queue *q = queue_register(owner, "event_types=%5B%22stream%22%5D");
	patch_ok(owner, id, fmt("new_name=%s", url_encode(fmt("  %s ", new_name))));
	EXPECT_STR(get_channel(owner, id), "name", new_name);
	/* The event's name is the old one. */
	EXPECT_STR(update_event(queue_drain(q), "name", id, name), "value", new_name);
	char *want = fmt("%s renamed channel **%s** to **%s**.", mention(owner), name, new_name);
	CHECK(strcmp(last_notice(id, "channel events"), want) == 0, "notice: %s", last_notice(id, "channel events"));
	/* Only the case changes: allowed. */
	char *cased = fmt("%s", new_name);
	cased[0] = 'N';
	patch_ok(owner, id, fmt("new_name=%s", url_encode(cased)));
	EXPECT_STR(get_channel(owner, id), "name", cased);
}

/* ---- privacy ------------------------------------------------------------------------------------------------ */

static void test_privacy_checks(void)
{
	struct user *owner = new_realm();
	struct user *admin = new_user_in(owner->realm, "admin", NULL);
	int64_t pub = create_channel_with(owner, unique_channel_name("pc"), NULL);
	int64_t priv = create_channel_with(owner, unique_channel_name("pcp"), "invite_only=true");
	EXPECT_ERROR(patch(owner, pub, "history_public_to_subscribers=false"), 400, "BAD_REQUEST", "Invalid parameters");
	EXPECT_ERROR(patch(owner, pub, "is_private=false&history_public_to_subscribers=false"), 400, "BAD_REQUEST",
	             "Invalid parameters");
	EXPECT_ERROR(patch(owner, pub, "is_web_public=true&history_public_to_subscribers=false"), 400, "BAD_REQUEST",
	             "Invalid parameters");
	EXPECT_ERROR(patch(owner, pub, "is_web_public=true&is_private=true"), 400, "BAD_REQUEST", "Invalid parameters");
	EXPECT_ERROR(patch(owner, pub, "is_private=true&is_default_stream=true"), 400, "BAD_REQUEST",
	             "A default channel cannot be private.");
	/* Web-public channels need spectator access. */
	EXPECT_ERROR(patch(owner, pub, "is_web_public=true"), 400, "BAD_REQUEST", "Web-public channels are not enabled.");
	/* An administrator who is not subscribed to a private channel has no content access. */
	EXPECT_ERROR(patch(admin, priv, "is_private=false"), 400, "BAD_REQUEST", "Channel content access is required.");
	/* The moderation request channel stays private. */
	psql_ok("UPDATE realms SET moderation_request_channel_id = %lld WHERE id = %s", (long long)priv,
	        realm_of(owner));
	EXPECT_ERROR(patch(owner, priv, "is_private=false"), 400, "BAD_REQUEST",
	             "Moderation request channel must be private.");
	psql_ok("UPDATE realms SET moderation_request_channel_id = NULL WHERE id = %s", realm_of(owner));
	/* Changing the privacy needs the matching creation permission. */
	struct user *member = new_user_in(owner->realm, "member", NULL);
	int64_t mine = create_channel_with(member, unique_channel_name("pcm"), NULL);
	psql_ok("UPDATE realms SET can_create_private_channel_group_id = (SELECT id FROM user_groups WHERE realm_id = %s"
	        " AND name = 'role:administrators') WHERE id = %s",
	        realm_of(owner), realm_of(owner));
	EXPECT_ERROR(patch(member, mine, "is_private=true"), 400, "BAD_REQUEST", "Insufficient permission");
	EXPECT_BOOL(get_channel(member, mine), "invite_only", false);
	/* Protected history needs can_create_topic_group to be role:everyone. */
	patch_ok(owner, priv,
	         fmt("can_create_topic_group=%s", url_encode(fmt("{\"new\":%lld}", (long long)system_group(owner, "role:members")))));
	struct resp *r = patch(owner, priv, "history_public_to_subscribers=false");
	EXPECT_ERROR(r, 400, "BAD_REQUEST",
	             "Unsupported parameter combination: history_public_to_subscribers, can_create_topic_group");
	EXPECT_STR(r->json, "parameters", "history_public_to_subscribers, can_create_topic_group");
	EXPECT_BOOL(get_channel(owner, pub), "invite_only", false);
	CHECK(strcmp(psql_ok("SELECT is_default FROM channels WHERE id = %lld", (long long)pub), "f") == 0, "default");
}

/* Private to public: who could not see the channel gets stream create and peer_add, the others the update; back to
 * private: who no longer sees it gets stream delete. */
static void test_privacy_events(void)
{
	struct user *owner = new_realm();
	struct user *member = new_user_in(owner->realm, "member", NULL), *guest = new_user_in(owner->realm, "guest", NULL);
	char *name = unique_channel_name("pe");
	int64_t id = create_channel_with(owner, name, "invite_only=true");
	struct queue *qo = queue_register(owner, "event_types=%5B%22stream%22%2C%22subscription%22%5D");
	struct queue *qm = queue_register(member, "event_types=%5B%22stream%22%2C%22subscription%22%5D");
	struct queue *qg = queue_register(guest, "event_types=%5B%22stream%22%2C%22subscription%22%5D");
	patch_ok(owner, id, "is_private=false");
	json_object *e = update_event(queue_drain(qo), "invite_only", id, name);
	EXPECT_BOOL(e, "value", false);
	EXPECT_BOOL(e, "history_public_to_subscribers", true);
	EXPECT_BOOL(e, "is_web_public", false);
	json_object *got = queue_drain(qm);
	REQUIRE(json_object_array_length(got) == 2, "member: %s", jtext(got));
	json_object *create = json_object_array_get_idx(got, 0), *peer = json_object_array_get_idx(got, 1);
	EXPECT_STR(create, "op", "create");
	EXPECT_INT(json_object_array_get_idx(jget(create, "streams"), 0), "stream_id", id);
	EXPECT_BOOL(json_object_array_get_idx(jget(create, "streams"), 0), "invite_only", false);
	EXPECT_STR(peer, "op", "peer_add");
	CHECK(strcmp(jtext(jget(peer, "user_ids")), fmt("[%lld]", (long long)owner->id)) == 0, "%s", jtext(peer));
	CHECK(json_object_array_length(queue_drain(qg)) == 0, "guest got events");
	char *want = fmt("%s changed the [access permissions](/help/channel-permissions) for this channel from "
	                 "**Private, protected history** to **Public**.",
	                 mention(owner));
	CHECK(strcmp(last_notice(id, "channel events"), want) == 0, "notice: %s", last_notice(id, "channel events"));
	patch_ok(owner, id, "is_private=true&history_public_to_subscribers=true");
	e = update_event(queue_drain(qo), "invite_only", id, name);
	EXPECT_BOOL(e, "value", true);
	EXPECT_BOOL(e, "history_public_to_subscribers", true);
	got = queue_drain(qm);
	REQUIRE(json_object_array_length(got) == 1, "member: %s", jtext(got));
	EXPECT_STR(json_object_array_get_idx(got, 0), "op", "delete");
	EXPECT_INT(json_object_array_get_idx(jget(json_object_array_get_idx(got, 0), "streams"), 0), "stream_id", id);
	CHECK(strstr(last_notice(id, "channel events"), "from **Public** to **Private, shared history**.") != NULL, "%s",
	      last_notice(id, "channel events"));
}

/* Web-public once spectators are allowed: guests, who could not see the public channel, gain it. */
static void test_web_public(void)
{
	struct user *owner = new_realm();
	struct user *member = new_user_in(owner->realm, "member", NULL), *guest = new_user_in(owner->realm, "guest", NULL);
	char *name = unique_channel_name("web");
	int64_t id = create_channel_with(owner, name, NULL);
	subscribe(member, name);
	psql_ok("UPDATE realms SET enable_spectator_access = true WHERE id = %s", realm_of(owner));
	/* A channel administrator who may not create web-public channels. */
	patch_ok(owner, id,
	         fmt("can_administer_channel_group=%s",
	             url_encode(fmt("{\"new\":{\"direct_members\":[%lld],\"direct_subgroups\":[]}}", (long long)member->id))));
	EXPECT_ERROR(patch(member, id, "is_web_public=true"), 400, "BAD_REQUEST", "Insufficient permission");
	struct queue *qg = queue_register(guest, "event_types=%5B%22stream%22%5D");
	patch_ok(owner, id, "is_web_public=true");
	EXPECT_BOOL(get_channel(guest, id), "is_web_public", true);
	json_object *got = queue_drain(qg);
	REQUIRE(json_object_array_length(got) == 1, "guest: %s", jtext(got));
	EXPECT_STR(json_object_array_get_idx(got, 0), "op", "create");
	CHECK(strstr(last_notice(id, "channel events"), "from **Public** to **Web-public**.") != NULL, "%s",
	      last_notice(id, "channel events"));
}

/* ---- default channels, retention ------------------------------------------------------------------------------ */

static void test_default_stream(void)
{
	struct user *owner = new_realm();
	struct user *admin = new_user_in(owner->realm, "admin", NULL), *guest = new_user_in(owner->realm, "guest", NULL);
	int64_t id = create_channel_with(owner, unique_channel_name("def"), NULL);
	int64_t priv = create_channel_with(owner, unique_channel_name("defp"), "invite_only=true");
	struct queue *q = queue_register(admin, "event_types=%5B%22default_streams%22%5D");
	struct queue *qg = queue_register(guest, "event_types=%5B%22default_streams%22%5D");
	patch_ok(admin, id, "is_default_stream=true");
	json_object *got = queue_drain(q);
	REQUIRE(json_object_array_length(got) == 1, "%s", jtext(got));
	json_object *e = json_object_array_get_idx(got, 0);
	EXPECT_KEYS(e, "type", "default_streams");
	CHECK(strcmp(jtext(jget(e, "default_streams")), fmt("[%lld]", (long long)id)) == 0, "%s", jtext(e));
	CHECK(json_object_array_length(queue_drain(qg)) == 0, "guests get no default_streams event");
	/* Already a default channel: no event. Removing always sends one. */
	patch_ok(admin, id, "is_default_stream=true");
	CHECK(json_object_array_length(queue_drain(q)) == 0, "repeat add sent an event");
	struct resp *r = api_post(admin, "/register", "fetch_event_types=%5B%22default_streams%22%5D");
	CHECK(strcmp(jtext(jget(r->json, "realm_default_streams")), fmt("[%lld]", (long long)id)) == 0, "%s", r->body);
	EXPECT_ERROR(patch(owner, id, "is_private=true"), 400, "BAD_REQUEST", "A default channel cannot be private.");
	EXPECT_ERROR(patch(owner, priv, "is_default_stream=true"), 400, "BAD_REQUEST",
	             "A default channel cannot be private.");
	patch_ok(admin, id, "is_default_stream=false");
	got = queue_drain(q);
	REQUIRE(json_object_array_length(got) == 1, "%s", jtext(got));
	CHECK(strcmp(jtext(jget(json_object_array_get_idx(got, 0), "default_streams")), "[]") == 0, "%s", jtext(got));
	r = api_post(admin, "/register", "fetch_event_types=%5B%22default_streams%22%5D");
	CHECK(strcmp(jtext(jget(r->json, "realm_default_streams")), "[]") == 0, "%s", r->body);
}

static void test_retention(void)
{
	struct user *owner = new_realm();
	struct user *admin = new_user_in(owner->realm, "admin", NULL);
	char *name = unique_channel_name("ret");
	int64_t id = create_channel_with(owner, name, NULL);
	EXPECT_ERROR(patch(admin, id, "message_retention_days=30"), 400, "UNAUTHORIZED_PRINCIPAL",
	             "Must be an organization owner");
	struct resp *r = patch(owner, id, "message_retention_days=0");
	EXPECT_ERROR(r, 400, "REQUEST_VARIABLE_INVALID", "Bad value for 'message_retention_days': 0");
	EXPECT_STR(r->json, "var_name", "message_retention_days");
	EXPECT_ERROR(patch(owner, id, "message_retention_days=%22forever%22"), 400, "REQUEST_VARIABLE_INVALID",
	             "Bad value for 'message_retention_days': forever");
	struct queue *q = queue_register(owner, "event_types=%5B%22stream%22%5D");
	patch_ok(owner, id, "message_retention_days=30");
	EXPECT_INT(update_event(queue_drain(q), "message_retention_days", id, name), "value", 30);
	EXPECT_INT(get_channel(owner, id), "message_retention_days", 30);
	/* The organization's default is forever here. */
	char *want = fmt("%s has changed the [message retention period](/help/message-retention-policy) for this "
	                 "channel:\n* **Old retention period**: Forever\n* **New retention period**: 30 days\n\n"
	                 "Messages in this channel will now be automatically deleted 30 days after they are sent.",
	                 mention(owner));
	CHECK(strcmp(last_notice(id, "channel events"), want) == 0, "notice: %s", last_notice(id, "channel events"));
	patch_ok(owner, id, "message_retention_days=%22unlimited%22");
	EXPECT_INT(update_event(queue_drain(q), "message_retention_days", id, name), "value", -1);
	CHECK(strstr(last_notice(id, "channel events"),
	             "* **Old retention period**: 30 days\n* **New retention period**: Forever\n\n"
	             "Messages in this channel will now be retained forever.") != NULL,
	      "%s", last_notice(id, "channel events"));
	patch_ok(owner, id, "message_retention_days=%22realm_default%22");
	json_object *e = update_event(queue_drain(q), "message_retention_days", id, name);
	CHECK(jis_null(e, "value"), "%s", jtext(e));
	CHECK(jis_null(get_channel(owner, id), "message_retention_days"), "realm default is null");
}

/* ---- topics policy, folder ------------------------------------------------------------------------------------ */

static void test_topics_policy(void)
{
	struct user *owner = new_realm();
	struct user *member = new_user_in(owner->realm, "member", NULL);
	char *name = unique_channel_name("tp");
	int64_t id = create_channel_with(owner, name, NULL);
	EXPECT_ERROR(patch(owner, id, "topics_policy=sometimes"), 400, "BAD_REQUEST", "Invalid topics_policy");
	/* A channel administrator without the organization's can_set_topics_policy_group (moderators). */
	patch_ok(owner, id,
	         fmt("can_administer_channel_group=%s",
	             url_encode(fmt("{\"new\":{\"direct_members\":[%lld,%lld],\"direct_subgroups\":[]}}",
	                            (long long)owner->id, (long long)member->id))));
	EXPECT_ERROR(patch(member, id, "topics_policy=allow_empty_topic"), 400, "BAD_REQUEST", "Insufficient permission");
	patch_ok(member, id, "topics_policy=inherit"); /* unchanged: no event, no notice */
	int before = notice_count(id);
	struct queue *q = queue_register(owner, "event_types=%5B%22stream%22%5D");
	patch_ok(owner, id, "topics_policy=disable_empty_topic");
	EXPECT_STR(update_event(queue_drain(q), "topics_policy", id, name), "value", "disable_empty_topic");
	EXPECT_STR(get_channel(owner, id), "topics_policy", "disable_empty_topic");
	CHECK(notice_count(id) == before + 1, "one notice expected");
	char *want = fmt("%s changed the \"Allow posting to the *general chat* topic?\" setting from **Automatic** to "
	                 "**No *general chat* topic**.",
	                 mention(owner));
	CHECK(strcmp(last_notice(id, "channel events"), want) == 0, "notice: %s", last_notice(id, "channel events"));
	/* empty_topic_only needs every message in the empty topic: this channel has its notices in "channel events". */
	EXPECT_ERROR(patch(owner, id, "topics_policy=empty_topic_only"), 400, "BAD_REQUEST",
	             "To enable this configuration, all messages in this channel must be in the general chat topic. "
	             "Consider renaming other topics to general chat.");
	/* A channel without messages may; its notices then go to the empty topic. */
	int64_t empty = create_channel_with(owner, unique_channel_name("tpe"), NULL);
	patch_ok(owner, empty, "topics_policy=empty_topic_only");
	CHECK(strstr(last_notice(empty, ""), "to **Only *general chat* topic allowed**.") != NULL, "%s",
	      last_notice(empty, ""));
}

static void test_folder(void)
{
	struct user *owner = new_realm();
	char *name = unique_channel_name("fold");
	int64_t id = create_channel_with(owner, name, NULL);
	struct resp *r = api_post(owner, "/channel_folders/create", fmt("name=%s", url_encode(unique_channel_name("f"))));
	EXPECT_SUCCESS(r);
	int64_t folder = jint(r->json, "channel_folder_id");
	EXPECT_ERROR(patch(owner, id, "folder_id=999999999"), 400, "BAD_REQUEST", "Invalid channel folder ID");
	EXPECT_ERROR(patch(owner, id, "folder_id=%22x%22"), 400, "BAD_REQUEST", "folder_id is not an integer");
	struct queue *q = queue_register(owner, "event_types=%5B%22stream%22%5D");
	int before = notice_count(id);
	patch_ok(owner, id, fmt("folder_id=%lld", (long long)folder));
	EXPECT_INT(update_event(queue_drain(q), "folder_id", id, name), "value", folder);
	EXPECT_INT(get_channel(owner, id), "folder_id", folder);
	/* Omitted changes nothing; null removes. No notice either way. */
	patch_ok(owner, id, "description=x");
	EXPECT_INT(get_channel(owner, id), "folder_id", folder);
	queue_drain(q);
	patch_ok(owner, id, "folder_id=null");
	json_object *e = update_event(queue_drain(q), "folder_id", id, name);
	CHECK(jis_null(e, "value"), "%s", jtext(e));
	CHECK(jis_null(get_channel(owner, id), "folder_id"), "folder removed");
	CHECK(notice_count(id) == before + 1, "only the description's notice");
}

/* ---- permission settings -------------------------------------------------------------------------------------- */

static char *update_of(const char *new_value, const char *old_value)
{
	return old_value ? fmt("{\"new\":%s,\"old\":%s}", new_value, old_value) : fmt("{\"new\":%s}", new_value);
}

static void test_group_setting_errors(void)
{
	struct user *owner = new_realm();
	int64_t id = create_channel_with(owner, unique_channel_name("gse"), NULL);
	long long everyone = system_group(owner, "role:everyone"), internet = system_group(owner, "role:internet");
	long long members = system_group(owner, "role:members"), nobody = system_group(owner, "role:nobody");
	EXPECT_ERROR(patch(owner, id, fmt("can_administer_channel_group=%s", url_encode(update_of(fmt("%lld", everyone), NULL)))),
	             400, "BAD_REQUEST", "'can_administer_channel_group' setting cannot be set to 'role:everyone' group.");
	EXPECT_ERROR(patch(owner, id, fmt("can_subscribe_group=%s", url_encode(update_of(fmt("%lld", everyone), NULL)))), 400,
	             "BAD_REQUEST", "'can_subscribe_group' setting cannot be set to 'role:everyone' group.");
	EXPECT_ERROR(patch(owner, id, fmt("can_send_message_group=%s", url_encode(update_of(fmt("%lld", internet), NULL)))),
	             400, "BAD_REQUEST", "'can_send_message_group' setting cannot be set to 'role:internet' group.");
	EXPECT_ERROR(patch(owner, id, "can_send_message_group=%7B%22new%22%3A999999999%7D"), 400, "BAD_REQUEST",
	             "Invalid user group");
	/* An anonymous value: its groups are checked; one subgroup and no member is that group's id. */
	EXPECT_ERROR(patch(owner, id,
	                   fmt("can_send_message_group=%s",
	                       url_encode(update_of(
	                           fmt("{\"direct_members\":[],\"direct_subgroups\":[%lld,999999999]}", members), NULL)))),
	             400, "BAD_REQUEST", "Invalid user group ID: 999999999");
	EXPECT_ERROR(patch(owner, id,
	                   fmt("can_send_message_group=%s",
	                       url_encode(update_of("{\"direct_members\":[],\"direct_subgroups\":[999999999]}", NULL)))),
	             400, "BAD_REQUEST", "Invalid user group");
	/* old must be the current value. */
	struct resp *r =
	    patch(owner, id, fmt("can_delete_any_message_group=%s", url_encode(update_of(fmt("%lld", members), fmt("%lld", members)))));
	EXPECT_ERROR(r, 400, "EXPECTATION_MISMATCH", "'old' value does not match the expected value.");
	patch_ok(owner, id, fmt("can_delete_any_message_group=%s", url_encode(update_of(fmt("%lld", members), fmt("%lld", nobody)))));
	/* The new value equals the current one: nothing happens. */
	struct queue *q = queue_register(owner, "event_types=%5B%22stream%22%5D");
	patch_ok(owner, id, fmt("can_delete_any_message_group=%s",
	                        url_encode(update_of(fmt("{\"direct_members\":[],\"direct_subgroups\":[%lld]}", members), NULL))));
	CHECK(json_object_array_length(queue_drain(q)) == 0, "no change, no event");
	EXPECT_INT(get_channel(owner, id), "can_delete_any_message_group", members);
}

/* A named group's value is its id, an anonymous one {direct_members, direct_subgroups}; can_send_message_group
 * also sends the legacy stream_post_policy and is_announcement_only, and the "posting permissions" notice. */
static void test_group_setting_events(void)
{
	struct user *owner = new_realm();
	struct user *member = new_user_in(owner->realm, "member", NULL);
	char *name = unique_channel_name("gs");
	int64_t id = create_channel_with(owner, name, NULL);
	long long admins = system_group(owner, "role:administrators"), members = system_group(owner, "role:members");
	struct queue *q = queue_register(owner, "event_types=%5B%22stream%22%5D");
	patch_ok(owner, id, fmt("can_resolve_topics_group=%s", url_encode(update_of(fmt("%lld", members), NULL))));
	EXPECT_INT(update_event(queue_drain(q), "can_resolve_topics_group", id, name), "value", members);
	char *anon = fmt("{\"direct_members\":[%lld],\"direct_subgroups\":[%lld]}", (long long)member->id, admins);
	patch_ok(owner, id, fmt("can_move_messages_within_channel_group=%s", url_encode(update_of(anon, NULL))));
	json_object *e = update_event(queue_drain(q), "can_move_messages_within_channel_group", id, name);
	CHECK(strcmp(jtext(jget(e, "value")), fmt("{\"direct_members\":[%lld],\"direct_subgroups\":[%lld]}",
	                                          (long long)member->id, admins)) == 0,
	      "%s", jtext(e));
	int before = notice_count(id);
	patch_ok(owner, id, fmt("can_send_message_group=%s", url_encode(update_of(fmt("%lld", admins), NULL))));
	json_object *got = queue_drain(q);
	EXPECT_INT(update_event(got, "can_send_message_group", id, name), "value", admins);
	EXPECT_INT(update_event(got, "stream_post_policy", id, name), "value", 2);
	EXPECT_BOOL(update_event(got, "is_announcement_only", id, name), "value", true);
	EXPECT_INT(get_channel(owner, id), "stream_post_policy", 2);
	char *want = fmt("%s changed the [posting permissions](/help/channel-posting-policy) for this channel:\n\n"
	                 "* **Old**: @_*role:everyone*\n* **New**: @_*role:administrators*",
	                 mention(owner));
	CHECK(strcmp(last_notice(id, "channel events"), want) == 0, "notice: %s", last_notice(id, "channel events"));
	patch_ok(owner, id, fmt("can_send_message_group=%s", url_encode(update_of(anon, NULL))));
	CHECK(strstr(last_notice(id, "channel events"),
	             fmt("* **Old**: @_*role:administrators*\n* **New**: @_*role:administrators*, %s", mention(member))) !=
	          NULL,
	      "%s", last_notice(id, "channel events"));
	/* Other settings post no notice. */
	CHECK(notice_count(id) == before + 2, "notices: %d", notice_count(id) - before);
}

/* can_subscribe_group grants metadata access to a private channel: who gains it gets stream create and peer_add,
 * who loses it stream delete; content access is needed to change it. */
static void test_group_setting_access(void)
{
	struct user *owner = new_realm();
	struct user *admin = new_user_in(owner->realm, "admin", NULL), *member = new_user_in(owner->realm, "member", NULL);
	char *name = unique_channel_name("gsa");
	int64_t id = create_channel_with(owner, name, "invite_only=true");
	char *with_member = update_of(fmt("{\"direct_members\":[%lld],\"direct_subgroups\":[]}", (long long)member->id), NULL);
	EXPECT_ERROR(patch(admin, id, fmt("can_subscribe_group=%s", url_encode(with_member))), 400, "BAD_REQUEST",
	             "Channel content access is required.");
	EXPECT_ERROR(patch(admin, id, fmt("can_add_subscribers_group=%s", url_encode(with_member))), 400, "BAD_REQUEST",
	             "Channel content access is required.");
	/* Not required for the other settings. */
	patch_ok(admin, id, fmt("can_remove_subscribers_group=%s", url_encode(with_member)));
	struct queue *qo = queue_register(owner, "event_types=%5B%22stream%22%2C%22subscription%22%5D");
	struct queue *qm = queue_register(member, "event_types=%5B%22stream%22%2C%22subscription%22%5D");
	patch_ok(owner, id, fmt("can_subscribe_group=%s", url_encode(with_member)));
	json_object *e = update_event(queue_drain(qo), "can_subscribe_group", id, name);
	CHECK(json_object_is_type(jget(e, "value"), json_type_object), "%s", jtext(e));
	json_object *got = queue_drain(qm);
	REQUIRE(json_object_array_length(got) == 2, "member: %s", jtext(got));
	EXPECT_STR(json_object_array_get_idx(got, 0), "op", "create");
	EXPECT_STR(json_object_array_get_idx(got, 1), "op", "peer_add");
	EXPECT_INT(get_channel(member, id), "stream_id", id);
	patch_ok(owner, id, fmt("can_subscribe_group=%s", url_encode(update_of(fmt("%lld", (long long)system_group(owner, "role:nobody")), NULL))));
	got = queue_drain(qm);
	REQUIRE(json_object_array_length(got) == 1, "member: %s", jtext(got));
	EXPECT_STR(json_object_array_get_idx(got, 0), "op", "delete");
	EXPECT_ERROR(api_get(member, fmt("/streams/%lld", (long long)id)), 400, "BAD_REQUEST", "Invalid channel ID");
}

/* Not atomic, as the reference: the settings before a failing one stay changed. */
static void test_not_atomic(void)
{
	struct user *owner = new_realm();
	char *taken = unique_channel_name("na-taken");
	int64_t id = create_channel_with(owner, unique_channel_name("na"), NULL);
	create_channel_with(owner, taken, NULL);
	EXPECT_ERROR(patch(owner, id, fmt("description=kept&new_name=%s&folder_id=5", url_encode(taken))), 400,
	             "BAD_REQUEST", "Channel name is already in use.");
	json_object *c = get_channel(owner, id);
	EXPECT_STR(c, "description", "kept");
	CHECK(jis_null(c, "folder_id"), "the folder comes after the name: %s", jtext(c));
	/* A check before any change changes nothing. */
	EXPECT_ERROR(patch(owner, id, "description=lost&history_public_to_subscribers=false"), 400, "BAD_REQUEST",
	             "Invalid parameters");
	EXPECT_STR(get_channel(owner, id), "description", "kept");
}

void register_channel_update_tests(void)
{
	static const struct itest_case cases[] = {
	    {"access_rules", test_access_rules},
	    {"description", test_description},
	    {"rename", test_rename},
	    {"privacy_checks", test_privacy_checks},
	    {"privacy_events", test_privacy_events},
	    {"web_public", test_web_public},
	    {"default_stream", test_default_stream},
	    {"retention", test_retention},
	    {"topics_policy", test_topics_policy},
	    {"folder", test_folder},
	    {"group_setting_errors", test_group_setting_errors},
	    {"group_setting_events", test_group_setting_events},
	    {"group_setting_access", test_group_setting_access},
	    {"not_atomic", test_not_atomic},
	    {NULL, NULL},
	};
	itest_add_suite("channel_update", cases);
}
