/*
 * User groups: POST /user_groups/create, GET /user_groups, PATCH /user_groups/{id}, POST .../deactivate,
 * POST .../members and POST .../subgroups, with the permission settings of groups and of the organization.
 * Reference: zulip-digest.md section g; Zulip zerver/views/user_groups.py, zerver/lib/user_groups.py
 * (access_user_group_for_update, access_user_group_for_deactivation, check_user_group_name,
 * lock_subgroups_with_respect_to_supergroup), zerver/models/groups.py (GROUP_PERMISSION_SETTINGS defaults).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "itest.h"

static int seq;

/* A group name unique in this run. */
static char *gname(const char *tag)
{
	return fmt("%s %d", tag, ++seq);
}

/* "&key=<value url-encoded>" */
static char *kv(const char *key, const char *value)
{
	return fmt("&%s=%s", key, url_encode(value));
}

static struct resp *create(const struct user *u, const char *name, const char *members, const char *extra)
{
	return api_post(u, "/user_groups/create",
	                fmt("name=%s&description=%s&members=%s%s", url_encode(name), url_encode("A group"),
	                    url_encode(members), extra ? extra : ""));
}

static int64_t create_ok(const struct user *u, const char *name, const char *members, const char *extra)
{
	struct resp *r = create(u, name, members, extra);
	EXPECT_SUCCESS(r);
	int64_t id = jint(r->json, "group_id");
	REQUIRE(id > 0, "create %s: no group_id: %s", name, r->body);
	return id;
}

static struct resp *patch(const struct user *u, int64_t id, const char *form)
{
	return http(&(struct request){
	    .method = "PATCH", .path = fmt("/api/v1/user_groups/%lld", (long long)id), .user = u, .form = form});
}

static struct resp *members(const struct user *u, int64_t id, const char *form)
{
	return api_post(u, fmt("/user_groups/%lld/members", (long long)id), form);
}

static struct resp *subgroups(const struct user *u, int64_t id, const char *form)
{
	return api_post(u, fmt("/user_groups/%lld/subgroups", (long long)id), form);
}

static struct resp *deactivate(const struct user *u, int64_t id)
{
	return api_post(u, fmt("/user_groups/%lld/deactivate", (long long)id), "");
}

/* The id of u's organization (struct user leaves realm_id unset). */
static int64_t realm_of(const struct user *u)
{
	return atoll(psql_ok("SELECT id FROM realms WHERE subdomain = '%s'", u->realm));
}

static int64_t sysgroup(int64_t realm_id, const char *name)
{
	return atoll(psql_ok("SELECT id FROM user_groups WHERE realm_id = %lld AND name = '%s' AND is_system_group",
	                     (long long)realm_id, name));
}

/* The group id as GET /user_groups shows it to viewer, or NULL. */
static json_object *listed(const struct user *viewer, int64_t id, bool include_deactivated)
{
	struct resp *r =
	    api_get(viewer, include_deactivated ? "/user_groups?include_deactivated_groups=true" : "/user_groups");
	EXPECT_SUCCESS(r);
	json_object *list = jget(r->json, "user_groups");
	for (size_t i = 0; list != NULL && i < json_object_array_length(list); i++)
		if (jint(json_object_array_get_idx(list, i), "id") == id)
			return json_object_array_get_idx(list, i);
	return NULL;
}

static json_object *listed_ok(const struct user *viewer, int64_t id)
{
	json_object *g = listed(viewer, id, true);
	REQUIRE(g != NULL, "group %lld missing from GET /user_groups", (long long)id);
	return g;
}

/* o[key] equals the JSON text want (objects compared regardless of key order). */
static void expect_json(json_object *o, const char *key, const char *want, const char *file, int line)
{
	json_object *w = json_tokener_parse(want);
	json_object *v = NULL;
	bool ok = w != NULL && json_object_object_get_ex(o, key, &v) && json_object_equal(v, w);
	json_object_put(w);
	itest_check(ok, false, file, line, "\"%s\" should be %s: %s", key, want, jtext(o));
}
#define EXPECT_JSON(o, key, want) expect_json((o), (key), (want), __FILE__, __LINE__)

static char *group_count(int64_t realm_id)
{
	return psql_ok("SELECT count(*) FROM user_groups WHERE realm_id = %lld", (long long)realm_id);
}

#define BAD(r, msg) EXPECT_ERROR((r), 400, "BAD_REQUEST", (msg))

static void expect_text(const char *got, const char *want, const char *file, int line)
{
	itest_check(got != NULL && strcmp(got, want) == 0, false, file, line, "got \"%s\", want \"%s\"",
	            got ? got : "(null)", want);
}
#define EXPECT_TEXT(got, want) expect_text((got), (want), __FILE__, __LINE__)

static char *cycle(int64_t id)
{
	return fmt("User group %lld is already a subgroup of one of the passed subgroups.", (long long)id);
}

/* ---- POST /user_groups/create ------------------------------------------------------------------------------- */

static void test_create_success_and_defaults(void)
{
	struct user *u = new_user("member"), *v = new_user("member");
	char *name = gname("Support");
	struct resp *r = create(u, name, fmt("[%lld,%lld]", (long long)v->id, (long long)u->id), NULL);
	EXPECT_SUCCESS(r);
	EXPECT_KEYS(r->json, "result", "msg", "group_id");
	int64_t id = jint(r->json, "group_id");
	json_object *g = listed_ok(u, id);
	EXPECT_KEYS(g, "id", "name", "description", "members", "direct_subgroup_ids", "is_system_group", "date_created",
	            "creator_id", "deactivated", "can_add_members_group", "can_join_group", "can_leave_group",
	            "can_manage_group", "can_mention_group", "can_remove_members_group");
	EXPECT_STR(g, "name", name);
	EXPECT_STR(g, "description", "A group");
	int64_t lo = u->id < v->id ? u->id : v->id, hi = u->id < v->id ? v->id : u->id;
	EXPECT_JSON(g, "members", fmt("[%lld,%lld]", (long long)lo, (long long)hi));
	EXPECT_JSON(g, "direct_subgroup_ids", "[]");
	EXPECT_BOOL(g, "is_system_group", false);
	EXPECT_BOOL(g, "deactivated", false);
	EXPECT_INT(g, "creator_id", u->id);
	int64_t created = jint(g, "date_created");
	CHECK(created > time(NULL) - 600 && created < time(NULL) + 600, "date_created should be now: %s", jtext(g));
	/* Defaults: the creator manages and adds members; everyone may leave and mention; nobody joins or removes. */
	char *creator = fmt("{\"direct_members\":[%lld],\"direct_subgroups\":[]}", (long long)u->id);
	EXPECT_JSON(g, "can_add_members_group", creator);
	EXPECT_JSON(g, "can_manage_group", creator);
	EXPECT_INT(g, "can_join_group", sysgroup(realm_of(u), "role:nobody"));
	EXPECT_INT(g, "can_remove_members_group", sysgroup(realm_of(u), "role:nobody"));
	EXPECT_INT(g, "can_leave_group", sysgroup(realm_of(u), "role:everyone"));
	EXPECT_INT(g, "can_mention_group", sysgroup(realm_of(u), "role:everyone"));
}

static void test_create_settings_and_subgroups(void)
{
	struct user *u = new_user("member"), *v = new_user("member");
	int64_t mods = sysgroup(realm_of(u), "role:moderators"), nobody = sysgroup(realm_of(u), "role:nobody");
	int64_t sub = create_ok(u, gname("Sub"), "[]", NULL);
	char *anon = fmt("{\"direct_members\":[%lld],\"direct_subgroups\":[%lld,%lld]}", (long long)v->id,
	                 (long long)mods, (long long)sub);
	char *extra =
	    fmt("%s%s%s%s%s%s", kv("can_manage_group", fmt("%lld", (long long)sub)), kv("can_mention_group", anon),
	        kv("can_join_group", fmt("{\"direct_members\":[],\"direct_subgroups\":[%lld]}", (long long)mods)),
	        kv("can_leave_group", "{\"direct_members\":[],\"direct_subgroups\":[]}"),
	        kv("subgroups", fmt("[%lld,%lld]", (long long)mods, (long long)sub)),
	        kv("can_remove_members_group", "null"));
	int64_t id = create_ok(u, gname("Settings"), "[]", extra);
	json_object *g = listed_ok(u, id);
	EXPECT_INT(g, "can_manage_group", sub);
	EXPECT_JSON(g, "can_mention_group", anon);
	/* An object of one subgroup is that group; an empty one is role:nobody. */
	EXPECT_INT(g, "can_join_group", mods);
	EXPECT_INT(g, "can_leave_group", nobody);
	EXPECT_INT(g, "can_remove_members_group", nobody);
	EXPECT_JSON(g, "direct_subgroup_ids",
	            fmt("[%lld,%lld]", (long long)(mods < sub ? mods : sub), (long long)(mods < sub ? sub : mods)));
	EXPECT_JSON(g, "members", "[]");
}

static void test_create_name_errors(void)
{
	struct user *u = new_user("member");
	char *before = group_count(realm_of(u));
	BAD(create(u, "", "[]", NULL), "User group name can't be empty!");
	BAD(create(u, "   ", "[]", NULL), "User group name can't be empty!");
	BAD(create(u, repeat('a', 101), "[]", NULL), "User group name cannot exceed 100 characters.");
	const char *prefixes[] = {"@", "role:", "user:", "stream:", "channel:"};
	for (size_t i = 0; i < sizeof(prefixes) / sizeof(prefixes[0]); i++)
		BAD(create(u, fmt("%sx", prefixes[i]), "[]", NULL),
		    fmt("User group name cannot start with '%s'.", prefixes[i]));
	CHECK(strcmp(group_count(realm_of(u)), before) == 0, "a refused group was created");
	/* 100 characters (not bytes) are fine. */
	char *hundred = fmt("%d", ++seq);
	for (size_t n = strlen(hundred); n < 100; n++)
		hundred = fmt("%s%s", hundred, "é");
	create_ok(u, hundred, "[]", NULL);
	BAD(create(u, fmt("%sé", hundred), "[]", NULL), "User group name cannot exceed 100 characters.");
}

static void test_create_duplicate_name(void)
{
	struct user *u = new_user("member");
	char *name = gname("Dup");
	int64_t id = create_ok(u, name, "[]", NULL);
	BAD(create(u, name, "[]", NULL), fmt("User group '%s' already exists.", name));
	/* Deactivated groups keep their name. */
	EXPECT_SUCCESS(deactivate(u, id));
	BAD(create(u, name, "[]", NULL), fmt("User group '%s' already exists.", name));
	/* Names compare exactly; another organization has its own names. */
	create_ok(u, fmt("%s x", name), "[]", NULL);
	struct user *o = new_realm();
	create_ok(o, name, "[]", NULL);
}

static void test_create_member_errors(void)
{
	struct user *u = new_user("member"), *d = new_user("member"), *o = new_realm();
	deactivate_user(d);
	BAD(create(u, gname("M"), "[999999999]", NULL), "Invalid user ID: 999999999");
	BAD(create(u, gname("M"), fmt("[%lld,%lld]", (long long)u->id, (long long)d->id), NULL),
	    fmt("Invalid user ID: %lld", (long long)d->id));
	BAD(create(u, gname("M"), fmt("[%lld]", (long long)o->id), NULL),
	    fmt("Invalid user ID: %lld", (long long)o->id));
	/* Members are checked before the name. */
	BAD(create(u, "role:x", "[999999999]", NULL), "Invalid user ID: 999999999");
	BAD(create(u, gname("M"), "[1,\"a\"]", NULL), "members[1] is not an integer");
	struct resp *r = api_post(u, "/user_groups/create", "name=x&members=[]");
	EXPECT_ERROR(r, 400, "REQUEST_VARIABLE_MISSING", "Missing 'description' argument");
	EXPECT_STR(r->json, "var_name", "description");
	r = api_post(u, "/user_groups/create", "name=x&description=y");
	EXPECT_ERROR(r, 400, "REQUEST_VARIABLE_MISSING", "Missing 'members' argument");
	r = api_post(u, "/user_groups/create", "members=[]&description=y");
	EXPECT_ERROR(r, 400, "REQUEST_VARIABLE_MISSING", "Missing 'name' argument");
}

static void test_create_setting_errors(void)
{
	struct user *u = new_user("member"), *d = new_user("member");
	deactivate_user(d);
	int64_t realm = realm_of(u);
	BAD(create(u, gname("S"), "[]", kv("can_manage_group", "999999999")), "Invalid user group");
	/* No id is taken for something else: -1 and 0 are unknown groups like any other. */
	BAD(create(u, gname("S"), "[]", kv("can_manage_group", "-1")), "Invalid user group");
	BAD(create(u, gname("S"), "[]", kv("can_manage_group", "0")), "Invalid user group");
	BAD(create(u, gname("S"), "[]", kv("can_manage_group", "{\"direct_members\":[],\"direct_subgroups\":[-1]}")),
	    "Invalid user group");
	BAD(create(u, gname("S"), "[]",
	           kv("can_manage_group", fmt("{\"direct_members\":[%lld],\"direct_subgroups\":[999999999,%lld]}",
	                                      (long long)u->id, (long long)sysgroup(realm, "role:members")))),
	    "Invalid user group ID: 999999999");
	BAD(create(
	        u, gname("S"), "[]",
	        kv("can_mention_group", fmt("{\"direct_members\":[%lld],\"direct_subgroups\":[]}", (long long)d->id))),
	    fmt("Invalid user ID: %lld", (long long)d->id));
	BAD(create(u, gname("S"), "[]",
	           kv("can_mention_group", fmt("%lld", (long long)sysgroup(realm, "role:internet")))),
	    "'can_mention_group' setting cannot be set to 'role:internet' group.");
	BAD(create(u, gname("S"), "[]",
	           kv("can_manage_group", fmt("%lld", (long long)sysgroup(realm, "role:everyone")))),
	    "'can_manage_group' setting cannot be set to 'role:everyone' group.");
	BAD(create(u, gname("S"), "[]",
	           kv("can_add_members_group", fmt("{\"direct_members\":[],\"direct_subgroups\":[%lld]}",
	                                           (long long)sysgroup(realm, "role:everyone")))),
	    "'can_add_members_group' setting cannot be set to 'role:everyone' group.");
	/* role:everyone is fine where the reference allows it. */
	create_ok(u, gname("S"), "[]", kv("can_leave_group", fmt("%lld", (long long)sysgroup(realm, "role:everyone"))));
	int64_t gone = create_ok(u, gname("Gone"), "[]", NULL);
	EXPECT_SUCCESS(deactivate(u, gone));
	char *before = group_count(realm);
	BAD(create(u, gname("S"), "[]", kv("can_mention_group", fmt("%lld", (long long)gone))),
	    "User group is deactivated.");
	BAD(create(u, gname("S"), "[]", kv("subgroups", fmt("[%lld]", (long long)gone))), "User group is deactivated.");
	BAD(create(u, gname("S"), "[]", kv("subgroups", "[999999999]")), "Invalid user group ID: 999999999");
	/* Nothing of a refused request stays behind (not even the unnamed setting groups). */
	CHECK(strcmp(group_count(realm), before) == 0, "a refused request left groups behind: %s -> %s", before,
	      group_count(realm));
	/* An unnamed setting group is not a valid value. */
	char *anon = psql_ok("SELECT can_manage_group_id FROM user_groups WHERE id = %lld", (long long)gone);
	BAD(create(u, gname("S"), "[]", kv("can_manage_group", anon)), "Invalid user group");
}

static void test_create_permissions(void)
{
	struct user *g = new_user("guest");
	BAD(create(g, gname("G"), "[]", NULL), "Not allowed for guest users");
	/* Bots may manage groups since feature level 496. */
	create_ok(new_bot(), gname("Bot"), "[]", NULL);
	/* The organization's can_create_groups decides. */
	struct user *owner = new_realm();
	struct user *member = new_user_in(owner->realm, "member", NULL);
	struct user *admin = new_user_in(owner->realm, "admin", NULL);
	psql_ok("UPDATE realms SET can_create_groups_id = confab_system_group(id, 'role:administrators')"
	        " WHERE id = %lld",
	        (long long)realm_of(owner));
	BAD(create(member, gname("P"), "[]", NULL), "Insufficient permission");
	create_ok(admin, gname("P"), "[]", NULL);
	/* A group setting may name a single user. */
	psql_ok("UPDATE realms SET can_create_groups_id = confab_unnamed_group(id, NULL, ARRAY[%lld]::bigint[], '{}')"
	        " WHERE id = %lld",
	        (long long)member->id, (long long)realm_of(owner));
	create_ok(member, gname("P"), "[]", NULL);
	BAD(create(admin, gname("P"), "[]", NULL), "Insufficient permission");
}

/* ---- GET /user_groups --------------------------------------------------------------------------------------- */

static void test_list_system_groups(void)
{
	struct user *owner = new_realm();
	struct resp *r = api_get(owner, "/user_groups");
	EXPECT_SUCCESS(r);
	EXPECT_KEYS(r->json, "result", "msg", "user_groups");
	json_object *list = jget(r->json, "user_groups");
	REQUIRE(list != NULL && json_object_array_length(list) == 8, "a new organization has 8 system groups: %s",
	        r->body);
	int64_t nobody = sysgroup(realm_of(owner), "role:nobody");
	for (size_t i = 0; i < 8; i++) {
		json_object *g = json_object_array_get_idx(list, i);
		EXPECT_BOOL(g, "is_system_group", true);
		EXPECT_NULL(g, "date_created");
		EXPECT_NULL(g, "creator_id");
		EXPECT_BOOL(g, "deactivated", false);
		for (const char *const *s =
		         (const char *const[]){"can_add_members_group", "can_join_group", "can_leave_group",
		                               "can_manage_group", "can_mention_group", "can_remove_members_group",
		                               NULL};
		     *s; s++)
			EXPECT_INT(g, *s, nobody);
		if (i > 0)
			CHECK(jint(g, "id") > jint(json_object_array_get_idx(list, i - 1), "id"),
			      "not sorted by id: %s", r->body);
	}
	json_object *owners = listed(owner, sysgroup(realm_of(owner), "role:owners"), false);
	EXPECT_STR(owners, "description", "Owners of this organization");
	EXPECT_JSON(owners, "members", fmt("[%lld]", (long long)owner->id));
	json_object *admins = listed(owner, sysgroup(realm_of(owner), "role:administrators"), false);
	EXPECT_JSON(admins, "members", "[]");
	EXPECT_JSON(admins, "direct_subgroup_ids", fmt("[%lld]", (long long)sysgroup(realm_of(owner), "role:owners")));
}

static void test_list_filters(void)
{
	struct user *u = new_user("member"), *d = new_user("member");
	int64_t id = create_ok(u, gname("L"), fmt("[%lld,%lld]", (long long)u->id, (long long)d->id), NULL);
	deactivate_user(d);
	EXPECT_JSON(listed_ok(u, id), "members", fmt("[%lld]", (long long)u->id));
	/* Unnamed setting groups are never listed. */
	char *anon = psql_ok("SELECT can_manage_group_id FROM user_groups WHERE id = %lld", (long long)id);
	CHECK(listed(u, atoll(anon), true) == NULL, "unnamed group %s is listed", anon);
	/* Deactivated groups only on request; other organizations' groups never. */
	EXPECT_SUCCESS(deactivate(u, id));
	CHECK(listed(u, id, false) == NULL, "deactivated group %lld listed by default", (long long)id);
	EXPECT_BOOL(listed_ok(u, id), "deactivated", true);
	struct user *o = new_realm();
	CHECK(listed(o, id, true) == NULL, "group %lld listed in another organization", (long long)id);
	BAD(api_get(new_user("guest"), "/user_groups"), "Not allowed for guest users");
	EXPECT_SUCCESS(api_get(new_bot(), "/user_groups"));
	BAD(api_get(u, "/user_groups?include_deactivated_groups=maybe"),
	    "include_deactivated_groups is not valid JSON");
}

/* ---- PATCH /user_groups/{id} -------------------------------------------------------------------------------- */

static void test_update_name_description(void)
{
	struct user *u = new_user("member");
	int64_t id = create_ok(u, gname("Old"), "[]", NULL);
	char *name = gname("New");
	EXPECT_SUCCESS(patch(u, id, fmt("name=%s&description=%s", url_encode(name), url_encode("Better"))));
	json_object *g = listed_ok(u, id);
	EXPECT_STR(g, "name", name);
	EXPECT_STR(g, "description", "Better");
	EXPECT_SUCCESS(patch(u, id, fmt("name=%s", url_encode(name)))); /* unchanged: fine */
	BAD(patch(u, id, ""), "No new data supplied");
	BAD(patch(u, id, "can_manage_group=null"), "No new data supplied");
	BAD(patch(u, id, "name=role:admins"), "User group name cannot start with 'role:'.");
	BAD(patch(u, id, "name="), "User group name can't be empty!");
	char *other = gname("Other");
	create_ok(u, other, "[]", NULL);
	BAD(patch(u, id, fmt("name=%s", url_encode(other))), fmt("User group '%s' already exists.", other));
	/* Nothing of a refused request is kept. */
	BAD(patch(u, id, fmt("description=Worse&name=%s", url_encode(other))),
	    fmt("User group '%s' already exists.", other));
	EXPECT_STR(listed_ok(u, id), "description", "Better");
}

static void test_update_access(void)
{
	struct user *u = new_user("member"), *m = new_user("member"), *a = new_user("admin"), *o = new_user("owner");
	int64_t id = create_ok(u, gname("Acc"), "[]", NULL);
	BAD(patch(m, id, "description=x"), "Insufficient permission");
	/* can_manage_all_groups is role:owners by default: administrators are not enough. */
	BAD(patch(a, id, "description=x"), "Insufficient permission");
	EXPECT_SUCCESS(patch(o, id, "description=x"));
	BAD(patch(new_user("guest"), id, "description=x"), "Not allowed for guest users");
	BAD(patch(u, 999999999, "description=x"), "Invalid user group");
	BAD(patch(u, sysgroup(realm_of(u), "role:members"), "description=x"), "Insufficient permission");
	BAD(patch(o, sysgroup(realm_of(u), "role:members"), "description=x"), "Insufficient permission");
	char *anon = psql_ok("SELECT can_manage_group_id FROM user_groups WHERE id = %lld", (long long)id);
	BAD(patch(o, atoll(anon), "description=x"), "Invalid user group");
	struct user *other = new_realm();
	BAD(patch(other, id, "description=x"), "Invalid user group");
	/* Handing can_manage_group to m: m may, the creator no longer. */
	EXPECT_SUCCESS(patch(u, id,
	                     kv("can_manage_group", fmt("{\"new\":{\"direct_members\":[%lld],\"direct_subgroups\":[]}}",
	                                                (long long)m->id)) +
	                         1));
	EXPECT_SUCCESS(patch(m, id, "description=by m"));
	BAD(patch(u, id, "description=by u"), "Insufficient permission");
	/* Membership through subgroups counts (the recursive query). */
	int64_t inner = create_ok(o, gname("Inner"), fmt("[%lld]", (long long)a->id), NULL);
	int64_t outer = create_ok(o, gname("Outer"), "[]", kv("subgroups", fmt("[%lld]", (long long)inner)));
	EXPECT_SUCCESS(patch(m, id, kv("can_manage_group", fmt("{\"new\":%lld}", (long long)outer)) + 1));
	EXPECT_SUCCESS(patch(a, id, "description=by a"));
	BAD(patch(m, id, "description=by m"), "Insufficient permission");
}

static void test_update_settings(void)
{
	struct user *u = new_user("member"), *v = new_user("member");
	int64_t realm = realm_of(u), everyone = sysgroup(realm, "role:everyone"),
	        members = sysgroup(realm, "role:members");
	int64_t id = create_ok(u, gname("Set"), "[]", NULL);
	EXPECT_SUCCESS(patch(
	    u, id,
	    kv("can_mention_group", fmt("{\"new\":%lld,\"old\":%lld}", (long long)members, (long long)everyone)) + 1));
	EXPECT_INT(listed_ok(u, id), "can_mention_group", members);
	/* A stale `old` changes nothing. */
	struct resp *r = patch(
	    u, id,
	    kv("can_mention_group", fmt("{\"new\":%lld,\"old\":%lld}", (long long)everyone, (long long)everyone)) + 1);
	EXPECT_ERROR(r, 400, "EXPECTATION_MISMATCH", "'old' value does not match the expected value.");
	EXPECT_INT(listed_ok(u, id), "can_mention_group", members);
	/* Objects compare as sets; `old` of the creator default. */
	char *two = fmt("{\"direct_members\":[%lld,%lld],\"direct_subgroups\":[%lld]}", (long long)v->id,
	                (long long)u->id, (long long)members);
	char *two_reordered = fmt("{\"direct_subgroups\":[%lld],\"direct_members\":[%lld,%lld]}", (long long)members,
	                          (long long)u->id, (long long)v->id);
	EXPECT_SUCCESS(patch(
	    u, id,
	    kv("can_add_members_group",
	       fmt("{\"new\":%s,\"old\":{\"direct_members\":[%lld],\"direct_subgroups\":[]}}", two, (long long)u->id)) +
	        1));
	/* Shown with sorted ids (u was created before v). */
	EXPECT_JSON(listed_ok(u, id), "can_add_members_group", two_reordered);
	EXPECT_SUCCESS(patch(
	    u, id,
	    kv("can_add_members_group", fmt("{\"new\":%lld,\"old\":%s}", (long long)members, two_reordered)) + 1));
	EXPECT_INT(listed_ok(u, id), "can_add_members_group", members);
	/* Validation as at creation; several settings at once are all or nothing. */
	BAD(patch(u, id, kv("can_join_group", fmt("{\"new\":%lld}", (long long)everyone)) + 1),
	    "'can_join_group' setting cannot be set to 'role:everyone' group.");
	BAD(patch(u, id,
	          fmt("%s%s", kv("can_leave_group", fmt("{\"new\":%lld}", (long long)members)) + 1,
	              kv("can_remove_members_group", "{\"new\":999999999}"))),
	    "Invalid user group");
	EXPECT_INT(listed_ok(u, id), "can_leave_group", everyone);
	BAD(patch(u, id, "can_leave_group=5"), "can_leave_group is not a dict");
	BAD(patch(u, id, "can_leave_group={\"old\":5}"), "Invalid can_leave_group");
	/* The same value again is accepted and changes nothing. */
	EXPECT_SUCCESS(patch(u, id, kv("can_leave_group", fmt("{\"new\":%lld}", (long long)everyone)) + 1));
}

static void test_update_reactivates(void)
{
	struct user *u = new_user("member");
	int64_t id = create_ok(u, gname("Re"), "[]", NULL);
	EXPECT_SUCCESS(deactivate(u, id));
	/* Deactivated groups can still be renamed and reactivated by their managers. */
	char *name = gname("Renamed");
	EXPECT_SUCCESS(patch(u, id, fmt("name=%s", url_encode(name))));
	EXPECT_SUCCESS(patch(u, id, "deactivated=false"));
	json_object *g = listed(u, id, false);
	REQUIRE(g != NULL, "reactivated group %lld not listed", (long long)id);
	EXPECT_STR(g, "name", name);
	EXPECT_BOOL(g, "deactivated", false);
}

/* ---- POST /user_groups/{id}/deactivate ---------------------------------------------------------------------- */

static void test_deactivate(void)
{
	struct user *u = new_user("member"), *m = new_user("member");
	int64_t id = create_ok(u, gname("Deact"), "[]", NULL);
	BAD(deactivate(m, id), "Insufficient permission");
	struct resp *r = deactivate(u, id);
	EXPECT_SUCCESS(r);
	EXPECT_KEYS(r->json, "result", "msg");
	BAD(deactivate(u, id), "User group is deactivated.");
	BAD(deactivate(u, 999999999), "Invalid user group");
	BAD(deactivate(u, sysgroup(realm_of(u), "role:members")), "Insufficient permission");
	EXPECT_TEXT(psql_ok("SELECT deactivated FROM user_groups WHERE id = %lld", (long long)id), "t");
}

static void expect_in_use(const struct user *u, int64_t id, const char *objections)
{
	struct resp *r = deactivate(u, id);
	EXPECT_ERROR(r, 400, "CANNOT_DEACTIVATE_GROUP_IN_USE", "Cannot deactivate user group in use.");
	EXPECT_JSON(r->json, "objections", objections);
	EXPECT_TEXT(psql_ok("SELECT deactivated FROM user_groups WHERE id = %lld", (long long)id), "f");
}

static void test_deactivate_in_use(void)
{
	struct user *owner = new_realm();
	int64_t realm = realm_of(owner);
	/* As a subgroup of an active named group. */
	int64_t sub = create_ok(owner, gname("Sub"), "[]", NULL);
	int64_t sup = create_ok(owner, gname("Sup"), "[]", kv("subgroups", fmt("[%lld]", (long long)sub)));
	expect_in_use(owner, sub, fmt("[{\"type\":\"subgroup\",\"supergroup_ids\":[%lld]}]", (long long)sup));
	EXPECT_SUCCESS(deactivate(owner, sup)); /* a deactivated supergroup does not object */
	EXPECT_SUCCESS(deactivate(owner, sub));

	/* As a group setting, directly or inside an unnamed group. */
	int64_t used = create_ok(owner, gname("Used"), "[]", NULL);
	int64_t user =
	    create_ok(owner, gname("User"), "[]",
	              fmt("%s%s", kv("can_mention_group", fmt("%lld", (long long)used)),
	                  kv("can_manage_group", fmt("{\"direct_members\":[%lld],\"direct_subgroups\":[%lld]}",
	                                             (long long)owner->id, (long long)used))));
	expect_in_use(owner, used,
	              fmt("[{\"type\":\"user_group\",\"group_id\":%lld,\"settings\":[\"can_manage_group\","
	                  "\"can_mention_group\"]}]",
	                  (long long)user));

	/* As an organization setting and a channel setting. */
	int64_t r1 = create_ok(owner, gname("Realm"), "[]", NULL);
	psql_ok("UPDATE realms SET can_create_groups_id = %lld, create_multiuse_invite_group_id ="
	        " confab_unnamed_group(id, NULL, '{}', ARRAY[%lld]::bigint[]) WHERE id = %lld",
	        (long long)r1, (long long)r1, (long long)realm);
	int64_t everyone = sysgroup(realm, "role:everyone");
	char *channel = psql_ok(
	    "INSERT INTO channels (realm_id, name, can_add_subscribers_group_id, can_administer_channel_group_id,"
	    " can_create_topic_group_id, can_delete_any_message_group_id, can_delete_own_message_group_id,"
	    " can_move_messages_out_of_channel_group_id, can_move_messages_within_channel_group_id,"
	    " can_remove_subscribers_group_id, can_resolve_topics_group_id, can_send_message_group_id,"
	    " can_subscribe_group_id) VALUES (%lld, 'groups test', %lld, %lld, %lld, %lld, %lld, %lld, %lld, %lld,"
	    " %lld, %lld, %lld) RETURNING id",
	    (long long)realm, (long long)everyone, (long long)r1, (long long)everyone, (long long)everyone,
	    (long long)everyone, (long long)everyone, (long long)everyone, (long long)everyone, (long long)r1,
	    (long long)everyone, (long long)everyone);
	expect_in_use(owner, r1,
	              fmt("[{\"type\":\"channel\",\"channel_id\":%s,\"settings\":[\"can_administer_channel_group\","
	                  "\"can_resolve_topics_group\"]},{\"type\":\"realm\",\"settings\":"
	                  "[\"create_multiuse_invite_group\",\"can_create_groups\"]}]",
	                  channel));
	/* An archived channel does not object. */
	psql_ok("UPDATE channels SET is_archived = true WHERE id = %s", channel);
	psql_ok("UPDATE realms SET can_create_groups_id = confab_system_group(id, 'role:members'),"
	        " create_multiuse_invite_group_id = confab_system_group(id, 'role:administrators') WHERE id = %lld",
	        (long long)realm);
	EXPECT_SUCCESS(deactivate(owner, r1));
}

/* ---- POST /user_groups/{id}/members ------------------------------------------------------------------------- */

static void test_members_add_remove(void)
{
	struct user *u = new_user("member"), *a = new_user("member"), *b = new_user("member");
	int64_t id = create_ok(u, gname("Mem"), "[]", NULL);
	struct resp *r =
	    members(u, id, fmt("add=%s", url_encode(fmt("[%lld,%lld]", (long long)b->id, (long long)a->id))));
	EXPECT_SUCCESS(r);
	EXPECT_KEYS(r->json, "result", "msg");
	int64_t lo = a->id < b->id ? a->id : b->id, hi = a->id < b->id ? b->id : a->id;
	EXPECT_JSON(listed_ok(u, id), "members", fmt("[%lld,%lld]", (long long)lo, (long long)hi));
	EXPECT_SUCCESS(members(u, id, fmt("delete=%s", url_encode(fmt("[%lld]", (long long)a->id)))));
	EXPECT_JSON(listed_ok(u, id), "members", fmt("[%lld]", (long long)b->id));
	BAD(members(u, id, fmt("add=%s", url_encode(fmt("[%lld]", (long long)b->id)))),
	    fmt("User %lld is already a member of this group", (long long)b->id));
	BAD(members(u, id, fmt("delete=%s", url_encode(fmt("[%lld]", (long long)a->id)))),
	    fmt("There is no member '%lld' in this user group", (long long)a->id));
	BAD(members(u, id, "add=[999999999]"), "Invalid user ID: 999999999");
	BAD(members(u, id, "delete=[999999999]"), "Invalid user ID: 999999999");
	/* All in one transaction: a failing delete undoes the add before it. */
	BAD(members(u, id,
	            fmt("add=%s&delete=%s", url_encode(fmt("[%lld]", (long long)a->id)),
	                url_encode(fmt("[%lld]", (long long)u->id)))),
	    fmt("There is no member '%lld' in this user group", (long long)u->id));
	EXPECT_JSON(listed_ok(u, id), "members", fmt("[%lld]", (long long)b->id));
}

static void test_members_errors(void)
{
	struct user *u = new_user("member");
	int64_t id = create_ok(u, gname("MemErr"), "[]", NULL);
	const char *nothing =
	    "Nothing to do. Specify at least one of \"add\", \"delete\", \"add_subgroups\" or \"delete_subgroups\".";
	BAD(members(u, id, ""), nothing);
	BAD(members(u, id, "add=[]&delete=[]"), nothing);
	BAD(members(u, 999999999, fmt("add=[%lld]", (long long)u->id)), "Invalid user group");
	BAD(members(u, id, "add=5"), "add is not a list");
	/* System groups follow roles only. */
	struct user *o = new_user("owner");
	int64_t mods = sysgroup(realm_of(u), "role:moderators");
	BAD(members(o, mods, fmt("add=[%lld]", (long long)u->id)), "Insufficient permission");
	CHECK(atoi(psql_ok("SELECT count(*) FROM user_group_members WHERE group_id = %lld AND user_id = %lld",
	                   (long long)mods, (long long)u->id)) == 0,
	      "a member joined role:moderators");
	BAD(members(new_user("guest"), id, fmt("add=[%lld]", (long long)u->id)), "Not allowed for guest users");
	/* Members of deactivated groups can still be changed. */
	EXPECT_SUCCESS(deactivate(u, id));
	EXPECT_SUCCESS(members(u, id, fmt("add=[%lld]", (long long)u->id)));
}

static void test_members_permissions(void)
{
	struct user *u = new_user("member"), *m = new_user("member"), *x = new_user("member");
	int64_t realm = realm_of(u);
	int64_t id = create_ok(u, gname("Perm"), fmt("[%lld]", (long long)x->id), NULL);
	/* Joining needs can_join_group (role:nobody by default); leaving can_leave_group (role:everyone). */
	BAD(members(m, id, fmt("add=[%lld]", (long long)m->id)), "Insufficient permission");
	EXPECT_SUCCESS(
	    patch(u, id, kv("can_join_group", fmt("{\"new\":%lld}", (long long)sysgroup(realm, "role:members"))) + 1));
	EXPECT_SUCCESS(members(m, id, fmt("add=[%lld]", (long long)m->id)));
	/* Joining does not allow adding others, nor removing them. */
	struct user *y = new_user("member");
	BAD(members(m, id, fmt("add=[%lld]", (long long)y->id)), "Insufficient permission");
	BAD(members(m, id, fmt("delete=[%lld]", (long long)x->id)), "Insufficient permission");
	EXPECT_SUCCESS(members(m, id, fmt("delete=[%lld]", (long long)m->id)));
	EXPECT_SUCCESS(
	    patch(u, id, kv("can_leave_group", fmt("{\"new\":%lld}", (long long)sysgroup(realm, "role:nobody"))) + 1));
	EXPECT_SUCCESS(members(m, id, fmt("add=[%lld]", (long long)m->id)));
	BAD(members(m, id, fmt("delete=[%lld]", (long long)m->id)), "Insufficient permission");
	/* can_add_members_group and can_remove_members_group set to one user. */
	EXPECT_SUCCESS(
	    patch(u, id,
	          fmt("%s%s",
	              kv("can_add_members_group",
	                 fmt("{\"new\":{\"direct_members\":[%lld],\"direct_subgroups\":[]}}", (long long)m->id)) +
	                  1,
	              kv("can_remove_members_group",
	                 fmt("{\"new\":{\"direct_members\":[%lld],\"direct_subgroups\":[]}}", (long long)m->id)))));
	EXPECT_SUCCESS(members(m, id, fmt("add=[%lld]", (long long)y->id)));
	EXPECT_SUCCESS(members(m, id, fmt("delete=[%lld,%lld]", (long long)x->id, (long long)m->id)));
	EXPECT_JSON(listed_ok(u, id), "members", fmt("[%lld]", (long long)y->id));
	/* The creator gave can_add_members_group away but still manages the group. */
	EXPECT_SUCCESS(members(u, id, fmt("add=[%lld]", (long long)x->id)));
	/* Organization owners manage every group (can_manage_all_groups). */
	EXPECT_SUCCESS(members(new_user("owner"), id, fmt("delete=[%lld]", (long long)x->id)));
}

/* ---- POST /user_groups/{id}/subgroups ----------------------------------------------------------------------- */

static void test_subgroups_add_remove(void)
{
	struct user *u = new_user("member");
	int64_t id = create_ok(u, gname("Top"), "[]", NULL);
	int64_t a = create_ok(u, gname("A"), "[]", NULL), b = create_ok(u, gname("B"), "[]", NULL);
	struct resp *r = subgroups(u, id, fmt("add=%s", url_encode(fmt("[%lld,%lld]", (long long)b, (long long)a))));
	EXPECT_SUCCESS(r);
	EXPECT_KEYS(r->json, "result", "msg");
	EXPECT_JSON(listed_ok(u, id), "direct_subgroup_ids", fmt("[%lld,%lld]", (long long)a, (long long)b));
	EXPECT_SUCCESS(subgroups(u, id, fmt("delete=[%lld]", (long long)a)));
	EXPECT_JSON(listed_ok(u, id), "direct_subgroup_ids", fmt("[%lld]", (long long)b));
	/* The members endpoint takes subgroups too. */
	EXPECT_SUCCESS(members(u, id, fmt("add_subgroups=[%lld]&delete_subgroups=[%lld]", (long long)a, (long long)b)));
	EXPECT_JSON(listed_ok(u, id), "direct_subgroup_ids", fmt("[%lld]", (long long)a));
	BAD(subgroups(u, id, fmt("add=[%lld]", (long long)a)),
	    fmt("User group %lld is already a subgroup of this group.", (long long)a));
	BAD(subgroups(u, id, fmt("delete=[%lld]", (long long)b)),
	    fmt("User group %lld is not a subgroup of this group.", (long long)b));
	BAD(subgroups(u, id, "add=[999999999]"), "Invalid user group ID: 999999999");
	BAD(subgroups(u, id, "delete=[999999999]"), "Invalid user group ID: 999999999");
	BAD(subgroups(u, id, ""), "Nothing to do. Specify at least one of \"add\" or \"delete\".");
	BAD(subgroups(u, 999999999, fmt("add=[%lld]", (long long)a)), "Invalid user group");
	EXPECT_SUCCESS(deactivate(u, b));
	BAD(subgroups(u, id, fmt("add=[%lld]", (long long)b)), "User group is deactivated.");
	/* System groups may be subgroups, but never get any. */
	int64_t members_group = sysgroup(realm_of(u), "role:members");
	EXPECT_SUCCESS(subgroups(u, id, fmt("add=[%lld]", (long long)members_group)));
	BAD(subgroups(new_user("owner"), members_group, fmt("add=[%lld]", (long long)a)), "Insufficient permission");
}

static void test_subgroups_cycles(void)
{
	struct user *u = new_user("member");
	int64_t a = create_ok(u, gname("CycA"), "[]", NULL);
	int64_t b = create_ok(u, gname("CycB"), "[]", NULL);
	int64_t c = create_ok(u, gname("CycC"), "[]", NULL);
	EXPECT_SUCCESS(subgroups(u, a, fmt("add=[%lld]", (long long)b)));
	EXPECT_SUCCESS(subgroups(u, b, fmt("add=[%lld]", (long long)c)));
	BAD(subgroups(u, c, fmt("add=[%lld]", (long long)a)), cycle(c));
	BAD(subgroups(u, b, fmt("add=[%lld]", (long long)a)), cycle(b));
	BAD(subgroups(u, a, fmt("add=[%lld]", (long long)a)), cycle(a));
	BAD(members(u, c, fmt("add_subgroups=[%lld]", (long long)a)), cycle(c));
	EXPECT_TEXT(psql_ok("SELECT count(*) FROM user_group_subgroups WHERE group_id = %lld", (long long)c), "0");
	/* Without the path the same change is fine. */
	EXPECT_SUCCESS(subgroups(u, b, fmt("delete=[%lld]", (long long)c)));
	EXPECT_SUCCESS(subgroups(u, c, fmt("add=[%lld]", (long long)a)));
}

/* Member and subgroup lists hold at most 1000 ids (the largest works, repeats counting once), and every id fits a
 * bigint. */
static void test_member_list_bounds(void)
{
	struct user *u = new_user("member"), *v = new_user("member");
	const char *many_u = json_list(1000, fmt("%lld", (long long)u->id));
	int64_t id = create_ok(u, gname(fmt("Bound-%ld", (long)getpid())), many_u, NULL);
	EXPECT_JSON(listed_ok(u, id), "members", fmt("[%lld]", (long long)u->id));
	EXPECT_SUCCESS(members(u, id, fmt("add=%s", url_encode(json_list(1000, fmt("%lld", (long long)v->id))))));
	EXPECT_JSON(listed_ok(u, id), "members", fmt("[%lld,%lld]", (long long)u->id, (long long)v->id));
	BAD(create(u, gname(fmt("Bound-%ld", (long)getpid())), json_list(1001, fmt("%lld", (long long)u->id)), NULL),
	    "members is too long (limit: 1000 items)");
	BAD(members(u, id, fmt("delete=%s", url_encode(json_list(1001, fmt("%lld", (long long)v->id))))),
	    "delete is too long (limit: 1000 items)");
	BAD(members(u, id, fmt("add_subgroups=%s", url_encode(json_list(1001, "%zu")))),
	    "add_subgroups is too long (limit: 1000 items)");
	BAD(subgroups(u, id, fmt("add=%s", url_encode(json_list(1001, "%zu")))), "add is too long (limit: 1000 items)");
	BAD(members(u, id, fmt("add=%s", url_encode("[1,99999999999999999999]"))), "add[1] is too large");
	BAD(create(u, gname(fmt("Bound-%ld", (long)getpid())), "[-99999999999999999999]", NULL), "members[0] is too small");
	const char *big = fmt("{\"direct_members\":%s,\"direct_subgroups\":[]}",
	                      json_list(1001, fmt("%lld", (long long)u->id)));
	BAD(create(u, gname(fmt("Bound-%ld", (long)getpid())), "[]", kv("can_mention_group", big)),
	    "can_mention_group[\"direct_members\"] is too long (limit: 1000 items)");
	EXPECT_JSON(listed_ok(u, id), "members", fmt("[%lld,%lld]", (long long)u->id, (long long)v->id));
}

static void test_subgroups_permissions(void)
{
	struct user *u = new_user("member"), *m = new_user("member");
	int64_t id = create_ok(u, gname("SubPerm"), "[]", NULL);
	int64_t a = create_ok(u, gname("SubA"), "[]", NULL);
	BAD(subgroups(m, id, fmt("add=[%lld]", (long long)a)), "Insufficient permission");
	/* Adding needs can_add_members_group; removing needs can_manage_group. */
	EXPECT_SUCCESS(
	    patch(u, id,
	          kv("can_add_members_group",
	             fmt("{\"new\":{\"direct_members\":[%lld],\"direct_subgroups\":[]}}", (long long)m->id)) +
	              1));
	EXPECT_SUCCESS(subgroups(m, id, fmt("add=[%lld]", (long long)a)));
	BAD(subgroups(m, id, fmt("delete=[%lld]", (long long)a)), "Insufficient permission");
	EXPECT_SUCCESS(subgroups(u, id, fmt("delete=[%lld]", (long long)a)));
	BAD(subgroups(new_user("guest"), id, fmt("add=[%lld]", (long long)a)), "Not allowed for guest users");
}

void register_user_groups_tests(void)
{
	static const struct itest_case cases[] = {
	    {"member_list_bounds", test_member_list_bounds},
	    {"create_success_and_defaults", test_create_success_and_defaults},
	    {"create_settings_and_subgroups", test_create_settings_and_subgroups},
	    {"create_name_errors", test_create_name_errors},
	    {"create_duplicate_name", test_create_duplicate_name},
	    {"create_member_errors", test_create_member_errors},
	    {"create_setting_errors", test_create_setting_errors},
	    {"create_permissions", test_create_permissions},
	    {"list_system_groups", test_list_system_groups},
	    {"list_filters", test_list_filters},
	    {"update_name_description", test_update_name_description},
	    {"update_access", test_update_access},
	    {"update_settings", test_update_settings},
	    {"update_reactivates", test_update_reactivates},
	    {"deactivate", test_deactivate},
	    {"deactivate_in_use", test_deactivate_in_use},
	    {"members_add_remove", test_members_add_remove},
	    {"members_errors", test_members_errors},
	    {"members_permissions", test_members_permissions},
	    {"subgroups_add_remove", test_subgroups_add_remove},
	    {"subgroups_cycles", test_subgroups_cycles},
	    {"subgroups_permissions", test_subgroups_permissions},
	    {NULL, NULL},
	};
	itest_add_suite("user_groups", cases);
}
