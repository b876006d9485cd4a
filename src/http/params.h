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
	PT_STR,      /* taken as sent */
	PT_INT,      /* JSON integer, within the range its flags give */
	PT_BOOL,     /* JSON true/false */
	PT_INT_LIST, /* JSON array of integers, each within the range its flags give */
	PT_STR_LIST, /* JSON array of strings */
	PT_DICT,     /* JSON object */
	PT_JSON,     /* any JSON value; when it is an array, its length is bounded like the lists' */
};

/*
 * Bounds of hostile input (see STYLE.md, "Hostile input").
 * Lists: every list parameter (PT_INT_LIST, PT_STR_LIST, and PT_JSON when an array is sent) holds at most max_len
 * items, PARAM_MAX_ITEMS when max_len is 0: "x is too long (limit: N items)". The reference bounds none of these
 * (only the request size does); the bounds are confab's, listed in docs/LIMITS.md, and keep the handlers' set
 * operations cheap. Integers: a PT_INT and each item of a PT_INT_LIST lies within the range of a PostgreSQL bigint
 * (ids), less its lowest value, which json-c cannot tell from an overflow; P_INT4 narrows it to an integer column's
 * and P_NONNEG to [0, ...] ("x is too small", "x is too large", "x[3] is too large": the reference's check_int_range
 * words). A parameter that lands in an integer column says so with P_INT4.
 */
/* PARAM_MAX_ITEMS: core/limits.h */

#define P_REQUIRED 0x1u  /* missing -> REQUEST_VARIABLE_MISSING */
#define P_PATH     0x2u  /* taken from the path pattern's {name} */
#define P_NONBLANK 0x4u  /* "x cannot be blank" */
#define P_RAW      0x8u  /* PT_STR: NUL bytes allowed (the handler reports them in its own words) */
#define P_INT4     0x10u /* PT_INT, PT_INT_LIST: within a PostgreSQL integer's range (int4), not bigint's */
#define P_NONNEG   0x20u /* PT_INT, PT_INT_LIST: 0 or more */

struct param_spec {
	const char *name;
	enum param_type type;
	unsigned flags;
	int max_len; /* PT_STR: maximum in Unicode code points, 0 = none; lists: maximum items, 0 = PARAM_MAX_ITEMS */
	const char *def; /* default as the client would send it, or NULL */
};

struct param_value {
	bool present; /* sent by the client (or from the path) */
	bool set;     /* present or defaulted */
	int64_t i;
	bool b;
	const char *s;
	size_t slen;
	json_object *json; /* owned by the request */
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

#endif
