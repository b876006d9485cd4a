/* HTTP header field grammar; see header.h. */
#include "core/header.h"

#include <string.h>

static bool is_tchar(unsigned char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c != '\0' && strchr("!#$%&'*+-.^_`|~", c) != NULL);
}

/* The length of the token at s (0 if there is none). */
static size_t token_len(const char *s)
{
	size_t n = 0;
	while (is_tchar((unsigned char)s[n]))
		n++;
	return n;
}

/* qdtext and the character of a quoted-pair: HTAB, SP, visible ASCII, obs-text. */
static bool is_qchar(unsigned char c)
{
	return c == '\t' || (c >= 0x20 && c != 0x7f);
}

/* The length of the quoted-string at s (0 if there is none). */
static size_t quoted_len(const char *s)
{
	if (*s != '"')
		return 0;
	for (size_t i = 1; s[i] != '\0'; i++) {
		unsigned char c = (unsigned char)s[i];
		if (c == '"')
			return i + 1;
		if (c == '\\') {
			if (!is_qchar((unsigned char)s[i + 1]))
				return 0;
			i++;
		} else if (!is_qchar(c)) {
			return 0;
		}
	}
	return 0;
}

bool header_is_token(const char *s)
{
	size_t n = token_len(s);
	return n > 0 && s[n] == '\0';
}

bool header_is_value(const char *s)
{
	size_t n = strlen(s);
	if (n > 0 && (s[0] == ' ' || s[0] == '\t' || s[n - 1] == ' ' || s[n - 1] == '\t'))
		return false;
	for (size_t i = 0; i < n; i++)
		if (!is_qchar((unsigned char)s[i]))
			return false;
	return true;
}

bool header_is_media_type(const char *s)
{
	if (strlen(s) > HEADER_MAX_MEDIA_TYPE)
		return false;
	size_t n = token_len(s);
	if (n == 0 || s[n] != '/')
		return false;
	s += n + 1;
	if ((n = token_len(s)) == 0)
		return false;
	for (s += n; *s != '\0';) {
		s += strspn(s, " \t");
		if (*s++ != ';')
			return false;
		s += strspn(s, " \t");
		if ((n = token_len(s)) == 0 || s[n] != '=')
			return false;
		s += n + 1;
		if ((n = token_len(s)) == 0 && (n = quoted_len(s)) == 0)
			return false;
		s += n;
	}
	return true;
}
