/* Custom profile fields and their values; see profile_fields.h. */
#include "model/profile_fields.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <strings.h>
#include <string.h>

#include "core/arena.h"
#include "core/jsonv.h"
#include "core/jsonx.h"
#include "core/limits.h"
#include "core/uow.h"
#include "core/utf8.h"
#include "db/db.h"
#include "events/events.h"
#include "model/channels.h"
#include "model/realm.h"
#include "model/user.h"
#include "model/user_admin.h"

static struct db_stmt st_fields = DB_STMT(
    "SELECT id, name, field_type, hint, field_data, \"order\", required, editable_by_user, display_in_profile_summary"
    " FROM custom_profile_fields WHERE realm_id = $1 ORDER BY \"order\", id");

json_object *profile_fields_json(struct uow *uow, int64_t realm_id)
{
	struct db_res *res = DB_EXEC(uow, &st_fields, db_arg_int(uow, realm_id));
	if (res == NULL)
		return NULL;
	json_object *out = json_object_new_array_ext(db_rows(res));
	for (int i = 0; i < db_rows(res); i++) {
		json_object *f = json_object_new_object();
		json_object_object_add(f, "id", json_object_new_int64(db_int(res, i, 0)));
		json_object_object_add(f, "name", json_object_new_string(db_val(res, i, 1)));
		json_object_object_add(f, "type", json_object_new_int((int)db_int(res, i, 2)));
		json_object_object_add(f, "hint", json_object_new_string(db_val(res, i, 3)));
		json_object_object_add(f, "field_data", json_object_new_string(db_val(res, i, 4)));
		json_object_object_add(f, "order", json_object_new_int((int)db_int(res, i, 5)));
		json_object_object_add(f, "required", json_object_new_boolean(db_bool(res, i, 6)));
		json_object_object_add(f, "editable_by_user", json_object_new_boolean(db_bool(res, i, 7)));
		if (db_bool(res, i, 8))
			json_object_object_add(f, "display_in_profile_summary", json_object_new_boolean(true));
		json_object_array_add(out, f);
	}
	return out;
}

int profile_fields_state(struct uow *uow, int64_t realm_id, json_object *out)
{
	static const char *const types[][2] = {
	    {"SHORT_TEXT", "Text (short)"},
	    {"LONG_TEXT", "Text (long)"},
	    {"SELECT", "List of options"},
	    {"DATE", "Date"},
	    {"URL", "Link"},
	    {"USER", "Users"},
	    {"EXTERNAL_ACCOUNT", "External account"},
	    {"PRONOUNS", "Pronouns"},
	};
	json_object *fields = profile_fields_json(uow, realm_id);
	if (fields == NULL)
		return -1;
	json_object_object_add(out, "custom_profile_fields", fields);
	json_object *t = json_object_new_object();
	for (int i = 0; i < 8; i++) {
		json_object *one = json_object_new_object();
		json_object_object_add(one, "id", json_object_new_int(i + 1));
		json_object_object_add(one, "name", json_object_new_string(types[i][1]));
		json_object_object_add(t, types[i][0], one);
	}
	json_object_object_add(out, "custom_profile_field_types", t);
	return 0;
}

/* ---- creating a field ---------------------------------------------------------------------------------------- */

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* The reference's validate_select_field_data: non-blank keys, each {"text", "order"} non-blank strings, no
 * duplicate texts. */
static int check_select_data(struct uow *uow, json_object *data)
{
	if (data == NULL || json_object_object_length(data) < 1)
		return uow_error(uow, ERR_BAD_REQUEST, "Field must have at least one choice.");
	if (json_object_object_length(data) > PARAM_MAX_ITEMS)
		return uow_error(uow, ERR_BAD_REQUEST, "field_data is too long (limit: %d items)", PARAM_MAX_ITEMS);
	json_object_object_foreach (data, key, choice) {
		const char *k = key;
		while (isspace((unsigned char)*k))
			k++;
		if (*k == '\0')
			return uow_error(uow, ERR_BAD_REQUEST, "'value' cannot be blank.");
		if (!json_object_is_type(choice, json_type_object))
			return uow_error(uow, ERR_BAD_REQUEST, "field_data is not a dict");
		static const char *const keys[] = {"text", "order"};
		for (int i = 0; i < 2; i++) {
			json_object *v;
			if (!json_object_object_get_ex(choice, keys[i], &v))
				return uow_error(uow, ERR_BAD_REQUEST, "field_data key is missing: %s", keys[i]);
			if (!json_object_is_type(v, json_type_string))
				return uow_error(uow, ERR_BAD_REQUEST, "field_data[\"%s\"] is not a string", keys[i]);
			if (strspn(json_object_get_string(v), " \t\r\n") == strlen(json_object_get_string(v)))
				return uow_error(uow, ERR_BAD_REQUEST, "field_data[\"%s\"] cannot be blank.", keys[i]);
		}
		if (json_object_object_length(choice) != 2)
			return uow_error(uow, ERR_BAD_REQUEST, "Unexpected arguments in field_data");
	}
	/* Duplicate texts, by sorting. */
	size_t n = 0;
	const char **texts = arena_alloc(&uow->arena, (size_t)json_object_object_length(data) * sizeof(*texts));
	json_object_object_foreach (data, k, c) {
		(void)k;
		texts[n++] = json_object_get_string(json_object_object_get(c, "text"));
	}
	qsort(texts, n, sizeof(*texts), cmp_str);
	for (size_t i = 1; i < n; i++)
		if (strcmp(texts[i - 1], texts[i]) == 0)
			return uow_error(uow, ERR_BAD_REQUEST, "Field must not have duplicate choices.");
	return 0;
}

static bool is_url(const char *s);

/*
 * The reference's check_external_account_url_pattern: clients link a user's account name through the pattern, so
 * it holds "%(username)s" once and, with a name in its place, is an http(s) or ftp(s) URL (not javascript:).
 */
static int check_url_pattern(struct uow *uow, json_object *pattern)
{
	static const char placeholder[] = "%(username)s";
	if (!json_object_is_type(pattern, json_type_string))
		return uow_error(uow, ERR_BAD_REQUEST, "field_data[\"url_pattern\"] is not a string");
	const char *p = json_object_get_string(pattern), *at = strstr(p, placeholder);
	if (at == NULL || strstr(at + 1, placeholder) != NULL)
		return uow_error(uow, ERR_BAD_REQUEST, "URL pattern must contain '%%(username)s'.");
	char *url = arena_printf(&uow->arena, "%.*susername%s", (int)(at - p), p, at + strlen(placeholder));
	if (!is_url(url))
		return uow_error(uow, ERR_BAD_REQUEST, "field_data[\"url_pattern\"] is not a URL");
	return 0;
}

/* External accounts: {"subtype": "github" | "twitter" | "custom", "url_pattern" for custom}. Sets *name and *hint
 * to the defaults of a known subtype. */
static int check_external_data(struct uow *uow, json_object *data, const char **name, const char **hint)
{
	json_object *subtype, *pattern;
	if (data == NULL || !json_object_object_get_ex(data, "subtype", &subtype) ||
	    !json_object_is_type(subtype, json_type_string))
		return uow_error(uow, ERR_BAD_REQUEST, "field_data key is missing: subtype");
	const char *s = json_object_get_string(subtype);
	if (json_object_object_get_ex(data, "url_pattern", &pattern) && check_url_pattern(uow, pattern) < 0)
		return -1;
	if (strcmp(s, "github") == 0) {
		*name = "GitHub", *hint = "Enter your GitHub username";
		return 0;
	}
	if (strcmp(s, "twitter") == 0) {
		*name = "Twitter", *hint = "Enter your Twitter username";
		return 0;
	}
	if (strcmp(s, "custom") != 0)
		return uow_error(uow, ERR_BAD_REQUEST, "Invalid external account type");
	if (!json_object_object_get_ex(data, "url_pattern", &pattern))
		return uow_error(uow, ERR_BAD_REQUEST, "Custom external account must define URL pattern");
	return 0;
}

static struct db_stmt st_summary_count =
    DB_STMT("SELECT count(*) FROM custom_profile_fields WHERE realm_id = $1 AND display_in_profile_summary");
static struct db_stmt st_name_taken = DB_STMT("SELECT 1 FROM custom_profile_fields WHERE realm_id = $1 AND name = $2");
/* The order of a new field is its id, as the reference does. */
static struct db_stmt st_insert_field =
    DB_STMT("INSERT INTO custom_profile_fields (id, realm_id, name, hint, field_type, field_data, \"order\","
            " display_in_profile_summary, required, editable_by_user)"
            " SELECT n, $1, $2, $3, $4, $5, n, $6, $7, $8 FROM nextval('custom_profile_fields_id_seq') n RETURNING id");
static struct db_stmt st_active_ids = DB_STMT("SELECT id FROM users WHERE realm_id = $1 AND is_active ORDER BY id");

/* The reference's validate_custom_profile_field, in its order. */
static int check_new_field(struct uow *uow, const struct profile_field_new *spec, const char **name, const char **hint)
{
	if (spec->type == PF_SELECT && check_select_data(uow, spec->field_data) < 0)
		return -1;
	if (spec->type == PF_EXTERNAL_ACCOUNT && check_external_data(uow, spec->field_data, name, hint) < 0)
		return -1;
	if (*name == spec->name) {
		if (**name == '\0')
			return uow_error(uow, ERR_BAD_REQUEST, "Label cannot be blank.");
		if (utf8_length(*hint) > 80)
			return uow_error(uow, ERR_BAD_REQUEST, "hint is too long (limit: 80 characters)");
		if (utf8_length(*name) > 40)
			return uow_error(uow, ERR_BAD_REQUEST, "name is too long (limit: 40 characters)");
	}
	if (spec->type < PF_SHORT_TEXT || spec->type > PF_PRONOUNS)
		return uow_error(uow, ERR_BAD_REQUEST, "Invalid field type.");
	if (spec->display_in_profile_summary && (spec->type == PF_LONG_TEXT || spec->type == PF_USER))
		return uow_error(uow, ERR_BAD_REQUEST, "Field type not supported for display in profile summary.");
	return 0;
}

/* custom_profile_fields with every field of the organization, to every active user. */
static int fields_event(struct uow *uow, int64_t realm_id)
{
	json_object *fields = profile_fields_json(uow, realm_id);
	struct db_res *res = fields ? DB_EXEC(uow, &st_active_ids, db_arg_int(uow, realm_id)) : NULL;
	if (res == NULL) {
		json_object_put(fields);
		return -1;
	}
	int n;
	int64_t *ids = db_ids(uow, res, 0, &n);
	json_object *event = uow_own_json(uow, json_object_new_object());
	json_object_object_add(event, "type", json_object_new_string("custom_profile_fields"));
	json_object_object_add(event, "fields", fields);
	return events_add(uow, event, ids, n, 0);
}

int64_t profile_field_create(struct uow *uow, const struct profile_field_new *spec)
{
	int64_t realm_id = uow->realm->id;
	if (spec->display_in_profile_summary) {
		struct db_res *res = DB_EXEC(uow, &st_summary_count, db_arg_int(uow, realm_id));
		if (res == NULL)
			return 0;
		if (db_int(res, 0, 0) >= 2)
			return uow_error(uow, ERR_BAD_REQUEST,
			                 "Only 2 custom profile fields can be displayed in the profile summary."),
			       0;
	}
	const char *name = spec->name, *hint = spec->hint;
	if (check_new_field(uow, spec, &name, &hint) < 0)
		return 0;
	struct db_res *taken = DB_EXEC(uow, &st_name_taken, db_arg_int(uow, realm_id), name);
	if (taken == NULL)
		return 0;
	if (db_rows(taken) > 0)
		return uow_error(uow, ERR_BAD_REQUEST, "A field with that label already exists."), 0;
	const char *data = spec->field_data ? jsonx_string(spec->field_data) : "";
	struct db_res *res =
	    DB_EXEC(uow, &st_insert_field, db_arg_int(uow, realm_id), name, hint, db_arg_int(uow, spec->type), data,
	            spec->display_in_profile_summary ? "true" : "false", spec->required ? "true" : "false",
	            spec->editable_by_user ? "true" : "false");
	if (res == NULL || fields_event(uow, realm_id) < 0)
		return 0;
	return db_int(res, 0, 0);
}

/* ---- values -------------------------------------------------------------------------------------------------- */

struct field {
	int64_t id;
	const char *name;
	int type;
	const char *field_data;
	bool editable_by_user;
};

static struct db_stmt st_field = DB_STMT("SELECT id, name, field_type, field_data, editable_by_user FROM "
                                         "custom_profile_fields WHERE realm_id = $1 AND id = $2");

/* The field id of the request's organization, or NULL with "Field id N not found." recorded. */
static struct field *field_or_error(struct uow *uow, int64_t id)
{
	struct db_res *res = DB_EXEC(uow, &st_field, db_arg_int(uow, uow->realm->id), db_arg_int(uow, id));
	if (res == NULL)
		return NULL;
	if (db_rows(res) == 0) {
		uow_error(uow, ERR_BAD_REQUEST, "Field id %lld not found.", (long long)id);
		return NULL;
	}
	struct field *f = arena_alloc(&uow->arena, sizeof(*f));
	*f = (struct field){db_int(res, 0, 0), db_val(res, 0, 1), (int)db_int(res, 0, 2), db_val(res, 0, 3),
	                    db_bool(res, 0, 4)};
	return f;
}

/* The field of data[i] (an entry whose shape was checked), or NULL with the error recorded; *value its "value". */
static struct field *entry_field(struct uow *uow, json_object *data, size_t i, json_object **value)
{
	json_object *entry = json_object_array_get_idx(data, i);
	*value = json_object_object_get(entry, "value");
	return field_or_error(uow, json_object_get_int64(json_object_object_get(entry, "id")));
}

/* YYYY-MM-DD naming a real day (Python's strptime with "%Y-%m-%d", printed back identically). */
static bool is_date(const char *s)
{
	int y, m, d, len = 0;
	if (strlen(s) != 10 || sscanf(s, "%4d-%2d-%2d%n", &y, &m, &d, &len) != 3 || len != 10 || s[4] != '-' ||
	    s[7] != '-' || !isdigit((unsigned char)s[0]) || !isdigit((unsigned char)s[5]) ||
	    !isdigit((unsigned char)s[8]))
		return false;
	static const int days[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
	bool leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
	return y >= 1 && m >= 1 && m <= 12 && d >= 1 && d <= days[m - 1] + (m == 2 && leap);
}

/* An http(s) or ftp(s) URL with a host name (the part of Django's URLValidator that matters here). */
static bool is_url(const char *s)
{
	static const char *const schemes[] = {"http://", "https://", "ftp://", "ftps://"};
	const char *host = NULL;
	for (size_t i = 0; i < 4 && host == NULL; i++)
		if (strncasecmp(s, schemes[i], strlen(schemes[i])) == 0)
			host = s + strlen(schemes[i]);
	if (host == NULL || strpbrk(s, " \t\r\n") != NULL)
		return false;
	size_t n = strcspn(host, "/?#:");
	if (n == 0 || host[0] == '.' || host[n - 1] == '.' || host[0] == '-')
		return false;
	bool dot = false;
	for (size_t i = 0; i < n; i++) {
		if (host[i] == '.')
			dot = true;
		else if (!isalnum((unsigned char)host[i]) && host[i] != '-' && !((unsigned char)host[i] & 0x80))
			return false;
	}
	return dot || (n == 9 && strncasecmp(host, "localhost", 9) == 0);
}

static struct db_stmt st_user_flags =
    DB_STMT("SELECT t.v, u.id IS NOT NULL, COALESCE(u.is_active, false), COALESCE(u.is_bot, false)"
            " FROM unnest($2::bigint[]) WITH ORDINALITY t(v, i) LEFT JOIN users u ON u.id = t.v AND u.realm_id = $1"
            " ORDER BY t.i");

/* The reference's check_valid_user_ids for the Users type. */
static int check_user_ids(struct uow *uow, json_object *value)
{
	if (!json_object_is_type(value, json_type_array))
		return uow_error(uow, ERR_BAD_REQUEST, "User IDs is not a list");
	size_t n = json_object_array_length(value);
	if (n > PARAM_MAX_ITEMS)
		return uow_error(uow, ERR_BAD_REQUEST, "User IDs is too long (limit: %d items)", PARAM_MAX_ITEMS);
	int64_t *ids = arena_alloc(&uow->arena, (n + 1) * sizeof(*ids));
	for (size_t i = 0; i < n; i++) {
		json_object *v = json_object_array_get_idx(value, i);
		if (!json_object_is_type(v, json_type_int))
			return uow_error(uow, ERR_BAD_REQUEST, "User IDs[%zu] is not an integer", i);
		ids[i] = json_object_get_int64(v);
	}
	struct db_res *res =
	    DB_EXEC(uow, &st_user_flags, db_arg_int(uow, uow->realm->id), db_arg_ids(uow, ids, (int)n));
	if (res == NULL)
		return -1;
	for (int i = 0; i < db_rows(res); i++)
		if (!db_bool(res, i, 1))
			return uow_error(uow, ERR_BAD_REQUEST, "Invalid user ID: %s", db_val(res, i, 0));
	for (int i = 0; i < db_rows(res); i++) {
		if (!db_bool(res, i, 2))
			return uow_error(uow, ERR_BAD_REQUEST, "User with ID %s is deactivated", db_val(res, i, 0));
		if (db_bool(res, i, 3))
			return uow_error(uow, ERR_BAD_REQUEST, "User with ID %s is a bot", db_val(res, i, 0));
	}
	return 0;
}

/* The reference's validate_user_custom_profile_field: the value for field f, named by the field's name. */
static int check_value(struct uow *uow, const struct field *f, json_object *value)
{
	if (f->type == PF_USER)
		return check_user_ids(uow, value);
	if (!json_object_is_type(value, json_type_string))
		return uow_error(uow, ERR_BAD_REQUEST, "%s is not a string", f->name);
	const char *s = json_object_get_string(value);
	switch (f->type) {
	case PF_LONG_TEXT:
		if (utf8_length(s) > 500)
			return uow_error(uow, ERR_BAD_REQUEST, "%s is too long (limit: 500 characters)", f->name);
		return 0;
	case PF_SELECT: {
		json_object *choices = NULL;
		jsonx_parse(f->field_data, strlen(f->field_data), &choices);
		bool ok = choices != NULL && json_object_object_get_ex(choices, s, NULL);
		json_object_put(choices);
		return ok ? 0 : uow_error(uow, ERR_BAD_REQUEST, "'%s' is not a valid choice for '%s'.", s, f->name);
	}
	case PF_DATE: return is_date(s) ? 0 : uow_error(uow, ERR_BAD_REQUEST, "%s is not a date", f->name);
	case PF_URL: return is_url(s) ? 0 : uow_error(uow, ERR_BAD_REQUEST, "%s is not a URL", f->name);
	default:
		if (utf8_length(s) > 50)
			return uow_error(uow, ERR_BAD_REQUEST, "%s is too long (limit: 50 characters)", f->name);
		return 0;
	}
}

/* A value that removes the field's value (PATCH /users/{id}: null, "" or []). */
static bool is_removal(json_object *value)
{
	return value == NULL ||
	       (json_object_is_type(value, json_type_string) && json_object_get_string_len(value) == 0) ||
	       (json_object_is_type(value, json_type_array) && json_object_array_length(value) == 0);
}

/* A value of the reference's ProfileDataElementValue (str | list[int]). */
static bool is_element_value(json_object *value)
{
	if (jsonv_is(value, JV_STR))
		return true;
	if (!jsonv_is(value, JV_LIST))
		return false;
	for (size_t k = 0; k < json_object_array_length(value); k++)
		if (!jsonv_is(json_object_array_get_idx(value, k), JV_INT))
			return false;
	return true;
}

/* The shape check_profile_data / ProfileDataElementUpdateDict asks for: objects with an integer id and a value, a
 * string or a list of integers (else pydantic's error for the union's first member), or a removal (allow_remove). */
static int check_entry_shape(struct uow *uow, json_object *entry, size_t i, const char *var, bool allow_remove)
{
	json_object *id, *value;
	if (!json_object_is_type(entry, json_type_object))
		return uow_error(uow, ERR_BAD_REQUEST, "%s[%zu] is not a dict", var, i);
	if (!json_object_object_get_ex(entry, "id", &id))
		return uow_error(uow, ERR_BAD_REQUEST, "%s[%zu] key is missing: id", var, i);
	if (!json_object_is_type(id, json_type_int))
		return uow_error(uow, ERR_BAD_REQUEST, "%s[%zu][\"id\"] is not an integer", var, i);
	if (!json_object_object_get_ex(entry, "value", &value))
		return uow_error(uow, ERR_BAD_REQUEST, "%s[%zu] key is missing: value", var, i);
	if (!is_element_value(value) && !(allow_remove && is_removal(value)))
		return uow_error(uow, ERR_BAD_REQUEST, "%s[%zu][\"value\"][\"str\"] is not a string", var, i);
	return 0;
}

int profile_data_check_shape(struct uow *uow, json_object *data, bool allow_remove)
{
	const char *var = allow_remove ? "profile_data" : "data";
	if (!json_object_is_type(data, json_type_array))
		return uow_error(uow, ERR_BAD_REQUEST, "%s is not a list", var);
	for (size_t i = 0; i < json_object_array_length(data); i++)
		if (check_entry_shape(uow, json_object_array_get_idx(data, i), i, var, allow_remove) < 0)
			return -1;
	return 0;
}

int profile_data_check(struct uow *uow, json_object *data, const struct user *acting, bool allow_remove)
{
	if (profile_data_check_shape(uow, data, allow_remove) < 0)
		return -1;
	for (size_t i = 0; i < json_object_array_length(data); i++) {
		json_object *value;
		struct field *f = entry_field(uow, data, i, &value);
		if (f == NULL)
			return -1;
		if (!user_is_admin(acting) && !f->editable_by_user)
			return uow_error(
			    uow, ERR_BAD_REQUEST,
			    "You are not allowed to change this field. Contact an administrator to update it.");
		if (allow_remove && is_removal(value))
			continue;
		if (check_value(uow, f, value) < 0)
			return -1;
	}
	return 0;
}

static struct db_stmt st_value =
    DB_STMT("SELECT v.value FROM custom_profile_field_values v WHERE v.user_id = $1 AND v.field_id = $2");
static struct db_stmt st_upsert = DB_STMT(
    "INSERT INTO custom_profile_field_values (user_id, field_id, value, rendered_value) VALUES ($1, $2, $3, $4)"
    " ON CONFLICT (user_id, field_id) DO UPDATE SET value = EXCLUDED.value, rendered_value = EXCLUDED.rendered_value");
static struct db_stmt st_delete_value =
    DB_STMT("DELETE FROM custom_profile_field_values WHERE user_id = $1 AND field_id = $2 RETURNING 1");

/* realm_user update {user_id, custom_profile_field: {id, value, rendered_value?}} to those who may see target. */
static int value_event(struct uow *uow, const struct user *target, int64_t field_id, const char *value,
                       const char *rendered)
{
	int n;
	int64_t *users = user_access_audience(uow, target, &n);
	if (users == NULL)
		return -1;
	json_object *event = uow_own_json(uow, json_object_new_object()), *person = json_object_new_object(),
	            *field = json_object_new_object();
	json_object_object_add(event, "type", json_object_new_string("realm_user"));
	json_object_object_add(event, "op", json_object_new_string("update"));
	json_object_object_add(person, "user_id", json_object_new_int64(target->id));
	json_object_object_add(field, "id", json_object_new_int64(field_id));
	json_object_object_add(field, "value", value ? json_object_new_string(value) : NULL);
	if (rendered != NULL)
		json_object_object_add(field, "rendered_value", json_object_new_string(rendered));
	json_object_object_add(person, "custom_profile_field", field);
	json_object_object_add(event, "person", person);
	return events_add(uow, event, users, n, 0);
}

/* Stores one value (a string, or a list of user ids stored as its JSON text) unless unchanged. */
static int set_value(struct uow *uow, const struct user *target, const struct field *f, json_object *value)
{
	const char *text = json_object_is_type(value, json_type_string)
	                       ? json_object_get_string(value)
	                       : arena_strdup(&uow->arena, jsonx_string(value));
	struct db_res *old = DB_EXEC(uow, &st_value, db_arg_int(uow, target->id), db_arg_int(uow, f->id));
	if (old == NULL)
		return -1;
	if (db_rows(old) > 0 && strcmp(db_val(old, 0, 0), text) == 0)
		return 0;
	const char *rendered = NULL;
	if ((f->type == PF_SHORT_TEXT || f->type == PF_LONG_TEXT) &&
	    (rendered = channel_render_description(uow, text)) == NULL)
		return -1;
	if (DB_EXEC(uow, &st_upsert, db_arg_int(uow, target->id), db_arg_int(uow, f->id), text, rendered) == NULL)
		return -1;
	return value_event(uow, target, f->id, text, rendered);
}

int profile_data_apply(struct uow *uow, const struct user *target, json_object *data, bool allow_remove)
{
	for (size_t i = 0; i < json_object_array_length(data); i++) {
		json_object *value;
		struct field *f = entry_field(uow, data, i, &value);
		if (f == NULL)
			return -1;
		if (allow_remove && is_removal(value)) {
			struct db_res *res =
			    DB_EXEC(uow, &st_delete_value, db_arg_int(uow, target->id), db_arg_int(uow, f->id));
			if (res == NULL || (db_rows(res) > 0 && value_event(uow, target, f->id, NULL, NULL) < 0))
				return -1;
		} else if (set_value(uow, target, f, value) < 0) {
			return -1;
		}
	}
	return 0;
}
