/*
 * Navigation views: GET and POST /navigation_views, PATCH and DELETE /navigation_views/{fragment} (a fragment may
 * contain slashes and is matched whole), the navigation_views of POST /register and the navigation_view events
 * (add, update, remove) in the owner's queue only. Reference: zerver/views/navigation_views.py,
 * zerver/actions/navigation_views.py, zerver/lib/navigation_views.py (the OpenAPI file has no navigation views;
 * the shapes are the reference's NavigationViewDict and events).
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "itest.h"

static unsigned counter;

static struct resp *patch(const struct user *u, const char *path, const char *form)
{
	return http(&(struct request){.method = "PATCH", .path = fmt("/api/v1%s", path), .user = u, .form = form});
}

static struct queue *reg(const struct user *u)
{
	return queue_register(u, "event_types=%5B%22navigation_view%22%5D");
}

static void expect_list_at(const struct user *u, const char *want, const char *file, int line)
{
	struct resp *r = api_get(u, "/navigation_views");
	itest_check(r->status == 200 && r->json != NULL, true, file, line, "GET: %s", r->body);
	EXPECT_KEYS(r->json, "result", "msg", "navigation_views");
	json_object *w = json_tokener_parse(want);
	itest_check(json_object_equal(jget(r->json, "navigation_views"), w), false, file, line,
	            "expected views %s\n      got %s", want, jtext(jget(r->json, "navigation_views")));
	json_object_put(w);
}
#define EXPECT_LIST(u, want) expect_list_at((u), (want), __FILE__, __LINE__)

static char *uniq(const char *tag)
{
	return fmt("%s-%u-%ld", tag, ++counter, (long)getpid());
}

static void test_create_and_list(void)
{
	struct user *u = new_user("member"), *other = new_user("member");
	struct queue *q = reg(u), *qo = reg(other);
	EXPECT_SUCCESS(api_post(u, "/navigation_views", "fragment=inbox&is_pinned=true"));
	EXPECT_EVENTS(q, "[{\"type\":\"navigation_view\",\"op\":\"add\","
	                 "\"navigation_view\":{\"fragment\":\"inbox\",\"is_pinned\":true,\"name\":null}}]");
	EXPECT_SUCCESS(api_post(u, "/navigation_views", "fragment=%20narrow/channel/9-design%20&is_pinned=false&name=%20Design%20"));
	EXPECT_EVENTS(q, "[{\"type\":\"navigation_view\",\"op\":\"add\",\"navigation_view\":"
	                 "{\"fragment\":\"narrow/channel/9-design\",\"is_pinned\":false,\"name\":\"Design\"}}]");
	EXPECT_EVENTS(qo, "[]");
	const char *both = "[{\"fragment\":\"inbox\",\"is_pinned\":true,\"name\":null},"
	                   "{\"fragment\":\"narrow/channel/9-design\",\"is_pinned\":false,\"name\":\"Design\"}]";
	EXPECT_LIST(u, both);
	EXPECT_LIST(other, "[]");
	struct resp *r = api_post(u, "/register", "fetch_event_types=%5B%22navigation_views%22%5D");
	EXPECT_STATUS(r, 200);
	json_object *w = json_tokener_parse(both);
	CHECK(json_object_equal(jget(r->json, "navigation_views"), w), "register: %s", r->body);
	json_object_put(w);
	r = api_post(other, "/register", "fetch_event_types=%5B%22navigation_views%22%5D");
	CHECK(json_object_array_length(jget(r->json, "navigation_views")) == 0, "register of another: %s", r->body);
}

static void test_create_errors(void)
{
	struct user *u = new_user("member");
	EXPECT_SUCCESS(api_post(u, "/navigation_views", "fragment=recent&is_pinned=true"));
	EXPECT_SUCCESS(api_post(u, "/navigation_views", "fragment=narrow/is/dm&is_pinned=true&name=DMs"));
	struct queue *q = reg(u);
	struct resp *r = api_post(u, "/navigation_views", "fragment=feed&is_pinned=true&name=foo");
	EXPECT_ERROR(r, 400, "BAD_REQUEST", "Built-in views cannot have a custom name.");
	r = api_post(u, "/navigation_views", "fragment=narrow/is/unread&is_pinned=true");
	EXPECT_ERROR(r, 400, "BAD_REQUEST", "Custom views must have a valid name.");
	r = api_post(u, "/navigation_views", "fragment=narrow/is/unread&is_pinned=true&name=%20");
	EXPECT_ERROR(r, 400, "BAD_REQUEST", "name cannot be blank");
	r = api_post(u, "/navigation_views", "fragment=%20%20&is_pinned=true");
	EXPECT_ERROR(r, 400, "BAD_REQUEST", "fragment cannot be blank");
	r = api_post(u, "/navigation_views", "fragment=recent&is_pinned=false");
	EXPECT_ERROR(r, 400, "BAD_REQUEST", "Navigation view already exists.");
	r = api_post(u, "/navigation_views", "fragment=narrow/is/dm&is_pinned=false&name=Other");
	EXPECT_ERROR(r, 400, "BAD_REQUEST", "Navigation view already exists.");
	r = api_post(u, "/navigation_views", "fragment=narrow/is/private&is_pinned=false&name=DMs");
	EXPECT_ERROR(r, 400, "BAD_REQUEST", "Navigation view already exists.");
	r = api_post(u, "/navigation_views", "fragment=narrow/is/private&name=X");
	EXPECT_ERROR(r, 400, "REQUEST_VARIABLE_MISSING", "Missing 'is_pinned' argument");
	r = api_post(u, "/navigation_views", "is_pinned=true&name=X");
	EXPECT_ERROR(r, 400, "REQUEST_VARIABLE_MISSING", "Missing 'fragment' argument");
	EXPECT_EVENTS(q, "[]");
	EXPECT_LIST(u, "[{\"fragment\":\"recent\",\"is_pinned\":true,\"name\":null},"
	               "{\"fragment\":\"narrow/is/dm\",\"is_pinned\":true,\"name\":\"DMs\"}]");
}

/* PATCH and DELETE take the whole rest of the path: a prefix or a suffix of a fragment is another fragment. */
static void test_update_fragment_with_slashes(void)
{
	struct user *u = new_user("member");
	const char *name = uniq("view");
	EXPECT_SUCCESS(api_post(u, "/navigation_views", fmt("fragment=narrow/channel/5-x/topic/y&is_pinned=false&name=%s", name)));
	EXPECT_SUCCESS(api_post(u, "/navigation_views", "fragment=narrow/is/dm&is_pinned=true&name=DMs"));
	struct queue *q = reg(u);
	EXPECT_SUCCESS(patch(u, "/navigation_views/narrow/channel/5-x/topic/y", "is_pinned=true&name=%20Renamed%20"));
	EXPECT_EVENTS(q, "[{\"type\":\"navigation_view\",\"op\":\"update\",\"fragment\":\"narrow/channel/5-x/topic/y\","
	                 "\"data\":{\"name\":\"Renamed\",\"is_pinned\":true}}]");
	EXPECT_SUCCESS(patch(u, "/navigation_views/narrow/channel/5-x/topic/y", "is_pinned=false"));
	EXPECT_EVENTS(q, "[{\"type\":\"navigation_view\",\"op\":\"update\",\"fragment\":\"narrow/channel/5-x/topic/y\","
	                 "\"data\":{\"is_pinned\":false}}]");
	struct resp *r = patch(u, "/navigation_views/narrow/channel/5-x", "is_pinned=true");
	EXPECT_ERROR(r, 404, "NOT_FOUND", "Navigation view does not exist.");
	r = patch(u, "/navigation_views/channel/5-x/topic/y", "is_pinned=true");
	EXPECT_ERROR(r, 404, "NOT_FOUND", "Navigation view does not exist.");
	r = patch(u, "/navigation_views/narrow/channel/5-x/topic/y/more", "is_pinned=true");
	EXPECT_ERROR(r, 404, "NOT_FOUND", "Navigation view does not exist.");
	r = patch(u, "/navigation_views/narrow/channel/5-x/topic/y", "name=DMs");
	EXPECT_ERROR(r, 400, "BAD_REQUEST", "Navigation view already exists.");
	r = patch(u, "/navigation_views/narrow/is/starred", "name=Stars");
	EXPECT_ERROR(r, 400, "BAD_REQUEST", "Built-in views cannot have a custom name.");
	r = patch(u, "/navigation_views/%20", "is_pinned=true");
	EXPECT_ERROR(r, 400, "BAD_REQUEST", "fragment cannot be blank");
	EXPECT_EVENTS(q, "[]");
	EXPECT_LIST(u, "[{\"fragment\":\"narrow/channel/5-x/topic/y\",\"is_pinned\":false,\"name\":\"Renamed\"},"
	               "{\"fragment\":\"narrow/is/dm\",\"is_pinned\":true,\"name\":\"DMs\"}]");
}

/* A built-in view has no row until the user changes it: the first PATCH creates it. */
static void test_update_builtin_creates_row(void)
{
	struct user *u = new_user("member");
	struct queue *q = reg(u);
	EXPECT_SUCCESS(patch(u, "/navigation_views/narrow/is/starred", "is_pinned=false"));
	EXPECT_EVENTS(q, "[{\"type\":\"navigation_view\",\"op\":\"add\",\"navigation_view\":"
	                 "{\"fragment\":\"narrow/is/starred\",\"is_pinned\":false,\"name\":null}}]");
	EXPECT_SUCCESS(patch(u, "/navigation_views/narrow/is/starred", "is_pinned=true"));
	EXPECT_EVENTS(q, "[{\"type\":\"navigation_view\",\"op\":\"update\",\"fragment\":\"narrow/is/starred\","
	                 "\"data\":{\"is_pinned\":true}}]");
	EXPECT_LIST(u, "[{\"fragment\":\"narrow/is/starred\",\"is_pinned\":true,\"name\":null}]");
	struct resp *r = patch(u, "/navigation_views/narrow/is/unknown", "is_pinned=true");
	EXPECT_ERROR(r, 404, "NOT_FOUND", "Navigation view does not exist.");
}

static void test_delete(void)
{
	struct user *u = new_user("member");
	EXPECT_SUCCESS(api_post(u, "/navigation_views", "fragment=narrow/is/dm&is_pinned=true&name=DMs"));
	EXPECT_SUCCESS(api_post(u, "/navigation_views", "fragment=narrow/is/mentioned&is_pinned=true"));
	struct queue *q = reg(u);
	struct resp *r = api_method("DELETE", u, "/navigation_views/narrow/is");
	EXPECT_ERROR(r, 404, "NOT_FOUND", "Navigation view does not exist.");
	EXPECT_SUCCESS(api_method("DELETE", u, "/navigation_views/narrow/is/dm"));
	EXPECT_EVENTS(q, "[{\"type\":\"navigation_view\",\"op\":\"remove\",\"fragment\":\"narrow/is/dm\"}]");
	r = api_method("DELETE", u, "/navigation_views/narrow/is/dm");
	EXPECT_ERROR(r, 404, "NOT_FOUND", "Navigation view does not exist.");
	EXPECT_LIST(u, "[{\"fragment\":\"narrow/is/mentioned\",\"is_pinned\":true,\"name\":null}]");
	/* The name is free again. */
	EXPECT_SUCCESS(api_post(u, "/navigation_views", "fragment=narrow/is/private&is_pinned=true&name=DMs"));
}

/* Another user's view is unknown to them: 404 NOT_FOUND, nothing changes, no event. */
static void test_foreign_view(void)
{
	struct user *u = new_user("member"), *other = new_user("owner");
	EXPECT_SUCCESS(api_post(u, "/navigation_views", "fragment=narrow/is/dm&is_pinned=true&name=DMs"));
	struct queue *q = reg(u), *qo = reg(other);
	struct resp *r = patch(other, "/navigation_views/narrow/is/dm", "is_pinned=false");
	EXPECT_ERROR(r, 404, "NOT_FOUND", "Navigation view does not exist.");
	r = api_method("DELETE", other, "/navigation_views/narrow/is/dm");
	EXPECT_ERROR(r, 404, "NOT_FOUND", "Navigation view does not exist.");
	/* Names are per user. */
	EXPECT_SUCCESS(api_post(other, "/navigation_views", "fragment=narrow/is/dm&is_pinned=false&name=DMs"));
	EXPECT_EVENTS(q, "[]");
	EXPECT_LIST(u, "[{\"fragment\":\"narrow/is/dm\",\"is_pinned\":true,\"name\":\"DMs\"}]");
	EXPECT_EVENTS(qo, "[{\"type\":\"navigation_view\",\"op\":\"add\",\"navigation_view\":"
	                  "{\"fragment\":\"narrow/is/dm\",\"is_pinned\":false,\"name\":\"DMs\"}}]");
}

void register_navigation_views_tests(void)
{
	static const struct itest_case cases[] = {
	    {"create_and_list", test_create_and_list},
	    {"create_errors", test_create_errors},
	    {"update_fragment_with_slashes", test_update_fragment_with_slashes},
	    {"update_builtin_creates_row", test_update_builtin_creates_row},
	    {"delete", test_delete},
	    {"foreign_view", test_foreign_view},
	    {NULL, NULL},
	};
	itest_add_suite("navigation_views", cases);
}
