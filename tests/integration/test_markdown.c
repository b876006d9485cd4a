/*
 * The bounds of Markdown rendering, as a client sees them (docs/LIMITS.md, "Markdown"; the unit tests in
 * tests/unit/test_markdown.c cover each rule): a line of too many "|" makes no table.
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

void register_markdown_tests(void)
{
	static const struct itest_case cases[] = {
	    {"wide_table_rows", test_wide_table_rows},
	    {NULL, NULL},
	};
	itest_add_suite("markdown", cases);
}
