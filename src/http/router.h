/*
 * The API as data: one table of routes (src/api/routes.c), each with its method, path pattern, handler, flags
 * and parameter table. router_handle() enforces the flags in the reference's order (method, authentication,
 * rate limit, role, parameters), runs the handler in the request's transaction and commits.
 */
#ifndef CONFAB_ROUTER_H
#define CONFAB_ROUTER_H

#include <stddef.h>

#include "http/params.h"

struct request;

#define R_PUBLIC   0x1u  /* no authentication */
#define R_ADMIN    0x2u  /* organization administrators only */
#define R_OWNER    0x4u  /* organization owners only */
#define R_TXN      0x8u  /* the handler runs in one transaction, committed before the response */
#define R_NO_GUEST 0x10u /* "Not allowed for guest users" */

struct route {
	const char *method;
	const char *pattern; /* under /api/v1; {name} matches one segment (digits only for PT_INT path params) */
	int (*handler)(struct request *req);
	unsigned flags;
	const struct param_spec *params; /* terminated by {NULL}; path params first, in pattern order */
};

extern const struct route routes[];
extern const size_t nroutes;

/* Finds the route of req->method and req->path (filling req->path_args); records 404 or 405 when none. */
const struct route *router_find(struct request *req);
/* Routes, authenticates, validates and runs the API request whose path is relative to /api/v1. */
void router_handle(struct request *req);

#endif
