/* A simple bump allocator with a cleanup list; see arena.h. */
#include "core/arena.h"

#include <ctype.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/xalloc.h"

#define ARENA_BLOCK_SIZE 8192
#define ARENA_ALIGN      16
/* The largest block of an arena that has grown; see next_block_size(). */
#define ARENA_MAX_BLOCK (1024 * 1024)

struct arena_block {
	struct arena_block *next;
	size_t size;
	size_t used;
	_Alignas(ARENA_ALIGN) unsigned char data[];
};

struct arena_cleanup {
	struct arena_cleanup *next;
	void (*fn)(void *);
	void *ptr;
};

void arena_init(struct arena *a)
{
	a->blocks = NULL;
	a->cleanups = NULL;
	a->held = 0;
	a->limit = 0;
}

void arena_set_limit(struct arena *a, size_t limit)
{
	a->limit = limit;
}

int arena_charge(struct arena *a, size_t n)
{
	if (a->limit != 0 && (n > a->limit || a->held > a->limit - n))
		return -1;
	a->held += n;
	return 0;
}

size_t arena_held(const struct arena *a)
{
	return a->held;
}

/*
 * The size of the next ordinary block: 8 KiB while the arena is small, then half of what it holds, up to 1 MiB. A
 * request that allocates much does it in blocks past malloc's mmap threshold, which go back to the system when they
 * are freed, where thousands of 8 KiB blocks would stay in malloc's free lists.
 */
static size_t next_block_size(const struct arena *a)
{
	size_t half = a->held / 2;
	return half < ARENA_BLOCK_SIZE ? ARENA_BLOCK_SIZE : half > ARENA_MAX_BLOCK ? ARENA_MAX_BLOCK : half;
}

void arena_reset(struct arena *a)
{
	/* Cleanups first: they live in the blocks. */
	for (struct arena_cleanup *c = a->cleanups; c != NULL; c = c->next)
		c->fn(c->ptr);
	a->cleanups = NULL;
	struct arena_block *b = a->blocks;
	while (b != NULL) {
		struct arena_block *next = b->next;
		free(b);
		b = next;
	}
	a->blocks = NULL;
	a->held = 0;
}

void *arena_alloc(struct arena *a, size_t size)
{
	size = (size + ARENA_ALIGN - 1) & ~(size_t)(ARENA_ALIGN - 1);
	struct arena_block *b = a->blocks;
	if (b == NULL || b->size - b->used < size) {
		size_t block = next_block_size(a);
		size_t cap = size > block ? size : block;
		b = xmalloc(sizeof(*b) + cap);
		b->size = cap;
		b->used = 0;
		a->held += sizeof(*b) + cap;
		/* A large one-off block goes behind the current one so the current one keeps filling. */
		if (a->blocks != NULL && size > block) {
			b->next = a->blocks->next;
			a->blocks->next = b;
		} else {
			b->next = a->blocks;
			a->blocks = b;
		}
	}
	void *p = b->data + b->used;
	b->used += size;
	return memset(p, 0, size);
}

char *arena_strndup(struct arena *a, const char *s, size_t len)
{
	char *p = arena_alloc(a, len + 1);
	memcpy(p, s, len);
	p[len] = '\0';
	return p;
}

char *arena_strdup(struct arena *a, const char *s)
{
	return arena_strndup(a, s, strlen(s));
}

char *arena_strip(struct arena *a, const char *s)
{
	while (isspace((unsigned char)*s))
		s++;
	size_t len = strlen(s);
	while (len > 0 && isspace((unsigned char)s[len - 1]))
		len--;
	return arena_strndup(a, s, len);
}

char *arena_vprintf(struct arena *a, const char *fmt, va_list ap)
{
	va_list copy;
	va_copy(copy, ap);
	int n = vsnprintf(NULL, 0, fmt, copy);
	va_end(copy);
	if (n < 0)
		return arena_strdup(a, "");
	char *p = arena_alloc(a, (size_t)n + 1);
	vsnprintf(p, (size_t)n + 1, fmt, ap);
	return p;
}

char *arena_printf(struct arena *a, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *p = arena_vprintf(a, fmt, ap);
	va_end(ap);
	return p;
}

void arena_defer(struct arena *a, void (*fn)(void *), void *ptr)
{
	if (ptr == NULL)
		return;
	struct arena_cleanup *c = arena_alloc(a, sizeof(*c));
	c->fn = fn;
	c->ptr = ptr;
	c->next = a->cleanups;
	a->cleanups = c;
}
