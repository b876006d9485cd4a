/* Typed reads of client JSON with the reference's errors; see jsonv.h. */
#include "core/jsonv.h"

#include "core/uow.h"

static const json_type json_types[] = {
    [JV_INT] = json_type_int,    [JV_STR] = json_type_string,  [JV_BOOL] = json_type_boolean,
    [JV_LIST] = json_type_array, [JV_DICT] = json_type_object,
};

static const char *const type_words[] = {
    [JV_INT] = "an integer", [JV_STR] = "a string", [JV_BOOL] = "a boolean", [JV_LIST] = "a list", [JV_DICT] = "a dict",
};

bool jsonv_is(json_object *v, enum jsonv_type t)
{
	/* json_object_is_type(NULL, json_type_null) holds: null must never pass as a value. */
	return v != NULL && json_object_is_type(v, json_types[t]);
}

const char *jsonv_at(struct uow *uow, const char *where, size_t i)
{
	return arena_printf(&uow->arena, "%s[%zu]", where, i);
}

const char *jsonv_key(struct uow *uow, const char *where, const char *key)
{
	return arena_printf(&uow->arena, "%s[\"%s\"]", where, key);
}

int jsonv_check(struct uow *uow, json_object *v, enum jsonv_type t, const char *where)
{
	if (jsonv_is(v, t))
		return 0;
	return uow_error(uow, ERR_BAD_REQUEST, "%s is not %s", where, type_words[t]);
}

int jsonv_member(struct uow *uow, json_object *obj, const char *where, const char *key, enum jsonv_type t,
                 unsigned flags, json_object **out)
{
	*out = NULL;
	json_object *v;
	if (!json_object_object_get_ex(obj, key, &v)) {
		if (flags & JV_OPTIONAL)
			return 0;
		return uow_error(uow, ERR_BAD_REQUEST, "%s[\"%s\"] field is missing", where, key);
	}
	if (v == NULL && (flags & JV_NULLABLE))
		return 0;
	if (jsonv_check(uow, v, t, jsonv_key(uow, where, key)) < 0)
		return -1;
	*out = v;
	return 0;
}
