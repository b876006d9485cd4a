/*
 * Linkifiers: GET /realm/linkifiers, POST /realm/filters, PATCH and DELETE /realm/filters/{filter_id}, PATCH
 * /realm/linkifiers; realm_linkifiers in register and events (only to clients declaring linkifier_url_template);
 * rendering of new and edited messages and topic_links. Each test runs in an organization of its own, so its
 * linkifiers touch no other suite. Reference: zerver/views/realm_linkifiers.py, zerver/models/linkifiers.py,
 * zerver/actions/realm_linkifiers.py, zerver/lib/markdown/__init__.py.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "itest.h"

#define ISSUE_PATTERN  "#(?P<id>[0-9]+)"
#define ISSUE_TEMPLATE "https://github.com/zulip/zulip/issues/{id}"
#define CAPS           "client_capabilities=%7B%22linkifier_url_template%22%3Atrue%7D"

static struct resp *method(const char *m, const struct user *u, const char *path, const char *form)
{
	return http(&(struct request){.method = m, .path = fmt("/api/v1%s", path), .user = u, .form = form});
}

static struct resp *add(const struct user *u, const char *pattern, const char *tmpl)
{
	return api_post(u, "/realm/filters", fmt("pattern=%s&url_template=%s", url_encode(pattern), url_encode(tmpl)));
}

static int64_t add_ok(const struct user *u, const char *pattern, const char *tmpl)
{
	struct resp *r = add(u, pattern, tmpl);
	EXPECT_STATUS(r, 200);
	REQUIRE(r->json != NULL, "no JSON");
	EXPECT_KEYS(r->json, "result", "msg", "id");
	return jint(r->json, "id");
}

static json_object *list(const struct user *u)
{
	struct resp *r = api_get(u, "/realm/linkifiers");
	EXPECT_STATUS(r, 200);
	REQUIRE(r->json != NULL, "no JSON");
	EXPECT_KEYS(r->json, "result", "msg", "linkifiers");
	return jget(r->json, "linkifiers");
}

static void expect_linkifier(json_object *l, int64_t id, const char *pattern, const char *tmpl)
{
	REQUIRE(l != NULL, "no linkifier");
	EXPECT_KEYS(l, "pattern", "url_template", "id", "example_input", "reverse_template",
	            "alternative_url_templates");
	EXPECT_INT(l, "id", id);
	EXPECT_STR(l, "pattern", pattern);
	EXPECT_STR(l, "url_template", tmpl);
}

/* A validation failure: the first message as msg, and errors {field: [messages]}. */
static void expect_invalid(struct resp *r, const char *msg, const char *errors)
{
	EXPECT_ERROR(r, 400, "BAD_REQUEST", msg);
	CHECK(jget(r->json, "errors") != NULL && strcmp(jtext(jget(r->json, "errors")), errors) == 0,
	      "errors %s, want %s", r->body, errors);
}

static const char *rendered(const struct user *u, int64_t id)
{
	struct resp *r = api_get(u, fmt("/messages/%lld", (long long)id));
	EXPECT_STATUS(r, 200);
	return jstr(jget(r->json, "message"), "content");
}

/* The content of "#9" sent by u to the empty topic of channel, as the event in q (apply_markdown) has it. Neither the
 * send's topic_links (no topic) nor the event read linkifiers on their own: GET /messages would, and would find a
 * change that the send's process had not heard of. */
static const char *sent_content(const struct user *u, const char *channel, struct queue *q)
{
	send_channel_message(u, channel, "", "#9");
	json_object *events = queue_drain(q);
	size_t n = json_object_array_length(events);
	REQUIRE(n > 0, "no message event");
	const char *content = jstr(jget(json_object_array_get_idx(events, n - 1), "message"), "content");
	return content ? content : "";
}

/* Sends until the rendering is want (a change reaches every process within a second), then four more that must. */
static void expect_renders_soon(const struct user *u, const char *channel, struct queue *q, const char *want)
{
	double deadline = now_secs() + 1.0;
	while (strcmp(sent_content(u, channel, q), want) != 0 && now_secs() < deadline)
		usleep(20000);
	for (int i = 0; i < 4; i++) {
		const char *got = sent_content(u, channel, q);
		CHECK(strcmp(got, want) == 0, "got %s, want %s", got, want);
	}
}

static const char *channel_in(const struct user *owner)
{
	char *name = unique_channel_name("lk");
	create_channel_with(owner, name, NULL);
	return name;
}

static void test_create_list_register_events(void)
{
	struct user *o = new_realm();
	struct user *m = new_user_in(o->realm, "member", NULL);
	struct queue *modern =
	    queue_register(m, "event_types=%5B%22realm_linkifiers%22%2C%22realm_filters%22%5D&" CAPS);
	struct queue *legacy = queue_register(m, "event_types=%5B%22realm_linkifiers%22%2C%22realm_filters%22%5D");
	CHECK(json_object_array_length(list(m)) == 0, "a new organization has linkifiers");
	/* Stripped before they are stored, as the reference's do_add_linkifier. */
	int64_t id = add_ok(o, "  " ISSUE_PATTERN " ", ISSUE_TEMPLATE "\n");
	json_object *l = list(m);
	REQUIRE(json_object_array_length(l) == 1, "list %s", jtext(l));
	expect_linkifier(json_object_array_get_idx(l, 0), id, ISSUE_PATTERN, ISSUE_TEMPLATE);
	EXPECT_NULL(json_object_array_get_idx(l, 0), "example_input");
	EXPECT_EVENTS(modern, fmt("[{\"type\":\"realm_linkifiers\",\"realm_linkifiers\":%s}]", jtext(l)));
	EXPECT_NO_EVENTS(legacy);

	struct resp *r =
	    api_post(m, "/register", "fetch_event_types=%5B%22realm_linkifiers%22%2C%22realm_filters%22%5D&" CAPS);
	EXPECT_STATUS(r, 200);
	CHECK(strcmp(jtext(jget(r->json, "realm_linkifiers")), jtext(l)) == 0, "register %s", r->body);
	CHECK(strcmp(jtext(jget(r->json, "realm_filters")), "[]") == 0, "realm_filters %s", r->body);
	r = api_post(m, "/register", "fetch_event_types=%5B%22realm_linkifiers%22%5D");
	CHECK(strcmp(jtext(jget(r->json, "realm_linkifiers")), "[]") == 0, "without the capability: %s", r->body);
}

static void test_administrators_only(void)
{
	struct user *o = new_realm();
	struct user *m = new_user_in(o->realm, "member", NULL);
	int64_t id = add_ok(o, ISSUE_PATTERN, ISSUE_TEMPLATE);
	const char *msg = "Must be an organization administrator";
	EXPECT_ERROR(add(m, "x", "https://x.com"), 400, "UNAUTHORIZED_PRINCIPAL", msg);
	EXPECT_ERROR(
	    method("PATCH", m, fmt("/realm/filters/%lld", (long long)id), "pattern=x&url_template=https%3A%2F%2Fx.com"),
	    400, "UNAUTHORIZED_PRINCIPAL", msg);
	EXPECT_ERROR(method("DELETE", m, fmt("/realm/filters/%lld", (long long)id), NULL), 400,
	             "UNAUTHORIZED_PRINCIPAL", msg);
	EXPECT_ERROR(method("PATCH", m, "/realm/linkifiers", fmt("ordered_linkifier_ids=%%5B%lld%%5D", (long long)id)),
	             400, "UNAUTHORIZED_PRINCIPAL", msg);
	struct user *a = new_user_in(o->realm, "admin", NULL);
	add_ok(a, "admin-(?P<n>[0-9]+)", "https://x.com/{n}");
	CHECK(json_object_array_length(list(m)) == 2, "list");
}

static void test_validation(void)
{
	struct user *o = new_realm();
	add_ok(o, ISSUE_PATTERN, ISSUE_TEMPLATE);
	/* Django runs clean() after a field failed: an empty pattern has no group for the template's. */
	expect_invalid(
	    add(o, "  ", ISSUE_TEMPLATE), "This field cannot be blank.",
	    "{\"pattern\":[\"This field cannot be blank.\"],\"__all__\":[\"Group 'id' in URL template is not present "
	    "in linkifier pattern.\"]}");
	expect_invalid(
	    add(o, ISSUE_PATTERN "x", " "), "This field cannot be blank.",
	    "{\"url_template\":[\"This field cannot be blank.\"],\"__all__\":[\"Group 'id' in linkifier pattern is "
	    "not present in URL template.\"]}");
	expect_invalid(add(o, "(foo", "https://x.com"), "Bad regular expression: missing ): (foo",
	               "{\"__all__\":[\"Bad regular expression: missing ): (foo\"]}");
	expect_invalid(add(o, "a????", "https://x.com"), "Bad regular expression: bad repetition operator: ????",
	               "{\"__all__\":[\"Bad regular expression: bad repetition operator: ????\"]}");
	expect_invalid(add(o, "x(?P<id>[0-9]+)", "https://x.com/{id"), "Invalid URL template.",
	               "{\"url_template\":[\"Invalid URL template.\"]}");
	expect_invalid(add(o, "y(?P<id>[0-9]+)", "https://x.com/{zz}/{id}/{b}"),
	               "Group 'b' in URL template is not present in linkifier pattern.",
	               "{\"__all__\":[\"Group 'b' in URL template is not present in linkifier pattern.\"]}");
	expect_invalid(add(o, "(?P<z>a)(?P<c>b)(?P<id>c)", "https://x.com/{id}"),
	               "Group 'c' in linkifier pattern is not present in URL template.",
	               "{\"__all__\":[\"Group 'c' in linkifier pattern is not present in URL template.\"]}");
	/* Field errors come before the others, in the model's field order. */
	expect_invalid(add(o, "(", ""), "This field cannot be blank.",
	               "{\"url_template\":[\"This field cannot be blank.\"],\"__all__\":[\"Bad regular expression: "
	               "missing ): (\"]}");
	expect_invalid(add(o, ISSUE_PATTERN, "https://x.com/{id}"),
	               "Realm filter with this Realm and Pattern already exists.",
	               "{\"__all__\":[\"Realm filter with this Realm and Pattern already exists.\"]}");
	CHECK(json_object_array_length(list(o)) == 1, "a refused linkifier was stored");
}

static void test_reverse_templates(void)
{
	struct user *o = new_realm();
	const char *base = fmt("pattern=%s&url_template=%s", url_encode(ISSUE_PATTERN), url_encode(ISSUE_TEMPLATE));
	struct resp *r = api_post(o, "/realm/filters",
	                          fmt("%s&example_input=%%23123&reverse_template=%s&alternative_url_templates=%s", base,
	                              url_encode("#{id}"), url_encode("[\"https://x.com/i/{id}\"]")));
	EXPECT_STATUS(r, 200);
	json_object *l = json_object_array_get_idx(list(o), 0);
	EXPECT_STR(l, "example_input", "#123");
	EXPECT_STR(l, "reverse_template", "#{id}");
	CHECK(strcmp(jtext(jget(l, "alternative_url_templates")), "[\"https://x.com/i/{id}\"]") == 0, "%s", jtext(l));
	int64_t id = jint(l, "id");
	const char *path = fmt("/realm/filters/%lld", (long long)id);
	expect_invalid(method("PATCH", o, path,
	                      fmt("%s&example_input=%%23123&reverse_template=%s", base, url_encode("issue {id}"))),
	               "Reverse template does not reproduce the example input.",
	               "{\"__all__\":[\"Reverse template does not reproduce the example input.\"]}");
	expect_invalid(
	    method("PATCH", o, path, fmt("%s&example_input=%%23abc&reverse_template=%s", base, url_encode("#{id}"))),
	    "Example input does not match the linkifier pattern.",
	    "{\"__all__\":[\"Example input does not match the linkifier pattern.\"]}");
	expect_invalid(
	    method("PATCH", o, path, fmt("%s&alternative_url_templates=%s", base, url_encode("[\"https://x/{\"]"))),
	    "Invalid URL template.", "{\"alternative_url_templates\":[\"Invalid URL template.\"]}");
	/* Empty strings set them to null. */
	EXPECT_SUCCESS(method("PATCH", o, path, fmt("%s&example_input=&reverse_template=", base)));
	l = json_object_array_get_idx(list(o), 0);
	EXPECT_NULL(l, "example_input");
	EXPECT_NULL(l, "reverse_template");
}

static void test_update_and_delete(void)
{
	struct user *o = new_realm(), *other = new_realm();
	int64_t id = add_ok(o, ISSUE_PATTERN, ISSUE_TEMPLATE);
	int64_t foreign = add_ok(other, ISSUE_PATTERN, ISSUE_TEMPLATE);
	struct queue *q = queue_register(o, "event_types=%5B%22realm_linkifiers%22%5D&" CAPS);
	const char *path = fmt("/realm/filters/%lld", (long long)id);
	EXPECT_SUCCESS(method(
	    "PATCH", o, path,
	    fmt("pattern=%s&url_template=%s", url_encode("PR (?P<id>[0-9]+)"), url_encode("https://x.com/pull/{id}"))));
	json_object *l = list(o);
	expect_linkifier(json_object_array_get_idx(l, 0), id, "PR (?P<id>[0-9]+)", "https://x.com/pull/{id}");
	EXPECT_EVENTS(q, fmt("[{\"type\":\"realm_linkifiers\",\"realm_linkifiers\":%s}]", jtext(l)));
	/* Not found comes before validation; another organization's id is not found. */
	EXPECT_ERROR(method("PATCH", o, fmt("/realm/filters/%lld", (long long)foreign), "pattern=(&url_template=x"),
	             400, "BAD_REQUEST", "Linkifier not found.");
	EXPECT_ERROR(method("DELETE", o, fmt("/realm/filters/%lld", (long long)foreign), NULL), 400, "BAD_REQUEST",
	             "Linkifier not found.");
	expect_invalid(method("PATCH", o, path, "pattern=(&url_template=https%3A%2F%2Fx.com"),
	               "Bad regular expression: missing ): (",
	               "{\"__all__\":[\"Bad regular expression: missing ): (\"]}");
	EXPECT_NO_EVENTS(q);
	EXPECT_SUCCESS(method("DELETE", o, path, NULL));
	EXPECT_EVENTS(q, "[{\"type\":\"realm_linkifiers\",\"realm_linkifiers\":[]}]");
	EXPECT_ERROR(method("DELETE", o, path, NULL), 400, "BAD_REQUEST", "Linkifier not found.");
	CHECK(json_object_array_length(list(other)) == 1, "the other organization's linkifier is gone");
}

static void test_reorder(void)
{
	struct user *o = new_realm();
	EXPECT_SUCCESS(method("PATCH", o, "/realm/linkifiers", "ordered_linkifier_ids=%5B%5D"));
	int64_t a = add_ok(o, "a(?P<x>[0-9]+)", "https://a.com/{x}"),
	        b = add_ok(o, "b(?P<x>[0-9]+)", "https://b.com/{x}");
	int64_t c = add_ok(o, "c(?P<x>[0-9]+)", "https://c.com/{x}");
	struct queue *q = queue_register(o, "event_types=%5B%22realm_linkifiers%22%5D&" CAPS);
	EXPECT_ERROR(method("PATCH", o, "/realm/linkifiers",
	                    fmt("ordered_linkifier_ids=[%lld,%lld,%lld]", (long long)a, (long long)a, (long long)b)),
	             400, "BAD_REQUEST", "The ordered list must not contain duplicated linkifiers");
	EXPECT_ERROR(method("PATCH", o, "/realm/linkifiers",
	                    fmt("ordered_linkifier_ids=[%lld,%lld]", (long long)a, (long long)b)),
	             400, "BAD_REQUEST", "The ordered list must enumerate all existing linkifiers exactly once");
	EXPECT_ERROR(
	    method("PATCH", o, "/realm/linkifiers",
	           fmt("ordered_linkifier_ids=[%lld,%lld,%lld]", (long long)a, (long long)b, (long long)c + 1000)),
	    400, "BAD_REQUEST", "The ordered list must enumerate all existing linkifiers exactly once");
	EXPECT_NO_EVENTS(q);
	EXPECT_SUCCESS(method("PATCH", o, "/realm/linkifiers",
	                      fmt("ordered_linkifier_ids=[%lld,%lld,%lld]", (long long)c, (long long)a, (long long)b)));
	json_object *l = list(o);
	REQUIRE(json_object_array_length(l) == 3, "list %s", jtext(l));
	EXPECT_INT(json_object_array_get_idx(l, 0), "id", c);
	EXPECT_INT(json_object_array_get_idx(l, 1), "id", a);
	EXPECT_INT(json_object_array_get_idx(l, 2), "id", b);
	EXPECT_EVENTS(q, fmt("[{\"type\":\"realm_linkifiers\",\"realm_linkifiers\":%s}]", jtext(l)));
}

static struct resp *edit(const struct user *u, int64_t id, const char *form)
{
	return method("PATCH", u, fmt("/messages/%lld", (long long)id), form);
}

/* #123 becomes the link in a new message and in an edited one; the message event carries the HTML too. */
static void test_render_new_and_edited(void)
{
	struct user *o = new_realm();
	const char *ch = channel_in(o);
	add_ok(o, ISSUE_PATTERN, ISSUE_TEMPLATE);
	struct queue *q = queue_register(o, "event_types=%5B%22message%22%5D&apply_markdown=true");
	int64_t id = send_channel_message(o, ch, "t", "see #123.");
	const char *want = "<p>see <a href=\"https://github.com/zulip/zulip/issues/123\">#123</a>.</p>";
	EXPECT_STR(jget(json_object_array_get_idx(queue_drain(q), 0), "message"), "content", want);
	CHECK(strcmp(rendered(o, id), want) == 0, "new: %s", rendered(o, id));
	EXPECT_SUCCESS(edit(o, id, "content=fixed%20by%20%23456"));
	CHECK(strcmp(rendered(o, id),
	             "<p>fixed by <a href=\"https://github.com/zulip/zulip/issues/456\">#456</a></p>") == 0,
	      "edited: %s", rendered(o, id));
	/* A change of the template is seen by every worker within a second (the next messages, not the stored ones),
	 * and from then on by every send. */
	int64_t lid = jint(json_object_array_get_idx(list(o), 0), "id");
	EXPECT_SUCCESS(
	    method("PATCH", o, fmt("/realm/filters/%lld", (long long)lid),
	           fmt("pattern=%s&url_template=%s", url_encode(ISSUE_PATTERN), url_encode("https://t.example/{id}"))));
	expect_renders_soon(o, ch, q, "<p><a href=\"https://t.example/9\">#9</a></p>");
	/* Also a change made in psql (the version is raised by the table's trigger, which tells the processes). */
	psql_ok("UPDATE linkifiers SET url_template = 'https://psql.example/{id}' WHERE id = %lld", (long long)lid);
	expect_renders_soon(o, ch, q, "<p><a href=\"https://psql.example/9\">#9</a></p>");
}

/* The reference's word boundaries, no links inside code or links, linkifiers in order (the first wins). */
static void test_render_rules(void)
{
	struct user *o = new_realm();
	const char *ch = channel_in(o);
	add_ok(o, ISSUE_PATTERN, ISSUE_TEMPLATE);
	add_ok(o, "#(?P<id>[0-9]+)(?P<rest>[a-z]*)", "https://second.example/{id}/{rest}");
	add_ok(o, "RFC ?(?P<n>[0-9]+)", "https://rfc.example/{n}");
	static const struct {
		const char *in, *out;
	} cases[] = {
	    {"a#1 #2b", "<p>a#1 <a href=\"https://second.example/2/b\">#2b</a></p>"},
	    {"(#3), '#4' \"#5\"", "<p>(<a href=\"https://github.com/zulip/zulip/issues/3\">#3</a>), '<a "
	                          "href=\"https://github.com/zulip/zulip/issues/4\">#4</a>' \"<a "
	                          "href=\"https://github.com/zulip/zulip/issues/5\">#5</a>\"</p>"},
	    {"`#6` [#7](https://x.com)", "<p><code>#6</code> <a href=\"https://x.com\">#7</a></p>"},
	    {"#8,#9", "<p><a href=\"https://github.com/zulip/zulip/issues/8\">#8</a>,<a "
	              "href=\"https://github.com/zulip/zulip/issues/9\">#9</a></p>"},
	    {"RFC 6570 rocks", "<p><a href=\"https://rfc.example/6570\">RFC 6570</a> rocks</p>"},
	    {"line\n#10", "<p>line<br>\n<a href=\"https://github.com/zulip/zulip/issues/10\">#10</a></p>"},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int64_t id = send_channel_message(o, ch, "t", cases[i].in);
		const char *got = rendered(o, id);
		CHECK(got != NULL && strcmp(got, cases[i].out) == 0, "%s: got %s, want %s", cases[i].in, got,
		      cases[i].out);
	}
}

/* RE2 runs in linear time: a pattern that backtracks catastrophically elsewhere renders long text at once. */
static void test_catastrophic_pattern(void)
{
	struct user *o = new_realm();
	const char *ch = channel_in(o);
	add_ok(o, "(a+)+$", "https://example.com/a");
	int64_t id = send_channel_message(o, ch, "t", repeat('a', 10000));
	CHECK(strcmp(rendered(o, id), fmt("<p><a href=\"https://example.com/a\">%s</a></p>", repeat('a', 10000))) == 0,
	      "10000 a's not linked");
	/* 50 KB: truncated to the message limit, after which "$" no longer follows the a's. */
	id = send_channel_message(o, ch, "t", repeat('a', 50000));
	const char *got = rendered(o, id);
	const char *tail = "aaa<br>\n[message truncated]</p>";
	CHECK(strncmp(got, "<p>aaa", 6) == 0 && strlen(got) > strlen(tail) &&
	          strcmp(got + strlen(got) - strlen(tail), tail) == 0 && strstr(got, "<a") == NULL,
	      "50 KB: ...%s", got + (strlen(got) > 60 ? strlen(got) - 60 : 0));
	int64_t m = send_channel_message(o, ch, "t", fmt("%sb", repeat('a', 9000)));
	CHECK(strcmp(rendered(o, m), fmt("<p>%sb</p>", repeat('a', 9000))) == 0, "no match");
}

/* links is exactly the n {text, url} pairs of want (text, url, text, url, ...). */
static void expect_links(json_object *links, const char *const *want, size_t n, const char *what)
{
	REQUIRE(links != NULL && json_object_array_length(links) == n, "%s: %s", what, jtext(links));
	for (size_t i = 0; i < n; i++) {
		json_object *l = json_object_array_get_idx(links, i);
		EXPECT_KEYS(l, "text", "url");
		EXPECT_STR(l, "text", want[2 * i]);
		EXPECT_STR(l, "url", want[2 * i + 1]);
	}
}

/* topic_links in GET /messages, the message event and update_message (topic edits); the first linkifier wins an
 * overlap, raw URLs come last. */
static void test_topic_links(void)
{
	struct user *o = new_realm();
	const char *ch = channel_in(o);
	add_ok(o, ISSUE_PATTERN, ISSUE_TEMPLATE);
	add_ok(o, "#(?P<id>[0-9]+)(?P<x>!)", "https://loser.example/{id}{x}");
	struct queue *q = queue_register(o, "event_types=%5B%22message%22%2C%22update_message%22%5D");
	int64_t id = send_channel_message(o, ch, "bug #77 and #8! https://x.com/a", "hi");
	static const char *const want[] = {"#77",
	                                   "https://github.com/zulip/zulip/issues/77",
	                                   "#8",
	                                   "https://github.com/zulip/zulip/issues/8",
	                                   "https://x.com/a",
	                                   "https://x.com/a"};
	json_object *e = jget(json_object_array_get_idx(queue_drain(q), 0), "message");
	expect_links(jget(e, "topic_links"), want, 3, "message event");
	struct resp *r = api_get(o, fmt("/messages/%lld", (long long)id));
	expect_links(jget(jget(r->json, "message"), "topic_links"), want, 3, "GET");
	EXPECT_SUCCESS(edit(o, id, "topic=now%20%2399"));
	json_object *ev = json_object_array_get_idx(queue_drain(q), 0);
	static const char *const moved[] = {"#99", "https://github.com/zulip/zulip/issues/99"};
	expect_links(jget(ev, "topic_links"), moved, 1, "update_message");
	int64_t dm = send_direct_message(o, fmt("[%lld]", (long long)o->id), "#1");
	r = api_get(o, fmt("/messages/%lld", (long long)dm));
	expect_links(jget(jget(r->json, "message"), "topic_links"), NULL, 0, "direct message");
}

/*
 * A linkifier whose URL has a scheme the Markdown renderer refuses (javascript:, data:) makes no link, in topic_links
 * as in the content; a later linkifier may take the text instead. The reference hands such topic links out as they
 * are; confab checks every URL it gives clients to link to.
 */
static void test_topic_links_unsafe_schemes(void)
{
	struct user *o = new_realm();
	const char *ch = channel_in(o);
	add_ok(o, "js(?P<id>[0-9]+)", "javascript:alert({id})");
	add_ok(o, "data(?P<id>[0-9]+)", "data:text/html,{id}");
	add_ok(o, "#(?P<id>[0-9]+)", "JavaScript:alert({id})");
	add_ok(o, "#(?P<n>[0-9]+)", "https://safe.example/{n}");
	struct queue *q = queue_register(o, "event_types=%5B%22message%22%2C%22update_message%22%5D");
	int64_t id = send_channel_message(o, ch, "js1 data2 #3", "js1 data2 #3");
	static const char *const want[] = {"#3", "https://safe.example/3"};
	json_object *e = jget(json_object_array_get_idx(queue_drain(q), 0), "message");
	expect_links(jget(e, "topic_links"), want, 1, "message event");
	struct resp *r = api_get(o, fmt("/messages/%lld", (long long)id));
	expect_links(jget(jget(r->json, "message"), "topic_links"), want, 1, "GET");
	EXPECT_STR(jget(r->json, "message"), "content", "<p>js1 data2 <a href=\"https://safe.example/3\">#3</a></p>");
	EXPECT_SUCCESS(edit(o, id, "topic=js4%20%235"));
	static const char *const moved[] = {"#5", "https://safe.example/5"};
	expect_links(jget(json_object_array_get_idx(queue_drain(q), 0), "topic_links"), moved, 1, "update_message");
}

void register_linkifiers_tests(void)
{
	static const struct itest_case cases[] = {
	    {"create_list_register_events", test_create_list_register_events},
	    {"administrators_only", test_administrators_only},
	    {"validation", test_validation},
	    {"reverse_templates", test_reverse_templates},
	    {"update_and_delete", test_update_and_delete},
	    {"reorder", test_reorder},
	    {"render_new_and_edited", test_render_new_and_edited},
	    {"render_rules", test_render_rules},
	    {"catastrophic_pattern", test_catastrophic_pattern},
	    {"topic_links", test_topic_links},
	    {"topic_links_unsafe_schemes", test_topic_links_unsafe_schemes},
	    {NULL, NULL},
	};
	itest_add_suite("linkifiers", cases);
}
