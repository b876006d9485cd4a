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
/* Compact serialization without escaped slashes; the string belongs to obj. */
const char *jsonx_string(json_object *obj);
/*
 * A value that serializes as text (len bytes of JSON, kept by reference: it must outlive the object), spliced
 * as it is into whatever holds it, never parsed. The caller owns the object (an empty array to anything reading it).
 */
json_object *jsonx_raw(const char *text, size_t len);

#endif
