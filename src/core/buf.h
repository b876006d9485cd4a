/*
 * A growable, length-tracked, NUL-terminated byte buffer with a hard maximum, so that hostile input cannot
 * grow memory without limit. The storage is malloc'ed and owned by the buffer: buf_release() frees it.
 */
#ifndef CONFAB_BUF_H
#define CONFAB_BUF_H

#include <stdbool.h>
#include <stddef.h>

struct buf {
	char *data; /* always NUL-terminated once anything was added; NULL when empty and never grown */
	size_t len;
	size_t cap;
	size_t max; /* 0 = unlimited */
};

void buf_init(struct buf *b, size_t max);
/* Each returns 0, or -1 (and leaves the buffer unchanged) if the maximum would be exceeded. */
int buf_add(struct buf *b, const void *data, size_t len);
int buf_adds(struct buf *b, const char *s);
int buf_printf(struct buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Makes room for n more bytes at once (a writer that knows about how much it will add). 0 or -1, as above. */
int buf_reserve(struct buf *b, size_t n);
/* Returns the contents as a C string ("" when empty); valid until the next change. */
const char *buf_str(const struct buf *b);
void buf_release(struct buf *b);

#endif
