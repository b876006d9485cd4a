/*
 * Typed reads of JSON that a client sent. A structured parameter (a list of objects, an object of lists) is checked
 * value by value before anything uses it; a value of the wrong type is the reference's error, in the words of its
 * typed_endpoint (zerver/lib/typed_endpoint.py, pydantic's errors) and of its check_* validators, which agree:
 * "subscription_data[0][\"property\"] is not a string". Nothing here reads json-c's lenient conversions
 * (json_object_get_int64() of a string parses it; json_object_get_string() of JSON null is NULL).
 */
#ifndef CONFAB_JSONV_H
#define CONFAB_JSONV_H

#include <json-c/json.h>
#include <stdbool.h>
#include <stddef.h>

struct uow;

/* The types a client value may be required to have. JSON null has none of them (json-c represents it as NULL). */
enum jsonv_type {
	JV_INT,  /* a JSON integer: not a boolean, not 1.0, not "1" */
	JV_STR,  /* a JSON string */
	JV_BOOL, /* true or false */
	JV_LIST, /* a JSON array */
	JV_DICT, /* a JSON object */
};

/* JSON member flags of jsonv_member(). */
#define JV_OPTIONAL 0x1u /* an absent member is no error: *out is NULL */
#define JV_NULLABLE 0x2u /* a JSON null is no error: *out is NULL (the reference's "x: T | None") */

/* Whether v has type t. */
bool jsonv_is(json_object *v, enum jsonv_type t);

/* The names of a list item and of an object member, as the reference prints them: where[3], where["key"]; in the
 * unit of work's arena. */
const char *jsonv_at(struct uow *uow, const char *where, size_t i);
const char *jsonv_key(struct uow *uow, const char *where, const char *key);

/* 0 if v has type t; otherwise -1 with BAD_REQUEST "<where> is not a string" (an integer, a boolean, a list, a
 * dict) recorded. */
int jsonv_check(struct uow *uow, json_object *v, enum jsonv_type t, const char *where);

/*
 * The member key of obj (an object the caller checked) with type t into *out (owned by obj). Returns 0, or -1 with
 * the error recorded: "<where>[\"key\"] field is missing" for an absent member (unless JV_OPTIONAL), the type error
 * of jsonv_check() under the name <where>["key"] (a null is of no type, unless JV_NULLABLE).
 */
int jsonv_member(struct uow *uow, json_object *obj, const char *where, const char *key, enum jsonv_type t,
                 unsigned flags, json_object **out);

#endif
