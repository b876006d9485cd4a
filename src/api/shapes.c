/* The shapes of the structured parameters, checked without the database; see shapes.h. */
#include "api/shapes.h"

#include <string.h>

#include "core/jsonv.h"
#include "core/utf8.h"
#include "http/request.h"
#include "model/personal.h"

/* The check of one item of a list parameter: the value named var into *out. */
typedef int item_shape(struct request *req, json_object *v, const char *var, void *out);

/* A list parameter ("<name> is not a list") whose every item is checked by shape, in order, into an arena array of
 * *n items of size bytes each. */
static int list_items(struct request *req, json_object *list, const char *name, item_shape *shape, size_t size,
                      void **out, size_t *n)
{
	if (jsonv_check(&req->uow, list, JV_LIST, name) < 0)
		return -1;
	*n = json_object_array_length(list);
	char *items = arena_alloc(&req->arena, (*n + 1) * size);
	for (size_t i = 0; i < *n; i++)
		if (shape(req, json_object_array_get_idx(list, i), jsonv_at(&req->uow, name, i), items + i * size) < 0)
			return -1;
	*out = items;
	return 0;
}

/* The reference's check_color: "#" and 3 to 6 hexadecimal digits (Python's "$" also matches before a final
 * newline). */
static bool is_hex_color(const char *s)
{
	size_t n = strspn(s + (*s == '#'), "0123456789abcdefABCDEF");
	const char *end = s + 1 + n;
	return s[0] == '#' && n >= 3 && n <= 6 && (end[0] == '\0' || (end[0] == '\n' && end[1] == '\0'));
}

/* ---- subscription_data ---------------------------------------------------------------------------------------- */

static const char *const boolean_properties[] = {
    "in_home_view",        "is_muted",   "desktop_notifications",    "audible_notifications", "push_notifications",
    "email_notifications", "pin_to_top", "wildcard_mentions_notify",
};

static bool is_boolean_property(const char *p)
{
	for (size_t k = 0; k < sizeof(boolean_properties) / sizeof(*boolean_properties); k++)
		if (strcmp(p, boolean_properties[k]) == 0)
			return true;
	return false;
}

/* The fields in the model's order, then its validator: the property decides what the value must be. */
static int property_change(struct request *req, json_object *o, const char *var, void *out)
{
	struct property_change *c = out;
	json_object *id, *prop, *value;
	if (jsonv_check(&req->uow, o, JV_DICT, var) < 0 ||
	    jsonv_member(&req->uow, o, var, "stream_id", JV_INT, 0, &id) < 0 ||
	    jsonv_member(&req->uow, o, var, "property", JV_STR, 0, &prop) < 0)
		return -1;
	if (!json_object_object_get_ex(o, "value", &value))
		return api_error(req, ERR_BAD_REQUEST, "%s[\"value\"] field is missing", var);
	if (!jsonv_is(value, JV_BOOL) && !jsonv_is(value, JV_STR))
		return api_error(req, ERR_BAD_REQUEST, "%s[\"value\"][\"bool\"] is not a boolean", var);
	*c = (struct property_change){.stream_id = json_object_get_int64(id), .property = json_object_get_string(prop)};
	if (strlen(c->property) != (size_t)json_object_get_string_len(prop)) /* a NUL inside names no property */
		return api_error(req, ERR_BAD_REQUEST, "Unknown subscription property: %s", c->property);
	if (strcmp(c->property, "color") == 0) {
		if (!jsonv_is(value, JV_STR) || !is_hex_color(json_object_get_string(value)))
			return api_error(req, ERR_BAD_REQUEST, "color is not a valid hex color code");
		c->is_color = true;
		c->color = json_object_get_string(value);
		return 0;
	}
	if (!is_boolean_property(c->property))
		return api_error(req, ERR_BAD_REQUEST, "Unknown subscription property: %s", c->property);
	if (!jsonv_is(value, JV_BOOL))
		return api_error(req, ERR_BAD_REQUEST, "%s is not a boolean", c->property);
	c->flag = json_object_get_boolean(value);
	return 0;
}

int shape_subscription_data(struct request *req, json_object *list, struct property_change **out, size_t *n)
{
	return list_items(req, list, "subscription_data", property_change, sizeof(**out), (void **)out, n);
}

/* ---- subscriptions (POST) ------------------------------------------------------------------------------------- */

static int channel_request(struct request *req, json_object *o, const char *var, void *out)
{
	struct channel_request *c = out;
	json_object *name, *color, *description;
	if (jsonv_check(&req->uow, o, JV_DICT, var) < 0 ||
	    jsonv_member(&req->uow, o, var, "name", JV_STR, 0, &name) < 0 ||
	    jsonv_member(&req->uow, o, var, "color", JV_STR, JV_OPTIONAL | JV_NULLABLE, &color) < 0 ||
	    jsonv_member(&req->uow, o, var, "description", JV_STR, JV_OPTIONAL | JV_NULLABLE, &description) < 0)
		return -1;
	*c = (struct channel_request){arena_strip(&req->arena, json_object_get_string(name)), NULL, NULL};
	if (description != NULL) {
		char *d = arena_strdup(&req->arena, json_object_get_string(description));
		if (utf8_length(d) > SHAPE_MAX_CHANNEL_DESCRIPTION)
			return api_error(req, ERR_BAD_REQUEST, "%s[\"description\"] is too long (limit: %d characters)",
			                 var, SHAPE_MAX_CHANNEL_DESCRIPTION);
		for (char *p = d; *p; p++)
			if (*p == '\n')
				*p = ' ';
		c->description = d;
	}
	if (color != NULL && !is_hex_color(json_object_get_string(color)))
		return api_error(req, ERR_BAD_REQUEST,
		                 "Invalid %s: Value error, add.color is not a valid hex color code", var);
	c->color = color ? json_object_get_string(color) : NULL;
	return 0;
}

int shape_subscriptions(struct request *req, json_object *list, struct channel_request **out, size_t *n)
{
	return list_items(req, list, "subscriptions", channel_request, sizeof(**out), (void **)out, n);
}

/* ---- principals ----------------------------------------------------------------------------------------------- */

int shape_principals(struct request *req, json_object *list, struct principal_list *out)
{
	*out = (struct principal_list){0};
	if (list == NULL)
		return 0;
	/* pydantic tries list[str] first and reports its first error when no member of the union matches. */
	if (jsonv_check(&req->uow, list, JV_LIST, "principals[\"list[str]\"]") < 0)
		return -1;
	size_t n = json_object_array_length(list), k = 0;
	while (k < n && jsonv_is(json_object_array_get_idx(list, k), JV_STR))
		k++;
	out->by_email = k == n;
	for (size_t i = 0; !out->by_email && i < n; i++)
		if (!jsonv_is(json_object_array_get_idx(list, i), JV_INT))
			return api_error(req, ERR_BAD_REQUEST, "principals[\"list[str]\"][%zu] is not a string", k);
	int64_t *ids = arena_alloc(&req->arena, (n + 1) * sizeof(*ids));
	json_object **emails = arena_alloc(&req->arena, (n + 1) * sizeof(*emails));
	for (size_t i = 0; i < n; i++) {
		json_object *p = json_object_array_get_idx(list, i);
		if (out->by_email)
			emails[i] = p;
		else
			ids[i] = json_object_get_int64(p);
	}
	*out = (struct principal_list){out->by_email, n, ids, emails};
	return 0;
}

/* ---- drafts --------------------------------------------------------------------------------------------------- */

static const char *const draft_fields[] = {"type", "to", "topic", "content", "timestamp"};

/* to: a list of at most SHAPE_MAX_DRAFT_RECIPIENTS integers. */
static int draft_to(struct request *req, const char *var, json_object *to)
{
	size_t n = json_object_array_length(to);
	if (n > SHAPE_MAX_DRAFT_RECIPIENTS)
		return api_error(req, ERR_BAD_REQUEST, "%s[\"to\"] is too long (limit: %d items)", var,
		                 SHAPE_MAX_DRAFT_RECIPIENTS);
	for (size_t i = 0; i < n; i++)
		if (!jsonv_is(json_object_array_get_idx(to, i), JV_INT))
			return api_error(req, ERR_BAD_REQUEST, "%s[\"to\"][%zu] is not an integer", var, i);
	return 0;
}

/* type: the Literal "", "stream" or "private" ("Invalid x" for anything else, null and numbers included). */
static int draft_type(struct request *req, const char *var, json_object *d, const char **type)
{
	json_object *v;
	if (!json_object_object_get_ex(d, "type", &v))
		return api_error(req, ERR_BAD_REQUEST, "%s[\"type\"] field is missing", var);
	*type = jsonv_is(v, JV_STR) ? json_object_get_string(v) : NULL;
	if (*type == NULL || (strcmp(*type, "") != 0 && strcmp(*type, "stream") != 0 && strcmp(*type, "private") != 0))
		return api_error(req, ERR_BAD_REQUEST, "Invalid %s[\"type\"]", var);
	return 0;
}

static int draft_extra_keys(struct request *req, const char *var, json_object *d)
{
	json_object_object_foreach (d, key, val) {
		(void)val;
		bool known = false;
		for (size_t i = 0; i < sizeof(draft_fields) / sizeof(*draft_fields); i++)
			known = known || strcmp(key, draft_fields[i]) == 0;
		if (!known)
			return api_error(req, ERR_BAD_REQUEST, "Argument \"%s\" at %s[\"%s\"] is unexpected", key, var,
			                 key);
	}
	return 0;
}

int shape_draft(struct request *req, const char *var, json_object *d, struct draft *out)
{
	struct uow *u = &req->uow;
	*out = (struct draft){0};
	if (jsonv_check(u, d, JV_DICT, var) < 0 || draft_type(req, var, d, &out->type) < 0 ||
	    jsonv_member(u, d, var, "to", JV_LIST, 0, &out->to) < 0 || draft_to(req, var, out->to) < 0 ||
	    jsonv_member(u, d, var, "topic", JV_STR, 0, &out->topic) < 0 ||
	    jsonv_member(u, d, var, "content", JV_STR, 0, &out->content) < 0)
		return -1;
	if (*personal_strip(u, json_object_get_string(out->content)) == '\0')
		return api_error(req, ERR_BAD_REQUEST, "%s[\"content\"] cannot be blank", var);
	json_object *ts = NULL;
	if (json_object_object_get_ex(d, "timestamp", &ts) && ts != NULL && !jsonv_is(ts, JV_INT) &&
	    !json_object_is_type(ts, json_type_double))
		return api_error(req, ERR_BAD_REQUEST, "%s[\"timestamp\"][\"int\"] is not an integer", var);
	out->timestamp = ts;
	return draft_extra_keys(req, var, d);
}

/* shape_draft() as an item_shape. */
static int draft_item(struct request *req, json_object *d, const char *var, void *out)
{
	return shape_draft(req, var, d, out);
}

int shape_drafts(struct request *req, json_object *list, struct draft **out, size_t *n)
{
	return list_items(req, list, "drafts", draft_item, sizeof(**out), (void **)out, n);
}

/* ---- to ------------------------------------------------------------------------------------------------------- */

/* The index of the first item of list that is not an integer, or its length. */
static size_t first_non_int(json_object *list)
{
	size_t n = json_object_array_length(list), i = 0;
	while (i < n && jsonv_is(json_object_array_get_idx(list, i), JV_INT))
		i++;
	return i;
}

int shape_typing_to(struct request *req, json_object *to)
{
	if (to == NULL)
		return 0;
	if (jsonv_check(&req->uow, to, JV_LIST, "to") < 0)
		return -1;
	size_t i = first_non_int(to);
	if (i < json_object_array_length(to))
		return api_error(req, ERR_BAD_REQUEST, "to[%zu] is not an integer", i);
	return 0;
}

int shape_scheduled_to(struct request *req, json_object *to)
{
	if (jsonv_is(to, JV_INT) || (jsonv_is(to, JV_LIST) && first_non_int(to) == json_object_array_length(to)))
		return 0;
	return api_error(req, ERR_BAD_REQUEST, "to[\"int\"] is not an integer");
}
