/*
 * Authentication on /api/v1 (HTTP Basic with e-mail and API key) and POST /fetch_api_key.
 * Reference: zulip-digest.md section h; Zulip zerver/decorator.py (get_basic_credentials, validate_api_key),
 * zproject/backends.py (EmailAuthBackend, common_get_active_user) and zerver/views/auth.py (api_fetch_api_key).
 */
#include <ctype.h>
#include <sys/wait.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "itest.h"

#define NOT_LOGGED_IN  "Not logged in: API authentication or user session required"
#define INVALID_HEADER "Invalid authorization header for basic auth"

/* 401 UNAUTHORIZED with msg and the WWW-Authenticate challenge. */
static void expect_unauthorized(const struct resp *r, const char *msg, const char *file, int line)
{
	expect_error(r, 401, "UNAUTHORIZED", msg, file, line);
	expect_header(r, "WWW-Authenticate", "Basic realm=\"zulip\"", file, line);
}
#define EXPECT_UNAUTHORIZED(r, msg) expect_unauthorized((r), (msg), __FILE__, __LINE__)

static struct resp *me_with_authorization(const char *authorization)
{
	return http(&(struct request){.path = "/api/v1/users/me", .authorization = authorization});
}

static struct resp *me_with_basic(const char *email, const char *key)
{
	return http(&(struct request){.path = "/api/v1/users/me", .auth_email = email, .auth_key = key});
}

static char *upper(const char *s)
{
	char *u = fmt("%s", s);
	for (char *p = u; *p; p++)
		*p = (char)toupper((unsigned char)*p);
	return u;
}

/* ---- the Authorization header ------------------------------------------------------------------------------- */

static void test_valid_credentials(void)
{
	struct user *u = new_user("member");
	struct resp *r = api_get(u, "/users/me");
	EXPECT_SUCCESS(r);
	EXPECT_INT(r->json, "user_id", u->id);
	EXPECT_STR(r->json, "delivery_email", u->email);
}

static void test_no_authorization_header(void)
{
	EXPECT_UNAUTHORIZED(http(&(struct request){.path = "/api/v1/users/me"}), NOT_LOGGED_IN);
	EXPECT_UNAUTHORIZED(http(&(struct request){.path = "/api/v1/users"}), NOT_LOGGED_IN);
	EXPECT_UNAUTHORIZED(http(&(struct request){.method = "POST", .path = "/api/v1/users", .form = "a=b"}),
	                    NOT_LOGGED_IN);
}

/* rest_dispatch tests for the presence of the header ("Authorization" in request.headers); "".split() fails. */
static void test_empty_authorization_header(void)
{
	EXPECT_UNAUTHORIZED(http(&(struct request){.path = "/api/v1/users/me", .empty_authorization = true}),
	                    INVALID_HEADER);
}

static void test_non_basic_scheme(void)
{
	struct resp *r = me_with_authorization("Bearer x");
	EXPECT_ERROR(r, 400, "BAD_REQUEST", "This endpoint requires HTTP basic authentication.");
	CHECK(resp_header(r, "WWW-Authenticate") == NULL, "a 400 must not carry WWW-Authenticate: %s", r->body);
	EXPECT_ERROR(me_with_authorization("Digest dXNlcjpwYXNz"), 400, "BAD_REQUEST",
	             "This endpoint requires HTTP basic authentication.");
}

static void test_basic_scheme_case_insensitive(void)
{
	struct user *u = new_user("member");
	const char *cred = fmt("%s:%s", u->email, u->key);
	struct resp *r = me_with_authorization(fmt("basic %s", base64(cred, strlen(cred))));
	EXPECT_SUCCESS(r);
	EXPECT_INT(r->json, "user_id", u->id);
	EXPECT_SUCCESS(me_with_authorization(fmt("BASIC %s", base64(cred, strlen(cred)))));
}

static void test_basic_not_base64(void)
{
	EXPECT_UNAUTHORIZED(me_with_authorization("Basic !!!"), INVALID_HEADER);
}

static void test_basic_without_colon(void)
{
	EXPECT_UNAUTHORIZED(me_with_authorization(fmt("Basic %s", base64("nocolonhere", 11))), INVALID_HEADER);
}

static void test_basic_without_credentials(void)
{
	EXPECT_UNAUTHORIZED(me_with_authorization("Basic"), INVALID_HEADER);
}

/* Zulip splits the header on whitespace into exactly (scheme, credentials); anything else is a ValueError. */
static void test_header_not_a_pair(void)
{
	EXPECT_UNAUTHORIZED(me_with_authorization("Bearer"), INVALID_HEADER);
	struct user *u = new_user("member");
	const char *cred = fmt("%s:%s", u->email, u->key);
	EXPECT_UNAUTHORIZED(me_with_authorization(fmt("Basic %s extra", base64(cred, strlen(cred)))), INVALID_HEADER);
}

/* The decoded value must split on ':' into exactly two parts. */
static void test_basic_two_colons(void)
{
	struct user *u = new_user("member");
	const char *cred = fmt("%s:%s:x", u->email, u->key);
	EXPECT_UNAUTHORIZED(me_with_authorization(fmt("Basic %s", base64(cred, strlen(cred)))), INVALID_HEADER);
}

/* A decoded value that is not UTF-8 fails to decode (UnicodeDecodeError is a ValueError). */
static void test_basic_not_utf8(void)
{
	struct user *u = new_user("member");
	const char *cred = fmt("\xff\xfe%s:%s", u->email, u->key);
	EXPECT_UNAUTHORIZED(me_with_authorization(fmt("Basic %s", base64(cred, strlen(cred)))), INVALID_HEADER);
}

/* ---- the API key -------------------------------------------------------------------------------------------- */

static void test_malformed_api_key(void)
{
	struct user *u = new_user("member");
	EXPECT_UNAUTHORIZED(me_with_basic(u->email, "short"), "Malformed API key");
	EXPECT_UNAUTHORIZED(me_with_basic(u->email, ""), "Malformed API key");
	EXPECT_UNAUTHORIZED(me_with_basic(u->email, fmt("%.31s", u->key)), "Malformed API key");
	EXPECT_UNAUTHORIZED(me_with_basic(u->email, fmt("%sA", u->key)), "Malformed API key");
	EXPECT_UNAUTHORIZED(me_with_basic(u->email, fmt("%.31s-", u->key)), "Malformed API key");
	EXPECT_UNAUTHORIZED(me_with_basic(u->email, fmt("%.31s\xc3\xa9", u->key)), "Malformed API key");
}

static void test_unknown_api_key(void)
{
	struct user *u = new_user("member");
	/* Same format, different key: flip the case of every letter. */
	char *other = fmt("%s", u->key);
	for (char *p = other; *p; p++)
		*p = isupper((unsigned char)*p) ? (char)tolower((unsigned char)*p) : (char)toupper((unsigned char)*p);
	if (strcmp(other, u->key) == 0)
		other = fmt("%.31s%c", u->key, u->key[31] == 'Z' ? 'Y' : 'Z');
	EXPECT_UNAUTHORIZED(me_with_basic(u->email, other), "Invalid API key");
	EXPECT_UNAUTHORIZED(me_with_basic(u->email, "00000000000000000000000000000000"), "Invalid API key");
}

static void test_api_key_of_another_user(void)
{
	struct user *a = new_user("member"), *b = new_user("member");
	EXPECT_UNAUTHORIZED(me_with_basic(a->email, b->key), "Invalid API key");
	EXPECT_UNAUTHORIZED(me_with_basic("nobody@example.com", b->key), "Invalid API key");
	/* The owner's e-mail with a member's key does not make the member an owner. */
	EXPECT_UNAUTHORIZED(me_with_basic(itest_owner.email, b->key), "Invalid API key");
}

static void test_email_case_and_whitespace(void)
{
	struct user *u = new_user("member");
	struct resp *r = me_with_basic(upper(u->email), u->key);
	EXPECT_SUCCESS(r);
	EXPECT_INT(r->json, "user_id", u->id);
	r = me_with_basic(fmt("  %s ", u->email), fmt("  %s  ", u->key));
	EXPECT_SUCCESS(r);
	EXPECT_INT(r->json, "user_id", u->id);
}

/*
 * GET path as u until it stops answering 200, for at most a second: another worker process drops its cached copy
 * of u when PostgreSQL's notification reaches it, within the same second (src/model/cache.h).
 */
static struct resp *api_get_after_change(const struct user *u, const char *path)
{
	struct resp *r = api_get(u, path);
	for (int i = 0; i < 50 && r->status == 200; i++) {
		usleep(20 * 1000);
		r = api_get(u, path);
	}
	return r;
}

static void test_deactivated_user(void)
{
	struct user *u = new_user("member");
	EXPECT_SUCCESS(api_get(u, "/users/me"));
	deactivate_user(u);
	EXPECT_UNAUTHORIZED(api_get_after_change(u, "/users/me"), "Account is deactivated");
	EXPECT_UNAUTHORIZED(api_get_after_change(u, "/users"), "Account is deactivated");
}

static void test_deactivated_realm(void)
{
	struct user *o = new_realm();
	EXPECT_SUCCESS(api_get(o, "/users/me"));
	psql_ok("UPDATE realms SET deactivated = true WHERE subdomain = '%s'", o->realm);
	EXPECT_UNAUTHORIZED(api_get_after_change(o, "/users/me"), "This organization has been deactivated");
	/* Realm deactivation is checked before the subdomain. */
	EXPECT_UNAUTHORIZED(http(&(struct request){.path = "/api/v1/users/me", .user = o, .host = realm_host("")}),
	                    "This organization has been deactivated");
}

static void test_wrong_subdomain(void)
{
	struct user *o = new_realm();
	struct user *u = new_user("member");
	EXPECT_SUCCESS(api_get(o, "/users/me"));
	EXPECT_UNAUTHORIZED(
	    http(&(struct request){.path = "/api/v1/users/me", .user = u, .host = realm_host(o->realm)}),
	    "Account is not associated with this subdomain");
	EXPECT_UNAUTHORIZED(http(&(struct request){.path = "/api/v1/users/me", .user = o, .host = realm_host("")}),
	                    "Account is not associated with this subdomain");
	/* A host naming no organization at all is still not the user's subdomain. */
	EXPECT_UNAUTHORIZED(
	    http(&(struct request){.path = "/api/v1/users/me", .user = u, .host = realm_host("nosuchorg")}),
	    "Account is not associated with this subdomain");
}

/*
 * Browsers and curl send the port in Host when it is not the default one. Zulip's get_subdomain() matches
 * "<sub>.<EXTERNAL_HOST>" with an optional port, so "sub.127.0.0.1:PORT" selects "sub" too.
 */
static void test_subdomain_host_with_port_and_case(void)
{
	const char *port = strchr(itest_hostport, ':');
	struct user *o = new_realm();
	struct user *u = new_user("member");
	if (port != NULL) {
		const char *host = fmt("%s.%s", o->realm, itest_hostport);
		struct resp *r = http(&(struct request){.path = "/api/v1/users/me", .user = o, .host = host});
		EXPECT_SUCCESS(r);
		EXPECT_INT(r->json, "user_id", o->id);
		EXPECT_UNAUTHORIZED(http(&(struct request){.path = "/api/v1/users/me", .user = u, .host = host}),
		                    "Account is not associated with this subdomain");
	}
	struct resp *r =
	    http(&(struct request){.path = "/api/v1/users/me", .user = o, .host = upper(realm_host(o->realm))});
	EXPECT_SUCCESS(r);
	EXPECT_INT(r->json, "user_id", o->id);
}

static void test_incoming_webhook_bot(void)
{
	struct user *b = new_bot();
	struct resp *r = api_get(b, "/users/me");
	EXPECT_SUCCESS(r); /* a generic bot may use the API */
	EXPECT_BOOL(r->json, "is_bot", true);
	psql_ok("UPDATE users SET bot_type = 2 WHERE id = %lld", (long long)b->id);
	EXPECT_UNAUTHORIZED(api_get_after_change(b, "/users/me"), "This API is not available to incoming webhook bots.");
}

/* ---- POST /fetch_api_key ------------------------------------------------------------------------------------ */

static struct resp *fetch_key(const char *host, const char *username, const char *password)
{
	const char *form = fmt("username=%s&password=%s", url_encode(username), url_encode(password));
	return http(&(struct request){.method = "POST", .path = "/api/v1/fetch_api_key", .form = form, .host = host});
}

static void test_fetch_api_key(void)
{
	struct user *u = new_user("member");
	struct resp *r = fetch_key(NULL, u->email, u->password);
	EXPECT_SUCCESS(r);
	EXPECT_KEYS(r->json, "result", "msg", "api_key", "email", "user_id");
	EXPECT_STR(r->json, "email", u->email);
	EXPECT_INT(r->json, "user_id", u->id);
	const char *key = jstr(r->json, "api_key");
	REQUIRE(key != NULL, "no api_key: %s", r->body);
	bool alnum = strlen(key) == 32;
	for (const char *p = key; *p; p++)
		alnum = alnum && isalnum((unsigned char)*p);
	CHECK(alnum, "api_key is not 32 alphanumeric characters: \"%s\"", key);
	struct user with_key = *u;
	with_key.key = fmt("%s", key);
	r = api_get(&with_key, "/users/me");
	EXPECT_SUCCESS(r);
	EXPECT_INT(r->json, "user_id", u->id);
}

static void test_fetch_api_key_email_case_insensitive(void)
{
	struct user *u = new_user("member");
	struct resp *r = fetch_key(NULL, upper(u->email), u->password);
	EXPECT_SUCCESS(r);
	EXPECT_STR(r->json, "email", u->email);
	EXPECT_INT(r->json, "user_id", u->id);
}

static void test_fetch_api_key_in_other_realm(void)
{
	struct user *o = new_realm();
	struct resp *r = fetch_key(realm_host(o->realm), o->email, o->password);
	EXPECT_SUCCESS(r);
	EXPECT_INT(r->json, "user_id", o->id);
}

static void test_fetch_api_key_ignores_authorization(void)
{
	struct user *u = new_user("member");
	const char *form = fmt("username=%s&password=%s", url_encode(u->email), url_encode(u->password));
	struct resp *r = http(&(struct request){
	    .method = "POST", .path = "/api/v1/fetch_api_key", .form = form, .authorization = "Bearer junk"});
	EXPECT_SUCCESS(r);
	EXPECT_INT(r->json, "user_id", u->id);
}

static void test_fetch_api_key_wrong_password(void)
{
	struct user *u = new_user("member");
	struct resp *r = fetch_key(NULL, u->email, "wrong-password-123");
	EXPECT_ERROR(r, 401, "AUTHENTICATION_FAILED", "Your username or password is incorrect");
	/* Another user's password does not work either. */
	struct user *v = new_user("member");
	EXPECT_ERROR(fetch_key(NULL, u->email, v->password), 401, "AUTHENTICATION_FAILED",
	             "Your username or password is incorrect");
}

static void test_fetch_api_key_empty_password(void)
{
	struct user *u = new_user("member");
	EXPECT_ERROR(fetch_key(NULL, u->email, ""), 401, "AUTHENTICATION_FAILED",
	             "Your username or password is incorrect");
}

static void test_fetch_api_key_unknown_user(void)
{
	EXPECT_ERROR(fetch_key(NULL, unique_email("nobody"), "whatever-password-1"), 401, "AUTHENTICATION_FAILED",
	             "Your username or password is incorrect");
}

static void test_fetch_api_key_invalid_email(void)
{
	EXPECT_ERROR(fetch_key(NULL, "name_without_at", "whatever-password-1"), 400, "BAD_REQUEST",
	             "Enter a valid email address.");
}

static void test_fetch_api_key_deactivated_user(void)
{
	struct user *u = new_user("member");
	deactivate_user(u);
	EXPECT_ERROR(fetch_key(NULL, u->email, u->password), 401, "USER_DEACTIVATED", "Account is deactivated");
}

/* EmailAuthBackend looks the account up (common_get_active_user) before it checks the password. */
static void test_fetch_api_key_deactivated_user_wrong_password(void)
{
	struct user *u = new_user("member");
	deactivate_user(u);
	EXPECT_ERROR(fetch_key(NULL, u->email, "wrong-password-123"), 401, "USER_DEACTIVATED",
	             "Account is deactivated");
}

static void test_fetch_api_key_deactivated_realm(void)
{
	struct user *o = new_realm();
	psql_ok("UPDATE realms SET deactivated = true WHERE subdomain = '%s'", o->realm);
	EXPECT_ERROR(fetch_key(realm_host(o->realm), o->email, o->password), 401, "REALM_DEACTIVATED",
	             "This organization has been deactivated");
}

static void test_fetch_api_key_missing_password(void)
{
	struct user *u = new_user("member");
	struct resp *r = http(&(struct request){
	    .method = "POST", .path = "/api/v1/fetch_api_key", .form = fmt("username=%s", url_encode(u->email))});
	EXPECT_ERROR(r, 400, "REQUEST_VARIABLE_MISSING", "Missing 'password' argument");
	EXPECT_STR(r->json, "var_name", "password");
}

/* ---- throttling of failed authentication --------------------------------------------------------------------- */

/*
 * Zulip's rate_limit_auth (zproject/backends.py) counts password logins per username under the rule
 * authenticate_by_username, 5 in 1800 s (zproject/default_settings.py), refuses past it whatever the password with
 * RateLimitedError (429 RATE_LIMIT_HIT, Retry-After and "retry-after"), and clears the count on a success. The
 * limits per address are confab's own. The limits are the stack's (the same CONFAB_* variables as the workers
 * read, else the defaults of conf/confab.conf.example); each test sends from an address of its own in 127/8 so
 * that the limits it reaches hold nobody else up.
 */

static int limit_from_env(const char *name, int def)
{
	const char *v = getenv(name);
	return v != NULL && *v != '\0' ? atoi(v) : def;
}

/* A loopback address of this test alone (nginx passes it as REMOTE_ADDR). */
static const char *fresh_address(void)
{
	static unsigned n;
	unsigned x = (unsigned)getpid() * 7919u + (unsigned)time(NULL) * 104729u + ++n * 2654435761u;
	return fmt("127.%u.%u.%u", 100 + x % 150, 1 + (x >> 8) % 250, 1 + (x >> 16) % 250);
}

static struct resp *fetch_key_from(const char *addr, const char *username, const char *password)
{
	const char *form = fmt("username=%s&password=%s", url_encode(username), url_encode(password));
	return http(
	    &(struct request){.method = "POST", .path = "/api/v1/fetch_api_key", .form = form, .source_addr = addr});
}

/* 429 RATE_LIMIT_HIT with the reference's "retry-after" and a Retry-After header, both within window seconds. */
static void expect_rate_limited(const struct resp *r, int window, const char *file, int line)
{
	expect_error(r, 429, "RATE_LIMIT_HIT", "API usage exceeded rate limit", file, line);
	json_object *retry = jget(r->json, "retry-after");
	itest_check(retry != NULL &&
	                (json_object_is_type(retry, json_type_double) || json_object_is_type(retry, json_type_int)) &&
	                json_object_get_double(retry) > 0 && json_object_get_double(retry) <= window + 1,
	            false, file, line, "\"retry-after\" should be the seconds left: %s", r->body);
	const char *ra = resp_header(r, "Retry-After");
	char *end = NULL;
	long secs = ra ? strtol(ra, &end, 10) : -1;
	itest_check(ra != NULL && end != ra && *end == '\0' && secs > 0 && secs <= window + 1, false, file, line,
	            "Retry-After header: %s", ra ? ra : "(none)");
}
#define EXPECT_RATE_LIMITED(r, window) expect_rate_limited((r), (window), __FILE__, __LINE__)

#define LOGIN_LIMIT_USER    limit_from_env("CONFAB_LOGIN_FAIL_LIMIT_USER", 5)
#define LOGIN_LIMIT_ADDRESS limit_from_env("CONFAB_LOGIN_FAIL_LIMIT_ADDRESS", 30)
#define LOGIN_WINDOW        limit_from_env("CONFAB_LOGIN_FAIL_WINDOW", 1800)
#define KEY_LIMIT_ADDRESS   limit_from_env("CONFAB_API_KEY_FAIL_LIMIT_ADDRESS", 60)
#define KEY_WINDOW          limit_from_env("CONFAB_API_KEY_FAIL_WINDOW", 60)

/* N wrong passwords for username from addr, each an ordinary 401. */
static void fail_logins(const char *addr, const char *username, int n)
{
	for (int i = 0; i < n; i++)
		EXPECT_ERROR(fetch_key_from(addr, username, fmt("wrong-password-%d", i)), 401, "AUTHENTICATION_FAILED",
		             "Your username or password is incorrect");
}

static void test_login_throttled_per_account(void)
{
	int limit = LOGIN_LIMIT_USER;
	REQUIRE(limit > 0 && limit < LOGIN_LIMIT_ADDRESS, "login limits %d/%d are not testable", limit,
	        LOGIN_LIMIT_ADDRESS);
	struct user *u = new_user("member"), *v = new_user("member");
	const char *addr = fresh_address();
	fail_logins(addr, u->email, limit);
	EXPECT_RATE_LIMITED(fetch_key_from(addr, u->email, "wrong-password-x"), LOGIN_WINDOW);
	/* While limited even the right password is refused, from any address. */
	EXPECT_RATE_LIMITED(fetch_key_from(addr, u->email, u->password), LOGIN_WINDOW);
	EXPECT_RATE_LIMITED(fetch_key_from(fresh_address(), u->email, u->password), LOGIN_WINDOW);
	/* Other accounts are not affected, from the same address either. */
	EXPECT_SUCCESS(fetch_key_from(addr, v->email, v->password));
	/* API keys are not passwords: the account's key still works. */
	EXPECT_SUCCESS(api_get(u, "/users/me"));
}

/*
 * A Redis at its maxmemory (noeviction: members can fill it with queues they never read) refuses plain writes; the
 * limits' counters are written by scripts that may run then, so the limits never fail open (as they do, by design,
 * when Redis does not answer at all).
 */
static void test_login_throttled_with_redis_full(void)
{
	int limit = LOGIN_LIMIT_USER;
	REQUIRE(limit > 0 && limit < LOGIN_LIMIT_ADDRESS, "login limits %d/%d are not testable", limit,
	        LOGIN_LIMIT_ADDRESS);
	struct user *u = new_user("member");
	const char *addr = fresh_address();
	char *before = redis_cli("CONFIG GET maxmemory");
	before = strchr(before, '\n') ? strchr(before, '\n') + 1 : "0";
	REQUIRE(strcmp(redis_cli("CONFIG SET maxmemory 1"), "OK") == 0, "CONFIG SET maxmemory failed");
	struct resp *r[16];
	for (int i = 0; i <= limit && i < 16; i++)
		r[i] = fetch_key_from(addr, u->email, fmt("wrong-password-%d", i));
	REQUIRE(strcmp(redis_cli(fmt("CONFIG SET maxmemory %s", before)), "OK") == 0, "could not restore maxmemory");
	for (int i = 0; i < limit && i < 16; i++)
		EXPECT_ERROR(r[i], 401, "AUTHENTICATION_FAILED", "Your username or password is incorrect");
	EXPECT_RATE_LIMITED(r[limit < 16 ? limit : 15], LOGIN_WINDOW);
}

/* A success clears the account's failures (the reference's clear_history). */
static void test_login_success_clears_failures(void)
{
	int limit = LOGIN_LIMIT_USER;
	REQUIRE(limit > 0 && 2 * limit < LOGIN_LIMIT_ADDRESS, "login limits %d/%d are not testable", limit,
	        LOGIN_LIMIT_ADDRESS);
	struct user *u = new_user("member");
	const char *addr = fresh_address();
	fail_logins(addr, u->email, limit - 1);
	EXPECT_SUCCESS(fetch_key_from(addr, u->email, u->password));
	fail_logins(addr, u->email, limit);
	EXPECT_RATE_LIMITED(fetch_key_from(addr, u->email, u->password), LOGIN_WINDOW);
}

/* An unknown account goes through the same limiter (and password check) as a known one. */
static void test_login_throttled_unknown_user(void)
{
	int limit = LOGIN_LIMIT_USER;
	REQUIRE(limit > 0 && limit < LOGIN_LIMIT_ADDRESS, "login limits are not testable");
	const char *email = unique_email("nobody");
	const char *addr = fresh_address();
	fail_logins(addr, email, limit);
	EXPECT_RATE_LIMITED(fetch_key_from(addr, email, "wrong-password-x"), LOGIN_WINDOW);
	/* Case does not make it another account. */
	EXPECT_RATE_LIMITED(fetch_key_from(addr, upper(email), "wrong-password-y"), LOGIN_WINDOW);
}

static void test_login_throttled_per_address(void)
{
	int limit = LOGIN_LIMIT_ADDRESS;
	REQUIRE(limit > 0 && limit <= 200, "login_fail_limit_address %d is not testable", limit);
	struct user *u = new_user("member");
	const char *addr = fresh_address();
	/* Each account fails once: only the address's count reaches its limit. */
	for (int i = 0; i < limit; i++)
		fail_logins(addr, unique_email("guess"), 1);
	EXPECT_RATE_LIMITED(fetch_key_from(addr, unique_email("guess"), "wrong-password-x"), LOGIN_WINDOW);
	EXPECT_RATE_LIMITED(fetch_key_from(addr, u->email, u->password), LOGIN_WINDOW);
	/* Another address is not affected. */
	EXPECT_SUCCESS(fetch_key_from(fresh_address(), u->email, u->password));
}

static void test_api_key_throttled_per_address(void)
{
	int limit = KEY_LIMIT_ADDRESS;
	REQUIRE(limit > 0 && limit <= 1000, "api_key_fail_limit_address %d is not testable", limit);
	struct user *u = new_user("member");
	const char *addr = fresh_address();
	const char *wrong = "abcdefghijklmnopqrstuvwxyz012345";
	for (int i = 0; i < limit; i++) {
		struct resp *r = http(&(struct request){
		    .path = "/api/v1/users/me", .auth_email = u->email, .auth_key = wrong, .source_addr = addr});
		if (r->status != 401) {
			EXPECT_UNAUTHORIZED(r, "Invalid API key");
			return;
		}
	}
	struct resp *r = http(&(struct request){
	    .path = "/api/v1/users/me", .auth_email = u->email, .auth_key = wrong, .source_addr = addr});
	EXPECT_RATE_LIMITED(r, KEY_WINDOW);
	/* Refused with the right key too while the address is limited, ... */
	EXPECT_RATE_LIMITED(http(&(struct request){.path = "/api/v1/users/me", .user = u, .source_addr = addr}),
	                    KEY_WINDOW);
	/* ... but not from another address. */
	EXPECT_SUCCESS(http(&(struct request){.path = "/api/v1/users/me", .user = u, .source_addr = fresh_address()}));
	EXPECT_SUCCESS(api_get(u, "/users/me"));
}

/* The LISTEN connections of the rate limit's address watch (src/api/ratelimit_watch.h): last query LISTEN or ping. */
#define WATCH_LISTENERS                                                                                                \
	" FROM pg_stat_activity WHERE query = 'LISTEN confab_ratelimit'"                                               \
	" OR query LIKE 'SELECT pg_notify(''confab_ratelimit'', ''ping:%%'')'"

static int watch_listeners(void)
{
	return atoi(psql_ok("SELECT count(*)" WATCH_LISTENERS));
}

/*
 * Only addresses that failed a key cost the check of their budget a Redis round trip (src/api/ratelimit_watch.h).
 * A process whose LISTEN connection was cut reads the failing addresses back from Redis once it listens again, so
 * an address over its budget stays refused by every process, with the right key too.
 */
static void test_api_key_limit_after_listener_cut(void)
{
	int limit = KEY_LIMIT_ADDRESS;
	REQUIRE(limit > 0 && limit <= 1000, "api_key_fail_limit_address %d is not testable", limit);
	struct user *u = new_user("member");
	const char *addr = fresh_address();
	struct request wrong = {.path = "/api/v1/users/me",
	                        .auth_email = u->email,
	                        .auth_key = "abcdefghijklmnopqrstuvwxyz012345",
	                        .source_addr = addr};
	for (int i = 0; i < limit; i++)
		EXPECT_UNAUTHORIZED(http(&wrong), "Invalid API key");
	EXPECT_RATE_LIMITED(http(&wrong), KEY_WINDOW);
	int listeners = watch_listeners();
	REQUIRE(listeners > 0, "no LISTEN confab_ratelimit connection");
	psql_ok("SELECT count(pg_terminate_backend(pid))" WATCH_LISTENERS);
	for (int i = 0; i < 100 && watch_listeners() < listeners; i++)
		usleep(50 * 1000);
	REQUIRE(watch_listeners() >= listeners, "the rate limit listeners did not come back");
	/* Enough requests that every process answers more than once: the first one loads the set, the others use it. */
	for (int i = 0; i < 16; i++)
		EXPECT_RATE_LIMITED(http(&(struct request){.path = "/api/v1/users/me", .user = u, .source_addr = addr}),
		                    KEY_WINDOW);
	EXPECT_SUCCESS(http(&(struct request){.path = "/api/v1/users/me", .user = u, .source_addr = fresh_address()}));
}

/*
 * Failures whose NOTIFY never came (the statement failed, or a process of an older version counted them): recorded
 * in Redis only, they are known to every process within a second or so (each reads the set again every second), and
 * the address is refused with the right key too.
 */
static void test_api_key_limit_notify_lost(void)
{
	int limit = KEY_LIMIT_ADDRESS, window = KEY_WINDOW;
	const char *cli = getenv("CONFAB_REDIS_CLI");
	REQUIRE(cli != NULL && *cli != '\0', "CONFAB_REDIS_CLI is not set");
	struct user *u = new_user("member");
	const char *addr = fresh_address();
	struct request right = {.path = "/api/v1/users/me", .user = u, .source_addr = addr};
	for (int i = 0; i < 8; i++) /* every process has its set loaded */
		EXPECT_SUCCESS(http(&right));
	long long until = (long long)time(NULL) + window + 1;
	const char *cmds = fmt("%s SET 'confab:rl:key:addr:%s' %d EX %d >/dev/null && %s ZADD confab:rl:key:watch %lld '%s'"
	                       " >/dev/null",
	                       cli, addr, limit + 1, window, cli, until, addr);
	fflush(NULL);
	REQUIRE(system(cmds) == 0, "redis-cli failed: %s", cmds);
	struct resp *r = http(&right);
	for (int i = 0; i < 60 && r->status != 429; i++) {
		usleep(50 * 1000);
		r = http(&right);
	}
	EXPECT_RATE_LIMITED(r, window);
	/* A second later every process has read the set again and refuses it: more requests than processes. */
	usleep(1100 * 1000);
	for (int i = 0; i < 16; i++)
		EXPECT_RATE_LIMITED(http(&right), window);
}

/*
 * Failures counted by the workers of scale-out host A only: those of host B hear of the address (NOTIFY
 * confab_ratelimit) and refuse it as well, with the right key too, although they had loaded their set before.
 */
static void test_api_key_limit_across_hosts(void)
{
	int limit = KEY_LIMIT_ADDRESS;
	REQUIRE(limit > 0 && limit <= 1000, "api_key_fail_limit_address %d is not testable", limit);
	const char *a = getenv("CONFAB_SCALEOUT_A_URL"), *b = getenv("CONFAB_SCALEOUT_B_URL");
	REQUIRE(a && *a && b && *b, "CONFAB_SCALEOUT_A_URL and _B_URL not set (scripts/test sets up the hosts)");
	struct user *u = new_user("member");
	const char *addr = fresh_address();
	struct request right = {.path = "/api/v1/users/me", .user = u, .source_addr = addr, .base_url = b};
	/* Every process of host B answers (and so reads its set from Redis) before the failures. */
	for (int i = 0; i < 8; i++)
		EXPECT_SUCCESS(http(&right));
	struct request wrong = {.path = "/api/v1/users/me",
	                        .auth_email = u->email,
	                        .auth_key = "abcdefghijklmnopqrstuvwxyz012345",
	                        .source_addr = addr,
	                        .base_url = a};
	for (int i = 0; i < limit; i++)
		EXPECT_UNAUTHORIZED(http(&wrong), "Invalid API key");
	EXPECT_RATE_LIMITED(http(&wrong), KEY_WINDOW);
	for (int i = 0; i < 8; i++)
		EXPECT_RATE_LIMITED(http(&right), KEY_WINDOW);
	EXPECT_SUCCESS(http(&(struct request){.path = "/api/v1/users/me", .user = u, .base_url = b}));
}

/*
 * Password checks are capped per worker process (as many as password_hash_slots, as many more waiting): a burst
 * of concurrent logins gets 429 with Retry-After: 1 for what is over the cap, at once, instead of holding worker
 * threads and CPUs that API requests need. Before the cap, every one of them was hashed and answered 401.
 */
#define BURST 16
/* One login of the burst with a wrong password: 1429 for a 429 with Retry-After: 1, else the status. */
static int burst_login(void *addr, int i)
{
	struct resp *r = fetch_key_from(addr, fmt("burst-%d-%s", i, unique_email("nobody")), "wrong");
	const char *ra = resp_header(r, "Retry-After");
	return r->status == 429 && ra != NULL && strcmp(ra, "1") == 0 ? 1429 : (int)r->status;
}

static void test_login_hashing_capped(void)
{
	int answers[BURST], n401 = 0, n429 = 0;
	itest_burst(BURST, burst_login, (void *)fresh_address(), answers);
	for (int i = 0; i < BURST; i++)
		answers[i] == 401 ? n401++ : answers[i] == 1429 ? n429++ : 0;
	CHECK(n401 + n429 == BURST, "%d answers other than 401 or 429 with Retry-After: 1 (of %d)", BURST - n401 - n429,
	      BURST);
	CHECK(n401 > 0, "no login of the burst was checked (%d turned away)", n429);
	CHECK(n429 > 0, "all %d concurrent logins were hashed: nothing caps the password checks", n401);
}

void register_auth_tests(void)
{
	static const struct itest_case cases[] = {
	    {"valid_credentials", test_valid_credentials},
	    {"no_authorization_header", test_no_authorization_header},
	    {"empty_authorization_header", test_empty_authorization_header},
	    {"non_basic_scheme", test_non_basic_scheme},
	    {"basic_scheme_case_insensitive", test_basic_scheme_case_insensitive},
	    {"basic_not_base64", test_basic_not_base64},
	    {"basic_without_colon", test_basic_without_colon},
	    {"basic_without_credentials", test_basic_without_credentials},
	    {"header_not_a_pair", test_header_not_a_pair},
	    {"basic_two_colons", test_basic_two_colons},
	    {"basic_not_utf8", test_basic_not_utf8},
	    {"malformed_api_key", test_malformed_api_key},
	    {"unknown_api_key", test_unknown_api_key},
	    {"api_key_of_another_user", test_api_key_of_another_user},
	    {"email_case_and_whitespace", test_email_case_and_whitespace},
	    {"deactivated_user", test_deactivated_user},
	    {"deactivated_realm", test_deactivated_realm},
	    {"wrong_subdomain", test_wrong_subdomain},
	    {"subdomain_host_with_port_and_case", test_subdomain_host_with_port_and_case},
	    {"incoming_webhook_bot", test_incoming_webhook_bot},
	    {"fetch_api_key", test_fetch_api_key},
	    {"fetch_api_key_email_case_insensitive", test_fetch_api_key_email_case_insensitive},
	    {"fetch_api_key_in_other_realm", test_fetch_api_key_in_other_realm},
	    {"fetch_api_key_ignores_authorization", test_fetch_api_key_ignores_authorization},
	    {"fetch_api_key_wrong_password", test_fetch_api_key_wrong_password},
	    {"fetch_api_key_empty_password", test_fetch_api_key_empty_password},
	    {"fetch_api_key_unknown_user", test_fetch_api_key_unknown_user},
	    {"fetch_api_key_invalid_email", test_fetch_api_key_invalid_email},
	    {"fetch_api_key_deactivated_user", test_fetch_api_key_deactivated_user},
	    {"fetch_api_key_deactivated_user_wrong_password", test_fetch_api_key_deactivated_user_wrong_password},
	    {"fetch_api_key_deactivated_realm", test_fetch_api_key_deactivated_realm},
	    {"fetch_api_key_missing_password", test_fetch_api_key_missing_password},
	    {"login_throttled_per_account", test_login_throttled_per_account},
	    {"login_throttled_with_redis_full", test_login_throttled_with_redis_full},
	    {"login_success_clears_failures", test_login_success_clears_failures},
	    {"login_throttled_unknown_user", test_login_throttled_unknown_user},
	    {"login_throttled_per_address", test_login_throttled_per_address},
	    {"api_key_throttled_per_address", test_api_key_throttled_per_address},
	    {"api_key_limit_after_listener_cut", test_api_key_limit_after_listener_cut},
	    {"api_key_limit_across_hosts", test_api_key_limit_across_hosts},
	    {"api_key_limit_notify_lost", test_api_key_limit_notify_lost},
	    {"login_hashing_capped", test_login_hashing_capped},
	    {NULL, NULL},
	};
	itest_add_suite("auth", cases);
}
