/*
 * The workers' caches (src/model/cache.h, src/model/realm_users.h). Authentication: whatever changes a user, an API key or an organization
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
static const char *address;

static void next_address(void)
{
	address = fmt("127.0.0.%d", address_no++);
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

static double now_secs(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static bool same(const char *a, const char *b)
{
	return a == b || (a != NULL && b != NULL && strcmp(a, b) == 0);
}

/* Whether r is the reference's 401 for a refused API key with message msg. */
static bool is_refusal(const struct resp *r, const char *msg)
{
	const char *code = jstr(r->json, "code"), *m = jstr(r->json, "msg");
	return r->status == 401 && code && strcmp(code, "UNAUTHORIZED") == 0 && m && strcmp(m, msg) == 0;
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
	    {NULL, NULL},
	};
	itest_add_suite("caches", cases);
}
