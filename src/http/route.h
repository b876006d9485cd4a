/*
 * The API as data: a route is one line of the table routes[] (src/api/routes.c): method, path pattern, handler,
 * flags and parameter table. Every path the worker serves is a line of it, /api/v1 and the others (R_ROOT). The
 * pipeline (pipeline/router.c) finds the route and enforces its flags before it runs the handler.
 */
#ifndef CONFAB_ROUTE_H
#define CONFAB_ROUTE_H

#include <stddef.h>
#include <stdint.h>

#include "http/params.h"

struct request;

#define R_PUBLIC   0x1u  /* no authentication (the organization of the host is still looked up, if any) */
#define R_ADMIN    0x2u  /* organization administrators only */
#define R_OWNER    0x4u  /* organization owners only */
#define R_TXN      0x8u  /* the handler runs in one transaction, committed before the response */
#define R_NO_GUEST 0x10u /* "Not allowed for guest users" */
/*
 * Authentication if the request brings credentials; without them a spectator of the host's organization, with
 * req->user NULL (the reference's web-public access: POST /register, the uploaded files). A host without an
 * organization answers 401 as for an authenticated route.
 */
#define R_AUTH_OPTIONAL 0x20u
#define R_ROOT          0x40u  /* the pattern is the whole path, not one under /api/v1 (/health, /user_uploads/...) */
#define R_NO_REALM      0x80u  /* with R_PUBLIC: no organization lookup (/health answers with PostgreSQL down) */
#define R_HUMAN         0x100u /* the reference's human_users_only: "This endpoint does not accept bot requests." */
/* Only on the internal address (nginx's metrics server passes CONFAB_INTERNAL=1); elsewhere an unknown path (404). */
#define R_INTERNAL 0x200u
/* Takes a file: a body up to max_body_bytes (confab.conf); any other route's body is at most FORM_MAX_BYTES. */
#define R_UPLOAD 0x400u

struct route {
	const char *method;
	/*
	 * Under /api/v1 unless R_ROOT. {name} matches one non-empty segment (digits only for PT_INT path params); a
	 * final "*" matches the non-empty rest of the path, slashes included.
	 */
	const char *pattern;
	int (*handler)(struct request *req);
	unsigned flags;
	const struct param_spec *params; /* terminated by {NULL}; path params first, in pattern order */
};

extern const struct route routes[];
extern const size_t nroutes;
/* A hash of the table's methods and patterns: metrics files of another table are not summed by route. */
uint64_t routes_layout(void);

#endif
