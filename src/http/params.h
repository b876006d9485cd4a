/*
 * Declared request parameters. Each route has a table of struct param_spec; param_validate() turns the raw
 * parameters into typed values or the reference's error, and marks what it consumed so that the response can
 * list `ignored_parameters_unsupported`. Handlers read the typed values with the getters and never parse.
 */
#ifndef CONFAB_PARAMS_H
#define CONFAB_PARAMS_H

#include <json-c/json.h>
#include <stdbool.h>
#include <stdint.h>

#include "core/limits.h"
#include "core/utf8.h" /* utf8_length(), for the string rules of handlers */

struct request;

enum param_type {
	PT_STR,       /* taken as sent */
	PT_INT,       /* JSON integer, within the range its flags give */
	PT_BOOL,      /* JSON true/false */
	PT_INT_LIST,  /* JSON array of integers, each within the range its flags give */
	PT_STR_LIST,  /* JSON array of strings */
	PT_DICT,      /* JSON object */
	PT_JSON,      /* any JSON value; when it is an array, its length is bounded like the lists' */
	PT_STR_PAIRS, /* JSON array of [string, string] lists (register's narrow) */
	/* Domain values: each is parsed here into the struct its getter returns, with the reference's errors. */
	PT_GROUP_SETTING, /* a group-setting value: a group id or {direct_members, direct_subgroups} */
	PT_GROUP_UPDATE,  /* a group-setting change {"new": value, "old": value?} */
	PT_LIMIT,         /* a positive integer (int4) or a keyword its flags allow (P_UNLIMITED, P_REALM_DEFAULT) */
	PT_ANCHOR,        /* a message id, "newest", "oldest" or "first_unread", taken as sent (not JSON) */
};

/*
 * Bounds of hostile input (see STYLE.md, "Hostile input").
 * Lists: every list parameter (PT_INT_LIST, PT_STR_LIST, PT_STR_PAIRS, and PT_JSON when an array is sent) holds at most
 * max_len items, PARAM_MAX_ITEMS when max_len is 0: "x is too long (limit: N items)". The reference bounds none of
 * these (only the request size does); the bounds are confab's, listed in docs/LIMITS.md, and keep the handlers' set
 * operations cheap. Integers: a PT_INT and each item of a PT_INT_LIST lies within the range of a PostgreSQL bigint
 * (ids), less its lowest value, which json-c cannot tell from an overflow; P_INT4 narrows it to an integer column's
 * and P_NONNEG to [0, ...] ("x is too small", "x is too large", "x[3] is too large": the reference's check_int_range
 * words). A parameter that lands in an integer column says so with P_INT4. Strings: a PT_STR, and every string inside
 * a JSON value, holds no NUL byte unless P_RAW says its handler reports it ("x must not contain null bytes",
 * "x[0][\"k\"] must not contain null bytes": no text column takes one). Memory: a JSON value is parsed only if its
 * cost (jsonx_cost()) fits the request's arena (core/arena.h): 413 "Request body too large" past it.
 */
/* PARAM_MAX_ITEMS: core/limits.h */

#define P_REQUIRED      0x1u   /* missing -> REQUEST_VARIABLE_MISSING */
#define P_PATH          0x2u   /* taken from the path pattern's {name} */
#define P_NONBLANK      0x4u   /* "x cannot be blank" */
#define P_RAW           0x8u   /* PT_STR, strings in JSON: NUL bytes allowed (the handler reports them) */
#define P_INT4          0x10u  /* PT_INT, PT_INT_LIST: within a PostgreSQL integer's range (int4), not bigint's */
#define P_NONNEG        0x20u  /* PT_INT, PT_INT_LIST: 0 or more */
#define P_NULL          0x40u  /* a JSON type: a JSON null counts as not sent (the reference's "| None = None") */
#define P_UNLIMITED     0x80u  /* PT_LIMIT: "unlimited" is a value */
#define P_REALM_DEFAULT 0x100u /* PT_LIMIT: "realm_default" is a value */

struct param_spec {
	const char *name;
	enum param_type type;
	unsigned flags;
	int max_len; /* PT_STR: maximum in Unicode code points, 0 = none; lists: maximum items, 0 = PARAM_MAX_ITEMS */
	const char *def; /* default as the client would send it, or NULL */
};

/*
 * A group-setting value as sent (the reference's int | AnonymousSettingGroupDict): the id of a named group, or an
 * anonymous group of users and groups. Lists hold at most PARAM_MAX_ITEMS ids ("x[\"direct_members\"] is too long
 * (limit: N items)"); anything else is "Invalid x". Whether the groups and users exist is the model's question.
 */
struct group_setting_value {
	bool is_anonymous;
	int64_t group_id;       /* a named group (!is_anonymous) */
	const int64_t *members; /* is_anonymous: direct_members, in the arena, as sent */
	size_t nmembers;
	const int64_t *subgroups; /* is_anonymous: direct_subgroups */
	size_t nsubgroups;
	json_object *json; /* the value as sent, owned by the request: what model/groups.h takes */
};

/* A group-setting change (the reference's GroupSettingChangeRequest): not an object is "x is not a dict"; a missing
 * or bad "new", or a bad "old", is "Invalid x". An "old" of null counts as not sent. */
struct group_setting_update {
	struct group_setting_value new_value;
	bool has_old;
	struct group_setting_value old; /* has_old: what the client believes the setting holds */
};

/* What a PT_LIMIT parameter holds. */
enum param_limit_kind { LIMIT_NONE, LIMIT_VALUE, LIMIT_UNLIMITED, LIMIT_REALM_DEFAULT };

/* The values of an anchor besides a message id (the reference's LARGER_THAN_MAX_MESSAGE_ID for "newest"). */
#define PARAM_ANCHOR_OLDEST       0LL
#define PARAM_ANCHOR_NEWEST       10000000000000000LL
#define PARAM_ANCHOR_FIRST_UNREAD (-1LL)

struct param_value {
	bool present; /* sent by the client (or from the path) */
	bool set;     /* present or defaulted */
	int64_t i;    /* PT_INT; PT_LIMIT (LIMIT_VALUE); PT_ANCHOR */
	bool b;
	int kind; /* PT_LIMIT: enum param_limit_kind; PT_ANCHOR: 1 if it is not an anchor */
	const char *s;
	size_t slen;
	json_object *json;                   /* owned by the request */
	struct group_setting_value *group;   /* PT_GROUP_SETTING, in the arena */
	struct group_setting_update *update; /* PT_GROUP_UPDATE, in the arena */
};

/* Validates req's parameters against specs (terminated by a {NULL} entry). Returns 0 or -1 (error recorded). */
int param_validate(struct request *req, const struct param_spec *specs);

/* Records the reference's REQUEST_VARIABLE_MISSING for name (for parameters required only in some cases); -1. */
int param_missing(struct request *req, const char *name);

/* Getters by declared name; a name the route does not declare is a programming error (aborts). */
bool param_present(struct request *req, const char *name);
bool param_set(struct request *req, const char *name);
int64_t param_int(struct request *req, const char *name);
bool param_bool(struct request *req, const char *name);
const char *param_str(struct request *req, const char *name);
/* The string and its length in bytes (for P_RAW parameters, which may hold NUL bytes). */
const char *param_str_len(struct request *req, const char *name, size_t *len);
json_object *param_json(struct request *req, const char *name);

/* PT_GROUP_SETTING, PT_GROUP_UPDATE: the parsed value, or NULL when not sent. */
const struct group_setting_value *param_group_setting(struct request *req, const char *name);
const struct group_setting_update *param_group_update(struct request *req, const char *name);

/*
 * PT_LIMIT, PT_ANCHOR: the value was parsed by param_validate(), but the reference reports a bad one from its view,
 * after checks of other parameters; the handler calls these where the reference does.
 * param_limit(): *kind is LIMIT_NONE (not sent), LIMIT_VALUE (*value set), LIMIT_UNLIMITED or LIMIT_REALM_DEFAULT;
 * -1 with REQUEST_VARIABLE_INVALID "Bad value for 'x': v" (var_name, bad_value) for a value outside its type.
 * param_anchor(): the anchor (a message id clamped to [0, PARAM_ANCHOR_NEWEST], or PARAM_ANCHOR_FIRST_UNREAD) of a
 * parameter that was sent; -1 with "Invalid anchor" for anything else (as Python's int() would refuse it).
 */
int param_limit(struct request *req, const char *name, enum param_limit_kind *kind, int64_t *value);
int param_anchor(struct request *req, const char *name, int64_t *anchor);

#endif
