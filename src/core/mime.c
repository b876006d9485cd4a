/* E-mail message composition; see mime.h. */
#include "core/mime.h"

#include <sodium.h>
#include <stdbool.h>
#include <string.h>

#include "core/arena.h"
#include "core/buf.h"

/* Input bytes per base64 body line: 57 bytes make 76 characters (RFC 2045's limit). */
#define BODY_LINE_BYTES 57
/* Input bytes per encoded-word: 45 bytes make 60 base64 characters, 72 with "=?UTF-8?B?" and "?=" (limit 75). */
#define WORD_BYTES 45

static bool plain_header_text(const char *s)
{
	size_t n = strlen(s);
	if (n > 60 || strstr(s, "=?") != NULL)
		return false;
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)s[i] < 0x20 || (unsigned char)s[i] > 0x7e)
			return false;
	return true;
}

static void put_base64(struct buf *b, const unsigned char *p, size_t n)
{
	char out[sodium_base64_ENCODED_LEN(BODY_LINE_BYTES, sodium_base64_VARIANT_ORIGINAL)];
	sodium_bin2base64(out, sizeof(out), p, n, sodium_base64_VARIANT_ORIGINAL);
	buf_adds(b, out);
}

/* The length of the longest prefix of s (of n bytes) of at most max bytes that ends between UTF-8 characters. */
static size_t utf8_prefix(const char *s, size_t n, size_t max)
{
	if (n <= max)
		return n;
	size_t k = max;
	while (k > 0 && ((unsigned char)s[k] & 0xc0) == 0x80)
		k--;
	return k > 0 ? k : max;
}

char *mime_header_text(struct arena *a, const char *s)
{
	if (plain_header_text(s))
		return arena_strdup(a, s);
	struct buf b;
	buf_init(&b, 0);
	size_t n = strlen(s);
	for (size_t at = 0; at < n;) { /* n > 0: "" is plain */
		size_t k = utf8_prefix(s + at, n - at, WORD_BYTES);
		buf_adds(&b, at == 0 ? "=?UTF-8?B?" : "\r\n =?UTF-8?B?");
		put_base64(&b, (const unsigned char *)s + at, k);
		buf_adds(&b, "?=");
		at += k;
	}
	char *out = arena_strdup(a, buf_str(&b));
	buf_release(&b);
	return out;
}

/* A value that may stand between angle brackets or as a boundary: printable ASCII without space, '<' and '>'. */
static bool safe_token(const char *s)
{
	if (s == NULL || *s == '\0' || strlen(s) > 254)
		return false;
	for (; *s; s++)
		if ((unsigned char)*s <= 0x20 || (unsigned char)*s > 0x7e || *s == '<' || *s == '>')
			return false;
	return true;
}

static void put_body_part(struct buf *b, const char *boundary, const char *type, const char *body)
{
	buf_printf(b, "--%s\r\nContent-Type: %s; charset=\"UTF-8\"\r\nContent-Transfer-Encoding: base64\r\n\r\n",
	           boundary, type);
	size_t n = strlen(body);
	for (size_t at = 0; at < n; at += BODY_LINE_BYTES) {
		put_base64(b, (const unsigned char *)body + at, n - at < BODY_LINE_BYTES ? n - at : BODY_LINE_BYTES);
		buf_adds(b, "\r\n");
	}
	buf_adds(b, "\r\n");
}

char *mime_message(struct arena *a, const struct mime_mail *m)
{
	if (!safe_token(m->from) || !safe_token(m->to) || !safe_token(m->boundary) || !safe_token(m->message_id) ||
	    strlen(m->boundary) > 70)
		return NULL;
	char date[64];
	struct tm tm;
	gmtime_r(&m->date, &tm);
	strftime(date, sizeof(date), "%a, %d %b %Y %H:%M:%S +0000", &tm);
	struct buf b;
	buf_init(&b, 0);
	if (m->from_name != NULL && *m->from_name != '\0')
		buf_printf(&b, "From: %s <%s>\r\n", mime_header_text(a, m->from_name), m->from);
	else
		buf_printf(&b, "From: <%s>\r\n", m->from);
	buf_printf(&b, "To: <%s>\r\nSubject: %s\r\nDate: %s\r\nMessage-ID: <%s>\r\nMIME-Version: 1.0\r\n", m->to,
	           mime_header_text(a, m->subject), date, m->message_id);
	buf_printf(&b, "Content-Type: multipart/alternative; boundary=\"%s\"\r\n\r\n", m->boundary);
	put_body_part(&b, m->boundary, "text/plain", m->text);
	put_body_part(&b, m->boundary, "text/html", m->html);
	buf_printf(&b, "--%s--\r\n", m->boundary);
	char *out = arena_strdup(a, buf_str(&b));
	buf_release(&b);
	return out;
}
