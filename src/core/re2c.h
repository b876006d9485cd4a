/*
 * RE2 behind a C interface: the only C++ in the tree (re2c.cc). RE2 matches in time linear in the text, so a
 * pattern an administrator writes can never stall rendering the way a backtracking engine could. Patterns and
 * texts are UTF-8; a compiled regexp is immutable and may be used by many threads at once.
 */
#ifndef CONFAB_RE2C_H
#define CONFAB_RE2C_H

#include <stdbool.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

struct re2c;

/* A submatch: byte offsets into the text, or both -1 when the group took no part in the match. */
struct re2c_span {
	long begin, end;
};

/*
 * Compiles pattern (len bytes, RE2 syntax with Python's (?P<name>...) groups). Returns the regexp (free it
 * with re2c_free()), or NULL with RE2's own message ("missing ): (foo") copied into err (errlen bytes, always
 * NUL-terminated). Never throws; memory exhaustion is reported as an error too.
 */
struct re2c *re2c_compile(const char *pattern, size_t len, char *err, size_t errlen);
void re2c_free(struct re2c *re);
/* The number of capturing groups (numbered from 1). */
int re2c_groups(const struct re2c *re);
/* The name of capturing group i (1..re2c_groups()), or NULL for an unnamed one; owned by re. */
const char *re2c_group_name(const struct re2c *re, int i);
/* The number of a named group, or -1. */
int re2c_group_index(const struct re2c *re, const char *name);
/*
 * Searches text (len bytes) for the leftmost match that starts at or after byte start; "^" and "$" see the
 * whole text, so "^" never matches after 0. Fills spans[0..n-1] (span 0 is the whole match; n may exceed the
 * groups + 1, the rest is -1). Returns true on a match.
 */
bool re2c_search(const struct re2c *re, const char *text, size_t len, size_t start, struct re2c_span *spans, int n);

#ifdef __cplusplus
}
#endif

#endif
