/*
 * File uploads: POST /api/v1/user_uploads, the files through nginx at /user_uploads/..., who may read them, and
 * the temporary URLs of GET /api/v1/user_uploads/{realm_id_str}/{filename}.
 * Reference: Zulip zerver/views/upload.py (upload_file_backend, serve_file, serve_local),
 * zerver/lib/upload/__init__.py (sanitize_name, get_file_info), zerver/lib/attachments.py
 * (validate_attachment_request), zerver/lib/mime_types.py (INLINE_MIME_TYPES).
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "itest.h"

#define NOT_FOUND_HTML "<p>This file does not exist or has been deleted.</p>"
#define FORBIDDEN_HTML "<p>You are not authorized to view this file.</p>"
#define MAX_UPLOAD_MIB 24 /* max_file_upload_mb's default; the test stack does not set it */
#define BOUNDARY       "----confabUploadBoundaryQx7"

/* One multipart part: a file when filename is set (ctype NULL: no Content-Type line), else a field. */
struct part {
	const char *name;
	const char *filename;
	const char *ctype;
	const char *data;
	size_t len;
};

static char *multipart(const struct part *parts, size_t nparts, size_t *len)
{
	size_t cap = 64;
	for (size_t i = 0; i < nparts; i++)
		cap += parts[i].len + strlen(parts[i].name) + (parts[i].filename ? strlen(parts[i].filename) : 0) +
		       (parts[i].ctype ? strlen(parts[i].ctype) : 0) + 160;
	char *out = keep(malloc(cap));
	REQUIRE(out != NULL, "out of memory");
	size_t n = 0;
	for (size_t i = 0; i < nparts; i++) {
		const struct part *p = &parts[i];
		n += (size_t)sprintf(out + n, "--" BOUNDARY "\r\nContent-Disposition: form-data; name=\"%s\"", p->name);
		if (p->filename)
			n += (size_t)sprintf(out + n, "; filename=\"%s\"", p->filename);
		if (p->ctype)
			n += (size_t)sprintf(out + n, "\r\nContent-Type: %s", p->ctype);
		n += (size_t)sprintf(out + n, "\r\n\r\n");
		memcpy(out + n, p->data, p->len);
		n += p->len;
		n += (size_t)sprintf(out + n, "\r\n");
	}
	n += (size_t)sprintf(out + n, "--" BOUNDARY "--\r\n");
	*len = n;
	return out;
}

static struct resp *post_parts(const struct user *u, const struct part *parts, size_t nparts)
{
	size_t len;
	char *body = multipart(parts, nparts, &len);
	return http(&(struct request){.method = "POST",
	                              .path = "/api/v1/user_uploads",
	                              .user = u,
	                              .body = body,
	                              .body_len = len,
	                              .content_type = "multipart/form-data; boundary=" BOUNDARY,
	                              .timeout = 120});
}

/* Uploads one file as the field "file"; ctype NULL sends no Content-Type for the part. */
static struct resp *upload(const struct user *u, const char *filename, const char *ctype, const char *data, size_t len)
{
	struct part p = {"file", filename, ctype, data, len};
	return post_parts(u, &p, 1);
}

/* Uploads a small text file and returns its URL (/user_uploads/...). */
static const char *upload_ok(const struct user *u, const char *filename)
{
	struct resp *r = upload(u, filename, "text/plain", "zulip!", 6);
	EXPECT_SUCCESS(r);
	const char *url = jstr(r->json, "url");
	REQUIRE(url != NULL, "%s: no url in %s", r->what, r->body);
	return url;
}

/* The user's organization (confabctl create-user does not print it). */
static long long realm_of(const struct user *u)
{
	return atoll(psql_ok("SELECT realm_id FROM users WHERE id = %lld", (long long)u->id));
}

static struct resp *get_as(const struct user *u, const char *path)
{
	return http(&(struct request){.path = path, .user = u});
}

/* The path_id of an upload URL, for SQL. */
static const char *path_id_of(const char *url)
{
	REQUIRE(strncmp(url, "/user_uploads/", 14) == 0, "not an upload URL: %s", url);
	return url + 14;
}

static void expect_html(const struct resp *r, long status, const char *body, const char *file, int line)
{
	expect_status(r, status, file, line);
	expect_header(r, "Content-Type", "text/html; charset=utf-8", file, line);
	itest_check(strcmp(r->body, body) == 0, false, file, line, "%s: body %s, want %s", r->what, r->body, body);
}
#define EXPECT_HTML(r, st, body) expect_html((r), (st), (body), __FILE__, __LINE__)

static void expect_bytes(const struct resp *r, const char *data, size_t len, const char *file, int line)
{
	expect_status(r, 200, file, line);
	itest_check(r->len == len && memcmp(r->body, data, len) == 0, false, file, line,
	            "%s: %zu bytes back, want the %zu uploaded", r->what, r->len, len);
}
#define EXPECT_BYTES(r, data, len) expect_bytes((r), (data), (len), __FILE__, __LINE__)

/* ---- POST /user_uploads --------------------------------------------------------------------------------------- */

static void test_upload_success_shape(void)
{
	struct user *u = new_user("member");
	struct resp *r = upload(u, "zulip.txt", "text/plain", "zulip!", 6);
	EXPECT_SUCCESS(r);
	EXPECT_KEYS(r->json, "result", "msg", "uri", "url", "filename");
	EXPECT_STR(r->json, "filename", "zulip.txt");
	const char *url = jstr(r->json, "url");
	REQUIRE(url != NULL, "no url");
	EXPECT_STR(r->json, "uri", url);
	/* /user_uploads/<realm id>/<one of 256 directories>/<24 URL-safe characters>/<name> */
	char realm[32], dir[8], rnd[64], name[64];
	int n = sscanf(url, "/user_uploads/%31[0-9]/%7[0-9a-f]/%63[A-Za-z0-9_-]/%63s", realm, dir, rnd, name);
	CHECK(n == 4 && atoll(realm) == realm_of(u) && strlen(dir) <= 2 && strlen(rnd) == 24 &&
	          strcmp(name, "zulip.txt") == 0,
	      "url %s", url);
	char *row =
	    psql_ok("SELECT owner_id || '|' || file_name || '|' || size || '|' || content_type || '|' || realm_id "
	            "FROM attachments WHERE path_id = '%s'",
	            path_id_of(url));
	CHECK(strcmp(row, fmt("%lld|zulip.txt|6|text/plain; charset=\"ascii\"|%lld", (long long)u->id, realm_of(u))) ==
	          0,
	      "attachment row %s", row);
}

/* Every byte value, NUL included, comes back unchanged through nginx. */
static void test_upload_binary_roundtrip(void)
{
	struct user *u = new_user("member");
	size_t len = 70000;
	char *data = keep(malloc(len));
	REQUIRE(data != NULL, "out of memory");
	for (size_t i = 0; i < len; i++)
		data[i] = (char)((i * 7 + i / 256) & 0xff);
	data[0] = '\0';
	struct resp *r = upload(u, "blob.bin", NULL, data, len);
	EXPECT_SUCCESS(r);
	const char *url = jstr(r->json, "url");
	REQUIRE(url != NULL, "no url");
	struct resp *g = get_as(u, url);
	EXPECT_BYTES(g, data, len);
	EXPECT_HEADER(g, "Content-Type", "application/octet-stream");
	EXPECT_HEADER(g, "Content-Disposition", "attachment; filename=\"blob.bin\"");
	EXPECT_HEADER(g, "Cache-Control", "private, immutable");
	CHECK(resp_header(g, "X-Accel-Redirect") == NULL, "nginx passed X-Accel-Redirect on");
	struct resp *h = http(&(struct request){.method = "HEAD", .path = url, .user = u});
	EXPECT_STATUS(h, 200);
	EXPECT_HEADER(h, "Content-Length", "70000");
}

/* Images, PDFs, plain text... are shown inline; /user_uploads/download/ always downloads. */
static void test_upload_inline_and_download(void)
{
	struct user *u = new_user("member");
	struct resp *r = upload(u, "pic.png", "image/png", "\x89PNG\r\n\x1a\n", 8);
	EXPECT_SUCCESS(r);
	const char *url = jstr(r->json, "url");
	REQUIRE(url != NULL, "no url");
	struct resp *g = get_as(u, url);
	EXPECT_BYTES(g, "\x89PNG\r\n\x1a\n", 8);
	EXPECT_HEADER(g, "Content-Type", "image/png");
	EXPECT_HEADER(g, "Content-Disposition", "inline; filename=\"pic.png\"");
	struct resp *d = get_as(u, fmt("/user_uploads/download/%s", path_id_of(url)));
	EXPECT_BYTES(d, "\x89PNG\r\n\x1a\n", 8);
	EXPECT_HEADER(d, "Content-Disposition", "attachment; filename=\"pic.png\"");

	/* Without a Content-Type the type comes from the name; text/plain gets the charset its bytes show. */
	r = upload(u, "notes.txt", NULL, "caf\xc3\xa9 cr\xc3\xa8me", 13);
	EXPECT_SUCCESS(r);
	g = get_as(u, jstr(r->json, "url"));
	EXPECT_HEADER(g, "Content-Type", "text/plain; charset=\"utf-8\"");
	EXPECT_HEADER(g, "Content-Disposition", "inline; filename=\"notes.txt\"");
	/* HTML is never shown inline. */
	r = upload(u, "page.html", "text/html", "<script>alert(1)</script>", 25);
	EXPECT_SUCCESS(r);
	g = get_as(u, jstr(r->json, "url"));
	EXPECT_HEADER(g, "Content-Type", "text/html");
	EXPECT_HEADER(g, "Content-Disposition", "attachment; filename=\"page.html\"");
}

static void test_upload_size_limit(void)
{
	struct user *u = new_user("member");
	size_t len = (size_t)MAX_UPLOAD_MIB * 1024 * 1024 + 1;
	char *data = keep(malloc(len));
	REQUIRE(data != NULL, "out of memory");
	memset(data, 'x', len);
	struct resp *r = upload(u, "big.bin", "application/octet-stream", data, len);
	EXPECT_ERROR(r, 400, "BAD_REQUEST",
	             fmt("File is larger than this server's configured maximum upload size (%d MiB).", MAX_UPLOAD_MIB));
	CHECK(strcmp(psql_ok("SELECT count(*) FROM attachments WHERE owner_id = %lld", (long long)u->id), "0") == 0,
	      "a row was stored for the refused file");
}

static void test_upload_needs_a_file(void)
{
	struct user *u = new_user("member");
	struct part field = {"file", NULL, NULL, "just text", 9};
	EXPECT_ERROR(post_parts(u, &field, 1), 400, "BAD_REQUEST", "You must specify a file to upload");
	EXPECT_ERROR(api_post(u, "/user_uploads", "file=x"), 400, "BAD_REQUEST", "You must specify a file to upload");
	EXPECT_ERROR(api_post(u, "/user_uploads", NULL), 400, "BAD_REQUEST", "You must specify a file to upload");
	/* Django drops file parts named "", "." or "..". */
	struct part unnamed[] = {{"f1", "", NULL, "x", 1}, {"f2", "..", NULL, "y", 1}, {"f3", "a/", NULL, "z", 1}};
	EXPECT_ERROR(post_parts(u, unnamed, 3), 400, "BAD_REQUEST", "You must specify a file to upload");
}

static void test_upload_one_file_at_a_time(void)
{
	struct user *u = new_user("member");
	struct part two[] = {{"a", "one.txt", NULL, "1", 1}, {"b", "two.txt", NULL, "2", 1}};
	EXPECT_ERROR(post_parts(u, two, 2), 400, "BAD_REQUEST", "You may only upload one file at a time");
	/* Files are counted per field name (request.FILES): the last file of a repeated name is the upload. */
	struct part same[] = {
	    {"file", "one.txt", NULL, "1", 1}, {"file", "two.txt", NULL, "22", 2}, {"x", NULL, NULL, "y", 1}};
	struct resp *r = post_parts(u, same, 3);
	EXPECT_SUCCESS(r);
	EXPECT_STR(r->json, "filename", "two.txt");
	EXPECT_ABSENT(r->json, "ignored_parameters_unsupported");
	EXPECT_BYTES(get_as(u, jstr(r->json, "url")), "22", 2);
}

/* The URL carries sanitize_name(); filename and Content-Disposition the name as uploaded. */
static void test_upload_file_name_sanitized(void)
{
	struct user *u = new_user("member");
	struct resp *r = upload(u, "zulip with excitement!.txt", NULL, "zulip!", 6);
	EXPECT_SUCCESS(r);
	EXPECT_STR(r->json, "filename", "zulip with excitement!.txt");
	const char *url = jstr(r->json, "url");
	REQUIRE(url != NULL, "no url");
	CHECK(strcmp(strrchr(url, '/'), "/zulip-with-excitement.txt") == 0, "url %s", url);
	EXPECT_HEADER(get_as(u, url), "Content-Disposition", "inline; filename=\"zulip with excitement!.txt\"");

	/* Unicode stays (clients %-escape it in the URL); %-escapes and HTML entities in the name are decoded. */
	r = upload(u, "\xe6\x97\xa5\xe6\x9c\xac \xe8\xaa\x9e.txt", NULL, "x", 1);
	EXPECT_SUCCESS(r);
	url = jstr(r->json, "url");
	REQUIRE(url != NULL, "no url");
	CHECK(strcmp(strrchr(url, '/'), "/\xe6\x97\xa5\xe6\x9c\xac-\xe8\xaa\x9e.txt") == 0, "url %s", url);
	char *escaped = fmt("%.*s/%s", (int)(strrchr(url, '/') - url), url, url_encode(strrchr(url, '/') + 1));
	struct resp *g = get_as(u, escaped);
	EXPECT_BYTES(g, "x", 1);
	EXPECT_HEADER(g, "Content-Disposition", "inline; filename*=utf-8''%E6%97%A5%E6%9C%AC%20%E8%AA%9E.txt");
	r = upload(u, "a%20b&amp;c.txt", NULL, "x", 1);
	EXPECT_SUCCESS(r);
	EXPECT_STR(r->json, "filename", "a b&c.txt");
	CHECK(strcmp(strrchr(jstr(r->json, "url"), '/'), "/a-bc.txt") == 0, "url %s", jstr(r->json, "url"));
}

/* No name or URL gets out of upload_dir: directories are dropped, ".." never becomes a path segment. */
static void test_upload_path_traversal(void)
{
	struct user *u = new_user("member");
	struct resp *r = upload(u, "../../../../../tmp/evil.txt", NULL, "evil", 4);
	EXPECT_SUCCESS(r);
	EXPECT_STR(r->json, "filename", "evil.txt");
	const char *url = jstr(r->json, "url");
	REQUIRE(url != NULL, "no url");
	const char *prefix = fmt("/user_uploads/%lld/", realm_of(u));
	CHECK(strncmp(url, prefix, strlen(prefix)) == 0 && strcmp(strrchr(url, '/'), "/evil.txt") == 0 &&
	          strstr(url, "..") == NULL,
	      "url %s", url);
	/* Escaped separators only come back after Django's basename: the name keeps them, the path does not. */
	r = upload(u, "%2E%2E%2F%2E%2E%2Fescape", NULL, "evil", 4);
	EXPECT_SUCCESS(r);
	EXPECT_STR(r->json, "filename", "../../escape");
	url = jstr(r->json, "url");
	REQUIRE(url != NULL, "no url");
	CHECK(strcmp(strrchr(url, '/'), "/....escape") == 0, "url %s", url);
	EXPECT_BYTES(get_as(u, url), "evil", 4);
	r = upload(u, "%2E%2E", NULL, "evil", 4);
	EXPECT_SUCCESS(r);
	CHECK(strcmp(strrchr(jstr(r->json, "url"), '/'), "/uploaded-file") == 0, "url %s", jstr(r->json, "url"));

	/* Requests for paths outside the uploads: nginx normalizes them away, nothing is served. */
	const char *paths[] = {
	    fmt("/user_uploads/%lld/../../../../../../etc/passwd", realm_of(u)),
	    fmt("/user_uploads/%lld/%%2e%%2e/%%2e%%2e/%%2e%%2e/%%2e%%2e/etc/passwd", realm_of(u)),
	    fmt("/user_uploads/%lld/..%%2f..%%2f..%%2f..%%2fetc%%2fpasswd", realm_of(u)),
	    "/user_uploads/download/../../../../etc/passwd",
	    "/user_uploads/temporary/x/..%2f..%2f..%2fetc%2fpasswd",
	};
	for (size_t i = 0; i < sizeof(paths) / sizeof(paths[0]); i++) {
		struct resp *g = get_as(u, paths[i]);
		CHECK(g->status != 200 && strstr(g->body, "root:") == NULL, "%s: %ld %s", g->what, g->status, g->body);
	}
}

/* ---- GET /user_uploads/... -------------------------------------------------------------------------------------- */

static void test_download_needs_authentication(void)
{
	struct user *u = new_user("member");
	const char *url = upload_ok(u, "secret.txt");
	struct resp *r = http(&(struct request){.path = url});
	EXPECT_ERROR(r, 401, "UNAUTHORIZED", "Not logged in: API authentication or user session required");
	EXPECT_HEADER(r, "WWW-Authenticate", "Basic realm=\"zulip\"");
	r = http(&(struct request){.path = url, .auth_email = u->email, .auth_key = "wrong-key"});
	EXPECT_STATUS(r, 401);
	CHECK(strstr(r->body, "zulip!") == NULL, "the file was served: %s", r->body);
}

static void test_download_by_others_forbidden(void)
{
	struct user *u = new_user("member");
	const char *url = upload_ok(u, "mine.txt");
	EXPECT_BYTES(get_as(u, url), "zulip!", 6);
	EXPECT_HTML(get_as(new_user("member"), url), 403, FORBIDDEN_HTML);
	EXPECT_HTML(get_as(new_user("admin"), url), 403, FORBIDDEN_HTML);
	EXPECT_HTML(get_as(new_realm(), url), 403, FORBIDDEN_HTML);
	EXPECT_HTML(get_as(new_user("member"), fmt("/user_uploads/download/%s", path_id_of(url))), 403, FORBIDDEN_HTML);
}

static void test_download_missing(void)
{
	struct user *u = new_user("member");
	const char *url = upload_ok(u, "here.txt");
	struct resp *r = get_as(u, fmt("%s.missing", url));
	EXPECT_HTML(r, 404, NOT_FOUND_HTML);
	EXPECT_HEADER(r, "Vary", "Accept");
	EXPECT_HTML(get_as(u, fmt("/user_uploads/%lld/00/nothing/here.txt", realm_of(u))), 404, NOT_FOUND_HTML);
	/* A row whose file is gone from upload_dir. */
	const char *path_id = fmt("%lld/ff/itestGoneFromDisk%d/gone.txt", realm_of(u), rand());
	psql_ok("INSERT INTO attachments (realm_id, owner_id, path_id, file_name, size, content_type) "
	        "VALUES (%lld, %lld, '%s', 'gone.txt', 1, 'text/plain')",
	        realm_of(u), (long long)u->id, path_id);
	EXPECT_HTML(get_as(u, fmt("/user_uploads/%s", path_id)), 404, "<p>File not found</p>");
}

static void test_download_method_not_allowed(void)
{
	struct user *u = new_user("member");
	const char *url = upload_ok(u, "m.txt");
	struct resp *r = http(&(struct request){.method = "DELETE", .path = url, .user = u});
	EXPECT_ERROR(r, 405, NULL, "Method Not Allowed");
	EXPECT_STR_LIST(r->json, "allowed_methods", "GET", "HEAD");
	EXPECT_BYTES(get_as(u, url), "zulip!", 6);
}

/* ---- sharing through messages (rows inserted with psql) --------------------------------------------------------- */

static void link_message(const char *url, const char *message_id)
{
	psql_ok("INSERT INTO attachment_messages (attachment_id, message_id) "
	        "SELECT id, %s FROM attachments WHERE path_id = '%s'",
	        message_id, path_id_of(url));
}

static void receive(const struct user *u, const char *message_id)
{
	psql_ok("INSERT INTO user_messages (user_id, message_id) VALUES (%lld, %s)", (long long)u->id, message_id);
}

/* A direct message from sender to recipient (as the messages code would store it). */
static const char *direct_message(const struct user *sender, const struct user *recipient, const char *content)
{
	int64_t lo = sender->id < recipient->id ? sender->id : recipient->id;
	int64_t hi = sender->id < recipient->id ? recipient->id : sender->id;
	const char *conv = psql_ok("INSERT INTO direct_conversations (realm_id, user_ids) VALUES (%lld, '{%lld,%lld}') "
	                           "ON CONFLICT (realm_id, user_ids) DO UPDATE SET realm_id = EXCLUDED.realm_id "
	                           "RETURNING id",
	                           realm_of(sender), (long long)lo, (long long)hi);
	const char *id = psql_ok("INSERT INTO messages (realm_id, sender_id, direct_conversation_id, content, "
	                         "rendered_content) VALUES (%lld, %lld, %s, '%s', '') RETURNING id",
	                         realm_of(sender), (long long)sender->id, conv, content);
	receive(sender, id);
	receive(recipient, id);
	return id;
}

/* A channel of the owner's organization; nobody gets content access through its groups. */
static const char *new_channel(const struct user *owner, bool invite_only, bool history_public)
{
	long long r = realm_of(owner);
	const char *nobody = fmt("confab_system_group(%lld, 'role:nobody')", r);
	return psql_ok(
	    "INSERT INTO channels (realm_id, name, invite_only, history_public_to_subscribers, "
	    "can_add_subscribers_group_id, can_administer_channel_group_id, can_create_topic_group_id, "
	    "can_delete_any_message_group_id, can_delete_own_message_group_id, "
	    "can_move_messages_out_of_channel_group_id, can_move_messages_within_channel_group_id, "
	    "can_remove_subscribers_group_id, can_resolve_topics_group_id, can_send_message_group_id, "
	    "can_subscribe_group_id) VALUES (%lld, 'itest uploads %d', %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, "
	    "%s, %s, %s) RETURNING id",
	    r, rand(), invite_only ? "true" : "false", history_public ? "true" : "false", nobody, nobody, nobody,
	    nobody, nobody, nobody, nobody, nobody, nobody, nobody, nobody);
}

static void subscribe(const struct user *u, const char *channel_id)
{
	psql_ok("INSERT INTO subscriptions (user_id, channel_id) VALUES (%lld, %s)", (long long)u->id, channel_id);
}

static const char *channel_message(const struct user *sender, const char *channel_id)
{
	const char *id = psql_ok("INSERT INTO messages (realm_id, sender_id, channel_id, topic, content, "
	                         "rendered_content) VALUES (%lld, %lld, %s, 'files', 'see the file', '') RETURNING id",
	                         realm_of(sender), (long long)sender->id, channel_id);
	receive(sender, id);
	return id;
}

static void test_access_direct_message(void)
{
	struct user *owner = new_user("member"), *friend = new_user("member"), *other = new_user("member");
	const char *url = upload_ok(owner, "dm.txt");
	EXPECT_HTML(get_as(friend, url), 403, FORBIDDEN_HTML);
	link_message(url, direct_message(owner, friend, "[dm.txt](/user_uploads/x)"));
	EXPECT_BYTES(get_as(friend, url), "zulip!", 6);
	EXPECT_HTML(get_as(other, url), 403, FORBIDDEN_HTML);
}

/* A public channel's message makes the file readable to the organization's members, not to its guests. */
static void test_access_public_channel(void)
{
	struct user *owner = new_user("member"), *member = new_user("member"), *guest = new_user("guest");
	const char *url = upload_ok(owner, "public.txt");
	const char *channel = new_channel(owner, false, true);
	subscribe(owner, channel);
	link_message(url, channel_message(owner, channel));
	EXPECT_BYTES(get_as(member, url), "zulip!", 6);
	EXPECT_HTML(get_as(guest, url), 403, FORBIDDEN_HTML);
	EXPECT_HTML(get_as(new_realm(), url), 403, FORBIDDEN_HTML);
	/* A subscribed guest reads it through the channel's public history. */
	subscribe(guest, channel);
	EXPECT_BYTES(get_as(guest, url), "zulip!", 6);
}

/* In a private channel with protected history: subscribers who received the message, not later ones. */
static void test_access_private_channel(void)
{
	struct user *owner = new_user("member"), *early = new_user("member"), *late = new_user("member");
	struct user *left = new_user("member");
	const char *url = upload_ok(owner, "private.txt");
	const char *channel = new_channel(owner, true, false);
	subscribe(owner, channel);
	subscribe(early, channel);
	subscribe(left, channel);
	const char *msg = channel_message(owner, channel);
	receive(early, msg);
	receive(left, msg);
	link_message(url, msg);
	subscribe(late, channel);
	psql_ok("UPDATE subscriptions SET active = false WHERE user_id = %lld", (long long)left->id);
	EXPECT_BYTES(get_as(early, url), "zulip!", 6);
	EXPECT_HTML(get_as(late, url), 403, FORBIDDEN_HTML);
	EXPECT_HTML(get_as(left, url), 403, FORBIDDEN_HTML);
	/* With history public to subscribers, the later subscriber reads it too. */
	psql_ok("UPDATE channels SET history_public_to_subscribers = true WHERE id = %s", channel);
	EXPECT_BYTES(get_as(late, url), "zulip!", 6);
}

/* A direct message from sender to recipient through the API; returns its id. */
static int64_t send_direct(const struct user *sender, const struct user *recipient, const char *content)
{
	struct resp *r = api_post(sender, "/messages",
	                          fmt("type=direct&to=%s&content=%s",
	                              url_encode(fmt("[%lld]", (long long)recipient->id)), url_encode(content)));
	EXPECT_SUCCESS(r);
	return jint(r->json, "id");
}

static const char *links_of(int64_t message_id)
{
	return psql_ok("SELECT COALESCE(string_agg(a.path_id, ' ' ORDER BY a.id), '') || '|' || m.has_attachment "
	               "FROM messages m LEFT JOIN attachment_messages am ON am.message_id = m.id "
	               "LEFT JOIN attachments a ON a.id = am.attachment_id WHERE m.id = %lld GROUP BY m.id",
	               (long long)message_id);
}

/* Sending a message links the uploads it names (relative or absolute links) that the sender may read. */
static void test_message_links_uploads(void)
{
	struct user *owner = new_user("member"), *friend = new_user("member"), *other = new_user("member");
	const char *rel = upload_ok(owner, "relative.txt"), *abs = upload_ok(owner, "absolute.txt");
	EXPECT_HTML(get_as(friend, rel), 403, FORBIDDEN_HTML);
	int64_t id = send_direct(owner, friend,
	                         fmt("[relative.txt](%s) and %s%s, not [x](/user_uploads/1/no/such.txt) or "
	                             "http://elsewhere.example%s",
	                             rel, itest_url, abs, rel));
	CHECK(strcmp(links_of(id), fmt("%s %s|true", path_id_of(rel), path_id_of(abs))) == 0, "links %s", links_of(id));
	EXPECT_BYTES(get_as(friend, rel), "zulip!", 6);
	EXPECT_BYTES(get_as(friend, abs), "zulip!", 6);
	/* The friend may pass it on; someone who cannot read a file cannot share it. */
	EXPECT_HTML(get_as(other, rel), 403, FORBIDDEN_HTML);
	id = send_direct(friend, other, fmt("[again](%s)", rel));
	CHECK(strcmp(links_of(id), fmt("%s|true", path_id_of(rel))) == 0, "links %s", links_of(id));
	EXPECT_BYTES(get_as(other, rel), "zulip!", 6);
	struct user *outsider = new_user("member"), *victim = new_user("member");
	const char *mine = upload_ok(owner, "mine.txt");
	id = send_direct(outsider, victim, fmt("[stolen](%s)", mine));
	CHECK(strcmp(links_of(id), "|false") == 0, "links %s", links_of(id));
	EXPECT_HTML(get_as(victim, mine), 403, FORBIDDEN_HTML);
}

/* Spectators (no credentials) read files linked from web-public channels when the organization allows them. */
static void test_access_spectator(void)
{
	struct user *owner = new_realm();
	const char *url = upload_ok(owner, "web.txt");
	const char *channel = new_channel(owner, false, true);
	psql_ok("UPDATE channels SET is_web_public = true WHERE id = %s", channel);
	link_message(url, channel_message(owner, channel));
	struct request anonymous = {.path = url, .host = realm_host(owner->realm)};
	EXPECT_STATUS(http(&anonymous), 401);
	psql_ok("UPDATE realms SET enable_spectator_access = true WHERE id = %lld", realm_of(owner));
	EXPECT_BYTES(http(&anonymous), "zulip!", 6);
	/* Not from another organization's host, and not files of other channels. */
	EXPECT_STATUS(http(&(struct request){.path = url}), 401);
	const char *other = upload_ok(owner, "other.txt");
	EXPECT_STATUS(http(&(struct request){.path = other, .host = realm_host(owner->realm)}), 401);
	EXPECT_HTML(http(&(struct request){.path = fmt("%s.missing", other), .host = realm_host(owner->realm)}), 404,
	            NOT_FOUND_HTML);
}

/* ---- GET /api/v1/user_uploads/{realm_id_str}/{filename}: temporary URLs ------------------------------------------ */

static void test_temporary_url(void)
{
	struct user *u = new_user("member");
	const char *url = upload_ok(u, "temp file.txt");
	struct resp *r = api_get(u, url);
	EXPECT_SUCCESS(r);
	EXPECT_KEYS(r->json, "result", "msg", "url");
	const char *temp = jstr(r->json, "url");
	REQUIRE(temp != NULL, "no url");
	char token[128];
	int n = 0;
	CHECK(sscanf(temp, "/user_uploads/temporary/%127[0-9A-F]/temp-file.txt%n", token, &n) == 1 &&
	          (size_t)n == strlen(temp),
	      "temporary url %s", temp);
	struct resp *g = http(&(struct request){.path = temp});
	EXPECT_BYTES(g, "zulip!", 6);
	EXPECT_HEADER(g, "Content-Disposition", "inline; filename=\"temp file.txt\"");
	EXPECT_ERROR(http(&(struct request){.path = fmt("/user_uploads/temporary/%s/other.txt", token)}), 400,
	             "BAD_REQUEST", "Invalid filename");
	EXPECT_ERROR(http(&(struct request){.path = "/user_uploads/temporary/0123456789ABCDEF/temp-file.txt"}), 400,
	             "BAD_REQUEST", "Invalid token");
	EXPECT_HTML(api_get(new_user("member"), url), 403, FORBIDDEN_HTML);
	EXPECT_HTML(api_get(u, fmt("%s.missing", url)), 404, NOT_FOUND_HTML);
	EXPECT_STATUS(http(&(struct request){.path = fmt("/api/v1%s", url)}), 401);
}

/* ---- response-header injection and unservable uploads (issue 10, item 1) ------------------------------------------
 */

#define MALFORMED "Malformed multipart request body"

/* path with its capital letters %-escaped: nginx decodes X-Accel-Redirect, so they survive a lowercased type. */
static const char *escape_capitals(const char *path)
{
	char *out = keep(malloc(strlen(path) * 3 + 1)), *o = out;
	REQUIRE(out != NULL, "out of memory");
	for (const char *p = path; *p; p++)
		o += isupper((unsigned char)*p) ? sprintf(o, "%%%02X", (unsigned char)*p) : sprintf(o, "%c", *p);
	return out;
}

/*
 * The attack: a bare LF in a part's Content-Type used to be stored, then written into the response headers when
 * the file was served, so an X-Accel-Redirect of the attacker's choice made nginx send another user's file.
 * Now the upload is a malformed body; and should it be stored anyway, serving it must not leak the secret.
 */
static void test_upload_header_injection_lf(void)
{
	struct user *victim = new_user("member"), *attacker = new_realm();
	struct resp *r = upload(victim, "secret.txt", "text/plain", "top secret", 10);
	EXPECT_SUCCESS(r);
	const char *secret_url = jstr(r->json, "url");
	REQUIRE(secret_url != NULL, "no url");
	EXPECT_HTML(get_as(attacker, secret_url), 403, FORBIDDEN_HTML);
	const char *types[] = {
	    fmt("application/x-foo\nX-Accel-Redirect: /internal/uploads/%s?", escape_capitals(path_id_of(secret_url))),
	    "application/x-foo\nSet-Cookie: pwned=1",
	    fmt("application/x-foo\r\nX-Accel-Redirect: /internal/uploads/%s?\n",
	        escape_capitals(path_id_of(secret_url))),
	};
	for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++) {
		r = upload(attacker, "x.bin", types[i], "mine", 4);
		EXPECT_ERROR(r, 400, "BAD_REQUEST", MALFORMED);
		const char *url = jstr(r->json, "url");
		if (url == NULL)
			continue;
		struct resp *g = get_as(attacker, url);
		CHECK(strstr(g->body, "top secret") == NULL, "%s served the victim's file: %s", g->what, g->body);
		CHECK(resp_header(g, "Set-Cookie") == NULL, "%s: Set-Cookie %s", g->what, resp_header(g, "Set-Cookie"));
	}
	/* A CRLF there only starts another part header, which is ignored. */
	r = upload(attacker, "y.bin", "application/x-foo\r\nSet-Cookie: pwned=1", "mine", 4);
	EXPECT_SUCCESS(r);
	struct resp *g = get_as(attacker, jstr(r->json, "url"));
	EXPECT_BYTES(g, "mine", 4);
	EXPECT_HEADER(g, "Content-Type", "application/x-foo");
	CHECK(resp_header(g, "Set-Cookie") == NULL, "%s: Set-Cookie %s", g->what, resp_header(g, "Set-Cookie"));
	CHECK(strcmp(psql_ok("SELECT count(*) FROM attachments WHERE owner_id = %lld", (long long)attacker->id), "1") ==
	          0,
	      "a malformed upload was stored");
}

/* A bare CR used to be stored too, and the file then answered 502 for good. */
static void test_upload_header_injection_cr(void)
{
	struct user *u = new_user("member");
	const char *types[] = {"text/plain\rX-Injected: 1", "text/plain\r", "image/png\r\r\n"};
	for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++) {
		struct resp *r = upload(u, "cr.txt", types[i], "zulip!", 6);
		EXPECT_ERROR(r, 400, "BAD_REQUEST", MALFORMED);
		if (jstr(r->json, "url") != NULL)
			EXPECT_BYTES(get_as(u, jstr(r->json, "url")), "zulip!", 6);
	}
	/* In the file name too. */
	struct resp *r = upload(u, "a\nX-Injected: 1.txt", "text/plain", "zulip!", 6);
	EXPECT_ERROR(r, 400, "BAD_REQUEST", MALFORMED);
	r = upload(u, "a\rb.txt", "text/plain", "zulip!", 6);
	EXPECT_ERROR(r, 400, "BAD_REQUEST", MALFORMED);
}

/*
 * Rows stored before these checks (set here with psql) are served safely: a content type that is no media type
 * as application/octet-stream (downloaded), never written into the headers as it is.
 */
static void test_download_stored_bad_type(void)
{
	struct user *victim = new_user("member"), *attacker = new_user("member");
	const char *secret_url = upload_ok(victim, "secret.txt");
	const char *url = upload_ok(attacker, "mine.txt");
	const char *bad[] = {
	    fmt("application/x-foo\nX-Accel-Redirect: /internal/uploads/%s?", escape_capitals(path_id_of(secret_url))),
	    "text/plain\nSet-Cookie: pwned=1",
	    "text/plain\r",
	    "text/plain\x01",
	    "",
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char *hex = keep(malloc(strlen(bad[i]) * 2 + 1)), *o = hex;
		REQUIRE(hex != NULL, "out of memory");
		*o = '\0';
		for (const char *p = bad[i]; *p; p++)
			o += sprintf(o, "%02x", (unsigned char)*p);
		psql_ok("UPDATE attachments SET content_type = convert_from(decode('%s', 'hex'), 'UTF8') "
		        "WHERE path_id = '%s'",
		        hex, path_id_of(url));
		struct resp *g = get_as(attacker, url);
		EXPECT_BYTES(g, "zulip!", 6);
		EXPECT_HEADER(g, "Content-Type", "application/octet-stream");
		EXPECT_HEADER(g, "Content-Disposition", "attachment; filename=\"mine.txt\"");
		CHECK(resp_header(g, "Set-Cookie") == NULL, "%s: Set-Cookie %s", g->what, resp_header(g, "Set-Cookie"));
	}
}

/* A 255-character name of 4-byte characters: the largest Content-Disposition a new upload can need. */
static const char *widest_name(void)
{
	char *name = keep(malloc(5000 * 4 + 8));
	REQUIRE(name != NULL, "out of memory");
	for (int i = 0; i < 5000; i++)
		memcpy(name + 4 * i, "\xf0\x9f\x98\x80", 4);
	strcpy(name + 5000 * 4, ".txt");
	return name;
}

/* Names are cut to 255 characters (Django's UploadedFile keeps the extension), so every upload can be served. */
static void test_upload_long_file_name(void)
{
	struct user *u = new_user("member");
	char *name = repeat('n', 5004);
	memcpy(name + 5000, ".txt", 4);
	struct resp *r = upload(u, name, "text/plain", "zulip!", 6);
	EXPECT_SUCCESS(r);
	char *want = repeat('n', 255);
	memcpy(want + 251, ".txt", 4);
	EXPECT_STR(r->json, "filename", want);
	const char *url = jstr(r->json, "url");
	REQUIRE(url != NULL, "no url");
	struct resp *g = get_as(u, url);
	EXPECT_BYTES(g, "zulip!", 6);
	EXPECT_HEADER(g, "Content-Disposition", fmt("inline; filename=\"%s\"", want));
	CHECK(strcmp(psql_ok("SELECT length(file_name) FROM attachments WHERE path_id = '%s'", path_id_of(url)),
	             "255") == 0,
	      "stored name of %s characters",
	      psql_ok("SELECT length(file_name) FROM attachments WHERE path_id = '%s'", path_id_of(url)));

	/* 5,000 four-byte characters: 255 kept, %-escaped in the header. */
	r = upload(u, widest_name(), "text/plain", "zulip!", 6);
	EXPECT_SUCCESS(r);
	url = jstr(r->json, "url");
	REQUIRE(url != NULL, "no url");
	g = get_as(u, fmt("%.*s/%s", (int)(strrchr(url, '/') - url), url, url_encode(strrchr(url, '/') + 1)));
	EXPECT_BYTES(g, "zulip!", 6);
	const char *cd = resp_header(g, "Content-Disposition");
	CHECK(cd != NULL && strncmp(cd, "inline; filename*=utf-8''%F0%9F%98%80", 37) == 0 &&
	          strlen(cd) == strlen("inline; filename*=utf-8''") + 251 * 12 + 4,
	      "Content-Disposition %.80s... (%zu bytes)", cd ? cd : "(none)", cd ? strlen(cd) : 0);

	/* A name stored before the bound is cut when served. */
	psql_ok("UPDATE attachments SET file_name = repeat('x', 5000) || '.pdf' WHERE path_id = '%s'", path_id_of(url));
	g = get_as(u, fmt("%.*s/%s", (int)(strrchr(url, '/') - url), url, url_encode(strrchr(url, '/') + 1)));
	EXPECT_BYTES(g, "zulip!", 6);
	char *cut = repeat('x', 255);
	memcpy(cut + 251, ".pdf", 4);
	EXPECT_HEADER(g, "Content-Disposition", fmt("inline; filename=\"%s\"", cut));
}

/* A content type longer than a media type can be (255 bytes here) counts as absent: served by the name's type. */
static void test_upload_long_content_type(void)
{
	struct user *u = new_user("member");
	char *type = repeat('x', 10000);
	memcpy(type, "image/", 6);
	struct resp *r = upload(u, "long.bin", type, "zulip!", 6);
	EXPECT_SUCCESS(r);
	const char *url = jstr(r->json, "url");
	REQUIRE(url != NULL, "no url");
	struct resp *g = get_as(u, url);
	EXPECT_BYTES(g, "zulip!", 6);
	EXPECT_HEADER(g, "Content-Type", "application/octet-stream");
	r = upload(u, "long.png", fmt("text/plain; x=\"%s\"", repeat('y', 10000)), "\x89PNG", 4);
	EXPECT_SUCCESS(r);
	EXPECT_HEADER(get_as(u, jstr(r->json, "url")), "Content-Type", "image/png");
	/* Up to 255 bytes it is kept. */
	type[255] = '\0';
	r = upload(u, "long.bin", type, "zulip!", 6);
	EXPECT_SUCCESS(r);
	g = get_as(u, jstr(r->json, "url"));
	EXPECT_BYTES(g, "zulip!", 6);
	EXPECT_HEADER(g, "Content-Type", type);
	/* Other types that are no media types. */
	r = upload(u, "odd.bin", "not a type", "zulip!", 6);
	EXPECT_SUCCESS(r);
	EXPECT_HEADER(get_as(u, jstr(r->json, "url")), "Content-Type", "application/octet-stream");
}

void register_uploads_tests(void)
{
	static const struct itest_case cases[] = {
	    {"upload_success_shape", test_upload_success_shape},
	    {"upload_binary_roundtrip", test_upload_binary_roundtrip},
	    {"upload_inline_and_download", test_upload_inline_and_download},
	    {"upload_size_limit", test_upload_size_limit},
	    {"upload_needs_a_file", test_upload_needs_a_file},
	    {"upload_one_file_at_a_time", test_upload_one_file_at_a_time},
	    {"upload_file_name_sanitized", test_upload_file_name_sanitized},
	    {"upload_path_traversal", test_upload_path_traversal},
	    {"download_needs_authentication", test_download_needs_authentication},
	    {"download_by_others_forbidden", test_download_by_others_forbidden},
	    {"download_missing", test_download_missing},
	    {"download_method_not_allowed", test_download_method_not_allowed},
	    {"access_direct_message", test_access_direct_message},
	    {"access_public_channel", test_access_public_channel},
	    {"access_private_channel", test_access_private_channel},
	    {"access_spectator", test_access_spectator},
	    {"message_links_uploads", test_message_links_uploads},
	    {"temporary_url", test_temporary_url},
	    {"upload_header_injection_lf", test_upload_header_injection_lf},
	    {"upload_header_injection_cr", test_upload_header_injection_cr},
	    {"download_stored_bad_type", test_download_stored_bad_type},
	    {"upload_long_file_name", test_upload_long_file_name},
	    {"upload_long_content_type", test_upload_long_content_type},
	    {NULL, NULL},
	};
	itest_add_suite("uploads", cases);
}
