/* Strict JSON parsing (stack-notes 14: json-c is lenient by default). */
#include <string.h>

#include "core/jsonx.h"
#include "unit.h"

static int parse(const char *s)
{
	json_object *o;
	int rc = jsonx_parse(s, strlen(s), &o);
	json_object_put(o);
	return rc;
}

static void test_jsonx_accepts_json(void)
{
	CU_ASSERT_EQUAL(parse("5"), 0);
	CU_ASSERT_EQUAL(parse("-12"), 0);
	CU_ASSERT_EQUAL(parse("true"), 0);
	CU_ASSERT_EQUAL(parse("null"), 0);
	CU_ASSERT_EQUAL(parse("[1, 2, 3]"), 0);
	CU_ASSERT_EQUAL(parse("{\"a\": \"it's\"}"), 0);
	CU_ASSERT_EQUAL(parse(" \"x\" "), 0);
}

static void test_jsonx_rejects_lenient_forms(void)
{
	CU_ASSERT_EQUAL(parse(""), -1);
	CU_ASSERT_EQUAL(parse("123abc"), -1);
	CU_ASSERT_EQUAL(parse("[1,]"), -1);
	CU_ASSERT_EQUAL(parse("'a'"), -1);
	CU_ASSERT_EQUAL(parse("{'a': 1}"), -1);
	CU_ASSERT_EQUAL(parse("NaN"), -1);
	CU_ASSERT_EQUAL(parse("Infinity"), -1);
	CU_ASSERT_EQUAL(parse("[1] 2"), -1);
	CU_ASSERT_EQUAL(parse("True"), -1);
	CU_ASSERT_EQUAL(parse("\"unterminated"), -1);
}

/* json-c's strict mode takes these; RFC 8259 (and the reference's parser) does not. Found by tests/fuzz. */
static void test_jsonx_rejects_malformed_numbers(void)
{
	CU_ASSERT_EQUAL(parse("1."), -1);
	CU_ASSERT_EQUAL(parse("-1."), -1);
	CU_ASSERT_EQUAL(parse("[1.]"), -1);
	CU_ASSERT_EQUAL(parse("1.e5"), -1);
	CU_ASSERT_EQUAL(parse("-.5"), -1);
	CU_ASSERT_EQUAL(parse("-01"), -1);
	CU_ASSERT_EQUAL(parse("00"), -1);
	CU_ASSERT_EQUAL(parse("{\"a\": 00}"), -1);
	CU_ASSERT_EQUAL(parse("1e"), -1);
	CU_ASSERT_EQUAL(parse("-"), -1);
	CU_ASSERT_EQUAL(parse("0"), 0);
	CU_ASSERT_EQUAL(parse("-0"), 0);
	CU_ASSERT_EQUAL(parse("[-0.5e-3, 10E+2, 1.25, 0, 7]"), 0);
	CU_ASSERT_EQUAL(parse("{\"n\":-12.5E3}"), 0);
}

/* Only len bytes are read: s need not be NUL-terminated there (a slice of a larger buffer). Found by tests/fuzz. */
static void test_jsonx_reads_only_len_bytes(void)
{
	json_object *o;
	CU_ASSERT_EQUAL(jsonx_parse("123x", 2, &o), 0);
	CU_ASSERT_EQUAL(json_object_get_int(o), 12);
	json_object_put(o);
	CU_ASSERT_EQUAL(jsonx_parse("truex", 4, &o), 0);
	CU_ASSERT_TRUE(json_object_get_boolean(o));
	json_object_put(o);
	CU_ASSERT_EQUAL(jsonx_parse("[1]x", 3, &o), 0);
	json_object_put(o);
}

static void test_jsonx_null_gives_null_object(void)
{
	json_object *o = (json_object *)1;
	CU_ASSERT_EQUAL(jsonx_parse("null", 4, &o), 0);
	CU_ASSERT_PTR_NULL(o);
}

static void test_jsonx_string_is_compact(void)
{
	json_object *o;
	CU_ASSERT_EQUAL(jsonx_parse("{ \"a\" : \"x/y\" }", 15, &o), 0);
	CU_ASSERT_STRING_EQUAL(jsonx_string(o), "{\"a\":\"x/y\"}");
	json_object_put(o);
}

/* What a text costs parsed grows with its objects and arrays, not only with its length. */
static void test_jsonx_cost_counts_containers(void)
{
	size_t flat = jsonx_cost("\"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\"", 49);
	size_t objects = jsonx_cost("[{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{}]", 49);
	CU_ASSERT_TRUE(flat < 500);
	CU_ASSERT_TRUE(objects > 16 * 800);
	/* Braces inside strings are text. */
	CU_ASSERT_TRUE(jsonx_cost("\"{{{{{{{{\\\"{{{{\"", 18) < 500);
}

int main(void)
{
	static const struct unit_test tests[] = {
		{"test_jsonx_accepts_json", test_jsonx_accepts_json},
		{"test_jsonx_rejects_lenient_forms", test_jsonx_rejects_lenient_forms},
		{"test_jsonx_rejects_malformed_numbers", test_jsonx_rejects_malformed_numbers},
		{"test_jsonx_reads_only_len_bytes", test_jsonx_reads_only_len_bytes},
		{"test_jsonx_null_gives_null_object", test_jsonx_null_gives_null_object},
		{"test_jsonx_string_is_compact", test_jsonx_string_is_compact},
		{"test_jsonx_cost_counts_containers", test_jsonx_cost_counts_containers},
		{NULL, NULL},
	};
	return unit_run("jsonx", tests);
}
