/*
 * Saved snippets: POST, GET, PATCH and DELETE /saved_snippets, the saved_snippets of POST /register and the
 * saved_snippets events (add, update, remove) in the owner's queue only. Reference: zerver/views/saved_snippets.py,
 * zerver/actions/saved_snippets.py; shapes from shared/reference/zulip-openapi.yaml (SavedSnippet, the
 * saved_snippets events).
 */
#include <stdlib.h>
#include <string.h>

#include "itest.h"

static struct resp *patch(const struct user *u, const char *path, const char *form)
{
	return http(&(struct request){.method = "PATCH", .path = fmt("/api/v1%s", path), .user = u, .form = form});
}

static struct queue *reg(const struct user *u)
{
	return queue_register(u, "event_types=%5B%22saved_snippets%22%5D");
}

/* Creates a snippet that must succeed; its id. */
static int64_t create(const struct user *u, const char *title, const char *content)
{
	struct resp *r =
	    api_post(u, "/saved_snippets", fmt("title=%s&content=%s", url_encode(title), url_encode(content)));
	EXPECT_STATUS(r, 200);
	REQUIRE(r->json != NULL, "no JSON");
	EXPECT_KEYS(r->json, "result", "msg", "saved_snippet_id");
	return jint(r->json, "saved_snippet_id");
}

/* The snippet object: exactly the OpenAPI SavedSnippet fields. */
static void expect_snippet(json_object *s, int64_t id, const char *title, const char *content)
{
	REQUIRE(s != NULL, "no snippet");
	EXPECT_KEYS(s, "id", "title", "content", "date_created");
	EXPECT_INT(s, "id", id);
	EXPECT_STR(s, "title", title);
	EXPECT_STR(s, "content", content);
	CHECK(jint(s, "date_created") > 1700000000, "date_created %s", jtext(s));
}

static json_object *list(const struct user *u)
{
	struct resp *r = api_get(u, "/saved_snippets");
	EXPECT_STATUS(r, 200);
	REQUIRE(r->json != NULL, "no JSON");
	EXPECT_KEYS(r->json, "result", "msg", "saved_snippets");
	return jget(r->json, "saved_snippets");
}

static void test_create_list_register_and_event(void)
{
	struct user *u = new_user("member"), *other = new_user("member");
	struct queue *q = reg(u), *qo = reg(other);
	int64_t id = create(u, "  Greeting \n", "\n Welcome to the organization.  ");
	json_object *events = queue_drain(q);
	REQUIRE(json_object_array_length(events) == 1, "events %s", jtext(events));
	json_object *e = json_object_array_get_idx(events, 0);
	EXPECT_KEYS(e, "type", "op", "saved_snippet");
	EXPECT_STR(e, "type", "saved_snippets");
	EXPECT_STR(e, "op", "add");
	expect_snippet(jget(e, "saved_snippet"), id, "Greeting", "Welcome to the organization.");
	CHECK(json_object_array_length(queue_drain(qo)) == 0, "another user's queue got the event");

	json_object *l = list(u);
	REQUIRE(json_object_array_length(l) == 1, "list %s", jtext(l));
	expect_snippet(json_object_array_get_idx(l, 0), id, "Greeting", "Welcome to the organization.");
	CHECK(json_object_array_length(list(other)) == 0, "another user sees the snippet");

	struct resp *r = api_post(u, "/register", "fetch_event_types=%5B%22saved_snippets%22%5D");
	EXPECT_STATUS(r, 200);
	json_object *s = jget(r->json, "saved_snippets");
	REQUIRE(json_object_array_length(s) == 1, "register %s", r->body);
	expect_snippet(json_object_array_get_idx(s, 0), id, "Greeting", "Welcome to the organization.");
	r = api_post(other, "/register", "fetch_event_types=%5B%22saved_snippets%22%5D");
	CHECK(json_object_array_length(jget(r->json, "saved_snippets")) == 0, "register of another: %s", r->body);
}

static void test_create_errors(void)
{
	struct user *u = new_user("member");
	struct resp *r = api_post(u, "/saved_snippets", "title=%20%20&content=x");
	EXPECT_ERROR(r, 400, "BAD_REQUEST", "title cannot be blank");
	r = api_post(u, "/saved_snippets", fmt("title=%s&content=x", repeat('t', 61)));
	EXPECT_ERROR(r, 400, "BAD_REQUEST", "title is too long (limit: 60 characters)");
	r = api_post(u, "/saved_snippets", "title=t&content=%0A%20");
	EXPECT_ERROR(r, 400, "BAD_REQUEST", "content cannot be blank");
	r = api_post(u, "/saved_snippets", fmt("title=t&content=%s", repeat('c', 10001)));
	EXPECT_ERROR(r, 400, "BAD_REQUEST", "content is too long (limit: 10000 characters)");
	r = api_post(u, "/saved_snippets", "content=x");
	EXPECT_ERROR(r, 400, "REQUEST_VARIABLE_MISSING", "Missing 'title' argument");
	r = api_post(u, "/saved_snippets", "title=x");
	EXPECT_ERROR(r, 400, "REQUEST_VARIABLE_MISSING", "Missing 'content' argument");
	CHECK(json_object_array_length(list(u)) == 0, "a refused snippet was stored");
	/* The bounds count code points after stripping: 60 two-byte characters between spaces fit. */
	char *title = keep(calloc(1, 200));
	for (int i = 0; i < 60; i++)
		strcat(title, "\xc3\xa9");
	int64_t id = create(u, fmt("  %s  ", title), fmt(" %s ", repeat('c', 10000)));
	json_object *l = list(u);
	REQUIRE(json_object_array_length(l) == 1, "list %s", jtext(l));
	expect_snippet(json_object_array_get_idx(l, 0), id, title, repeat('c', 10000));
	r = api_post(u, "/saved_snippets", fmt("title=%s%s&content=x", url_encode(title), "%C3%A9"));
	EXPECT_ERROR(r, 400, "BAD_REQUEST", "title is too long (limit: 60 characters)");
}

static void test_edit(void)
{
	struct user *u = new_user("member");
	int64_t id = create(u, "Old", "old content");
	struct queue *q = reg(u);
	struct resp *r = patch(u, fmt("/saved_snippets/%lld", (long long)id), "title=%20New%20");
	EXPECT_SUCCESS(r);
	json_object *events = queue_drain(q);
	REQUIRE(json_object_array_length(events) == 1, "events %s", jtext(events));
	json_object *e = json_object_array_get_idx(events, 0);
	EXPECT_KEYS(e, "type", "op", "saved_snippet");
	EXPECT_STR(e, "op", "update");
	expect_snippet(jget(e, "saved_snippet"), id, "New", "old content");
	r = patch(u, fmt("/saved_snippets/%lld", (long long)id), "content=%20fresh%20");
	EXPECT_SUCCESS(r);
	events = queue_drain(q);
	REQUIRE(json_object_array_length(events) == 1, "events %s", jtext(events));
	expect_snippet(jget(json_object_array_get_idx(events, 0), "saved_snippet"), id, "New", "fresh");
	expect_snippet(json_object_array_get_idx(list(u), 0), id, "New", "fresh");

	/* No field: success, nothing changes, no event (also for an id that does not exist). */
	EXPECT_SUCCESS(patch(u, fmt("/saved_snippets/%lld", (long long)id), NULL));
	EXPECT_SUCCESS(patch(u, "/saved_snippets/999999999", NULL));
	CHECK(json_object_array_length(queue_drain(q)) == 0, "an edit without fields sent an event");

	r = patch(u, fmt("/saved_snippets/%lld", (long long)id), "title=%20");
	EXPECT_ERROR(r, 400, "BAD_REQUEST", "title cannot be blank");
	r = patch(u, fmt("/saved_snippets/%lld", (long long)id), fmt("content=%s", repeat('c', 10001)));
	EXPECT_ERROR(r, 400, "BAD_REQUEST", "content is too long (limit: 10000 characters)");
	r = patch(u, "/saved_snippets/999999999", "title=x");
	EXPECT_ERROR(r, 404, "BAD_REQUEST", "Saved snippet does not exist.");
	CHECK(json_object_array_length(queue_drain(q)) == 0, "a refused edit sent an event");
	expect_snippet(json_object_array_get_idx(list(u), 0), id, "New", "fresh");
}

static void test_delete(void)
{
	struct user *u = new_user("member");
	int64_t id = create(u, "Gone", "soon");
	struct queue *q = reg(u);
	EXPECT_SUCCESS(api_method("DELETE", u, fmt("/saved_snippets/%lld", (long long)id)));
	json_object *events = queue_drain(q);
	REQUIRE(json_object_array_length(events) == 1, "events %s", jtext(events));
	json_object *e = json_object_array_get_idx(events, 0);
	EXPECT_KEYS(e, "type", "op", "saved_snippet_id");
	EXPECT_STR(e, "type", "saved_snippets");
	EXPECT_STR(e, "op", "remove");
	EXPECT_INT(e, "saved_snippet_id", id);
	CHECK(json_object_array_length(list(u)) == 0, "still listed");
	struct resp *r = api_method("DELETE", u, fmt("/saved_snippets/%lld", (long long)id));
	EXPECT_ERROR(r, 404, "BAD_REQUEST", "Saved snippet does not exist.");
}

/* Another user's snippet is as unknown as a missing one: 404 to edit or delete, unchanged, no event to anyone. */
static void test_foreign_snippet(void)
{
	struct user *u = new_user("member"), *other = new_user("admin");
	int64_t id = create(u, "Mine", "private");
	struct queue *q = reg(u), *qo = reg(other);
	struct resp *r = patch(other, fmt("/saved_snippets/%lld", (long long)id), "title=Theirs");
	EXPECT_ERROR(r, 404, "BAD_REQUEST", "Saved snippet does not exist.");
	r = api_method("DELETE", other, fmt("/saved_snippets/%lld", (long long)id));
	EXPECT_ERROR(r, 404, "BAD_REQUEST", "Saved snippet does not exist.");
	json_object *l = list(u);
	REQUIRE(json_object_array_length(l) == 1, "list %s", jtext(l));
	expect_snippet(json_object_array_get_idx(l, 0), id, "Mine", "private");
	CHECK(json_object_array_length(queue_drain(q)) == 0, "owner got an event");
	CHECK(json_object_array_length(queue_drain(qo)) == 0, "other got an event");
}

void register_saved_snippets_tests(void)
{
	static const struct itest_case cases[] = {
	    {"create_list_register_and_event", test_create_list_register_and_event},
	    {"create_errors", test_create_errors},
	    {"edit", test_edit},
	    {"delete", test_delete},
	    {"foreign_snippet", test_foreign_snippet},
	    {NULL, NULL},
	};
	itest_add_suite("saved_snippets", cases);
}
