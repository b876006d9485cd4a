/*
 * What one request may cost (issue 29, items 2 and 10; docs/LIMITS.md): the fields of a form, the body of a route
 * that takes no file, the memory a parameter costs parsed, and that the memory of large requests goes back to the
 * system; then the stored texts and the bytes no column takes (a NUL in a JSON string, invalid UTF-8 in a path),
 * each a 400 with the reference's words where it has them, never a 500.
 * Reference: Django's DATA_UPLOAD_MAX_NUMBER_FIELDS (TooManyFieldsSent, a 400) and repercent_broken_unicode;
 * Zulip zerver/lib/typed_endpoint.py (the "x is too long (limit: N characters)" words).
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "itest.h"
#include "procs.h"

#define FORM_MAX_FIELDS 1000
#define FORM_MAX_BYTES  (4 * 1024 * 1024)

/* "a=1&a=1&...": n fields. */
static char *fields(size_t n)
{
	char *s = keep(malloc(4 * n + 1));
	REQUIRE(s != NULL, "malloc");
	memcpy(s, "a=1", 3);
	for (size_t i = 1; i < n; i++)
		memcpy(s + 4 * i - 1, "&a=1", 4);
	s[4 * n - 1] = '\0';
	return s;
}

/* A form body of exactly n bytes: "content=aaa...". */
static char *one_value(size_t n)
{
	char *s = keep(malloc(n + 1));
	REQUIRE(s != NULL, "malloc");
	memcpy(s, "content=", 8);
	memset(s + 8, 'a', n - 8);
	s[n] = '\0';
	return s;
}

static struct resp *post_form(const struct user *u, const char *path, const char *body, size_t len)
{
	return http(&(struct request){.method = "POST",
	                              .path = path,
	                              .user = u,
	                              .body = body,
	                              .body_len = len,
	                              .content_type = "application/x-www-form-urlencoded",
	                              .timeout = 60});
}

/* ---- fields ------------------------------------------------------------------------------------------------- */

/* More than 1,000 fields is the reference's TooManyFieldsSent (its 400 page), found before authentication. */
static void test_too_many_fields(void)
{
	char *many = fields(FORM_MAX_FIELDS + 1);
	EXPECT_ERROR(post_form(NULL, "/api/v1/messages", many, strlen(many)), 400, "BAD_REQUEST", "Bad Request");
	EXPECT_ERROR(http(&(struct request){.path = fmt("/api/v1/users/me?%s", many)}), 400, "BAD_REQUEST",
	             "Bad Request");
	EXPECT_ERROR(post_form(&itest_owner, "/api/v1/users/me/status", many, strlen(many)), 400, "BAD_REQUEST",
	             "Bad Request");
	/* 1,000 fields are taken (and then ignored, as parameters the route does not have). */
	char *enough = fields(FORM_MAX_FIELDS);
	EXPECT_ERROR(post_form(NULL, "/api/v1/messages", enough, strlen(enough)), 401, "UNAUTHORIZED",
	             "Not logged in: API authentication or user session required");
	struct resp *r = post_form(&itest_owner, "/api/v1/users/me/status", enough, strlen(enough));
	EXPECT_STATUS(r, 400); /* "Client did not pass any new values.": the fields were parsed */
	EXPECT_STR(r->json, "msg", "Client did not pass any new values.");
}

static void test_too_many_multipart_fields(void)
{
	const char **pairs = keep(calloc(2 * (FORM_MAX_FIELDS + 1) + 1, sizeof(*pairs)));
	for (size_t i = 0; i < 2 * (FORM_MAX_FIELDS + 1); i += 2) {
		pairs[i] = "a";
		pairs[i + 1] = "1";
	}
	size_t len;
	char *ctype;
	char *body = multipart_body(pairs, &len, &ctype);
	struct resp *r = http(&(struct request){
	    .method = "POST", .path = "/api/v1/messages", .body = body, .body_len = len, .content_type = ctype});
	EXPECT_ERROR(r, 400, "BAD_REQUEST", "Bad Request");
}

/* ---- body size ---------------------------------------------------------------------------------------------- */

/* A route that takes no file takes a body of 4 MiB at most, answered before it is read, and before
 * authentication; a route that takes files takes no more in its other fields. */
static void test_form_body_too_large(void)
{
	char *big = one_value(FORM_MAX_BYTES + 1);
	EXPECT_ERROR(post_form(NULL, "/api/v1/messages", big, FORM_MAX_BYTES + 1), 413, "BAD_REQUEST",
	             "Request body too large");
	EXPECT_ERROR(post_form(&itest_owner, "/api/v1/messages", big, FORM_MAX_BYTES + 1), 413, "BAD_REQUEST",
	             "Request body too large");
	EXPECT_ERROR(post_form(&itest_owner, "/api/v1/user_uploads", big, FORM_MAX_BYTES + 1), 413, "BAD_REQUEST",
	             "Request body too large");
	/* 4 MiB exactly is read (a message over 10,000 characters is truncated, not refused). */
	struct resp *r = post_form(NULL, "/api/v1/messages", big, FORM_MAX_BYTES);
	EXPECT_STATUS(r, 401);
}

/* ---- memory ------------------------------------------------------------------------------------------------- */

/* A JSON value whose parsed form would cost more than a request may hold: 2 MB of "{}" make 700,000 objects,
 * about 560 MB in json-c. */
static void test_json_value_too_costly(void)
{
	size_t n = 700000;
	char *s = keep(malloc(3 * n + 64));
	REQUIRE(s != NULL, "malloc");
	size_t off = (size_t)sprintf(s, "subscriptions=%%5B%%7B%%22name%%22:%%22x%%22,%%22a%%22:%%5B");
	for (size_t i = 0; i < n; i++)
		off += (size_t)sprintf(s + off, i ? ",{}" : "{}");
	off += (size_t)sprintf(s + off, "%%5D%%7D%%5D");
	EXPECT_ERROR(post_form(&itest_owner, "/api/v1/users/me/subscriptions", s, off), 413, "BAD_REQUEST",
	             "Request body too large");
}

/* prefix + "name=[{},{},...]" (n objects, about 560 MB once parsed for n = 700,000) + suffix, urlencoded. */
static char *costly_form(const char *prefix, const char *name, size_t n, size_t *len)
{
	char *s = keep(malloc(3 * n + strlen(prefix) + strlen(name) + 64));
	REQUIRE(s != NULL, "malloc");
	size_t off = (size_t)sprintf(s, "%s%s=%%5B", prefix, name);
	for (size_t i = 0; i < n; i++)
		off += (size_t)sprintf(s + off, i ? ",{}" : "{}");
	off += (size_t)sprintf(s + off, "%%5D");
	*len = off;
	return s;
}

/* Every JSON a client sends is charged before it is parsed, not only declared JSON parameters: a direct message's
 * `to`, typing's `stream_id` and register's `idle_queue_timeout` are taken as text and parsed by their handlers. */
static void test_client_json_elsewhere_is_charged(void)
{
	size_t len;
	char *s = costly_form("type=direct&content=x&", "to", 700000, &len);
	EXPECT_ERROR(post_form(&itest_owner, "/api/v1/messages", s, len), 413, "BAD_REQUEST", "Request body too large");
	s = costly_form("op=start&type=channel&topic=x&", "stream_id", 700000, &len);
	EXPECT_ERROR(post_form(&itest_owner, "/api/v1/typing", s, len), 413, "BAD_REQUEST", "Request body too large");
	s = costly_form("", "idle_queue_timeout", 700000, &len);
	EXPECT_ERROR(post_form(&itest_owner, "/api/v1/register", s, len), 413, "BAD_REQUEST", "Request body too large");
	/* A plain list of addresses is counted before it is split. */
	char *to = keep(malloc(2 * 1001 + 64));
	REQUIRE(to != NULL, "malloc");
	size_t off = (size_t)sprintf(to, "type=direct&content=x&to=a");
	for (int i = 1; i < 1001; i++)
		off += (size_t)sprintf(to + off, ",a");
	EXPECT_ERROR(post_form(&itest_owner, "/api/v1/messages", to, off), 400, "BAD_REQUEST",
	             "Too many recipients (limit: 1000)");
	EXPECT_SUCCESS(api_get(&itest_owner, "/users/me"));
}

/*
 * The resident memory of the api group's processes, in KiB; *n their number, *asan whether they run with
 * AddressSanitizer (scripts/test), whose allocator keeps freed memory in quarantine and never gives it back.
 */
static long api_rss_kib(int *n, bool *asan)
{
	pid_t pids[16];
	*n = proc_children(group_supervisor("api"), "confab-worker", pids, 16);
	long total = 0;
	static char buf[1 << 20];
	*asan = false;
	for (int i = 0; i < *n; i++) {
		*asan = *asan || (proc_read(pids[i], "maps", buf, sizeof(buf), NULL) && strstr(buf, "libasan") != NULL);
		REQUIRE(proc_read(pids[i], "status", buf, sizeof(buf), NULL), "no /proc/%d/status", (int)pids[i]);
		const char *p = strstr(buf, "VmRSS:");
		REQUIRE(p != NULL, "no VmRSS in /proc/%d/status", (int)pids[i]);
		total += strtol(p + 6, NULL, 10);
	}
	return total;
}

#define BURST 16
/* What the api group may keep after the burst: caches, thread stacks touched, malloc's free lists below 128 KiB. */
#define RSS_SLACK_KIB (64 * 1024)

struct burst_report {
	long status[3];
};

/* One client of the burst: a body of 4 MiB in one value, unauthenticated and authenticated, then a JSON value of
 * 50,000 objects, some 40 MB in json-c (each answered, none taken). */
static void burst_client(void *arg, int i, void *report)
{
	(void)i;
	const struct user *u = arg;
	struct burst_report *rep = report;
	char *big = one_value(FORM_MAX_BYTES);
	rep->status[0] = post_form(NULL, "/api/v1/messages", big, FORM_MAX_BYTES)->status;
	memcpy(big, "xontent=", 8);
	rep->status[1] = post_form(u, "/api/v1/users/me/status", big, FORM_MAX_BYTES)->status;
	char *s = keep(malloc(3 * 50000 + 64));
	size_t off = (size_t)sprintf(s, "narrow=%%5B%%5B");
	for (size_t k = 0; k < 50000; k++)
		off += (size_t)sprintf(s + off, k ? ",{}" : "{}");
	off += (size_t)sprintf(s + off, "%%5D%%5D");
	rep->status[2] = post_form(u, "/api/v1/register", s, off)->status;
}

/*
 * 16 clients at once send the largest bodies a route takes and a large JSON value: each is answered, and the api
 * processes hold no more memory afterwards than before, give or take 64 MiB for the group (before the fix, bodies of
 * 24 MB left 3.8 GB held, and these about 100 MiB a process).
 */
static void test_memory_goes_back(void)
{
	struct user *u = new_user("member");
	int n0, n1;
	bool asan;
	/* A first round warms the processes (threads, pools, caches) so that the second measures what stays. */
	for (int round = 0; round < 2; round++) {
		long before = api_rss_kib(&n0, &asan);
		struct client clients[BURST];
		struct burst_report reports[BURST];
		for (int i = 0; i < BURST; i++)
			client_spawn(&clients[i], burst_client, u, i, sizeof(reports[i]), NULL, 0);
		for (int i = 0; i < BURST; i++) {
			REQUIRE(client_collect(&clients[i], &reports[i], sizeof(reports[i])), "client %d sent no report", i);
			CHECK(reports[i].status[0] == 401 && reports[i].status[1] == 400 && reports[i].status[2] == 400,
			      "client %d: %ld %ld %ld", i, reports[i].status[0], reports[i].status[1], reports[i].status[2]);
		}
		/* A process frees a request's memory after its answer is sent: wait for it (10 s at most). */
		long after = api_rss_kib(&n1, &asan);
		for (double end = now_secs() + 10; !asan && after - before > RSS_SLACK_KIB && now_secs() < end;) {
			usleep(100 * 1000);
			after = api_rss_kib(&n1, &asan);
		}
		REQUIRE(n0 == n1 && n0 > 0, "api processes changed: %d then %d", n0, n1);
		printf("(round %d: api RSS %ld -> %ld MiB%s) ", round, before / 1024, after / 1024,
		       asan ? ", AddressSanitizer: not compared" : "");
		if (round == 1 && !asan)
			CHECK(after - before <= RSS_SLACK_KIB, "api RSS grew from %ld to %ld MiB", before / 1024,
			      after / 1024);
	}
	EXPECT_SUCCESS(api_get(u, "/users/me"));
}

/* ---- bytes no column takes ---------------------------------------------------------------------------------- */

/* Invalid UTF-8 in a path is %-escaped, as the reference's Django decodes a path: an unknown file, not a 500. */
static void test_invalid_utf8_in_path(void)
{
	struct resp *r = http(&(struct request){.path = fmt("/user_uploads/%lld/ab/%%FF%%FE/x.png",
	                                                     (long long)itest_owner.realm_id),
	                                        .user = &itest_owner});
	EXPECT_STATUS(r, 404);
	r = http(&(struct request){.path = "/user_uploads/download/1/ab/cd/x%C3.png", .user = &itest_owner});
	EXPECT_STATUS(r, 404);
	r = http(&(struct request){.method = "PATCH",
	                           .path = "/api/v1/navigation_views/narrow%FF",
	                           .user = &itest_owner,
	                           .form = "is_pinned=true"});
	EXPECT_ERROR(r, 404, "NOT_FOUND", "Navigation view does not exist.");
	r = http(&(struct request){.method = "DELETE", .path = "/api/v1/realm/emoji/x%FF", .user = &itest_owner});
	EXPECT_ERROR(r, 404, "BAD_REQUEST", "Emoji 'x%FF' does not exist");
}

/* A NUL in a string inside a JSON value: no text column takes it (SQLSTATE 22P05). */
static void test_nul_in_json_strings(void)
{
	struct user *u = new_user("member");
	char *name = unique_channel_name("nul");
	create_channel_with(u, name, NULL);
	EXPECT_ERROR(api_post(u, "/users/me/subscriptions",
	                      fmt("subscriptions=%s&principals=%s", url_encode(fmt("[{\"name\":\"%s\"}]", name)),
	                          url_encode("[\"a\\u0000b@example.com\"]"))),
	             400, "BAD_REQUEST", "principals[0] must not contain null bytes");
	EXPECT_ERROR(api_get(u, fmt("/messages?anchor=newest&num_before=1&num_after=0&narrow=%s",
	                            url_encode("[{\"operator\":\"channel\",\"operand\":\"x\\u0000\"}]"))),
	             400, "BAD_REQUEST", "narrow[0][\"operand\"] must not contain null bytes");
	EXPECT_ERROR(api_post(u, "/users/me/subscriptions",
	                      fmt("subscriptions=%s", url_encode("[{\"name\":\"a\\u0000\"}]"))),
	             400, "BAD_REQUEST", "subscriptions[0][\"name\"] must not contain null bytes");
}

/* ---- stored texts ------------------------------------------------------------------------------------------- */

/* "x": n random characters outside the BMP (4 bytes each in UTF-8, as no index compresses), URL-encoded. */
static char *wide_text(size_t n)
{
	char *s = keep(malloc(12 * n + 1));
	REQUIRE(s != NULL, "malloc");
	for (size_t i = 0; i < n; i++) {
		unsigned cp = 0x10000 + (unsigned)(rand() % 0xF000);
		sprintf(s + 12 * i, "%%%02X%%%02X%%%02X%%%02X", 0xF0 | (cp >> 18), 0x80 | ((cp >> 12) & 0x3F),
		        0x80 | ((cp >> 6) & 0x3F), 0x80 | (cp & 0x3F));
	}
	return s;
}

/* The reference stores a navigation view's fragment and name without a bound, and fails past PostgreSQL's index
 * entry (2,700 bytes); confab's bounds: 2,000 and 100 characters. */
static void test_navigation_view_texts(void)
{
	struct user *u = new_user("member");
	EXPECT_ERROR(api_post(u, "/navigation_views", fmt("fragment=%s&is_pinned=true&name=x", wide_text(2001))), 400,
	             "BAD_REQUEST", "fragment is too long (limit: 2000 characters)");
	EXPECT_ERROR(api_post(u, "/navigation_views", fmt("fragment=narrow/x&is_pinned=true&name=%s", wide_text(101))),
	             400, "BAD_REQUEST", "name is too long (limit: 100 characters)");
	/* Up to the bounds, whatever their bytes. */
	EXPECT_SUCCESS(api_post(u, "/navigation_views", fmt("fragment=%s&is_pinned=true&name=%s", wide_text(2000),
	                                                     wide_text(100))));
}

/* A linkifier's texts: the reference bounds none; confab's bound is 1,000 characters each. */
static void test_linkifier_texts(void)
{
	const char *t = "url_template=https%3A%2F%2Fexample.com%2F%7Bid%7D";
	EXPECT_ERROR(api_post(&itest_owner, "/realm/filters",
	                      fmt("pattern=%%23(%%3FP%%3Cid%%3E%%5B0-9%%5D%%2B)%s&%s", wide_text(1000), t)),
	             400, "BAD_REQUEST", "pattern is too long (limit: 1000 characters)");
	EXPECT_ERROR(api_post(&itest_owner, "/realm/filters",
	                      fmt("pattern=%%23(%%3FP%%3Cid%%3E%%5B0-9%%5D%%2B)&url_template=%s", wide_text(1001))),
	             400, "BAD_REQUEST", "url_template is too long (limit: 1000 characters)");
	struct resp *r = api_post(&itest_owner, "/realm/filters",
	                          fmt("pattern=%%23(%%3FP%%3Cid%%3E%%5B0-9%%5D%%2B)%s&%s", wide_text(980), t));
	EXPECT_SUCCESS(r);
	api_method("DELETE", &itest_owner, fmt("/realm/filters/%lld", (long long)jint(r->json, "id")));
}

void register_limits_tests(void)
{
	static const struct itest_case cases[] = {
	    {"too_many_fields", test_too_many_fields},
	    {"too_many_multipart_fields", test_too_many_multipart_fields},
	    {"form_body_too_large", test_form_body_too_large},
	    {"json_value_too_costly", test_json_value_too_costly},
	    {"client_json_elsewhere_is_charged", test_client_json_elsewhere_is_charged},
	    {"memory_goes_back", test_memory_goes_back},
	    {"invalid_utf8_in_path", test_invalid_utf8_in_path},
	    {"nul_in_json_strings", test_nul_in_json_strings},
	    {"navigation_view_texts", test_navigation_view_texts},
	    {"linkifier_texts", test_linkifier_texts},
	    {NULL, NULL},
	};
	itest_add_suite("limits", cases);
}
