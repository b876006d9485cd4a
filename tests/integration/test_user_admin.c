/*
 * Administrators changing users: PATCH /users/{user_id} and /users/{email}, DELETE /users/{user_id},
 * POST /users/{user_id}/reactivate and DELETE /users/me (digest section f; zerver/views/users.py,
 * zerver/actions/users.py for the events).
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "itest.h"

static unsigned counter;

static struct resp *patch(const struct user *actor, const char *path, const char *form)
{
	return http(&(struct request){.method = "PATCH", .user = actor, .path = fmt("/api/v1%s", path), .form = form});
}

static struct resp *patch_user(const struct user *actor, int64_t id, const char *form)
{
	return patch(actor, fmt("/users/%lld", (long long)id), form);
}

static struct resp *deactivate(const struct user *actor, int64_t id)
{
	return api_method("DELETE", actor, fmt("/users/%lld", (long long)id));
}

static int64_t system_group(const struct user *u, const char *name)
{
	return strtoll(psql_ok("SELECT id FROM user_groups WHERE realm_id = (SELECT realm_id FROM users WHERE id = %lld)"
	                       " AND name = '%s'",
	                       (long long)u->id, name),
	               NULL, 10);
}

static struct queue *reg(const struct user *u, const char *types)
{
	return queue_register(u, fmt("event_types=%s", url_encode(types)));
}

static const char *text(json_object *o)
{
	return json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE);
}

/* A bot owned by owner (confabctl makes ownerless bots). */
static struct user *owned_bot(const struct user *owner)
{
	struct user *bot = new_bot();
	psql_ok("UPDATE users SET bot_owner_id = %lld WHERE id = %lld", (long long)owner->id, (long long)bot->id);
	return bot;
}

static int64_t create_channel(const struct user *u, const char *tag, bool private_)
{
	const char *name = fmt("%s-%u-%ld", tag, ++counter, (long)getpid());
	EXPECT_SUCCESS(api_post(u, "/users/me/subscriptions",
	                        fmt("subscriptions=%s%s", url_encode(fmt("[{\"name\":\"%s\"}]", name)),
	                            private_ ? "&invite_only=true" : "")));
	return strtoll(psql_ok("SELECT id FROM channels WHERE name = '%s'", name), NULL, 10);
}

/* ---- PATCH /users/{user_id} ---------------------------------------------------------------------------------- */

static void test_update_full_name(void)
{
	struct user *admin = new_user("admin"), *u = new_user("member"), *other = new_user("member");
	struct queue *q = reg(other, "[\"realm_user\"]");
	EXPECT_SUCCESS(patch_user(admin, u->id, "full_name=%20New%20Name%20"));
	EXPECT_STR(jget(api_get(admin, fmt("/users/%lld", (long long)u->id))->json, "user"), "full_name", "New Name");
	EXPECT_EVENTS(q, fmt("[{\"type\":\"realm_user\",\"op\":\"update\",\"person\":{\"user_id\":%lld,"
	                     "\"full_name\":\"New Name\"}}]",
	                     (long long)u->id));
	/* Blank and unchanged names are ignored. */
	EXPECT_SUCCESS(patch_user(admin, u->id, "full_name=%20%20"));
	EXPECT_SUCCESS(patch_user(admin, u->id, "full_name=New%20Name"));
	EXPECT_EVENTS(q, "[]");
	EXPECT_ERROR(patch_user(admin, u->id, fmt("full_name=%s", repeat('x', 101))), 400, "BAD_REQUEST",
	             "Name too long!");
	EXPECT_ERROR(patch_user(admin, u->id, "full_name=Bad%2Aname"), 400, "BAD_REQUEST", "Invalid characters in name!");
	EXPECT_STR(jget(api_get(admin, fmt("/users/%lld", (long long)u->id))->json, "user"), "full_name", "New Name");
}

static void test_update_access(void)
{
	struct user *admin = new_user("admin"), *member = new_user("member"), *u = new_user("member");
	EXPECT_ERROR(patch_user(admin, 999999999, "full_name=Xyz"), 400, "BAD_REQUEST", "No such user");
	EXPECT_ERROR(patch_user(member, u->id, "full_name=Xyz"), 400, "BAD_REQUEST", "Insufficient permission");
	/* A bot's owner may edit it. */
	struct user *bot = owned_bot(member);
	EXPECT_SUCCESS(patch_user(member, bot->id, "full_name=My%20Bot"));
	/* ... but not give it a role. */
	EXPECT_ERROR(patch_user(member, bot->id, "role=300"), 400, "UNAUTHORIZED_PRINCIPAL",
	             "Must be an organization administrator");
	/* System bots are not the organization's users. */
	char *nb = psql_ok("SELECT confab_notification_bot(realm_id) FROM users WHERE id = %lld", (long long)admin->id);
	EXPECT_ERROR(patch_user(admin, strtoll(nb, NULL, 10), "full_name=Xyz"), 400, "BAD_REQUEST", "No such user");
	/* Deactivated users may be edited. */
	struct user *gone = new_user("member");
	deactivate_user(gone);
	EXPECT_SUCCESS(patch_user(admin, gone->id, "full_name=Gone%20User"));
}

static void test_update_role(void)
{
	struct user *admin = new_user("admin"), *u = new_user("member"), *other = new_user("member");
	int64_t members = system_group(u, "role:members"), moderators = system_group(u, "role:moderators"),
	        full = system_group(u, "role:fullmembers");
	struct queue *q = reg(other, "[\"realm_user\",\"user_group\"]");
	EXPECT_SUCCESS(patch_user(admin, u->id, "role=300"));
	EXPECT_INT(jget(api_get(admin, fmt("/users/%lld", (long long)u->id))->json, "user"), "role", 300);
	long long id = (long long)u->id;
	EXPECT_EVENTS(q, fmt("[{\"type\":\"realm_user\",\"op\":\"update\",\"person\":{\"user_id\":%lld,\"role\":300}},"
	                     "{\"type\":\"user_group\",\"op\":\"remove_members\",\"group_id\":%lld,\"user_ids\":[%lld]},"
	                     "{\"type\":\"user_group\",\"op\":\"add_members\",\"group_id\":%lld,\"user_ids\":[%lld]},"
	                     "{\"type\":\"user_group\",\"op\":\"remove_members\",\"group_id\":%lld,\"user_ids\":[%lld]}]",
	                     id, (long long)members, id, (long long)moderators, id, (long long)full, id));
	/* The same role: nothing. */
	EXPECT_SUCCESS(patch_user(admin, u->id, "role=300"));
	EXPECT_EVENTS(q, "[]");
	EXPECT_ERROR(patch_user(admin, u->id, "role=150"), 400, "BAD_REQUEST",
	             "Invalid role: Value error, Not in the list of possible values");
	/* Checked with the parameters, before the target. */
	EXPECT_ERROR(patch_user(admin, 999999999, "role=150"), 400, "BAD_REQUEST",
	             "Invalid role: Value error, Not in the list of possible values");
	EXPECT_ERROR(patch_user(admin, u->id, "role=100"), 400, "UNAUTHORIZED_PRINCIPAL", "Must be an organization owner");
	struct user *owner2 = new_user("owner");
	EXPECT_ERROR(patch_user(admin, owner2->id, "role=400"), 400, "UNAUTHORIZED_PRINCIPAL",
	             "Must be an organization owner");
	EXPECT_ERROR(patch_user(new_user("moderator"), u->id, "role=400"), 400, "BAD_REQUEST", "Insufficient permission");
}

static void test_update_role_last_owner(void)
{
	struct user *owner = new_realm();
	EXPECT_ERROR(patch_user(owner, owner->id, "role=200"), 400, "BAD_REQUEST",
	             "The owner permission cannot be removed from the only organization owner.");
	struct user *owner2 = new_user_in(owner->realm, "owner", NULL);
	EXPECT_SUCCESS(patch_user(owner, owner2->id, "role=200"));
	EXPECT_INT(jget(api_get(owner, fmt("/users/%lld", (long long)owner2->id))->json, "user"), "role", 200);
}

static void test_update_role_channels(void)
{
	struct user *admin = new_user("admin"), *u = new_user("member");
	int64_t channel = create_channel(admin, "rolechan", false);
	struct queue *q = reg(u, "[\"stream\"]");
	EXPECT_SUCCESS(patch_user(admin, u->id, "role=600"));
	json_object *events = queue_drain(q);
	bool deleted = false;
	for (size_t i = 0; i < json_object_array_length(events); i++) {
		json_object *e = json_object_array_get_idx(events, i);
		json_object *ids = jget(e, "stream_ids");
		for (size_t k = 0; ids && k < json_object_array_length(ids); k++)
			deleted |= strcmp(jstr(e, "op"), "delete") == 0 &&
			           json_object_get_int64(json_object_array_get_idx(ids, k)) == channel;
	}
	CHECK(deleted, "a guest loses the public channel %lld: %s", (long long)channel, text(events));
	EXPECT_SUCCESS(patch_user(admin, u->id, "role=400"));
	events = queue_drain(q);
	bool created = false;
	for (size_t i = 0; i < json_object_array_length(events); i++) {
		json_object *e = json_object_array_get_idx(events, i), *streams = jget(e, "streams");
		created |= strcmp(jstr(e, "op"), "create") == 0 && streams &&
		           jint(json_object_array_get_idx(streams, 0), "stream_id") == channel;
	}
	CHECK(created, "a member sees the public channel %lld again: %s", (long long)channel, text(events));
}

static void test_update_profile_data(void)
{
	struct user *admin = new_user("admin"), *u = new_user("member");
	const char *name = fmt("Admin field %u %ld", ++counter, (long)getpid());
	struct resp *r = api_post(admin, "/realm/profile_fields", fmt("name=%s&field_type=1", url_encode(name)));
	EXPECT_SUCCESS(r);
	long long field = (long long)jint(r->json, "id");
	struct queue *q = reg(u, "[\"realm_user\"]");
	EXPECT_SUCCESS(patch_user(admin, u->id,
	                          fmt("profile_data=%s", url_encode(fmt("[{\"id\":%lld,\"value\":\"Tea\"}]", field)))));
	json_object *user = jget(api_get(admin, fmt("/users/%lld?include_custom_profile_fields=true", (long long)u->id))
	                             ->json,
	                         "user");
	EXPECT_STR(jget(jget(user, "profile_data"), fmt("%lld", field)), "value", "Tea");
	EXPECT_EVENTS(q, fmt("[{\"type\":\"realm_user\",\"op\":\"update\",\"person\":{\"user_id\":%lld,"
	                     "\"custom_profile_field\":{\"id\":%lld,\"value\":\"Tea\",\"rendered_value\":\"<p>Tea</p>\"}}}]",
	                     (long long)u->id, field));
	/* null (or "") removes the value. */
	EXPECT_SUCCESS(patch_user(admin, u->id,
	                          fmt("profile_data=%s", url_encode(fmt("[{\"id\":%lld,\"value\":null}]", field)))));
	EXPECT_EVENTS(q, fmt("[{\"type\":\"realm_user\",\"op\":\"update\",\"person\":{\"user_id\":%lld,"
	                     "\"custom_profile_field\":{\"id\":%lld,\"value\":null}}}]",
	                     (long long)u->id, field));
	EXPECT_ERROR(patch_user(admin, u->id, fmt("profile_data=%s", url_encode("[{\"id\":9001,\"value\":\"x\"}]"))), 400,
	             "BAD_REQUEST", "Field id 9001 not found.");
}

/* ---- PATCH /users/{email} ------------------------------------------------------------------------------------ */

static void test_update_by_email(void)
{
	struct user *admin = new_user("admin"), *u = new_user("member");
	EXPECT_SUCCESS(patch(admin, fmt("/users/%s", url_encode(u->email)), "full_name=By%20Email"));
	EXPECT_STR(jget(api_get(admin, fmt("/users/%lld", (long long)u->id))->json, "user"), "full_name", "By Email");
	EXPECT_ERROR(patch(admin, "/users/nobody-here%40example.com", "full_name=Xyz"), 400, "BAD_REQUEST",
	             "No such user");
	/* Hidden addresses: only the placeholder finds the user, and a member is refused. */
	struct user *hidden = new_user("member");
	psql_ok("UPDATE users SET email_address_visibility = 4 WHERE id = %lld", (long long)hidden->id);
	EXPECT_ERROR(patch(admin, fmt("/users/%s", url_encode(hidden->email)), "full_name=Xyz"), 400, "BAD_REQUEST",
	             "No such user");
	const char *placeholder = jstr(jget(api_get(admin, fmt("/users/%lld", (long long)hidden->id))->json, "user"),
	                               "email");
	REQUIRE(placeholder != NULL, "no placeholder address");
	EXPECT_SUCCESS(patch(admin, fmt("/users/%s", url_encode(placeholder)), "full_name=Hidden%20One"));
	EXPECT_ERROR(patch(new_user("member"), fmt("/users/%s", url_encode(placeholder)), "full_name=Xyz"), 400,
	             "BAD_REQUEST", "Insufficient permission");
}

static void test_update_new_email(void)
{
	struct user *admin = new_user("admin"), *u = new_user("member"), *taken = new_user("member");
	struct user *observer = new_user("member");
	EXPECT_ERROR(patch_user(admin, u->id, "new_email=x%40example.com"), 400, "BAD_REQUEST",
	             "User not authorized to change user emails");
	psql_ok("UPDATE users SET can_change_user_emails = true WHERE id = %lld", (long long)admin->id);
	EXPECT_ERROR(patch_user(admin, u->id, "new_email=not-an-address"), 400, "BAD_REQUEST",
	             "Invalid new email address.");
	EXPECT_ERROR(patch_user(admin, u->id, fmt("new_email=%s", url_encode(taken->email))), 400, "BAD_REQUEST",
	             "New email value error: Already has an account.");
	struct queue *q = reg(observer, "[\"realm_user\"]");
	char *email = unique_email("renamed");
	EXPECT_SUCCESS(patch_user(admin, u->id, fmt("new_email=%s", url_encode(email))));
	EXPECT_STR(jget(api_get(admin, fmt("/users/%lld", (long long)u->id))->json, "user"), "delivery_email", email);
	/* The Gravatar follows the address. */
	const char *md5 = psql_ok("SELECT md5(lower('%s'))", email);
	const char *avatar = "https://secure.gravatar.com/avatar/";
	EXPECT_EVENTS(q, fmt("[{\"type\":\"realm_user\",\"op\":\"update\",\"person\":{\"user_id\":%lld,"
	                     "\"delivery_email\":\"%s\"}},"
	                     "{\"type\":\"realm_user\",\"op\":\"update\",\"person\":{\"user_id\":%lld,"
	                     "\"avatar_source\":\"G\",\"avatar_url\":\"%s%s?d=identicon&version=1\","
	                     "\"avatar_url_medium\":\"%s%s?d=identicon&s=500&version=1\",\"avatar_version\":1}},"
	                     "{\"type\":\"realm_user\",\"op\":\"update\",\"person\":{\"user_id\":%lld,"
	                     "\"new_email\":\"%s\"}}]",
	                     (long long)u->id, email, (long long)u->id, avatar, md5, avatar, md5, (long long)u->id, email));
}

/* ---- DELETE /users/{user_id}, POST /users/{user_id}/reactivate ----------------------------------------------- */

static void test_deactivate_errors(void)
{
	struct user *admin = new_user("admin"), *member = new_user("member"), *u = new_user("member");
	EXPECT_ERROR(deactivate(admin, 999999999), 400, "BAD_REQUEST", "No such user");
	EXPECT_ERROR(deactivate(admin, new_bot()->id), 400, "BAD_REQUEST", "No such user");
	EXPECT_ERROR(deactivate(member, u->id), 400, "BAD_REQUEST", "Insufficient permission");
	EXPECT_ERROR(deactivate(admin, new_user("owner")->id), 400, "UNAUTHORIZED_PRINCIPAL",
	             "Must be an organization owner");
	struct user *gone = new_user("member");
	deactivate_user(gone);
	EXPECT_ERROR(deactivate(admin, gone->id), 400, "BAD_REQUEST", "User is deactivated");
	EXPECT_ERROR(http(&(struct request){.method = "DELETE",
	                                    .user = admin,
	                                    .path = fmt("/api/v1/users/%lld", (long long)u->id),
	                                    .form = fmt("deactivation_notification_comment=%s", repeat('x', 2001))}),
	             400, "BAD_REQUEST", "deactivation_notification_comment is too long (limit: 2000 characters)");
	struct user *owner = new_realm();
	EXPECT_ERROR(deactivate(owner, owner->id), 400, "BAD_REQUEST", "Cannot deactivate the only organization owner");
}

static void test_deactivate_key_queue_bots(void)
{
	struct user *admin = new_user("admin"), *u = new_user("member"), *other = new_user("member");
	struct user *bot = owned_bot(u);
	int64_t channel = create_channel(u, "deact", false);
	EXPECT_SUCCESS(api_post(other, "/users/me/subscriptions",
	                        fmt("subscriptions=%s",
	                            url_encode(fmt("[{\"name\":\"%s\"}]",
	                                           psql_ok("SELECT name FROM channels WHERE id = %lld",
	                                                   (long long)channel))))));
	struct queue *mine = reg(u, "[\"message\"]");
	struct queue *q = reg(other, "[\"realm_user\",\"subscription\"]");
	EXPECT_SUCCESS(deactivate(admin, u->id));
	/* The key stops working, and so does the bot's. */
	struct resp *r = api_get(u, "/users/me");
	EXPECT_STATUS(r, 401);
	EXPECT_STR(r->json, "msg", "Account is deactivated");
	EXPECT_STATUS(api_get(bot, "/users/me"), 401);
	EXPECT_BOOL(jget(api_get(admin, fmt("/users/%lld", (long long)bot->id))->json, "user"), "is_active", false);
	EXPECT_EVENTS(q, fmt("[{\"type\":\"realm_user\",\"op\":\"update\",\"person\":{\"user_id\":%lld,\"is_active\":false}},"
	                     "{\"type\":\"subscription\",\"op\":\"peer_remove\",\"stream_ids\":[%lld],\"user_ids\":[%lld]},"
	                     "{\"type\":\"realm_user\",\"op\":\"update\",\"person\":{\"user_id\":%lld,\"is_active\":false}}]",
	                     (long long)bot->id, (long long)channel, (long long)u->id, (long long)u->id));
	/* The queue is gone: after reactivation, its next poll answers BAD_EVENT_QUEUE_ID. */
	EXPECT_SUCCESS(api_post(admin, fmt("/users/%lld/reactivate", (long long)u->id), NULL));
	r = api_get(u, fmt("/events?queue_id=%s&last_event_id=-1&dont_block=true", mine->id));
	EXPECT_ERROR(r, 400, "BAD_EVENT_QUEUE_ID", fmt("Bad event queue ID: %s", mine->id));
	EXPECT_SUCCESS(api_get(u, "/users/me"));
}

static void test_reactivate(void)
{
	struct user *admin = new_user("admin"), *u = new_user("member"), *other = new_user("member");
	int64_t channel = create_channel(u, "react", false);
	EXPECT_SUCCESS(deactivate(admin, u->id));
	struct queue *q = reg(other, "[\"realm_user\",\"subscription\",\"user_group\"]");
	EXPECT_ERROR(api_post(other, fmt("/users/%lld/reactivate", (long long)u->id), NULL), 400, "BAD_REQUEST",
	             "Insufficient permission");
	EXPECT_ERROR(api_post(admin, "/users/999999999/reactivate", NULL), 400, "BAD_REQUEST", "No such user");
	EXPECT_SUCCESS(api_post(admin, fmt("/users/%lld/reactivate", (long long)u->id), NULL));
	EXPECT_BOOL(jget(api_get(admin, fmt("/users/%lld", (long long)u->id))->json, "user"), "is_active", true);
	long long id = (long long)u->id;
	EXPECT_EVENTS(q, fmt("[{\"type\":\"realm_user\",\"op\":\"update\",\"person\":{\"user_id\":%lld,\"is_active\":true}},"
	                     "{\"type\":\"subscription\",\"op\":\"peer_add\",\"stream_ids\":[%lld],\"user_ids\":[%lld]},"
	                     "{\"type\":\"user_group\",\"op\":\"add_members\",\"group_id\":%lld,\"user_ids\":[%lld]},"
	                     "{\"type\":\"user_group\",\"op\":\"add_members\",\"group_id\":%lld,\"user_ids\":[%lld]}]",
	                     id, (long long)channel, id, (long long)system_group(u, "role:members"), id,
	                     (long long)system_group(u, "role:fullmembers"), id));
}

/* Guests who may not see other users learn only that the account left its groups (send_events_for_user_deactivation). */
static void test_deactivate_restricted(void)
{
	struct user *owner = new_realm();
	struct user *u = new_user_in(owner->realm, "member", NULL), *guest = new_user_in(owner->realm, "guest", NULL);
	psql_ok("UPDATE realms SET can_access_all_users_group_id = confab_system_group(id, 'role:members')"
	        " WHERE id = (SELECT realm_id FROM users WHERE id = %lld)",
	        (long long)owner->id);
	struct queue *gq = reg(guest, "[\"realm_user\",\"user_group\"]");
	struct queue *oq = reg(owner, "[\"realm_user\",\"user_group\"]");
	EXPECT_SUCCESS(deactivate(owner, u->id));
	long long id = (long long)u->id;
	EXPECT_EVENTS(oq, fmt("[{\"type\":\"realm_user\",\"op\":\"update\",\"person\":{\"user_id\":%lld,"
	                      "\"is_active\":false}}]",
	                      id));
	EXPECT_EVENTS(gq, fmt("[{\"type\":\"user_group\",\"op\":\"remove_members\",\"group_id\":%lld,\"user_ids\":[%lld]},"
	                      "{\"type\":\"user_group\",\"op\":\"remove_members\",\"group_id\":%lld,\"user_ids\":[%lld]}]",
	                      (long long)system_group(u, "role:members"), id, (long long)system_group(u, "role:fullmembers"),
	                      id));
}

/* ---- DELETE /users/me ---------------------------------------------------------------------------------------- */

static void test_deactivate_own(void)
{
	struct user *owner = new_realm();
	struct resp *r = api_method("DELETE", owner, "/users/me");
	EXPECT_ERROR(r, 400, "CANNOT_DEACTIVATE_LAST_USER", "Cannot deactivate the only user.");
	EXPECT_STR(r->json, "entity", "user");
	EXPECT_BOOL(r->json, "is_last_owner", false);
	struct user *member = new_user_in(owner->realm, "member", NULL);
	r = api_method("DELETE", owner, "/users/me");
	EXPECT_ERROR(r, 400, "CANNOT_DEACTIVATE_LAST_USER", "Cannot deactivate the only organization owner.");
	EXPECT_STR(r->json, "entity", "organization owner");
	EXPECT_BOOL(r->json, "is_last_owner", true);
	struct queue *q = reg(owner, "[\"realm_user\"]");
	EXPECT_SUCCESS(api_method("DELETE", member, "/users/me"));
	EXPECT_STATUS(api_get(member, "/users/me"), 401);
	EXPECT_EVENTS(q, fmt("[{\"type\":\"realm_user\",\"op\":\"update\",\"person\":{\"user_id\":%lld,"
	                     "\"is_active\":false}}]",
	                     (long long)member->id));
}

void register_user_admin_tests(void)
{
	static const struct itest_case cases[] = {
	    {"update_full_name", test_update_full_name},
	    {"update_access", test_update_access},
	    {"update_role", test_update_role},
	    {"update_role_last_owner", test_update_role_last_owner},
	    {"update_role_channels", test_update_role_channels},
	    {"update_profile_data", test_update_profile_data},
	    {"update_by_email", test_update_by_email},
	    {"update_new_email", test_update_new_email},
	    {"deactivate_errors", test_deactivate_errors},
	    {"deactivate_key_queue_bots", test_deactivate_key_queue_bots},
	    {"deactivate_restricted", test_deactivate_restricted},
	    {"reactivate", test_reactivate},
	    {"deactivate_own", test_deactivate_own},
	    {NULL, NULL},
	};
	itest_add_suite("user_admin", cases);
}
