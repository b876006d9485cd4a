/* URLs: the reference's sanitize_url(), the one scheme check of every URL the server links to. */
#include "core/url.h"

#include <stdbool.h>
#include <string.h>
#include <strings.h>

#include "core/arena.h"

static bool scheme_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '+' || c == '-' ||
	       c == '.';
}

static bool in_list(const char *word, size_t n, const char *const *list)
{
	for (; *list != NULL; list++)
		if (strlen(*list) == n && strncasecmp(word, *list, n) == 0)
			return true;
	return false;
}

/* urlsplit()'s view of a URL: the scheme (length 0: none), then "//" and a netloc, then the path up to "?" or "#". */
struct url_split {
	size_t scheme_len, netloc_len;
	const char *path;
	size_t path_len;
};

static void url_split(const char *url, struct url_split *s)
{
	const char *colon = strchr(url, ':');
	s->scheme_len = 0;
	if (colon != NULL && colon > url && ((*url >= 'a' && *url <= 'z') || (*url >= 'A' && *url <= 'Z'))) {
		s->scheme_len = (size_t)(colon - url);
		for (const char *p = url; p < colon; p++)
			if (!scheme_char(*p))
				s->scheme_len = 0;
	}
	const char *rest = s->scheme_len ? url + s->scheme_len + 1 : url;
	bool has_netloc = rest[0] == '/' && rest[1] == '/';
	s->netloc_len = has_netloc ? strcspn(rest + 2, "/?#") : 0;
	s->path = has_netloc ? rest + 2 + s->netloc_len : rest;
	s->path_len = strcspn(s->path, "?#");
}

/* prefix and url, with each space of url written %20 and its first scheme_len bytes in lower case (an arena
 * string). */
static char *url_copy(struct arena *arena, const char *prefix, const char *url, size_t scheme_len)
{
	size_t spaces = 0, n = strlen(prefix);
	for (const char *p = url; *p; p++)
		spaces += *p == ' ';
	char *u = arena_alloc(arena, n + strlen(url) + 2 * spaces + 1), *w = u + n;
	memcpy(u, prefix, n);
	for (const char *p = url; *p; p++) {
		bool upper = (size_t)(p - url) < scheme_len && *p >= 'A' && *p <= 'Z';
		if (*p == ' ') {
			memcpy(w, "%20", 3);
			w += 3;
		} else {
			*w++ = upper ? (char)(*p - 'A' + 'a') : *p;
		}
	}
	*w = '\0';
	return u;
}

const char *url_sanitize(struct arena *arena, const char *url)
{
	static const char *const locless[] = {"mailto", "news", "file", "bitcoin", "sms", "tel", NULL};
	static const char *const allowed[] = {"http", "https", "ftp", "mailto", "file", "sms", "tel", "bitcoin", NULL};
	struct url_split s;
	url_split(url, &s);
	if (s.scheme_len == 0 && s.netloc_len == 0) {
		if (memchr(s.path, '@', s.path_len) != NULL)
			return url_copy(arena, "mailto:", s.path, 0);
		if (s.path_len > 0 && s.path[0] == '/')
			return url_copy(arena, "", s.path, 0); /* domain-relative */
		if (s.path_len == 0 && s.path[0] == '#' && s.path[1] != '\0')
			return url_copy(arena, "", s.path, 0); /* fragment */
	}
	if (s.scheme_len == 0) /* the reference tries again after "http://": a link when a host name follows */
		return strcspn(url, "/?#") > 0 ? url_copy(arena, "http://", url, 0) : NULL;
	if (s.netloc_len == 0 && !in_list(url, s.scheme_len, locless))
		return NULL;
	if (!in_list(url, s.scheme_len, allowed))
		return NULL;
	return url_copy(arena, "", url, s.scheme_len);
}
