/*
 * Request parameters: where they may come from (query string, urlencoded body, multipart body), typing of
 * JSON-encoded parameters, missing parameters, ignored_parameters_unsupported, the body size limit, and a loop
 * of hostile inputs that must never produce a 5xx.
 * Reference: zulip-digest.md section h; Zulip zerver/lib/typed_endpoint.py, zerver/lib/response.py.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "itest.h"

static struct user *creator(void)
{
	/* An owner holding can_create_users, so POST /users succeeds. */
	return new_user_in("", "owner", (const char *const[]){"--can-create-users", NULL});
}

/* ---- missing and ill-typed parameters ----------------------------------------------------------------------- */

static void test_missing_argument(void)
{
	struct resp *r = http(&(struct request){.method = "POST", .path = "/api/v1/fetch_api_key", .form = ""});
	EXPECT_ERROR(r, 400, "REQUEST_VARIABLE_MISSING", "Missing 'username' argument");
	EXPECT_STR(r->json, "var_name", "username");
	EXPECT_KEYS(r->json, "result", "msg", "code", "var_name");
	r = http(&(struct request){
	    .method = "POST", .path = "/api/v1/fetch_api_key", .form = "username=someone%40example.com"});
	EXPECT_ERROR(r, 400, "REQUEST_VARIABLE_MISSING", "Missing 'password' argument");
	EXPECT_STR(r->json, "var_name", "password");
}

static void test_missing_argument_order(void)
{
	struct user *c = creator();
	struct resp *r = api_post(c, "/users", "");
	EXPECT_ERROR(r, 400, "REQUEST_VARIABLE_MISSING", "Missing 'email' argument");
	EXPECT_STR(r->json, "var_name", "email");
	r = api_post(c, "/users", fmt("email=%s", url_encode(unique_email("missing"))));
	EXPECT_ERROR(r, 400, "REQUEST_VARIABLE_MISSING", "Missing 'password' argument");
	EXPECT_STR(r->json, "var_name", "password");
	r = api_post(c, "/users", fmt("email=%s&password=Xk3mQ9vLp2Rt", url_encode(unique_email("missing"))));
	EXPECT_ERROR(r, 400, "REQUEST_VARIABLE_MISSING", "Missing 'full_name' argument");
	EXPECT_STR(r->json, "var_name", "full_name");
}

static void test_json_parameter_not_json(void)
{
	struct user *u = new_user("member");
	EXPECT_ERROR(api_get(u, "/users?client_gravatar=notjson"), 400, "BAD_REQUEST",
	             "client_gravatar is not valid JSON");
	EXPECT_ERROR(api_get(u, "/users?client_gravatar=True"), 400, "BAD_REQUEST",
	             "client_gravatar is not valid JSON");
	EXPECT_ERROR(api_get(u, "/users?client_gravatar="), 400, "BAD_REQUEST", "client_gravatar is not valid JSON");
	EXPECT_ERROR(api_get(u, "/users?include_custom_profile_fields=%7B"), 400, "BAD_REQUEST",
	             "include_custom_profile_fields is not valid JSON");
}

static void test_json_parameter_not_boolean(void)
{
	struct user *u = new_user("member");
	EXPECT_ERROR(api_get(u, "/users?client_gravatar=1"), 400, "BAD_REQUEST", "client_gravatar is not a boolean");
	EXPECT_ERROR(api_get(u, "/users?client_gravatar=%22true%22"), 400, "BAD_REQUEST",
	             "client_gravatar is not a boolean");
	EXPECT_ERROR(api_get(u, "/users?client_gravatar=%5Btrue%5D"), 400, "BAD_REQUEST",
	             "client_gravatar is not a boolean");
	EXPECT_ERROR(api_get(u, fmt("/users/%lld?include_custom_profile_fields=5", (long long)u->id)), 400,
	             "BAD_REQUEST", "include_custom_profile_fields is not a boolean");
	EXPECT_ERROR(api_get(u, fmt("/users/%s?include_custom_profile_fields=5", url_encode(u->email))), 400,
	             "BAD_REQUEST", "include_custom_profile_fields is not a boolean");
}

static void test_json_parameter_accepted(void)
{
	struct user *u = new_user("member");
	EXPECT_SUCCESS(api_get(u, "/users?client_gravatar=false"));
	EXPECT_SUCCESS(api_get(u, "/users?client_gravatar=true&include_custom_profile_fields=false"));
	/* JSON text may carry whitespace. */
	EXPECT_SUCCESS(api_get(u, "/users?client_gravatar=%20true%20"));
}

/* ---- ignored_parameters_unsupported ------------------------------------------------------------------------- */

static void test_ignored_parameters_sorted_unique(void)
{
	struct user *u = new_user("member");
	struct resp *r = api_get(u, "/users/me?zz=1&aa=2&zz=3&mm=4");
	EXPECT_SUCCESS(r);
	EXPECT_STR_LIST(r->json, "ignored_parameters_unsupported", "aa", "mm", "zz");
}

static void test_ignored_parameters_absent_when_none(void)
{
	struct user *u = new_user("member");
	struct resp *r = api_get(u, "/users/me");
	EXPECT_SUCCESS(r);
	EXPECT_ABSENT(r->json, "ignored_parameters_unsupported");
	r = api_get(u, "/users?client_gravatar=false");
	EXPECT_SUCCESS(r);
	EXPECT_ABSENT(r->json, "ignored_parameters_unsupported");
}

static void test_ignored_parameters_absent_on_errors(void)
{
	struct user *u = new_user("member");
	/* EXPECT_ERROR checks that ignored_parameters_unsupported is absent. */
	EXPECT_ERROR(api_get(u, "/users?client_gravatar=1&foo=1"), 400, "BAD_REQUEST",
	             "client_gravatar is not a boolean");
	EXPECT_ERROR(api_get(u, "/users/999999999?foo=1"), 400, "BAD_REQUEST", "No such user");
	EXPECT_ERROR(http(&(struct request){.path = "/api/v1/users/me?foo=1"}), 401, "UNAUTHORIZED",
	             "Not logged in: API authentication or user session required");
	EXPECT_ERROR(http(&(struct request){.method = "POST", .path = "/api/v1/fetch_api_key", .form = "foo=1"}), 400,
	             "REQUEST_VARIABLE_MISSING", "Missing 'username' argument");
}

static void test_ignored_parameters_query_and_body(void)
{
	struct user *u = new_user("member");
	const char *form = fmt("bb=2&username=%s&password=%s&cc=3", url_encode(u->email), url_encode(u->password));
	struct resp *r =
	    http(&(struct request){.method = "POST", .path = "/api/v1/fetch_api_key?qq=1&aa=0", .form = form});
	EXPECT_SUCCESS(r);
	EXPECT_STR_LIST(r->json, "ignored_parameters_unsupported", "aa", "bb", "cc", "qq");
}

/* Django decodes the query string with errors="replace": invalid UTF-8 becomes U+FFFD. */
static void test_ignored_parameters_invalid_utf8(void)
{
	struct user *u = new_user("member");
	struct resp *r = api_get(u, "/users/me?%FF%FE=1");
	EXPECT_SUCCESS(r);
	EXPECT_STR_LIST(r->json, "ignored_parameters_unsupported", "\xef\xbf\xbd\xef\xbf\xbd");
}

/* Django parses a body only for POST (Zulip adds PATCH/PUT/DELETE); a GET body is not read. */
static void test_get_body_ignored(void)
{
	struct user *u = new_user("member");
	struct resp *r = http(&(struct request){.path = "/api/v1/users/me", .user = u, .form = "zz=1"});
	EXPECT_SUCCESS(r);
	EXPECT_ABSENT(r->json, "ignored_parameters_unsupported");
	r = http(
	    &(struct request){.path = "/api/v1/users?client_gravatar=false", .user = u, .form = "client_gravatar=1"});
	EXPECT_SUCCESS(r);
}

/* ---- where parameters come from ----------------------------------------------------------------------------- */

static void check_fetch_ok(struct resp *r, const struct user *u, const char *file, int line)
{
	expect_success(r, file, line);
	expect_int(r->json, "user_id", u->id, file, line);
}
#define CHECK_FETCH_OK(r, u) check_fetch_ok((r), (u), __FILE__, __LINE__)

static void test_fetch_api_key_sources(void)
{
	struct user *u = new_user("member");
	const char *q = fmt("username=%s&password=%s", url_encode(u->email), url_encode(u->password));
	/* Query string of a POST without a body. */
	CHECK_FETCH_OK(http(&(struct request){.method = "POST", .path = "/api/v1/fetch_api_key", .query = q}), u);
	/* Query string of a POST with an empty urlencoded body. */
	CHECK_FETCH_OK(
	    http(&(struct request){.method = "POST", .path = "/api/v1/fetch_api_key", .query = q, .form = ""}), u);
	/* urlencoded body. */
	CHECK_FETCH_OK(http(&(struct request){.method = "POST", .path = "/api/v1/fetch_api_key", .form = q}), u);
	/* multipart/form-data body. */
	const char *parts[] = {"username", u->email, "password", u->password, NULL};
	struct resp *r = http(&(struct request){.method = "POST", .path = "/api/v1/fetch_api_key", .multipart = parts});
	CHECK_FETCH_OK(r, u);
	EXPECT_ABSENT(r->json, "ignored_parameters_unsupported");
	/* Split between query and body. */
	CHECK_FETCH_OK(http(&(struct request){.method = "POST",
	                                      .path = "/api/v1/fetch_api_key",
	                                      .query = fmt("username=%s", url_encode(u->email)),
	                                      .form = fmt("password=%s", url_encode(u->password))}),
	               u);
	/* The body wins over the query string for the same name. */
	CHECK_FETCH_OK(
	    http(&(struct request){
	        .method = "POST", .path = "/api/v1/fetch_api_key", .query = "password=wrong-password-1", .form = q}),
	    u);
}

static void test_multipart_file_part_is_not_a_parameter(void)
{
	struct user *u = new_user("member");
	const char *body = fmt("--XyZ\r\nContent-Disposition: form-data; name=\"username\"\r\n\r\n%s\r\n"
	                       "--XyZ\r\nContent-Disposition: form-data; name=\"password\"; filename=\"p.txt\"\r\n"
	                       "Content-Type: text/plain\r\n\r\n%s\r\n--XyZ--\r\n",
	                       u->email, u->password);
	struct resp *r = http(&(struct request){.method = "POST",
	                                        .path = "/api/v1/fetch_api_key",
	                                        .body = body,
	                                        .body_len = strlen(body),
	                                        .content_type = "multipart/form-data; boundary=XyZ"});
	EXPECT_ERROR(r, 400, "REQUEST_VARIABLE_MISSING", "Missing 'password' argument");
	/* A file part next to complete parameters is not reported as ignored. */
	body = fmt("--XyZ\r\nContent-Disposition: form-data; name=\"username\"\r\n\r\n%s\r\n"
	           "--XyZ\r\nContent-Disposition: form-data; name=\"password\"\r\n\r\n%s\r\n"
	           "--XyZ\r\nContent-Disposition: form-data; name=\"attachment\"; filename=\"a.bin\"\r\n"
	           "Content-Type: application/octet-stream\r\n\r\n\x01\x02\x03\r\n--XyZ--\r\n",
	           u->email, u->password);
	r = http(&(struct request){.method = "POST",
	                           .path = "/api/v1/fetch_api_key",
	                           .body = body,
	                           .body_len = strlen(body),
	                           .content_type = "multipart/form-data; boundary=XyZ"});
	CHECK_FETCH_OK(r, u);
	EXPECT_ABSENT(r->json, "ignored_parameters_unsupported");
}

static void test_json_body_is_ignored(void)
{
	struct user *u = new_user("member");
	const char *body = fmt("{\"username\":\"%s\",\"password\":\"%s\"}", u->email, u->password);
	struct resp *r = http(&(struct request){.method = "POST",
	                                        .path = "/api/v1/fetch_api_key",
	                                        .body = body,
	                                        .body_len = strlen(body),
	                                        .content_type = "application/json"});
	EXPECT_ERROR(r, 400, "REQUEST_VARIABLE_MISSING", "Missing 'username' argument");
}

/* POST /users through each source; the users exist afterwards. */
static void test_create_user_sources(void)
{
	struct user *c = creator();
	const char *emails[3] = {unique_email("viaquery"), unique_email("viaform"), unique_email("viamultipart")};
	const char *pw = "Qm7vX2pLk9Tz";
	struct resp *r[3];
	r[0] = http(
	    &(struct request){.method = "POST",
	                      .path = "/api/v1/users",
	                      .user = c,
	                      .query = fmt("email=%s&password=%s&full_name=Via+Query", url_encode(emails[0]), pw)});
	r[1] = api_post(c, "/users", fmt("email=%s&password=%s&full_name=Via+Form", url_encode(emails[1]), pw));
	r[2] = http(&(struct request){.method = "POST",
	                              .path = "/api/v1/users",
	                              .user = c,
	                              .multipart = (const char *const[]){"email", emails[2], "password", pw,
	                                                                 "full_name", "Via Multipart", NULL}});
	static const char *const names[3] = {"Via Query", "Via Form", "Via Multipart"};
	for (int i = 0; i < 3; i++) {
		EXPECT_SUCCESS(r[i]);
		int64_t id = jint(r[i]->json, "user_id");
		CHECK(id > 0, "no user_id: %s", r[i]->body);
		struct resp *g = api_get(c, fmt("/users/%lld", (long long)id));
		EXPECT_SUCCESS(g);
		EXPECT_STR(jget(g->json, "user"), "full_name", names[i]);
		EXPECT_STR(jget(g->json, "user"), "delivery_email", emails[i]);
	}
}

static void test_urlencoded_and_multipart_decoding(void)
{
	struct user *c = creator();
	/* '+' is a space, %XX escapes decode to UTF-8. */
	struct resp *r = api_post(c, "/users",
	                          fmt("email=%s&password=Qm7vX2pLk9Tz&full_name=Zo%%C3%%AB+O%%27Brien+%%E2%%9C%%93",
	                              url_encode(unique_email("decode"))));
	EXPECT_SUCCESS(r);
	struct resp *g = api_get(c, fmt("/users/%lld", (long long)jint(r->json, "user_id")));
	EXPECT_STR(jget(g->json, "user"), "full_name", "Zo\xc3\xab O'Brien \xe2\x9c\x93");
	/* multipart values are taken verbatim, '+' included. */
	r = http(&(struct request){.method = "POST",
	                           .path = "/api/v1/users",
	                           .user = c,
	                           .multipart = (const char *const[]){"email", unique_email("decodemp"), "password",
	                                                              "Qm7vX2pLk9Tz", "full_name",
	                                                              "J\xc3\xbcrgen+M%C3%BCller", NULL}});
	EXPECT_SUCCESS(r);
	g = api_get(c, fmt("/users/%lld", (long long)jint(r->json, "user_id")));
	EXPECT_STR(jget(g->json, "user"), "full_name", "J\xc3\xbcrgen+M%C3%BCller");
}

/* Django's QueryDict returns the last value of a repeated key. */
static void test_repeated_parameter_last_wins(void)
{
	struct user *u = new_user("member");
	struct resp *r = api_get(
	    u, fmt("/users/%lld?include_custom_profile_fields=5&include_custom_profile_fields=true", (long long)u->id));
	EXPECT_SUCCESS(r);
	CHECK(jhas(jget(r->json, "user"), "profile_data"),
	      "the last include_custom_profile_fields (true) should win: %s", r->body);
	EXPECT_ERROR(api_get(u, "/users?client_gravatar=true&client_gravatar=1"), 400, "BAD_REQUEST",
	             "client_gravatar is not a boolean");
}

/* ---- body size ---------------------------------------------------------------------------------------------- */

static void test_body_too_large(void)
{
	size_t n = 26u * 1024 * 1024;
	char *body = keep(malloc(n + 1));
	REQUIRE(body != NULL, "malloc");
	memcpy(body, "email=", 6);
	memset(body + 6, 'a', n - 6);
	body[n] = '\0';
	struct resp *r = http(&(struct request){.method = "POST",
	                                        .path = "/api/v1/users",
	                                        .user = &itest_owner,
	                                        .body = body,
	                                        .body_len = n,
	                                        .content_type = "application/x-www-form-urlencoded",
	                                        .timeout = 60});
	EXPECT_ERROR(r, 413, "BAD_REQUEST", "Request body too large");
	/* The server is still there. */
	EXPECT_SUCCESS(api_get(&itest_owner, "/users/me"));
}

/* ---- hostile inputs ----------------------------------------------------------------------------------------- */

struct hostile_stats {
	int sent;
};

/* Sends rq; the answer must be < 500, and JSON unless nginx itself may reject the request (nginx_ok). */
static void hostile(struct hostile_stats *st, const char *label, bool nginx_ok, const struct request *rq)
{
	st->sent++;
	struct resp *r = http(rq);
	if (getenv("CONFAB_ITEST_DEBUG") != NULL)
		printf("\n    [%s] %s -> %ld %.120s", label, r->what, r->status, r->body);
	CHECK(r->status >= 200 && r->status < 500,
	      "[%s] must not fail with a 5xx or no answer: %s -> %ld (curl %d) %.300s", label, r->what, r->status,
	      r->curl_code, r->body);
	if (!nginx_ok && r->status >= 200 && r->status < 500 && r->status != 204 &&
	    !(rq->method && strcmp(rq->method, "HEAD") == 0)) {
		const char *result = jstr(r->json, "result");
		CHECK(result != NULL && jstr(r->json, "msg") != NULL, "[%s] answer is not Zulip JSON: %s -> %ld %.300s",
		      label, r->what, r->status, r->body);
	}
}

static struct request multipart_raw(const char *ctype, const char *body, size_t len)
{
	return (struct request){
	    .method = "POST", .path = "/api/v1/fetch_api_key", .body = body, .body_len = len, .content_type = ctype};
}

/* Hostile encodings: invalid UTF-8, NUL bytes, broken escapes, another charset. */
static void hostile_encodings(struct hostile_stats *st, const struct user *u)
{
	hostile(st, "invalid utf-8 value", false,
	        &(struct request){.path = "/api/v1/users?client_gravatar=%FF", .user = u});
	hostile(st, "invalid utf-8 name", false, &(struct request){.path = "/api/v1/users/me?%FF%C0%80=1", .user = u});
	hostile(st, "overlong/surrogate utf-8", false,
	        &(struct request){.path = "/api/v1/users/me?a=%ED%A0%80%C0%AF%F8%88%80%80%80", .user = u});
	hostile(st, "NUL in query value", false, &(struct request){.path = "/api/v1/users/me?a=%00", .user = u});
	hostile(st, "NUL in query name", false, &(struct request){.path = "/api/v1/users/me?%00=1", .user = u});
	hostile(
	    st, "NUL in credentials", false,
	    &(struct request){.method = "POST", .path = "/api/v1/fetch_api_key", .form = "username=%00&password=%00"});
	hostile(st, "NUL inside e-mail", false,
	        &(struct request){.method = "POST",
	                          .path = "/api/v1/fetch_api_key",
	                          .form = fmt("username=%s%%00x&password=%s", url_encode(u->email), u->password)});
	hostile(st, "NUL in JSON parameter", false,
	        &(struct request){.path = "/api/v1/users?client_gravatar=tr%00ue", .user = u});
	hostile(st, "broken escapes", false,
	        &(struct request){.path = "/api/v1/users/me?%=%&%z=%zz&a=%F&&&==&a==b", .user = u});
	hostile(st, "latin-1 charset", false,
	        &(struct request){.method = "POST",
	                          .path = "/api/v1/fetch_api_key",
	                          .body = "username=j%E9r%F4me%40example.com&password=x",
	                          .body_len = strlen("username=j%E9r%F4me%40example.com&password=x"),
	                          .content_type = "application/x-www-form-urlencoded; charset=latin1"});
}

/* Hostile sizes: 100 KB names and values, deep JSON, huge ids, duplicate parameters. */
static void hostile_sizes(struct hostile_stats *st, const struct user *u)
{
	const char *big = repeat('x', 100 * 1024);
	const char *dup50 = "";
	for (int i = 0; i < 50; i++)
		dup50 = fmt("%s%sa=%d", dup50, i ? "&" : "", i);
	const char *dupuser50 = "";
	for (int i = 0; i < 50; i++)
		dupuser50 = fmt("%s%susername=%s", dupuser50, i ? "&" : "", url_encode(u->email));
	hostile(st, "100 KB parameter name in query", true,
	        &(struct request){.path = fmt("/api/v1/users/me?%s=1", big), .user = u});
	hostile(st, "100 KB parameter name in body", false,
	        &(struct request){.method = "POST", .path = "/api/v1/fetch_api_key", .form = fmt("%s=1", big)});
	hostile(st, "100 KB username", false,
	        &(struct request){
	            .method = "POST", .path = "/api/v1/fetch_api_key", .form = fmt("username=%s&password=x", big)});
	hostile(st, "100 KB password", false,
	        &(struct request){.method = "POST",
	                          .path = "/api/v1/fetch_api_key",
	                          .form = fmt("username=%s&password=%s", url_encode(u->email), big)});
	hostile(st, "100 KB e-mail in path", true,
	        &(struct request){.path = fmt("/api/v1/users/%s%%40example.com", big), .user = u});
	hostile(st, "100 KB multipart value", false,
	        &(struct request){.method = "POST",
	                          .path = "/api/v1/fetch_api_key",
	                          .multipart = (const char *const[]){"username", big, "password", big, NULL}});
	hostile(st, "100 KB full_name", false,
	        &(struct request){.method = "POST",
	                          .path = "/api/v1/users",
	                          .user = creator(),
	                          .form = fmt("email=big%%40example.com&password=x&full_name=%s", big)});
	char *nested = keep(malloc(2000 * 3 + 1));
	for (int i = 0; i < 2000; i++)
		memcpy(nested + 3 * i, "%5B", 4);
	hostile(st, "deeply nested JSON", false,
	        &(struct request){.path = fmt("/api/v1/users?client_gravatar=%s", nested), .user = u});
	hostile(st, "huge integer id", false,
	        &(struct request){.path = "/api/v1/users/99999999999999999999999999", .user = u});
	hostile(st, "negative id", false, &(struct request){.path = "/api/v1/users/-1", .user = u});
	hostile(st, "zero id", false, &(struct request){.path = "/api/v1/users/0", .user = u});
	hostile(st, "50 duplicate query parameters", false,
	        &(struct request){.path = fmt("/api/v1/users/me?%s", dup50), .user = u});
	hostile(st, "50 duplicate body parameters", false,
	        &(struct request){
	            .method = "POST", .path = "/api/v1/fetch_api_key", .form = fmt("%s&password=x", dupuser50)});
	hostile(st, "50 duplicate parameters in query and body", false,
	        &(struct request){.method = "POST", .path = fmt("/api/v1/users?%s", dup50), .user = u, .form = dup50});
}

/* Hostile multipart bodies and random bytes. */
static void hostile_multipart(struct hostile_stats *st, const struct user *u)
{
	const char *ok_part =
	    "--B\r\nContent-Disposition: form-data; name=\"username\"\r\n\r\nx@example.com\r\n--B--\r\n";
	hostile(st, "multipart: boundary not in body", false,
	        &(struct request){.method = "POST",
	                          .path = "/api/v1/fetch_api_key",
	                          .body = ok_part,
	                          .body_len = strlen(ok_part),
	                          .content_type = "multipart/form-data; boundary=OTHER"});
	struct request m;
	m = multipart_raw("multipart/form-data", ok_part, strlen(ok_part));
	hostile(st, "multipart: no boundary parameter", false, &m);
	m = multipart_raw("multipart/form-data; boundary=", ok_part, strlen(ok_part));
	hostile(st, "multipart: empty boundary", false, &m);
	m = multipart_raw("multipart/form-data; boundary=\"B", ok_part, strlen(ok_part));
	hostile(st, "multipart: unterminated quoted boundary", false, &m);
	const char *long_boundary = repeat('b', 300);
	m = multipart_raw(fmt("multipart/form-data; boundary=%s", long_boundary), fmt("--%s\r\n", long_boundary),
	                  strlen(long_boundary) + 4);
	hostile(st, "multipart: 300-character boundary", false, &m);
	const char *no_name = "--B\r\nContent-Disposition: form-data\r\n\r\nvalue\r\n--B--\r\n";
	m = multipart_raw("multipart/form-data; boundary=B", no_name, strlen(no_name));
	hostile(st, "multipart: part without name", false, &m);
	const char *no_headers_end = "--B\r\nContent-Disposition: form-data; name=\"username\"\r\nvalue\r\n--B--\r\n";
	m = multipart_raw("multipart/form-data; boundary=B", no_headers_end, strlen(no_headers_end));
	hostile(st, "multipart: headers not terminated", false, &m);
	const char *truncated = "--B\r\nContent-Disposition: form-data; name=\"username\"\r\n\r\nx@exam";
	m = multipart_raw("multipart/form-data; boundary=B", truncated, strlen(truncated));
	hostile(st, "multipart: truncated", false, &m);
	const char *only_delim = "--B";
	m = multipart_raw("multipart/form-data; boundary=B", only_delim, strlen(only_delim));
	hostile(st, "multipart: only a delimiter", false, &m);
	const char *garbage_after = "--B\r\nContent-Disposition: form-data; name=\"a\"\r\n\r\n1\r\n--Bxx\r\n\r\n";
	m = multipart_raw("multipart/form-data; boundary=B", garbage_after, strlen(garbage_after));
	hostile(st, "multipart: garbage after delimiter", false, &m);
	static const char nul_part[] =
	    "--B\r\nContent-Disposition: form-data; name=\"user\0name\"\r\n\r\nv\0v\r\n--B--\r\n";
	m = multipart_raw("multipart/form-data; boundary=B", nul_part, sizeof(nul_part) - 1);
	hostile(st, "multipart: NUL bytes", false, &m);
	const char *bad_utf8_part =
	    "--B\r\nContent-Disposition: form-data; name=\"\xff\xfe\"\r\n\r\n\xc0\xaf\r\n--B--\r\n";
	m = multipart_raw("multipart/form-data; boundary=B", bad_utf8_part, strlen(bad_utf8_part));
	hostile(st, "multipart: invalid UTF-8", false, &m);
	char *many = keep(malloc(1000 * 64 + 16));
	size_t many_len = 0;
	for (int i = 0; i < 1000; i++)
		many_len += (size_t)sprintf(many + many_len,
		                            "--B\r\nContent-Disposition: form-data; name=\"p%d\"\r\n\r\n%d\r\n", i, i);
	sprintf(many + many_len, "--B--\r\n");
	m = multipart_raw("multipart/form-data; boundary=B", many, strlen(many));
	hostile(st, "multipart: 1000 parts", false, &m);
	m = multipart_raw("multipart/form-data; boundary=B", "", 0);
	hostile(st, "multipart: empty body", false, &m);
	char garbage[4096];
	for (size_t i = 0; i < sizeof(garbage); i++)
		garbage[i] = (char)(rand() & 0xff);
	m = multipart_raw("application/x-www-form-urlencoded", garbage, sizeof(garbage));
	hostile(st, "urlencoded: random bytes", false, &m);
	m = multipart_raw("multipart/form-data; boundary=B", garbage, sizeof(garbage));
	hostile(st, "multipart: random bytes", false, &m);
	m = multipart_raw("text/plain", garbage, sizeof(garbage));
	hostile(st, "text/plain: random bytes", false, &m);
}

/* Hostile paths and methods. */
static void hostile_paths_methods(struct hostile_stats *st, const struct user *u)
{
	hostile(st, "NUL in path", true, &(struct request){.path = "/api/v1/users/%00", .user = u});
	hostile(st, "NUL inside path e-mail", true,
	        &(struct request){.path = "/api/v1/users/a%00b%40example.com", .user = u});
	hostile(st, "invalid UTF-8 in path", true, &(struct request){.path = "/api/v1/users/%FF%FE", .user = u});
	hostile(st, "dot segments", true, &(struct request){.path = "/api/v1/../../etc/passwd", .user = u});
	hostile(st, "encoded slash", true, &(struct request){.path = "/api/v1/users%2Fme", .user = u});
	hostile(st, "double slashes", true, &(struct request){.path = "/api/v1//users//me", .user = u});
	hostile(st, "trailing slash", false, &(struct request){.path = "/api/v1/users/me/", .user = u});
	hostile(st, "empty segment id", false, &(struct request){.path = "/api/v1/users/", .user = u});

	/* Methods. */
	static const char *const methods[] = {"FOO",   "PROPFIND", "OPTIONS", "PUT",
	                                      "PATCH", "DELETE",   "HEAD",    "CONNECTX"};
	for (size_t i = 0; i < sizeof(methods) / sizeof(methods[0]); i++) {
		/* Not /users/me, whose DELETE deactivates the account. */
		hostile(st, fmt("method %s", methods[i]), false,
		        &(struct request){.method = methods[i], .path = "/api/v1/users", .user = u});
		hostile(st, fmt("method %s with body", methods[i]), false,
		        &(struct request){.method = methods[i], .path = "/api/v1/users", .user = u, .form = "a=1"});
	}
	hostile(st, "method TRACE", true, &(struct request){.method = "TRACE", .path = "/api/v1/users/me", .user = u});
	hostile(st, "lowercase method", true,
	        &(struct request){.method = "get", .path = "/api/v1/users/me", .user = u});
}

/* Hostile credentials, hosts and bodies. */
static void hostile_headers(struct hostile_stats *st, const struct user *u)
{
	const char *big = repeat('x', 100 * 1024);
	hostile(
	    st, "10 KB basic credentials", true,
	    &(struct request){.path = "/api/v1/users/me", .authorization = fmt("Basic %s", base64(big, 10 * 1024))});
	hostile(st, "padding only", false,
	        &(struct request){.path = "/api/v1/users/me", .authorization = "Basic ===="});
	hostile(st, "NUL credentials", false,
	        &(struct request){.path = "/api/v1/users/me", .authorization = fmt("Basic %s", base64("\0:\0", 3))});
	hostile(st, "colon only", false,
	        &(struct request){.path = "/api/v1/users/me", .authorization = fmt("Basic %s", base64(":", 1))});
	hostile(st, "many spaces", false,
	        &(struct request){.path = "/api/v1/users/me", .authorization = "Basic      \t   "});
	hostile(st, "odd host", true,
	        &(struct request){.path = "/api/v1/users/me", .user = u, .host = fmt("..%s", itest_hostname)});
	hostile(st, "nested subdomain host", false,
	        &(struct request){.path = "/api/v1/server_settings", .host = fmt("a.b.c.%s", itest_hostname)});
	hostile(st, "long host", true,
	        &(struct request){.path = "/api/v1/server_settings",
	                          .host = fmt("%s.%s", repeat('h', 3000), itest_hostname)});
	hostile(st, "host with bad characters", true,
	        &(struct request){.path = "/api/v1/server_settings", .host = fmt("a_b%%c.%s", itest_hostname)});
	hostile(st, "bogus content-length body on GET", false,
	        &(struct request){.path = "/api/v1/users/me",
	                          .user = u,
	                          .body = "xyz",
	                          .body_len = 3,
	                          .content_type = "application/octet-stream"});
}

static void test_hostile_inputs(void)
{
	struct user *u = new_user("member");
	struct hostile_stats st = {0};
	hostile_encodings(&st, u);
	hostile_sizes(&st, u);
	hostile_multipart(&st, u);
	hostile_paths_methods(&st, u);
	hostile_headers(&st, u);
	printf("(%d hostile requests) ", st.sent);
	/* Still alive and well. */
	struct resp *r = api_get(u, "/users/me");
	EXPECT_SUCCESS(r);
	EXPECT_INT(r->json, "user_id", u->id);
	EXPECT_SUCCESS(http(&(struct request){.path = "/health"}));
}

void register_params_tests(void)
{
	static const struct itest_case cases[] = {
	    {"missing_argument", test_missing_argument},
	    {"missing_argument_order", test_missing_argument_order},
	    {"json_parameter_not_json", test_json_parameter_not_json},
	    {"json_parameter_not_boolean", test_json_parameter_not_boolean},
	    {"json_parameter_accepted", test_json_parameter_accepted},
	    {"ignored_parameters_sorted_unique", test_ignored_parameters_sorted_unique},
	    {"ignored_parameters_absent_when_none", test_ignored_parameters_absent_when_none},
	    {"ignored_parameters_absent_on_errors", test_ignored_parameters_absent_on_errors},
	    {"ignored_parameters_query_and_body", test_ignored_parameters_query_and_body},
	    {"ignored_parameters_invalid_utf8", test_ignored_parameters_invalid_utf8},
	    {"get_body_ignored", test_get_body_ignored},
	    {"fetch_api_key_sources", test_fetch_api_key_sources},
	    {"multipart_file_part_is_not_a_parameter", test_multipart_file_part_is_not_a_parameter},
	    {"json_body_is_ignored", test_json_body_is_ignored},
	    {"create_user_sources", test_create_user_sources},
	    {"urlencoded_and_multipart_decoding", test_urlencoded_and_multipart_decoding},
	    {"repeated_parameter_last_wins", test_repeated_parameter_last_wins},
	    {"body_too_large", test_body_too_large},
	    {"hostile_inputs", test_hostile_inputs},
	    {NULL, NULL},
	};
	itest_add_suite("params", cases);
}
