/* url_sanitize(): the reference's sanitize_url(), the scheme check of every URL the server links to. */
#include <stddef.h>
#include <string.h>

#include "core/arena.h"
#include "core/url.h"
#include "unit.h"

static void test_url_sanitize(void)
{
	static const struct {
		const char *in, *out; /* out NULL: not a link */
	} cases[] = {
	    {"https://example.com/a b", "https://example.com/a%20b"},
	    {"HTTP://example.com", "http://example.com"},
	    {"ftp://example.com/f", "ftp://example.com/f"},
	    {"example.com/x", "http://example.com/x"},
	    {"/user_uploads/1/a.png", "/user_uploads/1/a.png"},
	    {"#narrow/channel/1", "#narrow/channel/1"},
	    {"someone@example.com", "mailto:someone@example.com"},
	    {"mailto:someone@example.com", "mailto:someone@example.com"},
	    {"tel:+123", "tel:+123"},
	    {"javascript:alert(1)", NULL},
	    {"JavaScript:alert(1)", NULL},
	    {"javascript://example.com/%0aalert(1)", NULL},
	    {"data:text/html,<script>", NULL},
	    {"vbscript:msgbox", NULL},
	    {"http:no-host", NULL},
	    {"?query", NULL},
	    {"#", NULL},
	};
	struct arena a;
	arena_init(&a);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const char *got = url_sanitize(&a, cases[i].in);
		if (cases[i].out == NULL)
			CU_ASSERT(got == NULL);
		if (cases[i].out != NULL)
			CU_ASSERT(got != NULL && strcmp(got, cases[i].out) == 0);
	}
	arena_free(&a);
}

int main(void)
{
	static const struct unit_test tests[] = {
	    {"test_url_sanitize", test_url_sanitize},
	    {NULL, NULL},
	};
	return unit_run("url", tests);
}
