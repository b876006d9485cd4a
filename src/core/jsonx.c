/* Strict JSON parsing and compact output; see jsonx.h. */
#include "core/jsonx.h"

#include <stdbool.h>
#include <string.h>

/*
 * json-c's strict mode still takes 'single quotes', and its lenient number parser takes NaN and Infinity:
 * outside of double-quoted strings only JSON's punctuation, numbers and the three literals may appear.
 */
static bool has_only_json_tokens(const char *s, size_t len)
{
	bool in_string = false;
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
		if (c == '"')
			in_string = true;
		else if (!strchr("{}[],: \t\r\n0123456789+-.eEtrufalsn", c) || c == '\0')
			return false;
	}
	return !in_string;
}

int jsonx_parse(const char *s, size_t len, json_object **out)
{
	*out = NULL;
	if (len == 0 || memchr(s, '\0', len) != NULL || !has_only_json_tokens(s, len))
		return -1;
	json_tokener *tok = json_tokener_new();
	if (tok == NULL)
		return -1;
	json_tokener_set_flags(tok, JSON_TOKENER_STRICT);
	/* Passing the terminating NUL lets json-c finish a bare top-level number or literal. */
	json_object *obj = json_tokener_parse_ex(tok, s, (int)len + 1);
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
