/*
 * The request pipeline, above the API handlers: finds the route of a request in routes[] (http/route.h) and
 * enforces its flags in the reference's order (method, authentication, rate limit, role, parameters), runs the
 * handler in the request's transaction, commits and publishes the events the handler produced.
 */
#ifndef CONFAB_ROUTER_H
#define CONFAB_ROUTER_H

#include "http/route.h"

struct request;

/*
 * Finds the route of req->method and req->path (filling req->path_args); records 404 or 405 when none. Looks at
 * the routes under /api/v1 (req->path without that prefix), or at the R_ROOT ones when req->root_path is set.
 */
const struct route *router_find(struct request *req);
/* Routes, authenticates, validates and runs the request, whatever its path. */
void router_handle(struct request *req);

#endif
