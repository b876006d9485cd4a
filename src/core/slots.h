/*
 * A fixed number of numbered slots shared by threads: the bookkeeping of the database and Redis pools, which
 * are sized independently of the thread count. A thread takes a free slot (waiting while none is free) and gives
 * it back when done.
 */
#ifndef CONFAB_SLOTS_H
#define CONFAB_SLOTS_H

#include <pthread.h>
#include <stdbool.h>

struct slots {
	pthread_mutex_t lock;
	pthread_cond_t freed;
	bool *busy;
	int n;
};

void slots_init(struct slots *s, int n);
void slots_destroy(struct slots *s);
/* Returns the index of a slot now owned by the caller; waits while all n are taken, and sets *waited_usec (NULL:
 * not wanted) to how long it waited (0 if a slot was free at once). */
int slots_take(struct slots *s, long long *waited_usec);
/* The index of a slot now owned by the caller if one is free, else -1 (no wait). */
int slots_try_take(struct slots *s);
/* Gives slot i back and wakes one waiter. */
void slots_give(struct slots *s, int i);

#endif
