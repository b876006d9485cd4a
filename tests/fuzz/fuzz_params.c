/*
 * libFuzzer target for the parameter pipeline of every route, as router_handle() runs it up to the handler:
 * query string, route matching, body (urlencoded or multipart), then param_validate() against the route's own
 * table from src/api/routes.c. The input is
 *
 *     METHOD /path?query\n
 *     Content-Type\n
 *     body
 *
 * with the path relative to /api/v1. On success every declared parameter must have the type and the limits
 * its spec promises the handler; in every case the response must be valid JSON.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "http/form.h"
#include "http/params.h"
#include "http/request.h"
#include "pipeline/router.h"

/* Splits the next line off *in (*len bytes left) into an arena string. */
static char *next_line(struct request *req, const char **in, size_t *len)
{
	const char *nl = memchr(*in, '\n', *len);
	size_t n = nl ? (size_t)(nl - *in) : *len;
	char *line = arena_strndup(&req->arena, *in, n);
	*in += nl ? n + 1 : n;
	*len -= nl ? n + 1 : n;
	return line;
}

static void check_list(json_object *j, json_type elem)
{
	FUZZ_CHECK(json_object_is_type(j, json_type_array));
	for (size_t k = 0; k < json_object_array_length(j); k++)
		FUZZ_CHECK(json_object_is_type(json_object_array_get_idx(j, k), elem));
}

static void check_group(const struct group_setting_value *g)
{
	FUZZ_CHECK(g != NULL);
	if (!g->is_anonymous) {
		FUZZ_CHECK(json_object_is_type(g->json, json_type_int));
		return;
	}
	FUZZ_CHECK(json_object_is_type(g->json, json_type_object));
	FUZZ_CHECK(g->nmembers <= PARAM_MAX_ITEMS && g->nsubgroups <= PARAM_MAX_ITEMS);
	FUZZ_CHECK(g->members != NULL && g->subgroups != NULL);
}

/* A limit is a positive int4 or an allowed keyword, or param_limit() reports it; an anchor is in its range. */
static void check_deferred(struct request *req, const struct param_spec *spec)
{
	enum param_limit_kind kind;
	int64_t v;
	if (spec->type == PT_LIMIT && param_limit(req, spec->name, &kind, &v) == 0) {
		FUZZ_CHECK(kind != LIMIT_NONE);
		FUZZ_CHECK(kind != LIMIT_VALUE || (v > 0 && v <= INT32_MAX));
		FUZZ_CHECK(kind != LIMIT_UNLIMITED || (spec->flags & P_UNLIMITED));
		FUZZ_CHECK(kind != LIMIT_REALM_DEFAULT || (spec->flags & P_REALM_DEFAULT));
	} else if (spec->type == PT_ANCHOR && param_anchor(req, spec->name, &v) == 0) {
		FUZZ_CHECK(v == PARAM_ANCHOR_FIRST_UNREAD || (v >= 0 && v <= PARAM_ANCHOR_NEWEST));
	} else if (spec->type == PT_LIMIT || spec->type == PT_ANCHOR) {
		FUZZ_CHECK(req->error != ERR_NONE && req->error_msg != NULL);
		req->error = ERR_NONE; /* the next parameter's getter starts afresh */
	}
}

/* What a handler may rely on after a successful param_validate(). */
static void check_value(struct request *req, const struct param_spec *spec)
{
	if (!param_set(req, spec->name)) {
		FUZZ_CHECK(!(spec->flags & P_REQUIRED));
		return;
	}
	json_object *j = param_json(req, spec->name);
	size_t len;
	const char *s;
	switch (spec->type) {
	case PT_STR:
		s = param_str_len(req, spec->name, &len);
		FUZZ_CHECK(s != NULL && s[len] == '\0' && fuzz_is_utf8(s, len));
		FUZZ_CHECK((spec->flags & P_RAW) || strlen(s) == len);
		FUZZ_CHECK(spec->max_len == 0 || utf8_length(s) <= (size_t)spec->max_len);
		FUZZ_CHECK(!(spec->flags & P_NONBLANK) || s[strspn(s, " \t\r\n")] != '\0');
		break;
	case PT_INT: FUZZ_CHECK(json_object_is_type(j, json_type_int)); break;
	case PT_BOOL: FUZZ_CHECK(json_object_is_type(j, json_type_boolean)); break;
	case PT_INT_LIST: check_list(j, json_type_int); break;
	case PT_STR_LIST: check_list(j, json_type_string); break;
	case PT_DICT: FUZZ_CHECK(json_object_is_type(j, json_type_object)); break;
	case PT_JSON: break;
	case PT_STR_PAIRS:
		check_list(j, json_type_array);
		for (size_t k = 0; k < json_object_array_length(j); k++) {
			json_object *pair = json_object_array_get_idx(j, k);
			check_list(pair, json_type_string);
			FUZZ_CHECK(json_object_array_length(pair) == 2);
		}
		break;
	case PT_GROUP_SETTING: check_group(param_group_setting(req, spec->name)); break;
	case PT_GROUP_UPDATE: {
		const struct group_setting_update *u = param_group_update(req, spec->name);
		FUZZ_CHECK(u != NULL);
		check_group(&u->new_value);
		if (u->has_old)
			check_group(&u->old);
		break;
	}
	case PT_LIMIT:
	case PT_ANCHOR: check_deferred(req, spec); break;
	}
}

static void run(struct request *req)
{
	if (form_parse_urlencoded(req, req->query, strlen(req->query)) < 0)
		return;
	const struct route *r = router_find(req);
	if (r == NULL)
		return;
	req->route = r;
	if (form_parse_body(req) < 0)
		return;
	if (param_validate(req, r->params) < 0) {
		FUZZ_CHECK(req->error != ERR_NONE && req->error_msg != NULL);
		return;
	}
	FUZZ_CHECK(req->error == ERR_NONE);
	for (const struct param_spec *spec = r->params; spec->name != NULL; spec++)
		check_value(req, spec);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *in = (const char *)data;
	struct request req;
	request_init(&req, NULL, 1);
	char *line = next_line(&req, &in, &size);
	char *sp = strchr(line, ' ');
	if (sp == NULL) {
		request_finish(&req);
		return 0;
	}
	*sp = '\0';
	req.method = line;
	req.path = sp + 1;
	char *q = strchr(sp + 1, '?');
	if (q != NULL) {
		*q = '\0';
		req.query = q + 1;
	}
	req.content_type = next_line(&req, &in, &size);
	/* A copy of exactly the body's size, so that ASan sees every read past its end. */
	char *body = malloc(size ? size : 1);
	memcpy(body, in, size);
	req.body = body;
	req.body_len = size;

	run(&req);
	size_t len;
	const char *out = request_body_json(&req, &len);
	FUZZ_CHECK((req.status == 204 && len == 0) || fuzz_is_json(out, len));

	request_finish(&req);
	free(body);
	return 0;
}
