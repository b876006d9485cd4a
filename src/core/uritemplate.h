/*
 * RFC 6570 URI templates, all four levels: validation, the variable names a template uses, and expansion.
 * Pure code (no I/O, no allocation but the output buffer), so linkifier URL templates can be checked when an
 * administrator saves them and expanded for every match while rendering.
 */
#ifndef CONFAB_URITEMPLATE_H
#define CONFAB_URITEMPLATE_H

#include <stdbool.h>
#include <stddef.h>

#include "core/buf.h"

enum ut_type { UT_UNDEF, UT_STRING, UT_LIST, UT_MAP };

/*
 * A variable's value: a string, a list of n strings, or a map of n/2 pairs (items[0] key, items[1] value, ...).
 * An empty list or map counts as undefined, as the RFC says.
 */
struct ut_value {
	enum ut_type type;
	const char *str;
	const char *const *items;
	size_t n;
};

/* Looks up variable name (len bytes, not NUL-terminated); fills *out (left UT_UNDEF when not defined). */
typedef void (*ut_lookup_fn)(void *ctx, const char *name, size_t len, struct ut_value *out);

/* Whether tmpl is a valid template (expressions, operators, variable names, modifiers, literal characters). */
bool uritemplate_is_valid(const char *tmpl);
/*
 * Calls fn once per variable occurrence of a valid template (a name may repeat), with the name as written
 * (no modifier). Returns 0, or -1 (nothing called) for an invalid template.
 */
int uritemplate_variables(const char *tmpl, void (*fn)(void *ctx, const char *name, size_t len), void *ctx);
/* Appends the expansion of tmpl to out. Returns 0, or -1 for an invalid template or a full buffer. */
int uritemplate_expand(const char *tmpl, ut_lookup_fn lookup, void *ctx, struct buf *out);

#endif
