/*
 * Per-request memory: every allocation of a request comes from its arena and is released at once by
 * arena_reset()/arena_free(). Foreign objects (PGresult, json-c roots, redis replies) are registered
 * with arena_defer() so that they are released in the same place.
 */
#ifndef CONFAB_ARENA_H
#define CONFAB_ARENA_H

#include <stdarg.h>
#include <stddef.h>

struct arena_block;
struct arena_cleanup;

struct arena {
	struct arena_block *blocks;
	struct arena_cleanup *cleanups;
};

/* Initializes an empty arena; allocates nothing yet. */
void arena_init(struct arena *a);
/* Runs the deferred cleanups (last registered first) and frees every block; the arena stays usable. */
void arena_reset(struct arena *a);
#define arena_free arena_reset

/* Returns zeroed memory aligned for any type, owned by the arena. Never NULL. */
void *arena_alloc(struct arena *a, size_t size);
char *arena_strdup(struct arena *a, const char *s);
/* Copies len bytes and adds a NUL terminator. */
char *arena_strndup(struct arena *a, const char *s, size_t len);
/* Copies s without its leading and trailing white space. */
char *arena_strip(struct arena *a, const char *s);
char *arena_printf(struct arena *a, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
char *arena_vprintf(struct arena *a, const char *fmt, va_list ap);
/* Registers fn(ptr) to run at the next reset. ptr may be NULL, then nothing is registered. */
void arena_defer(struct arena *a, void (*fn)(void *), void *ptr);

#endif
