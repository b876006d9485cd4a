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

/* A list of [string, string]: each item's strings are checked before its length, as the reference's validator. */
static int check_pairs(struct request *req, const struct param_spec *spec, json_object *j)
{
	if (!json_object_is_type(j, json_type_array))
		return type_error(req, spec->name, "a list");
	if (check_length(req, spec, j) < 0)
		return -1;
	for (size_t k = 0; k < json_object_array_length(j); k++) {
		json_object *pair = json_object_array_get_idx(j, k);
		if (!json_object_is_type(pair, json_type_array))
			return api_error(req, ERR_BAD_REQUEST, "%s[%zu] is not a list", spec->name, k);
		for (size_t m = 0; m < json_object_array_length(pair); m++)
			if (!json_object_is_type(json_object_array_get_idx(pair, m), json_type_string))
				return api_error(req, ERR_BAD_REQUEST, "%s[%zu][%zu] is not a string", spec->name, k,
				                 m);
		if (json_object_array_length(pair) != 2)
			return api_error(req, ERR_BAD_REQUEST, "%s[%zu] should have exactly 2 items", spec->name, k);
	}
	return 0;
}

/* ---- domain values ------------------------------------------------------------------------------------------ */

/* The ids of a JSON integer list, into the arena; false if list is not one. */
static bool id_list(struct request *req, json_object *list, const int64_t **ids, size_t *n)
{
	if (!json_object_is_type(list, json_type_array))
		return false;
	*n = json_object_array_length(list);
	int64_t *out = arena_alloc(&req->arena, (*n + 1) * sizeof(*out));
	for (size_t k = 0; k < *n; k++) {
		json_object *item = json_object_array_get_idx(list, k);
		if (!json_object_is_type(item, json_type_int))
			return false;
		out[k] = json_object_get_int64(item);
	}
	*ids = out;
	return true;
}

/* A group-setting value: an integer, or an object of exactly direct_members and direct_subgroups, integer lists. */
static int group_value(struct request *req, const char *name, json_object *j, struct group_setting_value *out)
{
	memset(out, 0, sizeof(*out));
	out->json = j;
	if (json_object_is_type(j, json_type_int)) {
		out->group_id = json_object_get_int64(j);
		return 0;
	}
	out->is_anonymous = true;
	json_object *members, *subgroups;
	if (!json_object_is_type(j, json_type_object) || json_object_object_length(j) != 2 ||
	    !json_object_object_get_ex(j, "direct_members", &members) ||
	    !json_object_object_get_ex(j, "direct_subgroups", &subgroups) ||
	    !id_list(req, members, &out->members, &out->nmembers) ||
	    !id_list(req, subgroups, &out->subgroups, &out->nsubgroups))
		return api_error(req, ERR_BAD_REQUEST, "Invalid %s", name);
	/* The lists inside are list parameters too (docs/LIMITS.md). */
	const char *too_long = out->nmembers > PARAM_MAX_ITEMS     ? "direct_members"
	                       : out->nsubgroups > PARAM_MAX_ITEMS ? "direct_subgroups"
	                                                           : NULL;
	if (too_long != NULL)
		return api_error(req, ERR_BAD_REQUEST, "%s[\"%s\"] is too long (limit: %d items)", name, too_long,
		                 PARAM_MAX_ITEMS);
	return 0;
}

/* A group-setting change {"new": value, "old": value?}. */
static int group_update(struct request *req, const char *name, json_object *j, struct group_setting_update *out)
{
	json_object *new_value, *old_value = NULL;
	if (!json_object_is_type(j, json_type_object))
		return type_error(req, name, "a dict");
	json_object_object_get_ex(j, "old", &old_value);
	if (!json_object_object_get_ex(j, "new", &new_value))
		return api_error(req, ERR_BAD_REQUEST, "Invalid %s", name);
	if (group_value(req, name, new_value, &out->new_value) < 0)
		return -1;
	out->has_old = old_value != NULL;
	return out->has_old ? group_value(req, name, old_value, &out->old) : 0;
}

/* Marks a PT_LIMIT value that param_limit() reports. */
#define LIMIT_BAD (-1)

/* The string j is exactly word (json-c strings may hold NUL bytes). */
static bool is_word(json_object *j, const char *word)
{
	return (size_t)json_object_get_string_len(j) == strlen(word) && strcmp(json_object_get_string(j), word) == 0;
}

/* The reference's parse_message_time_limit_setting and parse_message_retention_days: a positive integer (of an
 * integer column) or one of the keywords the spec allows; other strings and numbers are kept for param_limit(). */
static int limit_value(struct request *req, const struct param_spec *spec, json_object *j, struct param_value *v)
{
	if (json_object_is_type(j, json_type_int)) {
		v->i = json_object_get_int64(j);
		v->kind = v->i > 0 && v->i <= INT32_MAX ? LIMIT_VALUE : LIMIT_BAD;
		return 0;
	}
	if (!json_object_is_type(j, json_type_string))
		return type_error(req, spec->name, "an integer");
	if ((spec->flags & P_UNLIMITED) && is_word(j, "unlimited"))
		v->kind = LIMIT_UNLIMITED;
	else if ((spec->flags & P_REALM_DEFAULT) && is_word(j, "realm_default"))
		v->kind = LIMIT_REALM_DEFAULT;
	else
		v->kind = LIMIT_BAD;
	return 0;
}

/* White space as Python's int() strips it (the ASCII part of str.isspace()). */
static bool is_py_space(char c)
{
	return c == ' ' || (c >= '\t' && c <= '\r') || (c >= 0x1c && c <= 0x1f);
}

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

/* Python's int(s) for ASCII text: white space around, a sign, digits with single underscores between them. The
 * magnitude saturates past PARAM_ANCHOR_NEWEST, which is all an anchor needs. */
static bool py_int(const char *s, size_t len, bool *negative, int64_t *n)
{
	size_t i = 0;
	while (i < len && is_py_space(s[i]))
		i++;
	while (len > i && is_py_space(s[len - 1]))
		len--;
	*negative = i < len && s[i] == '-';
	if (i < len && (s[i] == '-' || s[i] == '+'))
		i++;
	if (i == len)
		return false;
	*n = 0;
	for (; i < len; i++) {
		if (s[i] == '_' && i > 0 && is_digit(s[i - 1]) && i + 1 < len && is_digit(s[i + 1]))
			continue;
		if (!is_digit(s[i]))
			return false;
		if (*n <= PARAM_ANCHOR_NEWEST)
			*n = *n * 10 + (s[i] - '0');
	}
	return true;
}

/* The reference's parse_anchor_value: a keyword, or an integer clamped to [0, LARGER_THAN_MAX_MESSAGE_ID]. */
static void anchor_value(const char *s, size_t len, struct param_value *v)
{
	bool negative;
	int64_t n;
	v->kind = 0;
	if (memchr(s, '\0', len) != NULL)
		v->kind = 1;
	else if (strcmp(s, "oldest") == 0)
		v->i = PARAM_ANCHOR_OLDEST;
	else if (strcmp(s, "newest") == 0)
		v->i = PARAM_ANCHOR_NEWEST;
	else if (strcmp(s, "first_unread") == 0)
		v->i = PARAM_ANCHOR_FIRST_UNREAD;
	else if (py_int(s, len, &negative, &n))
		v->i = negative ? PARAM_ANCHOR_OLDEST : n > PARAM_ANCHOR_NEWEST ? PARAM_ANCHOR_NEWEST : n;
	else
		v->kind = 1;
}

/* ---- conversion --------------------------------------------------------------------------------------------- */

static int convert_str(struct request *req, const struct param_spec *spec, const char *text, size_t len,
                       struct param_value *v)
{
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

/* Whether a string inside j holds a NUL byte; *steps gets the path to the first from j ("[0][\"key\"]"). */
static bool find_nul(struct request *req, json_object *j, const char **steps)
{
	if (json_object_is_type(j, json_type_string))
		return strlen(json_object_get_string(j)) != (size_t)json_object_get_string_len(j);
	if (json_object_is_type(j, json_type_array)) {
		for (size_t k = 0; k < json_object_array_length(j); k++)
			if (find_nul(req, json_object_array_get_idx(j, k), steps)) {
				*steps = arena_printf(&req->arena, "[%zu]%s", k, *steps);
				return true;
			}
	} else if (json_object_is_type(j, json_type_object)) {
		json_object_object_foreach (j, key, val)
			if (find_nul(req, val, steps)) {
				*steps = arena_printf(&req->arena, "[\"%s\"]%s", key, *steps);
				return true;
			}
	}
	return false;
}

/*
 * The path of the first string inside j (name[0]["key"], the reference's notation) that holds a NUL byte, which no
 * text column takes (SQLSTATE 22P05, a 500): in the arena, or NULL if there is none. json-c nests 32 deep at most.
 * The path is written only on the way back from the string found: a value with none allocates nothing.
 */
static const char *nul_path(struct request *req, json_object *j, const char *name)
{
	const char *steps = "";
	return find_nul(req, j, &steps) ? arena_printf(&req->arena, "%s%s", name, steps) : NULL;
}

/* Parses the JSON text of spec's parameter into *j (owned by the request), if the request has room for what it
 * costs parsed (413 past the limit of its arena: core/arena.h); strings holding a NUL byte are refused unless the
 * handler reports them (P_RAW). */
static int parse_json(struct request *req, const struct param_spec *spec, const char *text, size_t len, json_object **j)
{
	int rc = uow_parse_client_json(&req->uow, text, len, j);
	if (rc != 0)
		return rc < 0 ? -1 : api_error(req, ERR_BAD_REQUEST, "%s is not valid JSON", spec->name);
	const char *bad = (spec->flags & P_RAW) ? NULL : nul_path(req, *j, spec->name);
	return bad != NULL ? api_error(req, ERR_BAD_REQUEST, "%s must not contain null bytes", bad) : 0;
}

/* Converts one value (sent or default) according to spec into v: 0, -1 with the error recorded, or 1 for a JSON
 * null that P_NULL lets count as not sent. */
static int convert(struct request *req, const struct param_spec *spec, const char *text, size_t len,
                   struct param_value *v)
{
	if (spec->type == PT_STR)
		return convert_str(req, spec, text, len, v);
	if (spec->type == PT_ANCHOR) {
		anchor_value(text, len, v);
		v->s = text;
		v->slen = len;
		return 0;
	}
	json_object *j;
	if (parse_json(req, spec, text, len, &j) < 0)
		return -1;
	if (j == NULL && (spec->flags & P_NULL))
		return 1;
	v->json = j;
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
	case PT_STR_PAIRS: return check_pairs(req, spec, j);
	case PT_JSON: return json_object_is_type(j, json_type_array) ? check_length(req, spec, j) : 0;
	case PT_GROUP_SETTING:
		v->group = arena_alloc(&req->arena, sizeof(*v->group));
		return group_value(req, spec->name, j, v->group);
	case PT_GROUP_UPDATE:
		v->update = arena_alloc(&req->arena, sizeof(*v->update));
		return group_update(req, spec->name, j, v->update);
	case PT_LIMIT: return limit_value(req, spec, j, v);
	case PT_STR:
	case PT_ANCHOR: return 0;
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
			int rc = convert(req, spec, text, len, v);
			if (rc < 0)
				return -1;
			if (rc == 0)
				continue;
			v->present = v->set = false; /* a JSON null that counts as not sent */
		}
		if (spec->flags & P_REQUIRED)
			return param_missing(req, spec->name);
		if (spec->def != NULL) {
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
	log_msg(LOG_FATAL, "parameter \"%s\" is not declared by route %s %s", name, req->method,
	        req->route ? req->route->pattern : "(none)");
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

const struct group_setting_value *param_group_setting(struct request *req, const char *name)
{
	return lookup(req, name)->group;
}

const struct group_setting_update *param_group_update(struct request *req, const char *name)
{
	return lookup(req, name)->update;
}

int param_limit(struct request *req, const char *name, enum param_limit_kind *kind, int64_t *value)
{
	struct param_value *v = lookup(req, name);
	*kind = v->set ? (enum param_limit_kind)v->kind : LIMIT_NONE;
	*value = v->i;
	if (!v->set || v->kind != LIMIT_BAD)
		return 0;
	api_error(req, ERR_VAR_INVALID, "Bad value for '%s': %s", name, json_object_get_string(v->json));
	api_error_field(req, "var_name", json_object_new_string(name));
	api_error_field(req, "bad_value", json_object_get(v->json));
	return -1;
}

int param_anchor(struct request *req, const char *name, int64_t *anchor)
{
	struct param_value *v = lookup(req, name);
	if (v->kind != 0)
		return api_error(req, ERR_BAD_REQUEST, "Invalid anchor");
	*anchor = v->i;
	return 0;
}
