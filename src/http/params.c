/* The generic parameter validator and typed getters; see params.h. */
#include "http/params.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/jsonx.h"
#include "core/log.h"
#include "http/request.h"
#include "http/route.h"

static int type_error(struct request *req, const char *name, const char *what)
{
	return api_error(req, ERR_BAD_REQUEST, "%s is not %s", name, what);
}

/* The most items a list parameter may hold. */
static size_t max_items(const struct param_spec *spec)
{
	return spec->max_len > 0 ? (size_t)spec->max_len : PARAM_MAX_ITEMS;
}

static int check_length(struct request *req, const struct param_spec *spec, json_object *j)
{
	if (json_object_array_length(j) > max_items(spec))
		return api_error(req, ERR_BAD_REQUEST, "%s is too long (limit: %zu items)", spec->name,
		                 max_items(spec));
	return 0;
}

/*
 * Whether the JSON integer j lies within the spec's range. json-c saturates what overflows 64 bits to INT64_MAX
 * or INT64_MIN; a value above INT64_MAX is kept as an unsigned one, so only INT64_MIN is ambiguous, and it is
 * outside every range.
 */
static int check_range(struct request *req, const struct param_spec *spec, json_object *j, const char *name)
{
	int64_t min = (spec->flags & P_INT4) ? INT32_MIN : INT64_MIN + 1;
	int64_t max = (spec->flags & P_INT4) ? INT32_MAX : INT64_MAX;
	if (spec->flags & P_NONNEG)
		min = 0;
	int64_t v = json_object_get_int64(j);
	if (v == INT64_MIN || v < min)
		return api_error(req, ERR_BAD_REQUEST, "%s is too small", name);
	if (v > max || (v == INT64_MAX && json_object_get_uint64(j) > (uint64_t)INT64_MAX))
		return api_error(req, ERR_BAD_REQUEST, "%s is too large", name);
	return 0;
}

static int check_list(struct request *req, const struct param_spec *spec, json_object *j, json_type elem,
                      const char *what)
{
	if (!json_object_is_type(j, json_type_array))
		return type_error(req, spec->name, "a list");
	if (check_length(req, spec, j) < 0)
		return -1;
	size_t n = json_object_array_length(j);
	for (size_t k = 0; k < n; k++) {
		json_object *item = json_object_array_get_idx(j, k);
		if (json_object_is_type(item, elem) && elem != json_type_int)
			continue;
		char *name = arena_printf(&req->arena, "%s[%zu]", spec->name, k);
		if (!json_object_is_type(item, elem))
			return type_error(req, name, what);
		if (check_range(req, spec, item, name) < 0)
			return -1;
	}
	return 0;
}

/* Converts one value (sent or default) according to spec into v. */
static int convert(struct request *req, const struct param_spec *spec, const char *text, size_t len,
                   struct param_value *v)
{
	if (spec->type == PT_STR) {
		if (!(spec->flags & P_RAW) && memchr(text, '\0', len) != NULL)
			return api_error(req, ERR_BAD_REQUEST, "%s must not contain null bytes", spec->name);
		if (spec->max_len > 0 && utf8_length(text) > (size_t)spec->max_len)
			return api_error(req, ERR_BAD_REQUEST, "%s is too long (limit: %d characters)", spec->name,
			                 spec->max_len);
		if ((spec->flags & P_NONBLANK) && text[strspn(text, " \t\r\n")] == '\0')
			return api_error(req, ERR_BAD_REQUEST, "%s cannot be blank", spec->name);
		v->s = text;
		v->slen = len;
		return 0;
	}
	json_object *j;
	if (jsonx_parse(text, len, &j) < 0)
		return api_error(req, ERR_BAD_REQUEST, "%s is not valid JSON", spec->name);
	v->json = request_own_json(req, j);
	switch (spec->type) {
	case PT_INT:
		if (!json_object_is_type(j, json_type_int))
			return type_error(req, spec->name, "an integer");
		v->i = json_object_get_int64(j);
		return check_range(req, spec, j, spec->name);
	case PT_BOOL:
		if (!json_object_is_type(j, json_type_boolean))
			return type_error(req, spec->name, "a boolean");
		v->b = json_object_get_boolean(j);
		return 0;
	case PT_INT_LIST: return check_list(req, spec, j, json_type_int, "an integer");
	case PT_STR_LIST: return check_list(req, spec, j, json_type_string, "a string");
	case PT_DICT: return json_object_is_type(j, json_type_object) ? 0 : type_error(req, spec->name, "a dict");
	case PT_JSON: return json_object_is_type(j, json_type_array) ? check_length(req, spec, j) : 0;
	case PT_STR: return 0;
	}
	return 0;
}

int param_missing(struct request *req, const char *name)
{
	api_error(req, ERR_MISSING, "Missing '%s' argument", name);
	api_error_field(req, "var_name", json_object_new_string(name));
	return -1;
}

int param_validate(struct request *req, const struct param_spec *specs)
{
	size_t n = 0;
	while (specs != NULL && specs[n].name != NULL)
		n++;
	req->values = arena_alloc(&req->arena, (n + 1) * sizeof(*req->values));
	int path_index = 0;
	for (size_t k = 0; k < n; k++) {
		const struct param_spec *spec = &specs[k];
		struct param_value *v = &req->values[k];
		const char *text = NULL;
		size_t len = 0;
		if (spec->flags & P_PATH) {
			text = req->path_args[path_index++];
			len = strlen(text);
		} else {
			struct raw_param *raw = request_find_param(req, spec->name);
			/* Every occurrence counts as consumed, not only the one that wins. */
			for (size_t r = 0; r < req->nraw; r++)
				if (strcmp(req->raw[r].name, spec->name) == 0)
					req->raw[r].used = true;
			if (raw != NULL) {
				text = raw->value;
				len = raw->len;
			}
		}
		if (text != NULL) {
			v->present = v->set = true;
			if (convert(req, spec, text, len, v) < 0)
				return -1;
		} else if (spec->flags & P_REQUIRED) {
			return param_missing(req, spec->name);
		} else if (spec->def != NULL) {
			v->set = true;
			if (convert(req, spec, spec->def, strlen(spec->def), v) < 0)
				return -1;
		}
	}
	return 0;
}

static struct param_value *lookup(struct request *req, const char *name)
{
	const struct param_spec *specs = req->route ? req->route->params : NULL;
	for (size_t k = 0; specs != NULL && specs[k].name != NULL; k++)
		if (strcmp(specs[k].name, name) == 0)
			return &req->values[k];
	log_msg(LOG_FATAL, "parameter \"%s\" is not declared by route %s %s", name, req->method, req->path);
	abort();
}

bool param_present(struct request *req, const char *name)
{
	return lookup(req, name)->present;
}

bool param_set(struct request *req, const char *name)
{
	return lookup(req, name)->set;
}

int64_t param_int(struct request *req, const char *name)
{
	return lookup(req, name)->i;
}

bool param_bool(struct request *req, const char *name)
{
	return lookup(req, name)->b;
}

const char *param_str(struct request *req, const char *name)
{
	return lookup(req, name)->s;
}

const char *param_str_len(struct request *req, const char *name, size_t *len)
{
	struct param_value *v = lookup(req, name);
	*len = v->slen;
	return v->s;
}

json_object *param_json(struct request *req, const char *name)
{
	return lookup(req, name)->json;
}
