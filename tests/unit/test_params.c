/* The generic parameter validator: the reference's messages and ignored_parameters_unsupported. */
#include <stdio.h>
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
	{"maybe", PT_BOOL, P_NULL, 0, "true"},
	{"group", PT_GROUP_SETTING, P_NULL, 0, NULL},
	{"strict_group", PT_GROUP_SETTING, 0, 0, NULL},
	{"update", PT_GROUP_UPDATE, P_NULL, 0, NULL},
	{"limit", PT_LIMIT, P_UNLIMITED, 0, NULL},
	{"retention", PT_LIMIT, P_NULL | P_UNLIMITED | P_REALM_DEFAULT, 0, NULL},
	{"anchor", PT_ANCHOR, 0, 0, NULL},
	{"pairs", PT_STR_PAIRS, P_NULL, 2, NULL},
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

static void test_params_null(void)
{
	/* P_NULL: a JSON null is as if not sent, so the default applies. */
	CU_ASSERT_STRING_EQUAL(validate("op=a&maybe=null"), "");
	CU_ASSERT_FALSE(param_present(&req, "maybe"));
	CU_ASSERT_TRUE(param_bool(&req, "maybe"));
	CU_ASSERT_STRING_EQUAL(validate("op=a&maybe=false"), "");
	CU_ASSERT_TRUE(param_present(&req, "maybe"));
	CU_ASSERT_FALSE(param_bool(&req, "maybe"));
	CU_ASSERT_STRING_EQUAL(validate("op=a&maybe=3"), "maybe is not a boolean");
	/* Without it, null is a value of the wrong type. */
	CU_ASSERT_STRING_EQUAL(validate("op=a&flag=null"), "flag is not a boolean");
	CU_ASSERT_STRING_EQUAL(validate("op=a&group=null"), "");
	CU_ASSERT_FALSE(param_present(&req, "group"));
	CU_ASSERT_PTR_NULL(param_group_setting(&req, "group"));
	CU_ASSERT_STRING_EQUAL(validate("op=a&update=null"), "");
	CU_ASSERT_PTR_NULL(param_group_update(&req, "update"));
}

/* A query with parameter name set to a JSON object {"key": [ids 1..n], ...rest} (url-encoded), in a static buffer. */
static const char *long_setting(const char *name, const char *key, size_t n, const char *rest)
{
	static char q[16384];
	char *p = q + sprintf(q, "op=a&%s=%%7B%%22%s%%22:[", name, key);
	for (size_t i = 0; i < n; i++)
		p += sprintf(p, "%s%zu", i ? "," : "", i + 1);
	sprintf(p, "],%s%%7D", rest);
	return q;
}

static void test_params_group_setting(void)
{
	CU_ASSERT_STRING_EQUAL(validate("op=a&group=5"), "");
	const struct group_setting_value *g = param_group_setting(&req, "group");
	CU_ASSERT_FATAL(g != NULL);
	CU_ASSERT_FALSE(g->is_anonymous);
	CU_ASSERT_EQUAL(g->group_id, 5);
	CU_ASSERT_TRUE(json_object_is_type(g->json, json_type_int));
	CU_ASSERT_STRING_EQUAL(validate("op=a&group={\"direct_subgroups\":[3],\"direct_members\":[1,2]}"), "");
	g = param_group_setting(&req, "group");
	CU_ASSERT_FATAL(g != NULL);
	CU_ASSERT_TRUE(g->is_anonymous);
	CU_ASSERT_EQUAL(g->nmembers, 2);
	CU_ASSERT_EQUAL(g->members[0], 1);
	CU_ASSERT_EQUAL(g->members[1], 2);
	CU_ASSERT_EQUAL(g->nsubgroups, 1);
	CU_ASSERT_EQUAL(g->subgroups[0], 3);
	CU_ASSERT_TRUE(json_object_is_type(g->json, json_type_object));
	CU_ASSERT_STRING_EQUAL(validate("op=a&group={\"direct_members\":[],\"direct_subgroups\":[]}"), "");
	CU_ASSERT_EQUAL(param_group_setting(&req, "group")->nmembers, 0);
	CU_ASSERT_STRING_EQUAL(validate("op=a"), "");
	CU_ASSERT_PTR_NULL(param_group_setting(&req, "group"));
	static const char *const bad[] = {
	    "\"5\"",
	    "1.5",
	    "true",
	    "[]",
	    "{}",
	    "{\"direct_members\":[1]}",
	    "{\"direct_members\":[1],\"direct_subgroups\":[],\"x\":1}",
	    "{\"direct_members\":[1,\"a\"],\"direct_subgroups\":[]}",
	    "{\"direct_members\":[],\"direct_subgroups\":5}",
	    "{\"members\":[],\"direct_subgroups\":[]}",
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char q[256];
		snprintf(q, sizeof(q), "op=a&group=%s", bad[i]);
		CU_ASSERT_STRING_EQUAL(validate(q), "Invalid group");
	}
	CU_ASSERT_STRING_EQUAL(validate("op=a&strict_group=null"), "Invalid strict_group");
	CU_ASSERT_STRING_EQUAL(validate("op=a&group=nope"), "group is not valid JSON");
	CU_ASSERT_STRING_EQUAL(validate(long_setting("group", "direct_members", PARAM_MAX_ITEMS, "%22direct_subgroups%22:[]")),
			       "");
	CU_ASSERT_STRING_EQUAL(
	    validate(long_setting("group", "direct_members", PARAM_MAX_ITEMS + 1, "%22direct_subgroups%22:[]")),
	    "group[\"direct_members\"] is too long (limit: 1000 items)");
	CU_ASSERT_STRING_EQUAL(
	    validate(long_setting("group", "direct_subgroups", PARAM_MAX_ITEMS + 1, "%22direct_members%22:[]")),
	    "group[\"direct_subgroups\"] is too long (limit: 1000 items)");
}

static void test_params_group_update(void)
{
	CU_ASSERT_STRING_EQUAL(validate("op=a&update={\"new\":5}"), "");
	const struct group_setting_update *u = param_group_update(&req, "update");
	CU_ASSERT_FATAL(u != NULL);
	CU_ASSERT_FALSE(u->has_old);
	CU_ASSERT_EQUAL(u->new_value.group_id, 5);
	CU_ASSERT_STRING_EQUAL(
	    validate("op=a&update={\"old\":3,\"new\":{\"direct_members\":[4],\"direct_subgroups\":[]}}"), "");
	u = param_group_update(&req, "update");
	CU_ASSERT_FATAL(u != NULL);
	CU_ASSERT_TRUE(u->has_old);
	CU_ASSERT_FALSE(u->old.is_anonymous);
	CU_ASSERT_EQUAL(u->old.group_id, 3);
	CU_ASSERT_TRUE(u->new_value.is_anonymous);
	CU_ASSERT_EQUAL(u->new_value.nmembers, 1);
	CU_ASSERT_EQUAL(u->new_value.members[0], 4);
	/* An old of null is no old. */
	CU_ASSERT_STRING_EQUAL(validate("op=a&update={\"new\":5,\"old\":null}"), "");
	CU_ASSERT_FALSE(param_group_update(&req, "update")->has_old);
	CU_ASSERT_STRING_EQUAL(validate("op=a&update=5"), "update is not a dict");
	CU_ASSERT_STRING_EQUAL(validate("op=a&update=[]"), "update is not a dict");
	CU_ASSERT_STRING_EQUAL(validate("op=a&update={}"), "Invalid update");
	CU_ASSERT_STRING_EQUAL(validate("op=a&update={\"old\":5}"), "Invalid update");
	CU_ASSERT_STRING_EQUAL(validate("op=a&update={\"new\":null}"), "Invalid update");
	CU_ASSERT_STRING_EQUAL(validate("op=a&update={\"new\":\"x\"}"), "Invalid update");
	CU_ASSERT_STRING_EQUAL(validate("op=a&update={\"new\":5,\"old\":[]}"), "Invalid update");
	CU_ASSERT_STRING_EQUAL(validate(long_setting("update", "new%22:%7B%22direct_members", PARAM_MAX_ITEMS + 1,
						     "%22direct_subgroups%22:[]%7D")),
			       "update[\"direct_members\"] is too long (limit: 1000 items)");
}

/* Validates q, then reads the limit name: its kind and value, or -1 with the message in *msg. */
static int limit_of(const char *q, const char *name, enum param_limit_kind *kind, int64_t *value, const char **msg)
{
	*msg = validate(q);
	if (**msg != '\0')
		return -2;
	int rc = param_limit(&req, name, kind, value);
	*msg = rc < 0 ? req.error_msg : "";
	return rc;
}

static void test_params_limit(void)
{
	enum param_limit_kind kind;
	int64_t value;
	const char *msg;
	CU_ASSERT_EQUAL(limit_of("op=a&limit=30", "limit", &kind, &value, &msg), 0);
	CU_ASSERT_EQUAL(kind, LIMIT_VALUE);
	CU_ASSERT_EQUAL(value, 30);
	CU_ASSERT_EQUAL(limit_of("op=a&limit=2147483647", "limit", &kind, &value, &msg), 0);
	CU_ASSERT_EQUAL(value, 2147483647);
	CU_ASSERT_EQUAL(limit_of("op=a&limit=%22unlimited%22", "limit", &kind, &value, &msg), 0);
	CU_ASSERT_EQUAL(kind, LIMIT_UNLIMITED);
	CU_ASSERT_EQUAL(limit_of("op=a", "limit", &kind, &value, &msg), 0);
	CU_ASSERT_EQUAL(kind, LIMIT_NONE);
	CU_ASSERT_EQUAL(limit_of("op=a&retention=%22realm_default%22", "retention", &kind, &value, &msg), 0);
	CU_ASSERT_EQUAL(kind, LIMIT_REALM_DEFAULT);
	CU_ASSERT_EQUAL(limit_of("op=a&retention=null", "retention", &kind, &value, &msg), 0);
	CU_ASSERT_EQUAL(kind, LIMIT_NONE);
	/* A keyword the parameter does not take, and numbers out of range: the reference's conversion error. */
	CU_ASSERT_EQUAL(limit_of("op=a&limit=%22realm_default%22", "limit", &kind, &value, &msg), -1);
	CU_ASSERT_STRING_EQUAL(msg, "Bad value for 'limit': realm_default");
	CU_ASSERT_EQUAL(req.error, ERR_VAR_INVALID);
	json_object *v;
	CU_ASSERT_TRUE(json_object_object_get_ex(req.error_fields, "var_name", &v));
	CU_ASSERT_STRING_EQUAL(json_object_get_string(v), "limit");
	CU_ASSERT_TRUE(json_object_object_get_ex(req.error_fields, "bad_value", &v));
	CU_ASSERT_STRING_EQUAL(json_object_get_string(v), "realm_default");
	CU_ASSERT_EQUAL(limit_of("op=a&limit=0", "limit", &kind, &value, &msg), -1);
	CU_ASSERT_STRING_EQUAL(msg, "Bad value for 'limit': 0");
	CU_ASSERT_TRUE(json_object_object_get_ex(req.error_fields, "bad_value", &v));
	CU_ASSERT_TRUE(json_object_is_type(v, json_type_int));
	CU_ASSERT_EQUAL(limit_of("op=a&limit=-5", "limit", &kind, &value, &msg), -1);
	CU_ASSERT_STRING_EQUAL(msg, "Bad value for 'limit': -5");
	CU_ASSERT_EQUAL(limit_of("op=a&limit=2147483648", "limit", &kind, &value, &msg), -1);
	CU_ASSERT_STRING_EQUAL(msg, "Bad value for 'limit': 2147483648");
	CU_ASSERT_EQUAL(limit_of("op=a&retention=%22never%22", "retention", &kind, &value, &msg), -1);
	CU_ASSERT_STRING_EQUAL(msg, "Bad value for 'retention': never");
	/* json-c strings may hold NUL bytes, which no JSON string of a parameter may (issue 29). */
	CU_ASSERT_EQUAL(limit_of("op=a&limit=%22unlimited%5Cu0000x%22", "limit", &kind, &value, &msg), -2);
	CU_ASSERT_STRING_EQUAL(msg, "limit must not contain null bytes");
	/* Neither an integer nor a string: refused by the validator. */
	CU_ASSERT_EQUAL(limit_of("op=a&limit=true", "limit", &kind, &value, &msg), -2);
	CU_ASSERT_STRING_EQUAL(msg, "limit is not an integer");
	CU_ASSERT_EQUAL(limit_of("op=a&limit=1.5", "limit", &kind, &value, &msg), -2);
	CU_ASSERT_STRING_EQUAL(msg, "limit is not an integer");
	CU_ASSERT_EQUAL(limit_of("op=a&limit=null", "limit", &kind, &value, &msg), -2);
	CU_ASSERT_STRING_EQUAL(msg, "limit is not an integer");
	CU_ASSERT_EQUAL(limit_of("op=a&limit=unlimited", "limit", &kind, &value, &msg), -2);
	CU_ASSERT_STRING_EQUAL(msg, "limit is not valid JSON");
}

/* Validates q and reads its anchor: the value, or INT64_MIN after "Invalid anchor". */
static int64_t anchor_of(const char *q)
{
	CU_ASSERT_STRING_EQUAL(validate(q), "");
	int64_t anchor;
	if (param_anchor(&req, "anchor", &anchor) == 0)
		return anchor;
	CU_ASSERT_STRING_EQUAL(req.error_msg, "Invalid anchor");
	CU_ASSERT_EQUAL(req.error, ERR_BAD_REQUEST);
	return INT64_MIN;
}

static void test_params_anchor(void)
{
	CU_ASSERT_EQUAL(anchor_of("op=a&anchor=42"), 42);
	CU_ASSERT_EQUAL(anchor_of("op=a&anchor=newest"), PARAM_ANCHOR_NEWEST);
	CU_ASSERT_EQUAL(anchor_of("op=a&anchor=oldest"), 0);
	CU_ASSERT_EQUAL(anchor_of("op=a&anchor=first_unread"), PARAM_ANCHOR_FIRST_UNREAD);
	/* Python's int(): clamped to [0, LARGER_THAN_MAX_MESSAGE_ID], white space, a sign, underscores. */
	CU_ASSERT_EQUAL(anchor_of("op=a&anchor=-5"), 0);
	CU_ASSERT_EQUAL(anchor_of("op=a&anchor=10000000000000000"), PARAM_ANCHOR_NEWEST);
	CU_ASSERT_EQUAL(anchor_of("op=a&anchor=10000000000000001"), PARAM_ANCHOR_NEWEST);
	CU_ASSERT_EQUAL(anchor_of("op=a&anchor=99999999999999999999999999"), PARAM_ANCHOR_NEWEST);
	CU_ASSERT_EQUAL(anchor_of("op=a&anchor=%20%097%0D%0A"), 7);
	CU_ASSERT_EQUAL(anchor_of("op=a&anchor=%2B3"), 3);
	CU_ASSERT_EQUAL(anchor_of("op=a&anchor=007"), 7);
	CU_ASSERT_EQUAL(anchor_of("op=a&anchor=1_000"), 1000);
	CU_ASSERT_EQUAL(anchor_of("op=a&anchor=-0"), 0);
	static const char *const bad[] = {"",  "%20",  "abc", "1__0", "_1",      "1_", "0x10", "1.5", "%2B",
					  "--1", "1%201", "%22newest%22", "Newest", "newest%20", "1%00", "null"};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char q[64];
		snprintf(q, sizeof(q), "op=a&anchor=%s", bad[i]);
		CU_ASSERT_EQUAL(anchor_of(q), INT64_MIN);
	}
}

static void test_params_str_pairs(void)
{
	CU_ASSERT_STRING_EQUAL(validate("op=a&pairs=[[\"stream\",\"x\"],[\"topic\",\"y\"]]"), "");
	CU_ASSERT_EQUAL(json_object_array_length(param_json(&req, "pairs")), 2);
	CU_ASSERT_STRING_EQUAL(validate("op=a&pairs=[]"), "");
	CU_ASSERT_STRING_EQUAL(validate("op=a&pairs=null"), "");
	CU_ASSERT_PTR_NULL(param_json(&req, "pairs"));
	CU_ASSERT_STRING_EQUAL(validate("op=a&pairs={}"), "pairs is not a list");
	CU_ASSERT_STRING_EQUAL(validate("op=a&pairs=[\"stream\"]"), "pairs[0] is not a list");
	CU_ASSERT_STRING_EQUAL(validate("op=a&pairs=[[\"a\",\"b\"],[\"stream\",1]]"), "pairs[1][1] is not a string");
	CU_ASSERT_STRING_EQUAL(validate("op=a&pairs=[[\"stream\"]]"), "pairs[0] should have exactly 2 items");
	CU_ASSERT_STRING_EQUAL(validate("op=a&pairs=[[\"a\",\"b\",\"c\"]]"), "pairs[0] should have exactly 2 items");
	/* The strings are checked before the length. */
	CU_ASSERT_STRING_EQUAL(validate("op=a&pairs=[[\"a\",\"b\",3]]"), "pairs[0][2] is not a string");
	CU_ASSERT_STRING_EQUAL(validate("op=a&pairs=[[\"a\",\"b\"],[\"a\",\"b\"],[\"a\",\"b\"]]"),
			       "pairs is too long (limit: 2 items)");
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
		{"test_params_null", test_params_null},
		{"test_params_group_setting", test_params_group_setting},
		{"test_params_group_update", test_params_group_update},
		{"test_params_limit", test_params_limit},
		{"test_params_anchor", test_params_anchor},
		{"test_params_str_pairs", test_params_str_pairs},
		{"test_params_ignored_parameters_sorted", test_params_ignored_parameters_sorted},
		{"test_params_error_body_has_no_ignored", test_params_error_body_has_no_ignored},
		{NULL, NULL},
	};
	int rc = unit_run("params", tests);
	request_finish(&req);
	return rc;
}
