/* core/html: Django's escape(), whose output the reference's templates and messages carry. */
#include <string.h>

#include "core/arena.h"
#include "core/html.h"
#include "unit.h"

static void test_html_escape(void)
{
	struct arena a;
	arena_init(&a);
	CU_ASSERT_STRING_EQUAL(html_escape(&a, ""), "");
	CU_ASSERT_STRING_EQUAL(html_escape(&a, "plain text"), "plain text");
	CU_ASSERT_STRING_EQUAL(html_escape(&a, "<a href=\"x\">Lear's & co</a>"),
	                       "&lt;a href=&quot;x&quot;&gt;Lear&#x27;s &amp; co&lt;/a&gt;");
	CU_ASSERT_STRING_EQUAL(html_escape(&a, "''''"), "&#x27;&#x27;&#x27;&#x27;"); /* the longest expansion */
	CU_ASSERT_STRING_EQUAL(html_escape(&a, "caf\xc3\xa9"), "caf\xc3\xa9");       /* UTF-8 untouched */
	arena_free(&a);
}

int main(void)
{
	static const struct unit_test tests[] = {
	    {"escape", test_html_escape},
	    {NULL, NULL},
	};
	return unit_run("html", tests);
}
