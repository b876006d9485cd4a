/*
 * Custom profile fields of an organization and their values per user (the reference's CustomProfileField and
 * CustomProfileFieldValue, zerver/actions/custom_profile_fields.py). Works in the calling unit of work.
 */
#ifndef CONFAB_PROFILE_FIELDS_H
#define CONFAB_PROFILE_FIELDS_H

#include <json-c/json.h>
#include <stdbool.h>
#include <stdint.h>

struct uow;
struct user;

enum profile_field_type {
	PF_SHORT_TEXT = 1,
	PF_LONG_TEXT = 2,
	PF_SELECT = 3,
	PF_DATE = 4,
	PF_URL = 5,
	PF_USER = 6,
	PF_EXTERNAL_ACCOUNT = 7,
	PF_PRONOUNS = 8,
};

/* The organization's fields as the API shows them (in their order), a new array; NULL on error. */
json_object *profile_fields_json(struct uow *uow, int64_t realm_id);

/* Adds the register state of custom_profile_fields (custom_profile_fields and custom_profile_field_types) to out.
 * 0 or -1. */
int profile_fields_state(struct uow *uow, int64_t realm_id, json_object *out);

struct profile_field_new {
	const char *name;
	const char *hint;
	int type;
	json_object *field_data; /* an object, or NULL */
	bool display_in_profile_summary;
	bool required;
	bool editable_by_user;
};

/*
 * Checks and creates a field of the request's organization with the reference's messages ("Label cannot be
 * blank.", "Invalid field type.", "Field must have at least one choice.", "A field with that label already
 * exists." ...), then sends custom_profile_fields with every field to every active user. Returns the new id, or 0
 * with the error recorded.
 */
int64_t profile_field_create(struct uow *uow, const struct profile_field_new *spec);

/*
 * Checks a list of {"id", "value"} objects (value a string or a list of user ids; null or empty means "remove" when
 * allow_remove) against the organization's fields, as acting: "Field id N not found.", "You are not allowed to
 * change this field. ...", and each type's value errors. 0 or -1.
 */
int profile_data_check(struct uow *uow, json_object *data, const struct user *acting, bool allow_remove);
/* The part of profile_data_check() that needs no database: the list's shape, each entry an object with an integer
 * "id" and a "value" of the reference's type ("data[0][\"value\"][\"str\"] is not a string"). 0 or -1. */
int profile_data_check_shape(struct uow *uow, json_object *data, bool allow_remove);
/*
 * Stores the checked values for target (removing those null or empty when allow_remove), each change announced by
 * realm_user update {user_id, custom_profile_field: {id, value, rendered_value?}} to those who may see target.
 * Unchanged values send nothing. 0 or -1.
 */
int profile_data_apply(struct uow *uow, const struct user *target, json_object *data, bool allow_remove);

#endif
