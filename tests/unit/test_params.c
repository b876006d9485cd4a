/* The generic parameter validator: the reference's messages and ignored_parameters_unsupported. */
#include <string.h>

#include "http/form.h"
#include "http/params.h"
#include "http/request.h"
#include "pipeline/router.h"
#include "unit.h"

static const struct param_spec specs[] = {
	{"user_id", PT_INT, P_PATH, 0, NULL},
	{"op", PT_STR, P_REQUIRED, 0, NULL},
	{"to", PT_INT_LIST, 0, 0, NULL},
	{"names", PT_STR_LIST, 0, 0, NULL},
	{"flag", PT_BOOL, 0, 0, "false"},
	{"count", PT_INT, 0, 0, "7"},
	{"title", PT_STR, P_NONBLANK, 5, NULL},
	{"data", PT_DICT, 0, 0, NULL},
	{"small", PT_INT, P_INT4 | P_NONNEG, 0, NULL},
	{"ids", PT_INT_LIST, P_NONNEG, 3, NULL},
	{"list", PT_JSON, 0, 2, NULL},
	{NULL, 0, 0, 0, NULL},
};
static const struct route route = {"POST", "/x/{user_id}", NULL, 0, specs};

static struct request req;

/* Validates the query q; returns the recorded message ("" on success). */
static const char *validate(const char *q)
{
	request_finish(&req);
	request_init(&req, NULL, 1);
	req.route = &route;
	req.path_args[0] = "42";
	form_parse_urlencoded(&req, q, strlen(q));
	return param_validate(&req, specs) == 0 ? "" : req.error_msg;
}

static void test_params_missing(void)
{
	CU_ASSERT_STRING_EQUAL(validate(""), "Missing 'op' argument");
	CU_ASSERT_EQUAL(req.error, ERR_MISSING);
	json_object *v;
	CU_ASSERT_TRUE(json_object_object_get_ex(req.error_fields, "var_name", &v));
	CU_ASSERT_STRING_EQUAL(json_object_get_string(v), "op");
}

static void test_params_types(void)
{
	CU_ASSERT_STRING_EQUAL(validate("op=a&to=2"), "to is not a list");
	CU_ASSERT_STRING_EQUAL(validate("op=a&to=[1,\"a\"]"), "to[1] is not an integer");
	CU_ASSERT_STRING_EQUAL(validate("op=a&to=nope"), "to is not valid JSON");
	CU_ASSERT_STRING_EQUAL(validate("op=a&flag=1"), "flag is not a boolean");
	CU_ASSERT_STRING_EQUAL(validate("op=a&count=1.5"), "count is not an integer");
	CU_ASSERT_STRING_EQUAL(validate("op=a&count=\"3\""), "count is not an integer");
	CU_ASSERT_STRING_EQUAL(validate("op=a&names=[\"x\",3]"), "names[1] is not a string");
	CU_ASSERT_STRING_EQUAL(validate("op=a&data=[]"), "data is not a dict");
	CU_ASSERT_STRING_EQUAL(validate("op=a&title=%20%20"), "title cannot be blank");
	CU_ASSERT_STRING_EQUAL(validate("op=a&title=%E2%9C%94%E2%9C%94%E2%9C%94%E2%9C%94%E2%9C%94x"),
			       "title is too long (limit: 5 characters)");
	CU_ASSERT_STRING_EQUAL(validate("op=a%00b"), "op must not contain null bytes");
}

/* A JSON list of n items "x" (url-encoded), in a static buffer. */
static const char *names_of(size_t n)
{
	static char q[16384];
	char *p = q + sprintf(q, "op=a&names=[");
	for (size_t i = 0; i < n; i++)
		p += sprintf(p, "%s%%22x%%22", i ? "," : "");
	strcpy(p, "]");
	return q;
}

static void test_params_list_bounds(void)
{
	CU_ASSERT_STRING_EQUAL(validate(names_of(PARAM_MAX_ITEMS)), "");
	CU_ASSERT_STRING_EQUAL(validate(names_of(PARAM_MAX_ITEMS + 1)), "names is too long (limit: 1000 items)");
	CU_ASSERT_STRING_EQUAL(validate("op=a&ids=[1,2,3]"), "");
	CU_ASSERT_STRING_EQUAL(validate("op=a&ids=[1,2,3,4]"), "ids is too long (limit: 3 items)");
	/* A JSON parameter is bounded when it is a list, and only then. */
	CU_ASSERT_STRING_EQUAL(validate("op=a&list=[1,\"a\"]"), "");
	CU_ASSERT_STRING_EQUAL(validate("op=a&list=[1,2,3]"), "list is too long (limit: 2 items)");
	CU_ASSERT_STRING_EQUAL(validate("op=a&list={\"a\":1,\"b\":2,\"c\":3}"), "");
}

static void test_params_integer_bounds(void)
{
	CU_ASSERT_STRING_EQUAL(validate("op=a&small=2147483647"), "");
	CU_ASSERT_EQUAL(param_int(&req, "small"), 2147483647);
	CU_ASSERT_STRING_EQUAL(validate("op=a&small=2147483648"), "small is too large");
	CU_ASSERT_STRING_EQUAL(validate("op=a&small=-1"), "small is too small");
	CU_ASSERT_STRING_EQUAL(validate("op=a&small=0"), "");
	/* Without flags: a bigint; json-c saturates what does not fit, which must not pass for INT64_MAX. */
	CU_ASSERT_STRING_EQUAL(validate("op=a&count=9223372036854775807"), "");
	CU_ASSERT_EQUAL(param_int(&req, "count"), INT64_MAX);
	CU_ASSERT_STRING_EQUAL(validate("op=a&count=9223372036854775808"), "count is too large");
	CU_ASSERT_STRING_EQUAL(validate("op=a&count=99999999999999999999999"), "count is too large");
	CU_ASSERT_STRING_EQUAL(validate("op=a&count=-9223372036854775807"), "");
	CU_ASSERT_STRING_EQUAL(validate("op=a&count=-9223372036854775809"), "count is too small");
	CU_ASSERT_STRING_EQUAL(validate("op=a&to=[1,99999999999999999999]"), "to[1] is too large");
	CU_ASSERT_STRING_EQUAL(validate("op=a&ids=[0,-1]"), "ids[1] is too small");
	/* Path parameters are bounded as well (the router lets only digits through). */
	request_finish(&req);
	request_init(&req, NULL, 1);
	req.route = &route;
	req.path_args[0] = "18446744073709551616";
	form_parse_urlencoded(&req, "op=a", 4);
	CU_ASSERT_EQUAL(param_validate(&req, specs), -1);
	CU_ASSERT_STRING_EQUAL(req.error_msg, "user_id is too large");
}

static void test_params_values_and_defaults(void)
{
	CU_ASSERT_STRING_EQUAL(validate("op=start&to=[3,4]&flag=true&title=%E2%9C%94%E2%9C%94%E2%9C%94%E2%9C%94%E2%9C%94"), "");
	CU_ASSERT_EQUAL(param_int(&req, "user_id"), 42);
	CU_ASSERT_STRING_EQUAL(param_str(&req, "op"), "start");
	CU_ASSERT_TRUE(param_bool(&req, "flag"));
	CU_ASSERT_EQUAL(param_int(&req, "count"), 7);
	CU_ASSERT_FALSE(param_present(&req, "count"));
	CU_ASSERT_TRUE(param_set(&req, "count"));
	CU_ASSERT_EQUAL(json_object_array_length(param_json(&req, "to")), 2);
	CU_ASSERT_FALSE(param_present(&req, "names"));
}

static void test_params_ignored_parameters_sorted(void)
{
	CU_ASSERT_STRING_EQUAL(validate("zeta=1&op=a&alpha=2&zeta=3"), "");
	size_t len;
	const char *body = request_body_json(&req, &len);
	CU_ASSERT_PTR_NOT_NULL(strstr(body, "\"ignored_parameters_unsupported\":[\"alpha\",\"zeta\"]"));
	CU_ASSERT_EQUAL(req.status, 200);
}

static void test_params_error_body_has_no_ignored(void)
{
	CU_ASSERT_STRING_EQUAL(validate("zeta=1"), "Missing 'op' argument");
	size_t len;
	const char *body = request_body_json(&req, &len);
	CU_ASSERT_STRING_EQUAL(body, "{\"result\":\"error\",\"msg\":\"Missing 'op' argument\","
				     "\"code\":\"REQUEST_VARIABLE_MISSING\",\"var_name\":\"op\"}");
	CU_ASSERT_EQUAL(req.status, 400);
}

int main(void)
{
	request_init(&req, NULL, 1);
	static const struct unit_test tests[] = {
		{"test_params_missing", test_params_missing},
		{"test_params_types", test_params_types},
		{"test_params_list_bounds", test_params_list_bounds},
		{"test_params_integer_bounds", test_params_integer_bounds},
		{"test_params_values_and_defaults", test_params_values_and_defaults},
		{"test_params_ignored_parameters_sorted", test_params_ignored_parameters_sorted},
		{"test_params_error_body_has_no_ignored", test_params_error_body_has_no_ignored},
		{NULL, NULL},
	};
	int rc = unit_run("params", tests);
	request_finish(&req);
	return rc;
}
