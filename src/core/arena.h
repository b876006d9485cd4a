/*
 * Per-request memory: every allocation of a request comes from its arena and is released at once by
 * arena_reset()/arena_free(). Foreign objects (PGresult, json-c roots, redis replies) are registered
 * with arena_defer() so that they are released in the same place.
 *
 * An arena counts what it holds (its blocks, and what arena_charge() reports held outside it, such as a parsed
 * JSON value) against an optional limit: the places where a client decides how much is allocated ask first
 * (arena_charge()), and answer an error instead of growing past it. Blocks grow with the arena, so that the memory
 * of a large request is in large blocks, which malloc maps and unmaps on their own (worker.c fixes its threshold):
 * it goes back to the system when the request ends.
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
	size_t held;  /* bytes of the blocks plus bytes charged */
	size_t limit; /* the most arena_charge() lets held reach; 0: no limit */
};

/* Initializes an empty arena without a limit; allocates nothing yet. */
void arena_init(struct arena *a);
/* Runs the deferred cleanups (last registered first) and frees every block; the arena stays usable (and keeps its
 * limit). */
void arena_reset(struct arena *a);
/* Sets the limit of arena_charge() (0: none). arena_alloc() itself never fails: it counts, but does not refuse. */
void arena_set_limit(struct arena *a, size_t limit);
/*
 * Asks for n more bytes: counts them and returns 0 if the arena then holds at most its limit, else returns -1 and
 * counts nothing. Call it before an allocation whose size a client chose, with that size (arena_alloc() then adds
 * its own block: count it or not, as the caller prefers), or for memory held outside the arena until the reset.
 */
int arena_charge(struct arena *a, size_t n);
/* Bytes the arena holds (blocks and charges) since its last reset. */
size_t arena_held(const struct arena *a);
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
