/*
 * User group membership: the Notification Bot's direct messages to users added to or removed from a group by
 * someone else, one transaction per request, changes to deactivated groups (allowed since FL 391) and deactivated
 * subgroups (refused), bots as callers (FL 496), and the reading routes GET /user_groups/{id}/members,
 * GET /user_groups/{id}/members/{user_id} and GET /user_groups/{id}/subgroups.
 * Reference: zulip-digest.md section g; Zulip zerver/views/user_groups.py (notify_for_user_group_subscription_changes,
 * get_user_group_members, get_is_user_group_member, get_subgroups_of_user_group), zerver/lib/user_groups.py
 * (access_user_group_to_read_membership, lock_subgroups_with_respect_to_supergroup), zerver/lib/users.py
 * (access_user_common), api changelog FL 391.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "itest.h"

/* A fresh organization (so that its Notification Bot's messages are ours alone): owner o, members a, b, c, a guest
 * g and a generic bot. */
struct org {
	struct user *o, *a, *b, *c, *g, *bot;
};

static struct org new_org(void)
{
	struct org z;
	struct user *first = new_realm();
	z.o = new_user_in(first->realm, "owner", NULL);
	z.a = new_user_in(first->realm, "member", NULL);
	z.b = new_user_in(first->realm, "member", NULL);
	z.c = new_user_in(first->realm, "member", NULL);
	z.g = new_user_in(first->realm, "guest", NULL);
	z.bot = new_user_in(first->realm, "member", (const char *const[]){"--bot", NULL});
	return z;
}

static int seq;

static char *gname(const char *tag)
{
	return fmt("%s %d", tag, ++seq);
}

static const char *text(json_object *o)
{
	return json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE);
}

static int64_t create_group(const struct user *u, const char *name, const char *members)
{
	struct resp *r = api_post(u, "/user_groups/create",
	                          fmt("name=%s&description=d&members=%s", url_encode(name), url_encode(members)));
	EXPECT_SUCCESS(r);
	REQUIRE(jint(r->json, "group_id") > 0, "group_id: %s", r->body);
	return jint(r->json, "group_id");
}

static struct resp *members(const struct user *u, int64_t id, const char *form)
{
	return api_post(u, fmt("/user_groups/%lld/members", (long long)id), form);
}

static struct resp *subgroups(const struct user *u, int64_t id, const char *form)
{
	return api_post(u, fmt("/user_groups/%lld/subgroups", (long long)id), form);
}

static char *ids1(const struct user *u)
{
	return url_encode(fmt("[%lld]", (long long)u->id));
}

#define BAD(r, msg) EXPECT_ERROR((r), 400, "BAD_REQUEST", (msg))

/* The organization of u (struct user leaves realm_id unset). */
static long long realm_of(const struct user *u)
{
	return atoll(psql_ok("SELECT realm_id FROM users WHERE id = %lld", (long long)u->id));
}

static const char *full_name(const struct user *u)
{
	return psql_ok("SELECT full_name FROM users WHERE id = %lld", (long long)u->id);
}

/* The raw contents of the Notification Bot's messages received by u, oldest first, one per line ("" if none). */
static const char *notices(const struct user *u)
{
	return psql_ok("SELECT COALESCE(string_agg(m.content, E'\\n' ORDER BY m.id), '') FROM messages m"
	               " JOIN user_messages um ON um.message_id = m.id AND um.user_id = %lld"
	               " WHERE m.sender_id = confab_notification_bot(%lld)",
	               (long long)u->id, realm_of(u));
}

static bool is_member(int64_t group, const struct user *u)
{
	return atoi(psql_ok("SELECT count(*) FROM user_group_members WHERE group_id = %lld AND user_id = %lld",
	                    (long long)group, (long long)u->id)) == 1;
}

static struct queue *reg(const struct user *u, const char *types)
{
	return queue_register(u, fmt("event_types=%s&apply_markdown=true&client_gravatar=false", url_encode(types)));
}

/* ---- Notification Bot ----------------------------------------------------------------------------------------- */

/* Added by someone else: the user_group event, then the Notification Bot's direct message, with silent mentions of
 * the actor and of the group; the actor and bots get none. */
static void test_notify_added(void)
{
	struct org z = new_org();
	char *name = gname("Support");
	int64_t id = create_group(z.a, name, "[]");
	struct queue *qb = reg(z.b, "[\"message\",\"user_group\"]");
	EXPECT_SUCCESS(members(z.a, id,
	                       fmt("add=%s", url_encode(fmt("[%lld,%lld,%lld]", (long long)z.b->id, (long long)z.bot->id,
	                                                    (long long)z.a->id)))));
	const char *want = fmt("@_**%s|%lld** added you to the group @_*%s*.", full_name(z.a), (long long)z.a->id, name);
	CHECK(strcmp(notices(z.b), want) == 0, "notice: \"%s\", want \"%s\"", notices(z.b), want);
	CHECK(strcmp(notices(z.a), "") == 0, "the actor was told: %s", notices(z.a));
	CHECK(strcmp(notices(z.bot), "") == 0, "a bot was told: %s", notices(z.bot));
	json_object *ev = queue_drain(qb);
	REQUIRE(json_object_array_length(ev) == 2, "expected add_members and the message: %s", text(ev));
	EXPECT_STR(json_object_array_get_idx(ev, 0), "op", "add_members");
	json_object *msg = jget(json_object_array_get_idx(ev, 1), "message");
	EXPECT_STR(msg, "sender_email", "notification-bot@zulip.com");
	EXPECT_STR(msg, "sender_full_name", "Notification Bot");
	EXPECT_STR(msg, "type", "private");
	EXPECT_STR(msg, "client", "Internal");
	EXPECT_STR(msg, "content",
	           fmt("<p><span class=\"user-mention silent\" data-user-id=\"%lld\">%s</span> added you to the group "
	               "<span class=\"user-group-mention silent\" data-user-group-id=\"%lld\">%s</span>.</p>",
	               (long long)z.a->id, full_name(z.a), (long long)id, name));
	json_object *flags = jget(json_object_array_get_idx(ev, 1), "flags");
	CHECK(flags != NULL && json_object_array_length(flags) == 0, "the notice should be unread: %s", text(flags));
}

/* Removed by someone else: "... removed you from the group ..."; the actor leaving at once is not told. */
static void test_notify_removed(void)
{
	struct org z = new_org();
	char *name = gname("Ops");
	int64_t id = create_group(z.a, name, fmt("[%lld,%lld,%lld]", (long long)z.a->id, (long long)z.b->id,
	                                         (long long)z.bot->id));
	EXPECT_SUCCESS(members(z.a, id,
	                       fmt("delete=%s", url_encode(fmt("[%lld,%lld,%lld]", (long long)z.bot->id,
	                                                       (long long)z.b->id, (long long)z.a->id)))));
	const char *want =
	    fmt("@_**%s|%lld** removed you from the group @_*%s*.", full_name(z.a), (long long)z.a->id, name);
	CHECK(strcmp(notices(z.b), want) == 0, "notice: \"%s\", want \"%s\"", notices(z.b), want);
	CHECK(strcmp(notices(z.a), "") == 0, "the actor was told: %s", notices(z.a));
	CHECK(strcmp(notices(z.bot), "") == 0, "a bot was told: %s", notices(z.bot));
	/* Creating a group with members tells nobody. */
	create_group(z.a, gname("Quiet"), fmt("[%lld]", (long long)z.c->id));
	CHECK(strcmp(notices(z.c), "") == 0, "creation told a member: %s", notices(z.c));
}

/* Joining and leaving by oneself: no message. The owner acting through can_manage_all_groups: one each. */
static void test_notify_self_and_admin(void)
{
	struct org z = new_org();
	int64_t everyone = atoll(psql_ok("SELECT confab_system_group(%lld, 'role:members')", realm_of(z.a)));
	int64_t id = create_group(z.a, gname("Open"), "[]");
	EXPECT_SUCCESS(http(&(struct request){.method = "PATCH",
	                                      .path = fmt("/api/v1/user_groups/%lld", (long long)id),
	                                      .user = z.a,
	                                      .form = fmt("can_join_group=%s",
	                                                  url_encode(fmt("{\"new\":%lld}", (long long)everyone)))}));
	EXPECT_SUCCESS(members(z.b, id, fmt("add=%s", ids1(z.b))));
	EXPECT_SUCCESS(members(z.b, id, fmt("delete=%s", ids1(z.b))));
	CHECK(strcmp(notices(z.b), "") == 0, "joining or leaving told the user: %s", notices(z.b));
	EXPECT_SUCCESS(members(z.o, id, fmt("add=%s", ids1(z.b))));
	EXPECT_SUCCESS(members(z.o, id, fmt("delete=%s", ids1(z.b))));
	const char *o = fmt("@_**%s|%lld**", full_name(z.o), (long long)z.o->id);
	char *want = fmt("%s added you to the group @_*%s*.\n%s removed you from the group @_*%s*.", o,
	                 psql_ok("SELECT name FROM user_groups WHERE id = %lld", (long long)id), o,
	                 psql_ok("SELECT name FROM user_groups WHERE id = %lld", (long long)id));
	CHECK(strcmp(notices(z.b), want) == 0, "notices: \"%s\", want \"%s\"", notices(z.b), want);
}

/* ---- one transaction ------------------------------------------------------------------------------------------ */

/* A request that fails changes nothing: no member, no event, no message. */
static void test_one_transaction(void)
{
	struct org z = new_org();
	int64_t id = create_group(z.a, gname("Atomic"), "[]");
	int64_t sub = create_group(z.a, gname("AtomicSub"), "[]");
	struct queue *qb = reg(z.b, "[\"message\",\"user_group\"]");
	BAD(members(z.a, id, fmt("add=%s", url_encode(fmt("[%lld,999999999]", (long long)z.b->id)))),
	    "Invalid user ID: 999999999");
	BAD(members(z.a, id, fmt("add=%s&delete=%s", ids1(z.b), ids1(z.c))),
	    fmt("There is no member '%lld' in this user group", (long long)z.c->id));
	BAD(members(z.a, id, fmt("add=%s&add_subgroups=[999999999]", ids1(z.b))), "Invalid user group ID: 999999999");
	BAD(members(z.a, id, fmt("add_subgroups=[%lld]&delete_subgroups=[%lld]", (long long)sub, (long long)id)),
	    fmt("User group %lld is not a subgroup of this group.", (long long)id));
	CHECK(!is_member(id, z.b), "a failed request added a member");
	CHECK(strcmp(psql_ok("SELECT count(*) FROM user_group_subgroups WHERE group_id = %lld", (long long)id), "0") == 0,
	      "a failed request added a subgroup");
	CHECK(strcmp(notices(z.b), "") == 0, "a failed request sent a notice: %s", notices(z.b));
	EXPECT_NO_EVENTS(qb);
}

/* The reference's order of checks: adding checks the group and the permission before the users, removing the users
 * first; subgroup changes check the group and the permission before the subgroups. */
static void test_check_order(void)
{
	struct org z = new_org();
	int64_t id = create_group(z.a, gname("Order"), "[]");
	BAD(members(z.a, 999999999, "add=[999999999]"), "Invalid user group");
	BAD(members(z.a, 999999999, "delete=[999999999]"), "Invalid user ID: 999999999");
	BAD(members(z.b, id, "add=[999999999]"), "Insufficient permission");
	BAD(members(z.b, id, "delete=[999999999]"), "Invalid user ID: 999999999");
	BAD(members(z.b, id, fmt("delete=%s", ids1(z.c))), "Insufficient permission");
	BAD(subgroups(z.a, 999999999, "add=[999999999]"), "Invalid user group");
	BAD(subgroups(z.a, 999999999, "delete=[999999999]"), "Invalid user group");
	BAD(subgroups(z.b, id, "add=[999999999]"), "Insufficient permission");
	BAD(subgroups(z.b, id, "delete=[999999999]"), "Insufficient permission");
	/* add runs before delete, add_subgroups before delete_subgroups: the first failure is reported. */
	BAD(members(z.a, id, fmt("delete=%s&add=[999999999]", ids1(z.c))), "Invalid user ID: 999999999");
	BAD(members(z.a, id, "delete_subgroups=[999999998]&add_subgroups=[999999999]"),
	    "Invalid user group ID: 999999999");
	/* Deactivated users are no users here, whichever the list. */
	deactivate_user(z.c);
	BAD(members(z.a, id, fmt("add=%s", ids1(z.c))), fmt("Invalid user ID: %lld", (long long)z.c->id));
	BAD(members(z.a, id, fmt("delete=%s", ids1(z.c))), fmt("Invalid user ID: %lld", (long long)z.c->id));
}

/* ---- deactivated groups --------------------------------------------------------------------------------------- */

/* Since FL 391 the members and subgroups of a deactivated group can be changed (with events and notices); a
 * deactivated group can never be added or removed as a subgroup, after the unknown ids are reported. */
static void test_deactivated_groups(void)
{
	struct org z = new_org();
	char *name = gname("Retired");
	int64_t id = create_group(z.a, name, "[]");
	int64_t sub = create_group(z.a, gname("Sub"), "[]"), old = create_group(z.a, gname("Old"), "[]");
	EXPECT_SUCCESS(api_post(z.a, fmt("/user_groups/%lld/deactivate", (long long)id), ""));
	struct queue *qb = reg(z.b, "[\"user_group\"]");
	EXPECT_SUCCESS(members(z.a, id, fmt("add=%s", ids1(z.b))));
	EXPECT_SUCCESS(subgroups(z.a, id, fmt("add=[%lld]", (long long)sub)));
	EXPECT_SUCCESS(members(z.a, id, fmt("delete=%s&delete_subgroups=[%lld]", ids1(z.b), (long long)sub)));
	EXPECT_EVENTS(qb, fmt("[{\"type\":\"user_group\",\"op\":\"add_members\",\"group_id\":%lld,\"user_ids\":[%lld]},"
	                      "{\"type\":\"user_group\",\"op\":\"add_subgroups\",\"group_id\":%lld,"
	                      "\"direct_subgroup_ids\":[%lld]},"
	                      "{\"type\":\"user_group\",\"op\":\"remove_members\",\"group_id\":%lld,\"user_ids\":[%lld]},"
	                      "{\"type\":\"user_group\",\"op\":\"remove_subgroups\",\"group_id\":%lld,"
	                      "\"direct_subgroup_ids\":[%lld]}]",
	                      (long long)id, (long long)z.b->id, (long long)id, (long long)sub, (long long)id,
	                      (long long)z.b->id, (long long)id, (long long)sub));
	const char *a = fmt("@_**%s|%lld**", full_name(z.a), (long long)z.a->id);
	char *want = fmt("%s added you to the group @_*%s*.\n%s removed you from the group @_*%s*.", a, name, a, name);
	CHECK(strcmp(notices(z.b), want) == 0, "notices: \"%s\", want \"%s\"", notices(z.b), want);
	/* A deactivated subgroup. */
	EXPECT_SUCCESS(subgroups(z.a, sub, fmt("add=[%lld]", (long long)old)));
	EXPECT_SUCCESS(subgroups(z.a, sub, fmt("delete=[%lld]", (long long)old)));
	EXPECT_SUCCESS(api_post(z.a, fmt("/user_groups/%lld/deactivate", (long long)old), ""));
	queue_drain(qb);
	BAD(subgroups(z.a, sub, fmt("add=[%lld]", (long long)old)), "User group is deactivated.");
	BAD(members(z.a, sub, fmt("add_subgroups=[%lld]", (long long)old)), "User group is deactivated.");
	BAD(subgroups(z.a, sub, fmt("add=[%lld,999999999]", (long long)old)), "Invalid user group ID: 999999999");
	BAD(subgroups(z.a, id, fmt("add=[%lld]", (long long)old)), "User group is deactivated.");
	/* A subgroup of a deactivated group may be deactivated too; it cannot be removed then. */
	int64_t inner = create_group(z.a, gname("Inner"), "[]");
	EXPECT_SUCCESS(subgroups(z.a, id, fmt("add=[%lld]", (long long)inner)));
	EXPECT_SUCCESS(api_post(z.a, fmt("/user_groups/%lld/deactivate", (long long)inner), ""));
	queue_drain(qb);
	BAD(subgroups(z.a, id, fmt("delete=[%lld]", (long long)inner)), "User group is deactivated.");
	BAD(members(z.a, id, fmt("delete_subgroups=[%lld]", (long long)inner)), "User group is deactivated.");
	CHECK(strcmp(psql_ok("SELECT count(*) FROM user_group_subgroups WHERE group_id = %lld AND subgroup_id = %lld",
	                     (long long)id, (long long)inner),
	             "1") == 0,
	      "the deactivated subgroup was removed");
	EXPECT_NO_EVENTS(qb);
}

/* ---- who may call ---------------------------------------------------------------------------------------------- */

/* Bots may use the group endpoints (FL 496); guests may not. */
static void test_bots_and_guests(void)
{
	struct org z = new_org();
	int64_t id = create_group(z.bot, gname("Bots"), "[]");
	EXPECT_SUCCESS(members(z.bot, id, fmt("add=%s", ids1(z.a))));
	const char *want = fmt("@_**%s|%lld** added you to the group @_*%s*.", full_name(z.bot), (long long)z.bot->id,
	                       psql_ok("SELECT name FROM user_groups WHERE id = %lld", (long long)id));
	CHECK(strcmp(notices(z.a), want) == 0, "notice: \"%s\", want \"%s\"", notices(z.a), want);
	int64_t sub = create_group(z.bot, gname("BotSub"), "[]");
	EXPECT_SUCCESS(subgroups(z.bot, id, fmt("add=[%lld]", (long long)sub)));
	EXPECT_SUCCESS(api_get(z.bot, fmt("/user_groups/%lld/members", (long long)id)));
	EXPECT_SUCCESS(api_get(z.bot, fmt("/user_groups/%lld/members/%lld", (long long)id, (long long)z.a->id)));
	EXPECT_SUCCESS(api_get(z.bot, fmt("/user_groups/%lld/subgroups", (long long)id)));
	/* Deactivation is not refused to guests as such (no require_member_or_admin), they never manage a group. */
	BAD(api_post(z.g, fmt("/user_groups/%lld/deactivate", (long long)sub), ""), "Insufficient permission");
	const char *guest = "Not allowed for guest users";
	BAD(members(z.g, id, fmt("add=%s", ids1(z.g))), guest);
	BAD(subgroups(z.g, id, fmt("add=[%lld]", (long long)sub)), guest);
	BAD(api_get(z.g, fmt("/user_groups/%lld/members", (long long)id)), guest);
	BAD(api_get(z.g, fmt("/user_groups/%lld/members/%lld", (long long)id, (long long)z.a->id)), guest);
	BAD(api_get(z.g, fmt("/user_groups/%lld/subgroups", (long long)id)), guest);
}

/* ---- reading ---------------------------------------------------------------------------------------------------- */

/* top has a and subgroup mid; mid has b and subgroup low; low has c (deactivated later) and the bot. */
struct tree {
	int64_t top, mid, low;
};

static struct tree new_tree(const struct org *z)
{
	struct tree t;
	t.low = create_group(z->o, gname("Low"), fmt("[%lld,%lld]", (long long)z->c->id, (long long)z->bot->id));
	t.mid = create_group(z->o, gname("Mid"), fmt("[%lld]", (long long)z->b->id));
	t.top = create_group(z->o, gname("Top"), fmt("[%lld]", (long long)z->a->id));
	EXPECT_SUCCESS(subgroups(z->o, t.mid, fmt("add=[%lld]", (long long)t.low)));
	EXPECT_SUCCESS(subgroups(z->o, t.top, fmt("add=[%lld]", (long long)t.mid)));
	return t;
}

static void expect_list(const struct user *u, const char *path, const char *key, const char *want)
{
	struct resp *r = api_get(u, path);
	EXPECT_SUCCESS(r);
	EXPECT_KEYS(r->json, "result", "msg", key);
	CHECK(strcmp(text(jget(r->json, key)), want) == 0, "GET %s: %s is %s, want %s", path, key,
	      text(jget(r->json, key)), want);
}

static void test_get_members(void)
{
	struct org z = new_org();
	struct tree t = new_tree(&z);
	const char *all = fmt("/user_groups/%lld/members", (long long)t.top);
	long long a = z.a->id, b = z.b->id, c = z.c->id, bot = z.bot->id;
	long long lo = a < b ? a : b, hi = a < b ? b : a;
	char *sorted = fmt("[%lld,%lld,%lld,%lld]", lo, hi, c, bot);
	expect_list(z.a, all, "members", sorted);
	expect_list(z.a, fmt("%s?direct_member_only=true", all), "members", fmt("[%lld]", a));
	expect_list(z.a, fmt("/user_groups/%lld/members?direct_member_only=false", (long long)t.mid), "members",
	            fmt("[%lld,%lld,%lld]", b, c, bot));
	deactivate_user(z.c);
	expect_list(z.a, all, "members", fmt("[%lld,%lld,%lld]", lo, hi, bot));
	expect_list(z.a, fmt("/user_groups/%lld/members", (long long)t.low), "members", fmt("[%lld]", bot));
	/* System groups are readable; their members follow roles. */
	int64_t owners = atoll(psql_ok("SELECT confab_system_group(%lld, 'role:owners')", realm_of(z.o)));
	CHECK(strstr(text(jget(api_get(z.a, fmt("/user_groups/%lld/members", (long long)owners))->json, "members")),
	             fmt("%lld", (long long)z.o->id)) != NULL,
	      "role:owners lacks the owner");
	BAD(api_get(z.a, "/user_groups/999999999/members"), "Invalid user group");
	BAD(api_get(z.a, fmt("%s?direct_member_only=1", all)), "direct_member_only is not a boolean");
	EXPECT_SUCCESS(api_post(z.o, fmt("/user_groups/%lld/subgroups", (long long)t.mid),
	                        fmt("delete=[%lld]", (long long)t.low)));
	EXPECT_SUCCESS(api_post(z.o, fmt("/user_groups/%lld/deactivate", (long long)t.low), ""));
	BAD(api_get(z.a, fmt("/user_groups/%lld/members", (long long)t.low)), "User group is deactivated.");
}

static void expect_membership(const struct user *u, int64_t group, const struct user *who, const char *query,
                              bool want)
{
	struct resp *r = api_get(u, fmt("/user_groups/%lld/members/%lld%s", (long long)group, (long long)who->id, query));
	EXPECT_SUCCESS(r);
	EXPECT_KEYS(r->json, "result", "msg", "is_user_group_member");
	EXPECT_BOOL(r->json, "is_user_group_member", want);
}

static void test_get_membership(void)
{
	struct org z = new_org();
	struct tree t = new_tree(&z);
	expect_membership(z.o, t.top, z.a, "", true);
	expect_membership(z.o, t.top, z.b, "", true);
	expect_membership(z.o, t.top, z.b, "?direct_member_only=true", false);
	expect_membership(z.o, t.mid, z.b, "?direct_member_only=true", true);
	expect_membership(z.o, t.mid, z.a, "", false);
	expect_membership(z.o, t.top, z.o, "", false);
	/* access_user_by_id: bots are users here (FL 458), unknown ids, other organizations' users and the system bots
	 * are not; deactivated users are refused. */
	expect_membership(z.o, t.top, z.bot, "", true);
	expect_membership(z.o, t.top, z.bot, "?direct_member_only=true", false);
	expect_membership(z.o, t.low, z.bot, "?direct_member_only=true", true);
	int64_t notification_bot = atoll(psql_ok("SELECT confab_notification_bot(%lld)", realm_of(z.o)));
	BAD(api_get(z.o, fmt("/user_groups/%lld/members/%lld", (long long)t.low, (long long)notification_bot)),
	    "No such user");
	BAD(api_get(z.o, fmt("/user_groups/%lld/members/999999999", (long long)t.top)), "No such user");
	BAD(api_get(z.o, fmt("/user_groups/%lld/members/%lld", (long long)t.top, (long long)itest_owner.id)),
	    "No such user");
	BAD(api_get(z.o, fmt("/user_groups/999999999/members/%lld", (long long)z.a->id)), "Invalid user group");
	deactivate_user(z.c);
	BAD(api_get(z.o, fmt("/user_groups/%lld/members/%lld", (long long)t.low, (long long)z.c->id)),
	    "User is deactivated");
}

static void test_get_subgroups(void)
{
	struct org z = new_org();
	struct tree t = new_tree(&z);
	const char *path = fmt("/user_groups/%lld/subgroups", (long long)t.top);
	expect_list(z.a, path, "subgroups", fmt("[%lld,%lld]", (long long)t.low, (long long)t.mid));
	expect_list(z.a, fmt("%s?direct_subgroup_only=true", path), "subgroups", fmt("[%lld]", (long long)t.mid));
	expect_list(z.a, fmt("/user_groups/%lld/subgroups", (long long)t.low), "subgroups", "[]");
	BAD(api_get(z.a, "/user_groups/999999999/subgroups"), "Invalid user group");
	EXPECT_SUCCESS(api_post(z.o, fmt("/user_groups/%lld/subgroups", (long long)t.mid),
	                        fmt("delete=[%lld]", (long long)t.low)));
	EXPECT_SUCCESS(api_post(z.o, fmt("/user_groups/%lld/deactivate", (long long)t.low), ""));
	BAD(api_get(z.a, fmt("/user_groups/%lld/subgroups", (long long)t.low)), "User group is deactivated.");
	expect_list(z.a, path, "subgroups", fmt("[%lld]", (long long)t.mid));
}

void register_user_group_members_tests(void)
{
	static const struct itest_case cases[] = {
	    {"notify_added", test_notify_added},
	    {"notify_removed", test_notify_removed},
	    {"notify_self_and_admin", test_notify_self_and_admin},
	    {"one_transaction", test_one_transaction},
	    {"check_order", test_check_order},
	    {"deactivated_groups", test_deactivated_groups},
	    {"bots_and_guests", test_bots_and_guests},
	    {"get_members", test_get_members},
	    {"get_membership", test_get_membership},
	    {"get_subgroups", test_get_subgroups},
	    {NULL, NULL},
	};
	itest_add_suite("user_group_members", cases);
}
