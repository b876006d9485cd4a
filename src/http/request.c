/* Request lifecycle, parameters and response building; see request.h. */
#include "http/request.h"

#include <malloc.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "core/config.h"
#include "core/header.h"
#include "core/log.h"
#include "http/route.h"

/* A request that held more than this gives the free memory of every malloc arena back to the system at its end. */
#define REQUEST_TRIM_BYTES (8 * 1024 * 1024)

/* Requests of the process between request_init() and request_finish(), and whether a large one ended since the last
 * time none was running. */
static atomic_int live_requests;
static atomic_bool trim_pending;

void request_init(struct request *req, struct worker *w, unsigned long long id)
{
	memset(req, 0, sizeof(*req));
	atomic_fetch_add(&live_requests, 1);
	uow_init(&req->uow, w, id);
	/* The body (a file upload's included), a copy of it, and what its parameters cost parsed. */
	if (w != NULL && w->cfg != NULL)
		arena_set_limit(&req->arena, 2 * w->cfg->max_body_bytes + REQUEST_MEMORY_MARGIN);
	req->method = req->path = req->query = req->content_type = req->host = "";
	req->authorization = NULL; /* absent; "" is an empty header */
	req->remote_addr = "";
	req->body = "";
}

void request_finish(struct request *req)
{
	bool large = arena_held(&req->arena) > REQUEST_TRIM_BYTES;
	uow_finish(&req->uow);
	/*
	 * Its blocks were large and unmapped already (core/arena.h); what else it freed (json-c's small objects, say)
	 * may lie between memory still in use, where only malloc_trim() finds it. Requests running meanwhile may free
	 * theirs later: the last request of a burst to end trims once more.
	 */
	if (large) {
		atomic_store(&trim_pending, true);
		malloc_trim(0);
	}
	if (atomic_fetch_sub(&live_requests, 1) == 1 && atomic_exchange(&trim_pending, false))
		malloc_trim(0);
}

int request_read_body(struct request *req, size_t max)
{
	if (req->body_reader != NULL)
		return req->body_reader(req, max);
	return req->body_len > max ? api_error(req, ERR_TOO_LARGE, NULL) : 0;
}

void request_add_param(struct request *req, const char *name, const char *value, size_t vlen)
{
	if (req->nraw == req->rawcap) {
		size_t cap = req->rawcap ? req->rawcap * 2 : 16;
		struct raw_param *p = arena_alloc(&req->arena, cap * sizeof(*p));
		if (req->nraw)
			memcpy(p, req->raw, req->nraw * sizeof(*p));
		req->raw = p;
		req->rawcap = cap;
	}
	struct raw_param *p = &req->raw[req->nraw++];
	memset(p, 0, sizeof(*p));
	p->name = name;
	p->value = value;
	p->len = vlen;
}

struct raw_param *request_find_param(struct request *req, const char *name)
{
	for (size_t i = req->nraw; i-- > 0;)
		if (req->raw[i].filename == NULL && strcmp(req->raw[i].name, name) == 0)
			return &req->raw[i];
	return NULL;
}

void request_add_header(struct request *req, const char *name, const char *value)
{
	/* A CR or LF in either would end the header and start another one: never written, whatever its origin. */
	if (!header_is_token(name) || !header_is_value(value)) {
		int n = 0; /* the name up to its first invalid byte, so that the log line stays one line */
		while (n < 64 && name[n] > 0x20 && name[n] < 0x7f)
			n++;
		log_msg(LOG_ERROR, "request=%llu dropped an invalid response header: %.*s", req->id, n, name);
		return;
	}
	if (req->nheaders < REQUEST_MAX_HEADERS) {
		req->header_names[req->nheaders] = name;
		req->header_values[req->nheaders] = value;
		req->nheaders++;
	}
}

void request_set_raw(struct request *req, int status, const char *content_type, const char *body, size_t len)
{
	if (content_type != NULL && !header_is_media_type(content_type)) {
		log_msg(LOG_ERROR, "request=%llu replaced an invalid Content-Type by application/octet-stream",
		        req->id);
		content_type = "application/octet-stream";
	}
	req->raw_response = true;
	req->status = status;
	req->raw_content_type = content_type;
	req->raw_body = body;
	req->raw_body_len = len;
}

json_object *request_own_json(struct request *req, json_object *obj)
{
	return uow_own_json(&req->uow, obj);
}

json_object *request_result(struct request *req)
{
	if (req->result == NULL)
		req->result = request_own_json(req, json_object_new_object());
	return req->result;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* The sorted, distinct names of parameters no route parameter consumed (multipart files excluded). */
static json_object *ignored_parameters(struct request *req)
{
	const char **names = arena_alloc(&req->arena, (req->nraw + 1) * sizeof(*names));
	size_t n = 0;
	for (size_t i = 0; i < req->nraw; i++)
		if (!req->raw[i].used && req->raw[i].filename == NULL)
			names[n++] = req->raw[i].name;
	if (n == 0)
		return NULL;
	qsort(names, n, sizeof(*names), cmp_str);
	json_object *list = json_object_new_array();
	for (size_t i = 0; i < n; i++)
		if (i == 0 || strcmp(names[i], names[i - 1]) != 0)
			json_object_array_add(list, json_object_new_string(names[i]));
	return list;
}

const char *request_body_json(struct request *req, size_t *len)
{
	if (req->error == ERR_NONE && req->status == 204) {
		*len = 0;
		return "";
	}
	json_object *out = request_own_json(req, json_object_new_object());
	if (req->error == ERR_NONE) {
		req->status = 200;
		json_object_object_add(out, "result", json_object_new_string("success"));
		json_object_object_add(out, "msg", json_object_new_string(""));
		if (req->result != NULL) {
			json_object_object_foreach (req->result, key, val)
				json_object_object_add(out, key, json_object_get(val));
		}
		json_object *ignored = ignored_parameters(req);
		if (ignored != NULL)
			json_object_object_add(out, "ignored_parameters_unsupported", ignored);
	} else {
		const struct err_info *info = err_info(req->error);
		req->status = info->status;
		json_object_object_add(out, "result", json_object_new_string("error"));
		json_object_object_add(out, "msg", json_object_new_string(req->error_msg ? req->error_msg : info->msg));
		if (info->code != NULL)
			json_object_object_add(out, "code", json_object_new_string(info->code));
		if (req->error_fields != NULL) {
			json_object_object_foreach (req->error_fields, key, val)
				json_object_object_add(out, key, json_object_get(val));
		}
	}
	size_t n = 0;
	const char *s =
	    json_object_to_json_string_length(out, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE, &n);
	*len = n;
	return s;
}

const char *request_log_path(struct request *req, const char *path)
{
	static const char *const secret_prefixes[] = {"/join/", "/user_uploads/", "/api/v1/user_uploads/"};
	for (size_t i = 0; i < sizeof(secret_prefixes) / sizeof(secret_prefixes[0]); i++) {
		size_t n = strlen(secret_prefixes[i]);
		if (strncmp(path, secret_prefixes[i], n) == 0 && path[n] != '\0')
			return arena_printf(&req->arena, "%s***", secret_prefixes[i]);
	}
	return path;
}
