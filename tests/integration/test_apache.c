/*
 * Apache as the front end (conf/apache/confab.conf): scripts/test starts Debian's apache2 with it next to nginx,
 * over the same worker sockets, and gives its URL as CONFAB_APACHE_URL. Every test here talks to Apache only
 * (itest_use_url): authentication, a multipart upload and its download through X-Sendfile, a custom emoji image,
 * who may read them, a chunked body, no header smuggling, PATCH with query-string parameters, long-polls (woken by
 * a message, and held for a heartbeat period without a proxy timeout), and Apache's own 404 and 413 as the JSON
 * nginx answers. Without
 * CONFAB_APACHE_URL each test fails: the front end is part of what ./scripts/test proves.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "itest.h"

#define BOUNDARY "----confabApacheBoundary9"

/* Points the harness at Apache for the rest of the test; fails the test without CONFAB_APACHE_URL. */
static void via_apache(void)
{
	const char *url = getenv("CONFAB_APACHE_URL");
	REQUIRE(url != NULL && *url != '\0', "CONFAB_APACHE_URL is not set (scripts/test starts Apache and sets it)");
	itest_use_url(url);
}

/* Apache answered, not a worker (whose responses all carry X-Request-Id). */
static void expect_from_apache(const struct resp *r, const char *file, int line)
{
	itest_check(resp_header(r, "X-Request-Id") == NULL, false, file, line, "%s: answered by a worker (%s)", r->what,
	            resp_header(r, "X-Request-Id"));
	itest_check(strcmp(resp_header(r, "Server") ? resp_header(r, "Server") : "", "Apache") == 0, false, file, line,
	            "%s: Server %s, want Apache", r->what, resp_header(r, "Server"));
}
#define EXPECT_FROM_APACHE(r) expect_from_apache((r), __FILE__, __LINE__)

static void test_basic_auth(void)
{
	via_apache();
	struct user *u = new_user("member");
	struct resp *r = api_get(u, "/users/me");
	EXPECT_SUCCESS(r);
	EXPECT_INT(r->json, "user_id", u->id);
	REQUIRE(resp_header(r, "X-Request-Id") != NULL, "%s: no worker answered", r->what);
	r = http(&(struct request){.path = "/api/v1/users/me", .auth_email = u->email,
	                           .auth_key = "00000000000000000000000000000000"});
	EXPECT_ERROR(r, 401, "UNAUTHORIZED", "Invalid API key");
	EXPECT_HEADER(r, "WWW-Authenticate", "Basic realm=\"zulip\"");
	/* No header at all: the worker's 401, not an Apache page. */
	r = http(&(struct request){.path = "/api/v1/users/me"});
	EXPECT_ERROR(r, 401, "UNAUTHORIZED", "Not logged in: API authentication or user session required");
}

static struct resp *upload(const struct user *u, const char *filename, const char *data)
{
	char *body = fmt("--" BOUNDARY "\r\nContent-Disposition: form-data; name=\"file\"; filename=\"%s\"\r\n"
	                 "Content-Type: text/plain\r\n\r\n%s\r\n--" BOUNDARY "--\r\n",
	                 filename, data);
	return http(&(struct request){.method = "POST",
	                              .path = "/api/v1/user_uploads",
	                              .user = u,
	                              .body = body,
	                              .body_len = strlen(body),
	                              .content_type = "multipart/form-data; boundary=" BOUNDARY,
	                              .timeout = 60});
}

/* Uploaded through Apache, sent back by mod_xsendfile with the worker's headers (a name that needs escaping). */
static void test_upload_download(void)
{
	via_apache();
	struct user *u = new_user("member");
	struct resp *r = upload(u, "gr\xc3\xbc\xc3\x9f" "e.txt", "apache says hi");
	EXPECT_SUCCESS(r);
	EXPECT_STR(r->json, "filename", "gr\xc3\xbc\xc3\x9f" "e.txt");
	const char *url = jstr(r->json, "url");
	REQUIRE(url != NULL && strncmp(url, "/user_uploads/", 14) == 0, "%s", r->body);
	const char *quoted = fmt("%.*s%s", (int)(strrchr(url, '/') + 1 - url), url, "gr%C3%BC%C3%9Fe.txt");
	r = http(&(struct request){.path = quoted, .user = u});
	EXPECT_STATUS(r, 200);
	CHECK(r->len == 14 && memcmp(r->body, "apache says hi", 14) == 0, "%s: body %s", r->what, r->body);
	EXPECT_HEADER(r, "Content-Disposition", "inline; filename*=utf-8''gr%C3%BC%C3%9Fe.txt");
	EXPECT_HEADER(r, "Cache-Control", "private, immutable");
	EXPECT_HEADER(r, "X-Content-Type-Options", "nosniff");
	/* The headers of the file as nginx sends it. */
	itest_use_url(getenv("CONFAB_URL"));
	struct resp *n = http(&(struct request){.path = quoted, .user = u});
	via_apache();
	EXPECT_STATUS(n, 200);
	const char *same[] = {"Content-Type", "Content-Disposition", "Cache-Control", "X-Content-Type-Options",
	                      "Content-Security-Policy", "Content-Length"};
	for (size_t i = 0; i < sizeof(same) / sizeof(same[0]); i++) {
		const char *want = resp_header(n, same[i]), *got = resp_header(r, same[i]);
		CHECK(want != NULL && got != NULL && strcmp(want, got) == 0, "%s: %s %s, nginx sends %s", r->what,
		      same[i], got, want);
	}
	CHECK(resp_header(r, "X-Sendfile") == NULL && resp_header(r, "X-Accel-Redirect") == NULL,
	      "%s: the worker's file header reached the client", r->what);
	r = http(&(struct request){.path = fmt("/user_uploads/download/%s", quoted + 14), .user = u});
	EXPECT_STATUS(r, 200);
	EXPECT_HEADER(r, "Content-Disposition", "attachment; filename*=utf-8''gr%C3%BC%C3%9Fe.txt");
	CHECK(r->len == 14, "%s: %zu bytes", r->what, r->len);
}

/* A chunked request body (no Content-Length; Apache passes it on without one): the worker reads it to its end. */
static void test_chunked_body(void)
{
	via_apache();
	struct user *u = new_user("member");
	const char *chunked[] = {"Transfer-Encoding: chunked", NULL};
	char *body = fmt("--" BOUNDARY "\r\nContent-Disposition: form-data; name=\"file\"; filename=\"chunked.txt\"\r\n"
	                 "Content-Type: text/plain\r\n\r\n%s\r\n--" BOUNDARY "--\r\n",
	                 "sent in chunks");
	struct resp *r = http(&(struct request){.method = "POST",
	                                        .path = "/api/v1/user_uploads",
	                                        .user = u,
	                                        .body = body,
	                                        .body_len = strlen(body),
	                                        .content_type = "multipart/form-data; boundary=" BOUNDARY,
	                                        .headers = chunked});
	EXPECT_SUCCESS(r);
	const char *url = jstr(r->json, "url");
	REQUIRE(url != NULL, "%s", r->body);
	r = http(&(struct request){.path = url, .user = u});
	EXPECT_STATUS(r, 200);
	CHECK(r->len == 14 && memcmp(r->body, "sent in chunks", 14) == 0, "%s: body %s", r->what, r->body);
	r = http(&(struct request){.method = "PATCH", .path = "/api/v1/settings", .form = "full_name=Chunky",
	                           .user = u, .headers = chunked});
	EXPECT_SUCCESS(r);
	EXPECT_STR(api_get(u, "/users/me")->json, "full_name", "Chunky");
}

/* A custom emoji image (/user_avatars/..., public) sent by mod_xsendfile, as nginx sends it. */
static void test_emoji_image(void)
{
	via_apache();
	static const char png[] = "\x89PNG\r\n\x1a\n\0\0\0\rIHDRapache-emoji";
	size_t png_len = sizeof(png) - 1;
	struct user *admin = new_user("admin");
	char *name = fmt("apache_%ld_%ld", (long)time(NULL), (long)getpid());
	char *head = fmt("--" BOUNDARY "\r\nContent-Disposition: form-data; name=\"f1\"; filename=\"img.png\"\r\n"
	                 "Content-Type: image/png\r\n\r\n");
	const char *tail = "\r\n--" BOUNDARY "--\r\n";
	char *body = keep(malloc(strlen(head) + png_len + strlen(tail)));
	REQUIRE(body != NULL, "out of memory");
	memcpy(body, head, strlen(head));
	memcpy(body + strlen(head), png, png_len);
	memcpy(body + strlen(head) + png_len, tail, strlen(tail));
	struct resp *r = http(&(struct request){.method = "POST",
	                                        .path = fmt("/api/v1/realm/emoji/%s", name),
	                                        .user = admin,
	                                        .body = body,
	                                        .body_len = strlen(head) + png_len + strlen(tail),
	                                        .content_type = "multipart/form-data; boundary=" BOUNDARY});
	EXPECT_SUCCESS(r);
	r = api_get(admin, "/realm/emoji");
	EXPECT_SUCCESS(r);
	const char *url = NULL;
	json_object_object_foreach (jget(r->json, "emoji"), key, e) {
		(void)key;
		if (strcmp(jstr(e, "name"), name) == 0)
			url = jstr(e, "source_url");
	}
	REQUIRE(url != NULL && strncmp(url, "/user_avatars/", 14) == 0, "no emoji %s in %s", name, r->body);
	r = http(&(struct request){.path = url});
	EXPECT_STATUS(r, 200);
	EXPECT_HEADER(r, "Content-Type", "image/png");
	EXPECT_HEADER(r, "Cache-Control", "public, max-age=86400");
	CHECK(r->len == png_len && memcmp(r->body, png, png_len) == 0, "%s: %zu bytes", r->what, r->len);
	CHECK(resp_header(r, "X-Sendfile") == NULL, "%s: X-Sendfile reached the client", r->what);
	EXPECT_SUCCESS(api_method("DELETE", admin, fmt("/realm/emoji/%s", name)));
}

/* Another user's file is refused; without credentials, the worker's 401 JSON. */
static void test_download_refused(void)
{
	via_apache();
	struct user *u = new_user("member");
	struct resp *r = upload(u, "private.txt", "not for you");
	EXPECT_SUCCESS(r);
	const char *url = jstr(r->json, "url");
	REQUIRE(url != NULL, "%s", r->body);
	r = http(&(struct request){.path = url, .user = new_user("member")});
	EXPECT_STATUS(r, 403);
	EXPECT_HEADER(r, "Content-Type", "text/html; charset=utf-8");
	CHECK(strcmp(r->body, "<p>You are not authorized to view this file.</p>") == 0, "%s: %s", r->what, r->body);
	r = http(&(struct request){.path = url});
	EXPECT_ERROR(r, 401, "UNAUTHORIZED", "Not logged in: API authentication or user session required");
	CHECK(strstr(r->body, "not for you") == NULL, "%s: served", r->what);
}

/*
 * A client cannot make Apache send a file: request headers named like the worker's file headers, or like the
 * parameter that selects X-Sendfile, change nothing (they reach the worker as HTTP_* parameters).
 */
static void test_no_header_smuggling(void)
{
	via_apache();
	struct user *u = new_user("member"), *other = new_user("member");
	struct resp *r = upload(other, "theirs.txt", "their secret");
	EXPECT_SUCCESS(r);
	const char *url = jstr(r->json, "url");
	REQUIRE(url != NULL, "%s", r->body);
	const char *hostile[] = {"X-Sendfile: /etc/passwd", "X-Accel-Redirect: /internal/uploads/x",
	                         "Confab-File-Sender: x-sendfile", "CONFAB_FILE_SENDER: x-sendfile",
	                         "X-Sendfile-Type: X-Sendfile", NULL};
	const char *paths[] = {"/api/v1/users/me", url, "/user_uploads/1/aa/xxxxxxxxxxxxxxxxxxxxxxxx/passwd",
	                       "/user_avatars/1/emoji/images/passwd"};
	for (size_t i = 0; i < sizeof(paths) / sizeof(paths[0]); i++) {
		r = http(&(struct request){.path = paths[i], .user = u, .headers = hostile});
		CHECK(strstr(r->body, "root:") == NULL && strstr(r->body, "their secret") == NULL, "%s: %ld %s", r->what,
		      r->status, r->body);
		CHECK(resp_header(r, "X-Sendfile") == NULL, "%s: X-Sendfile reached the client", r->what);
		CHECK(i == 0 ? r->status == 200 : r->status == 403 || r->status == 404, "%s: %ld", r->what, r->status);
	}
}

/* PATCH with its parameters in the query string (as zulip clients send them). */
static void test_patch_query_parameters(void)
{
	via_apache();
	struct user *u = new_user("member");
	char *name = fmt("Apache %ld", (long)time(NULL));
	struct resp *r =
	    http(&(struct request){.method = "PATCH", .path = "/api/v1/settings", .query = fmt("full_name=%s", url_encode(name)), .user = u});
	EXPECT_SUCCESS(r);
	r = api_get(u, "/users/me");
	EXPECT_STR(r->json, "full_name", name);
}

static char *register_queue(const struct user *u)
{
	struct resp *r = api_post(u, "/register", "event_types=%5B%22message%22%5D");
	EXPECT_SUCCESS(r);
	REQUIRE(jstr(r->json, "queue_id") != NULL, "register: %s", r->body);
	return fmt("%s", jstr(r->json, "queue_id"));
}

static double now_ms(void)
{
	struct timeval tv;
	gettimeofday(&tv, NULL);
	return (double)tv.tv_sec * 1e3 + (double)tv.tv_usec / 1e3;
}

/* A held GET /events (the events group, through Apache) returns when a message sent through Apache arrives. */
static void test_long_poll_woken(void)
{
	via_apache();
	struct user *a = new_user("member"), *b = new_user("member");
	char *q = register_queue(b);
	char *cmd = fmt("(sleep 0.3; curl -s -o /dev/null -u '%s:%s' -d type=direct -d 'to=[%lld]' -d content=wake "
	                "'%s/api/v1/messages') &",
	                a->email, a->key, (long long)b->id, itest_url);
	double start = now_ms();
	REQUIRE(system(cmd) == 0, "could not start curl");
	struct resp *r = http(
	    &(struct request){.path = fmt("/api/v1/events?queue_id=%s&last_event_id=-1", q), .user = b, .timeout = 90});
	double waited = now_ms() - start;
	EXPECT_SUCCESS(r);
	json_object *events = jget(r->json, "events");
	REQUIRE(events != NULL && json_object_array_length(events) == 1, "%s", r->body);
	EXPECT_STR(json_object_array_get_idx(events, 0), "type", "message");
	CHECK(waited < 10000, "the poll waited %.0f ms for an event sent after 300 ms", waited);
	/* DELETE /events is an ordinary call (the api group). */
	r = http(&(struct request){.method = "DELETE", .path = "/api/v1/events", .query = fmt("queue_id=%s", q),
	                           .user = b});
	EXPECT_SUCCESS(r);
}

/* A poll with nothing to deliver is held until the reaper's heartbeat (45-55 s): no proxy timeout cuts it. */
static void test_heartbeat_poll_not_cut(void)
{
	via_apache();
	struct user *u = new_user("member");
	char *q = register_queue(u);
	time_t start = time(NULL);
	struct resp *r = http(
	    &(struct request){.path = fmt("/api/v1/events?queue_id=%s&last_event_id=-1", q), .user = u, .timeout = 90});
	long waited = (long)(time(NULL) - start);
	EXPECT_SUCCESS(r);
	CHECK(waited >= 44 && waited <= 62, "heartbeat after %ld s", waited);
	CHECK(strcmp(jtext(jget(r->json, "events")), "[{\"type\":\"heartbeat\",\"id\":0}]") == 0, "%s", r->body);
}

/* Apache's own 404 outside the worker paths, and the error files themselves are not reachable. */
static void test_own_404_json(void)
{
	via_apache();
	const char *paths[] = {"/", "/foo", "/static/x.js", "/_confab/error/404.json", "/_confab/error/502.json",
	                       "/apix/v1/users/me"};
	for (size_t i = 0; i < sizeof(paths) / sizeof(paths[0]); i++) {
		struct resp *r = http(&(struct request){.path = paths[i]});
		EXPECT_ERROR(r, 404, "BAD_REQUEST", "Not Found");
		EXPECT_HEADER(r, "Content-Type", "application/json");
		EXPECT_FROM_APACHE(r);
	}
}

/* A body over LimitRequestBody (= max_body_bytes) is Apache's 413, before any worker sees it. */
static void test_own_413_json(void)
{
	via_apache();
	struct user *u = new_user("member");
	size_t len = 26214400 + 1;
	char *body = keep(malloc(len));
	REQUIRE(body != NULL, "out of memory");
	memset(body, 'a', len);
	struct resp *r = http(&(struct request){.method = "POST", .path = "/api/v1/user_uploads", .user = u,
	                                        .body = body, .body_len = len,
	                                        .content_type = "multipart/form-data; boundary=" BOUNDARY,
	                                        .timeout = 60});
	EXPECT_ERROR(r, 413, "BAD_REQUEST", "Request body too large");
	EXPECT_HEADER(r, "Content-Type", "application/json");
	EXPECT_FROM_APACHE(r);
}

/*
 * A route that takes no file takes 4 MiB (docs/LIMITS.md, "Requests"): a declared larger body is Apache's 413; a
 * chunked one (no Content-Length) reaches the worker, which reads no more than that and answers the same 413.
 */
static void test_form_body_413_json(void)
{
	via_apache();
	struct user *u = new_user("member");
	size_t len = 4 * 1024 * 1024 + 1;
	char *body = keep(malloc(len));
	REQUIRE(body != NULL, "out of memory");
	memcpy(body, "content=", 8);
	memset(body + 8, 'a', len - 8);
	struct request rq = {.method = "POST", .path = "/api/v1/messages", .user = u, .body = body, .body_len = len,
	                     .content_type = "application/x-www-form-urlencoded", .timeout = 60};
	struct resp *r = http(&rq);
	EXPECT_ERROR(r, 413, "BAD_REQUEST", "Request body too large");
	EXPECT_FROM_APACHE(r);
	rq.headers = (const char *[]){"Transfer-Encoding: chunked", NULL};
	r = http(&rq);
	EXPECT_ERROR(r, 413, "BAD_REQUEST", "Request body too large");
	CHECK(resp_header(r, "X-Request-Id") != NULL, "%s: not answered by a worker", r->what);
	/* The upload routes take more, but not in their other fields. */
	rq.path = "/api/v1/user_uploads";
	rq.headers = NULL;
	r = http(&rq);
	EXPECT_ERROR(r, 413, "BAD_REQUEST", "Request body too large");
	CHECK(resp_header(r, "X-Request-Id") != NULL, "%s: not answered by a worker", r->what);
}

void register_apache_tests(void)
{
	static const struct itest_case cases[] = {
	    {"basic_auth", test_basic_auth},
	    {"upload_download", test_upload_download},
	    {"download_refused", test_download_refused},
	    {"chunked_body", test_chunked_body},
	    {"emoji_image", test_emoji_image},
	    {"no_header_smuggling", test_no_header_smuggling},
	    {"patch_query_parameters", test_patch_query_parameters},
	    {"long_poll_woken", test_long_poll_woken},
	    {"heartbeat_poll_not_cut", test_heartbeat_poll_not_cut},
	    {"own_404_json", test_own_404_json},
	    {"own_413_json", test_own_413_json},
	    {"form_body_413_json", test_form_body_413_json},
	    {NULL, NULL},
	};
	itest_add_suite("apache", cases);
}
