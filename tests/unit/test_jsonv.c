/* Typed reads of client JSON (core/jsonv.c): JSON null is of no type, and each wrong type reads as the reference. */
#include <stdio.h>
#include <string.h>

#include "core/jsonv.h"
#include "core/jsonx.h"
#include "core/uow.h"
#include "unit.h"

static struct uow work;

/* json parsed into the unit of work (NULL for null). */
static json_object *json(const char *s)
{
	json_object *o;
	CU_ASSERT_EQUAL_FATAL(jsonx_parse(s, strlen(s), &o), 0);
	return uow_own_json(&work, o);
}

/* The message of the error recorded since the last call ("" for none); the next error is recorded afresh (jsonv
 * adds no fields to an error). */
static const char *recorded(void)
{
	static char msg[256];
	snprintf(msg, sizeof(msg), "%s", work.error != ERR_NONE && work.error_msg ? work.error_msg : "");
	CU_ASSERT_PTR_NULL(work.error_fields);
	work.error = ERR_NONE;
	work.error_msg = NULL;
	return msg;
}

static void test_jsonv_null_has_no_type(void)
{
	recorded();
	static const enum jsonv_type types[] = {JV_INT, JV_STR, JV_BOOL, JV_LIST, JV_DICT};
	for (size_t i = 0; i < sizeof(types) / sizeof(*types); i++)
		CU_ASSERT_FALSE(jsonv_is(NULL, types[i]));
	CU_ASSERT_EQUAL(jsonv_check(&work, NULL, JV_STR, "x"), -1);
	CU_ASSERT_STRING_EQUAL(recorded(), "x is not a string");
}

/* json-c would convert these; jsonv refuses them. */
static void test_jsonv_no_lenient_conversion(void)
{
	recorded();
	CU_ASSERT_FALSE(jsonv_is(json("\"1\""), JV_INT));
	CU_ASSERT_FALSE(jsonv_is(json("1.0"), JV_INT));
	CU_ASSERT_FALSE(jsonv_is(json("true"), JV_INT));
	CU_ASSERT_FALSE(jsonv_is(json("1"), JV_BOOL));
	CU_ASSERT_FALSE(jsonv_is(json("1"), JV_STR));
	CU_ASSERT_TRUE(jsonv_is(json("-1"), JV_INT));
	CU_ASSERT_TRUE(jsonv_is(json("[]"), JV_LIST));
	CU_ASSERT_TRUE(jsonv_is(json("{}"), JV_DICT));
}

static void test_jsonv_member_words(void)
{
	recorded();
	json_object *o = json("{\"a\": null, \"b\": 5, \"c\": \"s\"}"), *v;
	CU_ASSERT_EQUAL(jsonv_member(&work, o, "x[0]", "a", JV_STR, 0, &v), -1);
	CU_ASSERT_STRING_EQUAL(recorded(), "x[0][\"a\"] is not a string");
	CU_ASSERT_EQUAL(jsonv_member(&work, o, "x[0]", "b", JV_LIST, 0, &v), -1);
	CU_ASSERT_STRING_EQUAL(recorded(), "x[0][\"b\"] is not a list");
	CU_ASSERT_EQUAL(jsonv_member(&work, o, "x[0]", "c", JV_DICT, 0, &v), -1);
	CU_ASSERT_STRING_EQUAL(recorded(), "x[0][\"c\"] is not a dict");
	CU_ASSERT_EQUAL(jsonv_member(&work, o, "x[0]", "c", JV_BOOL, 0, &v), -1);
	CU_ASSERT_STRING_EQUAL(recorded(), "x[0][\"c\"] is not a boolean");
	CU_ASSERT_EQUAL(jsonv_member(&work, o, "x[0]", "c", JV_INT, 0, &v), -1);
	CU_ASSERT_STRING_EQUAL(recorded(), "x[0][\"c\"] is not an integer");
	CU_ASSERT_EQUAL(jsonv_member(&work, o, "x[0]", "d", JV_INT, 0, &v), -1);
	CU_ASSERT_STRING_EQUAL(recorded(), "x[0][\"d\"] field is missing");
}

static void test_jsonv_member_optional_and_nullable(void)
{
	recorded();
	json_object *o = json("{\"a\": null, \"b\": 5}"), *v = o;
	CU_ASSERT_EQUAL(jsonv_member(&work, o, "x", "d", JV_INT, JV_OPTIONAL, &v), 0);
	CU_ASSERT_PTR_NULL(v);
	CU_ASSERT_EQUAL(jsonv_member(&work, o, "x", "a", JV_INT, JV_NULLABLE, &v), 0);
	CU_ASSERT_PTR_NULL(v);
	CU_ASSERT_EQUAL(jsonv_member(&work, o, "x", "b", JV_INT, 0, &v), 0);
	CU_ASSERT_EQUAL(json_object_get_int64(v), 5);
	CU_ASSERT_STRING_EQUAL(recorded(), "");
	/* JV_OPTIONAL alone does not make null a value */
	CU_ASSERT_EQUAL(jsonv_member(&work, o, "x", "a", JV_INT, JV_OPTIONAL, &v), -1);
	CU_ASSERT_STRING_EQUAL(recorded(), "x[\"a\"] is not an integer");
}

int main(void)
{
	static const struct unit_test tests[] = {
	    {"test_jsonv_null_has_no_type", test_jsonv_null_has_no_type},
	    {"test_jsonv_no_lenient_conversion", test_jsonv_no_lenient_conversion},
	    {"test_jsonv_member_words", test_jsonv_member_words},
	    {"test_jsonv_member_optional_and_nullable", test_jsonv_member_optional_and_nullable},
	    {NULL, NULL},
	};
	uow_init(&work, NULL, 1);
	int rc = unit_run("jsonv", tests);
	uow_finish(&work);
	return rc;
}
