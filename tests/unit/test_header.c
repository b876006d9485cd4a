/* HTTP header grammar, and the response-header writer that refuses what breaks it (issue 10, item 1). */
#include <string.h>

#include "core/header.h"
#include "http/request.h"
#include "unit.h"

static void test_header_token(void)
{
	CU_ASSERT_TRUE(header_is_token("Content-Type"));
	CU_ASSERT_TRUE(header_is_token("X-Accel-Redirect"));
	CU_ASSERT_TRUE(header_is_token("!#$%&'*+-.^_`|~09azAZ"));
	CU_ASSERT_FALSE(header_is_token(""));
	CU_ASSERT_FALSE(header_is_token("Content Type"));
	CU_ASSERT_FALSE(header_is_token("X:Y"));
	CU_ASSERT_FALSE(header_is_token("X\r\nY"));
	CU_ASSERT_FALSE(header_is_token("caf\xc3\xa9"));
}

static void test_header_value(void)
{
	CU_ASSERT_TRUE(header_is_value(""));
	CU_ASSERT_TRUE(header_is_value("inline; filename=\"a\tb.txt\""));
	CU_ASSERT_TRUE(header_is_value("caf\xc3\xa9")); /* obs-text passes through */
	CU_ASSERT_FALSE(header_is_value("a\nX-Accel-Redirect: /internal/uploads/x"));
	CU_ASSERT_FALSE(header_is_value("a\rb"));
	CU_ASSERT_FALSE(header_is_value("a\r\nSet-Cookie: x=1"));
	CU_ASSERT_FALSE(header_is_value("a\x01"
	                                "b"));
	CU_ASSERT_FALSE(header_is_value("a\x7f"));
	CU_ASSERT_FALSE(header_is_value(" leading"));
	CU_ASSERT_FALSE(header_is_value("trailing\t"));
}

/* RFC 7231 section 3.1.1.1: media-type = type "/" subtype *( OWS ";" OWS parameter ). */
static void test_header_media_type(void)
{
	CU_ASSERT_TRUE(header_is_media_type("text/html;charset=utf-8"));
	CU_ASSERT_TRUE(header_is_media_type("text/html;charset=UTF-8"));
	CU_ASSERT_TRUE(header_is_media_type("Text/HTML;Charset=\"utf-8\""));
	CU_ASSERT_TRUE(header_is_media_type("text/html; charset=\"utf-8\""));
	CU_ASSERT_TRUE(header_is_media_type("text/plain; charset=\"ascii\"; format=flowed"));
	CU_ASSERT_TRUE(header_is_media_type("application/vnd.openxmlformats-officedocument.wordprocessingml.document"));
	CU_ASSERT_TRUE(header_is_media_type("text/plain; name=\"a \\\"q\\\" b\""));
	CU_ASSERT_TRUE(header_is_media_type("text/plain; name*=utf-8''caf%C3%A9"));
	CU_ASSERT_FALSE(header_is_media_type(""));
	CU_ASSERT_FALSE(header_is_media_type("text"));
	CU_ASSERT_FALSE(header_is_media_type("text/"));
	CU_ASSERT_FALSE(header_is_media_type("/plain"));
	CU_ASSERT_FALSE(header_is_media_type("text/plain/x"));
	CU_ASSERT_FALSE(header_is_media_type("text/plain;"));
	CU_ASSERT_FALSE(header_is_media_type("text/plain; charset"));
	CU_ASSERT_FALSE(header_is_media_type("text/plain; charset="));
	CU_ASSERT_FALSE(header_is_media_type("text/plain; charset=\"utf-8"));
	CU_ASSERT_FALSE(header_is_media_type("text/plain; charset=\"a\nb\""));
	CU_ASSERT_FALSE(header_is_media_type("text/plain "));
	CU_ASSERT_FALSE(header_is_media_type("application/x-foo\nx-accel-redirect: /internal/uploads/1/x?"));
	CU_ASSERT_FALSE(header_is_media_type("application/x-foo\rx"));
	CU_ASSERT_FALSE(header_is_media_type("application/x-foo\r\nSet-Cookie: a=b"));
	CU_ASSERT_FALSE(header_is_media_type("text/pl\x01"
	                                     "ain"));
	char long_type[HEADER_MAX_MEDIA_TYPE + 2];
	memset(long_type, 'a', sizeof(long_type) - 1);
	long_type[1] = '/';
	long_type[HEADER_MAX_MEDIA_TYPE] = '\0';
	CU_ASSERT_TRUE(header_is_media_type(long_type));
	long_type[HEADER_MAX_MEDIA_TYPE] = 'a';
	long_type[HEADER_MAX_MEDIA_TYPE + 1] = '\0';
	CU_ASSERT_FALSE(header_is_media_type(long_type));
}

/* The writer drops a header that would break the response, whoever produced it, and keeps the others. */
static void test_header_writer_refuses_control_characters(void)
{
	struct request req;
	request_init(&req, NULL, 1);
	request_add_header(&req, "Cache-Control", "private, immutable");
	request_add_header(&req, "Content-Disposition", "inline; filename=\"a\nX-Accel-Redirect: /internal/x\"");
	request_add_header(&req, "X-Bad\r\nSet-Cookie", "a=b");
	request_add_header(&req, "Vary", "Accept\r");
	request_add_header(&req, "", "x");
	request_add_header(&req, "Allow", "GET, HEAD");
	CU_ASSERT_EQUAL(req.nheaders, 2);
	CU_ASSERT_STRING_EQUAL(req.header_names[0], "Cache-Control");
	CU_ASSERT_STRING_EQUAL(req.header_names[1], "Allow");
	request_set_raw(&req, 200, "application/x-foo\nX-Accel-Redirect: /internal/uploads/1/x", "", 0);
	CU_ASSERT_STRING_EQUAL(req.raw_content_type, "application/octet-stream");
	request_set_raw(&req, 200, "image/png", "", 0);
	CU_ASSERT_STRING_EQUAL(req.raw_content_type, "image/png");
	request_set_raw(&req, 200, NULL, "", 0);
	CU_ASSERT_PTR_NULL(req.raw_content_type);
	request_finish(&req);
}

int main(void)
{
	static const struct unit_test tests[] = {
	    {"test_header_token", test_header_token},
	    {"test_header_value", test_header_value},
	    {"test_header_media_type", test_header_media_type},
	    {"test_header_writer_refuses_control_characters", test_header_writer_refuses_control_characters},
	    {NULL, NULL},
	};
	return unit_run("header", tests);
}
