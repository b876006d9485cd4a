/*
 * One API request from parsing to response: a unit of work (core/uow.h: arena, connections, transaction, error,
 * events, acting user) plus what only HTTP has. Everything it allocates lives in req->arena and is released by
 * request_finish(), which also gives back the connections the work took.
 */
#ifndef CONFAB_REQUEST_H
#define CONFAB_REQUEST_H

#include <json-c/json.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/arena.h"
#include "core/uow.h"
#include "http/errors.h"

struct route;
struct param_value;

/* A request parameter as the client sent it: query string, form field or multipart part. */
struct raw_param {
	const char *name;
	const char *value; /* NUL-terminated; may also contain NUL bytes (see len) */
	size_t len;
	const char *filename; /* multipart file parts only, else NULL */
	const char *content_type;
	bool used;
};

#define REQUEST_MAX_PATH_ARGS 4
#define REQUEST_MAX_HEADERS   8

struct request {
	/* The unit of work, passed down as &req->uow; its fields also read directly (req->arena, req->user ...). */
	union {
		struct uow uow;
		struct {
			UOW_FIELDS
		};
	};

	/* As received. */
	const char *method;
	const char *path; /* without the /api/v1 prefix for API routes */
	bool root_path;   /* the path is not under /api/v1 (the router looks at R_ROOT routes only) */
	const char *query;
	const char *content_type;
	const char *host;
	const char *authorization; /* NULL when the header is absent */
	const char *remote_addr;
	bool internal; /* came through the internal address (FastCGI param CONFAB_INTERNAL): R_INTERNAL routes */
	/* The front end sends files named by an X-Sendfile response header (Apache's mod_xsendfile), not by
	 * X-Accel-Redirect (nginx): set by the FastCGI parameter CONFAB_FILE_SENDER=x-sendfile, which only the front
	 * end's configuration can set (a client's headers arrive as HTTP_* parameters). */
	bool x_sendfile;
	/* The body, read by request_read_body() once the route is known (its bound depends on the route). */
	const char *body;
	size_t body_len;
	int (*body_reader)(struct request *req, size_t max); /* set by the transport (http/fcgi.c); NULL: body is set */
	void *transport;                                     /* the transport's own state for body_reader */
	struct raw_param *raw;
	size_t nraw, rawcap;

	/* Routing and validated parameters. */
	const struct route *route;
	const char *path_args[REQUEST_MAX_PATH_ARGS];
	struct param_value *values;

	/* Response. */
	json_object *result; /* success fields; owned by the arena */
	const char *header_names[REQUEST_MAX_HEADERS];
	const char *header_values[REQUEST_MAX_HEADERS];
	int nheaders;
	int status; /* set by request_body_json(), or 204 set beforehand for an empty success */
	/* A response other than the JSON envelope, set by request_set_raw(); a recorded error still wins. */
	bool raw_response;
	const char *raw_content_type; /* NULL: no Content-Type header */
	const char *raw_body;
	size_t raw_body_len;
};

/* What a request may hold in its arena besides twice the largest body (docs/LIMITS.md, "Requests"). */
#define REQUEST_MEMORY_MARGIN (16 * 1024 * 1024)

/* Prepares req for a new request of worker w; its arena's limit is 2 x max_body_bytes + REQUEST_MEMORY_MARGIN. */
void request_init(struct request *req, struct worker *w, unsigned long long id);
/* Gives back pooled connections (rolling back an open transaction) and frees all request memory, giving it back to
 * the system. */
void request_finish(struct request *req);

/*
 * Reads the body, at most max bytes: 0, or -1 with the error recorded (413 ERR_TOO_LARGE past max). A body the
 * transport has set already (no body_reader) is only checked against max.
 */
int request_read_body(struct request *req, size_t max);
/* Adds a parameter. name and value (vlen bytes, NUL-terminated) must live as long as req: its arena, or static. */
void request_add_param(struct request *req, const char *name, const char *value, size_t vlen);
/* Returns the last parameter named name (form fields override the query string), or NULL. */
struct raw_param *request_find_param(struct request *req, const char *name);
/*
 * Adds a response header; names and values must outlive the request (arena or static). A name that is no token
 * or a value with a control character (CR, LF, ...) is logged and dropped, never written.
 */
void request_add_header(struct request *req, const char *name, const char *value);
/* Returns the success result object, creating it on first use. */
json_object *request_result(struct request *req);
/* Registers a json-c object to be released with the request; returns it. */
json_object *request_own_json(struct request *req, json_object *obj);
/* Serializes the response body (success or error; empty for a 204) into the arena; sets req->status. */
const char *request_body_json(struct request *req, size_t *len);
/*
 * Answers with status and body (len bytes, kept by reference: arena or static) instead of the JSON envelope,
 * e.g. an HTML error page or an empty body with X-Accel-Redirect. content_type NULL sends no Content-Type; one
 * that is no valid media type (header_is_media_type()) is logged and sent as application/octet-stream.
 */
void request_set_raw(struct request *req, int status, const char *content_type, const char *body, size_t len);
/*
 * path as the logs may show it: what follows a prefix whose rest is a credential (/join/<invitation key>, the token
 * of /user_uploads/temporary/...) or private (an upload's random part and file name) becomes "***". Returns path
 * itself or a copy in req's arena.
 */
const char *request_log_path(struct request *req, const char *path);

#endif
