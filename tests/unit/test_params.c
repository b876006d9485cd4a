/* The generic parameter validator: the reference's messages and ignored_parameters_unsupported. */
#include <string.h>

#include "http/form.h"
#include "http/params.h"
#include "http/request.h"
#include "http/router.h"
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
		{"test_params_values_and_defaults", test_params_values_and_defaults},
		{"test_params_ignored_parameters_sorted", test_params_ignored_parameters_sorted},
		{"test_params_error_body_has_no_ignored", test_params_error_body_has_no_ignored},
		{NULL, NULL},
	};
	int rc = unit_run("params", tests);
	request_finish(&req);
	return rc;
}
