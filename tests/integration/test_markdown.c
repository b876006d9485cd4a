/*
 * The bounds of Markdown rendering, as a client sees them (docs/LIMITS.md, "Markdown"; the unit tests in
 * tests/unit/test_markdown.c cover each rule): a line of too many "|" makes no table, and a message whose
 * rendering runs out of time is refused with the reference's error (zerver/lib/markdown/__init__.py, the timeout
 * around its engine, and render_incoming_message's "Unable to render message").
 */
#include <string.h>

#include "itest.h"

#define MAX_TABLE_PIPES 128 /* MARKDOWN_MAX_TABLE_PIPES */

static const char *content_of(const struct user *u, int64_t id)
{
	struct resp *r = api_get(u, fmt("/messages/%lld", (long long)id));
	EXPECT_STATUS(r, 200);
	const char *content = jstr(jget(r->json, "message"), "content");
	return content ? content : "";
}

static struct resp *send_to(const struct user *u, const char *channel, const char *content)
{
	return api_post(u, "/messages",
	                fmt("type=stream&to=%s&topic=t&content=%s", url_encode(channel), url_encode(content)));
}

/* cmark-gfm's tables cost time quadratic in the cells of a row: a line of more than 128 "|" makes no table, and its
 * part of the message is shown as text; a message of 10,000 of them renders at once. */
static void test_wide_table_rows(void)
{
	struct user *u = new_user("member");
	char *ch = unique_channel_name("md");
	create_channel_with(u, ch, NULL);
	int64_t id = send_channel_message(u, ch, "t", fmt("a|b\n-|-\n%s", repeat('|', MAX_TABLE_PIPES)));
	CHECK(strstr(content_of(u, id), "<table>") != NULL, "no table: %.80s", content_of(u, id));
	id = send_channel_message(u, ch, "t", fmt("a|b\n-|-\n%s", repeat('|', MAX_TABLE_PIPES + 1)));
	CHECK(strstr(content_of(u, id), "<table>") == NULL, "a table: %.80s", content_of(u, id));
	id = send_channel_message(u, ch, "t", fmt("a|b\n-|-\n%s", repeat('|', 9990)));
	EXPECT_STR(jget(api_get(u, fmt("/messages/%lld", (long long)id))->json, "message"), "content",
	           fmt("<p>a|b<br>\n-|-<br>\n%s</p>", repeat('|', 9990)));
}

/*
 * Rendering has a second of CPU time (the reference: five seconds of its slower engine); past it, the send or the
 * edit is refused as the reference refuses it. 200 linkifiers that match every "x" of a message of 3,333, each
 * expanding a URL template of 995 characters (the bound is 1,000) that is then refused (javascript:), need about
 * 10 seconds.
 */
static void test_time_budget(void)
{
	struct user *o = new_realm();
	char *ch = unique_channel_name("md");
	create_channel_with(o, ch, NULL);
	const char *tmpl = url_encode(fmt("javascript:%s{id}", repeat('a', 980)));
	int64_t before = send_channel_message(o, ch, "t", "before");
	struct user *admins[4]; /* 50 linkifiers each, within the rate limit */
	for (int a = 0; a < 4; a++)
		admins[a] = new_user_in(o->realm, "admin", NULL);
	for (int i = 0; i < 200; i++) {
		const char *pattern = url_encode(fmt("(?P<id>x)|q%d", i));
		EXPECT_SUCCESS(
		    api_post(admins[i % 4], "/realm/filters", fmt("pattern=%s&url_template=%s", pattern, tmpl)));
	}
	char *slow = repeat(' ', 9999);
	for (int i = 0; i < 9999; i += 3)
		slow[i] = 'x';
	EXPECT_ERROR(send_to(o, ch, slow), 400, "BAD_REQUEST", "Unable to render message");
	EXPECT_ERROR(http(&(struct request){.method = "PATCH",
	                                    .path = fmt("/api/v1/messages/%lld", (long long)before),
	                                    .user = o,
	                                    .form = fmt("content=%s", url_encode(slow))}),
	             400, "BAD_REQUEST", "Unable to render message");
	EXPECT_STR(jget(api_get(o, fmt("/messages/%lld", (long long)before))->json, "message"), "content",
	           "<p>before</p>");
	/* The same linkifiers over a short message are quick. */
	int64_t id = send_channel_message(o, ch, "t", "x marks the spot");
	EXPECT_STR(jget(api_get(o, fmt("/messages/%lld", (long long)id))->json, "message"), "content",
	           "<p>x marks the spot</p>");
}

void register_markdown_tests(void)
{
	static const struct itest_case cases[] = {
	    {"wide_table_rows", test_wide_table_rows},
	    {"time_budget", test_time_budget},
	    {NULL, NULL},
	};
	itest_add_suite("markdown", cases);
}
