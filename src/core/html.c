/* Escaping text for HTML; see html.h. */
#include "core/html.h"

#include <string.h>

char *html_escape(struct arena *a, const char *s)
{
	char *out = arena_alloc(a, 6 * strlen(s) + 1), *p = out;
	for (; *s; s++) {
		switch (*s) {
		case '&': p = stpcpy(p, "&amp;"); break;
		case '<': p = stpcpy(p, "&lt;"); break;
		case '>': p = stpcpy(p, "&gt;"); break;
		case '"': p = stpcpy(p, "&quot;"); break;
		case '\'': p = stpcpy(p, "&#x27;"); break;
		default: *p++ = *s;
		}
	}
	*p = '\0';
	return out;
}
