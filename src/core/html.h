/* Text made safe to put in HTML, as Django's escape() makes it (the reference's templates and messages). */
#ifndef CONFAB_HTML_H
#define CONFAB_HTML_H

#include "core/arena.h"

/* s with &, <, >, " and ' written as &amp; &lt; &gt; &quot; &#x27;: an arena string. */
char *html_escape(struct arena *a, const char *s);

#endif
