/* Strict JSON input and compact JSON output on top of json-c (see stack-notes: json-c is lenient by default). */
#ifndef CONFAB_JSONX_H
#define CONFAB_JSONX_H

#include <json-c/json.h>
#include <stddef.h>

/*
 * Parses s (len bytes) as one RFC 8259 JSON text: no trailing garbage, no single quotes, no NaN/Infinity.
 * Returns 0 with the value in *out (NULL for `null`; the caller owns it), or -1 if s is not valid JSON.
 */
int jsonx_parse(const char *s, size_t len, json_object **out);
/*
 * About the bytes json-c allocates to parse s (len bytes): json-c 0.16 on x86-64 takes some 800 bytes for an object,
 * 150 for an array, 100 for a member or item, besides the text, so that a 4 MiB text of "[{},{},...]" costs
 * 1.1 GB. Linear in len; for arena_charge() before jsonx_parse() of what a client sent.
 */
size_t jsonx_cost(const char *s, size_t len);
/* Compact serialization without escaped slashes; the string belongs to obj. */
const char *jsonx_string(json_object *obj);
/*
 * A value that serializes as the concatenation of n (at most 4) pieces of text, written verbatim: JSON made
 * earlier (a cached list) spliced into an answer without parsing it again. The pieces must stay valid until the
 * value is freed, which calls release(arg) (release may be NULL). Only for serialization: to json-c the value is an
 * empty array. The caller owns the value.
 */
json_object *jsonx_raw(const char *const *pieces, const size_t *lens, int n, void (*release)(void *), void *arg);

#endif
