/*
 * The workers' caches (src/model/cache.h, src/model/realm_users.h, src/model/realm_groups.h,
 * src/model/channel_counts.h). Authentication: whatever changes a user, an API key or an organization
 * (the API, confabctl, psql), every worker process stops answering from its copy within the same second, also
 * after a PostgreSQL restart and after its LISTEN connection was cut. Each test first sends enough requests that
 * every api process has the credentials cached, and after the change checks a run of requests, so that every
 * process answers at least once.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "itest.h"

#define WARM_REQUESTS  20
#define CHECK_REQUESTS 8

/*
 * Refused keys count against the client address (api_key_fail_limit_address): each test sends from an address
 * of its own, so that the refusals it provokes never reach that limit, nor another suite's.
 */
static int address_no = 60;
static char address_buf[32];
static const char *address; /* NULL until a test takes one; kept across tests (not freed with a test's strings) */

static void next_address(void)
{
	snprintf(address_buf, sizeof(address_buf), "127.0.0.%d", address_no++);
	address = address_buf;
}

static struct resp *get(const struct user *u, const char *path)
{
	return http(&(struct request){.path = fmt("/api/v1%s", path), .user = u, .source_addr = address});
}

/* Enough requests that every api process holds u's credentials (and its organization). */
static void warm(const struct user *u)
{
	next_address();
	for (int i = 0; i < WARM_REQUESTS; i++)
		EXPECT_SUCCESS(get(u, "/users/me"));
}

static bool same(const char *a, const char *b)
{
	return a == b || (a != NULL && b != NULL && strcmp(a, b) == 0);
}

/* Whether r is the error (status, code, msg). */
static bool is_error(const struct resp *r, long status, const char *code, const char *msg)
{
	const char *c = jstr(r->json, "code"), *m = jstr(r->json, "msg");
	return r->status == status && c && strcmp(c, code) == 0 && m && strcmp(m, msg) == 0;
}

/* Whether r is the reference's 401 for a refused API key with message msg. */
static bool is_refusal(const struct resp *r, const char *msg)
{
	return is_error(r, 401, "UNAUTHORIZED", msg);
}

/*
 * Within one second of the change, GET path as u is refused with msg, and then CHECK_REQUESTS requests in a row
 * are too (every process has dropped its copy).
 */
static void expect_refused_everywhere(const struct user *u, const char *path, const char *msg)
{
	double deadline = now_secs() + 1.0;
	struct resp *r = get(u, path);
	next_address(); /* a fresh allowance of refusals for the checks */
	while (!is_refusal(r, msg) && now_secs() < deadline) {
		usleep(20000);
		r = get(u, path);
	}
	CHECK(is_refusal(r, msg), "GET %s still answered %ld %s one second after the change", path, r->status, r->body);
	for (int i = 0; i < CHECK_REQUESTS; i++)
		EXPECT_ERROR(get(u, path), 401, "UNAUTHORIZED", msg);
}

/* Deactivation through the API (DELETE /users/{id} by an administrator). */
static void test_deactivate_user_api(void)
{
	struct user *admin = new_user("admin"), *u = new_user("member");
	warm(u);
	struct resp *r = api_method("DELETE", admin, fmt("/users/%lld", (long long)u->id));
	EXPECT_SUCCESS(r);
	expect_refused_everywhere(u, "/users/me", "Account is deactivated");
}

/* A new key from confabctl (another process): the old key is refused everywhere, the new one accepted. */
static void test_reset_key_ctl(void)
{
	struct user *u = new_user("member");
	warm(u);
	json_object *j = ctl((const char *const[]){"reset-api-key", "--realm", u->realm, "--email", u->email, NULL});
	REQUIRE(j != NULL && jstr(j, "api_key") != NULL, "confabctl reset-api-key failed");
	expect_refused_everywhere(u, "/users/me", "Invalid API key");
	struct user fresh = *u;
	fresh.key = keep(strdup(jstr(j, "api_key")));
	for (int i = 0; i < CHECK_REQUESTS; i++)
		EXPECT_SUCCESS(get(&fresh, "/users/me"));
}

/* A change made with psql, which no worker sees happen. */
static void test_psql_deactivate(void)
{
	struct user *u = new_user("member");
	warm(u);
	psql_ok("UPDATE users SET is_active = false WHERE id = %lld", (long long)u->id);
	expect_refused_everywhere(u, "/users/me", "Account is deactivated");
	psql_ok("UPDATE users SET is_active = true WHERE id = %lld", (long long)u->id);
	double deadline = now_secs() + 1.0;
	while (get(u, "/users/me")->status != 200 && now_secs() < deadline)
		usleep(20000);
	for (int i = 0; i < CHECK_REQUESTS; i++)
		EXPECT_SUCCESS(get(u, "/users/me"));
}

/* A deactivated organization, for its users and for the spectators' routes by host. */
static void test_realm_deactivated(void)
{
	struct user *o = new_realm();
	warm(o);
	psql_ok("UPDATE realms SET deactivated = true WHERE subdomain = '%s'", o->realm);
	expect_refused_everywhere(o, "/users/me", "This organization has been deactivated");
}

/* A role change is seen at once by an administrators-only route, both ways. */
static void test_role_change(void)
{
	struct user *owner = new_user("owner"), *u = new_user("member");
	warm(u);
	const char *admin_only = "/realm/profile_fields"; /* POST is R_ADMIN; an empty name is refused after the role */
	EXPECT_ERROR(api_post(u, admin_only, "name=&field_type=1"), 400, "UNAUTHORIZED_PRINCIPAL",
	             "Must be an organization administrator");
	struct resp *r = http(&(struct request){.method = "PATCH",
	                                        .path = fmt("/api/v1/users/%lld", (long long)u->id),
	                                        .user = owner,
	                                        .form = "role=200"});
	EXPECT_SUCCESS(r);
	for (double deadline = now_secs() + 1.0; jint(get(u, "/users/me")->json, "role") != 200 && now_secs() < deadline;)
		usleep(20000);
	for (int i = 0; i < CHECK_REQUESTS; i++) {
		r = get(u, "/users/me");
		EXPECT_INT(r->json, "role", 200);
		EXPECT_BOOL(r->json, "is_admin", true);
	}
	r = http(&(struct request){.method = "PATCH",
	                           .path = fmt("/api/v1/users/%lld", (long long)u->id),
	                           .user = owner,
	                           .form = "role=400"});
	EXPECT_SUCCESS(r);
	/* Another process may answer from its copy until the notification reaches it: within the same second. */
	double deadline = now_secs() + 1.0;
	while (!same(jstr(api_post(u, admin_only, "name=&field_type=1")->json, "code"), "UNAUTHORIZED_PRINCIPAL") &&
	       now_secs() < deadline)
		usleep(20000);
	for (int i = 0; i < CHECK_REQUESTS; i++)
		EXPECT_ERROR(api_post(u, admin_only, "name=&field_type=1"), 400, "UNAUTHORIZED_PRINCIPAL",
		             "Must be an organization administrator");
}

/* The LISTEN connections cut (as a failover would) together with a change: the reconnected caches start empty. */
static void test_listener_cut(void)
{
	struct user *u = new_user("member");
	warm(u);
	psql_ok("SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE query = 'LISTEN confab_cache';"
	        " UPDATE users SET is_active = false WHERE id = %lld",
	        (long long)u->id);
	expect_refused_everywhere(u, "/users/me", "Account is deactivated");
}

/* After a PostgreSQL restart the listeners come back: a psql change is still seen everywhere. */
static void test_postgresql_restart(void)
{
	struct user *u = new_user("member");
	warm(u);
	run_env_command("CONFAB_RESTART_PG");
	double deadline = now_secs() + 15.0;
	while (get(u, "/users/me")->status != 200 && now_secs() < deadline)
		usleep(100000);
	warm(u);
	psql_ok("UPDATE users SET is_active = false WHERE id = %lld", (long long)u->id);
	expect_refused_everywhere(u, "/users/me", "Account is deactivated");
}

/* ---- POST /register's realm_users ---------------------------------------------------------------------------- */

#define REALM_USER_FORM "event_types=%5B%22realm_user%22%5D&fetch_event_types=%5B%22realm_user%22%5D"

static struct resp *register_users(const struct user *u)
{
	struct resp *r = api_post(u, "/register", REALM_USER_FORM);
	EXPECT_SUCCESS(r);
	REQUIRE(jget(r->json, "realm_users") != NULL, "register: %s", r->body);
	return r;
}

/* Registers often enough that every api process keeps the lists as u's kind of viewer sees them. */
static void warm_register(const struct user *u)
{
	for (int i = 0; i < 6; i++)
		register_users(u);
}

/* The object of user id in the realm_users of a register answer (fatal if absent). */
static json_object *person_in(const struct resp *r, int64_t id)
{
	json_object *p = find_member(jget(r->json, "realm_users"), id);
	REQUIRE(p != NULL, "user %lld missing from realm_users: %.300s", (long long)id, r->body);
	return p;
}

/* Addresses visible to administrators only: a member sees its own address, and no other member's. */
static void test_register_own_object(void)
{
	struct user *o = new_realm();
	struct user *a = new_user_in(o->realm, "member", NULL), *b = new_user_in(o->realm, "member", NULL);
	psql_ok("UPDATE users SET email_address_visibility = 3 WHERE id IN (%lld, %lld)", (long long)a->id,
	        (long long)b->id);
	for (int i = 0; i < 6; i++) {
		const struct user *me = i % 2 ? a : b, *other = i % 2 ? b : a;
		struct resp *r = register_users(me);
		EXPECT_STR(person_in(r, me->id), "delivery_email", me->email);
		EXPECT_NULL(person_in(r, other->id), "delivery_email");
		r = register_users(o);
		EXPECT_STR(person_in(r, a->id), "delivery_email", a->email);
		EXPECT_STR(person_in(r, b->id), "delivery_email", b->email);
	}
}

/* A change made with psql is in the very next answer of every process, without waiting. */
static void test_register_sees_psql_change(void)
{
	struct user *o = new_realm(), *a = new_user_in(o->realm, "member", NULL);
	warm_register(o);
	warm_register(a);
	psql_ok("UPDATE users SET full_name = 'Renamed By Psql' WHERE id = %lld", (long long)a->id);
	for (int i = 0; i < 6; i++) {
		EXPECT_STR(person_in(register_users(o), a->id), "full_name", "Renamed By Psql");
		EXPECT_STR(person_in(register_users(a), a->id), "full_name", "Renamed By Psql");
	}
}

/* A custom profile value set through the API is in the next answers. */
static void test_register_sees_profile_value(void)
{
	struct user *o = new_realm(), *a = new_user_in(o->realm, "member", NULL);
	struct resp *r = api_post(o, "/realm/profile_fields", "name=Team&field_type=1");
	EXPECT_SUCCESS(r);
	int64_t field = jint(r->json, "id");
	warm_register(o);
	r = http(&(struct request){.method = "PATCH",
	                           .path = "/api/v1/users/me/profile_data",
	                           .user = a,
	                           .form = fmt("data=%%5B%%7B%%22id%%22%%3A%lld%%2C%%22value%%22%%3A%%22Blue%%22%%7D%%5D",
	                                       (long long)field)});
	EXPECT_SUCCESS(r);
	for (int i = 0; i < 6; i++) {
		json_object *values = jget(person_in(register_users(o), a->id), "profile_data");
		EXPECT_STR(jget(values, fmt("%lld", (long long)field)), "value", "Blue");
	}
}

/* The value of field in a's GET /users/me answer (NULL when it has none), through the test's address. */
static const char *me_value(const struct user *a, int64_t field)
{
	struct resp *r = get(a, "/users/me");
	EXPECT_SUCCESS(r);
	json_object *v = jget(jget(r->json, "profile_data"), fmt("%lld", (long long)field));
	return v != NULL ? jstr(v, "value") : NULL;
}

/* Within one second every process's GET /users/me shows value (NULL: none) for field, CHECK_REQUESTS times. */
static void expect_me_value(const struct user *a, int64_t field, const char *value)
{
	double deadline = now_secs() + 1.0;
	while (!same(me_value(a, field), value) && now_secs() < deadline)
		usleep(20000);
	for (int i = 0; i < CHECK_REQUESTS; i++) {
		const char *v = me_value(a, field);
		CHECK(same(v, value), "GET /users/me profile value %s, expected %s", v ? v : "(none)", value ? value : "(none)");
	}
}

/* The form of PATCH /users/me/profile_data setting field (%lld) to a value (%s). */
#define SET_VALUE "data=%%5B%%7B%%22id%%22%%3A%lld%%2C%%22value%%22%%3A%%22%s%%22%%7D%%5D"

/* GET /users/me keeps the user's custom profile values: a change with psql or through the API is in every answer. */
static void test_users_me_profile_value(void)
{
	struct user *o = new_realm(), *a = new_user_in(o->realm, "member", NULL);
	struct resp *r = api_post(o, "/realm/profile_fields", "name=Team&field_type=1");
	EXPECT_SUCCESS(r);
	int64_t field = jint(r->json, "id");
	EXPECT_SUCCESS(http(&(struct request){.method = "PATCH",
	                                      .path = "/api/v1/users/me/profile_data",
	                                      .user = a,
	                                      .form = fmt(SET_VALUE, (long long)field, "Blue")}));
	warm(a);
	expect_me_value(a, field, "Blue");
	psql_ok("UPDATE custom_profile_field_values SET value = 'Green' WHERE user_id = %lld AND field_id = %lld",
	        (long long)a->id, (long long)field);
	expect_me_value(a, field, "Green");
	/* Through the API (any process). */
	EXPECT_SUCCESS(http(&(struct request){.method = "PATCH",
	                                      .path = "/api/v1/users/me/profile_data",
	                                      .user = a,
	                                      .form = fmt(SET_VALUE, (long long)field, "Red")}));
	expect_me_value(a, field, "Red");
	psql_ok("DELETE FROM custom_profile_field_values WHERE user_id = %lld", (long long)a->id);
	expect_me_value(a, field, NULL);
}

/* Starts n_writers loops creating n users each in o's organization; popen()ed, waited for by pclose(). */
static FILE *start_user_writers(const struct user *o, int n_writers, int n)
{
	char *loops = fmt("%s", "");
	for (int w = 0; w < n_writers; w++)
		loops = fmt("%s(for i in $(seq 1 %d); do curl -s -o /dev/null -u '%s:%s' -H 'Host: %s' "
		            "--data-urlencode \"email=race-%d-$i-%ld@example.com\" --data-urlencode 'full_name=Race User' "
		            "--data-urlencode 'password=Uncommon-Pass-4271' '%s/api/v1/users'; done) & ",
		            loops, n, o->email, o->key, realm_host(o->realm), w, (long)getpid(), itest_url);
	FILE *bg = popen(fmt("%s wait", loops), "r");
	REQUIRE(bg != NULL, "could not start the writers");
	return bg;
}

/*
 * Race-free register with kept lists: while users are created, the owner registers (its kind of lists kept by
 * every process beforehand). Its realm_users plus the realm_user add events that follow equal a fresh register's,
 * with nobody both in the state and in an event and nobody missed.
 */
static void test_register_races_user_creation(void)
{
	struct user *o = new_realm();
	psql_ok("UPDATE users SET can_create_users = true WHERE id = %lld", (long long)o->id);
	warm_register(o);
	int before = (int)json_object_array_length(jget(register_users(o)->json, "realm_users"));
	FILE *bg = start_user_writers(o, 3, 10);
	/* Register once some users exist, while the others are being created. */
	for (int i = 0; i < 200; i++) {
		char *n = psql_ok("SELECT count(*) FROM users u JOIN realms r ON r.id = u.realm_id"
		                  " WHERE r.subdomain = '%s' AND NOT u.is_system_bot",
		                  o->realm);
		if (atoi(n) >= before + 5)
			break;
		usleep(20000);
	}
	struct resp *r = register_users(o);
	pclose(bg);
	json_object *state = jget(r->json, "realm_users");
	int initial = (int)json_object_array_length(state), added = 0;
	struct resp *ev = api_get(o, fmt("/events?queue_id=%s&last_event_id=-1&dont_block=true", jstr(r->json, "queue_id")));
	EXPECT_SUCCESS(ev);
	json_object *events = jget(ev->json, "events");
	for (size_t i = 0; events && i < json_object_array_length(events); i++) {
		json_object *e = json_object_array_get_idx(events, i);
		if (strcmp(jstr(e, "op") ? jstr(e, "op") : "", "add") != 0)
			continue;
		int64_t id = jint(jget(e, "person"), "user_id");
		CHECK(find_member(state, id) == NULL, "user %lld both in the initial state and in an event", (long long)id);
		added++;
	}
	fprintf(stderr, " [initial state %d users, events %d] ", initial, added);
	int now = (int)json_object_array_length(jget(register_users(o)->json, "realm_users"));
	CHECK(initial + added == now, "fresh register has %d users; initial %d + events %d", now, initial, added);
	CHECK(now == before + 30, "%d users expected, got %d", before + 30, now);
}

/* ---- realm_user_groups (src/model/realm_groups.h) ---- */

#define GROUPS_FORM "event_types=%5B%22user_group%22%5D&fetch_event_types=%5B%22realm_user_groups%22%5D"
#define MEMBERS_GROUP_SQL                                                                                              \
	"(SELECT g.id FROM user_groups g JOIN realms r ON r.id = g.realm_id WHERE r.subdomain = '%s'"                   \
	" AND g.name = 'role:members')"

/* The group called name in the realm_user_groups of u's register answer (fatal if absent). */
static json_object *registered_group(const struct user *u, const char *name)
{
	struct resp *r = api_post(u, "/register", GROUPS_FORM);
	EXPECT_SUCCESS(r);
	json_object *groups = jget(r->json, "realm_user_groups");
	for (size_t i = 0; groups != NULL && i < json_object_array_length(groups); i++) {
		json_object *g = json_object_array_get_idx(groups, i);
		if (jstr(g, "name") != NULL && strcmp(jstr(g, "name"), name) == 0)
			return g;
	}
	REQUIRE(false, "group %s missing from realm_user_groups: %.300s", name, r->body);
	return NULL;
}

static bool has_id(json_object *ids, int64_t id)
{
	for (size_t i = 0; ids != NULL && i < json_object_array_length(ids); i++)
		if (json_object_get_int64(json_object_array_get_idx(ids, i)) == id)
			return true;
	return false;
}

/* Changes made with psql to a group and to its members are in the very next answers of every process. */
static void test_register_groups_see_psql_change(void)
{
	struct user *o = new_realm(), *a = new_user_in(o->realm, "member", NULL);
	for (int i = 0; i < 6; i++) {
		CHECK(has_id(jget(registered_group(i % 2 ? o : a, "role:members"), "members"), a->id),
		      "user %lld not among role:members", (long long)a->id);
	}
	psql_ok("UPDATE user_groups SET description = 'Changed By Psql' WHERE id = " MEMBERS_GROUP_SQL, o->realm);
	for (int i = 0; i < 6; i++)
		EXPECT_STR(registered_group(i % 2 ? o : a, "role:members"), "description", "Changed By Psql");
	psql_ok("DELETE FROM user_group_members WHERE user_id = %lld AND group_id = " MEMBERS_GROUP_SQL,
	        (long long)a->id, o->realm);
	for (int i = 0; i < 6; i++) {
		CHECK(!has_id(jget(registered_group(i % 2 ? o : a, "role:members"), "members"), a->id),
		      "user %lld still among role:members", (long long)a->id);
	}
	psql_ok("INSERT INTO user_group_members (group_id, user_id) VALUES (" MEMBERS_GROUP_SQL ", %lld)", o->realm,
	        (long long)a->id);
	for (int i = 0; i < 6; i++) {
		CHECK(has_id(jget(registered_group(i % 2 ? o : a, "role:members"), "members"), a->id),
		      "user %lld not among role:members again", (long long)a->id);
	}
}

/* The members of group id in the realm_user_groups of r (fatal if absent). */
static json_object *group_members(const struct resp *r, int64_t id)
{
	json_object *groups = jget(r->json, "realm_user_groups");
	for (size_t i = 0; groups != NULL && i < json_object_array_length(groups); i++) {
		json_object *g = json_object_array_get_idx(groups, i);
		if (jint(g, "id") == id)
			return jget(g, "members");
	}
	REQUIRE(false, "group %lld missing from realm_user_groups: %.300s", (long long)id, r->body);
	return NULL;
}

/*
 * Race-free register with kept groups: while members are added to a group one by one, the owner registers (the
 * groups kept by every process beforehand). Its members plus the add_members events that follow equal a fresh
 * register's, with nobody both in the state and in an event.
 */
static void test_register_races_group_members(void)
{
	struct user *o = new_realm();
	char *loops = fmt("%s", "");
	struct resp *r = api_post(o, "/user_groups/create", "name=racers&description=Racing&members=%5B%5D");
	EXPECT_SUCCESS(r);
	int64_t group = jint(r->json, "group_id");
	for (int w = 0; w < 2; w++) {
		char *adds = fmt("%s", "");
		for (int i = 0; i < 10; i++)
			adds = fmt("%s %lld", adds, (long long)new_user_in(o->realm, "member", NULL)->id);
		loops = fmt("%s(for id in %s; do curl -s -o /dev/null -u '%s:%s' -H 'Host: %s' --data-urlencode \"add=[$id]\" "
		            "'%s/api/v1/user_groups/%lld/members'; done) & ",
		            loops, adds, o->email, o->key, realm_host(o->realm), itest_url, (long long)group);
	}
	for (int i = 0; i < 6; i++)
		EXPECT_SUCCESS(api_post(o, "/register", GROUPS_FORM));
	FILE *bg = popen(fmt("%s wait", loops), "r");
	REQUIRE(bg != NULL, "could not start the writers");
	for (int i = 0; i < 200; i++) {
		char *n = psql_ok("SELECT count(*) FROM user_group_members WHERE group_id = %lld", (long long)group);
		if (atoi(n) >= 5)
			break;
		usleep(20000);
	}
	r = api_post(o, "/register", GROUPS_FORM);
	EXPECT_SUCCESS(r);
	pclose(bg);
	json_object *state = group_members(r, group);
	int initial = (int)json_object_array_length(state), added = 0;
	struct resp *ev = api_get(o, fmt("/events?queue_id=%s&last_event_id=-1&dont_block=true", jstr(r->json, "queue_id")));
	EXPECT_SUCCESS(ev);
	json_object *events = jget(ev->json, "events");
	for (size_t i = 0; events && i < json_object_array_length(events); i++) {
		json_object *e = json_object_array_get_idx(events, i), *ids = jget(e, "user_ids");
		if (strcmp(jstr(e, "op") ? jstr(e, "op") : "", "add_members") != 0 || jint(e, "group_id") != group)
			continue;
		for (size_t k = 0; k < json_object_array_length(ids); k++) {
			int64_t id = json_object_get_int64(json_object_array_get_idx(ids, k));
			CHECK(!has_id(state, id), "user %lld both in the initial state and in an event", (long long)id);
			added++;
		}
	}
	fprintf(stderr, " [initial state %d members, events %d] ", initial, added);
	r = api_post(o, "/register", GROUPS_FORM);
	EXPECT_SUCCESS(r);
	int now = (int)json_object_array_length(group_members(r, group));
	CHECK(initial + added == now, "fresh register has %d members; initial %d + events %d", now, initial, added);
	CHECK(now == 20, "20 members expected, got %d", now);
}

/* ---- subscriber counts (src/model/channel_counts.h) ---- */

#define CHANNELS_FORM "event_types=%5B%22subscription%22%5D&fetch_event_types=%5B%22subscription%22%5D"

/* The subscriber_count of channel id in u's register answer (its subscriptions or never_subscribed). */
static int64_t registered_count(const struct user *u, int64_t id)
{
	struct resp *r = api_post(u, "/register", CHANNELS_FORM);
	EXPECT_SUCCESS(r);
	static const char *const lists[] = {"subscriptions", "never_subscribed", "unsubscribed"};
	for (int l = 0; l < 3; l++) {
		json_object *list = jget(r->json, lists[l]);
		for (size_t i = 0; list != NULL && i < json_object_array_length(list); i++) {
			json_object *c = json_object_array_get_idx(list, i);
			if (jint(c, "stream_id") == id)
				return jint(c, "subscriber_count");
		}
	}
	REQUIRE(false, "channel %lld missing from the register answer: %.300s", (long long)id, r->body);
	return -1;
}

static void expect_count(const struct user *u, int64_t id, int64_t want)
{
	int64_t got = registered_count(u, id);
	CHECK(got == want, "subscriber_count of channel %lld: %lld, expected %lld", (long long)id, (long long)got,
	      (long long)want);
}

/* Subscriptions changed with psql, and a subscriber's deactivation, count in the very next answers everywhere. */
static void test_register_counts_see_psql_change(void)
{
	struct user *o = new_realm(), *a = new_user_in(o->realm, "member", NULL);
	int64_t id = create_channel_with(o, unique_channel_name("counted"), NULL);
	for (int i = 0; i < 6; i++)
		expect_count(i % 2 ? o : a, id, 1);
	psql_ok("INSERT INTO subscriptions (user_id, channel_id) VALUES (%lld, %lld)", (long long)a->id, (long long)id);
	for (int i = 0; i < 6; i++)
		expect_count(i % 2 ? o : a, id, 2);
	psql_ok("UPDATE subscriptions SET active = false WHERE user_id = %lld AND channel_id = %lld", (long long)o->id,
	        (long long)id);
	for (int i = 0; i < 6; i++)
		expect_count(i % 2 ? o : a, id, 1);
	psql_ok("UPDATE users SET is_active = false WHERE id = %lld", (long long)a->id);
	for (int i = 0; i < 6; i++)
		expect_count(o, id, 0);
	psql_ok("UPDATE users SET is_active = true WHERE id = %lld", (long long)a->id);
}

/* The can_remove_subscribers_group of channel id in u's register answer, as JSON text. */
static const char *registered_setting(const struct user *u, int64_t id)
{
	struct resp *r = api_post(u, "/register", CHANNELS_FORM);
	EXPECT_SUCCESS(r);
	json_object *list = jget(r->json, "subscriptions");
	for (size_t i = 0; list != NULL && i < json_object_array_length(list); i++) {
		json_object *c = json_object_array_get_idx(list, i);
		if (jint(c, "stream_id") == id)
			return jtext(jget(c, "can_remove_subscribers_group"));
	}
	REQUIRE(false, "channel %lld missing from the subscriptions: %.300s", (long long)id, r->body);
	return NULL;
}

/* A channel setting's unnamed group changed with psql is in the very next answers everywhere. */
static void test_register_setting_sees_psql_change(void)
{
	struct user *o = new_realm(), *a = new_user_in(o->realm, "member", NULL);
	const char *value = fmt("{\"direct_members\":[%lld],\"direct_subgroups\":[]}", (long long)a->id);
	int64_t id = create_channel_with(o, unique_channel_name("setting"),
	                                 fmt("can_remove_subscribers_group=%s", url_encode(value)));
	for (int i = 0; i < 6; i++)
		CHECK(strcmp(registered_setting(o, id), value) == 0, "before: %s", registered_setting(o, id));
	psql_ok("DELETE FROM user_group_members WHERE user_id = %lld AND group_id ="
	        " (SELECT can_remove_subscribers_group_id FROM channels WHERE id = %lld)",
	        (long long)a->id, (long long)id);
	const char *empty = "{\"direct_members\":[],\"direct_subgroups\":[]}";
	for (int i = 0; i < 6; i++)
		CHECK(strcmp(registered_setting(o, id), empty) == 0, "after: %s", registered_setting(o, id));
}

/* ---- the narrow's channel lookups (src/model/channel_cache.h) ------------------------------------------------ */

/* How many messages GET /messages of channel (by id, or by name when name is set) answers u; -1 for an error. */
static int channel_messages(const struct user *u, int64_t channel, const char *name)
{
	const char *operand = name ? fmt("\"%s\"", name) : fmt("%lld", (long long)channel);
	const char *narrow = fmt("[{\"operator\":\"channel\",\"operand\":%s}]", operand);
	struct resp *r = get(u, fmt("/messages?anchor=newest&num_before=10&num_after=0&narrow=%s", url_encode(narrow)));
	json_object *list = jget(r->json, "messages");
	return r->status == 200 && list != NULL ? (int)json_object_array_length(list) : -1;
}

/* Enough fetches that every api process holds u's lookup of channel, each answering want messages. */
static void warm_channel(const struct user *u, int64_t channel, const char *name, int want)
{
	next_address();
	for (int i = 0; i < WARM_REQUESTS; i++)
		CHECK(channel_messages(u, channel, name) == want, "warming: not %d messages", want);
}

/* Within one second, and then CHECK_REQUESTS times in a row, u's fetch of channel answers want messages. */
static void expect_channel_messages_everywhere(const struct user *u, int64_t channel, const char *name, int want)
{
	double deadline = now_secs() + 1.0;
	int n = channel_messages(u, channel, name);
	while (n != want && now_secs() < deadline) {
		usleep(20000);
		n = channel_messages(u, channel, name);
	}
	CHECK(n == want, "GET /messages still answered %d messages one second after the change, not %d", n, want);
	for (int i = 0; i < CHECK_REQUESTS; i++)
		CHECK(channel_messages(u, channel, name) == want, "request %d after the change: not %d messages", i,
		      want);
}

/* A private channel with shared history whose can_subscribe_group holds member: the member reads its history. */
static int64_t group_readable_channel(const struct user *owner, const struct user *member)
{
	int64_t id = create_channel_with(owner, unique_channel_name("cached"),
	                                 "invite_only=true&history_public_to_subscribers=true");
	const char *group = fmt("{\"new\":{\"direct_members\":[%lld],\"direct_subgroups\":[]}}", (long long)member->id);
	EXPECT_SUCCESS(http(&(struct request){.method = "PATCH",
	                                      .path = fmt("/api/v1/streams/%lld", (long long)id),
	                                      .user = owner,
	                                      .form = fmt("can_subscribe_group=%s", url_encode(group))}));
	send_channel_message(owner, psql_ok("SELECT name FROM channels WHERE id = %lld", (long long)id), "t", "one");
	return id;
}

/* psql removes the member from the group that lets them read the channel: its history is gone everywhere. */
static void test_channel_psql_group_member(void)
{
	struct user *owner = new_realm(), *member = new_user_in(owner->realm, "member", NULL);
	int64_t id = group_readable_channel(owner, member);
	warm_channel(member, id, NULL, 1);
	psql_ok("DELETE FROM user_group_members WHERE user_id = %lld"
	        " AND group_id = (SELECT can_subscribe_group_id FROM channels WHERE id = %lld)",
	        (long long)member->id, (long long)id);
	expect_channel_messages_everywhere(member, id, NULL, 0);
}

/* psql makes a public channel private: who is not subscribed no longer reads its history, by id or by name. */
static void test_channel_psql_private(void)
{
	struct user *owner = new_realm(), *member = new_user_in(owner->realm, "member", NULL);
	char *name = unique_channel_name("cached");
	int64_t id = create_channel_with(owner, name, NULL);
	send_channel_message(owner, name, "t", "one");
	warm_channel(member, id, NULL, 1);
	warm_channel(member, 0, name, 1);
	psql_ok("UPDATE channels SET invite_only = true WHERE id = %lld", (long long)id);
	expect_channel_messages_everywhere(member, id, NULL, 0);
	expect_channel_messages_everywhere(member, 0, name, 0);
}

/* psql makes a member a guest: the history of a public channel the guest is not subscribed to is gone at once. */
static void test_channel_psql_guest(void)
{
	struct user *owner = new_realm(), *member = new_user_in(owner->realm, "member", NULL);
	char *name = unique_channel_name("cached");
	int64_t id = create_channel_with(owner, name, NULL);
	send_channel_message(owner, name, "t", "one");
	warm_channel(member, id, NULL, 1);
	psql_ok("UPDATE users SET role = 600 WHERE id = %lld", (long long)member->id);
	expect_channel_messages_everywhere(member, id, NULL, 0);
}

/* A channel that does not exist is looked up again: created with psql, it is found at once. */
static void test_channel_psql_created(void)
{
	struct user *owner = new_realm();
	char *name = unique_channel_name("later");
	next_address();
	expect_channel_messages_everywhere(owner, 0, name, -1);
	int64_t id = create_channel_with(owner, name, NULL);
	send_channel_message(owner, name, "t", "one");
	CHECK(id > 0 && channel_messages(owner, 0, name) == 1, "the channel created after an unknown-channel answer");
}

/* psql renames a channel: the old name is unknown everywhere, the new one found. */
static void test_channel_psql_rename(void)
{
	struct user *owner = new_realm();
	char *name = unique_channel_name("cached"), *renamed = unique_channel_name("renamed");
	int64_t id = create_channel_with(owner, name, NULL);
	send_channel_message(owner, name, "t", "one");
	warm_channel(owner, 0, name, 1);
	psql_ok("UPDATE channels SET name = '%s' WHERE id = %lld", renamed, (long long)id);
	expect_channel_messages_everywhere(owner, 0, name, -1);
	EXPECT_ERROR(get(owner, fmt("/messages?anchor=newest&num_before=1&num_after=0&narrow=%s",
	                            url_encode(fmt("[[\"channel\",\"%s\"]]", name)))),
	             400, "BAD_NARROW", fmt("Invalid narrow operator: unknown channel %s", name));
	CHECK(channel_messages(owner, 0, renamed) == 1, "the new name");
}

/* Leaving a private channel through the API: its history is gone at the next request, whichever process answers. */
static void test_channel_unsubscribe_api(void)
{
	struct user *owner = new_realm(), *member = new_user_in(owner->realm, "member", NULL);
	char *name = unique_channel_name("cached");
	int64_t id = create_channel_with(owner, name, "invite_only=true&history_public_to_subscribers=true");
	send_channel_message(owner, name, "t", "one"); /* before the member joins: read as history, not received */
	EXPECT_SUCCESS(api_post(owner, "/users/me/subscriptions",
	                        fmt("subscriptions=%s&principals=%s", url_encode(fmt("[{\"name\":\"%s\"}]", name)),
	                            url_encode(fmt("[%lld]", (long long)member->id)))));
	warm_channel(member, id, NULL, 1);
	EXPECT_SUCCESS(http(&(struct request){.method = "DELETE",
	                                      .path = "/api/v1/users/me/subscriptions",
	                                      .user = member,
	                                      .form = fmt("subscriptions=%s", url_encode(fmt("[\"%s\"]", name)))}));
	for (int i = 0; i < CHECK_REQUESTS; i++)
		CHECK(channel_messages(member, id, NULL) == 0, "request %d after leaving: history still read", i);
}

/* ---- a message's channel (src/model/channel_cache.h) -------------------------------------------------------- */

/* POST /messages of u to channel name (topic t). */
static struct resp *post_channel_message(const struct user *u, const char *name, const char *topic)
{
	return http(&(struct request){
	    .method = "POST",
	    .path = "/api/v1/messages",
	    .user = u,
	    .source_addr = address,
	    .form = fmt("type=stream&to=%s&topic=%s&content=hello", url_encode(name), url_encode(topic))});
}

/* Enough sends that every api process holds u's lookup of channel name. */
static void warm_send(const struct user *u, const char *name)
{
	next_address();
	for (int i = 0; i < WARM_REQUESTS; i++)
		EXPECT_SUCCESS(post_channel_message(u, name, "t"));
}

/* Within one second, and then CHECK_REQUESTS times in a row, u's send to name with topic is refused so. */
static void expect_send_refused_everywhere(const struct user *u, const char *name, const char *topic, const char *code,
                                           const char *msg)
{
	double deadline = now_secs() + 1.0;
	struct resp *r = post_channel_message(u, name, topic);
	while (!is_error(r, 400, code, msg) && now_secs() < deadline) {
		usleep(20000);
		r = post_channel_message(u, name, topic);
	}
	CHECK(is_error(r, 400, code, msg), "POST /messages still answered %ld %s one second after the change",
	      r->status, r->body);
	for (int i = 0; i < CHECK_REQUESTS; i++)
		EXPECT_ERROR(post_channel_message(u, name, topic), 400, code, msg);
}

/* psql archives a channel: nobody posts to it any more. */
static void test_send_psql_archived(void)
{
	struct user *owner = new_realm(), *member = new_user_in(owner->realm, "member", NULL);
	char *name = unique_channel_name("send");
	int64_t id = create_channel_with(owner, name, NULL);
	warm_send(member, name);
	psql_ok("UPDATE channels SET is_archived = true WHERE id = %lld", (long long)id);
	expect_send_refused_everywhere(member, name, "t", "BAD_REQUEST",
	                               fmt("Not authorized to send to channel '%s'", name));
}

/* psql leaves the channel's posting to administrators: the member's sends are refused. */
static void test_send_psql_send_group(void)
{
	struct user *owner = new_realm(), *member = new_user_in(owner->realm, "member", NULL);
	char *name = unique_channel_name("send");
	int64_t id = create_channel_with(owner, name, NULL);
	warm_send(member, name);
	psql_ok("UPDATE channels c SET can_send_message_group_id = g.id FROM user_groups g"
	        " WHERE g.realm_id = c.realm_id AND g.name = 'role:administrators' AND c.id = %lld",
	        (long long)id);
	expect_send_refused_everywhere(member, name, "t", "BAD_REQUEST",
	                               "You do not have permission to post in this channel.");
}

/* psql sets the channel's own topics policy: named topics are refused. */
static void test_send_psql_topics_policy(void)
{
	struct user *owner = new_realm();
	char *name = unique_channel_name("send");
	int64_t id = create_channel_with(owner, name, NULL);
	warm_send(owner, name);
	psql_ok("UPDATE channels SET topics_policy = 'empty_topic_only' WHERE id = %lld", (long long)id);
	expect_send_refused_everywhere(owner, name, "t", "BAD_REQUEST",
	                               "Only the general chat topic is allowed in this channel.");
}

/* psql renames a channel: a send to the old name finds no channel. */
static void test_send_psql_rename(void)
{
	struct user *owner = new_realm();
	char *name = unique_channel_name("send"), *renamed = unique_channel_name("renamed");
	int64_t id = create_channel_with(owner, name, NULL);
	warm_send(owner, name);
	psql_ok("UPDATE channels SET name = '%s' WHERE id = %lld", renamed, (long long)id);
	expect_send_refused_everywhere(owner, name, "t", "STREAM_DOES_NOT_EXIST",
	                               fmt("Channel '%s' does not exist", name));
	EXPECT_SUCCESS(post_channel_message(owner, renamed, "t"));
}

/*
 * A quiet channel (no message for 180 days) that every process holds as not recently active: the first message
 * announces is_recently_active once, and the sends after it, whichever process answers, do not again.
 */
static void test_send_wakes_channel_once(void)
{
	struct user *owner = new_realm();
	char *name = unique_channel_name("quiet");
	int64_t id = create_channel_with(owner, name, NULL);
	psql_ok("UPDATE channels SET date_created = now() - interval '400 days' WHERE id = %lld", (long long)id);
	warm_channel(owner, id, NULL, 0);
	warm_channel(owner, 0, name, 0);
	struct queue *q = queue_register(owner, fmt("event_types=%s", url_encode("[\"stream\"]")));
	for (int i = 0; i < CHECK_REQUESTS; i++)
		EXPECT_SUCCESS(post_channel_message(owner, name, "t"));
	EXPECT_EVENTS(q,
	              fmt("[{\"type\":\"stream\",\"op\":\"update\",\"property\":\"is_recently_active\",\"value\":true,"
	                  "\"stream_id\":%lld,\"name\":\"%s\"}]",
	                  (long long)id, name));
}

void register_caches_tests(void)
{
	static const struct itest_case cases[] = {
	    {"deactivate_user_api", test_deactivate_user_api},
	    {"reset_key_ctl", test_reset_key_ctl},
	    {"psql_deactivate", test_psql_deactivate},
	    {"realm_deactivated", test_realm_deactivated},
	    {"role_change", test_role_change},
	    {"listener_cut", test_listener_cut},
	    {"postgresql_restart", test_postgresql_restart},
	    {"register_own_object", test_register_own_object},
	    {"register_sees_psql_change", test_register_sees_psql_change},
	    {"users_me_profile_value", test_users_me_profile_value},
	    {"register_sees_profile_value", test_register_sees_profile_value},
	    {"register_races_user_creation", test_register_races_user_creation},
	    {"register_groups_see_psql_change", test_register_groups_see_psql_change},
	    {"register_races_group_members", test_register_races_group_members},
	    {"register_counts_see_psql_change", test_register_counts_see_psql_change},
	    {"register_setting_sees_psql_change", test_register_setting_sees_psql_change},
	    {"channel_psql_group_member", test_channel_psql_group_member},
	    {"channel_psql_private", test_channel_psql_private},
	    {"channel_psql_rename", test_channel_psql_rename},
	    {"channel_psql_guest", test_channel_psql_guest},
	    {"channel_psql_created", test_channel_psql_created},
	    {"channel_unsubscribe_api", test_channel_unsubscribe_api},
	    {"send_psql_archived", test_send_psql_archived},
	    {"send_psql_send_group", test_send_psql_send_group},
	    {"send_psql_topics_policy", test_send_psql_topics_policy},
	    {"send_psql_rename", test_send_psql_rename},
	    {"send_wakes_channel_once", test_send_wakes_channel_once},
	    {NULL, NULL},
	};
	itest_add_suite("caches", cases);
}
