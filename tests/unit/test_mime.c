/* E-mail composition (core/mime.c): RFC 2047 encoded-words, the multipart/alternative message, header safety. */
#include <sodium.h>
#include <string.h>

#include "core/arena.h"
#include "core/mime.h"
#include "unit.h"

static struct arena a;

/* The UTF-8 text of a header value made of encoded-words (as mime_header_text() writes them), decoded. */
static char *decode_words(const char *v)
{
	static char out[4096];
	size_t n = 0;
	for (const char *p = strstr(v, "=?UTF-8?B?"); p != NULL; p = strstr(p, "=?UTF-8?B?")) {
		p += 10;
		const char *end = strstr(p, "?=");
		CU_ASSERT_PTR_NOT_NULL_FATAL(end);
		size_t len;
		CU_ASSERT_EQUAL(sodium_base642bin((unsigned char *)out + n, sizeof(out) - n, p, (size_t)(end - p), NULL,
		                                  &len, NULL, sodium_base64_VARIANT_ORIGINAL),
		                0);
		n += len;
		p = end + 2;
	}
	out[n] = '\0';
	return out;
}

static void test_header_text(void)
{
	CU_ASSERT_STRING_EQUAL(mime_header_text(&a, "You're invited to join Confab Test"),
	                       "You're invited to join Confab Test");
	CU_ASSERT_STRING_EQUAL(mime_header_text(&a, ""), "");
	CU_ASSERT_STRING_EQUAL(mime_header_text(&a, "Gr\xc3\xbc\xc3\x9f"
	                                            "e"),
	                       "=?UTF-8?B?R3LDvMOfZQ==?=");
	/* Text that looks like an encoded-word is encoded itself (RFC 2047 section 5). */
	CU_ASSERT_STRING_EQUAL(mime_header_text(&a, "=?x?"), "=?UTF-8?B?PT94Pw==?=");
}

/* A line break in a subject cannot start a header line of its own. */
static void test_header_text_injection(void)
{
	const char *v = mime_header_text(&a, "Hi\r\nBcc: victim@example.com");
	CU_ASSERT_PTR_NULL(strstr(v, "Bcc"));
	CU_ASSERT_PTR_NULL(strchr(v, '\n'));
	CU_ASSERT_STRING_EQUAL(decode_words(v), "Hi\r\nBcc: victim@example.com");
}

/* Long text: words of at most 75 characters, folded with CRLF SP, cut only between UTF-8 characters. */
static void test_header_text_long(void)
{
	char s[400] = "";
	for (int i = 0; i < 40; i++)
		strcat(s, i % 3 ? "\xc3\xa9t\xc3\xa9 " : "\xe2\x82\xac ");
	const char *v = mime_header_text(&a, s);
	CU_ASSERT_STRING_EQUAL(decode_words(v), s);
	for (const char *line = v; line != NULL;) {
		const char *eol = strstr(line, "\r\n");
		size_t len = eol ? (size_t)(eol - line) : strlen(line);
		CU_ASSERT(len <= 76); /* the folding space and one word */
		line = eol ? eol + 3 : NULL;
	}
}

static struct mime_mail sample(void)
{
	return (struct mime_mail){.from_name = "Iago (via Confab)", .from = "noreply@chat.example.com",
	                          .to = "new@example.com", .subject = "Join us", .text = "Hello\nworld\n",
	                          .html = "<p>Hello</p>\n", .date = 1795500000, .boundary = "b-1",
	                          .message_id = "42@chat.example.com"};
}

static void test_message(void)
{
	struct mime_mail m = sample();
	const char *msg = mime_message(&a, &m);
	CU_ASSERT_PTR_NOT_NULL_FATAL(msg);
	CU_ASSERT_PTR_NOT_NULL(strstr(msg, "From: Iago (via Confab) <noreply@chat.example.com>\r\n"));
	CU_ASSERT_PTR_NOT_NULL(strstr(msg, "To: <new@example.com>\r\nSubject: Join us\r\n"));
	CU_ASSERT_PTR_NOT_NULL(strstr(msg, "Date: Tue, 24 Nov 2026 06:00:00 +0000\r\n"));
	CU_ASSERT_PTR_NOT_NULL(strstr(msg, "Message-ID: <42@chat.example.com>\r\nMIME-Version: 1.0\r\n"));
	CU_ASSERT_PTR_NOT_NULL(strstr(msg, "Content-Type: multipart/alternative; boundary=\"b-1\"\r\n\r\n--b-1\r\n"
	                                   "Content-Type: text/plain; charset=\"UTF-8\"\r\n"
	                                   "Content-Transfer-Encoding: base64\r\n\r\nSGVsbG8Kd29ybGQK\r\n\r\n--b-1\r\n"
	                                   "Content-Type: text/html; charset=\"UTF-8\"\r\n"
	                                   "Content-Transfer-Encoding: base64\r\n\r\nPHA+SGVsbG88L3A+Cg==\r\n\r\n"
	                                   "--b-1--\r\n"));
}

/* Body lines stay within RFC 2045's 76 characters. */
static void test_message_long_body(void)
{
	struct mime_mail m = sample();
	char body[1000];
	memset(body, 'x', sizeof(body) - 1);
	body[sizeof(body) - 1] = '\0';
	m.text = body;
	const char *msg = mime_message(&a, &m);
	CU_ASSERT_PTR_NOT_NULL_FATAL(msg);
	for (const char *p = msg; *p;) {
		size_t len = strcspn(p, "\r");
		CU_ASSERT(len <= 76);
		p += len;
		p += *p ? 2 : 0;
	}
}

/* No address, boundary or message id can add a header line or break out of its angle brackets. */
static void test_message_refuses_unsafe_values(void)
{
	const char *bad[] = {"a@b.c\r\nBcc: x@y.z", "a@b.c>", "<a@b.c", "a b@c.d", "", "caf\xc3\xa9@b.c"};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct mime_mail m = sample();
		m.to = bad[i];
		CU_ASSERT_PTR_NULL(mime_message(&a, &m));
		m = sample();
		m.from = bad[i];
		CU_ASSERT_PTR_NULL(mime_message(&a, &m));
		m = sample();
		m.message_id = bad[i];
		CU_ASSERT_PTR_NULL(mime_message(&a, &m));
	}
	struct mime_mail m = sample();
	m.boundary = "b\r\nX: y";
	CU_ASSERT_PTR_NULL(mime_message(&a, &m));
}

int main(void)
{
	arena_init(&a);
	static const struct unit_test tests[] = {
	    {"test_header_text", test_header_text},
	    {"test_header_text_injection", test_header_text_injection},
	    {"test_header_text_long", test_header_text_long},
	    {"test_message", test_message},
	    {"test_message_long_body", test_message_long_body},
	    {"test_message_refuses_unsafe_values", test_message_refuses_unsafe_values},
	    {NULL, NULL},
	};
	int rc = unit_run("mime", tests);
	arena_reset(&a);
	return rc;
}
