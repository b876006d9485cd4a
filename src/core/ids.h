/* Arrays of 64-bit ids: a growable array in an arena and the comparator that sorts and searches them. */
#ifndef CONFAB_IDS_H
#define CONFAB_IDS_H

#include <stdint.h>

#include "core/arena.h"

/* A growable array of ids; {0} is empty. Its memory belongs to the arena given to ids_push(). */
struct ids {
	int64_t *v;
	int n, cap;
};

/* Appends id to a, growing it (doubling) in arena. */
void ids_push(struct arena *arena, struct ids *a, int64_t id);
/* Sorts a ascending and drops repeated ids (n log n). */
void ids_sort_unique(struct ids *a);
/* qsort()/bsearch() comparator of int64_t values, ascending. */
int ids_cmp(const void *a, const void *b);

#endif
