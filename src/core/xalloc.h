/* Allocation that never returns NULL: on exhaustion the process logs and aborts. */
#ifndef CONFAB_XALLOC_H
#define CONFAB_XALLOC_H

#include <stddef.h>

/* Each returns memory owned by the caller (free() it); none returns NULL. */
void *xmalloc(size_t size);
void *xcalloc(size_t n, size_t size);
void *xrealloc(void *ptr, size_t size);
char *xstrdup(const char *s);

#endif
