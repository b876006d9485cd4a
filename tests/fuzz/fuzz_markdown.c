/*
 * libFuzzer target for the Markdown renderer (markdown.c and markdown_blocks.c): any bytes as message content,
 * rendered with a realm where short names resolve. Besides the sanitizers (and libFuzzer's timeout, which
 * catches superlinear rendering) it checks markdown.h's promises: the HTML is valid UTF-8, within its bound (and
 * empty when rendering is refused), and holds only tags the renderer writes itself (raw HTML in the content is always
 * escaped).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/uow.h"
#include "fuzz.h"
#include "model/markdown.h"

static bool short_name(const char *name, int64_t *out_id, const char **out_name)
{
	if (name == NULL || strlen(name) > 3)
		return false;
	*out_id = 7;
	*out_name = name;
	return true;
}

static bool user(void *ctx, const char *name, int64_t id, int64_t *out_id, const char **out_name)
{
	(void)ctx;
	(void)id;
	return short_name(name, out_id, out_name);
}

static bool named(void *ctx, const char *name, int64_t *out_id, const char **out_name)
{
	(void)ctx;
	return short_name(name, out_id, out_name);
}

/* Is s (after a "<") one of the tags the renderer writes, opening or closing? */
static bool is_own_tag(const char *s)
{
	static const char *const tags[] = {"a",  "blockquote", "br",    "code",  "del", "div", "em", "h1", "h2",
	                                   "h3", "h4",         "h5",    "h6",    "hr",  "img", "li", "ol", "p",
	                                   "pre", "span",      "strong", "table", "tbody", "td", "th", "thead",
	                                   "tr", "ul",         NULL};
	s += *s == '/';
	size_t n = strspn(s, "abcdefghijklmnopqrstuvwxyz123456");
	if (s[n] != ' ' && s[n] != '>')
		return false;
	for (const char *const *t = tags; *t != NULL; t++)
		if (strlen(*t) == n && memcmp(*t, s, n) == 0)
			return true;
	return false;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const struct markdown_lookup realm = {.user = user, .group = named, .channel = named};
	char *content = malloc(size + 1);
	memcpy(content, data, size);
	content[size] = '\0';
	struct uow uow;
	uow_init(&uow, NULL, 1);
	struct markdown_result out;
	int rc = markdown_render(&uow, content, &realm, &out);
	size_t len = strlen(out.html);
	FUZZ_CHECK(rc == 0 || len == 0); /* refused (out of time): no HTML */
	FUZZ_CHECK(fuzz_is_utf8(out.html, len));
	FUZZ_CHECK(len <= 4 * (size_t)MARKDOWN_MAX_HTML_CHARS); /* characters of up to 4 bytes */
	for (const char *p = strchr(out.html, '<'); p != NULL; p = strchr(p + 1, '<'))
		FUZZ_CHECK(is_own_tag(p + 1));
	uow_finish(&uow);
	free(content);
	return 0;
}
