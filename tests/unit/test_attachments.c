/* Uploaded file names, content types, Content-Disposition and upload links, as the reference computes them. */
#include <string.h>
#include <strings.h>

#include "core/arena.h"
#include "core/header.h"
#include "model/attachments.h"
#include "unit.h"

static struct arena a;

static const char *sanitize(const char *name)
{
	return attachments_sanitize_name(&a, name);
}

static const char *file_name(const char *raw)
{
	return attachments_file_name(&a, raw, strlen(raw));
}

/* Expected values from the reference's sanitize_name (NFKC, [^\w\s.-] removed, [-\s]+ to '-'). */
static void test_attachments_sanitize_name(void)
{
	arena_init(&a);
	CU_ASSERT_STRING_EQUAL(sanitize("zulip with excitement!.txt"), "zulip-with-excitement.txt");
	CU_ASSERT_STRING_EQUAL(sanitize("../../etc/passwd"), "....etcpasswd");
	CU_ASSERT_STRING_EQUAL(sanitize("  spaced   name .txt "), "spaced-name-.txt");
	CU_ASSERT_STRING_EQUAL(sanitize("a - b.txt"), "a-b.txt");
	CU_ASSERT_STRING_EQUAL(sanitize("-_-.txt"), "-_-.txt");
	CU_ASSERT_STRING_EQUAL(sanitize("tab\tname"), "tab-name");
	CU_ASSERT_STRING_EQUAL(sanitize("\xef\xbd\x86\xef\xbd\x95\xef\xbd\x8c\xef\xbd\x8c \xef\xac\x81le.txt"),
	                       "full-file.txt");
	CU_ASSERT_STRING_EQUAL(sanitize("cafe\xcc\x81.txt"), "caf\xc3\xa9.txt");
	CU_ASSERT_STRING_EQUAL(sanitize("\xe6\x97\xa5\xe6\x9c\xac \xe3\x83\x95\xe3\x82\xa1.pdf"),
	                       "\xe6\x97\xa5\xe6\x9c\xac-\xe3\x83\x95\xe3\x82\xa1.pdf");
	CU_ASSERT_STRING_EQUAL(sanitize("emoji\xf0\x9f\x98\x80.png"), "emoji.png");
	CU_ASSERT_STRING_EQUAL(sanitize("x\xc2\xb2\xc2\xbd.txt"), "x212.txt");
	arena_free(&a);
}

static void test_attachments_sanitize_name_never_empty_or_dots(void)
{
	arena_init(&a);
	CU_ASSERT_STRING_EQUAL(sanitize(""), "uploaded-file");
	CU_ASSERT_STRING_EQUAL(sanitize("."), "uploaded-file");
	CU_ASSERT_STRING_EQUAL(sanitize(".."), "uploaded-file");
	CU_ASSERT_STRING_EQUAL(sanitize("!!!"), "uploaded-file");
	CU_ASSERT_STRING_EQUAL(sanitize("/"), "uploaded-file");
	CU_ASSERT_PTR_NULL(strchr(sanitize("a/b\\c/../d"), '/'));
	arena_free(&a);
}

/* At most 255 bytes, keeping the extension, never half a character. */
static void test_attachments_sanitize_name_truncates(void)
{
	arena_init(&a);
	char name[512], want[512];
	memset(name, 'a', 300);
	strcpy(name + 300, ".txt");
	memset(want, 'a', 251);
	strcpy(want + 251, ".txt");
	CU_ASSERT_STRING_EQUAL(sanitize(name), want);
	for (int i = 0; i < 200; i++)
		memcpy(name + 2 * i, "\xc3\xa9", 2);
	strcpy(name + 400, ".txt");
	for (int i = 0; i < 125; i++)
		memcpy(want + 2 * i, "\xc3\xa9", 2);
	strcpy(want + 250, ".txt");
	CU_ASSERT_STRING_EQUAL(sanitize(name), want);
	arena_free(&a);
}

/* Django's sanitize_file_name, then the reference's unquote and NUL removal. */
static void test_attachments_file_name(void)
{
	arena_init(&a);
	CU_ASSERT_STRING_EQUAL(file_name("a&amp;b.txt"), "a&b.txt");
	CU_ASSERT_STRING_EQUAL(file_name("a&#x41;&#66;&lt;.txt"), "aAB<.txt");
	CU_ASSERT_STRING_EQUAL(file_name("C:\\Users\\x\\report.pdf"), "report.pdf");
	CU_ASSERT_STRING_EQUAL(file_name("../../etc/passwd"), "passwd");
	CU_ASSERT_STRING_EQUAL(file_name("hello%20world.txt"), "hello world.txt");
	CU_ASSERT_STRING_EQUAL(file_name("zero\xe2\x80\x8bwidth.txt"), "zerowidth.txt");
	CU_ASSERT_STRING_EQUAL(file_name("x\x7fy\x01.txt"), "xy.txt");
	CU_ASSERT_STRING_EQUAL(file_name("a%00b.txt"), "ab.txt");
	CU_ASSERT_STRING_EQUAL(file_name("%2E%2E"), "..");
	CU_ASSERT_STRING_EQUAL(file_name("bad\xff.txt"), "bad\xef\xbf\xbd.txt");
	CU_ASSERT_PTR_NULL(file_name(""));
	CU_ASSERT_PTR_NULL(file_name("."));
	CU_ASSERT_PTR_NULL(file_name(".."));
	CU_ASSERT_PTR_NULL(file_name("dir/"));
	CU_ASSERT_PTR_NULL(file_name("\x01\x02"));
	arena_free(&a);
}

static void test_attachments_content_type(void)
{
	arena_init(&a);
	CU_ASSERT_STRING_EQUAL(attachments_content_type(&a, NULL, "a.PNG", "\x89PNG", 4), "image/png");
	CU_ASSERT_STRING_EQUAL(attachments_content_type(&a, "", "a.pdf", "%PDF", 4), "application/pdf");
	CU_ASSERT_STRING_EQUAL(attachments_content_type(&a, NULL, "a.unknown", "x", 1), "application/octet-stream");
	CU_ASSERT_STRING_EQUAL(attachments_content_type(&a, "image/png", "a.txt", "x", 1), "image/png");
	CU_ASSERT_STRING_EQUAL(attachments_content_type(&a, NULL, "a.tgz", "\x1f\x8b", 2), "application/x-tar");
	/* text/plain without a charset gets the one the data looks like. */
	CU_ASSERT_STRING_EQUAL(attachments_content_type(&a, "text/plain", "a.txt", "zulip!", 6),
	                       "text/plain; charset=\"ascii\"");
	CU_ASSERT_STRING_EQUAL(attachments_content_type(&a, NULL, "a.txt", "h\xc3\xa9llo w\xc3\xb6rld", 13),
	                       "text/plain; charset=\"utf-8\"");
	CU_ASSERT_STRING_EQUAL(attachments_content_type(&a, NULL, "a.txt", "\xff\xfe", 2), "text/plain");
	CU_ASSERT_STRING_EQUAL(attachments_content_type(&a, "Text/Plain; Charset=UTF-8", "a.txt", "x", 1),
	                       "text/plain; charset=\"UTF-8\"");
	arena_free(&a);
}

static void test_attachments_is_inline(void)
{
	CU_ASSERT_TRUE(attachments_is_inline("image/png"));
	CU_ASSERT_TRUE(attachments_is_inline("text/plain; charset=\"ascii\""));
	CU_ASSERT_TRUE(attachments_is_inline("application/PDF"));
	CU_ASSERT_FALSE(attachments_is_inline("text/html"));
	CU_ASSERT_FALSE(attachments_is_inline("image/svg+xml"));
	CU_ASSERT_FALSE(attachments_is_inline("application/octet-stream"));
}

/* Django's content_disposition_header. */
static void test_attachments_disposition(void)
{
	arena_init(&a);
	CU_ASSERT_STRING_EQUAL(attachments_disposition(&a, false, "zulip.txt"), "inline; filename=\"zulip.txt\"");
	CU_ASSERT_STRING_EQUAL(attachments_disposition(&a, true, "zulip with excitement!.txt"),
	                       "attachment; filename=\"zulip with excitement!.txt\"");
	CU_ASSERT_STRING_EQUAL(attachments_disposition(&a, true, "a \"q\" \\.txt"),
	                       "attachment; filename=\"a \\\"q\\\" \\\\.txt\"");
	CU_ASSERT_STRING_EQUAL(attachments_disposition(&a, false, "caf\xc3\xa9 1.txt"),
	                       "inline; filename*=utf-8''caf%C3%A9%201.txt");
	CU_ASSERT_STRING_EQUAL(attachments_quote(&a, "1/ab/x-_~.y/\xc3\xa9?#%"), "1/ab/x-_~.y/%C3%A9%3F%23%25");
	arena_free(&a);
}

/* Django's UploadedFile: at most 255 characters (not bytes), the extension kept (os.path.splitext). */
static void test_attachments_file_name_truncates(void)
{
	arena_init(&a);
	char raw[20000], want[1200];
	memset(raw, 'a', 5000);
	strcpy(raw + 5000, ".txt");
	memset(want, 'a', 251);
	strcpy(want + 251, ".txt");
	CU_ASSERT_STRING_EQUAL(file_name(raw), want);
	/* Characters, not bytes: 5,000 three-byte characters keep 251 of them and the extension. */
	for (int i = 0; i < 5000; i++)
		memcpy(raw + 3 * i, "\xe6\x97\xa5", 3);
	strcpy(raw + 15000, ".txt");
	for (int i = 0; i < 251; i++)
		memcpy(want + 3 * i, "\xe6\x97\xa5", 3);
	strcpy(want + 753, ".txt");
	CU_ASSERT_STRING_EQUAL(file_name(raw), want);
	/* An extension longer than the bound is cut; leading dots make no extension. */
	raw[0] = 'x';
	raw[1] = '.';
	memset(raw + 2, 'e', 300);
	raw[302] = '\0';
	want[0] = '.';
	memset(want + 1, 'e', 254);
	want[255] = '\0';
	CU_ASSERT_STRING_EQUAL(file_name(raw), want);
	memset(raw, '.', 3);
	memset(raw + 3, 'b', 300);
	raw[303] = '\0';
	memset(want, '.', 3);
	memset(want + 3, 'b', 252);
	want[255] = '\0';
	CU_ASSERT_STRING_EQUAL(file_name(raw), want);
	/* Exactly 255 characters stay as they are. */
	memset(raw, 'c', 251);
	strcpy(raw + 251, ".txt");
	CU_ASSERT_STRING_EQUAL(file_name(raw), raw);
	/* Cut before %-escapes are decoded, as the reference unquotes after Django's cut. */
	for (int i = 0; i < 100; i++)
		memcpy(raw + 3 * i, "%41", 3);
	raw[300] = '\0';
	memset(want, 'A', 85);
	want[85] = '\0';
	CU_ASSERT_STRING_EQUAL(file_name(raw), want);
	arena_free(&a);
}

/* A part type that is no media type (header grammar), or is longer than 255 bytes, counts as absent. */
static void test_attachments_content_type_validated(void)
{
	arena_init(&a);
	const char *injected = "application/x-foo\nX-Accel-Redirect: /internal/uploads/1/ab/x/s.txt?";
	CU_ASSERT_STRING_EQUAL(attachments_content_type(&a, injected, "a.bin", "x", 1), "application/octet-stream");
	CU_ASSERT_STRING_EQUAL(attachments_content_type(&a, injected, "a.png", "x", 1), "image/png");
	CU_ASSERT_STRING_EQUAL(attachments_content_type(&a, "text/x\rSet-Cookie: a=b", "a.bin", "x", 1),
	                       "application/octet-stream");
	CU_ASSERT_STRING_EQUAL(attachments_content_type(&a, "text/plain; x=\"\x01\"", "a.bin", "x", 1),
	                       "application/octet-stream");
	CU_ASSERT_STRING_EQUAL(attachments_content_type(&a, "foo", "a.bin", "x", 1), "application/octet-stream");
	CU_ASSERT_STRING_EQUAL(attachments_content_type(&a, "a/b/c", "a.txt", "x", 1), "text/plain; charset=\"ascii\"");
	char *long_type = arena_alloc(&a, 10001);
	memcpy(long_type, "image/", 6);
	memset(long_type + 6, 'x', 9994);
	long_type[10000] = '\0';
	CU_ASSERT_STRING_EQUAL(attachments_content_type(&a, long_type, "a.bin", "x", 1), "application/octet-stream");
	long_type[255] = '\0';
	CU_ASSERT_STRING_EQUAL(attachments_content_type(&a, long_type, "a.bin", "x", 1), long_type);
	/* Parameters survive when valid. */
	CU_ASSERT_STRING_EQUAL(attachments_content_type(&a, "text/plain; format=flowed", "a.txt", "x", 1),
	                       "text/plain; format=\"flowed\"; charset=\"ascii\"");
	/* Stored rows are served only with a valid type. */
	CU_ASSERT_STRING_EQUAL(attachments_served_type("image/png"), "image/png");
	CU_ASSERT_STRING_EQUAL(attachments_served_type(injected), "application/octet-stream");
	CU_ASSERT_STRING_EQUAL(attachments_served_type(""), "application/octet-stream");
	CU_ASSERT_PTR_NULL(attachments_served_type(NULL));
	arena_free(&a);
}

static int hexval(char c)
{
	return c >= '0' && c <= '9'   ? c - '0'
	       : c >= 'A' && c <= 'F' ? c - 'A' + 10
	       : c >= 'a' && c <= 'f' ? c - 'a' + 10
	                              : -1;
}

/*
 * Decodes the filename of a Content-Disposition value by RFC 6266 and RFC 5987 (8187), strictly: a quoted-string
 * filename=, or filename*=charset'language'value-chars with value-chars = *( pct-encoded / attr-char ). Returns
 * NULL if the value breaks the grammar.
 */
static char *disposition_file_name(const char *value)
{
	const char *p = strchr(value, ';');
	if (p == NULL || p[1] != ' ')
		return NULL;
	p += 2;
	char *out = arena_alloc(&a, strlen(p) + 1), *o = out;
	if (strncmp(p, "filename=\"", 10) == 0) {
		for (p += 10; *p != '"'; p++) {
			if (*p == '\0' || ((unsigned char)*p < 0x20 && *p != '\t') || *p == 0x7f)
				return NULL;
			if (*p == '\\')
				p++;
			*o++ = *p;
		}
		*o = '\0';
		return p[1] == '\0' ? out : NULL;
	}
	if (strncasecmp(p, "filename*=utf-8''", 17) != 0)
		return NULL;
	for (p += 17; *p != '\0'; p++) {
		int hi, lo;
		if (*p == '%' && (hi = hexval(p[1])) >= 0 && (lo = hexval(p[2])) >= 0) {
			*o++ = (char)(hi * 16 + lo);
			p += 2;
		} else if ((*p >= '0' && *p <= '9') || (*p >= 'A' && *p <= 'Z') || (*p >= 'a' && *p <= 'z') ||
		           strchr("!#$&+-.^_`|~", *p) != NULL) {
			*o++ = *p;
		} else {
			return NULL;
		}
	}
	*o = '\0';
	return out;
}

/*
 * Whatever the name, the header is valid and gives the name back: RFC 6266 section 5's example ("\xe2\x82\xac
 * rates" as filename*=UTF-8''%e2%82%ac%20rates, hex digits in either case), RFC 5987 section 3.2.2's
 * (\xc2\xa3 rates), and names with quotes, backslashes, '%', '/', control characters and invalid UTF-8.
 */
static void test_attachments_disposition_encodes_any_name(void)
{
	arena_init(&a);
	CU_ASSERT_STRING_EQUAL(attachments_disposition(&a, true, "\xe2\x82\xac rates"),
	                       "attachment; filename*=utf-8''%E2%82%AC%20rates");
	CU_ASSERT_STRING_EQUAL(disposition_file_name("attachment; filename*=UTF-8''%e2%82%ac%20rates"),
	                       "\xe2\x82\xac rates");
	CU_ASSERT_STRING_EQUAL(attachments_disposition(&a, false, "\xc2\xa3 rates"),
	                       "inline; filename*=utf-8''%C2%A3%20rates");
	CU_ASSERT_STRING_EQUAL(attachments_disposition(&a, false, "EURO rates"), "inline; filename=\"EURO rates\"");
	const char *names[] = {
	    "plain.txt",
	    "a \"q\" \\.txt",
	    "100%.txt",
	    "caf\xc3\xa9/x.txt",
	    "it's.txt",
	    "semi;colon=.txt",
	    "tab\tname",
	    "new\nline\r.txt",
	    "nul-free\x01\x7f.txt",
	    "\xe6\x97\xa5\xe6\x9c\xac \xe8\xaa\x9e.txt",
	};
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		const char *value = attachments_disposition(&a, i % 2 == 0, names[i]);
		CU_ASSERT_TRUE(header_is_value(value));
		const char *back = disposition_file_name(value);
		CU_ASSERT_PTR_NOT_NULL(back);
		if (back != NULL)
			CU_ASSERT_STRING_EQUAL(back, names[i]);
	}
	/* Names stored before uploads were bounded are cut like new ones, so the header stays small. */
	char name[5100];
	memset(name, 'n', 5000);
	strcpy(name + 5000, ".pdf");
	const char *value = attachments_disposition(&a, true, name);
	CU_ASSERT_EQUAL(strlen(value), strlen("attachment; filename=\"\"") + 255);
	CU_ASSERT_STRING_EQUAL(value + strlen(value) - 5, ".pdf\"");
	arena_free(&a);
}

static const char *linked(const char *content)
{
	json_object *list = attachments_linked_paths(content, "http://127.0.0.1:9991");
	const char *s = arena_strdup(
	    &a, json_object_to_json_string_ext(list, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE));
	json_object_put(list);
	return s;
}

static void test_attachments_linked_paths(void)
{
	arena_init(&a);
	CU_ASSERT_STRING_EQUAL(linked("[a](/user_uploads/1/ab/xyz/a.txt)"), "[\"1/ab/xyz/a.txt\"]");
	CU_ASSERT_STRING_EQUAL(linked("see http://127.0.0.1:9991/user_uploads/1/cd/uvw/b.txt."),
	                       "[\"1/cd/uvw/b.txt\"]");
	CU_ASSERT_STRING_EQUAL(linked("http://evil.example/user_uploads/1/a/b/c.txt x/user_uploads/1/a/b/d"), "[]");
	CU_ASSERT_STRING_EQUAL(linked("http://127.0.0.1:99910/user_uploads/1/a/b/c.txt"), "[]");
	CU_ASSERT_STRING_EQUAL(linked("![](/user_uploads/2/f/g/caf%C3%A9.png) no link"),
	                       "[\"2/f/g/caf%C3%A9.png\",\"2/f/g/caf\xc3\xa9.png\"]");
	CU_ASSERT_STRING_EQUAL(linked("[x](/user_uploads/3/a/b/\xe6\x97\xa5.txt?x=1) [y](/user_uploads/3/a/b/y.txt)"),
	                       "[\"3/a/b/\xe6\x97\xa5.txt\",\"3/a/b/y.txt\"]");
	CU_ASSERT_STRING_EQUAL(linked("no uploads here"), "[]");
	arena_free(&a);
}

int main(void)
{
	static const struct unit_test tests[] = {
	    {"test_attachments_sanitize_name", test_attachments_sanitize_name},
	    {"test_attachments_sanitize_name_never_empty_or_dots", test_attachments_sanitize_name_never_empty_or_dots},
	    {"test_attachments_sanitize_name_truncates", test_attachments_sanitize_name_truncates},
	    {"test_attachments_file_name", test_attachments_file_name},
	    {"test_attachments_file_name_truncates", test_attachments_file_name_truncates},
	    {"test_attachments_content_type_validated", test_attachments_content_type_validated},
	    {"test_attachments_disposition_encodes_any_name", test_attachments_disposition_encodes_any_name},
	    {"test_attachments_content_type", test_attachments_content_type},
	    {"test_attachments_is_inline", test_attachments_is_inline},
	    {"test_attachments_disposition", test_attachments_disposition},
	    {"test_attachments_linked_paths", test_attachments_linked_paths},
	    {NULL, NULL},
	};
	return unit_run("attachments", tests);
}
