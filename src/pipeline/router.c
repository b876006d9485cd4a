/* Route matching and the request pipeline; see router.h. */
#include "pipeline/router.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "api/ratelimit.h"
#include "core/config.h"
#include "core/limits.h"
#include "core/log.h"
#include "db/db.h"
#include "events/events.h"
#include "http/form.h"
#include "http/request.h"
#include "model/cache.h"
#include "model/realm.h"
#include "model/user.h"
#include "pipeline/auth.h"

#define API_PREFIX "/api/v1"

/* The spec of the n-th path parameter of route r, or NULL. */
static const struct param_spec *path_spec(const struct route *r, int n)
{
	for (const struct param_spec *p = r->params; p != NULL && p->name != NULL; p++)
		if ((p->flags & P_PATH) && n-- == 0)
			return p;
	return NULL;
}

/* Matches path against r's pattern, filling req->path_args. */
static bool match(struct request *req, const struct route *r, const char *path)
{
	if (((r->flags & R_ROOT) != 0) != req->root_path || ((r->flags & R_INTERNAL) && !req->internal))
		return false;
	const char *pat = r->pattern;
	int nargs = 0;
	while (*pat && *path) {
		if (*pat != '/' || *path != '/')
			return false;
		pat++, path++;
		if (strcmp(pat, "*") == 0)
			return *path != '\0';
		const char *pend = strchrnul(pat, '/');
		const char *send = strchrnul(path, '/');
		if (*pat == '{') {
			if (send == path || nargs == REQUEST_MAX_PATH_ARGS)
				return false;
			const struct param_spec *spec = path_spec(r, nargs);
			if (spec != NULL && spec->type == PT_INT && strspn(path, "0123456789") < (size_t)(send - path))
				return false;
			size_t len;
			req->path_args[nargs++] = form_repair_utf8(req, path, (size_t)(send - path), &len);
		} else if (pend - pat != send - path || strncmp(pat, path, (size_t)(pend - pat)) != 0) {
			return false;
		}
		pat = pend;
		path = send;
	}
	return *pat == '\0' && *path == '\0';
}

/* The methods the routes of pattern serve, in table order, with HEAD wherever GET is served (as the reference). */
static json_object *allowed_methods(const char *pattern, unsigned root)
{
	json_object *allowed = json_object_new_array();
	bool get = false;
	for (size_t i = 0; i < nroutes; i++) {
		if (strcmp(routes[i].pattern, pattern) == 0 && (routes[i].flags & R_ROOT) == root) {
			json_object_array_add(allowed, json_object_new_string(routes[i].method));
			get = get || strcmp(routes[i].method, "GET") == 0;
		}
	}
	if (get)
		json_object_array_add(allowed, json_object_new_string("HEAD"));
	return allowed;
}

static int cmp_json_str(const void *a, const void *b)
{
	return strcmp(json_object_get_string(*(json_object *const *)a),
	              json_object_get_string(*(json_object *const *)b));
}

/* "GET, POST, HEAD": the Allow header for the methods in list (sorted first when sorted is set). */
static const char *allow_header(struct request *req, json_object *list, bool sorted)
{
	if (sorted)
		json_object_array_sort(list, cmp_json_str);
	const char *out = "";
	for (size_t i = 0; i < json_object_array_length(list); i++)
		out = arena_printf(&req->arena, "%s%s%s", out, i ? ", " : "",
		                   json_object_get_string(json_object_array_get_idx(list, i)));
	return out;
}

/*
 * Finds the route for req. The first pattern that matches names the resource (so literal patterns such as
 * /users/me, listed first, shadow /users/{email}); the method then picks among the routes of that pattern, HEAD
 * being served as GET. Records 404, or 405 with allowed_methods and an Allow header, and returns NULL when there
 * is no route; OPTIONS is answered here (204 with Allow) and also returns NULL.
 */
const struct route *router_find(struct request *req)
{
	const char *pattern = NULL;
	unsigned root = req->root_path ? R_ROOT : 0;
	for (size_t i = 0; i < nroutes && pattern == NULL; i++)
		if (match(req, &routes[i], req->path))
			pattern = routes[i].pattern;
	if (pattern == NULL) {
		api_error(req, ERR_NOT_FOUND, NULL);
		return NULL;
	}
	const char *method = strcmp(req->method, "HEAD") == 0 ? "GET" : req->method;
	for (size_t i = 0; i < nroutes; i++)
		if (strcmp(routes[i].pattern, pattern) == 0 && strcmp(routes[i].method, method) == 0 &&
		    match(req, &routes[i], req->path))
			return &routes[i];
	json_object *allowed = request_own_json(req, allowed_methods(pattern, root));
	if (strcmp(req->method, "OPTIONS") == 0) {
		req->status = 204;
		request_add_header(req, "Allow", allow_header(req, allowed, true));
		return NULL;
	}
	request_add_header(req, "Allow", allow_header(req, allowed, false));
	api_error(req, ERR_METHOD, NULL);
	api_error_field(req, "allowed_methods", json_object_get(allowed));
	return NULL;
}

static int check_role(struct request *req, unsigned flags)
{
	const struct user *u = req->user;
	if ((flags & R_HUMAN) && u->is_bot)
		return api_error(req, ERR_BAD_REQUEST, "This endpoint does not accept bot requests.");
	if ((flags & R_NO_GUEST) && user_is_guest(u))
		return api_error(req, ERR_BAD_REQUEST, "Not allowed for guest users");
	if ((flags & R_OWNER) && !user_is_owner(u))
		return api_error(req, ERR_UNAUTHORIZED_PRINCIPAL, "Must be an organization owner");
	if ((flags & R_ADMIN) && !user_is_admin(u))
		return api_error(req, ERR_UNAUTHORIZED_PRINCIPAL, "Must be an organization administrator");
	return 0;
}

/* Who the request acts as, by the route's flags (route.h); records the reference's error if it may not. */
static int authenticate(struct request *req, unsigned flags)
{
	bool spectator = (flags & R_AUTH_OPTIONAL) && req->authorization == NULL;
	if ((flags & R_PUBLIC) || spectator) {
		if (flags & R_NO_REALM)
			return 0;
		/* Public routes and spectators still answer for the organization of the host, where there is one. */
		return realm_for_host(&req->uow, req->host) == NULL && req->error != ERR_NONE ? -1 : 0;
	}
	if (auth_request(req) < 0 || ratelimit_check(req) < 0)
		return -1;
	return check_role(req, flags);
}

#ifdef CONFAB_FAULT_POINTS
/*
 * Test-only (configure --enable-fault-points; ./scripts/test builds that way, releases never): a request with
 * "X-Confab-Fault: NAME" ends the whole worker process at fault point NAME, as kill -9 would, so that tests can
 * show that nothing is lost there (tests/integration/test_outbox.c); at "crash" it aborts, as a failed check or a
 * bad pointer would end it, so that the crash handler logs the route (core/crash.h; tests/integration/
 * test_supervision.c). confab-supervise starts a new worker.
 */
static void fault_point(const struct request *req, const char *name)
{
	if (req->fault != NULL && strcmp(req->fault, name) == 0) {
		log_msg(LOG_WARNING, "request %llu: fault point %s: exiting", req->id, name);
		if (strcmp(name, "crash") == 0)
			abort();
		_exit(70);
	}
}
#else
#define fault_point(req, name) ((void)0)
#endif

/* The most bytes of r's body: a file's for the routes that take one, a form's for the others (docs/LIMITS.md). */
static size_t body_limit(const struct request *req, const struct route *r)
{
	size_t max = req->worker->cfg->max_body_bytes;
	return (r->flags & R_UPLOAD) || max < FORM_MAX_BYTES ? max : FORM_MAX_BYTES;
}

static int run(struct request *req)
{
	const struct route *r = router_find(req);
	if (r == NULL)
		return -1;
	req->route = r;
	fault_point(req, "crash");
	if (request_read_body(req, body_limit(req, r)) < 0 || form_parse_body(req) < 0 ||
	    authenticate(req, r->flags) < 0)
		return -1;
	if (param_validate(req, r->params) < 0)
		return -1;
	if ((r->flags & R_TXN) && db_begin(&req->uow) < 0)
		return -1;
	uint64_t heard = cache_heard(req->worker->cache);
	/* The transactional outbox: the events commit with the change; after COMMIT they are published, then their
	 * rows deleted. A worker that dies in between leaves the rows to the reaper (events.h). */
	if (r->handler(req) < 0 || events_outbox_commit(&req->uow) < 0)
		return -1;
	/* Rows the processes cache changed: answer once this process has heard of it (model/cache.h), so that the
	 * client's next request, to any process, finds the change. */
	if (db_take_cache_notice(&req->uow))
		cache_await(req->worker->cache, heard);
	fault_point(req, "exit-after-commit");
	events_publish(&req->uow);
	fault_point(req, "exit-after-publish");
	events_outbox_clear(&req->uow);
	return 0;
}

void router_handle(struct request *req)
{
	/* API routes are written without their common prefix; every other path is an R_ROOT route's. */
	size_t plen = strlen(API_PREFIX);
	req->path = form_repercent_utf8(req, req->path);
	if (strncmp(req->path, API_PREFIX, plen) == 0 && (req->path[plen] == '/' || req->path[plen] == '\0'))
		req->path += plen;
	else
		req->root_path = true;
	if (form_parse_urlencoded(req, req->query, strlen(req->query)) == 0)
		run(req);
	/* On error, request_finish() rolls the transaction back. */
}
