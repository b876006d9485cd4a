/* Arrays of 64-bit ids; see ids.h. */
#include "core/ids.h"

#include <string.h>

void ids_push(struct arena *arena, struct ids *a, int64_t id)
{
	if (a->n == a->cap) {
		a->cap = a->cap ? 2 * a->cap : 8;
		int64_t *nv = arena_alloc(arena, (size_t)a->cap * sizeof(*nv));
		if (a->n)
			memcpy(nv, a->v, (size_t)a->n * sizeof(*nv));
		a->v = nv;
	}
	a->v[a->n++] = id;
}

int ids_cmp(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return (x > y) - (x < y);
}
