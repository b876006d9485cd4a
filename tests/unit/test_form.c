/* Query string, urlencoded and multipart parsing. */
#include <stdio.h>
#include <string.h>

#include "http/form.h"
#include "http/request.h"
#include "unit.h"

static struct request req;

static void setup(void)
{
	request_init(&req, NULL, 1);
}

static const char *value(const char *name)
{
	struct raw_param *p = request_find_param(&req, name);
	return p ? p->value : NULL;
}

static void test_form_urlencoded_decodes(void)
{
	setup();
	const char *q = "a=1&b=hello+world&c=%E2%9C%94%20x&d=&e&a=2&%3D=eq&bad=%zz%4";
	form_parse_urlencoded(&req, q, strlen(q));
	CU_ASSERT_STRING_EQUAL(value("a"), "2");
	CU_ASSERT_STRING_EQUAL(value("b"), "hello world");
	CU_ASSERT_STRING_EQUAL(value("c"), "\xe2\x9c\x94 x");
	CU_ASSERT_STRING_EQUAL(value("d"), "");
	CU_ASSERT_STRING_EQUAL(value("e"), "");
	CU_ASSERT_STRING_EQUAL(value("="), "eq");
	CU_ASSERT_STRING_EQUAL(value("bad"), "%zz%4");
	request_finish(&req);
}

static void test_form_repairs_invalid_utf8(void)
{
	setup();
	const char *q = "x=%FF%C3%A9%ED%A0%80";
	form_parse_urlencoded(&req, q, strlen(q));
	CU_ASSERT_STRING_EQUAL(value("x"), "\xef\xbf\xbd\xc3\xa9\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd");
	request_finish(&req);
}

static void test_form_keeps_nul_bytes_with_length(void)
{
	setup();
	const char *q = "x=a%00b";
	form_parse_urlencoded(&req, q, strlen(q));
	struct raw_param *p = request_find_param(&req, "x");
	CU_ASSERT_EQUAL(p->len, 3);
	CU_ASSERT_EQUAL(memcmp(p->value, "a\0b", 3), 0);
	request_finish(&req);
}

/* A body cut short (here at its NUL byte) has no closing delimiter. */
static void test_form_multipart_truncated_body_is_rejected(void)
{
	setup();
	const char *body = "--XyZ\r\n"
	                   "Content-Disposition: form-data; name=\"file\"; filename=\"a.bin\"\r\n\r\n"
	                   "\x01\x00\x02\r\n"
	                   "--XyZ--\r\n";
	CU_ASSERT_EQUAL(form_parse_multipart(&req, "multipart/form-data; boundary=XyZ", body, strlen(body)), -1);
	request_finish(&req);
}

static void test_form_multipart_parses(void)
{
	setup();
	static const char body[] = "--XyZ\r\n"
	                           "Content-Disposition: form-data; name=\"to\"\r\n\r\n"
	                           "[1,2]\r\n"
	                           "--XyZ\r\n"
	                           "Content-Disposition: form-data; name=\"content\"\r\n\r\n"
	                           "line1\r\nline2 %20\r\n"
	                           "--XyZ\r\n"
	                           "Content-Disposition: form-data; name=\"file\"; filename=\"a.bin\"\r\n"
	                           "Content-Type: application/octet-stream\r\n\r\n"
	                           "\x00\x01\xff\r\n"
	                           "--XyZ--\r\n";
	CU_ASSERT_EQUAL(form_parse_multipart(&req, "multipart/form-data; boundary=XyZ", body, sizeof(body) - 1), 0);
	CU_ASSERT_STRING_EQUAL(value("to"), "[1,2]");
	CU_ASSERT_STRING_EQUAL(value("content"), "line1\r\nline2 %20");
	CU_ASSERT_EQUAL(req.nraw, 3);
	CU_ASSERT_STRING_EQUAL(req.raw[2].filename, "a.bin");
	CU_ASSERT_EQUAL(req.raw[2].len, 3);
	CU_ASSERT_EQUAL(memcmp(req.raw[2].value, "\x00\x01\xff", 3), 0);
	/* Files are not form fields. */
	CU_ASSERT_PTR_NULL(value("file"));
	request_finish(&req);
}

static void test_form_multipart_rejects_garbage(void)
{
	setup();
	const char *bad[] = {"no boundary here", "--XyZ\r\nContent-Disposition: form-data\r\n\r\nx\r\n--XyZ--",
	                     "--XyZ\r\nContent-Disposition: form-data; name=\"a\"\r\n\r\nunterminated"};
	for (size_t i = 0; i < 3; i++)
		CU_ASSERT_EQUAL(form_parse_multipart(&req, "multipart/form-data; boundary=XyZ", bad[i], strlen(bad[i])),
		                -1);
	CU_ASSERT_EQUAL(form_parse_multipart(&req, "multipart/form-data", "", 0), -1);
	request_finish(&req);
}

/* One file part whose header lines are headers (the bytes between the delimiter line and the blank line). */
static int parse_file_part(const char *headers)
{
	char body[512];
	snprintf(body, sizeof(body), "--XyZ\r\n%s\r\n\r\ndata\r\n--XyZ--\r\n", headers);
	return form_parse_multipart(&req, "multipart/form-data; boundary=XyZ", body, strlen(body));
}

/*
 * A header line ends at CRLF only: a bare LF or CR inside a part's headers is a malformed body, never part of a
 * value (a bare LF in Content-Type was written into the response headers when the file was served: issue 10).
 */
static void test_form_multipart_bare_cr_or_lf_in_part_headers(void)
{
	const char *disposition = "Content-Disposition: form-data; name=\"file\"; filename=\"a.bin\"";
	const char *bad[] = {
	    "Content-Type: application/x-foo\nX-Accel-Redirect: /internal/uploads/1/ab/x/secret.txt?",
	    "Content-Type: application/x-foo\nSet-Cookie: session=1",
	    "Content-Type: application/x-foo\rX: y",
	    "Content-Type: application/x-foo\r",
	    "Content-Type: application/x-foo\n",
	    "Content-Type: text/plain\n\r\nX: y",
	    "Content-Type: text/plain\r\r\nX: y",
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		setup();
		char headers[256];
		snprintf(headers, sizeof(headers), "%s\r\n%s", disposition, bad[i]);
		CU_ASSERT_EQUAL(parse_file_part(headers), -1);
		CU_ASSERT_EQUAL(req.nraw, 0);
		request_finish(&req);
		/* Also in the Content-Disposition line, and before it. */
		setup();
		snprintf(headers, sizeof(headers), "%s\r\n%s", bad[i], disposition);
		CU_ASSERT_EQUAL(parse_file_part(headers), -1);
		request_finish(&req);
	}
	setup();
	CU_ASSERT_EQUAL(parse_file_part("Content-Disposition: form-data; name=\"fi\nle\"; filename=\"a.bin\""), -1);
	request_finish(&req);
	setup();
	CU_ASSERT_EQUAL(parse_file_part("Content-Disposition: form-data; name=\"file\"; filename=\"a\rb.bin\""), -1);
	request_finish(&req);

	/* CRLF breaks, and CR or LF in the part's data, are fine. */
	setup();
	static const char body[] = "--XyZ\r\n"
	                           "Content-Disposition: form-data; name=\"file\"; filename=\"a.bin\"\r\n"
	                           "Content-Type: application/x-foo\r\n\r\n"
	                           "\n\r\r\n\n\r\n"
	                           "--XyZ--\r\n";
	CU_ASSERT_EQUAL(form_parse_multipart(&req, "multipart/form-data; boundary=XyZ", body, sizeof(body) - 1), 0);
	CU_ASSERT_EQUAL(req.nraw, 1);
	CU_ASSERT_STRING_EQUAL(req.raw[0].content_type, "application/x-foo");
	CU_ASSERT_EQUAL(req.raw[0].len, 5); /* the last CRLF belongs to the delimiter */
	request_finish(&req);
}

/* Part names are made valid UTF-8 like values: they are echoed in ignored_parameters_unsupported. Found by tests/fuzz.
 */
static void test_form_multipart_repairs_names(void)
{
	setup();
	static const char body[] = "--XyZ\r\n"
	                           "Content-Disposition: form-data; name=\"a\xff"
	                           "b\"\r\n\r\n"
	                           "1\r\n"
	                           "--XyZ\r\n"
	                           "Content-Disposition: form-data; name=\"f\xc3\"; filename=\"x\"\r\n\r\n"
	                           "2\r\n"
	                           "--XyZ--\r\n";
	CU_ASSERT_EQUAL(form_parse_multipart(&req, "multipart/form-data; boundary=XyZ", body, sizeof(body) - 1), 0);
	CU_ASSERT_EQUAL(req.nraw, 2);
	CU_ASSERT_STRING_EQUAL(req.raw[0].name, "a\xef\xbf\xbd"
	                                        "b");
	CU_ASSERT_STRING_EQUAL(req.raw[0].value, "1");
	CU_ASSERT_STRING_EQUAL(req.raw[1].name, "f\xef\xbf\xbd");
	request_finish(&req);
}

/* Django's DATA_UPLOAD_MAX_NUMBER_FIELDS: 1,000 fields, counted as 1 + the separators, before any is parsed. */
static void test_form_field_count_bound(void)
{
	char q[4 * 1000 + 1];
	for (int i = 0; i < 1000; i++)
		memcpy(q + 4 * i, "&a=1", 4);
	q[4 * 1000] = '\0';
	setup();
	CU_ASSERT_EQUAL(form_parse_urlencoded(&req, q + 1, strlen(q + 1)), 0); /* "a=1&...": 1,000 fields */
	CU_ASSERT_EQUAL(req.nraw, 1000);
	request_finish(&req);
	setup();
	CU_ASSERT_EQUAL(form_parse_urlencoded(&req, q, strlen(q)), -1); /* "&a=1...": an empty one first */
	CU_ASSERT_EQUAL(req.nraw, 0);
	CU_ASSERT_EQUAL(req.error, ERR_BAD_REQUEST);
	CU_ASSERT_STRING_EQUAL(req.error_msg, "Bad Request");
	request_finish(&req);
}

/* A path keeps its valid UTF-8 and has every other byte %-escaped, as Django's repercent_broken_unicode. */
static void test_form_repercents_paths(void)
{
	setup();
	const char *ok = "/user_uploads/1/\xc3\xa9/x.png";
	CU_ASSERT_PTR_EQUAL(form_repercent_utf8(&req, ok), ok);
	CU_ASSERT_STRING_EQUAL(form_repercent_utf8(&req, "/a\xff\xfe/b\xc3"), "/a%FF%FE/b%C3");
	CU_ASSERT_STRING_EQUAL(form_repercent_utf8(&req, "\xed\xa0\x80\xc3\xa9"), "%ED%A0%80\xc3\xa9");
	request_finish(&req);
}

int main(void)
{
	static const struct unit_test tests[] = {
	    {"test_form_urlencoded_decodes", test_form_urlencoded_decodes},
	    {"test_form_repairs_invalid_utf8", test_form_repairs_invalid_utf8},
	    {"test_form_keeps_nul_bytes_with_length", test_form_keeps_nul_bytes_with_length},
	    {"test_form_multipart_truncated_body_is_rejected", test_form_multipart_truncated_body_is_rejected},
	    {"test_form_multipart_parses", test_form_multipart_parses},
	    {"test_form_multipart_rejects_garbage", test_form_multipart_rejects_garbage},
	    {"test_form_multipart_bare_cr_or_lf_in_part_headers", test_form_multipart_bare_cr_or_lf_in_part_headers},
	    {"test_form_multipart_repairs_names", test_form_multipart_repairs_names},
	    {"test_form_field_count_bound", test_form_field_count_bound},
	    {"test_form_repercents_paths", test_form_repercents_paths},
	    {NULL, NULL},
	};
	return unit_run("form", tests);
}
