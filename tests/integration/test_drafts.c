/*
 * Drafts: GET, POST /drafts (all or nothing, ids in order), PATCH and DELETE /drafts/{draft_id}, every validation
 * message, the drafts of POST /register, the setting enable_drafts_synchronization, and the drafts events (add,
 * update, remove) in the owner's queue only. Reference: zerver/lib/drafts.py, zerver/views/drafts.py,
 * zerver/tests/test_drafts.py, zerver/lib/typed_endpoint.py (the syntax errors); shapes from
 * shared/reference/zulip-openapi.yaml (Draft, GET /drafts, the drafts events).
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "itest.h"

static unsigned counter;

static struct resp *post_drafts(const struct user *u, const char *json)
{
	return api_post(u, "/drafts", fmt("drafts=%s", url_encode(json)));
}

static struct resp *patch_draft(const struct user *u, int64_t id, const char *json)
{
	return http(&(struct request){.method = "PATCH",
	                              .path = fmt("/api/v1/drafts/%lld", (long long)id),
	                              .user = u,
	                              .form = json ? fmt("draft=%s", url_encode(json)) : NULL});
}

static struct queue *reg(const struct user *u)
{
	return queue_register(u, "event_types=%5B%22drafts%22%5D");
}

/* A channel named uniquely, created by u (extra: more form fields); its id. */
static int64_t channel(const struct user *u, const char *extra)
{
	char *name = fmt("dr-%u-%ld", ++counter, (long)getpid());
	struct resp *r = api_post(u, "/users/me/subscriptions",
	                          fmt("subscriptions=%s%s%s", url_encode(fmt("[{\"name\":\"%s\"}]", name)),
	                              extra ? "&" : "", extra ? extra : ""));
	REQUIRE(r->status == 200, "creating %s: %s", name, r->body);
	return strtoll(psql_ok("SELECT id FROM channels WHERE name = '%s'", name), NULL, 10);
}

static int64_t nth_id(struct resp *r, size_t i)
{
	return json_object_get_int64(json_object_array_get_idx(jget(r->json, "ids"), i));
}

/* A draft object as the API shows it: exactly the OpenAPI Draft fields with these values. */
static void expect_draft_at(json_object *d, int64_t id, const char *want, const char *file, int line)
{
	itest_check(d != NULL, true, file, line, "no draft");
	json_object *w = json_tokener_parse(want);
	itest_check(w != NULL, true, file, line, "bad expected JSON: %s", want);
	json_object_object_add(w, "id", json_object_new_int64(id));
	itest_check(json_object_equal(d, w), false, file, line, "expected draft %s\n      got %s", jtext(w), jtext(d));
	json_object_put(w);
}
#define EXPECT_DRAFT(d, id, want) expect_draft_at((d), (id), (want), __FILE__, __LINE__)

static json_object *get_drafts(const struct user *u)
{
	struct resp *r = api_get(u, "/drafts");
	EXPECT_STATUS(r, 200);
	REQUIRE(r->json != NULL, "no JSON");
	EXPECT_KEYS(r->json, "result", "msg", "count", "drafts");
	json_object *list = jget(r->json, "drafts");
	EXPECT_INT(r->json, "count", (int64_t)json_object_array_length(list));
	return list;
}

static void test_create_list_register_and_event(void)
{
	struct user *u = new_user("member"), *a = new_user("member"), *b = new_user("member"), *x = new_user("member");
	int64_t c = channel(u, NULL);
	struct queue *q = reg(u), *qx = reg(x);
	int64_t lo = a->id < b->id ? a->id : b->id, hi = a->id < b->id ? b->id : a->id;
	char *stream = fmt("{\"type\":\"stream\",\"to\":[%lld],\"topic\":\"%s\",\"content\":\" Let's sync \\n\","
	                   "\"timestamp\":1595479019}",
	                   (long long)c, repeat('t', 70));
	char *group = fmt("{\"type\":\"private\",\"to\":[%lld,%lld,%lld,%lld],\"topic\":\"ignored\",\"content\":\"hi\","
	                  "\"timestamp\":1595479020.5}",
	                  (long long)hi, (long long)lo, (long long)u->id, (long long)hi);
	char *self = fmt("{\"type\":\"private\",\"to\":[%lld],\"topic\":\"\",\"content\":\"note\",\"timestamp\":1595479021}",
	                 (long long)u->id);
	const char *none = "{\"type\":\"private\",\"to\":[],\"topic\":\"t\",\"content\":\"x\",\"timestamp\":1595479018}";
	struct resp *r = post_drafts(u, fmt("[%s,%s,%s,%s]", stream, group, self, none));
	EXPECT_STATUS(r, 200);
	EXPECT_KEYS(r->json, "result", "msg", "ids");
	REQUIRE(json_object_array_length(jget(r->json, "ids")) == 4, "ids %s", r->body);
	for (size_t i = 1; i < 4; i++)
		CHECK(nth_id(r, i) > nth_id(r, i - 1), "ids not in order: %s", r->body);
	char *want[4] = {
	    fmt("{\"type\":\"stream\",\"to\":[%lld],\"topic\":\"%s...\",\"content\":\" Let's sync\",\"timestamp\":1595479019}",
	        (long long)c, repeat('t', 57)),
	    fmt("{\"type\":\"private\",\"to\":[%lld,%lld],\"topic\":\"\",\"content\":\"hi\",\"timestamp\":1595479020}",
	        (long long)lo, (long long)hi),
	    fmt("{\"type\":\"private\",\"to\":[%lld],\"topic\":\"\",\"content\":\"note\",\"timestamp\":1595479021}",
	        (long long)u->id),
	    "{\"type\":\"\",\"to\":[],\"topic\":\"\",\"content\":\"x\",\"timestamp\":1595479018}",
	};
	json_object *events = queue_drain(q);
	REQUIRE(json_object_array_length(events) == 1, "events %s", jtext(events));
	json_object *e = json_object_array_get_idx(events, 0);
	EXPECT_KEYS(e, "type", "op", "drafts");
	EXPECT_STR(e, "type", "drafts");
	EXPECT_STR(e, "op", "add");
	for (size_t i = 0; i < 4; i++)
		EXPECT_DRAFT(json_object_array_get_idx(jget(e, "drafts"), i), nth_id(r, i), want[i]);
	CHECK(json_object_array_length(queue_drain(qx)) == 0, "another user's queue got the event");

	/* GET: oldest edit first; POST /register: newest first. */
	json_object *l = get_drafts(u);
	REQUIRE(json_object_array_length(l) == 4, "drafts %s", jtext(l));
	static const int by_time[4] = {3, 0, 1, 2};
	for (size_t i = 0; i < 4; i++)
		EXPECT_DRAFT(json_object_array_get_idx(l, i), nth_id(r, by_time[i]), want[by_time[i]]);
	CHECK(json_object_array_length(get_drafts(x)) == 0, "another user sees the drafts");
	struct resp *rr = api_post(u, "/register", "fetch_event_types=%5B%22drafts%22%5D");
	l = jget(rr->json, "drafts");
	REQUIRE(json_object_array_length(l) == 4, "register %s", rr->body);
	for (size_t i = 0; i < 4; i++)
		EXPECT_DRAFT(json_object_array_get_idx(l, i), nth_id(r, by_time[3 - i]), want[by_time[3 - i]]);
}

static void test_timestamp_defaults_to_now(void)
{
	struct user *u = new_user("member");
	time_t before = time(NULL);
	struct resp *r = post_drafts(u, "[{\"type\":\"\",\"to\":[],\"topic\":\"\",\"content\":\"x\"},"
	                                "{\"type\":\"\",\"to\":[],\"topic\":\"\",\"content\":\"y\",\"timestamp\":null}]");
	EXPECT_STATUS(r, 200);
	json_object *l = get_drafts(u);
	REQUIRE(json_object_array_length(l) == 2, "drafts %s", jtext(l));
	for (size_t i = 0; i < 2; i++) {
		int64_t ts = jint(json_object_array_get_idx(l, i), "timestamp");
		CHECK(ts >= before && ts <= time(NULL), "timestamp %lld not now", (long long)ts);
	}
}

/* Each refused request: its message, and no draft written (all or nothing). */
static void refused_at(const struct user *u, const char *json, const char *msg, const char *file, int line)
{
	struct resp *r = post_drafts(u, json);
	expect_error(r, 400, "BAD_REQUEST", msg, file, line);
	struct resp *l = api_get(u, "/drafts");
	itest_check(jint(l->json, "count") == 0, false, file, line, "a draft was written: %s", l->body);
}
#define REFUSED(u, json, msg) refused_at((u), (json), (msg), __FILE__, __LINE__)

#define GOOD "{\"type\":\"\",\"to\":[],\"topic\":\"\",\"content\":\"fine\"}"

static void test_syntax_errors(void)
{
	struct user *u = new_user("member");
	REFUSED(u, "{}", "drafts is not a list");
	REFUSED(u, "[" GOOD ",1]", "drafts[1] is not a dict");
	REFUSED(u, "[{\"type\":\"\",\"topic\":\"\",\"content\":\"x\"}]", "drafts[0][\"to\"] field is missing");
	REFUSED(u, "[{\"type\":\"bogus\",\"to\":[],\"topic\":\"\",\"content\":\"x\"}]", "Invalid drafts[0][\"type\"]");
	REFUSED(u, "[{\"type\":1,\"to\":[],\"topic\":\"\",\"content\":\"x\"}]", "Invalid drafts[0][\"type\"]");
	REFUSED(u, "[{\"type\":\"\",\"to\":\"1\",\"topic\":\"\",\"content\":\"x\"}]", "drafts[0][\"to\"] is not a list");
	REFUSED(u, "[{\"type\":\"\",\"to\":[1,true],\"topic\":\"\",\"content\":\"x\"}]",
	        "drafts[0][\"to\"][1] is not an integer");
	REFUSED(u, "[{\"type\":\"\",\"to\":[],\"topic\":5,\"content\":\"x\"}]", "drafts[0][\"topic\"] is not a string");
	REFUSED(u, "[{\"type\":\"\",\"to\":[],\"topic\":\"\",\"content\":null}]", "drafts[0][\"content\"] is not a string");
	REFUSED(u, "[{\"type\":\"\",\"to\":[],\"topic\":\"\",\"content\":\" \\n \"}]",
	        "drafts[0][\"content\"] cannot be blank");
	REFUSED(u, "[{\"type\":\"\",\"to\":[],\"topic\":\"\",\"content\":\"x\",\"timestamp\":\"1\"}]",
	        "drafts[0][\"timestamp\"][\"int\"] is not an integer");
	REFUSED(u, "[{\"type\":\"\",\"to\":[],\"topic\":\"\",\"content\":\"x\",\"id\":3}]",
	        "Argument \"id\" at drafts[0][\"id\"] is unexpected");
	REFUSED(u, fmt("[{\"type\":\"private\",\"to\":%s,\"topic\":\"\",\"content\":\"x\"}]", json_list(1001, "1")),
	        "drafts[0][\"to\"] is too long (limit: 1000 items)");
	REFUSED(u, json_list(101, GOOD), "drafts is too long (limit: 100 items)");
	struct resp *r = post_drafts(u, json_list(100, GOOD));
	EXPECT_STATUS(r, 200);
	CHECK(json_object_array_length(jget(r->json, "ids")) == 100, "100 drafts: %s", r->body);
}

static void test_validation_errors(void)
{
	struct user *u = new_user("member"), *owner = new_user("member"), *foreign = new_realm();
	int64_t c = channel(u, NULL), secret = channel(owner, "invite_only=true");
	REFUSED(u, "[" GOOD ",{\"type\":\"stream\",\"to\":[],\"topic\":\"t\",\"content\":\"x\"}]",
	        "Must specify exactly 1 channel ID for channel messages");
	REFUSED(u, fmt("[{\"type\":\"stream\",\"to\":[%lld,%lld],\"topic\":\"t\",\"content\":\"x\"}]", (long long)c,
	               (long long)c),
	        "Must specify exactly 1 channel ID for channel messages");
	REFUSED(u, "[{\"type\":\"\",\"to\":[],\"topic\":\"\",\"content\":\"x\",\"timestamp\":-10.1}]",
	        "Timestamp must not be negative.");
	REFUSED(u, fmt("[{\"type\":\"stream\",\"to\":[%lld],\"topic\":\"t\",\"content\":\"x\"}]", (long long)secret),
	        "Invalid channel ID");
	REFUSED(u, "[{\"type\":\"stream\",\"to\":[99999999999999],\"topic\":\"t\",\"content\":\"x\"}]",
	        "Invalid channel ID");
	REFUSED(u, "[{\"type\":\"private\",\"to\":[99999999999999],\"topic\":\"\",\"content\":\"x\"}]",
	        "Invalid user ID 99999999999999");
	REFUSED(u, fmt("[{\"type\":\"private\",\"to\":[%lld],\"topic\":\"\",\"content\":\"x\"}]", (long long)foreign->id),
	        fmt("Invalid user ID %lld", (long long)foreign->id));
	struct user *gone = new_user("member");
	struct resp *g = api_get(u, fmt("/users/%lld", (long long)gone->id));
	REQUIRE(g->status == 200, "GET user: %s", g->body);
	const char *gone_email = jstr(jget(g->json, "user"), "email");
	REQUIRE(gone_email != NULL, "no email: %s", g->body);
	deactivate_user(gone);
	REFUSED(u, fmt("[{\"type\":\"private\",\"to\":[%lld],\"topic\":\"\",\"content\":\"x\"}]", (long long)gone->id),
	        fmt("'%s' is no longer using Zulip.", gone_email));
	REFUSED(u, "[{\"type\":\"\",\"to\":[],\"topic\":\"t\",\"content\":\"a\\u0000b\"}]",
	        "Message must not contain null bytes");
	REFUSED(u, fmt("[{\"type\":\"stream\",\"to\":[%lld],\"topic\":\"a\\u0000\",\"content\":\"x\"}]", (long long)c),
	        "Topic must not contain null bytes");
}

static void test_edit(void)
{
	struct user *u = new_user("member"), *a = new_user("member");
	int64_t c1 = channel(u, NULL), c2 = channel(u, NULL);
	struct resp *r =
	    post_drafts(u, fmt("[{\"type\":\"stream\",\"to\":[%lld],\"topic\":\"drafts\",\"content\":\"The API\","
	                       "\"timestamp\":1595505700}]",
	                       (long long)c1));
	EXPECT_STATUS(r, 200);
	int64_t id = nth_id(r, 0);
	struct queue *q = reg(u);
	char *changed = fmt("{\"type\":\"stream\",\"to\":[%lld],\"topic\":\"designing\",\"content\":\"Simple\","
	                    "\"timestamp\":1595505800}",
	                    (long long)c2);
	EXPECT_SUCCESS(patch_draft(u, id, changed));
	json_object *events = queue_drain(q);
	REQUIRE(json_object_array_length(events) == 1, "events %s", jtext(events));
	json_object *e = json_object_array_get_idx(events, 0);
	EXPECT_KEYS(e, "type", "op", "draft");
	EXPECT_STR(e, "type", "drafts");
	EXPECT_STR(e, "op", "update");
	EXPECT_DRAFT(jget(e, "draft"), id, changed);
	EXPECT_DRAFT(json_object_array_get_idx(get_drafts(u), 0), id, changed);

	char *dm = fmt("{\"type\":\"private\",\"to\":[%lld],\"topic\":\"x\",\"content\":\"DM\",\"timestamp\":1595505900}",
	               (long long)a->id);
	EXPECT_SUCCESS(patch_draft(u, id, dm));
	events = queue_drain(q);
	REQUIRE(json_object_array_length(events) == 1, "events %s", jtext(events));
	char *dm_shown = fmt("{\"type\":\"private\",\"to\":[%lld],\"topic\":\"\",\"content\":\"DM\",\"timestamp\":1595505900}",
	                     (long long)a->id);
	EXPECT_DRAFT(jget(json_object_array_get_idx(events, 0), "draft"), id, dm_shown);

	r = patch_draft(u, 999999999, changed);
	EXPECT_ERROR(r, 404, "BAD_REQUEST", "Draft does not exist");
	r = patch_draft(u, id, "{\"type\":\"stream\",\"to\":[],\"topic\":\"t\",\"content\":\"x\"}");
	EXPECT_ERROR(r, 400, "BAD_REQUEST", "Must specify exactly 1 channel ID for channel messages");
	r = patch_draft(u, id, "{\"type\":\"x\",\"to\":[],\"topic\":\"t\",\"content\":\"x\"}");
	EXPECT_ERROR(r, 400, "BAD_REQUEST", "Invalid draft[\"type\"]");
	r = patch_draft(u, id, "[]");
	EXPECT_ERROR(r, 400, "BAD_REQUEST", "draft is not a dict");
	r = patch_draft(u, id, NULL);
	EXPECT_ERROR(r, 400, "REQUEST_VARIABLE_MISSING", "Missing 'draft' argument");
	CHECK(json_object_array_length(queue_drain(q)) == 0, "a refused edit sent an event");
	EXPECT_DRAFT(json_object_array_get_idx(get_drafts(u), 0), id, dm_shown);
}

static void test_delete(void)
{
	struct user *u = new_user("member");
	struct resp *r = post_drafts(u, "[" GOOD "," GOOD "]");
	EXPECT_STATUS(r, 200);
	struct queue *q = reg(u);
	EXPECT_SUCCESS(api_method("DELETE", u, fmt("/drafts/%lld", (long long)nth_id(r, 0))));
	json_object *events = queue_drain(q);
	REQUIRE(json_object_array_length(events) == 1, "events %s", jtext(events));
	json_object *e = json_object_array_get_idx(events, 0);
	EXPECT_KEYS(e, "type", "op", "draft_id");
	EXPECT_STR(e, "op", "remove");
	EXPECT_INT(e, "draft_id", nth_id(r, 0));
	json_object *l = get_drafts(u);
	REQUIRE(json_object_array_length(l) == 1, "drafts %s", jtext(l));
	EXPECT_INT(json_object_array_get_idx(l, 0), "id", nth_id(r, 1));
	struct resp *d = api_method("DELETE", u, fmt("/drafts/%lld", (long long)nth_id(r, 0)));
	EXPECT_ERROR(d, 404, "BAD_REQUEST", "Draft does not exist");
}

/* Another user's draft is as unknown as a missing one: 404, unchanged, no event to anyone. */
static void test_foreign_draft(void)
{
	struct user *u = new_user("member"), *other = new_user("owner");
	struct resp *r = post_drafts(u, "[" GOOD "]");
	EXPECT_STATUS(r, 200);
	int64_t id = nth_id(r, 0);
	struct queue *q = reg(u), *qo = reg(other);
	EXPECT_ERROR(patch_draft(other, id, GOOD), 404, "BAD_REQUEST", "Draft does not exist");
	EXPECT_ERROR(api_method("DELETE", other, fmt("/drafts/%lld", (long long)id)), 404, "BAD_REQUEST",
	             "Draft does not exist");
	CHECK(json_object_array_length(get_drafts(other)) == 0, "another user sees the draft");
	json_object *l = get_drafts(u);
	REQUIRE(json_object_array_length(l) == 1, "drafts %s", jtext(l));
	EXPECT_STR(json_object_array_get_idx(l, 0), "content", "fine");
	CHECK(json_object_array_length(queue_drain(q)) == 0, "owner got an event");
	CHECK(json_object_array_length(queue_drain(qo)) == 0, "other got an event");
}

/* PATCH /settings with form. */
static struct resp *settings(const struct user *u, const char *form)
{
	return http(&(struct request){.method = "PATCH", .path = "/api/v1/settings", .user = u, .form = form});
}

/* enable_drafts_synchronization off: every route refuses, and POST /register shows no drafts. */
static void test_synchronization_disabled(void)
{
	struct user *u = new_user("member");
	struct resp *r = post_drafts(u, "[" GOOD "]");
	EXPECT_STATUS(r, 200);
	int64_t id = nth_id(r, 0);
	EXPECT_SUCCESS(settings(u, "enable_drafts_synchronization=false"));
	const char *msg = "User has disabled synchronizing drafts.";
	EXPECT_ERROR(post_drafts(u, "[" GOOD "]"), 400, "BAD_REQUEST", msg);
	EXPECT_ERROR(api_get(u, "/drafts"), 400, "BAD_REQUEST", msg);
	EXPECT_ERROR(patch_draft(u, id, GOOD), 400, "BAD_REQUEST", msg);
	EXPECT_ERROR(api_method("DELETE", u, fmt("/drafts/%lld", (long long)id)), 400, "BAD_REQUEST", msg);
	r = api_post(u, "/register", "fetch_event_types=%5B%22drafts%22%5D");
	EXPECT_STATUS(r, 200);
	CHECK(json_object_array_length(jget(r->json, "drafts")) == 0, "register: %s", r->body);
	EXPECT_SUCCESS(settings(u, "enable_drafts_synchronization=true"));
	CHECK(json_object_array_length(get_drafts(u)) == 1, "the draft was lost");
}

void register_drafts_tests(void)
{
	static const struct itest_case cases[] = {
	    {"create_list_register_and_event", test_create_list_register_and_event},
	    {"timestamp_defaults_to_now", test_timestamp_defaults_to_now},
	    {"syntax_errors", test_syntax_errors},
	    {"validation_errors", test_validation_errors},
	    {"edit", test_edit},
	    {"delete", test_delete},
	    {"foreign_draft", test_foreign_draft},
	    {"synchronization_disabled", test_synchronization_disabled},
	    {NULL, NULL},
	};
	itest_add_suite("drafts", cases);
}
