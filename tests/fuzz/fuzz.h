/* Helpers shared by the libFuzzer targets: invariant checks that abort, so that libFuzzer keeps the input. */
#ifndef CONFAB_FUZZ_H
#define CONFAB_FUZZ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "core/jsonx.h"
#include "core/utf8.h"

#define FUZZ_CHECK(cond)                                                                                               \
	do {                                                                                                           \
		if (!(cond)) {                                                                                         \
			fprintf(stderr, "%s:%d: invariant failed: %s\n", __FILE__, __LINE__, #cond);                   \
			abort();                                                                                       \
		}                                                                                                      \
	} while (0)

/* True if s (len bytes) is valid UTF-8. */
static inline bool fuzz_is_utf8(const char *s, size_t len)
{
	for (size_t i = 0; i < len;) {
		uint32_t cp;
		size_t l = utf8_decode((const unsigned char *)s + i, len - i, &cp);
		if (l == 0)
			return false;
		i += l;
	}
	return true;
}

/* True if s (len bytes) is one valid UTF-8 JSON text, as a client will parse a response. */
static inline bool fuzz_is_json(const char *s, size_t len)
{
	json_object *obj;
	if (!fuzz_is_utf8(s, len) || jsonx_parse(s, len, &obj) < 0)
		return false;
	json_object_put(obj);
	return true;
}

#endif
