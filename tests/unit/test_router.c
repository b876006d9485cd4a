/* Route matching on the real route table: literal paths first, typed path parameters, 404 and 405. */
#include <string.h>

#include "api/api.h"
#include "core/jsonx.h"
#include "http/request.h"
#include "pipeline/router.h"
#include "unit.h"

static struct request req;

static const struct route *find(const char *method, const char *path)
{
	request_finish(&req);
	request_init(&req, NULL, 1);
	req.method = method;
	req.path = path;
	return router_find(&req);
}

static void test_router_literal_before_parameter(void)
{
	const struct route *r = find("GET", "/users/me");
	CU_ASSERT_PTR_NOT_NULL_FATAL(r);
	CU_ASSERT_PTR_EQUAL(r->handler, users_me_get);
}

static void test_router_int_and_string_parameters(void)
{
	const struct route *r = find("GET", "/users/12");
	CU_ASSERT_PTR_NOT_NULL_FATAL(r);
	CU_ASSERT_PTR_EQUAL(r->handler, users_get_by_id);
	CU_ASSERT_STRING_EQUAL(req.path_args[0], "12");
	r = find("GET", "/users/someone@example.com");
	CU_ASSERT_PTR_NOT_NULL_FATAL(r);
	CU_ASSERT_PTR_EQUAL(r->handler, users_get_by_email);
	CU_ASSERT_STRING_EQUAL(req.path_args[0], "someone@example.com");
}

static void test_router_not_found(void)
{
	CU_ASSERT_PTR_NULL(find("GET", "/nonexistent"));
	CU_ASSERT_EQUAL(req.error, ERR_NOT_FOUND);
	CU_ASSERT_PTR_NULL(find("GET", "/users/"));
	CU_ASSERT_PTR_NULL(find("GET", "/users/me/extra/segments"));
}

static void test_router_method_not_allowed(void)
{
	CU_ASSERT_PTR_NULL(find("DELETE", "/users"));
	CU_ASSERT_EQUAL(req.error, ERR_METHOD);
	json_object *allowed;
	CU_ASSERT_TRUE_FATAL(json_object_object_get_ex(req.error_fields, "allowed_methods", &allowed));
	CU_ASSERT_STRING_EQUAL(jsonx_string(allowed), "[\"GET\",\"POST\",\"HEAD\"]");
	CU_ASSERT_STRING_EQUAL(req.header_values[0], "GET, POST, HEAD");
	CU_ASSERT_PTR_NULL(find("POST", "/users/me"));
	CU_ASSERT_TRUE_FATAL(json_object_object_get_ex(req.error_fields, "allowed_methods", &allowed));
	CU_ASSERT_STRING_EQUAL(jsonx_string(allowed), "[\"GET\",\"DELETE\",\"HEAD\"]");
}

static void test_router_head_is_get(void)
{
	const struct route *r = find("HEAD", "/users/me");
	CU_ASSERT_PTR_NOT_NULL_FATAL(r);
	CU_ASSERT_PTR_EQUAL(r->handler, users_me_get);
}

static void test_router_options_lists_methods(void)
{
	CU_ASSERT_PTR_NULL(find("OPTIONS", "/users"));
	CU_ASSERT_EQUAL(req.error, ERR_NONE);
	CU_ASSERT_EQUAL(req.status, 204);
	CU_ASSERT_STRING_EQUAL(req.header_names[0], "Allow");
	CU_ASSERT_STRING_EQUAL(req.header_values[0], "GET, HEAD, POST");
}

/* Paths outside /api/v1 are R_ROOT routes: matched only as such, a final "*" taking the rest of the path. */
static const struct route *find_root(const char *method, const char *path)
{
	request_finish(&req);
	request_init(&req, NULL, 1);
	req.method = method;
	req.path = path;
	req.root_path = true;
	return router_find(&req);
}

static void test_router_root_routes(void)
{
	const struct route *r = find_root("GET", "/health");
	CU_ASSERT_PTR_NOT_NULL_FATAL(r);
	CU_ASSERT_PTR_EQUAL(r->handler, health_get);
	CU_ASSERT_PTR_NULL(find("GET", "/health")); /* not under /api/v1 */
	r = find_root("GET", "/user_uploads/2/ab/cd/x.png");
	CU_ASSERT_PTR_NOT_NULL_FATAL(r);
	CU_ASSERT_PTR_EQUAL(r->handler, uploads_serve);
	CU_ASSERT_STRING_EQUAL(req.path_args[0], "2");
	r = find_root("HEAD", "/user_uploads/temporary/token/x.png");
	CU_ASSERT_PTR_NOT_NULL_FATAL(r);
	CU_ASSERT_PTR_EQUAL(r->handler, uploads_serve_temporary);
	r = find_root("GET", "/user_uploads/temporary/token/x/y.png"); /* a file path, not a temporary URL */
	CU_ASSERT_PTR_NOT_NULL_FATAL(r);
	CU_ASSERT_PTR_EQUAL(r->handler, uploads_serve);
	CU_ASSERT_PTR_NULL(find_root("GET", "/user_uploads/2")); /* "*" needs a non-empty rest */
	CU_ASSERT_EQUAL(req.error, ERR_NOT_FOUND);
	CU_ASSERT_PTR_NULL(find_root("GET", "/user_uploads/2/"));
	CU_ASSERT_PTR_NULL(find_root("GET", "/users/me")); /* API routes only under /api/v1 */
	CU_ASSERT_PTR_NULL(find_root("POST", "/user_uploads/2/ab/x.png"));
	CU_ASSERT_EQUAL(req.error, ERR_METHOD);
}

int main(void)
{
	request_init(&req, NULL, 1);
	static const struct unit_test tests[] = {
		{"test_router_literal_before_parameter", test_router_literal_before_parameter},
		{"test_router_int_and_string_parameters", test_router_int_and_string_parameters},
		{"test_router_not_found", test_router_not_found},
		{"test_router_method_not_allowed", test_router_method_not_allowed},
		{"test_router_head_is_get", test_router_head_is_get},
		{"test_router_options_lists_methods", test_router_options_lists_methods},
		{"test_router_root_routes", test_router_root_routes},
		{NULL, NULL},
	};
	int rc = unit_run("router", tests);
	request_finish(&req);
	return rc;
}
