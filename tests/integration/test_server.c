/*
 * Server-wide behaviour: GET /server_settings, GET /health, routing (404/405), rate limiting, and (in the
 * "restarts" suite, run last) recovery after PostgreSQL and Redis restarts.
 * Reference: zulip-digest.md section h; Zulip zerver/views/auth.py get_server_settings, zerver/lib/rest.py.
 */
#include <netdb.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "itest.h"

/* ---- GET /server_settings ----------------------------------------------------------------------------------- */

static void test_server_settings(void)
{
	struct resp *r = http(&(struct request){.path = "/api/v1/server_settings"});
	EXPECT_SUCCESS(r);
	json_object *j = r->json;
	EXPECT_INT(j, "zulip_feature_level", 496);
	CHECK(jstr(j, "zulip_version") != NULL && *jstr(j, "zulip_version") != '\0', "zulip_version: %s", jtext(j));
	CHECK(jstr(j, "zulip_merge_base") != NULL, "zulip_merge_base: %s", jtext(j));
	json_object *methods = jget(j, "authentication_methods");
	CHECK(methods != NULL && json_object_is_type(methods, json_type_object), "authentication_methods: %s",
	      jtext(j));
	EXPECT_BOOL(methods, "password", true);
	EXPECT_BOOL(methods, "email", true);
	json_object *external = jget(j, "external_authentication_methods");
	CHECK(external != NULL && json_object_is_type(external, json_type_array) &&
	          json_object_array_length(external) == 0,
	      "external_authentication_methods should be []: %s", jtext(j));
	EXPECT_BOOL(j, "push_notifications_enabled", false);
	EXPECT_BOOL(j, "is_incompatible", false);
	EXPECT_BOOL(j, "email_auth_enabled", true);
	EXPECT_BOOL(j, "require_email_format_usernames", true);
	EXPECT_STR(j, "realm_url", itest_url);
	EXPECT_STR(j, "realm_uri", itest_url);
	CHECK(jstr(j, "realm_name") != NULL && *jstr(j, "realm_name") != '\0', "realm_name: %s", jtext(j));
	/* Gravatar identicon of the (empty) subdomain: md5("") */
	EXPECT_STR(j, "realm_icon", "https://secure.gravatar.com/avatar/d41d8cd98f00b204e9800998ecf8427e?d=identicon");
	CHECK(jstr(j, "realm_description") != NULL, "realm_description: %s", jtext(j));
	EXPECT_BOOL(j, "realm_web_public_access_enabled", false);
	EXPECT_ABSENT(j, "ignored_parameters_unsupported");
	char *name = psql_ok("SELECT name FROM realms WHERE subdomain = ''");
	EXPECT_STR(j, "realm_name", name);
}

static void test_server_settings_other_realm(void)
{
	struct user *o = new_realm();
	struct resp *r = http(&(struct request){.path = "/api/v1/server_settings", .host = realm_host(o->realm)});
	EXPECT_SUCCESS(r);
	const char *port = strchr(itest_hostport, ':');
	const char *url = fmt("http://%s.%s%s", o->realm, itest_hostname, port ? port : "");
	EXPECT_STR(r->json, "realm_url", url);
	EXPECT_STR(r->json, "realm_uri", url);
	EXPECT_STR(r->json, "realm_name", psql_ok("SELECT name FROM realms WHERE subdomain = '%s'", o->realm));
	CHECK(jstr(r->json, "realm_icon") != NULL &&
	          strncmp(jstr(r->json, "realm_icon"), "https://secure.gravatar.com/avatar/", 35) == 0,
	      "realm_icon: %s", r->body);
}

static void test_server_settings_without_realm(void)
{
	struct resp *r = http(&(struct request){.path = "/api/v1/server_settings", .host = realm_host("nosuch")});
	EXPECT_SUCCESS(r);
	EXPECT_INT(r->json, "zulip_feature_level", 496);
	EXPECT_BOOL(r->json, "email_auth_enabled", true);
	CHECK(jget(r->json, "authentication_methods") != NULL, "authentication_methods missing: %s", r->body);
	static const char *const realm_keys[] = {"realm_url",  "realm_uri",         "realm_name",
	                                         "realm_icon", "realm_description", "realm_web_public_access_enabled"};
	for (size_t i = 0; i < sizeof(realm_keys) / sizeof(realm_keys[0]); i++)
		EXPECT_ABSENT(r->json, realm_keys[i]);
}

/* ---- GET /health -------------------------------------------------------------------------------------------- */

static void test_health(void)
{
	struct resp *r = http(&(struct request){.path = "/health"});
	EXPECT_SUCCESS(r);
	EXPECT_KEYS(r->json, "result", "msg", "postgres", "redis");
	EXPECT_STR(r->json, "postgres", "ok");
	EXPECT_STR(r->json, "redis", "ok");
}

/* ---- routing ------------------------------------------------------------------------------------------------ */

static void expect_not_found(const struct resp *r, const char *file, int line)
{
	expect_error(r, 404, "BAD_REQUEST", "Not Found", file, line);
}
#define EXPECT_NOT_FOUND(r) expect_not_found((r), __FILE__, __LINE__)

static void test_unknown_path(void)
{
	EXPECT_NOT_FOUND(api_get(&itest_owner, "/nonexistent"));
	/* Unauthenticated: still 404, not 401. */
	EXPECT_NOT_FOUND(http(&(struct request){.path = "/api/v1/nonexistent"}));
	EXPECT_NOT_FOUND(http(&(struct request){.method = "POST", .path = "/api/v1/nonexistent", .form = "a=1"}));
	EXPECT_NOT_FOUND(api_get(&itest_owner, "/users/me/nonexistent"));
	/* Outside /api/v1 nginx answers, in the same JSON. */
	EXPECT_NOT_FOUND(http(&(struct request){.path = "/nonexistent"}));
}

/*
 * Zulip's rest_dispatch serves HEAD wherever GET is served (supported_methods.setdefault("HEAD", ...)), so HEAD is
 * listed after the route's own methods; the 405 comes from Django's HttpResponseNotAllowed, which sets Allow.
 */
static void test_method_not_allowed(void)
{
	struct resp *r = api_method("DELETE", &itest_owner, "/users");
	EXPECT_ERROR(r, 405, NULL, "Method Not Allowed");
	EXPECT_KEYS(r->json, "result", "msg", "allowed_methods");
	EXPECT_STR_LIST(r->json, "allowed_methods", "GET", "POST", "HEAD");
	EXPECT_HEADER(r, "Allow", "GET, POST, HEAD");
	r = api_method("POST", &itest_owner, "/users/me");
	EXPECT_ERROR(r, 405, NULL, "Method Not Allowed");
	EXPECT_STR_LIST(r->json, "allowed_methods", "GET", "DELETE", "HEAD");
	EXPECT_HEADER(r, "Allow", "GET, DELETE, HEAD");
	r = api_method("PUT", &itest_owner, fmt("/users/%lld", (long long)itest_owner.id));
	EXPECT_ERROR(r, 405, NULL, "Method Not Allowed");
	EXPECT_STR_LIST(r->json, "allowed_methods", "GET", "PATCH", "DELETE", "HEAD");
	/* The method is checked before authentication. */
	r = http(&(struct request){.method = "DELETE", .path = "/api/v1/users"});
	EXPECT_ERROR(r, 405, NULL, "Method Not Allowed");
	EXPECT_STR_LIST(r->json, "allowed_methods", "GET", "POST", "HEAD");
}

static void test_head_is_get(void)
{
	struct user *u = new_user("member");
	struct resp *r = api_method("HEAD", u, "/users/me");
	EXPECT_STATUS(r, 200);
	CHECK(r->len == 0, "a HEAD response has no body: %s", r->body);
	r = api_method("HEAD", u, "/users");
	EXPECT_STATUS(r, 200);
	r = http(&(struct request){.method = "HEAD", .path = "/api/v1/users/me"});
	EXPECT_STATUS(r, 401);
}

/* rest_dispatch answers OPTIONS itself, before authentication: 204 with the sorted methods in Allow. */
static void test_options(void)
{
	struct resp *r = http(&(struct request){.method = "OPTIONS", .path = "/api/v1/users"});
	EXPECT_STATUS(r, 204);
	EXPECT_HEADER(r, "Allow", "GET, HEAD, POST");
	r = api_method("OPTIONS", &itest_owner, "/users/me");
	EXPECT_STATUS(r, 204);
	EXPECT_HEADER(r, "Allow", "DELETE, GET, HEAD");
}

/* ---- rate limiting ------------------------------------------------------------------------------------------ */

static long header_long(const struct resp *r, const char *name, bool *ok)
{
	const char *v = resp_header(r, name);
	char *end;
	if (v == NULL || *v == '\0') {
		*ok = false;
		return -1;
	}
	long n = strtol(v, &end, 10);
	if (*end != '\0')
		*ok = false;
	return n;
}

/*
 * Sends limit+1 requests as a fresh user. Returns false (to retry with another user) if the requests straddled
 * two rate-limit windows (X-RateLimit-Reset changed).
 */
static bool rate_limit_round(int limit)
{
	struct user *u = new_user("member");
	long reset = -1;
	int bad_remaining = 0, bad_status = 0;
	for (int i = 1; i <= limit; i++) {
		struct resp *r = api_get(u, "/users/me");
		if (r->status != 200) {
			if (bad_status++ == 0)
				CHECK(false, "request %d of %d: %s", i, limit, r->body);
			continue;
		}
		bool ok = true;
		long remaining = header_long(r, "X-RateLimit-Remaining", &ok);
		long lim = header_long(r, "X-RateLimit-Limit", &ok);
		long rs = header_long(r, "X-RateLimit-Reset", &ok);
		if (reset == -1)
			reset = rs;
		else if (rs != reset)
			return false;
		if (!ok || remaining != limit - i || lim != limit) {
			if (bad_remaining++ == 0)
				CHECK(false,
				      "request %d: X-RateLimit-Limit %s, X-RateLimit-Remaining %s (expected %d, %d)", i,
				      resp_header(r, "X-RateLimit-Limit"), resp_header(r, "X-RateLimit-Remaining"),
				      limit, limit - i);
		}
	}
	CHECK(bad_status == 0, "%d of the first %d requests failed", bad_status, limit);
	CHECK(bad_remaining == 0, "%d responses had wrong X-RateLimit-* headers", bad_remaining);
	time_t now = time(NULL);
	CHECK(reset > now - 1 && reset <= now + 61, "X-RateLimit-Reset %ld is not within the next minute (now %ld)",
	      reset, (long)now);

	struct resp *r = api_get(u, "/users/me");
	bool ok = true;
	long rs = header_long(r, "X-RateLimit-Reset", &ok);
	if (ok && rs != reset)
		return false;
	EXPECT_ERROR(r, 429, "RATE_LIMIT_HIT", "API usage exceeded rate limit");
	json_object *retry = jget(r->json, "retry-after");
	CHECK(retry != NULL &&
	          (json_object_is_type(retry, json_type_double) || json_object_is_type(retry, json_type_int)) &&
	          json_object_get_double(retry) > 0 && json_object_get_double(retry) <= 61,
	      "\"retry-after\" should be the seconds until the window ends: %s", r->body);
	const char *ra = resp_header(r, "Retry-After");
	char *end = NULL;
	double ra_secs = ra ? strtod(ra, &end) : -1;
	CHECK(ra != NULL && end != ra && *end == '\0' && ra_secs > 0 && ra_secs <= 61, "Retry-After header: %s",
	      ra ? ra : "(none)");
	EXPECT_HEADER(r, "X-RateLimit-Limit", fmt("%d", limit));
	EXPECT_HEADER(r, "X-RateLimit-Remaining", "0");
	CHECK(resp_header(r, "X-RateLimit-Reset") != NULL, "X-RateLimit-Reset missing on the 429");
	/* Another user is not affected. */
	EXPECT_SUCCESS(api_get(new_user("member"), "/users/me"));
	return true;
}

static void test_rate_limit(void)
{
	int limit = itest_rate_limit;
	REQUIRE(limit > 0 && limit <= 5000, "CONFAB_RATE_LIMIT %d is not usable", limit);
	for (int attempt = 0; attempt < 3; attempt++)
		if (rate_limit_round(limit))
			return;
	CHECK(false, "every attempt straddled a rate-limit window");
}

/* ---- restarts ----------------------------------------------------------------------------------------------- */

struct restart_stats {
	int responses, successes, bad;
	char first_bad[600];
};

/* A response seen while a backend is down: 200, or a JSON error that is not a 500-style crash. */
static void classify(const struct resp *r, struct restart_stats *st)
{
	st->responses++;
	if (r->status == 200 && r->json != NULL) {
		st->successes++;
		return;
	}
	const char *result = jstr(r->json, "result");
	bool json_error = r->json != NULL && result != NULL && strcmp(result, "error") == 0 && jstr(r->json, "msg");
	bool status_ok =
	    r->status >= 400 && (r->status < 500 || r->status == 502 || r->status == 503 || r->status == 504);
	if (!json_error || !status_ok) {
		if (st->bad++ == 0)
			snprintf(st->first_bad, sizeof(st->first_bad), "%s -> %ld %.400s", r->what, r->status, r->body);
	}
}

/* GET /health until it answers 200 (up to 5 s); the last answer. */
static struct resp *wait_for_health(void)
{
	struct resp *h = NULL;
	for (int i = 0; i < 50; i++) {
		h = http(&(struct request){.path = "/health"});
		if (h->status == 200)
			break;
		usleep(100000);
	}
	return h;
}

/* Runs the command in env var name in the background while polling, then waits for recovery. */
static void restart_and_recover(const char *env_name)
{
	const char *cmd = getenv(env_name);
	REQUIRE(cmd != NULL && *cmd != '\0', "%s is not set", env_name);
	struct user *u = new_user("member");
	EXPECT_SUCCESS(api_get(u, "/users/me"));
	fflush(NULL);
	pid_t pid = fork();
	REQUIRE(pid >= 0, "fork failed");
	if (pid == 0) {
		execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
		_exit(127);
	}
	struct restart_stats st = {0};
	int status = 0;
	struct timespec start, now;
	clock_gettime(CLOCK_MONOTONIC, &start);
	for (;;) {
		pid_t done = waitpid(pid, &status, WNOHANG);
		if (done == pid)
			break;
		clock_gettime(CLOCK_MONOTONIC, &now);
		if (now.tv_sec - start.tv_sec > 90) {
			kill(pid, SIGKILL);
			waitpid(pid, &status, 0);
			REQUIRE(false, "%s did not finish within 90 s", env_name);
		}
		classify(api_get(u, "/users/me"), &st);
		if (st.responses % 20 == 0)
			classify(http(&(struct request){.path = "/health"}), &st);
		usleep(50000);
	}
	REQUIRE(WIFEXITED(status) && WEXITSTATUS(status) == 0, "%s (%s) failed with status %d", env_name, cmd, status);

	/* Within a few seconds the API answers again. */
	bool recovered = false;
	struct resp *last = NULL;
	for (int i = 0; i < 100 && !recovered; i++) {
		last = api_get(u, "/users/me");
		if (last->status == 200 && last->json != NULL)
			recovered = true;
		else {
			classify(last, &st);
			usleep(100000);
		}
	}
	CHECK(recovered, "GET /users/me did not recover within 10 s after %s: %s", env_name,
	      last ? last->body : "(none)");
	CHECK(st.bad == 0, "%d responses during/after %s were not JSON errors with an acceptable status; first: %s",
	      st.bad, env_name, st.first_bad);
	printf("(%s: %d responses while restarting, %d successful) ", env_name, st.responses, st.successes);
	struct resp *h = wait_for_health();
	EXPECT_SUCCESS(h);
	struct resp *r = api_get(u, "/users");
	EXPECT_SUCCESS(r);
	CHECK(find_member(jget(r->json, "members"), u->id) != NULL, "GET /users after %s lacks user %lld", env_name,
	      (long long)u->id);
	/* A write works too. */
	struct resp *k = http(&(struct request){
	    .method = "POST",
	    .path = "/api/v1/fetch_api_key",
	    .form = fmt("username=%s&password=%s", url_encode(u->email), url_encode(u->password)),
	});
	EXPECT_SUCCESS(k);
}

static void test_restart_postgresql(void)
{
	restart_and_recover("CONFAB_RESTART_PG");
}

static void test_restart_redis(void)
{
	restart_and_recover("CONFAB_RESTART_REDIS");
}

static void test_nginx_errors_are_json(void); /* at the end of the file */

/* ---- Redis outage ------------------------------------------------------------------------------------------- */

/*
 * With Redis down, requests that need no event queue go on (the rate limiter fails open), /health names Redis
 * as the dependency that is down, and once Redis is back everything works again, the rate limiter included.
 */
static void test_redis_outage(void)
{
	struct user *u = new_user("member");
	EXPECT_SUCCESS(api_get(u, "/users/me"));
	run_env_command("CONFAB_STOP_REDIS");
	for (int i = 0; i < 5; i++) {
		struct resp *r = api_get(u, "/users/me");
		EXPECT_SUCCESS(r);
		EXPECT_INT(r->json, "user_id", u->id);
	}
	EXPECT_SUCCESS(api_get(u, "/users"));
	struct resp *h = http(&(struct request){.path = "/health"});
	EXPECT_ERROR(h, 503, "SERVICE_UNAVAILABLE", "Service temporarily unavailable");
	EXPECT_STR(h->json, "postgres", "ok");
	EXPECT_STR(h->json, "redis", "down");
	run_env_command("CONFAB_START_REDIS");
	h = wait_for_health();
	EXPECT_SUCCESS(h);
	EXPECT_STR(h->json, "redis", "ok");
	/* The limiter tries Redis again a second after a failure; then its headers are back. */
	struct resp *r = NULL;
	for (int i = 0; i < 30; i++) {
		r = api_get(u, "/users/me");
		if (resp_header(r, "X-RateLimit-Remaining") != NULL)
			break;
		usleep(100000);
	}
	EXPECT_SUCCESS(r);
	CHECK(resp_header(r, "X-RateLimit-Remaining") != NULL, "no X-RateLimit-* headers after the outage");
	send_direct_message(u, fmt("[%lld]", (long long)u->id), "Redis is back");
}

void register_server_tests(void)
{
	static const struct itest_case cases[] = {
	    {"server_settings", test_server_settings},
	    {"server_settings_other_realm", test_server_settings_other_realm},
	    {"server_settings_without_realm", test_server_settings_without_realm},
	    {"health", test_health},
	    {"unknown_path", test_unknown_path},
	    {"method_not_allowed", test_method_not_allowed},
	    {"head_is_get", test_head_is_get},
	    {"options", test_options},
	    {"rate_limit", test_rate_limit},
	    {"nginx_errors_are_json", test_nginx_errors_are_json},
	    {NULL, NULL},
	};
	itest_add_suite("server", cases);
}

void register_restart_tests(void)
{
	static const struct itest_case cases[] = {
	    {"restart_postgresql", test_restart_postgresql},
	    {"restart_redis", test_restart_redis},
	    {"redis_outage", test_redis_outage},
	    {NULL, NULL},
	};
	itest_add_suite("restarts", cases);
}

/* ==== nginx's own errors (issue 10, item 8) ==================================================================== */

/* What a raw exchange answered: status, Content-Type and body of the first response. */
struct raw_answer {
	long status;
	const char *ctype;
	const char *text;
};

/*
 * Sends the bytes of req as they are (curl would refuse or repair them) to the stack's host and port, and reads
 * the answer until nginx closes the connection.
 */
static struct raw_answer raw_exchange(const char *req, size_t len)
{
	struct raw_answer a = {0, "", ""};
	const char *colon = strrchr(itest_hostport, ':');
	const char *port = colon && strchr(colon, ']') == NULL ? colon + 1 : "80";
	struct addrinfo hints = {.ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM}, *ai = NULL;
	REQUIRE(getaddrinfo(itest_hostname, port, &hints, &ai) == 0, "cannot resolve %s", itest_hostport);
	int fd = socket(ai->ai_family, ai->ai_socktype, ai->ai_protocol);
	bool ok = fd >= 0 && connect(fd, ai->ai_addr, ai->ai_addrlen) == 0;
	freeaddrinfo(ai);
	REQUIRE(ok, "cannot connect to %s", itest_hostport);
	struct timeval tv = {10, 0};
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	for (size_t sent = 0; sent < len;) {
		ssize_t n = send(fd, req + sent, len - sent, MSG_NOSIGNAL);
		if (n <= 0)
			break; /* nginx may answer and close before reading everything */
		sent += (size_t)n;
	}
	size_t cap = 65536, got = 0;
	char *buf = keep(malloc(cap + 1));
	REQUIRE(buf != NULL, "out of memory");
	ssize_t n;
	while (got < cap && (n = recv(fd, buf + got, cap - got, 0)) > 0)
		got += (size_t)n;
	close(fd);
	buf[got] = '\0';
	sscanf(buf, "HTTP/1.%*d %ld", &a.status);
	char *body = strstr(buf, "\r\n\r\n");
	if (body == NULL)
		return a;
	*body = '\0';
	a.text = body + 4;
	char *ct = strcasestr(buf, "\r\nContent-Type:");
	if (ct != NULL) {
		ct += 15;
		ct += strspn(ct, " ");
		ct[strcspn(ct, "\r")] = '\0';
		a.ctype = ct;
	}
	return a;
}

static void expect_nginx_json(struct raw_answer a, const char *what, long status, const char *msg, const char *file,
                              int line)
{
	json_object *json = json_tokener_parse(a.text);
	size_t first_line = strcspn(what, "\r");
	itest_check(a.status == status && strcmp(a.ctype, "application/json") == 0 && json != NULL, false, file, line,
	            "%.*s: %ld %s %.200s, want %ld application/json", (int)(first_line < 80 ? first_line : 80), what,
	            a.status, a.ctype, a.text, status);
	if (json == NULL)
		return;
	expect_keys(json, (const char *const[]){"result", "msg", "code", NULL}, file, line);
	expect_str(json, "result", "error", file, line);
	expect_str(json, "msg", msg, file, line);
	expect_str(json, "code", "BAD_REQUEST", file, line);
	json_object_put(json);
}
#define EXPECT_NGINX_JSON(req, status, msg)                                                                            \
	expect_nginx_json(raw_exchange((req), strlen(req)), (req), (status), (msg), __FILE__, __LINE__)

/* Errors nginx finds in the request line and headers, before any location is chosen, answer JSON as well. */
static void test_nginx_errors_are_json(void)
{
	const char *host = itest_hostport;
	/* A request line over large_client_header_buffers (8 KB): 414. */
	const char *long_uri = fmt("GET /api/v1/users/me?x=%s HTTP/1.1\r\nHost: %s\r\n\r\n", repeat('a', 9000), host);
	EXPECT_NGINX_JSON(long_uri, 414, "Request-URI too large");
	struct resp *r = http(&(struct request){.path = fmt("/api/v1/users/me?x=%s", repeat('a', 9000))});
	EXPECT_ERROR(r, 414, "BAD_REQUEST", "Request-URI too large");
	/* A header line over the buffers: nginx's 494, sent as 400. */
	r = http(&(struct request){.path = "/api/v1/users/me",
	                           .headers = (const char *const[]){fmt("X-Big: %s", repeat('b', 9000)), NULL}});
	EXPECT_ERROR(r, 400, "BAD_REQUEST", "Request header or cookie too large");
	/* Invalid headers and request lines: 400. */
	EXPECT_NGINX_JSON(fmt("GET /api/v1/users/me HTTP/1.1\r\nHost: %s\r\nNo colon here\r\n\r\n", host), 400,
	                  "Bad Request");
	EXPECT_NGINX_JSON(fmt("GET /api/v1/users/me HTTP/1.1\r\nHost: %s\r\nHost: %s\r\n\r\n", host, host), 400,
	                  "Bad Request");
	EXPECT_NGINX_JSON("GET /api/v1/users/me HTTP/1.1\r\n\r\n", 400, "Bad Request");
	EXPECT_NGINX_JSON("GARBAGE\r\n\r\n", 400, "Bad Request");
	EXPECT_NGINX_JSON(fmt("POST /api/v1/messages HTTP/1.1\r\nHost: %s\r\nContent-Length: many\r\n\r\n", host), 400,
	                  "Bad Request");
	EXPECT_NGINX_JSON(fmt("GET /api/v1/users/me HTTP/2.0\r\nHost: %s\r\n\r\n", host), 505,
	                  "HTTP Version Not Supported");
	EXPECT_NGINX_JSON(fmt("POST /api/v1/messages HTTP/1.1\r\nHost: %s\r\nTransfer-Encoding: gzip\r\n\r\n", host),
	                  501, "Not Implemented");
	/* The error pages are not reachable from outside. */
	EXPECT_NOT_FOUND(http(&(struct request){.path = "/_confab/error/400"}));
}
