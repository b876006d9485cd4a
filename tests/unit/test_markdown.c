/*
 * Markdown rendering: expected HTML is the reference's (zerver/tests/fixtures/markdown_test_cases.json and
 * zerver/tests/test_markdown.py), with the ids of the fake realm below.
 */
#include <pthread.h>
#include <stdint.h>
#include <string.h>
#include <strings.h>

#include "core/arena.h"
#include "core/budget.h"
#include "core/buf.h"
#include "core/uow.h"
#include "model/markdown.h"
#include "unit.h"

/* The fake realm: users, groups and channels the lookup knows. */
struct named {
	int64_t id;
	const char *name;
};
static const struct named users[] = {
    {10, "King Hamlet"},
    {11, "Cordelia, Lear's daughter"},
    {12, "Othello, the Moor of Venice"},
    {20, "Mark Twin"},
    {21, "Mark Twin"},
    {30, "Atomic #123"},
    {0, NULL},
};
static const struct named groups[] = {{5, "support"}, {6, "support #123"}, {0, NULL}};
static const struct named channels[] = {{1, "Denmark"}, {2, "social"}, {3, "core team"}, {4, "a>b"}, {0, NULL}};

static int lookups;

/* ctx is the counter of lookups, or NULL (the threads below share no counter). */
static void count_lookup(void *ctx)
{
	if (ctx != NULL)
		(*(int *)ctx)++;
}

static const struct named *by_name(const struct named *list, const char *name)
{
	for (; list->name != NULL; list++)
		if (strcasecmp(list->name, name) == 0)
			return list;
	return NULL;
}

static bool fake_user(void *ctx, const char *name, int64_t id, int64_t *out_id, const char **out_name)
{
	count_lookup(ctx);
	const struct named *u = NULL;
	if (id > 0) {
		for (const struct named *p = users; p->name != NULL; p++)
			if (p->id == id && (name == NULL || strcasecmp(p->name, name) == 0))
				u = p;
	} else {
		u = by_name(users, name);
	}
	if (u == NULL)
		return false;
	*out_id = u->id;
	*out_name = u->name;
	return true;
}

static bool fake_group(void *ctx, const char *name, int64_t *out_id, const char **out_name)
{
	count_lookup(ctx);
	const struct named *g = by_name(groups, name);
	if (g != NULL) {
		*out_id = g->id;
		*out_name = g->name;
	}
	return g != NULL;
}

static bool fake_channel(void *ctx, const char *name, int64_t *out_id, const char **out_name)
{
	count_lookup(ctx);
	const struct named *c = by_name(channels, name);
	if (c != NULL) {
		*out_id = c->id;
		*out_name = c->name;
	}
	return c != NULL;
}

static const struct markdown_lookup realm = {&lookups, fake_user, fake_group, fake_channel, NULL, NULL, NULL};
static const struct markdown_lookup realm_uncounted = {NULL, fake_user, fake_group, fake_channel, NULL, NULL, NULL};

static struct uow req;
static struct markdown_result res;

static const char *render(const char *content)
{
	markdown_render(&req, content, &realm, &res);
	return res.html;
}

#define EXPECT_HTML(content, html) CU_ASSERT_STRING_EQUAL(render(content), html)

static void test_markdown_paragraphs_and_breaks(void)
{
	EXPECT_HTML("", "");
	EXPECT_HTML("test_input", "<p>test_input</p>");
	EXPECT_HTML("it's lunch time", "<p>it's lunch time</p>");
	EXPECT_HTML("test\nbar", "<p>test<br>\nbar</p>");
	EXPECT_HTML("one\n\ntwo", "<p>one</p>\n<p>two</p>");
	EXPECT_HTML("& &amp; &amp;amp;", "<p>&amp; &amp; &amp;amp;</p>");
	CU_ASSERT_FALSE(res.has_link);
	CU_ASSERT_FALSE(res.is_me_message);
	CU_ASSERT_EQUAL(res.mentioned_users.n, 0);
}

static void test_markdown_escapes_raw_html(void)
{
	EXPECT_HTML("<h1>stay normal</h1> thanks", "<p>&lt;h1&gt;stay normal&lt;/h1&gt; thanks</p>");
	EXPECT_HTML("<script>alert(1)</script>", "<p>&lt;script&gt;alert(1)&lt;/script&gt;</p>");
	EXPECT_HTML("<<script>script>evil()<</script>/script>",
	            "<p>&lt;&lt;script&gt;script&gt;evil()&lt;&lt;/script&gt;/script&gt;</p>");
	EXPECT_HTML("<<x>script>evil()<</x>/script>", "<p>&lt;&lt;x&gt;script&gt;evil()&lt;&lt;/x&gt;/script&gt;</p>");
	EXPECT_HTML("<scr<script></script>ipt type=\"text/javascript\">alert(\"foo\");</<script></script>script<del>"
	            "</del>>",
	            "<p>&lt;scr&lt;script&gt;&lt;/script&gt;ipt type=\"text/javascript\"&gt;alert(\"foo\");&lt;/&lt;"
	            "script&gt;&lt;/script&gt;script&lt;del&gt;&lt;/del&gt;&gt;</p>");
	EXPECT_HTML("*<h1>Hello world</h1>*", "<p><em>&lt;h1&gt;Hello world&lt;/h1&gt;</em></p>");
	EXPECT_HTML("**<h1>Hello world</h1>**", "<p><strong>&lt;h1&gt;Hello world&lt;/h1&gt;</strong></p>");
	EXPECT_HTML("<h1>**<h1>[<h2>Static types in Python</h2>](https://blog.zulip.com/2016/10/13/"
	            "static-types-in-python-oh-mypy)</h1>**</h1>",
	            "<p>&lt;h1&gt;<strong>&lt;h1&gt;<a href=\"https://blog.zulip.com/2016/10/13/"
	            "static-types-in-python-oh-mypy\">&lt;h2&gt;Static types in Python&lt;/h2&gt;</a>&lt;/h1&gt;"
	            "</strong>&lt;/h1&gt;</p>");
	/* A block of raw HTML keeps its Markdown, mentions included. */
	EXPECT_HTML("<div>\n@**King Hamlet**</div>",
	            "<p>&lt;div&gt;<br>\n<span class=\"user-mention\" data-user-id=\"10\">@King Hamlet</span>"
	            "&lt;/div&gt;</p>");
	CU_ASSERT_EQUAL(res.mentioned_users.n, 1);
}

static void test_markdown_code_blocks(void)
{
	EXPECT_HTML(
	    "Hamlet once said\n~~~~\ndef func():\n    x = 1\n\n    y = 2\t\t\n\n    z = 3       \n~~~~\n"
	    "And all was good.",
	    "<p>Hamlet once said</p>\n<div class=\"codehilite\"><pre><span></span><code>def func():\n    x = 1\n"
	    "\n    y = 2\n\n    z = 3\n</code></pre></div>\n<p>And all was good.</p>");
	EXPECT_HTML("& &amp; &amp;amp;\n~~~~\n& &amp; &amp;amp;\n~~~~\n    & &amp; &amp;amp;",
	            "<p>&amp; &amp; &amp;amp;</p>\n<div class=\"codehilite\"><pre><span></span><code>&amp; &amp;amp; "
	            "&amp;amp;amp;\n</code></pre></div>\n<div class=\"codehilite\"><pre><span></span><code>&amp; "
	            "&amp;amp; &amp;amp;amp;\n</code></pre></div>");
	EXPECT_HTML("\n```\nfenced code\n```\n\n```inline code```\n",
	            "<div class=\"codehilite\"><pre><span></span><code>fenced code\n</code></pre></div>\n"
	            "<p><code>inline code</code></p>");
	EXPECT_HTML("    def foo(): pass", "<div class=\"codehilite\"><pre><span></span><code>def foo(): pass\n"
	                                   "</code></pre></div>");
	EXPECT_HTML("``` inventedlanguage\ndef speak(self):\n    x = 1\n```",
	            "<div class=\"codehilite\" data-code-language=\"inventedlanguage\"><pre><span></span><code>"
	            "def speak(self):\n    x = 1\n</code></pre></div>");
	EXPECT_HTML("~~~~.python \nprint(\"hi\")\n~~~~",
	            "<div class=\"codehilite\" data-code-language=\"Python\"><pre><span></span><code>"
	            "print(&quot;hi&quot;)\n</code></pre></div>");
	EXPECT_HTML("~~~\n<h1>stay normal</h1>",
	            "<div class=\"codehilite\"><pre><span></span><code>&lt;h1&gt;stay normal&lt;/h1&gt;\n"
	            "</code></pre></div>");
	EXPECT_HTML("`<&nbsp;>`", "<p><code>&lt;&amp;nbsp;&gt;</code></p>");
	EXPECT_HTML("Then he mentioned ````y = 4 + x**2```` and",
	            "<p>Then he mentioned <code>y = 4 + x**2</code> and</p>");
}

static void test_markdown_code_ignores_chat_syntax(void)
{
	EXPECT_HTML("`@**King Hamlet** #**Denmark** @*support*`",
	            "<p><code>@**King Hamlet** #**Denmark** @*support*</code></p>");
	CU_ASSERT_EQUAL(res.mentioned_users.n, 0);
	CU_ASSERT_EQUAL(res.mentioned_groups.n, 0);
	CU_ASSERT_FALSE(res.has_link);
	EXPECT_HTML("```\n@**King Hamlet** @**all**\n#**Denmark**\n```",
	            "<div class=\"codehilite\"><pre><span></span><code>@**King Hamlet** @**all**\n#**Denmark**\n"
	            "</code></pre></div>");
	CU_ASSERT_EQUAL(res.mentioned_users.n, 0);
	CU_ASSERT_FALSE(res.stream_wildcard);
	CU_ASSERT_FALSE(res.has_link);
	EXPECT_HTML("    @**King Hamlet**",
	            "<div class=\"codehilite\"><pre><span></span><code>@**King Hamlet**\n</code></pre></div>");
	CU_ASSERT_EQUAL(res.mentioned_users.n, 0);
}

static void test_markdown_user_mention(void)
{
	EXPECT_HTML("@**King Hamlet**", "<p><span class=\"user-mention\" data-user-id=\"10\">@King Hamlet</span></p>");
	CU_ASSERT_EQUAL(res.mentioned_users.n, 1);
	CU_ASSERT_EQUAL(res.mentioned_users.v[0], 10);
	EXPECT_HTML("@**|10**", "<p><span class=\"user-mention\" data-user-id=\"10\">@King Hamlet</span></p>");
	CU_ASSERT_EQUAL(res.mentioned_users.v[0], 10);
	EXPECT_HTML("@**king hamlet**", "<p><span class=\"user-mention\" data-user-id=\"10\">@King Hamlet</span></p>");
	EXPECT_HTML("@**King Hamlet** and @**Cordelia, Lear's daughter**, check this out",
	            "<p><span class=\"user-mention\" data-user-id=\"10\">@King Hamlet</span> and <span "
	            "class=\"user-mention\" data-user-id=\"11\">@Cordelia, Lear's daughter</span>, check this out</p>");
	CU_ASSERT_EQUAL(res.mentioned_users.n, 2);
	EXPECT_HTML("@**Mark Twin|20**, @**Mark Twin|21** and @**King Hamlet**, hi, @**King Hamlet**.",
	            "<p><span class=\"user-mention\" data-user-id=\"20\">@Mark Twin</span>, <span "
	            "class=\"user-mention\" data-user-id=\"21\">@Mark Twin</span> and <span class=\"user-mention\" "
	            "data-user-id=\"10\">@King Hamlet</span>, hi, <span class=\"user-mention\" data-user-id=\"10\">"
	            "@King Hamlet</span>.</p>");
	CU_ASSERT_EQUAL(res.mentioned_users.n, 3); /* distinct */
	EXPECT_HTML("@**Atomic #123**", "<p><span class=\"user-mention\" data-user-id=\"30\">@Atomic #123</span></p>");
	EXPECT_HTML("**hi @**King Hamlet** done**", "<p><strong>hi <span class=\"user-mention\" data-user-id=\"10\">"
	                                            "@King Hamlet</span> done</strong></p>");
	EXPECT_HTML("x*@**King Hamlet**", "<p>x*@<strong>King Hamlet</strong></p>"); /* "*" is no boundary */
}

/* A realm where every id from 1000 up is a user: a message may mention more users than any fixed bound. */
static bool numbered_user(void *ctx, const char *name, int64_t id, int64_t *out_id, const char **out_name)
{
	(void)ctx;
	(void)name;
	*out_id = id;
	*out_name = "Numbered";
	return id >= 1000;
}

static void test_markdown_many_mentions_all_listed(void)
{
	static const struct markdown_lookup numbered = {NULL, numbered_user, NULL, NULL, NULL, NULL, NULL};
	char content[4096] = "";
	for (int i = 69; i >= 0; i--) /* descending, each twice: the list comes out distinct and ascending */
		snprintf(content + strlen(content), sizeof(content) - strlen(content), "@**|%d** @**|%d** ", 1000 + i,
		         1000 + i);
	markdown_render(&req, content, &numbered, &res);
	CU_ASSERT_EQUAL_FATAL(res.mentioned_users.n, 70);
	for (int i = 0; i < 70; i++)
		CU_ASSERT_EQUAL(res.mentioned_users.v[i], 1000 + i);
}

static void test_markdown_unknown_mentions_stay_text(void)
{
	EXPECT_HTML("Hey @**Nonexistent User**", "<p>Hey @<strong>Nonexistent User</strong></p>");
	CU_ASSERT_EQUAL(res.mentioned_users.n, 0);
	EXPECT_HTML("@**Invalid user** and @**King Hamlet**",
	            "<p>@<strong>Invalid user</strong> and <span class=\"user-mention\" data-user-id=\"10\">"
	            "@King Hamlet</span></p>");
	CU_ASSERT_EQUAL(res.mentioned_users.n, 1);
	EXPECT_HTML("@**King Hamlet|10** and @**aaron|10**",
	            "<p><span class=\"user-mention\" data-user-id=\"10\">@King Hamlet</span> and "
	            "@<strong>aaron|10</strong></p>");
	EXPECT_HTML("@aaron test", "<p>@aaron test</p>");
	EXPECT_HTML("test @alleycat.com test", "<p>test @alleycat.com test</p>");
	CU_ASSERT_FALSE(res.stream_wildcard);
}

static void test_markdown_mention_needs_a_boundary(void)
{
	static const char *const valid[] = {"(", "{", "[", "/", "'", "\"", " ", NULL};
	static const char *const invalid[] = {".", ",", ";", ":", "#", "smush", NULL};
	char in[64], want[160];
	for (const char *const *c = valid; *c != NULL; c++) {
		snprintf(in, sizeof(in), "x%s@**King Hamlet**", *c);
		snprintf(want, sizeof(want),
		         "<p>x%s<span class=\"user-mention\" data-user-id=\"10\">@King Hamlet</span></p>", *c);
		CU_ASSERT_STRING_EQUAL(render(in), want);
	}
	EXPECT_HTML("<@**King Hamlet**",
	            "<p>&lt;<span class=\"user-mention\" data-user-id=\"10\">@King Hamlet</span></p>");
	for (const char *const *c = invalid; *c != NULL; c++) {
		snprintf(in, sizeof(in), "%s@**King Hamlet**", *c);
		snprintf(want, sizeof(want), "<p>%s@<strong>King Hamlet</strong></p>", *c);
		CU_ASSERT_STRING_EQUAL(render(in), want);
		CU_ASSERT_EQUAL(res.mentioned_users.n, 0);
	}
}

static void test_markdown_silent_mentions(void)
{
	EXPECT_HTML("@_**King Hamlet**",
	            "<p><span class=\"user-mention silent\" data-user-id=\"10\">King Hamlet</span></p>");
	CU_ASSERT_EQUAL(res.mentioned_users.n, 0);
	EXPECT_HTML("@_**Invalid user** and @_**King Hamlet**",
	            "<p>@_<strong>Invalid user</strong> and <span class=\"user-mention silent\" data-user-id=\"10\">"
	            "King Hamlet</span></p>");
	EXPECT_HTML("@_**|123456789** and @_**|10**",
	            "<p>@_<strong>|123456789</strong> and <span class=\"user-mention silent\" data-user-id=\"10\">"
	            "King Hamlet</span></p>");
	CU_ASSERT_EQUAL(res.mentioned_users.n, 0);
	EXPECT_HTML("@_**King Hamlet** @**Cordelia, Lear's daughter**",
	            "<p><span class=\"user-mention silent\" data-user-id=\"10\">King Hamlet</span> <span "
	            "class=\"user-mention\" data-user-id=\"11\">@Cordelia, Lear's daughter</span></p>");
	CU_ASSERT_EQUAL(res.mentioned_users.n, 1);
	CU_ASSERT_EQUAL(res.mentioned_users.v[0], 11);
}

static void test_markdown_wildcard_mentions(void)
{
	static const char *const channel_wildcards[] = {"all", "everyone", "channel", "stream", NULL};
	char in[64], want[192];
	for (const char *const *w = channel_wildcards; *w != NULL; w++) {
		snprintf(in, sizeof(in), "@**%s** test", *w);
		snprintf(want, sizeof(want),
		         "<p><span class=\"user-mention channel-wildcard-mention\" data-user-id=\"*\">@%s</span> "
		         "test</p>",
		         *w);
		CU_ASSERT_STRING_EQUAL(render(in), want);
		CU_ASSERT_TRUE(res.stream_wildcard);
		CU_ASSERT_FALSE(res.topic_wildcard);
		snprintf(in, sizeof(in), "@_**%s**", *w);
		snprintf(
		    want, sizeof(want),
		    "<p><span class=\"user-mention channel-wildcard-mention silent\" data-user-id=\"*\">%s</span></p>",
		    *w);
		CU_ASSERT_STRING_EQUAL(render(in), want);
		CU_ASSERT_FALSE(res.stream_wildcard);
	}
	EXPECT_HTML("@**topic** test", "<p><span class=\"topic-mention\">@topic</span> test</p>");
	CU_ASSERT_TRUE(res.topic_wildcard);
	CU_ASSERT_FALSE(res.stream_wildcard);
	EXPECT_HTML("@_**topic**", "<p><span class=\"topic-mention silent\">topic</span></p>");
	CU_ASSERT_FALSE(res.topic_wildcard);
	EXPECT_HTML("@all test", "<p>@all test</p>");
	CU_ASSERT_FALSE(res.stream_wildcard);
	CU_ASSERT_EQUAL(res.mentioned_users.n, 0);
}

static void test_markdown_mentions_in_quotes_are_silent(void)
{
	EXPECT_HTML("> @**King Hamlet** and @**Othello, the Moor of Venice**\n\n @**King Hamlet** and "
	            "@**Cordelia, Lear's daughter**",
	            "<blockquote>\n<p><span class=\"user-mention silent\" data-user-id=\"10\">King Hamlet</span> and "
	            "<span class=\"user-mention silent\" data-user-id=\"12\">Othello, the Moor of Venice</span></p>\n"
	            "</blockquote>\n<p><span class=\"user-mention\" data-user-id=\"10\">@King Hamlet</span> and "
	            "<span class=\"user-mention\" data-user-id=\"11\">@Cordelia, Lear's daughter</span></p>");
	CU_ASSERT_EQUAL(res.mentioned_users.n, 2);
	const char *quoted =
	    "<blockquote>\n<p><span class=\"user-mention silent\" data-user-id=\"10\">King Hamlet</span>"
	    "</p>\n</blockquote>";
	EXPECT_HTML("```quote\n@**King Hamlet**\n```", quoted);
	CU_ASSERT_EQUAL(res.mentioned_users.n, 0);
	EXPECT_HTML("> @_**King Hamlet**", quoted);
	EXPECT_HTML("> @**all**", "<blockquote>\n<p><span class=\"user-mention channel-wildcard-mention silent\" "
	                          "data-user-id=\"*\">all</span></p>\n</blockquote>");
	CU_ASSERT_FALSE(res.stream_wildcard);
	EXPECT_HTML("```quote\n@**topic**\n```",
	            "<blockquote>\n<p><span class=\"topic-mention silent\">topic</span></p>\n</blockquote>");
	CU_ASSERT_FALSE(res.topic_wildcard);
	EXPECT_HTML("> @*support*", "<blockquote>\n<p><span class=\"user-group-mention silent\" "
	                            "data-user-group-id=\"5\">support</span></p>\n</blockquote>");
	CU_ASSERT_EQUAL(res.mentioned_groups.n, 0);
}

static void test_markdown_group_mentions(void)
{
	EXPECT_HTML("@**King Hamlet** @*support*",
	            "<p><span class=\"user-mention\" data-user-id=\"10\">@King Hamlet</span> <span "
	            "class=\"user-group-mention\" data-user-group-id=\"5\">@support</span></p>");
	CU_ASSERT_EQUAL(res.mentioned_users.n, 1);
	CU_ASSERT_EQUAL(res.mentioned_groups.n, 1);
	CU_ASSERT_EQUAL(res.mentioned_groups.v[0], 5);
	EXPECT_HTML("@**King Hamlet** @*Invalid user group* @*support*",
	            "<p><span class=\"user-mention\" data-user-id=\"10\">@King Hamlet</span> @<em>Invalid user group"
	            "</em> <span class=\"user-group-mention\" data-user-group-id=\"5\">@support</span></p>");
	EXPECT_HTML("@*support #123*",
	            "<p><span class=\"user-group-mention\" data-user-group-id=\"6\">@support #123</span></p>");
	EXPECT_HTML("@_*support*",
	            "<p><span class=\"user-group-mention silent\" data-user-group-id=\"5\">support</span></p>");
	CU_ASSERT_EQUAL(res.mentioned_groups.n, 0);
	EXPECT_HTML("@*support* @*support* @*support #123*",
	            "<p><span class=\"user-group-mention\" data-user-group-id=\"5\">@support</span> <span "
	            "class=\"user-group-mention\" data-user-group-id=\"5\">@support</span> <span "
	            "class=\"user-group-mention\" data-user-group-id=\"6\">@support #123</span></p>");
	CU_ASSERT_EQUAL(res.mentioned_groups.n, 2);
}

static void test_markdown_channel_and_topic_links(void)
{
	EXPECT_HTML(
	    "This is #**Denmark** and #**social** stream links",
	    "<p>This is <a class=\"stream\" data-stream-id=\"1\" href=\"/#narrow/channel/1-Denmark\">#Denmark</a>"
	    " and <a class=\"stream\" data-stream-id=\"2\" href=\"/#narrow/channel/2-social\">#social</a> "
	    "stream links</p>");
	CU_ASSERT_TRUE(res.has_link);
	EXPECT_HTML("And this is a #**wrong** stream link", "<p>And this is a #<strong>wrong</strong> stream link</p>");
	CU_ASSERT_FALSE(res.has_link);
	EXPECT_HTML("This is a #**Denmark>some topic** stream_topic link",
	            "<p>This is a <a class=\"stream-topic\" data-stream-id=\"1\" "
	            "href=\"/#narrow/channel/1-Denmark/topic/some.20topic\">#Denmark &gt; some topic</a> stream_topic "
	            "link</p>");
	CU_ASSERT_TRUE(res.has_link);
	EXPECT_HTML("#**core team>v1.2 100% <b>**",
	            "<p><a class=\"stream-topic\" data-stream-id=\"3\" "
	            "href=\"/#narrow/channel/3-core-team/topic/v1.2E2.20100.25.20.3Cb.3E\">#core team &gt; v1.2 100% "
	            "&lt;b&gt;</a></p>");
	EXPECT_HTML("#**Denmark>some topic@123**",
	            "<p><a class=\"message-link\" href=\"/#narrow/channel/1-Denmark/topic/some.20topic/near/123\">"
	            "#Denmark &gt; some topic @ \xf0\x9f\x92\xac</a></p>");
	EXPECT_HTML("#**Denmark>**",
	            "<p><a class=\"stream-topic\" data-stream-id=\"1\" "
	            "href=\"/#narrow/channel/1-Denmark/topic/\">#Denmark &gt; <em>general chat</em></a></p>");
	/* No channel "a": the whole text is a channel name. */
	EXPECT_HTML("#**a>b**",
	            "<p><a class=\"stream\" data-stream-id=\"4\" href=\"/#narrow/channel/4-a.3Eb\">#a&gt;b</a></p>");
	EXPECT_HTML("#**Denmark", "<p>#**Denmark</p>");
	CU_ASSERT_FALSE(res.has_link);
}

static void test_markdown_me_message(void)
{
	EXPECT_HTML("/me takes a walk", "<p>/me takes a walk</p>");
	CU_ASSERT_TRUE(res.is_me_message);
	EXPECT_HTML("/me writes a second line\nline", "<p>/me writes a second line<br>\nline</p>");
	CU_ASSERT_TRUE(res.is_me_message);
	EXPECT_HTML("/me makes a list\n* one\n* two",
	            "<p>/me makes a list</p>\n<ul>\n<li>one</li>\n<li>two</li>\n</ul>");
	CU_ASSERT_TRUE(res.is_me_message);
	render("/meh");
	CU_ASSERT_FALSE(res.is_me_message);
	render("say /me hi");
	CU_ASSERT_FALSE(res.is_me_message);
}

static void test_markdown_links_and_images(void)
{
	EXPECT_HTML("[hello](https://github.com)", "<p><a href=\"https://github.com\">hello</a></p>");
	CU_ASSERT_TRUE(res.has_link);
	CU_ASSERT_FALSE(res.has_image);
	EXPECT_HTML("[](https://github.com)", "<p><a href=\"https://github.com\">https://github.com</a></p>");
	EXPECT_HTML("[  ](https://github.com)", "<p><a href=\"https://github.com\">https://github.com</a></p>");
	EXPECT_HTML("https://github.com", "<p><a href=\"https://github.com\">https://github.com</a></p>");
	CU_ASSERT_TRUE(res.has_link);
	EXPECT_HTML("[call me](tel:+14155551234) [or maybe not](sms:+14155551234)",
	            "<p><a href=\"tel:+14155551234\">call me</a> <a href=\"sms:+14155551234\">or maybe not</a></p>");
	EXPECT_HTML("[x](https://a.example/?q=1&r=\"2\" \"T&T\")",
	            "<p><a href=\"https://a.example/?q=1&amp;r=&quot;2&quot;\" title=\"T&amp;T\">x</a></p>");
	EXPECT_HTML("[foo](javascript:alert(1))", "<p>[foo](javascript:alert(1))</p>");
	CU_ASSERT_FALSE(res.has_link);
	EXPECT_HTML("[foo](javascript://foo.com)", "<p>[foo](javascript://foo.com)</p>");
	EXPECT_HTML("[foo](/user_uploads/1/ab/file.pdf)", "<p><a href=\"/user_uploads/1/ab/file.pdf\">foo</a></p>");
	EXPECT_HTML("[foo](example.com)", "<p><a href=\"http://example.com\">foo</a></p>");
	EXPECT_HTML("[mail](a@b.com)", "<p><a href=\"mailto:a@b.com\">mail</a></p>");
	EXPECT_HTML("a@b.com", "<p><a href=\"mailto:a@b.com\">a@b.com</a></p>");

	EXPECT_HTML("[Google link](https://www.google.com/images/srpr/logo4w.png)",
	            "<p><a href=\"https://www.google.com/images/srpr/logo4w.png\">Google link</a></p>");
	CU_ASSERT_TRUE(res.has_image);
	render("Google logo today: https://www.google.com/images/srpr/logo4w.png\nKinda boring");
	CU_ASSERT_TRUE(res.has_image);
	render("see https://example.com/a.PNG?size=2");
	CU_ASSERT_TRUE(res.has_image);
	render("https://example.com/png");
	CU_ASSERT_FALSE(res.has_image);
	/* The reference has no image syntax: "!" and a link. */
	EXPECT_HTML("![x](https://example.com/a)", "<p>!<a href=\"https://example.com/a\">x</a></p>");
	CU_ASSERT_TRUE(res.has_image);
	CU_ASSERT_TRUE(res.has_link);
	/* No previews inside quotes. */
	render("> https://example.com/a.png");
	CU_ASSERT_TRUE(res.has_link);
	CU_ASSERT_FALSE(res.has_image);
	EXPECT_HTML("~~test http://xx.xx link~~",
	            "<p><del>test <a href=\"http://xx.xx\">http://xx.xx</a> link</del></p>");
}

static void test_markdown_emphasis_and_strikethrough(void)
{
	EXPECT_HTML("*foo*", "<p><em>foo</em></p>");
	EXPECT_HTML("**foo**", "<p><strong>foo</strong></p>");
	EXPECT_HTML("A *foo bar* is a *baz quux*", "<p>A <em>foo bar</em> is a <em>baz quux</em></p>");
	EXPECT_HTML("***foo***", "<p><strong><em>foo</em></strong></p>");
	EXPECT_HTML("***foo** bar*", "<p><em><strong>foo</strong> bar</em></p>");
	EXPECT_HTML("const char *x = (char *)y", "<p>const char *x = (char *)y</p>");
	/* No "_" emphasis in the reference. */
	EXPECT_HTML("_foo_", "<p>_foo_</p>");
	EXPECT_HTML("__foo__", "<p>__foo__</p>");
	EXPECT_HTML("see __init__.py and *this*", "<p>see __init__.py and <em>this</em></p>");
	EXPECT_HTML("* a _b_\n  and __c__ *d*\n lazy _e_",
	            "<ul>\n<li>a _b_<br>\nand __c__ <em>d</em><br>\nlazy _e_</li>\n</ul>");
	EXPECT_HTML("> x\n> _y_ **z**", "<blockquote>\n<p>x<br>\n_y_ <strong>z</strong></p>\n</blockquote>");
	EXPECT_HTML("I like ~~software~~ hardware", "<p>I like <del>software</del> hardware</p>");
	EXPECT_HTML("I ~~like software~~ love hardware", "<p>I <del>like software</del> love hardware</p>");
	EXPECT_HTML("a ~b~ c", "<p>a ~b~ c</p>");
}

static void test_markdown_blocks(void)
{
	EXPECT_HTML("# Hello world", "<h1>Hello world</h1>");
	EXPECT_HTML("#Hello world", "<p>#Hello world</p>");
	EXPECT_HTML("###### Hello world", "<h6>Hello world</h6>");
	EXPECT_HTML("####### Hello world", "<p>####### Hello world</p>");
	EXPECT_HTML("Some text with a list:\n\n* One item\n* Two items\n* Three items",
	            "<p>Some text with a list:</p>\n<ul>\n<li>One item</li>\n<li>Two items</li>\n<li>Three items</li>\n"
	            "</ul>");
	EXPECT_HTML("Plain list\n\n* Alpha\n\n* Beta\n\nThen hang it off:\n* Ypsilon\n* Zeta",
	            "<p>Plain list</p>\n<ul>\n<li>\n<p>Alpha</p>\n</li>\n<li>\n<p>Beta</p>\n</li>\n</ul>\n<p>Then hang "
	            "it off:</p>\n<ul>\n<li>Ypsilon</li>\n<li>Zeta</li>\n</ul>");
	EXPECT_HTML("Nested list\n* I am outer list\n  * I am inner nested list first item\n  * I am inner nested list "
	            "second item",
	            "<p>Nested list</p>\n<ul>\n<li>I am outer list<ul>\n<li>I am inner nested list first item</li>\n"
	            "<li>I am inner nested list second item</li>\n</ul>\n</li>\n</ul>");
	EXPECT_HTML("3. A\n3. B\n3. C\n3. D",
	            "<ol start=\"3\">\n<li>A</li>\n<li>B</li>\n<li>C</li>\n<li>D</li>\n</ol>");
	EXPECT_HTML("> Hello World!\n\n> Hello Universe!",
	            "<blockquote>\n<p>Hello World!</p>\n</blockquote>\n<blockquote>\n<p>Hello Universe!</p>\n"
	            "</blockquote>");
	EXPECT_HTML(">", "<p>&gt;</p>");
	EXPECT_HTML(">>>>>", "<blockquote>\n<blockquote>\n<blockquote>\n<blockquote>\n<p>&gt;</p>\n</blockquote>\n"
	                     "</blockquote>\n</blockquote>\n</blockquote>");
	EXPECT_HTML("Hamlet said:\n~~~ quote\nTo be or **not** to be.\n\nThat is the question\n~~~",
	            "<p>Hamlet said:</p>\n<blockquote>\n<p>To be or <strong>not</strong> to be.</p>\n<p>That is the "
	            "question</p>\n</blockquote>");
	EXPECT_HTML("```quote\nText in\nmultiple lines.\n```\n\n> Text in a single line.",
	            "<blockquote>\n<p>Text in<br>\nmultiple lines.</p>\n</blockquote>\n<blockquote>\n<p>Text in a "
	            "single line.</p>\n</blockquote>");
	EXPECT_HTML("```quote\n# line 1\n#line 2\n```", "<blockquote>\n<h1>line 1</h1>\n<p>#line 2</p>\n</blockquote>");
	EXPECT_HTML("```spoiler header\ncontent\n```\noutside spoiler\n",
	            "<div class=\"spoiler-block\"><div class=\"spoiler-header\">\n<p>header</p>\n</div><div "
	            "class=\"spoiler-content\" aria-hidden=\"true\">\n<p>content</p>\n</div></div>\n<p>outside "
	            "spoiler</p>");
	EXPECT_HTML("```spoiler\ncontent\n```\noutside spoiler\n",
	            "<div class=\"spoiler-block\"><div class=\"spoiler-header\">\n</div><div class=\"spoiler-content\" "
	            "aria-hidden=\"true\">\n<p>content</p>\n</div></div>\n<p>outside spoiler</p>");
	EXPECT_HTML("a\n\n---\n\nb", "<p>a</p>\n<hr>\n<p>b</p>");
}

static void test_markdown_tables(void)
{
	EXPECT_HTML("This is a table:\n\nFirst header  | Second header\n------------- | -------------\nContent cell  | "
	            "Content cell\nContent cell  | Content cell\n",
	            "<p>This is a table:</p>\n<table>\n<thead>\n<tr>\n<th>First header</th>\n<th>Second header</th>\n"
	            "</tr>\n</thead>\n<tbody>\n<tr>\n<td>Content cell</td>\n<td>Content cell</td>\n</tr>\n<tr>\n"
	            "<td>Content cell</td>\n<td>Content cell</td>\n</tr>\n</tbody>\n</table>");
	EXPECT_HTML(
	    "| a | b |\n|:-|-:|\n| @**King Hamlet** | `x` |",
	    "<table>\n<thead>\n<tr>\n<th style=\"text-align: left;\">a</th>\n<th style=\"text-align: right;\">"
	    "b</th>\n</tr>\n</thead>\n<tbody>\n<tr>\n<td style=\"text-align: left;\"><span class=\"user-mention\""
	    " data-user-id=\"10\">@King Hamlet</span></td>\n<td style=\"text-align: right;\"><code>x</code>"
	    "</td>\n</tr>\n</tbody>\n</table>");
	CU_ASSERT_EQUAL(res.mentioned_users.n, 1);
}

/* The reference's dialect where it differs from CommonMark. */

static void test_markdown_code_spans_keep_spaces(void)
{
	EXPECT_HTML("say ` hi ` twice", "<p>say <code> hi </code> twice</p>");
	EXPECT_HTML("``  two  `` and `` ` ``", "<p><code>  two  </code> and <code> ` </code></p>");
	EXPECT_HTML("` left` `right ` `   `", "<p><code> left</code> <code>right </code> <code>   </code></p>");
	EXPECT_HTML("* item ` x `", "<ul>\n<li>item <code> x </code></li>\n</ul>");
	EXPECT_HTML("> ` q `", "<blockquote>\n<p><code> q </code></p>\n</blockquote>");
	EXPECT_HTML("# ` h ` _x_", "<h1><code> h </code> _x_</h1>");
}

static void test_markdown_reference_definitions_are_text(void)
{
	EXPECT_HTML("See [docs]\n\n[docs]: https://example.org/x",
	            "<p>See [docs]</p>\n<p>[docs]: <a href=\"https://example.org/x\">https://example.org/x</a></p>");
	EXPECT_HTML("[a][b] and [b][]\n\n[b]: https://example.org",
	            "<p>[a][b] and [b][]</p>\n<p>[b]: <a href=\"https://example.org\">https://example.org</a></p>");
	EXPECT_HTML("> [q]: https://example.org\n> [q]",
	            "<blockquote>\n<p>[q]: <a href=\"https://example.org\">https://example.org</a><br>\n[q]</p>\n"
	            "</blockquote>");
	/* Inline links are still links. */
	EXPECT_HTML("[x](https://example.org): y", "<p><a href=\"https://example.org\">x</a>: y</p>");
}

static void test_markdown_lists_nest_by_two_spaces(void)
{
	EXPECT_HTML("* fruit\n  * apple\n    * red\n  * pear\n* bread",
	            "<ul>\n<li>fruit<ul>\n<li>apple<ul>\n<li>red</li>\n</ul>\n</li>\n<li>pear</li>\n</ul>\n</li>\n"
	            "<li>bread</li>\n</ul>");
	EXPECT_HTML("1. one\n  1. one.one\n2. two",
	            "<ol>\n<li>one<ol>\n<li>one.one</li>\n</ol>\n</li>\n<li>two</li>\n</ol>");
	/* A paragraph after a blank line, indented by two spaces per level, continues that level's item. */
	EXPECT_HTML("* a\n  * b\n\n    more of b\n\n  more of a",
	            "<ul>\n<li>\n<p>a</p>\n<ul>\n<li>\n<p>b</p>\n<p>more of b</p>\n</li>\n</ul>\n<p>more of a</p>\n"
	            "</li>\n</ul>");
	/* Four spaces beyond the level's make code in the item. */
	EXPECT_HTML("* a\n\n      code",
	            "<ul>\n<li>\n<p>a</p>\n<div class=\"codehilite\"><pre><span></span><code>code\n</code></pre></div>\n"
	            "</li>\n</ul>");
	/* Without a list, four spaces are still code. */
	EXPECT_HTML(
	    "text:\n\n    * not a list",
	    "<p>text:</p>\n<div class=\"codehilite\"><pre><span></span><code>* not a list\n</code></pre></div>");
}

static void test_markdown_nested_ordered_list_starts_at_its_number(void)
{
	EXPECT_HTML("1. first\n  4. fourth\n  5. fifth\n2. second",
	            "<ol>\n<li>first<ol start=\"4\">\n<li>fourth</li>\n<li>fifth</li>\n</ol>\n</li>\n<li>second</li>\n"
	            "</ol>");
	EXPECT_HTML("7. x\n8. y\n  2. z\n    9. w",
	            "<ol start=\"7\">\n<li>x</li>\n<li>y<ol start=\"2\">\n<li>z<ol start=\"9\">\n<li>w</li>\n</ol>\n"
	            "</li>\n</ol>\n</li>\n</ol>");
	/* "1)" is not a list marker in the reference. */
	EXPECT_HTML("1) not a list", "<p>1) not a list</p>");
}

static void test_markdown_bullets_form_one_list(void)
{
	EXPECT_HTML("- red\n* green\n+ blue", "<ul>\n<li>red</li>\n<li>green</li>\n<li>blue</li>\n</ul>");
	EXPECT_HTML("* a\n  - b\n  + c", "<ul>\n<li>a<ul>\n<li>b</li>\n<li>c</li>\n</ul>\n</li>\n</ul>");
	/* A list may follow a paragraph line directly, even one not starting at 1. */
	EXPECT_HTML("Steps:\n3. three\n4. four",
	            "<p>Steps:</p>\n<ol start=\"3\">\n<li>three</li>\n<li>four</li>\n</ol>");
	/* Bullets then numbers are two lists. */
	EXPECT_HTML("* a\n1. b", "<ul>\n<li>a</li>\n</ul>\n<ol>\n<li>b</li>\n</ol>");
}

static void test_markdown_fences_as_the_reference_reads_them(void)
{
	const char *code_x = "<div class=\"codehilite\"><pre><span></span><code>x\n</code></pre></div>";
	/* Text after the language is a header (used by spoilers): still a fence. */
	EXPECT_HTML(
	    "```text more words\nx\n```",
	    "<div class=\"codehilite\" data-code-language=\"Text only\"><pre><span></span><code>x\n</code></pre>"
	    "</div>");
	EXPECT_HTML("```{.MyLang}\nx\n```", "<div class=\"codehilite\" data-code-language=\"mylang\"><pre><span></span>"
	                                     "<code>x\n</code></pre></div>");
	/* Not fences: text that does not start like a language, or holding ` or ~. */
	EXPECT_HTML("``` (x)\ny", "<p>``` (x)<br>\ny</p>");
	EXPECT_HTML("~~~ a ~~~\ny", "<p>~~~ a ~~~<br>\ny</p>");
	EXPECT_HTML("~~~py x`y\nz", "<p>~~~py x`y<br>\nz</p>");
	/* Indented fences are no fences. */
	EXPECT_HTML(" ```\n x\n ```", "<p>```<br>\nx<br>\n```</p>");
	/* Only the same fence closes; a longer one is content. An unclosed fence runs to the end. */
	EXPECT_HTML("~~~\nx\n~~~~\n~~~\nafter",
	            "<div class=\"codehilite\"><pre><span></span><code>x\n~~~~\n</code></pre></div>\n<p>after</p>");
	EXPECT_HTML("````\nx", code_x);
	EXPECT_HTML("```\n```\nafter", "<p>after</p>"); /* an empty block shows nothing */
	/* A fence interrupts a paragraph or a list. */
	EXPECT_HTML("a\n```\nx\n```\nb", "<p>a</p>\n<div class=\"codehilite\"><pre><span></span><code>x\n</code></pre>"
	                                 "</div>\n<p>b</p>");
	/* In a quote, the innermost open block takes each line. */
	EXPECT_HTML(
	    "```quote\nq\n~~~\n```\n~~~\n```\nafter",
	    "<blockquote>\n<p>q</p>\n<div class=\"codehilite\"><pre><span></span><code>```\n</code></pre></div>\n"
	    "</blockquote>\n<p>after</p>");
	EXPECT_HTML("~~~quote\none\n~~~quote\ntwo\n~~~\nthree\n~~~",
	            "<blockquote>\n<p>one</p>\n<blockquote>\n<p>two</p>\n</blockquote>\n<p>three</p>\n</blockquote>");
}

static void test_markdown_quote_takes_its_paragraph(void)
{
	EXPECT_HTML("> first\nsecond", "<blockquote>\n<p>first<br>\nsecond</p>\n</blockquote>");
	EXPECT_HTML(">\n>\nlater", "<blockquote>\n<p>later</p>\n</blockquote>");
	EXPECT_HTML("> ## title\nbody", "<blockquote>\n<h2>title</h2>\n<p>body</p>\n</blockquote>");
	EXPECT_HTML("before\n> q\nlazy\n\nafter",
	            "<p>before</p>\n<blockquote>\n<p>q<br>\nlazy</p>\n</blockquote>\n<p>after</p>");
	/* Mentions in lines the quote takes are silent too. */
	EXPECT_HTML(
	    "> hi\n@**King Hamlet**",
	    "<blockquote>\n<p>hi<br>\n<span class=\"user-mention silent\" data-user-id=\"10\">King Hamlet</span>"
	    "</p>\n</blockquote>");
	CU_ASSERT_EQUAL(res.mentioned_users.n, 0);
	/* A heading or a list item ends it. */
	EXPECT_HTML("> q\n# h", "<blockquote>\n<p>q</p>\n</blockquote>\n<h1>h</h1>");
	EXPECT_HTML("> q\n* i", "<blockquote>\n<p>q</p>\n</blockquote>\n<ul>\n<li>i</li>\n</ul>");
}

static void test_markdown_no_setext_headings_or_multiline_emphasis(void)
{
	EXPECT_HTML("Big\n===", "<p>Big<br>\n===</p>");
	EXPECT_HTML("Rule\n---\nafter", "<p>Rule</p>\n<hr>\n<p>after</p>");
	EXPECT_HTML("a **b\nc** d", "<p>a **b<br>\nc** d</p>");
	EXPECT_HTML("*e\nf* ***g\nh*** **ok**", "<p>*e<br>\nf* ***g<br>\nh*** <strong>ok</strong></p>");
}

static void test_markdown_emoji(void)
{
	const char *octopus = "<span aria-label=\"octopus\" class=\"emoji emoji-1f419\" role=\"img\" title=\"octopus\">"
	                      ":octopus:</span>";
	char want[512];
	snprintf(want, sizeof(want), "<p>an %s here</p>", octopus);
	EXPECT_HTML("an :octopus: here", want);
	snprintf(want, sizeof(want), "<p>x%s%sy</p>", octopus, octopus);
	EXPECT_HTML("x:octopus::octopus:y", want);
	snprintf(want, sizeof(want), "<p><strong>%s</strong> <a href=\"https://example.org\">%s</a></p>", octopus,
	         octopus);
	EXPECT_HTML("**:octopus:** [:octopus:](https://example.org)", want);
	snprintf(want, sizeof(want), "<h1>%s</h1>", octopus);
	EXPECT_HTML("# :octopus:", want);
	EXPECT_HTML(":zulip:", "<p><img alt=\":zulip:\" class=\"emoji\" "
	                       "src=\"/static/generated/emoji/images/emoji/unicode/zulip.png\" title=\"zulip\"></p>");
	/* Names with "_" show spaces in the title and label. */
	render(":octopus: :hot_pepper:");
	CU_ASSERT_PTR_NOT_NULL(strstr(res.html, "aria-label=\"hot pepper\" class=\"emoji emoji-1f336\" role=\"img\" "
	                                        "title=\"hot pepper\">:hot_pepper:</span>"));
	/* Not emoji: unknown names, code, and the rest of a name the reference already passed. */
	EXPECT_HTML(":no_such_emoji_here: :octo pus: `:octopus:`",
	            "<p>:no_such_emoji_here: :octo pus: <code>:octopus:</code></p>");
	EXPECT_HTML("a:no_such_one:octopus:", "<p>a:no_such_one:octopus:</p>"); /* (:nope: is an emoji, 1f645) */
	EXPECT_HTML("```\n:octopus:\n```",
	            "<div class=\"codehilite\"><pre><span></span><code>:octopus:\n</code></pre></div>");
}

static bool fake_custom_emoji(void *ctx, const char *name, const char **out_url)
{
	count_lookup(ctx);
	if (strcmp(name, "party_parrot") == 0)
		*out_url = "/user_avatars/2/emoji/images/1a2b.gif";
	else if (strcmp(name, "octopus") == 0)
		*out_url = "/user_avatars/2/emoji/images/\"x\".png";
	else
		return false;
	return true;
}

/* The organization's custom emoji come before the Unicode names, each name looked up once, as an <img>. */
static void test_markdown_custom_emoji(void)
{
	struct markdown_lookup custom = {&lookups, fake_user, fake_group, fake_channel, fake_custom_emoji, NULL, NULL};
	lookups = 0;
	markdown_render(&req, ":party_parrot: and :party_parrot: :hot_pepper: `:x:`", &custom, &res);
	CU_ASSERT_STRING_EQUAL(res.html, "<p><img alt=\":party_parrot:\" class=\"emoji\" "
	                                 "src=\"/user_avatars/2/emoji/images/1a2b.gif\" title=\"party parrot\"> and "
	                                 "<img alt=\":party_parrot:\" class=\"emoji\" "
	                                 "src=\"/user_avatars/2/emoji/images/1a2b.gif\" title=\"party parrot\"> "
	                                 "<span aria-label=\"hot pepper\" class=\"emoji emoji-1f336\" role=\"img\" "
	                                 "title=\"hot pepper\">:hot_pepper:</span> <code>:x:</code></p>");
	CU_ASSERT_EQUAL(lookups, 3); /* party_parrot, hot_pepper, x */
	markdown_render(&req, ":octopus:", &custom, &res);
	CU_ASSERT_STRING_EQUAL(res.html, "<p><img alt=\":octopus:\" class=\"emoji\" "
	                                 "src=\"/user_avatars/2/emoji/images/&quot;x&quot;.png\" title=\"octopus\"></p>");
}

static void test_markdown_whitespace_is_normalized(void)
{
	EXPECT_HTML("one\r\ntwo\rthree", "<p>one<br>\ntwo<br>\nthree</p>");
	EXPECT_HTML("```\n\tx\ty\n```",
	            "<div class=\"codehilite\"><pre><span></span><code>    x   y\n</code></pre></div>");
	EXPECT_HTML("* a\n\t* b", "<ul>\n<li>a<ul>\n<li>b</li>\n</ul>\n</li>\n</ul>");
	EXPECT_HTML("```\nbad \xff byte\n```",
	            "<div class=\"codehilite\"><pre><span></span><code>bad \xef\xbf\xbd byte\n</code></pre></div>");
}

static void test_markdown_looks_up_each_name_once(void)
{
	lookups = 0;
	render("@**King Hamlet** @_**King Hamlet** @**King Hamlet** #**Denmark** #**Denmark>x** @*support* @*support*");
	CU_ASSERT_EQUAL(lookups, 4); /* King Hamlet, Denmark, Denmark>x (a channel could be named so), support */
	lookups = 0;
	render("plain text, no chat syntax: a@b.com #1 @x");
	CU_ASSERT_EQUAL(lookups, 0);
	/* Without lookups nothing resolves, but wildcards still do. */
	struct markdown_lookup none = {0};
	markdown_render(&req, "@**King Hamlet** @**all** #**Denmark**", &none, &res);
	CU_ASSERT_STRING_EQUAL(res.html, "<p>@<strong>King Hamlet</strong> <span class=\"user-mention "
	                                 "channel-wildcard-mention\" data-user-id=\"*\">@all</span> "
	                                 "#<strong>Denmark</strong></p>");
	markdown_render(&req, NULL, NULL, &res);
	CU_ASSERT_STRING_EQUAL(res.html, "");
}

/* Renders concurrently, without a lock: cmark's parser has process-wide state (markdown.c, "Thread safety"), which
 * must stay unchanged by parses. */
static const char *const thread_input = "~~gone~~ @**King Hamlet** and www.example.com #**Denmark**";
static const char *const thread_output =
    "<p><del>gone</del> <span class=\"user-mention\" data-user-id=\"10\">@King Hamlet</span> and <a "
    "href=\"http://www.example.com\">www.example.com</a> <a class=\"stream\" data-stream-id=\"1\" "
    "href=\"/#narrow/channel/1-Denmark\">#Denmark</a></p>";

static void *render_many(void *arg)
{
	int *failures = arg;
	struct uow r;
	uow_init(&r, NULL, 2);
	for (int i = 0; i < 2000; i++) {
		struct markdown_result out;
		markdown_render(&r, thread_input, &realm_uncounted, &out);
		*failures += strcmp(out.html, thread_output) != 0;
		arena_reset(&r.arena);
	}
	uow_finish(&r);
	return NULL;
}

static void test_markdown_threads(void)
{
	CU_ASSERT_TRUE(markdown_is_lock_free());
	pthread_t threads[4];
	int failures[4] = {0};
	for (int i = 0; i < 4; i++)
		pthread_create(&threads[i], NULL, render_many, &failures[i]);
	for (int i = 0; i < 4; i++)
		pthread_join(threads[i], NULL);
	for (int i = 0; i < 4; i++)
		CU_ASSERT_EQUAL(failures[i], 0);
}

/* The linkify hook: called once per run of adjacent text outside code and links, with the characters the
 * reference's inline processor sees around it; its links are written as <a href>. */
static char contexts[256];

static int fake_linkify(void *ctx, const char *text, size_t len, char before, char after, struct budget *budget,
                        struct markdown_link **out)
{
	(void)ctx;
	(void)budget;
	size_t n = strlen(contexts);
	snprintf(contexts + n, sizeof(contexts) - n, "[%c%.*s%c]", before ? (before == '\n' ? 'n' : 'x') : '^',
	         (int)len, text, after ? (after == '\n' ? 'n' : 'x') : '$');
	const char *hit = memmem(text, len, "#1", 2);
	if (hit == NULL)
		return 0;
	static struct markdown_link link;
	link = (struct markdown_link){(size_t)(hit - text), (size_t)(hit - text) + 2, "https://x.com/1?a&b"};
	*out = &link;
	return 1;
}

static const char *linkified(const char *content)
{
	static const struct markdown_lookup with_linkify = {.linkify = fake_linkify};
	contexts[0] = '\0';
	markdown_render(&req, content, &with_linkify, &res);
	return res.html;
}

static void test_markdown_linkify_runs(void)
{
	CU_ASSERT_STRING_EQUAL(linkified("see #1 <b>"),
	                       "<p>see <a href=\"https://x.com/1?a&amp;b\">#1</a> &lt;b&gt;</p>");
	CU_ASSERT_STRING_EQUAL(contexts, "[^see #1 x]"); /* raw HTML is an inline of its own */
	CU_ASSERT_TRUE(res.has_link);
	CU_ASSERT_STRING_EQUAL(linkified("a\n#1"), "<p>a<br>\n<a href=\"https://x.com/1?a&amp;b\">#1</a></p>");
	CU_ASSERT_STRING_EQUAL(contexts, "[^an][n#1$]");
	CU_ASSERT_STRING_EQUAL(linkified("`#1` x **y** z"), "<p><code>#1</code> x <strong>y</strong> z</p>");
	CU_ASSERT_STRING_EQUAL(contexts, "[x x x][xyx][x z$]");
	CU_ASSERT_STRING_EQUAL(
	    linkified("[#1](https://y.com) and www.z.com"),
	    "<p><a href=\"https://y.com\">#1</a> and <a href=\"http://www.z.com\">www.z.com</a></p>");
	CU_ASSERT_STRING_EQUAL(contexts, "[x and x]");
}

/* A table row of n cells ("|" between them), after a table's header of two columns: an arena string. */
static const char *table_with_row_of(int pipes)
{
	char *s = arena_alloc(&req.arena, (size_t)pipes + 16);
	memcpy(s, "a|b\n-|-\n", 8);
	memset(s + 8, '|', (size_t)pipes);
	s[8 + pipes] = '\0';
	return s;
}

/* cmark-gfm's table extension spends time quadratic in the cells of a row: a part of a message with a line of more
 * than MARKDOWN_MAX_TABLE_PIPES "|" is rendered without tables (its pipes as text), so the cost stays linear. */
static void test_markdown_wide_rows_are_not_tables(void)
{
	render(table_with_row_of(MARKDOWN_MAX_TABLE_PIPES));
	CU_ASSERT_PTR_NOT_NULL(strstr(res.html, "<table>"));
	render(table_with_row_of(MARKDOWN_MAX_TABLE_PIPES + 1));
	CU_ASSERT_PTR_NULL(strstr(res.html, "<table>"));
	render(table_with_row_of(10000));
	CU_ASSERT_PTR_NULL(strstr(res.html, "<table>"));
	CU_ASSERT_EQUAL(strlen(res.html), strlen("<p>a|b<br>\n-|-<br>\n</p>") + 10000);
	/* Only the part holding the line: a table after a fenced block is one still. */
	char *s = arena_printf(&req.arena, "%s\n```\ncode\n```\nc|d\n-|-\n", table_with_row_of(10000));
	render(s);
	CU_ASSERT_PTR_NOT_NULL(strstr(res.html, "<table>"));
}

/* A linkifier that spends 20 ms of its thread's CPU time on every run of text, and stops when the budget is out. */
static int linkify_calls;

static int slow_linkify(void *ctx, const char *text, size_t len, char before, char after, struct budget *budget,
                        struct markdown_link **out)
{
	(void)ctx, (void)text, (void)len, (void)before, (void)after, (void)out;
	linkify_calls++;
	struct budget spin;
	budget_start(&spin, 20);
	while (!budget_check(&spin))
		if (budget_check(budget))
			return -1;
	return 0;
}

/* Rendering has MARKDOWN_BUDGET_MS of CPU time: past it, it stops and fails, as the reference's timeout does. */
static void test_markdown_time_budget(void)
{
	static const struct markdown_lookup slow = {.linkify = slow_linkify};
	struct buf content;
	buf_init(&content, 0);
	int runs = 5 * MARKDOWN_BUDGET_MS / 20; /* five times the budget */
	for (int i = 0; i < runs; i++)
		buf_adds(&content, "text\n\n");
	linkify_calls = 0;
	CU_ASSERT_EQUAL(markdown_render(&req, buf_str(&content), &slow, &res), -1);
	CU_ASSERT_STRING_EQUAL(res.html, "");
	CU_ASSERT_TRUE(linkify_calls < runs / 2); /* it stopped soon after its budget */
	buf_release(&content);
	CU_ASSERT_EQUAL(markdown_render(&req, "text\n\ntext", &slow, &res), 0);
	CU_ASSERT_STRING_EQUAL(res.html, "<p>text</p>\n<p>text</p>");
}

static bool long_custom_emoji(void *ctx, const char *name, const char **out_url)
{
	(void)ctx, (void)name;
	static char url[1001];
	memset(url, 'x', 1000);
	url[0] = '/';
	*out_url = url;
	return true;
}

/* HTML of more than MARKDOWN_MAX_HTML_CHARS characters (the reference's MAX_MESSAGE_LENGTH * 100) fails. */
static void test_markdown_html_is_bounded(void)
{
	struct markdown_lookup custom = {.custom_emoji = long_custom_emoji};
	struct buf content;
	buf_init(&content, 0);
	for (int i = 0; i < 500; i++) /* 500 images of about 1,060 characters each */
		buf_adds(&content, ":x: ");
	CU_ASSERT_EQUAL(markdown_render(&req, buf_str(&content), &custom, &res), 0);
	CU_ASSERT_TRUE(strlen(res.html) > MARKDOWN_MAX_HTML_CHARS / 2);
	for (int i = 0; i < 500; i++)
		buf_adds(&content, ":x: ");
	CU_ASSERT_EQUAL(markdown_render(&req, buf_str(&content), &custom, &res), -1);
	CU_ASSERT_STRING_EQUAL(res.html, "");
	buf_release(&content);
}

int main(void)
{
	static const struct unit_test tests[] = {
	    {"test_markdown_paragraphs_and_breaks", test_markdown_paragraphs_and_breaks},
	    {"test_markdown_linkify_runs", test_markdown_linkify_runs},
	    {"test_markdown_escapes_raw_html", test_markdown_escapes_raw_html},
	    {"test_markdown_code_blocks", test_markdown_code_blocks},
	    {"test_markdown_code_ignores_chat_syntax", test_markdown_code_ignores_chat_syntax},
	    {"test_markdown_user_mention", test_markdown_user_mention},
	    {"test_markdown_many_mentions_all_listed", test_markdown_many_mentions_all_listed},
	    {"test_markdown_unknown_mentions_stay_text", test_markdown_unknown_mentions_stay_text},
	    {"test_markdown_mention_needs_a_boundary", test_markdown_mention_needs_a_boundary},
	    {"test_markdown_silent_mentions", test_markdown_silent_mentions},
	    {"test_markdown_wildcard_mentions", test_markdown_wildcard_mentions},
	    {"test_markdown_mentions_in_quotes_are_silent", test_markdown_mentions_in_quotes_are_silent},
	    {"test_markdown_group_mentions", test_markdown_group_mentions},
	    {"test_markdown_channel_and_topic_links", test_markdown_channel_and_topic_links},
	    {"test_markdown_me_message", test_markdown_me_message},
	    {"test_markdown_links_and_images", test_markdown_links_and_images},
	    {"test_markdown_emphasis_and_strikethrough", test_markdown_emphasis_and_strikethrough},
	    {"test_markdown_blocks", test_markdown_blocks},
	    {"test_markdown_tables", test_markdown_tables},
	    {"test_markdown_code_spans_keep_spaces", test_markdown_code_spans_keep_spaces},
	    {"test_markdown_reference_definitions_are_text", test_markdown_reference_definitions_are_text},
	    {"test_markdown_lists_nest_by_two_spaces", test_markdown_lists_nest_by_two_spaces},
	    {"test_markdown_nested_ordered_list_starts_at_its_number",
	     test_markdown_nested_ordered_list_starts_at_its_number},
	    {"test_markdown_bullets_form_one_list", test_markdown_bullets_form_one_list},
	    {"test_markdown_fences_as_the_reference_reads_them", test_markdown_fences_as_the_reference_reads_them},
	    {"test_markdown_quote_takes_its_paragraph", test_markdown_quote_takes_its_paragraph},
	    {"test_markdown_no_setext_headings_or_multiline_emphasis",
	     test_markdown_no_setext_headings_or_multiline_emphasis},
	    {"test_markdown_emoji", test_markdown_emoji},
	    {"test_markdown_custom_emoji", test_markdown_custom_emoji},
	    {"test_markdown_whitespace_is_normalized", test_markdown_whitespace_is_normalized},
	    {"test_markdown_looks_up_each_name_once", test_markdown_looks_up_each_name_once},
	    {"test_markdown_threads", test_markdown_threads},
	    {"test_markdown_wide_rows_are_not_tables", test_markdown_wide_rows_are_not_tables},
	    {"test_markdown_time_budget", test_markdown_time_budget},
	    {"test_markdown_html_is_bounded", test_markdown_html_is_bounded},
	    {NULL, NULL},
	};
	uow_init(&req, NULL, 1);
	int rc = unit_run("markdown", tests);
	uow_finish(&req);
	return rc;
}
