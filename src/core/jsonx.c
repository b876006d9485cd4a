/* Strict JSON parsing and compact output; see jsonx.h. */
#include "core/jsonx.h"

#include <json-c/printbuf.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "core/xalloc.h"

/* Length of the digits at s[i..len). */
static size_t digits(const char *s, size_t i, size_t len)
{
	size_t n = 0;
	while (i + n < len && s[i + n] >= '0' && s[i + n] <= '9')
		n++;
	return n;
}

/*
 * Length of the JSON number at s[i..len): -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?, not followed by
 * another character of a number; 0 if there is none. json-c's strict mode takes 1., -.5, -01 and 00.
 */
static size_t number_length(const char *s, size_t i, size_t len)
{
	size_t start = i, n;
	if (i < len && s[i] == '-')
		i++;
	if ((n = digits(s, i, len)) == 0 || (n > 1 && s[i] == '0'))
		return 0;
	i += n;
	if (i < len && s[i] == '.') {
		if ((n = digits(s, i + 1, len)) == 0)
			return 0;
		i += 1 + n;
	}
	if (i < len && (s[i] == 'e' || s[i] == 'E')) {
		i++;
		if (i < len && (s[i] == '+' || s[i] == '-'))
			i++;
		if ((n = digits(s, i, len)) == 0)
			return 0;
		i += n;
	}
	if (i < len && s[i] != '\0' && strchr("0123456789+-.eE", s[i]))
		return 0;
	return i - start;
}

#define COST_OBJECT 800
#define COST_ARRAY  160
#define COST_ITEM   112

/*
 * json-c's strict mode still takes 'single quotes', and its lenient number parser takes NaN, Infinity and
 * malformed numbers: outside of double-quoted strings only JSON's punctuation, the three literals and numbers
 * of JSON's grammar may appear. Adds to *cost what the text costs parsed (jsonx_cost()), as far as it looked.
 */
static bool has_only_json_tokens(const char *s, size_t len, size_t *cost)
{
	bool in_string = false;
	*cost = 2 * len + COST_ITEM;
	for (size_t i = 0; i < len; i++) {
		char c = s[i];
		if (in_string) {
			if (c == '\\')
				i++;
			else if (c == '"')
				in_string = false;
			else if ((unsigned char)c < 0x20)
				return false;
			continue;
		}
		*cost += c == '{' ? COST_OBJECT : c == '[' ? COST_ARRAY : c == ',' || c == ':' ? COST_ITEM : 0;
		if (c == '-' || (c >= '0' && c <= '9')) {
			size_t n = number_length(s, i, len);
			if (n == 0)
				return false;
			i += n - 1;
		} else if (c == '"') {
			in_string = true;
		} else if (!strchr("{}[],: \t\r\ntruefalsn", c) || c == '\0') {
			return false;
		}
	}
	return !in_string;
}

size_t jsonx_cost(const char *s, size_t len)
{
	size_t cost;
	has_only_json_tokens(s, len, &cost); /* text that is no JSON is refused by jsonx_parse() at no cost */
	return cost;
}

int jsonx_parse(const char *s, size_t len, json_object **out)
{
	*out = NULL;
	size_t cost;
	if (len == 0 || memchr(s, '\0', len) != NULL || !has_only_json_tokens(s, len, &cost))
		return -1;
	json_tokener *tok = json_tokener_new();
	if (tok == NULL)
		return -1;
	json_tokener_set_flags(tok, JSON_TOKENER_STRICT);
	/*
	 * json-c finishes a bare top-level number or literal only when it sees the end of the text: a NUL, passed on
	 * its own because s[len] need not be readable.
	 */
	json_object *obj = json_tokener_parse_ex(tok, s, (int)len);
	if (json_tokener_get_error(tok) == json_tokener_continue)
		obj = json_tokener_parse_ex(tok, "", 1);
	enum json_tokener_error err = json_tokener_get_error(tok);
	json_tokener_free(tok);
	if (err != json_tokener_success) {
		json_object_put(obj);
		return -1;
	}
	*out = obj;
	return 0;
}

const char *jsonx_string(json_object *obj)
{
	return json_object_to_json_string_ext(obj, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE);
}

#define RAW_MAX_PIECES 4

struct raw {
	int n;
	const char *pieces[RAW_MAX_PIECES];
	size_t lens[RAW_MAX_PIECES];
	void (*release)(void *);
	void *arg;
};

static int raw_to_string(json_object *obj, struct printbuf *pb, int level, int flags)
{
	(void)level;
	(void)flags;
	const struct raw *r = json_object_get_userdata(obj);
	for (int i = 0; i < r->n; i++)
		if (printbuf_memappend(pb, r->pieces[i], (int)r->lens[i]) < 0)
			return -1;
	return 0;
}

static void raw_delete(json_object *obj, void *userdata)
{
	(void)obj;
	struct raw *r = userdata;
	if (r->release != NULL)
		r->release(r->arg);
	free(r);
}

json_object *jsonx_raw(const char *const *pieces, const size_t *lens, int n, void (*release)(void *), void *arg)
{
	struct raw *r = xcalloc(1, sizeof(*r));
	r->n = n < RAW_MAX_PIECES ? n : RAW_MAX_PIECES;
	for (int i = 0; i < r->n; i++) {
		r->pieces[i] = pieces[i];
		r->lens[i] = lens[i];
	}
	r->release = release;
	r->arg = arg;
	json_object *obj = json_object_new_array();
	json_object_set_serializer(obj, raw_to_string, r, raw_delete);
	return obj;
}
