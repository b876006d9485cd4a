/*
 * The workers' authentication cache (src/model/cache.h): whatever changes a user, an API key or an organization
 * (the API, confabctl, psql), every worker process stops answering from its copy within the same second, also
 * after a PostgreSQL restart and after its LISTEN connection was cut. Each test first sends enough requests that
 * every api process has the credentials cached, and after the change checks a run of requests, so that every
 * process answers at least once.
 */
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
	    {NULL, NULL},
	};
	itest_add_suite("caches", cases);
}
