/* Allocation wrappers that abort instead of returning NULL (tmux style). */
#include "core/xalloc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void out_of_memory(size_t size)
{
	fprintf(stderr, "out of memory allocating %zu bytes\n", size);
	abort();
}

void *xmalloc(size_t size)
{
	void *p = malloc(size ? size : 1);
	if (p == NULL)
		out_of_memory(size);
	return p;
}

void *xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size ? size : 1);
	if (p == NULL)
		out_of_memory(n * size);
	return p;
}

void *xrealloc(void *ptr, size_t size)
{
	void *p = realloc(ptr, size ? size : 1);
	if (p == NULL)
		out_of_memory(size);
	return p;
}

char *xstrdup(const char *s)
{
	size_t len = strlen(s) + 1;
	return memcpy(xmalloc(len), s, len);
}
