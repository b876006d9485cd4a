/* Uploaded file names, content types, Content-Disposition and upload links, as the reference computes them. */
#include <string.h>

#include "core/arena.h"
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
	    {"test_attachments_content_type", test_attachments_content_type},
	    {"test_attachments_is_inline", test_attachments_is_inline},
	    {"test_attachments_disposition", test_attachments_disposition},
	    {"test_attachments_linked_paths", test_attachments_linked_paths},
	    {NULL, NULL},
	};
	return unit_run("attachments", tests);
}
