/*
 * libFuzzer target for the strict JSON parser of parameters (core/jsonx.c). A small RFC 8259 recognizer below
 * is the oracle: whatever jsonx_parse() accepts must be JSON by the grammar, and whatever the grammar accepts
 * (nested less deeply than json-c's limit) must be accepted. An accepted value must also survive
 * jsonx_string() and a second parse unchanged.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"

/* json-c's default nesting limit (JSON_TOKENER_DEFAULT_DEPTH); deeper texts are rejected on purpose. */
#define MAX_DEPTH 32

struct cursor {
	const char *s, *end;
	int depth, max_depth;
};

static bool value(struct cursor *c);

static void ws(struct cursor *c)
{
	while (c->s < c->end && (*c->s == ' ' || *c->s == '\t' || *c->s == '\n' || *c->s == '\r'))
		c->s++;
}

static bool lit(struct cursor *c, const char *word)
{
	size_t n = strlen(word);
	if ((size_t)(c->end - c->s) < n || memcmp(c->s, word, n) != 0)
		return false;
	c->s += n;
	return true;
}

static size_t digits(struct cursor *c)
{
	const char *start = c->s;
	while (c->s < c->end && *c->s >= '0' && *c->s <= '9')
		c->s++;
	return (size_t)(c->s - start);
}

static bool number(struct cursor *c)
{
	if (c->s < c->end && *c->s == '-')
		c->s++;
	if (c->s < c->end && *c->s == '0')
		c->s++;
	else if (digits(c) == 0)
		return false;
	if (c->s < c->end && *c->s == '.' && (c->s++, digits(c) == 0))
		return false;
	if (c->s < c->end && (*c->s == 'e' || *c->s == 'E')) {
		c->s++;
		if (c->s < c->end && (*c->s == '+' || *c->s == '-'))
			c->s++;
		if (digits(c) == 0)
			return false;
	}
	return true;
}

static bool string(struct cursor *c)
{
	if (!lit(c, "\""))
		return false;
	while (c->s < c->end) {
		unsigned char ch = (unsigned char)*c->s++;
		if (ch == '"')
			return true;
		if (ch < 0x20)
			return false;
		if (ch != '\\')
			continue;
		if (c->s == c->end)
			return false;
		ch = (unsigned char)*c->s++;
		if (ch == 'u') {
			for (int k = 0; k < 4; k++, c->s++)
				if (c->s == c->end || !strchr("0123456789abcdefABCDEF", *c->s) || *c->s == '\0')
					return false;
		} else if (!strchr("\"\\/bfnrt", ch) || ch == '\0') {
			return false;
		}
	}
	return false;
}

/* Members of an object (pairs) or elements of an array, after the opening bracket. */
static bool items(struct cursor *c, bool pairs, char close)
{
	if (++c->depth > c->max_depth)
		c->max_depth = c->depth;
	if (c->depth > 4 * MAX_DEPTH)
		return false; /* json-c rejects it anyway; this keeps the recursion bounded */
	ws(c);
	if (c->s < c->end && *c->s == close) {
		c->s++;
		c->depth--;
		return true;
	}
	for (;;) {
		ws(c);
		if (pairs && !(string(c) && (ws(c), lit(c, ":"))))
			return false;
		if (!value(c))
			return false;
		ws(c);
		if (c->s < c->end && *c->s == close) {
			c->s++;
			c->depth--;
			return true;
		}
		if (!lit(c, ","))
			return false;
	}
}

static bool value(struct cursor *c)
{
	ws(c);
	if (c->s == c->end)
		return false;
	switch (*c->s) {
	case '{': c->s++; return items(c, true, '}');
	case '[': c->s++; return items(c, false, ']');
	case '"': return string(c);
	case 't': return lit(c, "true");
	case 'f': return lit(c, "false");
	case 'n': return lit(c, "null");
	default: return number(c);
	}
}

/* True if s is one JSON text by RFC 8259's grammar; *depth gets its deepest nesting. */
static bool is_json_text(const char *s, size_t len, int *depth)
{
	struct cursor c = {s, s + len, 0, 0};
	bool ok = value(&c);
	ws(&c);
	*depth = c.max_depth;
	return ok && c.s == c.end;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* A copy of exactly the input's size, so that ASan sees every read past its end. */
	char *s = malloc(size ? size : 1);
	memcpy(s, data, size);
	json_object *obj = NULL;
	int rc = jsonx_parse(s, size, &obj);
	int depth;
	bool grammar = is_json_text(s, size, &depth);
	FUZZ_CHECK(rc < 0 || grammar);
	FUZZ_CHECK(rc == 0 || !grammar || depth >= MAX_DEPTH);
	if (rc == 0) {
		const char *out = obj ? jsonx_string(obj) : "null";
		json_object *again = NULL;
		FUZZ_CHECK(jsonx_parse(out, strlen(out), &again) == 0);
		FUZZ_CHECK(json_object_equal(obj, again));
		json_object_put(again);
	}
	json_object_put(obj);
	free(s);
	return 0;
}
