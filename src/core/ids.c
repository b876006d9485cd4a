/* Arrays of 64-bit ids; see ids.h. */
#include "core/ids.h"

#include <stdlib.h>
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

void ids_sort_unique(struct ids *a)
{
	if (a->n < 2)
		return;
	qsort(a->v, (size_t)a->n, sizeof(*a->v), ids_cmp);
	int kept = 1;
	for (int i = 1; i < a->n; i++)
		if (a->v[i] != a->v[kept - 1])
			a->v[kept++] = a->v[i];
	a->n = kept;
}
