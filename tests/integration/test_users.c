/*
 * Users: GET /users/me, GET /users, GET /users/{id} and /users/{email}, e-mail visibility, custom profile fields,
 * and POST /users.
 * Reference: zulip-digest.md section f; Zulip zerver/views/users.py, zerver/lib/users.py (format_user_row,
 * get_users_for_api, access_user_by_email), zerver/lib/avatar.py.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "itest.h"

static struct user *creator(void)
{
	return new_user_in("", "owner", (const char *const[]){"--can-create-users", NULL});
}

static char *upper(const char *s)
{
	char *u = fmt("%s", s);
	for (char *p = u; *p; p++)
		*p = (char)toupper((unsigned char)*p);
	return u;
}

static char *gravatar_url(const char *email, int version)
{
	char *md5 = psql_ok("SELECT md5(lower('%s'))", email);
	return fmt("https://secure.gravatar.com/avatar/%s?d=identicon&version=%d", md5, version);
}

static char *fake_email(int64_t id)
{
	return fmt("user%lld@%s", (long long)id, itest_hostname);
}

/* ISO 8601 in UTC ("2024-01-02T03:04[:05[.678901]]+00:00") and within 10 minutes of now. */
static void expect_recent_date(json_object *o, const char *key, const char *file, int line)
{
	const char *s = jstr(o, key);
	struct tm tm = {0};
	int n = 0;
	bool ok = s != NULL &&
	          sscanf(s, "%4d-%2d-%2dT%2d:%2d%n", &tm.tm_year, &tm.tm_mon, &tm.tm_mday, &tm.tm_hour, &tm.tm_min,
	                 &n) == 5 &&
	          n == 16;
	if (ok) {
		const char *p = s + n;
		if (p[0] == ':' && isdigit((unsigned char)p[1]) && isdigit((unsigned char)p[2])) {
			tm.tm_sec = (p[1] - '0') * 10 + (p[2] - '0');
			p += 3;
			if (*p == '.') {
				p++;
				int digits = 0;
				while (isdigit((unsigned char)*p))
					p++, digits++;
				ok = digits >= 1 && digits <= 6;
			}
		}
		ok = ok && strcmp(p, "+00:00") == 0;
	}
	if (ok) {
		tm.tm_year -= 1900;
		tm.tm_mon -= 1;
		time_t t = timegm(&tm);
		ok = t > time(NULL) - 600 && t < time(NULL) + 600;
	}
	itest_check(ok, false, file, line, "\"%s\" should be a recent ISO 8601 UTC time ending in +00:00: %s", key,
	            jtext(o));
}
#define EXPECT_RECENT_DATE(o, key) expect_recent_date((o), (key), __FILE__, __LINE__)

/* bot_type is null for humans; Zulip's format_user_row leaves it out entirely, so accept both. */
static void expect_no_bot_type(json_object *o, const char *file, int line)
{
	itest_check(!jhas(o, "bot_type") || jis_null(o, "bot_type"), false, file, line,
	            "a human's bot_type must be null or absent: %s", jtext(o));
	itest_check(!jhas(o, "bot_owner_id"), false, file, line, "a human has no bot_owner_id: %s", jtext(o));
}
#define EXPECT_NO_BOT_TYPE(o) expect_no_bot_type((o), __FILE__, __LINE__)

static struct resp *get_user(const struct user *viewer, const char *suffix)
{
	return api_get(viewer, fmt("/users/%s", suffix));
}

static json_object *members_of(const struct resp *r)
{
	json_object *m = jget(r->json, "members");
	return m != NULL && json_object_is_type(m, json_type_array) ? m : NULL;
}

/* ---- GET /users/me ------------------------------------------------------------------------------------------ */

static void test_me_fields(void)
{
	struct user *u = new_user("member");
	struct resp *r = api_get(u, "/users/me");
	EXPECT_SUCCESS(r);
	json_object *j = r->json;
	if (jhas(j, "bot_type"))
		EXPECT_KEYS(j, "result", "msg", "user_id", "delivery_email", "email", "full_name", "date_joined",
		            "is_active", "is_owner", "is_admin", "is_guest", "is_bot", "bot_type", "role", "timezone",
		            "avatar_url", "avatar_version", "is_imported_stub", "profile_data", "max_message_id");
	else
		EXPECT_KEYS(j, "result", "msg", "user_id", "delivery_email", "email", "full_name", "date_joined",
		            "is_active", "is_owner", "is_admin", "is_guest", "is_bot", "role", "timezone", "avatar_url",
		            "avatar_version", "is_imported_stub", "profile_data", "max_message_id");
	EXPECT_INT(j, "user_id", u->id);
	EXPECT_STR(j, "delivery_email", u->email);
	EXPECT_STR(j, "email", u->email);
	EXPECT_STR(j, "full_name", psql_ok("SELECT full_name FROM users WHERE id = %lld", (long long)u->id));
	EXPECT_RECENT_DATE(j, "date_joined");
	EXPECT_BOOL(j, "is_active", true);
	EXPECT_BOOL(j, "is_owner", false);
	EXPECT_BOOL(j, "is_admin", false);
	EXPECT_BOOL(j, "is_guest", false);
	EXPECT_BOOL(j, "is_bot", false);
	EXPECT_NO_BOT_TYPE(j);
	EXPECT_INT(j, "role", 400);
	EXPECT_STR(j, "timezone", "");
	/* /users/me always computes the avatar URL (client_gravatar is false there). */
	EXPECT_STR(j, "avatar_url", gravatar_url(u->email, 1));
	EXPECT_INT(j, "avatar_version", 1);
	EXPECT_BOOL(j, "is_imported_stub", false);
	json_object *pd = jget(j, "profile_data");
	CHECK(pd != NULL && json_object_is_type(pd, json_type_object) && json_object_object_length(pd) == 0,
	      "profile_data should be {}: %s", jtext(j));
	EXPECT_INT(j, "max_message_id", -1);
}

static void check_role(const char *role, int code, bool owner, bool admin, bool guest)
{
	struct user *u = new_user(role);
	struct resp *r = api_get(u, "/users/me");
	EXPECT_SUCCESS(r);
	EXPECT_INT(r->json, "role", code);
	EXPECT_BOOL(r->json, "is_owner", owner);
	EXPECT_BOOL(r->json, "is_admin", admin);
	EXPECT_BOOL(r->json, "is_guest", guest);
	/* Others see the same through GET /users/{id} and GET /users. */
	r = get_user(&itest_owner, fmt("%lld", (long long)u->id));
	EXPECT_SUCCESS(r);
	json_object *o = jget(r->json, "user");
	EXPECT_INT(o, "role", code);
	EXPECT_BOOL(o, "is_owner", owner);
	EXPECT_BOOL(o, "is_admin", admin);
	EXPECT_BOOL(o, "is_guest", guest);
	r = api_get(&itest_owner, "/users");
	o = find_member(members_of(r), u->id);
	CHECK(o != NULL, "user %lld missing from GET /users", (long long)u->id);
	EXPECT_INT(o, "role", code);
	EXPECT_BOOL(o, "is_owner", owner);
	EXPECT_BOOL(o, "is_admin", admin);
	EXPECT_BOOL(o, "is_guest", guest);
}

static void test_roles(void)
{
	check_role("owner", 100, true, true, false);
	check_role("admin", 200, false, true, false);
	check_role("moderator", 300, false, false, false);
	check_role("member", 400, false, false, false);
	check_role("guest", 600, false, false, true);
}

/* ---- GET /users --------------------------------------------------------------------------------------------- */

static void test_users_list_complete_and_ordered(void)
{
	struct user *u = new_user("member");
	struct user *b = new_bot();
	struct user *d = new_user("member");
	deactivate_user(d);
	struct resp *r = api_get(u, "/users");
	EXPECT_SUCCESS(r);
	EXPECT_KEYS(r->json, "result", "msg", "members");
	json_object *members = members_of(r);
	REQUIRE(members != NULL, "no members array: %s", r->body);
	/* The system bots (the Notification Bot) are not members as clients see them. */
	char *ids = psql_ok("SELECT string_agg(id::text, ',' ORDER BY id) FROM users"
	                    " WHERE realm_id = (SELECT id FROM realms WHERE subdomain = '') AND NOT is_system_bot");
	char *got = fmt("%s", "");
	for (size_t i = 0; i < json_object_array_length(members); i++)
		got = fmt("%s%s%lld", got, i ? "," : "",
		          (long long)jint(json_object_array_get_idx(members, i), "user_id"));
	CHECK(strcmp(ids, got) == 0, "members should be every user of the realm ordered by id:\n  want %s\n  got  %s",
	      ids, got);
	/* No user of another organization. */
	struct user *o = new_realm();
	r = api_get(u, "/users");
	CHECK(find_member(members_of(r), o->id) == NULL, "GET /users lists user %lld of another organization",
	      (long long)o->id);

	json_object *jd = find_member(members, d->id);
	EXPECT_BOOL(jd, "is_active", false);
	json_object *jb = find_member(members, b->id);
	EXPECT_BOOL(jb, "is_bot", true);
	EXPECT_BOOL(jb, "is_active", true);
	json_object *ju = find_member(members, u->id);
	static const char *const human_keys[] = {
	    "user_id",  "delivery_email", "email",  "full_name", "date_joined", "is_active",  "is_owner",
	    "is_admin", "is_guest",       "is_bot", "role",      "timezone",    "avatar_url", "avatar_version"};
	for (size_t i = 0; i < sizeof(human_keys) / sizeof(human_keys[0]); i++)
		CHECK(jhas(ju, human_keys[i]), "member object lacks \"%s\": %s", human_keys[i], jtext(ju));
	EXPECT_ABSENT(ju, "profile_data");
	EXPECT_ABSENT(ju, "max_message_id");
	EXPECT_NO_BOT_TYPE(ju);
	EXPECT_STR(ju, "email", u->email);
	EXPECT_STR(ju, "delivery_email", u->email);
	EXPECT_RECENT_DATE(ju, "date_joined");
}

static void test_users_list_client_gravatar(void)
{
	struct user *u = new_user("member");
	struct user *v = new_user("member");
	/* Default true: no URL for users whose e-mail the client can hash. */
	struct resp *r = api_get(u, "/users");
	EXPECT_SUCCESS(r);
	EXPECT_NULL(find_member(members_of(r), v->id), "avatar_url");
	EXPECT_NULL(find_member(members_of(r), u->id), "avatar_url");
	r = api_get(u, "/users?client_gravatar=true");
	EXPECT_NULL(find_member(members_of(r), v->id), "avatar_url");
	r = api_get(u, "/users?client_gravatar=false");
	EXPECT_SUCCESS(r);
	EXPECT_STR(find_member(members_of(r), v->id), "avatar_url", gravatar_url(v->email, 1));
	/* The same for one user. */
	r = get_user(u, fmt("%lld", (long long)v->id));
	EXPECT_NULL(jget(r->json, "user"), "avatar_url");
	r = get_user(u, fmt("%lld?client_gravatar=false", (long long)v->id));
	EXPECT_STR(jget(r->json, "user"), "avatar_url", gravatar_url(v->email, 1));
}

static void test_users_list_bots(void)
{
	struct user *u = new_user("member");
	struct user *b = new_bot();
	struct resp *r = api_get(u, "/users?include_custom_profile_fields=true");
	EXPECT_SUCCESS(r);
	json_object *jb = find_member(members_of(r), b->id);
	REQUIRE(jb != NULL, "bot %lld missing from GET /users", (long long)b->id);
	EXPECT_BOOL(jb, "is_bot", true);
	EXPECT_INT(jb, "bot_type", 1);
	EXPECT_NULL(jb, "bot_owner_id");
	EXPECT_ABSENT(jb, "profile_data");
	EXPECT_STR(jb, "email", b->email);
	/* A bot's e-mail is always visible. */
	EXPECT_STR(jb, "delivery_email", b->email);
	EXPECT_INT(jb, "role", 400);
	r = get_user(u, fmt("%lld?include_custom_profile_fields=true", (long long)b->id));
	EXPECT_SUCCESS(r);
	EXPECT_INT(jget(r->json, "user"), "bot_type", 1);
	EXPECT_NULL(jget(r->json, "user"), "bot_owner_id");
	EXPECT_ABSENT(jget(r->json, "user"), "profile_data");
}

/* ---- custom profile fields ---------------------------------------------------------------------------------- */

static void test_custom_profile_fields(void)
{
	struct user *u = new_user("member");
	struct user *v = new_user("member");
	char *f1 = psql_ok("INSERT INTO custom_profile_fields (realm_id, name, field_type)"
	                   " SELECT id, 'Itest text %lld', 1 FROM realms WHERE subdomain = '' RETURNING id",
	                   (long long)u->id);
	char *f2 = psql_ok("INSERT INTO custom_profile_fields (realm_id, name, field_type, field_data)"
	                   " SELECT id, 'Itest choice %lld', 3, '{\"0\":{\"text\":\"A\",\"order\":\"1\"}}'"
	                   " FROM realms WHERE subdomain = '' RETURNING id",
	                   (long long)u->id);
	psql_ok("INSERT INTO custom_profile_field_values (user_id, field_id, value, rendered_value)"
	        " VALUES (%lld, %s, 'hello *world*', '<p>hello <em>world</em></p>'), (%lld, %s, '0', NULL)",
	        (long long)u->id, f1, (long long)u->id, f2);

	/* One user. */
	struct resp *r = get_user(v, fmt("%lld?include_custom_profile_fields=true", (long long)u->id));
	EXPECT_SUCCESS(r);
	json_object *pd = jget(jget(r->json, "user"), "profile_data");
	REQUIRE(pd != NULL, "no profile_data: %s", r->body);
	EXPECT_KEYS(pd, f1, f2);
	EXPECT_KEYS(jget(pd, f1), "value", "rendered_value");
	EXPECT_STR(jget(pd, f1), "value", "hello *world*");
	EXPECT_STR(jget(pd, f1), "rendered_value", "<p>hello <em>world</em></p>");
	EXPECT_KEYS(jget(pd, f2), "value");
	EXPECT_STR(jget(pd, f2), "value", "0");
	/* Not asked for: no profile_data. */
	r = get_user(v, fmt("%lld", (long long)u->id));
	EXPECT_SUCCESS(r);
	EXPECT_ABSENT(jget(r->json, "user"), "profile_data");

	/* The list. */
	r = api_get(v, "/users?include_custom_profile_fields=true");
	EXPECT_SUCCESS(r);
	json_object *ju = find_member(members_of(r), u->id);
	pd = jget(ju, "profile_data");
	EXPECT_KEYS(pd, f1, f2);
	EXPECT_STR(jget(pd, f1), "rendered_value", "<p>hello <em>world</em></p>");
	EXPECT_ABSENT(jget(pd, f2), "rendered_value");
	json_object *jv = find_member(members_of(r), v->id);
	json_object *empty = jget(jv, "profile_data");
	CHECK(empty != NULL && json_object_is_type(empty, json_type_object) && json_object_object_length(empty) == 0,
	      "a user without values has profile_data {}: %s", jtext(jv));
	r = api_get(v, "/users");
	EXPECT_ABSENT(find_member(members_of(r), u->id), "profile_data");

	/* The user's own profile always has them. */
	r = api_get(u, "/users/me");
	pd = jget(r->json, "profile_data");
	EXPECT_KEYS(pd, f1, f2);
	EXPECT_STR(jget(pd, f1), "value", "hello *world*");
}

/* ---- e-mail visibility -------------------------------------------------------------------------------------- */

static void set_visibility(const struct user *u, int v)
{
	psql_ok("UPDATE users SET email_address_visibility = %d WHERE id = %lld", v, (long long)u->id);
}

static void test_email_visibility_admins(void)
{
	struct user *t = new_user("member");
	struct user *m = new_user("member");
	struct user *a = new_user("admin");
	set_visibility(t, 3);
	const char *fake = fake_email(t->id);

	/* A member sees the placeholder address and no delivery_email. */
	struct resp *r = get_user(m, fmt("%lld", (long long)t->id));
	EXPECT_SUCCESS(r);
	json_object *o = jget(r->json, "user");
	EXPECT_STR(o, "email", fake);
	EXPECT_NULL(o, "delivery_email");
	/* client_gravatar (default true) does not apply: the client cannot hash a hidden address. */
	EXPECT_STR(o, "avatar_url", gravatar_url(t->email, 1));
	r = api_get(m, "/users");
	o = find_member(members_of(r), t->id);
	EXPECT_STR(o, "email", fake);
	EXPECT_NULL(o, "delivery_email");
	EXPECT_STR(o, "avatar_url", gravatar_url(t->email, 1));

	/* Owners and administrators see the real address; email stays the placeholder. */
	r = get_user(&itest_owner, fmt("%lld", (long long)t->id));
	o = jget(r->json, "user");
	EXPECT_STR(o, "delivery_email", t->email);
	EXPECT_STR(o, "email", fake);
	r = api_get(a, "/users");
	o = find_member(members_of(r), t->id);
	EXPECT_STR(o, "delivery_email", t->email);
	EXPECT_STR(o, "email", fake);

	/* The user sees their own address. */
	r = api_get(t, "/users/me");
	EXPECT_STR(r->json, "delivery_email", t->email);
	EXPECT_STR(r->json, "email", fake);

	/* Lookup by address. */
	r = get_user(m, fake);
	EXPECT_SUCCESS(r);
	EXPECT_INT(jget(r->json, "user"), "user_id", t->id);
	EXPECT_ERROR(get_user(m, url_encode(t->email)), 400, "BAD_REQUEST", "No such user");
	EXPECT_ERROR(get_user(m, url_encode(upper(t->email))), 400, "BAD_REQUEST", "No such user");
	r = get_user(&itest_owner, url_encode(t->email));
	EXPECT_SUCCESS(r);
	EXPECT_INT(jget(r->json, "user"), "user_id", t->id);
	r = get_user(a, url_encode(t->email));
	EXPECT_SUCCESS(r);
	r = get_user(&itest_owner, fake);
	EXPECT_SUCCESS(r);
	EXPECT_INT(jget(r->json, "user"), "user_id", t->id);
}

/* 2 = members, 4 = nobody, 5 = moderators. */
static void test_email_visibility_levels(void)
{
	struct user *members_only = new_user("member"), *nobody = new_user("member"), *mods = new_user("member");
	set_visibility(members_only, 2);
	set_visibility(nobody, 4);
	set_visibility(mods, 5);
	struct user *guest = new_user("guest"), *member = new_user("member"), *moderator = new_user("moderator");
	struct {
		const struct user *viewer, *target;
		bool visible;
	} cases[] = {
	    {member, members_only, true}, {guest, members_only, false}, {member, mods, false},
	    {moderator, mods, true},      {&itest_owner, mods, true},   {&itest_owner, nobody, false},
	    {moderator, nobody, false},   {nobody, nobody, true},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct user *viewer = cases[i].viewer, *target = cases[i].target;
		/* A guest may be limited to users it shares something with; use the list it can see. */
		struct resp *r = get_user(viewer, fmt("%lld", (long long)target->id));
		json_object *o = jget(r->json, "user");
		if (viewer == guest && r->status != 200)
			continue;
		EXPECT_SUCCESS(r);
		if (cases[i].visible)
			EXPECT_STR(o, "delivery_email", target->email);
		else
			EXPECT_NULL(o, "delivery_email");
		EXPECT_STR(o, "email", fake_email(target->id));
		/* Lookup by the real address follows the role's visibility levels (no self special case there). */
		if (viewer == target)
			continue;
		r = get_user(viewer, url_encode(target->email));
		if (cases[i].visible) {
			EXPECT_SUCCESS(r);
			EXPECT_INT(jget(r->json, "user"), "user_id", target->id);
		} else {
			EXPECT_ERROR(r, 400, "BAD_REQUEST", "No such user");
		}
	}
}

/* ---- GET /users/{user_id} and /users/{email} ---------------------------------------------------------------- */

static void test_get_user_by_id(void)
{
	struct user *u = new_user("member"), *v = new_user("member");
	struct resp *r = get_user(u, fmt("%lld", (long long)v->id));
	EXPECT_SUCCESS(r);
	EXPECT_KEYS(r->json, "result", "msg", "user");
	json_object *o = jget(r->json, "user");
	EXPECT_INT(o, "user_id", v->id);
	EXPECT_STR(o, "email", v->email);
	EXPECT_STR(o, "delivery_email", v->email);
	EXPECT_INT(o, "role", 400);
	EXPECT_BOOL(o, "is_active", true);
	EXPECT_BOOL(o, "is_bot", false);
	EXPECT_ABSENT(o, "max_message_id");
	EXPECT_ABSENT(o, "profile_data");
	EXPECT_NO_BOT_TYPE(o);
	/* Oneself too. */
	r = get_user(u, fmt("%lld", (long long)u->id));
	EXPECT_SUCCESS(r);
	EXPECT_INT(jget(r->json, "user"), "user_id", u->id);
}

static void test_get_user_by_email(void)
{
	struct user *u = new_user("member"), *v = new_user("member");
	struct resp *r = get_user(u, url_encode(v->email));
	EXPECT_SUCCESS(r);
	EXPECT_KEYS(r->json, "result", "msg", "user");
	EXPECT_INT(jget(r->json, "user"), "user_id", v->id);
	EXPECT_STR(jget(r->json, "user"), "delivery_email", v->email);
	/* Case-insensitive, like the delivery_email lookup in Zulip. */
	r = get_user(u, url_encode(upper(v->email)));
	EXPECT_SUCCESS(r);
	EXPECT_INT(jget(r->json, "user"), "user_id", v->id);
	/* The placeholder address user<ID>@<host> works for visible addresses too. */
	r = get_user(u, fake_email(v->id));
	EXPECT_SUCCESS(r);
	EXPECT_INT(jget(r->json, "user"), "user_id", v->id);
}

static void test_get_user_unknown(void)
{
	struct user *u = new_user("member");
	EXPECT_ERROR(get_user(u, "999999999"), 400, "BAD_REQUEST", "No such user");
	EXPECT_ERROR(get_user(u, url_encode(unique_email("nobody"))), 400, "BAD_REQUEST", "No such user");
	EXPECT_ERROR(get_user(u, "not-an-email"), 400, "BAD_REQUEST", "No such user");
	EXPECT_ERROR(get_user(u, fake_email(999999999)), 400, "BAD_REQUEST", "No such user");
	/* Bytes that are not UTF-8 (Django re-percent-encodes them) name nobody either. */
	EXPECT_ERROR(get_user(u, "%FF%FE%40example.com"), 400, "BAD_REQUEST", "No such user");
	/* Users of another organization do not exist here. */
	struct user *o = new_realm();
	EXPECT_ERROR(get_user(u, fmt("%lld", (long long)o->id)), 400, "BAD_REQUEST", "No such user");
	EXPECT_ERROR(get_user(u, url_encode(o->email)), 400, "BAD_REQUEST", "No such user");
	EXPECT_ERROR(get_user(u, fake_email(o->id)), 400, "BAD_REQUEST", "No such user");
	/* ... and the other way round. */
	EXPECT_ERROR(get_user(o, fmt("%lld", (long long)u->id)), 400, "BAD_REQUEST", "No such user");
}

static void test_get_deactivated_user_and_bot(void)
{
	struct user *u = new_user("member"), *d = new_user("member"), *b = new_bot();
	deactivate_user(d);
	struct resp *r = get_user(u, fmt("%lld", (long long)d->id));
	EXPECT_SUCCESS(r);
	EXPECT_BOOL(jget(r->json, "user"), "is_active", false);
	r = get_user(u, url_encode(d->email));
	EXPECT_SUCCESS(r);
	EXPECT_INT(jget(r->json, "user"), "user_id", d->id);
	r = get_user(u, fmt("%lld", (long long)b->id));
	EXPECT_SUCCESS(r);
	EXPECT_BOOL(jget(r->json, "user"), "is_bot", true);
	r = get_user(u, url_encode(b->email));
	EXPECT_SUCCESS(r);
	EXPECT_INT(jget(r->json, "user"), "user_id", b->id);
}

/* ---- POST /users -------------------------------------------------------------------------------------------- */

static const char *strong_password = "Tq8#vLm2Zr9x!Kp4";

static struct resp *create(const struct user *c, const char *email, const char *password, const char *name)
{
	return api_post(
	    c, "/users",
	    fmt("email=%s&password=%s&full_name=%s", url_encode(email), url_encode(password), url_encode(name)));
}

static void test_create_user_requires_admin(void)
{
	static const char *const roles[] = {"member", "moderator", "guest"};
	for (size_t i = 0; i < 3; i++) {
		struct user *u = new_user(roles[i]);
		EXPECT_ERROR(create(u, unique_email("denied"), strong_password, "Denied User"), 400,
		             "UNAUTHORIZED_PRINCIPAL", "Must be an organization administrator");
	}
	/* Even with can_create_users, a member is not an administrator. */
	struct user *m = new_user_in("", "member", (const char *const[]){"--can-create-users", NULL});
	EXPECT_ERROR(create(m, unique_email("denied"), strong_password, "Denied User"), 400, "UNAUTHORIZED_PRINCIPAL",
	             "Must be an organization administrator");
}

static void test_create_user_requires_permission(void)
{
	struct user *a = new_user("admin");
	EXPECT_ERROR(create(a, unique_email("denied"), strong_password, "Denied User"), 400, "BAD_REQUEST",
	             "User not authorized to create users");
	struct user *o = new_user("owner");
	EXPECT_ERROR(create(o, unique_email("denied"), strong_password, "Denied User"), 400, "BAD_REQUEST",
	             "User not authorized to create users");
	/* Granted by an operator: works for an administrator too. */
	psql_ok("UPDATE users SET can_create_users = true WHERE id = %lld", (long long)a->id);
	struct resp *r = create(a, unique_email("granted"), strong_password, "Granted User");
	EXPECT_SUCCESS(r);
}

static void test_create_user(void)
{
	struct user *c = creator();
	const char *email = unique_email("created");
	struct resp *r = create(c, email, strong_password, "  Created  User  ");
	EXPECT_SUCCESS(r);
	EXPECT_KEYS(r->json, "result", "msg", "user_id");
	int64_t id = jint(r->json, "user_id");
	REQUIRE(id > 0, "no user_id: %s", r->body);

	r = api_get(c, "/users");
	json_object *o = find_member(members_of(r), id);
	REQUIRE(o != NULL, "new user %lld missing from GET /users", (long long)id);
	EXPECT_INT(o, "role", 400);
	EXPECT_STR(o, "full_name", "Created  User"); /* stripped, inner spaces kept */
	EXPECT_STR(o, "delivery_email", email);
	EXPECT_BOOL(o, "is_active", true);
	EXPECT_BOOL(o, "is_bot", false);
	EXPECT_RECENT_DATE(o, "date_joined");

	/* The password works for fetch_api_key, and the key for the API. */
	r = http(
	    &(struct request){.method = "POST",
	                      .path = "/api/v1/fetch_api_key",
	                      .form = fmt("username=%s&password=%s", url_encode(email), url_encode(strong_password))});
	EXPECT_SUCCESS(r);
	EXPECT_INT(r->json, "user_id", id);
	struct user nu = {
	    .id = id, .email = (char *)email, .key = (char *)jstr(r->json, "api_key"), .realm = (char *)""};
	REQUIRE(nu.key != NULL, "no api_key: %s", r->body);
	r = api_get(&nu, "/users/me");
	EXPECT_SUCCESS(r);
	EXPECT_INT(r->json, "user_id", id);
	EXPECT_INT(r->json, "role", 400);
}

static void test_create_user_duplicate_email(void)
{
	struct user *c = creator();
	struct user *existing = new_user("member");
	const char *shout = upper(existing->email);
	EXPECT_ERROR(create(c, existing->email, strong_password, "Dup User"), 400, "BAD_REQUEST",
	             fmt("Email '%s' already in use", existing->email));
	EXPECT_ERROR(create(c, shout, strong_password, "Dup User"), 400, "BAD_REQUEST",
	             fmt("Email '%s' already in use", shout));
	/* A deactivated account still holds its address. */
	struct user *d = new_user("member");
	deactivate_user(d);
	EXPECT_ERROR(create(c, d->email, strong_password, "Dup User"), 400, "BAD_REQUEST",
	             fmt("Email '%s' already in use", d->email));
	/* Created through the API, then again. */
	const char *email = unique_email("twice");
	EXPECT_SUCCESS(create(c, email, strong_password, "Twice User"));
	EXPECT_ERROR(create(c, upper(email), strong_password, "Twice User"), 400, "BAD_REQUEST",
	             fmt("Email '%s' already in use", upper(email)));
	/* An address used in another organization is free here. */
	struct user *o = new_realm();
	EXPECT_SUCCESS(create(c, o->email, strong_password, "Other Org User"));
}

static void test_create_user_bad_email(void)
{
	struct user *c = creator();
	static const char *const bad[] = {"not-an-email",       "a@b",           "two@@example.com", "@example.com",
	                                  "sp ace@example.com", "x@exa_mple.com"};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		EXPECT_ERROR(create(c, bad[i], strong_password, "Bad Email"), 400, "BAD_REQUEST",
		             "Bad name or username");
}

static void test_create_user_bad_name(void)
{
	struct user *c = creator();
	EXPECT_ERROR(create(c, unique_email("n"), strong_password, "a"), 400, "BAD_REQUEST", "Name too short!");
	EXPECT_ERROR(create(c, unique_email("n"), strong_password, "   "), 400, "BAD_REQUEST", "Name too short!");
	EXPECT_ERROR(create(c, unique_email("n"), strong_password, repeat('n', 101)), 400, "BAD_REQUEST",
	             "Name too long!");
	EXPECT_ERROR(create(c, unique_email("n"), strong_password, "bad*name"), 400, "BAD_REQUEST",
	             "Invalid characters in name!");
	EXPECT_ERROR(create(c, unique_email("n"), strong_password, "Name|123"), 400, "BAD_REQUEST", "Invalid format!");
	/* 100 characters (not bytes) are fine. */
	const char *hundred = "";
	for (int i = 0; i < 100; i++)
		hundred = fmt("%s\xc3\xa9", hundred);
	struct resp *r = create(c, unique_email("n"), strong_password, hundred);
	EXPECT_SUCCESS(r);
}

/* check_full_name tests length (too long, too short) before the characters. */
static void test_create_user_name_check_order(void)
{
	struct user *c = creator();
	EXPECT_ERROR(create(c, unique_email("n"), strong_password, "*"), 400, "BAD_REQUEST", "Name too short!");
	EXPECT_ERROR(create(c, unique_email("n"), strong_password, fmt("*%s", repeat('n', 100))), 400, "BAD_REQUEST",
	             "Name too long!");
}

static void test_create_user_weak_password(void)
{
	struct user *c = creator();
	EXPECT_ERROR(create(c, unique_email("weak"), "12345", "Weak Password"), 400, "BAD_REQUEST",
	             "The password is too weak.");
	EXPECT_ERROR(create(c, unique_email("weak"), "", "Weak Password"), 400, "BAD_REQUEST",
	             "The password is too weak.");
}

/* check_password_strength also requires PASSWORD_MIN_GUESSES (10000) zxcvbn guesses. */
static void test_create_user_common_password(void)
{
	struct user *c = creator();
	EXPECT_ERROR(create(c, unique_email("weak"), "password", "Common Password"), 400, "BAD_REQUEST",
	             "The password is too weak.");
}

/* Name, then e-mail, then duplicate, then password. */
static void test_create_user_check_order(void)
{
	struct user *c = creator();
	EXPECT_ERROR(create(c, "not-an-email", "12345", "a"), 400, "BAD_REQUEST", "Name too short!");
	EXPECT_ERROR(create(c, "not-an-email", "12345", "Good Name"), 400, "BAD_REQUEST", "Bad name or username");
	struct user *existing = new_user("member");
	EXPECT_ERROR(create(c, existing->email, "12345", "Good Name"), 400, "BAD_REQUEST",
	             fmt("Email '%s' already in use", existing->email));
}

void register_users_tests(void)
{
	static const struct itest_case cases[] = {
	    {"me_fields", test_me_fields},
	    {"roles", test_roles},
	    {"users_list_complete_and_ordered", test_users_list_complete_and_ordered},
	    {"users_list_client_gravatar", test_users_list_client_gravatar},
	    {"users_list_bots", test_users_list_bots},
	    {"custom_profile_fields", test_custom_profile_fields},
	    {"email_visibility_admins", test_email_visibility_admins},
	    {"email_visibility_levels", test_email_visibility_levels},
	    {"get_user_by_id", test_get_user_by_id},
	    {"get_user_by_email", test_get_user_by_email},
	    {"get_user_unknown", test_get_user_unknown},
	    {"get_deactivated_user_and_bot", test_get_deactivated_user_and_bot},
	    {"create_user_requires_admin", test_create_user_requires_admin},
	    {"create_user_requires_permission", test_create_user_requires_permission},
	    {"create_user", test_create_user},
	    {"create_user_duplicate_email", test_create_user_duplicate_email},
	    {"create_user_bad_email", test_create_user_bad_email},
	    {"create_user_bad_name", test_create_user_bad_name},
	    {"create_user_name_check_order", test_create_user_name_check_order},
	    {"create_user_weak_password", test_create_user_weak_password},
	    {"create_user_common_password", test_create_user_common_password},
	    {"create_user_check_order", test_create_user_check_order},
	    {NULL, NULL},
	};
	itest_add_suite("users", cases);
}
